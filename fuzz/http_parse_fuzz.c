// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the HTTP/1.1 request parser.
 *
 * The input is one connection's byte stream, consumed the way the kernel's
 * HTTP transport does: parse a head, skip its Content-Length body, repeat
 * until the parser asks for more or refuses. Every result must satisfy the
 * parser's contract (http_parse.h); a violation traps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "../tools/include/gb_compiler.h"

static void fail(const char *why)
{
	fprintf(stderr, "http_parse invariant violated: %s\n", why);
	__builtin_trap();
}

static void check(const char *buf, size_t len, int n, const struct http_req *r)
{
	u64 off, cnt;
	s64 t;

	if (n == HTTP_PARSE_MORE) {
		/* no limit may be exceeded while more is asked for */
		if (len >= HTTP_HEAD_MAX)
			fail("MORE at the head limit");
		return;
	}
	if (n == HTTP_PARSE_ERROR) {
		if (r->status < 400 || r->status > 599 || !*http_reason(r->status))
			fail("error without a 4xx/5xx status");
		return;
	}
	if (n < 0 || (size_t)n > len || n > HTTP_HEAD_MAX)
		fail("consumed beyond the input or the head limit");
	if (buf[n - 1] != '\n')
		fail("head does not end with a line end");
	if (r->status) {
		if (r->keep_alive)
			fail("keep-alive after a refusal");
		if (!*http_reason(r->status))
			fail("unknown status");
		return;
	}
	if (r->method == HTTP_M_OTHER)
		fail("unserved method accepted");
	if (!r->klen || r->klen > HTTP_KEY_MAX)
		fail("bad key length");
	for (off = 0; off < r->klen; off++)
		if ((unsigned char)r->key[off] <= 0x20 || r->key[off] == 0x7f)
			fail("key with whitespace or control characters");
	if (r->method == HTTP_M_PUT && !r->has_cl)
		fail("PUT without a length");
	if (r->inm && (r->inm < buf || r->inm + r->inm_len > buf + n))
		fail("If-None-Match outside the head");
	if (r->im && (r->im < buf || r->im + r->im_len > buf + n))
		fail("If-Match outside the head");
	if (r->ir && (r->ir < buf || r->ir + r->ir_len > buf + n))
		fail("If-Range outside the head");
	if (r->has_range) {
		static const u64 lens[] = { 0, 1, 2, 4096, 1ULL << 24, ~0ULL };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			if (http_range_resolve(r, lens[i], &off, &cnt))
				continue;
			if (!cnt || off >= lens[i] || cnt > lens[i] - off)
				fail("range outside the value");
		}
	}
	if (r->inm)
		http_inm_match(r->inm, r->inm_len, "\"0\"", 3);
	if (r->im)
		http_im_match(r->im, r->im_len, "\"0\"", 3);
	if (r->ir)
		http_parse_date(r->ir, r->ir_len, &t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exact-size copy so that ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	size_t off = 0;
	struct http_req req;
	s64 t;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	while (off < size) {
		int n = http_parse(buf + off, size - off, &req);

		check(buf + off, size - off, n, &req);
		if (n <= 0 || req.status)
			break;
		off += n;
		if (req.has_cl) {
			if (req.cl > size - off)
				break;
			off += req.cl;
		}
	}
	/* the matchers and the date parser on raw bytes, too */
	http_inm_match(buf, size, "\"0123\"", 6);
	http_im_match(buf, size, "\"0123\"", 6);
	http_parse_date(buf, size, &t);
	free(buf);
	return 0;
}
