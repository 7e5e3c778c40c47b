// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: listener address splitting ("HOST:PORT"), see addr_parse.h.
 */
#include "addr_parse.h"

/* Host text may hold these: no space, no control byte, nothing past ASCII. */
static bool gb_addr_host_char(char c, bool v6)
{
	if (c <= ' ' || c > '~' || c == '[' || c == ']')
		return false;
	/* outside brackets a ':' would make the port ambiguous */
	return v6 || c != ':';
}

bool gb_addr_split(const char *s, size_t len, struct gb_addr_spec *spec)
{
	const char *host = s;
	size_t hlen, plen, i;
	bool v6 = false;
	u32 port = 0;

	if (!len || len > GB_ADDR_STR_MAX)
		return false;
	/* the port follows the last ':' (IPv6 hosts have theirs in brackets) */
	for (hlen = len; hlen > 0 && s[hlen - 1] != ':'; hlen--)
		;
	if (!hlen)
		return false;
	hlen--;
	plen = len - hlen - 1;
	if (!plen || plen > GB_ADDR_PORT_DIGITS)
		return false;
	for (i = hlen + 1; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		port = port * 10 + (s[i] - '0');
	}
	if (!port || port > 0xffff)
		return false;

	if (hlen && s[0] == '[') {
		if (hlen < 2 || s[hlen - 1] != ']')
			return false;
		host = s + 1;
		hlen -= 2;
		v6 = true;
	}
	if (hlen > GB_ADDR_HOST_MAX)
		return false;
	for (i = 0; i < hlen; i++) {
		if (!gb_addr_host_char(host[i], v6))
			return false;
	}
	if (!hlen) {
		host = v6 ? "::" : "0.0.0.0";
		hlen = strlen(host);
	}
	memcpy(spec->host, host, hlen);
	spec->host[hlen] = '\0';
	spec->port = port;
	spec->v6 = v6;
	return true;
}
