/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: HTTP/1.1 request parser (RFC 9110, RFC 9112).
 *
 * Plain C, no allocation, no kernel headers: it builds in the kernel and in
 * userspace (tests/unit, fuzz/). It parses one request head (request line
 * and header fields, up to and including the empty line) from the
 * caller's buffer and points into it; the body, if any, is the caller's.
 *
 *	struct http_req req;
 *	int n = http_parse(buf, len, &req);
 *
 *	n == HTTP_PARSE_MORE   no complete head yet, and none of the limits
 *	                       is exceeded: read more and call again with the
 *	                       same (grown) buffer.
 *	n == HTTP_PARSE_ERROR  the request is unusable: answer req.status
 *	                       (400, 414, 431, 501, 505, ...) with
 *	                       "Connection: close" and close; the framing of
 *	                       anything that follows is unknown.
 *	n > 0                  a complete head of n bytes; req.status is 0
 *	                       or a status to answer (400 or 501 for a
 *	                       Transfer-Encoding, 405, 411) after which the
 *	                       connection is closed as well.
 *
 * Every limit is a constant below; a client cannot make the parser look
 * at more than HTTP_HEAD_MAX bytes or keep more than struct http_req.
 */
#ifndef _HTTP_PARSE_H
#define _HTTP_PARSE_H

#include "gb_compat.h"

/* Longest request line (method, target, version), terminator included. */
#define HTTP_LINE_MAX		4096
/* Longest head (request line and every header field) in bytes. */
#define HTTP_HEAD_MAX		8192
/* Most header fields in one request. */
#define HTTP_FIELDS_MAX		64
/* Longest key after percent-decoding (memcache's limit). */
#define HTTP_KEY_MAX		250
/* Longest If-None-Match or If-Match value kept. */
#define HTTP_INM_MAX		512

#define HTTP_PARSE_MORE		0
#define HTTP_PARSE_ERROR	(-1)

enum http_method {
	HTTP_M_OTHER,		/* known syntax, not served: 405 */
	HTTP_M_GET,
	HTTP_M_HEAD,
	HTTP_M_PUT,
	HTTP_M_DELETE,
};

/* "Allow" of a 405 response. */
#define HTTP_ALLOW		"GET, HEAD, PUT, DELETE"

/**
 * struct http_req - one parsed request head
 * @status:     0, or the status to answer instead of serving the request
 * @method:     enum http_method
 * @minor:      HTTP/1.@minor (0 or 1)
 * @keep_alive: the connection may stay open after the response
 * @has_cl:     a Content-Length was given
 * @cl:         its value
 * @expect_100: "Expect: 100-continue"
 * @has_range:  a single satisfiable-looking "bytes=" range was given
 *              (an invalid or multiple range is ignored: RFC 9110 14.2)
 * @r_suffix:   "bytes=-N": the last @r_last bytes
 * @r_open:     "bytes=N-": from @r_first to the end
 * @r_first:    first byte of the range
 * @r_last:     last byte (inclusive), or the suffix length
 * @has_flags:  X-Goblin-Flags given
 * @flags:      its value
 * @has_ttl:    X-Goblin-TTL or Cache-Control max-age given (the former
 *              wins)
 * @ttl_from_header: @ttl came from X-Goblin-TTL
 * @ttl:        seconds from now, 0 = never expires
 * @inm:        If-None-Match value (NULL: none); points into the buffer
 * @inm_len:    its length
 * @im:         If-Match value (NULL: none); points into the buffer
 * @im_len:     its length
 * @ir:         If-Range value (NULL: none); points into the buffer
 * @ir_len:     its length
 * @has_ius:    a valid If-Unmodified-Since was given
 * @ius:        its time (seconds since the epoch)
 * @klen:       key length (1..HTTP_KEY_MAX)
 * @key:        the key, percent-decoded; query string dropped
 */
struct http_req {
	u16 status;
	u8 method;
	u8 minor;
	bool keep_alive;
	bool has_cl;
	bool expect_100;
	bool has_range;
	bool r_suffix;
	bool r_open;
	bool has_flags;
	bool has_ttl;
	bool ttl_from_header;
	u64 cl;
	u64 r_first;
	u64 r_last;
	u32 flags;
	u64 ttl;
	const char *inm;
	size_t inm_len;
	const char *im;
	size_t im_len;
	const char *ir;
	size_t ir_len;
	bool has_ius;
	s64 ius;
	u16 klen;
	char key[HTTP_KEY_MAX];
};

int http_parse(const char *buf, size_t len, struct http_req *req);

/**
 * http_range_resolve() - apply a request's range to a value of @vlen bytes
 * @req:  parsed request with @req->has_range
 * @vlen: value length
 * @off:  first byte to send
 * @cnt:  bytes to send (> 0)
 *
 * Return: 0, or -1 if the range is unsatisfiable (416).
 */
int http_range_resolve(const struct http_req *req, u64 vlen, u64 *off,
		       u64 *cnt);

/**
 * http_inm_match() - does an If-None-Match list match an ETag?
 * @v:    the field value
 * @len:  its length
 * @etag: the ETag, quotes included ("\"...\"")
 * @elen: its length
 *
 * Weak comparison (RFC 9110 13.1.2): "W/" prefixes are ignored; "*" (as
 * the whole value) matches any current representation.
 *
 * Return: true if a tag of the list (or "*") matches @etag.
 */
bool http_inm_match(const char *v, size_t len, const char *etag, size_t elen);

/**
 * http_im_match() - does an If-Match list match an ETag?
 * @v:    the field value
 * @len:  its length
 * @etag: the ETag (strong), quotes included
 * @elen: its length
 *
 * Strong comparison (RFC 9110 13.1.1): a "W/" tag matches nothing; "*"
 * (as the whole value) matches any current representation.
 *
 * Return: true if a strong tag of the list (or "*") matches @etag.
 */
bool http_im_match(const char *v, size_t len, const char *etag, size_t elen);

/**
 * http_parse_date() - an HTTP-date in any of its three forms (RFC 9110 5.6.7)
 * @v:   the date, exactly (no surrounding whitespace)
 * @len: its length
 * @out: seconds since 1970-01-01 00:00:00 UTC, from -62167219200
 *       (0000-01-01) to 253402300799 (9999-12-31), so it can be negative;
 *       left alone on an error
 *
 * The three forms (the examples are all the same instant):
 *
 * - IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
 * - rfc850-date (obsolete): "Sunday, 06-Nov-94 08:49:37 GMT"
 * - asctime-date (obsolete): "Sun Nov  6 08:49:37 1994", the day of the
 *   month space-padded (" 6") or two digits ("06")
 *
 * A recipient must accept all three. An rfc850-date's two-digit year is
 * 2000-2069 for 00-69 and 1970-1999 for 70-99: a fixed window, not RFC
 * 9110's "no more than 50 years in the future", since this parser has no
 * clock (the window is RFC 9110's rule for a clock in 2019-2020, and
 * off by one more two-digit year each year after).
 *
 * Every form is checked strictly, with no case folding: the day name (three
 * letters, or whole in rfc850-date) must be a day name, though it need not
 * be the day of that date; the month must be a month name; the day must
 * exist in its month (Feb 29 only in leap years); hours 00-23, minutes and
 * seconds 00-59. A leap second (second 60) reads as the second before it.
 *
 * Return: 0, or -1 if @v is not a valid HTTP-date.
 */
int http_parse_date(const char *v, size_t len, s64 *out);

/* Reason phrase of @status ("" if unknown). */
const char *http_reason(unsigned int status);

#endif /* _HTTP_PARSE_H */
