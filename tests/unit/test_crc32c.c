// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the CRC-32C conventions of the value CRCs (protocol 3.1,
 * uapi/linux/goblin_rdma.h section 2): the server computes them with the
 * kernel's crc32c() (lib/libcrc32c.c), libgoblin checks them with ISA-L's
 * crc32_iscsi() (lib/src/rdma.c). Both are the raw reflected CRC with
 * polynomial 0x82F63B78: crc32c(seed, p, len) and crc32_iscsi(p, len,
 * seed) take the running value as it is, with no inversion on the way in
 * or out, so the protocol's CRC is ~f(~0, bytes) on both sides and a value
 * may be fed in any split of chunks.
 *
 * ref_crc32c() below is that definition, bit by bit: what the kernel's
 * crc32c() computes for any seed (the kernel's own selftest vectors in
 * lib/crc32test.c use the same raw convention). The tests pin it to the
 * published CRC-32C check values (RFC 3720 appendix B.4, and the
 * "123456789" check value 0xE3069283) and then check crc32_iscsi()
 * against it for every length up to 1 KiB, random seeds (0 too) and every
 * split of a buffer. func/lib checks the same on the wire: values the
 * module stored with crc on pass the library's check and the CRC the
 * module reports through debugfs is the library's.
 *
 * Output is TAP.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/crc.h>

#include "unit_tap.h"
#include "../../tools/include/gb_compiler.h"

#define CRC32C_POLY	0x82f63b78u	/* reflected Castagnoli */

/* The kernel's crc32c(seed, p, len): raw, one bit at a time. */
static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? CRC32C_POLY : 0);
	}
	return crc;
}

/* The protocol's CRC of a whole value through ISA-L. */
static uint32_t isal_value_crc(const uint8_t *p, size_t len)
{
	return ~crc32_iscsi((unsigned char *)p, (int)len, ~0u);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void t_vectors(void)
{
	uint8_t b[32];
	size_t i;

	/* RFC 3720 B.4 (iSCSI CRC32C examples) and the common check value */
	memset(b, 0, sizeof(b));
	CHECK(~ref_crc32c(~0u, b, 32) == 0x8a9136aa);
	CHECK(isal_value_crc(b, 32) == 0x8a9136aa);
	memset(b, 0xff, sizeof(b));
	CHECK(~ref_crc32c(~0u, b, 32) == 0x62a8ab43);
	CHECK(isal_value_crc(b, 32) == 0x62a8ab43);
	for (i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	CHECK(~ref_crc32c(~0u, b, 32) == 0x46dd794e);
	CHECK(isal_value_crc(b, 32) == 0x46dd794e);
	for (i = 0; i < 32; i++)
		b[i] = (uint8_t)(31 - i);
	CHECK(~ref_crc32c(~0u, b, 32) == 0x113fdb5c);
	CHECK(isal_value_crc(b, 32) == 0x113fdb5c);
	CHECK(isal_value_crc((const uint8_t *)"123456789", 9) == 0xe3069283);
	/* a 0-byte value: the protocol's CRC is 0 */
	CHECK(isal_value_crc(b, 0) == 0);
	CHECK(~ref_crc32c(~0u, b, 0) == 0);
}

static void t_raw_convention(void)
{
	const uint8_t *s = (const uint8_t *)"123456789";

	/* no inversion inside: seed ~0 gives the complement of the CRC */
	CHECK(crc32_iscsi((unsigned char *)s, 9, ~0u) == 0x1cf96d7c);
	CHECK(ref_crc32c(~0u, s, 9) == 0x1cf96d7c);
	/* seed 0 is a plain seed, not "start a new CRC" */
	CHECK(crc32_iscsi((unsigned char *)s, 9, 0) == ref_crc32c(0, s, 9));
	CHECK(crc32_iscsi((unsigned char *)s, 9, 0) != 0x1cf96d7c);
	/* an empty buffer returns the seed as it is */
	CHECK(crc32_iscsi((unsigned char *)s, 0, 0x12345678) == 0x12345678);
}

static void t_agree(void)
{
	static uint8_t b[1024 + 16];
	size_t len, off, i;
	uint32_t seed;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rnd();
	for (len = 0; len <= 1024; len++) {
		/* unaligned starts too: ISA-L works in 8-byte words */
		off = len % 8;
		seed = len % 3 == 0 ? 0 : len % 3 == 1 ? ~0u : (uint32_t)rnd();
		CHECK(crc32_iscsi(b + off, (int)len, seed) ==
		      ref_crc32c(seed, b + off, len));
	}
}

static void t_chunks(void)
{
	static uint8_t b[4096 + 7];
	uint32_t whole, run;
	size_t i, cut, cut2;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rnd();
	whole = isal_value_crc(b, sizeof(b));
	CHECK(whole == ~ref_crc32c(~0u, b, sizeof(b)));
	/* one split anywhere, then two: what chunked BULKs feed */
	for (cut = 0; cut <= sizeof(b); cut++) {
		run = crc32_iscsi(b, (int)cut, ~0u);
		run = crc32_iscsi(b + cut, (int)(sizeof(b) - cut), run);
		CHECK(~run == whole);
	}
	for (i = 0; i < 200; i++) {
		cut = rnd() % (sizeof(b) + 1);
		cut2 = cut + rnd() % (sizeof(b) - cut + 1);
		run = crc32_iscsi(b, (int)cut, ~0u);
		run = crc32_iscsi(b + cut, (int)(cut2 - cut), run);
		run = crc32_iscsi(b + cut2, (int)(sizeof(b) - cut2), run);
		CHECK(~run == whole);
	}
	/* any single flipped bit changes the CRC */
	for (i = 0; i < 64; i++) {
		size_t at = rnd() % sizeof(b);
		uint8_t bit = (uint8_t)(1u << (rnd() % 8));

		b[at] ^= bit;
		CHECK(isal_value_crc(b, sizeof(b)) != whole);
		b[at] ^= bit;
	}
}

static const struct unit_test tests[] = {
	{ "published CRC-32C check values, 0-byte value", t_vectors },
	{ "crc32_iscsi() is raw: no inversion, seed as given", t_raw_convention },
	{ "crc32_iscsi() == the kernel's crc32c() definition, 0..1024 bytes",
	  t_agree },
	{ "any split into chunks gives the whole value's CRC", t_chunks },
};

int main(void)
{
	return unit_run(tests, ARRAY_SIZE(tests));
}
