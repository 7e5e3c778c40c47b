// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst).
 *
 * Objects and contexts
 * --------------------
 *  gb_rdma_listener  one rdma_cm listening id per configured address.
 *  gb_rdma_dev       per ib_device state, from our ib_client's .add to
 *                    its .remove (device unregistration or module
 *                    unload); its PD is allocated by the first connection
 *                    on the device. Connect requests for a device without
 *                    state (e.g. after .remove) are refused.
 *  gb_rdma_conn      one RC QP with one CQ (IB_POLL_WORKQUEUE), a ring of
 *                    receive records, a pool of send records, and the
 *                    client's bulk windows.
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
 * slow guest was milliseconds). rdma_cm handlers never sleep
 * for long and never destroy a cm_id: closing queues conn->release.
 *
 * Page ownership on the GET path
 * ------------------------------
 * A chunk of a value is described by a window slot (struct gb_rdma_win):
 * for every segment, gb_obj_get_page() hands us a page reference, which
 * goes into the slot's scatterlist; no byte is copied. The chunk is moved
 * with the kernel's generic R/W API (rdma/rw.h): rdma_rw_ctx_init() maps
 * the scatterlist (DMA_TO_DEVICE) and either points WRITE sges at it with
 * the PD's local DMA lkey or, when the device (or ib_core's force_mr
 * parameter) asks for it, registers it with fast-registration MRs from the
 * QP's MR pool. rdma_rw_ctx_wrs() returns the WRITE chain (with any
 * invalidate/register WRs in front), to which the BULK SEND is appended;
 * only that SEND is signaled. The slot stays "busy" - rw ctx alive, pages
 * referenced - until that SEND's completion (success or flush) is reaped by
 * conn->work, which destroys the rw ctx (MRs back to the pool, scatterlist
 * unmapped) and only then put_page()s every segment. The gb_obj reference
 * taken by gb_store_get() travels with the request while chunks are
 * produced and is handed to the tx of the value's last chunk, so it too is
 * dropped only at the SEND completion. RC completes send WRs in order, so
 * when the last chunk's SEND completes, every earlier WRITE of the value
 * is done. If the QP fails, ib_drain_qp() in conn->release guarantees
 * every posted WR has completed (flushed) before the leftovers are
 * released. A window slot is reused only when it is neither busy nor held
 * by the client (returned by a FLOW record).
 *
 * A chunk's scatterlist is kept registrable as one page list: only its
 * first entry may start inside a page and only its last may end inside
 * one; a chunk stops early at such a boundary (never with a page-multiple
 * ram_head) and the BULK record carries its real length.
 *
 * SET
 * ---
 * The value is pulled with rdma_rw_ctx_init(DMA_FROM_DEVICE) in pieces of
 * up to GB_RDMA_READ_MAX bytes, one READ context at a time. The part of the
 * value held in head pages is read straight into those pages: they belong
 * to the new, unpublished object (gb_obj_alloc()), nobody else can see
 * them until gb_store_commit(), and gb_obj_get_page() gives us a reference
 * for the duration of the READ. The tail part lives in the tail file's
 * page cache, which must be written through the file (dirty tracking), so
 * it is READ into a per-connection bounce buffer and copied with
 * gb_obj_write(). Which bytes are head bytes is the allocated object's
 * own gb_obj_head_len(), fixed by gb_obj_alloc(), never a guess from the
 * current ram_head (which may change while a SET runs: a READ straight
 * into tail pages would bypass the page cache's dirty tracking and lose
 * the bytes at reclaim). A failed READ is never reaped as complete, so a
 * partly read object is dropped, never committed.
 *
 * Work request and MR accounting
 * ------------------------------
 * The QP is created with cap.max_rdma_ctxs = (windows x contexts per
 * chunk) + contexts per READ, where "contexts" is the larger of
 * rdma_rw_mr_factor() (MRs needed) and the WRITE/READ WRs needed without
 * MRs; ib_core adds the matching send queue slots (3 per context with MRs:
 * invalidate, register, R/W) and sizes the MR pool. conn->sq_avail counts
 * free send queue slots: a chunk needs the worst case of its contexts plus
 * the SEND before it is built, and the count rdma_rw_ctx_init() returns is
 * charged and given back at the completion. With MRs that count exceeds
 * ctx->nr_ops (registration WRs); this is counted in rw_mr_ctxs, the
 * signal the tests use to prove the MR path ran.
 *
 * rdma_rxe with MRs (ib_core force_mr=1)
 * --------------------------------------
 * rxe in Linux 6.1 re-executes local operations on retransmission: after a
 * NAK or an ACK timeout its requester rewinds to the oldest unacknowledged
 * WQE and runs every WQE from there, and it runs a LOCAL_INV or REG_MR
 * whatever its state. A REG_MR queued behind an unacknowledged WRITE is
 * then executed twice; the second run finds the MR valid ("not free"),
 * fails, and the QP stalls without a completion. On rxe with MRs
 * (conn->mr_quiesce) a chain that registers memory is therefore posted
 * only on an idle send queue (every earlier WR completed, so rxe has
 * retired its local operations before anything after them can be
 * retransmitted), and a chunk is limited to what one MR maps, so no
 * REG_MR follows a WRITE inside a chain either. This costs throughput on
 * rxe with force_mr only; other devices and rxe without MRs are unchanged.
 * Such an MR also maps at most 255 pages: 6.1's rxe_mr_copy() reads a
 * pointer past its page map array (a KASAN slab-out-of-bounds report,
 * harmless otherwise) when a copy reaches page slot 255 of an MR's last
 * 256-page map. Clients work around the same rxe bug (libgoblin registers
 * one page more than it offers; Documentation/rdma-protocol.rst).
 *
 * Teardown
 * --------
 * gb_rdma_conn_close() is idempotent and only queues conn->release, which:
 * disconnects, drains the QP (no completion can run afterwards), cancels
 * conn->work, releases every page/object still held, destroys the QP, the
 * CQ and finally the cm_id (which waits for a running cm handler), then
 * unlinks the connection and frees it (unmapping its buffers from the
 * device). Only then does it give back its slot in the listener's and the
 * device's counts (gb_rdma_slot_put()): device removal and module unload
 * wait for those counts and free the device state as soon as they drop;
 * a stopped listener is freed by whoever drops its count, or the hold
 * of a device removal destroying its cm_id, to zero (so listener delete
 * never waits for connections or a removal). A refused connect
 * follows the same order. The subsystem mutex is never held while
 * calling rdma_destroy_id(), because cm handlers take it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/netlink.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/poison.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include "goblin.h"
#include "listener.h"
#include "events.h"
#include "registry.h"
#include "rdma.h"
#include "store.h"
#include "rdma_rec.h"

#define GB_RDMA_DEF_WINDOW	SZ_1M
#define GB_RDMA_DEF_WINDOWS	4
#define GB_RDMA_DEF_CREDITS	32
#define GB_RDMA_DEF_MAX_CONNS	64
#define GB_RDMA_DEF_IDLE	300	/* s, idle_timeout 0 of a listener */
#define GB_RDMA_DEF_PEER_CONNS	32	/* per listener and peer address */
#define GB_RDMA_DEF_ALL_CONNS	1024	/* over all listeners */
#define GB_RDMA_GRANT_MAX	128	/* receive records per connection */
#define GB_RDMA_TX_MAX		128	/* send records per connection */
#define GB_RDMA_RX_SLACK	2	/* receives posted beyond the grant */
#define GB_RDMA_SGE_MAX		32
#define GB_RDMA_READ_MAX	(256U << 10)	/* bytes per SET READ */
#define GB_RDMA_RD_SGES		(GB_RDMA_READ_MAX / PAGE_SIZE + 1)
#define GB_RDMA_RXE_MAP_PAGES	256U	/* pages per rxe_map in Linux 6.1 */
#define GB_RDMA_IDLE_MAX	(7U * 24 * 3600)	/* cap for jiffies math */
#define GB_RDMA_STALL_MAX	30U	/* s a posted WR may go uncompleted */
#define GB_RDMA_BACKLOG		128
#define GB_RDMA_REBIND_MS	2000

static char *gb_rdma_param = "";
module_param_named(rdma, gb_rdma_param, charp, 0444);
MODULE_PARM_DESC(rdma, "RDMA listener to start at load, \"addr:port\" or \"[v6addr]:port\" (default: none)");

enum gb_rdma_kind { GB_KIND_LISTENER = 1, GB_KIND_CONN };

struct gb_rdma_dev {
	struct list_head node;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	unsigned int nconns;
	bool dead;
};

struct gb_rdma_listener {
	enum gb_rdma_kind kind;		/* first: cm_id context tag */
	struct list_head node;
	struct gb_listener_config cfg;
	u32 id;
	struct rdma_cm_id *cm_id;
	u32 nconns;
	u64 conns_total;
	u64 refused;
	bool dying;
	bool stopped;		/* no cm_id any more: freed with the last conn */
	u32 holds;		/* cm_ids taken by gb_rdma_remove_one() */
	struct delayed_work rebind;
};

struct gb_rdma_conn;

struct gb_rdma_rx {
	struct ib_cqe cqe;
	struct gb_rdma_conn *conn;
	struct list_head node;
	u32 idx;
	u32 len;
	struct ib_sge sge;
	struct ib_recv_wr wr;
};

struct gb_rdma_tx {
	struct ib_cqe cqe;
	struct gb_rdma_conn *conn;
	struct list_head node;
	u32 idx;
	int win;		/* window slot released by this SEND, or -1 */
	u32 nwr;		/* send queue slots freed by this SEND */
	struct gb_obj *obj;	/* reference dropped at completion */
	struct ib_sge sge;
	struct ib_send_wr wr;
};

struct gb_rdma_win {
	bool client;		/* held by the client until a FLOW return */
	bool busy;		/* rw ctx alive, pages held until the SEND completes */
	u32 nents;
	struct scatterlist *sgl;
	struct rdma_rw_ctx ctx;
};

/* The request conn->work is executing (a private copy of the record). */
struct gb_rdma_req {
	bool active;
	bool reply_pending;
	bool done_after_reply;
	bool waiting;
	struct gb_rdma_rec rec;
	/* GET */
	u32 key;
	u16 hits;
	u16 misses;
	struct gb_obj *obj;
	u64 off;
	/* SET */
	struct gb_obj *sobj;
	u64 soff;
	u64 shead;		/* value bytes READ straight into head pages */
	u32 slen;
	bool read_posted;
	bool read_complete;
	/* not cleared between requests: */
	u8 buf[GB_RDMA_RECORD_SIZE] __aligned(8);
	u8 reply[GB_RDMA_RECORD_SIZE] __aligned(8);
};

/*
 * GB_CONN_SETUP: the connect handler still owns the connection (not listed
 * yet, it may still be refused and freed there; or listed but still inside
 * rdma_accept()); gb_rdma_conn_close() only records GB_CONN_CLOSE_LATER
 * then, see gb_rdma_conn_setup_done().
 */
enum {
	GB_CONN_CLOSING, GB_CONN_LISTED, GB_CONN_TICK, GB_CONN_SETUP,
	GB_CONN_CLOSE_LATER,
};

struct gb_rdma_conn {
	enum gb_rdma_kind kind;		/* first: cm_id context tag */
	struct list_head node;
	u64 id;
	struct gb_rdma_listener *lis;
	struct gb_rdma_dev *dev;
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct gb_rdma_geom geom;
	unsigned long flags;

	u32 nwin;		/* windows used */
	u32 chunk_max;		/* bytes per chunk (<= window size) */
	u32 spw;		/* sges per window slot */
	u32 max_sge;		/* sges per WRITE */
	u32 port;		/* cm_id port, for the rw API */
	u32 cpw;		/* rw contexts (MRs or WRITE WRs) per chunk */
	u32 crd;		/* rw contexts per SET READ */
	u32 wpw;		/* send queue slots per chunk's WRs, worst case */
	u32 wrd;		/* send queue slots per READ, worst case */
	u32 nwin_alloc;		/* window slots allocated (>= nwin) */
	bool use_mr;		/* the QP has an MR pool: rw ctxs register */
	bool mr_quiesce;	/* rxe with MRs: see the top comment */
	u32 chunk_sges;		/* sges per chunk (<= spw; one MR if quiesce) */
	u32 rd_sges;		/* sges per SET READ (likewise) */
	u32 rd_max;		/* bytes per SET READ */
	int sq_size;		/* sq_avail when nothing is outstanding */
	u32 ncqe;		/* CQ entries (conn->cq->cqe) */

	u32 nrx;
	u8 *rxbuf;
	u64 rxdma;
	struct gb_rdma_rx *rx;
	u32 ntx;
	u8 *txbuf;
	u64 txdma;
	struct gb_rdma_tx *tx;

	/*
	 * Protects the lists below. Process context only: completion
	 * handlers (the CQ polls from ib_comp_wq), conn->work, conn->release
	 * and the netlink/debugfs readers; never taken from QP or CQ event
	 * handlers, which may run in (soft) interrupt context - plain
	 * spin_lock() with BHs enabled would deadlock against them.
	 */
	spinlock_t lock;
	struct list_head rxq;		/* received, not yet seen by work */
	struct list_head tx_done;	/* completed sends */
	bool read_done;
	u64 errors[GB_RDMA_E_NR];	/* also under lock */

	/* conn->work only (and conn->release once work is cancelled) */
	struct list_head pending;	/* requests waiting for execution */
	struct list_head tx_free;
	struct list_head tx_dead;	/* failed to post: release after drain */
	int sq_avail;
	u32 grant;			/* initial grant to the client */
	u32 client_avail;		/* records the client may still send */
	u32 owed;			/* reposted, not yet granted */
	u32 peer_credits;		/* records we may still send */
	struct gb_rdma_win *win;
	u32 win_client;
	struct gb_rdma_req cur;
	u8 *bounce;
	u32 bounce_len;
	/* the SET READ in flight (or parked after a failed post) */
	bool rd_live;
	bool rd_bounce;		/* into the bounce buffer, not head pages */
	u32 rd_nents;
	u32 rd_nwr;
	struct rdma_rw_ctx rd_ctx;
	struct scatterlist rd_sgl[GB_RDMA_RD_SGES];

	int qp_event;			/* first fatal QP event + 1, or 0 */
	struct ib_cqe rw_cqe;		/* unsignaled R/W, REG and INV WRs */
	struct ib_cqe read_cqe;
	struct work_struct work;
	struct work_struct release;
	struct delayed_work idle;
	unsigned long last_req;		/* jiffies, last request start/end */
	/* conn->work only, see gb_rdma_watch(): */
	unsigned long last_progress;	/* request start, window, READ */
	unsigned long last_cqe;		/* completion, or send queue idle */
	struct sockaddr_storage cm_id_peer;	/* client address, set at accept:
						 * the cm_id is gone before the
						 * connection leaves the list
						 */
	struct gb_rdma_stats st;
};

static DEFINE_MUTEX(gb_rdma_lock);	/* lists, counters, listener state */
static LIST_HEAD(gb_rdma_listeners);
static LIST_HEAD(gb_rdma_devs);
static LIST_HEAD(gb_rdma_conns);	/* ascending id */
static u32 gb_rdma_nconns;
static u32 gb_rdma_max_conns = GB_RDMA_DEF_ALL_CONNS;	/* cap of nconns */
static u32 gb_rdma_next_lis_id;
static u64 gb_rdma_next_conn_id;
static atomic_t gb_rdma_next_vector;	/* CQ completion vectors, round robin */
static struct gb_rdma_stats gb_rdma_closed;	/* closed connections */
static u64 gb_rdma_rejects;
static DECLARE_WAIT_QUEUE_HEAD(gb_rdma_waitq);
static struct workqueue_struct *gb_rdma_wq;	/* setup, teardown, timers */
static struct workqueue_struct *gb_rdma_io_wq;	/* conn->work */

static void gb_rdma_conn_close(struct gb_rdma_conn *conn);

/* ---------------------------------------------------------------------- */
/* fault injection for the functional tests (debugfs goblin/rdma-fault/) */

/*
 * Race windows of the connection lifecycle are microseconds wide on real
 * hardware; these knobs (all 0 = off) widen them so that tests/func/rdma
 * can hit them on demand. Only root can write them (debugfs, mode 0600).
 */
static u32 gb_rdma_fault_release_ms;	/* release: before the QP drain */
static u32 gb_rdma_fault_late_ms;	/* release/reject: after unaccounting */
static u32 gb_rdma_fault_setup_ms;	/* connect: before the final check */
static u32 gb_rdma_fault_accept_ms;	/* connect: after rdma_accept() */
static u32 gb_rdma_fault_pre_accept_ms;	/* connect: before rdma_accept() */
static u32 gb_rdma_fault_remove_ms;	/* device .remove: at the end */
static u32 gb_rdma_fault_max_cqe;	/* pretend the device has this max_cqe */
static u32 gb_rdma_fault_set_nomem;	/* fail this many SET allocations */
static bool gb_rdma_fault_poison;	/* poison freed state, free at unload */

#define GB_RDMA_FAULT_DELAY_MAX	60000U

static void gb_rdma_fault_delay(const u32 *ms)
{
	u32 v = READ_ONCE(*ms);

	if (unlikely(v))
		msleep(min(v, GB_RDMA_FAULT_DELAY_MAX));
}

/* Freed connection, listener and device state kept while poisoned. */
struct gb_rdma_grave {
	struct list_head node;
	void *obj;
	size_t size;
};

static LIST_HEAD(gb_rdma_graves);
static DEFINE_SPINLOCK(gb_rdma_graves_lock);

/*
 * kfree() @obj; with the poison knob set, fill it with POISON_FREE and
 * keep it until module unload instead, so that a use after free reads
 * the poison (a listener id of 0x6b6b6b6b, a wild pointer) every time.
 */
static void gb_rdma_free_state(void *obj, size_t size)
{
	struct gb_rdma_grave *g;

	if (!obj)
		return;
	g = READ_ONCE(gb_rdma_fault_poison) ?
	    kmalloc(sizeof(*g), GFP_KERNEL) : NULL;
	if (!g) {
		kfree(obj);
		return;
	}
	memset(obj, POISON_FREE, size);
	g->obj = obj;
	g->size = size;
	spin_lock(&gb_rdma_graves_lock);
	list_add(&g->node, &gb_rdma_graves);
	spin_unlock(&gb_rdma_graves_lock);
}

/* At unload: a grave whose poison changed was written after its free. */
static void gb_rdma_graves_free(void)
{
	struct gb_rdma_grave *g, *tmp;

	list_for_each_entry_safe(g, tmp, &gb_rdma_graves, node) {
		list_del(&g->node);
		if (memchr_inv(g->obj, POISON_FREE, g->size))
			pr_err("freed state (%zu bytes) written after its free\n",
			       g->size);
		kfree(g->obj);
		kfree(g);
	}
}

/* ---------------------------------------------------------------------- */
/* errors */

static const char * const gb_rdma_err_names[GB_RDMA_E_NR] = {
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
static void gb_rdma_count(struct gb_rdma_conn *conn, enum gb_rdma_err kind)
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
static void gb_rdma_fail(struct gb_rdma_conn *conn, enum gb_rdma_err kind,
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

static void gb_rdma_kick(struct gb_rdma_conn *conn)
{
	if (!test_bit(GB_CONN_CLOSING, &conn->flags))
		queue_work(gb_rdma_io_wq, &conn->work);
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

static void gb_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_rx *rx = container_of(wc->wr_cqe, struct gb_rdma_rx,
					     cqe);
	struct gb_rdma_conn *conn = rx->conn;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_WC);
		return;
	}
	rx->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(conn->dev->ibdev,
				   conn->rxdma + rx->idx * GB_RDMA_RECORD_SIZE,
				   GB_RDMA_RECORD_SIZE, DMA_FROM_DEVICE);
	spin_lock(&conn->lock);
	list_add_tail(&rx->node, &conn->rxq);
	spin_unlock(&conn->lock);
	gb_rdma_kick(conn);
}

static void gb_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_tx *tx = container_of(wc->wr_cqe, struct gb_rdma_tx,
					     cqe);
	struct gb_rdma_conn *conn = tx->conn;

	spin_lock(&conn->lock);
	list_add_tail(&tx->node, &conn->tx_done);
	spin_unlock(&conn->lock);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_WC);
	else
		gb_rdma_kick(conn);
}

/*
 * R/W, REG_MR and LOCAL_INV WRs are unsignaled: this only runs when one
 * failed (e.g. a WRITE with a bad rkey).
 */
static void gb_rdma_rw_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_conn *conn = container_of(wc->wr_cqe,
						 struct gb_rdma_conn, rw_cqe);

	if (wc->status != IB_WC_SUCCESS)
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_RDMA);
}

/* A failed READ is never marked done: its object must not be committed. */
static void gb_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct gb_rdma_conn *conn = container_of(wc->wr_cqe,
						 struct gb_rdma_conn,
						 read_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		gb_rdma_wc_error(conn, wc, GB_RDMA_E_RDMA);
		return;
	}
	spin_lock(&conn->lock);
	conn->read_done = true;
	spin_unlock(&conn->lock);
	gb_rdma_kick(conn);
}

/*
 * QP events may be delivered in any context, softirq and hardirq included
 * (siw raises QP_FATAL from softirq, bnxt_re from a tasklet), so this
 * takes no lock and does not sleep: it records the first fatal event and
 * queues the teardown; conn->release counts and logs it.
 */
static void gb_rdma_qp_event(struct ib_event *ev, void *ctx)
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

static int gb_rdma_post_recv(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx)
{
	ib_dma_sync_single_for_device(conn->dev->ibdev,
				      conn->rxdma +
				      rx->idx * GB_RDMA_RECORD_SIZE,
				      GB_RDMA_RECORD_SIZE, DMA_FROM_DEVICE);
	rx->wr.next = NULL;
	return ib_post_recv(conn->qp, &rx->wr, NULL);
}

/*
 * Tear down an rw ctx, then drop the page references behind it: the ctx
 * (MRs, DMA mapping) must be gone before the pages may be reused.
 */
static void gb_rdma_rw_release(struct gb_rdma_conn *conn,
			       struct rdma_rw_ctx *ctx, struct scatterlist *sgl,
			       u32 nents, enum dma_data_direction dir,
			       bool put_pages)
{
	struct scatterlist *sg;
	u32 i;

	rdma_rw_ctx_destroy(ctx, conn->qp, conn->port, sgl, nents, dir);
	if (!put_pages)
		return;
	for_each_sg(sgl, sg, nents, i)
		put_page(sg_page(sg));
}

static void gb_rdma_win_release(struct gb_rdma_conn *conn,
				struct gb_rdma_win *w)
{
	gb_rdma_rw_release(conn, &w->ctx, w->sgl, w->nents, DMA_TO_DEVICE,
			   true);
	w->nents = 0;
	w->busy = false;
}

/* Count an initialised rw ctx; more WRs than R/W ops means MRs are used. */
static void gb_rdma_rw_count(struct gb_rdma_conn *conn,
			     const struct rdma_rw_ctx *ctx, int nwr)
{
	conn->st.rw_ctxs++;
	if (nwr > ctx->nr_ops)
		conn->st.rw_mr_ctxs++;
}

/*
 * Give the unsignaled WRs of a chain from rdma_rw_ctx_wrs() our error
 * handler (the rw API leaves their wr_cqe NULL, and the CQ would then drop
 * a failed WRITE silently), up to but not including @end.
 */
static void gb_rdma_rw_errcqe(struct gb_rdma_conn *conn,
			      struct ib_send_wr *first, struct ib_send_wr *end)
{
	struct ib_send_wr *wr;

	for (wr = first; wr && wr != end; wr = wr->next)
		if (!wr->wr_cqe)
			wr->wr_cqe = &conn->rw_cqe;
}

static void gb_rdma_tx_release(struct gb_rdma_conn *conn,
			       struct gb_rdma_tx *tx)
{
	if (tx->win >= 0)
		gb_rdma_win_release(conn, &conn->win[tx->win]);
	if (tx->obj)
		gb_obj_put(tx->obj);
	tx->win = -1;
	tx->obj = NULL;
	conn->sq_avail += tx->nwr;
	tx->nwr = 0;
	list_add_tail(&tx->node, &conn->tx_free);
}

/* Reap completed sends and the READ completion. conn->work only. */
static void gb_rdma_reap(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx, *tmp;
	LIST_HEAD(done);
	bool rd;

	spin_lock(&conn->lock);
	list_splice_init(&conn->tx_done, &done);
	rd = conn->read_done;
	conn->read_done = false;
	spin_unlock(&conn->lock);

	list_for_each_entry_safe(tx, tmp, &done, node) {
		list_del(&tx->node);
		gb_rdma_tx_release(conn, tx);
	}
	if (rd) {
		conn->sq_avail += conn->rd_nwr;
		conn->rd_nwr = 0;
		conn->cur.read_posted = false;
		conn->cur.read_complete = true;
	}
}

static bool gb_rdma_can_send(struct gb_rdma_conn *conn, u32 nwr)
{
	return !list_empty(&conn->tx_free) && conn->peer_credits >= 2 &&
	       conn->sq_avail >= (int)nwr;
}

/* May a chain that registers memory be posted now? (rxe quirk) */
static bool gb_rdma_can_register(struct gb_rdma_conn *conn)
{
	return !conn->mr_quiesce || conn->sq_avail == conn->sq_size;
}

static struct gb_rdma_tx *gb_rdma_tx_get(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx;

	tx = list_first_entry(&conn->tx_free, struct gb_rdma_tx, node);
	list_del(&tx->node);
	tx->win = -1;
	tx->obj = NULL;
	tx->nwr = 1;
	return tx;
}

static void *gb_rdma_tx_buf(struct gb_rdma_conn *conn, struct gb_rdma_tx *tx)
{
	return conn->txbuf + tx->idx * GB_RDMA_RECORD_SIZE;
}

/**
 * gb_rdma_post_tx() - grant owed credits in @tx's record and post it
 * @conn:  connection
 * @tx:    send record, its buffer filled in
 * @first: first WR of a chain ending with @tx->wr, or NULL
 *
 * On failure the tx (and what it references) is parked until the QP is
 * drained, because part of the chain may have been posted.
 *
 * Return: 0 or a negative errno (the caller closes the connection).
 */
static int gb_rdma_post_tx(struct gb_rdma_conn *conn, struct gb_rdma_tx *tx,
			   struct ib_send_wr *first)
{
	struct gb_rdma_hdr *h = gb_rdma_tx_buf(conn, tx);
	int ret;

	h->credits = cpu_to_le16(conn->owed);
	ib_dma_sync_single_for_device(conn->dev->ibdev,
				      conn->txdma +
				      tx->idx * GB_RDMA_RECORD_SIZE,
				      GB_RDMA_RECORD_SIZE, DMA_TO_DEVICE);
	tx->wr.next = NULL;
	ret = ib_post_send(conn->qp, first ? first : &tx->wr, NULL);
	if (ret) {
		list_add_tail(&tx->node, &conn->tx_dead);
		return ret;
	}
	conn->client_avail += conn->owed;
	conn->owed = 0;
	conn->peer_credits--;
	conn->st.records_out++;
	conn->sq_avail -= tx->nwr;
	return 0;
}

/* Send a prepared record (conn->cur.reply); caller checked can_send. */
static int gb_rdma_send_reply(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx = gb_rdma_tx_get(conn);

	memcpy(gb_rdma_tx_buf(conn, tx), conn->cur.reply, GB_RDMA_RECORD_SIZE);
	return gb_rdma_post_tx(conn, tx, NULL);
}

/* Prepare ERROR of @kind; the message says what was wrong, never empty. */
static __printf(3, 4) void gb_rdma_prep_error(struct gb_rdma_conn *conn,
					      u32 kind, const char *fmt, ...)
{
	struct gb_rdma_error *e;
	va_list ap;

	gb_rdma_hdr_init(conn->cur.reply, GB_RDMA_R_ERROR, conn->cur.rec.tag,
			 0, sizeof(*e));
	e = (void *)(conn->cur.reply + sizeof(struct gb_rdma_hdr));
	e->kind = cpu_to_le32(kind);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	conn->cur.reply_pending = true;
}

static void gb_rdma_prep_status(struct gb_rdma_conn *conn, u32 status)
{
	struct gb_rdma_status *s;

	gb_rdma_hdr_init(conn->cur.reply, GB_RDMA_R_STATUS, conn->cur.rec.tag,
			 0, sizeof(*s));
	s = (void *)(conn->cur.reply + sizeof(struct gb_rdma_hdr));
	s->status = cpu_to_le32(status);
	conn->cur.reply_pending = true;
}

/* ---------------------------------------------------------------------- */
/* GET */

static int gb_rdma_find_window(struct gb_rdma_conn *conn)
{
	u32 i;

	for (i = 0; i < conn->nwin; i++)
		if (!conn->win[i].client && !conn->win[i].busy)
			return i;
	return -1;
}

/**
 * gb_rdma_post_chunk() - RDMA WRITE the next chunk of the current value
 * @conn: connection; caller checked can_send(wpw + 1)
 * @w:    free window slot
 * @store_err: set to a store error (then nothing was posted, nothing held)
 *
 * Collects up to chunk_max bytes of the value as references to the store's
 * pages in the slot's scatterlist, sets up an rw ctx over it and posts the
 * ctx's WR chain followed by the signaled BULK SEND.
 *
 * Return: 0 or an RDMA error (the caller closes the connection); a store
 * error (then nothing was posted and nothing is held) is returned in
 * *@store_err.
 */
static int gb_rdma_post_chunk(struct gb_rdma_conn *conn, int w,
			      int *store_err)
{
	struct gb_rdma_req *r = &conn->cur;
	struct gb_rdma_win *win = &conn->win[w];
	u64 remote = conn->geom.window_base + (u64)w * conn->geom.window_size;
	u64 left = r->obj->len - r->off;
	u32 len = min_t(u64, left, conn->chunk_max);
	struct ib_send_wr *first;
	struct gb_rdma_tx *tx;
	struct gb_rdma_bulk *b;
	bool ragged = false, last;
	u32 pos = 0, n = 0, i;
	int ret, nwr;

	sg_init_table(win->sgl, conn->spw);
	while (pos < len && n < conn->chunk_sges) {
		struct page *pg;
		unsigned int pgoff, seg;

		ret = gb_obj_get_page(r->obj, r->off + pos, &pg, &pgoff, &seg);
		if (ret)
			goto unwind;
		if (seg == 0) {
			put_page(pg);
			ret = -EIO;
			goto unwind;
		}
		/* keep one page list: no hole inside it (see top comment) */
		if (n && (ragged || pgoff)) {
			put_page(pg);
			break;
		}
		seg = min(seg, len - pos);
		sg_set_page(&win->sgl[n++], pg, seg, pgoff);
		ragged = pgoff + seg != PAGE_SIZE;
		pos += seg;
	}
	sg_mark_end(&win->sgl[n - 1]);
	len = pos;
	last = r->off + len == r->obj->len;

	nwr = rdma_rw_ctx_init(&win->ctx, conn->qp, conn->port, win->sgl, n, 0,
			       remote, conn->geom.rkey, DMA_TO_DEVICE);
	if (nwr < 0 || nwr > conn->wpw) {
		if (nwr >= 0)
			rdma_rw_ctx_destroy(&win->ctx, conn->qp, conn->port,
					    win->sgl, n, DMA_TO_DEVICE);
		for (i = 0; i < n; i++)
			put_page(sg_page(&win->sgl[i]));
		pr_warn_ratelimited("conn %llu: rw ctx for %u pages: %d\n",
				    conn->id, n, nwr);
		return nwr < 0 ? nwr : -EOVERFLOW;
	}
	gb_rdma_rw_count(conn, &win->ctx, nwr);
	win->nents = n;
	win->busy = true;

	tx = gb_rdma_tx_get(conn);
	first = rdma_rw_ctx_wrs(&win->ctx, conn->qp, conn->port, NULL,
				&tx->wr);
	gb_rdma_rw_errcqe(conn, first, &tx->wr);

	gb_rdma_hdr_init(gb_rdma_tx_buf(conn, tx), GB_RDMA_R_BULK, r->rec.tag, 0,
			 sizeof(*b));
	b = gb_rdma_tx_buf(conn, tx) + sizeof(struct gb_rdma_hdr);
	b->window = cpu_to_le16(w);
	b->flags = cpu_to_le16(last ? GB_RDMA_BULK_LAST : 0);
	b->len = cpu_to_le32(len);
	b->offset = cpu_to_le64(r->off);
	b->key_index = cpu_to_le16(r->key);
	tx->win = w;
	tx->nwr = nwr + 1;
	win->client = true;
	conn->win_client++;
	if (last) {
		tx->obj = r->obj;
		r->obj = NULL;
		r->key++;
	}
	r->off += len;
	conn->st.bytes_written += len;
	conn->st.chunks++;
	return gb_rdma_post_tx(conn, tx, first);

unwind:
	for (i = 0; i < n; i++)
		put_page(sg_page(&win->sgl[i]));
	*store_err = ret;
	return 0;
}

static void gb_rdma_prep_value(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	struct gb_rdma_value *v;

	gb_rdma_hdr_init(r->reply, GB_RDMA_R_VALUE, r->rec.tag, 0,
			 offsetof(struct gb_rdma_value, key) + r->obj->klen);
	v = (void *)(r->reply + sizeof(struct gb_rdma_hdr));
	v->key_index = cpu_to_le16(r->key);
	v->klen = r->obj->klen;
	v->flags = cpu_to_le32(r->obj->flags);
	v->bytes = cpu_to_le64(r->obj->len);
	v->cas = cpu_to_le64(r->obj->cas);
	memcpy(v->key, r->obj->key, r->obj->klen);
	r->reply_pending = true;
}

static void gb_rdma_prep_end(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	struct gb_rdma_end *e;

	gb_rdma_hdr_init(r->reply, GB_RDMA_R_END, r->rec.tag, 0, sizeof(*e));
	e = (void *)(r->reply + sizeof(struct gb_rdma_hdr));
	e->hits = cpu_to_le16(r->hits);
	e->misses = cpu_to_le16(r->misses);
	r->reply_pending = true;
	r->done_after_reply = true;
}

/* Send the prepared reply record, if any: 0, -EAGAIN or an error. */
static int gb_rdma_flush_reply(struct gb_rdma_conn *conn)
{
	int ret;

	if (!conn->cur.reply_pending)
		return 0;
	if (!gb_rdma_can_send(conn, 1))
		return -EAGAIN;
	ret = gb_rdma_send_reply(conn);
	if (ret)
		return ret;
	conn->cur.reply_pending = false;
	return 0;
}

/* Advance the GET; -EAGAIN when waiting for a window, credit or SQ slot. */
static int gb_rdma_get_step(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	int w, ret, serr;

	for (;;) {
		if (r->reply_pending) {
			ret = gb_rdma_flush_reply(conn);
			if (ret)
				return ret;
			if (r->done_after_reply) {
				r->active = false;
				return 0;
			}
			continue;
		}
		if (!r->obj) {
			u32 i = r->key;

			if (i >= r->rec.u.get.nkeys) {
				gb_rdma_prep_end(conn);
				continue;
			}
			conn->st.keys++;
			r->obj = gb_store_get((const char *)r->buf +
					      r->rec.u.get.off[i],
					      r->rec.u.get.klen[i]);
			if (!r->obj) {
				conn->st.misses++;
				r->misses++;
				r->key++;
				continue;
			}
			conn->st.hits++;
			r->hits++;
			r->off = 0;
			gb_rdma_prep_value(conn);
			if (r->obj->len == 0) {
				/* nothing to stream: drop it after VALUE */
				gb_obj_put(r->obj);
				r->obj = NULL;
				r->key++;
			}
			continue;
		}
		w = gb_rdma_find_window(conn);
		if (w < 0) {
			if (!r->waiting)
				conn->st.window_waits++;
			r->waiting = true;
			return -EAGAIN;
		}
		r->waiting = false;
		if (!gb_rdma_can_send(conn, conn->wpw + 1) ||
		    !gb_rdma_can_register(conn))
			return -EAGAIN;
		serr = 0;
		ret = gb_rdma_post_chunk(conn, w, &serr);
		if (ret)
			return ret == -EAGAIN ? -EIO : ret;
		if (serr) {
			/* store failed mid-value: skip it, tell the client */
			gb_rdma_count(conn, GB_RDMA_E_STORE);
			pr_warn_ratelimited("conn %llu: reading value failed: %d\n",
					    conn->id, serr);
			gb_obj_put(r->obj);
			r->obj = NULL;
			r->key++;
			gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
					   "error reading value");
		}
	}
}

/* ---------------------------------------------------------------------- */
/* SET, DELETE, TOUCH */

static int gb_rdma_bounce(struct gb_rdma_conn *conn)
{
	u32 len;

	if (conn->bounce)
		return 0;
	for (len = GB_RDMA_READ_MAX; len >= PAGE_SIZE; len /= 4) {
		conn->bounce = kmalloc(len, GFP_KERNEL | __GFP_NOWARN);
		if (conn->bounce)
			break;
	}
	if (!conn->bounce)
		return -ENOMEM;
	conn->bounce_len = len;
	return 0;
}

/**
 * gb_rdma_post_read() - RDMA READ the next piece of the SET value
 * @conn: connection; caller checked sq_avail >= wrd
 *
 * Bytes below r->shead go straight into the new object's head pages, the
 * rest into the bounce buffer (see "SET" in the top comment).
 *
 * Return: 0 or a negative errno (the caller closes the connection).
 */
static int gb_rdma_post_read(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	struct ib_send_wr *first;
	u32 len, pos = 0, n = 0, i;
	int ret;

	sg_init_table(conn->rd_sgl, GB_RDMA_RD_SGES);
	conn->rd_bounce = r->soff >= r->shead;
	if (conn->rd_bounce) {
		len = min_t(u64, r->rec.u.set.bytes - r->soff,
			    min(conn->bounce_len, conn->rd_max));
		sg_set_buf(&conn->rd_sgl[0], conn->bounce, len);
		n = 1;
	} else {
		len = min_t(u64, r->shead - r->soff, conn->rd_max);
		while (pos < len && n < conn->rd_sges) {
			struct page *pg;
			unsigned int pgoff, seg;

			ret = gb_obj_get_page(r->sobj, r->soff + pos, &pg,
					      &pgoff, &seg);
			if (ret)
				goto unwind;
			if (n && pgoff) {	/* not a page list: stop here */
				put_page(pg);
				break;
			}
			seg = min(seg, len - pos);
			sg_set_page(&conn->rd_sgl[n++], pg, seg, pgoff);
			pos += seg;
			if (pgoff + seg != PAGE_SIZE)
				break;
		}
		len = pos;
		if (!len) {
			ret = -EIO;
			goto unwind;
		}
	}
	sg_mark_end(&conn->rd_sgl[n - 1]);
	ret = rdma_rw_ctx_init(&conn->rd_ctx, conn->qp, conn->port,
			       conn->rd_sgl, n, 0, r->rec.u.set.addr + r->soff,
			       conn->geom.rkey, DMA_FROM_DEVICE);
	if (ret < 0 || ret > conn->wrd) {
		if (ret >= 0) {
			rdma_rw_ctx_destroy(&conn->rd_ctx, conn->qp,
					    conn->port, conn->rd_sgl, n,
					    DMA_FROM_DEVICE);
			ret = -EOVERFLOW;
		}
		pr_warn_ratelimited("conn %llu: READ rw ctx: %d\n", conn->id,
				    ret);
		goto unwind;
	}
	gb_rdma_rw_count(conn, &conn->rd_ctx, ret);
	conn->rd_nwr = ret;
	conn->rd_nents = n;
	conn->rd_live = true;
	r->slen = len;
	first = rdma_rw_ctx_wrs(&conn->rd_ctx, conn->qp, conn->port,
				&conn->read_cqe, NULL);
	gb_rdma_rw_errcqe(conn, first, NULL);
	/* on failure rd_live stays set: released after the drain */
	ret = ib_post_send(conn->qp, first, NULL);
	if (ret)
		return ret;
	conn->sq_avail -= conn->rd_nwr;
	r->read_posted = true;
	return 0;

unwind:
	if (!conn->rd_bounce)
		for (i = 0; i < n; i++)
			put_page(sg_page(&conn->rd_sgl[i]));
	return ret;
}

/* The READ completed: release its ctx and pages, copy a bounced piece. */
static int gb_rdma_read_finish(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;

	gb_rdma_rw_release(conn, &conn->rd_ctx, conn->rd_sgl, conn->rd_nents,
			   DMA_FROM_DEVICE, !conn->rd_bounce);
	conn->rd_live = false;
	conn->st.bytes_read += r->slen;
	if (!conn->rd_bounce) {
		conn->st.bytes_read_direct += r->slen;
		return 0;
	}
	return gb_obj_write(r->sobj, r->soff, conn->bounce, r->slen);
}

static const u8 gb_rdma_mode_map[] = {
	[GB_RDMA_SET_SET] = GB_MODE_SET,
	[GB_RDMA_SET_ADD] = GB_MODE_ADD,
	[GB_RDMA_SET_REPLACE] = GB_MODE_REPLACE,
	[GB_RDMA_SET_CAS] = GB_MODE_CAS,
	[GB_RDMA_SET_APPEND] = GB_MODE_APPEND,
	[GB_RDMA_SET_PREPEND] = GB_MODE_PREPEND,
};

static void gb_rdma_prep_store_result(struct gb_rdma_conn *conn, int res)
{
	switch (res) {
	case GB_STORED:
		gb_rdma_prep_status(conn, GB_RDMA_ST_STORED);
		break;
	case GB_NOT_STORED:
		gb_rdma_prep_status(conn, GB_RDMA_ST_NOT_STORED);
		break;
	case GB_EXISTS:
		gb_rdma_prep_status(conn, GB_RDMA_ST_EXISTS);
		break;
	case GB_NOT_FOUND:
		gb_rdma_prep_status(conn, GB_RDMA_ST_NOT_FOUND);
		break;
	case -E2BIG:
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
				   "object too large for cache");
		break;
	case -EINVAL:	/* gb_obj_alloc(): the store refused the key */
		gb_rdma_prep_error(conn, GB_RDMA_ERR_CLIENT, "bad key");
		break;
	default:
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
				   "out of memory storing object");
		break;
	}
}

/*
 * Test knob (debugfs goblin/rdma_set_delay_ms, 0 = off): pause up to that
 * long before and after a SET's gb_obj_alloc(), announcing each pause in
 * the log; a pause ends early when the knob's value changes. A test can
 * so change the store configuration around the allocation, step by step
 * (func/rdma: "ram_head A -> B -> A during a SET").
 */
static u32 gb_rdma_set_delay_ms;
#define GB_RDMA_SET_DELAY_MAX	30000U
#define GB_RDMA_SET_DELAY_STEP	20U

static void gb_rdma_test_delay(struct gb_rdma_conn *conn, const char *where)
{
	u32 v = READ_ONCE(gb_rdma_set_delay_ms);
	u32 ms = min(v, GB_RDMA_SET_DELAY_MAX), t;

	if (likely(!ms))
		return;
	pr_info("conn %llu: test delay up to %u ms %s gb_obj_alloc\n",
		conn->id, ms, where);
	for (t = 0; t < ms && READ_ONCE(gb_rdma_set_delay_ms) == v;
	     t += GB_RDMA_SET_DELAY_STEP)
		msleep(GB_RDMA_SET_DELAY_STEP);
}

/*
 * Does the SET source [@addr, @addr + @bytes), already known to lie in the
 * region, overlap a window the server owns (one not held by the client)?
 * The uapi forbids that: the server may fill such a window at any time.
 */
static bool gb_rdma_src_in_window(struct gb_rdma_conn *conn, u64 addr,
				  u64 bytes)
{
	u64 off = addr - conn->geom.window_base;
	u64 first = div_u64(off, conn->geom.window_size);
	u64 last = div_u64(off + bytes - 1, conn->geom.window_size);
	u64 i;

	for (i = first; i <= last && i < conn->nwin; i++)
		if (!conn->win[i].client)
			return true;
	return false;
}

/*
 * A SET that fails after its record was accepted (no memory for the object
 * or the bounce buffer, a failed READ or bounce copy, the connection closing
 * with the value half read) must not leave the key's older value in place,
 * as with memcache SET over TCP: unlink it (gb_store_drop(): not counted as
 * a delete, no client asked for one). Other modes (ADD, CAS, ...) leave the store as it was.
 */
static void gb_rdma_set_failed(struct gb_rdma_conn *conn)
{
	const struct gb_rdma_rec *rec = &conn->cur.rec;

	if (rec->type == GB_RDMA_SET && rec->u.set.mode == GB_RDMA_SET_SET)
		gb_store_drop(rec->u.set.key, rec->u.set.klen);
}

/* Fault knob rdma-fault/set_nomem: fail the next N SET allocations. */
static bool gb_rdma_fault_nomem(void)
{
	u32 v = READ_ONCE(gb_rdma_fault_set_nomem);

	while (v) {
		u32 old = cmpxchg(&gb_rdma_fault_set_nomem, v, v - 1);

		if (old == v)
			return true;
		v = old;
	}
	return false;
}

static int gb_rdma_set_start(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	const struct gb_rdma_geom *g = &conn->geom;
	u64 addr = r->rec.u.set.addr, bytes = r->rec.u.set.bytes;
	struct gb_obj *obj;
	int ret;

	conn->st.sets++;
	if (bytes && (addr < g->window_base ||
		      addr - g->window_base > g->region_len ||
		      bytes > g->region_len - (addr - g->window_base))) {
		gb_rdma_fail(conn, GB_RDMA_E_RANGE, "SET source");
		return -EINVAL;
	}
	if (bytes && gb_rdma_src_in_window(conn, addr, bytes)) {
		gb_rdma_fail(conn, GB_RDMA_E_RANGE,
			     "SET source in a window the server owns");
		return -EINVAL;
	}
	gb_rdma_test_delay(conn, "before");
	if (unlikely(gb_rdma_fault_nomem()))
		obj = ERR_PTR(-ENOMEM);
	else
		obj = gb_obj_alloc(r->rec.u.set.key, r->rec.u.set.klen,
				   r->rec.u.set.flags,
				   gb_exptime_abs(r->rec.u.set.exptime), bytes);
	gb_rdma_test_delay(conn, "after");
	if (IS_ERR_OR_NULL(obj)) {
		ret = obj ? PTR_ERR(obj) : -ENOMEM;
		if (ret != -EINVAL)	/* a bad key names no stored value */
			gb_rdma_set_failed(conn);
		gb_rdma_prep_store_result(conn, ret);
		r->done_after_reply = true;
		return 0;
	}
	r->sobj = obj;
	r->soff = 0;
	/* the object's own split: only head pages may take DMA directly */
	r->shead = gb_obj_head_len(obj);
	if (bytes > r->shead && gb_rdma_bounce(conn)) {
		gb_obj_put(obj);
		r->sobj = NULL;
		gb_rdma_set_failed(conn);
		gb_rdma_prep_store_result(conn, -ENOMEM);
		r->done_after_reply = true;
	}
	return 0;
}

static int gb_rdma_set_step(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	int ret;

	while (r->sobj) {
		if (r->read_posted)
			return -EAGAIN;
		if (r->read_complete) {
			r->read_complete = false;
			ret = gb_rdma_read_finish(conn);
			if (ret) {
				gb_obj_put(r->sobj);
				r->sobj = NULL;
				gb_rdma_set_failed(conn);
				/* -EINVAL here is no bad key */
				gb_rdma_prep_store_result(conn, ret == -EINVAL ?
							  -EIO : ret);
				break;
			}
			r->soff += r->slen;
		}
		if (r->soff < r->rec.u.set.bytes) {
			if (conn->sq_avail < (int)conn->wrd ||
			    !gb_rdma_can_register(conn))
				return -EAGAIN;
			return gb_rdma_post_read(conn) ?: -EAGAIN;
		}
		ret = gb_store_commit(r->sobj,
				      gb_rdma_mode_map[r->rec.u.set.mode],
				      r->rec.u.set.cas);
		r->sobj = NULL;
		gb_rdma_prep_store_result(conn, ret);
	}
	r->done_after_reply = true;
	return 0;
}

static void gb_rdma_keyop(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	int res;

	if (r->rec.type == GB_RDMA_DELETE) {
		res = gb_store_delete(r->rec.u.keyop.key, r->rec.u.keyop.klen,
				      r->rec.u.keyop.cas);
		if (res == GB_STORED)
			res = GB_RDMA_ST_DELETED;
		else if (res == GB_NOT_FOUND)
			res = GB_RDMA_ST_NOT_FOUND;
		else if (res == GB_EXISTS)
			res = GB_RDMA_ST_EXISTS;
		else
			res = -1;
	} else {
		res = gb_store_touch(r->rec.u.keyop.key, r->rec.u.keyop.klen,
				     gb_exptime_abs(r->rec.u.keyop.exptime));
		if (res == GB_STORED)
			res = GB_RDMA_ST_TOUCHED;
		else if (res == GB_NOT_FOUND)
			res = GB_RDMA_ST_NOT_FOUND;
		else
			res = -1;
	}
	if (res < 0)
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER, "store error");
	else
		gb_rdma_prep_status(conn, res);
}

/* ---------------------------------------------------------------------- */
/* request dispatch (conn->work) */

static int gb_rdma_start(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx)
{
	struct gb_rdma_req *r = &conn->cur;
	const char *msg;
	int ret;

	memset(r, 0, offsetof(struct gb_rdma_req, buf));
	memcpy(r->buf, conn->rxbuf + rx->idx * GB_RDMA_RECORD_SIZE,
	       GB_RDMA_RECORD_SIZE);
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
	if (r->rec.type == GB_RDMA_SET && !r->done_after_reply) {
		ret = gb_rdma_set_step(conn);
		if (ret)
			return ret;
	}
	ret = gb_rdma_flush_reply(conn);
	if (ret)
		return ret;
	r->active = false;
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
	}
	return 0;
}

/* Credit accounting of every arriving record, in arrival order. */
static int gb_rdma_rx_one(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx)
{
	const void *buf = conn->rxbuf + rx->idx * GB_RDMA_RECORD_SIZE;
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

	if (conn->owed < max(1U, conn->grant / 2) ||
	    list_empty(&conn->tx_free) || conn->peer_credits < 1 ||
	    conn->sq_avail < 1)
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
static unsigned long gb_rdma_stall_limit(struct gb_rdma_conn *conn)
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

static void gb_rdma_work(struct work_struct *work)
{
	struct gb_rdma_conn *conn = container_of(work, struct gb_rdma_conn,
						 work);
	struct gb_rdma_rx *rx, *tmp;
	LIST_HEAD(arrived);
	u32 held;
	int ret = 0;

	if (test_bit(GB_CONN_CLOSING, &conn->flags))
		return;
	gb_rdma_reap_watch(conn);

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

/* ---------------------------------------------------------------------- */
/* connection setup and teardown */

/*
 * Any context (QP event handlers included). During setup, conn->release
 * must not run: the connection is not listed and a refused connect frees
 * it in the connect handler, so the close is only recorded and
 * gb_rdma_conn_setup_done() carries it out once the connection is listed.
 * Both sides set one flag bit and then test the other's (full barriers
 * between), so at least one of them sees the close and queues it.
 */
static void gb_rdma_conn_close(struct gb_rdma_conn *conn)
{
	if (test_bit(GB_CONN_SETUP, &conn->flags)) {
		set_bit(GB_CONN_CLOSE_LATER, &conn->flags);
		/* pairs with gb_rdma_conn_setup_done(): CLOSE_LATER, then SETUP */
		smp_mb__after_atomic();
		if (test_bit(GB_CONN_SETUP, &conn->flags))
			return;
	}
	if (!test_and_set_bit(GB_CONN_CLOSING, &conn->flags))
		queue_work(gb_rdma_wq, &conn->release);
}

/* Listed and accepted: closes go to conn->release from now on. */
static void gb_rdma_conn_setup_done(struct gb_rdma_conn *conn)
{
	clear_bit(GB_CONN_SETUP, &conn->flags);
	/* pairs with gb_rdma_conn_close(): SETUP, then CLOSE_LATER */
	smp_mb__after_atomic();
	if (test_bit(GB_CONN_CLOSE_LATER, &conn->flags))
		gb_rdma_conn_close(conn);
}

/* conn->idle: have conn->work check the clocks (gb_rdma_watch()). */
static void gb_rdma_idle_work(struct work_struct *work)
{
	struct gb_rdma_conn *conn = container_of(to_delayed_work(work),
						 struct gb_rdma_conn, idle);

	set_bit(GB_CONN_TICK, &conn->flags);
	gb_rdma_kick(conn);
}

static void gb_rdma_stats_add(struct gb_rdma_stats *d,
			      const struct gb_rdma_stats *s, const u64 *errors)
{
	int i;

	d->requests += s->requests;
	d->gets += s->gets;
	d->keys += s->keys;
	d->hits += s->hits;
	d->misses += s->misses;
	d->sets += s->sets;
	d->bytes_written += s->bytes_written;
	d->bytes_read += s->bytes_read;
	d->chunks += s->chunks;
	d->window_waits += s->window_waits;
	d->records_in += s->records_in;
	d->records_out += s->records_out;
	d->rw_ctxs += s->rw_ctxs;
	d->rw_mr_ctxs += s->rw_mr_ctxs;
	d->bytes_read_direct += s->bytes_read_direct;
	for (i = 0; i < GB_RDMA_E_NR; i++)
		d->errors[i] += errors[i];
}

/* Free what gb_rdma_conn_alloc() and setup allocated (no QP/CQ/cm_id). */
static void gb_rdma_conn_free_mem(struct gb_rdma_conn *conn)
{
	struct ib_device *ibdev = conn->dev ? conn->dev->ibdev : NULL;
	u32 i;

	/* nothing may still run on the connection (see conn->release) */
	WARN_ON_ONCE(delayed_work_pending(&conn->idle) ||
		     work_pending(&conn->work) ||
		     work_pending(&conn->release));

	if (conn->win) {
		for (i = 0; i < conn->nwin_alloc; i++)
			kvfree(conn->win[i].sgl);
		kfree(conn->win);
	}
	if (conn->rxdma && ibdev)
		ib_dma_unmap_single(ibdev, conn->rxdma,
				    conn->nrx * GB_RDMA_RECORD_SIZE,
				    DMA_FROM_DEVICE);
	if (conn->txdma && ibdev)
		ib_dma_unmap_single(ibdev, conn->txdma,
				    conn->ntx * GB_RDMA_RECORD_SIZE,
				    DMA_TO_DEVICE);
	kfree(conn->bounce);
	kfree(conn->rxbuf);
	kfree(conn->txbuf);
	kfree(conn->rx);
	kfree(conn->tx);
	gb_rdma_free_state(conn, sizeof(*conn));
}

/*
 * A stopped listener is freed once nothing refers to it: no connection
 * slot and no cm_id of it that gb_rdma_remove_one() is still destroying
 * (that id may still run connect handlers with @lis as its context).
 * Under gb_rdma_lock.
 */
static bool gb_rdma_lis_unused(const struct gb_rdma_listener *lis)
{
	return lis->stopped && !lis->nconns && !lis->holds;
}

/**
 * gb_rdma_slot_put() - give back a connection slot, the last teardown step
 * @lis:     listener the connection came in on
 * @dev:     device state it used
 * @refused: the connect was refused (count it)
 *
 * gb_rdma_remove_one() and gb_rdma_exit() free the device state and the
 * module as soon as the counts they wait for drop, and the last slot of a
 * stopped listener frees it here, so the caller must have released
 * everything that needs them (DMA mappings of the device, the listener id
 * for the close event) and must not touch them, or the connection,
 * afterwards.
 */
static void gb_rdma_slot_put(struct gb_rdma_listener *lis,
			     struct gb_rdma_dev *dev, bool refused)
{
	bool free_lis;

	mutex_lock(&gb_rdma_lock);
	lis->nconns--;
	dev->nconns--;
	gb_rdma_nconns--;
	if (refused) {
		lis->refused++;
		gb_rdma_rejects++;
	}
	free_lis = gb_rdma_lis_unused(lis);
	mutex_unlock(&gb_rdma_lock);
	wake_up_all(&gb_rdma_waitq);
	if (free_lis)
		gb_rdma_free_state(lis, sizeof(*lis));
}

static void gb_rdma_conn_release(struct work_struct *work)
{
	struct gb_rdma_conn *conn = container_of(work, struct gb_rdma_conn,
						 release);
	struct gb_rdma_listener *lis = conn->lis;
	struct gb_rdma_dev *dev = conn->dev;
	struct gb_rdma_tx *tx, *ttmp;
	u32 i;

	/*
	 * CLOSING is set: conn->work no longer posts once this returns, and
	 * instances queued later return at once.
	 */
	cancel_work_sync(&conn->work);
	cancel_delayed_work_sync(&conn->idle);
	rdma_disconnect(conn->cm_id);
	gb_rdma_fault_delay(&gb_rdma_fault_release_ms);
	ib_drain_qp(conn->qp);

	/* Every WR has completed: release what they referenced. */
	spin_lock(&conn->lock);
	list_splice_init(&conn->tx_done, &conn->tx_dead);
	spin_unlock(&conn->lock);
	list_for_each_entry_safe(tx, ttmp, &conn->tx_dead, node) {
		list_del(&tx->node);
		gb_rdma_tx_release(conn, tx);
	}
	for (i = 0; i < conn->nwin; i++)
		if (conn->win[i].busy)
			gb_rdma_win_release(conn, &conn->win[i]);
	if (conn->rd_live)
		gb_rdma_rw_release(conn, &conn->rd_ctx, conn->rd_sgl,
				   conn->rd_nents, DMA_FROM_DEVICE,
				   !conn->rd_bounce);
	conn->rd_live = false;
	if (conn->cur.obj)
		gb_obj_put(conn->cur.obj);
	if (conn->cur.sobj) {	/* a SET cut short: READ failed, peer gone */
		gb_obj_put(conn->cur.sobj);
		gb_rdma_set_failed(conn);
	}
	conn->cur.obj = NULL;
	conn->cur.sobj = NULL;

	rdma_destroy_qp(conn->cm_id);	/* no QP event after this */
	ib_free_cq(conn->cq);
	if (READ_ONCE(conn->qp_event)) {
		gb_rdma_count(conn, GB_RDMA_E_RDMA);
		pr_warn_ratelimited("conn %llu: %s (%s), closing\n", conn->id,
				    gb_rdma_err_names[GB_RDMA_E_RDMA],
				    ib_event_msg(conn->qp_event - 1));
	}
	rdma_destroy_id(conn->cm_id);
	/*
	 * No completion or cm handler can kick conn->work or arm conn->idle
	 * any more (the connect handler may have run until now).
	 */
	cancel_work_sync(&conn->work);
	cancel_delayed_work_sync(&conn->idle);

	mutex_lock(&gb_rdma_lock);
	list_del(&conn->node);
	gb_rdma_stats_add(&gb_rdma_closed, &conn->st, conn->errors);
	mutex_unlock(&gb_rdma_lock);
	gb_event_conn(GB_LISTENER_RDMA, lis->id, conn->id,
		      &conn->cm_id_peer, false);
	pr_debug("conn %llu closed\n", conn->id);
	gb_rdma_conn_free_mem(conn);	/* unmaps from dev->ibdev */
	gb_rdma_slot_put(lis, dev, false);
	gb_rdma_fault_delay(&gb_rdma_fault_late_ms);
}

/* The device's CQ size limit (or the fault knob's, if lower). */
static u32 gb_rdma_max_cqe(struct ib_device *ibdev)
{
	u32 knob = READ_ONCE(gb_rdma_fault_max_cqe);
	u32 max = ibdev->attrs.max_cqe;

	return knob ? min(knob, max) : max;
}

/**
 * gb_rdma_dev_get() - the device state of a connect request; lock held
 * @ibdev: the request's device
 *
 * The state exists from our ib_client's .add to its .remove, and only
 * then: rdma_cm can still deliver connect requests for a device whose
 * .remove has run (wildcard listeners, the rebind), and creating state
 * (a PD) for them would leak it. The PD is allocated on first use.
 *
 * Return: the state, or ERR_PTR(-ENODEV) (no state or going away) or the
 * error of ib_alloc_pd().
 */
static struct gb_rdma_dev *gb_rdma_dev_get(struct ib_device *ibdev)
{
	struct gb_rdma_dev *dev;
	struct ib_pd *pd;

	list_for_each_entry(dev, &gb_rdma_devs, node) {
		if (dev->ibdev != ibdev)
			continue;
		if (dev->dead)
			return ERR_PTR(-ENODEV);
		if (dev->pd)
			return dev;
		pd = ib_alloc_pd(ibdev, 0);
		if (IS_ERR(pd))
			return ERR_CAST(pd);
		dev->pd = pd;
		pr_info("using device %s\n", dev_name(&ibdev->dev));
		gb_event_device(dev_name(&ibdev->dev), true);
		return dev;
	}
	return ERR_PTR(-ENODEV);
}

static bool gb_rdma_same_host(const struct sockaddr_storage *a,
			      const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	switch (a->ss_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
				       &((const struct sockaddr_in6 *)b)->sin6_addr);
	case AF_IB:
		return !memcmp(&((const struct sockaddr_ib *)a)->sib_addr,
			       &((const struct sockaddr_ib *)b)->sib_addr,
			       sizeof(struct ib_addr));
	default:
		return false;
	}
}

/* Listed connections of @lis from @peer's address; gb_rdma_lock held. */
static u32 gb_rdma_peer_conns(const struct gb_rdma_listener *lis,
			      const struct sockaddr_storage *peer)
{
	const struct gb_rdma_conn *conn;
	u32 n = 0;

	lockdep_assert_held(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node)
		if (conn->lis == lis && gb_rdma_same_host(&conn->cm_id_peer, peer))
			n++;
	return n;
}

static u32 gb_rdma_get_max_conns(void)
{
	return READ_ONCE(gb_rdma_max_conns);
}

static void gb_rdma_set_max_conns(u32 max)
{
	WRITE_ONCE(gb_rdma_max_conns, max);
}

static void gb_rdma_reject(struct rdma_cm_id *id, u32 reason, u32 detail)
{
	struct gb_rdma_reject rej = {
		.magic = cpu_to_le32(GB_RDMA_MAGIC),
		.reason = cpu_to_le16(reason),
		.version_min = GB_RDMA_VERSION,
		.version_max = GB_RDMA_VERSION,
		.detail = cpu_to_le32(detail),
	};

	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
}

/* Allocate buffers and window slots; size the queues from device limits. */
static int gb_rdma_conn_alloc(struct gb_rdma_conn *conn, u32 windows)
{
	struct ib_device *ibdev = conn->dev->ibdev;
	const struct ib_device_attr *a = &ibdev->attrs;
	u32 i, rq;

	conn->max_sge = clamp_t(int, a->max_send_sge, 1, GB_RDMA_SGE_MAX);
	conn->chunk_max = min(conn->geom.window_size, conn->lis->cfg.window);
	conn->spw = DIV_ROUND_UP(conn->chunk_max, PAGE_SIZE) + 1;
	conn->grant = min_t(u32, conn->lis->cfg.credits, GB_RDMA_GRANT_MAX);
	conn->nrx = conn->grant + GB_RDMA_RX_SLACK;
	conn->ntx = min_t(u32, conn->geom.credits, GB_RDMA_TX_MAX);
	conn->nwin = min_t(u32, windows, conn->geom.window_count);
	rq = conn->nrx + 1;
	if (rq > a->max_qp_wr || conn->ntx + 2 > a->max_qp_wr)
		return -EINVAL;

	conn->rxbuf = kzalloc(conn->nrx * GB_RDMA_RECORD_SIZE, GFP_KERNEL);
	conn->txbuf = kzalloc(conn->ntx * GB_RDMA_RECORD_SIZE, GFP_KERNEL);
	conn->rx = kcalloc(conn->nrx, sizeof(*conn->rx), GFP_KERNEL);
	conn->tx = kcalloc(conn->ntx, sizeof(*conn->tx), GFP_KERNEL);
	conn->win = kcalloc(conn->nwin, sizeof(*conn->win), GFP_KERNEL);
	if (!conn->rxbuf || !conn->txbuf || !conn->rx || !conn->tx ||
	    !conn->win)
		return -ENOMEM;
	for (i = 0; i < conn->nwin; i++) {
		conn->win[i].sgl = kvcalloc(conn->spw, sizeof(*conn->win[i].sgl),
					    GFP_KERNEL);
		if (!conn->win[i].sgl)
			return -ENOMEM;
		conn->nwin_alloc = i + 1;
	}
	conn->rxdma = ib_dma_map_single(ibdev, conn->rxbuf,
					conn->nrx * GB_RDMA_RECORD_SIZE,
					DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, conn->rxdma)) {
		conn->rxdma = 0;
		return -ENOMEM;
	}
	conn->txdma = ib_dma_map_single(ibdev, conn->txbuf,
					conn->ntx * GB_RDMA_RECORD_SIZE,
					DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, conn->txdma)) {
		conn->txdma = 0;
		return -ENOMEM;
	}
	for (i = 0; i < conn->nrx; i++) {
		struct gb_rdma_rx *rx = &conn->rx[i];

		rx->conn = conn;
		rx->idx = i;
		rx->cqe.done = gb_rdma_recv_done;
		rx->sge.addr = conn->rxdma + i * GB_RDMA_RECORD_SIZE;
		rx->sge.length = GB_RDMA_RECORD_SIZE;
		rx->sge.lkey = conn->dev->pd->local_dma_lkey;
		rx->wr.wr_cqe = &rx->cqe;
		rx->wr.sg_list = &rx->sge;
		rx->wr.num_sge = 1;
	}
	for (i = 0; i < conn->ntx; i++) {
		struct gb_rdma_tx *tx = &conn->tx[i];

		tx->conn = conn;
		tx->idx = i;
		tx->win = -1;
		tx->cqe.done = gb_rdma_send_done;
		tx->sge.addr = conn->txdma + i * GB_RDMA_RECORD_SIZE;
		tx->sge.length = GB_RDMA_RECORD_SIZE;
		tx->sge.lkey = conn->dev->pd->local_dma_lkey;
		tx->wr.wr_cqe = &tx->cqe;
		tx->wr.opcode = IB_WR_SEND;
		tx->wr.send_flags = IB_SEND_SIGNALED;
		tx->wr.sg_list = &tx->sge;
		tx->wr.num_sge = 1;
		list_add_tail(&tx->node, &conn->tx_free);
	}
	return 0;
}

/*
 * rw contexts one transfer of @pages page-list entries needs: MRs if the
 * device registers (rdma_rw_mr_factor()), else R/W WRs of @sge sges each.
 */
static u32 gb_rdma_rw_ctxs(struct gb_rdma_conn *conn, u32 pages, u32 sge)
{
	return max(rdma_rw_mr_factor(conn->dev->ibdev, conn->port, pages),
		   DIV_ROUND_UP(pages, sge));
}

/* The largest sge count up to @max that one MR maps on this QP. */
static u32 gb_rdma_one_mr_sges(struct gb_rdma_conn *conn, u32 max)
{
	u32 lo = 1, hi = max, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (rdma_rw_mr_factor(conn->dev->ibdev, conn->port, mid) <= 1)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * rxe with MRs: post registering chains on an idle send queue only, and
 * make every chunk and every SET READ fit one MR (see the top comment).
 */
static void gb_rdma_quirks(struct gb_rdma_conn *conn)
{
	conn->chunk_sges = conn->spw;
	conn->rd_sges = GB_RDMA_RD_SGES;
	conn->mr_quiesce = conn->use_mr &&
			   conn->dev->ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	if (conn->mr_quiesce) {
		conn->chunk_sges = gb_rdma_one_mr_sges(conn, conn->spw);
		conn->rd_sges = gb_rdma_one_mr_sges(conn, GB_RDMA_RD_SGES);
		/*
		 * 6.1's rxe_mr_copy() reads one pointer past an MR's page
		 * map array when a copy touches the map's last page slot
		 * (256 pages per map; rdma_rw's MRs map 256): a registration
		 * one page short never has a page there.
		 */
		conn->chunk_sges = min(conn->chunk_sges, GB_RDMA_RXE_MAP_PAGES - 1);
		conn->rd_sges = min(conn->rd_sges, GB_RDMA_RXE_MAP_PAGES - 1);
	}
	/* one sge is kept for a piece that does not start on a page */
	conn->rd_max = min_t(u32, GB_RDMA_READ_MAX,
			     (conn->rd_sges - 1) * PAGE_SIZE);
	if (!conn->rd_max)
		conn->rd_max = PAGE_SIZE;
}

/**
 * gb_rdma_conn_qp() - create CQ and QP, read back the caps, post receives
 * @conn: connection with buffers allocated
 *
 * The QP is created for the generic R/W API (cap.max_rdma_ctxs, see "Work
 * request and MR accounting" in the top comment). If the device caps the
 * send queue below what all windows need, fewer windows are used.
 *
 * Return: 0 or a negative errno.
 */
static int gb_rdma_conn_qp(struct gb_rdma_conn *conn)
{
	struct ib_device *ibdev = conn->dev->ibdev;
	struct ib_qp_init_attr qa = {}, got = {};
	u32 rsge = min_t(u32, conn->max_sge, ibdev->attrs.max_sge_rd);
	u32 base = conn->ntx + 2, rq = conn->nrx + 1, ncqe, ctxs, f, sq, i;
	u32 vec;
	struct ib_qp_attr attr;
	int ret;

	conn->port = conn->cm_id->port_num;
	conn->cpw = gb_rdma_rw_ctxs(conn, conn->spw, conn->max_sge);
	conn->crd = gb_rdma_rw_ctxs(conn, GB_RDMA_RD_SGES, max(rsge, 1U));
	ctxs = conn->nwin * conn->cpw + conn->crd;

	/* a flushed QP completes every WR, signaled or not */
	ncqe = min_t(u32, base + 3 * ctxs + rq + 2, gb_rdma_max_cqe(ibdev));
	/* conn->id is not assigned yet: spread CQs with a counter of our own */
	vec = (u32)atomic_inc_return(&gb_rdma_next_vector) %
	      max_t(u32, ibdev->num_comp_vectors, 1);
	conn->cq = ib_alloc_cq(ibdev, conn, ncqe, vec, IB_POLL_WORKQUEUE);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}
	qa.event_handler = gb_rdma_qp_event;
	qa.qp_context = conn;
	qa.send_cq = conn->cq;
	qa.recv_cq = conn->cq;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.qp_type = IB_QPT_RC;
	qa.port_num = conn->port;
	qa.cap.max_send_wr = base;
	qa.cap.max_recv_wr = rq;
	qa.cap.max_send_sge = conn->max_sge;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_rdma_ctxs = ctxs;
	ret = rdma_create_qp(conn->cm_id, conn->dev->pd, &qa);
	if (ret)
		goto free_cq;
	conn->qp = conn->cm_id->qp;
	conn->ncqe = conn->cq->cqe;

	ret = ib_query_qp(conn->qp, &attr, IB_QP_CAP, &got);
	if (ret)
		goto destroy_qp;
	ret = -EINVAL;
	if (attr.cap.max_recv_wr < rq || conn->qp->max_write_sge < conn->max_sge)
		goto destroy_qp;
	/* the MR pool exists iff the rw API registers memory on this QP */
	conn->use_mr = !list_empty(&conn->qp->rdma_mrs);
	f = conn->use_mr ? 3 : 1;	/* invalidate + register + R/W */
	conn->wpw = f * conn->cpw;
	conn->wrd = f * conn->crd;
	/*
	 * A flush completes every posted WR, signaled or not, so the CQ must
	 * hold them all: at most sq (sq_avail + the drain) sends and rq
	 * receives. If max_cqe clamped the CQ, use fewer send queue slots,
	 * and so fewer windows, or refuse.
	 */
	if (conn->cq->cqe <= (int)rq)
		goto destroy_qp;
	sq = min_t(u32, attr.cap.max_send_wr, conn->cq->cqe - rq);
	if (sq < base + conn->wrd + conn->wpw)
		goto destroy_qp;
	if (sq < base + conn->wrd + conn->nwin * conn->wpw)
		conn->nwin = (sq - base - conn->wrd) / conn->wpw;
	conn->sq_avail = sq - 1;	/* one slot for ib_drain_qp() */
	conn->sq_size = conn->sq_avail;
	gb_rdma_quirks(conn);

	for (i = 0; i < conn->nrx; i++) {
		ret = gb_rdma_post_recv(conn, &conn->rx[i]);
		if (ret)
			goto destroy_qp;
	}
	return 0;

destroy_qp:
	rdma_destroy_qp(conn->cm_id);
	conn->qp = NULL;
free_cq:
	ib_free_cq(conn->cq);
	conn->cq = NULL;
	return ret;
}

/**
 * gb_rdma_connect_request() - handle RDMA_CM_EVENT_CONNECT_REQUEST
 * @id:  the new connection's cm_id (context: the listener)
 * @ev:  the event, with the client's private data
 *
 * Return: 0 if the connection was accepted (or its teardown queued), 1 to
 * have rdma_cm destroy @id after a reject.
 */
static int gb_rdma_connect_request(struct rdma_cm_id *id,
				   struct rdma_cm_event *ev)
{
	struct gb_rdma_listener *lis = id->context;
	const struct sockaddr_storage *peer;
	struct gb_rdma_accept acc = {};
	struct rdma_conn_param cp = {};
	struct gb_rdma_geom geom;
	struct gb_rdma_conn *conn;
	struct gb_rdma_dev *dev;
	u32 reason, detail = 0;
	int ret;

	reason = gb_rdma_connect_parse(ev->param.conn.private_data,
				       ev->param.conn.private_data_len, &geom);
	if (reason)
		goto reject_count;
	/* our view (see the accept below): READs we may issue to the client */
	if (!ev->param.conn.initiator_depth) {
		reason = GB_RDMA_REJ_READ;
		goto reject_count;
	}
	if (!id->device->attrs.max_qp_init_rd_atom) {
		reason = GB_RDMA_REJ_DEVICE;
		goto reject_count;
	}

	peer = (const struct sockaddr_storage *)&id->route.addr.dst_addr;
	mutex_lock(&gb_rdma_lock);
	if (lis->dying) {
		reason = GB_RDMA_REJ_SHUTDOWN;
	} else if (gb_rdma_nconns >= READ_ONCE(gb_rdma_max_conns)) {
		reason = GB_RDMA_REJ_BUSY;
		detail = READ_ONCE(gb_rdma_max_conns);
	} else if (lis->nconns >= lis->cfg.max_conns) {
		reason = GB_RDMA_REJ_BUSY;
		detail = lis->cfg.max_conns;
	} else if (gb_rdma_peer_conns(lis, peer) >= lis->cfg.max_peer_conns) {
		reason = GB_RDMA_REJ_BUSY;
		detail = lis->cfg.max_peer_conns;
	} else {
		dev = gb_rdma_dev_get(id->device);
		if (IS_ERR(dev)) {
			reason = PTR_ERR(dev) == -ENODEV ? GB_RDMA_REJ_SHUTDOWN
							 : GB_RDMA_REJ_NOMEM;
		} else {
			lis->nconns++;
			dev->nconns++;
			gb_rdma_nconns++;
		}
	}
	mutex_unlock(&gb_rdma_lock);
	if (reason)
		goto reject_count;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn) {
		gb_rdma_reject(id, GB_RDMA_REJ_NOMEM, 0);
		gb_rdma_slot_put(lis, dev, true);
		return 1;
	}
	conn->kind = GB_KIND_CONN;
	/* QP events and flush completions must not queue conn->release yet */
	conn->flags = BIT(GB_CONN_SETUP);
	conn->lis = lis;
	conn->dev = dev;
	conn->cm_id = id;
	memcpy(&conn->cm_id_peer, &id->route.addr.dst_addr,
	       sizeof(conn->cm_id_peer));
	conn->geom = geom;
	spin_lock_init(&conn->lock);
	INIT_LIST_HEAD(&conn->rxq);
	INIT_LIST_HEAD(&conn->tx_done);
	INIT_LIST_HEAD(&conn->pending);
	INIT_LIST_HEAD(&conn->tx_free);
	INIT_LIST_HEAD(&conn->tx_dead);
	INIT_WORK(&conn->work, gb_rdma_work);
	INIT_WORK(&conn->release, gb_rdma_conn_release);
	INIT_DELAYED_WORK(&conn->idle, gb_rdma_idle_work);
	conn->rw_cqe.done = gb_rdma_rw_done;
	conn->read_cqe.done = gb_rdma_read_done;

	ret = gb_rdma_conn_alloc(conn, lis->cfg.windows);
	if (ret) {
		reason = ret == -ENOMEM ? GB_RDMA_REJ_NOMEM : GB_RDMA_REJ_DEVICE;
		goto reject_free;
	}
	ret = gb_rdma_conn_qp(conn);
	if (ret) {
		reason = ret == -ENOMEM ? GB_RDMA_REJ_NOMEM : GB_RDMA_REJ_DEVICE;
		goto reject_free;
	}
	conn->client_avail = conn->grant;
	conn->peer_credits = conn->geom.credits;

	gb_rdma_fault_delay(&gb_rdma_fault_setup_ms);
	mutex_lock(&gb_rdma_lock);
	/*
	 * Connect handlers of one listening id are serialized, but those of
	 * a wildcard listener's per-device ids are not: count the peer's
	 * connections again now that ours is about to be listed.
	 */
	if (lis->dying || dev->dead ||
	    gb_rdma_peer_conns(lis, &conn->cm_id_peer) >=
	    lis->cfg.max_peer_conns) {
		if (lis->dying || dev->dead) {
			reason = GB_RDMA_REJ_SHUTDOWN;
		} else {
			reason = GB_RDMA_REJ_BUSY;
			detail = lis->cfg.max_peer_conns;
		}
		mutex_unlock(&gb_rdma_lock);
		rdma_destroy_qp(id);
		ib_free_cq(conn->cq);
		goto reject_free;
	}
	conn->id = ++gb_rdma_next_conn_id;
	lis->conns_total++;
	list_add_tail(&conn->node, &gb_rdma_conns);
	mutex_unlock(&gb_rdma_lock);
	id->context = conn;

	acc.magic = cpu_to_le32(GB_RDMA_MAGIC);
	acc.version = cpu_to_le16(GB_RDMA_VERSION);
	acc.credits = cpu_to_le16(conn->grant);
	acc.windows = cpu_to_le16(conn->nwin);
	acc.window_size = cpu_to_le32(conn->geom.window_size);
	acc.max_keys = cpu_to_le16(GB_RDMA_GET_MAX_KEYS);
	acc.record_size = cpu_to_le16(GB_RDMA_RECORD_SIZE);
	acc.max_value = cpu_to_le64(GB_VALUE_MAX);
	acc.conn_id = cpu_to_le64(conn->id);
	cp.private_data = &acc;
	cp.private_data_len = sizeof(acc);
	/*
	 * ib_cm and iw_cm present the REQ from our side already:
	 * initiator_depth is how many RDMA READs we may have outstanding at
	 * the client (its responder_resources), responder_resources how
	 * many of its READs we serve (its initiator_depth). No swap here.
	 */
	cp.responder_resources = min_t(u32, ev->param.conn.responder_resources,
				       id->device->attrs.max_qp_rd_atom);
	cp.initiator_depth = min_t(u32, ev->param.conn.initiator_depth,
				   id->device->attrs.max_qp_init_rd_atom);
	cp.rnr_retry_count = 7;
	conn->last_req = jiffies;
	conn->last_progress = jiffies;
	conn->last_cqe = jiffies;
	/*
	 * Arm the idle timer before the connection can close: once accepted
	 * it may (a bad first record), and conn->release cancels the timer
	 * again after rdma_destroy_id(), which waits for this handler.
	 */
	queue_delayed_work(gb_rdma_wq, &conn->idle, gb_rdma_stall_limit(conn));
	/*
	 * The connection is listed, so device removal, listener delete and
	 * unload close it and wait for its slot; but it stays in setup until
	 * rdma_accept() has returned: a close meanwhile is only recorded,
	 * and conn->release (QP drain and destroy, CQ free, unmapping, the
	 * slot that lets gb_rdma_remove_one() free the PD and device state)
	 * runs after rdma_accept() is done with the QP and the device.
	 */
	gb_rdma_fault_delay(&gb_rdma_fault_pre_accept_ms);
	ret = rdma_accept(id, &cp);
	gb_rdma_fault_delay(&gb_rdma_fault_accept_ms);
	if (ret) {
		pr_warn_ratelimited("accept failed: %d\n", ret);
		gb_rdma_conn_close(conn);	/* recorded, done just below */
	} else {
		gb_event_conn(GB_LISTENER_RDMA, lis->id, conn->id,
			      &conn->cm_id_peer, true);
	}
	gb_rdma_conn_setup_done(conn);
	return 0;

reject_free:
	gb_rdma_conn_free_mem(conn);	/* unmaps from dev->ibdev */
	gb_rdma_reject(id, reason, detail);
	gb_rdma_slot_put(lis, dev, true);
	gb_rdma_fault_delay(&gb_rdma_fault_late_ms);
	return 1;

reject_count:
	mutex_lock(&gb_rdma_lock);
	lis->refused++;
	gb_rdma_rejects++;
	mutex_unlock(&gb_rdma_lock);
	pr_info_ratelimited("rejected connection: %s\n",
			    gb_rdma_reject_str(reason));
	gb_rdma_reject(id, reason, detail);
	return 1;
}

static void gb_rdma_listen_rebind(struct gb_rdma_listener *lis);

/* Listener lost its device: forget the id (rdma_cm destroys it) and retry. */
static int gb_rdma_listener_event(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct gb_rdma_listener *lis = id->context;
	int ret = 0;

	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL &&
	    ev->event != RDMA_CM_EVENT_ADDR_CHANGE)
		return 0;
	mutex_lock(&gb_rdma_lock);
	if (lis->cm_id == id && ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		lis->cm_id = NULL;
		ret = 1;
		if (!lis->dying)
			gb_rdma_listen_rebind(lis);
	}
	mutex_unlock(&gb_rdma_lock);
	return ret;
}

static int gb_rdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum gb_rdma_kind *kind = id->context;
	struct gb_rdma_conn *conn;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return gb_rdma_connect_request(id, ev);
	if (*kind == GB_KIND_LISTENER)
		return gb_rdma_listener_event(id, ev);

	conn = id->context;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		pr_debug("conn %llu established\n", conn->id);
		gb_rdma_kick(conn);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		gb_rdma_conn_close(conn);
		break;
	default:
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* listeners */

static struct rdma_cm_id *gb_rdma_listen(struct gb_rdma_listener *lis)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, gb_rdma_cm_handler, lis, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	if (lis->cfg.addr.ss_family == AF_INET6) {
		ret = rdma_set_afonly(id, 1);
		if (ret)
			goto err;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)&lis->cfg.addr);
	if (ret)
		goto err;
	ret = rdma_listen(id, GB_RDMA_BACKLOG);
	if (ret)
		goto err;
	return id;
err:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

static void gb_rdma_listen_rebind(struct gb_rdma_listener *lis)
{
	queue_delayed_work(gb_rdma_wq, &lis->rebind,
			   msecs_to_jiffies(GB_RDMA_REBIND_MS));
}

static void gb_rdma_rebind_work(struct work_struct *work)
{
	struct gb_rdma_listener *lis = container_of(to_delayed_work(work),
						    struct gb_rdma_listener,
						    rebind);
	struct rdma_cm_id *id = gb_rdma_listen(lis);

	mutex_lock(&gb_rdma_lock);
	if (lis->dying || lis->cm_id) {
		mutex_unlock(&gb_rdma_lock);
		if (!IS_ERR(id))
			rdma_destroy_id(id);
		return;
	}
	if (IS_ERR(id)) {
		gb_rdma_listen_rebind(lis);
	} else {
		lis->cm_id = id;
		pr_info("listener %u: listening on %pISpc\n", lis->id,
			&lis->cfg.addr);
	}
	mutex_unlock(&gb_rdma_lock);
}

static int gb_rdma_check_cfg(struct gb_listener_config *c,
			     struct netlink_ext_ack *extack)
{
	if (c->addr.ss_family != AF_INET && c->addr.ss_family != AF_INET6) {
		NL_SET_ERR_MSG(extack, "RDMA listener needs an IPv4 or IPv6 address");
		return -EAFNOSUPPORT;
	}
	if (!c->window)
		c->window = GB_RDMA_DEF_WINDOW;
	if (!c->windows)
		c->windows = GB_RDMA_DEF_WINDOWS;
	if (!c->credits)
		c->credits = GB_RDMA_DEF_CREDITS;
	if (!c->max_conns)
		c->max_conns = GB_RDMA_DEF_MAX_CONNS;
	if (!c->max_peer_conns)
		c->max_peer_conns = GB_RDMA_DEF_PEER_CONNS;
	/*
	 * An RDMA connection holds a QP, rings and possibly windows of
	 * pinned pages, and a peer that vanished holding nothing is only
	 * noticed by this timeout: there is no "never" (604800 s is the max).
	 */
	if (!c->idle_timeout)
		c->idle_timeout = GB_RDMA_DEF_IDLE;
	if (c->window < GB_RDMA_WINDOW_MIN || c->window > GB_RDMA_WINDOW_MAX ||
	    c->window % 4096) {
		NL_SET_ERR_MSG(extack,
			       "RDMA window must be a multiple of 4 KiB in [4 KiB, 16 MiB]");
		return -EINVAL;
	}
	if (c->windows > GB_RDMA_MAX_WINDOWS) {
		NL_SET_ERR_MSG(extack, "at most 64 RDMA windows");
		return -EINVAL;
	}
	if (c->credits < GB_RDMA_CREDITS_MIN || c->credits > GB_RDMA_GRANT_MAX) {
		NL_SET_ERR_MSG(extack, "RDMA credits must be in [4, 128]");
		return -EINVAL;
	}
	return 0;
}

static int gb_rdma_lis_add(const struct gb_listener_config *cfg,
			   struct netlink_ext_ack *extack)
{
	struct gb_rdma_listener *lis, *l;
	struct rdma_cm_id *id;
	int ret;

	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return -ENOMEM;
	lis->kind = GB_KIND_LISTENER;
	lis->cfg = *cfg;
	lis->cfg.kind = GB_LISTENER_RDMA;
	INIT_DELAYED_WORK(&lis->rebind, gb_rdma_rebind_work);
	ret = gb_rdma_check_cfg(&lis->cfg, extack);
	if (ret)
		goto free;

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(l, &gb_rdma_listeners, node) {
		if (gb_listener_addr_equal(&l->cfg.addr, &lis->cfg.addr)) {
			mutex_unlock(&gb_rdma_lock);
			NL_SET_ERR_MSG(extack, "RDMA listener exists on that address");
			ret = -EEXIST;
			goto free;
		}
	}
	lis->id = ++gb_rdma_next_lis_id;
	list_add_tail(&lis->node, &gb_rdma_listeners);
	mutex_unlock(&gb_rdma_lock);

	id = gb_rdma_listen(lis);
	mutex_lock(&gb_rdma_lock);
	if (IS_ERR(id)) {
		list_del(&lis->node);
		mutex_unlock(&gb_rdma_lock);
		ret = PTR_ERR(id);
		NL_SET_ERR_MSG(extack,
			       "cannot bind RDMA listener (no RDMA device on that address?)");
		goto free;
	}
	lis->cm_id = id;
	mutex_unlock(&gb_rdma_lock);
	pr_info("listener %u: listening on %pISpc\n", lis->id, &lis->cfg.addr);
	gb_event_listener(GB_LISTENER_RDMA, lis->id, &lis->cfg.addr, true);
	return 0;
free:
	kfree(lis);
	return ret;
}

/**
 * gb_rdma_lis_stop() - stop a listener (already unlinked and marked dying)
 * @lis: the listener
 *
 * Destroys the listening cm_id, which waits for connect handlers running
 * on it, so no connection can be added to @lis afterwards; then closes its
 * connections without waiting for them (listener delete runs under
 * genl_mutex). @lis is freed here if nothing refers to it any more, else
 * by the release of its last connection (gb_rdma_slot_put()) or by a
 * device removal done destroying its cm_id (gb_rdma_lis_unhold()).
 */
static void gb_rdma_lis_stop(struct gb_rdma_listener *lis)
{
	struct rdma_cm_id *id;
	struct gb_rdma_conn *conn;
	bool free_lis;

	cancel_delayed_work_sync(&lis->rebind);
	mutex_lock(&gb_rdma_lock);
	id = lis->cm_id;
	lis->cm_id = NULL;
	mutex_unlock(&gb_rdma_lock);
	if (id)
		rdma_destroy_id(id);
	pr_info("listener %u: stopped\n", lis->id);
	gb_event_listener(GB_LISTENER_RDMA, lis->id, &lis->cfg.addr, false);

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node)
		if (conn->lis == lis)
			gb_rdma_conn_close(conn);
	lis->stopped = true;
	free_lis = gb_rdma_lis_unused(lis);
	mutex_unlock(&gb_rdma_lock);
	if (free_lis)
		gb_rdma_free_state(lis, sizeof(*lis));
}

static int gb_rdma_lis_del(const struct sockaddr_storage *addr,
			   struct netlink_ext_ack *extack)
{
	struct gb_rdma_listener *lis, *found = NULL;

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(lis, &gb_rdma_listeners, node) {
		if (gb_listener_addr_equal(&lis->cfg.addr, addr)) {
			found = lis;
			break;
		}
	}
	if (found) {
		found->dying = true;
		list_del(&found->node);
	}
	mutex_unlock(&gb_rdma_lock);
	if (!found) {
		NL_SET_ERR_MSG(extack, "no RDMA listener on that address");
		return -ENOENT;
	}
	gb_rdma_lis_stop(found);
	return 0;
}

static int gb_rdma_lis_walk(u32 *cursor,
			    int (*fn)(const struct gb_listener_info *info,
				      void *arg),
			    void *arg)
{
	struct gb_listener_info info;
	struct gb_rdma_listener *lis;
	int ret = 0;

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(lis, &gb_rdma_listeners, node) {
		if (lis->id <= *cursor)
			continue;
		memset(&info, 0, sizeof(info));
		info.cfg = lis->cfg;
		info.id = lis->id;
		info.conns = lis->nconns;
		info.conns_total = lis->conns_total;
		info.refused = lis->refused;
		ret = fn(&info, arg);
		if (ret)
			break;
		*cursor = lis->id;
	}
	mutex_unlock(&gb_rdma_lock);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* statistics for netlink */

/* Adapter for the generic connection dump (kmod/registry.h). */
/*
 * Counters of a live connection are written by conn->work without a lock;
 * netlink reads them as a monitoring snapshot. The races are intended:
 * an aligned 64-bit load does not tear on the 64-bit kernels we build for.
 */
static u64 gb_rdma_peek(const u64 *counter)
{
	return data_race(*counter); /* see above: snapshot, may be stale */
}

static u32 gb_rdma_peek32(const u32 *counter)
{
	return data_race(*counter); /* see above: snapshot, may be stale */
}

static int gb_rdma_nl_walk(u64 *cursor, gb_conn_visit_fn fn, void *arg)
{
	struct gb_rdma_conn *conn;
	struct gb_conn_info *info;
	int ret = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node) {
		if (conn->id <= *cursor)
			continue;
		memset(info, 0, sizeof(*info));
		info->kind = GB_LISTENER_RDMA;
		info->listener_id = conn->lis->id;
		info->id = conn->id;
		info->peer = conn->cm_id_peer;
		info->rx_bytes = gb_rdma_peek(&conn->st.records_in) *
				 GB_RDMA_RECORD_SIZE +
				 gb_rdma_peek(&conn->st.bytes_read);
		info->tx_bytes = gb_rdma_peek(&conn->st.records_out) *
				 GB_RDMA_RECORD_SIZE +
				 gb_rdma_peek(&conn->st.bytes_written);
		info->cmds = gb_rdma_peek(&conn->st.requests);
		info->idle = (jiffies - READ_ONCE(conn->last_req)) / HZ;
		strscpy(info->device, dev_name(&conn->dev->ibdev->dev),
			sizeof(info->device));
		info->rdma = true;
		info->hits = gb_rdma_peek(&conn->st.hits);
		info->misses = gb_rdma_peek(&conn->st.misses);
		info->bytes_written = gb_rdma_peek(&conn->st.bytes_written);
		info->bytes_read = gb_rdma_peek(&conn->st.bytes_read);
		info->windows_in_flight = gb_rdma_peek32(&conn->win_client);
		spin_lock(&conn->lock);
		memcpy(info->errors, conn->errors, sizeof(info->errors));
		spin_unlock(&conn->lock);
		ret = fn(info, arg);
		if (ret)
			break;
		*cursor = conn->id;
	}
	mutex_unlock(&gb_rdma_lock);
	kfree(info);
	return ret;
}

void gb_rdma_get_stats(struct gb_rdma_stats *st, u32 *conns)
{
	struct gb_rdma_conn *conn;
	u64 errors[GB_RDMA_E_NR];

	mutex_lock(&gb_rdma_lock);
	*st = gb_rdma_closed;
	st->errors[GB_RDMA_E_REJECT] += gb_rdma_rejects;
	list_for_each_entry(conn, &gb_rdma_conns, node) {
		spin_lock(&conn->lock);
		memcpy(errors, conn->errors, sizeof(errors));
		spin_unlock(&conn->lock);
		gb_rdma_stats_add(st, &conn->st, errors);
		st->windows_in_flight += gb_rdma_peek32(&conn->win_client);
	}
	if (conns)
		*conns = gb_rdma_nconns;
	mutex_unlock(&gb_rdma_lock);
}

/* Adapter from gb_rdma_get_stats() to the registry's totals. */
static void gb_rdma_xport_stats(struct gb_xport_stats *xs)
{
	struct gb_rdma_stats st;

	gb_rdma_get_stats(&st, &xs->conns);
	xs->requests = st.requests;
	xs->hits = st.hits;
	xs->misses = st.misses;
	xs->sets = st.sets;
	xs->bytes_written = st.bytes_written;
	xs->bytes_read = st.bytes_read;
	xs->windows_in_flight = st.windows_in_flight;
	memcpy(xs->errors, st.errors, sizeof(xs->errors));
}

static const struct gb_listener_ops gb_rdma_listener_ops = {
	.add = gb_rdma_lis_add,
	.del = gb_rdma_lis_del,
	.walk = gb_rdma_lis_walk,
	.conn_walk = gb_rdma_nl_walk,
	.stats = gb_rdma_xport_stats,
	.get_max_conns = gb_rdma_get_max_conns,
	.set_max_conns = gb_rdma_set_max_conns,
};

/*
 * /sys/kernel/debug/goblin/rdma: totals and one line per connection, for
 * the functional tests (e.g. proof that rw ctxs registered MRs).
 */
static struct dentry *gb_rdma_dbg;

static int gb_rdma_dbg_show(struct seq_file *m, void *v)
{
	struct gb_rdma_stats *st;
	struct gb_rdma_conn *conn;
	struct gb_rdma_dev *dev;
	u32 conns;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	gb_rdma_get_stats(st, &conns);
	seq_printf(m, "conns %u\nrequests %llu\nrw_ctxs %llu\nrw_mr_ctxs %llu\n",
		   conns, st->requests, st->rw_ctxs, st->rw_mr_ctxs);
	seq_printf(m, "bytes_written %llu\nbytes_read %llu\nbytes_read_direct %llu\n",
		   st->bytes_written, st->bytes_read, st->bytes_read_direct);
	kfree(st);
	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(dev, &gb_rdma_devs, node)
		seq_printf(m, "dev %s pd %d conns %u dead %d\n",
			   dev_name(&dev->ibdev->dev), !!dev->pd, dev->nconns,
			   dev->dead);
	/* sq, rq: most WRs ever outstanding on each queue, drain included */
	list_for_each_entry(conn, &gb_rdma_conns, node)
		seq_printf(m, "conn %llu mr %d quiesce %d windows %u sq_avail %d rw_ctxs %llu rw_mr_ctxs %llu cqe %u sq %d rq %u\n",
			   conn->id, conn->use_mr, conn->mr_quiesce, conn->nwin,
			   READ_ONCE(conn->sq_avail), conn->st.rw_ctxs,
			   conn->st.rw_mr_ctxs, conn->ncqe, conn->sq_size + 1,
			   conn->nrx + 1);
	mutex_unlock(&gb_rdma_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gb_rdma_dbg);

/*
 * rdma-fault/qp_fatal: write a connection id to raise IB_EVENT_QP_FATAL on
 * its QP from timer (softirq) context while process context holds
 * conn->lock with BHs enabled, as siw and bnxt_re can deliver it while a
 * completion handler holds the lock. The write returns once the event
 * was delivered (or -ETIMEDOUT).
 */
struct gb_rdma_inject {
	struct timer_list timer;
	struct gb_rdma_conn *conn;
	bool fired;
};

static void gb_rdma_inject_fire(struct timer_list *t)
{
	struct gb_rdma_inject *inj = from_timer(inj, t, timer);
	struct ib_event ev = {
		.device = inj->conn->dev->ibdev,
		.event = IB_EVENT_QP_FATAL,
	};

	ev.element.qp = inj->conn->qp;
	gb_rdma_qp_event(&ev, inj->conn);
	WRITE_ONCE(inj->fired, true);
}

static ssize_t gb_rdma_fault_qp_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct gb_rdma_inject inj = {};
	struct gb_rdma_conn *conn;
	int ret, i;
	u64 id;

	ret = kstrtou64_from_user(ubuf, len, 0, &id);
	if (ret)
		return ret;
	mutex_lock(&gb_rdma_lock);	/* keeps the connection listed */
	ret = -ENOENT;
	list_for_each_entry(conn, &gb_rdma_conns, node) {
		if (conn->id != id || test_bit(GB_CONN_CLOSING, &conn->flags))
			continue;
		inj.conn = conn;
		timer_setup_on_stack(&inj.timer, gb_rdma_inject_fire, 0);
		spin_lock(&conn->lock);
		inj.timer.expires = jiffies + 1;
		add_timer_on(&inj.timer, smp_processor_id());
		for (i = 0; i < 500 && !READ_ONCE(inj.fired); i++)
			mdelay(1);
		spin_unlock(&conn->lock);
		del_timer_sync(&inj.timer);
		destroy_timer_on_stack(&inj.timer);
		ret = inj.fired ? 0 : -ETIMEDOUT;
		break;
	}
	mutex_unlock(&gb_rdma_lock);
	return ret ? ret : len;
}

static const struct file_operations gb_rdma_fault_qp_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = gb_rdma_fault_qp_write,
};

static struct dentry *gb_rdma_fault_dir;

static void gb_rdma_dbg_init(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL), *f;

	if (IS_ERR_OR_NULL(dir))
		return;
	gb_rdma_dbg = debugfs_create_file("rdma", 0400, dir, NULL,
					  &gb_rdma_dbg_fops);
	debugfs_create_u32("rdma_set_delay_ms", 0600, dir,
			   &gb_rdma_set_delay_ms);
	f = debugfs_create_dir("rdma-fault", dir);
	dput(dir);
	if (IS_ERR(f))
		return;
	gb_rdma_fault_dir = f;
	debugfs_create_u32("release_delay_ms", 0600, f,
			   &gb_rdma_fault_release_ms);
	debugfs_create_u32("late_delay_ms", 0600, f, &gb_rdma_fault_late_ms);
	debugfs_create_u32("setup_delay_ms", 0600, f, &gb_rdma_fault_setup_ms);
	debugfs_create_u32("accept_delay_ms", 0600, f,
			   &gb_rdma_fault_accept_ms);
	debugfs_create_u32("pre_accept_delay_ms", 0600, f,
			   &gb_rdma_fault_pre_accept_ms);
	debugfs_create_u32("remove_delay_ms", 0600, f,
			   &gb_rdma_fault_remove_ms);
	debugfs_create_u32("max_cqe", 0600, f, &gb_rdma_fault_max_cqe);
	debugfs_create_u32("set_nomem", 0600, f, &gb_rdma_fault_set_nomem);
	debugfs_create_bool("poison", 0600, f, &gb_rdma_fault_poison);
	debugfs_create_file("qp_fatal", 0200, f, NULL, &gb_rdma_fault_qp_fops);
}

static void gb_rdma_dbg_exit(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL);

	debugfs_remove(gb_rdma_fault_dir);
	gb_rdma_fault_dir = NULL;
	debugfs_remove(gb_rdma_dbg);
	gb_rdma_dbg = NULL;
	if (IS_ERR_OR_NULL(dir))
		return;
	debugfs_lookup_and_remove("rdma_set_delay_ms", dir);
	dput(dir);
}

/* ---------------------------------------------------------------------- */
/* device removal */

/* ib_client .add: a device appeared (or existed at load); no PD yet. */
static int gb_rdma_add_one(struct ib_device *ibdev)
{
	struct gb_rdma_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	mutex_lock(&gb_rdma_lock);
	list_add_tail(&dev->node, &gb_rdma_devs);
	mutex_unlock(&gb_rdma_lock);
	return 0;
}

/* Drop a hold of gb_rdma_remove_one(); frees a listener stopped meanwhile. */
static void gb_rdma_lis_unhold(struct gb_rdma_listener *lis)
{
	bool free_lis;

	mutex_lock(&gb_rdma_lock);
	lis->holds--;
	free_lis = gb_rdma_lis_unused(lis);
	mutex_unlock(&gb_rdma_lock);
	if (free_lis)
		gb_rdma_free_state(lis, sizeof(*lis));
}

/**
 * gb_rdma_remove_one() - ib_client .remove: a device is going away
 * @ibdev: the device
 * @data:  unused client data
 *
 * Runs before rdma_cm's own removal (clients are removed in LIFO order), so
 * the connections' cm_ids are still valid: close every connection on the
 * device, wait until all are freed, move listeners bound to the device to
 * the rebind retry, then free the PD and the state. Connect requests
 * rdma_cm delivers for the device afterwards find no state and are
 * refused (gb_rdma_dev_get()).
 */
static void gb_rdma_remove_one(struct ib_device *ibdev, void *data)
{
	struct gb_rdma_listener *lis;
	struct gb_rdma_conn *conn;
	struct gb_rdma_dev *dev = NULL, *d;
	struct gb_rdma_listener *lises[8];
	struct rdma_cm_id *ids[8];
	int n, i;

	/*
	 * Listeners bound to an address on this device. Each id destroyed
	 * here waits for its running connect handlers, one after the other,
	 * and until then can still run new ones with the listener as their
	 * context: a hold keeps the listener alive for them even if it is
	 * deleted meanwhile (which no longer sees the id to wait for).
	 */
	do {
		n = 0;
		mutex_lock(&gb_rdma_lock);
		list_for_each_entry(lis, &gb_rdma_listeners, node) {
			if (lis->cm_id && lis->cm_id->device == ibdev &&
			    n < ARRAY_SIZE(ids)) {
				lises[n] = lis;
				ids[n++] = lis->cm_id;
				lis->cm_id = NULL;
				lis->holds++;
				gb_rdma_listen_rebind(lis);
			}
		}
		mutex_unlock(&gb_rdma_lock);
		for (i = 0; i < n; i++) {
			rdma_destroy_id(ids[i]);
			gb_rdma_lis_unhold(lises[i]);
		}
	} while (n == ARRAY_SIZE(ids));

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(d, &gb_rdma_devs, node) {
		if (d->ibdev == ibdev) {
			dev = d;
			break;
		}
	}
	if (!dev) {
		mutex_unlock(&gb_rdma_lock);
		return;
	}
	dev->dead = true;
	list_for_each_entry(conn, &gb_rdma_conns, node)
		if (conn->dev == dev)
			gb_rdma_conn_close(conn);
	mutex_unlock(&gb_rdma_lock);
	wait_event(gb_rdma_waitq, READ_ONCE(dev->nconns) == 0);

	mutex_lock(&gb_rdma_lock);
	list_del(&dev->node);
	mutex_unlock(&gb_rdma_lock);
	if (dev->pd) {
		ib_dealloc_pd(dev->pd);
		pr_info("released device %s\n", dev_name(&ibdev->dev));
		gb_event_device(dev_name(&ibdev->dev), false);
	}
	gb_rdma_free_state(dev, sizeof(*dev));
	gb_rdma_fault_delay(&gb_rdma_fault_remove_ms);
}

static struct ib_client gb_rdma_ib_client = {
	.name = "goblin",
	.add = gb_rdma_add_one,
	.remove = gb_rdma_remove_one,
};

/* ---------------------------------------------------------------------- */
/* init / exit */

static void gb_rdma_param_listener(void)
{
	struct gb_listener_config cfg = { .kind = GB_LISTENER_RDMA };
	struct gb_rdma_listener *lis;
	int ret;

	if (!gb_rdma_param || !*gb_rdma_param)
		return;
	ret = gb_listener_parse_addr(gb_rdma_param, &cfg.addr);
	if (ret) {
		pr_err("bad rdma= parameter \"%s\"\n", gb_rdma_param);
		return;
	}
	ret = gb_rdma_lis_add(&cfg, NULL);
	if (!ret || ret == -EEXIST)
		return;
	/* Device not there yet: keep retrying in the background. */
	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return;
	lis->kind = GB_KIND_LISTENER;
	lis->cfg = cfg;
	INIT_DELAYED_WORK(&lis->rebind, gb_rdma_rebind_work);
	if (gb_rdma_check_cfg(&lis->cfg, NULL)) {
		kfree(lis);
		return;
	}
	pr_warn("cannot listen on %s yet (%d), retrying\n", gb_rdma_param, ret);
	mutex_lock(&gb_rdma_lock);
	lis->id = ++gb_rdma_next_lis_id;
	list_add_tail(&lis->node, &gb_rdma_listeners);
	gb_rdma_listen_rebind(lis);
	mutex_unlock(&gb_rdma_lock);
}

int gb_rdma_init(void)
{
	int ret;

	/*
	 * Not WQ_MEM_RECLAIM: no reclaim waits for this work, and it
	 * allocates with GFP_KERNEL and reads tails through the page cache,
	 * which a rescuer thread could not make progress with anyway.
	 */
	gb_rdma_wq = alloc_workqueue("goblin_rdma", WQ_UNBOUND, 0);
	if (!gb_rdma_wq)
		return -ENOMEM;
	gb_rdma_io_wq = alloc_workqueue("goblin_rdma_io", WQ_HIGHPRI, 0);
	if (!gb_rdma_io_wq) {
		destroy_workqueue(gb_rdma_wq);
		return -ENOMEM;
	}
	ret = ib_register_client(&gb_rdma_ib_client);
	if (ret) {
		destroy_workqueue(gb_rdma_io_wq);
		destroy_workqueue(gb_rdma_wq);
		return ret;
	}
	gb_transport_register(GB_LISTENER_RDMA, &gb_rdma_listener_ops);
	gb_rdma_dbg_init();
	gb_rdma_param_listener();
	return 0;
}

void gb_rdma_exit(void)
{
	struct gb_rdma_listener *lis;
	struct gb_rdma_conn *conn;

	gb_transport_unregister(GB_LISTENER_RDMA);
	gb_rdma_dbg_exit();
	for (;;) {
		mutex_lock(&gb_rdma_lock);
		lis = list_first_entry_or_null(&gb_rdma_listeners,
					       struct gb_rdma_listener, node);
		if (lis) {
			lis->dying = true;
			list_del(&lis->node);
		}
		mutex_unlock(&gb_rdma_lock);
		if (!lis)
			break;
		gb_rdma_lis_stop(lis);
	}
	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node)
		gb_rdma_conn_close(conn);
	mutex_unlock(&gb_rdma_lock);
	wait_event(gb_rdma_waitq, READ_ONCE(gb_rdma_nconns) == 0);
	ib_unregister_client(&gb_rdma_ib_client);
	destroy_workqueue(gb_rdma_io_wq);
	destroy_workqueue(gb_rdma_wq);
	gb_rdma_graves_free();
}
