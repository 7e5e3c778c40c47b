// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: HTTP/1.1 request parser. See http_parse.h.
 *
 * Strict where leniency would let two parsers disagree on a request's
 * framing (request smuggling): whitespace before a field's colon, obsolete
 * line folding, a bare CR, any Transfer-Encoding, and conflicting
 * Content-Length values are all rejected. A bare LF ends a line like CRLF
 * does (RFC 9112 2.2 allows it).
 */
#include "http_parse.h"

#define U64_MAX_DIV10	1844674407370955161ULL

static bool is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	switch (c) {
	case '!': case '#': case '$': case '%': case '&': case '\'':
	case '*': case '+': case '-': case '.': case '^': case '_':
	case '`': case '|': case '~':
		return true;
	}
	return false;
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c;
}

/* Case-insensitive compare of @n bytes of @a with the lower-case @b. */
static bool ieq(const char *a, size_t n, const char *b)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!b[i] || lower(a[i]) != (unsigned char)b[i])
			return false;
	return !b[n];
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Decimal digits only; 0 ok, -1 not a number, -2 a number above @max.
 */
static int parse_dec(const char *p, size_t n, u64 max, u64 *out)
{
	bool over = false;
	u64 v = 0;
	size_t i;

	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (p[i] < '0' || p[i] > '9')
			return -1;
		d = p[i] - '0';
		if (v > U64_MAX_DIV10 || (v == U64_MAX_DIV10 && d > 5))
			over = true;	/* keep checking the syntax */
		else
			v = v * 10 + d;
	}
	if (over || v > max)
		return -2;
	*out = v;
	return 0;
}

/* Find the end of the line starting at @p; *@next is after its end. */
static const char *line_end(const char *p, const char *end, const char **next)
{
	const char *lf = memchr(p, '\n', end - p);

	if (!lf)
		return NULL;
	*next = lf + 1;
	if (lf > p && lf[-1] == '\r')
		return lf - 1;
	return lf;
}

static bool has_ctl(const char *p, const char *e)
{
	for (; p < e; p++) {
		unsigned char c = *p;

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return true;
	}
	return false;
}

/* Key from the origin-form path (after the '/'), percent-decoded. */
static int parse_key(const char *p, const char *e, struct http_req *req)
{
	const char *q = memchr(p, '?', e - p);

	if (q)
		e = q;
	req->klen = 0;
	while (p < e) {
		unsigned char c = *p++;

		if (c == '%') {
			int hi, lo;

			if (e - p < 2)
				return -1;
			hi = hexval(p[0]);
			lo = hexval(p[1]);
			if (hi < 0 || lo < 0)
				return -1;
			c = hi << 4 | lo;
			p += 2;
		}
		/* memcache keys: no whitespace, no control characters */
		if (c <= 0x20 || c == 0x7f)
			return -1;
		if (req->klen == HTTP_KEY_MAX)
			return -1;
		req->key[req->klen++] = c;
	}
	return req->klen ? 0 : -1;
}

static int parse_request_line(const char *p, const char *e,
			      struct http_req *req)
{
	const char *m = p, *t, *te, *v;

	while (p < e && is_tchar(*p))
		p++;
	if (p == m || p == e || *p != ' ')
		return 400;
	if (p - m == 3 && !memcmp(m, "GET", 3))
		req->method = HTTP_M_GET;
	else if (p - m == 4 && !memcmp(m, "HEAD", 4))
		req->method = HTTP_M_HEAD;
	else if (p - m == 3 && !memcmp(m, "PUT", 3))
		req->method = HTTP_M_PUT;
	else if (p - m == 6 && !memcmp(m, "DELETE", 6))
		req->method = HTTP_M_DELETE;
	else
		req->method = HTTP_M_OTHER;
	t = ++p;
	while (p < e && *p != ' ')
		p++;
	te = p;
	if (t == te || p == e)
		return 400;
	v = p + 1;
	if (e - v != 8 || memcmp(v, "HTTP/", 5) || v[6] != '.' ||
	    v[5] < '0' || v[5] > '9' || v[7] < '0' || v[7] > '9')
		return 400;
	if (v[5] != '1')
		return 505;
	req->minor = v[7] == '0' ? 0 : 1;
	req->keep_alive = req->minor >= 1;
	if (has_ctl(t, te))
		return 400;
	/* absolute-form (RFC 9112 3.2.2): skip scheme and authority */
	if (te - t > 7 && (ieq(t, 7, "http://") ||
			   (te - t > 8 && ieq(t, 8, "https://")))) {
		t = memchr(t, ':', te - t) + 3;
		t = memchr(t, '/', te - t);
		if (!t)
			return 400;
	}
	if (*t != '/')
		return req->method == HTTP_M_OTHER ? 405 : 400;
	if (req->method == HTTP_M_OTHER)
		return 405;
	if (parse_key(t + 1, te, req))
		return 400;
	return 0;
}

/* "Connection" tokens: close / keep-alive. */
static void parse_connection(const char *v, const char *e,
			     struct http_req *req)
{
	while (v < e) {
		const char *s;

		while (v < e && (*v == ' ' || *v == '\t' || *v == ','))
			v++;
		s = v;
		while (v < e && *v != ',' && *v != ' ' && *v != '\t')
			v++;
		if (ieq(s, v - s, "close"))
			req->keep_alive = false;
		else if (ieq(s, v - s, "keep-alive") && !req->minor)
			req->keep_alive = true;
	}
}

/* One "bytes=" range; anything else leaves has_range false. */
static void parse_range(const char *v, const char *e, struct http_req *req)
{
	const char *dash, *p;
	u64 a, b;

	if (e - v < 7 || !ieq(v, 6, "bytes="))
		return;
	v += 6;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	if (memchr(v, ',', e - v))
		return;		/* several ranges: serve the whole value */
	dash = memchr(v, '-', e - v);
	if (!dash)
		return;
	p = dash + 1;
	if (dash == v) {
		if (parse_dec(p, e - p, ~0ULL, &b))
			return;
		req->r_suffix = true;
		req->r_last = b;
	} else {
		if (parse_dec(v, dash - v, ~0ULL, &a))
			return;
		if (p == e) {
			req->r_open = true;
		} else {
			if (parse_dec(p, e - p, ~0ULL, &b) || b < a)
				return;
			req->r_last = b;
		}
		req->r_first = a;
	}
	req->has_range = true;
}

/* "max-age=N" among the Cache-Control directives. */
static void parse_cache_control(const char *v, const char *e,
				struct http_req *req)
{
	while (v < e) {
		const char *s, *eq;
		u64 n;

		while (v < e && (*v == ' ' || *v == '\t' || *v == ','))
			v++;
		s = v;
		while (v < e && *v != ',')
			v++;
		eq = memchr(s, '=', v - s);
		if (!eq || !ieq(s, eq - s, "max-age"))
			continue;
		eq++;
		if (eq < v && *eq == '"')
			continue;
		if (!parse_dec(eq, v - eq, ~0U, &n) && !req->ttl_from_header) {
			req->has_ttl = true;
			req->ttl = n;
		}
	}
}

/* What the fields of one head say beyond struct http_req. */
struct parse_ctx {
	bool host;		/* a Host field was seen */
	bool te;		/* a Transfer-Encoding field was seen */
	bool te_last_chunked;	/* the last coding listed is "chunked" */
	unsigned int te_codings;	/* codings listed, all fields */
	unsigned int te_chunked;	/* of which "chunked" */
	bool ius;		/* an If-Unmodified-Since field was seen */
};

/*
 * The value of If-Match or If-None-Match: "*" alone or a comma-separated
 * list of entity-tags (RFC 9110 8.8.3, 13.1.1): anything else, an empty
 * value, or the field given twice is refused with 400.
 */
static bool etag_list_ok(const char *v, const char *e)
{
	if (e - v == 1 && *v == '*')
		return true;
	for (;;) {
		if (e - v >= 2 && v[0] == 'W' && v[1] == '/')
			v += 2;
		if (v == e || *v++ != '"')
			return false;
		/* etagc: %x21 / %x23-7E / obs-text */
		while (v < e && *v != '"') {
			unsigned char c = *v++;

			if (c < 0x21 || c == 0x7f)
				return false;
		}
		if (v++ == e)
			return false;
		while (v < e && (*v == ' ' || *v == '\t'))
			v++;
		if (v == e)
			return true;
		if (*v++ != ',')
			return false;
		while (v < e && (*v == ' ' || *v == '\t' || *v == ','))
			v++;
		if (v == e)
			return true;	/* "a", : empty list elements are allowed */
	}
}

static int parse_tag_field(const char *v, const char *e, const char **out,
			   size_t *len)
{
	if (*out)
		return 400;
	if (e - v > HTTP_INM_MAX)
		return 431;
	if (!etag_list_ok(v, e))
		return 400;
	*out = v;
	*len = e - v;
	return 0;
}

/*
 * Transfer-Encoding codings (RFC 9112 6.1); several fields make one list.
 * Only their order and kind matter: see the verdict in http_parse().
 */
static void parse_te(const char *v, const char *e, struct parse_ctx *x)
{
	x->te = true;
	while (v < e) {
		const char *s, *t;

		while (v < e && (*v == ' ' || *v == '\t' || *v == ','))
			v++;
		s = v;
		while (v < e && *v != ',')
			v++;
		t = v;
		while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		if (t == s)
			continue;
		x->te_codings++;
		x->te_last_chunked = ieq(s, t - s, "chunked");
		if (x->te_last_chunked)
			x->te_chunked++;
	}
}

/* One header field; returns a status to answer or 0. */
static int parse_field(const char *p, const char *e, struct http_req *req,
		       struct parse_ctx *ctx)
{
	const char *n = p, *v, *ve;
	u64 x;
	int r;

	while (p < e && is_tchar(*p))
		p++;
	if (p == n || p == e || *p != ':')
		return 400;	/* also "Name :" and folded lines */
	v = p + 1;
	ve = e;
	while (v < ve && (*v == ' ' || *v == '\t'))
		v++;
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	if (has_ctl(v, ve))
		return 400;
	switch (p - n) {
	case 4:
		if (ieq(n, 4, "host")) {
			if (ctx->host)
				return 400;
			ctx->host = true;
		}
		break;
	case 5:
		if (ieq(n, 5, "range"))
			parse_range(v, ve, req);
		break;
	case 6:
		if (ieq(n, 6, "expect")) {
			if (!ieq(v, ve - v, "100-continue"))
				return 417;
			req->expect_100 = true;
		}
		break;
	case 8:
		if (ieq(n, 8, "if-match"))
			return parse_tag_field(v, ve, &req->im, &req->im_len);
		if (ieq(n, 8, "if-range")) {
			if (req->ir)
				return 400;
			if (ve - v > HTTP_INM_MAX)
				return 431;
			req->ir = v;
			req->ir_len = ve - v;
		}
		break;
	case 10:
		if (ieq(n, 10, "connection"))
			parse_connection(v, ve, req);
		break;
	case 12:
		if (ieq(n, 12, "x-goblin-ttl")) {
			if (parse_dec(v, ve - v, ~0U, &x))
				return 400;
			req->has_ttl = true;
			req->ttl_from_header = true;
			req->ttl = x;
		}
		break;
	case 13:
		if (ieq(n, 13, "cache-control"))
			parse_cache_control(v, ve, req);
		if (ieq(n, 13, "if-none-match"))
			return parse_tag_field(v, ve, &req->inm, &req->inm_len);
		break;
	case 14:
		if (ieq(n, 14, "content-length")) {
			r = parse_dec(v, ve - v, ~0ULL, &x);
			if (r == -1)
				return 400;
			if (r == -2)
				x = ~0ULL;	/* caught as 413 */
			if (req->has_cl && req->cl != x)
				return 400;
			req->has_cl = true;
			req->cl = x;
		}
		if (ieq(n, 14, "x-goblin-flags")) {
			if (parse_dec(v, ve - v, ~0U, &x))
				return 400;
			req->has_flags = true;
			req->flags = x;
		}
		break;
	case 17:
		if (ieq(n, 17, "transfer-encoding"))
			parse_te(v, ve, ctx);	/* judged after the head */
		break;
	case 19:
		if (ieq(n, 19, "if-unmodified-since")) {
			if (ctx->ius)
				return 400;
			ctx->ius = true;
			/* RFC 9110 13.1.4: an invalid date is ignored */
			req->has_ius = !http_parse_date(v, ve - v, &req->ius);
		}
		break;
	}
	return 0;
}

int http_parse(const char *buf, size_t len, struct http_req *req)
{
	const char *p = buf, *end, *le, *next;
	struct parse_ctx x = { 0 };
	unsigned int fields = 0;
	int st = 0, r;

	memset(req, 0, sizeof(*req));
	if (len > HTTP_HEAD_MAX)
		len = HTTP_HEAD_MAX;
	end = buf + len;
	/* RFC 9112 2.2: ignore empty lines before the request line */
	while (p < end && (*p == '\r' || *p == '\n')) {
		if (*p == '\r' && (p + 1 == end || p[1] != '\n')) {
			if (p + 1 == end)
				return HTTP_PARSE_MORE;
			req->status = 400;
			return HTTP_PARSE_ERROR;
		}
		p += *p == '\r' ? 2 : 1;
	}
	le = line_end(p, end, &next);
	if (!le) {
		if (end - p >= HTTP_LINE_MAX || len == HTTP_HEAD_MAX) {
			req->status = 414;
			return HTTP_PARSE_ERROR;
		}
		return HTTP_PARSE_MORE;
	}
	if (next - p > HTTP_LINE_MAX) {
		req->status = 414;
		return HTTP_PARSE_ERROR;
	}
	if (memchr(p, '\r', le - p)) {
		req->status = 400;
		return HTTP_PARSE_ERROR;
	}
	st = parse_request_line(p, le, req);
	if (st && st != 405) {
		req->status = st;
		return HTTP_PARSE_ERROR;
	}
	for (p = next;; p = next) {
		le = line_end(p, end, &next);
		if (!le) {
			if (len == HTTP_HEAD_MAX) {
				req->status = 431;
				return HTTP_PARSE_ERROR;
			}
			return HTTP_PARSE_MORE;
		}
		if (le == p)
			break;		/* the empty line: end of the head */
		if (++fields > HTTP_FIELDS_MAX) {
			req->status = 431;
			return HTTP_PARSE_ERROR;
		}
		if (memchr(p, '\r', le - p)) {
			req->status = 400;
			return HTTP_PARSE_ERROR;
		}
		r = parse_field(p, le, req, &x);
		if (r) {
			req->status = r;
			return HTTP_PARSE_ERROR;
		}
	}
	if ((req->minor >= 1 && !x.host) || (x.te && req->has_cl)) {
		req->status = 400;
		return HTTP_PARSE_ERROR;
	}
	if (x.te) {
		/*
		 * No body is framed by a transfer coding here (RFC 9112 6):
		 * in HTTP/1.0, or without "chunked" exactly once and last,
		 * the framing is faulty: 400 (6.1, 6.3). "chunked" after
		 * other codings: those are not implemented, 501 (6.1).
		 * "chunked" alone is understood but not accepted: a
		 * Content-Length is required, 411 (RFC 9110 15.5.12).
		 */
		if (!req->minor || !x.te_last_chunked || x.te_chunked != 1)
			req->status = 400;
		else if (x.te_codings > 1)
			req->status = 501;
		else
			req->status = 411;
	} else if (st) {
		req->status = st;
	} else if (req->method == HTTP_M_PUT && !req->has_cl) {
		req->status = 411;
	}
	if (req->status)
		req->keep_alive = false;
	return next - buf;
}

int http_range_resolve(const struct http_req *req, u64 vlen, u64 *off,
		       u64 *cnt)
{
	u64 last;

	if (req->r_suffix) {
		if (!req->r_last || !vlen)
			return -1;
		*cnt = req->r_last < vlen ? req->r_last : vlen;
		*off = vlen - *cnt;
		return 0;
	}
	if (req->r_first >= vlen)
		return -1;
	last = req->r_open || req->r_last >= vlen ? vlen - 1 : req->r_last;
	*off = req->r_first;
	*cnt = last - req->r_first + 1;
	return 0;
}

/*
 * Does the entity-tag list @v (or "*" as the whole value) hold @etag (a
 * strong tag)? @weak: weak comparison (a "W/" tag matches its strong
 * twin), else strong (a "W/" tag matches nothing), RFC 9110 8.8.3.2.
 * Anything but a well-formed list matches nothing.
 */
static bool etag_match(const char *v, size_t len, const char *etag,
		       size_t elen, bool weak)
{
	const char *e = v + len;
	bool sep = true;

	if (len == 1 && *v == '*')
		return true;
	while (v < e) {
		const char *s;
		bool w = false;

		if (*v == ' ' || *v == '\t' || *v == ',') {
			sep = true;
			v++;
			continue;
		}
		if (!sep)
			return false;	/* tags must be separated */
		if (e - v >= 2 && v[0] == 'W' && v[1] == '/') {
			v += 2;
			w = true;
		}
		if (v == e || *v != '"')
			return false;
		s = v++;
		while (v < e && *v != '"')
			v++;
		if (v == e)
			return false;
		v++;
		if ((weak || !w) && (size_t)(v - s) == elen &&
		    !memcmp(s, etag, elen))
			return true;
		sep = false;
	}
	return false;
}

bool http_inm_match(const char *v, size_t len, const char *etag, size_t elen)
{
	return etag_match(v, len, etag, elen, true);
}

bool http_im_match(const char *v, size_t len, const char *etag, size_t elen)
{
	return etag_match(v, len, etag, elen, false);
}

/* Day and month names of HTTP-dates (RFC 9110 5.6.7), case-sensitive */
static const char http_days[7][10] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
	"Saturday",
};

static const char http_months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

/* The decimal number of the @n digits at @p, or -1 if one is not a digit. */
static int date_digits(const char *p, int n)
{
	int v = 0;

	while (n--) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + *p++ - '0';
	}
	return v;
}

/*
 * Are the @n bytes at @p a day name: its first three letters (@n == 3:
 * IMF-fixdate, asctime) or the whole name (RFC 850)?
 */
static bool date_day_name(const char *p, size_t n)
{
	int i;

	for (i = 0; i < 7; i++)
		if ((n == 3 || n == strlen(http_days[i])) &&
		    !memcmp(p, http_days[i], n))
			return true;
	return false;
}

/* The month (0-11) named by the three bytes at @p, or -1. */
static int date_month(const char *p)
{
	int m;

	for (m = 0; m < 12; m++)
		if (!memcmp(p, http_months + 3 * m, 3))
			return m;
	return -1;
}

/* A broken-down HTTP-date; a field that did not parse is -1. */
struct http_tm {
	int year;
	int mon;	/* 0-11 */
	int mday;
	int hour;
	int min;
	int sec;
};

/* "08:49:37" at @p into @tm (ranges: date_time()); false without a colon */
static bool date_clock(const char *p, struct http_tm *tm)
{
	tm->hour = date_digits(p, 2);
	tm->min = date_digits(p + 3, 2);
	tm->sec = date_digits(p + 6, 2);
	return p[2] == ':' && p[5] == ':';
}

/* Days from 1970-01-01 to a proleptic Gregorian date (@m 1-12). */
static int date_days(int y, int m, int d)
{
	int era, yoe, doy, doe;

	if (m <= 2)
		y--;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * Check every field of @tm (the day within its month, Feb 29 only in leap
 * years, seconds 00-60 at any minute, 60 read as 59) and store its seconds
 * since the epoch in @out.
 */
static int date_time(const struct http_tm *tm, s64 *out)
{
	static const unsigned char mdays[] = {
		31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y = tm->year, sec = tm->sec;

	if (y < 0 || tm->mon < 0 || tm->mday < 1 ||
	    tm->mday > mdays[tm->mon] || tm->hour < 0 || tm->hour > 23 ||
	    tm->min < 0 || tm->min > 59 || sec < 0 || sec > 60)
		return -1;
	if (tm->mon == 1 && tm->mday == 29 &&
	    (y % 4 || (!(y % 100) && y % 400)))
		return -1;
	if (sec == 60)
		sec = 59;	/* a leap second: the second before it */
	*out = ((s64)date_days(y, tm->mon + 1, tm->mday) * 24 + tm->hour) *
	       3600 + tm->min * 60 + sec;
	return 0;
}

/* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"; @v has 29 bytes (caller) */
static bool date_imf(const char *v, struct http_tm *tm)
{
	tm->mday = date_digits(v + 5, 2);
	tm->mon = date_month(v + 8);
	tm->year = date_digits(v + 12, 4);
	return date_day_name(v, 3) && v[3] == ',' && v[4] == ' ' &&
	       v[7] == ' ' && v[11] == ' ' && v[16] == ' ' &&
	       date_clock(v + 17, tm) && !memcmp(v + 25, " GMT", 4);
}

/*
 * rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT", the whole day name and
 * 24 bytes more. Years 00-69 are 2000-2069, 70-99 are 1970-1999.
 */
static bool date_rfc850(const char *v, size_t len, struct http_tm *tm)
{
	const char *p;	/* "06-Nov-94 08:49:37 GMT" */

	if (len < 24 + 6 || len > 24 + 9)
		return false;
	p = v + len - 22;
	tm->mday = date_digits(p, 2);
	tm->mon = date_month(p + 3);
	tm->year = date_digits(p + 7, 2);
	if (tm->year >= 0)
		tm->year += tm->year < 70 ? 2000 : 1900;
	return date_day_name(v, len - 24) && p[-2] == ',' && p[-1] == ' ' &&
	       p[2] == '-' && p[6] == '-' && p[9] == ' ' &&
	       date_clock(p + 10, tm) && !memcmp(p + 18, " GMT", 4);
}

/* asctime-date: "Sun Nov  6 08:49:37 1994" (or "Nov 06"); 24 bytes (caller) */
static bool date_asctime(const char *v, struct http_tm *tm)
{
	tm->mon = date_month(v + 4);
	tm->mday = v[8] == ' ' ? date_digits(v + 9, 1) : date_digits(v + 8, 2);
	tm->year = date_digits(v + 20, 4);
	return date_day_name(v, 3) && v[3] == ' ' && v[7] == ' ' &&
	       v[10] == ' ' && date_clock(v + 11, tm) && v[19] == ' ';
}

int http_parse_date(const char *v, size_t len, s64 *out)
{
	struct http_tm tm;
	bool ok;

	/* the fourth byte tells the forms apart: ',', ' ' or a letter */
	if (len == 29 && v[3] == ',')
		ok = date_imf(v, &tm);
	else if (len == 24 && v[3] == ' ')
		ok = date_asctime(v, &tm);
	else
		ok = date_rfc850(v, len, &tm);
	return ok ? date_time(&tm, out) : -1;
}

const char *http_reason(unsigned int status)
{
	switch (status) {
	case 100: return "Continue";
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 206: return "Partial Content";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 412: return "Precondition Failed";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 416: return "Range Not Satisfiable";
	case 417: return "Expectation Failed";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "";
}
