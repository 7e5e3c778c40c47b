// SPDX-License-Identifier: GPL-2.0
/*
 * abuse: hostile and careless clients for tests/func/abuse/run.
 *
 *   abuse tcpcycle HOST:PORT N
 *	N TCP connections, each closed a different way: at once, after a
 *	reply, in the middle of a data block, with unread GET data, with a
 *	reset (SO_LINGER 0), half-closed, or in the middle of a command line.
 *   abuse rdmacycle HOST:PORT BIND N
 *	N libgoblin RDMA connections; every 4th does a SET and a GET.
 *   abuse mcflood HOST:PORT N SEED
 *	N malformed memcache requests (bad words, bad arguments, bad keys,
 *	bad numbers, bad data blocks, bad meta flags, binary junk, overlong
 *	lines); after each, "mn" must come back as MN (the connection is in
 *	sync) unless the request was one the server closes for.
 *   abuse rdmaflood HOST:PORT BIND N SEED
 *	N records over raw RDMA connections: valid ones mutated at random,
 *	classified with the protocol's own parser (kmod/proto/rdma_rec.c), a
 *	few deliberately fatal (bad length, bad window return, SET outside
 *	the region, credit grant too large). Every record must get its
 *	answer (ERROR for unknown types and bad bodies) or, if fatal, a
 *	disconnect. Prints the counts the server must have counted.
 *   abuse killer tcp|rdma get|set TCP_HOST:PORT RDMA_HOST:PORT BIND N [SEED]
 *	N times: a child process GETs (or SETs) 1..16 MiB values in a loop
 *	and is killed with SIGKILL after a random delay. Then the values
 *	must read back whole: the GET value byte-exact, SET keys either
 *	missing or holding one complete value (header + CRC32C).
 *   abuse keyflood HOST:PORT N
 *	N SETs of distinct keys with 1..64-byte values, pipelined, noreply.
 *   abuse loader tcp|rdma|both N TCP_HOST:PORT RDMA_HOST:PORT BIND VMAX SECS SEED
 *	N client processes SET and GET values of up to VMAX bytes (heads and
 *	tails) until SIGTERM or SECS, reconnecting whenever the server drops
 *	them; every failure counted by its error code, every hit checked
 *	whole. For rmmod and device removal under load, and fault injection.
 *	ABUSE_LD_OPS=N in the environment: each client reconnects after N
 *	operations; ABUSE_LD_TIMEOUT_MS: the I/O timeout (default 20 s);
 *	ABUSE_LD_UNTIL_OP=S: if no operation succeeded by SECS (or by a
 *	SIGTERM), go on up to S seconds more until one does (a phase whose
 *	faults refused every slow connect still shows that the server
 *	serves once they stop).
 *
 * Exit status 0 when the server behaved; diagnostics go to stdout as TAP
 * comments ("# ...").
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <goblin/client.h>

#include "rdma_rec.h"

#include "../../../tools/include/gb_compiler.h"

#define VMAX	(16u << 20)

static void __noreturn __printf(1, 2)
die(const char *fmt, ...)
{
	va_list ap;

	printf("# abuse: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rs;

static uint64_t rnd(void)
{
	uint64_t x;

	rs += 0x9e3779b97f4a7c15ull;
	x = rs;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void fill(unsigned char *p, uint64_t seed, size_t len)
{
	size_t i;
	uint64_t w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed + i);
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

static uint32_t crc_tab[256];

static uint32_t crc32c(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~0u;
	int i, k;

	if (!crc_tab[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
			crc_tab[i] = c;
		}
		c = ~0u;
	}
	while (len--)
		c = crc_tab[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

static void split_hp(const char *hp, char *host, size_t hl, char *port,
		     size_t pl)
{
	const char *c = strrchr(hp, ':');

	if (!c || (size_t)(c - hp) >= hl || strlen(c + 1) >= pl)
		die("bad HOST:PORT %s", hp);
	memcpy(host, hp, c - hp);
	host[c - hp] = '\0';
	snprintf(port, pl, "%s", c + 1);
}

/* --- TCP ------------------------------------------------------------------ */

static const char *tcp_hp;

static int tcp_connect(void)
{
	char host[128], port[16];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, one = 1;

	split_hp(tcp_hp, host, sizeof(host), port, sizeof(port));
	if (getaddrinfo(host, port, &hints, &ai))
		die("getaddrinfo %s", tcp_hp);
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen))
		die("connect %s: %s", tcp_hp, strerror(errno));
	freeaddrinfo(ai);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void xwrite(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("send: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

/* Like xwrite() but reports a peer that closed instead of dying. */
static int try_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Read until @want appears in what arrived (kept in @buf), the peer closes
 * (returns 0) or @ms pass (returns -1). Returns 1 when found.
 */
static int read_until(int fd, char *buf, size_t cap, size_t *have,
		      const char *want, int ms)
{
	double end = now() + ms / 1000.0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		buf[*have] = '\0';
		if (memmem(buf, *have, want, strlen(want)))
			return 1;
		if (*have >= cap - 1) {
			/* keep the tail: the marker may straddle */
			memmove(buf, buf + *have - 64, 64);
			*have = 64;
		}
		if (now() > end)
			return -1;
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf + *have, cap - 1 - *have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		*have += n;
	}
}

static int cmd_tcpcycle(int argc, char **argv)
{
	static char big[70000], buf[4096];
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	unsigned int i, n, bad = 0;
	size_t have;
	int fd, r;

	if (argc != 2)
		die("usage: tcpcycle HOST:PORT N");
	tcp_hp = argv[0];
	n = atoi(argv[1]);
	/* a 64 KiB value for the "unread GET" case */
	fd = tcp_connect();
	memset(big, 'b', sizeof(big));
	r = snprintf(buf, sizeof(buf), "set abuse:cycbig 0 0 65536\r\n");
	xwrite(fd, buf, r);
	xwrite(fd, big, 65536);
	xwrite(fd, "\r\n", 2);
	have = 0;
	if (read_until(fd, buf, sizeof(buf), &have, "STORED\r\n", 30000) != 1)
		die("setting abuse:cycbig: %s", buf);
	close(fd);
	for (i = 0; i < n; i++) {
		fd = tcp_connect();
		have = 0;
		switch (i % 8) {
		case 0:		/* connect and go */
			break;
		case 1:		/* one full request */
			xwrite(fd, "version\r\n", 9);
			if (read_until(fd, buf, sizeof(buf), &have, "\r\n",
				       30000) != 1 || strncmp(buf, "VERSION ", 8))
				bad++;
			break;
		case 2:		/* in the middle of a data block */
			xwrite(fd, "set abuse:cyc 0 0 100\r\nabc", 26);
			break;
		case 3:		/* a GET whose value is never read */
			xwrite(fd, "get abuse:cycbig\r\n", 18);
			usleep(1000);
			break;
		case 4:		/* reset */
			xwrite(fd, "get abuse:cycbig\r\n", 18);
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
			break;
		case 5:		/* a SET, answered */
			r = snprintf(buf, sizeof(buf),
				     "set abuse:cyc:%u 0 0 5\r\nhello\r\n", i);
			xwrite(fd, buf, r);
			if (read_until(fd, buf, sizeof(buf), &have,
				       "STORED\r\n", 30000) != 1)
				bad++;
			break;
		case 6:		/* in the middle of a command line */
			xwrite(fd, "get abuse:cy", 12);
			break;
		default:	/* half-close: the server answers, then EOF */
			xwrite(fd, "version\r\n", 9);
			shutdown(fd, SHUT_WR);
			if (read_until(fd, buf, sizeof(buf), &have, "VERSION",
				       30000) != 1)
				bad++;
			break;
		}
		close(fd);
	}
	printf("# tcpcycle: %u connections, %u bad answers\n", n, bad);
	return bad != 0;
}

/* --- malformed memcache requests --------------------------------------- */

struct mcgen {
	char *buf;
	size_t len;
	bool closes;	/* the server closes the connection for it */
	const char *what;
};

static void app(struct mcgen *g, const void *p, size_t n)
{
	memcpy(g->buf + g->len, p, n);
	g->len += n;
}

static void appf(struct mcgen *g, const char *fmt, ...)
	__printf(2, 3);

static void appf(struct mcgen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g->len += vsprintf(g->buf + g->len, fmt, ap);
	va_end(ap);
}

static const char *const words[] = {
	"get", "gets", "gat", "gats", "set", "add", "replace", "append",
	"prepend", "cas", "delete", "incr", "decr", "touch", "stats",
	"flush_all", "version", "verbosity", "mg", "ms", "md", "ma", "mn", "me",
};

static const char *const junk_args[] = {
	"", " ", "-1", "-99999999999999999999", "99999999999999999999",
	"18446744073709551616", "0x10", "1e9", "abc", "\t", "\x01", "%n%n",
	"k", "noreply", "k v", "0 0", "1 2 3 4 5 6 7 8 9 10 11 12",
};

static const char *const meta_flags[] = {
	"v", "k", "t", "c", "f", "s", "q", "O", "Oabcdefghijklmnopqrstuvwxyz0123456789abcdef",
	"T", "Tabc", "N", "N-1", "E", "Ezz", "MX", "MZ", "S", "S-1", "b", "zz",
	"v v v v v v v v v v v v v v v v v v v v v v v v v v v v v v v v",
	"I", "R", "R99999999999999999999", "F", "F99999999999", "C", "Cabc",
	"D", "J", "\x7f",
};

static const char *const meta_words[] = { "mg", "ms", "md", "ma" };

static const char *const b64_junk[] = {
	"!!!!", "a", "====", "QUJD=A", "////////////////////////////////",
};

/* One malformed request (plus data, if any) into g. */
static void mc_generate(struct mcgen *g)
{
	unsigned int k = rnd() % 14, i, n;
	size_t l;

	g->len = 0;
	g->closes = false;
	switch (k) {
	case 0:
		g->what = "unknown command";
		n = 1 + rnd() % 20;
		for (i = 0; i < n; i++)
			appf(g, "%c", 'a' + (int)(rnd() % 26));
		appf(g, " %s\r\n", junk_args[rnd() % 17]);
		break;
	case 1:
		g->what = "binary junk line";
		n = 1 + rnd() % 600;
		for (i = 0; i < n; i++) {
			char c = (char)rnd();

			if (c == '\n')
				c = 'n';
			app(g, &c, 1);
		}
		app(g, "\r\n", 2);
		break;
	case 2:
		g->what = "known command, junk arguments";
		appf(g, "%s %s %s\r\n", words[rnd() % 24], junk_args[rnd() % 17],
		     junk_args[rnd() % 17]);
		/* a storage word with junk can still look like a data block */
		break;
	case 3:
		g->what = "key too long";
		appf(g, "%s ", rnd() & 1 ? "get" : "delete");
		l = 251 + rnd() % 300;
		memset(g->buf + g->len, 'K', l);
		g->len += l;
		app(g, "\r\n", 2);
		break;
	case 4:
		g->what = "key with control bytes";
		appf(g, "mg ab%ccd v\r\n", 1 + (int)(rnd() % 31));
		break;
	case 5:
		g->what = "bad numbers in a storage command";
		appf(g, "set abuse:fl %s %s %s\r\n", junk_args[rnd() % 9],
		     junk_args[rnd() % 9], junk_args[2 + rnd() % 5]);
		break;
	case 6:
		g->what = "data block longer than announced";
		n = rnd() % 64;
		appf(g, "set abuse:fl 0 0 %u\r\n", n);
		for (i = 0; i < n + 1 + rnd() % 40; i++)
			app(g, "d", 1);
		app(g, "\r\n", 2);
		break;
	case 7:
		g->what = "data block with a bad terminator";
		n = rnd() % 64;
		appf(g, "append abuse:fl 0 0 %u\r\n", n);
		for (i = 0; i < n; i++)
			app(g, "d", 1);
		app(g, "XY\r\n", 4);
		break;
	case 8:
		g->what = "bad meta flags";
		appf(g, "%s abuse:fl", meta_words[rnd() % 4]);
		n = 1 + rnd() % 4;
		for (i = 0; i < n; i++)
			appf(g, " %s", meta_flags[rnd() % 33]);
		if (!strncmp(g->buf, "ms", 2)) {
			/* ms takes a datalen token first: give a sane one */
			g->len = 0;
			appf(g, "ms abuse:fl 3 %s\r\nabc\r\n",
			     meta_flags[rnd() % 33]);
		} else {
			app(g, "\r\n", 2);
		}
		break;
	case 9:
		g->what = "bad base64 key";
		appf(g, "mg %s b v\r\n", b64_junk[rnd() % 5]);
		break;
	case 10:
		g->what = "bare line ends";
		switch (rnd() % 5) {
		case 0:
			app(g, "\r\n", 2);
			break;
		case 1:
			app(g, "\n", 1);
			break;
		case 2:
			app(g, "\r\r\n", 3);
			break;
		case 3:
			app(g, " \r\n", 3);
			break;
		default:
			app(g, "\0\0\0\n", 4);
			break;
		}
		break;
	case 11:
		g->what = "incr/decr on bad input";
		appf(g, "%s abuse:fl %s\r\n", rnd() & 1 ? "incr" : "decr",
		     junk_args[rnd() % 17]);
		break;
	case 12:
		g->what = "overlong line";
		/* a get line may grow to 1 MiB (MC_LINE_MAX_GET) */
		l = rnd() & 1 ? 2100 + rnd() % 30000 : (1u << 20) + rnd() % 4096;
		appf(g, "get ");
		memset(g->buf + g->len, 'x', l);
		g->len += l;
		/* longer than the GET line buffer: the server closes */
		g->closes = l >= 1u << 20;
		if (!g->closes)
			app(g, "\r\n", 2);
		break;
	default:
		g->what = "a pipeline of junk";
		n = 2 + rnd() % 6;
		for (i = 0; i < n; i++)
			appf(g, "%s %s\r\n", words[rnd() % 24],
			     junk_args[rnd() % 17]);
		break;
	}
}

static int cmd_mcflood(int argc, char **argv)
{
	static char gbuf[(1 << 20) + 65536], rbuf[8192];
	unsigned int i, n, closed = 0, expected_close = 0, resync = 0;
	struct mcgen g = { .buf = gbuf };
	size_t have;
	int fd, r;

	if (argc != 3)
		die("usage: mcflood HOST:PORT N SEED");
	tcp_hp = argv[0];
	n = atoi(argv[1]);
	rs = strtoull(argv[2], NULL, 0);
	fd = tcp_connect();
	for (i = 0; i < n; i++) {
		mc_generate(&g);
		if (try_write(fd, g.buf, g.len)) {
			closed++;
			close(fd);
			fd = tcp_connect();
			continue;
		}
		if (g.closes) {
			have = 0;
			r = read_until(fd, rbuf, sizeof(rbuf), &have, "\x01\x02",
				       20000);
			if (r != 0)
				die("request %u (%s): the server did not close (%s)",
				    i, g.what, r < 0 ? "timeout" : "?");
			expected_close++;
			close(fd);
			fd = tcp_connect();
			continue;
		}
		/*
		 * "mn" answers MN once everything before it was answered.
		 * A storage word with junk numbers may have announced a data
		 * block: feed it blank lines until MN shows up.
		 */
		if (try_write(fd, "mn\r\n", 4)) {
			closed++;
			close(fd);
			fd = tcp_connect();
			continue;
		}
		have = 0;
		r = read_until(fd, rbuf, sizeof(rbuf), &have, "MN\r\n", 1000);
		while (r < 0 && resync < 1000) {
			/* 64 bytes of empty lines, each ERROR if not swallowed */
			static const char fill64[] =
				"\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
				"\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
				"\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
				"\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
				"mn\r\n";

			resync++;
			if (try_write(fd, fill64, sizeof(fill64) - 1))
				break;
			r = read_until(fd, rbuf, sizeof(rbuf), &have, "MN\r\n",
				       1000);
		}
		if (r < 0)
			die("request %u (%s): no MN after it", i, g.what);
		if (r == 0) {
			/* closed although no rule says it should be */
			printf("# mcflood: request %u (%s) closed the connection: %.*s\n",
			       i, g.what, (int)(g.len > 80 ? 80 : g.len), g.buf);
			closed++;
			close(fd);
			fd = tcp_connect();
		}
	}
	/* the connection still serves */
	xwrite(fd, "version\r\n", 9);
	have = 0;
	if (read_until(fd, rbuf, sizeof(rbuf), &have, "VERSION ", 20000) != 1)
		die("no VERSION after the flood");
	close(fd);
	printf("# mcflood: %u requests, %u expected closes, %u unexpected closes, %u resyncs\n",
	       n, expected_close, closed, resync);
	return closed != 0;
}

/* --- distinct-key flood -------------------------------------------------- */

static int cmd_keyflood(int argc, char **argv)
{
	static char buf[1 << 16], rbuf[4096];
	unsigned int i, n, l;
	size_t o = 0, have = 0;
	int fd;

	if (argc != 2)
		die("usage: keyflood HOST:PORT N");
	tcp_hp = argv[0];
	n = atoi(argv[1]);
	fd = tcp_connect();
	for (i = 0; i < n; i++) {
		l = 1 + i % 64;
		o += sprintf(buf + o, "set abuse:kf:%u 0 0 %u noreply\r\n", i, l);
		memset(buf + o, 'a' + i % 26, l);
		o += l;
		memcpy(buf + o, "\r\n", 2);
		o += 2;
		if (o > sizeof(buf) - 512) {
			xwrite(fd, buf, o);
			o = 0;
		}
	}
	memcpy(buf + o, "mn\r\n", 4);
	xwrite(fd, buf, o + 4);
	if (read_until(fd, rbuf, sizeof(rbuf), &have, "MN\r\n", 120000) != 1)
		die("no MN after %u SETs (got: %.100s)", n, rbuf);
	close(fd);
	printf("# keyflood: %u distinct keys set\n", n);
	return 0;
}

/* --- RDMA connect cycles (libgoblin) --------------------------------------- */

static const char *rdma_hp, *bind_host;
static int io_timeout_ms;	/* 0: 60 s over RDMA, 120 s over TCP */

static int gb_open(struct gb_conn **c, uint32_t set_max)
{
	struct gb_connect_opts o;
	char host[128], port[16];

	split_hp(rdma_hp, host, sizeof(host), port, sizeof(port));
	gb_connect_opts_init(&o);
	o.transport = GB_TRANSPORT_RDMA;
	o.host = host;
	o.port = atoi(port);
	o.bind_host = bind_host;
	o.window_size = 65536;
	o.windows = 2;
	o.set_max = set_max;
	o.timeout_ms = io_timeout_ms ? io_timeout_ms : 60000;
	o.spin_us = -1;
	return gb_connect(&o, c);
}

static int cmd_rdmacycle(int argc, char **argv)
{
	static char val[4096], got[4096];
	unsigned int i, n, bad = 0;
	struct gb_conn *c;
	size_t vl;
	int ret;

	if (argc != 3)
		die("usage: rdmacycle HOST:PORT BIND N");
	rdma_hp = argv[0];
	bind_host = argv[1];
	n = atoi(argv[2]);
	for (i = 0; i < n; i++) {
		ret = gb_open(&c, 4096);
		if (ret)
			die("connect %u of %u: %s", i + 1, n, gb_strerror(ret));
		if (i % 4 == 0) {
			fill((unsigned char *)val, i, sizeof(val));
			ret = gb_set(c, "abuse:rcyc", 10, val, sizeof(val), 0, 0);
			if (!ret)
				ret = gb_get_copy(c, "abuse:rcyc", 10, got,
						  sizeof(got), &vl, NULL, NULL);
			if (ret || vl != sizeof(val) || memcmp(val, got, vl)) {
				printf("# rdmacycle %u: %s (%s)\n", i,
				       gb_strerror(ret), gb_errmsg(c));
				bad++;
			}
		}
		gb_close(c);
	}
	printf("# rdmacycle: %u connections, %u bad\n", n, bad);
	return bad != 0;
}

/* --- raw RDMA client for malformed records ---------------------------------- */

#define REC	GB_RDMA_RECORD_SIZE
#define NRECV	16
#define NSEND	16
#define RWIN	4096
#define RNWIN	2
#define RREGION	(RWIN * RNWIN + 65536)

struct raw {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char *ring, *region;
	struct ibv_mr *ring_mr, *region_mr;
	unsigned int avail;	/* records we may send */
	unsigned int owed;	/* receives reposted, not yet granted */
	unsigned int sn;
	uint64_t held;		/* windows the server handed us */
	bool dead;
};

static int raw_cm(struct raw *r, enum rdma_cm_event_type want, int ms,
		  struct rdma_cm_event *copy)
{
	struct pollfd p = { .fd = r->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;

	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(r->ch, &ev))
		return -1;
	got = ev->event;
	if (copy)
		*copy = *ev;
	if (got == RDMA_CM_EVENT_DISCONNECTED)
		r->dead = true;
	rdma_ack_cm_event(ev);
	return got == want ? 0 : (int)got;
}

static void raw_post_recv(struct raw *r, unsigned int i)
{
	struct ibv_sge sge = {
		(uintptr_t)(r->ring + i * REC), REC, r->ring_mr->lkey
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(r->id->qp, &wr, &bad))
		r->dead = true;
}

static void raw_close(struct raw *r)
{
	if (r->id) {
		if (!r->dead)
			rdma_disconnect(r->id);
		if (r->id->qp)
			rdma_destroy_qp(r->id);
	}
	if (r->ring_mr)
		ibv_dereg_mr(r->ring_mr);
	if (r->region_mr)
		ibv_dereg_mr(r->region_mr);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->id)
		rdma_destroy_id(r->id);
	if (r->ch)
		rdma_destroy_event_channel(r->ch);
	free(r->ring);
	free(r->region);
	memset(r, 0, sizeof(*r));
}

static void raw_open(struct raw *r)
{
	struct addrinfo *dst, *src = NULL;
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_conn_param cp = { 0 };
	struct gb_rdma_geom g = { 0 };
	const struct gb_rdma_accept *a;
	struct rdma_cm_event ev;
	struct gb_rdma_connect c;
	char host[128], port[16];
	unsigned int i;

	memset(r, 0, sizeof(*r));
	split_hp(rdma_hp, host, sizeof(host), port, sizeof(port));
	r->ch = rdma_create_event_channel();
	if (!r->ch || rdma_create_id(r->ch, &r->id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	fcntl(r->ch->fd, F_SETFL, fcntl(r->ch->fd, F_GETFL) | O_NONBLOCK);
	if (getaddrinfo(host, port, NULL, &dst) ||
	    getaddrinfo(bind_host, NULL, NULL, &src))
		die("getaddrinfo");
	if (rdma_resolve_addr(r->id, src->ai_addr, dst->ai_addr, 5000) ||
	    raw_cm(r, RDMA_CM_EVENT_ADDR_RESOLVED, 10000, NULL))
		die("rdma_resolve_addr");
	freeaddrinfo(dst);
	freeaddrinfo(src);
	if (rdma_resolve_route(r->id, 5000) ||
	    raw_cm(r, RDMA_CM_EVENT_ROUTE_RESOLVED, 10000, NULL))
		die("rdma_resolve_route");
	r->pd = ibv_alloc_pd(r->id->verbs);
	r->cq = ibv_create_cq(r->id->verbs, 4 * (NRECV + NSEND), NULL, NULL, 0);
	if (!r->pd || !r->cq)
		die("pd/cq");
	qa.send_cq = r->cq;
	qa.recv_cq = r->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = NSEND + 4;
	qa.cap.max_recv_wr = NRECV + 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(r->id, r->pd, &qa))
		die("rdma_create_qp: %s", strerror(errno));
	r->ring = aligned_alloc(4096, (NRECV + NSEND) * REC);
	r->region = aligned_alloc(4096, RREGION);
	if (!r->ring || !r->region)
		die("alloc");
	memset(r->region, 'r', RREGION);
	r->ring_mr = ibv_reg_mr(r->pd, r->ring, (NRECV + NSEND) * REC,
				IBV_ACCESS_LOCAL_WRITE);
	r->region_mr = ibv_reg_mr(r->pd, r->region, RREGION,
				  IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ);
	if (!r->ring_mr || !r->region_mr)
		die("ibv_reg_mr");
	for (i = 0; i < NRECV; i++)
		raw_post_recv(r, i);
	g.window_size = RWIN;
	g.window_count = RNWIN;
	g.credits = NRECV;
	g.rkey = r->region_mr->rkey;
	g.window_base = (uintptr_t)r->region;
	g.region_len = RREGION;
	gb_rdma_connect_build(&c, &g);
	cp.private_data = &c;
	cp.private_data_len = sizeof(c);
	cp.responder_resources = 2;
	cp.initiator_depth = 2;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(r->id, &cp))
		die("rdma_connect: %s", strerror(errno));
	if (raw_cm(r, RDMA_CM_EVENT_ESTABLISHED, 30000, &ev))
		die("RDMA connection not established");
	a = ev.param.conn.private_data;
	r->avail = le16toh(a->credits);
	r->dead = false;
}

static char *raw_next(struct raw *r)
{
	return r->ring + (NRECV + r->sn % NSEND) * REC;
}

/* Post the record in raw_next(); its credit field is set unless @keep. */
static void raw_send(struct raw *r, bool keep)
{
	char *b = raw_next(r);
	struct gb_rdma_hdr *h = (void *)b;
	struct ibv_sge sge = { (uintptr_t)b, REC, r->ring_mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1000 + r->sn, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (!keep)
		h->credits = htole16(r->owed);
	r->owed = 0;
	if (r->avail)
		r->avail--;
	r->sn++;
	if (ibv_post_send(r->id->qp, &wr, &bad))
		r->dead = true;
}

/* Return the windows the server handed us (FLOW, granting credits). */
static void raw_flow(struct raw *r)
{
	struct gb_rdma_flow *f;

	gb_rdma_hdr_init(raw_next(r), GB_RDMA_FLOW, 0, 0, sizeof(*f));
	f = (void *)(raw_next(r) + sizeof(struct gb_rdma_hdr));
	f->windows = htole64(r->held);
	r->held = 0;
	raw_send(r, false);
}

/*
 * Wait for the next record from the server into @rec (copied to @buf).
 * Returns 0, or -1 on disconnect/timeout.
 */
static int raw_recv(struct raw *r, char *buf, struct gb_rdma_rec *rec, int ms)
{
	double end = now() + ms / 1000.0;
	struct ibv_wc wc;
	const char *msg;
	int n;

	while (now() < end && !r->dead) {
		n = ibv_poll_cq(r->cq, 1, &wc);
		if (n < 0)
			return -1;
		if (!n) {
			raw_cm(r, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
			usleep(100);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			r->dead = true;
			return -1;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		memcpy(buf, r->ring + wc.wr_id * REC, REC);
		raw_post_recv(r, wc.wr_id);
		r->owed++;
		if (gb_rdma_rec_parse(buf, wc.byte_len, rec, &msg) ==
		    GB_RDMA_PARSE_FATAL)
			die("server sent a bad record: %s", msg);
		r->avail += rec->credits;
		if (rec->type == GB_RDMA_R_BULK)
			r->held |= 1ull << rec->u.bulk.window;
		/* give windows and credits back while we mostly listen */
		if ((r->held || r->owed >= NRECV / 2) && r->avail >= 1 &&
		    r->owed >= 1)
			raw_flow(r);
		return 0;
	}
	return -1;
}

/* Wait until the server drops the connection. 0 if it did. */
static int raw_wait_dead(struct raw *r, int ms)
{
	char buf[REC] __aligned(8);
	struct gb_rdma_rec rec;
	double end = now() + ms / 1000.0;

	while (now() < end) {
		if (r->dead)
			return 0;
		raw_recv(r, buf, &rec, 200);
	}
	return r->dead ? 0 : -1;
}

enum fatal_kind { F_NONE, F_BAD_RECORD, F_RANGE, F_WINDOW, F_CREDIT, F_N };

static const char *const fatal_name[F_N] = {
	"none", "bad_record", "range", "window", "credit",
};

/* A valid request into b; returns its type. */
static void rec_valid(char *b, uint64_t tag)
{
	struct gb_rdma_hdr *h = (void *)b;
	struct gb_rdma_set *s = (void *)(h + 1);
	struct gb_rdma_keyop *k = (void *)(h + 1);
	char key[40];
	int n;

	n = snprintf(key, sizeof(key), "abuse:rf:%u", (unsigned int)(rnd() % 64));
	switch (rnd() % 6) {
	case 0:
		gb_rdma_hdr_init(b, GB_RDMA_NOOP, tag, 0, 0);
		break;
	case 1:
		gb_rdma_hdr_init(b, GB_RDMA_VERSION_REQ, tag, 0, 0);
		break;
	case 2:
		gb_rdma_hdr_init(b, GB_RDMA_GET, tag, 0, 8);
		gb_rdma_get_add_key(b, key, n);
		if (rnd() & 1)
			gb_rdma_get_add_key(b, "abuse:rf:none", 13);
		break;
	case 3:
		gb_rdma_hdr_init(b, GB_RDMA_SET, tag, 0, sizeof(*s) - sizeof(s->pad));
		s->bytes = htole64(rnd() % (RREGION - RWIN * RNWIN));
		s->addr = htole64((uintptr_t)0);	/* set by the caller */
		s->klen = n;
		memcpy(s->key, key, n);
		break;
	case 4:
		gb_rdma_hdr_init(b, GB_RDMA_DELETE, tag, 0, 24 + n);
		k->klen = n;
		memcpy(k->key, key, n);
		break;
	default:
		gb_rdma_hdr_init(b, GB_RDMA_TOUCH, tag, 0, 24 + n);
		k->exptime = htole64(100);
		k->klen = n;
		memcpy(k->key, key, n);
		break;
	}
}

/* Offsets in a record of the first key's length byte and first byte. */
static unsigned int klen_off(const char *b)
{
	switch ((uint8_t)b[0]) {
	case GB_RDMA_GET:
		return 16 + 8;
	case GB_RDMA_SET:
		return 16 + 40;
	default:
		return 16 + 16;
	}
}

static unsigned int key_off(const char *b)
{
	switch ((uint8_t)b[0]) {
	case GB_RDMA_GET:
		return 16 + 9;
	case GB_RDMA_SET:
		return 16 + 48;
	default:
		return 16 + 24;
	}
}

static void rec_mutate(char *b)
{
	struct gb_rdma_hdr *h = (void *)b;
	unsigned int i, n, o;

	switch (rnd() % 8) {
	case 0:		/* a few random body bytes */
		n = 1 + rnd() % 4;
		for (i = 0; i < n; i++) {
			o = 16 + rnd() % 80;
			b[o] = (char)rnd();
		}
		break;
	case 1:		/* random type */
		h->type = (uint8_t)rnd();
		break;
	case 2:		/* random body length (a fatal one is re-rolled) */
		h->len = htole16(rnd() % (GB_RDMA_BODY_MAX + 1));
		break;
	case 3:		/* a control byte or space in the first key byte */
		b[key_off(b) + rnd() % 4] = (char)(rnd() % 2 ? ' ' : rnd() % 32);
		break;
	case 4:		/* key length 0 or above 250 */
		b[klen_off(b)] = rnd() & 1 ? 0 : (char)(251 + rnd() % 5);
		break;
	case 5:		/* GET with no keys or too many */
		h->type = GB_RDMA_GET;
		b[16] = rnd() & 1 ? 0 : 65;
		b[17] = rnd() & 1 ? 0 : (char)rnd();
		break;
	case 6:		/* bad SET mode */
		h->type = GB_RDMA_SET;
		b[16] = 6 + rnd() % 250;
		break;
	default:	/* garbage over the whole body */
		for (i = 16; i < REC; i++)
			b[i] = (char)rnd();
		break;
	}
}

/*
 * A SET source the server accepts: inside the region and past the windows
 * (the flood holds none, so the server owns them all and closes the
 * connection for a source that overlaps one).
 */
static bool set_in_range(const struct gb_rdma_rec *rec, uint64_t base)
{
	uint64_t addr = rec->u.set.addr, bytes = rec->u.set.bytes;
	uint64_t src = base + RWIN * RNWIN, len = RREGION - RWIN * RNWIN;

	return !bytes || (addr >= src && addr - src <= len &&
			  bytes <= len - (addr - src));
}

static int cmd_rdmaflood(int argc, char **argv)
{
	char buf[REC] __aligned(8);
	unsigned long cnt[F_N] = { 0 }, answered = 0, bad_answered = 0, bad = 0;
	unsigned long sent = 0, conns = 0, either = 0;
	struct gb_rdma_rec rec, prec;
	struct raw r;
	unsigned int i, n;
	const char *msg;
	uint64_t tag = 1;
	int p;

	if (argc != 4)
		die("usage: rdmaflood HOST:PORT BIND N SEED");
	rdma_hp = argv[0];
	bind_host = argv[1];
	n = atoi(argv[2]);
	rs = strtoull(argv[3], NULL, 0);
	raw_open(&r);
	conns++;
	for (i = 0; i < n; i++) {
		enum fatal_kind fk = F_NONE;
		char *b;

		if (r.dead) {
			raw_close(&r);
			raw_open(&r);
			conns++;
		}
		/* keep one credit for FLOW (rule 1) */
		while (r.avail < 2 && !r.dead)
			if (raw_recv(&r, buf, &rec, 20000))
				break;
		if (r.dead)
			die("record %u: the server dropped a healthy connection", i);
		if (r.avail < 2)
			die("record %u: the server returns no credits", i);
		b = raw_next(&r);
		tag++;
		if (rnd() % 40 == 0) {
			/* a deliberately fatal record */
			switch (rnd() % 4) {
			case 0:
				gb_rdma_hdr_init(b, GB_RDMA_NOOP, tag, 0, 0);
				((struct gb_rdma_hdr *)b)->len =
					htole16(GB_RDMA_BODY_MAX + 1 + rnd() % 100);
				fk = F_BAD_RECORD;
				break;
			case 1:
				gb_rdma_hdr_init(b, GB_RDMA_SET, tag, 0, 48 + 5);
				((struct gb_rdma_set *)(b + 16))->bytes = htole64(100);
				((struct gb_rdma_set *)(b + 16))->addr = htole64(8);
				((struct gb_rdma_set *)(b + 16))->klen = 5;
				memcpy(((struct gb_rdma_set *)(b + 16))->key, "abuse", 5);
				fk = F_RANGE;
				break;
			case 2:
				gb_rdma_hdr_init(b, GB_RDMA_FLOW, 0, 0, 16);
				((struct gb_rdma_flow *)(b + 16))->windows =
					htole64(rnd() & 1 ? 1 : 1ull << 40);
				fk = F_WINDOW;
				break;
			default:
				gb_rdma_hdr_init(b, GB_RDMA_NOOP, tag, 0, 0);
				((struct gb_rdma_hdr *)b)->credits = htole16(1000);
				fk = F_CREDIT;
				break;
			}
			raw_send(&r, fk == F_CREDIT);
			sent++;
			cnt[fk]++;
			if (raw_wait_dead(&r, 30000))
				die("record %u (fatal %s) did not close the connection",
				    i, fatal_name[fk]);
			continue;
		}
		rec_valid(b, tag);
		if (b[0] == GB_RDMA_SET)
			((struct gb_rdma_set *)(b + 16))->addr =
				htole64((uintptr_t)r.region + RWIN * RNWIN);
		if (rnd() % 4)
			rec_mutate(b);
		((struct gb_rdma_hdr *)b)->tag = htole64(tag);
		/* classify as the server will (gb_rdma_req_parse) */
		p = gb_rdma_req_parse(b, REC, &prec, &msg);
		if (p == GB_RDMA_PARSE_FATAL || b[0] == GB_RDMA_FLOW) {
			i--;	/* re-roll: fatal ones are counted above */
			tag--;
			continue;
		}
		if (p == GB_RDMA_PARSE_OK && prec.type >= 0x80)
			p = GB_RDMA_PARSE_UNKNOWN;
		/*
		 * A LOOKUP (3.3) is well formed, but these connections never
		 * negotiate one-sided reads: the server answers ERROR kind
		 * CLIENT and counts a bad record.
		 */
		if (p == GB_RDMA_PARSE_OK && prec.type == GB_RDMA_LOOKUP)
			p = GB_RDMA_PARSE_CLIENT;
		if (p == GB_RDMA_PARSE_OK && prec.type == GB_RDMA_SET &&
		    !set_in_range(&prec, (uintptr_t)r.region)) {
			i--;
			tag--;
			continue;
		}
		raw_send(&r, false);
		sent++;
		/* wait for the terminal answer of this tag */
		for (;;) {
			if (raw_recv(&r, buf, &rec, 30000)) {
				/*
				 * A client-sent response type (0x80..) may be
				 * closed for rather than answered (issue 11 #22).
				 */
				if (prec.type >= 0x80 && r.dead) {
					either++;
					cnt[F_BAD_RECORD]++;
					break;
				}
				die("record %u (type %#x, parse %d): no answer%s", i,
				    prec.type, p, r.dead ? ", disconnected" : "");
			}
			if (rec.type == GB_RDMA_FLOW || rec.tag != tag)
				continue;
			if (rec.type == GB_RDMA_R_ERROR) {
				uint32_t want = p == GB_RDMA_PARSE_CLIENT ?
						GB_RDMA_ERR_CLIENT :
						GB_RDMA_ERR_ERROR;

				if (p == GB_RDMA_PARSE_OK &&
				    prec.type == GB_RDMA_GET)
					continue;	/* store error: END follows */
				if (p == GB_RDMA_PARSE_OK &&
				    prec.type == GB_RDMA_SET)
					break;		/* the store said no */
				if (p == GB_RDMA_PARSE_OK ||
				    rec.u.error.kind != want) {
					printf("# rdmaflood: record %u (type %#x, parse %d):",
					       i, prec.type, p);
					printf(" ERROR kind %u: %s\n",
					       rec.u.error.kind, rec.u.error.msg);
					bad++;
				}
				break;
			}
			if (p != GB_RDMA_PARSE_OK) {
				printf("# rdmaflood: record %u (type %#x, parse %d):",
				       i, prec.type, p);
				printf(" answered with %#x\n", rec.type);
				bad++;
				break;
			}
			if (rec.type == GB_RDMA_R_END ||
			    rec.type == GB_RDMA_R_STATUS ||
			    rec.type == GB_RDMA_R_NOOP ||
			    rec.type == GB_RDMA_R_VERSION)
				break;
		}
		answered++;
		if (p != GB_RDMA_PARSE_OK && !r.dead)
			bad_answered++;
	}
	raw_close(&r);
	/*
	 * Counted by the server: bad_record = answered bad records + fatal
	 * bad records (incl. client-sent responses it closed for).
	 */
	printf("# rdmaflood: %lu records on %lu connections; %lu answered,",
	       sent, conns, answered);
	printf(" %lu of them bad records answered with ERROR;\n", bad_answered);
	printf("# rdmaflood: fatal: bad_record %lu range %lu window %lu credit %lu",
	       cnt[F_BAD_RECORD], cnt[F_RANGE], cnt[F_WINDOW], cnt[F_CREDIT]);
	printf(" (%lu bad_record ones client-sent response types)\n", either);
	printf("expect bad_record %lu range %lu window %lu credit %lu\n",
	       bad_answered + cnt[F_BAD_RECORD], cnt[F_RANGE], cnt[F_WINDOW],
	       cnt[F_CREDIT]);
	return bad != 0;
}

/* --- kill -9 during large transfers ------------------------------------------ */

/*
 * Killer values: "abuse:kget" (the GET target, fixed content from seed 1)
 * and "abuse:kset:<i>" (written by SET children): a 32-byte header (magic,
 * length, seed, CRC32C of the body) then the body from the seed.
 */
#define KMAGIC	0x4c4c494bu	/* "KILL" */
#define KHDR	32
#define NKSET	4

static void kval(unsigned char *p, size_t len, uint64_t seed)
{
	uint32_t m = KMAGIC, l = (uint32_t)len, c;

	fill(p + KHDR, seed, len - KHDR);
	c = crc32c(p + KHDR, len - KHDR);
	memset(p, 0, KHDR);
	memcpy(p, &m, 4);
	memcpy(p + 4, &l, 4);
	memcpy(p + 8, &seed, 8);
	memcpy(p + 16, &c, 4);
}

/* A killer value must be whole; returns a reason or NULL. */
static const char *kcheck(const unsigned char *p, size_t len)
{
	static char why[160];
	uint32_t m, l, c;
	uint64_t seed;

	if (len < KHDR)
		return "shorter than its header";
	memcpy(&m, p, 4);
	memcpy(&l, p + 4, 4);
	memcpy(&seed, p + 8, 8);
	memcpy(&c, p + 16, 4);
	if (m != KMAGIC || l != len) {
		snprintf(why, sizeof(why), "header magic %#x length %u of %zu bytes",
			 m, l, len);
		return why;
	}
	if (crc32c(p + KHDR, len - KHDR) != c) {
		snprintf(why, sizeof(why),
			 "crc32c of %zu bytes (seed %lu) does not match its header",
			 len, seed);
		return why;
	}
	return NULL;
}

static unsigned char *kbuf, *kgot;
static uint32_t set_max;	/* RDMA staging area; 0: kvmax */
/* killer value size: VMAX, or ABUSE_KILL_BYTES (slow kernels) */
static uint32_t kvmax = VMAX;

struct tconn {
	int tr;
	struct gb_conn *gb;
	int fd;
};

static int t_open(struct tconn *t, int tr)
{
	char host[128], port[16];
	struct gb_connect_opts o;

	t->tr = tr;
	t->fd = -1;
	t->gb = NULL;
	if (!tr) {
		split_hp(tcp_hp, host, sizeof(host), port, sizeof(port));
		gb_connect_opts_init(&o);
		o.transport = GB_TRANSPORT_TCP;
		o.host = host;
		o.port = atoi(port);
		o.timeout_ms = io_timeout_ms ? io_timeout_ms : 120000;
		return gb_connect(&o, &t->gb);
	}
	return gb_open(&t->gb, set_max ? set_max : kvmax);
}

static int t_set(struct tconn *t, const char *key, const void *v, size_t len)
{
	return gb_set(t->gb, key, strlen(key), v, len, 0, 0);
}

static int t_get(struct tconn *t, const char *key, size_t *len)
{
	return gb_get_copy(t->gb, key, strlen(key), kgot, VMAX, len, NULL,
			   NULL);
}

static void killer_child(int tr, bool set, uint64_t seed)
{
	struct tconn t;
	char key[32];
	size_t len, i;
	int ret;

	rs = seed;
	ret = t_open(&t, tr);
	if (ret) {
		printf("# killer child: connect: %s\n", gb_strerror(ret));
		_exit(3);
	}
	for (i = 0;; i++) {
		if (set) {
			len = KHDR + rnd() % (kvmax - KHDR);
			kval(kbuf, len, rnd());
			snprintf(key, sizeof(key), "abuse:kset:%u",
				 (unsigned int)(rnd() % NKSET));
			ret = t_set(&t, key, kbuf, len);
		} else {
			ret = t_get(&t, "abuse:kget", &len);
		}
		if (ret) {
			printf("# killer child: op %zu: %s (%s)\n", i,
			       gb_strerror(ret), gb_errmsg(t.gb));
			_exit(4);
		}
	}
}

static int check_values(int tr)
{
	const char *why;
	struct tconn t;
	char key[32];
	unsigned int i;
	size_t len;
	int ret, bad = 0;

	ret = t_open(&t, tr);
	if (ret)
		die("check: connect over %s: %s", tr ? "rdma" : "tcp",
		    gb_strerror(ret));
	ret = t_get(&t, "abuse:kget", &len);
	if (ret || len != kvmax || memcmp(kgot, kbuf, len)) {
		printf("# killer: abuse:kget over %s: %s (%s), %zu bytes%s\n",
		       tr ? "rdma" : "tcp", gb_strerror(ret),
		       ret ? gb_errmsg(t.gb) : "", len, ret ? "" : ", differs");
		bad++;
	}
	for (i = 0; i < NKSET; i++) {
		snprintf(key, sizeof(key), "abuse:kset:%u", i);
		ret = t_get(&t, key, &len);
		if (ret == -GB_ENOTFOUND)
			continue;
		why = ret ? gb_strerror(ret) : kcheck(kgot, len);
		if (why) {
			printf("# killer: %s over %s: %s%s%s%s\n", key,
			       tr ? "rdma" : "tcp", why, ret ? " (" : "",
			       ret ? gb_errmsg(t.gb) : "", ret ? ")" : "");
			bad++;
		}
	}
	gb_close(t.gb);
	return bad;
}

static int cmd_killer(int argc, char **argv)
{
	unsigned int i, n, early = 0;
	double t0, op = 0.5, *shared;
	struct tconn t;
	uint64_t seed;
	bool set;
	int tr, ret, st;
	pid_t pid;

	if (argc != 6 && argc != 7)
		die("usage: killer tcp|rdma get|set TCP_HOST:PORT RDMA_HOST:PORT BIND N SEED");
	tr = !strcmp(argv[0], "rdma");
	set = !strcmp(argv[1], "set");
	tcp_hp = argv[2];
	rdma_hp = argv[3];
	bind_host = argv[4];
	n = atoi(argv[5]);
	seed = argc > 6 ? strtoull(argv[6], NULL, 0) : 1;
	rs = seed;
	if (getenv("ABUSE_KILL_BYTES")) {
		kvmax = strtoul(getenv("ABUSE_KILL_BYTES"), NULL, 0);
		if (kvmax < KHDR + 65536 || kvmax > VMAX)
			die("killer: ABUSE_KILL_BYTES 64 KiB..16 MiB");
	}
	if (getenv("ABUSE_IO_TIMEOUT_MS"))
		io_timeout_ms = atoi(getenv("ABUSE_IO_TIMEOUT_MS"));
	kbuf = malloc(VMAX);
	kgot = malloc(VMAX);
	if (!kbuf || !kgot)
		die("malloc");
	/*
	 * The GET target, and a measure of one transfer. RDMA work happens in
	 * child processes only: librdmacm keeps device contexts open for the
	 * process, and a forked child cannot use its parent's.
	 */
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap");
	kval(kbuf, kvmax, 1);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		ret = t_open(&t, tr);
		if (ret)
			die("connect: %s", gb_strerror(ret));
		t0 = now();
		ret = t_set(&t, "abuse:kget", kbuf, kvmax);
		if (ret)
			die("SET abuse:kget: %s (%s)", gb_strerror(ret),
			    gb_errmsg(t.gb));
		*shared = now() - t0;
		gb_close(t.gb);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	op = *shared;
	printf("# killer: one %u KiB SET over %s takes %.2f s\n", kvmax >> 10,
	       tr ? "rdma" : "tcp", op);
	for (i = 0; i < n; i++) {
		/* kill anywhere in connect + one to two transfers */
		useconds_t delay = rnd() % (useconds_t)(1e6 * (0.2 + 2 * op));

		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			killer_child(tr, set, rnd());
		usleep(delay);
		kill(pid, SIGKILL);
		if (waitpid(pid, &st, 0) < 0)
			die("waitpid");
		if (WIFEXITED(st)) {
			printf("# killer: child %u exited %d before the kill\n",
			       i, WEXITSTATUS(st));
			early++;
		}
	}
	kval(kbuf, kvmax, 1);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(check_values(0) + check_values(1) != 0);
	ret = waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st);
	printf("# killer: %u %s %s children killed, %u ended early; %s\n", n,
	       tr ? "rdma" : "tcp", set ? "set" : "get", early,
	       ret ? "values damaged" : "values whole");
	return ret || early;
}

/* --- load generators for rmmod, device removal and fault injection --------- */

/*
 * Loader clients keep large SETs and GETs going until told to stop, and
 * survive anything the server does to them: a failed operation is counted
 * by its error code, a lost connection is reopened (every failed attempt
 * counted too). Values carry the killer header (kval), so a hit is checked
 * whole (length, CRC32C of the body) whatever SET wrote it last.
 */
#define LD_MAXC		16
#define LD_NKEYS	4

struct ld_stats {
	uint64_t sets, hits, misses, conns, connfail, corrupt, bytes;
	uint64_t err[GB_ERROR_MAX];
	int done;
};

/* set by the signal handler, and in shared memory for the children */
static int ld_stop_sig;
static int *ld_stop;

static void ld_on_term(int sig)
{
	(void)sig;
	__atomic_store_n(&ld_stop_sig, 1, __ATOMIC_RELAXED);
}

/* Sizes: a third heads only (<= 64 KiB), the rest up to @vmax with tails. */
static size_t ld_size(size_t vmax)
{
	if (rnd() % 3 == 0)
		return KHDR + rnd() % (65536 - KHDR);
	return KHDR + rnd() % (vmax - KHDR);
}

/* Which client, transport and operation ran into its timeout. */
static void ld_timeout(unsigned int idx, int tr, const char *op,
		       const char *key)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("# loader %u: %s %s%s%s: timed out (at %ld.%03ld)\n", idx,
	       tr ? "rdma" : "tcp", op, key ? " " : "", key ? key : "",
	       (long)ts.tv_sec, ts.tv_nsec / 1000000);
	fflush(stdout);
}

static void ld_child(int tr, unsigned int idx, size_t vmax, uint64_t seed,
		     struct ld_stats *st)
{
	unsigned char *v = malloc(vmax);
	const char *e = getenv("ABUSE_LD_OPS");
	unsigned int per = e ? atoi(e) : 0, done = 0;
	bool open = false;
	struct tconn t;
	const char *op;
	char key[48];
	size_t len;
	int ret;

	kgot = malloc(VMAX);
	if (!v || !kgot)
		_exit(2);
	rs = seed;
	while (!__atomic_load_n(ld_stop, __ATOMIC_RELAXED)) {
		if (!open) {
			ret = t_open(&t, tr);
			if (ret) {
				if (ret == -GB_ETIMEDOUT)
					ld_timeout(idx, tr, "connect", NULL);
				st->connfail++;
				st->err[-ret < GB_ERROR_MAX ? -ret : 0]++;
				usleep(200000);
				continue;
			}
			open = true;
			done = 0;
			st->conns++;
		} else if (per && done >= per) {
			/* ABUSE_LD_OPS: a new connection every so many ops */
			gb_close(t.gb);
			open = false;
			continue;
		}
		done++;
		snprintf(key, sizeof(key), "abuse:ld:%u:%u", idx,
			 (unsigned int)(rnd() % LD_NKEYS));
		op = rnd() & 1 ? "SET" : "GET";
		if (*op == 'S') {
			len = ld_size(vmax);
			kval(v, len, rnd());
			ret = t_set(&t, key, v, len);
			if (!ret) {
				st->sets++;
				st->bytes += len;
			}
		} else {
			ret = t_get(&t, key, &len);
			if (!ret) {
				const char *why = kcheck(kgot, len);

				st->hits++;
				st->bytes += len;
				if (why) {
					printf("# loader %u: GET %s: %s\n", idx,
					       key, why);
					st->corrupt++;
				}
			} else if (ret == -GB_ENOTFOUND) {
				st->misses++;
				ret = 0;
			}
		}
		if (!ret)
			continue;
		if (ret == -GB_ETIMEDOUT)
			ld_timeout(idx, t.tr, op, key);
		st->err[-ret < GB_ERROR_MAX ? -ret : 0]++;
		if (ret == -GB_ECONNLOST || ret == -GB_EPROTO ||
		    ret == -GB_ETIMEDOUT || ret == -GB_ESYS) {
			gb_close(t.gb);
			open = false;
		}
	}
	if (open)
		gb_close(t.gb);
	st->done = 1;
	_exit(0);
}

/* Has any of the @n clients done an operation that got an answer? */
static bool ld_any_op(const struct ld_stats *st, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (__atomic_load_n(&st[i].sets, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&st[i].hits, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&st[i].misses, __ATOMIC_RELAXED))
			return true;
	return false;
}

/*
 * abuse loader TR N TCP_HOST:PORT RDMA_HOST:PORT BIND VMAX SECONDS SEED
 *	N clients (TR tcp, rdma, or both: alternating) until SIGTERM or
 *	SECONDS; prints the counts and "loader ok N errors N corrupt N
 *	conns N timeouts N".
 *	Fails on a value that is not whole, or when no operation succeeded.
 */
static int cmd_loader(int argc, char **argv)
{
	unsigned int i, n, secs, k;
	struct ld_stats *st, sum = {};
	pid_t pid[LD_MAXC];
	size_t vmax;
	uint64_t seed, errs = 0;
	double end;
	int s;

	if (argc != 8)
		die("usage: loader tcp|rdma|both N TCP RDMA BIND VMAX SECONDS SEED");
	n = atoi(argv[1]);
	tcp_hp = argv[2];
	rdma_hp = argv[3];
	bind_host = argv[4];
	vmax = strtoul(argv[5], NULL, 0);
	secs = atoi(argv[6]);
	seed = strtoull(argv[7], NULL, 0);
	if (!n || n > LD_MAXC || vmax <= 65536 || vmax > VMAX)
		die("loader: 1..%u clients, VMAX 64 KiB..16 MiB", LD_MAXC);
	/* a connect to a vanished device must give up in time */
	io_timeout_ms = getenv("ABUSE_LD_TIMEOUT_MS") ?
			atoi(getenv("ABUSE_LD_TIMEOUT_MS")) : 20000;
	set_max = vmax;
	st = mmap(NULL, sizeof(*st) * n + 64, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		die("mmap");
	ld_stop = (int *)(st + n);
	signal(SIGTERM, ld_on_term);
	signal(SIGINT, ld_on_term);
	for (i = 0; i < n; i++) {
		int tr = !strcmp(argv[0], "rdma") ||
			 (!strcmp(argv[0], "both") && (i & 1));

		pid[i] = fork();
		if (pid[i] < 0)
			die("fork");
		if (!pid[i]) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_IGN);
			ld_child(tr, i, vmax, mix(seed + i), &st[i]);
		}
	}
	end = now() + secs;
	while (!__atomic_load_n(&ld_stop_sig, __ATOMIC_RELAXED) &&
	       now() < end)
		usleep(100000);
	/* past SECONDS or a SIGTERM alike: the extension is bounded */
	if (getenv("ABUSE_LD_UNTIL_OP")) {
		end = now() + atoi(getenv("ABUSE_LD_UNTIL_OP"));
		while (now() < end && !ld_any_op(st, n))
			usleep(100000);
	}
	__atomic_store_n(ld_stop, 1, __ATOMIC_RELAXED);
	/* a transfer or connect in progress ends within the I/O timeout */
	end = now() + 90;
	for (i = 0; i < n; i++) {
		while (waitpid(pid[i], &s, WNOHANG) == 0) {
			if (now() > end) {
				printf("# loader %u: still busy after 90 s, killed\n",
				       i);
				kill(pid[i], SIGKILL);
				waitpid(pid[i], &s, 0);
				break;
			}
			usleep(50000);
		}
		sum.sets += st[i].sets;
		sum.hits += st[i].hits;
		sum.misses += st[i].misses;
		sum.conns += st[i].conns;
		sum.connfail += st[i].connfail;
		sum.corrupt += st[i].corrupt;
		sum.bytes += st[i].bytes;
		for (k = 0; k < GB_ERROR_MAX; k++) {
			sum.err[k] += st[i].err[k];
			errs += st[i].err[k];
		}
	}
	printf("# loader %s x%u: %lu SETs, %lu hits, %lu misses, %lu MiB, ",
	       argv[0], n, sum.sets, sum.hits, sum.misses, sum.bytes >> 20);
	printf("%lu connections, %lu failed connects\n", sum.conns,
	       sum.connfail);
	for (k = 0; k < GB_ERROR_MAX; k++)
		if (sum.err[k])
			printf("# loader: %lu x %s\n", sum.err[k],
			       gb_strerror(-(int)k));
	printf("loader ok %lu errors %lu corrupt %lu conns %lu timeouts %lu\n",
	       sum.sets + sum.hits + sum.misses, errs, sum.corrupt, sum.conns,
	       sum.err[GB_ETIMEDOUT]);
	return sum.corrupt || !(sum.sets + sum.hits + sum.misses);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		die("usage: abuse CMD ARGS... (see abuse.c)");
	if (!strcmp(argv[1], "tcpcycle"))
		return cmd_tcpcycle(argc - 2, argv + 2);
	if (!strcmp(argv[1], "rdmacycle"))
		return cmd_rdmacycle(argc - 2, argv + 2);
	if (!strcmp(argv[1], "mcflood"))
		return cmd_mcflood(argc - 2, argv + 2);
	if (!strcmp(argv[1], "rdmaflood"))
		return cmd_rdmaflood(argc - 2, argv + 2);
	if (!strcmp(argv[1], "keyflood"))
		return cmd_keyflood(argc - 2, argv + 2);
	if (!strcmp(argv[1], "killer"))
		return cmd_killer(argc - 2, argv + 2);
	if (!strcmp(argv[1], "loader"))
		return cmd_loader(argc - 2, argv + 2);
	die("unknown command %s", argv[1]);
}
