// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the HTTP/1.1 request parser (kmod/proto/http_parse.c).
 *
 * Every input is parsed from a heap copy of exactly its length (no NUL),
 * so ASan catches any read past the end; every prefix of a valid request
 * must ask for more. Output is TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"

#include "unit_tap.h"
#include "../../tools/include/gb_compiler.h"

static struct http_req req;

static int parse_n(const char *s, size_t len)
{
	char *buf = malloc(len ? len : 1);
	int n;

	if (!buf)
		abort();
	memcpy(buf, s, len);
	n = http_parse(buf, len, &req);
	/* inm points into the buffer: keep it usable after the free */
	if (req.inm) {
		static char inm[HTTP_INM_MAX];

		memcpy(inm, req.inm, req.inm_len);
		req.inm = inm;
	}
	if (req.im) {
		static char im[HTTP_INM_MAX];

		memcpy(im, req.im, req.im_len);
		req.im = im;
	}
	if (req.ir) {
		static char ir[HTTP_INM_MAX];

		memcpy(ir, req.ir, req.ir_len);
		req.ir = ir;
	}
	free(buf);
	return n;
}

static int parse(const char *s)
{
	return parse_n(s, strlen(s));
}

/* The whole of @s is one head and every shorter prefix needs more. */
static bool whole(const char *s)
{
	size_t len = strlen(s), i;

	for (i = 0; i < len; i++) {
		if (parse_n(s, i) != HTTP_PARSE_MORE) {
			printf("#   prefix %zu of \"%s\" did not ask for more\n",
			       i, s);
			return false;
		}
	}
	return parse(s) == (int)len;
}

/* @s is refused outright with @status. */
static bool refused(const char *s, unsigned int status)
{
	int n = parse(s);

	if (n != HTTP_PARSE_ERROR || req.status != status) {
		printf("#   \"%s\": n=%d status=%u, want error %u\n", s, n,
		       req.status, status);
		return false;
	}
	return true;
}

static bool key_is(const char *k)
{
	return req.klen == strlen(k) && !memcmp(req.key, k, req.klen);
}

static void t_get(void)
{
	CHECK(whole("GET /foo HTTP/1.1\r\nHost: x\r\n\r\n"));
	CHECK(req.method == HTTP_M_GET && !req.status && key_is("foo"));
	CHECK(req.keep_alive && req.minor == 1 && !req.has_cl);
	CHECK(whole("HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n"));
	CHECK(req.method == HTTP_M_HEAD);
	CHECK(whole("DELETE /a HTTP/1.1\r\nHost: x\r\n\r\n"));
	CHECK(req.method == HTTP_M_DELETE);
	/* bare LF lines, HTTP/1.0 without Host */
	CHECK(whole("GET /k HTTP/1.0\n\n"));
	CHECK(!req.status && !req.keep_alive && req.minor == 0);
	CHECK(whole("GET /k HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
	CHECK(req.keep_alive);
	CHECK(whole("GET /k HTTP/1.1\r\nHost: x\r\nConnection: foo, close\r\n\r\n"));
	CHECK(!req.keep_alive);
	/* leading empty lines are skipped */
	CHECK(parse("\r\n\nGET /k HTTP/1.1\r\nHost: x\r\n\r\n") == 31);
	/* pipelining: only the first head is consumed */
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n") == 28);
	CHECK(key_is("a"));
	/* absolute-form */
	CHECK(parse("GET http://h:1/ab HTTP/1.1\r\nHost: h\r\n\r\n") > 0);
	CHECK(!req.status && key_is("ab"));
}

static void t_keys(void)
{
	char line[1024];
	int n;

	CHECK(parse("GET /a%2Fb%41?x=1 HTTP/1.1\r\nHost: x\r\n\r\n") > 0);
	CHECK(!req.status && key_is("a/bA"));
	CHECK(parse("GET /a/b HTTP/1.1\r\nHost: x\r\n\r\n") > 0);
	CHECK(key_is("a/b"));
	CHECK(refused("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /?q HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a%20b HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a%0a HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a%2 HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET a HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	/* 250 bytes is the longest key */
	n = snprintf(line, sizeof(line), "GET /%0250d HTTP/1.1\r\nHost: x\r\n\r\n", 0);
	CHECK(parse_n(line, n) == n && !req.status && req.klen == 250);
	n = snprintf(line, sizeof(line), "GET /%0251d HTTP/1.1\r\nHost: x\r\n\r\n", 0);
	CHECK(refused(line, 400));
	/* 84 %41 are 84 bytes */
	n = sprintf(line, "GET /");
	while (n < 5 + 84 * 3)
		n += sprintf(line + n, "%%41");
	n += sprintf(line + n, " HTTP/1.1\r\nHost: x\r\n\r\n");
	CHECK(parse_n(line, n) == n && req.klen == 84);
}

static void t_request_line(void)
{
	CHECK(refused("GET /a\r\n\r\n", 400));
	CHECK(refused("GET  /a HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1 \r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.12\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a HTTX/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/2.0\r\nHost: x\r\n\r\n", 505));
	CHECK(refused("G(T /a HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused(" GET /a HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a\rb HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("\rGET /a HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	CHECK(refused("GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 400));
	/* methods are case-sensitive; unknown ones are 405 after the head */
	CHECK(parse("get /a HTTP/1.1\r\nHost: x\r\n\r\n") > 0);
	CHECK(req.status == 405 && !req.keep_alive);
	CHECK(parse("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n") > 0);
	CHECK(req.status == 405);
	CHECK(parse("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n") > 0);
	CHECK(req.status == 405);
}

static void t_limits(void)
{
	static char big[3 * HTTP_HEAD_MAX];
	size_t n;
	int i;

	/* request line: 414 as soon as it cannot fit */
	memcpy(big, "GET /", 5);
	memset(big + 5, 'a', sizeof(big) - 5);
	CHECK(parse_n(big, HTTP_LINE_MAX - 1) == HTTP_PARSE_MORE);
	CHECK(parse_n(big, HTTP_LINE_MAX) == HTTP_PARSE_ERROR && req.status == 414);
	CHECK(parse_n(big, sizeof(big)) == HTTP_PARSE_ERROR && req.status == 414);
	/* a long line that ends is 414 as well */
	n = HTTP_LINE_MAX + 10;
	memcpy(big + n, " HTTP/1.1\r\n", 11);
	CHECK(parse_n(big, n + 11) == HTTP_PARSE_ERROR && req.status == 414);

	/* head size: 431 */
	n = sprintf(big, "GET /a HTTP/1.1\r\nHost: x\r\n");
	while (n < HTTP_HEAD_MAX + 100)
		n += sprintf(big + n, "X-Pad: %01000d\r\n", 0);
	CHECK(parse_n(big, HTTP_HEAD_MAX - 1) == HTTP_PARSE_MORE);
	CHECK(parse_n(big, n) == HTTP_PARSE_ERROR && req.status == 431);
	/* one huge field */
	n = sprintf(big, "GET /a HTTP/1.1\r\nX: ");
	memset(big + n, 'b', 2 * HTTP_HEAD_MAX);
	CHECK(parse_n(big, n + 2 * HTTP_HEAD_MAX) == HTTP_PARSE_ERROR &&
	      req.status == 431);

	/* field count */
	n = sprintf(big, "GET /a HTTP/1.1\r\nHost: x\r\n");
	for (i = 1; i < HTTP_FIELDS_MAX; i++)
		n += sprintf(big + n, "A: b\r\n");
	n += sprintf(big + n, "\r\n");
	CHECK(parse_n(big, n) == (int)n && !req.status);
	n = sprintf(big, "GET /a HTTP/1.1\r\nHost: x\r\n");
	for (i = 0; i < HTTP_FIELDS_MAX; i++)
		n += sprintf(big + n, "A: b\r\n");
	n += sprintf(big + n, "\r\n");
	CHECK(parse_n(big, n) == HTTP_PARSE_ERROR && req.status == 431);
}

static void t_fields(void)
{
	CHECK(refused("GET /a HTTP/1.1\r\n\r\n", 400));		/* no Host */
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost : x\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nA: b\rc\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nA: b\x7f\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n", 417));
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
		    "Expect: 100-Continue\r\nX-Goblin-Flags: 42\r\n"
		    "X-Goblin-TTL: 60\r\nCache-Control: max-age=5\r\n\r\n") > 0);
	CHECK(!req.status && req.method == HTTP_M_PUT && req.has_cl && req.cl == 5);
	CHECK(req.expect_100 && req.has_flags && req.flags == 42);
	CHECK(req.has_ttl && req.ttl == 60);
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
		    "Cache-Control: no-store, max-age=7\r\n\r\n") > 0);
	CHECK(!req.status && req.has_ttl && req.ttl == 7 && req.cl == 0);
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
		    "X-Goblin-Flags: 4294967296\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
		    "X-Goblin-TTL: -1\r\n\r\n", 400));
}

static void t_content_length(void)
{
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\n\r\n") > 0);
	CHECK(req.status == 411 && !req.keep_alive);
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n") > 0);
	CHECK(req.status == 411);
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		    "Content-Length: 3\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1 2\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n", 400));
	CHECK(refused("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
		    "Content-Length: 2\r\n\r\n", 400));
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
		    "Content-Length: 3\r\n\r\n") > 0);
	CHECK(!req.status && req.cl == 3);
	/* overflow saturates: the caller answers 413 */
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\n"
		    "Content-Length: 99999999999999999999999999\r\n\r\n") > 0);
	CHECK(!req.status && req.cl == ~0ULL);
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\n"
		    "Content-Length: 18446744073709551615\r\n\r\n") > 0);
	CHECK(req.cl == ~0ULL);
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\n"
		    "Content-Length: 18446744073709551614\r\n\r\n") > 0);
	CHECK(req.cl == ~0ULL - 1);
}

/* @te as the Transfer-Encoding field(s) of a PUT: a full head, @status. */
static bool te_is(const char *ver, const char *te, unsigned int status)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "PUT /a HTTP/1.%s\r\nHost: x\r\n%s\r\n",
		 ver, te);
	if (parse(buf) != (int)strlen(buf) || req.status != status ||
	    req.keep_alive) {
		printf("#   %s: status %u keep-alive %d, want %u\n", te,
		       req.status, req.keep_alive, status);
		return false;
	}
	return true;
}

static void t_transfer_encoding(void)
{
	/* understood, but a length is required */
	CHECK(te_is("1", "Transfer-Encoding: chunked\r\n", 411));
	CHECK(te_is("1", "Transfer-Encoding: CHUNKED \r\n", 411));
	CHECK(te_is("1", "Transfer-Encoding: ,chunked,\r\n", 411));
	/* codings not implemented */
	CHECK(te_is("1", "Transfer-Encoding: gzip, chunked\r\n", 501));
	CHECK(te_is("1", "Transfer-Encoding: gzip\r\n"
		    "Transfer-Encoding: chunked\r\n", 501));
	/* the framing is faulty: chunked not last, twice, none, HTTP/1.0 */
	CHECK(te_is("1", "Transfer-Encoding: gzip\r\n", 400));
	CHECK(te_is("1", "Transfer-Encoding: chunked, gzip\r\n", 400));
	CHECK(te_is("1", "Transfer-Encoding: chunked\r\n"
		    "Transfer-Encoding: gzip\r\n", 400));
	CHECK(te_is("1", "Transfer-Encoding: chunked, chunked\r\n", 400));
	CHECK(te_is("1", "Transfer-Encoding:\r\n", 400));
	CHECK(te_is("1", "Transfer-Encoding: chunked;x=1\r\n", 400));
	CHECK(te_is("0", "Transfer-Encoding: chunked\r\n", 400));
	/* on other methods too */
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n") > 0);
	CHECK(req.status == 411 && !req.keep_alive);
}

static bool range(const char *hdr, u64 vlen, int want, u64 off, u64 cnt)
{
	char buf[256];
	u64 o = 0, c = 0;
	int r;

	snprintf(buf, sizeof(buf), "GET /a HTTP/1.1\r\nHost: x\r\nRange: %s\r\n\r\n", hdr);
	if (parse(buf) <= 0 || req.status)
		return false;
	if (want == 1)
		return !req.has_range;
	if (!req.has_range)
		return false;
	r = http_range_resolve(&req, vlen, &o, &c);
	if (r != want || (!r && (o != off || c != cnt))) {
		printf("#   %s on %llu: r=%d off=%llu cnt=%llu\n", hdr,
		       (unsigned long long)vlen, r, (unsigned long long)o,
		       (unsigned long long)c);
		return false;
	}
	return true;
}

static void t_range(void)
{
	CHECK(range("bytes=0-0", 10, 0, 0, 1));
	CHECK(range("bytes=2-5", 10, 0, 2, 4));
	CHECK(range("bytes=2-500", 10, 0, 2, 8));
	CHECK(range("bytes=9-", 10, 0, 9, 1));
	CHECK(range("bytes=-3", 10, 0, 7, 3));
	CHECK(range("bytes=-30", 10, 0, 0, 10));
	CHECK(range("bytes=10-", 10, -1, 0, 0));
	CHECK(range("bytes=10-20", 10, -1, 0, 0));
	CHECK(range("bytes=-0", 10, -1, 0, 0));
	CHECK(range("bytes=0-", 0, -1, 0, 0));
	CHECK(range("bytes=-5", 0, -1, 0, 0));
	CHECK(range("bytes=0-18446744073709551615", 10, 0, 0, 10));
	/* ignored: invalid or several ranges, other units */
	CHECK(range("bytes=5-2", 10, 1, 0, 0));
	CHECK(range("bytes=0-1,3-4", 10, 1, 0, 0));
	CHECK(range("items=0-1", 10, 1, 0, 0));
	CHECK(range("bytes=a-b", 10, 1, 0, 0));
	CHECK(range("bytes=-", 10, 1, 0, 0));
	CHECK(range("bytes=1-2-3", 10, 1, 0, 0));
	CHECK(range("bytes=99999999999999999999-", 10, 1, 0, 0));
}

static void t_inm(void)
{
	static const char e[] = "\"00000000000000ff\"";
	size_t el = sizeof(e) - 1;

	CHECK(http_inm_match(e, el, e, el));
	CHECK(http_inm_match("*", 1, e, el));
	CHECK(http_inm_match("\"x\", W/\"00000000000000ff\"", 25, e, el));
	CHECK(!http_inm_match("\"x\"", 3, e, el));
	CHECK(!http_inm_match("\"00000000000000f", 16, e, el));
	CHECK(!http_inm_match("junk", 4, e, el));
	CHECK(!http_inm_match("", 0, e, el));
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\nIf-None-Match:  \"ab\" \r\n\r\n") > 0);
	CHECK(req.inm && req.inm_len == 4 && !memcmp(req.inm, "\"ab\"", 4));
}

static void t_im(void)
{
	static const char e[] = "\"00000000000000ff\"";
	size_t el = sizeof(e) - 1;
	char big[HTTP_INM_MAX + 80];

	CHECK(http_im_match(e, el, e, el));
	CHECK(http_im_match("*", 1, e, el));
	CHECK(http_im_match("\"x\" , \"00000000000000ff\"", 24, e, el));
	/* strong comparison: a weak tag matches nothing */
	CHECK(!http_im_match("W/\"00000000000000ff\"", 20, e, el));
	CHECK(!http_im_match("\"x\"", 3, e, el));
	CHECK(!http_im_match("", 0, e, el));
	CHECK(!http_im_match("\"00000000000000ff", 17, e, el));
	CHECK(parse("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
		    "If-Match: \"ab\"\r\nIf-None-Match: *\r\n\r\n") > 0);
	CHECK(!req.status && req.im && req.im_len == 4 &&
	      !memcmp(req.im, "\"ab\"", 4));
	CHECK(req.inm && req.inm_len == 1 && *req.inm == '*');
	snprintf(big, sizeof(big), "DELETE /a HTTP/1.1\r\nHost: x\r\n"
		 "If-Match: %0*d\r\n\r\n", HTTP_INM_MAX + 1, 0);
	CHECK(refused(big, 431));
}

/* Repeated, empty and malformed If-Match / If-None-Match: 400. */
static void t_tag_fields(void)
{
	static const char e[] = "\"00000000000000ff\"";
	size_t el = sizeof(e) - 1;

	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-Match: \"a\"\r\n"
		      "If-Match: \"b\"\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\n"
		      "If-None-Match: \"b\"\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-Match:\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-Match: \"a\"\"b\"\r\n\r\n",
		      400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-Match: \"a\", *\r\n\r\n",
		      400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-None-Match: **\r\n\r\n",
		      400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-Match: \"a b\"\r\n\r\n",
		      400));
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\nIf-Match: \"a\",W/\"b\" ,\r\n"
		    "If-None-Match: W/\"c\"\r\n\r\n") > 0 && !req.status);
	/* the matchers alone: "*" only as the whole value, tags separated */
	CHECK(!http_im_match("*, \"x\"", 6, e, el));
	CHECK(!http_inm_match("\"x\"*", 4, e, el));
	CHECK(!http_im_match("\"x\"\"00000000000000ff\"", 21, e, el));
	CHECK(http_im_match("\"x\",\"00000000000000ff\"", 22, e, el));
}

/*
 * http_parse_date() of the first @len bytes of @s, parsed from a heap copy
 * of exactly that length so that ASan catches a read past the end.
 */
static int date_n(const char *s, size_t len, s64 *t)
{
	char *buf = malloc(len ? len : 1);
	int r;

	if (!buf)
		abort();
	memcpy(buf, s, len);
	r = http_parse_date(buf, len, t);
	free(buf);
	return r;
}

/* @s is a valid date of the time @want. */
static bool date_is(const char *s, s64 want)
{
	s64 t = -1;

	if (date_n(s, strlen(s), &t) || t != want) {
		printf("#   \"%s\": got %lld, want %lld\n", s, (long long)t,
		       (long long)want);
		return false;
	}
	return true;
}

/* @s is not a valid date (and the output is left alone). */
static bool date_bad(const char *s)
{
	s64 t = 12345;

	if (!date_n(s, strlen(s), &t) || t != 12345) {
		printf("#   \"%s\" was accepted as %lld\n", s, (long long)t);
		return false;
	}
	return true;
}

/*
 * A valid date: every proper prefix, any byte after it, and any one of its
 * bytes replaced by 'x' or by a NUL are refused.
 */
static bool date_only(const char *s, s64 want)
{
	size_t len = strlen(s), i;
	static const char tails[] = " x0\r\n\t";
	char *more = malloc(len + 1);
	bool ok = date_is(s, want);
	s64 t = 12345;

	if (!more)
		abort();
	memcpy(more, s, len);
	for (i = 0; i < len && ok; i++) {
		ok = date_n(s, i, &t) && t == 12345;
		if (!ok)
			printf("#   prefix %zu of \"%s\" was accepted\n", i, s);
	}
	for (i = 0; i < 2 * len && ok; i++) {
		more[i / 2] = i % 2 ? '\0' : 'x';
		ok = date_n(more, len, &t) && t == 12345;
		if (!ok)
			printf("#   \"%s\" with byte %zu replaced was accepted\n",
			       s, i / 2);
		more[i / 2] = s[i / 2];
	}
	for (i = 0; i < sizeof(tails) && ok; i++) {
		more[len] = tails[i];	/* the last is the NUL */
		ok = date_n(more, len + 1, &t) && t == 12345;
		if (!ok)
			printf("#   \"%s\" + byte %d was accepted\n", s,
			       tails[i]);
	}
	free(more);
	return ok;
}

/* The three HTTP-date forms of RFC 9110 5.6.7 give the same times. */
static void t_date_forms(void)
{
	CHECK(date_only("Sun, 06 Nov 1994 08:49:37 GMT", 784111777));
	CHECK(date_only("Sunday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_only("Sun Nov  6 08:49:37 1994", 784111777));
	CHECK(date_only("Sun Nov 06 08:49:37 1994", 784111777));
	CHECK(date_only("Thu, 01 Jan 1970 00:00:00 GMT", 0));
	CHECK(date_only("Thursday, 01-Jan-70 00:00:00 GMT", 0));
	CHECK(date_only("Thu Jan  1 00:00:00 1970", 0));
	/* the calendar's ends and times before the epoch (-1 is a time) */
	CHECK(date_only("Sat, 01 Jan 0000 00:00:00 GMT", -62167219200LL));
	CHECK(date_only("Tue, 29 Feb 0000 00:00:00 GMT", -62162121600LL));
	CHECK(date_only("Wed, 01 Mar 0000 00:00:00 GMT", -62162035200LL));
	CHECK(date_only("Sat Jan  1 00:00:00 0000", -62167219200LL));
	CHECK(date_only("Fri, 31 Dec 9999 23:59:59 GMT", 253402300799LL));
	CHECK(date_only("Fri Dec 31 23:59:59 9999", 253402300799LL));
	CHECK(date_only("Wed, 31 Dec 1969 23:59:59 GMT", -1));
	CHECK(date_only("Thu, 01 Mar 1900 00:00:00 GMT", -2203891200LL));
	CHECK(date_only("Mon, 01 Mar 2100 00:00:00 GMT", 4107542400LL));
	CHECK(date_only("Wed, 02 Dec 2026 01:41:03 GMT", 1796175663));
	CHECK(date_only("Wednesday, 02-Dec-26 01:41:03 GMT", 1796175663));
	CHECK(date_only("Wed Dec  2 01:41:03 2026", 1796175663));
	/* every day name, every month, two-digit days in asctime */
	CHECK(date_is("Monday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_is("Tuesday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_is("Wednesday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_is("Thursday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_is("Friday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_is("Saturday, 06-Nov-94 08:49:37 GMT", 784111777));
	CHECK(date_is("Fri Dec 31 23:59:59 1999", 946684799));
	CHECK(date_is("Friday, 31-Dec-99 23:59:59 GMT", 946684799));
	CHECK(date_is("Sat Jan 01 00:00:00 2000", 946684800));
	/* a leap second reads as the second before it, in every form */
	CHECK(date_is("Friday, 31-Dec-99 23:59:60 GMT", 946684799));
	CHECK(date_is("Fri Dec 31 23:59:60 1999", 946684799));
	/* two-digit years: 00-69 are 20xx, 70-99 are 19xx */
	CHECK(date_is("Saturday, 01-Jan-00 00:00:00 GMT", 946684800));
	CHECK(date_is("Tuesday, 31-Dec-69 23:59:59 GMT", 3155759999LL));
	CHECK(date_is("Thursday, 01-Jan-70 00:00:01 GMT", 1));
}

/* Strict like IMF-fixdate: names, ranges, the calendar, the layout. */
static void t_date_invalid(void)
{
	/* day names: a valid one, and the one of the form */
	CHECK(date_bad("Sonday, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("sunday, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sundays, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sunda, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Thurs, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Wednes, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Saturdayy, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad(", 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sun, 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sunday, 06 Nov 1994 08:49:37 GMT"));
	CHECK(date_bad("Sunday Nov  6 08:49:37 1994"));
	CHECK(date_bad("Sun Nov  6 08:49:37 1994 GMT"));
	CHECK(date_bad("Snu Nov  6 08:49:37 1994"));
	CHECK(date_bad("sun Nov  6 08:49:37 1994"));
	CHECK(date_bad("Sun, Nov  6 08:49:37 1994"));
	/* months */
	CHECK(date_bad("Sunday, 06-Foo-94 08:49:37 GMT"));
	CHECK(date_bad("Sunday, 06-nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sun Foo  6 08:49:37 1994"));
	CHECK(date_bad("Sun November  6 08:49:37 1994"));
	/* days of the month */
	CHECK(date_bad("Thursday, 31-Apr-14 00:00:00 GMT"));
	CHECK(date_bad("Thu Apr 31 00:00:00 2014"));
	CHECK(date_bad("Thu, 31 Apr 2014 00:00:00 GMT"));
	CHECK(date_bad("Thursday, 00-Apr-14 00:00:00 GMT"));
	CHECK(date_bad("Thu Apr  0 00:00:00 2014"));
	CHECK(date_bad("Thu Apr 00 00:00:00 2014"));
	CHECK(date_bad("Thu Jan 32 00:00:00 2014"));
	CHECK(date_is("Wednesday, 30-Apr-14 00:00:00 GMT", 1398816000));
	CHECK(date_is("Wed Apr 30 00:00:00 2014", 1398816000));
	/* Feb 29: only in leap years (1900 is not one, 2000 is) */
	CHECK(date_bad("Thu Feb 29 00:00:00 1900"));
	CHECK(date_bad("Thu, 29 Feb 1900 00:00:00 GMT"));
	CHECK(date_bad("Thursday, 29-Feb-01 00:00:00 GMT"));
	CHECK(date_bad("Sunday, 29-Feb-70 00:00:00 GMT"));
	CHECK(date_bad("Mon Feb 30 00:00:00 2000"));
	CHECK(date_is("Tue Feb 29 00:00:00 2000", 951782400));
	CHECK(date_is("Tuesday, 29-Feb-00 00:00:00 GMT", 951782400));
	CHECK(date_is("Thursday, 29-Feb-96 12:00:00 GMT", 825595200));
	CHECK(date_is("Thu Feb 29 12:00:00 1996", 825595200));
	/* single-digit day in asctime: the padding space is required */
	CHECK(date_bad("Sun Nov 6 08:49:37 1994"));
	CHECK(date_bad("Sun Nov  6  08:49:37 1994"));
	CHECK(date_bad("Sun Nov 6  08:49:37 1994"));
	CHECK(date_bad("Sun Nov   6 08:49:37 1994"));
	CHECK(date_bad("Sun Nov 6 08:49:37  1994"));
	CHECK(date_bad("Sun Nov 0608:49:37 1994"));
	CHECK(date_bad("Sun Nov 16  8:49:37 1994"));
	CHECK(date_bad("Sun Nov  6 08:49:37 94"));
	CHECK(date_bad("Sunday, 6-Nov-94 08:49:37 GMT"));
	/* times */
	CHECK(date_bad("Sunday, 06-Nov-94 24:00:00 GMT"));
	CHECK(date_bad("Sunday, 06-Nov-94 08:60:37 GMT"));
	CHECK(date_bad("Sunday, 06-Nov-94 08:49:61 GMT"));
	CHECK(date_bad("Sun Nov  6 24:00:00 1994"));
	CHECK(date_bad("Sun Nov  6 08:60:37 1994"));
	CHECK(date_bad("Sun Nov  6 08:49:61 1994"));
	CHECK(date_bad("Sun Nov  6 08:49 1994"));
	CHECK(date_bad("Sun Nov  6 08-49-37 1994"));
	/* the layout: separators, digits, zone, year width */
	CHECK(date_bad("Sunday, 06-Nov-1994 08:49:37 GMT"));
	CHECK(date_bad("Sunday, 06 Nov 94 08:49:37 GMT"));
	CHECK(date_bad("Sunday 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sunday,06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sunday. 06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sunday,,06-Nov-94 08:49:37 GMT"));
	CHECK(date_bad("Sunday, 06-Nov-94 08:49:37 GMX"));
	CHECK(date_bad("Sun Nov 16x08:49:37 1994"));
	CHECK(date_bad("Sun Nov 16 08:49:37x1994"));
	CHECK(date_bad("Sunday, 06-Nov-94 08:49:37 UTC"));
	CHECK(date_bad("Sunday, 06-Nov-94 08:49:37"));
	CHECK(date_bad("Sunday, 06-Nov-9x 08:49:37 GMT"));
	CHECK(date_bad("Sunday, 06-Nov--4 08:49:37 GMT"));
	CHECK(date_bad("Sun Nov  6 08:49:37 19x4"));
	CHECK(date_bad("Sun Nov  6 08:49:37 +994"));
	CHECK(date_bad("Sun Nov -6 08:49:37 1994"));
	CHECK(date_bad("Sun Nov  6 08:49:37 1994\n"));
	CHECK(date_bad(" Sun Nov  6 08:49:37 1994"));
	CHECK(date_bad(""));
}

/* If-Range kept as given; If-Unmodified-Since as a time (else ignored). */
static void t_if_range_ius(void)
{
	s64 t = 0;

	CHECK(!http_parse_date("Sun, 06 Nov 1994 08:49:37 GMT", 29, &t) &&
	      t == 784111777);
	CHECK(!http_parse_date("Thu, 01 Jan 1970 00:00:00 GMT", 29, &t) && !t);
	CHECK(!http_parse_date("Tue, 29 Feb 2000 23:59:59 GMT", 29, &t) &&
	      t == 951868799);
	CHECK(!http_parse_date("Wed, 02 Dec 2026 01:41:03 GMT", 29, &t) &&
	      t == 1796175663);
	CHECK(http_parse_date("Mon, 29 Feb 2100 00:00:00 GMT", 29, &t));
	CHECK(http_parse_date("Sun, 06 Nov 1994 24:49:37 GMT", 29, &t));
	CHECK(http_parse_date("Sun, 06 Foo 1994 08:49:37 GMT", 29, &t));
	CHECK(http_parse_date("Sun, 06 Nov 1994 08:49:37 UTC", 29, &t));
	CHECK(http_parse_date("Sun, 06 Nov 1994 08:49:37 GM", 28, &t));
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n"
		    "If-Range: \"ab\"\r\n"
		    "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
		    "\r\n") > 0);
	CHECK(!req.status && req.ir && req.ir_len == 4 &&
	      !memcmp(req.ir, "\"ab\"", 4) && req.has_ius &&
	      req.ius == 784111777);
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\n"
		    "If-Unmodified-Since: Sunday, 06-Nov-94 08:49:37 GMT\r\n"
		    "\r\n") > 0);
	CHECK(!req.status && req.has_ius && req.ius == 784111777);
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\n"
		    "If-Unmodified-Since: Sun Nov  6 08:49:37 1994\r\n"
		    "\r\n") > 0);
	CHECK(!req.status && req.has_ius && req.ius == 784111777);
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\n"
		    "If-Unmodified-Since: yesterday\r\n\r\n") > 0 &&
	      !req.status && !req.has_ius);
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\nIf-Range: \"a\"\r\n"
		      "If-Range: \"a\"\r\n\r\n", 400));
	CHECK(refused("GET /a HTTP/1.1\r\nHost: x\r\n"
		      "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
		      "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
		      "\r\n", 400));
}

static void t_reason(void)
{
	CHECK(!strcmp(http_reason(404), "Not Found"));
	CHECK(!strcmp(http_reason(431), "Request Header Fields Too Large"));
	CHECK(!strcmp(http_reason(412), "Precondition Failed"));
	CHECK(!strcmp(http_reason(501), "Not Implemented"));
	CHECK(!strcmp(http_reason(299), ""));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "GET, HEAD, DELETE, keep-alive, pipelining", t_get },
		{ "keys: percent-decoding, validation, length", t_keys },
		{ "request line errors and 405", t_request_line },
		{ "line, head and field count limits", t_limits },
		{ "header fields", t_fields },
		{ "Content-Length and Transfer-Encoding", t_content_length },
		{ "Transfer-Encoding codings: 411, 501, 400", t_transfer_encoding },
		{ "Range", t_range },
		{ "If-None-Match", t_inm },
		{ "If-Match", t_im },
		{ "If-Match / If-None-Match syntax, repeated fields",
		  t_tag_fields },
		{ "If-Range, If-Unmodified-Since, dates", t_if_range_ius },
		{ "dates: IMF-fixdate, RFC 850 and asctime alike",
		  t_date_forms },
		{ "dates: invalid RFC 850 and asctime dates", t_date_invalid },
		{ "reason phrases", t_reason },
	};

	return unit_run(tests, ARRAY_SIZE(tests));
}
