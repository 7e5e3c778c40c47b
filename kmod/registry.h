/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: the registry of transports.
 *
 * Each transport (memcache TCP, RDMA, later HTTP) registers one struct
 * gb_listener_ops for its enum gb_listener_kind at init and unregisters
 * it at exit. Everything above the transports (netlink, the memcache
 * stats command) reaches them only through the registry: listeners
 * (add, del, walk), connection dumps (conn_walk), totals (stats) and
 * transport-wide settings. So nobody above includes a transport's header,
 * and a new transport plugs in by registering.
 */
#ifndef _GOBLIN_REGISTRY_H
#define _GOBLIN_REGISTRY_H

#include <linux/socket.h>
#include <linux/types.h>

#include "listener.h"

struct netlink_ext_ack;

/* RDMA protocol error kinds counted per connection and in total. */
enum gb_rdma_err {
	GB_RDMA_E_BAD_RECORD,	/* malformed / unknown record, bad size */
	GB_RDMA_E_CREDIT,	/* client sent beyond its credits */
	GB_RDMA_E_WINDOW,	/* bad window return */
	GB_RDMA_E_RANGE,	/* SET address/length outside the region */
	GB_RDMA_E_RDMA,		/* RDMA WRITE/READ failed (e.g. wrong rkey) */
	GB_RDMA_E_WC,		/* SEND/RECV completion error (peer died) */
	GB_RDMA_E_STORE,	/* store failed to read a value mid-transfer */
	GB_RDMA_E_REJECT,	/* connect requests rejected */
	GB_RDMA_E_NR,
};

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
 * @cpu:         the CPU that last ran the connection's work, -1 if none
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
	int cpu;
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

/**
 * struct gb_xport_stats - one transport's totals since module load
 * @conns:       open connections
 * @conns_total: connections accepted
 * @rejected:    connections refused because of a connection limit
 * @rx_bytes:    bytes received
 * @tx_bytes:    bytes sent
 * @write_stalls: connections closed because their output made no progress
 * @data_stalls: memcache connections closed because a value stopped
 *               arriving or arrived too slowly
 * @max_conns:   sum of the listeners' connection limits
 * @listeners:   listeners running
 * @requests:    requests executed
 * @hits:        keys found
 * @misses:      keys not found
 * @sets:        values stored
 * @bytes_written: value bytes RDMA-written to clients
 * @bytes_read:  value bytes RDMA-read from clients
 * @windows_in_flight: gauge: bulk windows clients hold now
 * @errors:      protocol errors, indexed by enum gb_rdma_err
 * @http_methods: HTTP requests by method: GET, HEAD, PUT, DELETE, other
 * @http_status: HTTP responses by status class: [0] 1xx .. [4] 5xx
 *
 * A transport fills in what it counts and leaves the rest 0; the memcache
 * transport counts the first eight, the RDMA transport @conns and from
 * @requests on, the HTTP transport the first eight, @requests,
 * @bytes_written / @bytes_read (value bytes) and the http_* arrays.
 */
struct gb_xport_stats {
	u32 conns;
	u64 conns_total;
	u64 rejected;
	u64 rx_bytes;
	u64 tx_bytes;
	u64 write_stalls;
	u64 data_stalls;
	u32 max_conns;
	u32 listeners;
	u64 requests;
	u64 hits;
	u64 misses;
	u64 sets;
	u64 bytes_written;
	u64 bytes_read;
	u64 windows_in_flight;
	u64 errors[GB_RDMA_E_NR];
	u64 http_methods[5];
	u64 http_status[5];
};

/**
 * struct gb_listener_ops - one transport's operations
 * @add:  validate @cfg and start listening; -EEXIST if the address is taken
 * @del:  stop the listener bound to @addr and close its connections
 * @walk: report listeners with id > *@cursor to @fn until it returns
 *        non-zero; updates *@cursor
 * @conn_walk: report connections with id > *@cursor in ascending id
 *        order (ids of new connections must grow: that is what makes a
 *        dump report every connection that stays open exactly once), call
 *        @fn for each until @fn returns non-zero (then stop and return that
 *        value; *@cursor names the last connection reported), and return 0
 *        at the end. Called in process context (netlink: under
 *        genl_mutex); @fn never sleeps, so the walker may hold spinlocks
 *        or RCU while calling it. NULL: no connection dump.
 * @stats: fill in the transport's totals (@st is zeroed by the caller);
 *        process context, may sleep. NULL: no totals.
 * @get_max_conns: the cap on connections over all the transport's
 *        listeners (beside each listener's own limits); NULL: no such cap
 * @set_max_conns: change that cap; lowering it refuses new connections
 *        only
 * @get_lease_ms: lease length of one-sided reads (RDMA 3.3), 0 = off;
 *        NULL: no one-sided reads
 * @set_lease_ms: change it: new leases and connects only; 0 refuses
 *        LOOKUP, leases held run out
 */
struct gb_listener_ops {
	int (*add)(const struct gb_listener_config *cfg,
		   struct netlink_ext_ack *extack);
	int (*del)(const struct sockaddr_storage *addr,
		   struct netlink_ext_ack *extack);
	int (*walk)(u32 *cursor,
		    int (*fn)(const struct gb_listener_info *info, void *arg),
		    void *arg);
	int (*conn_walk)(u64 *cursor, gb_conn_visit_fn fn, void *arg);
	void (*stats)(struct gb_xport_stats *st);
	u32 (*get_max_conns)(void);
	void (*set_max_conns)(u32 max);
	u32 (*get_lease_ms)(void);
	void (*set_lease_ms)(u32 ms);
};

void gb_transport_register(enum gb_listener_kind kind,
			   const struct gb_listener_ops *ops);
void gb_transport_unregister(enum gb_listener_kind kind);
const struct gb_listener_ops *gb_transport_ops(enum gb_listener_kind kind);
void gb_transport_get_stats(enum gb_listener_kind kind,
			    struct gb_xport_stats *st);

#endif /* _GOBLIN_REGISTRY_H */
