/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: split a listener address "HOST:PORT" (module parameters
 * memcache= and rdma=) into its host text and port.
 *
 * Plain C, no allocation, no kernel headers: it builds in the kernel and in
 * userspace (tests/unit, fuzz/). Accepted forms:
 *
 *	a.b.c.d:PORT	host "a.b.c.d", any family (no ':' allowed in it)
 *	:PORT		the IPv4 wildcard, host "0.0.0.0"
 *	[v6addr]:PORT	host "v6addr", must be IPv6 (may carry a "%scope")
 *	[]:PORT		the IPv6 wildcard, host "::"
 *
 * PORT is 1 to 5 decimal digits (leading zeros allowed, always decimal)
 * with a value in 1..65535; nothing may follow it. The host text is only
 * checked for its shape (brackets, ':' outside them, length); the caller
 * converts it to an address (inet_pton_with_scope() in the kernel).
 */
#ifndef _GB_ADDR_PARSE_H
#define _GB_ADDR_PARSE_H

#include "gb_compat.h"

/* Longest host text, without the brackets and the NUL (INET6_ADDRSTRLEN - 1) */
#define GB_ADDR_HOST_MAX	47
/* Longest port text */
#define GB_ADDR_PORT_DIGITS	5
/* Longest accepted address string: "[" HOST "]:" PORT */
#define GB_ADDR_STR_MAX		(1 + GB_ADDR_HOST_MAX + 2 + GB_ADDR_PORT_DIGITS)

/**
 * struct gb_addr_spec - a split listener address
 * @host: host text, NUL-terminated, never empty (wildcards are spelled out)
 * @port: port, host byte order, never 0
 * @v6:   the host was bracketed: it must parse as an IPv6 address
 */
struct gb_addr_spec {
	char host[GB_ADDR_HOST_MAX + 1];
	u16 port;
	bool v6;
};

/**
 * gb_addr_split() - split "HOST:PORT"
 * @s:    the address text (need not be NUL-terminated)
 * @len:  its length; a NUL byte inside it makes it malformed
 * @spec: the result, written only on success
 *
 * Return: true if @s has one of the accepted forms.
 */
bool gb_addr_split(const char *s, size_t len, struct gb_addr_spec *spec);

#endif /* _GB_ADDR_PARSE_H */
