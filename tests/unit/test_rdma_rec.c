// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the RDMA protocol v3 record and connect data parser
 * (kmod/proto/rdma_rec.c, wire format in uapi/linux/goblin_rdma.h).
 *
 * Records are built byte by byte here (little-endian, independently of the
 * builders under test), then copied into a heap buffer of exactly the length
 * handed to the parser so that ASan catches any over-read. Every result is
 * also run through the invariants of rdma_check.h. Output is TAP.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_rec.h"
#include "rdma_check.h"

#include "unit_tap.h"
#include "../../tools/include/gb_compiler.h"

#define REC		GB_RDMA_RECORD_SIZE
#define BODY		16	/* header size */
#define KEYS		(BODY + 8)	/* first GET key length byte */

/* The record being built; parse_*() copy it before parsing. */
static uint8_t r[REC] __aligned(8);

/* Exact-size copy of the last parsed input (rec points into it). */
static uint8_t *cur;
static struct gb_rdma_rec rec;
static const char *msg;

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v & 0xffffffff);
	put32(p + 4, v >> 32);
}

/* Start record @type with body length @blen; return the body. */
static uint8_t *mk(uint8_t type, uint16_t blen)
{
	memset(r, 0, sizeof(r));
	r[0] = type;
	put16(r + 4, blen);
	return r + BODY;
}

static void set_blen(size_t blen)
{
	put16(r + 4, (uint16_t)blen);
}

/* Parse @len bytes of @src from an exact-size heap copy. */
static int parse_n(const void *src, size_t len)
{
	const char *why;
	int ret;

	free(cur);
	cur = malloc(len ? len : 1);	/* malloc: 16-byte aligned */
	if (!cur)
		abort();
	memcpy(cur, src, len);
	memset(&rec, 0xa5, sizeof(rec));	/* stale garbage must not leak */
	msg = NULL;
	ret = gb_rdma_rec_parse(cur, len, &rec, &msg);
	why = rc_check_rec(cur, len, ret, &rec, msg);
	if (!why && ret == GB_RDMA_PARSE_OK && rec.type == GB_RDMA_GET)
		why = rc_check_get_rebuild(cur, &rec);
	if (why) {
		printf("#   invariant violated (%s) for type %#x len %zu\n",
		       why, len >= 1 ? cur[0] : 0, len);
		test_failed++;
	}
	return ret;
}

/* Parse the record being built and require @want (and message @wmsg). */
#define EXPECT(want, wmsg) expect(want, wmsg, __LINE__)

static int expect(int want, const char *wmsg, int line)
{
	int ret = parse_n(r, REC);

	if (ret != want || (wmsg && strcmp(msg, wmsg))) {
		printf("#   line %d: type %#x: got %d \"%s\", want %d \"%s\"\n",
		       line, r[0], ret, msg ? msg : "(null)", want,
		       wmsg ? wmsg : "*");
		test_failed++;
		return 0;
	}
	return 1;
}

/* Is parsed GET key @i equal to @want? */
static int get_key_is(unsigned int i, const char *want, size_t n)
{
	return i < rec.u.get.nkeys && rec.u.get.klen[i] == n &&
	       !memcmp(cur + rec.u.get.off[i], want, n);
}

/* Append key @k (@n bytes, length byte @n) to the GET being built at @pos. */
static size_t add_raw(size_t pos, const void *k, size_t n)
{
	if (pos + 1 + n > REC)
		abort();	/* bug in the test */
	r[pos] = (uint8_t)n;
	memcpy(r + pos + 1, k, n);
	return pos + 1 + n;
}

/* Build a GET of @n keys given as strings; return its body length. */
static size_t mk_get(const char *const *keys, unsigned int n)
{
	size_t pos = KEYS;
	unsigned int i;

	mk(GB_RDMA_GET, 0);
	put16(r + BODY, n);
	for (i = 0; i < n; i++)
		pos = add_raw(pos, keys[i], strlen(keys[i]));
	set_blen(pos - BODY);
	return pos - BODY;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memset(s, c, n);
	s[n] = 0;
	return s;
}

/* Connect data being built, and the last parse result. */
static uint8_t cd[GB_RDMA_CONNECT_SIZE];
static struct gb_rdma_geom geom;

static void mk_connect(uint32_t size, uint16_t count, uint16_t credits,
		       uint32_t rkey, uint64_t base, uint64_t region)
{
	memset(cd, 0, sizeof(cd));
	put32(cd, GB_RDMA_MAGIC);
	put16(cd + 4, GB_RDMA_VERSION);
	put32(cd + 8, size);
	put16(cd + 12, count);
	put16(cd + 14, credits);
	put32(cd + 16, rkey);
	put64(cd + 24, base);
	put64(cd + 32, region);
}

static void mk_connect_ok(void)
{
	mk_connect(65536, 8, 64, 0x1234, 0x7f0000000000ULL, 8 << 20);
}

/* Parse @len bytes of @src (NULL: no private data) from an exact copy. */
static unsigned int conn_parse_n(const void *src, size_t len)
{
	unsigned int reason;
	uint8_t *p = NULL;
	const char *why;

	if (src) {
		p = malloc(len ? len : 1);
		if (!p)
			abort();
		memcpy(p, src, len);
	}
	memset(&geom, 0xa5, sizeof(geom));
	reason = gb_rdma_connect_parse(p, len, &geom);
	why = rc_check_connect(p, len, reason, &geom);
	if (why) {
		printf("#   invariant violated (%s) for connect data of %zu\n",
		       why, len);
		test_failed++;
	}
	free(p);
	return reason;
}

static unsigned int conn_parse(void)
{
	return conn_parse_n(cd, sizeof(cd));
}

/* ------------------------------------------------------------------------ */

static void t_size(void)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 256, 504, 511, 513,
				       520, 1024 };
	static uint8_t big[2 * REC] __aligned(8);
	size_t i;

	mk(GB_RDMA_NOOP, 0);
	memcpy(big, r, REC);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		CHECK(parse_n(big, lens[i]) == GB_RDMA_PARSE_FATAL);
		CHECK(msg && !strcmp(msg, "bad record size"));
	}
	CHECK(parse_n(big, REC) == GB_RDMA_PARSE_OK);
	CHECK(rec.type == GB_RDMA_NOOP);
	CHECK(msg && !strcmp(msg, ""));
}

static void t_header(void)
{
	static const uint16_t bad[] = { GB_RDMA_BODY_MAX + 1, 512, 0x8000,
					0xffff };
	size_t i;

	mk(GB_RDMA_NOOP, 0);
	r[1] = 0xa5;
	put16(r + 2, 0xbeef);
	put64(r + 8, 0x0102030405060708ULL);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.type == GB_RDMA_NOOP && rec.flags == 0xa5);
	CHECK(rec.credits == 0xbeef && rec.tag == 0x0102030405060708ULL);

	set_blen(GB_RDMA_BODY_MAX);
	EXPECT(GB_RDMA_PARSE_OK, "");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		set_blen(bad[i]);
		EXPECT(GB_RDMA_PARSE_FATAL, "bad record length");
	}

	/* header reserved field is ignored on receipt */
	set_blen(0);
	put16(r + 6, 0xffff);
	EXPECT(GB_RDMA_PARSE_OK, "");

	/* header fields are decoded for CLIENT and UNKNOWN results too */
	mk(GB_RDMA_GET, 8);
	put16(r + 2, 17);
	put64(r + 8, ~0ULL);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key count");
	CHECK(rec.type == GB_RDMA_GET && rec.credits == 17 &&
	      rec.tag == ~0ULL);
	r[0] = 0x7e;
	r[1] = 3;
	EXPECT(GB_RDMA_PARSE_UNKNOWN, "");
	CHECK(rec.type == 0x7e && rec.flags == 3 && rec.credits == 17 &&
	      rec.tag == ~0ULL);
}

static void t_noop_version(void)
{
	static const uint8_t types[] = { GB_RDMA_NOOP, GB_RDMA_VERSION_REQ,
					 GB_RDMA_R_NOOP };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		mk(types[i], 0);
		EXPECT(GB_RDMA_PARSE_OK, "");
		CHECK(rec.type == types[i]);
		/* the body of these records is ignored */
		memset(r + BODY, 0xff, REC - BODY);
		set_blen(GB_RDMA_BODY_MAX);
		EXPECT(GB_RDMA_PARSE_OK, "");
	}
}

static void t_get_valid(void)
{
	static const char *const one[] = { "k" };
	char *k250 = repeat('a', 250), *k236 = repeat('b', 236);
	const char *const two[] = { k250, k236 };
	char keys[64][8];
	const char *many[64];
	uint8_t high[] = { 0x21, 0x7e, 0x80, 0xc3, 0xa9, 0xff };
	unsigned int i;

	CHECK(mk_get(one, 1) == 10);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.get.nkeys == 1 && rec.u.get.off[0] == KEYS + 1);
	CHECK(get_key_is(0, "k", 1));

	/* 64 keys, the most allowed */
	for (i = 0; i < 64; i++) {
		snprintf(keys[i], sizeof(keys[i]), "key:%02u", i);
		many[i] = keys[i];
	}
	CHECK(mk_get(many, 64) == 8 + 64 * 7);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.get.nkeys == 64);
	for (i = 0; i < 64; i++) {
		CHECK(get_key_is(i, keys[i], 6));
		CHECK(rec.u.get.off[i] == KEYS + 1 + 7 * i);
	}

	/* a 250-byte key and one that fills the body to the last byte */
	CHECK(mk_get(two, 2) == GB_RDMA_BODY_MAX);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(get_key_is(0, k250, 250) && get_key_is(1, k236, 236));
	CHECK(rec.u.get.off[1] == KEYS + 1 + 250 + 1);

	/* bytes >= 0x80 are allowed in keys, as in memcache */
	mk(GB_RDMA_GET, 0);
	put16(r + BODY, 1);
	set_blen(add_raw(KEYS, high, sizeof(high)) - BODY);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(get_key_is(0, (const char *)high, sizeof(high)));

	/* GET flags/reserved and bytes past the keys are ignored */
	mk_get(one, 1);
	put16(r + BODY + 2, 0xffff);
	put32(r + BODY + 4, 0xffffffff);
	set_blen(GB_RDMA_BODY_MAX);
	memset(r + KEYS + 2, ' ', REC - KEYS - 2);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.get.nkeys == 1 && get_key_is(0, "k", 1));
	free(k250);
	free(k236);
}

static void t_get_bad(void)
{
	static const char *const ab[] = { "a", "b" };
	static const char *const abcde[] = { "abcde" };
	static const char *const bad_keys[] = {
		"a b", " ab", "ab ", "a\tb", "a\rb", "a\nb", "\x01", "a\x1f",
		"\x7f", "x\x7fy",
	};
	char *k250 = repeat('k', 250), *k251 = repeat('k', 251);
	const char *const big[] = { k250, k251 };
	size_t i, blen;

	/* body too short for the GET fields */
	for (i = 0; i < 8; i++) {
		mk_get(ab, 2);
		set_blen(i);
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad GET record");
	}

	/* key count */
	mk_get(ab, 2);
	put16(r + BODY, 0);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key count");
	put16(r + BODY, GB_RDMA_GET_MAX_KEYS + 1);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key count");
	put16(r + BODY, 0xffff);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key count");

	/* more keys announced than the body holds */
	mk_get(ab, 2);
	put16(r + BODY, 3);
	EXPECT(GB_RDMA_PARSE_CLIENT, "truncated key list");
	mk_get(ab, 2);
	set_blen(8);
	EXPECT(GB_RDMA_PARSE_CLIENT, "truncated key list");
	set_blen(8 + 2);
	EXPECT(GB_RDMA_PARSE_CLIENT, "truncated key list");
	set_blen(8 + 2 + 1);	/* length byte in, key byte out */
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	set_blen(8 + 2 + 2);
	EXPECT(GB_RDMA_PARSE_OK, "");

	/* key length off by one against the body length */
	blen = mk_get(abcde, 1);
	set_blen(blen - 1);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	set_blen(blen);
	EXPECT(GB_RDMA_PARSE_OK, "");
	set_blen(blen + 1);
	EXPECT(GB_RDMA_PARSE_OK, "");
	r[KEYS] = 6;		/* length byte one more than the key */
	set_blen(blen);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	r[KEYS] = 4;		/* one less: the next key length is 'e' */
	put16(r + BODY, 2);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");

	/* key lengths 0, 250 and 251 */
	mk(GB_RDMA_GET, 8 + 1);
	put16(r + BODY, 1);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	mk_get(big, 1);
	EXPECT(GB_RDMA_PARSE_OK, "");
	mk_get(big + 1, 1);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	r[KEYS] = 255;
	set_blen(GB_RDMA_BODY_MAX);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");

	/* second key overruns the body (and GB_RDMA_BODY_MAX) */
	mk_get(big, 1);
	put16(r + BODY, 2);
	set_blen(GB_RDMA_BODY_MAX);
	memset(r + KEYS + 252, 'k', REC - KEYS - 252);
	r[KEYS + 251] = 251;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	r[KEYS + 251] = 237;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	r[KEYS + 251] = 236;
	EXPECT(GB_RDMA_PARSE_OK, "");
	set_blen(GB_RDMA_BODY_MAX - 1);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	set_blen(GB_RDMA_BODY_MAX);
	put16(r + BODY, 3);	/* no room left for a third key */
	EXPECT(GB_RDMA_PARSE_CLIENT, "truncated key list");

	/* 64 keys of 250 bytes cannot fit */
	mk_get(big, 1);
	put16(r + BODY, 64);
	set_blen(GB_RDMA_BODY_MAX);
	memset(r + KEYS + 251, 250, REC - KEYS - 251);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");

	/* spaces, control characters, DEL and NUL, in the last key too */
	for (i = 0; i < ARRAY_SIZE(bad_keys); i++) {
		const char *const keys[] = { "ok", bad_keys[i] };

		mk_get(keys + 1, 1);
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
		mk_get(keys, 2);
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	}
	mk(GB_RDMA_GET, 8 + 4);
	put16(r + BODY, 1);
	memcpy(r + KEYS, "\3a\0b", 4);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");

	/* a bad header length is fatal even with a good body */
	mk_get(ab, 2);
	set_blen(GB_RDMA_BODY_MAX + 1);
	EXPECT(GB_RDMA_PARSE_FATAL, "bad record length");
	free(k250);
	free(k251);
}

static void t_set(void)
{
	static const struct {
		uint32_t mode;
		int ok;
	} modes[] = {
		{ GB_RDMA_SET_SET, 1 }, { GB_RDMA_SET_ADD, 1 },
		{ GB_RDMA_SET_REPLACE, 1 }, { GB_RDMA_SET_CAS, 1 },
		{ GB_RDMA_SET_APPEND, 1 }, { GB_RDMA_SET_PREPEND, 1 },
		{ 6, 0 }, { 0x100, 0 }, { 0x80000000, 0 }, { 0xffffffff, 0 },
	};
	uint8_t *b;
	size_t i;

	/* minimal */
	b = mk(GB_RDMA_SET, 48 + 1);
	b[40] = 1;
	b[48] = 'k';
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.set.mode == 0 && rec.u.set.flags == 0 &&
	      rec.u.set.exptime == 0 && rec.u.set.cas == 0 &&
	      rec.u.set.bytes == 0 && rec.u.set.addr == 0);
	CHECK(rec.u.set.klen == 1 && rec.u.set.key == (char *)cur + BODY + 48 &&
	      rec.u.set.key[0] == 'k');

	/* maximal */
	b = mk(GB_RDMA_SET, GB_RDMA_BODY_MAX);
	put32(b, GB_RDMA_SET_PREPEND);
	put32(b + 4, 0xffffffff);
	put64(b + 8, (uint64_t)-2);
	put64(b + 16, ~0ULL);
	put64(b + 24, ~0ULL);
	put64(b + 32, 0x8000000000000001ULL);
	b[40] = 250;
	memset(b + 41, 0xff, 7);	/* reserved: ignored */
	memset(b + 48, 'v', 250);
	memset(b + 298, 0xff, GB_RDMA_BODY_MAX - 298);	/* padding */
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.set.mode == GB_RDMA_SET_PREPEND &&
	      rec.u.set.flags == 0xffffffff && rec.u.set.exptime == -2 &&
	      rec.u.set.cas == ~0ULL && rec.u.set.bytes == ~0ULL &&
	      rec.u.set.addr == 0x8000000000000001ULL);
	CHECK(rec.u.set.klen == 250 && rec.u.set.key[249] == 'v');

	/* modes */
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		put32(b, modes[i].mode);
		if (modes[i].ok)
			EXPECT(GB_RDMA_PARSE_OK, "");
		else
			EXPECT(GB_RDMA_PARSE_CLIENT,
			       "bad command line format");
	}

	/* key lengths and contents */
	put32(b, GB_RDMA_SET_SET);
	b[40] = 251;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	b[40] = 255;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	b[40] = 0;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	b[40] = 3;
	memcpy(b + 48, "a b", 3);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	memcpy(b + 48, "ab\n", 3);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	memcpy(b + 48, "a\0b", 3);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	memcpy(b + 48, "abc", 3);
	EXPECT(GB_RDMA_PARSE_OK, "");
	/* a bad mode is reported before a bad key */
	put32(b, 6);
	b[40] = 0;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad command line format");
}

static void t_keyop(void)
{
	static const uint8_t types[] = { GB_RDMA_DELETE, GB_RDMA_TOUCH };
	uint8_t *b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		b = mk(types[i], 24 + 1);
		b[16] = 1;
		b[24] = '~';
		CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
		CHECK(rec.u.keyop.exptime == 0 && rec.u.keyop.cas == 0);
		CHECK(rec.u.keyop.klen == 1 &&
		      rec.u.keyop.key == (char *)cur + BODY + 24);

		b = mk(types[i], GB_RDMA_BODY_MAX);
		put64(b, (uint64_t)-5);
		put64(b + 8, 0xfedcba9876543210ULL);
		b[16] = 250;
		memset(b + 17, 0xff, 7);	/* reserved: ignored */
		memset(b + 24, '#', 250);
		memset(b + 274, 0xff, GB_RDMA_BODY_MAX - 274);
		CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
		CHECK(rec.type == types[i] && rec.u.keyop.exptime == -5 &&
		      rec.u.keyop.cas == 0xfedcba9876543210ULL &&
		      rec.u.keyop.klen == 250 && rec.u.keyop.key[249] == '#');

		b[16] = 251;
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
		b[16] = 0;
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
		b[16] = 2;
		b[25] = ' ';
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
		b[25] = 0x7f;
		EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
		b[25] = 0x80;
		EXPECT(GB_RDMA_PARSE_OK, "");
	}
}

static void t_flow_end_status(void)
{
	uint8_t *b;

	b = mk(GB_RDMA_FLOW, 16);
	put16(r + 2, 32);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.credits == 32 && rec.u.flow.windows == 0);
	put64(b, 0x8000000000000001ULL);
	put64(b + 8, ~0ULL);	/* reserved: ignored */
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.flow.windows == 0x8000000000000001ULL);
	put64(b, ~0ULL);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.flow.windows == ~0ULL);

	b = mk(GB_RDMA_R_END, 8);
	put16(b, 3);
	put16(b + 2, 0xffff);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.end.hits == 3 && rec.u.end.misses == 0xffff);

	b = mk(GB_RDMA_R_STATUS, 16);
	put32(b, GB_RDMA_ST_TOUCHED);
	put64(b + 8, 0x0123456789abcdefULL);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.status.status == GB_RDMA_ST_TOUCHED &&
	      rec.u.status.cas == 0x0123456789abcdefULL);
}

static void t_value(void)
{
	uint8_t *b;

	b = mk(GB_RDMA_R_VALUE, 32 + 1);
	b[2] = 1;
	b[32] = 'x';
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.value.key_index == 0 && rec.u.value.klen == 1 &&
	      rec.u.value.key == (char *)cur + BODY + 32 &&
	      rec.u.value.flags == 0 && rec.u.value.bytes == 0 &&
	      rec.u.value.cas == 0);

	b = mk(GB_RDMA_R_VALUE, GB_RDMA_BODY_MAX);
	put16(b, GB_RDMA_GET_MAX_KEYS - 1);
	b[2] = 250;
	b[3] = 0xff;			/* vflags: decoded, any bits */
	put32(b + 4, 0xdeadbeef);
	put64(b + 8, 16 << 20);
	put64(b + 16, ~0ULL);
	put32(b + 24, 0xe3069283);	/* crc: decoded */
	put32(b + 28, ~0U);		/* reserved: ignored */
	memset(b + 32, 'z', 250);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.value.key_index == 63 && rec.u.value.klen == 250 &&
	      rec.u.value.flags == 0xdeadbeef &&
	      rec.u.value.bytes == 16 << 20 && rec.u.value.cas == ~0ULL &&
	      rec.u.value.vflags == 0xff && rec.u.value.crc == 0xe3069283);
	/* the wire offsets of the 3.1 fields (uapi static layout) */
	CHECK(offsetof(struct gb_rdma_value, vflags) == 3 &&
	      offsetof(struct gb_rdma_value, crc) == 24 &&
	      offsetof(struct gb_rdma_bulk, crc) == 20);

	/* a key index the client never sent cannot be answered: fatal */
	put16(b, GB_RDMA_GET_MAX_KEYS);
	EXPECT(GB_RDMA_PARSE_FATAL, NULL);
	put16(b, 0xffff);
	EXPECT(GB_RDMA_PARSE_FATAL, NULL);
	b[2] = 0;			/* the index is checked first */
	EXPECT(GB_RDMA_PARSE_FATAL, NULL);

	put16(b, 0);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	b[2] = 251;
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
	b[2] = 2;
	b[33] = '\n';
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key");
}

static void t_bulk(void)
{
	static const struct {
		uint16_t window;
		uint32_t len;
		int ok;
	} tc[] = {
		{ 0, 1, 1 }, { 63, GB_RDMA_WINDOW_MAX, 1 }, { 5, 4096, 1 },
		{ 64, 1, 0 }, { 0xffff, 1, 0 }, { 0, 0, 0 },
		{ 0, GB_RDMA_WINDOW_MAX + 1, 0 }, { 0, 0xffffffff, 0 },
	};
	uint8_t *b;
	size_t i;

	b = mk(GB_RDMA_R_BULK, 24);
	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		put16(b, tc[i].window);
		put32(b + 4, tc[i].len);
		if (EXPECT(tc[i].ok ? GB_RDMA_PARSE_OK :
			   GB_RDMA_PARSE_FATAL, NULL) && tc[i].ok)
			CHECK(rec.u.bulk.window == tc[i].window &&
			      rec.u.bulk.len == tc[i].len);
	}
	put16(b, 7);
	put16(b + 2, GB_RDMA_BULK_LAST);
	put32(b + 4, 100);
	put64(b + 8, 0x100000000ULL);
	put16(b + 16, 12);
	memset(b + 18, 0xff, 2);	/* reserved: ignored */
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.bulk.window == 7 && rec.u.bulk.flags == GB_RDMA_BULK_LAST &&
	      rec.u.bulk.len == 100 && rec.u.bulk.offset == 0x100000000ULL &&
	      rec.u.bulk.key_index == 12 && rec.u.bulk.crc == 0);
	/* 3.1: the last BULK with its value's CRC; flags pass through */
	put16(b + 2, GB_RDMA_BULK_LAST | GB_RDMA_BULK_CRC);
	put32(b + 20, 0x1cf96d7c);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.bulk.flags == (GB_RDMA_BULK_LAST | GB_RDMA_BULK_CRC) &&
	      rec.u.bulk.crc == 0x1cf96d7c && rec.u.bulk.key_index == 12);
}

static void t_error_version(void)
{
	uint8_t *b;

	b = mk(GB_RDMA_R_ERROR, 136);
	put32(b, GB_RDMA_ERR_CLIENT);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.error.kind == GB_RDMA_ERR_CLIENT &&
	      rec.u.error.msg == (char *)cur + BODY + 8 &&
	      !rec.u.error.msg[0]);
	memset(b + 8, 'e', GB_RDMA_MSG_MAX - 1);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(strlen(rec.u.error.msg) == GB_RDMA_MSG_MAX - 1);
	b[8 + GB_RDMA_MSG_MAX - 1] = 'e';	/* no NUL in the message */
	EXPECT(GB_RDMA_PARSE_FATAL, NULL);
	b[8 + 10] = 0;
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(strlen(rec.u.error.msg) == 10);

	b = mk(GB_RDMA_R_VERSION, 72);
	put32(b, GB_RDMA_VERSION);
	memcpy(b + 8, "0.1.0", 6);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.version.version == GB_RDMA_VERSION &&
	      !strcmp(rec.u.version.server, "0.1.0"));
	memset(b + 8, 'v', 63);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(strlen(rec.u.version.server) == 63);
	b[8 + 63] = 'v';
	EXPECT(GB_RDMA_PARSE_FATAL, NULL);
}

static void t_types(void)
{
	unsigned int t;

	for (t = 0; t < 256; t++) {
		int ret;

		mk(t, 0);
		put64(r + 8, t);
		ret = parse_n(r, REC);
		if (rc_known_type(t)) {
			CHECK(ret != GB_RDMA_PARSE_UNKNOWN);
		} else {
			CHECK(ret == GB_RDMA_PARSE_UNKNOWN);
			CHECK(rec.type == t && rec.tag == t);
		}
		set_blen(GB_RDMA_BODY_MAX + 1);
		CHECK(parse_n(r, REC) == GB_RDMA_PARSE_FATAL);
	}
}

/* gb_rdma_req_parse(): what a server makes of a record from a client */
static int req_parse(void)
{
	free(cur);
	cur = malloc(REC);
	if (!cur)
		abort();
	memcpy(cur, r, REC);
	memset(&rec, 0xa5, sizeof(rec));
	msg = NULL;
	return gb_rdma_req_parse(cur, REC, &rec, &msg);
}

static void t_req_parse(void)
{
	unsigned int t;
	uint8_t *b;

	for (t = 0; t < 256; t++) {
		mk(t, 0);
		put16(r + 2, 5);
		put64(r + 8, t + 1000);
		if (t < 0x80) {
			int want = parse_n(r, REC);

			CHECK(req_parse() == want);
			continue;
		}
		/* response types: unknown, header decoded, body ignored */
		memset(r + BODY, 0xff, REC - BODY);
		CHECK(req_parse() == GB_RDMA_PARSE_UNKNOWN);
		CHECK(rec.type == t && rec.credits == 5 &&
		      rec.tag == t + 1000 && msg && !strcmp(msg, ""));
		set_blen(GB_RDMA_BODY_MAX + 1);
		CHECK(req_parse() == GB_RDMA_PARSE_FATAL &&
		      !strcmp(msg, "bad record length"));
	}
	/* a BULK the client parser rejects as fatal is only unknown here */
	b = mk(GB_RDMA_R_BULK, 24);
	put16(b, GB_RDMA_MAX_WINDOWS);
	CHECK(parse_n(r, REC) == GB_RDMA_PARSE_FATAL);
	CHECK(req_parse() == GB_RDMA_PARSE_UNKNOWN);
	/* wrong size stays fatal */
	CHECK(gb_rdma_req_parse(r, REC - 1, &rec, &msg) ==
	      GB_RDMA_PARSE_FATAL);
}

static void t_connect_valid(void)
{
	uint8_t big[300];

	mk_connect(GB_RDMA_WINDOW_MIN, 1, GB_RDMA_CREDITS_MIN, 0, 0,
		   GB_RDMA_WINDOW_MIN);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
	CHECK(geom.window_size == 4096 && geom.window_count == 1 &&
	      geom.credits == 4 && geom.rkey == 0 && geom.window_base == 0 &&
	      geom.region_len == 4096);

	mk_connect(GB_RDMA_WINDOW_MAX, GB_RDMA_MAX_WINDOWS,
		   GB_RDMA_CREDITS_MAX, 0xffffffff, ~0ULL - (1ULL << 30),
		   1ULL << 30);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
	CHECK(geom.window_size == 16 << 20 && geom.window_count == 64 &&
	      geom.credits == 1024 && geom.rkey == 0xffffffff &&
	      geom.window_base == ~0ULL - (1ULL << 30) &&
	      geom.region_len == 1ULL << 30);

	/* bytes past the 56 of struct gb_rdma_connect are ignored */
	mk_connect_ok();
	memset(big, 0xff, sizeof(big));
	memcpy(big, cd, sizeof(cd));
	CHECK(conn_parse_n(big, sizeof(big)) == GB_RDMA_REJ_NONE);
	CHECK(geom.window_size == 65536 && geom.window_count == 8 &&
	      geom.credits == 64 && geom.rkey == 0x1234 &&
	      geom.window_base == 0x7f0000000000ULL &&
	      geom.region_len == 8 << 20);
}

static void t_connect_short(void)
{
	static const struct {
		size_t len;
		unsigned int want;
	} tc[] = {
		{ 0, GB_RDMA_REJ_MAGIC }, { 1, GB_RDMA_REJ_MAGIC },
		{ 3, GB_RDMA_REJ_MAGIC }, { 4, GB_RDMA_REJ_VERSION },
		{ 5, GB_RDMA_REJ_WINDOW }, { 6, GB_RDMA_REJ_WINDOW },
		{ 14, GB_RDMA_REJ_WINDOW }, { 32, GB_RDMA_REJ_WINDOW },
		{ 34, GB_RDMA_REJ_WINDOW }, { 35, GB_RDMA_REJ_NONE },
		{ 40, GB_RDMA_REJ_NONE },
		{ 55, GB_RDMA_REJ_NONE }, { 56, GB_RDMA_REJ_NONE },
	};
	size_t i;

	/*
	 * Missing bytes read as zero: version 3 is in byte 4, window_size
	 * 64 KiB in byte 10, region_len 8 MiB in byte 34.
	 */
	mk_connect_ok();
	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		unsigned int got = conn_parse_n(cd, tc[i].len);

		if (got != tc[i].want) {
			printf("#   %zu bytes: reason %u, want %u\n",
			       tc[i].len, got, tc[i].want);
			test_failed++;
		}
	}
	CHECK(conn_parse_n(NULL, 0) == GB_RDMA_REJ_MAGIC);
	CHECK(conn_parse_n(NULL, GB_RDMA_CONNECT_SIZE) == GB_RDMA_REJ_MAGIC);
}

static void t_connect_magic_version(void)
{
	static const uint16_t versions[] = { 0, 1, 2, 4, 0x103, 0xffff };
	size_t i;

	for (i = 0; i < 4; i++) {
		mk_connect_ok();
		cd[i] ^= 0x20;
		CHECK(conn_parse() == GB_RDMA_REJ_MAGIC);
	}
	mk_connect_ok();
	put32(cd, 0x47425233);		/* "GBR3" big-endian */
	CHECK(conn_parse() == GB_RDMA_REJ_MAGIC);
	for (i = 0; i < ARRAY_SIZE(versions); i++) {
		mk_connect_ok();
		put16(cd + 4, versions[i]);
		CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	}
}

static void t_connect_window(void)
{
	static const struct {
		uint32_t size;
		uint16_t count;
		int ok;
	} tc[] = {
		{ 4096, 1, 1 }, { 8192, 64, 1 }, { GB_RDMA_WINDOW_MAX, 1, 1 },
		{ 1 << 20, 33, 1 }, { 0, 1, 0 }, { 4095, 1, 0 },
		{ 4097, 1, 0 }, { 6144, 1, 0 }, { 12288 + 512, 1, 0 },
		{ GB_RDMA_WINDOW_MAX - 1, 1, 0 },
		{ GB_RDMA_WINDOW_MAX + 4096, 1, 0 }, { 0xfffff000, 1, 0 },
		{ 4096, 0, 0 }, { 4096, 65, 0 }, { 4096, 0xffff, 0 },
	};
	uint64_t span = 8ULL * 65536;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		unsigned int got, want;

		mk_connect(tc[i].size, tc[i].count, 64, 1, 0,
			   1ULL << 40);
		got = conn_parse();
		want = tc[i].ok ? GB_RDMA_REJ_NONE : GB_RDMA_REJ_WINDOW;
		if (got != want) {
			printf("#   size %u count %u: reason %u, want %u\n",
			       tc[i].size, tc[i].count, got, want);
			test_failed++;
		}
	}

	/* region_len against window_size * window_count */
	mk_connect(65536, 8, 64, 1, 0x1000, span);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
	put64(cd + 32, span - 1);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
	put64(cd + 32, 0);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
	mk_connect(GB_RDMA_WINDOW_MAX, 64, 64, 1, 0, 1ULL << 30);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
	put64(cd + 32, (1ULL << 30) - 1);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);

	/* the region must not wrap around the address space */
	mk_connect(65536, 8, 64, 1, ~0ULL - span, span);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
	put64(cd + 24, ~0ULL - span + 1);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
	put64(cd + 24, ~0ULL);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
	put64(cd + 24, 0);
	put64(cd + 32, ~0ULL);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
	put64(cd + 24, 1);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
}

static void t_connect_credits_reserved(void)
{
	static const struct {
		uint16_t credits;
		int ok;
	} tc[] = {
		{ 0, 0 }, { 3, 0 }, { 4, 1 }, { 512, 1 }, { 1024, 1 },
		{ 1025, 0 }, { 0xffff, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		mk_connect_ok();
		put16(cd + 14, tc[i].credits);
		CHECK(conn_parse() == (tc[i].ok ? GB_RDMA_REJ_NONE :
				       GB_RDMA_REJ_CREDITS));
	}

	/*
	 * flags are negotiation: the known revision bits (3.1: CRC) are
	 * accepted and decoded, any other bit is refused; reserved bytes
	 * must be zero
	 */
	for (i = 0; i < 16; i++) {
		mk_connect_ok();
		put16(cd + 6, 1 << i);
		if ((1u << i) == GB_RDMA_CONNECT_FOLD) {
			/* 3.2 needs a record size: 0 is refused */
			CHECK(conn_parse() == GB_RDMA_REJ_RECORD);
			put32(cd + 20, GB_RDMA_FOLD_RECORD_MIN);
			CHECK(conn_parse() == GB_RDMA_REJ_NONE);
			CHECK(geom.flags == 1u << i &&
			      geom.record_size == GB_RDMA_FOLD_RECORD_MIN);
		} else if ((1u << i) & GB_RDMA_CONNECT_FLAGS) {
			CHECK(conn_parse() == GB_RDMA_REJ_NONE);
			CHECK(geom.flags == 1u << i);
		} else {
			CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
		}
	}
	CHECK(GB_RDMA_CONNECT_FLAGS ==
	      (GB_RDMA_CONNECT_CRC | GB_RDMA_CONNECT_FOLD |
	       GB_RDMA_CONNECT_ONESIDED));
	mk_connect_ok();
	put16(cd + 6, GB_RDMA_CONNECT_CRC | 0x8000);
	CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	mk_connect_ok();
	CHECK(conn_parse() == GB_RDMA_REJ_NONE && geom.flags == 0);
	for (i = 20; i < 24; i++) {
		mk_connect_ok();
		cd[i] = 0x80;
		CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	}
	for (i = 40; i < GB_RDMA_CONNECT_SIZE; i++) {
		mk_connect_ok();
		cd[i] = 1;
		CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	}

	/* the first failing check gives the reason */
	mk_connect(0, 0, 0, 0, 0, 0);
	put16(cd + 6, 0x8000);	/* a flag of no revision */
	put32(cd, 0);
	CHECK(conn_parse() == GB_RDMA_REJ_MAGIC);
	put32(cd, GB_RDMA_MAGIC);
	put16(cd + 4, 2);
	CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	put16(cd + 4, GB_RDMA_VERSION);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
	put32(cd + 8, 4096);
	put16(cd + 12, 1);
	put64(cd + 32, 4096);
	CHECK(conn_parse() == GB_RDMA_REJ_CREDITS);
	put16(cd + 14, 4);
	CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	put16(cd + 6, 0);
	CHECK(conn_parse() == GB_RDMA_REJ_NONE);
}

static void t_connect_build(void)
{
	static const struct gb_rdma_geom geoms[] = {
		{ 4096, 1, 4, 0, 0, 4096, 0, 0 },
		{ 65536, 8, 64, 0x1234, 0x7f0000000000ULL, 8 << 20,
		  GB_RDMA_CONNECT_CRC, 0 },
		{ GB_RDMA_WINDOW_MAX, 64, 1024, 0xffffffff,
		  ~0ULL - (1ULL << 30), 1ULL << 30, 0, 0 },
		{ 4096, 2, 16, 7, 0x1000, 1 << 20,
		  GB_RDMA_CONNECT_CRC | GB_RDMA_CONNECT_FOLD, 4096 },
		{ 4096, 2, 16, 7, 0x1000, 1 << 20, GB_RDMA_CONNECT_FOLD,
		  GB_RDMA_FOLD_RECORD_CAP },
	};
	struct gb_rdma_connect c;
	uint8_t *p = (uint8_t *)&c;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(geoms); i++) {
		const struct gb_rdma_geom *g = &geoms[i];

		memset(&c, 0xff, sizeof(c));
		gb_rdma_connect_build(&c, g);
		CHECK(!memcmp(p, "GBR3", 4));
		CHECK(rc_le16(p + 4) == GB_RDMA_VERSION &&
		      rc_le16(p + 6) == g->flags);
		CHECK(rc_le32(p + 8) == g->window_size &&
		      rc_le16(p + 12) == g->window_count &&
		      rc_le16(p + 14) == g->credits &&
		      rc_le32(p + 16) == g->rkey &&
		      rc_le32(p + 20) == g->record_size &&
		      rc_le64(p + 24) == g->window_base &&
		      rc_le64(p + 32) == g->region_len);
		for (j = 40; j < sizeof(c); j++)
			CHECK(p[j] == 0);
		CHECK(conn_parse_n(&c, sizeof(c)) == GB_RDMA_REJ_NONE);
		CHECK(geom.window_size == g->window_size &&
		      geom.window_count == g->window_count &&
		      geom.credits == g->credits && geom.rkey == g->rkey &&
		      geom.window_base == g->window_base &&
		      geom.region_len == g->region_len &&
		      geom.flags == g->flags &&
		      geom.record_size == g->record_size);
	}
}

/* 3.2: connect.record_size with and without GB_RDMA_CONNECT_FOLD. */
static void t_connect_record(void)
{
	static const struct {
		uint32_t size;
		int ok;
	} tc[] = {
		{ 0, 0 }, { 64, 0 }, { 448, 0 }, { 511, 0 }, { 512, 0 },
		{ 513, 0 }, { 576, 1 }, { 4096, 1 }, { 4097, 0 },
		{ 65536, 1 }, { 65600, 0 }, { 1u << 20, 0 }, { ~0U, 0 },
		{ ~0U - 63, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		mk_connect_ok();
		put16(cd + 6, GB_RDMA_CONNECT_FOLD);
		put32(cd + 20, tc[i].size);
		if (tc[i].ok) {
			CHECK(conn_parse() == GB_RDMA_REJ_NONE &&
			      geom.record_size == tc[i].size &&
			      geom.flags == GB_RDMA_CONNECT_FOLD);
		} else {
			CHECK(conn_parse() == GB_RDMA_REJ_RECORD);
			/* the server reports the size asked for */
			CHECK(geom.record_size == tc[i].size);
		}
		/* without the flag the field is reserved: any size refused */
		put16(cd + 6, GB_RDMA_CONNECT_CRC);
		CHECK(conn_parse() == (tc[i].size ? GB_RDMA_REJ_VERSION :
				       GB_RDMA_REJ_NONE));
	}
	/* an unknown flag is refused as VERSION before the size is looked at */
	mk_connect_ok();
	put16(cd + 6, GB_RDMA_CONNECT_FOLD | 0x0100);
	put32(cd + 20, 1);
	CHECK(conn_parse() == GB_RDMA_REJ_VERSION);
	/* geometry before size */
	mk_connect_ok();
	put16(cd + 12, 0);
	put16(cd + 6, GB_RDMA_CONNECT_FOLD);
	put32(cd + 20, 1);
	CHECK(conn_parse() == GB_RDMA_REJ_WINDOW);
}

/* Parse @len bytes of @src as a client with folding granted at @max. */
static int resp_n(const void *src, size_t len, size_t max)
{
	const char *why;
	int ret;

	free(cur);
	cur = malloc(len ? len : 1);
	if (!cur)
		abort();
	memcpy(cur, src, len);
	memset(&rec, 0xa5, sizeof(rec));
	msg = NULL;
	ret = gb_rdma_resp_parse(cur, len, max, &rec, &msg);
	why = rc_check_resp(cur, len, max, ret, &rec);
	if (!why && len == REC)
		why = rc_check_rec(cur, len, ret, &rec, msg);
	if (why) {
		printf("#   invariant violated (%s) for folded len %zu\n", why,
		       len);
		test_failed++;
	}
	return ret;
}

/* 3.2: folded VALUE (inline, first BULK, END) and BULK with END. */
static void t_resp_fold(void)
{
	static uint8_t big[GB_RDMA_FOLD_RECORD_MAX + 1] __aligned(8);
	const size_t vb = offsetof(struct gb_rdma_value, bulk);
	const size_t ve = offsetof(struct gb_rdma_value, end);
	uint8_t *b;
	size_t n;

	CHECK(vb == 288 && ve == 312);
	/* inline VALUE of 0, 1, limit-1 and limit bytes */
	for (n = 0; n <= GB_RDMA_FOLD_RECORD_MAX - REC; n++) {
		if (n > 1 && n < GB_RDMA_FOLD_RECORD_MAX - REC - 1)
			continue;
		b = mk(GB_RDMA_R_VALUE, GB_RDMA_BODY_MAX);
		b[2] = 1;
		b[3] = GB_RDMA_VALUE_INLINE | GB_RDMA_VALUE_END;
		put64(b + 8, n);
		b[32] = 'k';
		put16(b + ve, 1);
		memcpy(big, r, REC);
		memset(big + REC, 0x5a, n);
		CHECK(resp_n(big, REC + n, GB_RDMA_FOLD_RECORD_MAX) ==
		      GB_RDMA_PARSE_OK);
		CHECK(rec.u.value.bytes == n &&
		      rec.u.value.data == cur + REC &&
		      rec.u.value.hits == 1 && rec.u.value.misses == 0);
		/* one byte more or less than announced: fatal */
		CHECK(resp_n(big, REC + n + 1, GB_RDMA_FOLD_RECORD_MAX) ==
		      GB_RDMA_PARSE_FATAL);
		if (n)
			CHECK(resp_n(big, REC + n - 1,
				     GB_RDMA_FOLD_RECORD_MAX) ==
			      GB_RDMA_PARSE_FATAL);
		/* beyond a smaller grant: fatal */
		if (n > 64)
			CHECK(resp_n(big, REC + n, REC + 64) ==
			      GB_RDMA_PARSE_FATAL);
	}
	/* limit + 1 bytes cannot be inline */
	put64(big + BODY + 8, GB_RDMA_FOLD_RECORD_MAX - REC + 1);
	CHECK(resp_n(big, GB_RDMA_FOLD_RECORD_MAX + 1,
		     GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);
	CHECK(resp_n(big, GB_RDMA_FOLD_RECORD_MAX,
		     GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);

	/* VALUE with its first BULK and END */
	b = mk(GB_RDMA_R_VALUE, GB_RDMA_BODY_MAX);
	b[2] = 3;
	b[3] = GB_RDMA_VALUE_CRC | GB_RDMA_VALUE_BULK | GB_RDMA_VALUE_END;
	put64(b + 8, 9000);
	put32(b + 24, 0xe3069283);
	memcpy(b + 32, "key", 3);
	put16(b + vb, 5);
	put16(b + vb + 2, GB_RDMA_BULK_LAST | GB_RDMA_BULK_CRC);
	put32(b + vb + 4, 9000);
	put32(b + vb + 20, 0xe3069283);
	put16(b + ve, 1);
	put16(b + ve + 2, 2);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_OK);
	CHECK(rec.u.value.bulk.window == 5 && rec.u.value.bulk.len == 9000 &&
	      rec.u.value.bulk.flags ==
	      (GB_RDMA_BULK_LAST | GB_RDMA_BULK_CRC) &&
	      rec.u.value.bulk.crc == 0xe3069283 &&
	      rec.u.value.hits == 1 && rec.u.value.misses == 2 &&
	      !rec.u.value.data);
	/* without folding granted: plain 3.1 decoding, the fields ignored */
	CHECK(resp_n(r, REC, REC) == GB_RDMA_PARSE_OK &&
	      rec.u.value.bulk.len == 0 && rec.u.value.hits == 0);
	/* a folded BULK out of bounds, a VALUE both inline and bulk */
	put16(b + vb, GB_RDMA_MAX_WINDOWS);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);
	put16(b + vb, 0);
	put32(b + vb + 4, 0);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);
	put32(b + vb + 4, 1);
	b[3] |= GB_RDMA_VALUE_INLINE;
	put64(b + 8, 0);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);
	/* a long record that is not an inline VALUE */
	b[3] = GB_RDMA_VALUE_BULK;
	memcpy(big, r, REC);
	CHECK(resp_n(big, REC + 8, GB_RDMA_FOLD_RECORD_MAX) ==
	      GB_RDMA_PARSE_FATAL);
	b = mk(GB_RDMA_R_END, 8);
	memcpy(big, r, REC);
	CHECK(resp_n(big, REC + 64, GB_RDMA_FOLD_RECORD_MAX) ==
	      GB_RDMA_PARSE_FATAL);
	CHECK(resp_n(big, REC - 1, GB_RDMA_FOLD_RECORD_MAX) ==
	      GB_RDMA_PARSE_FATAL);

	/* BULK with END */
	b = mk(GB_RDMA_R_BULK, sizeof(struct gb_rdma_bulk_end));
	put16(b, 2);
	put16(b + 2, GB_RDMA_BULK_LAST | GB_RDMA_BULK_END);
	put32(b + 4, 100);
	put16(b + 24, 3);
	put16(b + 26, 4);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_OK);
	CHECK(rec.u.bulk.window == 2 && rec.u.bulk.len == 100 &&
	      rec.u.bulk.hits == 3 && rec.u.bulk.misses == 4);
	CHECK(resp_n(r, REC, REC) == GB_RDMA_PARSE_OK &&
	      rec.u.bulk.hits == 0 && rec.u.bulk.misses == 0);
	/* END folded into a BULK that is not the value's last: fatal */
	put16(b + 2, GB_RDMA_BULK_END);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);
	CHECK(!strcmp(msg, "END folded into a BULK that is not the last"));
	put16(b + 2, GB_RDMA_BULK_END | GB_RDMA_BULK_CRC);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_FATAL);
	/* a 3.1 client does not decode the flag */
	CHECK(resp_n(r, REC, REC) == GB_RDMA_PARSE_OK);
	/* a plain LAST BULK and a middle BULK stay fine */
	put16(b + 2, GB_RDMA_BULK_LAST);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_OK);
	put16(b + 2, 0);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MAX) == GB_RDMA_PARSE_OK);
}

/* Build a VALUE of @bytes for key index 7 with first BULK @len, @bflags. */
static uint8_t *mk_fold_value(uint8_t vflags, uint64_t bytes, uint32_t len,
			      uint16_t bflags)
{
	const size_t vb = offsetof(struct gb_rdma_value, bulk);
	uint8_t *b = mk(GB_RDMA_R_VALUE, GB_RDMA_BODY_MAX);

	put16(b, 7);
	b[2] = 1;
	b[3] = vflags;
	put64(b + 8, bytes);
	b[32] = 'k';
	put16(b + vb, 1);
	put16(b + vb + 2, bflags);
	put32(b + vb + 4, len);
	put16(b + vb + 16, 7);
	put16(b + offsetof(struct gb_rdma_value, end), 1);
	return b;
}

/* 3.2: folded combinations the protocol rules out are fatal. */
static void t_resp_fold_forbidden(void)
{
	const size_t vb = offsetof(struct gb_rdma_value, bulk);
	const int max = GB_RDMA_FOLD_RECORD_MAX;
	const uint8_t vbe = GB_RDMA_VALUE_BULK | GB_RDMA_VALUE_END;
	uint8_t *b;

	/* the valid shapes: first of several chunks, the only chunk + END */
	mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 4096, 0);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_OK &&
	      rec.u.value.key_index == 7 && rec.u.value.bulk.key_index == 7);
	mk_fold_value(vbe, 9000, 9000, GB_RDMA_BULK_LAST);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_OK &&
	      rec.u.value.hits == 1);

	/* END after a chunk that is not the last: the value never ends */
	mk_fold_value(vbe, 9000, 4096, 0);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	CHECK(!strcmp(msg, "END folded into an unfinished value"));
	/* END in a VALUE with neither its bytes nor its BULK */
	mk_fold_value(GB_RDMA_VALUE_END, 9000, 0, 0);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	CHECK(!strcmp(msg, "END folded into an unfinished value"));
	mk_fold_value(GB_RDMA_VALUE_END | GB_RDMA_VALUE_CRC, 0, 0, 0);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	/* ... which a 3.1 client reads as a plain VALUE */
	CHECK(resp_n(r, REC, REC) == GB_RDMA_PARSE_OK);

	/* the folded BULK must be the value's first, for its key */
	b = mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 4096, 0);
	put64(b + vb + 8, 4096);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	CHECK(!strcmp(msg, "bad folded BULK"));
	b = mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 4096, 0);
	put16(b + vb + 16, 6);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	put16(b + vb + 16, 7);
	put16(b, 6);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	/* no END flag of a BULK record in VALUE's BULK */
	mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 9000,
		      GB_RDMA_BULK_LAST | GB_RDMA_BULK_END);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	mk_fold_value(vbe, 9000, 9000, GB_RDMA_BULK_LAST | GB_RDMA_BULK_END);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	/* LAST exactly when the chunk is the whole value */
	mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 4096, GB_RDMA_BULK_LAST);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 9000, 0);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	mk_fold_value(GB_RDMA_VALUE_BULK, 9000, 9001, GB_RDMA_BULK_LAST);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	mk_fold_value(GB_RDMA_VALUE_BULK, 0, 1, GB_RDMA_BULK_LAST);
	CHECK(resp_n(r, REC, max) == GB_RDMA_PARSE_FATAL);
	/* the same at the smallest grant */
	mk_fold_value(vbe, 9000, 4096, 0);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MIN) == GB_RDMA_PARSE_FATAL);
	mk_fold_value(vbe, 9000, 9000, GB_RDMA_BULK_LAST);
	CHECK(resp_n(r, REC, GB_RDMA_FOLD_RECORD_MIN) == GB_RDMA_PARSE_OK);
}

static void t_hdr_init(void)
{
	size_t i;

	memset(r, 0xff, sizeof(r));
	gb_rdma_hdr_init(r, GB_RDMA_R_VALUE, 0x1122334455667788ULL, 0x1234,
			 0x0102);
	CHECK(r[0] == GB_RDMA_R_VALUE && r[1] == 0);
	CHECK(rc_le16(r + 2) == 0x1234 && rc_le16(r + 4) == 0x0102);
	CHECK(rc_le16(r + 6) == 0 && rc_le64(r + 8) == 0x1122334455667788ULL);
	for (i = BODY; i < REC; i++)
		CHECK(r[i] == 0);
}

static void t_get_add_key(void)
{
	char *k250 = repeat('a', 250), *k236 = repeat('b', 236);
	char *k237 = repeat('c', 237), *k251 = repeat('d', 251);
	static const char *const bad[] = { "a b", "\t", "a\x7f", "a\n" };
	uint8_t snap[REC];
	char keys[65][8];
	unsigned int i;

	/* up to GB_RDMA_GET_MAX_KEYS keys */
	gb_rdma_hdr_init(r, GB_RDMA_GET, 42, 7, 8);
	for (i = 0; i < 65; i++)
		snprintf(keys[i], sizeof(keys[i]), "k%u", i * 1000);
	for (i = 0; i < 64; i++)
		CHECK(gb_rdma_get_add_key(r, keys[i], strlen(keys[i])) == 0);
	memcpy(snap, r, REC);
	CHECK(gb_rdma_get_add_key(r, keys[64], strlen(keys[64])) == -1);
	CHECK(!memcmp(snap, r, REC));
	CHECK(rc_le16(r + BODY) == 64);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.tag == 42 && rec.credits == 7 && rec.u.get.nkeys == 64);
	for (i = 0; i < 64; i++)
		CHECK(get_key_is(i, keys[i], strlen(keys[i])));

	/* up to GB_RDMA_BODY_MAX bytes */
	gb_rdma_hdr_init(r, GB_RDMA_GET, 1, 0, 8);
	CHECK(gb_rdma_get_add_key(r, k250, 250) == 0);
	CHECK(rc_le16(r + 4) == 8 + 251);
	memcpy(snap, r, REC);
	CHECK(gb_rdma_get_add_key(r, k237, 237) == -1);
	CHECK(!memcmp(snap, r, REC));
	CHECK(gb_rdma_get_add_key(r, k236, 236) == 0);
	CHECK(rc_le16(r + 4) == GB_RDMA_BODY_MAX);
	memcpy(snap, r, REC);
	CHECK(gb_rdma_get_add_key(r, "x", 1) == -1);
	CHECK(!memcmp(snap, r, REC));
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(get_key_is(0, k250, 250) && get_key_is(1, k236, 236));

	/* invalid keys are refused and leave the record alone */
	gb_rdma_hdr_init(r, GB_RDMA_GET, 1, 0, 8);
	CHECK(gb_rdma_get_add_key(r, "ok", 2) == 0);
	memcpy(snap, r, REC);
	CHECK(gb_rdma_get_add_key(r, "", 0) == -1);
	CHECK(gb_rdma_get_add_key(r, k251, 251) == -1);
	CHECK(gb_rdma_get_add_key(r, k251, SIZE_MAX) == -1);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(gb_rdma_get_add_key(r, bad[i], strlen(bad[i])) == -1);
	CHECK(gb_rdma_get_add_key(r, "a\0b", 3) == -1);
	CHECK(!memcmp(snap, r, REC));

	/* a header initialised with body length 0 works too */
	gb_rdma_hdr_init(r, GB_RDMA_GET, 1, 0, 0);
	CHECK(gb_rdma_get_add_key(r, "key", 3) == 0);
	CHECK(rc_le16(r + 4) == 8 + 4);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.get.nkeys == 1 && get_key_is(0, "key", 3));
	free(k250);
	free(k236);
	free(k237);
	free(k251);
}

static int key_ok(const char *k, size_t n)
{
	char *p = malloc(n ? n : 1);
	int ok;

	if (!p)
		abort();
	memcpy(p, k, n);
	ok = gb_rdma_key_ok(p, n);
	free(p);
	return ok;
}

static void t_key_ok(void)
{
	char *k250 = repeat('q', 250), *k251 = repeat('q', 251);
	unsigned int c;

	CHECK(key_ok("a", 1));
	CHECK(key_ok(k250, 250));
	CHECK(!key_ok(k251, 251));
	CHECK(!key_ok("", 0));
	CHECK(!gb_rdma_key_ok(NULL, 0));
	k250[249] = ' ';
	CHECK(!key_ok(k250, 250));
	CHECK(key_ok(k250, 249));
	for (c = 0; c < 256; c++) {
		char k[3] = { 'a', (char)c, 'b' };

		CHECK(key_ok(k, 3) == (c > ' ' && c != 0x7f));
	}
	free(k250);
	free(k251);
}

static void t_reject_str(void)
{
	static const char *const want[] = {
		[GB_RDMA_REJ_NONE] = "not rejected by Goblin server",
		[GB_RDMA_REJ_MAGIC] = "bad magic (not a Goblin v3 client)",
		[GB_RDMA_REJ_VERSION] = "unsupported protocol version or flags",
		[GB_RDMA_REJ_WINDOW] = "bad bulk window geometry",
		[GB_RDMA_REJ_CREDITS] = "credits out of range",
		[GB_RDMA_REJ_BUSY] = "server connection limit reached",
		[GB_RDMA_REJ_NOMEM] = "server out of resources",
		[GB_RDMA_REJ_SHUTDOWN] = "listener shutting down",
		[GB_RDMA_REJ_DEVICE] = "RDMA device lacks a needed capability",
		[GB_RDMA_REJ_READ] =
			"client allows no RDMA READ (responder_resources 0)",
		[GB_RDMA_REJ_RECORD] = "bad record size (folded responses)",
	};
	static const unsigned int unknown[] = { 11, 12, 0x100, 0xffff,
						UINT_MAX };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const char *s = gb_rdma_reject_str(i);

		if (!s || strcmp(s, want[i])) {
			printf("#   reason %zu: \"%s\"\n", i, s ? s : "(null)");
			test_failed++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(unknown); i++)
		CHECK(!strcmp(gb_rdma_reject_str(unknown[i]),
			      "unknown reject reason"));
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Mutated valid records and connect data: invariants only. */
static void t_random(void)
{
	static const char *const keys[] = { "a", "key", "user:1000" };
	static const uint8_t types[] = {
		GB_RDMA_GET, GB_RDMA_SET, GB_RDMA_DELETE, GB_RDMA_TOUCH,
		GB_RDMA_FLOW, GB_RDMA_R_VALUE, GB_RDMA_R_BULK, GB_RDMA_R_ERROR,
		GB_RDMA_R_VERSION, GB_RDMA_NOOP,
	};
	uint8_t cbuf[64];
	int iter;

	for (iter = 0; iter < 100000 && test_failed <= 10; iter++) {
		uint64_t x = rnd();
		int n, m = 1 + x % 8;
		uint8_t t = types[(x >> 8) % ARRAY_SIZE(types)];

		if (t == GB_RDMA_GET) {
			mk_get(keys, 1 + (x >> 16) % 3);
		} else {
			mk(t, (x >> 16) % (GB_RDMA_BODY_MAX + 1));
			r[BODY + 16] = 3;
			r[BODY + 40] = 3;
			r[BODY + 2] = 3;
			memset(r + BODY + 24, 'k', 3);
			memset(r + BODY + 32, 'k', 3);
			memset(r + BODY + 48, 'k', 3);
			put32(r + BODY + 4, 1);
		}
		for (n = 0; n < m; n++) {
			uint64_t y = rnd();
			size_t at = (y & 0xff) < 0x40 ? y % 32 :
				    (y >> 8) % (REC - 1);

			if (y & 0x10000)
				r[at] = (uint8_t)(y >> 24);
			else
				put16(r + at, (uint16_t)(y >> 24));
		}
		parse_n(r, REC);

		mk_connect_ok();
		memcpy(cbuf, cd, sizeof(cd));
		memset(cbuf + sizeof(cd), (x >> 40) & 1 ? 0 : 0xff,
		       sizeof(cbuf) - sizeof(cd));
		for (n = 0; n < m; n++) {
			uint64_t y = rnd();

			cbuf[y % sizeof(cbuf)] ^= (uint8_t)(1 << ((y >> 8) % 8));
		}
		conn_parse_n(cbuf, x % 2 ? sizeof(cd) : (x >> 32) % 65);
	}
}

/* 3.3: LOOKUP is a GET body with at most 12 keys; R_LOOKUP's bounds */
static void t_lookup(void)
{
	uint8_t *b;
	unsigned int i;

	b = mk(GB_RDMA_LOOKUP, 8 + 12 * 2);
	put16(b, 12);
	put16(b + 2, GB_RDMA_LOOKUP_RELEASE);
	for (i = 0; i < 12; i++) {
		b[8 + 2 * i] = 1;
		b[9 + 2 * i] = (uint8_t)('a' + i);
	}
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.get.nkeys == 12 &&
	      rec.u.get.flags == GB_RDMA_LOOKUP_RELEASE &&
	      rec.u.get.klen[11] == 1);
	put16(b + 2, GB_RDMA_LOOKUP_RELEASE | 0x0002);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad LOOKUP flags");
	put16(b + 2, 0x8000);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad LOOKUP flags");
	put16(b + 2, 0);
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	put16(b, 13);
	set_blen(8 + 13 * 2);
	b[8 + 24] = 1;
	b[9 + 24] = 'z';
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key count");
	put16(b, 0);
	EXPECT(GB_RDMA_PARSE_CLIENT, "bad key count");

	b = mk(GB_RDMA_R_LOOKUP, sizeof(struct gb_rdma_lookup_r));
	EXPECT(GB_RDMA_PARSE_FATAL, "bad descriptor count");
	put16(b, 2);
	put32(b + 4, 500);
	b[8 + 28] = GB_RDMA_DESC_HIT;
	put32(b + 8 + 12, GB_RDMA_ONESIDED_MAX);
	b[8 + 40 + 28] = GB_RDMA_DESC_BUSY;
	CHECK(EXPECT(GB_RDMA_PARSE_OK, ""));
	CHECK(rec.u.lookup.nkeys == 2 && rec.u.lookup.lease_ms == 500);
	put32(b + 8 + 12, GB_RDMA_ONESIDED_MAX + 1);
	EXPECT(GB_RDMA_PARSE_FATAL, "bad descriptor");
	put32(b + 8 + 12, 1);
	b[8 + 40 + 28] = GB_RDMA_DESC_BUSY + 1;
	EXPECT(GB_RDMA_PARSE_FATAL, "bad descriptor");
	put16(b, GB_RDMA_LOOKUP_MAX_KEYS + 1);
	b[8 + 40 + 28] = GB_RDMA_DESC_MISS;
	EXPECT(GB_RDMA_PARSE_FATAL, "bad descriptor count");
}

static const struct unit_test tests[] = {
	{ "records of any size but GB_RDMA_RECORD_SIZE are fatal", t_size },
	{ "header decoding and body length bound", t_header },
	{ "NOOP, VERSION request, NOOP reply", t_noop_version },
	{ "GET: minimal, 64 keys, full body, high bytes", t_get_valid },
	{ "GET: bad counts, truncation, key lengths and bytes", t_get_bad },
	{ "SET: fields, modes, key lengths and bytes", t_set },
	{ "DELETE and TOUCH", t_keyop },
	{ "FLOW, END, STATUS", t_flow_end_status },
	{ "VALUE: key index and key", t_value },
	{ "BULK: window and chunk length bounds", t_bulk },
	{ "ERROR and VERSION reply strings must be terminated",
	  t_error_version },
	{ "every type byte: unknown types, length check first", t_types },
	{ "3.3: LOOKUP key count and flags, R_LOOKUP bounds", t_lookup },
	{ "connect: minimal, maximal, long private data", t_connect_valid },
	{ "connect: short private data is zero padded", t_connect_short },
	{ "connect: bad magic and version", t_connect_magic_version },
	{ "connect: window geometry bounds", t_connect_window },
	{ "connect: credits, flags and reserved bytes, order",
	  t_connect_credits_reserved },
	{ "gb_rdma_connect_build round trip", t_connect_build },
	{ "connect: 3.2 record size bounds, reserved without FOLD",
	  t_connect_record },
	{ "gb_rdma_resp_parse: 3.2 inline, folded BULK and END",
	  t_resp_fold },
	{ "gb_rdma_resp_parse: 3.2 folds the protocol rules out are fatal",
	  t_resp_fold_forbidden },
	{ "gb_rdma_hdr_init", t_hdr_init },
	{ "gb_rdma_get_add_key limits", t_get_add_key },
	{ "gb_rdma_key_ok", t_key_ok },
	{ "gb_rdma_req_parse: response types are unknown requests", t_req_parse },
	{ "gb_rdma_reject_str", t_reject_str },
	{ "mutated records and connect data keep the invariants", t_random },
};

int main(void)
{
	int ret = unit_run(tests, ARRAY_SIZE(tests));

	free(cur);
	return ret;
}
