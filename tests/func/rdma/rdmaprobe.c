// SPDX-License-Identifier: GPL-2.0
/*
 * rdmaprobe: raw Goblin RDMA v3 client for the functional suite. Speaks the
 * protocol record by record (no libgoblin) so that it can also misbehave.
 *
 *   rdmaprobe [-b BIND] [-W WIN] [-N WINDOWS] [-C CREDITS] [-r RESP]
 *             [-i INIT] [-P RECVS] [-E REASON] [-F FLAGS] [-X] ADDR PORT
 *             CMD ...
 *
 *   -r, -i  responder_resources, initiator_depth of the connect (4, 4)
 *   -P      post only RECVS receives and never repost them, while still
 *           granting CREDITS (the server's SENDs then meet RNR NAKs)
 *   -E      expect the connect to be rejected with reason REASON: exit 0
 *           if it is, 1 otherwise (CMD is not run)
 *   -F      connect.flags (revisions asked for: 1 = GB_RDMA_CONNECT_CRC,
 *           2 = GB_RDMA_CONNECT_FOLD)
 *   -R      connect.record_size (3.2) as given, unchecked; the receive
 *           buffers stay 512 bytes, so with FOLD granted only commands
 *           without a GET fit; the accept's record_size is printed
 *
 * Commands (exit 0 when the server behaved as expected):
 *   stream KEY SIZE   SET a patterned value, GET it back through the
 *                     windows (returning each after checking), byte-exact;
 *                     prints chunks and MB/s
 *   reject            connect with a bad magic: expect REJECTED + reason
 *   unknown           unknown record type: expect ERROR, then NOOP works
 *   badkey            GET with a key containing a space: CLIENT_ERROR
 *   badrkey KEY       wrong rkey, GET KEY: expect the server to disconnect
 *   badaddr           SET from outside the region: expect disconnect
 *   badflow           return a window the client does not hold: disconnect
 *   overrun           send more records than granted: expect disconnect
 *   die KEY           GET KEY and exit without returning windows
 *   hold SECS [N]     connect, NOOP (N NOOPs 0.3 s apart), then wait up to
 *                     SECS for a disconnect; exit 0 if the server
 *                     disconnected us
 *   stall KEY SIZE SECS  SET, unknown record, GET miss, GET KEY keeping
 *                     every window filled; stay SECS (statistics test)
 *   bigsend           send a 600-byte SEND right after the connection is
 *                     established: expect disconnect
 *   keepflow KEY SIZE SECS  SET KEY, GET it (larger than the windows),
 *                     keep every window and send FLOW{windows=0} every
 *                     0.5 s; exit 0 if the server disconnects within SECS
 *   rnr KEY SIZE SECS (with -P 1) SET KEY, then GET it without receives
 *                     posted, sending FLOW{windows=0} every 0.5 s while
 *                     credits last; exit 0 if the server disconnects
 *                     within SECS
 *   readstall KEY SIZE SECS  SET KEY and, without waiting for its STATUS,
 *                     send FLOW{windows=0} every 0.5 s (the test drops
 *                     the READ responses); exit 0 if the server
 *                     disconnects within SECS
 *
 * Data-path commands (data_cmd() below):
 *   set KEY SIZE      SET a patterned value (as "stream"), waiting up to
 *                     120 s for STORED (SETs paused by a test knob)
 *   get KEY SIZE      GET a value stored by "stream" and check it byte-exact
 *                     with canaries: no byte of a window past its chunk,
 *                     nor of the region outside the windows, may change;
 *                     prints where the chunks ended
 *   errmsgs           unknown types 0x7e, BULK (0x91) and VALUE (0x90) sent
 *                     by the client: ERROR "unknown record type 0x..";
 *                     bad keys in GET and SET: CLIENT_ERROR "bad key";
 *                     connection kept throughout
 *   setwin KEY        SET from a window the client holds (allowed), then
 *                     from one the server owns: expect disconnect
 *   setfail KEY SIZE  SET answered SERVER_ERROR "out of memory storing
 *                     object" (allocation failed by a test knob), then NOOP
 *   setbad KEY SIZE   connect with a wrong rkey, SET: its READ fails, expect
 *                     disconnect
 *   miss KEY          GET KEY: expect END with one miss, no VALUE
 *   crc KEY SIZE crc|none  SET a patterned value, GET it through the
 *                     windows and check the 3.1 fields as sent: accept.flags
 *                     must echo -F; with "crc" VALUE and the last BULK carry
 *                     the value's CRC-32C (checked against the bytes that
 *                     arrived), with "none" those fields and every reserved
 *                     byte of VALUE and BULK are zero (the 3.0 wire)
 *   crc KEY SIZE crc|none ADD  the same with a SET of SIZE bytes and an
 *                     APPEND of ADD more (the pattern goes on) before the
 *                     GET: the CRC is that of all SIZE + ADD bytes
 * Option -X: offer exactly the windows (region_len = WIN x WINDOWS, MR of
 * that size, no staging area, no slack page). Without it the region is
 * followed by a 1 MiB staging area and registered with one page of slack
 * (see lib/src/rdma.c on rxe_mr_copy() in Linux 6.1).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netdb.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdma_rec.h"

#include "../../../tools/include/gb_compiler.h"

#define REC	GB_RDMA_RECORD_SIZE
#define NSEND	64

static struct rdma_event_channel *ch;
static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static char *ring, *region;
static struct ibv_mr *ring_mr, *region_mr;
static size_t region_len;
static unsigned int win = 4096, nwin = 2, credits = 16;
static unsigned int srv_credits, owed, send_next, used_windows;
static int disconnected;
static char reply[REC] __aligned(8);
static int rkey_delta;
static int bad_magic;
static unsigned int resp_res = 4, init_depth = 4;
static int post_limit = -1;	/* -P: receives posted, never reposted */
static int want_reject = -1;	/* -E: expected reject reason */
static int reject_reason = -1;	/* reason of the last REJECTED event */
static int exact_region;	/* -X */
static unsigned int conn_flags;	/* -F */
static unsigned int conn_rec;	/* -R */
static unsigned int acc_flags;	/* accept.flags of the server */

/* one page registered past region_len, unless -X */
#define MR_SLACK	((size_t)sysconf(_SC_PAGESIZE))

static void die(const char *m)
{
	fprintf(stderr, "rdmaprobe: %s: %s\n", m, strerror(errno));
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cm_wait(enum rdma_cm_event_type want, int ms,
		   struct rdma_cm_event *copy)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0)
		return -1;
	if (rdma_get_cm_event(ch, &ev))
		return -1;
	if (copy)
		*copy = *ev;
	/* a REJ after RTU: the server destroyed a connection still in setup */
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
	    ev->event == RDMA_CM_EVENT_REJECTED)
		disconnected = 1;
	/* the CM's own reason (28: consumer defined, ours), for the logs */
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		printf("# reject event: cm status %d\n", ev->status);
	if (ev->event == RDMA_CM_EVENT_REJECTED && ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(struct gb_rdma_reject)) {
		const struct gb_rdma_reject *r = ev->param.conn.private_data;

		printf("# rejected: reason %u (%s) detail %u\n",
		       le16toh(r->reason),
		       gb_rdma_reject_str(le16toh(r->reason)),
		       le32toh(r->detail));
		reject_reason = le16toh(r->reason);
	}
	enum rdma_cm_event_type got = ev->event;

	rdma_ack_cm_event(ev);
	return got == want ? 0 : (int)got;
}

static void post_recv(unsigned int i)
{
	struct ibv_sge sge = { (uintptr_t)(ring + i * REC), REC, ring_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(id->qp, &wr, &bad))
		die("post_recv");
}

static void *next_send(void)
{
	return ring + (credits + send_next % NSEND) * REC;
}

/* Send the record in next_send(); grants owed credits. */
static void send_rec(void)
{
	char *buf = next_send();
	struct gb_rdma_hdr *h = (void *)buf;
	struct ibv_sge sge = { (uintptr_t)buf, REC, ring_mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1000000 + send_next, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	h->credits = htole16(owed);
	owed = 0;
	if (srv_credits)
		srv_credits--;
	send_next++;
	if (ibv_post_send(id->qp, &wr, &bad))
		die("post_send");
}

/* Wait for the next record; copies it into reply. -1 on timeout/error. */
static int recv_rec(int ms, struct gb_rdma_rec *rec)
{
	double end = now() + ms / 1000.0;
	struct ibv_wc wc;
	const char *msg;

	while (now() < end) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			return -1;
		if (n == 0) {
			if (cm_wait(RDMA_CM_EVENT_DISCONNECTED, 0, NULL) == 0)
				return -1;
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("# wc status %s\n", ibv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		memcpy(reply, ring + wc.wr_id * REC, REC);
		if (post_limit < 0) {
			post_recv(wc.wr_id);
			owed++;
		}
		if (gb_rdma_rec_parse(reply, wc.byte_len, rec, &msg) ==
		    GB_RDMA_PARSE_FATAL) {
			printf("# bad record from server: %s\n", msg);
			return -1;
		}
		srv_credits += rec->credits;
		/* keep the server's credits flowing while we mostly listen */
		if (owed >= credits / 2 && srv_credits >= 1) {
			gb_rdma_hdr_init(next_send(), GB_RDMA_FLOW, 0, 0, 16);
			send_rec();
		}
		return 0;
	}
	return -1;
}

static void do_connect(const char *addr, const char *port, const char *bind)
{
	struct addrinfo *dst, *src = NULL;
	struct gb_rdma_connect c;
	struct gb_rdma_geom g = { 0 };
	struct rdma_conn_param cp = { 0 };
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_cm_event ev;
	unsigned int i;

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("create id");
	if (getaddrinfo(addr, port, NULL, &dst) ||
	    (bind && getaddrinfo(bind, NULL, NULL, &src)))
		die("getaddrinfo");
	if (rdma_resolve_addr(id, src ? src->ai_addr : NULL, dst->ai_addr,
			      2000) ||
	    cm_wait(RDMA_CM_EVENT_ADDR_RESOLVED, 3000, NULL))
		die("resolve addr");
	if (rdma_resolve_route(id, 2000) ||
	    cm_wait(RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, NULL))
		die("resolve route");
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 4 * (credits + NSEND), NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = NSEND + 4;
	qa.cap.max_recv_wr = credits + 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qa))
		die("create qp");
	ring = aligned_alloc(4096, (credits + NSEND) * REC);
	region_len = (size_t)win * nwin + (exact_region ? 0 : 1 << 20);
	region = aligned_alloc(4096, region_len + MR_SLACK);
	if (!ring || !region)
		die("alloc");
	memset(region, 0, region_len);
	ring_mr = ibv_reg_mr(pd, ring, (credits + NSEND) * REC,
			     IBV_ACCESS_LOCAL_WRITE);
	region_mr = ibv_reg_mr(pd, region,
			       region_len + (exact_region ? 0 : MR_SLACK),
			       IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	if (!ring_mr || !region_mr)
		die("reg mr");
	for (i = 0; i < credits && (post_limit < 0 || (int)i < post_limit); i++)
		post_recv(i);
	g.window_size = win;
	g.window_count = nwin;
	g.credits = credits;
	g.rkey = region_mr->rkey + rkey_delta;
	g.window_base = (uintptr_t)region;
	g.region_len = region_len;
	g.flags = conn_flags;
	g.record_size = conn_rec;
	gb_rdma_connect_build(&c, &g);
	if (bad_magic)
		c.magic = htole32(0x12345678);
	cp.private_data = &c;
	cp.private_data_len = sizeof(c);
	cp.responder_resources = resp_res;
	cp.initiator_depth = init_depth;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp))
		die("connect");
	/* 20 s: a lost connect reply is retransmitted after several seconds */
	if (cm_wait(RDMA_CM_EVENT_ESTABLISHED, 20000, &ev)) {
		printf("# connect not established\n");
		if (want_reject >= 0)
			exit(reject_reason == want_reject ? 0 : 1);
		exit(bad_magic ? 0 : 1);
	}
	if (want_reject >= 0) {
		printf("# connect accepted, expected reject reason %d\n",
		       want_reject);
		exit(1);
	}
	if (bad_magic) {
		printf("# bad magic accepted!\n");
		exit(1);
	}
	{
		const struct gb_rdma_accept *a = ev.param.conn.private_data;

		srv_credits = le16toh(a->credits);
		used_windows = le16toh(a->windows);
		acc_flags = le16toh(a->flags);
		printf("# accepted: conn %llu credits %u windows %u flags %#x record_size %u\n",
		       (unsigned long long)le64toh(a->conn_id), srv_credits,
		       used_windows, acc_flags, le16toh(a->record_size));
	}
}

/* Wait until the server disconnects us (or we see a QP error). */
static int expect_disconnect(int ms)
{
	struct gb_rdma_rec r;
	double end = now() + ms / 1000.0;

	while (now() < end) {
		if (recv_rec(200, &r) < 0 && disconnected)
			return 0;
		if (cm_wait(RDMA_CM_EVENT_DISCONNECTED, 50, NULL) == 0)
			return 0;
	}
	return 1;
}

static void send_noop(uint64_t tag)
{
	gb_rdma_hdr_init(next_send(), GB_RDMA_NOOP, tag, 0, 0);
	send_rec();
}

static void send_get(const char *key, uint64_t tag)
{
	char *b = next_send();

	gb_rdma_hdr_init(b, GB_RDMA_GET, tag, 0, 8);
	if (gb_rdma_get_add_key(b, key, strlen(key)))
		die("add key");
	send_rec();
}

static void send_set_mode(const char *key, uint64_t addr, uint64_t bytes,
			  uint64_t tag, uint32_t mode)
{
	struct gb_rdma_set *s = (void *)((char *)next_send() + 16);

	gb_rdma_hdr_init(next_send(), GB_RDMA_SET, tag, 0, 48 + strlen(key));
	s->mode = htole32(mode);
	s->bytes = htole64(bytes);
	s->addr = htole64(addr);
	s->klen = strlen(key);
	memcpy(s->key, key, strlen(key));
	send_rec();
}

static void send_set(const char *key, uint64_t addr, uint64_t bytes,
		     uint64_t tag)
{
	send_set_mode(key, addr, bytes, tag, GB_RDMA_SET_SET);
}

static void send_flow(uint64_t mask)
{
	struct gb_rdma_flow *f = (void *)((char *)next_send() + 16);

	gb_rdma_hdr_init(next_send(), GB_RDMA_FLOW, 0, 0, sizeof(*f));
	f->windows = htole64(mask);
	send_rec();
}

static unsigned char pat(uint64_t i)
{
	return (unsigned char)(i * 131 + (i >> 12) * 7 + 1);
}

static int cmd_stream(const char *key, uint64_t size)
{
	char *src = region + (size_t)win * nwin;
	uint64_t got = 0, i, chunks = 0;
	struct gb_rdma_rec r;
	bool last, done;
	double t0, t1;

	if (size > (1 << 20)) {
		printf("# stream: size limited to 1 MiB by the staging area\n");
		return 1;
	}
	for (i = 0; i < size; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, 1);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED) {
		printf("# set failed (type %#x)\n", r.type);
		if (r.type == GB_RDMA_R_ERROR)
			printf("# error: %s\n", r.u.error.msg);
		return 1;
	}
	t0 = now();
	send_get(key, 2);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_VALUE ||
	    r.u.value.bytes != size) {
		printf("# no VALUE\n");
		return 1;
	}
	while (got < size) {
		if (recv_rec(20000, &r) || r.type != GB_RDMA_R_BULK) {
			printf("# no BULK after %llu bytes\n",
			       (unsigned long long)got);
			return 1;
		}
		if (r.u.bulk.window >= used_windows ||
		    r.u.bulk.offset != got || r.u.bulk.len > win) {
			printf("# bad BULK\n");
			return 1;
		}
		for (i = 0; i < r.u.bulk.len; i++) {
			if ((unsigned char)region[(size_t)r.u.bulk.window * win +
						  i] != pat(got + i)) {
				printf("# mismatch at %llu\n",
				       (unsigned long long)(got + i));
				return 1;
			}
		}
		got += r.u.bulk.len;
		chunks++;
		last = r.u.bulk.flags & GB_RDMA_BULK_LAST;
		done = got == size;
		if (last != done) {
			printf("# LAST flag wrong\n");
			return 1;
		}
		memset(region + (size_t)r.u.bulk.window * win, 0, win);
		send_flow(1ULL << r.u.bulk.window);
	}
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_END ||
	    r.u.end.hits != 1) {
		printf("# no END\n");
		return 1;
	}
	t1 = now();
	printf("# stream: %llu bytes in %llu chunks of <= %u B through %u windows, %.1f MB/s\n",
	       (unsigned long long)size, (unsigned long long)chunks, win,
	       used_windows, size / (t1 - t0) / 1e6);
	return 0;
}

/*
 * For the statistics test: SET @key (@size bytes, more than the windows
 * hold), send one unknown record (ERROR), GET a missing key, then GET @key
 * and keep every window the server fills. The server then waits with all
 * windows in flight; stay connected for @secs seconds so the test can read
 * the connection's counters through netlink.
 */
static int cmd_stall(const char *key, uint64_t size, int secs)
{
	char *src = region + (size_t)win * nwin;
	unsigned int held = 0;
	struct gb_rdma_rec r;
	uint64_t i;

	if (size > (1 << 20) || size <= (uint64_t)win * used_windows) {
		printf("# stall: size must exceed the windows, at most 1 MiB\n");
		return 1;
	}
	for (i = 0; i < size; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, 1);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED)
		return 1;
	gb_rdma_hdr_init(next_send(), 0x7e, 2, 0, 0);
	send_rec();
	if (recv_rec(5000, &r) || r.type != GB_RDMA_R_ERROR)
		return 1;
	send_get("stall-missing-key", 3);
	if (recv_rec(5000, &r) || r.type != GB_RDMA_R_END || r.u.end.hits)
		return 1;
	send_get(key, 4);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_VALUE)
		return 1;
	while (held < used_windows) {
		if (recv_rec(20000, &r) || r.type != GB_RDMA_R_BULK)
			return 1;
		held++;
	}
	printf("# stalled holding %u windows\n", held);
	/* a disconnect before @secs is a failure */
	return expect_disconnect(secs * 1000) == 0;
}

/* SET @key to @size patterned bytes from the staging area: 0 if STORED. */
static int set_value(const char *key, uint64_t size, uint64_t tag)
{
	char *src = region + (size_t)win * nwin;
	struct gb_rdma_rec r;
	uint64_t i;

	if (size > (1 << 20))
		return 1;
	for (i = 0; i < size; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, tag);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED) {
		printf("# set %s failed (type %#x)\n", key, r.type);
		return 1;
	}
	return 0;
}

/*
 * Wait up to @secs for the server to disconnect us, sending a
 * FLOW{windows=0} keepalive every 0.5 s while more than one credit is
 * left. Return 0 if the server disconnected us (and print after how long).
 */
static int flow_keepalive(int secs)
{
	double t0 = now(), next = t0;
	unsigned int sent = 0;
	struct gb_rdma_rec r;

	while (!disconnected && now() < t0 + secs) {
		if (now() >= next && srv_credits > 1) {
			send_flow(0);
			sent++;
			next = now() + 0.5;
		}
		if (recv_rec(100, &r) == 0) {
			if (r.type != GB_RDMA_FLOW)
				printf("# unexpected record type %#x\n",
				       r.type);
		} else if (!disconnected) {
			cm_wait(RDMA_CM_EVENT_DISCONNECTED, 50, NULL);
		}
	}
	printf("# %s after %.1f s, %u FLOW{windows=0} keepalives sent\n",
	       disconnected ? "disconnected" : "still connected", now() - t0,
	       sent);
	return !disconnected;
}

/* GET @key, keep every window it fills, then FLOW keepalives only. */
static int cmd_keepflow(const char *key, uint64_t size, int secs)
{
	unsigned int held = 0;
	struct gb_rdma_rec r;

	if (size <= (uint64_t)win * used_windows || set_value(key, size, 30))
		return 1;
	send_get(key, 31);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_VALUE)
		return 1;
	while (held < used_windows) {
		if (recv_rec(20000, &r) || r.type != GB_RDMA_R_BULK)
			return 1;
		held++;
	}
	printf("# holding %u windows\n", held);
	return flow_keepalive(secs);
}

/* With -P 1: SET @key, then GET it with no receive posted any more. */
static int cmd_rnr(const char *key, uint64_t size, int secs)
{
	if (post_limit != 1) {
		printf("# rnr needs -P 1\n");
		return 1;
	}
	if (set_value(key, size, 40))
		return 1;
	send_get(key, 41);
	printf("# GET sent, no receive posted\n");
	return flow_keepalive(secs);
}

/* SET @key; its READ responses are dropped by the test (tc). */
static int cmd_readstall(const char *key, uint64_t size, int secs)
{
	char *src = region + (size_t)win * nwin;
	uint64_t i;

	if (size > (1 << 20))
		return 1;
	for (i = 0; i < size; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, 45);
	printf("# SET sent\n");
	return flow_keepalive(secs);
}

/* A 600-byte SEND into the server's 512-byte receive buffers. */
static int cmd_bigsend(void)
{
	char *buf = ring + credits * REC;
	struct ibv_sge sge = { (uintptr_t)buf, 600, ring_mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 3000000, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	gb_rdma_hdr_init(buf, GB_RDMA_NOOP, 50, 0, 0);
	if (ibv_post_send(id->qp, &wr, &bad))
		die("post_send");
	return expect_disconnect(10000);
}

/* ---- data-path commands ------------------------------------------------ */

#define CANARY	0xa5

/* Receive the reply to a request: ERROR of @kind with message @msg. */
static int expect_error(uint64_t tag, uint32_t kind, const char *msg)
{
	struct gb_rdma_rec r;

	if (recv_rec(5000, &r)) {
		printf("# no reply to tag %llu\n", (unsigned long long)tag);
		return 1;
	}
	if (r.type != GB_RDMA_R_ERROR || r.tag != tag) {
		printf("# tag %llu: got type %#x tag %llu, want ERROR\n",
		       (unsigned long long)tag, r.type,
		       (unsigned long long)r.tag);
		return 1;
	}
	printf("# tag %llu: ERROR kind %u \"%s\"\n", (unsigned long long)tag,
	       r.u.error.kind, r.u.error.msg);
	if (r.u.error.kind != kind || strcmp(r.u.error.msg, msg)) {
		printf("# want kind %u \"%s\"\n", kind, msg);
		return 1;
	}
	return 0;
}

static int expect_noop(uint64_t tag)
{
	struct gb_rdma_rec r;

	send_noop(tag);
	if (recv_rec(5000, &r) || r.type != GB_RDMA_R_NOOP || r.tag != tag) {
		printf("# NOOP %llu not answered: connection lost?\n",
		       (unsigned long long)tag);
		return 1;
	}
	return 0;
}

static int cmd_errmsgs(void)
{
	struct gb_rdma_bulk *b;
	struct gb_rdma_value *v;
	char *rec;
	int bad = 0;

	gb_rdma_hdr_init(next_send(), 0x7e, 21, 0, 0);
	send_rec();
	bad |= expect_error(21, GB_RDMA_ERR_ERROR, "unknown record type 0x7e");
	bad |= expect_noop(22);

	/* a BULK the client parser would call fatal: len 0, bad window */
	rec = next_send();
	gb_rdma_hdr_init(rec, GB_RDMA_R_BULK, 23, 0, sizeof(*b));
	b = (void *)(rec + 16);
	b->window = htole16(GB_RDMA_MAX_WINDOWS);
	send_rec();
	bad |= expect_error(23, GB_RDMA_ERR_ERROR, "unknown record type 0x91");
	bad |= expect_noop(24);

	rec = next_send();
	gb_rdma_hdr_init(rec, GB_RDMA_R_VALUE, 25, 0, 24);
	v = (void *)(rec + 16);
	v->key_index = htole16(0xffff);
	send_rec();
	bad |= expect_error(25, GB_RDMA_ERR_ERROR, "unknown record type 0x90");
	bad |= expect_noop(26);

	rec = next_send();
	gb_rdma_hdr_init(rec, GB_RDMA_GET, 27, 0, 8 + 4);
	((struct gb_rdma_get *)(rec + 16))->nkeys = htole16(1);
	memcpy(((struct gb_rdma_get *)(rec + 16))->keys, "\3a b", 4);
	send_rec();
	bad |= expect_error(27, GB_RDMA_ERR_CLIENT, "bad key");

	send_set("x y", (uintptr_t)region + (size_t)win * nwin, 1, 28);
	bad |= expect_error(28, GB_RDMA_ERR_CLIENT, "bad key");
	bad |= expect_noop(29);
	return bad;
}

/*
 * GET @key (stored by "stream": pattern pat(), @size bytes). The whole
 * region is filled with a canary first; every chunk must land exactly in
 * its window's first len bytes and nothing else may change (each window is
 * reset to the canary before it is returned). With -X and
 * @size = WIN x WINDOWS the last chunk ends exactly at the end of the MR.
 */
static int cmd_get(const char *key, uint64_t size)
{
	uint64_t got = 0, end_max = 0, i;
	struct gb_rdma_rec r;
	bool last, done;

	memset(region, CANARY, region_len);
	send_get(key, 31);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_VALUE ||
	    r.u.value.bytes != size) {
		printf("# no VALUE of %llu bytes\n", (unsigned long long)size);
		return 1;
	}
	while (got < size) {
		size_t base;

		if (recv_rec(20000, &r) || r.type != GB_RDMA_R_BULK) {
			printf("# no BULK after %llu bytes\n",
			       (unsigned long long)got);
			return 1;
		}
		if (r.u.bulk.window >= used_windows ||
		    r.u.bulk.offset != got || r.u.bulk.len > win ||
		    r.u.bulk.len > size - got) {
			printf("# bad BULK: window %u offset %llu len %u\n",
			       r.u.bulk.window,
			       (unsigned long long)r.u.bulk.offset,
			       r.u.bulk.len);
			return 1;
		}
		base = (size_t)r.u.bulk.window * win;
		if (base + r.u.bulk.len > end_max)
			end_max = base + r.u.bulk.len;
		for (i = 0; i < r.u.bulk.len; i++)
			if ((unsigned char)region[base + i] != pat(got + i)) {
				printf("# mismatch at %llu\n",
				       (unsigned long long)(got + i));
				return 1;
			}
		/*
		 * The window held only canaries when we returned it, and the
		 * server writes it again only after that return: past the
		 * chunk it must still hold them.
		 */
		for (i = r.u.bulk.len; i < win; i++)
			if ((unsigned char)region[base + i] != CANARY) {
				printf("# window %u: byte %llu written past the chunk of %u\n",
				       r.u.bulk.window, (unsigned long long)i,
				       r.u.bulk.len);
				return 1;
			}
		memset(region + base, CANARY, r.u.bulk.len);
		got += r.u.bulk.len;
		last = r.u.bulk.flags & GB_RDMA_BULK_LAST;
		done = got == size;
		if (last != done) {
			printf("# LAST flag wrong\n");
			return 1;
		}
		send_flow(1ULL << r.u.bulk.window);
	}
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_END ||
	    r.u.end.hits != 1) {
		printf("# no END\n");
		return 1;
	}
	/* every window was reset; nothing past the windows was a target */
	for (i = 0; i < region_len; i++)
		if ((unsigned char)region[i] != CANARY) {
			printf("# byte %llu of the region written outside every chunk\n",
			       (unsigned long long)i);
			return 1;
		}
	printf("# get: %llu bytes, chunks end at most at region offset %llu of %zu (MR %zu)\n",
	       (unsigned long long)size, (unsigned long long)end_max,
	       region_len, region_len + (exact_region ? 0 : MR_SLACK));
	return 0;
}

/*
 * SET from a window: allowed while the client holds it (after a BULK, before
 * the FLOW returning it), a protocol error once the server owns it again.
 */
static int cmd_setwin(const char *key)
{
	char *src = region + (size_t)win * nwin, copy[256];
	struct gb_rdma_rec r;
	unsigned int w;
	uint64_t i;

	if (win < 4096)
		return 1;
	for (i = 0; i < 4096; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, 4096, 41);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED) {
		printf("# SET from the staging area failed\n");
		return 1;
	}
	send_get(key, 42);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_VALUE ||
	    recv_rec(20000, &r) || r.type != GB_RDMA_R_BULK) {
		printf("# GET failed\n");
		return 1;
	}
	w = r.u.bulk.window;	/* now held by us */
	if (w >= used_windows || recv_rec(20000, &r) ||
	    r.type != GB_RDMA_R_END) {
		printf("# GET failed\n");
		return 1;
	}
	snprintf(copy, sizeof(copy), "%s-copy", key);
	send_set(copy, (uintptr_t)region + (size_t)w * win, 4096, 43);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED) {
		printf("# SET from a window the client holds: not stored (type %#x)\n",
		       r.type);
		return 1;
	}
	printf("# SET from held window %u: STORED\n", w);
	send_flow(1ULL << w);
	send_set(copy, (uintptr_t)region + (size_t)w * win + 100, 100, 44);
	if (expect_disconnect(10000)) {
		printf("# SET from a server-owned window was accepted\n");
		return 1;
	}
	printf("# SET from server-owned window %u: disconnected\n", w);
	return 0;
}

/* SET @key to pat() x @size from the staging area; STORED within 120 s. */
static int cmd_set(const char *key, uint64_t size)
{
	char *src = region + (size_t)win * nwin;
	struct gb_rdma_rec r;
	uint64_t i;

	if (exact_region || size > (1 << 20)) {
		printf("# set: needs the staging area, at most 1 MiB\n");
		return 1;
	}
	for (i = 0; i < size; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, 51);
	if (recv_rec(120000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED) {
		printf("# set: not stored (type %#x)\n", r.type);
		return 1;
	}
	printf("# set: %llu bytes stored\n", (unsigned long long)size);
	return 0;
}

/*
 * setfail KEY SIZE: a SET the server must refuse with SERVER_ERROR "out of
 * memory storing object" (the test makes its allocation fail); the
 * connection stays usable. setbad KEY SIZE (connected with a wrong rkey):
 * a SET whose READ fails; the server must disconnect.
 */
static int cmd_setfail(const char *key, uint64_t size, int bad_read)
{
	char *src = region + (size_t)win * nwin;
	uint64_t i;

	if (exact_region || size > (1 << 20)) {
		printf("# setfail: needs the staging area, at most 1 MiB\n");
		return 1;
	}
	for (i = 0; i < size; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, 52);
	if (bad_read)
		return expect_disconnect(20000);
	if (expect_error(52, GB_RDMA_ERR_SERVER, "out of memory storing object"))
		return 1;
	return expect_noop(53);
}

/* miss KEY: a GET of KEY answers END with one miss and no VALUE. */
static int cmd_miss(const char *key)
{
	struct gb_rdma_rec r;

	send_get(key, 54);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_END ||
	    r.u.end.hits != 0 || r.u.end.misses != 1) {
		printf("# miss: got type %#x, not END with one miss\n", r.type);
		return 1;
	}
	printf("# miss: %s not found\n", key);
	return 0;
}

/* Raw CRC-32C (reflected 0x82F63B78, no inversion), bit by bit. */
static uint32_t crc32c_bits(uint32_t crc, const unsigned char *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? 0x82f63b78u : 0);
	}
	return crc;
}

static bool zero_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static int cmd_crc(const char *key, uint64_t size, const char *mode,
		   uint64_t add)
{
	const struct gb_rdma_value *v = (const void *)(reply + 16);
	const struct gb_rdma_bulk *bk = (const void *)(reply + 16);
	char *src = region + (size_t)win * nwin;
	bool want = !strcmp(mode, "crc"), last;
	uint32_t expect, run = ~0u, vcrc;
	uint64_t got = 0, i;
	struct gb_rdma_rec r;

	if (size + add > (1 << 20)) {
		printf("# crc: size limited to 1 MiB by the staging area\n");
		return 1;
	}
	if (acc_flags != (conn_flags & GB_RDMA_CONNECT_FLAGS)) {
		printf("# crc: accept.flags %#x for connect.flags %#x\n",
		       acc_flags, conn_flags);
		return 1;
	}
	for (i = 0; i < size + add; i++)
		src[i] = pat(i);
	send_set(key, (uintptr_t)src, size, 1);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
	    r.u.status.status != GB_RDMA_ST_STORED) {
		printf("# crc: set failed (type %#x)\n", r.type);
		return 1;
	}
	/* then APPEND @add more bytes: the value read back is both parts */
	if (add) {
		send_set_mode(key, (uintptr_t)src + size, add, 3,
			      GB_RDMA_SET_APPEND);
		if (recv_rec(20000, &r) || r.type != GB_RDMA_R_STATUS ||
		    r.u.status.status != GB_RDMA_ST_STORED) {
			printf("# crc: append failed (type %#x)\n", r.type);
			return 1;
		}
		size += add;
	}
	expect = ~crc32c_bits(~0u, (unsigned char *)src, size);
	memset(src, 0, size);
	send_get(key, 2);
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_VALUE ||
	    r.u.value.bytes != size) {
		printf("# crc: no VALUE\n");
		return 1;
	}
	vcrc = r.u.value.crc;
	if (v->reserved ||
	    r.u.value.vflags != (want ? GB_RDMA_VALUE_CRC : 0) ||
	    vcrc != (want ? expect : 0)) {
		printf("# crc: VALUE vflags %#x crc %08x reserved %#x, want %s %08x\n",
		       r.u.value.vflags, vcrc, le32toh(v->reserved), mode,
		       expect);
		return 1;
	}
	while (got < size) {
		if (recv_rec(20000, &r) || r.type != GB_RDMA_R_BULK ||
		    r.u.bulk.offset != got || r.u.bulk.window >= used_windows) {
			printf("# crc: no BULK after %llu bytes\n",
			       (unsigned long long)got);
			return 1;
		}
		last = got + r.u.bulk.len == size;
		if (!zero_bytes(bk->reserved, sizeof(bk->reserved)) ||
		    r.u.bulk.flags != (last ? GB_RDMA_BULK_LAST : 0) +
				      (last && want ? GB_RDMA_BULK_CRC : 0) ||
		    r.u.bulk.crc != (last && want ? expect : 0)) {
			printf("# crc: BULK at %llu flags %#x crc %08x\n",
			       (unsigned long long)got, r.u.bulk.flags,
			       r.u.bulk.crc);
			return 1;
		}
		run = crc32c_bits(run, (unsigned char *)region +
				  (size_t)r.u.bulk.window * win, r.u.bulk.len);
		got += r.u.bulk.len;
		send_flow(1ULL << r.u.bulk.window);
	}
	if (recv_rec(20000, &r) || r.type != GB_RDMA_R_END) {
		printf("# crc: no END\n");
		return 1;
	}
	if (~run != expect) {
		printf("# crc: bytes received have CRC %08x, sent %08x\n", ~run,
		       expect);
		return 1;
	}
	printf("# crc: %llu bytes, CRC %08x, %s on the wire\n",
	       (unsigned long long)size, expect, want ? "sent" : "not sent");
	return 0;
}

/* Run a data-path command; returns 1 and sets *@ret if @cmd is one. */
static int data_cmd(const char *cmd, char **argv, int *ret)
{
	if (!strcmp(cmd, "get"))
		*ret = cmd_get(argv[0], strtoull(argv[1], NULL, 0));
	else if (!strcmp(cmd, "set"))
		*ret = cmd_set(argv[0], strtoull(argv[1], NULL, 0));
	else if (!strcmp(cmd, "setfail"))
		*ret = cmd_setfail(argv[0], strtoull(argv[1], NULL, 0), 0);
	else if (!strcmp(cmd, "setbad"))
		*ret = cmd_setfail(argv[0], strtoull(argv[1], NULL, 0), 1);
	else if (!strcmp(cmd, "miss"))
		*ret = cmd_miss(argv[0]);
	else if (!strcmp(cmd, "errmsgs"))
		*ret = cmd_errmsgs();
	else if (!strcmp(cmd, "setwin"))
		*ret = cmd_setwin(argv[0]);
	else if (!strcmp(cmd, "crc"))
		*ret = cmd_crc(argv[0], strtoull(argv[1], NULL, 0), argv[2],
			       argv[3] ? strtoull(argv[3], NULL, 0) : 0);
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	const char *bind = NULL, *cmd;
	struct gb_rdma_rec r;
	int o, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt(argc, argv, "b:W:N:C:r:i:P:E:F:R:X")) != -1) {
		switch (o) {
		case 'X':
			exact_region = 1;
			break;
		case 'b':
			bind = optarg;
			break;
		case 'W':
			win = strtoul(optarg, NULL, 0);
			break;
		case 'N':
			nwin = strtoul(optarg, NULL, 0);
			break;
		case 'C':
			credits = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			resp_res = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			init_depth = strtoul(optarg, NULL, 0);
			break;
		case 'P':
			post_limit = atoi(optarg);
			break;
		case 'E':
			want_reject = atoi(optarg);
			break;
		case 'F':
			conn_flags = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			conn_rec = strtoul(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (argc - optind < 3) {
		fprintf(stderr, "usage: rdmaprobe [opts] ADDR PORT CMD ...\n");
		return 2;
	}
	cmd = argv[optind + 2];
	if (!strcmp(cmd, "reject"))
		bad_magic = 1;
	if (!strcmp(cmd, "badrkey") || !strcmp(cmd, "setbad"))
		rkey_delta = 0x1000;
	do_connect(argv[optind], argv[optind + 1], bind);
	argv += optind + 3;
	if (data_cmd(cmd, argv, &i))
		return i;

	if (!strcmp(cmd, "stream"))
		return cmd_stream(argv[0], strtoull(argv[1], NULL, 0));
	if (!strcmp(cmd, "stall"))
		return cmd_stall(argv[0], strtoull(argv[1], NULL, 0),
				 atoi(argv[2]));
	if (!strcmp(cmd, "keepflow"))
		return cmd_keepflow(argv[0], strtoull(argv[1], NULL, 0),
				    atoi(argv[2]));
	if (!strcmp(cmd, "rnr"))
		return cmd_rnr(argv[0], strtoull(argv[1], NULL, 0),
			       atoi(argv[2]));
	if (!strcmp(cmd, "bigsend"))
		return cmd_bigsend();
	if (!strcmp(cmd, "readstall"))
		return cmd_readstall(argv[0], strtoull(argv[1], NULL, 0),
				     atoi(argv[2]));
	if (!strcmp(cmd, "unknown")) {
		gb_rdma_hdr_init(next_send(), 0x7e, 5, 0, 0);
		send_rec();
		if (recv_rec(5000, &r) || r.type != GB_RDMA_R_ERROR ||
		    r.tag != 5)
			return 1;
		send_noop(6);
		return recv_rec(5000, &r) || r.type != GB_RDMA_R_NOOP ||
		       r.tag != 6;
	}
	if (!strcmp(cmd, "badkey")) {
		char *b = next_send();

		gb_rdma_hdr_init(b, GB_RDMA_GET, 7, 0, 8 + 4);
		((struct gb_rdma_get *)(b + 16))->nkeys = htole16(1);
		memcpy(((struct gb_rdma_get *)(b + 16))->keys, "\3a b", 4);
		send_rec();
		if (recv_rec(5000, &r) || r.type != GB_RDMA_R_ERROR ||
		    r.u.error.kind != GB_RDMA_ERR_CLIENT)
			return 1;
		printf("# CLIENT_ERROR %s\n", r.u.error.msg);
		send_noop(8);
		return recv_rec(5000, &r) || r.type != GB_RDMA_R_NOOP;
	}
	if (!strcmp(cmd, "badrkey")) {
		send_get(argv[0], 9);
		return expect_disconnect(10000);
	}
	if (!strcmp(cmd, "badaddr")) {
		send_set("badaddr", (uintptr_t)region + region_len - 10, 100, 10);
		return expect_disconnect(10000);
	}
	if (!strcmp(cmd, "badflow")) {
		send_flow(1);
		return expect_disconnect(10000);
	}
	if (!strcmp(cmd, "overrun")) {
		/*
		 * Far beyond the grant: the server stops granting once it
		 * runs out of our receive credits, so this must overrun.
		 */
		unsigned int n = srv_credits * 3 + 10;
		struct ibv_wc wc[16];

		for (i = 0; i < (int)n; i++) {
			struct gb_rdma_hdr *h = next_send();

			gb_rdma_hdr_init(h, GB_RDMA_NOOP, 100 + i, 0, 0);
			send_next++;
			{
				struct ibv_sge sge = { (uintptr_t)h, REC,
						       ring_mr->lkey };
				struct ibv_send_wr wr = {
					.wr_id = 2000000 + i, .sg_list = &sge,
					.num_sge = 1, .opcode = IBV_WR_SEND,
				};
				struct ibv_send_wr *bad;
				double end = now() + 10;

				wr.send_flags = IBV_SEND_SIGNALED;
				while (ibv_post_send(id->qp, &wr, &bad)) {
					if (ibv_poll_cq(cq, 16, wc) < 0 ||
					    now() > end)
						return expect_disconnect(1000);
					if (cm_wait(RDMA_CM_EVENT_DISCONNECTED,
						    1, NULL) == 0)
						return 0;
				}
			}
		}
		return expect_disconnect(10000);
	}
	if (!strcmp(cmd, "die")) {
		send_get(argv[0], 11);
		recv_rec(5000, &r);
		printf("# exiting with windows held\n");
		_exit(0);
	}
	if (!strcmp(cmd, "hold")) {
		int noops = argv[0] && argv[1] ? atoi(argv[1]) : 1;

		for (i = 0; i < noops; i++) {
			/* let the server's work go idle before the next one */
			if (i)
				usleep(300 * 1000);
			send_noop(12 + i);
			if (recv_rec(5000, &r) || r.type != GB_RDMA_R_NOOP)
				return 1;
		}
		printf("# holding\n");
		return expect_disconnect(atoi(argv[0]) * 1000);
	}
	fprintf(stderr, "unknown command %s\n", cmd);
	return 2;
}
