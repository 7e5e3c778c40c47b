// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of libgoblin server sets (goblin/fleet.h) against live
 * servers: a Goblin Store plus stock memcached instances this program
 * starts itself. TAP on stdout.
 *
 *   fleettest -g HOST:PORT [-r HOST:PORT] [-b BIND] [-c GOBLINCTL]
 *             [-N NUTCRACKER] [-p PORT] [-n KEYS] [-k STORED] [-d DIR]
 *
 * -g is the memcache TCP address of the Goblin server (libmemcached and
 * twemproxy reach it there), -r its RDMA address: when given, the fleet
 * reaches Goblin over RDMA under the ring name of its TCP address, so the
 * placement compared is that of a mixed fleet. -b is the local address
 * RDMA connections start from, -c the goblinctl used to drop and restore
 * the RDMA listener, -N a twemproxy (nutcracker) binary, -p the first of
 * the ports for the memcached instances (and twemproxy), -n the number of
 * keys whose placement is compared with libmemcached's (default 10000),
 * -k how many of them are stored and read through the servers (default
 * 1000; round trips are slow under TCG), -d a scratch directory.
 *
 * The memcache servers are: Goblin (weight 2), memcached on p (1), p+1
 * (3), p+2 (1).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include <libmemcached/memcached.h>

#include <goblin/client.h>
#include <goblin/fleet.h>

#include "../../../tools/include/gb_compiler.h"
#include "../../lib/tap.h"

#define NMC	3		/* memcached instances */
#define NSRV	(NMC + 1)	/* plus Goblin, server 0 */
#define VMAX	3000
#define RETRY_MS 300

struct member {
	char host[64];
	uint16_t port;		/* memcache TCP port */
	uint32_t weight;
	char name[96];		/* libmemcached's name */
	pid_t pid;		/* memcached we started, or 0 */
};

static struct member mem[NSRV];
static char rdma_host[64];
static uint16_t rdma_port;
static const char *bind_host, *goblinctl, *nutcracker, *dir = "/tmp";
static uint16_t base_port = 11411;
static size_t nkeys = 10000;	/* keys in use: -n, then -k */
static size_t nstore = 1000;
static char prefix[32];
static char (*keys)[64];
static size_t *klens;
static const char **kp;
static double t_start;

static double now_s(void);
/* every result says when it came: the suite's steps are timed */
static void tap_time(void)
{
	printf("# at %.1f s\n", now_s() - t_start);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void msleep(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* Value of key @i in generation @gen: length and bytes follow from both. */
static size_t value_of(size_t i, unsigned int gen, char *buf)
{
	size_t len = 1 + (i * 37 + gen * 11) % VMAX, j;
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + gen;

	for (j = 0; j < len; j++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[j] = (char)('a' + x % 26);
	}
	return len;
}

/* ---- memcached instances ---- */

static bool port_open(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a));
	if (fd >= 0)
		close(fd);
	return ok;
}

static bool wait_port(uint16_t port, bool open)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (port_open(port) == open)
			return true;
		msleep(50);
	}
	return false;
}

static pid_t mc_start(uint16_t port)
{
	struct passwd *pw = getpwuid(getuid());
	char p[8];
	pid_t pid;

	snprintf(p, sizeof(p), "%u", port);
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		execlp("memcached", "memcached", "-l", "127.0.0.1", "-p", p,
		       "-U", "0", "-m", "64", "-t", "1", "-u",
		       pw ? pw->pw_name : "root", (char *)NULL);
		_exit(127);
	}
	if (!wait_port(port, true)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 0;
	}
	return pid;
}

static void mc_kill(struct member *m)
{
	if (!m->pid)
		return;
	kill(m->pid, SIGKILL);
	waitpid(m->pid, NULL, 0);
	m->pid = 0;
	wait_port(m->port, false);
}

/* ---- clients ---- */

static memcached_st *lmc_new(void)
{
	memcached_st *mc = memcached_create(NULL);
	size_t i;

	if (!mc)
		return NULL;
	memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
	memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, 3000);
	memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, 5000);
	for (i = 0; i < NSRV; i++) {
		if (memcached_server_add_with_weight(mc, mem[i].host,
						     mem[i].port,
						     mem[i].weight) !=
		    MEMCACHED_SUCCESS) {
			memcached_free(mc);
			return NULL;
		}
	}
	return mc;
}

/*
 * The fleet: Goblin over RDMA (ring name of its TCP address) when -r was
 * given, else over TCP; the memcached instances over TCP.
 */
static struct gb_fleet *fleet_new(bool failover, int timeout_ms)
{
	struct gb_fleet_server fs[NSRV];
	struct gb_fleet_opts o;
	struct gb_fleet *f = NULL;
	size_t i;

	gb_fleet_opts_init(&o);
	o.retry_ms = RETRY_MS;
	o.retry_max_ms = 4 * RETRY_MS;
	o.failover = failover;
	o.timeout_ms = timeout_ms;
	for (i = 0; i < NSRV; i++) {
		gb_fleet_server_init(&fs[i]);
		fs[i].conn.host = mem[i].host;
		fs[i].conn.port = mem[i].port;
		fs[i].weight = mem[i].weight;
	}
	if (rdma_port) {
		fs[0].conn.transport = GB_TRANSPORT_RDMA;
		fs[0].conn.host = rdma_host;
		fs[0].conn.port = rdma_port;
		fs[0].conn.bind_host = bind_host;
		fs[0].ring_name = mem[0].name;
	}
	if (gb_fleet_create(&o, fs, NSRV, &f)) {
		diag("gb_fleet_create: %s", gb_fleet_errmsg(NULL));
		return NULL;
	}
	return f;
}

static struct gb_conn *tcp_conn(const struct member *m)
{
	struct gb_connect_opts o;
	struct gb_conn *c = NULL;

	gb_connect_opts_init(&o);
	o.host = m->host;
	o.port = m->port;
	o.timeout_ms = 5000;
	if (gb_connect(&o, &c))
		diag("connect %s:%u: %s", m->host, m->port, gb_errmsg(NULL));
	return c;
}

/* ---- batch results ---- */

struct result {
	int status;		/* final status; 1 = not reported yet */
	unsigned int finals;	/* final reports (must be 1) */
	size_t len;
	char *buf;
	bool bad_chunk;
};

struct collect {
	struct result *r;
	size_t n;
	unsigned int bad_idx;
};

static void collect_fn(void *arg, size_t idx, int status,
		       const struct gb_view *v)
{
	struct collect *c = arg;
	struct result *r;

	if (idx >= c->n) {
		c->bad_idx++;
		return;
	}
	r = &c->r[idx];
	if (status) {
		r->status = status;
		r->finals++;
		return;
	}
	if (!r->buf)
		r->buf = malloc(v->total ? v->total : 1);
	if (!r->buf) {
		r->bad_chunk = true;
		return;
	}
	if (v->offset + v->len > v->total) {
		r->bad_chunk = true;
		return;
	}
	memcpy(r->buf + v->offset, v->data, v->len);
	r->len = v->total;
	if (gb_view_last(v)) {
		r->status = 0;
		r->finals++;
	}
}

static struct collect *collect_new(size_t n)
{
	struct collect *c = calloc(1, sizeof(*c));
	size_t i;

	if (!c)
		abort();
	c->r = calloc(n, sizeof(*c->r));
	if (!c->r)
		abort();
	c->n = n;
	for (i = 0; i < n; i++)
		c->r[i].status = 1;
	return c;
}

static void collect_free(struct collect *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->r[i].buf);
	free(c->r);
	free(c);
}

/* Result @i holds generation @gen of key @key. */
static bool result_is(const struct result *r, size_t key, unsigned int gen)
{
	char want[VMAX];
	size_t len = value_of(key, gen, want);

	return r->finals == 1 && !r->bad_chunk && r->status == 0 &&
	       r->len == len && !memcmp(r->buf, want, len);
}

/* ---- the tests ---- */

static size_t owner[1 << 20];
static int gen_of[1 << 20];	/* generation stored, -1: absent */

/* Result @r of key @i is what the model says. */
static bool as_expected(const struct result *r, size_t i)
{
	if (gen_of[i] < 0)
		return r->finals == 1 && r->status == -GB_ENOTFOUND;
	return result_is(r, i, (unsigned int)gen_of[i]);
}

/* Server @s came back empty. */
static void forget(size_t s)
{
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (owner[i] == s)
			gen_of[i] = -1;
}

static void t_placement(struct gb_fleet *f, memcached_st *mc)
{
	size_t i, bad = 0, per[NSRV] = { 0 };

	for (i = 0; i < nkeys; i++) {
		owner[i] = gb_fleet_server_for_key(f, keys[i], klens[i]);
		per[owner[i] < NSRV ? owner[i] : 0]++;
		if (memcached_generate_hash(mc, keys[i], klens[i]) != owner[i])
			bad++;
		gen_of[i] = -1;
	}
	diag("keys per server: %zu %zu %zu %zu", per[0], per[1], per[2],
	     per[3]);
	tap(bad == 0, "ring placement of %zu keys equals libmemcached's (%zu differ)",
	    nkeys, bad);
}

static void t_lmc_write(memcached_st *mc)
{
	char val[VMAX];
	size_t i, bad = 0, len;
	memcached_return_t rc;
	double t0 = now_s();

	for (i = 0; i < nkeys; i++) {
		if (i % 10 == 9)	/* every tenth key stays absent */
			continue;
		len = value_of(i, 0, val);
		rc = memcached_set(mc, keys[i], klens[i], val, len, 0, 0);
		if (rc == MEMCACHED_SUCCESS)
			gen_of[i] = 0;
		else if (bad++ < 3)
			diag("libmemcached set %s: %s", keys[i],
			     memcached_strerror(mc, rc));
	}
	tap(bad == 0, "libmemcached (ketama weighted) stored %zu keys over TCP in %.1f s",
	    nkeys - nkeys / 10, now_s() - t0);
}

/* Every server holds exactly the keys the ring gives it. */
static void t_where(void)
{
	size_t i, s, misplaced = 0, missing = 0;
	struct collect *c;
	struct gb_conn *gc;

	for (s = 0; s < NSRV; s++) {
		gc = tcp_conn(&mem[s]);
		if (!gc) {
			missing = nkeys;
			break;
		}
		c = collect_new(nkeys);
		gb_get_many(gc, nkeys, kp, klens, collect_fn, c);
		for (i = 0; i < nkeys; i++) {
			bool here = c->r[i].status == 0;
			bool want = owner[i] == s && gen_of[i] >= 0;

			if (here && !want)
				misplaced++;
			if (want && !as_expected(&c->r[i], i))
				missing++;
		}
		collect_free(c);
		gb_close(gc);
	}
	tap(!misplaced && !missing,
	    "each key sits on its ring server only (%zu misplaced, %zu missing)",
	    misplaced, missing);
}

/* Fleet get_many in batches: values libmemcached wrote, misses, order. */
static void t_fleet_get_many(struct gb_fleet *f, const char *how)
{
	size_t i, batch = 700, at, wrong = 0, extra = 0;
	struct collect *c = collect_new(nkeys);
	int ret = 0;
	double t0 = now_s();

	for (at = 0; at < nkeys && !ret; at += batch) {
		struct collect sub = { .r = c->r + at,
				       .n = nkeys - at < batch ? nkeys - at :
								  batch };

		ret = gb_fleet_get_many(f, sub.n, kp + at, klens + at,
					collect_fn, &sub);
		extra += sub.bad_idx;
	}
	for (i = 0; i < nkeys; i++) {
		if (!as_expected(&c->r[i], i) && wrong++ < 3)
			diag("key %zu: status %d finals %u", i, c->r[i].status,
			     c->r[i].finals);
	}
	tap(!ret && !wrong && !extra,
	    "fleet get_many (%s) returned every key exactly once in %.1f s (%zu wrong, ret %d %s)",
	    how, now_s() - t0, wrong, ret, ret ? gb_fleet_errmsg(f) : "");
	collect_free(c);
}

static void t_fleet_set_lmc_get(struct gb_fleet *f, memcached_st *mc)
{
	char val[VMAX];
	size_t i, n = nkeys, bad = 0, len, glen;
	memcached_return_t rc;
	uint32_t fl;
	char *got;

	for (i = 0; i < n; i++) {
		len = value_of(i, 1, val);
		if (!gb_fleet_set(f, keys[i], klens[i], val, len, 7, 0))
			gen_of[i] = 1;
		else if (bad++ < 3)
			diag("fleet set %s: %s", keys[i], gb_fleet_errmsg(f));
	}
	for (i = 0; i < n; i++) {
		len = value_of(i, 1, val);
		got = memcached_get(mc, keys[i], klens[i], &glen, &fl, &rc);
		if (!got || glen != len || memcmp(got, val, len) || fl != 7) {
			if (bad++ < 3)
				diag("libmemcached get %s: %s", keys[i],
				     memcached_strerror(mc, rc));
		}
		free(got);
	}
	tap(!bad, "fleet set %zu keys, libmemcached read them all back (%zu bad)",
	    n, bad);
}

static void t_twemproxy(struct gb_fleet *f)
{
	const char *what = "twemproxy (ketama, md5) writes land where the fleet reads";
	char conf[512], val[VMAX], got[VMAX], lport[8];
	size_t i, n = nkeys / 2, bad = 0, len, glen;
	struct member tw = { .port = (uint16_t)(base_port + NMC) };
	struct gb_conn *c = NULL;
	FILE *fp;
	pid_t pid;

	if (!nutcracker) {
		skip(what, "no nutcracker");
		return;
	}
	strcpy(tw.host, "127.0.0.1");
	snprintf(conf, sizeof(conf), "%s/nutcracker.yml", dir);
	fp = fopen(conf, "w");
	if (!fp) {
		tap(false, "%s: cannot write %s", what, conf);
		return;
	}
	fprintf(fp, "fleet:\n  listen: 127.0.0.1:%u\n  hash: md5\n"
		"  distribution: ketama\n  timeout: 5000\n"
		"  auto_eject_hosts: false\n  servers:\n", tw.port);
	for (i = 0; i < NSRV; i++)
		fprintf(fp, "   - %s:%u:%u\n", mem[i].host, mem[i].port,
			mem[i].weight);
	fclose(fp);
	snprintf(lport, sizeof(lport), "%u", base_port + NMC + 1);
	pid = fork();
	if (!pid) {
		execl(nutcracker, "nutcracker", "-c", conf, "-s", lport,
		      "-o", "/dev/null", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || !wait_port(tw.port, true)) {
		tap(false, "%s: nutcracker did not start", what);
		goto out;
	}
	c = tcp_conn(&tw);
	for (i = 0; c && i < n; i++) {
		len = value_of(i, 2, val);
		if (!gb_set(c, keys[i], klens[i], val, len, 0, 0))
			gen_of[i] = 2;
		else if (bad++ < 3)
			diag("set via twemproxy %s: %s", keys[i], gb_errmsg(c));
	}
	for (i = 0; c && i < n; i++) {
		len = value_of(i, 2, val);
		if ((gb_fleet_get_copy(f, keys[i], klens[i], got, sizeof(got),
				       &glen, NULL) || glen != len ||
		     memcmp(got, val, len)) && bad++ < 3)
			diag("fleet get %s after twemproxy set: %s", keys[i],
			     gb_fleet_errmsg(f));
	}
	tap(c && !bad, "%s (%zu keys, %zu bad)", what, n, bad);
out:
	gb_close(c);
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
}

/* Keys (indices) the ring gives server @s, at most @max. */
static size_t keys_of(size_t s, size_t *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < nkeys && n < max; i++)
		if (owner[i] == s)
			out[n++] = i;
	return n;
}

static void state_of(struct gb_fleet *f, size_t s, struct gb_fleet_state *st)
{
	if (gb_fleet_state(f, s, st))
		memset(st, 0, sizeof(*st));
}

/* A batch error of a key on a server that is gone. */
static bool gone_err(int status)
{
	return status == -GB_ECONNECT || status == -GB_ECONNLOST ||
	       status == -GB_ETIMEDOUT;
}

static size_t idx[1 << 20];

/* Server @s is gone: the fleet marks it down, the others keep serving. */
static void check_down(struct gb_fleet *f, size_t s, const char *what)
{
	struct gb_fleet_state st;
	struct collect *c;
	size_t i, n, others_bad = 0, own_ok = 0, own = 0;
	char buf[VMAX];
	int ret = 0, ret2;
	double t0, dt;

	n = keys_of(s, idx, 50);
	/* The first request on the old connection finds it dead. */
	for (i = 0; i < n; i++) {
		ret = gb_fleet_get_copy(f, keys[idx[i]], klens[idx[i]], buf,
					sizeof(buf), NULL, NULL);
		if (ret && ret != -GB_ENOTFOUND)
			break;
	}
	state_of(f, s, &st);
	tap(st.down && st.failures >= 1 && gone_err(st.last_err),
	    "%s: marked down after a failed request (ret %d, %s)", what, ret,
	    st.errmsg ? st.errmsg : "");
	t0 = now_s();
	ret2 = gb_fleet_get_copy(f, keys[idx[0]], klens[idx[0]], buf,
				 sizeof(buf), NULL, NULL);
	dt = now_s() - t0;
	tap(ret2 == -GB_ECONNECT && dt < 0.5,
	    "%s: its keys fail fast while down (%d in %.3f s: %s)", what,
	    ret2, dt, gb_fleet_errmsg(f));
	c = collect_new(nkeys);
	ret = gb_fleet_get_many(f, nkeys, kp, klens, collect_fn, c);
	for (i = 0; i < nkeys; i++) {
		if (owner[i] == s) {
			own++;
			own_ok += c->r[i].finals == 1 &&
				  gone_err(c->r[i].status);
			continue;
		}
		if (!as_expected(&c->r[i], i) && others_bad++ < 3)
			diag("key %zu (server %zu): status %d", i, owner[i],
			     c->r[i].status);
	}
	tap(others_bad == 0 && own_ok == own && gone_err(ret),
	    "%s: get_many serves the other servers' keys, reports its %zu keys (%zu bad, %zu/%zu, ret %d)",
	    what, own, others_bad, own_ok, own, ret);
	collect_free(c);
}

/* Server @s is back: used again after the retry interval. */
static void check_back(struct gb_fleet *f, size_t s, const char *what)
{
	struct gb_fleet_state st;
	char val[VMAX], got[VMAX];
	size_t i, n, len, glen, bad = 0;
	int ret;

	msleep(5 * RETRY_MS);	/* past any backoff (cap 4 * RETRY_MS) */
	n = keys_of(s, idx, 20);
	for (i = 0; i < n; i++) {
		len = value_of(idx[i], 3, val);
		ret = gb_fleet_set(f, keys[idx[i]], klens[idx[i]], val, len,
				   0, 0);
		if (!ret)
			gen_of[idx[i]] = 3;
		if (!ret)
			ret = gb_fleet_get_copy(f, keys[idx[i]],
						klens[idx[i]], got,
						sizeof(got), &glen, NULL);
		if ((ret || glen != len || memcmp(got, val, len)) &&
		    bad++ < 3)
			diag("%s: key %zu: %s", what, idx[i],
			     gb_fleet_errmsg(f));
	}
	state_of(f, s, &st);
	tap(!bad && n && st.connected && !st.down,
	    "%s: back in use after the retry interval (%zu keys, %zu bad)",
	    what, n, bad);
}

static void t_kill_memcached(struct gb_fleet *f)
{
	struct member *m = &mem[2];

	mc_kill(m);
	check_down(f, 2, "killed memcached");
	m->pid = mc_start(m->port);
	if (!m->pid) {
		tap(false, "memcached restart on %u failed", m->port);
		return;
	}
	forget(2);
	check_back(f, 2, "restarted memcached");
}

static void t_stopped(struct gb_fleet *f)
{
	struct gb_fleet_state st1, st3;
	struct collect *c;
	size_t i, n, bad = 0;
	const char **bk;
	size_t *bl;
	double t0, dt;
	int ret;

	/*
	 * Two servers stop answering; their batches time out in parallel,
	 * so the call ends after about one timeout (sequential: two).
	 */
	n = keys_of(1, idx, 100);
	n += keys_of(3, idx + n, 100);
	n += keys_of(0, idx + n, 50);
	bk = calloc(n, sizeof(*bk));
	bl = calloc(n, sizeof(*bl));
	if (!bk || !bl)
		abort();
	for (i = 0; i < n; i++) {
		bk[i] = keys[idx[i]];
		bl[i] = klens[idx[i]];
	}
	kill(mem[1].pid, SIGSTOP);
	kill(mem[3].pid, SIGSTOP);
	waitpid(mem[1].pid, NULL, WUNTRACED);
	waitpid(mem[3].pid, NULL, WUNTRACED);
	c = collect_new(n);
	t0 = now_s();
	ret = gb_fleet_get_many(f, n, bk, bl, collect_fn, c);
	dt = now_s() - t0;
	kill(mem[1].pid, SIGCONT);
	kill(mem[3].pid, SIGCONT);
	for (i = 0; i < n; i++) {
		if (owner[idx[i]] == 0)
			bad += !as_expected(&c->r[i], idx[i]);
		else if (c->r[i].finals != 1 ||
			 c->r[i].status != -GB_ETIMEDOUT)
			bad++;
		else
			continue;
		if (bad && bad < 4)
			diag("key %zu (server %zu): status %d, %u reports",
			     idx[i], owner[idx[i]], c->r[i].status,
			     c->r[i].finals);
	}
	state_of(f, 1, &st1);
	state_of(f, 3, &st3);
	tap(ret == -GB_ETIMEDOUT && !bad && st1.down && st3.down && dt < 1.8,
	    "two stopped servers time out in parallel: %.2f s for a 1 s timeout (ret %d, %zu bad)",
	    dt, ret, bad);
	collect_free(c);
	free(bk);
	free(bl);
	check_back(f, 1, "resumed memcached");
}

static void t_failover(void)
{
	struct gb_fleet *f = fleet_new(true, 3000);
	struct gb_fleet_state st;
	char val[VMAX], got[VMAX];
	size_t i, n, len, glen, bad = 0, others_bad = 0;
	struct collect *c;
	bool *moved;
	int ret;

	moved = calloc(nkeys, sizeof(*moved));
	if (!f || !moved) {
		tap(false, "failover fleet");
		return;
	}
	/* Its first request connects, so the death is seen at connect. */
	mc_kill(&mem[3]);
	n = keys_of(3, idx, 100);
	for (i = 0; i < n; i++) {
		len = value_of(idx[i], 4, val);
		ret = gb_fleet_set(f, keys[idx[i]], klens[idx[i]], val, len,
				   0, 0);
		if (!ret)
			ret = gb_fleet_get_copy(f, keys[idx[i]],
						klens[idx[i]], got,
						sizeof(got), &glen, NULL);
		if (!ret)
			moved[idx[i]] = true;
		if ((ret || glen != len || memcmp(got, val, len)) &&
		    bad++ < 3)
			diag("failover key %zu: %s", idx[i],
			     gb_fleet_errmsg(f));
	}
	state_of(f, 3, &st);
	tap(!bad && n && st.down,
	    "failover: keys of a killed server go to the next server on the ring (%zu keys, %zu bad)",
	    n, bad);
	c = collect_new(nkeys);
	ret = gb_fleet_get_many(f, nkeys, kp, klens, collect_fn, c);
	bad = 0;
	for (i = 0; i < nkeys; i++) {
		if (moved[i])
			bad += !result_is(&c->r[i], i, 4);
		else if (owner[i] == 3)	/* not on its stand-in */
			bad += c->r[i].finals != 1 ||
			       c->r[i].status != -GB_ENOTFOUND;
		else if (!as_expected(&c->r[i], i))
			others_bad++;
	}
	tap(!ret && !bad && !others_bad,
	    "failover: get_many finds the moved keys, misses the rest of the dead server's, nothing else moved (%zu, %zu bad)",
	    bad, others_bad);
	collect_free(c);
	free(moved);
	mem[3].pid = mc_start(mem[3].port);
	forget(3);
	gb_fleet_destroy(f);
}

static void t_rdma_drop(struct gb_fleet *f)
{
	const char *what = "RDMA listener deleted";
	char cmd[512];
	int i;

	if (!rdma_port || !goblinctl) {
		for (i = 0; i < 4; i++)
			skip(what, rdma_port ? "no goblinctl" : "no RDMA server");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s listener del rdma %s:%u", goblinctl,
		 rdma_host, rdma_port);
	if (system(cmd)) {
		tap(false, "%s: '%s' failed", what, cmd);
		return;
	}
	check_down(f, 0, what);
	snprintf(cmd, sizeof(cmd), "%s listener add rdma %s:%u", goblinctl,
		 rdma_host, rdma_port);
	if (system(cmd)) {
		tap(false, "RDMA listener re-add: '%s' failed", cmd);
		return;
	}
	check_back(f, 0, "RDMA listener restored");
}

static bool parse_addr(const char *s, char *host, size_t hlen, uint16_t *port)
{
	const char *c = strrchr(s, ':');
	unsigned long p;
	char *end;

	if (!c || (size_t)(c - s) >= hlen)
		return false;
	p = strtoul(c + 1, &end, 10);
	if (*end || !p || p > 65535)
		return false;
	memcpy(host, s, (size_t)(c - s));
	host[c - s] = '\0';
	*port = (uint16_t)p;
	return true;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: fleettest -g HOST:PORT [-r HOST:PORT] [-b BIND] [-c GOBLINCTL]\n"
		"                 [-N NUTCRACKER] [-p PORT] [-n KEYS] [-k STORED] [-d DIR]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const uint32_t weights[NSRV] = { 2, 1, 3, 1 };
	struct gb_fleet *f = NULL;
	memcached_st *mc = NULL;
	bool have_goblin = false;
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "g:r:b:c:N:p:n:k:d:")) != -1) {
		switch (opt) {
		case 'g':
			if (!parse_addr(optarg, mem[0].host,
					sizeof(mem[0].host), &mem[0].port))
				bad_args();
			have_goblin = true;
			break;
		case 'r':
			if (!parse_addr(optarg, rdma_host, sizeof(rdma_host),
					&rdma_port))
				bad_args();
			break;
		case 'b':
			bind_host = optarg;
			break;
		case 'c':
			goblinctl = optarg;
			break;
		case 'N':
			nutcracker = optarg;
			break;
		case 'p':
			base_port = (uint16_t)atoi(optarg);
			break;
		case 'n':
			nkeys = strtoul(optarg, NULL, 10);
			break;
		case 'k':
			nstore = strtoul(optarg, NULL, 10);
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			bad_args();
		}
	}
	if (!have_goblin || nkeys < 100 || nkeys > (1 << 20) || !base_port ||
	    nstore < 100 || nstore > nkeys)
		bad_args();
	signal(SIGPIPE, SIG_IGN);
	t_start = now_s();
	tap_after = tap_time;
	for (i = 0; i < NSRV; i++) {
		struct member *m = &mem[i];

		m->weight = weights[i];
		if (i) {
			strcpy(m->host, "127.0.0.1");
			m->port = (uint16_t)(base_port + i - 1);
			m->pid = mc_start(m->port);
			if (!m->pid) {
				printf("Bail out! memcached on port %u did not start\n",
				       m->port);
				return 1;
			}
		}
		if (m->port == GB_MEMCACHE_PORT)
			snprintf(m->name, sizeof(m->name), "%.63s", m->host);
		else
			snprintf(m->name, sizeof(m->name), "%.63s:%u", m->host,
				 m->port);
	}
	keys = calloc(nkeys, sizeof(*keys));
	klens = calloc(nkeys, sizeof(*klens));
	kp = calloc(nkeys, sizeof(*kp));
	if (!keys || !klens || !kp)
		return 1;
	snprintf(prefix, sizeof(prefix), "fl%ld", (long)getpid());
	for (i = 0; i < nkeys; i++) {
		klens[i] = (size_t)snprintf(keys[i], sizeof(keys[i]),
					    "%s:%zu:%s", prefix, i,
					    i % 3 ? "obj" : "user/profile");
		kp[i] = keys[i];
	}
	diag("servers: goblin %s:%u (fleet: %s %s:%u), memcached %u %u %u",
	     mem[0].host, mem[0].port, rdma_port ? "rdma" : "tcp",
	     rdma_port ? rdma_host : mem[0].host,
	     rdma_port ? rdma_port : mem[0].port, mem[1].port, mem[2].port,
	     mem[3].port);
	printf("1..18\n");
	mc = lmc_new();
	f = fleet_new(false, 1000);
	if (!mc || !f) {
		printf("Bail out! cannot set up the clients\n");
		goto out;
	}
	t_placement(f, mc);
	nkeys = nstore;		/* the rest stores and reads these */
	t_lmc_write(mc);
	t_where();
	t_fleet_get_many(f, rdma_port ? "goblin over RDMA, memcached over TCP" :
				 "all TCP");
	t_fleet_set_lmc_get(f, mc);
	t_twemproxy(f);
	t_kill_memcached(f);
	t_stopped(f);
	t_failover();
	t_rdma_drop(f);
out:
	gb_fleet_destroy(f);
	if (mc)
		memcached_free(mc);
	for (i = 1; i < NSRV; i++)
		mc_kill(&mem[i]);
	diag("%u tests, %u failed", ntest, nfail);
	return nfail || ntest != 18 ? 1 : 0;
}
