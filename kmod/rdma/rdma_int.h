/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: native RDMA transport, declarations shared by its files
 * (the C files in kmod/rdma/). Nothing outside kmod/rdma/ includes this
 * header: the rest of the module reaches the transport through its registry
 * entry (kmod/registry.h) and gb_rdma_init()/gb_rdma_exit() (kmod/goblin.h).
 *
 * Locking for callers: gb_rdma_get_stats() and the registry's conn_walk
 * take the RDMA subsystem mutex and may sleep; a walk's @fn is called with
 * that mutex held, so it must not call back into the RDMA transport
 * (listener add/del). Returning non-zero from @fn stops the walk (e.g.
 * -EMSGSIZE when the skb is full); the cursor then points at the
 * connection that was not reported, so the next call resumes with it.
 */
#ifndef _GOBLIN_RDMA_INT_H
#define _GOBLIN_RDMA_INT_H

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
#include <linux/random.h>
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
#include "cpus.h"
#include "listener.h"
#include "events.h"
#include "registry.h"
#include "store.h"
#include "rdma_rec.h"
#include "trace.h"

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
#define GB_RDMA_NODE_REAL	(-2)	/* gb_rdma_fault_dev_node: off */
#define GB_RDMA_OS_SGES		(GB_RDMA_ONESIDED_MAX / PAGE_SIZE + 1)
#define GB_RDMA_LEASE_MS_MAX	60000U	/* rdma_lease_ms setting */
/* lease byte caps: per connection; all connections, store memory >> SHIFT */
#define GB_RDMA_LEASE_CONN_BYTES	(4U << 20)
#define GB_RDMA_LEASE_MEM_SHIFT		3

/**
 * struct gb_rdma_stats - counters of one connection or of all of them
 * @requests:       request records executed (GET/SET/DELETE/TOUCH/NOOP...)
 * @gets:           GET records
 * @keys:           keys looked up by GET
 * @hits:           keys found
 * @misses:         keys not found
 * @sets:           SET records
 * @bytes_written:  value bytes RDMA-written to clients
 * @bytes_read:     value bytes RDMA-read from clients (SET)
 * @chunks:         BULK chunks sent
 * @window_waits:   times a GET waited for a window return
 * @records_in:     records received
 * @records_out:    records sent
 * @rw_ctxs:        RDMA R/W contexts set up (GET chunks and SET READs)
 * @rw_mr_ctxs:     of those, contexts that registered memory (MRs)
 * @bytes_read_direct: SET bytes READ straight into the object's pages
 * @get_sends:      SENDs posted for GET responses (VALUE, BULK, END,
 *                  ERROR; 3.2 folds them)
 * @inline_values:  values sent inline in their VALUE (3.2)
 * @folded:         records that carried another one folded in (3.2:
 *                  VALUE with BULK and/or END, BULK with END)
 * @lookups:        LOOKUP records served (3.3)
 * @leases:         leases granted (HIT descriptors with an MR)
 * @leases_expired: leases ended at their deadline
 * @leases_released: leases ended by the client (GB_RDMA_LOOKUP_RELEASE)
 * @leases_busy_conn: BUSY: the connection's leased bytes would pass
 *                  GB_RDMA_LEASE_CONN_BYTES
 * @leases_busy_global: BUSY: the leased bytes of all connections would pass
 *                  1/8 of the store's memory budget
 * @errors:         error counters, indexed by enum gb_rdma_err
 * @windows_in_flight: gauge, not a counter: bulk windows held by clients
 *                  now (filled, not yet returned), over open connections;
 *                  only gb_rdma_get_stats() sets it
 */
struct gb_rdma_stats {
	u64 requests;
	u64 gets;
	u64 keys;
	u64 hits;
	u64 misses;
	u64 sets;
	u64 bytes_written;
	u64 bytes_read;
	u64 chunks;
	u64 window_waits;
	u64 records_in;
	u64 records_out;
	u64 rw_ctxs;
	u64 rw_mr_ctxs;
	u64 bytes_read_direct;
	u64 get_sends;
	u64 inline_values;
	u64 folded;
	u64 lookups;
	u64 leases;
	u64 leases_expired;
	u64 leases_released;
	u64 leases_busy_conn;
	u64 leases_busy_global;
	u64 errors[GB_RDMA_E_NR];
	u64 windows_in_flight;
};

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
	u8 *buf;		/* its record in conn->rxring (sge.addr: DMA) */
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
	u32 len;		/* bytes to send (512, more for inline) */
	struct gb_obj *obj;	/* reference dropped at completion */
	u64 leases;		/* 3.3: leases registered by this chain */
	bool held;		/* fault lookup_reap_delay_ms: reap deferred */
	unsigned long hold_until;	/* jiffies: ... until then */
	u8 *buf;		/* its record in conn->txring (sge.addr: DMA) */
	struct ib_sge sge;
	struct ib_send_wr wr;
};

/**
 * struct gb_rdma_ring - the record buffers of one direction (conn.c)
 * @npages:  single pages allocated
 * @nmapped: of those, the first @nmapped are mapped for the device
 * @page:    their kernel addresses
 * @dma:     their DMA addresses (one mapping of PAGE_SIZE each)
 */
struct gb_rdma_ring {
	u32 npages;
	u32 nmapped;
	void **page;
	u64 *dma;
};

struct gb_rdma_win {
	bool client;		/* held by the client until a FLOW return */
	bool busy;		/* rw ctx alive, pages held until the SEND completes */
	u32 nents;
	u64 tag;		/* request of the last chunk (tracepoints) */
	struct scatterlist *sgl;
	struct rdma_rw_ctx ctx;
};

/**
 * struct gb_rdma_lease - one value head leased for one-sided READs (3.3)
 * @mr:       fast-registration MR of the lease (NULL: free slot)
 * @obj:      the object, a reference held for the lease
 * @sgl:      its head pages, a page reference each (allocated for the
 *            lease, DIV_ROUND_UP(len, PAGE_SIZE) + 1 entries at most)
 * @nents:    entries of @sgl (page references held)
 * @mapped:   DMA-mapped entries (ib_dma_map_sg()), 0: not mapped
 * @deadline: jiffies when the lease ends at the latest
 * @bytes:    bytes charged for it (its pages; conn->lease_bytes, the total)
 * @reg:      the REG_MR WR posted before the R_LOOKUP SEND
 *
 * See the top comment of kmod/rdma/lease.c for the ownership rules.
 */
struct gb_rdma_lease {
	struct ib_mr *mr;
	struct gb_obj *obj;
	struct scatterlist *sgl;
	u32 nents;
	int mapped;
	unsigned long deadline;
	u32 bytes;
	struct ib_reg_wr reg;
};

/* The request conn->work is executing (a private copy of the record). */
struct gb_rdma_req {
	bool active;
	bool reply_pending;
	bool done_after_reply;
	bool waiting;
	bool end_folded;	/* 3.2: END went out in the last record */
	bool err_pending;	/* 3.2: ERROR follows the plain VALUE */
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
	bool mr_quiesce;	/* rxe with MRs: see kmod/rdma/conn.c */
	u32 chunk_sges;		/* sges per chunk (<= spw; one MR if quiesce) */
	u32 rd_sges;		/* sges per SET READ (likewise) */
	u32 rd_max;		/* bytes per SET READ */
	int sq_size;		/* sq_avail when nothing is outstanding */
	u32 ncqe;		/* CQ entries (conn->cq->cqe) */
	u32 rec_size;		/* send record stride: 512, or 3.2's grant */

	u32 nrx;
	struct gb_rdma_ring rxring;	/* nrx records of 512 bytes */
	struct gb_rdma_rx *rx;
	u32 ntx;
	struct gb_rdma_ring txring;	/* ntx records of rec_size bytes */
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
	struct gb_trace_id tid;		/* cur's, for the store's tracepoints */
	u8 *bounce;
	u32 bounce_len;
	/* the SET READ in flight (or parked after a failed post) */
	bool rd_live;
	bool rd_bounce;		/* into the bounce buffer, not head pages */
	u32 rd_nents;
	u32 rd_nwr;
	u64 rd_tag;		/* its request, for the completion's trace */
	struct rdma_rw_ctx rd_ctx;
	struct scatterlist rd_sgl[GB_RDMA_RD_SGES];
	/* 3.3 (conn->work, and conn->release once work is cancelled) */
	struct gb_rdma_lease *leases;	/* NULL: no LOOKUP yet */
	u64 lease_live;			/* bit i: leases[i] is held */
	u64 lease_posted;		/* bit i: its REG_MR not completed */
	u64 lease_release;		/* bit i: released while posted */
	u64 lease_bytes;		/* bytes leased now (lease pages) */
	bool os_quiesce;		/* rxe: LOOKUP on an idle send queue */
	u8 os_key;			/* key byte of the next MR */
	struct delayed_work lease_dw;	/* next lease deadline */
	unsigned long os_hold_until;	/* fault: reap held chains then, 0 */
	u32 os_held_nwr;		/* fault: send WRs of held chains */
	/* rxe: the REG_MR chain of a LOOKUP, its R_LOOKUP posted after it */
	struct gb_rdma_tx *os_tx;	/* that R_LOOKUP, not posted yet */
	u32 os_reg_nwr;			/* REG_MR WRs posted, not reaped */
	bool os_reg_done;		/* their completion came (conn->lock) */
	struct ib_cqe os_reg_cqe;	/* the last REG_MR's, signaled */

	int qp_event;			/* first fatal QP event + 1, or 0 */
	struct ib_cqe rw_cqe;		/* unsignaled R/W, REG and INV WRs */
	struct ib_cqe read_cqe;
	struct work_struct work;
	atomic64_t cpu;		/* gb_cpus_pack(): where work is queued */
	int dev_node;		/* of the device (or the dev_node knob) */
	int ran_cpu;		/* where work last ran, -1: not yet */
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

/* transport.c: connection manager, listeners, devices */
extern struct mutex gb_rdma_lock;
extern struct list_head gb_rdma_devs;
extern struct list_head gb_rdma_conns;
extern u32 gb_rdma_nconns;
extern u32 gb_rdma_max_conns;
extern u64 gb_rdma_next_conn_id;
extern struct gb_rdma_stats gb_rdma_closed;
extern u64 gb_rdma_rejects;
extern struct wait_queue_head gb_rdma_waitq;
extern struct workqueue_struct *gb_rdma_wq;
extern struct workqueue_struct *gb_rdma_io_wq;
extern u32 gb_rdma_fault_release_ms;
extern u32 gb_rdma_fault_late_ms;
extern u32 gb_rdma_fault_setup_ms;
extern u32 gb_rdma_fault_accept_ms;
extern u32 gb_rdma_fault_lookup_reap_ms;
extern u32 gb_rdma_fault_ack_timeout;
extern u32 gb_rdma_fault_pre_accept_ms;
extern u32 gb_rdma_fault_remove_ms;
extern u32 gb_rdma_fault_max_cqe;
extern int gb_rdma_fault_dev_node;
extern u32 gb_rdma_fault_set_nomem;
extern bool gb_rdma_fault_poison;
void gb_rdma_fault_delay(const u32 *ms);
void gb_rdma_free_state(void *obj, size_t size);
u32 gb_rdma_max_cqe(struct ib_device *ibdev);
struct gb_rdma_dev *gb_rdma_dev_get(struct ib_device *ibdev);

/* conn.c: connection lifecycle and teardown */
void gb_rdma_conn_close(struct gb_rdma_conn *conn);
bool gb_rdma_lis_unused(const struct gb_rdma_listener *lis);
int gb_rdma_connect_request(struct rdma_cm_id *id,
			    struct rdma_cm_event *ev);

/* recv.c: completions, receive, credits and dispatch */
extern const char * const gb_rdma_err_names[GB_RDMA_E_NR];
void gb_rdma_count(struct gb_rdma_conn *conn, enum gb_rdma_err kind);
void gb_rdma_fail(struct gb_rdma_conn *conn, enum gb_rdma_err kind,
		  const char *what);
void gb_rdma_kick(struct gb_rdma_conn *conn);
void gb_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void gb_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc);
void gb_rdma_os_reg_done(struct ib_cq *cq, struct ib_wc *wc);
void gb_rdma_rw_done(struct ib_cq *cq, struct ib_wc *wc);
void gb_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);
void gb_rdma_qp_event(struct ib_event *ev, void *ctx);
int gb_rdma_post_recv(struct gb_rdma_conn *conn, struct gb_rdma_rx *rx);
unsigned long gb_rdma_stall_limit(struct gb_rdma_conn *conn);
void gb_rdma_work(struct work_struct *work);

/* get.c: sending records, the GET path */
void gb_rdma_rw_release(struct gb_rdma_conn *conn,
			struct rdma_rw_ctx *ctx, struct scatterlist *sgl,
			u32 nents, enum dma_data_direction dir,
			bool put_pages);
void gb_rdma_win_release(struct gb_rdma_conn *conn,
			 struct gb_rdma_win *w);
void gb_rdma_rw_count(struct gb_rdma_conn *conn,
		      const struct rdma_rw_ctx *ctx, int nwr);
void gb_rdma_rw_errcqe(struct gb_rdma_conn *conn,
		       struct ib_send_wr *first, struct ib_send_wr *end);
void gb_rdma_tx_release(struct gb_rdma_conn *conn,
			struct gb_rdma_tx *tx);
bool gb_rdma_can_register(struct gb_rdma_conn *conn);
struct gb_rdma_tx *gb_rdma_tx_get(struct gb_rdma_conn *conn);
void *gb_rdma_tx_buf(struct gb_rdma_conn *conn, struct gb_rdma_tx *tx);
int gb_rdma_post_tx(struct gb_rdma_conn *conn, struct gb_rdma_tx *tx,
		    struct ib_send_wr *first);
__printf(3, 4) void gb_rdma_prep_error(struct gb_rdma_conn *conn,
				       u32 kind, const char *fmt, ...);
void gb_rdma_prep_status(struct gb_rdma_conn *conn, u32 status);
int gb_rdma_flush_reply(struct gb_rdma_conn *conn);
int gb_rdma_get_step(struct gb_rdma_conn *conn);

/* set.c: the SET path, DELETE and TOUCH */
extern u32 gb_rdma_set_delay_ms;
void gb_rdma_set_failed(struct gb_rdma_conn *conn);
int gb_rdma_set_start(struct gb_rdma_conn *conn);
int gb_rdma_set_step(struct gb_rdma_conn *conn);
void gb_rdma_keyop(struct gb_rdma_conn *conn);

/* lease.c: LOOKUP and leases (3.3) */
/* Was revision 3.3 (one-sided reads) negotiated on @conn? */
static inline bool gb_rdma_conn_onesided(const struct gb_rdma_conn *conn)
{
	return conn->geom.flags & GB_RDMA_CONNECT_ONESIDED;
}

extern u32 gb_rdma_lease_ms;
u32 gb_rdma_get_lease_ms(void);
void gb_rdma_set_lease_ms(u32 ms);
void gb_rdma_leases_init(struct gb_rdma_conn *conn);
void gb_rdma_leases_free(struct gb_rdma_conn *conn);
void gb_rdma_leases_end_all(struct gb_rdma_conn *conn);
void gb_rdma_leases_expire(struct gb_rdma_conn *conn);
void gb_rdma_lease_work(struct work_struct *work);
u64 gb_rdma_leased_bytes(void);
bool gb_rdma_lookup_reap_held(struct gb_rdma_conn *conn,
			      struct gb_rdma_tx *tx);
void gb_rdma_lookup_start(struct gb_rdma_conn *conn);
int gb_rdma_lookup_step(struct gb_rdma_conn *conn);

/* stats.c: statistics and debugfs */
void gb_rdma_stats_add(struct gb_rdma_stats *d,
		       const struct gb_rdma_stats *s, const u64 *errors);
int gb_rdma_nl_walk(u64 *cursor, gb_conn_visit_fn fn, void *arg);
void gb_rdma_xport_stats(struct gb_xport_stats *xs);
void gb_rdma_dbg_init(void);
void gb_rdma_dbg_exit(void);

/**
 * gb_rdma_get_stats() - totals since module load (closed connections too)
 * @st: filled in
 * @conns: currently open connections (may be NULL)
 */
void gb_rdma_get_stats(struct gb_rdma_stats *st, u32 *conns);

#endif /* _GOBLIN_RDMA_INT_H */
