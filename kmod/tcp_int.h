/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: what the TCP listener machinery (kmod/tcp.c) lends to the
 * other protocols it carries (kmod/http.c).
 *
 * tcp.c owns listeners, accept, connection lifetime, the receive buffer,
 * the output queue (text and zero-copy object ranges), backpressure and
 * the idle and write-stall timers. A protocol supplies struct
 * gb_tcp_proto: its process() is called from the connection's work item
 * whenever input arrived or output drained, exactly where memcache's own
 * request loop runs, and follows the same contract. Memcache itself is
 * the built-in protocol (a listener without a struct gb_tcp_proto).
 */
#ifndef _GOBLIN_TCP_INT_H
#define _GOBLIN_TCP_INT_H

#include <linux/atomic.h>
#include <linux/socket.h>
#include <linux/types.h>

#include "listener.h"
#include "registry.h"

struct gb_obj;
struct gb_tcp_conn;
struct netlink_ext_ack;

/**
 * struct gb_tcp_proto - a protocol served over the TCP machinery
 * @kind:    listener kind (events, dumps, registry)
 * @name:    for messages ("http")
 * @refuse:  sent to a connection refused for max_conns, then closed
 * @init:    set up per-connection state (gb_tcp_set_priv()); -errno
 *           refuses the connection
 * @release: free it (connection closing; never concurrent with @process)
 * @process: consume the receive buffer, queue output. Return 1 when more
 *           input is needed, 0 when the output backlog is high (called
 *           again once it drained), -errno or -ECONNRESET to close after
 *           one last flush
 */
struct gb_tcp_proto {
	enum gb_listener_kind kind;
	const char *name;
	const char *refuse;
	int (*init)(struct gb_tcp_conn *c);
	void (*release)(struct gb_tcp_conn *c);
	int (*process)(struct gb_tcp_conn *c);
};

/* Listeners of one protocol (registry ops of that kind are built on these). */
int gb_tcp_listen(const struct gb_listener_config *cfg,
		  const struct gb_tcp_proto *proto,
		  struct netlink_ext_ack *extack);
int gb_tcp_unlisten(enum gb_listener_kind kind,
		    const struct sockaddr_storage *addr,
		    struct netlink_ext_ack *extack);
int gb_tcp_listener_walk(enum gb_listener_kind kind, u32 *cursor,
			 int (*fn)(const struct gb_listener_info *info,
				   void *arg),
			 void *arg);
int gb_tcp_kind_conn_walk(enum gb_listener_kind kind, u64 *cursor,
			  gb_conn_visit_fn fn, void *arg);
void gb_tcp_kind_stats(enum gb_listener_kind kind, struct gb_xport_stats *st);
/*
 * Stop every listener of @kind; their connections are told to close and
 * go on their own (gb_tcp_exit() waits for every connection).
 */
void gb_tcp_kind_stop_all(enum gb_listener_kind kind);

/* Connection helpers for @process (work item context only). */
void *gb_tcp_priv(struct gb_tcp_conn *c);
void gb_tcp_set_priv(struct gb_tcp_conn *c, void *priv);
const struct gb_listener_config *gb_tcp_conn_cfg(struct gb_tcp_conn *c);
/* Unconsumed received bytes; gb_tcp_rx_consume() drops the first @n. */
size_t gb_tcp_rx(struct gb_tcp_conn *c, char **p);
void gb_tcp_rx_consume(struct gb_tcp_conn *c, size_t n);
/* Receive buffer size: a request head must fit. */
size_t gb_tcp_rx_size(void);
int gb_tcp_out_text(struct gb_tcp_conn *c, const char *p, size_t len);
/* Queue value bytes [@off, @off + @len) of @obj; takes over the reference. */
int gb_tcp_out_obj(struct gb_tcp_conn *c, struct gb_obj *obj, u64 off,
		   u64 len);
bool gb_tcp_out_pending(struct gb_tcp_conn *c);
bool gb_tcp_backlog(struct gb_tcp_conn *c);
void gb_tcp_count_request(struct gb_tcp_conn *c);
/*
 * Send what is queued, then close; @process is not called again (return
 * 0 from it right after this call).
 */
void gb_tcp_linger(struct gb_tcp_conn *c);
/*
 * Close the connection if it is still open at @deadline (jiffies) whatever
 * it receives meanwhile; 0 clears the deadline. Checked once a second.
 */
void gb_tcp_set_deadline(struct gb_tcp_conn *c, unsigned long deadline);

#endif /* _GOBLIN_TCP_INT_H */
