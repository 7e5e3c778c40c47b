// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the listener address splitter (kmod/proto/addr_parse.c),
 * used for the memcache= and rdma= module parameters.
 *
 * Every input is copied into a heap buffer of exactly its length (no NUL)
 * so that ASan catches any read past the end. Output is TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr_parse.h"

#include "unit_tap.h"
#include "../../tools/include/gb_compiler.h"

static struct gb_addr_spec spec;

/* Split the first @len bytes of @s from an exact-size heap copy. */
static bool split_n(const char *s, size_t len)
{
	char *buf = malloc(len ? len : 1);
	bool ok;

	if (!buf)
		abort();
	memcpy(buf, s, len);
	memset(&spec, 0xa5, sizeof(spec));
	ok = gb_addr_split(buf, len, &spec);
	free(buf);
	return ok;
}

static bool split(const char *s)
{
	return split_n(s, strlen(s));
}

/* @s splits into @host, @port, @v6. */
static bool accepts(const char *s, const char *host, unsigned int port,
		    bool v6)
{
	if (!split(s)) {
		printf("#   \"%s\" refused\n", s);
		return false;
	}
	if (strcmp(spec.host, host) || spec.port != port || spec.v6 != v6) {
		printf("#   \"%s\" -> \"%s\" %u v6=%d\n", s, spec.host,
		       spec.port, spec.v6);
		return false;
	}
	return true;
}

/* @s is refused and the result is left alone. */
static bool refuses_n(const char *s, size_t len)
{
	struct gb_addr_spec before;
	bool ok;

	memset(&before, 0xa5, sizeof(before));
	ok = split_n(s, len);
	if (ok)
		printf("#   \"%.*s\" accepted as \"%s\" %u\n", (int)len, s,
		       spec.host, spec.port);
	return !ok && !memcmp(&spec, &before, sizeof(spec));
}

static bool refuses(const char *s)
{
	return refuses_n(s, strlen(s));
}

static void test_ipv4(void)
{
	CHECK(accepts("127.0.0.1:11211", "127.0.0.1", 11211, false));
	CHECK(accepts("10.77.0.1:11311", "10.77.0.1", 11311, false));
	CHECK(accepts("0.0.0.0:1", "0.0.0.0", 1, false));
	CHECK(accepts("255.255.255.255:65535", "255.255.255.255", 65535,
		      false));
	/* only the shape is checked here; inet_pton_with_scope() does the rest */
	CHECK(accepts("localhost:80", "localhost", 80, false));
}

static void test_ipv6(void)
{
	CHECK(accepts("[::1]:11211", "::1", 11211, true));
	CHECK(accepts("[2001:db8::5]:7471", "2001:db8::5", 7471, true));
	CHECK(accepts("[fe80::1%veth0]:7471", "fe80::1%veth0", 7471, true));
	CHECK(accepts("[::ffff:10.77.0.1]:1", "::ffff:10.77.0.1", 1, true));
	/* a bracketed IPv4 address is left to fail as IPv6 */
	CHECK(accepts("[1.2.3.4]:80", "1.2.3.4", 80, true));
}

static void test_wildcards(void)
{
	CHECK(accepts(":11211", "0.0.0.0", 11211, false));
	CHECK(accepts("[]:11211", "::", 11211, true));
	CHECK(refuses(":"));
	CHECK(refuses("[]:"));
	CHECK(refuses(""));
	CHECK(refuses_n("", 0));
}

static void test_port(void)
{
	/* always decimal: the old parser handed "010" on as octal (8) */
	CHECK(accepts("127.0.0.1:010", "127.0.0.1", 10, false));
	CHECK(accepts("127.0.0.1:07471", "127.0.0.1", 7471, false));
	CHECK(refuses("127.0.0.1:011211"));	/* six digits */
	CHECK(accepts("127.0.0.1:00001", "127.0.0.1", 1, false));
	CHECK(refuses("127.0.0.1:000001"));
	CHECK(refuses("127.0.0.1:0"));
	CHECK(refuses("127.0.0.1:00000"));
	CHECK(refuses("127.0.0.1:65536"));
	CHECK(refuses("127.0.0.1:99999"));
	CHECK(refuses("127.0.0.1:123456"));
	CHECK(refuses("127.0.0.1:4294967377"));	/* 81 mod 2^32 */
	CHECK(refuses("127.0.0.1:+80"));
	CHECK(refuses("127.0.0.1:-80"));
	CHECK(refuses("127.0.0.1:0x50"));
	CHECK(refuses("127.0.0.1: 80"));
	CHECK(refuses("127.0.0.1:80 "));
	CHECK(refuses("127.0.0.1:80\n"));
	CHECK(refuses("127.0.0.1:8a"));
	CHECK(refuses("127.0.0.1"));
	CHECK(refuses("127.0.0.1:"));
	CHECK(refuses("[::1]"));
	CHECK(refuses("[::1]:"));
}

static void test_brackets(void)
{
	CHECK(refuses("::1:80"));		/* IPv6 needs brackets */
	CHECK(refuses("1.2.3.4:5:80"));
	CHECK(refuses("[::1:80"));
	CHECK(refuses("::1]:80"));
	CHECK(refuses("[::1]]:80"));
	CHECK(refuses("[[::1]:80"));
	CHECK(refuses("[::1]x:80"));
	CHECK(refuses("x[::1]:80"));
	CHECK(refuses("[:80"));
	CHECK(refuses("]:80"));
	CHECK(refuses("[]]:80"));
	CHECK(refuses("[a]b]:80"));
	CHECK(refuses("1.2.3.4]:80"));
}

static void test_bytes(void)
{
	CHECK(refuses(" 127.0.0.1:80"));
	CHECK(refuses("127.0.0.1 :80"));
	CHECK(refuses("127.0.\t0.1:80"));
	CHECK(refuses("[::1 ]:80"));
	CHECK(refuses("127.0.0.1\x7f:80"));
	CHECK(refuses("127.0.0.\xc3\xa9:80"));
	CHECK(refuses_n("127.0\0.0.1:80", 14));
	CHECK(refuses_n("127.0.0.1:8\0", 12));
	CHECK(refuses_n("127.0.0.1:80\0", 13));
	CHECK(refuses_n("\0:80", 4));
}

static void test_lengths(void)
{
	char s[2 * GB_ADDR_STR_MAX], host[GB_ADDR_HOST_MAX + 2];

	memset(host, 'a', sizeof(host) - 1);
	host[GB_ADDR_HOST_MAX] = '\0';
	/* longest host, longest port: exactly GB_ADDR_STR_MAX */
	snprintf(s, sizeof(s), "[%s]:00080", host);
	CHECK(strlen(s) == GB_ADDR_STR_MAX);
	CHECK(accepts(s, host, 80, true));
	snprintf(s, sizeof(s), "%s:65535", host);
	CHECK(accepts(s, host, 65535, false));
	/* one more host byte */
	host[GB_ADDR_HOST_MAX] = 'a';
	host[GB_ADDR_HOST_MAX + 1] = '\0';
	snprintf(s, sizeof(s), "[%s]:1", host);
	CHECK(refuses(s));
	snprintf(s, sizeof(s), "%s:1", host);
	CHECK(refuses(s));
	/* a valid prefix does not save an overlong string */
	memset(s, '1', sizeof(s));
	memcpy(s, "1.2.3.4:80", 10);
	CHECK(refuses_n(s, GB_ADDR_STR_MAX + 1));
	CHECK(refuses_n(s, sizeof(s)));
	/* the length bounds the string, not a NUL */
	CHECK(split_n("127.0.0.1:8080", 12) && spec.port == 80);
	CHECK(split_n("127.0.0.1:8080", 11) && spec.port == 8);
	CHECK(refuses_n("127.0.0.1:8080", 10));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "IPv4 host:port", test_ipv4 },
		{ "bracketed IPv6 host, with scope", test_ipv6 },
		{ "wildcard hosts are spelled out", test_wildcards },
		{ "port: 1..65535, decimal digits only", test_port },
		{ "brackets: IPv6 only, exactly one pair", test_brackets },
		{ "no space, control or non-ASCII bytes", test_bytes },
		{ "length limits, no NUL needed", test_lengths },
	};

	return unit_run(tests, ARRAY_SIZE(tests));
}
