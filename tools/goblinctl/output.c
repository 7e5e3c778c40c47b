// SPDX-License-Identifier: GPL-2.0
/* goblinctl: records as aligned text or JSON (json-c). */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "goblinctl.h"

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

void fmt_field(char *buf, size_t len, const struct field *f)
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

void json_add(json_object *obj, const char *name, json_object *v)
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

json_object *json_rec(const struct rec *r)
{
	json_object *obj = xjson(json_object_new_object());
	int i;

	for (i = 0; i < r->n; i++)
		json_add_field(obj, &r->f[i]);
	return obj;
}

json_object *json_recs(const struct recs *rs)
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
void json_put(json_object *obj, bool oneline)
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

void json_stream_begin(void)
{
	stream_first = true;
	putchar('[');
}

void json_stream_add(json_object *obj)
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

void json_stream_end(void)
{
	if (opt_pretty && !stream_first)
		putchar('\n');
	puts("]");
	fflush(stdout);
}

/* Human output: "name  value" lines aligned on the longest name. */
void human_kv(const struct rec *r)
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
void human_table(const struct recs *rs, const char *const *cols)
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

void print_one(const struct rec *r)
{
	if (opt_json)
		json_put(json_rec(r), false);
	else
		human_kv(r);
}

void print_list(const struct recs *rs, const char *const *cols)
{
	if (opt_json)
		json_put(json_recs(rs), false);
	else if (rs->n)
		human_table(rs, cols);
}
