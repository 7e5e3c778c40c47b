// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libgoblin TCP backend: the classic memcache text protocol (get, set,
 * delete, touch). Works against Goblin Store's memcache listener and any
 * memcached. Every byte from the server is treated as hostile: lines are
 * bounded, numbers parsed strictly, the echoed key compared, value lengths
 * capped at GB_VALUE_MAX.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#define TCP_RBUF_SIZE	(64 * 1024)
#define TCP_LINE_MAX	1024		/* longest response line accepted */
#define TCP_PIPE_BYTES	(16 * 1024)	/* request bytes in flight (mget) */
#define TCP_REQ_MAX	(GB_KEY_MAX + 64)

/**
 * struct gb_tcp - one memcache connection
 * @c:     generic part (first member)
 * @fd:    connected socket
 * @rbuf:  receive buffer for response lines
 * @rhead: first unread byte in @rbuf
 * @rtail: end of valid bytes in @rbuf
 * @vbuf:  cached value buffer, lent to one view at a time
 * @vcap:  its capacity
 * @vbusy: @vbuf is lent to a view
 */
struct gb_tcp {
	struct gb_conn c;
	int fd;
	char *rbuf;
	size_t rhead;
	size_t rtail;
	char *vbuf;
	size_t vcap;
	bool vbusy;
};

static const struct gb_backend gb_tcp_backend;

static inline struct gb_tcp *to_tcp(struct gb_conn *c)
{
	return (struct gb_tcp *)c;
}

/* Return 0 if every byte of @key can travel in a memcache text command. */
static int tcp_valid_key(const char *key, size_t klen)
{
	size_t i;

	for (i = 0; i < klen; i++) {
		unsigned char ch = (unsigned char)key[i];

		if (ch <= 0x20 || ch == 0x7f)
			return -GB_EKEY;
	}
	return 0;
}

static int tcp_wait(struct gb_tcp *t, short events)
{
	struct pollfd pfd = { .fd = t->fd, .events = events };
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, t->c.timeout_ms < 0 ? -1 : t->c.timeout_ms);
		if (ret > 0)
			return 0;
		if (!ret)
			return gb_fatal(&t->c, GB_ETIMEDOUT,
					"no progress from server in %d ms",
					t->c.timeout_ms);
		if (errno != EINTR)
			return gb_fatal(&t->c, GB_ESYS, "poll: %s",
					strerror(errno));
	}
}

/* Receive into @dst; returns bytes (> 0) or a negative code. */
static ssize_t tcp_recv(struct gb_tcp *t, void *dst, size_t len)
{
	ssize_t n;
	int ret;

	for (;;) {
		n = recv(t->fd, dst, len, MSG_DONTWAIT);
		if (n > 0)
			return n;
		if (!n)
			return gb_fatal(&t->c, GB_ECONNLOST,
					"connection closed by server");
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return gb_fatal(&t->c, GB_ECONNLOST, "recv: %s",
					strerror(errno));
		ret = tcp_wait(t, POLLIN);
		if (ret)
			return ret;
	}
}

/* Get more bytes into rbuf, compacting it first. */
static int tcp_fill(struct gb_tcp *t)
{
	ssize_t n;

	if (t->rhead == t->rtail) {
		t->rhead = 0;
		t->rtail = 0;
	} else if (t->rhead && t->rtail == TCP_RBUF_SIZE) {
		memmove(t->rbuf, t->rbuf + t->rhead, t->rtail - t->rhead);
		t->rtail -= t->rhead;
		t->rhead = 0;
	}
	n = tcp_recv(t, t->rbuf + t->rtail, TCP_RBUF_SIZE - t->rtail);
	if (n < 0)
		return (int)n;
	t->rtail += (size_t)n;
	return 0;
}

/*
 * Read one CRLF-terminated line; *@line points into rbuf (valid until the
 * next read) and excludes the CRLF.
 */
static int tcp_line(struct gb_tcp *t, const char **line, size_t *len)
{
	char *start, *nl;
	int ret;

	for (;;) {
		start = t->rbuf + t->rhead;
		nl = memchr(start, '\n', t->rtail - t->rhead);
		if (nl) {
			if (nl == start || nl[-1] != '\r')
				return gb_fatal(&t->c, GB_EPROTO,
						"response line without CRLF");
			*line = start;
			*len = (size_t)(nl - 1 - start);
			t->rhead += (size_t)(nl + 1 - start);
			return 0;
		}
		if (t->rtail - t->rhead >= TCP_LINE_MAX)
			return gb_fatal(&t->c, GB_EPROTO,
					"response line longer than %d bytes",
					TCP_LINE_MAX);
		ret = tcp_fill(t);
		if (ret)
			return ret;
	}
}

/* Read exactly @len bytes into @dst, or drop them if @dst is NULL. */
static int tcp_read(struct gb_tcp *t, void *dst, size_t len)
{
	size_t avail, take;
	ssize_t n;
	int ret;

	avail = t->rtail - t->rhead;
	take = avail < len ? avail : len;
	if (dst && take)
		memcpy(dst, t->rbuf + t->rhead, take);
	t->rhead += take;
	len -= take;
	if (dst)
		dst = (char *)dst + take;
	while (len) {
		if (!dst) {
			ret = tcp_fill(t);
			if (ret)
				return ret;
			take = t->rtail - t->rhead;
			if (take > len)
				take = len;
			t->rhead += take;
			len -= take;
			continue;
		}
		/* Large remainder: straight from the socket, no bounce. */
		n = tcp_recv(t, dst, len);
		if (n < 0)
			return (int)n;
		dst = (char *)dst + n;
		len -= (size_t)n;
	}
	return 0;
}

static int tcp_sendv(struct gb_tcp *t, struct iovec *iov, int cnt)
{
	struct msghdr msg = { 0 };
	ssize_t n;
	int ret;

	while (cnt) {
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		n = sendmsg(t->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return gb_fatal(&t->c, GB_ECONNLOST,
						"send: %s", strerror(errno));
			ret = tcp_wait(t, POLLOUT);
			if (ret)
				return ret;
			continue;
		}
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int tcp_send(struct gb_tcp *t, const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return tcp_sendv(t, &iov, 1);
}

/* Parse a decimal number of at most @max from [*p, end); advance *p. */
static int parse_u64(const char **p, const char *end, uint64_t max,
		     uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

static int tcp_unexpected(struct gb_tcp *t, const char *line, size_t len)
{
	char text[80];
	int ret;

	ret = gb_server_text_err(&t->c, line, len);
	if (ret)
		return ret;
	gb_sanitize(text, sizeof(text), line, len);
	return gb_fatal(&t->c, GB_EPROTO, "unexpected response '%s'", text);
}

/**
 * tcp_get_header() - read the start of the response to "get <key>"
 * @t:     connection
 * @key:   requested key (the server must echo it)
 * @klen:  its length
 * @vlen:  value length on a hit
 * @flags: client flags on a hit
 *
 * Return: 1 on a hit (value bytes follow), 0 on a miss (END consumed),
 * negative code otherwise.
 */
static int tcp_get_header(struct gb_tcp *t, const char *key, size_t klen,
			  uint64_t *vlen, uint32_t *flags)
{
	const char *line, *p, *end;
	uint64_t fl, len, cas;
	size_t llen;
	int ret;

	ret = tcp_line(t, &line, &llen);
	if (ret)
		return ret;
	if (llen == 3 && !memcmp(line, "END", 3))
		return 0;
	if (llen < 6 || memcmp(line, "VALUE ", 6))
		return tcp_unexpected(t, line, llen);
	p = line + 6;
	end = line + llen;
	if ((size_t)(end - p) <= klen || memcmp(p, key, klen) ||
	    p[klen] != ' ')
		return gb_fatal(&t->c, GB_EPROTO,
				"server answered for a different key");
	p += klen + 1;
	if (parse_u64(&p, end, UINT32_MAX, &fl) || p == end || *p++ != ' ' ||
	    parse_u64(&p, end, UINT64_MAX, &len))
		return gb_fatal(&t->c, GB_EPROTO, "malformed VALUE line");
	if (p != end && (*p++ != ' ' || parse_u64(&p, end, UINT64_MAX, &cas) ||
			 p != end))
		return gb_fatal(&t->c, GB_EPROTO, "malformed VALUE line");
	if (len > GB_VALUE_MAX)
		return gb_fatal(&t->c, GB_EPROTO,
				"server announced a %llu-byte value",
				(unsigned long long)len);
	*vlen = len;
	*flags = (uint32_t)fl;
	return 1;
}

/* After the value bytes: CRLF then END. */
static int tcp_get_trailer(struct gb_tcp *t)
{
	const char *line;
	char crlf[2];
	size_t llen;
	int ret;

	ret = tcp_read(t, crlf, 2);
	if (ret)
		return ret;
	if (crlf[0] != '\r' || crlf[1] != '\n')
		return gb_fatal(&t->c, GB_EPROTO,
				"value not followed by CRLF");
	ret = tcp_line(t, &line, &llen);
	if (ret)
		return ret;
	if (llen != 3 || memcmp(line, "END", 3))
		return tcp_unexpected(t, line, llen);
	return 0;
}

static int tcp_send_get(struct gb_tcp *t, const char *key, size_t klen)
{
	struct iovec iov[3] = {
		{ .iov_base = "get ", .iov_len = 4 },
		{ .iov_base = (void *)key, .iov_len = klen },
		{ .iov_base = "\r\n", .iov_len = 2 },
	};

	return tcp_sendv(t, iov, 3);
}

/*
 * Memory for a value of @len bytes: the cached buffer when free (grown on
 * demand), else a fresh allocation. *@cached tells which.
 */
static char *tcp_value_buf(struct gb_tcp *t, size_t len, bool *cached)
{
	static char empty[1];
	char *p;

	if (!len) {
		*cached = false;
		return empty;
	}
	if (!t->vbusy) {
		if (t->vcap < len) {
			p = realloc(t->vbuf, len);
			if (!p)
				return NULL;
			t->vbuf = p;
			t->vcap = len;
		}
		*cached = true;
		return t->vbuf;
	}
	*cached = false;
	return malloc(len);
}

static void tcp_value_put(struct gb_tcp *t, char *p, bool cached, size_t len)
{
	if (cached)
		t->vbusy = false;
	else if (len)
		free(p);
}

static int tcp_get(struct gb_conn *c, const char *key, size_t klen,
		   struct gb_view *v)
{
	struct gb_tcp *t = to_tcp(c);
	uint64_t len;
	uint32_t flags;
	bool cached;
	char *buf;
	int ret;

	c->ts.submit_ns = gb_now_ns();
	ret = tcp_send_get(t, key, klen);
	if (ret)
		return ret;
	ret = tcp_get_header(t, key, klen, &len, &flags);
	if (ret <= 0) {
		c->ts.complete_ns = gb_now_ns();
		return ret ? ret : gb_fail(c, GB_ENOTFOUND, "no such key");
	}
	c->ts.header_ns = gb_now_ns();
	buf = tcp_value_buf(t, len, &cached);
	if (!buf) {
		ret = tcp_read(t, NULL, len);
		if (!ret)
			ret = tcp_get_trailer(t);
		return ret ? ret : gb_fail(c, GB_ENOMEM, "value buffer");
	}
	if (cached)
		t->vbusy = true;
	ret = tcp_read(t, buf, len);
	c->ts.payload_ns = gb_now_ns();
	if (!ret)
		ret = tcp_get_trailer(t);
	c->ts.complete_ns = gb_now_ns();
	if (ret) {
		tcp_value_put(t, buf, cached, len);
		return ret;
	}
	v->data = buf;
	v->len = len;
	v->offset = 0;
	v->total = len;
	v->flags = flags;
	v->ts = c->ts;
	v->priv = buf;
	v->slot = cached;
	return 0;
}

static int tcp_view_next(struct gb_conn *c, struct gb_view *v)
{
	(void)v;
	return gb_fail(c, GB_EINVAL, "TCP values are a single chunk");
}

static void tcp_release(struct gb_conn *c, struct gb_view *v)
{
	if (v->priv)
		tcp_value_put(to_tcp(c), v->priv, v->slot == 1, v->total);
	v->priv = NULL;
}

static int tcp_get_copy(struct gb_conn *c, const char *key, size_t klen,
			void *buf, size_t buflen, size_t *vlen,
			uint32_t *flags)
{
	struct gb_tcp *t = to_tcp(c);
	uint64_t len;
	int ret;

	c->ts.submit_ns = gb_now_ns();
	ret = tcp_send_get(t, key, klen);
	if (ret)
		return ret;
	ret = tcp_get_header(t, key, klen, &len, flags);
	if (ret <= 0) {
		c->ts.complete_ns = gb_now_ns();
		return ret ? ret : gb_fail(c, GB_ENOTFOUND, "no such key");
	}
	c->ts.header_ns = gb_now_ns();
	*vlen = len;
	ret = tcp_read(t, len <= buflen ? buf : NULL, len);
	c->ts.payload_ns = gb_now_ns();
	if (!ret)
		ret = tcp_get_trailer(t);
	c->ts.complete_ns = gb_now_ns();
	if (!ret && len > buflen)
		ret = gb_fail(c, GB_ENOSPC, "value is %llu bytes, buffer %zu",
			      (unsigned long long)len, buflen);
	return ret;
}

static int tcp_key_ok(const char *key, size_t klen)
{
	if (!key || !klen || klen > GB_KEY_MAX)
		return -GB_EKEYLEN;
	return tcp_valid_key(key, klen);
}

/*
 * Pipelined batch: requests go out while at most TCP_PIPE_BYTES of them
 * are unanswered, so the server can always absorb what we send while we
 * are not reading; responses come back in request order.
 */
static int tcp_get_many(struct gb_conn *c, size_t n, const char *const *keys,
			const size_t *klens, gb_chunk_fn fn, void *arg)
{
	struct gb_tcp *t = to_tcp(c);
	size_t sent = 0, done = 0, inflight = 0, blen;
	struct gb_view v;
	uint64_t *submit, len;
	char *req, *buf;
	uint32_t flags;
	bool cached;
	int ret = 0, hit;

	submit = calloc(n, sizeof(*submit));
	req = malloc(TCP_PIPE_BYTES + TCP_REQ_MAX);
	if (!submit || !req) {
		free(submit);
		free(req);
		return gb_fail(c, GB_ENOMEM, "batch state");
	}
	while (done < n) {
		blen = 0;
		while (sent < n) {
			size_t kl = klens[sent];

			if (tcp_key_ok(keys[sent], kl)) {
				sent++;
				continue;
			}
			if (inflight + blen + kl + 6 > TCP_PIPE_BYTES &&
			    inflight + blen)
				break;
			memcpy(req + blen, "get ", 4);
			memcpy(req + blen + 4, keys[sent], kl);
			memcpy(req + blen + 4 + kl, "\r\n", 2);
			blen += kl + 6;
			sent++;
		}
		if (blen) {
			uint64_t now = gb_now_ns();
			size_t i;

			for (i = done; i < sent; i++)
				if (!submit[i])
					submit[i] = now;
			ret = tcp_send(t, req, blen);
			if (ret)
				break;
			inflight += blen;
		}
		memset(&v, 0, sizeof(v));
		v.slot = -1;
		ret = tcp_key_ok(keys[done], klens[done]);
		if (ret) {
			fn(arg, done++, ret, &v);
			ret = 0;
			continue;
		}
		v.ts.submit_ns = submit[done];
		hit = tcp_get_header(t, keys[done], klens[done], &len, &flags);
		if (hit < 0 && c->dead) {
			ret = hit;
			break;
		}
		inflight -= klens[done] + 6;
		if (hit <= 0) {
			v.ts.complete_ns = gb_now_ns();
			fn(arg, done++, hit ? hit : -GB_ENOTFOUND, &v);
			continue;
		}
		v.ts.header_ns = gb_now_ns();
		buf = tcp_value_buf(t, len, &cached);
		ret = tcp_read(t, buf, len);
		v.ts.payload_ns = gb_now_ns();
		if (!ret)
			ret = tcp_get_trailer(t);
		v.ts.complete_ns = gb_now_ns();
		if (ret) {
			if (buf)
				tcp_value_put(t, buf, false, cached ? 0 : len);
			break;
		}
		v.data = buf;
		v.len = len;
		v.total = len;
		v.flags = flags;
		fn(arg, done++, buf ? 0 : -GB_ENOMEM, &v);
		if (buf)
			tcp_value_put(t, buf, false, cached ? 0 : len);
	}
	for (; ret && done < n; done++) {
		memset(&v, 0, sizeof(v));
		v.slot = -1;
		fn(arg, done, ret, &v);
	}
	free(submit);
	free(req);
	return ret;
}

/* Send a one-line command plus optional data; read the status line. */
static int tcp_simple(struct gb_tcp *t, struct iovec *iov, int cnt,
		      const char **line, size_t *llen)
{
	int ret;

	t->c.ts.submit_ns = gb_now_ns();
	ret = tcp_sendv(t, iov, cnt);
	if (ret)
		return ret;
	ret = tcp_line(t, line, llen);
	t->c.ts.header_ns = gb_now_ns();
	t->c.ts.complete_ns = t->c.ts.header_ns;
	return ret;
}

static bool is_word(const char *line, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(line, word, len);
}

static int tcp_set(struct gb_conn *c, const char *key, size_t klen,
		   const void *val, size_t vlen, uint32_t flags,
		   uint32_t exptime)
{
	struct gb_tcp *t = to_tcp(c);
	char hdr[64];
	const char *line;
	size_t llen;
	int hlen, ret;
	struct iovec iov[5];

	hlen = snprintf(hdr, sizeof(hdr), " %u %u %zu\r\n", flags, exptime,
			vlen);
	iov[0].iov_base = "set ";
	iov[0].iov_len = 4;
	iov[1].iov_base = (void *)key;
	iov[1].iov_len = klen;
	iov[2].iov_base = hdr;
	iov[2].iov_len = (size_t)hlen;
	iov[3].iov_base = (void *)val;
	iov[3].iov_len = vlen;
	iov[4].iov_base = "\r\n";
	iov[4].iov_len = 2;
	ret = tcp_simple(t, iov, 5, &line, &llen);
	if (ret)
		return ret;
	if (is_word(line, llen, "STORED"))
		return 0;
	if (is_word(line, llen, "NOT_STORED") || is_word(line, llen, "EXISTS"))
		return gb_fail(c, GB_ENOTSTORED, "server did not store %zu bytes",
			       vlen);
	if (is_word(line, llen, "NOT_FOUND"))
		return gb_fail(c, GB_ENOTFOUND, "no such key");
	return tcp_unexpected(t, line, llen);
}

static int tcp_del(struct gb_conn *c, const char *key, size_t klen)
{
	struct gb_tcp *t = to_tcp(c);
	const char *line;
	size_t llen;
	int ret;
	struct iovec iov[3] = {
		{ .iov_base = "delete ", .iov_len = 7 },
		{ .iov_base = (void *)key, .iov_len = klen },
		{ .iov_base = "\r\n", .iov_len = 2 },
	};

	ret = tcp_simple(t, iov, 3, &line, &llen);
	if (ret)
		return ret;
	if (is_word(line, llen, "DELETED"))
		return 0;
	if (is_word(line, llen, "NOT_FOUND"))
		return gb_fail(c, GB_ENOTFOUND, "no such key");
	return tcp_unexpected(t, line, llen);
}

static int tcp_touch(struct gb_conn *c, const char *key, size_t klen,
		     uint32_t exptime)
{
	struct gb_tcp *t = to_tcp(c);
	const char *line;
	char tail[24];
	size_t llen;
	int ret;
	struct iovec iov[3] = {
		{ .iov_base = "touch ", .iov_len = 6 },
		{ .iov_base = (void *)key, .iov_len = klen },
		{ .iov_base = tail },
	};

	iov[2].iov_len = (size_t)snprintf(tail, sizeof(tail), " %u\r\n",
					  exptime);
	ret = tcp_simple(t, iov, 3, &line, &llen);
	if (ret)
		return ret;
	if (is_word(line, llen, "TOUCHED"))
		return 0;
	if (is_word(line, llen, "NOT_FOUND"))
		return gb_fail(c, GB_ENOTFOUND, "no such key");
	return tcp_unexpected(t, line, llen);
}

static void tcp_close(struct gb_conn *c)
{
	struct gb_tcp *t = to_tcp(c);

	if (t->fd >= 0)
		close(t->fd);
	free(t->rbuf);
	free(t->vbuf);
	free(t);
}

static const struct gb_backend gb_tcp_backend = {
	.name		= "memcache",
	.get		= tcp_get,
	.view_next	= tcp_view_next,
	.release	= tcp_release,
	.get_copy	= tcp_get_copy,
	.get_many	= tcp_get_many,
	.set		= tcp_set,
	.del		= tcp_del,
	.touch		= tcp_touch,
	.valid_key	= tcp_valid_key,
	.close		= tcp_close,
};

/* Non-blocking connect bounded by @timeout_ms; returns fd or -errno. */
static int tcp_dial(const struct addrinfo *ai, const struct addrinfo *src,
		    int timeout_ms)
{
	struct pollfd pfd;
	socklen_t slen;
	int fd, fl, err, one = 1;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (src && bind(fd, src->ai_addr, src->ai_addrlen) < 0)
		goto fail;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			err = poll(&pfd, 1, timeout_ms);
		} while (err < 0 && errno == EINTR);
		if (err <= 0) {
			errno = err ? errno : ETIMEDOUT;
			goto fail;
		}
		slen = sizeof(err);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &slen) < 0)
			goto fail;
		if (err) {
			errno = err;
			goto fail;
		}
	}
	if (fcntl(fd, F_SETFL, fl) < 0)
		goto fail;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
fail:
	err = errno;
	close(fd);
	return -err;
}

int gb_tcp_connect(const struct gb_connect_opts *o, struct gb_conn **connp,
		   char *err, size_t errlen)
{
	struct addrinfo hints = { 0 }, *res, *ai, *src = NULL;
	int timeout = o->timeout_ms ? o->timeout_ms : GB_DEFAULT_TIMEOUT_MS;
	char port[8];
	struct gb_tcp *t;
	int fd = -ENOENT, ret;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%u", o->port);
	ret = getaddrinfo(o->host, port, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "connection failed: %s: %s", o->host,
			 gai_strerror(ret));
		return -GB_ECONNECT;
	}
	if (o->bind_host) {
		hints.ai_flags = AI_PASSIVE;
		ret = getaddrinfo(o->bind_host, NULL, &hints, &src);
		if (ret) {
			freeaddrinfo(res);
			snprintf(err, errlen, "connection failed: %s: %s",
				 o->bind_host, gai_strerror(ret));
			return -GB_ECONNECT;
		}
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (src && src->ai_family != ai->ai_family)
			continue;
		fd = tcp_dial(ai, src, timeout < 0 ? -1 : timeout);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (src)
		freeaddrinfo(src);
	if (fd < 0) {
		snprintf(err, errlen, "connection failed: %s port %u: %s",
			 o->host, o->port, strerror(-fd));
		return -GB_ECONNECT;
	}
	t = calloc(1, sizeof(*t));
	if (t)
		t->rbuf = malloc(TCP_RBUF_SIZE);
	if (!t || !t->rbuf) {
		free(t);
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -GB_ENOMEM;
	}
	t->fd = fd;
	t->c.be = &gb_tcp_backend;
	*connp = &t->c;
	return 0;
}
