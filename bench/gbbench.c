// SPDX-License-Identifier: GPL-2.0
/*
 * gbbench - benchmark tool for Goblin Store (RDMA and memcache TCP) and
 * stock memcached.
 *
 *   gbbench [options] PHASE...      PHASE: load, latency, throughput
 *
 * load:       parallel streams store @count objects of exactly @size bytes.
 * latency:    one connection, one outstanding GET; @reps repetitions of
 *             @lat_warmup + @lat_reqs requests on keys drawn by SplitMix64
 *             from @seed (reset each repetition). Per request: TTFB,
 *             payload ready and completion, ns since submission.
 * throughput: one closed-loop stream (thread) per QP at a queue depth;
 *             counts value bytes of GETs completed inside the measurement
 *             window; sweeps QPs x depths, then repeats the first point
 *             reaching @sat_frac of the best for run-to-run spread.
 *             With --set-pct P, P% of the operations are SETs of corpus
 *             objects (their own bytes again), and the bytes of both
 *             count: P=100 measures SETs alone, P=10 a 90/10 mix.
 *
 * Exit status: 0 ok, 1 fatal error during a phase, 2 usage, 3 client not
 * available in this build, 4 server unreachable.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "gbbench.h"

#define EXIT_FATAL	1
#define EXIT_USAGE	2
#define EXIT_NOCLIENT	3
#define EXIT_UNREACH	4

static const struct gbb_backend *be;
static struct gbb_opts opt;
static uint32_t *expect_crc;	/* per object, with --validate */
static atomic_int abort_run;

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "gbbench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static void make_key(char *key, size_t *klen, uint32_t idx)
{
	int n = snprintf(key, GBB_KEY_LEN + 1, "%s-%llu-%08x", opt.prefix,
			 (unsigned long long)opt.size, idx);

	*klen = n > GBB_KEY_LEN ? GBB_KEY_LEN : (size_t)n;
}

/* Allocate and touch every page so no fault lands in a timed section. */
static void *alloc_faulted(size_t len)
{
	void *p;

	if (!len)
		len = 1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		die(EXIT_FATAL, "mmap %zu bytes: %s", len, strerror(errno));
	memset(p, 0x5a, len);
	return p;
}

static void pin_self(unsigned int idx)
{
	cpu_set_t set;

	if (!opt.ncpus)
		return;
	CPU_ZERO(&set);
	CPU_SET(opt.cpus[idx % opt.ncpus], &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "gbbench: cannot pin to CPU %d\n",
			opt.cpus[idx % opt.ncpus]);
}

static struct gbb_conn *open_conn(unsigned int depth)
{
	char err[256] = "unknown error";
	struct gbb_conn *c = be->open(&opt, depth, err, sizeof(err));

	if (!c && opt.servers)
		die(EXIT_UNREACH, "%s %s: %s", be->name, opt.servers, err);
	if (!c)
		die(EXIT_UNREACH, "%s %s:%s: %s", be->name, opt.addr, opt.port,
		    err);
	return c;
}

static FILE *out_file(const char *what)
{
	char path[1024];
	FILE *f;

	if (!opt.out)
		return NULL;
	snprintf(path, sizeof(path), "%s-%s.csv", opt.out, what);
	f = fopen(path, "w");
	if (!f)
		die(EXIT_FATAL, "%s: %s", path, strerror(errno));
	return f;
}

/* Check one completion; any deviation is fatal (exits). */
static void check_comp(const struct gbb_comp *cp, const char *key,
		       uint32_t idx, const void *buf, uint64_t *crc_ns)
{
	uint64_t t;
	uint32_t crc;

	if (cp->status != GBB_OK)
		die(EXIT_FATAL, "GET %s: %s", key, gbb_status_str(cp->status));
	if (cp->len != opt.size)
		die(EXIT_FATAL, "GET %s: length %llu, expected %llu", key,
		    (unsigned long long)cp->len,
		    (unsigned long long)opt.size);
	if (!opt.validate)
		return;
	if (cp->has_crc) {
		crc = cp->crc;
		*crc_ns = cp->crc_ns;
	} else {
		t = gbb_now();
		crc = gbb_crc32c(0, buf, cp->len);
		*crc_ns = gbb_now() - t;
	}
	if (crc != expect_crc[idx])
		die(EXIT_FATAL, "GET %s: CRC32C %08x, expected %08x", key, crc,
		    expect_crc[idx]);
}

/* ---------------------------------------------------------------- load */

struct load_worker {
	pthread_t th;
	unsigned int idx;
	unsigned int nthreads;
	int err;
};

static atomic_uint load_done;

static void *load_main(void *arg)
{
	struct load_worker *w = arg;
	char key[GBB_KEY_LEN + 1];
	struct gbb_conn *c;
	unsigned char *buf;
	size_t klen;
	uint32_t i;

	pin_self(w->idx);
	c = open_conn(1);
	buf = alloc_faulted(opt.size);
	for (i = w->idx; i < opt.count && !abort_run; i += w->nthreads) {
		gbb_fill(buf, opt.size, i);
		make_key(key, &klen, i);
		w->err = be->set(c, key, klen, buf, opt.size);
		if (w->err) {
			fprintf(stderr, "gbbench: SET %s: %s\n", key,
				gbb_status_str(w->err));
			abort_run = 1;
			break;
		}
		atomic_fetch_add(&load_done, 1);
	}
	be->close(c);
	munmap(buf, opt.size);
	return NULL;
}

static void progress(unsigned int done, unsigned int total, uint64_t t0)
{
	int i, fill = total ? (int)(40ull * done / total) : 40;
	double s = (gbb_now() - t0) / 1e9;

	fputc('\r', stderr);
	fputs("load [", stderr);
	for (i = 0; i < 40; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %u/%u %.1fs", done, total, s);
}

static void phase_load(void)
{
	unsigned int n = opt.load_qps ? opt.load_qps : 1, i;
	bool tty = isatty(STDERR_FILENO);
	struct load_worker *w;
	struct timespec tick = { 0, 100000000 };
	uint64_t t0, t1;
	FILE *f;

	if (n > opt.count)
		n = opt.count ? opt.count : 1;
	w = calloc(n, sizeof(*w));
	if (!w)
		die(EXIT_FATAL, "out of memory");
	t0 = gbb_now();
	for (i = 0; i < n; i++) {
		w[i].idx = i;
		w[i].nthreads = n;
		pthread_create(&w[i].th, NULL, load_main, &w[i]);
	}
	while (tty && atomic_load(&load_done) < opt.count && !abort_run) {
		progress(atomic_load(&load_done), opt.count, t0);
		nanosleep(&tick, NULL);
	}
	for (i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	t1 = gbb_now();
	if (tty) {
		progress(atomic_load(&load_done), opt.count, t0);
		fputc('\n', stderr);
	}
	for (i = 0; i < n; i++)
		if (w[i].err)
			die(EXIT_FATAL, "load failed");
	printf("load: %u objects x %llu B, %u streams, %.3f s, %.1f MB/s\n",
	       opt.count, (unsigned long long)opt.size, n, (t1 - t0) / 1e9,
	       opt.count * (double)opt.size / ((t1 - t0) / 1e3));
	f = out_file("load");
	if (f) {
		fprintf(f, "client,streams,objects,size,elapsed_ns\n");
		fprintf(f, "%s,%u,%u,%llu,%llu\n", be->name, n, opt.count,
			(unsigned long long)opt.size,
			(unsigned long long)(t1 - t0));
		fclose(f);
	}
	free(w);
}

/* ------------------------------------------------------------- latency */

static void print_pcts(const char *name, uint64_t *v, size_t n)
{
	static const double p[] = { 50, 90, 99, 99.9, 99.99, 100 };
	size_t i;

	gbb_sort_u64(v, n);
	printf("  %-10s", name);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		printf(" %10.1f", gbb_rank(v, n, p[i]) / 1e3);
	printf("\n");
}

static void write_cpu(FILE *f, const char *phase, unsigned int qps,
		      unsigned int depth, unsigned int run, uint64_t wall,
		      uint64_t bytes, const struct gbb_cpu *a,
		      const struct gbb_cpu *b)
{
	int i;

	fprintf(f, "%s,%u,%u,%u,%llu,%llu,%llu,%llu,%llu,%ld", phase, qps,
		depth, run, (unsigned long long)wall,
		(unsigned long long)bytes,
		(unsigned long long)(b->self - a->self),
		(unsigned long long)(b->watch - a->watch),
		(unsigned long long)(b->all - a->all), sysconf(_SC_NPROCESSORS_ONLN));
	for (i = 0; i < 8; i++)
		fprintf(f, ",%llu", (unsigned long long)(b->stat[i] - a->stat[i]));
	fprintf(f, ",%ld\n", a->hz);
}

static const char cpu_hdr[] =
	"self_ns,watch_ns,all_ns,ncpus,user,nice,system,idle,iowait,irq,softirq,steal,hz";

static void phase_latency(void)
{
	size_t n = (size_t)opt.reps * opt.lat_reqs, k = 0, i;
	uint64_t *ttfb, *pay, *done, *crc, *sorted, st, t0, t1;
	uint32_t *kidx, idx;
	char key[GBB_KEY_LEN + 1];
	struct gbb_cpu ca, cb;
	struct gbb_comp cp;
	struct gbb_conn *c;
	unsigned int r, j;
	unsigned char *buf;
	size_t klen;
	FILE *f;

	ttfb = alloc_faulted(n * sizeof(*ttfb));
	pay = alloc_faulted(n * sizeof(*pay));
	done = alloc_faulted(n * sizeof(*done));
	crc = alloc_faulted(n * sizeof(*crc));
	kidx = alloc_faulted(n * sizeof(*kidx));
	sorted = alloc_faulted(n * sizeof(*sorted));
	buf = alloc_faulted(opt.size);
	pin_self(0);
	/* poll for completions like perftest does (see --lat-spin-us) */
	opt.spin_us = opt.lat_spin_us;
	c = open_conn(1);
	opt.spin_us = 0;
	gbb_cpu_snap(&ca, opt.watch);
	t0 = gbb_now();
	for (r = 0; r < opt.reps; r++) {
		st = opt.seed;
		for (j = 0; j < opt.lat_warmup + opt.lat_reqs; j++) {
			uint64_t cns = 0;

			idx = gbb_pick(&st, opt.count);
			make_key(key, &klen, idx);
			if (be->get_submit(c, key, klen, buf, opt.size, idx))
				die(EXIT_FATAL, "GET %s: submit failed", key);
			if (be->get_wait(c, &cp))
				die(EXIT_FATAL, "GET %s: no completion", key);
			check_comp(&cp, key, idx, buf, &cns);
			if (j < opt.lat_warmup)
				continue;
			ttfb[k] = cp.t_ttfb - cp.t_sub;
			pay[k] = cp.t_payload - cp.t_sub;
			done[k] = cp.t_done - cp.t_sub;
			crc[k] = cns;
			kidx[k] = idx;
			k++;
		}
	}
	t1 = gbb_now();
	gbb_cpu_snap(&cb, opt.watch);
	be->close(c);

	/* connection closed: now the output may be written */
	f = out_file("latency");
	if (f) {
		fprintf(f, "rep,seq,key,ttfb_ns,payload_ns,complete_ns,crc_ns\n");
		for (i = 0; i < n; i++)
			fprintf(f, "%zu,%zu,%u,%llu,%llu,%llu,%llu\n",
				i / opt.lat_reqs, i % opt.lat_reqs, kidx[i],
				(unsigned long long)ttfb[i],
				(unsigned long long)pay[i],
				(unsigned long long)done[i],
				(unsigned long long)crc[i]);
		fclose(f);
	}
	f = out_file("latcpu");
	if (f) {
		fprintf(f, "phase,qps,depth,run,wall_ns,bytes,%s\n", cpu_hdr);
		write_cpu(f, "latency", 1, 1, 0, t1 - t0,
			  (uint64_t)opt.reps *
			  (opt.lat_warmup + opt.lat_reqs) * opt.size,
			  &ca, &cb);
		fclose(f);
	}
	printf("latency: %zu GETs of %llu B (%u reps x %u, warmup %u), us:\n",
	       n, (unsigned long long)opt.size, opt.reps, opt.lat_reqs,
	       opt.lat_warmup);
	printf("  %-10s %10s %10s %10s %10s %10s %10s\n", "", "p50", "p90",
	       "p99", "p99.9", "p99.99", "max");
	memcpy(sorted, ttfb, n * sizeof(*sorted));
	print_pcts("ttfb", sorted, n);
	memcpy(sorted, pay, n * sizeof(*sorted));
	print_pcts("payload", sorted, n);
	memcpy(sorted, done, n * sizeof(*sorted));
	print_pcts("complete", sorted, n);
	if (opt.validate) {
		memcpy(sorted, crc, n * sizeof(*sorted));
		print_pcts("crc32c", sorted, n);
	}
}

/* ---------------------------------------------------------- throughput */

static pthread_barrier_t tp_bar;
static uint64_t tp_win_start, tp_win_end;

struct tp_worker {
	pthread_t th;
	unsigned int idx;
	unsigned int qps;
	unsigned int depth;
	uint64_t bytes;
	uint64_t gets;
	uint64_t sets;
	uint64_t set_errs;	/* failed SETs (--keep-going) */
	uint64_t crc_ns;
};

/*
 * SETs of the throughput phase (--set-pct): stream w rewrites the corpus
 * objects w, w + qps, w + 2 * qps ... (--set-keys of them, default
 * TP_SET_BUFS, fewer for a small corpus) with the bytes the load phase
 * gave them, so a GET of any key still reads what it expects. The values
 * are filled once, before the window: a SET costs the client one copy (or
 * none), never a fill. More keys than TP_SET_BUFS (SETs only) share the
 * buffers: key j gets buffer j % TP_SET_BUFS, not its corpus bytes.
 */
#define TP_SET_BUFS	4
#define TP_SET_KEYS_MAX	65536

struct tp_sets {
	struct gbb_conn *c;
	unsigned char *buf[TP_SET_BUFS];
	uint32_t *idx;
	unsigned int n;
	unsigned int next;
};

static void tp_sets_init(struct tp_sets *s, const struct tp_worker *w)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->idx = calloc(opt.set_keys, sizeof(*s->idx));
	if (!s->idx)
		die(EXIT_FATAL, "out of memory");
	for (i = w->idx; i < opt.count && s->n < opt.set_keys; i += w->qps) {
		s->idx[s->n] = i;
		if (s->n < TP_SET_BUFS) {
			s->buf[s->n] = alloc_faulted(opt.size);
			gbb_fill(s->buf[s->n], opt.size, i);
		}
		s->n++;
	}
	/* a stream beyond the corpus rewrites object 0 */
	if (!s->n) {
		s->buf[0] = alloc_faulted(opt.size);
		gbb_fill(s->buf[0], opt.size, 0);
		s->n = 1;
	}
	s->c = open_conn(1);
}

static void tp_sets_fini(struct tp_sets *s)
{
	unsigned int i;

	be->close(s->c);
	for (i = 0; i < s->n && i < TP_SET_BUFS; i++)
		munmap(s->buf[i], opt.size);
	free(s->idx);
}

/* One synchronous SET; counted when it completed inside the window. */
static void tp_set_one(struct tp_sets *s, struct tp_worker *w)
{
	unsigned int j = s->next++ % s->n;
	char key[GBB_KEY_LEN + 1];
	uint64_t t;
	size_t klen;
	int err;

	make_key(key, &klen, s->idx[j]);
	err = be->set(s->c, key, klen, s->buf[j % TP_SET_BUFS], opt.size);
	/* a refusal leaves the connection usable, a broken one does not */
	if (err && (!opt.keep_going || err == GBB_IO))
		die(EXIT_FATAL, "SET %s: %s", key, gbb_status_str(err));
	t = gbb_now();
	if (err) {
		if (t >= tp_win_start && t < tp_win_end)
			w->set_errs++;
		return;
	}
	if (t >= tp_win_start && t < tp_win_end) {
		w->bytes += opt.size;
		w->sets++;
	}
}

static void *tp_main(void *arg)
{
	struct tp_worker *w = arg;
	unsigned int outstanding = 0, nfree, i;
	char key[GBB_KEY_LEN + 1];
	unsigned char **bufs;
	unsigned int *freel;
	struct gbb_conn *c = NULL;
	struct tp_sets sets;
	struct gbb_comp cp;
	uint64_t st, now, tag;
	uint32_t *slot_idx;
	size_t klen;

	pin_self(w->idx);
	st = opt.seed ^ (0x9e3779b97f4a7c15ull * (w->idx + 1));
	if (opt.set_pct)
		tp_sets_init(&sets, w);
	if (opt.set_pct == 100) {
		/* SETs only: one synchronous SET in flight per stream */
		pthread_barrier_wait(&tp_bar);	/* connected */
		pthread_barrier_wait(&tp_bar);	/* window times set */
		while (gbb_now() < tp_win_end && !abort_run)
			tp_set_one(&sets, w);
		pthread_barrier_wait(&tp_bar);
		tp_sets_fini(&sets);
		return NULL;
	}
	bufs = calloc(w->depth, sizeof(*bufs));
	freel = calloc(w->depth, sizeof(*freel));
	slot_idx = calloc(w->depth, sizeof(*slot_idx));
	if (!bufs || !freel || !slot_idx)
		die(EXIT_FATAL, "out of memory");
	for (i = 0; i < w->depth; i++) {
		bufs[i] = alloc_faulted(opt.size);
		freel[i] = i;
	}
	nfree = w->depth;
	c = open_conn(w->depth);
	pthread_barrier_wait(&tp_bar);	/* connected */
	pthread_barrier_wait(&tp_bar);	/* window times set */
	for (;;) {
		now = gbb_now();
		while (nfree && now < tp_win_end && !abort_run) {
			/* mixed: this op is a SET on the stream's SET connection */
			if (opt.set_pct && gbb_pick(&st, 100) < opt.set_pct) {
				tp_set_one(&sets, w);
				now = gbb_now();
				continue;
			}
			tag = freel[--nfree];
			slot_idx[tag] = gbb_pick(&st, opt.count);
			make_key(key, &klen, slot_idx[tag]);
			if (be->get_submit(c, key, klen, bufs[tag], opt.size,
					   tag))
				die(EXIT_FATAL, "GET %s: submit failed", key);
			outstanding++;
		}
		if (!outstanding)
			break;
		if (be->get_wait(c, &cp))
			die(EXIT_FATAL, "GET: no completion");
		outstanding--;
		if (cp.tag >= w->depth)
			die(EXIT_FATAL, "completion with unknown tag");
		tag = cp.tag;
		if (cp.status != GBB_OK || cp.len != opt.size || opt.validate) {
			uint64_t cns = 0;

			make_key(key, &klen, slot_idx[tag]);
			check_comp(&cp, key, slot_idx[tag], bufs[tag], &cns);
			if (cp.t_done >= tp_win_start &&
			    cp.t_done < tp_win_end)
				w->crc_ns += cns;
		}
		freel[nfree++] = tag;
		if (cp.t_done >= tp_win_start && cp.t_done < tp_win_end) {
			w->bytes += cp.len;
			w->gets++;
		}
	}
	/* stay alive until the end-of-window CPU snapshot is taken */
	pthread_barrier_wait(&tp_bar);
	be->close(c);
	if (opt.set_pct)
		tp_sets_fini(&sets);
	for (i = 0; i < w->depth; i++)
		munmap(bufs[i], opt.size);
	free(bufs);
	free(freel);
	free(slot_idx);
	return NULL;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts;
	uint64_t now;

	while ((now = gbb_now()) < t) {
		ts.tv_sec = (t - now) / 1000000000ull;
		ts.tv_nsec = (t - now) % 1000000000ull;
		nanosleep(&ts, NULL);
	}
}

static double tp_run(FILE *f, const char *kind, unsigned int qps,
		     unsigned int depth, unsigned int run)
{
	uint64_t bytes = 0, gets = 0, sets = 0, set_errs = 0, crc_ns = 0, win;
	struct tp_worker *w = calloc(qps, sizeof(*w));
	struct gbb_cpu ca, cb;
	unsigned int i;
	double gbps;

	if (!w)
		die(EXIT_FATAL, "out of memory");
	pthread_barrier_init(&tp_bar, NULL, qps + 1);
	for (i = 0; i < qps; i++) {
		w[i].idx = i;
		w[i].qps = qps;
		w[i].depth = depth;
		pthread_create(&w[i].th, NULL, tp_main, &w[i]);
	}
	pthread_barrier_wait(&tp_bar);
	tp_win_start = gbb_now() + (uint64_t)(opt.warmup_s * 1e9);
	tp_win_end = tp_win_start + (uint64_t)(opt.measure_s * 1e9);
	pthread_barrier_wait(&tp_bar);
	sleep_until(tp_win_start);
	gbb_cpu_snap(&ca, opt.watch);
	sleep_until(tp_win_end);
	gbb_cpu_snap(&cb, opt.watch);
	pthread_barrier_wait(&tp_bar);
	for (i = 0; i < qps; i++) {
		pthread_join(w[i].th, NULL);
		bytes += w[i].bytes;
		gets += w[i].gets;
		sets += w[i].sets;
		set_errs += w[i].set_errs;
		crc_ns += w[i].crc_ns;
	}
	pthread_barrier_destroy(&tp_bar);
	win = tp_win_end - tp_win_start;
	gbps = bytes * 8.0 / win;
	printf("  %-7s qps %2u depth %3u run %u: %8.3f Gbit/s %10.0f GET/s",
	       kind, qps, depth, run, gbps, gets / (win / 1e9));
	if (opt.set_pct)
		printf(" %10.0f SET/s", sets / (win / 1e9));
	if (opt.keep_going)
		printf(" %llu SETs failed", (unsigned long long)set_errs);
	if (!opt.validate)
		printf("\n");
	if (opt.validate)
		printf(" crc32c %.1f%% of client time\n",
		       cb.self > ca.self ?
		       100.0 * crc_ns / (cb.self - ca.self) : 0.0);
	if (f) {
		fprintf(f, "%s,%s,%llu,%llu,%llu,%u,%.6f,%llu,", kind,
			be->name, (unsigned long long)opt.size,
			(unsigned long long)gets, (unsigned long long)sets,
			opt.set_pct, gbps, (unsigned long long)crc_ns);
		write_cpu(f, "throughput", qps, depth, run, win, bytes, &ca,
			  &cb);
		fflush(f);
	}
	free(w);
	return gbps;
}

static void phase_throughput(void)
{
	double res[GBB_MAX_LIST][GBB_MAX_LIST], best = 0, *conf, mean, sd;
	unsigned int i, j, si = 0, sj = 0, run = 0;
	FILE *f = out_file("throughput");
	bool found = false;

	if (f)
		fprintf(f,
			"kind,client,size,gets,sets,set_pct,gbit_s,crc_ns,phase,qps,depth,run,wall_ns,bytes,%s\n",
			cpu_hdr);
	printf("throughput: %llu B values, %u%% SETs, warmup %.1f s, window %.1f s\n",
	       (unsigned long long)opt.size, opt.set_pct, opt.warmup_s,
	       opt.measure_s);
	if (opt.nqps * opt.ndepth > 1) {
		for (i = 0; i < opt.nqps; i++)
			for (j = 0; j < opt.ndepth; j++) {
				res[i][j] = tp_run(f, "sweep", opt.qps[i],
						   opt.depth[j], run++);
				if (res[i][j] > best)
					best = res[i][j];
			}
		/* first point, in sweep order, within sat_frac of the best */
		for (i = 0; i < opt.nqps && !found; i++)
			for (j = 0; j < opt.ndepth && !found; j++)
				if (res[i][j] >= opt.sat_frac * best) {
					si = i;
					sj = j;
					found = true;
				}
	}
	if (!opt.confirm) {
		if (f)
			fclose(f);
		return;
	}
	conf = calloc(opt.confirm, sizeof(*conf));
	if (!conf)
		die(EXIT_FATAL, "out of memory");
	for (i = 0; i < opt.confirm; i++)
		conf[i] = tp_run(f, "confirm", opt.qps[si], opt.depth[sj],
				 run++);
	gbb_mean_sd(conf, opt.confirm, &mean, &sd);
	printf("saturation: qps %u depth %u: mean %.3f Gbit/s, stddev %.3f (%u runs)\n",
	       opt.qps[si], opt.depth[sj], mean, sd, opt.confirm);
	free(conf);
	if (f)
		fclose(f);
}

/* ------------------------------------------------------------- options */

static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		die(EXIT_USAGE, "bad size '%s'", s);
	switch (*end) {
	case 'k': case 'K':
		v <<= 10;
		end++;
		break;
	case 'm': case 'M':
		v <<= 20;
		end++;
		break;
	case 'g': case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? 1 : 0;
	if (*end == 'B')
		end++;
	if (*end)
		die(EXIT_USAGE, "bad size '%s'", s);
	return v;
}

static unsigned int parse_uint(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > 0x7fffffff)
		die(EXIT_USAGE, "bad %s '%s'", what, s);
	return (unsigned int)v;
}

/* "1,2,4-8" into @v (ranges expand); returns the count. */
static unsigned int parse_list(const char *s, unsigned int *v, int *iv,
			       unsigned int max, const char *what)
{
	char *dup = strdup(s), *tok, *save = NULL, *dash;
	unsigned int n = 0, a, b, x;

	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash)
			*dash = 0;
		a = parse_uint(tok, what);
		b = dash ? parse_uint(dash + 1, what) : a;
		if (b < a)
			die(EXIT_USAGE, "bad %s range '%s'", what, s);
		for (x = a; x <= b; x++) {
			if (n == max)
				die(EXIT_USAGE, "too many %s", what);
			if (v)
				v[n] = x;
			else
				iv[n] = (int)x;
			n++;
		}
	}
	free(dup);
	if (!n)
		die(EXIT_USAGE, "empty %s list", what);
	return n;
}

static const char usage_text[] =
	"usage: gbbench [options] PHASE...   (PHASE: load latency throughput)\n"
	"  -a, --addr ADDR         server address (default 127.0.0.1)\n"
	"  -p, --port PORT         server port (default 11211)\n"
	"  -t, --transport T       rdma or tcp (memcache text) (default tcp)\n"
	"      --servers LIST      a libgoblin server set instead of -a/-p/-t:\n"
	"                          [tcp|rdma://]HOST[:PORT][/WEIGHT][=RING_NAME],...\n"
	"                          keys placed with ketama (Documentation/fleet.rst)\n"
	"      --client C          auto, lib (libgoblin) or builtin (tcp only)\n"
	"  -n, --count N           objects in the corpus (default 256)\n"
	"  -s, --size BYTES        object size, K/M suffixes (default 256K)\n"
	"  -q, --qps LIST          throughput QPs, e.g. 1,2,4,8 (default 1)\n"
	"  -d, --depth LIST        queue depth per QP, e.g. 1,4,16 (default 1)\n"
	"      --load-qps N        parallel streams for load (default 2)\n"
	"  -w, --warmup SEC        throughput warmup (default 1)\n"
	"  -m, --measure SEC       throughput window (default 3)\n"
	"      --lat-warmup N      latency warmup GETs per rep (default 100)\n"
	"      --lat-reqs N        latency measured GETs per rep (default 1000)\n"
	"  -r, --reps N            latency repetitions (default 3)\n"
	"      --confirm N         confirmation runs at saturation (default 3)\n"
	"      --sat-frac F        saturation threshold vs best (default 0.95)\n"
	"      --seed N            selector seed (default 1)\n"
	"  -c, --cpus LIST         pin stream i to CPU LIST[i % n]\n"
	"      --set-pct P         throughput: P% of the operations are SETs\n"
	"                          (0..100, default 0; 100 = SETs only, one in\n"
	"                          flight per QP; otherwise each QP has a SET\n"
	"                          connection beside its GETs)\n"
	"      --set-keys N        throughput: corpus objects each QP's SETs\n"
	"                          rewrite in turn (default 4; more only with\n"
	"                          --set-pct 100: they share 4 buffers)\n"
	"      --keep-going        a SET the server refuses is counted (SETs\n"
	"                          failed, in the window), not fatal\n"
	"      --validate          CRC32C every payload (cost reported apart)\n"
	"      --lat-spin-us N     latency phase, RDMA: busy-poll the CQ up to\n"
	"                          N us before sleeping (default 1000000, like\n"
	"                          perftest; 0 = libgoblin default, -1 = never)\n"
	"      --prefix P          key prefix (default gbb)\n"
	"  -o, --out PREFIX        write PREFIX-<phase>.csv\n"
	"      --watch LIST        comm prefixes counted as server CPU\n"
	"  -h, --help\n";

static void print_usage(FILE *f)
{
	fputs(usage_text, f);
}

enum {
	OPT_CLIENT = 256, OPT_LOADQPS, OPT_LATW, OPT_LATR, OPT_CONFIRM,
	OPT_SAT, OPT_SEED, OPT_VALIDATE, OPT_PREFIX, OPT_WATCH, OPT_LATSPIN,
	OPT_SERVERS, OPT_SETPCT, OPT_KEEPGOING, OPT_SETKEYS,
};

static const struct option longopts[] = {
	{ "addr", required_argument, NULL, 'a' },
	{ "port", required_argument, NULL, 'p' },
	{ "transport", required_argument, NULL, 't' },
	{ "servers", required_argument, NULL, OPT_SERVERS },
	{ "client", required_argument, NULL, OPT_CLIENT },
	{ "count", required_argument, NULL, 'n' },
	{ "size", required_argument, NULL, 's' },
	{ "qps", required_argument, NULL, 'q' },
	{ "depth", required_argument, NULL, 'd' },
	{ "load-qps", required_argument, NULL, OPT_LOADQPS },
	{ "warmup", required_argument, NULL, 'w' },
	{ "measure", required_argument, NULL, 'm' },
	{ "lat-warmup", required_argument, NULL, OPT_LATW },
	{ "lat-reqs", required_argument, NULL, OPT_LATR },
	{ "reps", required_argument, NULL, 'r' },
	{ "confirm", required_argument, NULL, OPT_CONFIRM },
	{ "sat-frac", required_argument, NULL, OPT_SAT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "cpus", required_argument, NULL, 'c' },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ "keep-going", no_argument, NULL, OPT_KEEPGOING },
	{ "set-keys", required_argument, NULL, OPT_SETKEYS },
	{ "set-pct", required_argument, NULL, OPT_SETPCT },
	{ "lat-spin-us", required_argument, NULL, OPT_LATSPIN },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "out", required_argument, NULL, 'o' },
	{ "watch", required_argument, NULL, OPT_WATCH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static double parse_secs(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 3600)
		die(EXIT_USAGE, "bad duration '%s'", s);
	return v;
}

static void parse_opts(int argc, char **argv)
{
	int ch;

	opt.addr = "127.0.0.1";
	opt.port = "11211";
	opt.lat_spin_us = 1000000;
	opt.client = "auto";
	opt.count = 256;
	opt.size = 256 << 10;
	opt.qps[0] = 1;
	opt.nqps = 1;
	opt.depth[0] = 1;
	opt.ndepth = 1;
	opt.load_qps = 2;
	opt.warmup_s = 1;
	opt.measure_s = 3;
	opt.lat_warmup = 100;
	opt.lat_reqs = 1000;
	opt.reps = 3;
	opt.confirm = 3;
	opt.set_keys = TP_SET_BUFS;
	opt.sat_frac = 0.95;
	opt.seed = 1;
	opt.prefix = "gbb";

	while ((ch = getopt_long(argc, argv, "a:p:t:n:s:q:d:w:m:r:c:o:h",
				 longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "rdma"))
				opt.transport = GBB_RDMA;
			else if (!strcmp(optarg, "tcp"))
				opt.transport = GBB_TCP;
			else
				die(EXIT_USAGE, "transport: rdma or tcp");
			break;
		case OPT_CLIENT:
			opt.client = optarg;
			break;
		case OPT_SERVERS:
			opt.servers = optarg;
			break;
		case 'n':
			opt.count = parse_uint(optarg, "count");
			break;
		case 's':
			opt.size = parse_size(optarg);
			break;
		case 'q':
			opt.nqps = parse_list(optarg, opt.qps, NULL,
					      GBB_MAX_LIST, "qps");
			break;
		case 'd':
			opt.ndepth = parse_list(optarg, opt.depth, NULL,
						GBB_MAX_LIST, "depth");
			break;
		case OPT_LOADQPS:
			opt.load_qps = parse_uint(optarg, "load-qps");
			break;
		case 'w':
			opt.warmup_s = parse_secs(optarg);
			break;
		case 'm':
			opt.measure_s = parse_secs(optarg);
			break;
		case OPT_LATW:
			opt.lat_warmup = parse_uint(optarg, "lat-warmup");
			break;
		case OPT_LATR:
			opt.lat_reqs = parse_uint(optarg, "lat-reqs");
			break;
		case 'r':
			opt.reps = parse_uint(optarg, "reps");
			break;
		case OPT_CONFIRM:
			opt.confirm = parse_uint(optarg, "confirm");
			break;
		case OPT_SAT:
			opt.sat_frac = strtod(optarg, NULL);
			break;
		case OPT_SEED:
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			opt.ncpus = parse_list(optarg, NULL, opt.cpus, 64,
					       "cpus");
			break;
		case OPT_VALIDATE:
			opt.validate = true;
			break;
		case OPT_KEEPGOING:
			opt.keep_going = true;
			break;
		case OPT_SETKEYS:
			opt.set_keys = parse_uint(optarg, "set-keys");
			if (!opt.set_keys || opt.set_keys > TP_SET_KEYS_MAX)
				die(EXIT_USAGE, "set-keys must be in 1..%d",
				    TP_SET_KEYS_MAX);
			break;
		case OPT_SETPCT:
			opt.set_pct = parse_uint(optarg, "set-pct");
			if (opt.set_pct > 100)
				die(EXIT_USAGE, "set-pct must be in 0..100");
			break;
		case OPT_LATSPIN:
			opt.lat_spin_us = strcmp(optarg, "-1") ?
				(int)parse_uint(optarg, "lat-spin-us") : -1;
			break;
		case OPT_PREFIX:
			opt.prefix = optarg;
			break;
		case 'o':
			opt.out = optarg;
			break;
		case OPT_WATCH:
			opt.watch = optarg;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			print_usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (!opt.count || !opt.size || opt.size > (1ull << 30))
		die(EXIT_USAGE, "count must be > 0 and size in 1..1G");
	if (!opt.reps || !opt.lat_reqs)
		die(EXIT_USAGE, "reps and lat-reqs must be > 0");
	for (ch = 0; ch < (int)opt.nqps; ch++)
		if (!opt.qps[ch] || opt.qps[ch] > 64)
			die(EXIT_USAGE, "qps must be in 1..64");
	for (ch = 0; ch < (int)opt.ndepth; ch++)
		if (!opt.depth[ch] || opt.depth[ch] > 1024)
			die(EXIT_USAGE, "depth must be in 1..1024");
}

static void pick_backend(void)
{
	bool lib = !strcmp(opt.client, "lib");
	bool builtin = !strcmp(opt.client, "builtin");

	if (!lib && !builtin && strcmp(opt.client, "auto"))
		die(EXIT_USAGE, "client: auto, lib or builtin");
	if (builtin && opt.transport == GBB_RDMA)
		die(EXIT_USAGE, "the built-in client only speaks tcp");
	if (builtin && opt.servers)
		die(EXIT_USAGE, "server sets need the libgoblin client");
	if (!builtin && gbb_be_libgoblin) {
		be = gbb_be_libgoblin;
		return;
	}
	if (lib || opt.transport == GBB_RDMA || opt.servers)
		die(EXIT_NOCLIENT, "libgoblin client not available: %s",
		    gbb_libgoblin_why);
	be = &gbb_be_mctcp;
}

static void print_params(int argc, char **argv)
{
	int i;

	printf("gbbench:");
	for (i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n"
	       "params: client=%s transport=%s addr=%s port=%s count=%u size=%llu seed=%llu validate=%d lat_spin_us=%d\n",
	       be->name, opt.transport == GBB_RDMA ? "rdma" : "tcp",
	       opt.addr, opt.port, opt.count, (unsigned long long)opt.size,
	       (unsigned long long)opt.seed, opt.validate, opt.lat_spin_us);
	if (opt.servers)
		printf("fleet: servers=%s\n", opt.servers);
}

int main(int argc, char **argv)
{
	unsigned char *buf;
	uint32_t i;
	int p;

	parse_opts(argc, argv);
	if (opt.set_keys > TP_SET_BUFS && opt.set_pct != 100)
		die(EXIT_USAGE, "--set-keys above %d needs --set-pct 100",
		    TP_SET_BUFS);
	if (optind >= argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	for (p = optind; p < argc; p++)
		if (strcmp(argv[p], "load") && strcmp(argv[p], "latency") &&
		    strcmp(argv[p], "throughput"))
			die(EXIT_USAGE, "unknown phase '%s'", argv[p]);
	pick_backend();
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_params(argc, argv);
	if (opt.validate) {
		expect_crc = calloc(opt.count, sizeof(*expect_crc));
		buf = malloc(opt.size);
		if (!expect_crc || !buf)
			die(EXIT_FATAL, "out of memory");
		for (i = 0; i < opt.count; i++) {
			gbb_fill(buf, opt.size, i);
			expect_crc[i] = gbb_crc32c(0, buf, opt.size);
		}
		free(buf);
	}
	for (p = optind; p < argc; p++) {
		if (!strcmp(argv[p], "load"))
			phase_load();
		else if (!strcmp(argv[p], "latency"))
			phase_latency();
		else
			phase_throughput();
	}
	return 0;
}
