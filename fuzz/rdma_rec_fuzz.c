// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the RDMA protocol v3 record and connect data parser
 * (kmod/proto/rdma_rec.c).
 *
 * Each input is handed to gb_rdma_rec_parse() twice: as it is, in a heap
 * buffer of exactly its size (anything but GB_RDMA_RECORD_SIZE bytes must be
 * fatal, and ASan sees any read past the end), and as the start of a
 * received record, zero padded to GB_RDMA_RECORD_SIZE. It is also handed to
 * gb_rdma_connect_parse() as connect private data, and as it is to
 * gb_rdma_resp_parse() with folding granted (revision 3.2) at the
 * largest and smallest record size a server grants. Every result must satisfy
 * the invariants of tests/unit/rdma_check.h (an accepted GET must re-encode
 * with gb_rdma_get_add_key() to a record with the same keys, accepted
 * connect data must re-encode to itself); a violation traps. The first
 * four bytes, and each of the first eight, are also a reject reason for
 * gb_rdma_reject_str() (a client reads it from the server's reject private
 * data).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_rec.h"
#include "rdma_check.h"

static void fail(const char *what, const char *why)
{
	fprintf(stderr, "rdma_rec invariant violated (%s): %s\n", what, why);
	__builtin_trap();
}

static void check_rec(const uint8_t *buf, size_t len, const char *what)
{
	struct gb_rdma_rec rec;
	const char *msg = NULL, *why;
	int ret;

	memset(&rec, 0xa5, sizeof(rec));
	ret = gb_rdma_rec_parse(buf, len, &rec, &msg);
	why = rc_check_rec(buf, len, ret, &rec, msg);
	if (!why && ret == GB_RDMA_PARSE_OK && rec.type == GB_RDMA_GET)
		why = rc_check_get_rebuild(buf, &rec);
	if (why)
		fail(what, why);
}

/* 3.2: a client with folded responses granted at @rec_max bytes. */
static void check_resp(const uint8_t *buf, size_t len, size_t rec_max)
{
	struct gb_rdma_rec rec;
	const char *msg = NULL, *why;
	int ret;

	memset(&rec, 0xa5, sizeof(rec));
	ret = gb_rdma_resp_parse(buf, len, rec_max, &rec, &msg);
	why = rc_check_resp(buf, len, rec_max, ret, &rec);
	if (!why && len == GB_RDMA_RECORD_SIZE)
		why = rc_check_rec(buf, len, ret, &rec, msg);
	if (why)
		fail("folded response", why);
}

/* A reject reason comes from the network on the client side. */
static void check_reject_str(unsigned int reason)
{
	const char *s = gb_rdma_reject_str(reason);

	if (!s || !*s || strlen(s) > 64)
		fail("reject reason", "no short text");
}

static void check_connect(const uint8_t *priv, size_t len)
{
	struct gb_rdma_geom geom;
	unsigned int reason;
	const char *why;

	memset(&geom, 0xa5, sizeof(geom));
	reason = gb_rdma_connect_parse(priv, len, &geom);
	why = rc_check_connect(priv, len, reason, &geom);
	if (why)
		fail("connect", why);
	check_reject_str(reason);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* malloc'ed buffers are aligned as receive buffers are */
	uint8_t *buf = malloc(size ? size : 1);
	uint8_t *rec = malloc(GB_RDMA_RECORD_SIZE);
	size_t i;

	if (!buf || !rec)
		abort();
	memcpy(buf, data, size);
	check_rec(buf, size, "exact size");
	check_resp(buf, size, GB_RDMA_FOLD_RECORD_MAX);
	check_resp(buf, size, GB_RDMA_RECORD_SIZE + 64);
	check_connect(buf, size);
	if (size >= 4)
		check_reject_str((unsigned int)buf[0] | buf[1] << 8 |
				 buf[2] << 16 | (unsigned int)buf[3] << 24);
	/* small values too: a -O1 switch may become a table without edges */
	for (i = 0; i < size && i < 8; i++)
		check_reject_str(buf[i]);
	if (!size)
		check_connect(NULL, GB_RDMA_CONNECT_SIZE);

	memset(rec, 0, GB_RDMA_RECORD_SIZE);
	memcpy(rec, data, size < GB_RDMA_RECORD_SIZE ? size :
	       GB_RDMA_RECORD_SIZE);
	check_rec(rec, GB_RDMA_RECORD_SIZE, "padded record");
	free(rec);
	free(buf);
	return 0;
}
