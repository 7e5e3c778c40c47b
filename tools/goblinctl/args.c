// SPDX-License-Identifier: GPL-2.0
/* goblinctl: arguments, names of values, command words, help. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "goblinctl.h"

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

uint64_t arg_u64(const char *what, const char *s, uint64_t max)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v > max)
		usage_die("%s: invalid number \"%s\"", what, s);
	return v;
}

/* Sizes: plain bytes or with a K/M/G/T suffix (powers of 1024). */
uint64_t arg_size(const char *what, const char *s, uint64_t max)
{
	char num[64], *end;
	uint64_t v, mul = 1;
	size_t n = strlen(s);
	const char *sfx;

	if (!n || n >= sizeof(num) || !isdigit((unsigned char)s[0]))
		usage_die("%s: invalid size \"%s\"", what, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	sfx = end;
	if (errno)
		usage_die("%s: invalid size \"%s\"", what, s);
	switch (toupper((unsigned char)*sfx)) {
	case '\0':
		break;
	case 'K':
		mul = 1ULL << 10;
		break;
	case 'M':
		mul = 1ULL << 20;
		break;
	case 'G':
		mul = 1ULL << 30;
		break;
	case 'T':
		mul = 1ULL << 40;
		break;
	default:
		usage_die("%s: invalid size suffix in \"%s\" (use K, M, G or T)",
			  what, s);
	}
	if (*sfx) {
		sfx++;
		if (!strcasecmp(sfx, "iB") || !strcasecmp(sfx, "B"))
			sfx += strlen(sfx);
		if (*sfx)
			usage_die("%s: invalid size suffix in \"%s\"", what, s);
	}
	if (v > max / mul)
		usage_die("%s: size \"%s\" too large", what, s);
	return v * mul;
}

bool arg_bool(const char *what, const char *s)
{
	if (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "yes") ||
	    !strcmp(s, "true"))
		return true;
	if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no") ||
	    !strcmp(s, "false"))
		return false;
	usage_die("%s: expected on or off, got \"%s\"", what, s);
	return false;
}

/* IPv4, IPv6, "a.b.c.d:port", "[v6]:port". */
void arg_addr(const char *s, struct addr *ad)
{
	char buf[INET6_ADDRSTRLEN + 16], *p, *host = buf;
	uint64_t port;

	if (strlen(s) >= sizeof(buf))
		usage_die("address: invalid \"%s\"", s);
	strcpy(buf, s);
	ad->port = -1;
	if (buf[0] == '[') {
		p = strchr(buf, ']');
		if (!p)
			usage_die("address: missing ']' in \"%s\"", s);
		*p++ = '\0';
		host = buf + 1;
		if (*p == ':') {
			if (!parse_u64(p + 1, &port) || port < 1 || port > 65535)
				usage_die("address: invalid port in \"%s\"", s);
			ad->port = port;
		} else if (*p) {
			usage_die("address: invalid \"%s\"", s);
		}
		if (inet_pton(AF_INET6, host, ad->a) != 1)
			usage_die("address: invalid IPv6 address \"%s\"", host);
		ad->family = AF_INET6;
		return;
	}
	if (inet_pton(AF_INET6, buf, ad->a) == 1) {
		ad->family = AF_INET6;
		return;
	}
	p = strrchr(buf, ':');
	if (p) {
		*p++ = '\0';
		if (!parse_u64(p, &port) || port < 1 || port > 65535)
			usage_die("address: invalid port in \"%s\"", s);
		ad->port = port;
	}
	if (inet_pton(AF_INET, host, ad->a) != 1)
		usage_die("address: invalid IPv4 address \"%s\"", host);
	ad->family = AF_INET;
}

void fmt_addr(char *buf, size_t len, int family, const void *a)
{
	if (!inet_ntop(family, a, buf, len))
		snprintf(buf, len, "?");
}

const char *const kind_names[GOBLIN_LISTENER_HTTP + 1] = {
	[GOBLIN_LISTENER_MEMCACHE] = "memcache",
	[GOBLIN_LISTENER_RDMA] = "rdma",
	[GOBLIN_LISTENER_HTTP] = "http",
};

const char *const numa_names[GOBLIN_NUMA_DEVICE + 1] = {
	[GOBLIN_NUMA_LOCAL] = "local",
	[GOBLIN_NUMA_INTERLEAVE] = "interleave",
	[GOBLIN_NUMA_BIND] = "bind",
	[GOBLIN_NUMA_DEVICE] = "device",
};

int lookup(const char *what, const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	fprintf(stderr, "%s: %s: unknown value \"%s\" (one of:", prog, what, s);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, ")\n");
	leave(2);
}

int match_word(const char *what, const char *w, const struct word *words,
	       size_t n)
{
	int id = -1;
	size_t i, len = strlen(w);
	bool ambiguous = false;

	for (i = 0; i < n; i++)
		if (!strcmp(w, words[i].name))
			return words[i].id;
	for (i = 0; len && i < n; i++) {
		if (strncmp(w, words[i].name, len))
			continue;
		if (id >= 0 && id != words[i].id)
			ambiguous = true;
		id = words[i].id;
	}
	if (id >= 0 && !ambiguous)
		return id;
	fprintf(stderr, "%s: %s: %s \"%s\" (", prog, what,
		ambiguous ? "ambiguous" : "unknown command", w);
	for (i = 0; i < n; i++)
		if (!ambiguous || !strncmp(w, words[i].name, len))
			fprintf(stderr, "%s%s", i ? ", " : "", words[i].name);
	fprintf(stderr, ")\n");
	leave(2);
}

bool is_help(const char *w)
{
	return !strcmp(w, "help") || !strcmp(w, "-h") || !strcmp(w, "--help");
}

/* Usage of the command being run, for `CMD help` and `CMD SUB -h`. */
const char *cmd_usage;

void __noreturn help_exit(void)
{
	printf("usage: %s %s\n", prog, cmd_usage);
	leave(0);
}

/* -h or --help as the word after a subcommand */
void sub_help(int argc, char **argv)
{
	if (argc >= 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")))
		help_exit();
}

const struct word show_set_words[] = {
	{ "show", W_SHOW }, { "list", W_SHOW }, { "set", W_SET },
};

const struct word show_words[] = {
	{ "show", W_SHOW }, { "list", W_SHOW },
};

const struct word listener_words[] = {
	{ "add", W_ADD }, { "del", W_DEL }, { "delete", W_DEL },
	{ "show", W_SHOW }, { "list", W_SHOW },
};

const char *name_of(const char *const *names, int n, unsigned int v)
{
	return v < (unsigned int)n && names[v] ? names[v] : "unknown";
}

void need_args(int argc, int n, const char *usage)
{
	if (argc < n)
		usage_die("usage: %s %s", prog, usage);
}
