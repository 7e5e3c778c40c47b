/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: generic netlink control plane, kernel-side API.
 *
 * Transports report events through kmod/events.h, whose sink this file
 * implements.
 *
 * Connection dumps: a transport that can enumerate its connections
 * registers a walker with gb_nl_set_conn_walk() at init and clears it
 * (walk = NULL) at exit. The walker must report connections with
 * id > *cursor in ascending id order (ids of new connections must grow:
 * that is what makes a dump report every connection that stays open
 * exactly once), call @fn for each until @fn returns
 * non-zero (then stop and return that value), and return 0 at the end. It
 * is called in process context under genl_mutex; @fn never sleeps, so the
 * walker may hold spinlocks or RCU while calling it.
 */
#ifndef _GOBLIN_NETLINK_H
#define _GOBLIN_NETLINK_H

#include <linux/socket.h>
#include <linux/types.h>

#include "listener.h"
#include "rdma.h"

/**
 * struct gb_conn_info - what a connection dump reports about a connection
 * @kind:        transport
 * @listener_id: id of the listener that accepted it
 * @id:          connection id, unique per transport, ascending
 * @peer:        remote address
 * @rx_bytes:    bytes received
 * @tx_bytes:    bytes sent (payload and protocol)
 * @cmds:        requests served
 * @idle:        seconds since the last request
 * @device:      RDMA device name ("" for TCP)
 * @rdma:        the fields below are valid (an RDMA connection)
 * @hits:        keys found
 * @misses:      keys not found
 * @bytes_written: value bytes RDMA-written to the client
 * @bytes_read:  value bytes RDMA-read from the client
 * @windows_in_flight: bulk windows filled and not yet returned
 * @errors:      protocol errors, indexed by enum gb_rdma_err
 */
struct gb_conn_info {
	enum gb_listener_kind kind;
	u32 listener_id;
	u64 id;
	struct sockaddr_storage peer;
	u64 rx_bytes;
	u64 tx_bytes;
	u64 cmds;
	u32 idle;
	char device[64];
	bool rdma;
	u64 hits;
	u64 misses;
	u64 bytes_written;
	u64 bytes_read;
	u32 windows_in_flight;
	u64 errors[GB_RDMA_E_NR];
};

typedef int (*gb_conn_visit_fn)(const struct gb_conn_info *info, void *arg);
typedef int (*gb_conn_walk_fn)(u64 *cursor, gb_conn_visit_fn fn, void *arg);

void gb_nl_set_conn_walk(enum gb_listener_kind kind, gb_conn_walk_fn walk);

#endif /* _GOBLIN_NETLINK_H */
