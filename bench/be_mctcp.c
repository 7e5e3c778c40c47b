// SPDX-License-Identifier: GPL-2.0
/*
 * gbbench built-in memcache text client over TCP.
 *
 * Responses are parsed without copying payload bytes in user space: the
 * header line is located with MSG_PEEK and consumed exactly, the value is
 * received straight into the caller's buffer, and the "\r\nEND\r\n" trailer
 * is received and checked separately. Requests are pipelined: up to @depth
 * GETs are in flight and answers come back in request order.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "gbbench.h"

#define MC_LINE_MAX	512

struct mc_slot {
	char key[GBB_KEY_LEN + 1];
	size_t klen;
	void *buf;
	size_t cap;
	uint64_t tag;
	uint64_t t_sub;
};

struct gbb_conn {
	int fd;
	unsigned int depth;
	unsigned int head;	/* oldest outstanding */
	unsigned int used;
	struct mc_slot *slot;
};

static int mc_connect(const struct gbb_opts *o, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, rc;

	rc = getaddrinfo(o->addr, o->port, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "%s:%s: %s", o->addr, o->port,
			 gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		snprintf(err, errlen, "connect %s:%s: %s", o->addr, o->port,
			 strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static struct gbb_conn *mc_open(const struct gbb_opts *o, unsigned int depth,
				char *err, size_t errlen)
{
	struct gbb_conn *c = calloc(1, sizeof(*c));

	if (!c || !depth) {
		snprintf(err, errlen, "bad depth or out of memory");
		free(c);
		return NULL;
	}
	c->slot = calloc(depth, sizeof(*c->slot));
	c->depth = depth;
	c->fd = c->slot ? mc_connect(o, err, errlen) : -1;
	if (c->fd < 0) {
		free(c->slot);
		free(c);
		return NULL;
	}
	return c;
}

static void mc_close(struct gbb_conn *c)
{
	close(c->fd);
	free(c->slot);
	free(c);
}

static int send_all(int fd, struct iovec *iov, int n)
{
	ssize_t w;

	while (n > 0) {
		w = writev(fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

static int recv_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t r;

	while (len) {
		r = recv(fd, p, len, MSG_WAITALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= r;
	}
	return 0;
}

/*
 * Peek until a full "...\r\n" line is visible, then consume exactly it.
 * @line gets the line without CRLF, NUL terminated. Returns its length or
 * -1 on EOF, error or an overlong line.
 */
static int read_line(int fd, char *line)
{
	ssize_t r, seen = 0;
	char *nl;

	for (;;) {
		r = recv(fd, line, MC_LINE_MAX, MSG_PEEK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		nl = memchr(line, '\n', r);
		if (nl)
			break;
		if (r >= MC_LINE_MAX)
			return -1;
		if (r == seen) {
			/* no new byte yet: wait for one more */
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
		seen = r;
	}
	r = nl - line + 1;
	if (recv_all(fd, line, r))
		return -1;
	if (r < 2 || line[r - 2] != '\r')
		return -1;
	line[r - 2] = 0;
	return (int)(r - 2);
}

static int mc_set(struct gbb_conn *c, const char *key, size_t klen,
		  const void *val, size_t len)
{
	char hdr[GBB_KEY_LEN + 64], line[MC_LINE_MAX];
	struct iovec iov[3];
	int n;

	if (klen > GBB_KEY_LEN)
		return GBB_PROTO;
	n = snprintf(hdr, sizeof(hdr), "set %.*s 0 0 %zu\r\n", (int)klen, key,
		     len);
	iov[0].iov_base = hdr;
	iov[0].iov_len = n;
	iov[1].iov_base = (void *)val;
	iov[1].iov_len = len;
	iov[2].iov_base = "\r\n";
	iov[2].iov_len = 2;
	if (send_all(c->fd, iov, 3))
		return GBB_IO;
	n = read_line(c->fd, line);
	if (n < 0)
		return GBB_IO;
	if (strcmp(line, "STORED")) {
		fprintf(stderr, "set %.*s: %s\n", (int)klen, key, line);
		return GBB_PROTO;
	}
	return GBB_OK;
}

static int mc_get_submit(struct gbb_conn *c, const char *key, size_t klen,
			 void *buf, size_t cap, uint64_t tag)
{
	struct mc_slot *s;
	struct iovec iov;
	char req[GBB_KEY_LEN + 8];

	if (c->used == c->depth || klen > GBB_KEY_LEN)
		return -1;
	s = &c->slot[(c->head + c->used) % c->depth];
	memcpy(s->key, key, klen);
	s->klen = klen;
	s->buf = buf;
	s->cap = cap;
	s->tag = tag;
	memcpy(req, "get ", 4);
	memcpy(req + 4, key, klen);
	memcpy(req + 4 + klen, "\r\n", 2);
	iov.iov_base = req;
	iov.iov_len = klen + 6;
	s->t_sub = gbb_now();
	if (send_all(c->fd, &iov, 1))
		return -1;
	c->used++;
	return 0;
}

/* Parse "VALUE <key> <flags> <bytes>[ <cas>]". */
static int parse_value(const char *line, const struct mc_slot *s,
		       uint64_t *len)
{
	const char *k = line + 6, *sp;
	unsigned long long flags, bytes;
	char *end;

	if (strncmp(line, "VALUE ", 6))
		return GBB_PROTO;
	sp = strchr(k, ' ');
	if (!sp)
		return GBB_PROTO;
	if ((size_t)(sp - k) != s->klen || memcmp(k, s->key, s->klen))
		return GBB_BADKEY;
	errno = 0;
	flags = strtoull(sp + 1, &end, 10);
	if (errno || end == sp + 1 || *end != ' ' || flags > 0xffffffffull)
		return GBB_PROTO;
	bytes = strtoull(end + 1, &end, 10);
	if (errno || (*end && *end != ' '))
		return GBB_PROTO;
	*len = bytes;
	return GBB_OK;
}

static int mc_get_wait(struct gbb_conn *c, struct gbb_comp *out)
{
	char line[MC_LINE_MAX + 1], trailer[7];
	struct mc_slot *s;
	int st;

	if (!c->used)
		return -1;
	s = &c->slot[c->head];
	c->head = (c->head + 1) % c->depth;
	c->used--;
	memset(out, 0, sizeof(*out));
	out->tag = s->tag;
	out->t_sub = s->t_sub;
	if (read_line(c->fd, line) < 0) {
		out->status = GBB_IO;
		return 0;
	}
	out->t_ttfb = gbb_now();
	if (!strcmp(line, "END")) {
		out->status = GBB_MISS;
		return 0;
	}
	st = parse_value(line, s, &out->len);
	if (st) {
		out->status = st;
		return 0;
	}
	if (out->len > s->cap) {
		out->status = GBB_TOOBIG;
		return 0;
	}
	if (recv_all(c->fd, s->buf, out->len)) {
		out->status = GBB_IO;
		return 0;
	}
	out->t_payload = gbb_now();
	if (recv_all(c->fd, trailer, sizeof(trailer))) {
		out->status = GBB_IO;
		return 0;
	}
	out->t_done = gbb_now();
	if (memcmp(trailer, "\r\nEND\r\n", 7))
		out->status = GBB_PROTO;
	return 0;
}

const struct gbb_backend gbb_be_mctcp = {
	.name = "builtin-mc",
	.open = mc_open,
	.set = mc_set,
	.get_submit = mc_get_submit,
	.get_wait = mc_get_wait,
	.close = mc_close,
};
