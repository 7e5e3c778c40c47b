// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the listener address splitter
 * (kmod/proto/addr_parse.c, the memcache= and rdma= module parameters).
 *
 * The input is handed to gb_addr_split() from a heap buffer of exactly its
 * size (no NUL: ASan sees any read past the end). A refusal must leave the
 * result untouched. An accepted input is checked against the grammar of
 * addr_parse.h, rederived here from the input bytes, and the result must
 * format back to a string that splits to the same result. A violation traps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr_parse.h"

static void fail(const char *why)
{
	fprintf(stderr, "addr_parse invariant violated: %s\n", why);
	__builtin_trap();
}

static bool same(const struct gb_addr_spec *a, const struct gb_addr_spec *b)
{
	return !strcmp(a->host, b->host) && a->port == b->port &&
	       a->v6 == b->v6;
}

/* @spec was split from the @len bytes at @s: check it against the input. */
static void check_accepted(const char *s, size_t len,
			   const struct gb_addr_spec *spec)
{
	const char *colon = NULL, *host = s;
	size_t i, hlen, plen, n;
	unsigned long port = 0;

	if (len > GB_ADDR_STR_MAX)
		fail("accepted an overlong string");
	n = strnlen(spec->host, sizeof(spec->host));
	if (n == sizeof(spec->host))
		fail("host not NUL-terminated");
	if (!n)
		fail("empty host");
	for (i = 0; i < n; i++) {
		char c = spec->host[i];

		if (c <= ' ' || c > '~' || c == '[' || c == ']')
			fail("bad byte in host");
		if (c == ':' && !spec->v6)
			fail("':' in an IPv4 host");
	}
	for (i = 0; i < len; i++) {
		if (s[i] == ':')
			colon = s + i;
	}
	if (!colon)
		fail("accepted without ':'");
	hlen = colon - s;
	plen = len - hlen - 1;
	if (!plen || plen > GB_ADDR_PORT_DIGITS)
		fail("port digit count");
	for (i = 0; i < plen; i++) {
		if (colon[1 + i] < '0' || colon[1 + i] > '9')
			fail("non-digit in port");
		port = port * 10 + (colon[1 + i] - '0');
	}
	if (!port || port > 65535 || port != spec->port)
		fail("port value");
	if (hlen && s[0] == '[') {
		if (!spec->v6 || hlen < 2 || s[hlen - 1] != ']')
			fail("brackets");
		host++;
		hlen -= 2;
	} else if (spec->v6) {
		fail("v6 without brackets");
	}
	if (!hlen) {
		if (strcmp(spec->host, spec->v6 ? "::" : "0.0.0.0"))
			fail("wildcard host");
	} else if (hlen != n || memcmp(host, spec->host, n)) {
		fail("host text differs from the input");
	}
}

/* Format @spec back to text and split it again: same result. */
static void check_round_trip(const struct gb_addr_spec *spec)
{
	char text[GB_ADDR_STR_MAX + 16];
	struct gb_addr_spec again;
	int n;

	n = snprintf(text, sizeof(text), spec->v6 ? "[%s]:%u" : "%s:%u",
		     spec->host, spec->port);
	if (n < 0 || (size_t)n >= sizeof(text))
		fail("formatted address too long");
	if (!gb_addr_split(text, n, &again))
		fail("formatted address refused");
	if (!same(spec, &again))
		fail("formatted address splits differently");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct gb_addr_spec spec, untouched;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	memset(&spec, 0xa5, sizeof(spec));
	memset(&untouched, 0xa5, sizeof(untouched));
	if (gb_addr_split(buf, size, &spec)) {
		check_accepted(buf, size, &spec);
		check_round_trip(&spec);
	} else if (memcmp(&spec, &untouched, sizeof(spec))) {
		fail("refusal wrote the result");
	}
	free(buf);
	return 0;
}
