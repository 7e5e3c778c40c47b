// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of libgoblin against a live server; TAP on stdout.
 *
 *   libtest [-T HOST:PORT] [-R HOST:PORT] [-b BIND] [-m MAXSIZE] [-q QPS]
 *           [-S SKIPREASON]...
 *
 * -T tests the memcache TCP transport, -R the RDMA transport; with both,
 * values written over one are read back over the other. -b is the local
 * address RDMA connections start from, -m caps the value sizes (default
 * 16 MiB), -q sets how many processes with one QP each run at once over
 * RDMA (default 8), -S emits a skipped test with that reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <goblin/client.h>

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

static int conn(const struct target *t, struct gb_conn **c)
{
	struct gb_connect_opts o;
	int ret;

	gb_connect_opts_init(&o);
	o.transport = t->t;
	o.host = t->host;
	o.port = t->port;
	o.bind_host = t->t == GB_TRANSPORT_RDMA ? bind_host : NULL;
	o.timeout_ms = 30000;
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

	while ((opt = getopt(argc, argv, "T:R:m:q:b:S:c:")) != -1) {
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
		case 'S':
			skip("", optarg);
			break;
		default:
			fprintf(stderr,
				"usage: libtest [-T H:P] [-R H:P] [-b BIND] [-m MAX] [-q N] [-S WHY]\n");
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
		test_refused(&tgt[i]);
		test_parallel(&tgt[i], i ? nprocs : 4);
	}
	if (c[0] && c[1])
		test_cross(c[0], c[1], a, b);
	for (i = 0; i < 2; i++)
		gb_close(c[i]);
	printf("1..%u\n", ntest);
	if (nfail)
		diag("%u of %u tests failed", nfail, ntest);
	free(a);
	free(b);
	return nfail ? 1 : 0;
}
