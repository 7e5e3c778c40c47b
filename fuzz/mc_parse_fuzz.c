// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the memcache text protocol parser.
 *
 * The input is treated as one connection's byte stream and consumed the way
 * the TCP server does: parse a line, skip the data block of storage commands
 * and of swallowed errors, walk multiget keys, repeat. Every result must
 * satisfy the invariants of tests/unit/mc_check.h; a violation traps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_parse.h"
#include "mc_check.h"

static void fail(const char *why)
{
	fprintf(stderr, "mc_parse invariant violated: %s\n", why);
	__builtin_trap();
}

/*
 * The same line fed to mc_parse_cont() in pieces of @step bytes (as TCP
 * reads deliver it) must give, for every piece, what mc_parse() gives for
 * the bytes received so far.
 */
static void check_cont(const char *p, size_t len, size_t step)
{
	struct mc_req r, w;
	int ret = MC_PARSE_MORE, want;
	size_t l = 0;

	memset(&r, 0, sizeof(r));
	while (ret == MC_PARSE_MORE && l < len) {
		l = l + step < len ? l + step : len;
		ret = mc_parse_cont(p, l, &r);
		want = mc_parse(p, l, &w);
		if (ret != want)
			fail("mc_parse_cont differs from mc_parse");
		if (ret > 0 && r.cmd != w.cmd)
			fail("mc_parse_cont command differs");
		if (ret != MC_PARSE_MORE && r.scanned)
			fail("mc_parse_cont keeps a scanned offset");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exact-size copy so that ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	size_t off = 0;
	struct mc_req req;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	while (off < size) {
		const char *p = buf + off, *why, *k;
		size_t len = size - off, kl, skip = 0;
		char enc[(MC_KEY_MAX + 2) / 3 * 4 + 4];
		int ret = mc_parse(p, len, &req);

		if (!mc_check_result(p, len, ret, &req, &why))
			fail(why);
		if (len <= 1024)
			check_cont(p, len, 1 + (size % 97));
		if (ret <= 0)
			break;
		off += ret;
		if (mc_cmd_has_data(req.cmd)) {
			skip = req.vlen + 2;
			if (skip <= size - off)
				(void)mc_data_end_ok(buf + off + req.vlen);
		}
		switch (req.cmd) {
		case MC_CMD_ERROR:
			if (req.vlen_swallow)
				skip = req.vlen + 2;
			break;
		case MC_CMD_GET:
		case MC_CMD_GETS:
		case MC_CMD_GAT:
		case MC_CMD_GATS:
			while (mc_next_key(&req, &k, &kl))
				if (kl == 0 || kl > MC_KEY_MAX)
					fail("bad multiget key");
			break;
		default:
			break;
		}
		if (req.cmd != MC_CMD_ERROR && req.b64 && req.klen) {
			size_t n = mc_b64_encode(req.key, req.klen, enc);

			if (n > sizeof(enc) || n % 4)
				fail("base64 encoding length");
		}
		if (skip > size - off)
			break;
		off += skip;
	}
	free(buf);
	return 0;
}
