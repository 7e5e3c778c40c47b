// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libgoblin: transport-independent entry points, argument checks, error
 * reporting and the generic copy path.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

/*
 * Client timing hook (Documentation/tracing.rst): when the environment
 * names a file in GOBLIN_CLIENT_TIMING at the first gb_connect(), every
 * finished request appends one line "OP STATUS SUBMIT HEADER PAYLOAD
 * COMPLETE" (its struct gb_timestamps, CLOCK_MONOTONIC ns) to it, for
 * tools/gbtrace --client. -2: not looked at yet, -1: off.
 */
static int gb_timing_fd = -2;

static void gb_timing_init(void)
{
	const char *path;
	int fd, old = -2;

	if (__atomic_load_n(&gb_timing_fd, __ATOMIC_ACQUIRE) != -2)
		return;
	path = getenv("GOBLIN_CLIENT_TIMING");
	fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND |
				  O_CLOEXEC, 0644) : -1;
	if (fd < 0)
		fd = -1;
	if (!__atomic_compare_exchange_n(&gb_timing_fd, &old, fd, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    fd >= 0)
		close(fd);
}

static void gb_timing_emit(const char *op, int status,
			   const struct gb_timestamps *ts)
{
	int fd = __atomic_load_n(&gb_timing_fd, __ATOMIC_ACQUIRE);
	char line[160];
	int n;

	if (fd < 0 || !ts->submit_ns)
		return;
	n = snprintf(line, sizeof(line),
		     "%s %d %llu %llu %llu %llu\n", op, status,
		     (unsigned long long)ts->submit_ns,
		     (unsigned long long)ts->header_ns,
		     (unsigned long long)ts->payload_ns,
		     (unsigned long long)ts->complete_ns);
	/* one write(): lines of concurrent threads do not interleave */
	if (n > 0 && (size_t)n < sizeof(line) && write(fd, line, n) < 0)
		return;
}

/* Message of the last failed gb_connect() in this thread. */
static __thread char gb_connect_err[GB_ERRMSG_LEN];

static const char *const gb_err_names[GB_ERROR_MAX] = {
	[GB_OK]		= "success",
	[GB_ENOTFOUND]	= "not found",
	[GB_ENOTSTORED]	= "not stored",
	[GB_EKEYLEN]	= "key too long or empty",
	[GB_EKEY]	= "key contains invalid characters",
	[GB_EVALLEN]	= "value too large",
	[GB_EREJECTED]	= "server rejected the request",
	[GB_ESERVER]	= "server error",
	[GB_ECONNLOST]	= "connection lost",
	[GB_ECONNECT]	= "connection failed",
	[GB_EPROTO]	= "protocol error",
	[GB_ETIMEDOUT]	= "timed out",
	[GB_ENOMEM]	= "out of memory",
	[GB_EINVAL]	= "invalid argument",
	[GB_ENOSPC]	= "buffer too small",
	[GB_EBUSY]	= "too many views held",
	[GB_ENOTSUP]	= "not supported",
	[GB_ESYS]	= "system error",
	[GB_ECRC]	= "value failed its CRC check",
};

const char *gb_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= GB_ERROR_MAX)
		return "unknown error";
	return gb_err_names[err];
}

const char *gb_errmsg(const struct gb_conn *c)
{
	if (!c)
		return gb_connect_err[0] ? gb_connect_err : "success";
	return c->err[0] ? c->err : "success";
}

const char *gb_transport_name(enum gb_transport t)
{
	switch (t) {
	case GB_TRANSPORT_TCP:
		return "tcp";
	case GB_TRANSPORT_RDMA:
		return "rdma";
	}
	return "unknown";
}

int gb_transport_parse(const char *name, enum gb_transport *t)
{
	if (!name || !t)
		return -GB_EINVAL;
	if (!strcasecmp(name, "tcp") || !strcasecmp(name, "memcache")) {
		*t = GB_TRANSPORT_TCP;
		return 0;
	}
	if (!strcasecmp(name, "rdma")) {
		*t = GB_TRANSPORT_RDMA;
		return 0;
	}
	return -GB_EINVAL;
}

/**
 * gb_sanitize() - copy untrusted bytes into a printable C string
 * @dst:    destination
 * @dstlen: size of @dst (> 0)
 * @src:    bytes, possibly from the network
 * @len:    number of bytes in @src
 *
 * Non-printable bytes become '?'. Return: length of the result.
 */
size_t gb_sanitize(char *dst, size_t dstlen, const char *src, size_t len)
{
	size_t i;

	if (len > dstlen - 1)
		len = dstlen - 1;
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)src[i];

		dst[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	dst[len] = '\0';
	return len;
}

static void gb_vset(struct gb_conn *c, int err, const char *fmt, va_list ap)
{
	int n = snprintf(c->err, sizeof(c->err), "%s: ", gb_strerror(err));

	if (n < 0 || (size_t)n >= sizeof(c->err))
		return;
	vsnprintf(c->err + n, sizeof(c->err) - n, fmt, ap);
}

/**
 * gb_fail() - record a failure that leaves the connection usable
 * @c:   connection
 * @err: positive GB_E* code
 * @fmt: printf-style detail
 *
 * Return: -@err, so callers can "return gb_fail(...)".
 */
int gb_fail(struct gb_conn *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_vset(c, err, fmt, ap);
	va_end(ap);
	return -err;
}

/**
 * gb_fatal() - record a failure after which the connection is unusable
 * @c:   connection
 * @err: positive GB_E* code
 * @fmt: printf-style detail
 *
 * Later calls on @c fail with the same code without touching the wire.
 * Return: -@err.
 */
int gb_fatal(struct gb_conn *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gb_vset(c, err, fmt, ap);
	va_end(ap);
	if (!c->dead)
		c->dead = err;
	return -err;
}

const char *gb_version(void)
{
	return GB_VERSION_BUILD;
}

unsigned int gb_version_number(void)
{
	return GB_VERSION_NUMBER;
}

int gb_struct_in(void *dst, size_t dsize, const void *src, size_t ssize)
{
	const unsigned char *tail = (const unsigned char *)src + dsize;
	size_t i;

	/* This is the first layout: no older, smaller one to convert. */
	if (ssize < dsize)
		return -GB_EINVAL;
	/* From newer headers: fine as long as the new fields are unused. */
	for (i = 0; i < ssize - dsize; i++)
		if (tail[i])
			return -GB_ENOTSUP;
	memcpy(dst, src, dsize);
	return 0;
}

int gb_struct_out(void *dst, size_t dsize, const void *src, size_t ssize)
{
	if (dsize < ssize)
		return -GB_EINVAL;
	memcpy(dst, src, ssize);
	memset((char *)dst + ssize, 0, dsize - ssize);
	return 0;
}

/*
 * 0.3 appended one_sided and reserved[]: the older layout is the same up
 * to there, field for field.
 */
static_assert(offsetof(struct gb_connect_opts, transport) ==
	      offsetof(struct gb_connect_opts_v1, transport) &&
	      offsetof(struct gb_connect_opts, host) ==
	      offsetof(struct gb_connect_opts_v1, host) &&
	      offsetof(struct gb_connect_opts, port) ==
	      offsetof(struct gb_connect_opts_v1, port) &&
	      offsetof(struct gb_connect_opts, bind_host) ==
	      offsetof(struct gb_connect_opts_v1, bind_host) &&
	      offsetof(struct gb_connect_opts, window_size) ==
	      offsetof(struct gb_connect_opts_v1, window_size) &&
	      offsetof(struct gb_connect_opts, windows) ==
	      offsetof(struct gb_connect_opts_v1, windows) &&
	      offsetof(struct gb_connect_opts, credits) ==
	      offsetof(struct gb_connect_opts_v1, credits) &&
	      offsetof(struct gb_connect_opts, set_max) ==
	      offsetof(struct gb_connect_opts_v1, set_max) &&
	      offsetof(struct gb_connect_opts, timeout_ms) ==
	      offsetof(struct gb_connect_opts_v1, timeout_ms) &&
	      offsetof(struct gb_connect_opts, spin_us) ==
	      offsetof(struct gb_connect_opts_v1, spin_us) &&
	      offsetof(struct gb_connect_opts, one_sided) ==
	      sizeof(struct gb_connect_opts_v1),
	      "struct gb_connect_opts: only appended to since 0.2.0");
/*
 * No tail padding: a field a later version puts in a reserved[] slot is
 * seen (and refused while unknown) by this one. The size is frozen: struct
 * gb_fleet_server embeds this structure first, so growing it would move
 * that one's fields again (see fleet.c).
 */
static_assert(sizeof(struct gb_connect_opts) ==
	      offsetof(struct gb_connect_opts, reserved) +
	      sizeof(((struct gb_connect_opts *)0)->reserved) &&
	      (sizeof(void *) != 8 || sizeof(struct gb_connect_opts) == 80),
	      "struct gb_connect_opts: no tail padding, 80 bytes on LP64");

/*
 * The caller's options of @size bytes, this layout, a newer one (its new
 * fields unset) or that of 0.1.0/0.2.0 (one_sided 0), into @o.
 * Return: 0, -GB_EINVAL (a size of no layout) or -GB_ENOTSUP (fields
 * or reserved[] slots this library does not know are set).
 */
int gb_connect_opts_in(struct gb_connect_opts *o, const void *src,
		       size_t size)
{
	size_t i;
	int ret;

	if (size == sizeof(struct gb_connect_opts_v1)) {
		memset(o, 0, sizeof(*o));
		memcpy(o, src, size);
		return 0;
	}
	ret = gb_struct_in(o, sizeof(*o), src, size);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(o->reserved); i++)
		if (o->reserved[i])
			return -GB_ENOTSUP;
	return 0;
}

void gb_connect_opts_init_sz(struct gb_connect_opts *o, size_t size)
{
	if (!o || (size < sizeof(*o) &&
		   size != sizeof(struct gb_connect_opts_v1)))
		return;
	memset(o, 0, size);	/* the fields set below are in every layout */
	o->transport = GB_TRANSPORT_TCP;
	o->host = "127.0.0.1";
	o->port = 11211;
}

int gb_connect_sz(const struct gb_connect_opts *uo, size_t size,
		  struct gb_conn **connp)
{
	struct gb_connect_opts opts, *o = &opts;
	int ret;

	gb_connect_err[0] = '\0';
	ret = uo ? gb_connect_opts_in(&opts, uo, size) : -GB_EINVAL;
	if (ret) {
		snprintf(gb_connect_err, sizeof(gb_connect_err), "%s",
			 ret == -GB_ENOTSUP ?
			 "options use fields this libgoblin does not know" :
			 "invalid argument");
		return ret;
	}
	if (!connp || !o->host || (o->one_sided != 0 && o->one_sided != 1)) {
		snprintf(gb_connect_err, sizeof(gb_connect_err),
			 "invalid argument");
		return -GB_EINVAL;
	}
	*connp = NULL;
	gb_timing_init();
	switch (o->transport) {
	case GB_TRANSPORT_TCP:
		ret = gb_tcp_connect(o, connp, gb_connect_err,
				     sizeof(gb_connect_err));
		break;
	case GB_TRANSPORT_RDMA:
		ret = gb_rdma_connect(o, connp, gb_connect_err,
				      sizeof(gb_connect_err));
		break;
	default:
		snprintf(gb_connect_err, sizeof(gb_connect_err),
			 "unknown transport %d", (int)o->transport);
		return -GB_EINVAL;
	}
	if (ret)
		return ret;
	(*connp)->timeout_ms = o->timeout_ms ? o->timeout_ms :
					       GB_DEFAULT_TIMEOUT_MS;
	return 0;
}

void gb_close(struct gb_conn *c)
{
	if (c)
		c->be->close(c);
}

/* Common checks before any keyed request. */
static int gb_precheck(struct gb_conn *c, const char *key, size_t klen)
{
	c->err[0] = '\0';
	memset(&c->ts, 0, sizeof(c->ts));
	if (c->dead)
		return gb_fail(c, c->dead, "connection is no longer usable");
	if (!key || !klen || klen > GB_KEY_MAX)
		return gb_fail(c, GB_EKEYLEN, "key length %zu (limit %u)",
			       klen, GB_KEY_MAX);
	if (c->be->valid_key)
		return c->be->valid_key(key, klen) ?
			gb_fail(c, GB_EKEY, "%s keys cannot hold spaces or control bytes",
				c->be->name) : 0;
	return 0;
}

/**
 * gb_get() - fetch a value as zero-copy chunks
 * @c:    connection
 * @key:  key bytes
 * @klen: key length
 * @v:    filled with the first chunk on success
 *
 * Walk further chunks with gb_view_next() while !gb_view_last(@v); call
 * gb_release() when done, also after an early stop.
 * Return: 0, -GB_ENOTFOUND, or another negative GB_E* code.
 */
int gb_get_sz(struct gb_conn *c, const char *key, size_t klen,
	      struct gb_view *v, size_t size)
{
	int ret;

	if (!c || !v || size < sizeof(*v))
		return -GB_EINVAL;
	memset((char *)v + sizeof(*v), 0, size - sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->slot = -1;
	ret = gb_precheck(c, key, klen);
	if (ret)
		return ret;
	ret = c->be->get(c, key, klen, v);
	if (ret) {
		memset(v, 0, sizeof(*v));
		v->slot = -1;
		return ret;
	}
	v->conn = c;
	return 0;
}

/**
 * gb_view_next() - advance a view to the next chunk of its value
 * @v: view from gb_get()
 *
 * The memory of the previous chunk is given back to the library.
 * Return: 0, -GB_EINVAL if @v already held the last chunk, or an error.
 */
int gb_view_next_sz(struct gb_view *v, size_t size)
{
	struct gb_conn *c;

	if (!v || size < sizeof(*v) || !v->conn)
		return -GB_EINVAL;
	c = v->conn;
	if (gb_view_last(v))
		return gb_fail(c, GB_EINVAL, "view already at its last chunk");
	if (c->dead)
		return gb_fail(c, c->dead, "connection is no longer usable");
	return c->be->view_next(c, v);
}

/**
 * gb_release() - give the memory behind a view back to the library
 * @v: view from gb_get() (may be mid-value, or already released)
 */
void gb_release_sz(struct gb_view *v, size_t size)
{
	if (!v || size < sizeof(*v) || !v->conn)
		return;
	gb_timing_emit("get", 0, &v->ts);
	v->conn->be->release(v->conn, v);
	v->conn = NULL;
	v->data = NULL;
	v->len = 0;
}

/**
 * gb_crc_stats() - counters of the value CRC checks on a connection
 * @c:    connection
 * @st:   filled with the counters since gb_connect()
 * @size: sizeof(*@st) of the caller (the inline wrapper passes it)
 *
 * Return: 0 or -GB_EINVAL.
 */
/* read_depth_max took the tail padding: the size of 0.3's structure */
static_assert(sizeof(struct gb_onesided_stats) ==
	      offsetof(struct gb_onesided_stats, active) + 8,
	      "struct gb_onesided_stats grew: accept the older size");

int gb_onesided_stats_sz(const struct gb_conn *c,
			 struct gb_onesided_stats *st, size_t size)
{
	if (!c || !st)
		return -GB_EINVAL;
	return gb_struct_out(st, size, &c->os, sizeof(c->os));
}

/**
 * gb_get_onesided() - gb_get_copy() that reads the value one-sided
 * @c:      connection
 * @key:    key
 * @klen:   key length
 * @buf:    destination
 * @buflen: its size
 * @vlen:   value length (also on -GB_ENOSPC)
 * @flags:  client flags
 *
 * See "One-sided reads" in <goblin/client.h>. Return: as gb_get_copy().
 */
int gb_get_onesided(struct gb_conn *c, const char *key, size_t klen,
		    void *buf, size_t buflen, size_t *vlen, uint32_t *flags)
{
	int ret;

	if (!c || (!buf && buflen))
		return -GB_EINVAL;
	ret = gb_precheck(c, key, klen);
	if (ret)
		return ret;
	if (c->be->get_onesided) {
		ret = c->be->get_onesided(c, key, klen, buf, buflen, vlen,
					  flags);
		if (ret <= 0)
			return ret;
	}
	return gb_get_copy(c, key, klen, buf, buflen, vlen, flags, NULL);
}

/**
 * gb_get_many_onesided() - gb_get_many() that reads values one-sided
 * @c:     connection
 * @n:     number of keys
 * @keys:  key pointers
 * @klens: key lengths
 * @fn:    called once per key: its whole value in one chunk, or its error
 *         (keys that fall back to two-sided may come in several chunks)
 * @arg:   cookie for @fn
 *
 * One LOOKUP per batch of up to 12 keys, then a READ per hit; misses are
 * reported as -GB_ENOTFOUND and every key that cannot be read one-sided
 * is fetched with gb_get_many() after its batch. Return: as gb_get_many().
 */
int gb_get_many_onesided(struct gb_conn *c, size_t n,
			 const char *const *keys, const size_t *klens,
			 gb_chunk_fn fn, void *arg)
{
	if (!c || !fn || (n && (!keys || !klens)))
		return -GB_EINVAL;
	c->err[0] = '\0';
	if (c->dead)
		return gb_fail(c, c->dead, "connection is no longer usable");
	if (!n)
		return 0;
	if (c->be->get_many_onesided)
		return c->be->get_many_onesided(c, n, keys, klens, fn, arg);
	return c->be->get_many(c, n, keys, klens, fn, arg);
}

/**
 * struct gb_into - one gb_get_many_into() call
 * @dst:    the caller's buffer
 * @dstlen: its size
 * @used:   bytes of it given to values so far
 * @r:      a result per key, in this library's layout; @status is
 *          GB_INTO_WAIT until the key's first chunk, GB_INTO_LANDING while
 *          its chunks land, then final (0 or a negative GB_E*)
 */
struct gb_into {
	unsigned char *dst;
	size_t dstlen;
	size_t used;
	struct gb_into_result *r;
};

#define GB_INTO_WAIT	1
#define GB_INTO_LANDING	2

static void gb_into_fn(void *arg, size_t idx, int status,
		       const struct gb_view *v)
{
	struct gb_into *m = arg;
	struct gb_into_result *e = &m->r[idx];

	if (e->status <= 0)	/* final: -GB_ENOSPC gets the rest too */
		return;
	if (status) {
		e->status = status;
		return;
	}
	if (e->status == GB_INTO_WAIT) {	/* its first chunk: its room */
		e->len = v->total;
		if (v->total > m->dstlen - m->used) {
			e->status = -GB_ENOSPC;
			return;
		}
		e->offset = m->used;
		e->flags = v->flags;
		m->used += v->total;
		e->status = GB_INTO_LANDING;
	}
	if (v->offset > e->len || v->len > e->len - v->offset) {
		e->status = -GB_EPROTO;	/* the backends check this: never */
		return;
	}
	if (v->len)
		memcpy(m->dst + e->offset + v->offset, v->data, v->len);
	if (v->offset + v->len == e->len)
		e->status = 0;
}

/**
 * gb_get_many_into_sz() - gb_get_many_into(), see <goblin/client.h>
 * @c:      connection
 * @n:      number of keys
 * @keys:   key pointers
 * @klens:  key lengths
 * @dst:    where the values land
 * @dstlen: its size
 * @res:    @n results
 * @size:   sizeof(*@res) of the caller (the inline wrapper passes it)
 *
 * A first version: gb_get_many_onesided() with a callback that copies
 * each chunk to its place (one memcpy per value from the library's
 * staging or receive buffers; @dst is not registered).
 *
 * Return: 0, -GB_EINVAL, or the error that ended the batch.
 */
int gb_get_many_into_sz(struct gb_conn *c, size_t n, const char *const *keys,
			const size_t *klens, void *dst, size_t dstlen,
			struct gb_into_result *res, size_t size)
{
	struct gb_into m = { .dst = dst, .dstlen = dstlen };
	size_t i;
	int ret;

	if (!c || (n && (!keys || !klens || !res)) || (!dst && dstlen) ||
	    size < sizeof(struct gb_into_result))
		return -GB_EINVAL;
	m.r = calloc(n ? n : 1, sizeof(*m.r));
	if (!m.r)
		return gb_fail(c, GB_ENOMEM, "out of memory: %zu results", n);
	for (i = 0; i < n; i++)
		m.r[i].status = GB_INTO_WAIT;
	ret = gb_get_many_onesided(c, n, keys, klens, gb_into_fn, &m);
	for (i = 0; i < n; i++) {
		/* not reached, or cut off mid-value: the batch's error */
		if (m.r[i].status > 0)
			m.r[i].status = ret ? ret : -GB_EPROTO;
		gb_struct_out((char *)res + i * size, size, &m.r[i],
			      sizeof(m.r[i]));
	}
	free(m.r);
	return ret;
}

int gb_crc_stats_sz(const struct gb_conn *c, struct gb_crc_stats *st,
		    size_t size)
{
	if (!c || !st)
		return -GB_EINVAL;
	return gb_struct_out(st, size, &c->crc, sizeof(c->crc));
}

/**
 * gb_crc_verify() - turn the value CRC checks of a connection off or on
 * @c:  connection
 * @on: 0: stop checking (values count as unverified), else check again
 *
 * The server keeps sending the CRCs it agreed to send at connect; only the
 * client's work (a CRC pass over every value) is saved.
 *
 * Return: the previous setting (1 checking, 0 not) or -GB_EINVAL.
 */
int gb_crc_verify(struct gb_conn *c, int on)
{
	int was;

	if (!c)
		return -GB_EINVAL;
	was = !c->crc_skip;
	c->crc_skip = !on;
	return was;
}

/**
 * gb_get_copy() - fetch a whole value into a caller buffer
 * @c:      connection
 * @key:    key bytes
 * @klen:   key length
 * @buf:    destination (may be NULL when @buflen is 0)
 * @buflen: size of @buf
 * @vlen:   set to the value length (also on -GB_ENOSPC)
 * @flags:  set to the stored client flags (may be NULL)
 * @ts:     set to the request timestamps (may be NULL)
 *
 * Return: 0, -GB_ENOSPC if the value does not fit (nothing useful in @buf,
 * *@vlen says how much is needed), -GB_ENOTFOUND, or another error.
 */
int gb_get_copy(struct gb_conn *c, const char *key, size_t klen,
		void *buf, size_t buflen, size_t *vlen, uint32_t *flags,
		struct gb_timestamps *ts)
{
	struct gb_view v;
	size_t len = 0;
	uint32_t fl = 0;
	int ret;

	if (!c || (!buf && buflen))
		return -GB_EINVAL;
	if (c->be->get_copy) {
		ret = gb_precheck(c, key, klen);
		if (!ret)
			ret = c->be->get_copy(c, key, klen, buf, buflen,
					      &len, &fl);
		gb_timing_emit("get", ret, &c->ts);
		goto out;
	}
	ret = gb_get(c, key, klen, &v);
	if (ret)
		goto out;
	len = v.total;
	fl = v.flags;
	if (v.total > buflen) {
		gb_release(&v);
		ret = gb_fail(c, GB_ENOSPC, "value is %zu bytes, buffer %zu",
			      len, buflen);
		goto out;
	}
	for (;;) {
		if (v.len)
			memcpy((char *)buf + v.offset, v.data, v.len);
		if (gb_view_last(&v))
			break;
		ret = gb_view_next(&v);
		if (ret)
			break;
	}
	c->ts = v.ts;
	gb_release(&v);
out:
	if (vlen)
		*vlen = len;
	if (flags)
		*flags = fl;
	if (ts)
		*ts = c->ts;
	return ret;
}

/**
 * gb_get_many() - fetch a batch of keys, pipelined
 * @c:     connection
 * @n:     number of keys
 * @keys:  key pointers
 * @klens: key lengths
 * @fn:    called for every chunk or per-key failure, see gb_chunk_fn
 * @arg:   cookie for @fn
 *
 * Keys with an invalid length or bytes are reported through @fn with
 * their error and not sent. Return: 0 once every key was reported, or a
 * negative code if the connection failed (remaining keys are reported to
 * @fn with that code).
 */
int gb_get_many(struct gb_conn *c, size_t n, const char *const *keys,
		const size_t *klens, gb_chunk_fn fn, void *arg)
{
	if (!c || !fn || (n && (!keys || !klens)))
		return -GB_EINVAL;
	c->err[0] = '\0';
	if (c->dead)
		return gb_fail(c, c->dead, "connection is no longer usable");
	if (!n)
		return 0;
	return c->be->get_many(c, n, keys, klens, fn, arg);
}

int gb_set(struct gb_conn *c, const char *key, size_t klen,
	   const void *val, size_t vlen, uint32_t flags, uint32_t exptime)
{
	int ret;

	if (!c || (!val && vlen))
		return -GB_EINVAL;
	ret = gb_precheck(c, key, klen);
	if (ret)
		return ret;
	if (vlen > GB_VALUE_MAX)
		return gb_fail(c, GB_EVALLEN, "value is %zu bytes (limit %u)",
			       vlen, GB_VALUE_MAX);
	ret = c->be->set(c, key, klen, val, vlen, flags, exptime);
	gb_timing_emit("set", ret, &c->ts);
	return ret;
}

int gb_delete(struct gb_conn *c, const char *key, size_t klen)
{
	int ret;

	if (!c)
		return -GB_EINVAL;
	ret = gb_precheck(c, key, klen);
	if (ret)
		return ret;
	ret = c->be->del(c, key, klen);
	gb_timing_emit("delete", ret, &c->ts);
	return ret;
}

int gb_touch(struct gb_conn *c, const char *key, size_t klen,
	     uint32_t exptime)
{
	int ret;

	if (!c)
		return -GB_EINVAL;
	ret = gb_precheck(c, key, klen);
	if (ret)
		return ret;
	if (!c->be->touch)
		return gb_fail(c, GB_ENOTSUP, "%s has no touch", c->be->name);
	ret = c->be->touch(c, key, klen, exptime);
	gb_timing_emit("touch", ret, &c->ts);
	return ret;
}

void gb_last_timestamps(const struct gb_conn *c, struct gb_timestamps *ts)
{
	if (c && ts)
		*ts = c->ts;
}

/**
 * gb_server_text_err() - map a memcache-style error line to a code
 * @c:    connection
 * @line: response line without CRLF (untrusted)
 * @len:  its length
 *
 * Return: negative code, message recorded, or 0 if @line is no error.
 */
int gb_server_text_err(struct gb_conn *c, const char *line, size_t len)
{
	char text[160];

	if (len == 5 && !memcmp(line, "ERROR", 5))
		return gb_fail(c, GB_EREJECTED, "unknown command");
	if (len >= 12 && !memcmp(line, "CLIENT_ERROR", 12)) {
		gb_sanitize(text, sizeof(text), line + 12 + (len > 12),
			    len - 12 - (len > 12));
		return gb_fail(c, GB_EREJECTED, "%s", text);
	}
	if (len >= 12 && !memcmp(line, "SERVER_ERROR", 12)) {
		gb_sanitize(text, sizeof(text), line + 12 + (len > 12),
			    len - 12 - (len > 12));
		if (strstr(text, "too large"))
			return gb_fail(c, GB_EVALLEN, "server says: %s", text);
		return gb_fail(c, GB_ESERVER, "%s", text);
	}
	return 0;
}
