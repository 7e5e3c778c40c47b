// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the memcache text protocol parser (kmod/proto/mc_parse.c).
 *
 * Expected results were checked against memcached 1.6.18 on 127.0.0.1
 * where the behaviour is observable on the wire (see also the differential
 * test in tests/func/memcache/difftest.py). Every input is copied into a
 * heap buffer of exactly its length so that ASan catches any over-read.
 * Output is TAP.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_parse.h"
#include "mc_check.h"

#include "unit_tap.h"
#include "../../tools/include/gb_compiler.h"

/* Owned copy of the last parsed input (pointers in req point into it). */
static char *cur;
static size_t cur_len;
static struct mc_req req;

/* Parse @len bytes of @s from an exact-size heap copy. */
static int parse_n(const char *s, size_t len)
{
	const char *why;
	int ret;

	free(cur);
	cur = malloc(len ? len : 1);
	if (!cur)
		abort();
	memcpy(cur, s, len);
	cur_len = len;
	memset(&req, 0xa5, sizeof(req));	/* stale garbage must not leak */
	ret = mc_parse(cur, len, &req);
	if (!mc_check_result(cur, len, ret, &req, &why)) {
		printf("#   invariant violated (%s) for input \"%.60s\"\n",
		       why, s);
		test_failed++;
	}
	return ret;
}

static int parse(const char *s)
{
	return parse_n(s, strlen(s));
}

static int key_is(const char *k, size_t kl, const char *want)
{
	return kl == strlen(want) && !memcmp(k, want, kl);
}

/* Parse a complete line and require command @cmd. */
static int parse_cmd(const char *s, enum mc_cmd cmd)
{
	int ret = parse(s);

	if (ret != (int)strlen(s) || req.cmd != cmd) {
		printf("#   \"%s\": ret %d cmd %s (want %zu %s)%s%s\n", s, ret,
		       ret > 0 ? mc_cmd_name(req.cmd) : "-", strlen(s),
		       mc_cmd_name(cmd), ret > 0 && req.cmd == MC_CMD_ERROR ?
		       " err: " : "",
		       ret > 0 && req.cmd == MC_CMD_ERROR ? req.err : "");
		test_failed++;
		return 0;
	}
	return 1;
}

/* Parse a complete line and require error @err (and quietness @quiet). */
static void expect_err(const char *s, const char *err, int quiet)
{
	int ret = parse(s);

	if (ret != (int)strlen(s) || req.cmd != MC_CMD_ERROR ||
	    strcmp(req.err, err) || req.err_quiet != !!quiet) {
		printf("#   \"%s\": ret %d cmd %s err \"%s\" quiet %d\n"
		       "#     want err \"%s\" quiet %d\n", s, ret,
		       ret > 0 ? mc_cmd_name(req.cmd) : "-",
		       ret > 0 && req.cmd == MC_CMD_ERROR ? req.err : "",
		       ret > 0 ? req.err_quiet : -1, err, quiet);
		test_failed++;
	}
}

static int key_eq(const char *want)
{
	return key_is(req.key, req.klen, want);
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = 0;
	return s;
}

/* ------------------------------------------------------------------------ */

static void t_incomplete(void)
{
	const char *k;
	size_t kl;
	char *s;
	int n;

	CHECK(parse("") == MC_PARSE_MORE);
	CHECK(parse("get foo") == MC_PARSE_MORE);
	CHECK(parse("get foo\r") == MC_PARSE_MORE);
	CHECK(parse("set foo 0 0 3") == MC_PARSE_MORE);

	/* a non-get line may be up to MC_LINE_MAX bytes before its '\n' */
	s = repeat('a', MC_LINE_MAX);
	CHECK(parse(s) == MC_PARSE_MORE);
	free(s);
	s = repeat('a', MC_LINE_MAX + 1);
	CHECK(parse(s) == MC_PARSE_CLOSE);
	free(s);

	/* a multiget may grow until MC_LINE_MAX_GET */
	s = repeat('k', MC_LINE_MAX_GET - 1);
	memcpy(s, "get ", 4);
	CHECK(parse(s) == MC_PARSE_MORE);
	memcpy(s, "gets ", 5);
	CHECK(parse(s) == MC_PARSE_MORE);
	memcpy(s, "   get ", 7);
	CHECK(parse(s) == MC_PARSE_MORE);
	memcpy(s, "gat ", 4);
	CHECK(parse(s) == MC_PARSE_MORE);
	memcpy(s, "gats ", 5);
	CHECK(parse(s) == MC_PARSE_MORE);
	memcpy(s, "set ", 4);
	CHECK(parse(s) == MC_PARSE_CLOSE);
	memcpy(s, "mg  ", 4);
	CHECK(parse(s) == MC_PARSE_CLOSE);
	free(s);
	/* at the bound: memcached's "cannot hold the request" answer */
	s = repeat('k', MC_LINE_MAX_GET);
	memcpy(s, "get ", 4);
	CHECK(parse(s) == MC_PARSE_TOO_LONG);
	memcpy(s, "set ", 4);
	CHECK(parse(s) == MC_PARSE_CLOSE);
	memcpy(s, "get ", 4);
	/* a newline beyond the hard limit does not rescue the line */
	s[MC_LINE_MAX_GET - 1] = 'k';
	s = realloc(s, MC_LINE_MAX_GET + 2);
	s[MC_LINE_MAX_GET] = '\n';
	s[MC_LINE_MAX_GET + 1] = 0;
	CHECK(parse(s) == MC_PARSE_TOO_LONG);
	free(s);
	/* thousands of keys far above 16 KiB parse as one get */
	s = malloc(MC_LINE_MAX_GET);
	strcpy(s, "get");
	for (n = 0; n < 5000; n++)
		sprintf(s + strlen(s), " key:%06d", n);
	strcat(s, "\r\n");
	CHECK(strlen(s) > 16384 * 3);
	CHECK(parse_cmd(s, MC_CMD_GET));
	n = 0;
	while (mc_next_key(&req, &k, &kl))
		n++;
	CHECK(n == 5000);
	free(s);
}

static void t_terminators(void)
{
	CHECK(parse_cmd("version\r\n", MC_CMD_VERSION));
	CHECK(parse_cmd("version\n", MC_CMD_VERSION));
	/* only one '\r' is stripped: "version\r" is not a command */
	expect_err("version\r\r\n", MC_ERR_ERROR, 0);
	/* pipelining: only the first line is consumed */
	CHECK(parse("version\r\nquit\r\n") == 9 && req.cmd == MC_CMD_VERSION);
	CHECK(parse("quit\nversion\r\n") == 5 && req.cmd == MC_CMD_QUIT);
	/* empty and blank lines */
	expect_err("\r\n", MC_ERR_ERROR, 0);
	expect_err("\n", MC_ERR_ERROR, 0);
	expect_err("     \r\n", MC_ERR_ERROR, 0);
	/* commands are case sensitive, tabs are not separators */
	expect_err("GET foo\r\n", MC_ERR_ERROR, 0);
	expect_err("get\tfoo\r\n", MC_ERR_ERROR, 0);
	expect_err("bogus\r\n", MC_ERR_ERROR, 0);
	/* memcached reads the line as a C string: a NUL byte ends it */
	CHECK(parse_n("get a\0b\r\n", 9) == 9 && req.cmd == MC_CMD_GET &&
	      req.klen == 1);
	CHECK(parse_n("set k 0 0 1\0x\r\n", 15) == 15 &&
	      req.cmd == MC_CMD_SET && req.vlen == 1);
	CHECK(parse_n("\0set k 0 0 1\r\n", 14) == 14 &&
	      req.cmd == MC_CMD_ERROR);
}

static void t_storage(void)
{
	char line[600], *k;

	CHECK(parse_cmd("set foo 5 0 3\r\n", MC_CMD_SET));
	CHECK(key_eq("foo") && req.flags == 5 && req.exptime == 0 &&
	      req.vlen == 3 && !req.noreply);
	CHECK(parse_cmd("add  foo   7  100 0  \r\n", MC_CMD_ADD));
	CHECK(key_eq("foo") && req.flags == 7 && req.exptime == 100 &&
	      req.vlen == 0);
	CHECK(parse_cmd("replace k 0 -1 10 noreply\r\n", MC_CMD_REPLACE));
	CHECK(req.exptime == -1 && req.vlen == 10 && req.noreply);
	CHECK(parse_cmd("append k 0 0 1\r\n", MC_CMD_APPEND));
	CHECK(parse_cmd("prepend k 0 0 1\r\n", MC_CMD_PREPEND));
	CHECK(parse_cmd("cas k 1 2 3 18446744073709551615\r\n", MC_CMD_CAS));
	CHECK(req.cas == UINT64_MAX && req.flags == 1 && req.exptime == 2 &&
	      req.vlen == 3 && !req.noreply);
	CHECK(parse_cmd("cas k 1 2 3 99 noreply\r\n", MC_CMD_CAS));
	CHECK(req.cas == 99 && req.noreply);
	/* an unknown sixth token is ignored (memcached stores) */
	CHECK(parse_cmd("set k 0 0 1 junk\r\n", MC_CMD_SET) && !req.noreply);

	/* token counts */
	expect_err("set k 0 0\r\n", MC_ERR_ERROR, 0);
	expect_err("set k 0 0 1 extra junk\r\n", MC_ERR_ERROR, 0);
	expect_err("cas k 0 0 1\r\n", MC_ERR_ERROR, 0);
	expect_err("set\r\n", MC_ERR_ERROR, 0);

	/* numbers */
	expect_err("set k 0 0 -1\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 0 -1 noreply\r\n", MC_ERR_FORMAT, 1);
	expect_err("set k abc 0 1\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k -1 0 1\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 abc 1\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 0 abc\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 0 3x\r\n", MC_ERR_FORMAT, 0);
	/* safe_strtol(): 64-bit strtol() truncated to int32 (1.6.18) */
	CHECK(parse_cmd("set k 0 2147483648 1\r\n", MC_CMD_SET) &&
	      req.exptime == -2147483648LL);
	CHECK(parse_cmd("set k 0 -2147483649 1\r\n", MC_CMD_SET) &&
	      req.exptime == 2147483647);
	CHECK(parse_cmd("set k 0 -4294967295 1\r\n", MC_CMD_SET) &&
	      req.exptime == 1);
	CHECK(parse_cmd("set k 0 0 4294967297\r\n", MC_CMD_SET) &&
	      req.vlen == 1);
	CHECK(parse_cmd("set k 0 -9223372036854775808 1\r\n", MC_CMD_SET) &&
	      req.exptime == 0);
	expect_err("set k 0 9223372036854775808 1\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 -9223372036854775809 1\r\n", MC_ERR_FORMAT, 0);
	expect_err("touch k 9223372036854775808\r\n", MC_ERR_EXPTIME, 0);
	expect_err("set k 18446744073709551616 0 1\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 0 4294967295\r\n", MC_ERR_FORMAT, 0);
	expect_err("set k 0 0 2147483646\r\n", MC_ERR_FORMAT, 0);
	expect_err("cas k 0 0 1 abc\r\n", MC_ERR_FORMAT, 0);
	expect_err("cas k 0 0 1 -5\r\n", MC_ERR_FORMAT, 0);
	CHECK(parse_cmd("set k 0 0 2147483645\r\n", MC_CMD_SET) &&
	      req.vlen == 2147483645u);
	CHECK(parse_cmd("set k 0 0 +3\r\n", MC_CMD_SET) && req.vlen == 3);
	CHECK(parse_cmd("set k 0 2147483647 1\r\n", MC_CMD_SET) &&
	      req.exptime == 2147483647);
	CHECK(parse_cmd("set k 0 -2147483648 1\r\n", MC_CMD_SET) &&
	      req.exptime == -2147483648LL);
	/* flags: 32 bits; larger values are truncated like memcached 1.6.18 */
	CHECK(parse_cmd("set k 4294967295 0 1\r\n", MC_CMD_SET) &&
	      req.flags == 0xffffffffu);
	CHECK(parse_cmd("set k 4294967296 0 1\r\n", MC_CMD_SET) &&
	      req.flags == 0);

	/* key length */
	k = repeat('k', MC_KEY_MAX);
	snprintf(line, sizeof(line), "set %s 0 0 1\r\n", k);
	CHECK(parse_cmd(line, MC_CMD_SET) && req.klen == MC_KEY_MAX);
	snprintf(line, sizeof(line), "set %sk 0 0 1\r\n", k);
	expect_err(line, MC_ERR_FORMAT, 0);
	snprintf(line, sizeof(line), "set %sk 0 0 1 noreply\r\n", k);
	expect_err(line, MC_ERR_FORMAT, 1);
	free(k);

	/* the data terminator check */
	CHECK(mc_data_end_ok("\r\n"));
	CHECK(!mc_data_end_ok("\n\r"));
	CHECK(!mc_data_end_ok("a\n"));
	CHECK(!mc_data_end_ok("\r\r"));
}

static void t_get(void)
{
	const char *k;
	size_t kl;
	char *line, *key;
	int n;

	CHECK(parse_cmd("get a  bb   ccc \r\n", MC_CMD_GET));
	CHECK(key_eq("a"));
	CHECK(mc_next_key(&req, &k, &kl) && key_is(k, kl, "a"));
	CHECK(mc_next_key(&req, &k, &kl) && key_is(k, kl, "bb"));
	CHECK(mc_next_key(&req, &k, &kl) && key_is(k, kl, "ccc"));
	CHECK(!mc_next_key(&req, &k, &kl));
	CHECK(!mc_next_key(&req, &k, &kl));

	CHECK(parse_cmd("gets x\r\n", MC_CMD_GETS));
	CHECK(mc_next_key(&req, &k, &kl) && key_is(k, kl, "x"));
	CHECK(!mc_next_key(&req, &k, &kl));
	CHECK(parse_cmd("gat 100 a b\r\n", MC_CMD_GAT) && req.exptime == 100);
	CHECK(mc_next_key(&req, &k, &kl) && key_is(k, kl, "a"));
	CHECK(mc_next_key(&req, &k, &kl) && key_is(k, kl, "b"));
	CHECK(!mc_next_key(&req, &k, &kl));
	CHECK(parse_cmd("gats -1 a\r\n", MC_CMD_GATS) && req.exptime == -1);
	expect_err("gat abc a\r\n", MC_ERR_EXPTIME, 0);

	expect_err("get\r\n", MC_ERR_ERROR, 0);
	expect_err("get \r\n", MC_ERR_ERROR, 0);
	expect_err("gets\r\n", MC_ERR_ERROR, 0);

	/* one bad key fails the whole line */
	key = repeat('x', MC_KEY_MAX + 1);
	line = malloc(2 * MC_KEY_MAX + 32);
	sprintf(line, "get a %s b\r\n", key);
	expect_err(line, MC_ERR_FORMAT, 0);
	key[MC_KEY_MAX] = 0;
	sprintf(line, "get a %s b\r\n", key);
	CHECK(parse_cmd(line, MC_CMD_GET));
	CHECK(mc_next_key(&req, &k, &kl) && kl == 1);
	CHECK(mc_next_key(&req, &k, &kl) && kl == MC_KEY_MAX);
	free(key);
	free(line);

	/* a long multiget (more tokens than the 24-token tokenizer limit) */
	line = malloc(MC_LINE_MAX_GET);
	strcpy(line, "get");
	for (n = 0; n < 1000; n++)
		sprintf(line + strlen(line), " k%03d", n);
	strcat(line, "\r\n");
	CHECK(parse_cmd(line, MC_CMD_GET));
	n = 0;
	while (mc_next_key(&req, &k, &kl)) {
		char want[8];

		snprintf(want, sizeof(want), "k%03d", n);
		if (!key_is(k, kl, want))
			break;
		n++;
	}
	CHECK(n == 1000);
	free(line);
}

static void t_delete_arith_touch(void)
{
	char line[300], *k;

	CHECK(parse_cmd("delete k\r\n", MC_CMD_DELETE) && key_eq("k") &&
	      !req.noreply);
	CHECK(parse_cmd("delete k 0\r\n", MC_CMD_DELETE));
	CHECK(parse_cmd("delete k noreply\r\n", MC_CMD_DELETE) && req.noreply);
	CHECK(parse_cmd("delete k 0 noreply\r\n", MC_CMD_DELETE) &&
	      req.noreply);
	expect_err("delete k 5\r\n", MC_ERR_DELETE_USAGE, 0);
	expect_err("delete k 5 noreply\r\n", MC_ERR_DELETE_USAGE, 1);
	expect_err("delete k noreply extra\r\n", MC_ERR_DELETE_USAGE, 0);
	expect_err("delete\r\n", MC_ERR_ERROR, 0);
	expect_err("delete a b c d\r\n", MC_ERR_ERROR, 0);
	k = repeat('k', MC_KEY_MAX + 1);
	snprintf(line, sizeof(line), "delete %s\r\n", k);
	expect_err(line, MC_ERR_FORMAT, 0);
	snprintf(line, sizeof(line), "incr %s 1\r\n", k);
	expect_err(line, MC_ERR_FORMAT, 0);
	snprintf(line, sizeof(line), "touch %s 1\r\n", k);
	expect_err(line, MC_ERR_FORMAT, 0);
	free(k);

	CHECK(parse_cmd("incr k 5\r\n", MC_CMD_INCR) && req.delta == 5 &&
	      key_eq("k"));
	CHECK(parse_cmd("decr k 18446744073709551615\r\n", MC_CMD_DECR) &&
	      req.delta == UINT64_MAX);
	CHECK(parse_cmd("incr k 1 noreply\r\n", MC_CMD_INCR) && req.noreply);
	expect_err("incr k 18446744073709551616\r\n", MC_ERR_DELTA, 0);
	expect_err("incr k -1\r\n", MC_ERR_DELTA, 0);
	expect_err("incr k abc\r\n", MC_ERR_DELTA, 0);
	expect_err("decr k abc noreply\r\n", MC_ERR_DELTA, 1);
	expect_err("incr k\r\n", MC_ERR_ERROR, 0);
	expect_err("incr\r\n", MC_ERR_ERROR, 0);
	expect_err("incr k 1 2 3\r\n", MC_ERR_ERROR, 0);

	CHECK(parse_cmd("touch k 10\r\n", MC_CMD_TOUCH) && req.exptime == 10);
	CHECK(parse_cmd("touch k 10 noreply\r\n", MC_CMD_TOUCH) &&
	      req.noreply);
	expect_err("touch k\r\n", MC_ERR_ERROR, 0);
	expect_err("touch k x\r\n", MC_ERR_EXPTIME, 0);
}

static void t_misc(void)
{
	CHECK(parse_cmd("flush_all\r\n", MC_CMD_FLUSH_ALL) &&
	      !req.has_exptime && !req.noreply);
	CHECK(parse_cmd("flush_all 10\r\n", MC_CMD_FLUSH_ALL) &&
	      req.has_exptime && req.exptime == 10);
	CHECK(parse_cmd("flush_all noreply\r\n", MC_CMD_FLUSH_ALL) &&
	      !req.has_exptime && req.noreply);
	CHECK(parse_cmd("flush_all 0 noreply\r\n", MC_CMD_FLUSH_ALL) &&
	      req.has_exptime && req.exptime == 0 && req.noreply);
	expect_err("flush_all abc\r\n", MC_ERR_EXPTIME, 0);
	expect_err("flush_all 1 2 3\r\n", MC_ERR_ERROR, 0);

	CHECK(parse_cmd("version\r\n", MC_CMD_VERSION));
	/* memcached 1.6.18 ignores extra tokens after version and quit */
	CHECK(parse_cmd("version x\r\n", MC_CMD_VERSION));
	CHECK(parse_cmd("verbosity 1\r\n", MC_CMD_VERBOSITY) &&
	      req.verbosity == 1 && !req.noreply);
	CHECK(parse_cmd("verbosity 0 noreply\r\n", MC_CMD_VERBOSITY) &&
	      req.noreply);
	expect_err("verbosity\r\n", MC_ERR_ERROR, 0);
	CHECK(parse_cmd("stats\r\n", MC_CMD_STATS) && req.klen == 0);
	CHECK(parse_cmd("stats slabs\r\n", MC_CMD_STATS) && key_eq("slabs"));
	expect_err("stats detail\r\n", MC_ERR_STATS_DETAIL, 0);
	CHECK(parse_cmd("quit\r\n", MC_CMD_QUIT));
	CHECK(parse_cmd("quit now\r\n", MC_CMD_QUIT));
	CHECK(parse_cmd("mn\r\n", MC_CMD_MN));
	CHECK(parse_cmd("me k\r\n", MC_CMD_ME) && key_eq("k"));
	CHECK(parse_cmd("me k x\r\n", MC_CMD_ME) && key_eq("k") && !req.b64);
	CHECK(parse_cmd("me Zm9v b\r\n", MC_CMD_ME) && key_eq("foo") &&
	      req.b64);
	expect_err("me\r\n", MC_ERR_FORMAT, 0);
	expect_err("me !! b\r\n", MC_ERR_FORMAT, 0);
	{
		char line[300];

		memset(line, 'x', sizeof(line));
		memcpy(line, "me ", 3);
		memcpy(line + 254, "\r\n", 3);
		expect_err(line, MC_ERR_FORMAT, 0);
	}
	/* an HTTP request line closes the connection */
	CHECK(parse_cmd("GET / HTTP/1.1\r\n", MC_CMD_QUIT));
	CHECK(parse_cmd("xyz a HTTP/1.0\r\n", MC_CMD_QUIT));
	expect_err("sometext HTTP/1.0\r\n", MC_ERR_ERROR, 0);
	CHECK(parse_cmd("bget k\r\n", MC_CMD_GET) && key_eq("k"));
	expect_err("m\r\n", MC_ERR_ERROR, 0);
	expect_err("mx k\r\n", MC_ERR_ERROR, 0);
	expect_err("mgg k\r\n", MC_ERR_ERROR, 0);
}

static int has_meta(char c, const char *tok)
{
	unsigned int i;

	for (i = 0; i < req.nmeta; i++)
		if (req.meta[i].c == c && req.meta[i].len == strlen(tok) &&
		    !memcmp(req.meta[i].tok, tok, req.meta[i].len))
			return 1;
	return 0;
}

static void t_meta(void)
{
	char line[400], *k;
	int i;

	CHECK(parse_cmd("mg k v t f Oxyz q k\r\n", MC_CMD_MG) && key_eq("k"));
	CHECK(req.nmeta == 6 && req.meta[0].c == 'v' && req.meta[1].c == 't' &&
	      req.meta[2].c == 'f' && req.meta[3].c == 'O' &&
	      req.meta[4].c == 'q' && req.meta[5].c == 'k');
	CHECK(has_meta('O', "xyz"));
	CHECK(req.mflags & MC_MF('v') && req.mflags & MC_MF('O') &&
	      !(req.mflags & MC_MF('s')) && req.noreply);
	/* the opaque is echoed; accept it with or without its 'O' */
	CHECK((req.olen == 4 && !memcmp(req.opaque, "Oxyz", 4)) ||
	      (req.olen == 3 && !memcmp(req.opaque, "xyz", 3)));
	CHECK(parse_cmd("mg k T30 N10\r\n", MC_CMD_MG) && req.has_exptime &&
	      req.exptime == 30 && req.vivify == 10);
	CHECK(parse_cmd("mg k\r\n", MC_CMD_MG) && req.nmeta == 0 &&
	      !req.noreply);
	expect_err("mg\r\n", MC_ERR_ERROR, 0);
	expect_err("mg k x\r\n", MC_ERR_BAD_FLAG, 0);
	expect_err("mg k 1\r\n", MC_ERR_BAD_FLAG, 0);
	expect_err("mg k v v\r\n", MC_ERR_DUP_FLAG, 0);
	expect_err("mg k Tabc\r\n", MC_ERR_BAD_TOKEN, 0);
	expect_err("mg k O123456789012345678901234567890123\r\n",
		   MC_ERR_OPAQUE_LONG, 0);
	k = repeat('k', MC_KEY_MAX + 1);
	snprintf(line, sizeof(line), "mg %s v\r\n", k);
	expect_err(line, MC_ERR_FORMAT, 0);
	free(k);
	/* more flags than the tokenizer holds */
	strcpy(line, "mg k");
	for (i = 0; i < 30; i++)
		strcat(line, " v");
	strcat(line, "\r\n");
	expect_err(line, "CLIENT_ERROR options flags are too long", 0);

	/* base64 keys */
	CHECK(parse_cmd("mg Zm9v b v\r\n", MC_CMD_MG) && req.b64 &&
	      key_eq("foo") && req.raw_klen == 4 &&
	      !memcmp(req.raw_key, "Zm9v", 4));
	CHECK(parse_cmd("mg Zm8= b\r\n", MC_CMD_MG) && key_eq("fo"));
	CHECK(parse_cmd("mg Zg== b\r\n", MC_CMD_MG) && key_eq("f"));
	expect_err("mg Zm9 b\r\n", MC_ERR_KEY_DECODE, 0);
	expect_err("mg ==== b\r\n", MC_ERR_KEY_DECODE, 0);
	/* base64 key that decodes to binary (NUL, CR, LF) is allowed */
	CHECK(parse_cmd("mg AA0K b\r\n", MC_CMD_MG) && req.klen == 3 &&
	      !memcmp(req.key, "\0\r\n", 3));

	CHECK(parse_cmd("ms k 5\r\n", MC_CMD_MS) && req.vlen == 5 &&
	      req.mode == MC_MS_SET && key_eq("k"));
	CHECK(parse_cmd("ms k 5 T10 F3 MA\r\n", MC_CMD_MS) &&
	      req.mode == MC_MS_APPEND && req.flags == 3 && req.exptime == 10);
	CHECK(parse_cmd("ms k 0 ME\r\n", MC_CMD_MS) && req.mode == MC_MS_ADD);
	CHECK(parse_cmd("ms k 0 MP\r\n", MC_CMD_MS) &&
	      req.mode == MC_MS_PREPEND);
	CHECK(parse_cmd("ms k 0 MR\r\n", MC_CMD_MS) &&
	      req.mode == MC_MS_REPLACE);
	/* 1.6.18 only knows upper case modes */
	expect_err("ms k 0 Mr\r\n", MC_ERR_MS_MODE, 0);
	CHECK(req.vlen_swallow && req.vlen == 0);
	expect_err("ma k Mi\r\n", MC_ERR_MA_MODE, 0);
	expect_err("ma k Md\r\n", MC_ERR_MA_MODE, 0);
	CHECK(parse_cmd("ma k M-\r\n", MC_CMD_MA) && req.mode == 1);
	CHECK(parse_cmd("ma k MI\r\n", MC_CMD_MA) && req.mode == 0);
	/* token limit: 20 including the terminal one, per command message */
	expect_err("mg k a b c d e f g h i j k l m n o p q r\r\n",
		   "CLIENT_ERROR options flags are too long", 0);
	expect_err("mg k a b c d e f g h i j k l m n o p q\r\n",
		   MC_ERR_BAD_FLAG, 0);
	expect_err("ms k 1 a b c d e f g h i j k l m n o p q\r\n",
		   "CLIENT_ERROR options flags too long", 0);
	CHECK(!req.vlen_swallow);
	expect_err("ms k a b c d e f g h i j k l m n o p q r\r\n",
		   "CLIENT_ERROR options flags too long", 0);
	expect_err("md k a b c d e f g h i j k l m n o p q r\r\n",
		   "CLIENT_ERROR options flags too long", 0);
	expect_err("ma k a b c d e f g h i j k l m n o p q r\r\n",
		   "CLIENT_ERROR options flags too long", 0);
	/* lenient base64 like memcached: junk skipped, stop after padding */
	CHECK(parse_cmd("mg Z=9v b v\r\n", MC_CMD_MG) && req.klen == 2 &&
	      !memcmp(req.key, "d\x0f", 2));
	CHECK(parse_cmd("mg Zm9v! b v\r\n", MC_CMD_MG) && key_eq("foo"));
	CHECK(parse_cmd("mg Z!m9v b v\r\n", MC_CMD_MG) && key_eq("foo"));
	CHECK(parse_cmd("mg Zg==Zm9v b\r\n", MC_CMD_MG) && key_eq("f"));
	expect_err("mg A=== b\r\n", MC_ERR_KEY_DECODE, 0);
	expect_err("mg !!!! b\r\n", MC_ERR_KEY_DECODE, 0);
	/* the last error wins, in token order */
	expect_err("mg Zm9 Tabc b\r\n", MC_ERR_KEY_DECODE, 0);
	expect_err("mg Zm9 b Tabc\r\n", MC_ERR_BAD_TOKEN, 0);
	expect_err("mg k Tabc Fx\r\n", MC_ERR_BAD_TOKEN, 0);
	expect_err("mg k Fx\r\n", MC_ERR_FORMAT, 0);
	CHECK(parse_cmd("ms k 1 C123 I q\r\n", MC_CMD_MS) && req.cas == 123 &&
	      req.noreply && req.mflags & MC_MF('I'));
	expect_err("ms k\r\n", MC_ERR_FORMAT, 0);
	expect_err("ms k abc\r\n", MC_ERR_FORMAT, 0);
	expect_err("ms k -1\r\n", MC_ERR_FORMAT, 0);
	expect_err("ms k S3\r\n", MC_ERR_FORMAT, 0);
	CHECK(!req.vlen_swallow);
	expect_err("ms k 3 MX\r\n", MC_ERR_MS_MODE, 0);
	CHECK(req.vlen_swallow && req.vlen == 3);
	expect_err("ms k 3 ZZ\r\n", MC_ERR_BAD_FLAG, 0);
	CHECK(req.vlen_swallow && req.vlen == 3);
	expect_err("ms k 3 MAA\r\n", "CLIENT_ERROR incorrect length for M token",
		   0);
	CHECK(req.vlen_swallow);

	CHECK(parse_cmd("md k q\r\n", MC_CMD_MD) && req.noreply);
	CHECK(parse_cmd("md k C5 T1 I\r\n", MC_CMD_MD) && req.cas == 5);
	expect_err("md k Tabc\r\n", MC_ERR_MD_FLAG, 0);
	expect_err("md k ZZ\r\n", MC_ERR_MD_FLAG, 0);
	/* memcached 1.6.18 reports a bad md key this way */
	expect_err("md Zm9 b\r\n", MC_ERR_MD_FLAG, 0);

	CHECK(parse_cmd("ma k\r\n", MC_CMD_MA) && req.delta == 1 &&
	      req.mode == 0 && req.initial == 0);
	CHECK(parse_cmd("ma k MD D5 J10 N0 v\r\n", MC_CMD_MA) &&
	      req.mode == 1 && req.delta == 5 && req.initial == 10 &&
	      req.vivify == 0 && req.mflags & MC_MF('N'));
	CHECK(parse_cmd("ma k M+\r\n", MC_CMD_MA) && req.mode == 0);
	CHECK(parse_cmd("ma k M-\r\n", MC_CMD_MA) && req.mode == 1);
	CHECK(parse_cmd("ma k D18446744073709551615\r\n", MC_CMD_MA) &&
	      req.delta == UINT64_MAX);
	expect_err("ma k MX\r\n", MC_ERR_MA_MODE, 0);
	expect_err("ma k Dabc\r\n", MC_ERR_MD_FLAG, 0);
	expect_err("ma k D-1\r\n", MC_ERR_MD_FLAG, 0);
}

static void t_b64_names(void)
{
	static const char *const vec[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};
	char out[32];
	size_t i, n;
	int c, d;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		memset(out, 0, sizeof(out));
		n = mc_b64_encode(vec[i][0], strlen(vec[i][0]), out);
		CHECK(n == strlen(vec[i][1]) && !memcmp(out, vec[i][1], n));
	}
	n = mc_b64_encode("\xff\xfe\x00", 3, out);
	CHECK(n == 4 && !memcmp(out, "//4A", 4));

	for (c = 0; c < MC_CMD_MAX; c++) {
		CHECK(mc_cmd_name(c) && mc_cmd_name(c)[0] != '?');
		for (d = 0; d < c; d++)
			CHECK(strcmp(mc_cmd_name(c), mc_cmd_name(d)));
	}
	CHECK(!strcmp(mc_cmd_name(MC_CMD_MAX), "?"));
	CHECK(!strcmp(mc_cmd_name(MC_CMD_GET), "get"));
	CHECK(!strcmp(mc_cmd_name(MC_CMD_MS), "ms"));
}

/* Every strict prefix of a line (without its '\n') needs more input. */
static void t_prefixes(void)
{
	static const char *const lines[] = {
		"set foo 5 0 3\r\n", "get a b c\r\n", "mg k v t\r\n",
		"ms k 5 T10\r\n", "delete k noreply\r\n", "incr k 1\r\n",
		"flush_all 0\r\n", "version\r\n", "gat 1 k\r\n",
	};
	size_t i, l;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		size_t len = strlen(lines[i]);
		int full;

		for (l = 0; l < len; l++)
			CHECK(parse_n(lines[i], l) == MC_PARSE_MORE);
		full = parse_n(lines[i], len);
		CHECK(full == (int)len && req.cmd != MC_CMD_ERROR);
	}
}

/*
 * mc_parse_cont(): a line arriving in pieces gives the same result as the
 * whole line, the newline is searched only in new bytes (a NUL planted in
 * the part already scanned is not looked at again: the result shows it),
 * and a stale or oversized @scanned is never trusted.
 */
static void t_parse_cont(void)
{
	static const char line[] = "get aa bb cc dd ee ff gg\r\n";
	size_t len = strlen(line), step, l;
	struct mc_req r;
	char *b;
	int ret;

	for (step = 1; step <= 5; step++) {
		memset(&r, 0, sizeof(r));
		for (l = step; l < len; l += step)
			CHECK(mc_parse_cont(line, l, &r) == MC_PARSE_MORE &&
			      r.scanned == l);
		CHECK(mc_parse_cont(line, len, &r) == (int)len);
		CHECK(r.cmd == MC_CMD_GET && r.scanned == 0);
	}
	/* bytes before @scanned are not searched again */
	b = malloc(len);
	if (!b)
		abort();
	memcpy(b, line, len);
	memset(&r, 0, sizeof(r));
	CHECK(mc_parse_cont(b, 10, &r) == MC_PARSE_MORE && r.scanned == 10);
	b[4] = '\n';		/* a newline there would end the line early */
	ret = mc_parse_cont(b, len, &r);
	CHECK(ret == (int)len && r.cmd == MC_CMD_GET);
	/* a bogus @scanned past the data is ignored, the line still parses */
	memcpy(b, line, len);
	memset(&r, 0, sizeof(r));
	r.scanned = 1000;
	CHECK(mc_parse_cont(b, len, &r) == (int)len && r.cmd == MC_CMD_GET);
	/*
	 * mc_parse_reset(): a caller dropping the pending line makes the next
	 * call search from the start (without it, "mn\r\n" under a stale
	 * count of 4 would not be found: MORE)
	 */
	memset(&r, 0, sizeof(r));
	CHECK(mc_parse_cont(line, 4, &r) == MC_PARSE_MORE && r.scanned == 4);
	mc_parse_reset(&r);
	CHECK(r.scanned == 0);
	CHECK(mc_parse_cont("mn\r\nget", 7, &r) == 4 && r.cmd == MC_CMD_MN);
	r.scanned = 4;
	CHECK(mc_parse_cont("mn\r\nget", 7, &r) == MC_PARSE_MORE);
	/* after a parsed line the next one is scanned from its start */
	memset(&r, 0, sizeof(r));
	CHECK(mc_parse_cont("mn\r\n", 4, &r) == 4 && r.cmd == MC_CMD_MN);
	CHECK(mc_parse_cont("mn\r\n", 4, &r) == 4 && r.scanned == 0);
	/* a long get line read 1 KiB at a time is bounded like mc_parse() */
	{
		size_t big = MC_LINE_MAX_GET + 16, off;
		char *g = malloc(big);

		if (!g)
			abort();
		memcpy(g, "get ", 4);
		memset(g + 4, 'k', big - 4);
		for (off = 4; off + 1 < 64; off += 2)
			g[off + 1] = ' ';
		memset(&r, 0, sizeof(r));
		ret = MC_PARSE_MORE;
		for (l = 1024; l <= big && ret == MC_PARSE_MORE; l += 1024)
			ret = mc_parse_cont(g, l, &r);
		CHECK(ret == MC_PARSE_TOO_LONG && r.scanned == 0);
		free(g);
	}
	free(b);
}

/* Random token soup: only the invariants in mc_check.h are asserted. */
static void t_random(void)
{
	static const char *const toks[] = {
		"get", "gets", "gat", "gats", "set", "add", "cas", "append",
		"prepend", "replace", "delete", "incr", "decr", "touch",
		"flush_all", "version", "verbosity", "stats", "quit", "mg",
		"ms", "md", "ma", "mn", "me", "noreply", "0", "1", "-1", "k",
		"key", "4294967296", "18446744073709551616", "2147483647",
		"v", "q", "b", "Zm9v", "T1", "MA", "ME", "Mx", "O12", "C1",
		"N5", "J1", "D2", "k", "t", "f", "s", " ", "  ", "\t", "\r",
		"\x80", "\xff", "=", "+1", "detail",
	};
	uint64_t x = 88172645463325252ULL;
	char buf[4096];
	int iter;

	for (iter = 0; iter < 200000; iter++) {
		size_t len = 0;
		int ntok, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ntok = x % 30;
		for (t = 0; t < ntok && len < sizeof(buf) - 300; t++) {
			const char *s;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if ((x & 63) == 0) {
				size_t n = (x >> 8) % 260;

				memset(buf + len, 'z', n);
				len += n;
			} else {
				s = toks[(x >> 8) % (sizeof(toks) /
						     sizeof(toks[0]))];
				memcpy(buf + len, s, strlen(s));
				len += strlen(s);
			}
			if (x & 0x100)
				buf[len++] = ' ';
		}
		if (!(x & 0x200))
			buf[len++] = '\r';
		if (!(x & 0x400))
			buf[len++] = '\n';
		parse_n(buf, len);
		if (test_failed > 10)
			break;
	}
}

static const struct unit_test tests[] = {
	{ "incomplete lines and line length limits", t_incomplete },
	{ "line terminators, blank lines, case", t_terminators },
	{ "storage commands", t_storage },
	{ "get/gets/gat/gats and mc_next_key", t_get },
	{ "delete, incr/decr, touch", t_delete_arith_touch },
	{ "flush_all, version, verbosity, stats, quit, mn, me", t_misc },
	{ "meta commands mg/ms/md/ma", t_meta },
	{ "mc_b64_encode and mc_cmd_name", t_b64_names },
	{ "prefixes of valid lines need more input", t_prefixes },
	{ "mc_parse_cont scans a line arriving in pieces once", t_parse_cont },
	{ "random token soup keeps the invariants", t_random },
};

int main(void)
{
	int ret = unit_run(tests, ARRAY_SIZE(tests));

	free(cur);
	return ret;
}
