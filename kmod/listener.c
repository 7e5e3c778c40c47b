// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: helpers shared by every transport's listeners.
 */
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "addr_parse.h"
#include "listener.h"

/**
 * gb_listener_addr_equal() - compare two listener addresses
 * @a: first address
 * @b: second address
 *
 * Return: true if both are the same family, address and port.
 */
bool gb_listener_addr_equal(const struct sockaddr_storage *a,
			    const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       ipv6_addr_equal(&x->sin6_addr, &y->sin6_addr);
	}
	return false;
}

/**
 * gb_listener_parse_addr() - parse a listener address from a module parameter
 * @s:  "a.b.c.d:port", "[v6addr]:port", or ":port" / "[]:port" for the
 *      IPv4 / IPv6 wildcard address (see kmod/proto/addr_parse.h)
 * @ss: the parsed address, port in network order
 *
 * Return: 0, or -EINVAL if @s is malformed or the port is 0.
 */
int gb_listener_parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct gb_addr_spec spec;
	int err;

	if (!gb_addr_split(s, strnlen(s, GB_ADDR_STR_MAX + 1), &spec))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	/* no port text: inet_pton_with_scope() would read "010" as octal */
	err = inet_pton_with_scope(&init_net, spec.v6 ? AF_INET6 : AF_INET,
				   spec.host, NULL, ss);
	if (err)
		return err;
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(spec.port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(spec.port);
	return 0;
}
