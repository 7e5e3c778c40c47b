// SPDX-License-Identifier: GPL-2.0
/*
 * gbbench backend on libgoblin (RDMA protocol v3 or memcache TCP).
 *
 * Values are consumed as zero-copy views: nothing touches the payload bytes
 * unless --validate asks for a CRC32C, computed chunk by chunk from the
 * library's receive windows and timed on its own.
 *
 * libgoblin offers one GET at a time (gb_get) and pipelined batches
 * (gb_get_many), not an open-ended submit/complete queue. With one key
 * queued this backend uses gb_get; with several it sends them as one
 * gb_get_many batch, so a queue depth d runs as back-to-back batches of d.
 *
 * An RDMA connection granted one-sided reads (GOBLIN_RDMA_ONESIDED=1 in
 * the environment) sends its batches with gb_get_many_onesided() instead:
 * one LOOKUP per 12 keys and pipelined READs (GOBLIN_RDMA_ONESIDED_DEPTH
 * caps the READs in flight); one key queued is still gb_get().
 *
 * With --servers the stream talks to a libgoblin server set instead
 * (goblin/fleet.h): every flush is one gb_fleet_get_many(), which splits it
 * by server and runs the per-server batches in parallel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbbench.h"

#ifdef HAVE_LIBGOBLIN
#include <goblin/client.h>
#include <goblin/fleet.h>

struct lg_req {
	char key[GBB_KEY_LEN + 1];
	size_t klen;
	uint64_t cap;
	struct gbb_comp comp;
	uint32_t crc;
	bool done;
};

/*
 * @q holds GETs queued by get_submit() and not yet sent; a batch completes
 * them all into @d, a ring that get_wait() drains one at a time.
 */
struct gbb_conn {
	struct gb_conn *gc;
	struct gb_fleet *fl;
	bool validate;
	bool onesided;
	unsigned int depth;
	struct lg_req *q;
	unsigned int nq;
	struct gbb_comp *d;
	unsigned int dhead;
	unsigned int nd;
	const char **keys;
	size_t *klens;
};

static int lg_status(int err)
{
	switch (-err) {
	case GB_OK:
		return GBB_OK;
	case GB_ENOTFOUND:
		return GBB_MISS;
	case GB_ENOSPC:
	case GB_EVALLEN:
		return GBB_TOOBIG;
	case GB_EPROTO:
		return GBB_PROTO;
	}
	return GBB_IO;
}

static void lg_free(struct gbb_conn *c)
{
	free(c->q);
	free(c->d);
	free(c->keys);
	free(c->klens);
	free(c);
}

/* A server set over o->servers; every member gets the spin setting. */
static int lg_open_fleet(struct gbb_conn *c, const struct gbb_opts *o,
			 char *err, size_t errlen)
{
	struct gb_fleet_server *srv;
	size_t n, i;
	int ret;

	ret = gb_fleet_parse(o->servers, &srv, &n);
	if (ret) {
		snprintf(err, errlen, "bad server list: %s", gb_strerror(ret));
		return ret;
	}
	for (i = 0; i < n; i++)
		srv[i].conn.spin_us = o->spin_us;
	ret = gb_fleet_create(NULL, srv, n, &c->fl);
	free(srv);
	if (ret)
		snprintf(err, errlen, "gb_fleet_create: %s",
			 gb_fleet_errmsg(NULL));
	return ret;
}

static struct gbb_conn *lg_open(const struct gbb_opts *o, unsigned int depth,
				char *err, size_t errlen)
{
	struct gb_connect_opts co;
	struct gb_onesided_stats os;
	struct gbb_conn *c;
	unsigned long port;
	char *end;
	int ret;

	port = strtoul(o->port, &end, 10);
	if (!o->servers && (*end || !port || port > 65535)) {
		snprintf(err, errlen, "bad port '%s'", o->port);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->q = calloc(depth, sizeof(*c->q));
	c->d = calloc(depth, sizeof(*c->d));
	c->keys = calloc(depth, sizeof(*c->keys));
	c->klens = calloc(depth, sizeof(*c->klens));
	if (!c->q || !c->d || !c->keys || !c->klens) {
		snprintf(err, errlen, "out of memory");
		lg_free(c);
		return NULL;
	}
	c->depth = depth;
	c->validate = o->validate;
	if (o->servers) {
		if (lg_open_fleet(c, o, err, errlen)) {
			lg_free(c);
			return NULL;
		}
		return c;
	}
	gb_connect_opts_init(&co);
	co.transport = o->transport == GBB_RDMA ? GB_TRANSPORT_RDMA :
						  GB_TRANSPORT_TCP;
	co.host = o->addr;
	co.port = (uint16_t)port;
	co.spin_us = o->spin_us;
	ret = gb_connect(&co, &c->gc);
	if (ret) {
		snprintf(err, errlen, "gb_connect: %s", gb_strerror(ret));
		lg_free(c);
		return NULL;
	}
	c->onesided = !gb_onesided_stats(c->gc, &os) && os.active;
	return c;
}

static void lg_close(struct gbb_conn *c)
{
	gb_fleet_destroy(c->fl);
	gb_close(c->gc);
	lg_free(c);
}

static int lg_set(struct gbb_conn *c, const char *key, size_t klen,
		  const void *val, size_t len)
{
	int ret;

	if (c->fl) {
		ret = gb_fleet_set(c->fl, key, klen, val, len, 0, 0);
		if (!ret)
			return GBB_OK;
		fprintf(stderr, "gb_fleet_set: %s: %s\n", gb_strerror(ret),
			gb_fleet_errmsg(c->fl));
		return lg_status(ret) == GBB_OK ? GBB_PROTO : lg_status(ret);
	}
	ret = gb_set(c->gc, key, klen, val, len, 0, 0);
	if (!ret)
		return GBB_OK;
	fprintf(stderr, "gb_set: %s: %s\n", gb_strerror(ret),
		gb_errmsg(c->gc));
	return lg_status(ret) == GBB_OK ? GBB_PROTO : lg_status(ret);
}

static int lg_get_submit(struct gbb_conn *c, const char *key, size_t klen,
			 void *buf, size_t cap, uint64_t tag)
{
	struct lg_req *r;

	(void)buf;	/* views: the value stays in the library's memory */
	if (c->nq + c->nd >= c->depth || klen > GBB_KEY_LEN)
		return -1;
	r = &c->q[c->nq++];
	memset(r, 0, sizeof(*r));
	memcpy(r->key, key, klen);
	r->klen = klen;
	r->cap = cap;
	r->comp.tag = tag;
	return 0;
}

/* One chunk (or a failure) of request @r. */
static void lg_chunk(struct gbb_conn *c, struct lg_req *r, int status,
		     const struct gb_view *v)
{
	uint64_t t;

	if (r->done)
		return;
	if (status) {
		r->comp.status = lg_status(status);
		r->done = true;
		goto stamp;
	}
	r->comp.len = v->total;
	if (v->total > r->cap) {
		r->comp.status = GBB_TOOBIG;
		r->done = true;
		goto stamp;
	}
	if (c->validate && v->len) {
		t = gbb_now();
		r->crc = gbb_crc32c(r->crc, v->data, v->len);
		r->comp.crc_ns += gbb_now() - t;
	}
	if (!gb_view_last(v))
		return;
	r->done = true;
	r->comp.has_crc = c->validate;
	r->comp.crc = r->crc;
stamp:
	r->comp.t_sub = v ? v->ts.submit_ns : 0;
	r->comp.t_ttfb = v ? v->ts.header_ns : 0;
	r->comp.t_payload = v ? v->ts.payload_ns : 0;
	r->comp.t_done = v ? v->ts.complete_ns : 0;
}

static void lg_many_cb(void *arg, size_t idx, int status,
		       const struct gb_view *v)
{
	struct gbb_conn *c = arg;

	if (idx < c->nq)
		lg_chunk(c, &c->q[idx], status, status ? NULL : v);
}

/* Send the queued GETs (one, or one batch) and collect their results. */
static void lg_flush(struct gbb_conn *c)
{
	struct gb_view v;
	unsigned int i;
	int ret;

	if (c->nq == 1 && !c->fl) {
		struct lg_req *r = &c->q[0];

		ret = gb_get(c->gc, r->key, r->klen, &v);
		if (ret) {
			lg_chunk(c, r, ret, NULL);
		} else {
			for (;;) {
				lg_chunk(c, r, 0, &v);
				if (gb_view_last(&v) || r->done)
					break;
				ret = gb_view_next(&v);
				if (ret) {
					lg_chunk(c, r, ret, NULL);
					break;
				}
			}
			gb_release(&v);
		}
	} else {
		for (i = 0; i < c->nq; i++) {
			c->keys[i] = c->q[i].key;
			c->klens[i] = c->q[i].klen;
		}
		if (c->fl)
			ret = gb_fleet_get_many(c->fl, c->nq, c->keys,
						c->klens, lg_many_cb, c);
		else if (c->onesided)
			ret = gb_get_many_onesided(c->gc, c->nq, c->keys,
						   c->klens, lg_many_cb, c);
		else
			ret = gb_get_many(c->gc, c->nq, c->keys, c->klens,
					  lg_many_cb, c);
		for (i = 0; i < c->nq; i++)
			if (!c->q[i].done)
				lg_chunk(c, &c->q[i], ret ? ret : -GB_EPROTO,
					 NULL);
	}
	for (i = 0; i < c->nq; i++)
		c->d[(c->dhead + c->nd + i) % c->depth] = c->q[i].comp;
	c->nd += c->nq;
	c->nq = 0;
}

static int lg_get_wait(struct gbb_conn *c, struct gbb_comp *out)
{
	if (!c->nd)
		lg_flush(c);
	if (!c->nd)
		return -1;
	*out = c->d[c->dhead];
	c->dhead = (c->dhead + 1) % c->depth;
	c->nd--;
	return 0;
}

static const struct gbb_backend lg_backend = {
	.name = "libgoblin",
	.open = lg_open,
	.set = lg_set,
	.get_submit = lg_get_submit,
	.get_wait = lg_get_wait,
	.close = lg_close,
};

const struct gbb_backend *gbb_be_libgoblin = &lg_backend;
const char *gbb_libgoblin_why = "";
#else
const struct gbb_backend *gbb_be_libgoblin;
const char *gbb_libgoblin_why = "gbbench was built without lib/ (libgoblin)";
#endif
