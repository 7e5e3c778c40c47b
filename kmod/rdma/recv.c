// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): completions, receive, credits
 * and request dispatch (conn->work).
 *
 * Execution model
 * ---------------
 * Completion handlers run in the CQ's workqueue; they only queue received
 * records and finished sends on locked lists and kick conn->work. All
 * protocol state (credits, windows, the request being executed) belongs to
 * conn->work, which runs on gb_rdma_io_wq, so it is single-threaded and may
 * sleep (tail pages come from the page cache). gb_rdma_io_wq is per-CPU
 * and high priority like the CQ's ib_comp_wq: the kick from a completion
 * handler queues conn->work on the same CPU's pool, and the worker that
 * just polled the CQ runs it next, without waking a thread on another CPU
 * (an unbound queue costs a cross-CPU wake-up per request, which in a
 * slow guest was milliseconds). That CPU must be a worker (kmod/cpus.h:
 * `cpus`, `cores`) of the device's node, or of any node for a device on
 * none or on a node without workers: otherwise conn->work goes to the
 * worker chosen for the connection before (at setup, or again after a
 * change: gb_cpus_choose()). Kicks from elsewhere (idle ticks, cm events)
 * keep that CPU. rdma_cm handlers never sleep
 * for long and never destroy a cm_id: closing queues conn->release.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include "rdma_int.h"

/* ---------------------------------------------------------------------- */
/* errors */

const char * const gb_rdma_err_names[GB_RDMA_E_NR] = {
	[GB_RDMA_E_BAD_RECORD] = "bad record",
	[GB_RDMA_E_CREDIT] = "credit overrun",
	[GB_RDMA_E_WINDOW] = "bad window return",
	[GB_RDMA_E_RANGE] = "address out of range",
	[GB_RDMA_E_RDMA] = "RDMA operation failed",
	[GB_RDMA_E_WC] = "completion error",
	[GB_RDMA_E_STORE] = "store read error",
	[GB_RDMA_E_REJECT] = "connect rejected",
};

/* Process context only (conn->lock). */
void gb_rdma_count(struct gb_rdma_conn *conn, enum gb_rdma_err kind)
{
	spin_lock(&conn->lock);
	conn->errors[kind]++;
	spin_unlock(&conn->lock);
}

/**
 * gb_rdma_fail() - count a protocol or transport error and close
 * @conn: connection
 * @kind: error kind (counter)
 * @what: detail for the rate-limited log line
 */
void gb_rdma_fail(struct gb_rdma_conn *conn, enum gb_rdma_err kind,
		  const char *what)
{
	gb_rdma_count(conn, kind);
	if (!test_bit(GB_CONN_CLOSING, &conn->flags))
		pr_warn_ratelimited("conn %llu: %s (%s), closing\n", conn->id,
				    gb_rdma_err_names[kind], what);
	gb_rdma_conn_close(conn);
}

/* ---------------------------------------------------------------------- */
/* completions (CQ workqueue context) */

/* Queue conn->work for input seen on @here (-1: none, gb_cpus_choose()). */
static void gb_rdma_kick_on(struct gb_rdma_conn *conn, int here)
{
	if (!test_bit(GB_CONN_CLOSING, &conn->flags))
		queue_work_on(gb_cpus_choose(&conn->cpu, here, conn->dev_node),
			      gb_rdma_io_wq, &conn->work);
}

/*
 * gb_rdma_kick() - have conn->work run, from outside the completion path
 * (idle ticks, cm events): on the CPU chosen before, unless that is stale.
 */
void gb_rdma_kick(struct gb_rdma_conn *conn)
{
	gb_rdma_kick_on(conn, -1);
}

/* From a completion handler: this CPU if it may serve the connection. */
static void gb_rdma_kick_here(struct gb_rdma_conn *conn)
{
	gb_rdma_kick_on(conn, raw_smp_processor_id());
}

static void gb_rdma_wc_error(struct gb_rdma_conn *conn, struct ib_wc *wc,
			     enum gb_rdma_err kind)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		gb_rdma_conn_close(conn);
		return;
	}
	gb_rdma_fail(conn, kind, ib_wc_status_msg(wc->status));
}

void gb_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_rx *rx = container_of(wc->wr_cqe, struct gb_rdma_rx,
					     cqe);
	struct gb_rdma_conn *conn = rx->conn;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_WC);
		return;
	}
	rx->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(conn->dev->ibdev, rx->sge.addr,
				   GB_RDMA_RECORD_SIZE, DMA_FROM_DEVICE);
	if (trace_gb_rdma_recv_enabled()) {
		const struct gb_rdma_hdr *h = (void *)rx->buf;

		if (h->type != GB_RDMA_FLOW)
			trace_gb_rdma_recv(conn->id, le64_to_cpu(h->tag),
					   h->type);
	}
	spin_lock(&conn->lock);
	list_add_tail(&rx->node, &conn->rxq);
	spin_unlock(&conn->lock);
	gb_rdma_kick_here(conn);
}

void gb_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_tx *tx = container_of(wc->wr_cqe, struct gb_rdma_tx,
					     cqe);
	struct gb_rdma_conn *conn = tx->conn;

	if (trace_gb_rdma_send_done_enabled()) {
		const struct gb_rdma_hdr *h = gb_rdma_tx_buf(conn, tx);

		if (h->type != GB_RDMA_FLOW)
			trace_gb_rdma_send_done(conn->id, le64_to_cpu(h->tag),
						h->type, wc->status);
	}
	spin_lock(&conn->lock);
	list_add_tail(&tx->node, &conn->tx_done);
	spin_unlock(&conn->lock);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_WC);
	else
		gb_rdma_kick_here(conn);
}

/*
 * R/W, REG_MR and LOCAL_INV WRs are unsignaled: this only runs when one
 * failed (e.g. a WRITE with a bad rkey).
 */
void gb_rdma_rw_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_conn *conn = container_of(wc->wr_cqe,
						 struct gb_rdma_conn, rw_cqe);

	if (wc->status != IB_WC_SUCCESS)
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_RDMA);
}

/*
 * rxe: the signaled last REG_MR of a LOOKUP's registration chain
 * (gb_rdma_lookup_step()); a failure closes the connection, like any
 * failed REG_MR.
 */
void gb_rdma_os_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_conn *conn = container_of(wc->wr_cqe,
						 struct gb_rdma_conn,
						 os_reg_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_RDMA);
		return;
	}
	spin_lock(&conn->lock);
	conn->os_reg_done = true;
	spin_unlock(&conn->lock);
	gb_rdma_kick_here(conn);
}

/* A failed READ is never marked done: its object must not be committed. */
void gb_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_conn *conn = container_of(wc->wr_cqe,
						 struct gb_rdma_conn,
						 read_cqe);

	trace_gb_rdma_read_done(conn->id, conn->rd_tag, wc->status);
	if (wc->status != IB_WC_SUCCESS) {
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_RDMA);
		return;
	}
	spin_lock(&conn->lock);
	conn->read_done = true;
	spin_unlock(&conn->lock);
	gb_rdma_kick_here(conn);
}

/*
 * QP events may be delivered in any context, softirq and hardirq included
 * (siw raises QP_FATAL from softirq, bnxt_re from a tasklet), so this
 * takes no lock and does not sleep: it records the first fatal event and
 * queues the teardown; conn->release counts and logs it.
 */
void gb_rdma_qp_event(struct ib_event *ev, void *ctx)
{
	struct gb_rdma_conn *conn = ctx;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(conn->cm_id, ev->event);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		cmpxchg(&conn->qp_event, 0, ev->event + 1);
		gb_rdma_conn_close(conn);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------------- */
/* posting */

int gb_rdma_post_recv(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx)
{
	ib_dma_sync_single_for_device(conn->dev->ibdev, rx->sge.addr,
				      GB_RDMA_RECORD_SIZE, DMA_FROM_DEVICE);
	rx->wr.next = NULL;
	return ib_post_recv(conn->qp, &rx->wr, NULL);
}

/* Reap completed sends and the READ completion. conn->work only. */
static void gb_rdma_reap(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx, *tmp;
	LIST_HEAD(done);
	bool rd, reg;

	spin_lock(&conn->lock);
	list_splice_init(&conn->tx_done, &done);
	rd = conn->read_done;
	conn->read_done = false;
	reg = conn->os_reg_done;
	conn->os_reg_done = false;
	spin_unlock(&conn->lock);
	if (reg) {		/* a LOOKUP's REG_MRs: gb_rdma_lookup_step() */
		conn->sq_avail += conn->os_reg_nwr;
		conn->os_reg_nwr = 0;
	}
	conn->os_hold_until = 0;	/* gb_rdma_lookup_reap_held() */

	list_for_each_entry_safe(tx, tmp, &done, node) {
		list_del(&tx->node);
		if (tx->leases && gb_rdma_lookup_reap_held(conn, tx)) {
			spin_lock(&conn->lock);	/* fault injection */
			list_add_tail(&tx->node, &conn->tx_done);
			spin_unlock(&conn->lock);
			continue;
		}
		gb_rdma_tx_release(conn, tx);
	}
	if (rd) {
		conn->sq_avail += conn->rd_nwr;
		conn->rd_nwr = 0;
		conn->cur.read_posted = false;
		conn->cur.read_complete = true;
	}
}

/* ---------------------------------------------------------------------- */
/* request dispatch (conn->work) */

static int gb_rdma_start(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx)
{
	struct gb_rdma_req *r = &conn->cur;
	const char *msg;
	int ret;

	memset(r, 0, offsetof(struct gb_rdma_req, buf));
	memcpy(r->buf, rx->buf, GB_RDMA_RECORD_SIZE);
	ret = gb_rdma_post_recv(conn, rx);
	if (ret)
		return ret;
	conn->owed++;

	r->active = true;
	r->done_after_reply = true;
	conn->st.requests++;
	WRITE_ONCE(conn->last_req, jiffies);
	/* response types (BULK, VALUE, ...) are unknown requests */
	ret = gb_rdma_req_parse(r->buf, GB_RDMA_RECORD_SIZE, &r->rec, &msg);
	switch (ret) {
	case GB_RDMA_PARSE_OK:
		conn->tid.req = r->rec.tag;
		trace_gb_rdma_parsed(conn->id, r->rec.tag, r->rec.type);
		break;
	case GB_RDMA_PARSE_UNKNOWN:
		gb_rdma_count(conn, GB_RDMA_E_BAD_RECORD);
		gb_rdma_prep_error(conn, GB_RDMA_ERR_ERROR,
				   "unknown record type 0x%02x", r->rec.type);
		return 0;
	case GB_RDMA_PARSE_CLIENT:
		gb_rdma_count(conn, GB_RDMA_E_BAD_RECORD);
		gb_rdma_prep_error(conn, GB_RDMA_ERR_CLIENT, "%s", msg);
		return 0;
	default:
		gb_rdma_fail(conn, GB_RDMA_E_BAD_RECORD, msg);
		return -EPROTO;
	}

	switch (r->rec.type) {
	case GB_RDMA_NOOP:
		gb_rdma_hdr_init(r->reply, GB_RDMA_R_NOOP, r->rec.tag, 0, 0);
		r->reply_pending = true;
		return 0;
	case GB_RDMA_VERSION_REQ: {
		struct gb_rdma_version *v;

		gb_rdma_hdr_init(r->reply, GB_RDMA_R_VERSION, r->rec.tag, 0,
				 sizeof(*v));
		v = (void *)(r->reply + sizeof(struct gb_rdma_hdr));
		v->version = cpu_to_le32(GB_RDMA_VERSION);
		strscpy(v->server, GB_VERSION, sizeof(v->server));
		r->reply_pending = true;
		return 0;
	}
	case GB_RDMA_GET:
		conn->st.gets++;
		r->done_after_reply = false;
		return 0;
	case GB_RDMA_SET:
		r->done_after_reply = false;
		return gb_rdma_set_start(conn);
	case GB_RDMA_DELETE:
	case GB_RDMA_TOUCH:
		gb_rdma_keyop(conn);
		return 0;
	case GB_RDMA_LOOKUP:
		gb_rdma_lookup_start(conn);
		return 0;
	default:	/* parsed but not served (e.g. FLOW never gets here) */
		gb_rdma_count(conn, GB_RDMA_E_BAD_RECORD);
		gb_rdma_prep_error(conn, GB_RDMA_ERR_ERROR,
				   "unknown record type 0x%02x", r->rec.type);
		return 0;
	}
}

static int gb_rdma_step(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	int ret;

	if (r->rec.type == GB_RDMA_GET && !r->done_after_reply)
		return gb_rdma_get_step(conn);
	if (r->rec.type == GB_RDMA_LOOKUP && !r->done_after_reply)
		return gb_rdma_lookup_step(conn);
	if (r->rec.type == GB_RDMA_SET && !r->done_after_reply) {
		ret = gb_rdma_set_step(conn);
		if (ret)
			return ret;
	}
	ret = gb_rdma_flush_reply(conn);
	if (ret)
		return ret;
	r->active = false;
	trace_gb_rdma_done(conn->id, r->rec.tag, r->rec.type);
	return 0;
}

/* FLOW from the client: credits and window returns. */
static int gb_rdma_flow(struct gb_rdma_conn *conn, const struct gb_rdma_rec *rec)
{
	u64 mask = rec->u.flow.windows;
	u32 i;

	if (conn->nwin < 64 && (mask >> conn->nwin)) {
		gb_rdma_fail(conn, GB_RDMA_E_WINDOW, "window index");
		return -EPROTO;
	}
	for (i = 0; mask; i++, mask >>= 1) {
		if (!(mask & 1))
			continue;
		if (!conn->win[i].client) {
			gb_rdma_fail(conn, GB_RDMA_E_WINDOW, "not held");
			return -EPROTO;
		}
		conn->win[i].client = false;
		conn->win_client--;
		trace_gb_rdma_win_return(conn->id, conn->win[i].tag, i);
	}
	return 0;
}

/* Credit accounting of every arriving record, in arrival order. */
static int gb_rdma_rx_one(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx)
{
	const void *buf = rx->buf;
	const struct gb_rdma_hdr *h = buf;
	u32 credits = le16_to_cpu(h->credits);
	bool flow = h->type == GB_RDMA_FLOW;
	struct gb_rdma_rec rec;
	const char *msg;
	int ret;

	if (rx->len != GB_RDMA_RECORD_SIZE) {
		gb_rdma_fail(conn, GB_RDMA_E_BAD_RECORD, "record size");
		return -EPROTO;
	}
	if (conn->client_avail == 0 ||
	    (conn->client_avail == 1 && (!flow || credits == 0))) {
		gb_rdma_fail(conn, GB_RDMA_E_CREDIT, "no credit");
		return -EPROTO;
	}
	if (credits > conn->geom.credits - conn->peer_credits) {
		gb_rdma_fail(conn, GB_RDMA_E_CREDIT, "grant too large");
		return -EPROTO;
	}
	conn->client_avail--;
	conn->peer_credits += credits;
	conn->st.records_in++;
	if (!flow) {
		list_add_tail(&rx->node, &conn->pending);
		return 0;
	}
	ret = gb_rdma_rec_parse(buf, rx->len, &rec, &msg);
	if (ret != GB_RDMA_PARSE_OK) {
		gb_rdma_fail(conn, GB_RDMA_E_BAD_RECORD, "FLOW");
		return -EPROTO;
	}
	ret = gb_rdma_flow(conn, &rec);
	if (ret)
		return ret;
	ret = gb_rdma_post_recv(conn, rx);
	if (ret)
		return ret;
	conn->owed++;
	return 0;
}

static void gb_rdma_send_flow(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx;

	/*
	 * Not while a LOOKUP waits for its REG_MR chain on rxe: no SEND may
	 * be posted behind it, and its R_LOOKUP needs the credit.
	 */
	if (conn->owed < max(1U, conn->grant / 2) ||
	    list_empty(&conn->tx_free) || conn->peer_credits < 1 ||
	    conn->sq_avail < 1 || conn->os_tx)
		return;
	tx = gb_rdma_tx_get(conn);
	gb_rdma_hdr_init(gb_rdma_tx_buf(conn, tx), GB_RDMA_FLOW, 0, 0,
			 sizeof(struct gb_rdma_flow));
	if (gb_rdma_post_tx(conn, tx, NULL))
		gb_rdma_conn_close(conn);
}

/* jiffies without progress before a connection is idle */
static unsigned long gb_rdma_idle_limit(struct gb_rdma_conn *conn)
{
	return (unsigned long)min(conn->lis->cfg.idle_timeout,
				  GB_RDMA_IDLE_MAX) * HZ;
}

/* jiffies a posted WR may go without any completion */
unsigned long gb_rdma_stall_limit(struct gb_rdma_conn *conn)
{
	return (unsigned long)min(conn->lis->cfg.idle_timeout,
				  GB_RDMA_STALL_MAX) * HZ;
}

/* gb_rdma_reap(), noting completions and READ progress for the watch */
static void gb_rdma_reap_watch(struct gb_rdma_conn *conn)
{
	int avail = conn->sq_avail;
	bool rd = conn->cur.read_complete;

	gb_rdma_reap(conn);
	if (conn->sq_avail != avail || conn->sq_avail == conn->sq_size)
		conn->last_cqe = jiffies;
	if (conn->cur.read_complete && !rd)
		conn->last_progress = jiffies;
}

/**
 * gb_rdma_watch() - bound what a client can make the connection hold
 * @conn: connection (conn->work, on a tick of conn->idle)
 *
 * Two clocks, both kept by conn->work:
 *
 * - Stall: posted work (sq_avail below sq_size) must see a completion
 *   within min(idle_timeout, GB_RDMA_STALL_MAX) seconds. The server QP's
 *   RNR and transport retry counts come from the client's REQ (rdma_cm
 *   offers no way to lower them after the fact), so a client that asks
 *   for infinite RNR retries and stops posting receives, or that
 *   vanishes (rxe treats retry_count 7 as infinite too), would keep a
 *   SEND or READ retrying forever, pinning rw contexts, MRs and the
 *   pages and objects behind them. Such a connection is torn down.
 *
 * - Idle: the connection must make progress within idle_timeout: a
 *   request starts executing, the client returns a window, or a SET READ
 *   completes. Records that merely arrive do not count: a FLOW{windows=0}
 *   keepalive, or requests queued behind a GET that waits for windows
 *   the client sits on, do not keep it alive while the GET pins its
 *   object.
 *
 * Re-arms conn->idle for the earlier deadline; conn->release cancels it.
 */
static void gb_rdma_watch(struct gb_rdma_conn *conn)
{
	unsigned long now = jiffies, idle = gb_rdma_idle_limit(conn);
	unsigned long stall = gb_rdma_stall_limit(conn), next = stall, t;
	char what[40];

	if (conn->sq_avail < conn->sq_size) {
		t = now - conn->last_cqe;
		if (t >= stall) {
			snprintf(what, sizeof(what), "no completion for %u s",
				 jiffies_to_msecs(t) / 1000);
			gb_rdma_fail(conn, GB_RDMA_E_WC, what);
			return;
		}
		next = stall - t;
	}
	t = now - conn->last_progress;
	if (t >= idle) {
		pr_info_ratelimited("conn %llu: idle for %u s, closing\n",
				    conn->id, jiffies_to_msecs(t) / 1000);
		gb_rdma_conn_close(conn);
		return;
	}
	next = min(next, idle - t);
	queue_delayed_work(gb_rdma_wq, &conn->idle, next);
}

void gb_rdma_work(struct work_struct *work)
{
	struct gb_rdma_conn *conn = container_of(work, struct gb_rdma_conn,
						 work);
	struct gb_rdma_rx *rx, *tmp;
	LIST_HEAD(arrived);
	u32 held;
	int ret = 0;

	if (test_bit(GB_CONN_CLOSING, &conn->flags))
		return;
	WRITE_ONCE(conn->ran_cpu, raw_smp_processor_id());
	gb_rdma_reap_watch(conn);
	gb_rdma_leases_expire(conn);

	spin_lock(&conn->lock);
	list_splice_init(&conn->rxq, &arrived);
	spin_unlock(&conn->lock);
	held = conn->win_client;
	list_for_each_entry_safe(rx, tmp, &arrived, node) {
		list_del(&rx->node);
		ret = gb_rdma_rx_one(conn, rx);
		if (ret) {
			gb_rdma_conn_close(conn);
			return;
		}
	}
	if (conn->win_client < held)	/* windows came back */
		conn->last_progress = jiffies;

	while (!test_bit(GB_CONN_CLOSING, &conn->flags)) {
		if (conn->cur.active) {
			ret = gb_rdma_step(conn);
			if (ret)
				break;
			continue;
		}
		if (list_empty(&conn->pending))
			break;
		rx = list_first_entry(&conn->pending, struct gb_rdma_rx, node);
		list_del(&rx->node);
		conn->last_progress = jiffies;
		ret = gb_rdma_start(conn, rx);
		if (ret)
			break;
	}
	if (ret && ret != -EAGAIN) {
		gb_rdma_conn_close(conn);
		return;
	}
	gb_rdma_send_flow(conn);
	if (test_and_clear_bit(GB_CONN_TICK, &conn->flags))
		gb_rdma_watch(conn);
}
