// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: HTTP/1.1 over the in-kernel TCP listeners.
 *
 * A protocol of kmod/tcp.c (struct gb_tcp_proto, kmod/tcp_int.h): tcp.c
 * accepts, receives into the connection's buffer, queues output and sends
 * values page by page without copying; this file turns request heads
 * (kmod/proto/http_parse.c) into store operations:
 *
 *   GET /key    200 with the value, 206 for a single byte range (only the
 *               pages of the range are touched, RAM head or SSD tail),
 *               304 for a matching If-None-Match, 404, 416, 412 for a
 *               failed If-Match
 *   HEAD /key   the same without the body
 *   PUT /key    Content-Length bytes become the value: 201 (new) or 204
 *               (replaced); X-Goblin-Flags, X-Goblin-TTL or Cache-Control
 *               max-age; Expect: 100-continue; If-Match / If-None-Match
 *               (412)
 *   DELETE /key 204 or 404; If-Match / If-None-Match (412)
 *
 * The ETag is the object's CAS unique, Last-Modified its commit time
 * (never later than the response's Date). If-Match, If-None-Match and
 * If-Unmodified-Since of a PUT or DELETE are evaluated against the value
 * seen when the head arrives and hold atomically when the store is
 * changed: the change is made as a memcache cas (that value's CAS
 * unique), add (no value) or, for "If-Match: *" alone, replace, which
 * fails with 412 if the key changed meanwhile. If-Range decides whether a
 * GET's Range is honoured.
 *
 * Requests are served in order (pipelining) on a persistent connection.
 * Every refusal that leaves the framing of the rest of the stream in
 * doubt (a malformed head, 411, 413, 405 with a body...) is answered with
 * "Connection: close" and the connection is closed once the answer is
 * sent (gb_tcp_linger()).
 *
 * Bounds: a head is at most HTTP_HEAD_MAX bytes and must arrive within
 * the listener's header_timeout (slow loris; the connection is closed);
 * a body must bring GB_HTTP_BODY_STEP bytes (or its end) within every
 * header_timeout seconds (slow loris on the body; the clock stops while
 * the connection's output is backlogged and nothing is read); bodies of
 * requests other than PUT are skipped up to GB_HTTP_SKIP_MAX; PUT bodies
 * are limited by the store's largest value (413), and all PUT bodies
 * still arriving together to GB_HTTP_PUT_INFLIGHT_MAX bytes (503).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/time.h>
#include <linux/timekeeping.h>

#include "goblin.h"
#include "http_parse.h"
#include "listener.h"
#include "registry.h"
#include "store.h"
#include "tcp_int.h"

#define GB_HTTP_SKIP_MAX	(64 << 10)	/* body of a GET/HEAD/DELETE */
/* bytes of a body that must arrive within each header_timeout */
#define GB_HTTP_BODY_STEP	(64 << 10)
/*
 * Value bytes reserved for PUT bodies still arriving, all connections
 * together: a PUT head alone makes the store reserve (and evict for) its
 * Content-Length; beyond this it is answered 503 with Retry-After.
 */
#define GB_HTTP_PUT_INFLIGHT_MAX	(64LL << 20)
#define GB_HTTP_HDR_MAX		640		/* one response head */
#define GB_HTTP_DATE_MAX	32		/* an IMF-fixdate and its NUL */
#define GB_HTTP_DEFAULT_HEADER_TIMEOUT	10	/* seconds */
#define GB_HTTP_DEFAULT_IDLE_TIMEOUT	60	/* seconds */

enum gb_http_state {
	GB_HTTP_HEAD,		/* reading a request head */
	GB_HTTP_BODY,		/* PUT: value bytes into h->obj */
	GB_HTTP_SKIP,		/* a body nobody wants */
	GB_HTTP_DONE,		/* answered, closing */
};

struct gb_http_conn {
	enum gb_http_state state;
	struct http_req req;
	struct gb_obj *obj;	/* PUT in progress */
	u64 dleft;		/* body bytes still to come */
	u64 dmark;		/* dleft when the body deadline was set */
	u64 reserved;		/* PUT: bytes counted in gb_http_put_inflight */
	bool paused;		/* body deadline stopped: output backlogged */
	bool cond;		/* PUT: commit as @mode with @cas */
	enum gb_store_mode mode;
	u64 cas;
	bool timed;		/* the head's deadline is set */
	char hdr[GB_HTTP_HDR_MAX];
};

/* Counters since load: requests by method, responses by status class. */
enum { GB_HTTP_M_NR = HTTP_M_DELETE + 1 };
static atomic64_t gb_http_by_method[GB_HTTP_M_NR];
static atomic64_t gb_http_by_class[6];		/* [1] = 1xx .. [5] = 5xx */
static atomic64_t gb_http_body_in;		/* PUT value bytes */
static atomic64_t gb_http_body_out;		/* GET value bytes queued */
static atomic64_t gb_http_put_inflight;		/* see GB_HTTP_PUT_INFLIGHT_MAX */

static const char gb_http_busy[] =
	"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
	"Retry-After: 1\r\nConnection: close\r\n\r\n";

/* IMF-fixdate (RFC 9110 5.6.7) of @t, for Date and Last-Modified */
static int gb_http_date(char *buf, size_t len, time64_t t)
{
	static const char *const wd[] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mon[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	time64_to_tm(t, 0, &tm);
	return scnprintf(buf, len, "%s, %02d %s %ld %02d:%02d:%02d GMT",
			 wd[tm.tm_wday], tm.tm_mday, mon[tm.tm_mon],
			 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/*
 * Queue a response head dated @now. @clen: Content-Length, or -1 for none
 * (1xx, 204, 304). @extra: more header lines ("Name: value\r\n"...), or
 * NULL.
 */
static int gb_http_head_at(struct gb_tcp_conn *c, struct gb_http_conn *h,
			   unsigned int status, s64 clen, const char *extra,
			   time64_t now)
{
	const struct http_req *r = &h->req;
	char *b = h->hdr;
	size_t n;

	atomic64_inc(&gb_http_by_class[clamp(status / 100, 1U, 5U)]);
	n = scnprintf(b, GB_HTTP_HDR_MAX,
		      "HTTP/1.1 %u %s\r\nServer: goblin\r\nDate: ", status,
		      http_reason(status));
	n += gb_http_date(b + n, GB_HTTP_HDR_MAX - n, now);
	n += scnprintf(b + n, GB_HTTP_HDR_MAX - n, "\r\n");
	if (clen >= 0)
		n += scnprintf(b + n, GB_HTTP_HDR_MAX - n,
			       "Content-Length: %lld\r\n", clen);
	if (extra)
		n += scnprintf(b + n, GB_HTTP_HDR_MAX - n, "%s", extra);
	if (status >= 200) {
		if (!r->keep_alive)
			n += scnprintf(b + n, GB_HTTP_HDR_MAX - n,
				       "Connection: close\r\n");
		else if (!r->minor)
			n += scnprintf(b + n, GB_HTTP_HDR_MAX - n,
				       "Connection: keep-alive\r\n");
	}
	n += scnprintf(b + n, GB_HTTP_HDR_MAX - n, "\r\n");
	return gb_tcp_out_text(c, b, n);
}

static int gb_http_head(struct gb_tcp_conn *c, struct gb_http_conn *h,
			unsigned int status, s64 clen, const char *extra)
{
	return gb_http_head_at(c, h, status, clen, extra,
			       ktime_get_real_seconds());
}

/* A bodiless answer; closes the connection unless keep-alive holds. */
static int gb_http_answer(struct gb_tcp_conn *c, struct gb_http_conn *h,
			  unsigned int status, const char *extra)
{
	bool empty = status == 204 || status == 304 || status < 200;

	return gb_http_head(c, h, status, empty ? -1 : 0, extra);
}

/* Answer and close: the rest of the stream cannot be trusted. */
static int gb_http_refuse(struct gb_tcp_conn *c, struct gb_http_conn *h,
			  unsigned int status)
{
	const char *extra = NULL;
	int err;

	if (status == 405)
		extra = "Allow: " HTTP_ALLOW "\r\n";
	else if (status == 503)
		extra = "Retry-After: 1\r\n";
	h->req.keep_alive = false;
	err = gb_http_answer(c, h, status, extra);
	h->state = GB_HTTP_DONE;
	gb_tcp_linger(c);
	return err;
}

#define GB_HTTP_ETAG_LEN	18		/* "%016llx" with its quotes */

static void gb_http_etag(char *buf, const struct gb_obj *obj)
{
	snprintf(buf, GB_HTTP_ETAG_LEN + 1, "\"%016llx\"", READ_ONCE(obj->cas));
}

/* "If-Match: *" */
static bool gb_http_im_any(const struct http_req *r)
{
	return r->im && r->im_len == 1 && *r->im == '*';
}

/*
 * RFC 9110 13.2.2 steps 1 and 2: If-Match, else If-Unmodified-Since
 * (@obj: the current value, or NULL; @lm: its Last-Modified). True if
 * the request may go on.
 */
static bool gb_http_precond_12(const struct http_req *r,
			       const struct gb_obj *obj, const char *etag,
			       time64_t lm)
{
	if (r->im)
		return obj && http_im_match(r->im, r->im_len, etag,
					    GB_HTTP_ETAG_LEN);
	/* no modification date without a value: ignored (13.1.4) */
	return !obj || !r->has_ius || lm <= r->ius;
}

/*
 * Steps 1 to 3 for a PUT or DELETE (@obj: the current value, or NULL):
 * true if the request may go on.
 */
static bool gb_http_precond(const struct http_req *r, const struct gb_obj *obj)
{
	char etag[GB_HTTP_ETAG_LEN + 1] = "";

	if (obj)
		gb_http_etag(etag, obj);
	if (!gb_http_precond_12(r, obj, etag, obj ? gb_obj_mtime(obj) : 0))
		return false;
	return !obj || !r->inm ||
	       !http_inm_match(r->inm, r->inm_len, etag, GB_HTTP_ETAG_LEN);
}

/*
 * RFC 9110 13.1.5: is the Range of a GET to be honoured? If-Range must be
 * the current strong ETag exactly, or exactly the Last-Modified date
 * @lm sent (a weak tag or any other value: the whole value is sent).
 */
static bool gb_http_if_range(const struct http_req *r, const char *etag,
			     time64_t lm)
{
	s64 t;

	if (!r->ir)
		return true;
	if (r->ir_len && r->ir[0] == '"')
		return r->ir_len == GB_HTTP_ETAG_LEN &&
		       !memcmp(r->ir, etag, GB_HTTP_ETAG_LEN);
	return !http_parse_date(r->ir, r->ir_len, &t) && t == lm;
}

static int gb_http_get(struct gb_tcp_conn *c, struct gb_http_conn *h)
{
	const struct http_req *r = &h->req;
	char etag[GB_HTTP_ETAG_LEN + 1], lm[GB_HTTP_DATE_MAX], extra[256];
	time64_t now = ktime_get_real_seconds(), lmt;
	struct gb_obj *obj;
	bool range;
	u64 off, cnt;
	int err, n;

	/* no value: 404 whatever the preconditions say (RFC 9110 13.2.1) */
	obj = gb_store_get(r->key, r->klen);
	if (!obj)
		return gb_http_answer(c, h, 404, NULL);
	gb_http_etag(etag, obj);
	/* a clock stepped back: Last-Modified is never after Date */
	lmt = min_t(time64_t, gb_obj_mtime(obj), now);
	if (!gb_http_precond_12(r, obj, etag, lmt)) {
		gb_obj_put(obj);
		return gb_http_head_at(c, h, 412, 0, NULL, now);
	}
	gb_http_date(lm, sizeof(lm), lmt);
	n = scnprintf(extra, sizeof(extra),
		      "ETag: %s\r\nLast-Modified: %s\r\n"
		      "Accept-Ranges: bytes\r\nX-Goblin-Flags: %u\r\n", etag,
		      lm, obj->flags);
	if (r->inm &&
	    http_inm_match(r->inm, r->inm_len, etag, GB_HTTP_ETAG_LEN)) {
		gb_obj_put(obj);
		return gb_http_head_at(c, h, 304, -1, extra, now);
	}
	off = 0;
	cnt = obj->len;
	range = r->has_range && gb_http_if_range(r, etag, lmt);
	if (range) {
		if (http_range_resolve(r, obj->len, &off, &cnt)) {
			scnprintf(extra + n, sizeof(extra) - n,
				  "Content-Range: bytes */%llu\r\n", obj->len);
			gb_obj_put(obj);
			return gb_http_head_at(c, h, 416, 0, extra, now);
		}
		scnprintf(extra + n, sizeof(extra) - n,
			  "Content-Range: bytes %llu-%llu/%llu\r\n", off,
			  off + cnt - 1, obj->len);
	}
	err = gb_http_head_at(c, h, range ? 206 : 200, cnt, extra, now);
	if (err || r->method == HTTP_M_HEAD) {
		gb_obj_put(obj);
		return err;
	}
	atomic64_add(cnt, &gb_http_body_out);
	return gb_tcp_out_obj(c, obj, off, cnt);
}

/*
 * (Re)arm the deadline of a body (slow loris on the body): the next
 * GB_HTTP_BODY_STEP bytes, or the rest, within header_timeout seconds.
 */
static void gb_http_body_deadline(struct gb_tcp_conn *c,
				  struct gb_http_conn *h)
{
	u32 hto = gb_tcp_conn_cfg(c)->header_timeout;

	h->dmark = h->dleft;
	h->paused = false;
	gb_tcp_set_deadline(c, jiffies + (unsigned long)hto * HZ);
}

/* A PUT's body reservation goes (committed, dropped or closing). */
static void gb_http_put_release(struct gb_http_conn *h)
{
	if (h->reserved)
		atomic64_sub(h->reserved, &gb_http_put_inflight);
	h->reserved = 0;
}

/* Skip a body of @len bytes nobody wants (the answer is queued). */
static void gb_http_skip(struct gb_tcp_conn *c, struct gb_http_conn *h,
			 u64 len)
{
	if (!len)
		return;
	h->dleft = len;
	h->state = GB_HTTP_SKIP;
	gb_http_body_deadline(c, h);
}

/*
 * A PUT's preconditions failed before its body: 412, then skip a small
 * body; close rather than wait for a body an Expect: 100-continue client
 * will not send, or read a large one.
 */
static int gb_http_put_412(struct gb_tcp_conn *c, struct gb_http_conn *h)
{
	const struct http_req *r = &h->req;
	int err;

	if (r->cl && (r->expect_100 || r->cl > GB_HTTP_SKIP_MAX))
		return gb_http_refuse(c, h, 412);
	err = gb_http_answer(c, h, 412, NULL);
	if (!err)
		gb_http_skip(c, h, r->cl);
	return err;
}

static int gb_http_put_begin(struct gb_tcp_conn *c, struct gb_http_conn *h)
{
	const struct http_req *r = &h->req;
	struct gb_obj *obj;
	s64 exptime = 0;

	if (r->cl > GB_VALUE_MAX)
		return gb_http_refuse(c, h, 413);
	if (r->has_ttl && r->ttl)
		exptime = gb_now() + r->ttl;
	h->cond = r->im || r->inm || r->has_ius;
	if (h->cond) {
		obj = gb_store_peek(r->key, r->klen);
		if (!gb_http_precond(r, obj)) {
			if (obj)
				gb_obj_put(obj);
			return gb_http_put_412(c, h);
		}
		/*
		 * The store changes only if the value seen is still there
		 * (or, for "If-Match: *" alone, any value is).
		 */
		h->cas = 0;
		if (!obj)
			h->mode = GB_MODE_ADD;
		else if (gb_http_im_any(r) && !r->inm)
			h->mode = GB_MODE_REPLACE;
		else
			h->mode = GB_MODE_CAS;
		if (h->mode == GB_MODE_CAS)
			h->cas = READ_ONCE(obj->cas);
		if (obj)
			gb_obj_put(obj);
	}
	/* the value bytes of every PUT still arriving are bounded */
	if (atomic64_add_return(r->cl, &gb_http_put_inflight) >
	    GB_HTTP_PUT_INFLIGHT_MAX) {
		atomic64_sub(r->cl, &gb_http_put_inflight);
		return gb_http_refuse(c, h, 503);
	}
	h->reserved = r->cl;
	obj = gb_obj_alloc(r->key, r->klen, r->has_flags ? r->flags : 0,
			   exptime, r->cl);
	if (IS_ERR(obj)) {
		gb_http_put_release(h);
		switch (PTR_ERR(obj)) {
		case -E2BIG:
			return gb_http_refuse(c, h, 413);
		case -EINVAL:
			return gb_http_refuse(c, h, 400);
		default:
			return gb_http_refuse(c, h, 503);
		}
	}
	h->obj = obj;
	h->dleft = r->cl;
	h->state = GB_HTTP_BODY;
	gb_http_body_deadline(c, h);
	if (r->expect_100 && r->cl)
		return gb_http_head(c, h, 100, -1, NULL);
	return 0;
}

/*
 * The status of a PUT the store could not take (@err < 0): too large for
 * any value (413); an I/O error writing or reading back its tail, or a
 * CRC that does not match (500: retrying will not help, as memcache's
 * "SERVER_ERROR I/O error storing object"); anything else is a shortage
 * of memory (503 with Retry-After).
 */
static unsigned int gb_http_store_status(int err)
{
	switch (err) {
	case -E2BIG:
		return 413;
	case -EIO:
	case -EBADMSG:
		return 500;
	default:
		return 503;
	}
}

static int gb_http_put_end(struct gb_tcp_conn *c, struct gb_http_conn *h)
{
	bool replaced = false;
	int ret;

	/* 201 or 204: whether the commit itself replaced a value */
	ret = gb_store_commit_replaced(h->obj, h->cond ? h->mode : GB_MODE_SET,
				       h->cas, &replaced);
	h->obj = NULL;
	gb_http_put_release(h);
	h->state = GB_HTTP_HEAD;
	if (ret < 0)
		return gb_http_refuse(c, h, gb_http_store_status(ret));
	/* the key changed since the head: the precondition no longer holds */
	if (ret != GB_STORED)
		return gb_http_answer(c, h, 412, NULL);
	return gb_http_answer(c, h, replaced ? 204 : 201, NULL);
}

static int gb_http_delete(struct gb_tcp_conn *c, struct gb_http_conn *h)
{
	const struct http_req *r = &h->req;
	struct gb_obj *obj;
	u64 cas = 0;
	int ret;

	if (r->im || r->inm || r->has_ius) {
		/* no value: 404 whatever the preconditions (RFC 9110 13.2.1) */
		obj = gb_store_peek(r->key, r->klen);
		if (!obj)
			return gb_http_answer(c, h, 404, NULL);
		if (!gb_http_precond(r, obj)) {
			gb_obj_put(obj);
			return gb_http_answer(c, h, 412, NULL);
		}
		/* only the value seen, unless "If-Match: *" alone */
		if (!gb_http_im_any(r) || r->inm)
			cas = READ_ONCE(obj->cas);
		gb_obj_put(obj);
	}
	ret = gb_store_delete(r->key, r->klen, cas);
	if (ret == GB_STORED)
		return gb_http_answer(c, h, 204, NULL);
	/* GB_EXISTS: the value the precondition held for was replaced */
	return gb_http_answer(c, h, ret == GB_EXISTS ? 412 : 404, NULL);
}

/* A complete head: serve it or start its body. */
static int gb_http_request(struct gb_tcp_conn *c, struct gb_http_conn *h)
{
	const struct http_req *r = &h->req;
	int ret;

	if (r->method < GB_HTTP_M_NR)
		atomic64_inc(&gb_http_by_method[r->method]);
	if (r->status)
		return gb_http_refuse(c, h, r->status);
	if (r->method != HTTP_M_PUT && r->has_cl && r->cl > GB_HTTP_SKIP_MAX)
		return gb_http_refuse(c, h, 413);
	if (r->method == HTTP_M_PUT)
		ret = gb_http_put_begin(c, h);
	else if (r->method == HTTP_M_DELETE)
		ret = gb_http_delete(c, h);
	else
		ret = gb_http_get(c, h);
	if (!ret && r->method != HTTP_M_PUT && r->has_cl)
		gb_http_skip(c, h, r->cl);
	/* answered without a body to come (a PUT's own is BODY or SKIP) */
	if (!ret && !r->keep_alive && h->state == GB_HTTP_HEAD) {
		h->state = GB_HTTP_DONE;
		gb_tcp_linger(c);
	}
	return ret;
}

static int gb_http_process(struct gb_tcp_conn *c)
{
	struct gb_http_conn *h = gb_tcp_priv(c);
	u32 hto = gb_tcp_conn_cfg(c)->header_timeout;
	size_t avail, take;
	char *p;
	int n, ret;

	while (!gb_tcp_backlog(c)) {
		avail = gb_tcp_rx(c, &p);
		switch (h->state) {
		case GB_HTTP_DONE:
			gb_tcp_rx_consume(c, avail);
			return 0;
		case GB_HTTP_BODY:
		case GB_HTTP_SKIP:
			if (h->paused)
				gb_http_body_deadline(c, h);
			take = min_t(u64, avail, h->dleft);
			if (!take && h->dleft)
				return 1;
			if (h->state == GB_HTTP_BODY && take) {
				ret = gb_obj_write(h->obj, h->req.cl - h->dleft,
						   p, take);
				if (ret) {
					gb_obj_put(h->obj);
					h->obj = NULL;
					gb_http_put_release(h);
					return gb_http_refuse(c, h,
						gb_http_store_status(ret));
				}
				atomic64_add(take, &gb_http_body_in);
			}
			gb_tcp_rx_consume(c, take);
			h->dleft -= take;
			if (h->dleft) {
				/* progress: the next step gets its own time */
				if (h->dmark - h->dleft >= GB_HTTP_BODY_STEP)
					gb_http_body_deadline(c, h);
				continue;
			}
			gb_tcp_set_deadline(c, 0);
			if (h->state == GB_HTTP_BODY) {
				ret = gb_http_put_end(c, h);
			} else {
				h->state = GB_HTTP_HEAD;
				ret = 0;
			}
			if (ret)
				return ret;
			if (!h->req.keep_alive && h->state == GB_HTTP_HEAD) {
				h->state = GB_HTTP_DONE;
				gb_tcp_linger(c);
			}
			continue;
		case GB_HTTP_HEAD:
			break;
		}
		n = http_parse(p, avail, &h->req);
		if (n == HTTP_PARSE_MORE) {
			/*
			 * The head's clock starts with its first byte and
			 * is not pushed back by later ones (slow loris).
			 */
			if (avail && hto && !h->timed) {
				gb_tcp_set_deadline(c, jiffies + hto * HZ);
				h->timed = true;
			}
			return 1;
		}
		gb_tcp_set_deadline(c, 0);
		h->timed = false;
		gb_tcp_count_request(c);
		if (n == HTTP_PARSE_ERROR)
			return gb_http_refuse(c, h, h->req.status);
		/* n <= avail: the parser never reports more than it was given */
		ret = gb_http_request(c, h);
		/* the head is done with only now: req.inm/im pointed into it */
		gb_tcp_rx_consume(c, n);
		h->req.inm = NULL;
		h->req.im = NULL;
		if (ret)
			return ret;
	}
	/*
	 * Nothing is read while the output is backlogged: a body's clock
	 * stops (re-armed when reading resumes); tcp.c's write-stall timer
	 * bounds a client that does not read.
	 */
	if ((h->state == GB_HTTP_BODY || h->state == GB_HTTP_SKIP) &&
	    !h->paused) {
		gb_tcp_set_deadline(c, 0);
		h->paused = true;
	}
	return 0;
}

static int gb_http_conn_init(struct gb_tcp_conn *c)
{
	struct gb_http_conn *h = kzalloc(sizeof(*h), GFP_KERNEL);

	if (!h)
		return -ENOMEM;
	gb_tcp_set_priv(c, h);
	return 0;
}

static void gb_http_conn_release(struct gb_tcp_conn *c)
{
	struct gb_http_conn *h = gb_tcp_priv(c);

	if (h->obj)
		gb_obj_put(h->obj);
	gb_http_put_release(h);
	kfree(h);
}

static const struct gb_tcp_proto gb_http_proto = {
	.kind = GB_LISTENER_HTTP,
	.name = "http",
	.refuse = gb_http_busy,
	.init = gb_http_conn_init,
	.release = gb_http_conn_release,
	.process = gb_http_process,
};

/* ---- registry ---- */

static int gb_http_add(const struct gb_listener_config *cfg,
		       struct netlink_ext_ack *extack)
{
	struct gb_listener_config c = *cfg;

	if (!c.header_timeout)
		c.header_timeout = GB_HTTP_DEFAULT_HEADER_TIMEOUT;
	/*
	 * The header deadline starts with a head's first byte: without an
	 * idle limit, connections that send nothing (or idle keep-alive
	 * ones) would hold every slot for as long as they like.
	 */
	if (!c.idle_timeout)
		c.idle_timeout = GB_HTTP_DEFAULT_IDLE_TIMEOUT;
	return gb_tcp_listen(&c, &gb_http_proto, extack);
}

static int gb_http_del(const struct sockaddr_storage *addr,
		       struct netlink_ext_ack *extack)
{
	return gb_tcp_unlisten(GB_LISTENER_HTTP, addr, extack);
}

static int gb_http_walk(u32 *cursor,
			int (*fn)(const struct gb_listener_info *info,
				  void *arg),
			void *arg)
{
	return gb_tcp_listener_walk(GB_LISTENER_HTTP, cursor, fn, arg);
}

static int gb_http_conn_walk(u64 *cursor, gb_conn_visit_fn fn, void *arg)
{
	return gb_tcp_kind_conn_walk(GB_LISTENER_HTTP, cursor, fn, arg);
}

static void gb_http_stats(struct gb_xport_stats *st)
{
	int i;

	gb_tcp_kind_stats(GB_LISTENER_HTTP, st);
	for (i = 0; i < GB_HTTP_M_NR; i++)
		st->requests += atomic64_read(&gb_http_by_method[i]);
	st->bytes_read = atomic64_read(&gb_http_body_in);
	st->bytes_written = atomic64_read(&gb_http_body_out);
	st->http_methods[0] = atomic64_read(&gb_http_by_method[HTTP_M_GET]);
	st->http_methods[1] = atomic64_read(&gb_http_by_method[HTTP_M_HEAD]);
	st->http_methods[2] = atomic64_read(&gb_http_by_method[HTTP_M_PUT]);
	st->http_methods[3] = atomic64_read(&gb_http_by_method[HTTP_M_DELETE]);
	st->http_methods[4] = atomic64_read(&gb_http_by_method[HTTP_M_OTHER]);
	for (i = 0; i < 5; i++)
		st->http_status[i] = atomic64_read(&gb_http_by_class[i + 1]);
}

static const struct gb_listener_ops gb_http_listener_ops = {
	.add = gb_http_add,
	.del = gb_http_del,
	.walk = gb_http_walk,
	.conn_walk = gb_http_conn_walk,
	.stats = gb_http_stats,
};

int gb_http_init(void)
{
	gb_transport_register(GB_LISTENER_HTTP, &gb_http_listener_ops);
	return 0;
}

void gb_http_exit(void)
{
	/* their connections go with gb_tcp_exit(), which waits for all */
	gb_tcp_kind_stop_all(GB_LISTENER_HTTP);
	gb_transport_unregister(GB_LISTENER_HTTP);
}
