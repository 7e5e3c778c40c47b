// SPDX-License-Identifier: GPL-2.0
/*
 * ostest: libgoblin client for tests/func/onesided (RDMA protocol 3.3,
 * one-sided reads), linked with libgoblin-test.a (the test hooks). Connects
 * over RDMA asking for one-sided reads (gb_connect_opts.one_sided; not
 * with OSTEST_ONE_SIDED=0 in the environment, and GOBLIN_RDMA_ONESIDED
 * overrides either) and runs one mode; prints "# ..." diagnostics and the
 * one-sided counters as "os lookups=N reads=N fallbacks=N crc=N active=N"
 * and "os depth_max=N" (most READs in flight at once); exits 0 on success.
 *
 *   ostest HOST PORT fill PREFIX N SIZE...   set PREFIX0..: value i of
 *                                            SIZE[i % #SIZE] bytes, pat()
 *   ostest HOST PORT check PREFIX N SIZE...  gb_get_onesided() each one,
 *                                            byte-exact (PREFIX-miss: miss)
 *   ostest HOST PORT many PREFIX N SIZE...   gb_get_many_onesided() of the
 *                                            N keys interleaved with N
 *                                            missing ones (not with
 *                                            OSTEST_MISSES=0), byte-exact;
 *                                            "# many: N us" its time
 *   ostest HOST PORT into PREFIX N SIZE...   gb_get_many_into() of the N
 *                                            keys interleaved with N
 *                                            missing ones into one buffer
 *                                            (OSTEST_DST bytes, default
 *                                            their sum): each value
 *                                            byte-exact at its offset, no
 *                                            overlap, -GB_ENOSPC only for
 *                                            values that did not fit;
 *                                            "# into: ..." the counts
 *   ostest HOST PORT writer KEY SIZE SECS    replace KEY in a loop with
 *                                            self-describing values
 *   ostest HOST PORT reader KEY SIZE SECS    read KEY one-sided in a loop:
 *                                            every value one written whole
 *   ostest HOST PORT one KEY SIZE [SEED [TIMES]]
 *                                            gb_get_onesided() of KEY
 *                                            (pat(SEED)), TIMES times (1);
 *                                            the status code is printed
 *                                            as "status N"
 *   ostest HOST PORT hold PREFIX N           LOOKUP and READ N keys, keep
 *                                            the leases, sleep forever
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <goblin/client.h>

static uint8_t pat(uint64_t seed, uint64_t j)
{
	return (uint8_t)(seed * 131 + j * 7 + (j >> 9));
}

/*
 * The seed is also in the first 8 bytes of every 512-byte block: pat()
 * repeats for seeds 256 apart, so a value torn between two versions would
 * pass a check of pat() alone.
 */
static void fill(uint8_t *b, size_t len, uint64_t seed)
{
	size_t j;

	for (j = 0; j < len; j++)
		b[j] = pat(seed, j);
	for (j = 0; j + 8 <= len; j += 512)
		memcpy(b + j, &seed, 8);
}

/* A value written by fill(seed): the seed from its first 8 bytes. */
static int whole(const uint8_t *b, size_t len, uint64_t *seed)
{
	size_t j;

	if (len < 8)
		return -1;
	memcpy(seed, b, 8);
	for (j = 8; j < len; j++) {
		if (j % 512 < 8 && j - j % 512 + 8 <= len)
			continue;	/* a block's seed, below */
		if (b[j] != pat(*seed, j))
			return -1;
	}
	for (j = 512; j + 8 <= len; j += 512)
		if (memcmp(b + j, seed, 8))
			return -1;
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static struct gb_conn *c;

static void stats(void)
{
	struct gb_onesided_stats st;

	if (gb_onesided_stats(c, &st))
		return;
	printf("os lookups=%llu reads=%llu fallbacks=%llu crc=%llu active=%u\n",
	       (unsigned long long)st.lookups, (unsigned long long)st.reads,
	       (unsigned long long)st.fallbacks,
	       (unsigned long long)st.crc_fallbacks, st.active);
	printf("os depth_max=%u\n", st.read_depth_max);
}

static char *key_of(const char *prefix, size_t i)
{
	static char k[300];

	snprintf(k, sizeof(k), "%s%zu", prefix, i);
	return k;
}

/* many: results per key */
struct res {
	size_t n;
	int misses;	/* odd indices are missing keys */
	size_t *sizes;
	int *status;
	uint8_t *buf;
	size_t buflen;
	size_t *got;
	int bad;
};

static void many_fn(void *arg, size_t idx, int status, const struct gb_view *v)
{
	struct res *r = arg;
	size_t i = r->misses ? idx / 2 : idx;

	if (r->misses && idx % 2) {	/* the missing ones */
		if (status != -GB_ENOTFOUND) {
			printf("# missing key %zu: status %d\n", idx, status);
			r->bad++;
		}
		return;
	}
	if (status) {
		printf("# key %zu: status %d\n", i, status);
		r->status[i] = status;
		r->bad++;
		return;
	}
	if (v->offset != r->got[i] || v->offset + v->len > r->sizes[i] ||
	    v->total != r->sizes[i]) {
		printf("# key %zu: chunk %llu+%zu of %llu, want %zu bytes\n",
		       i, (unsigned long long)v->offset, v->len,
		       (unsigned long long)v->total, r->sizes[i]);
		r->bad++;
		return;
	}
	fill(r->buf, r->sizes[i], i);
	if (v->len && memcmp(v->data, r->buf + v->offset, v->len)) {
		printf("# key %zu: bytes differ\n", i);
		r->bad++;
	}
	r->got[i] += v->len;
	if (r->got[i] == r->sizes[i])
		r->status[i] = 0;
}

int main(int argc, char **argv)
{
	struct gb_connect_opts o;
	size_t nsz = 0, sizes[16], n = 0, i, max = 0, vlen;
	const char *mode, *arg;
	uint8_t *buf, *want;
	uint32_t fl;
	int ret, bad = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: ostest HOST PORT MODE ARGS...\n");
		return 2;
	}
	mode = argv[3];
	arg = argv[4];
	gb_connect_opts_init(&o);
	o.transport = GB_TRANSPORT_RDMA;
	o.host = argv[1];
	o.port = (uint16_t)atoi(argv[2]);
	o.timeout_ms = 60000;
	arg = getenv("OSTEST_ONE_SIDED");
	o.one_sided = !arg || strcmp(arg, "0");
	arg = argv[4];
	ret = gb_connect(&o, &c);
	if (ret) {
		printf("# connect: %s\n", gb_strerror(ret));
		return 1;
	}
	if (!strcmp(mode, "fill") || !strcmp(mode, "check") ||
	    !strcmp(mode, "many") || !strcmp(mode, "hold") ||
	    !strcmp(mode, "into")) {
		n = strtoul(argv[5], NULL, 0);
		for (i = 6; i < (size_t)argc && nsz < 16; i++) {
			sizes[nsz] = strtoul(argv[i], NULL, 0);
			if (sizes[nsz] > max)
				max = sizes[nsz];
			nsz++;
		}
		if (!nsz)
			sizes[nsz++] = 4096, max = 4096;
	} else if (argc > 5) {
		sizes[0] = strtoul(argv[5], NULL, 0);
		max = sizes[0];
		nsz = 1;
	}
	buf = malloc(max + 8);
	want = malloc(max + 8);
	if (!buf || !want)
		return 1;

	if (!strcmp(mode, "fill")) {
		for (i = 0; i < n; i++) {
			size_t len = sizes[i % nsz];

			fill(want, len, i);
			ret = gb_set(c, key_of(arg, i), strlen(key_of(arg, i)),
				     want, len, (uint32_t)i, 0);
			if (ret) {
				printf("# set %zu: %s: %s\n", i, gb_strerror(ret),
				       gb_errmsg(c));
				return 1;
			}
		}
		printf("# stored %zu values\n", n);
	} else if (!strcmp(mode, "check")) {
		for (i = 0; i < n; i++) {
			size_t len = sizes[i % nsz];
			const char *k = key_of(arg, i);

			fill(want, len, i);
			ret = gb_get_onesided(c, k, strlen(k), buf, max + 8,
					      &vlen, &fl);
			if (ret || vlen != len || fl != (uint32_t)i ||
			    memcmp(buf, want, len)) {
				printf("# key %zu (%zu B): %s vlen %zu flags %u\n",
				       i, len, ret ? gb_strerror(ret) : "bytes differ",
				       vlen, fl);
				bad++;
			}
		}
		ret = gb_get_onesided(c, "no-such-key", 11, buf, max, &vlen,
				      &fl);
		if (ret != -GB_ENOTFOUND) {
			printf("# missing key: %d\n", ret);
			bad++;
		}
	} else if (!strcmp(mode, "many")) {
		const char *e = getenv("OSTEST_MISSES");
		struct res r = { .n = n, .misses = !e || strcmp(e, "0") };
		size_t m = r.misses ? 2 * n : n;
		const char **keys = calloc(m, sizeof(*keys));
		size_t *klens = calloc(m, sizeof(*klens));
		double t0;

		r.sizes = calloc(n, sizeof(size_t));
		r.status = calloc(n, sizeof(int));
		r.got = calloc(n, sizeof(size_t));
		r.buf = want;
		for (i = 0; i < m; i++) {
			char k[300];

			if (!r.misses)
				snprintf(k, sizeof(k), "%s%zu", arg, i);
			else if (i % 2)
				snprintf(k, sizeof(k), "%s-miss%zu", arg, i);
			else
				snprintf(k, sizeof(k), "%s%zu", arg, i / 2);
			keys[i] = strdup(k);
			klens[i] = strlen(k);
		}
		for (i = 0; i < n; i++) {
			r.sizes[i] = sizes[i % nsz];
			r.status[i] = 1;
		}
		t0 = now();
		ret = gb_get_many_onesided(c, m, keys, klens, many_fn, &r);
		printf("# many: %.0f us for %zu keys\n", (now() - t0) * 1e6, m);
		if (ret) {
			printf("# get_many_onesided: %s: %s\n", gb_strerror(ret),
			       gb_errmsg(c));
			bad++;
		}
		for (i = 0; i < n; i++)
			if (r.status[i]) {
				printf("# key %zu: incomplete (%d)\n", i,
				       r.status[i]);
				bad++;
			}
		bad += r.bad;
	} else if (!strcmp(mode, "into")) {
		const char *e = getenv("OSTEST_DST");
		size_t m = 2 * n, sum = 0, used = 0, end = 0, landed = 0;
		size_t nospc = 0, dstlen, j;
		const char **keys = calloc(m, sizeof(*keys));
		size_t *klens = calloc(m, sizeof(*klens));
		struct gb_into_result *res = calloc(m, sizeof(*res));
		uint8_t *dst;
		double t0;

		for (i = 0; i < n; i++)
			sum += sizes[i % nsz];
		dstlen = e ? strtoul(e, NULL, 0) : sum;
		dst = malloc(dstlen + 1);
		if (!keys || !klens || !res || !dst)
			return 1;
		for (i = 0; i < m; i++) {
			char k[300];

			if (i % 2)
				snprintf(k, sizeof(k), "%s-miss%zu", arg, i);
			else
				snprintf(k, sizeof(k), "%s%zu", arg, i / 2);
			keys[i] = strdup(k);
			klens[i] = strlen(k);
		}
		t0 = now();
		ret = gb_get_many_into(c, m, keys, klens, dst, dstlen, res);
		printf("# into: %.0f us for %zu keys\n", (now() - t0) * 1e6, m);
		if (ret) {
			printf("# get_many_into: %s: %s\n", gb_strerror(ret),
			       gb_errmsg(c));
			bad++;
		}
		for (i = 0; i < m; i++) {
			size_t len = sizes[(i / 2) % nsz];

			if (i % 2) {
				if (res[i].status != -GB_ENOTFOUND) {
					printf("# missing key %zu: status %d\n",
					       i, res[i].status);
					bad++;
				}
				continue;
			}
			if (res[i].status == -GB_ENOSPC && res[i].len == len) {
				nospc++;
				continue;
			}
			fill(want, len, i / 2);
			if (res[i].status || res[i].len != len ||
			    res[i].flags != (uint32_t)(i / 2) ||
			    res[i].offset + len > dstlen ||
			    memcmp(dst + res[i].offset, want, len)) {
				printf("# key %zu: status %d offset %llu len %llu flags %u%s\n",
				       i / 2, res[i].status,
				       (unsigned long long)res[i].offset,
				       (unsigned long long)res[i].len,
				       res[i].flags,
				       res[i].status ? "" : " (bytes differ?)");
				bad++;
				continue;
			}
			for (j = 0; j < i; j += 2)
				if (!res[j].status && len && res[j].len &&
				    res[j].offset < res[i].offset + len &&
				    res[i].offset < res[j].offset + res[j].len) {
					printf("# keys %zu and %zu overlap\n",
					       j / 2, i / 2);
					bad++;
				}
			landed++;
			used += len;
			if (res[i].offset + len > end)
				end = res[i].offset + len;
		}
		/* back to back from 0: the extent is the sum of the lengths */
		if (end != used) {
			printf("# values end at %zu, their lengths sum to %zu\n",
			       end, used);
			bad++;
		}
		printf("# into: %zu landed (%zu bytes of %zu), %zu nospc\n",
		       landed, used, dstlen, nospc);
	} else if (!strcmp(mode, "writer") || !strcmp(mode, "reader")) {
		double end = now() + atof(argv[6]);
		uint64_t seq = 1, seed, last = 0, reads = 0, olds = 0;
		size_t len = sizes[0];

		while (now() < end) {
			if (mode[0] == 'w') {
				fill(want, len, seq);
				ret = gb_set(c, arg, strlen(arg), want, len, 0,
					     0);
				seq++;
				if (ret) {
					printf("# set: %s\n", gb_strerror(ret));
					bad++;
					break;
				}
				continue;
			}
			ret = gb_get_onesided(c, arg, strlen(arg), buf, len,
					      &vlen, &fl);
			if (ret == -GB_ENOTFOUND)
				continue;
			if (ret || vlen != len || whole(buf, len, &seed)) {
				printf("# read %llu: %s (vlen %zu)\n",
				       (unsigned long long)reads,
				       ret ? gb_strerror(ret) : "torn value",
				       vlen);
				bad++;
				break;
			}
			if (seed < last)
				olds++;
			last = seed;
			reads++;
		}
		printf("# %s: %llu ops, %llu reads went back in time\n", mode,
		       (unsigned long long)(mode[0] == 'w' ? seq - 1 : reads),
		       (unsigned long long)olds);
		/* each LOOKUP sees the version of the one before, or a newer one */
		bad += olds;
	} else if (!strcmp(mode, "one")) {
		uint64_t seed = argc > 6 ? strtoull(argv[6], NULL, 0) : 0;
		unsigned long times = argc > 7 ? strtoul(argv[7], NULL, 0) : 1;

		fill(want, sizes[0], seed);
		do {
			ret = gb_get_onesided(c, arg, strlen(arg), buf,
					      sizes[0], &vlen, &fl);
			printf("status %d\n", ret);
			if (ret)
				printf("# %s: %s\n", gb_strerror(ret),
				       gb_errmsg(c));
			else if (vlen != sizes[0] || memcmp(buf, want, vlen))
				printf("# bytes differ (vlen %zu)\n", vlen),
					bad++;
		} while (!ret && --times > 0);
	} else if (!strcmp(mode, "hold")) {
		for (i = 0; i < n; i++) {
			const char *k = key_of(arg, i);

			ret = gb_get_onesided(c, k, strlen(k), buf, max + 8,
					      &vlen, &fl);
			if (ret)
				bad++;
		}
		stats();
		printf("holding\n");
		fflush(stdout);
		for (;;)
			pause();
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	stats();
	gb_close(c);
	return bad ? 1 : 0;
}
