// SPDX-License-Identifier: GPL-2.0
/*
 * mockrdma: minimal userspace Goblin RDMA v3 server, only for testing
 * libgoblin in the guest independently of goblin.ko. One thread per
 * connection, an unbounded in-memory store (list), SET/ADD-less
 * semantics: SET, GET (multi-key), DELETE, TOUCH (no expiry), FLOW.
 *
 *   mockrdma ADDR PORT [3.0|3.1]
 *
 * With "3.0" it behaves as a server of protocol revision 3.0 at connect:
 * any non-zero connect.flags is refused with REJ_VERSION (range 3..3), as
 * the parser did before revision 3.1 (value CRCs) defined a flag. With
 * "3.1" it is a server of revision 3.1: it refuses every flag but
 * GB_RDMA_CONNECT_CRC (3.2's FOLD included) and grants that one (it sends
 * no CRCs: its values count as unverified).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdma_rec.h"

#define S_CRED		16	/* records a client may send */
#define S_SEND		64	/* send slots */
#define REC		GB_RDMA_RECORD_SIZE
#define GB_VALUE_MAX	(16u << 20)

struct item {
	struct item *next;
	char key[GB_RDMA_KEY_MAX];
	unsigned int klen;
	uint32_t flags;
	size_t len;
	char *val;
};

static struct item *store;
static int rev30;	/* "3.0": refuse every connect flag */
static int rev31;	/* "3.1": refuse every connect flag but CRC */
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;

struct sconn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct gb_rdma_geom g;
	char *ring;		/* S_CRED recv + S_SEND send */
	struct ibv_mr *ring_mr;
	char *bounce;		/* window_count * window_size + 16 MiB */
	struct ibv_mr *bounce_mr;
	unsigned int credits;	/* records we may send */
	unsigned int owed;
	unsigned int send_next;
	uint64_t owned;
	char (*pend)[REC];
	size_t npend, cpend;
	int read_done;
	int dead;
};

static void die(const char *m)
{
	perror(m);
	exit(1);
}

static struct item **lookup(const char *key, unsigned int klen)
{
	struct item **p;

	for (p = &store; *p; p = &(*p)->next)
		if ((*p)->klen == klen && !memcmp((*p)->key, key, klen))
			return p;
	return p;
}

static void post_recv(struct sconn *s, unsigned int i)
{
	struct ibv_sge sge = { (uintptr_t)(s->ring + i * REC), REC,
			       s->ring_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(s->id->qp, &wr, &bad))
		s->dead = 1;
}

static int send_rec(struct sconn *s, void *rec);

/* Handle one completion (blocking). */
static void wait_one(struct sconn *s)
{
	struct ibv_wc wc;
	struct gb_rdma_rec r;
	const char *msg;
	int n;

	for (;;) {
		struct ibv_cq *cq;
		void *ctx;

		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n || s->dead)
			break;
		ibv_req_notify_cq(s->cq, 0);
		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n)
			break;
		if (ibv_get_cq_event(s->cc, &cq, &ctx)) {
			s->dead = 1;
			return;
		}
		ibv_ack_cq_events(cq, 1);
	}
	if (n < 0 || s->dead || wc.status != IBV_WC_SUCCESS) {
		s->dead = 1;
		return;
	}
	if (wc.opcode == IBV_WC_RDMA_READ) {
		s->read_done = 1;
		return;
	}
	if (!(wc.opcode & IBV_WC_RECV))
		return;
	if (gb_rdma_rec_parse(s->ring + wc.wr_id * REC, wc.byte_len, &r,
			      &msg) == GB_RDMA_PARSE_FATAL) {
		s->dead = 1;
		return;
	}
	s->credits += r.credits;
	if (r.type == GB_RDMA_FLOW) {
		s->owned |= r.u.flow.windows;
	} else {
		if (s->npend == s->cpend) {
			s->cpend = s->cpend ? s->cpend * 2 : 16;
			s->pend = realloc(s->pend, s->cpend * REC);
			if (!s->pend)
				die("realloc");
		}
		memcpy(s->pend[s->npend++], s->ring + wc.wr_id * REC, REC);
	}
	post_recv(s, (unsigned int)wc.wr_id);
	s->owed++;
	if (s->owed >= S_CRED / 2 && s->credits >= 1) {
		char f[REC];

		gb_rdma_hdr_init(f, GB_RDMA_FLOW, 0, 0, 16);
		send_rec(s, f);
	}
}

static int send_rec(struct sconn *s, void *rec)
{
	struct gb_rdma_hdr *h = rec;
	unsigned int slot;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;

	while (!s->dead && !(s->credits >= 2 ||
			     (s->credits == 1 && h->type == GB_RDMA_FLOW &&
			      s->owed)))
		wait_one(s);
	if (s->dead)
		return -1;
	h->credits = htole16(s->owed);
	s->owed = 0;
	s->credits--;
	slot = s->send_next++ % S_SEND;
	memcpy(s->ring + (S_CRED + slot) * REC, rec, REC);
	sge.addr = (uintptr_t)(s->ring + (S_CRED + slot) * REC);
	sge.length = REC;
	sge.lkey = s->ring_mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(s->id->qp, &wr, &bad))
		s->dead = 1;
	return s->dead ? -1 : 0;
}

static void reply_status(struct sconn *s, uint64_t tag, uint32_t st)
{
	char rec[REC];
	struct gb_rdma_status *b = (void *)(rec + 16);

	gb_rdma_hdr_init(rec, GB_RDMA_R_STATUS, tag, 0, sizeof(*b));
	b->status = htole32(st);
	send_rec(s, rec);
}

static void reply_error(struct sconn *s, uint64_t tag, uint32_t kind,
			const char *m)
{
	char rec[REC];
	struct gb_rdma_error *b = (void *)(rec + 16);

	gb_rdma_hdr_init(rec, GB_RDMA_R_ERROR, tag, 0, sizeof(*b));
	b->kind = htole32(kind);
	snprintf(b->msg, sizeof(b->msg), "%s", m);
	send_rec(s, rec);
}

static void do_get(struct sconn *s, const char *raw, struct gb_rdma_rec *r)
{
	unsigned int i, hits = 0;
	char rec[REC];

	for (i = 0; i < r->u.get.nkeys && !s->dead; i++) {
		const char *key = raw + r->u.get.off[i];
		unsigned int kl = r->u.get.klen[i];
		struct gb_rdma_value *v = (void *)(rec + 16);
		struct item *it;
		char *copy;
		size_t len, off = 0;
		uint32_t flags;

		pthread_mutex_lock(&store_lock);
		it = *lookup(key, kl);
		copy = it ? malloc(it->len + 1) : NULL;
		if (copy)
			memcpy(copy, it->val, it->len);
		len = it ? it->len : 0;
		flags = it ? it->flags : 0;
		pthread_mutex_unlock(&store_lock);
		if (!copy)
			continue;
		hits++;
		gb_rdma_hdr_init(rec, GB_RDMA_R_VALUE, r->tag, 0, sizeof(*v));
		v->key_index = htole16(i);
		v->klen = kl;
		v->flags = htole32(flags);
		v->bytes = htole64(len);
		memcpy(v->key, key, kl);
		send_rec(s, rec);
		while (off < len && !s->dead) {
			struct gb_rdma_bulk *b = (void *)(rec + 16);
			size_t n = len - off;
			unsigned int w;
			struct ibv_sge sge;
			struct ibv_send_wr wr = { 0 }, *bad;

			while (!s->owned && !s->dead)
				wait_one(s);
			if (s->dead)
				break;
			w = (unsigned int)__builtin_ctzll(s->owned);
			s->owned &= ~(1ull << w);
			if (n > s->g.window_size)
				n = s->g.window_size;
			memcpy(s->bounce + (size_t)w * s->g.window_size,
			       copy + off, n);
			sge.addr = (uintptr_t)(s->bounce +
					       (size_t)w * s->g.window_size);
			sge.length = (uint32_t)n;
			sge.lkey = s->bounce_mr->lkey;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = s->g.window_base +
						 (uint64_t)w * s->g.window_size;
			wr.wr.rdma.rkey = s->g.rkey;
			if (ibv_post_send(s->id->qp, &wr, &bad)) {
				s->dead = 1;
				break;
			}
			gb_rdma_hdr_init(rec, GB_RDMA_R_BULK, r->tag, 0,
					 sizeof(*b));
			b->window = htole16(w);
			b->len = htole32(n);
			b->offset = htole64(off);
			b->key_index = htole16(i);
			off += n;
			if (off == len)
				b->flags = htole16(GB_RDMA_BULK_LAST);
			send_rec(s, rec);
		}
		free(copy);
	}
	gb_rdma_hdr_init(rec, GB_RDMA_R_END, r->tag, 0, 8);
	((struct gb_rdma_end *)(rec + 16))->hits = htole16(hits);
	((struct gb_rdma_end *)(rec + 16))->misses =
		htole16(r->u.get.nkeys - hits);
	send_rec(s, rec);
}

static void do_set(struct sconn *s, struct gb_rdma_rec *r)
{
	size_t span = (size_t)s->g.window_size * s->g.window_count;
	char *dst = s->bounce + span;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct item **p, *it;

	if (r->u.set.bytes > GB_VALUE_MAX) {
		reply_error(s, r->tag, GB_RDMA_ERR_SERVER,
			    "object too large for cache");
		return;
	}
	if (r->u.set.addr < s->g.window_base ||
	    r->u.set.addr + r->u.set.bytes >
	    s->g.window_base + s->g.region_len) {
		reply_error(s, r->tag, GB_RDMA_ERR_CLIENT, "bad address");
		return;
	}
	if (r->u.set.bytes) {
		sge.addr = (uintptr_t)dst;
		sge.length = (uint32_t)r->u.set.bytes;
		sge.lkey = s->bounce_mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r->u.set.addr;
		wr.wr.rdma.rkey = s->g.rkey;
		s->read_done = 0;
		if (ibv_post_send(s->id->qp, &wr, &bad)) {
			s->dead = 1;
			return;
		}
		while (!s->read_done && !s->dead)
			wait_one(s);
		if (s->dead)
			return;
	}
	it = calloc(1, sizeof(*it));
	it->val = malloc(r->u.set.bytes + 1);
	memcpy(it->val, dst, r->u.set.bytes);
	it->len = r->u.set.bytes;
	it->flags = r->u.set.flags;
	it->klen = r->u.set.klen;
	memcpy(it->key, r->u.set.key, it->klen);
	pthread_mutex_lock(&store_lock);
	p = lookup(it->key, it->klen);
	if (*p) {
		it->next = (*p)->next;
		free((*p)->val);
		free(*p);
	}
	*p = it;
	pthread_mutex_unlock(&store_lock);
	reply_status(s, r->tag, GB_RDMA_ST_STORED);
}

static void do_keyop(struct sconn *s, struct gb_rdma_rec *r)
{
	struct item **p, *it;
	uint32_t st;

	pthread_mutex_lock(&store_lock);
	p = lookup(r->u.keyop.key, r->u.keyop.klen);
	it = *p;
	if (!it) {
		st = GB_RDMA_ST_NOT_FOUND;
	} else if (r->type == GB_RDMA_TOUCH) {
		st = GB_RDMA_ST_TOUCHED;
	} else {
		*p = it->next;
		free(it->val);
		free(it);
		st = GB_RDMA_ST_DELETED;
	}
	pthread_mutex_unlock(&store_lock);
	reply_status(s, r->tag, st);
}

static void *conn_thread(void *arg)
{
	struct sconn *s = arg;
	char raw[REC];
	struct gb_rdma_rec r;
	const char *msg;
	int ret;

	while (!s->dead) {
		if (!s->npend) {
			wait_one(s);
			continue;
		}
		memcpy(raw, s->pend[0], REC);
		memmove(s->pend[0], s->pend[1], (s->npend - 1) * REC);
		s->npend--;
		ret = gb_rdma_rec_parse(raw, REC, &r, &msg);
		if (ret == GB_RDMA_PARSE_UNKNOWN) {
			reply_error(s, r.tag, GB_RDMA_ERR_ERROR, "");
			continue;
		}
		if (ret) {
			reply_error(s, r.tag, GB_RDMA_ERR_CLIENT, msg);
			continue;
		}
		switch (r.type) {
		case GB_RDMA_GET:
			do_get(s, raw, &r);
			break;
		case GB_RDMA_SET:
			do_set(s, &r);
			break;
		case GB_RDMA_DELETE:
		case GB_RDMA_TOUCH:
			do_keyop(s, &r);
			break;
		default:
			reply_error(s, r.tag, GB_RDMA_ERR_ERROR, "");
		}
	}
	return NULL;
}

static void on_connect(struct rdma_cm_id *id, const struct rdma_conn_param *p)
{
	struct gb_rdma_accept a = { 0 };
	struct gb_rdma_reject j = { 0 };
	struct rdma_conn_param cp = { 0 };
	struct ibv_qp_init_attr qa = { 0 };
	enum gb_rdma_reject_reason why;
	struct sconn *s = calloc(1, sizeof(*s));
	size_t blen;
	pthread_t t;
	unsigned int i;

	why = gb_rdma_connect_parse(p->private_data, p->private_data_len,
				    &s->g);
	if (!why && rev30 && s->g.flags)
		why = GB_RDMA_REJ_VERSION;
	if (!why && rev31 && (s->g.flags & ~GB_RDMA_CONNECT_CRC))
		why = GB_RDMA_REJ_VERSION;
	if (why) {
		j.magic = htole32(GB_RDMA_MAGIC);
		j.reason = htole16(why);
		j.version_min = GB_RDMA_VERSION;
		j.version_max = GB_RDMA_VERSION;
		rdma_reject(id, &j, sizeof(j));
		free(s);
		return;
	}
	s->id = id;
	s->credits = s->g.credits;
	s->owned = s->g.window_count == 64 ? ~0ull :
		(1ull << s->g.window_count) - 1;
	s->pd = ibv_alloc_pd(id->verbs);
	s->cc = ibv_create_comp_channel(id->verbs);
	s->cq = s->cc ? ibv_create_cq(id->verbs, 512, NULL, s->cc, 0) : NULL;
	s->ring = calloc(S_CRED + S_SEND, REC);
	blen = (size_t)s->g.window_size * s->g.window_count + GB_VALUE_MAX;
	s->bounce = malloc(blen);
	if (!s->pd || !s->cq || !s->ring || !s->bounce)
		die("conn resources");
	s->ring_mr = ibv_reg_mr(s->pd, s->ring, (S_CRED + S_SEND) * REC,
				IBV_ACCESS_LOCAL_WRITE);
	s->bounce_mr = ibv_reg_mr(s->pd, s->bounce, blen,
				  IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 256;
	qa.cap.max_recv_wr = S_CRED;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (!s->ring_mr || !s->bounce_mr || rdma_create_qp(id, s->pd, &qa))
		die("conn setup");
	for (i = 0; i < S_CRED; i++)
		post_recv(s, i);
	a.magic = htole32(GB_RDMA_MAGIC);
	a.version = htole16(GB_RDMA_VERSION);
	a.credits = htole16(S_CRED);
	a.windows = htole16(s->g.window_count);
	a.window_size = htole32(s->g.window_size);
	a.max_keys = htole16(GB_RDMA_GET_MAX_KEYS);
	a.record_size = htole16(REC);
	if (rev31)
		a.flags = htole16(s->g.flags & GB_RDMA_CONNECT_CRC);
	a.max_value = htole64(GB_VALUE_MAX);
	cp.private_data = &a;
	cp.private_data_len = sizeof(a);
	/*
	 * rdma_cm presents the REQ from our side already (initiator_depth:
	 * READs we may issue, i.e. the client's responder_resources), so the
	 * depths are taken over as they are, not swapped.
	 */
	cp.responder_resources = p->responder_resources;
	cp.initiator_depth = p->initiator_depth;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp))
		die("rdma_accept");
	pthread_create(&t, NULL, conn_thread, s);
	pthread_detach(t);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct addrinfo *ai, hints = { .ai_flags = AI_PASSIVE };
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;

	if (argc == 4 && !strcmp(argv[3], "3.0"))
		rev30 = 1;
	else if (argc == 4 && !strcmp(argv[3], "3.1"))
		rev31 = 1;
	else if (argc != 3)
		return 2;
	if (!ec || rdma_create_id(ec, &lid, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (getaddrinfo(argv[1], argv[2], &hints, &ai))
		die("getaddrinfo");
	if (rdma_bind_addr(lid, ai->ai_addr) || rdma_listen(lid, 16))
		die("listen");
	printf("mockrdma listening on %s:%s\n", argv[1], argv[2]);
	fflush(stdout);
	while (!rdma_get_cm_event(ec, &ev)) {
		struct rdma_cm_id *id = ev->id;
		struct rdma_conn_param p = ev->param.conn;
		enum rdma_cm_event_type type = ev->event;

		if (type == RDMA_CM_EVENT_CONNECT_REQUEST)
			on_connect(id, &p);
		else if (type == RDMA_CM_EVENT_DISCONNECTED)
			rdma_disconnect(id);
		rdma_ack_cm_event(ev);
	}
	return 0;
}
