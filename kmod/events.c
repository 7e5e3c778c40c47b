// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: dispatch of the events of kmod/events.h to their sink.
 *
 * The sink pointer is published with RCU: every gb_event_*() reads it and
 * calls through it inside one RCU read-side section, so a sink that
 * unregisters (gb_events_set_sink(NULL)) and then waits for a grace period
 * (synchronize_rcu()) knows that no event is still being delivered to it.
 */
#include <linux/rcupdate.h>

#include "events.h"
#include "trace.h"

static const struct gb_event_sink __rcu *gb_event_sink;

/**
 * gb_events_set_sink() - register or unregister the event sink
 * @sink: the sink, or NULL to unregister
 *
 * There is one sink; registering replaces it. After unregistering, the
 * caller must synchronize_rcu() before it frees or tears down anything
 * its sink callbacks use.
 */
void gb_events_set_sink(const struct gb_event_sink *sink)
{
	rcu_assign_pointer(gb_event_sink, sink);
}

/**
 * gb_event_listener() - report a listener going up or down
 * @kind: transport
 * @id:   listener id
 * @addr: bound address
 * @up:   true when it started, false when it stopped
 */
void gb_event_listener(enum gb_listener_kind kind, u32 id,
		       const struct sockaddr_storage *addr, bool up)
{
	const struct gb_event_sink *sink;

	rcu_read_lock();
	sink = rcu_dereference(gb_event_sink);
	if (sink)
		sink->listener(kind, id, addr, up);
	rcu_read_unlock();
}

/**
 * gb_event_conn() - report a connection being opened or closed
 * @kind:        transport
 * @listener_id: listener that accepted the connection
 * @id:          connection id
 * @peer:        remote address
 * @open:        true on accept, false on close
 */
void gb_event_conn(enum gb_listener_kind kind, u32 listener_id, u64 id,
		   const struct sockaddr_storage *peer, bool open)
{
	const struct gb_event_sink *sink;

	trace_gb_conn(kind == GB_LISTENER_RDMA, id,
		      open ? GB_TRACE_CONN_ACCEPT : GB_TRACE_CONN_FREE);
	rcu_read_lock();
	sink = rcu_dereference(gb_event_sink);
	if (sink)
		sink->conn(kind, listener_id, id, peer, open);
	rcu_read_unlock();
}

/**
 * gb_event_device() - report an RDMA device being added or removed
 * @name:  device name
 * @added: true when added
 */
void gb_event_device(const char *name, bool added)
{
	const struct gb_event_sink *sink;

	rcu_read_lock();
	sink = rcu_dereference(gb_event_sink);
	if (sink)
		sink->device(name, added);
	rcu_read_unlock();
}

/**
 * gb_event_safety() - report a request refused by a safety-marker check
 * @kind:   transport, or GB_LISTENER_KIND_MAX for the store itself
 * @peer:   remote address (may be NULL)
 * @reason: short static description
 */
void gb_event_safety(enum gb_listener_kind kind,
		     const struct sockaddr_storage *peer, const char *reason)
{
	const struct gb_event_sink *sink;

	rcu_read_lock();
	sink = rcu_dereference(gb_event_sink);
	if (sink)
		sink->safety(kind, peer, reason);
	rcu_read_unlock();
}

/**
 * gb_event_pressure() - report eviction pressure
 * @used:    bytes in use
 * @limit:   budget in bytes
 * @evicted: objects evicted since load
 */
void gb_event_pressure(u64 used, u64 limit, u64 evicted)
{
	const struct gb_event_sink *sink;

	rcu_read_lock();
	sink = rcu_dereference(gb_event_sink);
	if (sink)
		sink->pressure(used, limit, evicted);
	rcu_read_unlock();
}
