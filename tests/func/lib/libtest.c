// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of libgoblin against a live server; TAP on stdout.
 *
 *   libtest [-T HOST:PORT] [-R HOST:PORT] [-b BIND] [-m MAXSIZE] [-q QPS]
 *           [-C GOBLINCTL] [-M HOST:PORT] [-S SKIPREASON]...
 *
 * -T tests the memcache TCP transport, -R the RDMA transport; with both,
 * values written over one are read back over the other. -b is the local
 * address RDMA connections start from, -m caps the value sizes (default
 * 16 MiB), -q sets how many processes with one QP each run at once over
 * RDMA (default 8), -S emits a skipped test with that reason. -C (the
 * RDMA server is the local goblin.ko; GOBLINCTL is the goblinctl to
 * configure it with) adds the value CRC tests: they switch the store
 * setting crc and damage stored values through the store's debugfs file.
 * -M is a mockrdma behaving as a protocol 3.0 server (it refuses the CRC
 * connect flag): the library must connect again without CRCs. -N is a
 * mockrdma behaving as a protocol 3.1 server (it refuses the FOLD flag of
 * 3.2 but grants CRC): the library must connect again with CRC alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <goblin/client.h>
#include <isa-l/crc.h>

#include "../../../tools/include/gb_compiler.h"
#include "../../lib/tap.h"

struct target {
	enum gb_transport t;
	char host[256];
	uint16_t port;
	bool on;
};

static struct target tgt[2];
static size_t max_size = GB_VALUE_MAX;
static const char *bind_host;
static unsigned int nprocs = 8;
static const char *goblinctl;
static struct target old_srv;	/* -M */
static struct target old31_srv;	/* -N */

/* Deterministic content: byte i of value (seed) is a function of both. */
static void fill(char *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7)) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		buf[i] = (char)(x >> ((i & 7) * 8));
	}
}

/*
 * Per-operation I/O timeout: 30 s, times GOBLIN_TIMEOUT_SCALE (1-10) where
 * the lane sets it (a 16 MiB RDMA SET took longer than 30 s on the KASAN
 * kernel under TCG with other guests beside it).
 */
static int io_timeout_ms(void)
{
	const char *e = getenv("GOBLIN_TIMEOUT_SCALE");
	int scale = e ? atoi(e) : 1;

	if (scale < 1)
		scale = 1;
	if (scale > 10)
		scale = 10;
	return 30000 * scale;
}

static int conn(const struct target *t, struct gb_conn **c)
{
	struct gb_connect_opts o;
	int ret;

	gb_connect_opts_init(&o);
	o.transport = t->t;
	o.host = t->host;
	o.port = t->port;
	o.bind_host = t->t == GB_TRANSPORT_RDMA ? bind_host : NULL;
	o.timeout_ms = io_timeout_ms();
	ret = gb_connect(&o, c);
	if (ret)
		diag("connect %s %s:%u: %s", gb_transport_name(t->t), t->host,
		     t->port, gb_errmsg(NULL));
	return ret;
}

static bool ts_ok(const struct gb_timestamps *ts, bool payload)
{
	if (!ts->submit_ns || !ts->complete_ns || ts->complete_ns < ts->submit_ns)
		return false;
	if (payload && (ts->header_ns < ts->submit_ns ||
			ts->payload_ns < ts->header_ns ||
			ts->complete_ns < ts->payload_ns))
		return false;
	return true;
}

/* Read @key through views, reassembling chunks; compare with @want. */
static int get_view_cmp(struct gb_conn *c, const char *key, const char *want,
			size_t len, uint32_t flags, unsigned int *chunks,
			struct gb_timestamps *ts)
{
	struct gb_view v;
	uint64_t expect_off = 0;
	int ret, bad = 0;

	*chunks = 0;
	ret = gb_get(c, key, strlen(key), &v);
	if (ret)
		return ret;
	if (v.total != len || v.flags != flags)
		bad = 1;
	for (;;) {
		(*chunks)++;
		if (v.offset != expect_off || v.offset + v.len > len ||
		    (v.len && memcmp(v.data, want + v.offset, v.len)))
			bad = 1;
		expect_off += v.len;
		if (bad || gb_view_last(&v))
			break;
		ret = gb_view_next(&v);
		if (ret) {
			gb_release(&v);
			return ret;
		}
	}
	*ts = v.ts;
	gb_release(&v);
	return bad || expect_off != len ? 1 : 0;
}

static const size_t sizes[] = {
	0, 1, 4096, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 1 << 20,
	16 << 20,
};

static void test_values(const struct target *t, struct gb_conn *c,
			char *a, char *b)
{
	const char *tn = gb_transport_name(t->t);
	struct gb_timestamps ts;
	unsigned int i, chunks;
	char key[64];
	size_t vlen;
	uint32_t fl;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t n = sizes[i];

		if (n > max_size)
			continue;
		snprintf(key, sizeof(key), "lt-%s-%zu", tn, n);
		fill(a, n, n + t->t * 7);
		ret = gb_set(c, key, strlen(key), a, n, 0x5a000000u + i, 0);
		tap(!ret, "%s: set %zu B%s%s", tn, n, ret ? ": " : "",
		    ret ? gb_errmsg(c) : "");
		gb_last_timestamps(c, &ts);
		tap(!ret && ts_ok(&ts, false), "%s: set %zu B timestamps", tn, n);
		ret = get_view_cmp(c, key, a, n, 0x5a000000u + i, &chunks, &ts);
		tap(!ret, "%s: get view %zu B byte-exact (%u chunks)%s%s", tn, n,
		    chunks, ret < 0 ? ": " : "", ret < 0 ? gb_errmsg(c) : "");
		tap(!ret && ts_ok(&ts, true), "%s: get %zu B timestamps ordered",
		    tn, n);
		memset(b, 0xee, n + 1);
		ret = gb_get_copy(c, key, strlen(key), b, n, &vlen, &fl, &ts);
		tap(!ret && vlen == n && fl == 0x5a000000u + i &&
		    !memcmp(a, b, n) && (unsigned char)b[n] == 0xee &&
		    ts_ok(&ts, true),
		    "%s: get_copy %zu B byte-exact, no overrun%s%s", tn, n,
		    ret ? ": " : "", ret ? gb_errmsg(c) : "");
		if (n) {
			ret = gb_get_copy(c, key, strlen(key), b, n - 1, &vlen,
					  NULL, NULL);
			tap(ret == -GB_ENOSPC && vlen == n,
			    "%s: get_copy %zu B into %zu-byte buffer -> ENOSPC (got %s)",
			    tn, n, n - 1, gb_strerror(ret));
		}
	}
}

static void test_errors(const struct target *t, struct gb_conn *c,
			const char *a)
{
	const char *tn = gb_transport_name(t->t);
	char key[300];
	struct gb_view v;
	int ret;

	ret = gb_get(c, "lt-missing-key", 14, &v);
	tap(ret == -GB_ENOTFOUND, "%s: get missing -> ENOTFOUND (%s)", tn,
	    gb_strerror(ret));
	ret = gb_set(c, "lt-del", 6, a, 100, 0, 0);
	tap(!ret, "%s: set lt-del", tn);
	ret = gb_touch(c, "lt-del", 6, 3600);
	tap(!ret, "%s: touch existing (%s)", tn, gb_errmsg(c));
	ret = gb_delete(c, "lt-del", 6);
	tap(!ret, "%s: delete existing (%s)", tn, gb_errmsg(c));
	ret = gb_get(c, "lt-del", 6, &v);
	tap(ret == -GB_ENOTFOUND, "%s: get after delete -> ENOTFOUND", tn);
	ret = gb_delete(c, "lt-del", 6);
	tap(ret == -GB_ENOTFOUND, "%s: delete missing -> ENOTFOUND", tn);
	ret = gb_touch(c, "lt-del", 6, 10);
	tap(ret == -GB_ENOTFOUND, "%s: touch missing -> ENOTFOUND (%s)", tn,
	    gb_strerror(ret));
	memset(key, 'k', sizeof(key));
	ret = gb_set(c, key, GB_KEY_MAX + 1, a, 1, 0, 0);
	tap(ret == -GB_EKEYLEN, "%s: 251-byte key -> EKEYLEN", tn);
	ret = gb_set(c, key, GB_KEY_MAX, a, 1, 0, 0);
	tap(!ret, "%s: 250-byte key accepted (%s)", tn, gb_errmsg(c));
	ret = gb_get(c, key, GB_KEY_MAX, &v);
	tap(!ret && v.total == 1 && ((const char *)v.data)[0] == a[0],
	    "%s: 250-byte key read back", tn);
	gb_release(&v);
	ret = gb_set(c, "a b", 3, a, 1, 0, 0);
	tap(ret == -GB_EKEY, "%s: key with space -> EKEY", tn);
	ret = gb_set(c, "", 0, a, 1, 0, 0);
	tap(ret == -GB_EKEYLEN, "%s: empty key -> EKEYLEN", tn);
	ret = gb_set(c, "lt-big", 6, a, (size_t)GB_VALUE_MAX + 1, 0, 0);
	tap(ret == -GB_EVALLEN, "%s: 16 MiB + 1 value -> EVALLEN", tn);
	ret = gb_set(c, "lt-ok", 5, a, 10, 0, 0);
	tap(!ret, "%s: connection usable after client-side errors", tn);
}

struct mget_chk {
	const char *const *keys;
	const size_t *lens;	/* expected length, SIZE_MAX = missing */
	const int *want_err;
	char *buf;
	size_t *got;
	int *status;
	int *calls;
	int bad;
};

static void mget_cb(void *arg, size_t idx, int status, const struct gb_view *v)
{
	struct mget_chk *m = arg;
	char *exp = m->buf;

	m->calls[idx]++;
	if (status) {
		m->status[idx] = status;
		return;
	}
	if (v->total != m->lens[idx] || v->offset != m->got[idx]) {
		m->bad = 1;
		return;
	}
	fill(exp, m->lens[idx], 1000 + idx);
	if (v->len && memcmp((const char *)exp + v->offset, v->data, v->len))
		m->bad = 1;
	m->got[idx] += v->len;
	if (gb_view_last(v))
		m->status[idx] = 1;
}

static void test_mget(const struct target *t, struct gb_conn *c, char *a)
{
	static const size_t vsz[] = { 10, 0, 300000, 4096, 1, 70000 };
	const char *tn = gb_transport_name(t->t);
	enum { N = 80 };
	char names[N][32];
	const char *keys[N];
	size_t klens[N], lens[N], got[N];
	int status[N], calls[N];
	struct mget_chk m = { keys, lens, NULL, NULL, got, status, calls, 0 };
	int i, ret, ok = 1, setok = 1;

	m.buf = malloc(1 << 20);
	if (!m.buf)
		return;
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "lt-mget-%s-%d", tn, i);
		keys[i] = names[i];
		klens[i] = strlen(names[i]);
		got[i] = 0;
		status[i] = 0;
		calls[i] = 0;
		gb_delete(c, keys[i], klens[i]);
		if (i % 3 == 2) {
			lens[i] = SIZE_MAX;
			continue;
		}
		lens[i] = vsz[i % 6];
		fill(a, lens[i], 1000 + i);
		if (gb_set(c, keys[i], klens[i], a, lens[i], 0, 0))
			setok = 0;
	}
	keys[N - 1] = "bad key";
	klens[N - 1] = 7;
	lens[N - 1] = SIZE_MAX;
	tap(setok, "%s: mget: stored %d values", tn, N);
	ret = gb_get_many(c, N, keys, klens, mget_cb, &m);
	tap(!ret, "%s: mget returned 0 (%s)", tn, gb_errmsg(c));
	for (i = 0; i < N; i++) {
		bool miss = lens[i] == SIZE_MAX;
		int calls_ok = miss ? calls[i] == 1 : calls[i] >= 1;
		int want = i == N - 1 ? -GB_EKEY : (miss ? -GB_ENOTFOUND : 1);

		if (!calls_ok || status[i] != want ||
		    (!miss && got[i] != lens[i])) {
			if (ok)
				diag("key %d: calls %d status %d got %zu", i,
				     calls[i], status[i], got[i]);
			ok = 0;
		}
	}
	tap(ok && !m.bad, "%s: mget of %d keys (hits, misses, invalid) byte-exact",
	    tn, N);
	free(m.buf);
}

/*
 * gb_get_many_into() of test_mget()'s keys (they are stored): with room
 * for all, every hit lands byte-exact at its offset, the values back to
 * back from 0 with no gap or overlap; with room for less, the ones that
 * fit still do, the others say -GB_ENOSPC and their length.
 */
static int into_check(size_t n, const char *const *keys, const size_t *lens,
		      const char *dst, size_t dstlen,
		      const struct gb_into_result *res, char *exp,
		      size_t *used, unsigned int *nospc)
{
	size_t i, j, end = 0, sum = 0;
	int ok = 1;

	*nospc = 0;
	for (i = 0; i < n; i++) {
		bool miss = lens[i] == SIZE_MAX;
		int want = i == n - 1 ? -GB_EKEY : miss ? -GB_ENOTFOUND : 0;

		if (res[i].status == -GB_ENOSPC && !miss &&
		    res[i].len == lens[i]) {
			++*nospc;
			continue;
		}
		if (res[i].status != want ||
		    (!want && (res[i].len != lens[i] ||
			       res[i].offset + res[i].len > dstlen))) {
			diag("into: key %zu (%s): status %d offset %llu len %llu",
			     i, keys[i], res[i].status,
			     (unsigned long long)res[i].offset,
			     (unsigned long long)res[i].len);
			ok = 0;
			continue;
		}
		if (want)
			continue;
		fill(exp, lens[i], 1000 + i);
		if (memcmp(dst + res[i].offset, exp, lens[i])) {
			diag("into: key %zu: bytes differ at offset %llu", i,
			     (unsigned long long)res[i].offset);
			ok = 0;
		}
		sum += lens[i];
		if (res[i].offset + lens[i] > end)
			end = res[i].offset + lens[i];
		/* no two values share a byte */
		for (j = 0; j < i; j++)
			if (!res[j].status && res[j].len && lens[i] &&
			    res[j].offset < res[i].offset + lens[i] &&
			    res[i].offset < res[j].offset + res[j].len) {
				diag("into: keys %zu and %zu overlap", j, i);
				ok = 0;
			}
	}
	/* back to back from 0: the extent is the sum of the lengths */
	if (end != sum) {
		diag("into: values end at %zu, their lengths sum to %zu", end,
		     sum);
		ok = 0;
	}
	*used = sum;
	return ok;
}

static void test_into(const struct target *t, struct gb_conn *c)
{
	const char *tn = gb_transport_name(t->t);
	enum { N = 80 };
	static const size_t vsz[] = { 10, 0, 300000, 4096, 1, 70000 };
	char names[N][32], *dst, *exp;
	const char *keys[N];
	size_t klens[N], lens[N], total = 0, used;
	struct gb_into_result res[N];
	unsigned int nospc;
	int i, ret, ok;

	dst = malloc(8u << 20);
	exp = malloc(1 << 20);
	if (!dst || !exp)
		return;
	for (i = 0; i < N; i++) {	/* test_mget()'s keys and values */
		snprintf(names[i], sizeof(names[i]), "lt-mget-%s-%d", tn, i);
		keys[i] = names[i];
		klens[i] = strlen(names[i]);
		lens[i] = i % 3 == 2 ? SIZE_MAX : vsz[i % 6];
		if (lens[i] != SIZE_MAX)
			total += lens[i];
	}
	keys[N - 1] = "bad key";
	klens[N - 1] = 7;
	lens[N - 1] = SIZE_MAX;
	memset(res, 0x5a, sizeof(res));
	ret = gb_get_many_into(c, N, keys, klens, dst, 8u << 20, res);
	ok = !ret && into_check(N, keys, lens, dst, 8u << 20, res, exp, &used,
				&nospc) && !nospc && used == total;
	tap(ok, "%s: get_many_into %d keys: %zu B back to back, at their offsets (%d: %s)",
	    tn, N, used, ret, gb_errmsg(c));
	memset(res, 0x5a, sizeof(res));
	ret = gb_get_many_into(c, N, keys, klens, dst, total / 2, res);
	ok = !ret && into_check(N, keys, lens, dst, total / 2, res, exp, &used,
				&nospc) && nospc && used <= total / 2 && used;
	tap(ok, "%s: get_many_into %zu B: %zu B landed byte-exact, %u ENOSPC",
	    tn, total / 2, used, nospc);
	ret = gb_get_many_into(c, 2, keys, klens, NULL, 0, res);
	tap(!ret && res[0].status == -GB_ENOSPC && res[0].len == lens[0] &&
	    res[1].status == 0 && res[1].len == 0 && res[1].offset == 0 &&
	    gb_get_many_into(c, 2, keys, klens, NULL, 1, res) == -GB_EINVAL,
	    "%s: get_many_into with no buffer: sizes as -GB_ENOSPC, the empty value fits; NULL with a length: -GB_EINVAL",
	    tn);
	free(dst);
	free(exp);
}

static void test_cross(struct gb_conn *ct, struct gb_conn *cr, char *a,
		       char *b)
{
	static const size_t csz[] = { 0, 5, 256 * 1024 + 1, 1 << 20 };
	unsigned int i;
	size_t vlen;
	int ret;

	for (i = 0; i < 4; i++) {
		size_t n = csz[i];

		if (n > max_size)
			continue;
		fill(a, n, 77 + i);
		ret = gb_set(ct, "lt-x-t2r", 8, a, n, 3, 0);
		if (!ret)
			ret = gb_get_copy(cr, "lt-x-t2r", 8, b, n, &vlen, NULL,
					  NULL);
		tap(!ret && vlen == n && !memcmp(a, b, n),
		    "cross: %zu B set over tcp, read over rdma", n);
		fill(a, n, 99 + i);
		ret = gb_set(cr, "lt-x-r2t", 8, a, n, 4, 0);
		if (!ret)
			ret = gb_get_copy(ct, "lt-x-r2t", 8, b, n, &vlen, NULL,
					  NULL);
		tap(!ret && vlen == n && !memcmp(a, b, n),
		    "cross: %zu B set over rdma, read over tcp", n);
	}
}

/* One child: its own connection, a few rounds of set/get of its keys. */
static int child(const struct target *t, unsigned int id)
{
	static const size_t psz[] = { 4096, 100000, 256 * 1024 + 7, 600000 };
	struct gb_conn *c;
	char *a, *b, key[64];
	unsigned int r;
	size_t vlen;

	a = malloc(1 << 20);
	b = malloc(1 << 20);
	if (!a || !b || conn(t, &c))
		return 2;
	for (r = 0; r < 6; r++) {
		size_t n = psz[(r + id) % 4];

		snprintf(key, sizeof(key), "lt-par-%u-%u", id, r % 3);
		fill(a, n, id * 100 + r);
		if (gb_set(c, key, strlen(key), a, n, id, 0) ||
		    gb_get_copy(c, key, strlen(key), b, 1 << 20, &vlen, NULL,
				NULL) || vlen != n || memcmp(a, b, n)) {
			fprintf(stderr, "process %u round %u: %s\n", id, r,
				gb_errmsg(c));
			return 1;
		}
	}
	gb_close(c);
	return 0;
}

static void test_parallel(const struct target *t, unsigned int n)
{
	pid_t pids[64];
	unsigned int i, good = 0;
	int st;

	if (n > 64)
		n = 64;
	fflush(stdout);
	/*
	 * Fresh processes (fork + exec): verbs contexts opened by this
	 * process cannot be used, nor new ones opened, in a forked child.
	 */
	for (i = 0; i < n; i++) {
		char id[16], tg[300];

		snprintf(id, sizeof(id), "%u", i);
		snprintf(tg, sizeof(tg), "%s:%u", t->host, t->port);
		pids[i] = fork();
		if (!pids[i]) {
			execl("/proc/self/exe", "libtest", "-c", id,
			      t->t == GB_TRANSPORT_RDMA ? "-R" : "-T", tg,
			      (char *)NULL);
			_exit(127);
		}
	}
	for (i = 0; i < n; i++)
		if (pids[i] > 0 && waitpid(pids[i], &st, 0) == pids[i] &&
		    WIFEXITED(st) && !WEXITSTATUS(st))
			good++;
	tap(good == n, "%s: %u processes with one connection each, byte-exact (%u ok)",
	    gb_transport_name(t->t), n, good);
}

static void test_refused(const struct target *t)
{
	struct target bad = *t;
	struct gb_conn *c;
	int ret;

	bad.port = 1;
	ret = conn(&bad, &c);
	tap(ret == -GB_ECONNECT && *gb_errmsg(NULL),
	    "%s: connect to closed port -> ECONNECT (%s)",
	    gb_transport_name(t->t), gb_strerror(ret));
	if (!ret)
		gb_close(c);
}

/* ------------------------------------------------------------------ */
/* Value CRCs (store setting crc, protocol 3.1), against local goblin.ko */

#define DBG_STORE "/sys/kernel/debug/goblin/store"

/* The protocol's CRC-32C of a value, with ISA-L as libgoblin does. */
static uint32_t value_crc(const char *p, size_t len)
{
	return ~crc32_iscsi((unsigned char *)p, (int)len, ~0u);
}

/* goblinctl store set crc on|off; 0 on success. */
static int crc_setting(bool on)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s store set crc %s", goblinctl,
		 on ? "on" : "off");
	return system(cmd);
}

/* The setting as goblinctl -j store show reports it: 1, 0, or -1. */
static int crc_shown(void)
{
	char cmd[512], buf[4096], *p;
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s -j store show", goblinctl);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = '\0';
	p = strstr(buf, "\"crc\"");
	if (!p)
		return -1;
	p += 5;
	while (*p == ' ' || *p == ':')
		p++;
	if (!strncmp(p, "true", 4))
		return 1;
	if (!strncmp(p, "false", 5))
		return 0;
	return -1;
}

/*
 * One command to the store's debugfs file; *@res and *@len get the
 * "CMD RES LEN" line it answers with. 0, or -1 when the file failed.
 */
static int dbg_store(const char *cmd, long long *res, unsigned long long *len)
{
	char buf[256], word[32];
	ssize_t n;
	int fd;

	fd = open(DBG_STORE, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	if (n != (ssize_t)strlen(cmd))
		return -1;
	fd = open(DBG_STORE, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%31s %lld %llu", word, res, len) != 3)
		return -1;
	return 0;
}

/* The CRC the module keeps with @key: 0 and *@crc, else the error. */
static long long stored_crc(const char *key, uint32_t *crc)
{
	unsigned long long len = 0;
	long long res = -1;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "crc %s", key);
	if (dbg_store(cmd, &res, &len))
		return -1;
	*crc = (uint32_t)len;
	return res;
}

static bool dbg_corrupt(const char *key, uint64_t off)
{
	unsigned long long len = 0;
	long long res = -1;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "corrupt %s %llu", key,
		 (unsigned long long)off);
	return !dbg_store(cmd, &res, &len) && !res;
}

/*
 * One memcache text command to @t (append/prepend/incr, which libgoblin
 * has no call for), with @dlen data bytes when @data; the first reply line
 * goes to @reply.
 */
static int mc_cmd(const struct target *t, const char *line, const char *data,
		  size_t dlen, char *reply, size_t rlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	size_t got = 0;
	ssize_t n;
	int fd, ret = -1;

	sa.sin_port = htons(t->port);
	if (inet_pton(AF_INET, t->host, &sa.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto out;
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		goto out;
	if (data && (write(fd, data, dlen) != (ssize_t)dlen ||
		     write(fd, "\r\n", 2) != 2))
		goto out;
	while (got < rlen - 1) {
		n = read(fd, reply + got, 1);
		if (n <= 0)
			goto out;
		if (reply[got] == '\n')
			break;
		got++;
	}
	reply[got] = '\0';
	if (got && reply[got - 1] == '\r')
		reply[got - 1] = '\0';
	ret = 0;
out:
	close(fd);
	return ret;
}

static struct gb_crc_stats crc_stats(struct gb_conn *c)
{
	struct gb_crc_stats st;

	memset(&st, 0, sizeof(st));
	if (gb_crc_stats(c, &st))
		st.active = 99;
	return st;
}

/*
 * GET @key over @c into @b (room @bmax): true if it came whole, equal to
 * @want[0..@n), and libgoblin verified its CRC (one more verified value).
 */
static bool get_verified(struct gb_conn *c, const char *key,
			 const char *want, size_t n, char *b, size_t bmax)
{
	struct gb_crc_stats s0 = crc_stats(c), s1;
	size_t vlen = 0;
	int ret;

	ret = gb_get_copy(c, key, strlen(key), b, bmax, &vlen, NULL, NULL);
	s1 = crc_stats(c);
	return !ret && vlen == n && !memcmp(want, b, n) &&
	       s1.verified == s0.verified + 1;
}

/* Sets @key to @n bytes of @a over @c and checks the stored CRC. */
static void crc_store_check(struct gb_conn *c, const char *how,
			    const char *key, const char *a, size_t n)
{
	uint32_t crc = 0;
	long long res;
	int ret;

	ret = gb_set(c, key, strlen(key), a, n, 0, 0);
	res = ret ? -1 : stored_crc(key, &crc);
	tap(!ret && !res && crc == value_crc(a, n),
	    "crc: %zu B set over %s: module's crc32c() %08x == ISA-L's %08x%s%s",
	    n, how, crc, value_crc(a, n), ret ? ": " : "",
	    ret ? gb_errmsg(c) : "");
}

static void test_crc_on(const struct target *t, const struct target *tt,
			struct gb_conn *c, char *a, char *b)
{
	/* up to a multi-MiB tail (ram_head 256 KiB, ssd_dir in func/lib) */
	static const size_t csz[] = {
		0, 1, 4096, 256 * 1024 + 1, 1 << 20, (3 << 20) + 5,
	};
	struct gb_crc_stats s0, s1;
	struct gb_conn *ct = NULL;
	unsigned int i, chunks, nv = 0;
	struct gb_timestamps ts;
	char key[64];
	size_t vlen;
	int ret, r2;

	(void)t;
	s0 = crc_stats(c);
	for (i = 0; i < ARRAY_SIZE(csz); i++) {
		size_t n = csz[i];

		if (n > max_size)
			continue;
		snprintf(key, sizeof(key), "lt-crc-%zu", n);
		fill(a, n, 500 + i);
		crc_store_check(c, "rdma", key, a, n);
		ret = get_view_cmp(c, key, a, n, 0, &chunks, &ts);
		memset(b, 0, n);
		r2 = gb_get_copy(c, key, strlen(key), b, n, &vlen, NULL, NULL);
		tap(!ret && !r2 && vlen == n && !memcmp(a, b, n),
		    "crc: %zu B (%u chunks) verified by gb_get and gb_get_copy%s%s",
		    n, chunks, ret || r2 ? ": " : "",
		    ret || r2 ? gb_errmsg(c) : "");
		nv += 2;
	}
	s1 = crc_stats(c);
	tap(s1.verified - s0.verified == nv && s1.mismatched == s0.mismatched &&
	    s1.unverified == s0.unverified,
	    "crc: %u values verified, none mismatched or unverified (%llu %llu %llu)",
	    nv, (unsigned long long)(s1.verified - s0.verified),
	    (unsigned long long)(s1.mismatched - s0.mismatched),
	    (unsigned long long)(s1.unverified - s0.unverified));

	/* the memcache and debugfs write paths compute it too */
	if (tt->on && !conn(tt, &ct)) {
		fill(a, 70000, 42);
		crc_store_check(ct, "tcp", "lt-crc-tcp", a, 70000);
		ret = gb_get_copy(c, "lt-crc-tcp", 10, b, 70000, &vlen, NULL,
				  NULL);
		tap(!ret && !memcmp(a, b, 70000),
		    "crc: value set over tcp verified over rdma");
	}
	{
		unsigned long long len = 0;
		uint32_t crc = 0;
		long long res = -1;

		ret = dbg_store("set lt-crc-dbg 300000 7", &res, &len);
		s0 = crc_stats(c);
		r2 = gb_get_copy(c, "lt-crc-dbg", 10, b, 300000, &vlen, NULL,
				 NULL);
		s1 = crc_stats(c);
		tap(!ret && !res && !r2 && vlen == 300000 &&
		    s1.verified == s0.verified + 1 &&
		    !stored_crc("lt-crc-dbg", &crc) &&
		    crc == value_crc(b, 300000),
		    "crc: value set through debugfs verified");
	}

	/* append, prepend, incr: the result keeps a valid CRC */
	if (ct) {
		char reply[256], line[128];

		fill(a, 5000, 61);
		fill(a + 5000, 3000, 62);
		ret = gb_set(c, "lt-crc-app", 10, a, 5000, 0, 0);
		snprintf(line, sizeof(line), "append lt-crc-app 0 0 3000\r\n");
		r2 = mc_cmd(tt, line, a + 5000, 3000, reply, sizeof(reply));
		tap(!ret && !r2 && !strcmp(reply, "STORED"),
		    "crc: append over tcp: %s", reply);
		crc_store_check(c, "rdma", "lt-crc-app-ref", a, 8000);
		tap(get_verified(c, "lt-crc-app", a, 8000, b, 8000),
		    "crc: appended value verified, old + new bytes");

		fill(a, 3000, 63);
		fill(a + 3000, 5000, 64);
		ret = gb_set(c, "lt-crc-pre", 10, a + 3000, 5000, 0, 0);
		snprintf(line, sizeof(line), "prepend lt-crc-pre 0 0 3000\r\n");
		r2 = mc_cmd(tt, line, a, 3000, reply, sizeof(reply));
		tap(!ret && !r2 && !strcmp(reply, "STORED") &&
		    get_verified(c, "lt-crc-pre", a, 8000, b, 8000),
		    "crc: prepended value verified, new + old bytes (%s)",
		    reply);

		ret = gb_set(c, "lt-crc-num", 10, "10", 2, 0, 0);
		r2 = mc_cmd(tt, "incr lt-crc-num 5\r\n", NULL, 0, reply,
			    sizeof(reply));
		tap(!ret && !r2 && !strcmp(reply, "15") &&
		    get_verified(c, "lt-crc-num", "15", 2, b, 16),
		    "crc: incr result verified (%s)", reply);
	}
	gb_close(ct);
}

static void test_crc_bad(const struct target *t, const struct target *tt,
			 struct gb_conn *c, char *a, char *b)
{
	struct gb_crc_stats s0, s1;
	struct gb_conn *oc;
	struct gb_view v;
	size_t vlen, big = 1 << 20;
	int ret, r2, status[3];
	const char *keys[3] = { "lt-crc-4096", "lt-crc-bad", "lt-crc-1" };
	size_t klens[3] = { 11, 10, 8 }, lens[3] = { 4096, 4096, 1 };
	size_t got[3] = { 0, 0, 0 };
	int calls[3] = { 0, 0, 0 };
	struct mget_chk m = { keys, lens, NULL, NULL, got, status, calls, 0 };
	bool good;

	fill(a, 4096, 71);
	ret = gb_set(c, "lt-crc-bad", 10, a, 4096, 0, 0);
	tap(!ret && dbg_corrupt("lt-crc-bad", 100),
	    "crc: debugfs corrupt flips a stored byte");
	s0 = crc_stats(c);
	memset(b, 0, 4096);
	ret = gb_get_copy(c, "lt-crc-bad", 10, b, 4096, &vlen, NULL, NULL);
	s1 = crc_stats(c);
	tap(ret == -GB_ECRC && s1.mismatched == s0.mismatched + 1 &&
	    s1.verified == s0.verified,
	    "crc: corrupted 4 KiB value -> get_copy ECRC (%s: %s)",
	    gb_strerror(ret), gb_errmsg(c));
	ret = gb_get(c, "lt-crc-bad", 10, &v);
	tap(ret == -GB_ECRC && !v.data && !v.len,
	    "crc: corrupted one-chunk value -> gb_get ECRC, no data shown");

	if (big <= max_size) {
		unsigned int chunks = 0;

		fill(a, big, 72);
		ret = gb_set(c, "lt-crc-bad-1m", 13, a, big, 0, 0);
		/* in the tail (ram_head 256 KiB), the third window */
		tap(!ret && dbg_corrupt("lt-crc-bad-1m", 700000),
		    "crc: corrupted a tail byte of a 1 MiB value");
		ret = gb_get(c, "lt-crc-bad-1m", 13, &v);
		while (!ret) {
			chunks++;
			if (gb_view_last(&v))
				break;
			ret = gb_view_next(&v);
		}
		tap(ret == -GB_ECRC && chunks >= 3 && !v.data,
		    "crc: multi-window value (%u chunks handed out) -> last gb_view_next ECRC",
		    chunks);
		gb_release(&v);
	}

	/* in a batch: only the damaged key fails */
	m.buf = malloc(1 << 20);
	if (m.buf) {
		memset(status, 0, sizeof(status));
		ret = gb_get_many(c, 3, keys, klens, mget_cb, &m);
		tap(!ret && status[0] == 1 && status[1] == -GB_ECRC &&
		    calls[1] == 1 && status[2] == 1,
		    "crc: mget: good, corrupted (ECRC, no chunk shown), good (%d %d %d)",
		    status[0], status[1], status[2]);
		free(m.buf);
	}
	fill(a, 4096, 502);
	ret = gb_get_copy(c, "lt-crc-4096", 11, b, 4096, &vlen, NULL, NULL);
	tap(!ret && !memcmp(a, b, 4096),
	    "crc: connection usable after ECRC");

	/* append/prepend/incr never bless the damaged bytes */
	if (tt->on) {
		static const char refused[] =
			"SERVER_ERROR stored value fails its CRC check";
		char reply[256];

		r2 = mc_cmd(tt, "append lt-crc-bad 0 0 2\r\n", "zz", 2, reply,
			    sizeof(reply));
		ret = gb_get_copy(c, "lt-crc-bad", 10, b, 8192, &vlen, NULL,
				  NULL);
		tap(!r2 && !strcmp(reply, refused) && ret == -GB_ECRC,
		    "crc: append to a corrupted value refused, damage still detected (%s; get: %s)",
		    reply, gb_strerror(ret));
		r2 = -1;
		ret = gb_set(c, "lt-crc-n2", 9, "41", 2, 0, 0);
		if (!ret && dbg_corrupt("lt-crc-n2", 0))
			r2 = mc_cmd(tt, "incr lt-crc-n2 1\r\n", NULL, 0, reply,
				    sizeof(reply));
		tap(!ret && !r2 && !strcmp(reply, refused),
		    "crc: incr of a corrupted value refused (%s)", reply);
		/*
		 * With the setting off since, the old value's CRC is still
		 * checked: a result without a CRC would hide the damage.
		 */
		r2 = -1;
		if (!crc_setting(false))
			r2 = mc_cmd(tt, "append lt-crc-bad 0 0 2\r\n", "zz",
				    2, reply, sizeof(reply));
		ret = gb_get_copy(c, "lt-crc-bad", 10, b, 8192, &vlen, NULL,
				  NULL);
		tap(!r2 && !strcmp(reply, refused) && ret == -GB_ECRC,
		    "crc: crc off, append to a corrupted value still refused, damage still detected (%s; get: %s)",
		    reply, gb_strerror(ret));
		r2 = -1;
		if (!crc_setting(false))
			r2 = mc_cmd(tt, "incr lt-crc-n2 1\r\n", NULL, 0,
				    reply, sizeof(reply));
		tap(!r2 && !strcmp(reply, refused),
		    "crc: crc off, incr of a corrupted value still refused (%s)",
		    reply);
		crc_setting(true);
	}

	/* the opt-out: no check, the bytes as stored; then checks again */
	if (conn(t, &oc))
		return;
	r2 = gb_crc_verify(oc, 0);
	s0 = crc_stats(oc);
	fill(a, 4096, 71);
	ret = gb_get_copy(oc, "lt-crc-bad", 10, b, 4096, &vlen, NULL, NULL);
	s1 = crc_stats(oc);
	good = !memcmp(a, b, 4096);
	tap(r2 == 1 && !ret && !good && vlen == 4096 && s1.active &&
	    s1.unverified == s0.unverified + 1 && !s1.mismatched,
	    "crc: gb_crc_verify(c, 0): damaged bytes returned unchecked (%s)",
	    gb_strerror(ret));
	r2 = gb_crc_verify(oc, 1);
	ret = gb_get_copy(oc, "lt-crc-bad", 10, b, 4096, &vlen, NULL, NULL);
	tap(r2 == 0 && ret == -GB_ECRC,
	    "crc: gb_crc_verify(c, 1): checked again -> ECRC (%s)",
	    gb_strerror(ret));
	gb_close(oc);
}

/* debugfs "fail seal ERRNO": arm (or 0: disarm); what was armed, or -1. */
static long long seal_fail(int err)
{
	unsigned long long len = 0;
	long long res = -1;
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "fail seal %d", err);
	if (dbg_store(cmd, &res, &len) || res)
		return -1;
	return (long long)len;
}

/*
 * The CRC pass at publication (gb_obj_seal()), crc on: it runs only for a
 * value that will be published, and its failure is no "out of memory".
 * A 0 B value whose CRC fails shows no data.
 */
static void test_crc_seal(const struct target *tt, struct gb_conn *c,
			  char *a, char *b)
{
	char reply[256], line[128];
	unsigned long long len = 0;
	long long res = -1, armed;
	size_t vlen;
	int ret, r2, r3, r4, r5;

	fill(a, 5000, 95);
	ret = gb_set(c, "lt-crc-add", 10, a, 5000, 0, 0);
	if (tt->on && !ret && seal_fail(5) == 0) {
		/* a CRC pass would fail: none may run for these */
		snprintf(line, sizeof(line), "add lt-crc-add 0 0 5000\r\n");
		r2 = mc_cmd(tt, line, a, 5000, reply, sizeof(reply));
		r2 = r2 ? r2 : strcmp(reply, "NOT_STORED");
		snprintf(line, sizeof(line),
			 "replace lt-crc-nokey 0 0 5000\r\n");
		r3 = mc_cmd(tt, line, a, 5000, reply, sizeof(reply));
		r3 = r3 ? r3 : strcmp(reply, "NOT_STORED");
		snprintf(line, sizeof(line), "cas lt-crc-add 0 0 5000 1\r\n");
		r4 = mc_cmd(tt, line, a, 5000, reply, sizeof(reply));
		r4 = r4 ? r4 : strcmp(reply, "EXISTS");
		snprintf(line, sizeof(line), "cas lt-crc-nokey 0 0 5000 1\r\n");
		r5 = mc_cmd(tt, line, a, 5000, reply, sizeof(reply));
		r5 = r5 ? r5 : strcmp(reply, "NOT_FOUND");
		armed = seal_fail(0);
		tap(!r2 && !r3 && !r4 && !r5 && armed == 5,
		    "crc: failing add/replace/cas (exists, missing, mismatch, missing) answered without a CRC pass (%d %d %d %d, armed fault %s)",
		    r2, r3, r4, r5, armed == 5 ? "untouched" : "consumed");
		ret = gb_get_copy(c, "lt-crc-add", 10, b, 5000, &vlen, NULL,
				  NULL);
		tap(!ret && vlen == 5000 && !memcmp(a, b, 5000),
		    "crc: the value the failing commands left alone verifies");
	} else {
		seal_fail(0);
		tap(false, "crc: set lt-crc-add and arm fail seal");
	}

	/* a CRC pass that fails (I/O error reading the value back) */
	ret = gb_set(c, "lt-crc-eio", 10, a, 4096, 0, 0);
	if (!ret && seal_fail(EIO) == 0) {
		r2 = gb_set(c, "lt-crc-eio", 10, a, 5000, 0, 0);
		armed = seal_fail(0);
		tap(r2 == -GB_ESERVER && armed == 0 &&
		    strstr(gb_errmsg(c), "I/O error") &&
		    !strstr(gb_errmsg(c), "memory"),
		    "crc: SET whose CRC pass fails with EIO -> ESERVER \"I/O error storing object\", not out of memory (%s: %s)",
		    gb_strerror(r2), gb_errmsg(c));
		ret = gb_get_copy(c, "lt-crc-eio", 10, b, 8192, &vlen, NULL,
				  NULL);
		tap(ret == -GB_ENOTFOUND,
		    "crc: the failed SET left no value behind (%s)",
		    gb_strerror(ret));
		ret = gb_set(c, "lt-crc-eio", 10, a, 5000, 0, 0);
		tap(!ret, "crc: the connection and the store go on");
	} else {
		seal_fail(0);
		tap(false, "crc: set lt-crc-eio and arm fail seal EIO");
	}
	/* the same over memcache text: its own words for it */
	if (tt->on && seal_fail(EIO) == 0) {
		r2 = mc_cmd(tt, "set lt-crc-eio 0 0 5000\r\n", a, 5000, reply,
			    sizeof(reply));
		armed = seal_fail(0);
		tap(!r2 && armed == 0 &&
		    !strcmp(reply, "SERVER_ERROR I/O error storing object"),
		    "crc: memcache set whose CRC pass fails with EIO -> SERVER_ERROR I/O error storing object (%d: %s)",
		    r2, reply);
	} else if (tt->on) {
		seal_fail(0);
		tap(false, "crc: arm fail seal EIO for memcache");
	}

	/* 0 B value whose CRC fails: ECRC, no data in the view */
	ret = gb_set(c, "lt-crc-z", 8, "", 0, 0, 0);
	if (!ret && !dbg_store("crcflip lt-crc-z", &res, &len) && !res) {
		struct gb_view v;
		int status[1] = { 0 }, calls[1] = { 0 };
		const char *keys[1] = { "lt-crc-z" };
		size_t klens[1] = { 8 }, lens[1] = { 0 }, got[1] = { 0 };
		struct mget_chk m = { keys, lens, NULL, b, got, status,
				      calls, 0 };

		memset(&v, 0xa5, sizeof(v));
		r2 = gb_get(c, "lt-crc-z", 8, &v);
		tap(r2 == -GB_ECRC && !v.data && !v.len,
		    "crc: 0 B value with a bad CRC -> gb_get ECRC, view without data (%s)",
		    gb_strerror(r2));
		r3 = gb_get_copy(c, "lt-crc-z", 8, b, 16, &vlen, NULL, NULL);
		r4 = gb_get_many(c, 1, keys, klens, mget_cb, &m);
		tap(r3 == -GB_ECRC && !r4 && status[0] == -GB_ECRC &&
		    calls[0] == 1,
		    "crc: and gb_get_copy ECRC, gb_get_many status ECRC (%s; %d)",
		    gb_strerror(r3), status[0]);
	} else {
		tap(false, "crc: 0 B value and debugfs crcflip");
	}
}

/* A 3.0 server refuses the CRC flag: connect again without, no CRCs. */
static void test_crc_old_server(const struct target *t, char *a, char *b)
{
	struct gb_crc_stats st;
	struct gb_conn *c;
	size_t vlen;
	int ret;

	ret = conn(t, &c);
	tap(!ret, "crc: a 3.0 server (refuses connect flags): connected (%s)",
	    ret ? gb_errmsg(NULL) : "without CRCs");
	if (ret)
		return;
	st = crc_stats(c);
	tap(!st.active, "crc: 3.0 server: CRCs inactive");
	fill(a, 5000, 90);
	ret = gb_set(c, "lt-crc-old", 10, a, 5000, 0, 0);
	if (!ret)
		ret = gb_get_copy(c, "lt-crc-old", 10, b, 5000, &vlen, NULL,
				  NULL);
	st = crc_stats(c);
	tap(!ret && vlen == 5000 && !memcmp(a, b, 5000) &&
	    st.unverified == 1 && !st.verified && !st.mismatched,
	    "crc: 3.0 server: values work, unverified (%s)", gb_strerror(ret));
	gb_close(c);
}

static void test_crc(const struct target *t, const struct target *tt,
		     char *a, char *b)
{
	struct gb_crc_stats s0, s1;
	struct gb_conn *c;
	uint32_t crc = 0;
	size_t vlen;
	int ret;

	if (crc_setting(false)) {
		tap(false, "crc: goblinctl store set crc off");
		return;
	}
	tap(crc_shown() == 0, "crc: store show: crc off (the default)");
	if (conn(t, &c)) {
		tap(false, "crc: connect");
		return;
	}
	s0 = crc_stats(c);
	tap(s0.active == 1 && !s0.verified && !s0.mismatched,
	    "crc: the module agrees to send CRCs (protocol 3.1)");

	/* setting off: stored without CRC, nothing sent, nothing checked */
	fill(a, 5000, 81);
	ret = gb_set(c, "lt-crc-off-p", 12, a, 5000, 0, 0);
	ret = ret ? ret : gb_set(c, "lt-crc-off-n", 12, "41", 2, 0, 0);
	fill(a, 4096, 80);
	ret = ret ? ret : gb_set(c, "lt-crc-off", 10, a, 4096, 0, 0);
	tap(!ret && stored_crc("lt-crc-off", &crc) == -ENODATA,
	    "crc: setting off: stored without a CRC");
	ret = gb_get_copy(c, "lt-crc-off", 10, b, 4096, &vlen, NULL, NULL);
	s1 = crc_stats(c);
	tap(!ret && !memcmp(a, b, 4096) && s1.unverified == s0.unverified + 1 &&
	    s1.verified == s0.verified,
	    "crc: setting off: no CRC sent, value unverified");

	tap(!crc_setting(true) && crc_shown() == 1, "crc: store set crc on");
	test_crc_on(t, tt, c, a, b);
	test_crc_bad(t, tt, c, a, b);

	test_crc_seal(tt, c, a, b);

	/*
	 * Stored while off, changed while on: the result of append, prepend
	 * and incr alike gets the CRC of its full bytes.
	 */
	if (tt->on) {
		char reply[256];

		fill(a, 4096, 80);
		memcpy(a + 4096, "abc", 3);
		ret = mc_cmd(tt, "append lt-crc-off 0 0 3\r\n", "abc", 3, reply,
			     sizeof(reply));
		tap(!ret && !strcmp(reply, "STORED") &&
		    get_verified(c, "lt-crc-off", a, 4099, b, 8192) &&
		    !stored_crc("lt-crc-off", &crc) &&
		    crc == value_crc(a, 4099),
		    "crc: append to a value stored without CRC: result has the CRC of all its bytes, verified");

		memcpy(a, "xyz", 3);
		fill(a + 3, 5000, 81);
		ret = mc_cmd(tt, "prepend lt-crc-off-p 0 0 3\r\n", "xyz", 3,
			     reply, sizeof(reply));
		tap(!ret && !strcmp(reply, "STORED") &&
		    get_verified(c, "lt-crc-off-p", a, 5003, b, 8192) &&
		    !stored_crc("lt-crc-off-p", &crc) &&
		    crc == value_crc(a, 5003),
		    "crc: prepend to a value stored without CRC: result has the CRC of all its bytes, verified");

		ret = mc_cmd(tt, "incr lt-crc-off-n 1\r\n", NULL, 0, reply,
			     sizeof(reply));
		tap(!ret && !strcmp(reply, "42") &&
		    get_verified(c, "lt-crc-off-n", "42", 2, b, 16) &&
		    !stored_crc("lt-crc-off-n", &crc) &&
		    crc == value_crc("42", 2),
		    "crc: incr of a value stored without CRC: result has the CRC of its bytes, verified (%s)",
		    reply);
	}
	gb_close(c);
	tap(!crc_setting(false) && crc_shown() == 0, "crc: store set crc off");
}

/* ------------------------------------------------------------------------ */
/* Protocol 3.2: folded GET responses and inline values */

#define DBG_RDMA "/sys/kernel/debug/goblin/rdma"
#define FOLD_REC 4096			/* libgoblin's default ask */
#define FOLD_INL (FOLD_REC - 512)	/* inline limit it is granted */

/* Totals of the module's RDMA debugfs file (3.2 counters). */
struct fold_dbg {
	unsigned long long gets, get_sends, inline_values, folded;
	unsigned int fold0, fold_rec;	/* conn lines with fold 0 / rec */
	unsigned int fold_other;
};

static int fold_dbg(struct fold_dbg *d, unsigned int rec)
{
	char line[512];
	unsigned int f;
	FILE *fp;
	char *p;

	memset(d, 0, sizeof(*d));
	fp = fopen(DBG_RDMA, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		static const char *const fmt[] = {
			"gets %llu", "get_sends %llu", "inline_values %llu",
			"folded %llu",
		};
		unsigned long long *to[] = {
			&d->gets, &d->get_sends, &d->inline_values, &d->folded,
		};
		unsigned int k;

		for (k = 0; k < ARRAY_SIZE(fmt); k++)
			if (sscanf(line, fmt[k], to[k]) == 1)
				break;
		p = strstr(line, " fold ");
		if (strncmp(line, "conn ", 5) || !p ||
		    sscanf(p, " fold %u", &f) != 1)
			continue;
		if (!f)
			d->fold0++;
		else if (f == rec)
			d->fold_rec++;
		else
			d->fold_other++;
	}
	fclose(fp);
	return 0;
}

/* Connect with GOBLIN_RDMA_FOLD=@env (NULL: unset, the default). */
static int fold_conn(const struct target *t, const char *env,
		     struct gb_conn **c)
{
	int ret;

	if (env)
		setenv("GOBLIN_RDMA_FOLD", env, 1);
	else
		unsetenv("GOBLIN_RDMA_FOLD");
	ret = conn(t, c);
	unsetenv("GOBLIN_RDMA_FOLD");
	return ret;
}

/*
 * GET @key (@n bytes of @want) over @c with views and with a copy; true
 * when both are byte-exact. *@sends and *@inl get the module's get_sends
 * and inline_values deltas over the view GET alone.
 */
static bool fold_get(struct gb_conn *c, const char *key, const char *want,
		     size_t n, char *b, unsigned long long *sends,
		     unsigned long long *inl)
{
	struct fold_dbg d0, d1;
	struct gb_timestamps ts;
	unsigned int chunks;
	size_t vlen = 0;
	int ret, ret2;

	fold_dbg(&d0, FOLD_REC);
	ret = get_view_cmp(c, key, want, n, 7, &chunks, &ts);
	fold_dbg(&d1, FOLD_REC);
	*sends = d1.get_sends - d0.get_sends;
	*inl = d1.inline_values - d0.inline_values;
	if (d1.gets != d0.gets + 1)
		*sends = 999;	/* another GET ran meanwhile: cannot tell */
	memset(b, 0xee, n + 1);
	ret2 = gb_get_copy(c, key, strlen(key), b, n, &vlen, NULL, NULL);
	return !ret && !ret2 && vlen == n && !memcmp(want, b, n) &&
	       (unsigned char)b[n] == 0xee;
}

/* gb_get_many() results of test_fold(): values made by fill(seed). */
struct fold_mget {
	size_t len[4];
	uint64_t seed[4];
	size_t got[4];
	int status[4];
	char *exp;
	bool bad;
};

static void fold_mget_cb(void *arg, size_t idx, int status,
			 const struct gb_view *v)
{
	struct fold_mget *m = arg;

	if (idx >= 4) {
		m->bad = true;
		return;
	}
	if (status) {
		m->status[idx] = status;
		return;
	}
	if (v->total != m->len[idx] || v->offset != m->got[idx]) {
		m->bad = true;
		return;
	}
	fill(m->exp, m->len[idx], m->seed[idx]);
	if (v->len && memcmp(m->exp + v->offset, v->data, v->len))
		m->bad = true;
	m->got[idx] += v->len;
	if (gb_view_last(v))
		m->status[idx] = 1;
}

static void test_fold(const struct target *t, char *a, char *b)
{
	/* inline: 0, 1, limit - 1, limit; folded: limit + 1, 1 window */
	static const size_t isz[] = { 0, 1, FOLD_INL - 1, FOLD_INL,
				      FOLD_INL + 1, 256 * 1024 };
	/* several windows (libgoblin: 256 KiB each, 8 of them) */
	static const size_t msz[] = { 256 * 1024 + 1, (1 << 20) + 5 };
	struct gb_conn *cn = NULL, *co = NULL, *cx = NULL;
	unsigned long long sends, inl;
	struct fold_dbg d0, d1;
	char key[64];
	unsigned int i;
	bool ok;
	int ret;

	if (fold_dbg(&d0, FOLD_REC)) {
		skip("fold: protocol 3.2 tests", "no " DBG_RDMA);
		return;
	}
	ret = fold_conn(t, NULL, &cn);
	fold_dbg(&d1, FOLD_REC);
	tap(!ret && d1.fold_rec == d0.fold_rec + 1,
	    "fold: default connection is granted 3.2 with %u-byte records (%u -> %u)",
	    FOLD_REC, d0.fold_rec, d1.fold_rec);
	d0 = d1;
	ret = fold_conn(t, "0", &co);
	fold_dbg(&d1, FOLD_REC);
	tap(!ret && d1.fold0 == d0.fold0 + 1 && d1.fold_rec == d0.fold_rec,
	    "fold: GOBLIN_RDMA_FOLD=0 connects as a 3.1 client on the same listener (fold 0 conns %u -> %u)",
	    d0.fold0, d1.fold0);
	if (!cn || !co)
		goto out;

	for (i = 0; i < ARRAY_SIZE(isz); i++) {
		size_t n = isz[i];
		bool inline_v = n <= FOLD_INL;

		snprintf(key, sizeof(key), "lt-fold-%zu", n);
		fill(a, n, 500 + n);
		/* stored by the old client, read by both, and back */
		ret = gb_set(i % 2 ? co : cn, key, strlen(key), a, n, 7, 0);
		tap(!ret, "fold: set %zu B over a %s client", n,
		    i % 2 ? "3.1" : "3.2");
		ok = fold_get(cn, key, a, n, b, &sends, &inl);
		tap(ok && sends == 1 && inl == (inline_v ? 1 : 0),
		    "fold: 3.2 GET %zu B byte-exact, %llu SEND (want 1), %s (inline %llu)",
		    n, sends, inline_v ? "inline" : "one window", inl);
		ok = fold_get(co, key, a, n, b, &sends, &inl);
		tap(ok && sends == (n ? 3u : 2u) && !inl,
		    "fold: 3.1 GET %zu B byte-exact, %llu SENDs (want %u: VALUE%s END)",
		    n, sends, n ? 3u : 2u, n ? " BULK" : "");
	}
	for (i = 0; i < ARRAY_SIZE(msz); i++) {
		size_t n = msz[i], chunks = (n + 256 * 1024 - 1) / (256 * 1024);

		if (n > max_size)
			continue;
		snprintf(key, sizeof(key), "lt-fold-m%zu", n);
		fill(a, n, 700 + i);
		ret = gb_set(cn, key, strlen(key), a, n, 7, 0);
		ok = !ret && fold_get(cn, key, a, n, b, &sends, &inl);
		tap(ok && sends == chunks && !inl,
		    "fold: 3.2 GET %zu B (%zu windows) byte-exact, %llu SENDs (want %zu: VALUE+BULK, BULK.., BULK+END)",
		    n, chunks, sends, chunks);
		ok = !ret && fold_get(co, key, a, n, b, &sends, &inl);
		tap(ok && sends == chunks + 2,
		    "fold: 3.1 GET %zu B byte-exact, %llu SENDs (want %zu)",
		    n, sends, chunks + 2);
	}

	/* a smaller record: inline limit 1024 - 512, clamps, refusals */
	ret = fold_conn(t, "1024", &cx);
	if (!ret) {
		fill(a, 513, 9);
		ok = !gb_set(cx, "lt-fold-r512", 12, a, 512, 7, 0) &&
		     !gb_set(cx, "lt-fold-r513", 12, a, 513, 7, 0);
		ok = ok && fold_get(cx, "lt-fold-r512", a, 512, b, &sends,
				    &inl) && sends == 1 && inl == 1;
		ok = ok && fold_get(cx, "lt-fold-r513", a, 513, b, &sends,
				    &inl) && sends == 1 && inl == 0;
		gb_close(cx);
		cx = NULL;
	}
	tap(!ret && ok,
	    "fold: 1024-byte records: 512 B inline, 513 B through a window, one SEND each");
	fold_dbg(&d0, FOLD_REC);
	ret = fold_conn(t, "65536", &cx);
	fold_dbg(&d1, FOLD_REC);
	tap(!ret && d1.fold_rec == d0.fold_rec + 1 && !d1.fold_other,
	    "fold: 64 KiB records asked for: granted %u (the server's limit)",
	    FOLD_REC);
	gb_close(cx);
	cx = NULL;
	ret = fold_conn(t, "100", &cx);
	tap(ret == -GB_EREJECTED && strstr(gb_errmsg(NULL), "record size"),
	    "fold: 100-byte records refused (%s)", gb_errmsg(NULL));
	gb_close(cx);
	cx = NULL;
	ret = fold_conn(t, "65600", &cx);
	tap(ret == -GB_EREJECTED && strstr(gb_errmsg(NULL), "record size"),
	    "fold: 65600-byte records refused (%s)", gb_errmsg(NULL));
	gb_close(cx);
	cx = NULL;

	/* CRCs on the new paths: inline, folded single and multi window */
	if (goblinctl && !crc_setting(true)) {
		static const size_t csz[] = { 1, FOLD_INL, FOLD_INL + 1,
					      300000 };

		ok = true;
		for (i = 0; i < ARRAY_SIZE(csz); i++) {
			snprintf(key, sizeof(key), "lt-fold-crc%u", i);
			fill(a, csz[i], 800 + i);
			ok = ok && !gb_set(cn, key, strlen(key), a, csz[i], 0,
					   0) &&
			     get_verified(cn, key, a, csz[i], b, csz[i]) &&
			     get_verified(co, key, a, csz[i], b, csz[i]);
		}
		tap(ok, "fold: CRCs verified by 3.2 and 3.1 clients (inline, one window, several)");
		/* a damaged inline value fails its CRC, the conn goes on */
		ok = dbg_corrupt("lt-fold-crc0", 0);
		ret = gb_get_copy(cn, "lt-fold-crc0", 12, b, 16, NULL, NULL,
				  NULL);
		tap(ok && ret == -GB_ECRC,
		    "fold: damaged inline value -> ECRC (%s)", gb_strerror(ret));
		fill(a, FOLD_INL, 801);
		tap(get_verified(cn, "lt-fold-crc1", a, FOLD_INL, b, FOLD_INL),
		    "fold: connection still verifies after ECRC");
		crc_setting(false);
	} else {
		skip("fold: CRC on the folded paths", "no goblinctl");
	}

	/* a mixed multi-key GET: inline, folded, inline 0 B, miss last */
	{
		static const char *const keys[] = {
			"lt-fold-1", "lt-fold-m262145", "lt-fold-0",
			"lt-fold-none",
		};
		struct fold_mget fm = {
			.len = { 1, 256 * 1024 + 1, 0, 0 },
			.seed = { 501, 700, 500, 0 },
			.exp = b,
		};
		size_t klens[4];
		int k;

		for (k = 0; k < 4; k++)
			klens[k] = strlen(keys[k]);
		ret = gb_get_many(cn, 4, keys, klens, fold_mget_cb, &fm);
		ok = !ret && !fm.bad;
		for (k = 0; k < 4; k++)
			ok = ok && fm.status[k] == (k == 3 ? -GB_ENOTFOUND : 1);
		tap(ok, "fold: mget inline, folded, 0 B, miss: byte-exact (%d %d %d %d)",
		    fm.status[0], fm.status[1], fm.status[2], fm.status[3]);
	}
out:
	gb_close(cn);
	gb_close(co);
}

/* debugfs "fail read KEY OFF ERRNO": what was armed before, or -1. */
static long long read_fail(const char *key, uint64_t off, int err)
{
	unsigned long long len = 0;
	long long res = -1;
	char cmd[320];

	snprintf(cmd, sizeof(cmd), "fail read %s %llu %d", key,
		 (unsigned long long)off, err);
	if (dbg_store(cmd, &res, &len) || res)
		return -1;
	return (long long)len;
}

/* Is @key (made by fill(@seed), @n bytes) read back byte-exact? */
static bool get_exact(struct gb_conn *c, const char *key, char *a, char *b,
		      size_t n, uint64_t seed)
{
	size_t vlen = ~(size_t)0;

	fill(a, n, seed);
	memset(b, 0xee, n);
	return !gb_get_copy(c, key, strlen(key), b, n, &vlen, NULL, NULL) &&
	       vlen == n && !memcmp(a, b, n);
}

/*
 * A value the server fails to read after its VALUE went out (store
 * error; debugfs "fail read"): VALUE [BULK..] ERROR, and the server goes
 * on with the GET's other keys and its END. The key fails alone with
 * ESERVER, the keys after it arrive, the connection stays usable: over a
 * 3.2 client (inline, first folded chunk, later chunk) and a 3.1 one.
 */
static void test_get_fail(const struct target *t, char *a, char *b)
{
	static const struct {
		const char *key;
		size_t len;
		uint64_t off;
		uint64_t seed;
	} fc[] = {
		{ "lt-gf-small", 1000, 0, 61 },		/* 3.2: inline */
		{ "lt-gf-big", 300000, 0, 62 },		/* first chunk */
		{ "lt-gf-big", 300000, 256 * 1024, 62 },	/* 2nd window */
	};
	static const char *const keys[] = {
		NULL, "lt-gf-ok-s", "lt-gf-ok-m", "lt-gf-none",
	};
	static const char *const cname[] = { "3.2", "3.1" };
	struct gb_conn *cc[2] = { NULL, NULL };
	unsigned int i, k;
	long long armed;
	size_t klens[4];
	bool ok;
	int ret;

	if (access(DBG_STORE, W_OK)) {
		skip("getfail: store read faults", "no " DBG_STORE);
		return;
	}
	ret = fold_conn(t, NULL, &cc[0]);
	if (!ret)
		ret = fold_conn(t, "0", &cc[1]);
	ok = !ret;
	fill(a, 1000, 61);
	ok = ok && !gb_set(cc[0], "lt-gf-small", 11, a, 1000, 0, 0);
	fill(a, 300000, 62);
	ok = ok && !gb_set(cc[0], "lt-gf-big", 9, a, 300000, 0, 0);
	fill(a, 100, 63);
	ok = ok && !gb_set(cc[0], "lt-gf-ok-s", 10, a, 100, 0, 0);
	fill(a, 300000, 64);
	ok = ok && !gb_set(cc[0], "lt-gf-ok-m", 10, a, 300000, 0, 0);
	gb_delete(cc[0], "lt-gf-none", 10);
	tap(ok, "getfail: 3.2 and 3.1 connections, values stored");
	if (!ok)
		goto out;

	for (k = 0; k < 2; k++) {
		struct gb_conn *c = cc[k];

		for (i = 0; i < ARRAY_SIZE(fc); i++) {
			struct fold_mget fm = {
				.len = { fc[i].len, 100, 300000, 0 },
				.seed = { fc[i].seed, 63, 64, 0 },
				.exp = b,
			};
			const char *mk[4];
			char why[128];
			size_t vlen;
			int r2;

			/* one key: gb_get_copy() (views, gb_view_next()) */
			armed = read_fail(fc[i].key, fc[i].off, EIO);
			ret = gb_get_copy(c, fc[i].key, strlen(fc[i].key), b,
					  fc[i].len, &vlen, NULL, NULL);
			snprintf(why, sizeof(why), "%s", gb_errmsg(c));
			armed = armed ? -1 : read_fail(fc[i].key, 0, 0);
			ok = get_exact(c, "lt-gf-ok-m", a, b, 300000, 64) &&
			     get_exact(c, fc[i].key, a, b, fc[i].len,
				       fc[i].seed);
			tap(ret == -GB_ESERVER && !armed && ok,
			    "getfail: %s GET, %zu B value failing at byte %llu -> %s (%s), fault %s; the connection goes on",
			    cname[k], fc[i].len,
			    (unsigned long long)fc[i].off, gb_strerror(ret),
			    why, !armed ? "fired" : "not fired");

			/* first of four keys: the later ones still arrive */
			memcpy(mk, keys, sizeof(mk));
			mk[0] = fc[i].key;
			for (r2 = 0; r2 < 4; r2++)
				klens[r2] = strlen(mk[r2]);
			armed = read_fail(fc[i].key, fc[i].off, EIO);
			ret = gb_get_many(c, 4, mk, klens, fold_mget_cb, &fm);
			armed = armed ? -1 : read_fail(fc[i].key, 0, 0);
			ok = !ret && !fm.bad && !armed &&
			     fm.status[0] == -GB_ESERVER && fm.status[1] == 1 &&
			     fm.status[2] == 1 && fm.status[3] == -GB_ENOTFOUND;
			ok = ok && get_exact(c, "lt-gf-ok-s", a, b, 100, 63);
			tap(ok,
			    "getfail: %s mget, first key failing at byte %llu of %zu: ESERVER, the hits after it byte-exact, the miss reported (%d %d %d %d, ret %d)",
			    cname[k], (unsigned long long)fc[i].off, fc[i].len,
			    fm.status[0], fm.status[1], fm.status[2],
			    fm.status[3], ret);
		}
		/* a view released before its value failed further on */
		{
			struct gb_view v;
			int r3;

			armed = read_fail("lt-gf-big", 256 * 1024, EIO);
			ret = gb_get(c, "lt-gf-big", 9, &v);
			if (!ret)
				gb_release(&v);
			ok = get_exact(c, "lt-gf-ok-s", a, b, 100, 63);
			r3 = (int)read_fail("lt-gf-big", 0, 0);
			tap(!armed && !ret && ok && !r3,
			    "getfail: %s GET released after its first chunk, the rest fails: the next GET works (%s)",
			    cname[k], ok ? "yes" : gb_errmsg(c));
		}
	}
out:
	gb_close(cc[0]);
	gb_close(cc[1]);
}

/* A 3.1 server refuses FOLD: connect again with CRC alone, 3.1 records. */
static void test_fold_old_server(const struct target *t, char *a, char *b)
{
	static const size_t osz[] = { 0, 100, FOLD_INL + 1, 300000 };
	struct gb_crc_stats st;
	struct gb_conn *c;
	unsigned int i;
	size_t vlen;
	char key[32];
	bool ok = true;
	int ret;

	ret = conn(t, &c);
	tap(!ret, "fold: a 3.1 server (refuses FOLD): connected (%s)",
	    ret ? gb_errmsg(NULL) : "with CRC alone");
	if (ret)
		return;
	st = crc_stats(c);
	tap(st.active == 1, "fold: 3.1 server: the CRC flag was kept (active %u)",
	    st.active);
	for (i = 0; i < ARRAY_SIZE(osz); i++) {
		snprintf(key, sizeof(key), "lt-fold-old%u", i);
		fill(a, osz[i], 40 + i);
		vlen = ~(size_t)0;
		ret = gb_set(c, key, strlen(key), a, osz[i], 0, 0);
		if (!ret)
			ret = gb_get_copy(c, key, strlen(key), b, osz[i], &vlen,
					  NULL, NULL);
		if (ret || vlen != osz[i] || memcmp(a, b, osz[i]))
			ok = false;
	}
	tap(ok, "fold: 3.1 server: 0 B, 100 B, %u B, 300000 B byte-exact",
	    FOLD_INL + 1);
	gb_close(c);
}

static void parse_target(struct target *t, enum gb_transport tr,
			 const char *s)
{
	const char *colon = strrchr(s, ':');

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(t->host)) {
		fprintf(stderr, "bad target '%s' (want HOST:PORT)\n", s);
		exit(2);
	}
	memcpy(t->host, s, (size_t)(colon - s));
	t->host[colon - s] = '\0';
	t->port = (uint16_t)atoi(colon + 1);
	t->t = tr;
	t->on = true;
}

int main(int argc, char **argv)
{
	struct gb_conn *c[2] = { NULL, NULL };
	char *a, *b;
	int opt, i, child_id = -1;

	while ((opt = getopt(argc, argv, "T:R:m:q:b:S:c:C:M:N:")) != -1) {
		switch (opt) {
		case 'T':
			parse_target(&tgt[0], GB_TRANSPORT_TCP, optarg);
			break;
		case 'R':
			parse_target(&tgt[1], GB_TRANSPORT_RDMA, optarg);
			break;
		case 'm':
			max_size = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			nprocs = (unsigned int)atoi(optarg);
			break;
		case 'b':
			bind_host = optarg;
			break;
		case 'c':
			child_id = atoi(optarg);
			break;
		case 'C':
			goblinctl = optarg;
			break;
		case 'M':
			parse_target(&old_srv, GB_TRANSPORT_RDMA, optarg);
			break;
		case 'N':
			parse_target(&old31_srv, GB_TRANSPORT_RDMA, optarg);
			break;
		case 'S':
			skip("", optarg);
			break;
		default:
			fprintf(stderr,
				"usage: libtest [-T H:P] [-R H:P] [-b BIND] [-m MAX] [-q N] [-C GOBLINCTL] [-M H:P] [-N H:P] [-S WHY]\n");
			return 2;
		}
	}
	if (child_id >= 0)
		return child(tgt[1].on ? &tgt[1] : &tgt[0],
			     (unsigned int)child_id);
	a = malloc(GB_VALUE_MAX + 2);
	b = malloc(GB_VALUE_MAX + 2);
	if (!a || !b)
		return 2;
	tap(!strcmp(gb_strerror(-GB_ENOTFOUND), "not found") &&
	    !strcmp(gb_strerror(GB_ECONNLOST), "connection lost"),
	    "gb_strerror names codes");
	for (i = 0; i < 2; i++) {
		if (!tgt[i].on)
			continue;
		tap(!conn(&tgt[i], &c[i]), "%s: connect %s:%u",
		    gb_transport_name(tgt[i].t), tgt[i].host, tgt[i].port);
		if (!c[i])
			continue;
		test_values(&tgt[i], c[i], a, b);
		test_errors(&tgt[i], c[i], a);
		test_mget(&tgt[i], c[i], a);
		test_into(&tgt[i], c[i]);
		test_refused(&tgt[i]);
		test_parallel(&tgt[i], i ? nprocs : 4);
	}
	if (c[0] && c[1])
		test_cross(c[0], c[1], a, b);
	if (tgt[1].on && goblinctl)
		test_crc(&tgt[1], &tgt[0], a, b);
	else if (tgt[1].on)
		skip("crc: value CRC tests", "no -C: not the local goblin.ko");
	if (tgt[1].on && goblinctl)
		test_fold(&tgt[1], a, b);
	else if (tgt[1].on)
		skip("fold: protocol 3.2 tests", "no -C: not the local goblin.ko");
	if (tgt[1].on && goblinctl)
		test_get_fail(&tgt[1], a, b);
	if (old_srv.on)
		test_crc_old_server(&old_srv, a, b);
	if (old31_srv.on)
		test_fold_old_server(&old31_srv, a, b);
	for (i = 0; i < 2; i++)
		gb_close(c[i]);
	printf("1..%u\n", ntest);
	if (nfail)
		diag("%u of %u tests failed", nfail, ntest);
	free(a);
	free(b);
	return nfail ? 1 : 0;
}
