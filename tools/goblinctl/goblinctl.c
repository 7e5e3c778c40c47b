// SPDX-License-Identifier: GPL-2.0
/*
 * goblinctl - configure and inspect Goblin Store over generic netlink.
 *
 * Every command builds one request, collects the replies as records (a flat
 * list of named, typed fields) and then prints them either as aligned text
 * or as JSON. The JSON field names are part of the interface: see
 * goblinctl(8) and Documentation/goblinctl.rst.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/goblin.h>

#include <json-c/json.h>

#include "../include/gb_compiler.h"

#define GOBLINCTL_VERSION "0.1.0"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static bool opt_json;
static bool opt_pretty;
static const char *prog = "goblinctl";

/* ------------------------------------------------------------------ */
/* Records                                                            */

enum ftype { F_U64, F_S64, F_STR, F_BOOL, F_SIZE, F_BIN };

struct field {
	const char *name;
	enum ftype type;
	uint64_t u;
	int64_t s;
	char *str;		/* F_STR, F_BIN (len in u) */
};

#define MAX_FIELDS 80

struct rec {
	int n;
	struct field f[MAX_FIELDS];
};

struct recs {
	size_t n, cap;
	struct rec **r;
};

/*
 * Leave without flushing other stdio streams: in batch mode this runs in a
 * child that shares the batch FILE with its parent.
 */
static void __noreturn leave(int status)
{
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}

static void __noreturn vdie(int status, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	leave(status);
}

static void __noreturn __printf(1, 2)
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(1, fmt, ap);
}

/* A syntax error: exit status 2, before anything is sent to the kernel. */
static void __noreturn __printf(1, 2)
usage_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(2, fmt, ap);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p)
		die("out of memory");
	return p;
}

static struct rec *rec_new(struct recs *rs)
{
	struct rec *r = xcalloc(1, sizeof(*r));

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->r = realloc(rs->r, rs->cap * sizeof(*rs->r));
		if (!rs->r)
			die("out of memory");
	}
	rs->r[rs->n++] = r;
	return r;
}

static void recs_free(struct recs *rs)
{
	size_t i;
	int j;

	for (i = 0; i < rs->n; i++) {
		for (j = 0; j < rs->r[i]->n; j++)
			free(rs->r[i]->f[j].str);
		free(rs->r[i]);
	}
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

static struct field *rec_add(struct rec *r, const char *name, enum ftype t)
{
	struct field *f;

	if (r->n >= MAX_FIELDS)
		die("internal error: too many fields");
	f = &r->f[r->n++];
	f->name = name;
	f->type = t;
	return f;
}

static void rec_u64(struct rec *r, const char *name, uint64_t v)
{
	rec_add(r, name, F_U64)->u = v;
}

static void rec_size(struct rec *r, const char *name, uint64_t v)
{
	rec_add(r, name, F_SIZE)->u = v;
}

static void rec_s64(struct rec *r, const char *name, int64_t v)
{
	rec_add(r, name, F_S64)->s = v;
}

static void rec_bool(struct rec *r, const char *name, bool v)
{
	rec_add(r, name, F_BOOL)->u = v;
}

static void rec_str(struct rec *r, const char *name, const char *s)
{
	struct field *f = rec_add(r, name, F_STR);

	f->str = strdup(s);
	if (!f->str)
		die("out of memory");
}

static void rec_bin(struct rec *r, const char *name, const void *p, size_t len)
{
	struct field *f = rec_add(r, name, F_BIN);

	f->str = xcalloc(1, len + 1);
	memcpy(f->str, p, len);
	f->u = len;
}

static const struct field *rec_get(const struct rec *r, const char *name)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].name, name))
			return &r->f[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Formatting                                                         */

static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char units[] = "KMGTPE";
	int i;

	if (!v) {
		snprintf(buf, len, "0");
		return;
	}
	for (i = 5; i >= 0; i--) {
		uint64_t unit = 1ULL << (10 * (i + 1));

		if (v >= unit && v % unit == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(v / unit),
				 units[i]);
			return;
		}
		if (v >= unit) {
			snprintf(buf, len, "%.1f%c", (double)v / unit, units[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* Human form of binary data: printable ASCII as is, others as \xNN. */
static void fmt_bin(char *buf, size_t len, const char *p, size_t n)
{
	size_t o = 0, i;

	for (i = 0; i < n && o + 5 < len; i++) {
		unsigned char c = p[i];

		if (c >= 0x21 && c < 0x7f && c != '\\')
			buf[o++] = c;
		else
			o += snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
}

static void fmt_field(char *buf, size_t len, const struct field *f)
{
	switch (f->type) {
	case F_U64:
		snprintf(buf, len, "%llu", (unsigned long long)f->u);
		break;
	case F_S64:
		snprintf(buf, len, "%lld", (long long)f->s);
		break;
	case F_SIZE:
		fmt_size(buf, len, f->u);
		break;
	case F_BOOL:
		snprintf(buf, len, "%s", f->u ? "on" : "off");
		break;
	case F_STR:
		snprintf(buf, len, "%s", f->str[0] ? f->str : "-");
		break;
	case F_BIN:
		fmt_bin(buf, len, f->str, f->u);
		break;
	}
}

/*
 * JSON, through json-c. Strings from the kernel and keys that are valid
 * UTF-8 without control characters are JSON strings as they are (no
 * \u escapes beyond what JSON requires). A key that is not (binary keys
 * of the RDMA protocol) is given as "key_hex": its bytes in lowercase hex,
 * instead of "key". Other strings that are not valid UTF-8 have each
 * invalid byte replaced by U+FFFD.
 */

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* A key shown as a JSON string: valid UTF-8, no C0 controls or DEL. */
static bool key_is_text(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, l;

	while (i < n) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			return false;
		l = utf8_seq(s + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

static json_object *xjson(json_object *o)
{
	if (!o)
		die("out of memory");
	return o;
}

static json_object *json_text(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i, l, o = 0;
	json_object *j;
	char *buf;

	if (n > INT_MAX / 3)
		die("string too long");
	for (i = 0; i < n; i += l) {
		l = utf8_seq(s + i, n - i);
		if (!l)
			break;
	}
	if (i >= n)
		return xjson(json_object_new_string_len(p, n));
	buf = xcalloc(1, n * 3 + 1);
	for (i = 0; i < n; i += l) {
		l = utf8_seq(s + i, n - i);
		if (l) {
			memcpy(buf + o, s + i, l);
			o += l;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			l = 1;
		}
	}
	j = xjson(json_object_new_string_len(buf, o));
	free(buf);
	return j;
}

static void json_add(json_object *obj, const char *name, json_object *v)
{
	if (json_object_object_add(obj, name, xjson(v)))
		die("out of memory");
}

static void json_add_field(json_object *obj, const struct field *f)
{
	static const char hex[] = "0123456789abcdef";
	char kname[64], *buf;
	size_t i;

	switch (f->type) {
	case F_U64:
	case F_SIZE:
		json_add(obj, f->name, json_object_new_uint64(f->u));
		break;
	case F_S64:
		json_add(obj, f->name, json_object_new_int64(f->s));
		break;
	case F_BOOL:
		json_add(obj, f->name, json_object_new_boolean(f->u));
		break;
	case F_STR:
		json_add(obj, f->name, json_text(f->str, strlen(f->str)));
		break;
	case F_BIN:
		if (key_is_text(f->str, f->u)) {
			json_add(obj, f->name, json_text(f->str, f->u));
			break;
		}
		buf = xcalloc(2, f->u + 1);
		for (i = 0; i < f->u; i++) {
			buf[2 * i] = hex[(unsigned char)f->str[i] >> 4];
			buf[2 * i + 1] = hex[f->str[i] & 15];
		}
		snprintf(kname, sizeof(kname), "%s_hex", f->name);
		json_add(obj, kname, json_object_new_string_len(buf, 2 * f->u));
		free(buf);
		break;
	}
}

static json_object *json_rec(const struct rec *r)
{
	json_object *obj = xjson(json_object_new_object());
	int i;

	for (i = 0; i < r->n; i++)
		json_add_field(obj, &r->f[i]);
	return obj;
}

static json_object *json_recs(const struct recs *rs)
{
	json_object *arr = xjson(json_object_new_array());
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (json_object_array_add(arr, json_rec(rs->r[i])))
			die("out of memory");
	return arr;
}

/*
 * Text of @obj: indented with -p unless @oneline (streams of documents,
 * one a line, whatever -p says).
 */
static const char *json_str(json_object *obj, bool oneline)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	if (opt_pretty && !oneline)
		flags |= JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	return json_object_to_json_string_ext(obj, flags);
}

/* Print @obj (consumed) as one JSON document and a newline. */
static void json_put(json_object *obj, bool oneline)
{
	puts(json_str(obj, oneline));
	fflush(stdout);
	json_object_put(obj);
}

/*
 * A JSON array printed element by element as a dump goes (constant
 * memory): json_stream_begin(), json_stream_add() for each, then
 * json_stream_end().
 */
static bool stream_first;

static void json_stream_begin(void)
{
	stream_first = true;
	putchar('[');
}

static void json_stream_add(json_object *obj)
{
	const char *t = json_str(obj, false);

	if (!stream_first)
		putchar(',');
	stream_first = false;
	if (opt_pretty) {
		/* indent the element one level inside the array */
		fputs("\n  ", stdout);
		for (; *t; t++) {
			putchar(*t);
			if (*t == '\n')
				fputs("  ", stdout);
		}
	} else {
		fputs(t, stdout);
	}
	json_object_put(obj);
}

static void json_stream_end(void)
{
	if (opt_pretty && !stream_first)
		putchar('\n');
	puts("]");
	fflush(stdout);
}

/* Human output: "name  value" lines aligned on the longest name. */
static void human_kv(const struct rec *r)
{
	char buf[1024];
	int i, w = 0;

	for (i = 0; i < r->n; i++)
		if ((int)strlen(r->f[i].name) > w)
			w = strlen(r->f[i].name);
	for (i = 0; i < r->n; i++) {
		fmt_field(buf, sizeof(buf), &r->f[i]);
		printf("%-*s  %s\n", w, r->f[i].name, buf);
	}
}

/* One table cell: width > 0 left-aligns, < 0 right-aligns. */
static void table_cell(const char *text, int width, bool last)
{
	if (width > 0 && last)
		printf("%s\n", text);
	else if (width > 0)
		printf("%-*s  ", width, text);
	else
		printf("%*s%s", -width, text, last ? "\n" : "  ");
}

/* Human output: a table with the given columns (field names). */
static void human_table(const struct recs *rs, const char *const *cols)
{
	char buf[1024];
	int nc = 0, c, *w;
	size_t i;

	while (cols[nc])
		nc++;
	w = xcalloc(nc, sizeof(*w));
	for (c = 0; c < nc; c++)
		w[c] = strlen(cols[c]);
	for (i = 0; i < rs->n; i++) {
		for (c = 0; c < nc; c++) {
			const struct field *f = rec_get(rs->r[i], cols[c]);
			int l;

			if (!f)
				continue;
			fmt_field(buf, sizeof(buf), f);
			l = strlen(buf);
			if (l > w[c])
				w[c] = l;
		}
	}
	/* Numbers are right-aligned, text left-aligned. */
	for (c = 0; c < nc; c++) {
		const struct field *f = NULL;

		for (i = 0; i < rs->n && !f; i++)
			f = rec_get(rs->r[i], cols[c]);
		if (f && f->type != F_STR && f->type != F_BIN &&
		    f->type != F_BOOL)
			w[c] = -w[c];
	}
	for (c = 0; c < nc; c++) {
		int k;

		for (k = 0; cols[c][k]; k++)
			buf[k] = toupper((unsigned char)cols[c][k]);
		buf[k] = '\0';
		table_cell(buf, w[c], c + 1 == nc);
	}
	for (i = 0; i < rs->n; i++) {
		for (c = 0; c < nc; c++) {
			const struct field *f = rec_get(rs->r[i], cols[c]);

			if (f)
				fmt_field(buf, sizeof(buf), f);
			else
				strcpy(buf, "-");
			table_cell(buf, w[c], c + 1 == nc);
		}
	}
	free(w);
}

/* ------------------------------------------------------------------ */
/* Argument parsing                                                   */

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static uint64_t arg_u64(const char *what, const char *s, uint64_t max)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v > max)
		usage_die("%s: invalid number \"%s\"", what, s);
	return v;
}

/* Sizes: plain bytes or with a K/M/G/T suffix (powers of 1024). */
static uint64_t arg_size(const char *what, const char *s, uint64_t max)
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

static bool arg_bool(const char *what, const char *s)
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

struct addr {
	int family;		/* AF_INET, AF_INET6 */
	unsigned char a[16];
	int port;		/* -1 = not given */
};

/* IPv4, IPv6, "a.b.c.d:port", "[v6]:port". */
static void arg_addr(const char *s, struct addr *ad)
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

static void fmt_addr(char *buf, size_t len, int family, const void *a)
{
	if (!inet_ntop(family, a, buf, len))
		snprintf(buf, len, "?");
}

static const char *const kind_names[] = {
	[GOBLIN_LISTENER_MEMCACHE] = "memcache",
	[GOBLIN_LISTENER_RDMA] = "rdma",
	[GOBLIN_LISTENER_HTTP] = "http",
};

static const char *const numa_names[] = {
	[GOBLIN_NUMA_LOCAL] = "local",
	[GOBLIN_NUMA_INTERLEAVE] = "interleave",
	[GOBLIN_NUMA_BIND] = "bind",
};

static int lookup(const char *what, const char *s, const char *const *names,
		  int n)
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

/*
 * Command words: an exact name, or an unambiguous prefix of names meaning
 * the same (`goblinctl l s` is `listener show`). Names with the same id
 * are aliases ("show" and "list").
 */
struct word {
	const char *name;
	int id;
};

static int match_word(const char *what, const char *w,
		      const struct word *words, size_t n)
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

static bool is_help(const char *w)
{
	return !strcmp(w, "help") || !strcmp(w, "-h") || !strcmp(w, "--help");
}

/* Usage of the command being run, for `CMD help` and `CMD SUB -h`. */
static const char *cmd_usage;

static void __noreturn help_exit(void)
{
	printf("usage: %s %s\n", prog, cmd_usage);
	leave(0);
}

/* -h or --help as the word after a subcommand */
static void sub_help(int argc, char **argv)
{
	if (argc >= 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")))
		help_exit();
}

enum { W_SHOW, W_SET, W_ADD, W_DEL };

static const struct word show_set_words[] = {
	{ "show", W_SHOW }, { "list", W_SHOW }, { "set", W_SET },
};

static const struct word show_words[] = {
	{ "show", W_SHOW }, { "list", W_SHOW },
};

static const struct word listener_words[] = {
	{ "add", W_ADD }, { "del", W_DEL }, { "delete", W_DEL },
	{ "show", W_SHOW }, { "list", W_SHOW },
};

static const char *name_of(const char *const *names, int n, unsigned int v)
{
	return v < (unsigned int)n && names[v] ? names[v] : "unknown";
}

/* ------------------------------------------------------------------ */
/* Netlink                                                            */

static struct nl_sock *sk;
static int family_id;

/* Names of top-level attributes, for error messages. */
static const char *const attr_names[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_MEMORY] = "memory",
	[GOBLIN_A_BLOCK] = "block",
	[GOBLIN_A_RAM_HEAD] = "ram_head",
	[GOBLIN_A_SSD_DIR] = "ssd_dir",
	[GOBLIN_A_SSD_MAX] = "ssd_max",
	[GOBLIN_A_PROMOTION] = "promotion",
	[GOBLIN_A_MLOCK] = "mlock",
	[GOBLIN_A_CORES] = "cores",
	[GOBLIN_A_LISTENER_KIND] = "listener kind",
	[GOBLIN_A_ADDR4] = "address",
	[GOBLIN_A_ADDR6] = "address",
	[GOBLIN_A_PORT] = "port",
	[GOBLIN_A_WINDOW] = "window",
	[GOBLIN_A_WINDOWS] = "windows",
	[GOBLIN_A_MAX_CONNS] = "max_conns",
	[GOBLIN_A_IDLE_TIMEOUT] = "idle_timeout",
	[GOBLIN_A_CREDITS] = "credits",
	[GOBLIN_A_MAX_PEER_CONNS] = "max_peer_conns",
	[GOBLIN_A_RDMA_MAX_CONNS] = "rdma_max_conns",
	[GOBLIN_A_WRITE_TIMEOUT] = "write_timeout",
	[GOBLIN_A_KEY] = "key",
	[GOBLIN_A_PREFIX] = "prefix",
	[GOBLIN_A_NUMA_POLICY] = "policy",
	[GOBLIN_A_NUMA_NODE] = "node",
};

struct req {
	struct nl_msg *msg;
	int error;		/* negative errno from the kernel */
	char errmsg[512];
	bool done;
	bool intr;
	int (*parse)(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
	void *arg;
};

static void nl_open(void)
{
	int one = 1, fd;

	if (sk)
		return;
	sk = nl_socket_alloc();
	if (!sk)
		die("out of memory");
	if (genl_connect(sk))
		die("cannot open a generic netlink socket");
	fd = nl_socket_get_fd(sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(sk, 1 << 20, 1 << 20);
	family_id = genl_ctrl_resolve(sk, GOBLIN_GENL_NAME);
	if (family_id < 0)
		die("goblin module not loaded (try: modprobe goblin)");
}

/*
 * A request, built before any socket is opened (so that every syntax error
 * is reported as such, module or not); req_run() fills in the family id.
 */
static struct nl_msg *req_msg(uint8_t cmd, int flags)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		die("out of memory");
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, flags,
			 cmd, GOBLIN_GENL_VERSION))
		die("cannot build request");
	return msg;
}

/* Name of the attribute at byte @offs of the request we sent. */
static const char *offending_attr(struct nl_msg *msg, uint32_t offs)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *a;

	if (offs < NLMSG_HDRLEN + GENL_HDRLEN ||
	    offs + sizeof(*a) > nlh->nlmsg_len)
		return NULL;
	a = (struct nlattr *)((char *)nlh + offs);
	if (nla_type(a) > GOBLIN_A_MAX)
		return NULL;
	return attr_names[nla_type(a)];
}

/* Decode the extended ack TLVs following struct nlmsgerr. */
static void parse_ext_ack(struct req *rq, struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = nlmsg_data(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { NULL };
	struct nlattr *ptb[NL_POLICY_TYPE_ATTR_MAX + 1] = { NULL };
	const char *attr = NULL, *msg = NULL;
	size_t off = sizeof(*e), len;
	char range[128] = "";

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		goto out;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
		goto out;
	len = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off), len, NULL))
		goto out;
	if (tb[NLMSGERR_ATTR_MSG])
		msg = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	if (tb[NLMSGERR_ATTR_OFFS])
		attr = offending_attr(rq->msg,
				      nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		uint32_t t = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);

		if (t <= GOBLIN_A_MAX)
			attr = attr_names[t];
	}
	if (tb[NLMSGERR_ATTR_POLICY] &&
	    !nla_parse_nested(ptb, NL_POLICY_TYPE_ATTR_MAX,
			      tb[NLMSGERR_ATTR_POLICY], NULL)) {
		struct nlattr *lo = ptb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U];
		struct nlattr *hi = ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U];

		if (lo && hi)
			snprintf(range, sizeof(range),
				 " (valid range %llu..%llu)",
				 (unsigned long long)nla_get_u64(lo),
				 (unsigned long long)nla_get_u64(hi));
		else if (ptb[NL_POLICY_TYPE_ATTR_MIN_LENGTH] &&
			 ptb[NL_POLICY_TYPE_ATTR_MAX_LENGTH])
			snprintf(range, sizeof(range),
				 " (valid length %u..%u bytes)",
				 nla_get_u32(ptb[NL_POLICY_TYPE_ATTR_MIN_LENGTH]),
				 nla_get_u32(ptb[NL_POLICY_TYPE_ATTR_MAX_LENGTH]));
	}
out:
	if (!msg)
		msg = strerror(-rq->error);
	if (attr && strncmp(msg, attr, strlen(attr)))
		snprintf(rq->errmsg, sizeof(rq->errmsg), "%s: %s%s", attr, msg,
			 range);
	else
		snprintf(rq->errmsg, sizeof(rq->errmsg), "%s%s", msg, range);
}

static int cb_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct req *rq = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);

	rq->error = e->error;
	rq->done = true;
	if (e->error)
		parse_ext_ack(rq, nlh);
	return NL_STOP;
}

static int cb_finish(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	rq->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err = *(int *)nlmsg_data(nlh);

		if (err < 0) {
			rq->error = err;
			snprintf(rq->errmsg, sizeof(rq->errmsg), "%s",
				 strerror(-err));
		}
	}
	return NL_STOP;
}

static int cb_ack(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;

	rq->done = true;
	return NL_STOP;
}

static int cb_valid(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[GOBLIN_A_MAX + 1];

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		rq->intr = true;
	if (genlmsg_parse(nlh, 0, tb, GOBLIN_A_MAX, NULL))
		return NL_SKIP;
	if (rq->parse)
		return rq->parse(tb, nlh, rq->arg);
	return NL_OK;
}

/* The failed request of the last req_run(..., false). */
static struct req last_err;

static void __noreturn explain(const struct req *rq)
{
	if (rq->error == -EPERM)
		die("%s",
		    "permission denied: this command changes or reveals protected state and needs CAP_NET_ADMIN (run as root)");
	if (rq->error == -EOPNOTSUPP && !rq->errmsg[0])
		die("not supported by this goblin module");
	die("%s", rq->errmsg[0] ? rq->errmsg : strerror(-rq->error));
}

/* Send @msg (consumed) and process replies until ACK/DONE/error. */
static int req_run(struct nl_msg *msg,
		   int (*parse)(struct nlattr **, struct nlmsghdr *, void *),
		   void *arg, bool fatal)
{
	struct req rq = { .msg = msg, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int err;

	nl_open();
	nlmsg_hdr(msg)->nlmsg_type = family_id;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		die("out of memory");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, cb_valid, &rq);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, &rq);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cb_ack, &rq);
	nl_cb_err(cb, NL_CB_CUSTOM, cb_error, &rq);
	err = nl_send_auto(sk, msg);
	if (err < 0)
		die("cannot send request: %s", nl_geterror(err));
	while (!rq.done) {
		err = nl_recvmsgs(sk, cb);
		if (err == -NLE_DUMP_INTR) {
			rq.intr = true;
			continue;
		}
		if (err < 0 && !rq.done) {
			if (!rq.error) {
				rq.error = -EIO;
				snprintf(rq.errmsg, sizeof(rq.errmsg),
					 "netlink: %s", nl_geterror(err));
			}
			break;
		}
	}
	nl_cb_put(cb);
	nlmsg_free(msg);
	if (rq.error && fatal)
		explain(&rq);
	if (rq.error)
		last_err = rq;
	if (rq.error)
		return rq.error;
	return rq.intr ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Parsers of replies into records                                    */

static uint64_t get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t get_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static void rec_addr(struct rec *r, const char *name, const char *pname,
		     struct nlattr *a4, struct nlattr *a6, struct nlattr *port)
{
	char buf[INET6_ADDRSTRLEN];

	if (a4 && nla_len(a4) == 4)
		fmt_addr(buf, sizeof(buf), AF_INET, nla_data(a4));
	else if (a6 && nla_len(a6) == 16)
		fmt_addr(buf, sizeof(buf), AF_INET6, nla_data(a6));
	else
		strcpy(buf, "");
	rec_str(r, name, buf);
	rec_u64(r, pname, port ? nla_get_u16(port) : 0);
}

static int parse_store(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r = rec_new(arg);

	rec_size(r, "memory", get_u64(tb[GOBLIN_A_MEMORY]));
	rec_size(r, "block", get_u32(tb[GOBLIN_A_BLOCK]));
	rec_size(r, "ram_head", get_u32(tb[GOBLIN_A_RAM_HEAD]));
	rec_str(r, "ssd_dir", tb[GOBLIN_A_SSD_DIR] ?
		nla_get_string(tb[GOBLIN_A_SSD_DIR]) : "");
	rec_size(r, "ssd_max", get_u64(tb[GOBLIN_A_SSD_MAX]));
	rec_u64(r, "promotion", get_u32(tb[GOBLIN_A_PROMOTION]));
	rec_bool(r, "mlock", tb[GOBLIN_A_MLOCK] &&
		 nla_get_u8(tb[GOBLIN_A_MLOCK]));
	rec_u64(r, "cores", get_u32(tb[GOBLIN_A_CORES]));
	rec_u64(r, "rdma_max_conns", get_u32(tb[GOBLIN_A_RDMA_MAX_CONNS]));
	return NL_OK;
}

static const char *const stats_names[GOBLIN_STATS_A_MAX + 1] = {
	[GOBLIN_STATS_A_CURR_ITEMS] = "curr_items",
	[GOBLIN_STATS_A_TOTAL_ITEMS] = "total_items",
	[GOBLIN_STATS_A_BYTES] = "bytes",
	[GOBLIN_STATS_A_HEAD_BYTES] = "head_bytes",
	[GOBLIN_STATS_A_TAIL_BYTES] = "tail_bytes",
	[GOBLIN_STATS_A_EVICTIONS] = "evictions",
	[GOBLIN_STATS_A_EXPIRED_UNFETCHED] = "expired_unfetched",
	[GOBLIN_STATS_A_RECLAIMED] = "reclaimed",
	[GOBLIN_STATS_A_GET_HITS] = "get_hits",
	[GOBLIN_STATS_A_GET_MISSES] = "get_misses",
	[GOBLIN_STATS_A_GET_EXPIRED] = "get_expired",
	[GOBLIN_STATS_A_GET_FLUSHED] = "get_flushed",
	[GOBLIN_STATS_A_CMD_SET] = "cmd_set",
	[GOBLIN_STATS_A_CMD_TOUCH] = "cmd_touch",
	[GOBLIN_STATS_A_TOUCH_HITS] = "touch_hits",
	[GOBLIN_STATS_A_TOUCH_MISSES] = "touch_misses",
	[GOBLIN_STATS_A_DELETE_HITS] = "delete_hits",
	[GOBLIN_STATS_A_DELETE_MISSES] = "delete_misses",
	[GOBLIN_STATS_A_INCR_HITS] = "incr_hits",
	[GOBLIN_STATS_A_INCR_MISSES] = "incr_misses",
	[GOBLIN_STATS_A_DECR_HITS] = "decr_hits",
	[GOBLIN_STATS_A_DECR_MISSES] = "decr_misses",
	[GOBLIN_STATS_A_CAS_HITS] = "cas_hits",
	[GOBLIN_STATS_A_CAS_MISSES] = "cas_misses",
	[GOBLIN_STATS_A_CAS_BADVAL] = "cas_badval",
	[GOBLIN_STATS_A_BLOCKS_TOTAL] = "blocks_total",
	[GOBLIN_STATS_A_BLOCKS_HUGE] = "blocks_huge",
	[GOBLIN_STATS_A_BLOCKS_SMALL] = "blocks_small",
	[GOBLIN_STATS_A_PAGES_FREE] = "pages_free",
	[GOBLIN_STATS_A_MEMORY_LIMIT] = "memory_limit",
	[GOBLIN_STATS_A_SSD_LIMIT] = "ssd_limit",
	[GOBLIN_STATS_A_LISTENERS] = "listeners",
	[GOBLIN_STATS_A_CONNS] = "conns",
	[GOBLIN_STATS_A_CONNS_TOTAL] = "conns_total",
	[GOBLIN_STATS_A_REFUSED] = "refused",
	[GOBLIN_STATS_A_PAGES_QUARANTINED] = "pages_quarantined",
	[GOBLIN_STATS_A_QUARANTINED_TOTAL] = "quarantined_total",
	[GOBLIN_STATS_A_TCP_BYTES_IN] = "tcp_bytes_in",
	[GOBLIN_STATS_A_TCP_BYTES_OUT] = "tcp_bytes_out",
	[GOBLIN_STATS_A_TCP_REJECTED] = "tcp_rejected",
	[GOBLIN_STATS_A_RDMA_REQUESTS] = "rdma_requests",
	[GOBLIN_STATS_A_RDMA_HITS] = "rdma_hits",
	[GOBLIN_STATS_A_RDMA_MISSES] = "rdma_misses",
	[GOBLIN_STATS_A_RDMA_SETS] = "rdma_sets",
	[GOBLIN_STATS_A_RDMA_BYTES_WRITTEN] = "rdma_bytes_written",
	[GOBLIN_STATS_A_RDMA_BYTES_READ] = "rdma_bytes_read",
	[GOBLIN_STATS_A_RDMA_ERRORS] = "rdma_errors",
	[GOBLIN_STATS_A_RDMA_WINDOWS_IN_FLIGHT] = "rdma_windows_in_flight",
	[GOBLIN_STATS_A_TAIL_IO_ERRORS] = "tail_io_errors",
	[GOBLIN_STATS_A_TAIL_WB_ERRORS] = "tail_wb_errors",
	[GOBLIN_STATS_A_META_BYTES] = "meta_bytes",
};

/*
 * GOBLIN_RDMA_ERR_A_* as stats fields; connection fields drop the "rdma_"
 * (RDMA_ERR_CONN_NAME).
 */
static const char *const rdma_err_names[GOBLIN_RDMA_ERR_A_MAX + 1] = {
	[GOBLIN_RDMA_ERR_A_BAD_RECORD] = "rdma_err_bad_record",
	[GOBLIN_RDMA_ERR_A_CREDIT] = "rdma_err_credit",
	[GOBLIN_RDMA_ERR_A_WINDOW] = "rdma_err_window",
	[GOBLIN_RDMA_ERR_A_RANGE] = "rdma_err_range",
	[GOBLIN_RDMA_ERR_A_RDMA_OP] = "rdma_err_rdma_op",
	[GOBLIN_RDMA_ERR_A_COMPLETION] = "rdma_err_completion",
	[GOBLIN_RDMA_ERR_A_STORE] = "rdma_err_store",
	[GOBLIN_RDMA_ERR_A_REJECTED] = "rdma_err_rejected",
};

#define RDMA_ERR_CONN_NAME(i)	(rdma_err_names[i] + strlen("rdma_"))

/*
 * Add the counters of a GOBLIN_RDMA_ERR_A_* nest to @r, the ones the kernel
 * sent only (a connection has no "rejected"), named for a connection
 * (@conn) or for the stats; return their sum.
 */
static uint64_t rec_rdma_errors(struct rec *r, struct nlattr *nest, bool conn)
{
	struct nlattr *e[GOBLIN_RDMA_ERR_A_MAX + 1];
	uint64_t sum = 0;
	int i;

	if (!nest || nla_parse_nested(e, GOBLIN_RDMA_ERR_A_MAX, nest, NULL))
		return 0;
	for (i = 0; i <= GOBLIN_RDMA_ERR_A_MAX; i++) {
		if (!rdma_err_names[i] || !e[i])
			continue;
		rec_u64(r, conn ? RDMA_ERR_CONN_NAME(i) : rdma_err_names[i],
			get_u64(e[i]));
		sum += get_u64(e[i]);
	}
	return sum;
}

static int parse_stats(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *st[GOBLIN_STATS_A_MAX + 1];
	struct rec *r = rec_new(arg);
	int i;

	if (!tb[GOBLIN_A_STATS] ||
	    nla_parse_nested(st, GOBLIN_STATS_A_MAX, tb[GOBLIN_A_STATS], NULL))
		return NL_SKIP;
	for (i = 0; i <= GOBLIN_STATS_A_MAX; i++) {
		if (!stats_names[i])
			continue;
		rec_u64(r, stats_names[i], get_u64(st[i]));
	}
	rec_rdma_errors(r, st[GOBLIN_STATS_A_RDMA_ERROR_KINDS], false);
	return NL_OK;
}

static int parse_listener(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r = rec_new(arg);
	uint8_t kind = tb[GOBLIN_A_LISTENER_KIND] ?
		       nla_get_u8(tb[GOBLIN_A_LISTENER_KIND]) : 0xff;

	rec_str(r, "kind", name_of(kind_names, ARRAY_SIZE(kind_names), kind));
	rec_u64(r, "id", get_u32(tb[GOBLIN_A_LISTENER_ID]));
	rec_addr(r, "address", "port", tb[GOBLIN_A_ADDR4], tb[GOBLIN_A_ADDR6],
		 tb[GOBLIN_A_PORT]);
	rec_u64(r, "conns", get_u32(tb[GOBLIN_A_CONNS]));
	rec_u64(r, "conns_total", get_u64(tb[GOBLIN_A_CONNS_TOTAL]));
	rec_u64(r, "refused", get_u64(tb[GOBLIN_A_REFUSED]));
	rec_u64(r, "max_conns", get_u32(tb[GOBLIN_A_MAX_CONNS]));
	rec_u64(r, "idle_timeout", get_u32(tb[GOBLIN_A_IDLE_TIMEOUT]));
	if (kind == GOBLIN_LISTENER_MEMCACHE)
		rec_u64(r, "write_timeout",
			get_u32(tb[GOBLIN_A_WRITE_TIMEOUT]));
	if (kind == GOBLIN_LISTENER_RDMA) {
		rec_size(r, "window", get_u32(tb[GOBLIN_A_WINDOW]));
		rec_u64(r, "windows", get_u32(tb[GOBLIN_A_WINDOWS]));
		rec_u64(r, "credits", get_u32(tb[GOBLIN_A_CREDITS]));
		rec_u64(r, "max_peer_conns",
			get_u32(tb[GOBLIN_A_MAX_PEER_CONNS]));
	}
	return NL_OK;
}

static int parse_conn(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r = rec_new(arg);
	uint8_t kind = tb[GOBLIN_A_LISTENER_KIND] ?
		       nla_get_u8(tb[GOBLIN_A_LISTENER_KIND]) : 0xff;

	rec_str(r, "kind", name_of(kind_names, ARRAY_SIZE(kind_names), kind));
	rec_u64(r, "listener_id", get_u32(tb[GOBLIN_A_LISTENER_ID]));
	rec_u64(r, "id", get_u64(tb[GOBLIN_A_CONN_ID]));
	rec_addr(r, "peer", "peer_port", tb[GOBLIN_A_PEER_ADDR4],
		 tb[GOBLIN_A_PEER_ADDR6], tb[GOBLIN_A_PEER_PORT]);
	rec_u64(r, "rx_bytes", get_u64(tb[GOBLIN_A_RX_BYTES]));
	rec_u64(r, "tx_bytes", get_u64(tb[GOBLIN_A_TX_BYTES]));
	rec_u64(r, "cmds", get_u64(tb[GOBLIN_A_CMDS]));
	rec_u64(r, "idle", get_u32(tb[GOBLIN_A_IDLE]));
	rec_str(r, "device", tb[GOBLIN_A_DEVICE] ?
		nla_get_string(tb[GOBLIN_A_DEVICE]) : "");
	/* absent from modules older than the per-QP statistics */
	if (kind == GOBLIN_LISTENER_RDMA && tb[GOBLIN_A_HITS]) {
		rec_u64(r, "hits", get_u64(tb[GOBLIN_A_HITS]));
		rec_u64(r, "misses", get_u64(tb[GOBLIN_A_MISSES]));
		rec_u64(r, "bytes_written", get_u64(tb[GOBLIN_A_BYTES_WRITTEN]));
		rec_u64(r, "bytes_read", get_u64(tb[GOBLIN_A_BYTES_READ]));
		rec_u64(r, "windows_in_flight",
			get_u32(tb[GOBLIN_A_WINDOWS_IN_FLIGHT]));
		rec_u64(r, "errors",
			rec_rdma_errors(r, tb[GOBLIN_A_RDMA_ERRORS], true));
	}
	return NL_OK;
}

static int parse_obj(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r;

	if (!tb[GOBLIN_A_KEY])
		return NL_SKIP;
	r = rec_new(arg);
	rec_bin(r, "key", nla_data(tb[GOBLIN_A_KEY]), nla_len(tb[GOBLIN_A_KEY]));
	rec_u64(r, "len", get_u64(tb[GOBLIN_A_OBJ_LEN]));
	rec_u64(r, "flags", get_u32(tb[GOBLIN_A_OBJ_FLAGS]));
	rec_u64(r, "cas", get_u64(tb[GOBLIN_A_OBJ_CAS]));
	rec_s64(r, "exptime", tb[GOBLIN_A_OBJ_EXPTIME] ?
		(int64_t)nla_get_u64(tb[GOBLIN_A_OBJ_EXPTIME]) : 0);
	return NL_OK;
}

/*
 * object list: each object is printed as its message arrives, from one
 * record reused for all, so memory does not grow with the store.
 */
struct obj_stream {
	uint64_t n;
};

static void obj_row(const struct rec *r);

static int stream_obj(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct obj_stream *st = arg;
	struct recs one = { 0 };
	struct rec *r;

	if (parse_obj(tb, nlh, &one) != NL_OK || one.n != 1) {
		recs_free(&one);
		return NL_OK;
	}
	r = one.r[0];
	if (opt_json)
		json_stream_add(json_rec(r));
	else
		obj_row(r);
	st->n++;
	recs_free(&one);
	return NL_OK;
}

struct numa_reply {
	struct rec *top;
	struct recs nodes;
};

static int parse_numa(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct numa_reply *nr = arg;
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *a;
	int rem;

	nr->top = xcalloc(1, sizeof(*nr->top));
	rec_str(nr->top, "policy",
		name_of(numa_names, ARRAY_SIZE(numa_names),
			tb[GOBLIN_A_NUMA_POLICY] ?
			nla_get_u8(tb[GOBLIN_A_NUMA_POLICY]) : 0xff));
	rec_u64(nr->top, "node", get_u32(tb[GOBLIN_A_NUMA_NODE]));
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem) {
		struct nlattr *nt[GOBLIN_NODE_A_MAX + 1];
		struct rec *r;

		if (nla_type(a) != GOBLIN_A_NODE ||
		    nla_parse_nested(nt, GOBLIN_NODE_A_MAX, a, NULL))
			continue;
		r = rec_new(&nr->nodes);
		rec_u64(r, "id", get_u32(nt[GOBLIN_NODE_A_ID]));
		rec_size(r, "mem_total", get_u64(nt[GOBLIN_NODE_A_MEM_TOTAL]));
		rec_size(r, "mem_free", get_u64(nt[GOBLIN_NODE_A_MEM_FREE]));
		rec_u64(r, "cpus", get_u32(nt[GOBLIN_NODE_A_CPUS]));
		rec_size(r, "head_bytes",
			 get_u64(nt[GOBLIN_NODE_A_HEAD_BYTES]));
		rec_u64(r, "blocks", get_u64(nt[GOBLIN_NODE_A_BLOCKS]));
	}
	return NL_OK;
}

/* ------------------------------------------------------------------ */
/* Commands                                                           */

static void need_args(int argc, int n, const char *usage)
{
	if (argc < n)
		usage_die("usage: %s %s", prog, usage);
}

static void print_one(const struct rec *r)
{
	if (opt_json)
		json_put(json_rec(r), false);
	else
		human_kv(r);
}

static void print_list(const struct recs *rs, const char *const *cols)
{
	if (opt_json)
		json_put(json_recs(rs), false);
	else if (rs->n)
		human_table(rs, cols);
}

static int version_cb(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct rec *r = arg;

	rec_str(r, "module", tb[GOBLIN_A_VERSION] ?
		nla_get_string(tb[GOBLIN_A_VERSION]) : "");
	rec_u64(r, "genl_version", gh->version);
	return NL_OK;
}

static int cmd_version(int argc, char **argv)
{
	struct recs rs = { 0 };
	struct rec *r = rec_new(&rs);

	if (argc)
		usage_die("usage: %s version", prog);
	rec_str(r, "goblinctl", GOBLINCTL_VERSION);
	req_run(req_msg(GOBLIN_CMD_VERSION_GET, 0), version_cb, r, true);
	print_one(r);
	recs_free(&rs);
	return 0;
}

static int store_show(void)
{
	struct recs rs = { 0 };

	req_run(req_msg(GOBLIN_CMD_STORE_GET, 0), parse_store, &rs, true);
	if (rs.n != 1)
		die("no reply from the kernel");
	print_one(rs.r[0]);
	recs_free(&rs);
	return 0;
}

static int store_set(int argc, char **argv)
{
	struct nl_msg *msg = req_msg(GOBLIN_CMD_STORE_SET, 0);
	int i;

	if (argc < 2 || argc % 2)
		usage_die("usage: %s store set NAME VALUE [NAME VALUE]...", prog);
	for (i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		int err;

		if (!strcmp(k, "memory"))
			err = nla_put_u64(msg, GOBLIN_A_MEMORY,
					  arg_size(k, v, UINT64_MAX));
		else if (!strcmp(k, "block"))
			err = nla_put_u32(msg, GOBLIN_A_BLOCK,
					  arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "ram-head") || !strcmp(k, "ram_head"))
			err = nla_put_u32(msg, GOBLIN_A_RAM_HEAD,
					  arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "ssd-dir") || !strcmp(k, "ssd_dir"))
			err = nla_put_string(msg, GOBLIN_A_SSD_DIR, v);
		else if (!strcmp(k, "ssd-max") || !strcmp(k, "ssd_max"))
			err = nla_put_u64(msg, GOBLIN_A_SSD_MAX,
					  arg_size(k, v, UINT64_MAX));
		else if (!strcmp(k, "promotion"))
			err = nla_put_u32(msg, GOBLIN_A_PROMOTION,
					  arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "mlock"))
			err = nla_put_u8(msg, GOBLIN_A_MLOCK, arg_bool(k, v));
		else if (!strcmp(k, "cores"))
			err = nla_put_u32(msg, GOBLIN_A_CORES,
					  arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "rdma-max-conns") ||
			 !strcmp(k, "rdma_max_conns"))
			err = nla_put_u32(msg, GOBLIN_A_RDMA_MAX_CONNS,
					  arg_u64(k, v, UINT32_MAX));
		else
			usage_die("store set: unknown setting \"%s\" (%s)", k,
				  "memory, block, ram-head, ssd-dir, ssd-max, promotion, mlock, cores, rdma-max-conns");
		if (err)
			die("request too large");
	}
	req_run(msg, NULL, NULL, true);
	return 0;
}

static int cmd_store(int argc, char **argv)
{
	int w = argc ? match_word("store", argv[0], show_set_words,
				  ARRAY_SIZE(show_set_words)) : W_SHOW;

	if (argc)
		sub_help(argc - 1, argv + 1);
	if (w == W_SET)
		return store_set(argc - 1, argv + 1);
	if (argc > 1)
		usage_die("usage: %s store show", prog);
	return store_show();
}

static void put_addr(struct nl_msg *msg, const struct addr *ad)
{
	if (ad->family == AF_INET)
		nla_put(msg, GOBLIN_A_ADDR4, 4, ad->a);
	else
		nla_put(msg, GOBLIN_A_ADDR6, 16, ad->a);
}

#define LISTENER_ADD_USAGE \
	"listener add KIND ADDR[:PORT] [port N] [window SIZE] [windows N] [max-conns N] [idle-timeout S] [write-timeout S] [credits N] [max-peer-conns N]"
#define LISTENER_DEL_USAGE \
	"listener del KIND ADDR[:PORT] [port N]"

static int listener_change(bool add, int argc, char **argv)
{
	const char *usage = add ? LISTENER_ADD_USAGE : LISTENER_DEL_USAGE;
	struct nl_msg *msg;
	struct addr ad;
	int kind, i;

	need_args(argc, 2, usage);
	kind = lookup("listener kind", argv[0], kind_names,
		      ARRAY_SIZE(kind_names));
	arg_addr(argv[1], &ad);
	msg = req_msg(add ? GOBLIN_CMD_LISTENER_ADD : GOBLIN_CMD_LISTENER_DEL,
		      0);
	nla_put_u8(msg, GOBLIN_A_LISTENER_KIND, kind);
	put_addr(msg, &ad);
	for (i = 2; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage_die("%s: missing value", k);
		if (!strcmp(k, "port"))
			ad.port = arg_u64(k, v, 65535);
		else if (!add)
			usage_die("usage: %s %s", prog, usage);
		else if (!strcmp(k, "window"))
			nla_put_u32(msg, GOBLIN_A_WINDOW,
				    arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "windows"))
			nla_put_u32(msg, GOBLIN_A_WINDOWS,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "max-conns") || !strcmp(k, "max_conns"))
			nla_put_u32(msg, GOBLIN_A_MAX_CONNS,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "idle-timeout") ||
			 !strcmp(k, "idle_timeout"))
			nla_put_u32(msg, GOBLIN_A_IDLE_TIMEOUT,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "write-timeout") ||
			 !strcmp(k, "write_timeout"))
			nla_put_u32(msg, GOBLIN_A_WRITE_TIMEOUT,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "credits"))
			nla_put_u32(msg, GOBLIN_A_CREDITS,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "max-peer-conns") ||
			 !strcmp(k, "max_peer_conns"))
			nla_put_u32(msg, GOBLIN_A_MAX_PEER_CONNS,
				    arg_u64(k, v, UINT32_MAX));
		else
			usage_die("listener add: unknown setting \"%s\"", k);
	}
	if (ad.port < 0)
		usage_die("port: missing (use ADDR:PORT, [ADDR6]:PORT or port N)");
	if (ad.port == 0)
		usage_die("port: must be 1..65535");
	nla_put_u16(msg, GOBLIN_A_PORT, ad.port);
	req_run(msg, NULL, NULL, true);
	return 0;
}

static void dump_listeners(struct recs *rs, int kind)
{
	struct nl_msg *msg = req_msg(GOBLIN_CMD_LISTENER_GET, NLM_F_DUMP);

	if (kind >= 0)
		nla_put_u8(msg, GOBLIN_A_LISTENER_KIND, kind);
	req_run(msg, parse_listener, rs, true);
}

static const char *const listener_cols[] = {
	"kind", "id", "address", "port", "conns", "conns_total", "refused",
	"max_conns", "idle_timeout", "write_timeout", "window", "windows",
	"credits", "max_peer_conns", NULL
};

static int cmd_listener(int argc, char **argv)
{
	struct recs rs = { 0 };
	int kind = -1;

	int w = argc ? match_word("listener", argv[0], listener_words,
				  ARRAY_SIZE(listener_words)) : W_SHOW;

	if (argc)
		sub_help(argc - 1, argv + 1);
	if (w == W_ADD)
		return listener_change(true, argc - 1, argv + 1);
	if (w == W_DEL)
		return listener_change(false, argc - 1, argv + 1);
	if (argc > 2)
		usage_die("usage: %s listener show [KIND]", prog);
	if (argc >= 2)
		kind = lookup("listener kind", argv[1], kind_names,
			      ARRAY_SIZE(kind_names));
	dump_listeners(&rs, kind);
	print_list(&rs, listener_cols);
	recs_free(&rs);
	return 0;
}

static const char *const conn_cols[] = {
	"kind", "listener_id", "id", "peer", "peer_port", "rx_bytes",
	"tx_bytes", "cmds", "hits", "misses", "bytes_written",
	"windows_in_flight", "errors", "idle", "device", NULL
};

static void dump_conns(struct recs *rs, int kind)
{
	struct nl_msg *msg = req_msg(GOBLIN_CMD_CONN_GET, NLM_F_DUMP);

	if (kind >= 0)
		nla_put_u8(msg, GOBLIN_A_LISTENER_KIND, kind);
	req_run(msg, parse_conn, rs, true);
}

static int cmd_conn(int argc, char **argv)
{
	struct recs rs = { 0 };
	int kind = -1;

	if (argc)
		match_word("conn", argv[0], show_words, ARRAY_SIZE(show_words));
	if (argc)
		sub_help(argc - 1, argv + 1);
	if (argc > 2)
		usage_die("usage: %s conn show [KIND]", prog);
	if (argc >= 2)
		kind = lookup("listener kind", argv[1], kind_names,
			      ARRAY_SIZE(kind_names));
	dump_conns(&rs, kind);
	print_list(&rs, conn_cols);
	recs_free(&rs);
	return 0;
}

/*
 * Human rows of a streamed listing: fixed columns (widths cannot be
 * measured before the end); a longer key or number shifts its row only.
 */
static void obj_row(const struct rec *r)
{
	static bool header;
	char key[4 * GOBLIN_KEY_MAX + 8], len[32], flags[32], cas[32], exp[32];

	if (!header) {
		printf("%-32s  %12s  %10s  %20s  %11s\n", "KEY", "LEN", "FLAGS",
		       "CAS", "EXPTIME");
		header = true;
	}
	fmt_field(key, sizeof(key), rec_get(r, "key"));
	fmt_field(len, sizeof(len), rec_get(r, "len"));
	fmt_field(flags, sizeof(flags), rec_get(r, "flags"));
	fmt_field(cas, sizeof(cas), rec_get(r, "cas"));
	fmt_field(exp, sizeof(exp), rec_get(r, "exptime"));
	printf("%-32s  %12s  %10s  %20s  %11s\n", key, len, flags, cas, exp);
}

static int cmd_object(int argc, char **argv)
{
	struct obj_stream st = { 0 };
	struct recs rs = { 0 };
	struct nl_msg *msg;
	int ret;

	need_args(argc, 1, "object show KEY | object list [--prefix P]");
	sub_help(argc - 1, argv + 1);
	/* "object show" without a key lists, as "object list" */
	if (match_word("object", argv[0], show_words,
		       ARRAY_SIZE(show_words)) == W_SHOW &&
	    strncmp(argv[0], "list", strlen(argv[0])) && argc >= 2 &&
	    strcmp(argv[1], "--prefix") && strcmp(argv[1], "prefix")) {
		if (argc > 2)
			usage_die("usage: %s object show KEY", prog);
		if (!argv[1][0] || strlen(argv[1]) > GOBLIN_KEY_MAX)
			usage_die("key: must be 1..%d bytes", GOBLIN_KEY_MAX);
		msg = req_msg(GOBLIN_CMD_OBJ_GET, 0);
		nla_put(msg, GOBLIN_A_KEY, strlen(argv[1]), argv[1]);
		req_run(msg, parse_obj, &rs, true);
		if (rs.n != 1)
			die("no reply from the kernel");
		print_one(rs.r[0]);
		recs_free(&rs);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "--prefix") ||
			  !strcmp(argv[1], "prefix"))) {
		if (strlen(argv[2]) > GOBLIN_KEY_MAX)
			usage_die("prefix: longer than %d bytes", GOBLIN_KEY_MAX);
	} else if (argc != 1) {
		usage_die("usage: %s object list [--prefix P]", prog);
	}
	msg = req_msg(GOBLIN_CMD_OBJ_GET, NLM_F_DUMP);
	if (argc == 3)
		nla_put(msg, GOBLIN_A_PREFIX, strlen(argv[2]), argv[2]);
	/*
	 * Open the socket first: an error before the first object must not
	 * leave a "[" behind.
	 */
	nl_open();
	if (opt_json)
		json_stream_begin();
	ret = req_run(msg, stream_obj, &st, false);
	if (ret < 0) {
		if (opt_json)
			json_stream_end();
		fflush(stdout);
		explain(&last_err);
	}
	if (opt_json)
		json_stream_end();
	/*
	 * NLM_F_DUMP_INTR: the kernel could not promise that every object
	 * present for the whole dump is in it exactly once (goblin.ko never
	 * sets it today; a streamed listing cannot be retried).
	 */
	if (ret == 1)
		fprintf(stderr, "%s: warning: objects changed during the dump\n",
			prog);
	return 0;
}

static int cmd_flush(int argc, char **argv)
{
	if (argc)
		usage_die("usage: %s flush", prog);
	req_run(req_msg(GOBLIN_CMD_FLUSH, 0), NULL, NULL, true);
	return 0;
}

static const char *const node_cols[] = {
	"id", "cpus", "mem_total", "mem_free", "head_bytes", "blocks", NULL
};

static void get_numa(struct numa_reply *nr)
{
	memset(nr, 0, sizeof(*nr));
	req_run(req_msg(GOBLIN_CMD_NUMA_GET, 0), parse_numa, nr, true);
	if (!nr->top)
		die("no reply from the kernel");
}

static void free_numa(struct numa_reply *nr)
{
	int i;

	for (i = 0; i < nr->top->n; i++)
		free(nr->top->f[i].str);
	free(nr->top);
	recs_free(&nr->nodes);
}

static int numa_show(void)
{
	struct numa_reply nr;

	get_numa(&nr);
	if (opt_json) {
		json_object *o = json_rec(nr.top);

		json_add(o, "nodes", json_recs(&nr.nodes));
		json_put(o, false);
	} else {
		human_kv(nr.top);
		putchar('\n');
		human_table(&nr.nodes, node_cols);
	}
	free_numa(&nr);
	return 0;
}

static int cmd_numa(int argc, char **argv)
{
	struct nl_msg *msg;
	int i;

	int w = argc ? match_word("numa", argv[0], show_set_words,
				  ARRAY_SIZE(show_set_words)) : W_SHOW;

	if (argc)
		sub_help(argc - 1, argv + 1);
	if (w == W_SHOW) {
		if (argc > 1)
			usage_die("usage: %s numa show", prog);
		return numa_show();
	}
	if (argc < 3 || argc % 2 == 0)
		usage_die("usage: %s numa set [policy local|interleave|bind] [node N]",
			  prog);
	msg = req_msg(GOBLIN_CMD_NUMA_SET, 0);
	for (i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "policy"))
			nla_put_u8(msg, GOBLIN_A_NUMA_POLICY,
				   lookup("policy", argv[i + 1], numa_names,
					  ARRAY_SIZE(numa_names)));
		else if (!strcmp(argv[i], "node"))
			nla_put_u32(msg, GOBLIN_A_NUMA_NODE,
				    arg_u64("node", argv[i + 1], UINT32_MAX));
		else
			usage_die("numa set: unknown setting \"%s\" (policy, node)",
				  argv[i]);
	}
	req_run(msg, NULL, NULL, true);
	return 0;
}

static struct rec *get_stats(struct recs *rs)
{
	req_run(req_msg(GOBLIN_CMD_STATS_GET, 0), parse_stats, rs, true);
	if (rs->n != 1)
		die("no reply from the kernel");
	return rs->r[0];
}

/* Set by the signal handler: lock-free, hence async-signal-safe. */
static atomic_bool stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* Print per-second rates of the counters every @interval seconds. */
static int stats_watch(unsigned int interval, uint64_t count)
{
	static const char *const gauges[] = {
		"curr_items", "bytes", "head_bytes", "tail_bytes",
		"pages_free", "memory_limit", "ssd_limit", "listeners",
		"conns", "blocks_total", "blocks_huge", "blocks_small",
		"pages_quarantined", "rdma_windows_in_flight", NULL
	};
	struct recs prev = { 0 }, cur = { 0 };
	struct rec out;
	uint64_t n;
	int i, g;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	get_stats(&prev);
	for (n = 0; !stop && (!count || n < count); n++) {
		sleep(interval);
		if (stop)
			break;
		get_stats(&cur);
		memset(&out, 0, sizeof(out));
		rec_u64(&out, "interval", interval);
		for (i = 0; i < cur.r[0]->n; i++) {
			const struct field *c = &cur.r[0]->f[i];
			const struct field *p = &prev.r[0]->f[i];
			bool gauge = false;

			for (g = 0; gauges[g]; g++)
				if (!strcmp(gauges[g], c->name))
					gauge = true;
			if (gauge)
				rec_u64(&out, c->name, c->u);
			else
				rec_u64(&out, c->name,
					(c->u - p->u) / interval);
		}
		if (opt_json) {
			/* one object a line, -p or not */
			json_put(json_rec(&out), true);
		} else {
			printf("%-10s %10s %10s %10s %10s %10s %8s\n", "time",
			       "get_hits/s", "misses/s", "sets/s", "evict/s",
			       "items", "conns");
			{
				char tbuf[16];
				time_t t = time(NULL);

				strftime(tbuf, sizeof(tbuf), "%H:%M:%S",
					 localtime(&t));
				printf("%-10s %10llu %10llu %10llu %10llu %10llu %8llu\n",
				       tbuf,
				       (unsigned long long)rec_get(&out, "get_hits")->u,
				       (unsigned long long)rec_get(&out, "get_misses")->u,
				       (unsigned long long)rec_get(&out, "cmd_set")->u,
				       (unsigned long long)rec_get(&out, "evictions")->u,
				       (unsigned long long)rec_get(&out, "curr_items")->u,
				       (unsigned long long)rec_get(&out, "conns")->u);
			}
			fflush(stdout);
		}
		recs_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	recs_free(&prev);
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	const char *what = "global";
	unsigned int interval = 0;
	uint64_t count = 0;
	struct recs rs = { 0 };
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-w") || !strcmp(argv[i], "--watch")) {
			if (++i >= argc)
				usage_die("-w: missing SECONDS");
			interval = arg_u64("-w", argv[i], 86400);
			if (!interval)
				usage_die("-w: SECONDS must be at least 1");
		} else if (!strcmp(argv[i], "-n") ||
			   !strcmp(argv[i], "--count")) {
			if (++i >= argc)
				usage_die("-n: missing COUNT");
			count = arg_u64("-n", argv[i], UINT64_MAX);
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			help_exit();
		} else {
			static const struct word w[] = {
				{ "global", 0 }, { "listeners", 1 },
				{ "conns", 2 }, { "numa", 3 },
			};

			what = w[match_word("stats", argv[i], w,
					    ARRAY_SIZE(w))].name;
		}
	}
	if (interval) {
		if (strcmp(what, "global"))
			usage_die("-w: only global statistics can be watched");
		return stats_watch(interval, count);
	}
	if (!strcmp(what, "numa"))
		return numa_show();
	if (!strcmp(what, "listeners")) {
		dump_listeners(&rs, -1);
		print_list(&rs, listener_cols);
	} else if (!strcmp(what, "conns")) {
		dump_conns(&rs, -1);
		print_list(&rs, conn_cols);
	} else {
		print_one(get_stats(&rs));
	}
	recs_free(&rs);
	return 0;
}

/* monitor: print multicast events until interrupted or COUNT events. */
static const char *const event_names[] = {
	[GOBLIN_CMD_EVT_LISTENER_UP] = "listener-up",
	[GOBLIN_CMD_EVT_LISTENER_DOWN] = "listener-down",
	[GOBLIN_CMD_EVT_CONN_OPEN] = "conn-open",
	[GOBLIN_CMD_EVT_CONN_CLOSE] = "conn-close",
	[GOBLIN_CMD_EVT_DEVICE_ADD] = "device-add",
	[GOBLIN_CMD_EVT_DEVICE_DEL] = "device-del",
	[GOBLIN_CMD_EVT_SAFETY_REFUSED] = "safety-refused",
	[GOBLIN_CMD_EVT_EVICT_PRESSURE] = "evict-pressure",
};

static uint64_t events_seen;

/* One event: a JSON object a line, or "HH:MM:SS event name=value...". */
static void print_event(const struct rec *r)
{
	char tbuf[32];
	int i;

	if (opt_json) {
		json_put(json_rec(r), true);
	} else {
		time_t t = time(NULL);

		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
		printf("%s %s", tbuf, r->f[0].str);
		for (i = 2; i < r->n; i++) {
			char buf[300];

			fmt_field(buf, sizeof(buf), &r->f[i]);
			printf(" %s=%s", r->f[i].name, buf);
		}
		putchar('\n');
		fflush(stdout);
	}
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[GOBLIN_A_MAX + 1];
	struct rec r = { 0 };
	int i;

	if (genlmsg_parse(nlh, 0, tb, GOBLIN_A_MAX, NULL))
		return NL_SKIP;
	rec_str(&r, "event", name_of(event_names, ARRAY_SIZE(event_names),
				     gh->cmd));
	rec_s64(&r, "time", time(NULL));
	if (tb[GOBLIN_A_LISTENER_KIND])
		rec_str(&r, "kind", name_of(kind_names, ARRAY_SIZE(kind_names),
					    nla_get_u8(tb[GOBLIN_A_LISTENER_KIND])));
	if (tb[GOBLIN_A_LISTENER_ID])
		rec_u64(&r, "listener_id", nla_get_u32(tb[GOBLIN_A_LISTENER_ID]));
	if (tb[GOBLIN_A_ADDR4] || tb[GOBLIN_A_ADDR6])
		rec_addr(&r, "address", "port", tb[GOBLIN_A_ADDR4],
			 tb[GOBLIN_A_ADDR6], tb[GOBLIN_A_PORT]);
	if (tb[GOBLIN_A_CONN_ID])
		rec_u64(&r, "conn_id", nla_get_u64(tb[GOBLIN_A_CONN_ID]));
	if (tb[GOBLIN_A_PEER_ADDR4] || tb[GOBLIN_A_PEER_ADDR6])
		rec_addr(&r, "peer", "peer_port", tb[GOBLIN_A_PEER_ADDR4],
			 tb[GOBLIN_A_PEER_ADDR6], tb[GOBLIN_A_PEER_PORT]);
	if (tb[GOBLIN_A_DEVICE])
		rec_str(&r, "device", nla_get_string(tb[GOBLIN_A_DEVICE]));
	if (tb[GOBLIN_A_REASON])
		rec_str(&r, "reason", nla_get_string(tb[GOBLIN_A_REASON]));
	if (tb[GOBLIN_A_PRESSURE_USED])
		rec_u64(&r, "used", nla_get_u64(tb[GOBLIN_A_PRESSURE_USED]));
	if (tb[GOBLIN_A_PRESSURE_LIMIT])
		rec_u64(&r, "limit", nla_get_u64(tb[GOBLIN_A_PRESSURE_LIMIT]));
	if (tb[GOBLIN_A_PRESSURE_EVICTED])
		rec_u64(&r, "evicted",
			nla_get_u64(tb[GOBLIN_A_PRESSURE_EVICTED]));
	print_event(&r);
	for (i = 0; i < r.n; i++)
		free(r.f[i].str);
	events_seen++;
	return NL_OK;
}

/*
 * The socket overflowed (ENOBUFS): events were dropped. Say so, then
 * resynchronise: list the listeners that exist now (from a second socket,
 * as "listener" records) so that a consumer tracking them can rebuild its
 * state, and carry on. Connections are not listed (they may be many).
 */
static void monitor_resync(void)
{
	struct nl_sock *mon = sk;
	struct rec r = { 0 };
	struct recs rs = { 0 };
	size_t i;
	int j;

	fprintf(stderr, "%s: monitor: socket overflow, events lost; resynchronising\n",
		prog);
	rec_str(&r, "event", "events-lost");
	rec_s64(&r, "time", time(NULL));
	print_event(&r);
	free(r.f[0].str);
	sk = NULL;
	nl_open();
	req_run(req_msg(GOBLIN_CMD_LISTENER_GET, NLM_F_DUMP), parse_listener,
		&rs, false);
	nl_socket_free(sk);
	sk = mon;
	for (i = 0; i < rs.n; i++) {
		struct rec *l = rs.r[i];

		memset(&r, 0, sizeof(r));
		rec_str(&r, "event", "listener");
		rec_s64(&r, "time", time(NULL));
		for (j = 0; j < l->n && j < 4; j++)	/* kind id address port */
			r.f[r.n++] = l->f[j];
		print_event(&r);
		free(r.f[0].str);
	}
	memset(&r, 0, sizeof(r));
	rec_str(&r, "event", "resync-done");
	rec_s64(&r, "time", time(NULL));
	rec_u64(&r, "listeners", rs.n);
	print_event(&r);
	free(r.f[0].str);
	recs_free(&rs);
}

static int cmd_monitor(int argc, char **argv)
{
	static const struct word words[] = {
		{ "count", 0 }, { "timeout", 1 }, { "rcvbuf", 2 },
	};
	uint64_t count = 0, timeout = 0, rcvbuf = 0;
	struct pollfd pfd;
	time_t end = 0;
	int grp, err, i;

	sub_help(argc, argv);
	for (i = 0; i < argc; i += 2) {
		int w = match_word("monitor", argv[i], words, ARRAY_SIZE(words));

		if (i + 1 >= argc)
			usage_die("%s: missing value", words[w].name);
		if (w == 0)
			count = arg_u64("count", argv[i + 1], UINT64_MAX);
		else if (w == 1)
			timeout = arg_u64("timeout", argv[i + 1], 86400 * 365);
		else
			rcvbuf = arg_size("rcvbuf", argv[i + 1], INT_MAX / 2);
	}
	nl_open();
	if (rcvbuf)
		nl_socket_set_buffer_size(sk, rcvbuf, 0);
	grp = genl_ctrl_resolve_grp(sk, GOBLIN_GENL_NAME, GOBLIN_MCGRP_EVENTS);
	if (grp < 0)
		die("goblin module has no \"events\" group");
	err = nl_socket_add_membership(sk, grp);
	if (err == -NLE_PERM || err == -NLE_NOACCESS)
		die("permission denied: subscribing to events needs CAP_NET_ADMIN (run as root)");
	if (err < 0)
		die("cannot subscribe to events: %s", nl_geterror(err));
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!opt_json) {
		printf("listening for goblin events (Ctrl-C to stop)\n");
		fflush(stdout);
	}
	if (timeout)
		end = time(NULL) + timeout;
	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	while (!stop && (!count || events_seen < count)) {
		int ms = -1;

		if (end) {
			time_t now = time(NULL);

			if (now >= end)
				break;
			ms = (end - now) * 1000;
		}
		err = poll(&pfd, 1, ms);
		if (err < 0 && errno == EINTR)
			continue;
		if (err <= 0)
			continue;
		err = nl_recvmsgs_default(sk);
		/* libnl reports ENOBUFS as NLE_NOMEM */
		if (err == -NLE_NOMEM)
			monitor_resync();
		else if (err < 0 && err != -NLE_AGAIN && err != -NLE_INTR)
			die("receiving events: %s", nl_geterror(err));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Main, batch mode                                                   */

static const char usage_text[] =
	"usage: goblinctl [-j] [-p] [-b FILE] COMMAND [ARGS]\n"
	"\n"
	"  store show | store set NAME VALUE...   memory block ram-head ssd-dir\n"
	"                                         ssd-max promotion mlock cores\n"
	"                                         rdma-max-conns\n"
	"  listener add KIND ADDR[:PORT] [window SIZE] [windows N] [max-conns N]\n"
	"                                [idle-timeout S] [write-timeout S]\n"
	"                                [credits N] [max-peer-conns N] [port N]\n"
	"  listener del KIND ADDR[:PORT]          KIND: memcache rdma http\n"
	"  listener show [KIND]\n"
	"  numa show | numa set [policy local|interleave|bind] [node N]\n"
	"  stats [global|listeners|conns|numa] [-w SECONDS [-n COUNT]]\n"
	"  conn show [KIND]\n"
	"  object show KEY | object list [--prefix P]\n"
	"  flush\n"
	"  monitor [count N] [timeout SECONDS] [rcvbuf SIZE]\n"
	"  version\n"
	"  help\n"
	"\n"
	"  -j, --json     JSON output      -p, --pretty   indented JSON\n"
	"  -b, --batch F  run commands from file F (\"-\" = stdin)\n"
	"  -h, --help     this text        -V, --version  goblinctl's version\n"
	"Commands and subcommands may be abbreviated (goblinctl l s); show and\n"
	"list are the same. `COMMAND help` shows one command. Sizes take K, M,\n"
	"G, T suffixes (powers of 1024). Exit status: 0 ok, 1 error (refused by\n"
	"the kernel, module not loaded, ...), 2 usage error. See goblinctl(8).\n";

static void print_usage(FILE *f)
{
	fputs(usage_text, f);
}

static int cmd_help(int argc, char **argv)
{
	print_usage(stdout);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "store", cmd_store,
	  "store show | store set NAME VALUE [NAME VALUE]...\n"
	  "  NAME: memory block ram-head ssd-dir ssd-max promotion mlock cores rdma-max-conns" },
	{ "listener", cmd_listener,
	  LISTENER_ADD_USAGE "\n       " LISTENER_DEL_USAGE
	  "\n       listener show [KIND]\n  KIND: memcache rdma http" },
	{ "numa", cmd_numa,
	  "numa show | numa set [policy local|interleave|bind] [node N]" },
	{ "stats", cmd_stats,
	  "stats [global|listeners|conns|numa] [-w SECONDS [-n COUNT]]" },
	{ "conn", cmd_conn, "conn show [KIND]" },
	{ "object", cmd_object, "object show KEY | object list [--prefix P]" },
	{ "flush", cmd_flush, "flush" },
	{ "monitor", cmd_monitor,
	  "monitor [count N] [timeout SECONDS] [rcvbuf SIZE]" },
	{ "version", cmd_version, "version" },
	{ "help", cmd_help, "help" },
};

static int run_command(int argc, char **argv)
{
	struct word words[ARRAY_SIZE(commands)];
	size_t i;
	int c;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		words[i].name = commands[i].name;
		words[i].id = i;
	}
	c = match_word("command", argv[0], words, ARRAY_SIZE(words));
	cmd_usage = commands[c].usage;
	if (argc >= 2 && is_help(argv[1]))
		help_exit();
	return commands[c].fn(argc - 1, argv + 1);
}

/* Split a batch line into words; supports '...' and "..." quoting. */
static int split_line(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line, *o;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (argc >= max)
			usage_die("batch: too many words");
		o = p;
		argv[argc++] = p;
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '\'' || *p == '"') {
				char q = *p++;

				while (*p && *p != q)
					*o++ = *p++;
				if (!*p)
					usage_die("batch: unterminated quote");
				p++;
			} else {
				*o++ = *p++;
			}
		}
		if (*p)
			p++;
		*o = '\0';
	}
	return argc;
}

static int run_batch(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line = NULL, *argv[64];
	size_t cap = 0;
	int argc, lineno = 0;

	if (!f)
		die("%s: %s", file, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		pid_t pid;
		int status;

		lineno++;
		argc = split_line(line, argv, ARRAY_SIZE(argv) - 1);
		if (!argc)
			continue;
		argv[argc] = NULL;
		/* Run each command in a child so die() stops only that one. */
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid) {
			/*
			 * _exit(): exit() would flush the batch FILE shared
			 * with the parent and move its file offset.
			 */
			status = run_command(argc, argv);
			fflush(stdout);
			fflush(stderr);
			_exit(status);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: batch: %s:%d: command failed\n",
				prog, file, lineno);
			free(line);
			/* the command's own status: 2 for a usage error */
			return WIFEXITED(status) && WEXITSTATUS(status) == 2 ?
			       2 : 1;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *batch = NULL;
	int c;

	/* "+": options end at the command (stats -w is the command's) */
	while ((c = getopt_long(argc, argv, "+jpb:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'p':
			opt_pretty = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		case 'V':
			printf("goblinctl %s\n", GOBLINCTL_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	/* -p alone means pretty JSON. */
	if (opt_pretty)
		opt_json = true;
	if (batch) {
		if (optind != argc)
			usage_die("-b: no command allowed with a batch file");
		return run_batch(batch);
	}
	if (optind >= argc) {
		print_usage(stderr);
		return 2;
	}
	return run_command(argc - optind, argv + optind);
}
