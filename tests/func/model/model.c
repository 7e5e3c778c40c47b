// SPDX-License-Identifier: GPL-2.0
/*
 * model: a randomized workload checked against a model of the cache.
 *
 * Several client processes run SET / GET / multi-GET / DELETE / ADD /
 * REPLACE / APPEND / PREPEND / INCR / DECR / TOUCH and expiring SETs with
 * values from 0 B to 16 MiB against one server, over memcache TCP
 * (libmemcached) and Goblin RDMA (libgoblin), picking the transport per
 * operation so that a value written over one is read over the other.
 *
 * Every client owns a range of keys no one else touches: for those the
 * model knows the exact value, flags and expiry window, so every hit must
 * be byte-exact and every miss must be explained (absent, or possibly
 * expired given the client's clock before and after the request; the
 * server's clock is the same one). A range of shared keys is written by
 * all clients at once: each value there carries a header (key, writer,
 * writer sequence, length, CRC32C of the body) and a body generated from
 * those, so a GET must return a value that some client really wrote to
 * that key (and announced in shared memory before sending it).
 *
 * The sequence of operations (keys, sizes, transports, seeds) of each
 * client depends only on the seed; outcomes that depend on timing (expiry,
 * interleaving on shared keys) are what the model tolerates. A mismatch
 * prints the key, the key's recent operations, the seed and a command to
 * rerun, and fails the client.
 *
 * Output: TAP on stdout (one line per client and a summary), diagnostics
 * on stderr. See tests/func/model/run.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <goblin/client.h>
#include <libmemcached/memcached.h>

#include "../../../tools/include/gb_compiler.h"

#define VMAX		(16u << 20)	/* largest value */
#define HIST		24		/* operations remembered per key */
#define LOGN		4096		/* shared-key writes remembered per client */
#define SHDR		32		/* header of a shared-key value */
#define SMAGIC		0x314d4247u	/* "GBM1" */
#define MAXCLIENTS	32
#define MGET_MAX	6

/* --- options -------------------------------------------------------------- */

static const char *tcp_hp, *rdma_hp, *bind_host;
static unsigned int nclients = 4, seconds = 60, nown = 48, nshared = 16;
static unsigned int ram_head = 64 << 10, big_pm = 4, huge = 1, only = ~0u;
static unsigned int write_pm;	/* -w: per mille of operations made SETs */
static uint64_t vmax = VMAX, base_seed;
static int slack;		/* server clock may differ by this many seconds */
static int memcached_ref;	/* -M: the server is memcached itself */
static bool counter_unsure;	/* -M: the last parse_counter() is a guess */
static int evict_ok;		/* -e: misses and out-of-memory are allowed */
static int verbose;
static char cmdline[1024];

/* --- shared memory ----------------------------------------------------- */

enum op {
	OP_GET, OP_GETV, OP_MGET, OP_SET, OP_SETX, OP_SETNUM, OP_ADD,
	OP_REPLACE, OP_APPEND, OP_PREPEND, OP_INCR, OP_DECR, OP_DEL, OP_TOUCH,
	OP_BIG, OP_HUGE, OP_SGET, OP_SSET, OP_SDEL, OP_STOUCH, OP_N
};

static const char *const op_name[OP_N] = {
	"get", "getv", "mget", "set", "setx", "setnum", "add", "replace",
	"append", "prepend", "incr", "decr", "delete", "touch", "bigset",
	"oversize", "sget", "sset", "sdelete", "stouch",
};

struct wlog {
	uint64_t issued;		/* highest sequence announced */
	struct {
		uint64_t seq;
		uint32_t key;
	} ent[LOGN];
};

struct cstats {
	uint64_t ops[OP_N];
	uint64_t hits, misses, maybes, bytes_in, bytes_out, shared_hits;
	uint64_t evicted, nomem;
	uint64_t tcp, rdma;
	int done;
};

struct shm {
	struct wlog log[MAXCLIENTS];
	struct cstats st[MAXCLIENTS];
};

static struct shm *shm;

/* --- random numbers and value bytes --------------------------------------- */

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return splitmix(r->s);
}

/* Byte j of a generated run with @seed: 8 bytes per splitmix word. */
static void gen(unsigned char *p, uint64_t seed, uint64_t len)
{
	uint64_t i, w;

	for (i = 0; i + 8 <= len; i += 8) {
		w = splitmix(seed ^ (i * 0x2545f4914f6cdd1dull));
		memcpy(p + i, &w, 8);
	}
	if (i < len) {
		w = splitmix(seed ^ (i * 0x2545f4914f6cdd1dull));
		memcpy(p + i, &w, len - i);
	}
}

static uint32_t crc_tab[256];

static void crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_tab[i] = c;
	}
}

static uint32_t crc32c(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~0u;

	while (len--)
		c = crc_tab[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

static int64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/*
 * The server reads the time with ktime_get_real_seconds(), which advances
 * at timer ticks: it can be behind this process's clock by a tick, more
 * when a TCG guest delays its ticks. The earliest second the server may
 * see for a request that starts now.
 */
#define SERVER_LAG_NS	250000000L

static int64_t now_s_early(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_nsec >= SERVER_LAG_NS ? ts.tv_sec : ts.tv_sec - 1;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "# model: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* --- the model of one owned key ---------------------------------------- */

/* A run of value bytes: generated from @seed, or the literal @lit. */
struct seg {
	uint64_t seed;
	uint64_t len;
	unsigned char *lit;
};

struct hent {
	uint64_t opno;
	int64_t tb, ta;
	uint64_t len, seed;
	uint32_t flags;
	int exptime;
	unsigned char op, tr;
	char res[72];
};

struct okey {
	char name[GB_KEY_MAX + 1];
	size_t klen;
	bool present;
	bool big;		/* may hold values up to 16 MiB */
	bool pad_unsure;	/* -M: incr result may lack its blank padding */
	uint32_t flags;
	int64_t exp_lo, exp_hi;	/* server's exptime is in [lo, hi]; 0: none */
	uint64_t len;
	unsigned int nseg, cap;
	struct seg *seg;
	struct hent h[HIST];
	unsigned int hn;
};

enum live { DEAD, ALIVE, MAYBE };

/* Is @k alive at a server time in [@gb, @ga]? Strictly, without -e. */
static enum live k_live_strict(const struct okey *k, int64_t gb, int64_t ga)
{
	if (!k->present)
		return DEAD;
	if (!k->exp_lo)
		return ALIVE;
	if (ga < k->exp_lo)
		return ALIVE;
	if (gb >= k->exp_hi)
		return DEAD;
	return MAYBE;
}

/* With -e the server may evict: a value it should hold may be gone. */
static enum live k_live(const struct okey *k, int64_t gb, int64_t ga)
{
	enum live l = k_live_strict(k, gb, ga);

	return evict_ok && l == ALIVE ? MAYBE : l;
}

static void k_clear(struct okey *k)
{
	unsigned int i;

	k->pad_unsure = false;
	for (i = 0; i < k->nseg; i++)
		free(k->seg[i].lit);
	k->nseg = 0;
	k->len = 0;
}

static void k_absent(struct okey *k)
{
	k_clear(k);
	k->present = false;
	k->exp_lo = 0;
	k->exp_hi = 0;
	k->flags = 0;
}

static void k_push(struct okey *k, uint64_t seed, uint64_t len,
		   const void *lit, bool front)
{
	struct seg s = { .seed = seed, .len = len, .lit = NULL };

	if (!len)
		return;
	if (lit) {
		s.lit = xmalloc(len);
		memcpy(s.lit, lit, len);
	}
	if (k->nseg == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 4;
		k->seg = realloc(k->seg, k->cap * sizeof(*k->seg));
		if (!k->seg)
			exit(2);
	}
	if (front) {
		memmove(k->seg + 1, k->seg, k->nseg * sizeof(*k->seg));
		k->seg[0] = s;
	} else {
		k->seg[k->nseg] = s;
	}
	k->nseg++;
	k->len += len;
}

/* Write the model's value of @k into @p (k->len bytes). */
static void k_render(const struct okey *k, unsigned char *p)
{
	unsigned int i;

	for (i = 0; i < k->nseg; i++) {
		if (k->seg[i].lit)
			memcpy(p, k->seg[i].lit, k->seg[i].len);
		else
			gen(p, k->seg[i].seed, k->seg[i].len);
		p += k->seg[i].len;
	}
}

/* --- per client state --------------------------------------------------- */

struct client {
	unsigned int id;
	struct rng rng;
	uint64_t opno;
	memcached_st *mc;
	struct gb_conn *gb;
	struct okey *keys;
	unsigned char *exp, *got, *tmp;	/* VMAX + 1 bytes each */
	uint64_t wseq;			/* shared-key writes */
	struct cstats *st;
	/* the operation in progress, for the history */
	struct hent cur;
};

static struct client C;

static const char *tr_name(int tr)
{
	return tr ? "rdma" : "tcp";
}

static void hist_print(const struct okey *k)
{
	unsigned int i, n = k->hn < HIST ? k->hn : HIST;
	const struct hent *h;

	fprintf(stderr, "#   last %u operations on '%.60s%s':\n", n, k->name,
		k->klen > 60 ? "..." : "");
	for (i = k->hn - n; i < k->hn; i++) {
		h = &k->h[i % HIST];
		fprintf(stderr, "#     op %lu %s/%s len %lu seed %#lx",
			h->opno, op_name[h->op], tr_name(h->tr), h->len,
			h->seed);
		fprintf(stderr, " flags %#x exptime %d t [%ld, %ld] -> %s\n",
			h->flags, h->exptime, h->tb, h->ta, h->res);
	}
}

static void model_print(const struct okey *k)
{
	fprintf(stderr, "#   model: %s, len %lu, flags %#x,",
		k->present ? "present" : "absent", k->len, k->flags);
	fprintf(stderr, " exptime in [%ld, %ld], %u segments, now %ld\n",
		k->exp_lo, k->exp_hi, k->nseg, now_s());
}

static void tcp_stats_print(void)
{
	static const char *const want[] = {
		"evictions", "curr_items", "reclaimed", "expired_unfetched",
		NULL,
	};
	memcached_stat_st *st;
	memcached_return_t rc;
	char *v;
	int i;

	if (!C.mc)
		return;
	st = memcached_stat(C.mc, NULL, &rc);
	if (!st)
		return;
	for (i = 0; want[i]; i++) {
		v = memcached_stat_get_value(C.mc, st, want[i], &rc);
		if (v) {
			fprintf(stderr, "#   server %s %s\n", want[i], v);
			free(v);
		}
	}
	memcached_stat_free(C.mc, st);
}

static void __printf(2, 3) __noreturn
fail(const struct okey *k, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "# model: FAIL: client %u op %lu (%s/%s",
		C.id, C.opno, op_name[C.cur.op], tr_name(C.cur.tr));
	if (k)
		fprintf(stderr, ", key '%.60s%s'", k->name,
			k->klen > 60 ? "..." : "");
	fprintf(stderr, "): ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n#   seed %lu\n", base_seed);
	if (k) {
		model_print(k);
		hist_print(k);
	}
	tcp_stats_print();
	fprintf(stderr, "#   rerun: %s -s %lu -o %u\n", cmdline,
		base_seed, C.id);
	exit(1);
}

static void hist_add(struct okey *k, const char *fmt, ...)
	__printf(2, 3);

static void hist_add(struct okey *k, const char *fmt, ...)
{
	struct hent *h = &k->h[k->hn++ % HIST];
	va_list ap;

	*h = C.cur;
	va_start(ap, fmt);
	vsnprintf(h->res, sizeof(h->res), fmt, ap);
	va_end(ap);
	if (verbose)
		fprintf(stderr,
			"# c%u op %lu %s/%s %s len %lu -> %s\n",
			C.id, C.opno, op_name[h->op], tr_name(h->tr), k->name,
			h->len, h->res);
}

/* Compare a hit with the model: length, flags, every byte. */
static void check_value(struct okey *k, const void *data, uint64_t len,
			uint32_t flags, const char *how)
{
	const unsigned char *d = data;
	uint64_t i;

	if (k->pad_unsure && len < k->len && k->nseg == 1 && k->seg[0].lit) {
		/*
		 * memcached pads a shorter incr result in place only when it
		 * holds the only reference to the item; else the new item is
		 * exactly the number.
		 */
		for (i = len; i < k->len && k->seg[0].lit[i] == ' '; i++)
			;
		if (i == k->len) {
			k->len = len;
			k->seg[0].len = len;
		}
	}
	k->pad_unsure = false;
	if (len != k->len)
		fail(k, "%s: hit with %lu bytes, model has %lu",
		     how, len, k->len);
	if (flags != k->flags)
		fail(k, "%s: flags %#x, model has %#x", how, flags, k->flags);
	k_render(k, C.exp);
	if (len && memcmp(d, C.exp, len)) {
		for (i = 0; i < len && d[i] == C.exp[i]; i++)
			;
		fail(k, "%s: byte %lu of %lu differs (%#x, want %#x); crc32c %08x, want %08x",
		     how, i, len, d[i], C.exp[i], crc32c(d, len),
		     crc32c(C.exp, len));
	}
}

/* --- transports ----------------------------------------------------------- */

static void split_hp(const char *hp, char *host, size_t hl, uint16_t *port)
{
	const char *c = strrchr(hp, ':');

	if (!c || (size_t)(c - hp) >= hl) {
		fprintf(stderr, "# model: bad HOST:PORT '%s'\n", hp);
		exit(2);
	}
	memcpy(host, hp, c - hp);
	host[c - hp] = '\0';
	*port = (uint16_t)atoi(c + 1);
}

static void tcp_open(void)
{
	char host[128];
	uint16_t port;

	split_hp(tcp_hp, host, sizeof(host), &port);
	C.mc = memcached_create(NULL);
	if (!C.mc || memcached_server_add(C.mc, host, port) != MEMCACHED_SUCCESS)
		fail(NULL, "libmemcached setup for %s failed", tcp_hp);
	/* TCG guests are slow: 16 MiB values take seconds. */
	memcached_behavior_set(C.mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, 120000);
	memcached_behavior_set(C.mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, 30000);
	memcached_behavior_set(C.mc, MEMCACHED_BEHAVIOR_RCV_TIMEOUT, 120000000);
	memcached_behavior_set(C.mc, MEMCACHED_BEHAVIOR_SND_TIMEOUT, 120000000);
	memcached_behavior_set(C.mc, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1);
	/* A dead server must show, not be skipped. */
	memcached_behavior_set(C.mc, MEMCACHED_BEHAVIOR_SERVER_FAILURE_LIMIT, 0);
}

static void rdma_open(void)
{
	static const uint32_t wsz[] = { 0, 16384, 1 << 20 };
	static const uint32_t wn[] = { 0, 3, 2 };
	struct gb_connect_opts o;
	char host[128];
	int i, ret;

	gb_connect_opts_init(&o);
	split_hp(rdma_hp, host, sizeof(host), &o.port);
	o.transport = GB_TRANSPORT_RDMA;
	o.host = host;
	o.bind_host = bind_host;
	/* Different window geometries per client: one chunk or many. */
	o.window_size = wsz[C.id % 3];
	o.windows = wn[C.id % 3];
	o.timeout_ms = 120000;
	o.spin_us = -1;		/* the CPU is shared with the server */
	/* the listener may still be binding after the module load */
	for (i = 0; i < 20; i++) {
		ret = gb_connect(&o, &C.gb);
		if (ret != -GB_ECONNECT)
			break;
		usleep(500000);
	}
	if (ret)
		fail(NULL, "RDMA connect to %s: %s", rdma_hp, gb_strerror(ret));
}

static const char *mc_err(memcached_return_t rc)
{
	static char buf[200];
	const char *m = C.mc ? memcached_last_error_message(C.mc) : NULL;

	snprintf(buf, sizeof(buf), "%s%s%s", memcached_strerror(C.mc, rc),
		 m ? ": " : "", m ? m : "");
	return buf;
}

static const char *gb_err(int ret)
{
	static char buf[300];

	snprintf(buf, sizeof(buf), "%s (%s)", gb_strerror(ret),
		 gb_errmsg(C.gb));
	return buf;
}

/* Outcome of one transport call, transport independent. */
enum res {
	RS_OK, RS_MISS, RS_NOTSTORED, RS_TOOBIG, RS_NONNUM, RS_NOMEM, RS_ERR,
};

static const char *const res_name[] = {
	"ok", "miss", "not-stored", "too-large", "non-numeric", "out-of-memory",
	"error",
};

static char errbuf[320];

static enum res mc_res(memcached_return_t rc)
{
	const char *m;

	switch (rc) {
	case MEMCACHED_SUCCESS:
	case MEMCACHED_STORED:
	case MEMCACHED_DELETED:
		return RS_OK;
	case MEMCACHED_NOTFOUND:
		return RS_MISS;
	case MEMCACHED_NOTSTORED:
		return RS_NOTSTORED;
	case MEMCACHED_E2BIG:
		return RS_TOOBIG;
	default:
		break;
	}
	m = memcached_last_error_message(C.mc);
	snprintf(errbuf, sizeof(errbuf), "%s", mc_err(rc));
	if (m && strstr(m, "too large"))
		return RS_TOOBIG;
	if (m && strstr(m, "non-numeric"))
		return RS_NONNUM;
	if (rc == MEMCACHED_SERVER_MEMORY_ALLOCATION_FAILURE ||
	    (m && strstr(m, "out of memory")))
		return RS_NOMEM;
	return RS_ERR;
}

static enum res gb_res(int ret)
{
	switch (ret) {
	case 0:
		return RS_OK;
	case -GB_ENOTFOUND:
		return RS_MISS;
	case -GB_ENOTSTORED:
		return RS_NOTSTORED;
	case -GB_EVALLEN:
		snprintf(errbuf, sizeof(errbuf), "%s", gb_err(ret));
		return RS_TOOBIG;
	default:
		snprintf(errbuf, sizeof(errbuf), "%s", gb_err(ret));
		if (ret == -GB_ESERVER && strstr(gb_errmsg(C.gb), "out of memory"))
			return RS_NOMEM;
		return RS_ERR;
	}
}

static enum res t_set(int tr, const char *key, size_t klen, const void *v,
		      uint64_t len, uint32_t flags, int exptime)
{
	C.st->bytes_out += len;
	if (tr)
		return gb_res(gb_set(C.gb, key, klen, v, len, flags, exptime));
	return mc_res(memcached_set(C.mc, key, klen, v, len, exptime, flags));
}

static enum res t_del(int tr, const char *key, size_t klen)
{
	if (tr)
		return gb_res(gb_delete(C.gb, key, klen));
	return mc_res(memcached_delete(C.mc, key, klen, 0));
}

static enum res t_touch(int tr, const char *key, size_t klen, int exptime)
{
	if (tr)
		return gb_res(gb_touch(C.gb, key, klen, exptime));
	return mc_res(memcached_touch(C.mc, key, klen, exptime));
}

/*
 * GET into C.got (TCP: copied out of libmemcached's buffer). @views: RDMA
 * through gb_get()/gb_view_next() chunk by chunk, checking the chunk
 * offsets, instead of gb_get_copy().
 */
static enum res t_get(int tr, bool views, const char *key, size_t klen,
		      uint64_t *len, uint32_t *flags)
{
	memcached_return_t rc;
	struct gb_view v;
	size_t vl = 0;
	uint64_t off;
	char *p;
	int ret;

	*len = 0;
	*flags = 0;
	if (!tr) {
		p = memcached_get(C.mc, key, klen, &vl, flags, &rc);
		if (rc == MEMCACHED_SUCCESS) {
			if (vl > VMAX) {
				free(p);
				snprintf(errbuf, sizeof(errbuf),
					 "value of %zu bytes", vl);
				return RS_ERR;
			}
			if (vl)
				memcpy(C.got, p, vl);
			*len = vl;
			C.st->bytes_in += vl;
		}
		free(p);
		return mc_res(rc);
	}
	if (!views) {
		ret = gb_get_copy(C.gb, key, klen, C.got, VMAX, &vl, flags,
				  NULL);
		if (!ret) {
			*len = vl;
			C.st->bytes_in += vl;
		}
		return gb_res(ret);
	}
	ret = gb_get(C.gb, key, klen, &v);
	if (ret)
		return gb_res(ret);
	*flags = v.flags;
	*len = v.total;
	off = 0;
	for (;;) {
		if (v.offset != off || v.total != *len || v.offset + v.len > VMAX ||
		    v.offset + v.len > v.total) {
			snprintf(errbuf, sizeof(errbuf),
				 "chunk at %lu+%zu of %lu, expected offset %lu",
				 v.offset, v.len, v.total, off);
			gb_release(&v);
			return RS_ERR;
		}
		if (v.len)
			memcpy(C.got + off, v.data, v.len);
		off += v.len;
		if (gb_view_last(&v))
			break;
		ret = gb_view_next(&v);
		if (ret) {
			gb_release(&v);
			return gb_res(ret);
		}
	}
	gb_release(&v);
	C.st->bytes_in += *len;
	return RS_OK;
}

/* --- operations on owned keys -------------------------------------------- */

/* The random draws of one operation: all taken before it runs. */
struct draw {
	unsigned int op;
	unsigned int key;
	int tr;
	uint64_t r[6];
};

static uint64_t pick_size(uint64_t r, uint64_t s)
{
	unsigned int c = r % 1000;
	uint64_t n;

	if (c < 50)
		return 0;
	if (c < 400) {
		n = 1 + s % 256;
	} else if (c < 650) {
		n = 257 + s % 8192;
	} else if (c < 750) {
		/* page and ram_head boundaries */
		static const int d[] = { -2, -1, 0, 1, 2 };
		uint64_t b = (s >> 8) & 1 ? ram_head : 4096u << ((s >> 9) % 3);

		n = b + d[s % 5];
	} else if (c < 950) {
		n = 8192 + s % (256 << 10);
	} else {
		n = (256 << 10) + s % (768 << 10);
	}
	return n > vmax ? vmax : n;
}

static uint64_t pick_big(uint64_t r, uint64_t s)
{
	uint64_t n;

	if (r % 8 == 0)
		n = VMAX;
	else if (r % 8 == 1)
		n = VMAX - 1 - s % 4096;
	else
		n = (1 << 20) + s % (VMAX - (1 << 20));
	return n > vmax ? vmax : n;
}

static int pick_exptime(uint64_t r)
{
	switch (r % 6) {
	case 0:
	case 1:
		return 1;
	case 2:
		return 2;
	case 3:
		return 3;
	case 4:
		return 100;
	default:
		return 0;
	}
}

static void cur_start(struct draw *d, uint64_t len, uint64_t seed,
		      uint32_t flags, int exptime)
{
	memset(&C.cur, 0, sizeof(C.cur));
	C.cur.opno = C.opno;
	C.cur.op = d->op;
	C.cur.tr = d->tr;
	C.cur.len = len;
	C.cur.seed = seed;
	C.cur.flags = flags;
	C.cur.exptime = exptime;
	C.cur.tb = now_s_early();
}

static void set_exp(struct okey *k, int exptime)
{
	if (exptime) {
		k->exp_lo = C.cur.tb + exptime - slack;
		k->exp_hi = C.cur.ta + exptime + slack;
	} else {
		k->exp_lo = 0;
		k->exp_hi = 0;
	}
}

/* -e: a store failed for memory or SSD space; the model stays as it was. */
static bool nomem_ok(struct okey *k, enum res r)
{
	if (r != RS_NOMEM || !evict_ok)
		return false;
	C.st->nomem++;
	if (k)
		hist_add(k, "out of memory (allowed by -e)");
	return true;
}

/* A result the operation does not allow. */
static void __noreturn
bad(struct okey *k, enum res r, enum live l)
{
	static const char *const ln[] = { "dead", "alive", "maybe-expired" };

	hist_add(k, "%s", res_name[r]);
	fail(k, "result %s with the key %s%s%s", res_name[r], ln[l],
	     r >= RS_NOMEM || r == RS_TOOBIG ? ": " : "",
	     r >= RS_NOMEM || r == RS_TOOBIG ? errbuf : "");
}

static void do_get(struct okey *k, struct draw *d)
{
	uint64_t len;
	uint32_t flags;
	enum live l;
	enum res r;

	cur_start(d, 0, 0, 0, 0);
	r = t_get(d->tr, d->op == OP_GETV, k->name, k->klen, &len, &flags);
	C.cur.ta = now_s();
	l = k_live(k, C.cur.tb, C.cur.ta);
	C.cur.len = len;
	if (r == RS_OK) {
		if (l == DEAD)
			bad(k, r, l);
		hist_add(k, "hit %lu B%s", len,
			 l == MAYBE ? " (maybe expired)" : "");
		check_value(k, C.got, len, flags, "get");
		C.st->hits++;
	} else if (r == RS_MISS) {
		if (l == ALIVE)
			bad(k, r, l);
		if (k_live_strict(k, C.cur.tb, C.cur.ta) == ALIVE)
			C.st->evicted++;
		hist_add(k, "miss%s", l == MAYBE ? " (expired or evicted)" : "");
		k_absent(k);
		C.st->misses++;
	} else {
		bad(k, r, l);
	}
	if (l == MAYBE)
		C.st->maybes++;
}

/* SET-like: SET, SETX, SETNUM, ADD, REPLACE, BIG, HUGE. */
static void do_store(struct okey *k, struct draw *d)
{
	uint32_t flags = (uint32_t)d->r[3];
	uint64_t seed = d->r[2], len;
	char num[32];
	int exptime = 0, n = 0;
	const void *val = C.tmp;
	bool numeric = false;
	enum live l;
	enum res r;

	switch (d->op) {
	case OP_SETX:
		exptime = pick_exptime(d->r[4]);
		fallthrough;
	case OP_SET:
	case OP_ADD:
	case OP_REPLACE:
		len = pick_size(d->r[0], d->r[1]);
		if (k->big && big_pm && d->r[5] % 4 == 0)
			len = pick_big(d->r[0], d->r[1]);
		break;
	case OP_SETNUM:
		/* a counter: sometimes with leading blanks or at the limit */
		switch (d->r[0] % 4) {
		case 0:
			n = snprintf(num, sizeof(num), "%lu",
				     d->r[1] % 1000);
			break;
		case 1:
			n = snprintf(num, sizeof(num), "%lu", d->r[1]);
			break;
		case 2:
			n = snprintf(num, sizeof(num), "  %lu  ",
				     d->r[1] % 100000);
			break;
		default:
			n = snprintf(num, sizeof(num), "%lu",
				     UINT64_MAX - d->r[1] % 4);
			break;
		}
		len = n;
		val = num;
		numeric = true;
		break;
	case OP_BIG:
		len = pick_big(d->r[0], d->r[1]);
		break;
	default:	/* OP_HUGE: one byte too many */
		len = VMAX + 1;
		break;
	}
	if (!numeric && len <= VMAX)
		gen(C.tmp, seed, len);
	cur_start(d, len, numeric ? 0 : seed, flags, exptime);
	if (d->op == OP_ADD) {
		r = mc_res(memcached_add(C.mc, k->name, k->klen, val, len,
					 exptime, flags));
	} else if (d->op == OP_REPLACE) {
		r = mc_res(memcached_replace(C.mc, k->name, k->klen, val, len,
					     exptime, flags));
	} else if (d->op == OP_HUGE) {
		/* C.tmp has VMAX + 1 bytes; content does not matter */
		r = t_set(d->tr, k->name, k->klen, C.tmp, len, flags, 0);
	} else {
		r = t_set(d->tr, k->name, k->klen, val, len, flags, exptime);
	}
	C.cur.ta = now_s();
	l = k_live(k, C.cur.tb, C.cur.ta);
	if (nomem_ok(k, r))
		return;

	if (d->op == OP_HUGE) {
		/*
		 * Too large: refused, and a failed SET never leaves the old
		 * value behind (memcached does the same). libgoblin refuses
		 * it before sending: the old value stays.
		 */
		if (r != RS_TOOBIG)
			bad(k, r, l);
		hist_add(k, "too large: %.50s", errbuf);
		if (!d->tr)
			k_absent(k);
		return;
	}
	if (d->op == OP_ADD || d->op == OP_REPLACE) {
		bool add = d->op == OP_ADD;

		if (r == RS_NOTSTORED) {
			/* ADD: it was there; REPLACE: it was not */
			if (add ? l == DEAD : l == ALIVE)
				bad(k, r, l);
			hist_add(k, "not stored");
			if (!add)
				k_absent(k);
			return;
		}
		if (r != RS_OK || (add ? l == ALIVE : l == DEAD))
			bad(k, r, l);
	} else if (r != RS_OK) {
		bad(k, r, l);
	}
	hist_add(k, "stored");
	k_clear(k);
	k->present = true;
	k->flags = flags;
	set_exp(k, exptime);
	k_push(k, seed, len, numeric ? val : NULL, false);
}

static void do_concat(struct okey *k, struct draw *d)
{
	bool pre = d->op == OP_PREPEND;
	uint64_t seed = d->r[2], len;
	enum live l;
	enum res r;

	len = d->r[0] % 8 ? d->r[1] % 4097 : d->r[1] % (96 << 10);
	gen(C.tmp, seed, len);
	cur_start(d, len, seed, 0, 0);
	if (pre)
		r = mc_res(memcached_prepend(C.mc, k->name, k->klen,
					     (char *)C.tmp, len, 0, 0));
	else
		r = mc_res(memcached_append(C.mc, k->name, k->klen,
					    (char *)C.tmp, len, 0, 0));
	C.cur.ta = now_s();
	l = k_live(k, C.cur.tb, C.cur.ta);
	if (nomem_ok(k, r))
		return;
	switch (r) {
	case RS_OK:
		if (l == DEAD || k->len + len > VMAX)
			bad(k, r, l);
		hist_add(k, "stored, now %lu B", k->len + len);
		/* flags and exptime stay those of the old value */
		k_push(k, seed, len, NULL, pre);
		break;
	case RS_NOTSTORED:
		if (l == ALIVE)
			bad(k, r, l);
		hist_add(k, "not stored (absent)");
		k_absent(k);
		break;
	case RS_TOOBIG:
		if (l == DEAD || k->len + len <= VMAX)
			bad(k, r, l);
		hist_add(k, "too large");
		break;
	default:
		bad(k, r, l);
	}
}

/* The first bytes of a value, for messages. */
static const char *hexhead(const unsigned char *p, uint64_t len)
{
	static char buf[80];
	unsigned int i, o = 0;

	for (i = 0; i < len && i < 24; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "%02x", p[i]);
	snprintf(buf + o, sizeof(buf) - o, "%s", len > 24 ? "..." : "");
	return buf;
}

/*
 * The server's counter parse (memcached's safe_strtoull on the value):
 * blanks, an optional sign, digits, then a blank or the end. Returns false
 * for "non-numeric".
 */
static bool parse_counter(const unsigned char *p, uint64_t len, size_t klen,
			  uint64_t *out)
{
	bool neg = false, digits = false;
	uint64_t i = 0, v = 0;

	if (!len || len + klen + 59 > 512 * 1024)
		return false;
	while (i < len && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
		i++;
	if (i < len && (p[i] == '+' || p[i] == '-'))
		neg = p[i++] == '-';
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, p[i] - '0', &v))
			return false;
		digits = true;
	}
	if (!digits) {
		/*
		 * memcached: strtoull() skips the blanks of an all-blank value
		 * and the "\r\n" after it into whatever memory follows.
		 */
		if (memcached_ref && i == len)
			counter_unsure = true;
		return false;
	}
	/* memcached reads a C string: a NUL ends the number too */
	if (i < len && !(p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')) &&
	    !(memcached_ref && !p[i]))
		return false;
	if (neg)
		v = 0 - v;
	if ((int64_t)v < 0 && !neg && memcached_ref) {
		/*
		 * memcached looks for a '-' with strchr() on data that is not
		 * NUL-terminated: either answer is possible.
		 */
		counter_unsure = true;
	} else if ((int64_t)v < 0 && (neg || memchr(p, '-', len))) {
		return false;
	}
	*out = v;
	return true;
}

static void do_arith(struct okey *k, struct draw *d)
{
	bool decr = d->op == OP_DECR;
	uint32_t delta = d->r[0] % 3 ? d->r[1] % 1000 : (uint32_t)d->r[1];
	uint64_t got = 0, want = 0, old = 0;
	memcached_return_t rc;
	bool num = false;
	unsigned char lit[24];
	uint64_t nlen;
	enum live l;
	enum res r;
	int n;

	cur_start(d, delta, 0, 0, 0);
	if (decr)
		rc = memcached_decrement(C.mc, k->name, k->klen, delta, &got);
	else
		rc = memcached_increment(C.mc, k->name, k->klen, delta, &got);
	r = mc_res(rc);
	C.cur.ta = now_s();
	l = k_live(k, C.cur.tb, C.cur.ta);
	if (nomem_ok(k, r))
		return;
	counter_unsure = false;
	if (l != DEAD && k->len <= 512 * 1024) {
		k_render(k, C.exp);
		num = parse_counter(C.exp, k->len, k->klen, &old);
	}
	if (num)
		want = decr ? (old < delta ? 0 : old - delta) : old + delta;
	if (counter_unsure && !num && r == RS_OK) {
		/* -M: memcached read past the value; resynchronize */
		hist_add(k, "%lu (memcached read past the value)", got);
		memcached_delete(C.mc, k->name, k->klen, 0);
		k_absent(k);
		return;
	}
	switch (r) {
	case RS_OK:
		if (l == DEAD || !num) {
			hist_add(k, "%lu", got);
			fail(k, "%s gave %lu though the value is %s (%s)",
			     op_name[d->op], got, num ? "numeric" : "not numeric",
			     l == DEAD ? "absent" : hexhead(C.exp, k->len));
		}
		if (got != want) {
			hist_add(k, "%lu", got);
			fail(k, "%s %u of %lu gave %lu, want %lu",
			     op_name[d->op], delta, old, got, want);
		}
		hist_add(k, "%lu", got);
		/* memcached pads a shorter result with blanks */
		n = snprintf((char *)lit, sizeof(lit), "%lu", got);
		nlen = k->len > (uint64_t)n ? k->len : (uint64_t)n;
		memcpy(C.tmp, lit, n);
		memset(C.tmp + n, ' ', nlen - n);
		k_clear(k);
		k_push(k, 0, nlen, C.tmp, false);
		k->pad_unsure = memcached_ref && nlen > (uint64_t)n;
		break;
	case RS_MISS:
		if (l == ALIVE)
			bad(k, r, l);
		hist_add(k, "miss");
		k_absent(k);
		break;
	case RS_NONNUM:
		if (l == DEAD || (num && !counter_unsure)) {
			hist_add(k, "non-numeric");
			fail(k, "%s: non-numeric, but the model parses %lu from %s",
			     op_name[d->op], old,
			     l == DEAD ? "nothing" : hexhead(C.exp, k->len));
		}
		hist_add(k, "non-numeric");
		break;
	default:
		bad(k, r, l);
	}
}

static void do_del(struct okey *k, struct draw *d)
{
	enum live l;
	enum res r;

	cur_start(d, 0, 0, 0, 0);
	r = t_del(d->tr, k->name, k->klen);
	C.cur.ta = now_s();
	l = k_live(k, C.cur.tb, C.cur.ta);
	if ((r == RS_OK && l == DEAD) || (r == RS_MISS && l == ALIVE) ||
	    (r != RS_OK && r != RS_MISS))
		bad(k, r, l);
	hist_add(k, r == RS_OK ? "deleted" : "not found");
	k_absent(k);
}

static void do_touch(struct okey *k, struct draw *d)
{
	int exptime = pick_exptime(d->r[0]);
	enum live l;
	enum res r;

	cur_start(d, 0, 0, 0, exptime);
	r = t_touch(d->tr, k->name, k->klen, exptime);
	C.cur.ta = now_s();
	l = k_live(k, C.cur.tb, C.cur.ta);
	if (r == RS_OK) {
		if (l == DEAD)
			bad(k, r, l);
		hist_add(k, "touched");
		set_exp(k, exptime);
	} else if (r == RS_MISS) {
		if (l == ALIVE)
			bad(k, r, l);
		hist_add(k, "not found");
		k_absent(k);
	} else {
		bad(k, r, l);
	}
}

/* Multi-GET of distinct owned keys, pipelined on either transport. */
struct mg {
	struct okey *k[MGET_MAX];
	unsigned char *buf[MGET_MAX];
	uint64_t len[MGET_MAX], have[MGET_MAX];
	uint32_t flags[MGET_MAX];
	int status[MGET_MAX];	/* 0 pending, 1 hit, 2 miss, 3 error */
	char why[400];
};

static void mg_chunk(void *arg, size_t i, int status, const struct gb_view *v)
{
	struct mg *m = arg;

	if (m->status[i] && m->status[i] != 1) {
		snprintf(m->why, sizeof(m->why), "key %zu reported again", i);
		return;
	}
	if (status) {
		m->status[i] = status == -GB_ENOTFOUND ? 2 : 3;
		if (m->status[i] == 3)
			snprintf(m->why, sizeof(m->why), "key %zu: %s", i,
				 gb_err(status));
		return;
	}
	if (!m->buf[i]) {
		if (v->total > VMAX || v->offset) {
			m->status[i] = 3;
			snprintf(m->why, sizeof(m->why),
				 "key %zu: first chunk at %lu of %lu", i,
				 v->offset, v->total);
			return;
		}
		m->buf[i] = xmalloc(v->total);
		m->len[i] = v->total;
		m->flags[i] = v->flags;
		m->status[i] = 1;
	}
	if (v->offset != m->have[i] || v->total != m->len[i] ||
	    v->offset + v->len > v->total) {
		m->status[i] = 3;
		snprintf(m->why, sizeof(m->why),
			 "key %zu: chunk %lu+%zu of %lu, expected offset %lu",
			 i, v->offset, v->len, v->total, m->have[i]);
		return;
	}
	if (v->len)
		memcpy(m->buf[i] + v->offset, v->data, v->len);
	m->have[i] += v->len;
}

static void do_mget(struct draw *d)
{
	const char *keys[MGET_MAX];
	size_t klens[MGET_MAX], vl;
	memcached_result_st rbuf, *res;
	memcached_return_t rc;
	unsigned int n = 2 + d->r[0] % (MGET_MAX - 1), i, j;
	struct mg m;
	enum live l;
	int ret;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < n; i++) {
		struct okey *k = &C.keys[(d->key + i * (1 + d->r[1] % 7)) % nown];

		for (j = 0; j < i; j++)
			if (m.k[j] == k)
				break;
		if (j < i)
			k = NULL;
		m.k[i] = k;
		keys[i] = k ? k->name : NULL;
		klens[i] = k ? k->klen : 0;
	}
	/* compact the distinct keys */
	for (i = j = 0; i < n; i++)
		if (m.k[i]) {
			m.k[j] = m.k[i];
			keys[j] = keys[i];
			klens[j++] = klens[i];
		}
	n = j;
	cur_start(d, n, 0, 0, 0);
	if (d->tr) {
		ret = gb_get_many(C.gb, n, keys, klens, mg_chunk, &m);
		if (ret)
			fail(m.k[0], "gb_get_many: %s", gb_err(ret));
	} else {
		rc = memcached_mget(C.mc, keys, klens, n);
		if (rc != MEMCACHED_SUCCESS)
			fail(m.k[0], "memcached_mget: %s", mc_err(rc));
		/* on the stack: libmemcached frees results it allocated */
		res = memcached_result_create(C.mc, &rbuf);
		while (memcached_fetch_result(C.mc, res, &rc)) {
			const char *rk = memcached_result_key_value(res);
			size_t rkl = memcached_result_key_length(res);

			for (i = 0; i < n; i++)
				if (rkl == klens[i] && !memcmp(rk, keys[i], rkl))
					break;
			if (i == n || m.status[i]) {
				snprintf(m.why, sizeof(m.why),
					 "unexpected or repeated key '%.*s'",
					 (int)rkl, rk);
				break;
			}
			vl = memcached_result_length(res);
			m.buf[i] = xmalloc(vl);
			memcpy(m.buf[i], memcached_result_value(res), vl);
			m.len[i] = vl;
			m.have[i] = vl;
			m.flags[i] = memcached_result_flags(res);
			m.status[i] = 1;
		}
		memcached_result_free(res);
		if (!m.why[0] && rc != MEMCACHED_END && rc != MEMCACHED_SUCCESS &&
		    rc != MEMCACHED_NOTFOUND)
			snprintf(m.why, sizeof(m.why), "fetch: %s", mc_err(rc));
		for (i = 0; i < n; i++)
			if (!m.status[i])
				m.status[i] = 2;
	}
	C.cur.ta = now_s();
	if (m.why[0])
		fail(m.k[0], "multi-get of %u keys: %s", n, m.why);
	for (i = 0; i < n; i++) {
		struct okey *k = m.k[i];

		l = k_live(k, C.cur.tb, C.cur.ta);
		if (l == MAYBE)
			C.st->maybes++;
		if (m.status[i] == 1) {
			if (l == DEAD)
				bad(k, RS_OK, l);
			if (m.have[i] != m.len[i])
				fail(k, "multi-get: %lu of %lu bytes arrived",
				     m.have[i], m.len[i]);
			hist_add(k, "hit %lu B (key %u of %u)",
				 m.len[i], i, n);
			check_value(k, m.buf[i], m.len[i], m.flags[i],
				    "multi-get");
			C.st->hits++;
			C.st->bytes_in += m.len[i];
		} else if (m.status[i] == 2) {
			if (l == ALIVE)
				bad(k, RS_MISS, l);
			hist_add(k, "miss (key %u of %u)", i, n);
			k_absent(k);
			C.st->misses++;
		} else {
			fail(k, "multi-get: status %d", m.status[i]);
		}
		free(m.buf[i]);
	}
}

/* --- shared keys --------------------------------------------------------- */

static void skey(unsigned int i, char *buf, size_t *klen)
{
	*klen = snprintf(buf, 32, "model:shared:%u", i);
}

static uint64_t sseed(uint32_t key, uint32_t w, uint64_t seq)
{
	return splitmix(((uint64_t)key << 40) ^ ((uint64_t)w << 32) ^ seq ^
			0x5eedull << 48);
}

static uint32_t sflags(uint32_t w, uint64_t seq)
{
	return (uint32_t)splitmix(seq * 131 + w);
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void __noreturn __printf(2, 3)
sfail(unsigned int key, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail(NULL, "shared key model:shared:%u: %s", key, msg);
}

/* A shared-key hit must be a value some client wrote to this key. */
static void scheck(unsigned int key, const unsigned char *p, uint64_t len,
		   uint32_t flags)
{
	uint32_t w, crc, hlen;
	struct wlog *lg;
	uint64_t seq, issued;

	if (len < SHDR)
		sfail(key, "hit of %lu bytes, no room for a header", len);
	w = get32(p + 8);
	memcpy(&seq, p + 16, 8);
	hlen = get32(p + 24);
	crc = get32(p + 28);
	if (get32(p) != SMAGIC || get32(p + 4) != key || w >= nclients ||
	    hlen != len)
		sfail(key, "bad header: magic %#x key %u writer %u len %u of %lu B",
		      get32(p), get32(p + 4), w, hlen, len);
	if (crc32c(p + SHDR, len - SHDR) != crc)
		sfail(key, "body crc32c %08x, header says %08x (writer %u seq %lu, %lu B)",
		      crc32c(p + SHDR, len - SHDR), crc, w, seq, len);
	gen(C.exp, sseed(key, w, seq), len - SHDR);
	if (memcmp(p + SHDR, C.exp, len - SHDR))
		sfail(key, "body is not writer %u's seq %lu though its crc matches",
		      w, seq);
	if (flags != sflags(w, seq))
		sfail(key, "flags %#x, writer %u seq %lu wrote %#x", flags,
		      w, seq, sflags(w, seq));
	lg = &shm->log[w];
	issued = __atomic_load_n(&lg->issued, __ATOMIC_ACQUIRE);
	if (seq > issued || !seq)
		sfail(key, "writer %u seq %lu was never sent (issued %lu)",
		      w, seq, issued);
	if (issued - seq < LOGN / 2 &&
	    (lg->ent[seq % LOGN].seq != seq || lg->ent[seq % LOGN].key != key))
		sfail(key, "writer %u seq %lu wrote key %u, not this one",
		      w, seq, lg->ent[seq % LOGN].key);
}

static void do_shared(struct draw *d)
{
	unsigned int key = d->key % nshared;
	struct wlog *lg = &shm->log[C.id];
	char name[32];
	uint64_t len, seq;
	uint32_t flags;
	size_t klen;
	int exptime;
	enum res r;

	skey(key, name, &klen);
	memset(&C.cur, 0, sizeof(C.cur));
	C.cur.op = d->op;
	C.cur.tr = d->tr;
	switch (d->op) {
	case OP_SGET:
		r = t_get(d->tr, d->r[0] & 1, name, klen, &len, &flags);
		if (r == RS_OK) {
			scheck(key, C.got, len, flags);
			C.st->shared_hits++;
		} else if (r != RS_MISS) {
			sfail(key, "get: %s: %s", res_name[r], errbuf);
		}
		break;
	case OP_SSET:
		len = d->r[0] % 16 ? SHDR + d->r[1] % 16384 :
				     SHDR + d->r[1] % (512 << 10);
		if (len > vmax)
			len = vmax;
		seq = ++C.wseq;
		gen(C.tmp + SHDR, sseed(key, C.id, seq), len - SHDR);
		put32(C.tmp, SMAGIC);
		put32(C.tmp + 4, key);
		put32(C.tmp + 8, C.id);
		put32(C.tmp + 12, 0);
		memcpy(C.tmp + 16, &seq, 8);
		put32(C.tmp + 24, (uint32_t)len);
		put32(C.tmp + 28, crc32c(C.tmp + SHDR, len - SHDR));
		/* announce before sending: a reader may see it at once */
		lg->ent[seq % LOGN].seq = seq;
		lg->ent[seq % LOGN].key = key;
		__atomic_store_n(&lg->issued, seq, __ATOMIC_RELEASE);
		exptime = d->r[2] % 8 ? 0 : pick_exptime(d->r[3]);
		r = t_set(d->tr, name, klen, C.tmp, len, sflags(C.id, seq),
			  exptime);
		if (r != RS_OK && !nomem_ok(NULL, r))
			sfail(key, "set %lu B: %s: %s", len, res_name[r],
			      errbuf);
		break;
	case OP_SDEL:
		r = t_del(d->tr, name, klen);
		if (r != RS_OK && r != RS_MISS)
			sfail(key, "delete: %s: %s", res_name[r], errbuf);
		break;
	default:
		r = t_touch(d->tr, name, klen, pick_exptime(d->r[0]) ?: 100);
		if (r != RS_OK && r != RS_MISS)
			sfail(key, "touch: %s: %s", res_name[r], errbuf);
		break;
	}
}

/* --- the client loop ------------------------------------------------------- */

/* Operation weights (per mille); TCP-only ones fall back when TCP is off. */
static const struct {
	unsigned char op;
	unsigned short w;
} mix[] = {
	{ OP_GET, 230 }, { OP_GETV, 60 }, { OP_MGET, 40 }, { OP_SET, 170 },
	{ OP_SETX, 50 }, { OP_SETNUM, 30 }, { OP_ADD, 20 }, { OP_REPLACE, 20 },
	{ OP_APPEND, 40 }, { OP_PREPEND, 20 }, { OP_INCR, 35 },
	{ OP_DECR, 15 }, { OP_DEL, 50 }, { OP_TOUCH, 30 }, { OP_SGET, 100 },
	{ OP_SSET, 60 }, { OP_SDEL, 15 }, { OP_STOUCH, 10 },
};

static bool tcp_only(unsigned int op)
{
	return op == OP_ADD || op == OP_REPLACE || op == OP_APPEND ||
	       op == OP_PREPEND || op == OP_INCR || op == OP_DECR ||
	       op == OP_SETNUM;
}

static void draw_op(struct draw *d)
{
	uint64_t a = rnd(&C.rng), b = rnd(&C.rng);
	unsigned int i, p, acc = 0;

	for (i = 0; i < 6; i++)
		d->r[i] = rnd(&C.rng);
	d->key = (unsigned int)(b % 1000003);
	d->tr = (b >> 32) & 1;
	p = a % 1000;
	d->op = OP_GET;
	for (i = 0; i < ARRAY_SIZE(mix); i++) {
		acc += mix[i].w;
		if (p < acc) {
			d->op = mix[i].op;
			break;
		}
	}
	/* -w: a SET-heavy mix */
	if ((a >> 40) % 1000 < write_pm)
		d->op = (a >> 50) & 1 ? OP_SET : OP_SSET;
	/* rare big values: a SET of 1..16 MiB on one of the big keys */
	if ((a >> 20) % 1000 < big_pm)
		d->op = OP_BIG;
	else if ((a >> 30) % 4000 < huge)
		d->op = OP_HUGE;
	if (!tcp_hp)
		d->tr = 1;
	if (!rdma_hp)
		d->tr = 0;
	if (tcp_only(d->op))
		d->tr = 0;
}

static void run_op(struct draw *d)
{
	struct okey *k = &C.keys[d->key % nown];

	if (tcp_only(d->op) && !tcp_hp)
		return;
	if (d->op == OP_BIG || d->op == OP_HUGE) {
		/* the big keys are the first two */
		k = &C.keys[d->key % 2];
		if (!k->big)
			return;
	}
	C.st->ops[d->op]++;
	if (d->tr)
		C.st->rdma++;
	else
		C.st->tcp++;
	switch (d->op) {
	case OP_GET:
	case OP_GETV:
		do_get(k, d);
		break;
	case OP_MGET:
		do_mget(d);
		break;
	case OP_SET:
	case OP_SETX:
	case OP_SETNUM:
	case OP_ADD:
	case OP_REPLACE:
	case OP_BIG:
	case OP_HUGE:
		do_store(k, d);
		break;
	case OP_APPEND:
	case OP_PREPEND:
		do_concat(k, d);
		break;
	case OP_INCR:
	case OP_DECR:
		do_arith(k, d);
		break;
	case OP_DEL:
		do_del(k, d);
		break;
	case OP_TOUCH:
		do_touch(k, d);
		break;
	default:
		do_shared(d);
		break;
	}
}

/* After the run: every owned key read over each transport, then deleted. */
static void final_sweep(void)
{
	struct draw d;
	unsigned int i;
	int tr;

	memset(&d, 0, sizeof(d));
	for (i = 0; i < nown; i++) {
		for (tr = 0; tr < 2; tr++) {
			if ((tr && !rdma_hp) || (!tr && !tcp_hp))
				continue;
			d.op = OP_GET;
			d.tr = tr;
			C.opno++;
			do_get(&C.keys[i], &d);
		}
		d.op = OP_DEL;
		d.tr = rdma_hp ? 1 : 0;
		C.opno++;
		do_del(&C.keys[i], &d);
	}
}

static void key_names(unsigned int id)
{
	unsigned int i;
	size_t n;

	for (i = 0; i < nown; i++) {
		struct okey *k = &C.keys[i];

		n = snprintf(k->name, sizeof(k->name), "model:c%u:k%u", id, i);
		/* one key of the longest length the protocols allow */
		if (i == 2) {
			memset(k->name + n, 'L', GB_KEY_MAX - n);
			n = GB_KEY_MAX;
			k->name[n] = '\0';
		}
		k->klen = n;
		k->big = i < 2;
	}
}

/*
 * Before the clients start: delete every key they will use (an earlier
 * run against the same server may have left some), in the parent, which
 * closes its connection before forking.
 */
static void clean_slate(void)
{
	unsigned int i, id, tr = tcp_hp ? 0 : 1;
	char name[32];
	size_t klen;

	memset(&C, 0, sizeof(C));
	C.keys = calloc(nown, sizeof(*C.keys));
	if (!C.keys)
		exit(2);
	if (tcp_hp)
		tcp_open();
	else
		rdma_open();
	for (id = 0; id < nclients; id++) {
		key_names(id);
		for (i = 0; i < nown; i++)
			if (t_del(tr, C.keys[i].name, C.keys[i].klen) > RS_MISS)
				fail(NULL, "cleaning up: %s", errbuf);
	}
	for (i = 0; i < nshared; i++) {
		skey(i, name, &klen);
		if (t_del(tr, name, klen) > RS_MISS)
			fail(NULL, "cleaning up: %s", errbuf);
	}
	if (C.gb)
		gb_close(C.gb);
	if (C.mc)
		memcached_free(C.mc);
	free(C.keys);
	memset(&C, 0, sizeof(C));
}

/*
 * The run lasts @seconds from the moment the client is connected: under an
 * instrumented kernel an RDMA connect alone can take longer than a short
 * run, and a client that did nothing would prove nothing.
 */
static void client_main(unsigned int id, unsigned int seconds)
{
	double deadline;
	struct draw d;

	memset(&C, 0, sizeof(C));
	C.id = id;
	C.rng.s = splitmix(base_seed ^ (0x1000193ull * (id + 1)));
	C.st = &shm->st[id];
	C.exp = xmalloc(VMAX + 1);
	C.got = xmalloc(VMAX + 1);
	C.tmp = xmalloc(VMAX + 1);
	memset(C.tmp, 'x', VMAX + 1);
	C.keys = calloc(nown, sizeof(*C.keys));
	if (!C.keys)
		exit(2);
	key_names(id);
	if (tcp_hp)
		tcp_open();
	if (rdma_hp)
		rdma_open();
	deadline = mono() + seconds;
	while (mono() < deadline) {
		draw_op(&d);
		C.opno++;
		if (only == ~0u || only == id)
			run_op(&d);
	}
	final_sweep();
	C.st->done = 1;
	if (C.gb)
		gb_close(C.gb);
	if (C.mc)
		memcached_free(C.mc);
	exit(0);
}

static void print_help(void)
{
	fprintf(stderr,
		"usage: model [-T HOST:PORT] [-R HOST:PORT] [-b BIND] [-c CLIENTS]\n"
		"             [-t SECONDS] [-s SEED] [-k OWNKEYS] [-K SHAREDKEYS]\n"
		"             [-H RAM_HEAD] [-g BIG_PER_MILLE] [-j CLOCK_SLACK]\n"
		"             [-m MAXVALUE] [-e] [-M] [-o CLIENT] [-w SET_PER_MILLE] [-Z] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pid_t pids[MAXCLIENTS];
	uint64_t tot[OP_N] = { 0 }, hits = 0, misses = 0, maybes = 0;
	uint64_t in = 0, out = 0, sh = 0, ntcp = 0, nrdma = 0, ev = 0, nm = 0;
	unsigned int i, j, nok = 0, n = 0;
	double t0;
	int opt, status;
	size_t o = 0;

	base_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	while ((opt = getopt(argc, argv, "T:R:b:c:t:s:ek:K:H:g:j:m:Mo:vw:Z")) != -1) {
		switch (opt) {
		case 'T':
			tcp_hp = optarg;
			break;
		case 'R':
			rdma_hp = optarg;
			break;
		case 'b':
			bind_host = optarg;
			break;
		case 'c':
			nclients = atoi(optarg);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 's':
			base_seed = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			nown = atoi(optarg);
			break;
		case 'K':
			nshared = atoi(optarg);
			break;
		case 'H':
			ram_head = atoi(optarg);
			break;
		case 'g':
			big_pm = atoi(optarg);
			break;
		case 'm':
			vmax = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			only = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'Z':
			huge = 0;
			break;
		case 'e':
			evict_ok = 1;
			break;
		case 'w':
			write_pm = atoi(optarg);
			break;
		case 'j':
			slack = atoi(optarg);
			break;
		case 'M':
			memcached_ref = 1;
			slack = 2;
			huge = 0;
			break;
		default:
			print_help();
		}
	}
	if ((!tcp_hp && !rdma_hp) || !nclients || nclients > MAXCLIENTS ||
	    nown < 3 || !nshared || vmax < SHDR || vmax > VMAX)
		print_help();
	/* the command line to rerun, without -s and -o */
	for (i = 0; i < (unsigned int)argc && o < sizeof(cmdline) - 64; i++) {
		if ((!strcmp(argv[i], "-s") || !strcmp(argv[i], "-o")) &&
		    i + 1 < (unsigned int)argc) {
			i++;
			continue;
		}
		o += snprintf(cmdline + o, sizeof(cmdline) - o, "%s%s",
			      i ? " " : "", argv[i]);
	}
	crc_init();
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	fprintf(stderr,
		"# model: seed %lu, %u clients, %u s, tcp %s, rdma %s, %u own keys each, %u shared, ram_head %u\n",
		base_seed, nclients, seconds, tcp_hp ?: "off",
		rdma_hp ?: "off", nown, nshared, ram_head);
	fflush(stderr);
	clean_slate();
	t0 = mono();
	for (i = 0; i < nclients; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return 2;
		}
		if (!pids[i])
			client_main(i, seconds);
	}
	for (i = 0; i < nclients; i++) {
		struct cstats *s = &shm->st[i];
		uint64_t ops = 0;
		bool good;

		if (waitpid(pids[i], &status, 0) < 0)
			status = -1;
		for (j = 0; j < OP_N; j++) {
			ops += s->ops[j];
			tot[j] += s->ops[j];
		}
		hits += s->hits;
		misses += s->misses;
		maybes += s->maybes;
		in += s->bytes_in;
		out += s->bytes_out;
		sh += s->shared_hits;
		ev += s->evicted;
		nm += s->nomem;
		ntcp += s->tcp;
		nrdma += s->rdma;
		n++;
		/* a client meant to operate that did nothing fails */
		good = WIFEXITED(status) && !WEXITSTATUS(status) && s->done &&
		       (ops || (only != ~0u && only != i));
		if (good)
			nok++;
		printf("%s %u - client %u: %lu operations (%lu tcp, %lu rdma),",
		       good ? "ok" : "not ok", i + 1, i, ops, s->tcp, s->rdma);
		printf(" %lu hits checked, %lu misses\n",
		       s->hits + s->shared_hits, s->misses);
		if (!WIFEXITED(status))
			fprintf(stderr, "# model: client %u died (status %#x)\n",
				i, status);
	}
	fprintf(stderr, "# model: %.1f s, seed %lu; operations:",
		mono() - t0, base_seed);
	for (j = 0; j < OP_N; j++)
		fprintf(stderr, " %s %lu", op_name[j], tot[j]);
	fprintf(stderr, "\n# model: %lu owned hits byte-exact, %lu misses", hits,
		misses);
	fprintf(stderr, " (%lu with the key possibly expired), %lu shared hits verified;",
		maybes, sh);
	fprintf(stderr, " %lu tcp / %lu rdma operations;", ntcp, nrdma);
	fprintf(stderr, " %.1f MiB written, %.1f MiB read\n", out / 1048576.0,
		in / 1048576.0);
	if (evict_ok)
		fprintf(stderr,
			"# model: -e: %lu misses of values the server should have held, %lu stores refused for memory or space\n",
			ev, nm);
	printf("%s %u - model-checked workload, seed %lu\n",
	       nok == n ? "ok" : "not ok", n + 1, base_seed);
	printf("1..%u\n", n + 1);
	return nok == n ? 0 : 1;
}
