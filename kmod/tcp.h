/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: in-kernel memcache TCP listeners and connections.
 *
 * Listeners, connection dumps and totals reach netlink and the stats
 * command through the registry (kmod/registry.h); this header is the
 * transport's own view of its connections.
 */
#ifndef _GOBLIN_TCP_H
#define _GOBLIN_TCP_H

#include <linux/socket.h>
#include <linux/types.h>

/**
 * struct gb_tcp_conn_info - snapshot of one connection
 * @id:          connection id (unique for the module's lifetime, > 0)
 * @listener_id: id of the listener that accepted it
 * @peer:        remote address
 * @local:       local address
 * @requests:    requests executed
 * @bytes_in:    bytes received
 * @bytes_out:   bytes sent
 * @age:         seconds since accept
 * @idle:        seconds since the last received byte
 * @cpu:         the CPU that last ran its work, -1 before any
 */
struct gb_tcp_conn_info {
	u64 id;
	u32 listener_id;
	struct sockaddr_storage peer;
	struct sockaddr_storage local;
	u64 requests;
	u64 bytes_in;
	u64 bytes_out;
	u32 age;
	u32 idle;
	int cpu;
};

/**
 * gb_tcp_conn_walk() - report connections in id order
 * @cursor: in: report connections with id > *@cursor (start with 0);
 *          out: id of the last connection reported
 * @fn:     called for each connection under a spinlock (must not sleep,
 *          e.g. nla_put() into a dump skb); a non-zero return stops the
 *          walk and is returned (the cursor then names the last
 *          connection reported successfully)
 * @arg:    passed to @fn
 *
 * Suited to netlink dumps: call again with the updated cursor to resume.
 * Return: 0 when all connections were reported, else @fn's return value.
 */
int gb_tcp_conn_walk(u64 *cursor,
		     int (*fn)(const struct gb_tcp_conn_info *info, void *arg),
		     void *arg);

/**
 * struct gb_tcp_totals - module-wide connection counters
 * @curr_conns:  open connections
 * @total_conns: accepted since load
 * @rejected:    refused because of max_conns
 * @bytes_read:  bytes received
 * @bytes_written: bytes sent
 * @write_stalls: closed because their output made no progress
 * @data_stalls: closed because a value stopped arriving or came too slowly
 * @max_conns:   sum of the listeners' connection limits
 * @listeners:   listeners running
 */
struct gb_tcp_totals {
	u32 curr_conns;
	u64 total_conns;
	u64 rejected;
	u64 bytes_read;
	u64 bytes_written;
	u64 write_stalls;
	u64 data_stalls;
	u32 max_conns;
	u32 listeners;
};

void gb_tcp_get_totals(struct gb_tcp_totals *t);

#define GB_TCP_DEFAULT_MAX_CONNS	1024
#define GB_TCP_DEFAULT_WRITE_TIMEOUT	60	/* seconds */

#endif /* _GOBLIN_TCP_H */
