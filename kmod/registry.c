// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the registry of transports (see kmod/registry.h).
 *
 * One ops pointer per listener kind, set by the transport at its init and
 * cleared at its exit. Readers load it once per operation; the ops tables
 * are static and the transports' init and exit run in module init and
 * exit order (kmod/main.c). Two kinds of readers: netlink, which comes up
 * after the transports and goes down before them, and the memcache
 * "stats" command, which runs on TCP connections, so the TCP transport
 * unregisters only after its last connection is gone. No lock: the rule
 * is that no reader outlives the transport's exit.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/string.h>

#include "registry.h"

static const struct gb_listener_ops *gb_transports[GB_LISTENER_KIND_MAX];

/**
 * gb_transport_register() - make a transport reachable
 * @kind: its listener kind
 * @ops:  its operations (static, outlives the registration)
 */
void gb_transport_register(enum gb_listener_kind kind,
			   const struct gb_listener_ops *ops)
{
	if (WARN_ON_ONCE(kind >= GB_LISTENER_KIND_MAX))
		return;
	WARN_ON_ONCE(gb_transports[kind]);
	WRITE_ONCE(gb_transports[kind], ops);
}

/**
 * gb_transport_unregister() - make a transport unreachable (at its exit)
 * @kind: its listener kind
 */
void gb_transport_unregister(enum gb_listener_kind kind)
{
	if (WARN_ON_ONCE(kind >= GB_LISTENER_KIND_MAX))
		return;
	WRITE_ONCE(gb_transports[kind], NULL);
}

/**
 * gb_transport_ops() - the operations of a transport
 * @kind: listener kind
 *
 * Return: the registered ops, or NULL if @kind has no transport (now).
 */
const struct gb_listener_ops *gb_transport_ops(enum gb_listener_kind kind)
{
	if (kind >= GB_LISTENER_KIND_MAX)
		return NULL;
	return READ_ONCE(gb_transports[kind]);
}

/**
 * gb_transport_get_stats() - a transport's totals
 * @kind: listener kind
 * @st:   filled in; all zero if the transport is not registered or keeps
 *        no totals
 *
 * Process context (may sleep).
 */
void gb_transport_get_stats(enum gb_listener_kind kind,
			    struct gb_xport_stats *st)
{
	const struct gb_listener_ops *ops = gb_transport_ops(kind);

	memset(st, 0, sizeof(*st));
	if (ops && ops->stats)
		ops->stats(st);
}
