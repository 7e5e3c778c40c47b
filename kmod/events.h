/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: events that the lower layers report (kernel-side API).
 *
 * The store, the tails and the transports call gb_event_*() when something
 * an operator may want to watch happens; they do not know who listens.
 * One sink (struct gb_event_sink) receives them: the generic netlink
 * family registers itself at its init, which turns every event into a
 * multicast message. Further consumers (tracepoints, say) belong in
 * kmod/events.c, next to the dispatch, never in the callers.
 *
 * Every gb_event_*() may be called from any context (process, softirq,
 * with spinlocks held), at any time (also before a sink is registered and
 * after it is gone, in which case it does nothing), and never fails from
 * the caller's point of view: events are best effort and dropped under
 * memory pressure or when nobody listens.
 */
#ifndef _GOBLIN_EVENTS_H
#define _GOBLIN_EVENTS_H

#include <linux/socket.h>
#include <linux/types.h>

#include "listener.h"

/**
 * struct gb_event_sink - the receiver of every event
 * @listener: a listener started (@up) or stopped
 * @conn:     a connection was accepted (@open) or closed
 * @device:   an RDMA device appeared (@added) or went away
 * @safety:   a request was refused by a safety-marker check; @kind is
 *            GB_LISTENER_KIND_MAX when the store itself refused, @peer may
 *            be NULL, @reason is static text
 * @pressure: the store is evicting to stay within budget
 *
 * Called under rcu_read_lock() in the caller's context: must not sleep.
 * Every member must be set.
 */
struct gb_event_sink {
	void (*listener)(enum gb_listener_kind kind, u32 id,
			 const struct sockaddr_storage *addr, bool up);
	void (*conn)(enum gb_listener_kind kind, u32 listener_id, u64 id,
		     const struct sockaddr_storage *peer, bool open);
	void (*device)(const char *name, bool added);
	void (*safety)(enum gb_listener_kind kind,
		       const struct sockaddr_storage *peer, const char *reason);
	void (*pressure)(u64 used, u64 limit, u64 evicted);
};

void gb_events_set_sink(const struct gb_event_sink *sink);

/* A listener started (@up) or stopped. */
void gb_event_listener(enum gb_listener_kind kind, u32 id,
		       const struct sockaddr_storage *addr, bool up);
/* A connection was accepted (@open) or closed. */
void gb_event_conn(enum gb_listener_kind kind, u32 listener_id, u64 id,
		   const struct sockaddr_storage *peer, bool open);
/* An RDMA device appeared (@added) or went away. */
void gb_event_device(const char *name, bool added);
/* A request was refused by a safety-marker check; @reason is static text. */
void gb_event_safety(enum gb_listener_kind kind,
		     const struct sockaddr_storage *peer, const char *reason);
/* The store is evicting to stay within budget (rate-limit on the caller). */
void gb_event_pressure(u64 used, u64 limit, u64 evicted);

#endif /* _GOBLIN_EVENTS_H */
