/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: listener configuration shared by the transports and netlink.
 *
 * Each listener is configured on its own (address, limits, RDMA window
 * geometry), so several listeners of one kind can coexist with different
 * settings. Transports implement struct gb_listener_ops (kmod/registry.h);
 * netlink only talks to listeners through the registry.
 */
#ifndef _GOBLIN_LISTENER_H
#define _GOBLIN_LISTENER_H

#include <linux/socket.h>
#include <linux/types.h>

enum gb_listener_kind {
	GB_LISTENER_MEMCACHE,	/* memcache text protocol over TCP */
	GB_LISTENER_RDMA,	/* Goblin protocol v3 over RDMA RC */
	GB_LISTENER_HTTP,	/* HTTP/1.1 over TCP */
	GB_LISTENER_KIND_MAX,
};

/**
 * struct gb_listener_config - settings of one listener
 * @kind:         transport
 * @addr:         bind address (IPv4 or IPv6, port in network order)
 * @max_conns:    connection limit (0 = transport default)
 * @idle_timeout: seconds before an idle connection is closed (0 = never)
 * @write_timeout: memcache: seconds a connection's output may make no
 *                progress before it is closed (0 = default, 60)
 * @window:       RDMA bulk window size in bytes (0 = default)
 * @windows:      RDMA bulk windows per QP (0 = default)
 * @credits:      RDMA control ring credits (0 = default)
 * @max_peer_conns: RDMA connections from one peer address (0 = default)
 * @header_timeout: HTTP: seconds a request head may take to arrive
 *                (0 = default, 10)
 */
struct gb_listener_config {
	enum gb_listener_kind kind;
	struct sockaddr_storage addr;
	u32 max_conns;
	u32 idle_timeout;
	u32 write_timeout;
	u32 window;
	u32 windows;
	u32 credits;
	u32 max_peer_conns;
	u32 header_timeout;
};

/**
 * struct gb_listener_info - what a dump reports about one listener
 * @cfg:         effective configuration (defaults filled in)
 * @id:          stable identifier
 * @conns:       open connections
 * @conns_total: connections accepted since creation
 * @refused:     connections refused (limit, bad handshake)
 */
struct gb_listener_info {
	struct gb_listener_config cfg;
	u32 id;
	u32 conns;
	u64 conns_total;
	u64 refused;
};

bool gb_listener_addr_equal(const struct sockaddr_storage *a,
			    const struct sockaddr_storage *b);
int gb_listener_parse_addr(const char *s, struct sockaddr_storage *ss);

#endif /* _GOBLIN_LISTENER_H */
