// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libgoblin server sets: routing by ketama, lazy connections, down
 * marking with retry backoff, optional failover along the ring and the
 * parallel fan-out of batches.
 *
 * State of a server is touched by one thread at a time: the caller's, or
 * during gb_fleet_get_many() the one worker that owns its batch.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <goblin/fleet.h>

#include "internal.h"
#include "ketama.h"

#define FLEET_RETRY_MS		1000
#define FLEET_RETRY_MAX_MS	30000
#define NI_MAXHOST_		1025	/* as <netdb.h> NI_MAXHOST */
#define FLEET_ADDR_LEN		(NI_MAXHOST_ + 32)

/* Message of the last failed gb_fleet_create() in this thread. */
static __thread char fleet_create_err[GB_ERRMSG_LEN];

/**
 * struct fleet_srv - one member
 * @opts:       connect options; the strings point into @host, @bind
 * @host:       copy of the host name
 * @bind:       copy of the bind address (NULL = none)
 * @name:       ring name
 * @addr:       "TRANSPORT://HOST:PORT" for messages
 * @weight:     ketama weight
 * @points:     points on the ring
 * @conn:       open connection, or NULL
 * @down:       marked down until @retry_at
 * @retry_at:   CLOCK_MONOTONIC ns when a request may reconnect
 * @backoff_ms: length of the current (or last) down period
 * @failures:   times marked down
 * @last_err:   last connection-level error
 * @err:        its message
 */
struct fleet_srv {
	struct gb_connect_opts opts;
	char *host;
	char *bind;
	char *name;
	char addr[FLEET_ADDR_LEN];
	uint32_t weight;
	uint32_t points;
	struct gb_conn *conn;
	bool down;
	uint64_t retry_at;
	int backoff_ms;
	uint64_t failures;
	int last_err;
	char err[GB_ERRMSG_LEN];
};

/**
 * struct gb_fleet - a server set
 * @o:       options, defaults filled in
 * @n:       number of servers
 * @srv:     the servers
 * @ring:    ketama ring over all of them
 * @cb_lock: serialises the user callbacks of gb_fleet_get_many()
 * @err:     message of the last failure
 */
struct gb_fleet {
	struct gb_fleet_opts o;
	size_t n;
	struct fleet_srv *srv;
	struct gb_ketama ring;
	pthread_mutex_t cb_lock;
	char err[GB_ERRMSG_LEN];
};

/*
 * struct gb_fleet_server embeds struct gb_connect_opts first: growing that
 * moves weight and ring_name, which breaks every program built with the
 * older headers (0.3 did, once: the LIBGOBLIN_1 entry points below keep
 * taking the 0.1/0.2 layout). gb_connect_opts has reserved[] slots for
 * new options instead (client.c asserts it has no tail padding). Should it
 * ever have to grow again: add a struct gb_fleet_server_v2 conversion,
 * new symbol versions of gb_fleet_server_init_sz(), gb_fleet_parse_sz()
 * and gb_fleet_create_sz() in libgoblin.map and debian/libgoblin1.symbols.
 */
static_assert(offsetof(struct gb_fleet_server, conn) == 0 &&
	      offsetof(struct gb_fleet_server_v1, conn) == 0 &&
	      offsetof(struct gb_fleet_server, weight) ==
	      sizeof(struct gb_connect_opts) &&
	      (sizeof(void *) != 8 || (sizeof(struct gb_connect_opts) == 80 &&
				       sizeof(struct gb_fleet_server) == 96)),
	      "growing struct gb_connect_opts moves struct gb_fleet_server");

/*
 * Layouts of struct gb_fleet_server: SRV_V1 is that of 0.1/0.2 (taken by
 * the LIBGOBLIN_1 versions of the calls using it), SRV_CUR this header's
 * (the LIBGOBLIN_1.2 versions). Each version takes its layout and, by the
 * rule of <goblin/client.h>, larger sizes whose tail is zero.
 */
enum srv_layout { SRV_V1, SRV_CUR };

static size_t srv_size(enum srv_layout l)
{
	return l == SRV_V1 ? sizeof(struct gb_fleet_server_v1) :
			     sizeof(struct gb_fleet_server);
}

/* The caller's entry of @size bytes, in layout @l, into @dst. */
static int srv_in(struct gb_fleet_server *dst, const void *src, size_t size,
		  enum srv_layout l)
{
	struct gb_fleet_server_v1 v;
	int ret;

	if (l == SRV_CUR)
		return gb_struct_in(dst, sizeof(*dst), src, size);
	ret = gb_struct_in(&v, sizeof(v), src, size);
	if (ret)
		return ret;
	memset(dst, 0, sizeof(*dst));
	memcpy(&dst->conn, &v.conn, sizeof(v.conn));	/* one_sided 0 */
	dst->weight = v.weight;
	dst->ring_name = v.ring_name;
	return 0;
}

/* @src into the caller's entry of @size bytes, in layout @l. */
static int srv_out(void *dst, size_t size, const struct gb_fleet_server *src,
		   enum srv_layout l)
{
	struct gb_fleet_server_v1 v;

	if (l == SRV_CUR)
		return gb_struct_out(dst, size, src, sizeof(*src));
	memset(&v, 0, sizeof(v));
	memcpy(&v.conn, &src->conn, sizeof(v.conn));
	v.weight = src->weight;
	v.ring_name = src->ring_name;
	return gb_struct_out(dst, size, &v, sizeof(v));
}

/* What gb_fleet_server_init() gives. */
static void srv_defaults(struct gb_fleet_server *s)
{
	memset(s, 0, sizeof(*s));
	gb_connect_opts_init(&s->conn);
	s->weight = 1;
}

static void server_init(void *s, size_t size, enum srv_layout l)
{
	struct gb_fleet_server one;

	if (!s || size < srv_size(l))
		return;
	srv_defaults(&one);
	srv_out(s, size, &one, l);
}

GB_SYMVER("gb_fleet_server_init_sz@LIBGOBLIN_1")
void gb_fleet_server_init_sz_v1(void *s, size_t size)
{
	server_init(s, size, SRV_V1);
}

GB_SYMVER("gb_fleet_server_init_sz@@LIBGOBLIN_1.2")
void gb_fleet_server_init_sz_v2(struct gb_fleet_server *s, size_t size)
{
	server_init(s, size, SRV_CUR);
}

void gb_fleet_opts_init_sz(struct gb_fleet_opts *o, size_t size)
{
	if (!o || size < sizeof(*o))
		return;
	memset(o, 0, size);
	o->retry_ms = FLEET_RETRY_MS;
	o->retry_max_ms = FLEET_RETRY_MAX_MS;
}

const char *gb_fleet_errmsg(const struct gb_fleet *f)
{
	if (!f)
		return fleet_create_err[0] ? fleet_create_err : "success";
	return f->err[0] ? f->err : "success";
}

size_t gb_fleet_count(const struct gb_fleet *f)
{
	return f ? f->n : 0;
}

/* ---- server list parsing ---- */

static bool list_sep(char ch)
{
	return ch == ',' || isspace((unsigned char)ch);
}

/* Parse decimal digits in [p, end) into *v (<= max). */
static int parse_num(const char *p, const char *end, unsigned long max,
		     unsigned long *v)
{
	unsigned long x = 0;

	if (p == end)
		return -GB_EINVAL;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -GB_EINVAL;
		x = x * 10 + (unsigned long)(*p - '0');
		if (x > max)
			return -GB_EINVAL;
	}
	*v = x;
	return 0;
}

/*
 * One entry [s, e): fills @srv; copies the host and ring name to *@strs
 * (advanced past them). Syntax in fleet.h.
 */
static int parse_one(const char *s, const char *e, struct gb_fleet_server *srv,
		     char **strs)
{
	const char *p, *hs, *he, *q, *eq, *sl;
	unsigned long v;
	char *out = *strs;

	srv_defaults(srv);
	p = memmem(s, (size_t)(e - s), "://", 3);
	if (p) {
		char tr[8];

		if ((size_t)(p - s) >= sizeof(tr))
			return -GB_EINVAL;
		memcpy(tr, s, (size_t)(p - s));
		tr[p - s] = '\0';
		if (gb_transport_parse(tr, &srv->conn.transport))
			return -GB_EINVAL;
		s = p + 3;
	}
	eq = memchr(s, '=', (size_t)(e - s));
	if (eq) {
		if (eq + 1 == e || (size_t)(e - eq - 1) > GB_FLEET_NAME_MAX)
			return -GB_EINVAL;
		memcpy(out, eq + 1, (size_t)(e - eq - 1));
		out[e - eq - 1] = '\0';
		srv->ring_name = out;
		out += e - eq;
		e = eq;
	}
	sl = memchr(s, '/', (size_t)(e - s));
	if (sl) {
		if (parse_num(sl + 1, e, GB_FLEET_WEIGHT_MAX, &v) || !v)
			return -GB_EINVAL;
		srv->weight = (uint32_t)v;
		e = sl;
	}
	if (s >= e)
		return -GB_EINVAL;
	if (*s == '[') {
		hs = s + 1;
		he = memchr(hs, ']', (size_t)(e - hs));
		if (!he)
			return -GB_EINVAL;
		q = he + 1;
		if (q < e && *q != ':')
			return -GB_EINVAL;
	} else {
		hs = s;
		he = memchr(s, ':', (size_t)(e - s));
		if (!he)
			he = e;
		q = he;
	}
	if (hs == he || (size_t)(he - hs) >= NI_MAXHOST_)
		return -GB_EINVAL;
	if (q < e) {
		if (parse_num(q + 1, e, 65535, &v) || !v)
			return -GB_EINVAL;
		srv->conn.port = (uint16_t)v;
	} else {
		srv->conn.port = GB_MEMCACHE_PORT;
	}
	memcpy(out, hs, (size_t)(he - hs));
	out[he - hs] = '\0';
	srv->conn.host = out;
	out += he - hs + 1;
	*strs = out;
	return 0;
}

static int fleet_parse(const char *list, void **servers, size_t size,
		       size_t *n, enum srv_layout l)
{
	struct gb_fleet_server one;
	char *arr;
	const char *p, *s;
	size_t cnt = 0, len, i = 0;
	char *strs;
	int ret;

	if (!list || !servers || !n || size < srv_size(l))
		return -GB_EINVAL;
	for (p = list; *p;) {
		while (*p && list_sep(*p))
			p++;
		if (!*p)
			break;
		cnt++;
		while (*p && !list_sep(*p))
			p++;
	}
	if (!cnt || cnt > GB_FLEET_MAX_SERVERS)
		return -GB_EINVAL;
	len = strlen(list);
	/* Host and ring name of an entry fit in its own length plus two NULs. */
	arr = malloc(cnt * size + len + 2 * cnt);
	if (!arr)
		return -GB_ENOMEM;
	strs = arr + cnt * size;
	for (p = list; *p;) {
		while (*p && list_sep(*p))
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && !list_sep(*p))
			p++;
		ret = parse_one(s, p, &one, &strs);
		if (ret) {
			free(arr);
			return ret;
		}
		srv_out(arr + i++ * size, size, &one, l);
	}
	*servers = arr;
	*n = cnt;
	return 0;
}

GB_SYMVER("gb_fleet_parse_sz@LIBGOBLIN_1")
int gb_fleet_parse_sz_v1(const char *list, void **servers, size_t size,
			 size_t *n)
{
	return fleet_parse(list, servers, size, n, SRV_V1);
}

GB_SYMVER("gb_fleet_parse_sz@@LIBGOBLIN_1.2")
int gb_fleet_parse_sz_v2(const char *list, struct gb_fleet_server **servers,
			 size_t size, size_t *n)
{
	return fleet_parse(list, (void **)servers, size, n, SRV_CUR);
}

/* ---- creation ---- */

__printf(2, 3)
static int create_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fleet_create_err, sizeof(fleet_create_err), fmt, ap);
	va_end(ap);
	return err;
}

static void srv_free(struct fleet_srv *s)
{
	if (s->conn)
		gb_close(s->conn);
	free(s->host);
	free(s->bind);
	free(s->name);
}

void gb_fleet_destroy(struct gb_fleet *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		srv_free(&f->srv[i]);
	free(f->srv);
	gb_ketama_free(&f->ring);
	pthread_mutex_destroy(&f->cb_lock);
	free(f);
}

static int srv_init(struct gb_fleet *f, struct fleet_srv *s,
		    const struct gb_fleet_server *in, size_t idx)
{
	const struct gb_connect_opts *c = &in->conn;
	size_t i;
	bool v6;

	if (!c->host || !*c->host || strlen(c->host) >= NI_MAXHOST_)
		return create_fail(-GB_EINVAL, "server %zu: no or overlong host", idx);
	if (c->transport != GB_TRANSPORT_TCP && c->transport != GB_TRANSPORT_RDMA)
		return create_fail(-GB_EINVAL, "server %zu: unknown transport %d",
				   idx, (int)c->transport);
	if (in->weight > GB_FLEET_WEIGHT_MAX)
		return create_fail(-GB_EINVAL, "server %zu: weight %u above %u",
				   idx, in->weight, GB_FLEET_WEIGHT_MAX);
	if (c->one_sided != 0 && c->one_sided != 1)
		return create_fail(-GB_EINVAL,
				   "server %zu: one_sided %d is neither 0 nor 1",
				   idx, c->one_sided);
	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return create_fail(-GB_ENOTSUP,
					   "server %zu: conn.reserved[%zu] set (an option this libgoblin does not know)",
					   idx, i);
	s->opts = *c;
	/* no gb_fleet_* call reads one-sided: do not ask for it (fleet.h) */
	s->opts.one_sided = 0;
	s->weight = in->weight ? in->weight : 1;
	s->host = strdup(c->host);
	s->bind = c->bind_host ? strdup(c->bind_host) : NULL;
	if (in->ring_name) {
		if (!*in->ring_name || strlen(in->ring_name) > GB_FLEET_NAME_MAX)
			return create_fail(-GB_EINVAL,
					   "server %zu: empty or overlong ring name",
					   idx);
		s->name = strdup(in->ring_name);
	} else if (c->port == GB_MEMCACHE_PORT) {
		s->name = strdup(c->host);
	} else if (asprintf(&s->name, "%s:%u", c->host, c->port) < 0) {
		s->name = NULL;
	}
	if (!s->host || !s->name || (c->bind_host && !s->bind))
		return create_fail(-GB_ENOMEM, "out of memory");
	s->opts.host = s->host;
	s->opts.bind_host = s->bind;
	if (!s->opts.timeout_ms)
		s->opts.timeout_ms = f->o.timeout_ms;
	v6 = !!strchr(c->host, ':');
	snprintf(s->addr, sizeof(s->addr), "%s://%s%s%s:%u",
		 gb_transport_name(c->transport), v6 ? "[" : "", c->host,
		 v6 ? "]" : "", c->port);
	return 0;
}

static int fleet_create(const struct gb_fleet_opts *o, size_t osize,
			const void *servers, size_t ssize, size_t n,
			struct gb_fleet **fleetp, enum srv_layout l)
{
	struct gb_fleet_server in;
	const char **names = NULL;
	uint32_t *weights = NULL, *points = NULL;
	struct gb_fleet *f;
	size_t i, j;
	int ret;

	fleet_create_err[0] = '\0';
	if (!fleetp || !servers || !n || n > GB_FLEET_MAX_SERVERS)
		return create_fail(-GB_EINVAL, "need 1 to %u servers",
				   GB_FLEET_MAX_SERVERS);
	*fleetp = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return create_fail(-GB_ENOMEM, "out of memory");
	if (o) {
		ret = gb_struct_in(&f->o, sizeof(f->o), o, osize);
		if (ret) {
			free(f);
			return create_fail(ret, "fleet options of an unknown layout");
		}
	} else {
		gb_fleet_opts_init(&f->o);
	}
	if (f->o.retry_ms <= 0)
		f->o.retry_ms = FLEET_RETRY_MS;
	if (f->o.retry_max_ms <= 0)
		f->o.retry_max_ms = FLEET_RETRY_MAX_MS;
	if (f->o.retry_max_ms < f->o.retry_ms)
		f->o.retry_max_ms = f->o.retry_ms;
	pthread_mutex_init(&f->cb_lock, NULL);
	f->srv = calloc(n, sizeof(*f->srv));
	names = calloc(n, sizeof(*names));
	weights = calloc(n, sizeof(*weights));
	points = calloc(n, sizeof(*points));
	if (!f->srv || !names || !weights || !points) {
		ret = create_fail(-GB_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		f->n = i + 1;
		ret = srv_in(&in, (const char *)servers + i * ssize, ssize, l);
		if (ret) {
			create_fail(ret, "server %zu: unknown layout", i);
			goto fail;
		}
		ret = srv_init(f, &f->srv[i], &in, i);
		if (ret)
			goto fail;
		for (j = 0; j < i; j++) {
			if (strcmp(f->srv[j].name, f->srv[i].name))
				continue;
			ret = create_fail(-GB_EINVAL,
					  "servers %zu and %zu share the ring name '%s'",
					  j, i, f->srv[i].name);
			goto fail;
		}
		names[i] = f->srv[i].name;
		weights[i] = f->srv[i].weight;
	}
	ret = gb_ketama_build(&f->ring, n, names, weights, points);
	if (ret) {
		ret = create_fail(ret == -ENOMEM ? -GB_ENOMEM : -GB_EINVAL,
				  "cannot build the ketama ring");
		goto fail;
	}
	for (i = 0; i < n; i++)
		f->srv[i].points = points[i];
	free(names);
	free(weights);
	free(points);
	*fleetp = f;
	return 0;
fail:
	free(names);
	free(weights);
	free(points);
	gb_fleet_destroy(f);
	return ret;
}

GB_SYMVER("gb_fleet_create_sz@LIBGOBLIN_1")
int gb_fleet_create_sz_v1(const struct gb_fleet_opts *o, size_t osize,
			  const void *servers, size_t ssize, size_t n,
			  struct gb_fleet **fleetp)
{
	return fleet_create(o, osize, servers, ssize, n, fleetp, SRV_V1);
}

GB_SYMVER("gb_fleet_create_sz@@LIBGOBLIN_1.2")
int gb_fleet_create_sz_v2(const struct gb_fleet_opts *o, size_t osize,
			  const struct gb_fleet_server *servers, size_t ssize,
			  size_t n, struct gb_fleet **fleetp)
{
	return fleet_create(o, osize, servers, ssize, n, fleetp, SRV_CUR);
}

/* ---- routing and server state ---- */

static bool srv_usable(const struct fleet_srv *s, uint64_t now)
{
	return !s->down || now >= s->retry_at;
}

size_t gb_fleet_server_for_key(const struct gb_fleet *f, const char *key,
			       size_t klen)
{
	if (!f || f->n == 1)
		return 0;
	return f->ring.pts[gb_ketama_find(&f->ring,
					  gb_ketama_hash(key, klen))].server;
}

int gb_fleet_state_sz(const struct gb_fleet *f, size_t i,
		      struct gb_fleet_state *ust, size_t size)
{
	struct gb_fleet_state state, *st = &state;
	const struct fleet_srv *s;
	uint64_t now;

	if (!f || !ust || i >= f->n || size < sizeof(state))
		return -GB_EINVAL;
	s = &f->srv[i];
	now = gb_now_ns();
	memset(st, 0, sizeof(*st));
	st->ring_name = s->name;
	st->addr = s->addr;
	st->weight = s->weight;
	st->points = s->points;
	st->connected = !!s->conn;
	st->down = s->down;
	if (s->down && s->retry_at > now)
		st->retry_in_ms = (int)((s->retry_at - now + 999999) / 1000000);
	st->failures = s->failures;
	st->last_err = s->last_err;
	st->errmsg = s->err[0] ? s->err : "";
	return gb_struct_out(ust, size, st, sizeof(*st));
}

/*
 * Mark @s down after a connection-level failure @err with message @msg:
 * the first failure of a live server waits retry_ms, every failed retry
 * doubles the wait up to retry_max_ms.
 */
static void srv_down(const struct gb_fleet *f, struct fleet_srv *s, int err,
		     const char *msg)
{
	/* @msg may live in the connection closed below. */
	snprintf(s->err, sizeof(s->err), "%s", msg);
	if (s->conn) {
		gb_close(s->conn);
		s->conn = NULL;
	}
	if (!s->down || !s->backoff_ms)
		s->backoff_ms = f->o.retry_ms;
	else if (s->backoff_ms < f->o.retry_max_ms / 2)
		s->backoff_ms *= 2;
	else
		s->backoff_ms = f->o.retry_max_ms;
	s->down = true;
	s->retry_at = gb_now_ns() + (uint64_t)s->backoff_ms * 1000000ull;
	s->failures++;
	s->last_err = err;
}

/* A connection to @s, connecting if needed. */
static int srv_conn(const struct gb_fleet *f, struct fleet_srv *s,
		    struct gb_conn **cp)
{
	int ret;

	*cp = NULL;
	if (s->conn && s->conn->dead)
		srv_down(f, s, -s->conn->dead, gb_errmsg(s->conn));
	if (s->conn) {
		*cp = s->conn;
		return 0;
	}
	if (!srv_usable(s, gb_now_ns()))
		return -GB_ECONNECT;
	ret = gb_connect(&s->opts, &s->conn);
	if (ret) {
		s->conn = NULL;
		srv_down(f, s, ret, gb_errmsg(NULL));
		return ret;
	}
	s->down = false;
	*cp = s->conn;
	return 0;
}

/* After a request on @s: a connection that died marks the server down. */
static bool srv_check(const struct gb_fleet *f, struct fleet_srv *s)
{
	if (!s->conn || !s->conn->dead)
		return false;
	srv_down(f, s, -s->conn->dead, gb_errmsg(s->conn));
	return true;
}

__printf(3, 4)
static int fleet_fail(struct gb_fleet *f, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return err;
}

static int down_fail(struct gb_fleet *f, const struct fleet_srv *s)
{
	uint64_t now = gb_now_ns();

	return fleet_fail(f, -GB_ECONNECT, "%s: down for %llu ms more (%s)",
			  s->addr, s->retry_at > now ?
			  (unsigned long long)((s->retry_at - now) / 1000000) :
			  0ull, s->err[0] ? s->err : "no detail");
}

/* The bitmap of servers a request has tried; GB_FLEET_MAX_SERVERS bits. */
struct tried {
	uint64_t w[GB_FLEET_MAX_SERVERS / 64];
};

static bool tried_test(const struct tried *t, size_t i)
{
	return t->w[i / 64] >> (i % 64) & 1;
}

static void tried_set(struct tried *t, size_t i)
{
	t->w[i / 64] |= 1ull << (i % 64);
}

/*
 * Server a key goes to: its owner, or with failover the first server at or
 * after its point that is usable and not in @skip. Returns -1 if none.
 */
static long route(const struct gb_fleet *f, uint32_t hash,
		  const struct tried *skip, uint64_t now)
{
	size_t p, i, n = f->ring.n;
	uint32_t sv;

	/* libmemcached sends everything to a lone server, ring or not. */
	if (f->n == 1)
		return !tried_test(skip, 0) && srv_usable(&f->srv[0], now) ?
			0 : -1;
	p = gb_ketama_find(&f->ring, hash);
	sv = f->ring.pts[p].server;
	if (!tried_test(skip, sv) && srv_usable(&f->srv[sv], now))
		return sv;
	if (!f->o.failover)
		return -1;
	for (i = 1; i < n; i++) {
		sv = f->ring.pts[(p + i) % n].server;
		if (!tried_test(skip, sv) && srv_usable(&f->srv[sv], now))
			return sv;
	}
	return -1;
}

/* ---- single-key requests ---- */

enum fleet_op { OP_GET, OP_SET, OP_DEL, OP_TOUCH };

struct op_args {
	enum fleet_op op;
	const char *key;
	size_t klen;
	void *buf;
	size_t buflen;
	size_t *vlen;
	uint32_t *flagsp;
	const void *val;
	size_t len;
	uint32_t flags;
	uint32_t exptime;
};

static int run_op(struct gb_conn *c, const struct op_args *a)
{
	switch (a->op) {
	case OP_GET:
		return gb_get_copy(c, a->key, a->klen, a->buf, a->buflen,
				   a->vlen, a->flagsp, NULL);
	case OP_SET:
		return gb_set(c, a->key, a->klen, a->val, a->len, a->flags,
			      a->exptime);
	case OP_DEL:
		return gb_delete(c, a->key, a->klen);
	case OP_TOUCH:
		return gb_touch(c, a->key, a->klen, a->exptime);
	}
	return -GB_EINVAL;
}

static int fleet_op(struct gb_fleet *f, const struct op_args *a)
{
	struct tried tried = { { 0 } };
	uint32_t hash;
	struct fleet_srv *s;
	struct gb_conn *c;
	long sv;
	int ret = -GB_ECONNECT;

	f->err[0] = '\0';
	if (!a->key || !a->klen || a->klen > GB_KEY_MAX)
		return fleet_fail(f, -GB_EKEYLEN, "key length %zu (limit %u)",
				  a->klen, GB_KEY_MAX);
	hash = gb_ketama_hash(a->key, a->klen);
	for (;;) {
		sv = route(f, hash, &tried, gb_now_ns());
		if (sv < 0) {
			if (f->err[0])
				return ret;
			sv = (long)gb_fleet_server_for_key(f, a->key, a->klen);
			return down_fail(f, &f->srv[sv]);
		}
		tried_set(&tried, (size_t)sv);
		s = &f->srv[sv];
		ret = srv_conn(f, s, &c);
		if (ret) {
			fleet_fail(f, ret, "%s: %s", s->addr, s->err);
			if (!f->o.failover)
				return ret;
			continue;
		}
		ret = run_op(c, a);
		if (!ret)
			return 0;
		fleet_fail(f, ret, "%s: %s", s->addr, gb_errmsg(c));
		if (!srv_check(f, s) || !f->o.failover)
			return ret;
	}
}

int gb_fleet_get_copy(struct gb_fleet *f, const char *key, size_t klen,
		      void *buf, size_t buflen, size_t *vlen,
		      uint32_t *flags)
{
	struct op_args a = { .op = OP_GET, .key = key, .klen = klen,
			     .buf = buf, .buflen = buflen, .vlen = vlen,
			     .flagsp = flags };

	if (!f || (!buf && buflen))
		return -GB_EINVAL;
	return fleet_op(f, &a);
}

int gb_fleet_set(struct gb_fleet *f, const char *key, size_t klen,
		 const void *val, size_t vlen, uint32_t flags,
		 uint32_t exptime)
{
	struct op_args a = { .op = OP_SET, .key = key, .klen = klen,
			     .val = val, .len = vlen, .flags = flags,
			     .exptime = exptime };

	if (!f || (!val && vlen))
		return -GB_EINVAL;
	return fleet_op(f, &a);
}

int gb_fleet_delete(struct gb_fleet *f, const char *key, size_t klen)
{
	struct op_args a = { .op = OP_DEL, .key = key, .klen = klen };

	if (!f)
		return -GB_EINVAL;
	return fleet_op(f, &a);
}

int gb_fleet_touch(struct gb_fleet *f, const char *key, size_t klen,
		   uint32_t exptime)
{
	struct op_args a = { .op = OP_TOUCH, .key = key, .klen = klen,
			     .exptime = exptime };

	if (!f)
		return -GB_EINVAL;
	return fleet_op(f, &a);
}

/* ---- batches ---- */

/**
 * struct mget_call - one gb_fleet_get_many() call
 * @f:       fleet
 * @fn:      user callback
 * @arg:     its cookie
 * @started: per key: a chunk was delivered (no retry possible)
 * @retry:   per key: failed with its server before any chunk
 * @keys:    the keys, grouped by server (batch order)
 * @klens:   their lengths
 * @gidx:    index in the user's batch of each grouped key
 * @key_err: first connection-level error reported for a key
 */
struct mget_call {
	struct gb_fleet *f;
	gb_chunk_fn fn;
	void *arg;
	bool *started;
	bool *retry;
	const char **keys;
	size_t *klens;
	size_t *gidx;
	int key_err;
};

/**
 * struct mget_batch - the keys of one server in one round
 * @call:  the call
 * @srv:   server index
 * @first: first key of the batch in @call's grouped arrays
 * @n:     number of keys
 * @ret:   connection-level error of the batch, or 0
 * @tid:   worker thread
 * @threaded: @tid runs it
 */
struct mget_batch {
	struct mget_call *call;
	size_t srv;
	size_t first;
	size_t n;
	int ret;
	pthread_t tid;
	bool threaded;
};

/* An error about reaching the server rather than about the key. */
static bool conn_err(int status)
{
	switch (-status) {
	case GB_ECONNECT:
	case GB_ECONNLOST:
	case GB_ETIMEDOUT:
	case GB_EPROTO:
	case GB_ENOMEM:
	case GB_ESYS:
		return true;
	}
	return false;
}

static void mget_deliver(struct mget_call *mc, size_t gidx, int status,
			 const struct gb_view *v)
{
	pthread_mutex_lock(&mc->f->cb_lock);
	if (!mc->key_err && conn_err(status))
		mc->key_err = status;
	mc->fn(mc->arg, gidx, status, v);
	pthread_mutex_unlock(&mc->f->cb_lock);
}

static void mget_fail_key(struct mget_call *mc, size_t gidx, int status)
{
	struct gb_view v;

	if (mc->f->o.failover) {
		mc->retry[gidx] = true;
		return;
	}
	memset(&v, 0, sizeof(v));
	v.slot = -1;
	mget_deliver(mc, gidx, status, &v);
}

struct mget_ctx {
	struct mget_batch *b;
	struct gb_conn *c;
};

static void mget_chunk(void *arg, size_t idx, int status,
		       const struct gb_view *v)
{
	struct mget_ctx *x = arg;
	struct mget_call *mc = x->b->call;
	size_t gidx = mc->gidx[x->b->first + idx];

	if (status && x->c->dead && !mc->started[gidx]) {
		x->b->ret = status;
		mget_fail_key(mc, gidx, status);
		return;
	}
	if (!status)
		mc->started[gidx] = true;
	mget_deliver(mc, gidx, status, v);
}

static void *mget_run(void *arg)
{
	struct mget_batch *b = arg;
	struct mget_call *mc = b->call;
	struct fleet_srv *s = &mc->f->srv[b->srv];
	struct mget_ctx x = { .b = b };
	size_t i;
	int ret;

	ret = srv_conn(mc->f, s, &x.c);
	if (ret) {
		b->ret = ret;
		for (i = 0; i < b->n; i++)
			mget_fail_key(mc, mc->gidx[b->first + i], ret);
		return NULL;
	}
	ret = gb_get_many(x.c, b->n, (const char *const *)mc->keys + b->first,
			  mc->klens + b->first, mget_chunk, &x);
	if (ret && !b->ret && x.c->dead)
		b->ret = ret;
	srv_check(mc->f, s);
	return NULL;
}

/*
 * Route the keys in @todo (count @nt) and run their batches in parallel;
 * servers that fail join @failed. Return: the first failure, message in
 * the fleet.
 */
static int mget_round(struct mget_call *mc, const size_t *todo, size_t nt,
		      const char *const *keys, const size_t *klens,
		      struct tried *failed, size_t *count, long *dest,
		      struct mget_batch *bs)
{
	struct gb_fleet *f = mc->f;
	uint64_t now = gb_now_ns();
	size_t i, nb = 0, at = 0, k;
	struct gb_view v;
	int first_err = 0;
	long sv;

	memset(count, 0, f->n * sizeof(*count));
	for (i = 0; i < nt; i++) {
		k = todo[i];
		sv = route(f, gb_ketama_hash(keys[k], klens[k]), failed, now);
		dest[i] = sv;
		if (sv >= 0) {
			count[sv]++;
			continue;
		}
		memset(&v, 0, sizeof(v));
		v.slot = -1;
		if (!first_err) {
			sv = (long)gb_fleet_server_for_key(f, keys[k], klens[k]);
			first_err = down_fail(f, &f->srv[sv]);
		}
		mget_deliver(mc, k, -GB_ECONNECT, &v);
	}
	/* Batches laid out server by server in the grouped arrays. */
	for (i = 0; i < f->n; i++) {
		if (!count[i])
			continue;
		bs[nb] = (struct mget_batch){ .call = mc, .srv = i,
					      .first = at };
		at += count[i];
		count[i] = nb++;
	}
	for (i = 0; i < nt; i++) {
		struct mget_batch *b;

		if (dest[i] < 0)
			continue;
		b = &bs[count[dest[i]]];
		k = todo[i];
		mc->keys[b->first + b->n] = keys[k];
		mc->klens[b->first + b->n] = klens[k];
		mc->gidx[b->first + b->n] = k;
		b->n++;
	}
	for (i = 1; i < nb; i++)
		bs[i].threaded = !pthread_create(&bs[i].tid, NULL, mget_run,
						 &bs[i]);
	if (nb)
		mget_run(&bs[0]);
	for (i = 1; i < nb; i++) {
		if (bs[i].threaded)
			pthread_join(bs[i].tid, NULL);
		else
			mget_run(&bs[i]);
	}
	for (i = 0; i < nb; i++) {
		if (!bs[i].ret)
			continue;
		tried_set(failed, bs[i].srv);
		if (!first_err)
			first_err = fleet_fail(f, bs[i].ret, "%s: %s",
					       f->srv[bs[i].srv].addr,
					       f->srv[bs[i].srv].err);
	}
	return first_err;
}

int gb_fleet_get_many(struct gb_fleet *f, size_t n, const char *const *keys,
		      const size_t *klens, gb_chunk_fn fn, void *arg)
{
	struct tried failed = { { 0 } };
	struct mget_call mc = { .f = f, .fn = fn, .arg = arg };
	struct mget_batch *bs = NULL;
	size_t *todo = NULL, *count = NULL, nt, i;
	long *dest = NULL;
	int first_err = 0;

	if (!f || !fn || (n && (!keys || !klens)))
		return -GB_EINVAL;
	f->err[0] = '\0';
	if (!n)
		return 0;
	mc.started = calloc(n, sizeof(*mc.started));
	mc.retry = calloc(n, sizeof(*mc.retry));
	mc.keys = calloc(n, sizeof(*mc.keys));
	mc.klens = calloc(n, sizeof(*mc.klens));
	mc.gidx = calloc(n, sizeof(*mc.gidx));
	todo = calloc(n, sizeof(*todo));
	dest = calloc(n, sizeof(*dest));
	count = calloc(f->n, sizeof(*count));
	bs = calloc(f->n, sizeof(*bs));
	if (!mc.started || !mc.retry || !mc.keys || !mc.klens || !mc.gidx ||
	    !todo || !dest || !count || !bs) {
		struct gb_view v = { .slot = -1 };

		first_err = fleet_fail(f, -GB_ENOMEM, "batch state");
		for (i = 0; i < n; i++)
			fn(arg, i, first_err, &v);
		goto out;
	}
	for (i = 0; i < n; i++)
		todo[i] = i;
	nt = n;
	/* Every round with retries marks at least one more server failed. */
	while (nt) {
		mget_round(&mc, todo, nt, keys, klens, &failed, count, dest,
			   bs);
		for (i = 0, nt = 0; i < n; i++) {
			if (mc.retry[i]) {
				mc.retry[i] = false;
				todo[nt++] = i;
			}
		}
	}
	first_err = mc.key_err;
out:
	free(mc.started);
	free(mc.retry);
	free(mc.keys);
	free(mc.klens);
	free(mc.gidx);
	free(todo);
	free(dest);
	free(count);
	free(bs);
	return first_err;
}
