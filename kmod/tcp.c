// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: in-kernel memcache TCP listeners and connections.
 *
 * Every socket is non-blocking. Socket callbacks (data ready, write space,
 * state change) only queue the connection's work item on its CPU of a bound
 * workqueue; the work item receives, parses, executes and sends until the
 * socket would block, so a slow reader only parks its own connection.
 *
 * CPU: a connection's work runs on the CPU that receives its packets (the
 * socket's sk_incoming_cpu; at accept, see gb_tcp_new_conn()) when that
 * is a worker CPU (kmod/cpus.h: `cpus` and `cores`), else on a worker of
 * that CPU's node, else on any worker. It follows the packets when they
 * move to another worker (once its work is not running: a running work
 * item queued again runs where it runs, the workqueue's non-reentrancy),
 * and is chosen again after any change of the settings or of the online
 * CPUs (gb_tcp_queue(), gb_cpus_choose()).
 *
 * Lifetime: a connection is freed only by its own work item (which the
 * workqueue allows), after its socket callbacks were restored (so nothing
 * can queue it again) and after it left gb_tcp_conns. Anyone else who wants
 * a connection gone sets ->kill under gb_tcp_lock and queues the work.
 *
 * Listeners: an accepted socket is a clone of the listening one and
 * inherits its sk_data_ready and sk_user_data. The listener callback acts
 * only for the listening socket itself, and the accept work gives every
 * accepted socket the original callback back before any use
 * (gb_tcp_adopt()). Stopping a listener restores its callback, cancels
 * the accept work, closes the socket (and with it the children still in
 * the accept queue), then kills the listener's connections and waits for
 * them before freeing it.
 *
 * Receive: a line buffer of GB_RBUF_SIZE that grows (doubling) for a long
 * get line up to MC_LINE_MAX_GET and shrinks back once it is consumed;
 * value bytes go straight from it into the new object with gb_obj_write().
 * Closing: after quit, a get line over the bound (answered with
 * memcached's SERVER_ERROR) or the client's FIN, the connection reads
 * nothing more, sends everything already queued, then closes (unread
 * input is discarded first, so that the close is a FIN, not a reset). Send: an output queue of
 * text chunks and object references; values go out in runs of up to
 * GB_SEND_PAGES pages per call with gb_sock_sendpages() (zero copy,
 * compat.h), each run's pages referenced only across the call (the socket
 * buffers take their own references); a short send resumes at the exact
 * byte. Text (a VALUE line, the CRLF and END after a value) goes out with
 * MSG_MORE whenever more follows, so TCP packs it into the same segments
 * as the value's pages. The object reference is dropped once its last
 * byte was handed to TCP.
 *
 * Output bounds: a connection stops executing requests (and so reading)
 * while its queue holds GB_OUT_HIGH bytes or GB_OUT_REFS object
 * references beyond what the socket took; a multi-key get pauses at that
 * point and resumes where it stopped once the queue drained
 * (GB_MC_SUSPEND). A connection whose queued output (in the queue or
 * unacknowledged in the socket) makes no progress for the listener's
 * write_timeout is reset (write_stalls): so is any connection closed while
 * output waits (gb_conn_out_waiting()), so that no orphaned socket keeps
 * pages referenced behind a window that stays shut.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/timekeeping.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "cpus.h"
#include "goblin.h"
#include "listener.h"
#include "store.h"
#include "mc_exec.h"
#include "events.h"
#include "registry.h"
#include "tcp.h"
#include "trace.h"
#include "tcp_int.h"

#define GB_RBUF_SIZE	16384		/* receive buffer; grows for long gets */
/*
 * Bytes all connections together may hold in grown receive buffers: a
 * long get line is a client's to send at no cost, so max_conns of them
 * must not pin max_conns MiB. Past it a long line is refused as memcached
 * does when it cannot grow its read buffer.
 */
#define GB_RBUF_GROWN_MAX	(64UL << 20)
static atomic_long_t gb_tcp_rbuf_grown = ATOMIC_LONG_INIT(0);
#define GB_DRAIN_MAX	(256 << 10)	/* unread input discarded at close */
#define GB_TEXT_CHUNK	4096
#define GB_OUT_HIGH	(256 << 10)	/* stop executing above this backlog */
#define GB_OUT_REFS	64		/* or above this many queued objects */
/*
 * A value goes to the socket in runs of up to GB_SEND_PAGES pages (64 KiB
 * of 4 KiB pages, head and tail pages alike) per gb_sock_sendpages() call.
 */
#define GB_SEND_PAGES	16
/*
 * A value page the store cannot give for a transient reason (it kept the
 * object: gb_store_err_transient(), e.g. -ENOMEM or -EAGAIN from the page
 * cache) is fetched again after GB_STORE_RETRY_MS, up to GB_STORE_RETRIES
 * times, in the connection's work (process context; the sleep holds up
 * only this connection). Then the connection closes after the bytes
 * before that page, as for any other page error: the value cannot be
 * completed and its header is out. A run ends before a page that cannot
 * be had, so that page is always the first of the next run: first page
 * or mid-run, an error takes the same course.
 */
#define GB_WORK_BUDGET	64
#define GB_ACCEPT_BUDGET	64	/* connections accepted per work run */
#define GB_BACKLOG	1024

/* memcached's refusal when maxconns is reached (maxconns_fast). */
static const char gb_too_many[] = "ERROR Too many open connections\r\n";

struct gb_tcp_listener {
	struct list_head node;
	u32 id;
	struct gb_listener_config cfg;
	struct socket *sock;
	struct delayed_work accept_work;	/* now, or a retry */
	struct delayed_work idle_work;
	u32 nconns;		/* under gb_tcp_lock */
	u64 conns_total;
	u64 refused;
	bool stopping;
	bool stopped;		/* unlisted: the last connection frees it */
	bool accept_off;	/* accept_work cancelled for good */
	void (*saved_data_ready)(struct sock *sk);
	const struct gb_tcp_proto *proto;	/* NULL: memcache */
};

struct gb_out {
	struct list_head node;
	struct gb_obj *obj;	/* NULL: text in data[] */
	u64 off;
	u64 len;
	size_t cap;
	u64 req;	/* the request that queued its first byte */
	char data[];
};

enum gb_rx_state {
	GB_RX_LINE,
	GB_RX_DATA,
};

struct gb_tcp_conn {
	struct list_head node;	/* gb_tcp_conns, under gb_tcp_lock */
	struct gb_tcp_listener *l;
	struct socket *sock;
	struct work_struct work;
	atomic64_t cpu;		/* gb_cpus_pack(): where work is queued */
	int ran_cpu;		/* where it last ran, -1: not yet */
	u64 id;
	bool kill;
	/*
	 * Close with a reset: output waited when it was killed. Set under
	 * gb_tcp_lock while @c is on gb_tcp_conns; gb_conn_close() reads it
	 * after its list_del() under that lock.
	 */
	bool abort;
	/*
	 * Both addresses are read once at accept: kernel_getpeername() and
	 * kernel_getsockname() take lock_sock() (they sleep), and the
	 * connection dump reads these copies under gb_tcp_lock.
	 */
	struct sockaddr_storage peer;
	struct sockaddr_storage local;
	struct gb_mc_sink sink;

	char *rbuf;
	size_t rsize;		/* GB_RBUF_SIZE .. MC_LINE_MAX_GET */
	size_t rpos;
	size_t rlen;
	bool closing;		/* send what is queued, then close */
	enum gb_rx_state rx;
	u64 dleft;
	u8 tail[2];
	u8 ntail;
	struct gb_mc_store_op op;
	struct mc_req req;

	struct list_head out;
	size_t out_bytes;
	bool send_eagain;	/* the last send: -EAGAIN, or short */
	unsigned int out_refs;	/* object references in out */
	struct gb_out *mark;	/* sink mark: last entry then (NULL: none) */
	u64 mark_len;		/* its length then */
	size_t mark_bytes;	/* out_bytes then */

	void *priv;		/* the protocol's (proto->init()) */
	unsigned long deadline;	/* gb_tcp_set_deadline(), 0: none */

	u64 requests;
	/* memcache: the request executing (sink.tid), or the one sending */
	struct gb_trace_id tid;
	u64 bytes_in;
	u64 bytes_out;
	unsigned long last_rx;
	unsigned long data_deadline;	/* the value must be in by then */
	time64_t started;
	/* write stall detection, gb_tcp_idle_work() only */
	u64 stall_out;		/* bytes_out at the last progress */
	u32 stall_una;		/* snd_una then */
	unsigned long stall_since;

	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
};

static struct workqueue_struct *gb_tcp_wq;
static DEFINE_MUTEX(gb_tcp_mutex);	/* serialises add/del/walk */
static LIST_HEAD(gb_tcp_listeners);
static DEFINE_SPINLOCK(gb_tcp_lock);	/* list changes, connections */
static u32 gb_tcp_nconns;		/* all listeners', under gb_tcp_lock */
static DECLARE_WAIT_QUEUE_HEAD(gb_tcp_waitq);	/* gb_tcp_nconns dropped */
static LIST_HEAD(gb_tcp_conns);
static u32 gb_tcp_next_lid;
static u64 gb_tcp_next_cid;
/* Totals since load, per listener kind (memcache, HTTP). */
struct gb_tcp_ctr {
	atomic64_t total;
	atomic64_t rejected;
	atomic64_t bytes_read;
	atomic64_t bytes_written;
	atomic64_t write_stalls;
	atomic64_t data_stalls;
};

static struct gb_tcp_ctr gb_tcp_ctrs[GB_LISTENER_KIND_MAX];

static enum gb_listener_kind gb_tcp_kind(const struct gb_tcp_listener *l)
{
	return l->proto ? l->proto->kind : GB_LISTENER_MEMCACHE;
}

static struct gb_tcp_ctr *gb_tcp_ctr(const struct gb_tcp_listener *l)
{
	return &gb_tcp_ctrs[gb_tcp_kind(l)];
}

static atomic64_t gb_tcp_queued_refs = ATOMIC64_INIT(0);	/* debugfs */

/*
 * debugfs (goblin/tcp/): counters and two test knobs.
 *   counters       work_runs: connection work item runs;
 *                  write_stalls: connections closed for write_timeout;
 *                  data_stalls: memcache connections closed because a
 *                  value stopped arriving or arrived too slowly;
 *                  queued_refs: object references in output queues;
 *                  accept_runs: accept work item runs;
 *                  accept_late: accept work runs after the listener
 *                  cancelled it for good (a bug if ever non-zero);
 *                  send_retries: connections the idle work kicked
 *                  because their output waited with nothing in flight
 *                  (gb_conn_send_stuck());
 *                  text_calls, text_bytes: socket send calls for
 *                  queued text and the bytes they took;
 *                  value_runs: gb_sock_sendpages() calls (runs of value
 *                  pages); value_calls: the socket send calls those made
 *                  (one per run with MSG_SPLICE_PAGES, one per page with
 *                  kernel_sendpage()); value_bytes: value bytes they took;
 *                  value_one_call: 1 when a run is one socket call;
 *                  value_short: runs the socket took only part of;
 *                  value_eagain: runs it took nothing of (full);
 *                  value_pages: pages (pieces) fetched for runs;
 *                  value_unsent: those of them the socket took no byte
 *                  of (fetched again for a later run);
 *                  fetch_retries: value page fetches retried after a
 *                  transient store error (GB_STORE_RETRIES)
 *   accept_hold    1: the accept work leaves connections in the kernel's
 *                  accept queue
 *   stop_delay_ms  listener stop sleeps this long between cancelling the
 *                  accept work and closing the listening socket, while
 *                  children may still sit in the accept queue
 *   close_delay_ms a connection's close sleeps this long (at most 60 s)
 *                  after releasing its socket, before giving back its
 *                  listener slot: a slow teardown
 *   run_pages      pages per value run, 1..GB_SEND_PAGES (default; 0 or
 *                  more than GB_SEND_PAGES also mean GB_SEND_PAGES): 1 is
 *                  the page-per-call send path, for comparisons
 */
static struct dentry *gb_tcp_dbg;
static bool gb_tcp_dbg_accept_hold;
static u32 gb_tcp_dbg_stop_delay_ms;
static u32 gb_tcp_dbg_close_delay_ms;
static atomic64_t gb_tcp_work_runs = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_send_retries = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_accept_runs = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_accept_late = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_text_calls = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_text_bytes = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_runs = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_calls = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_bytes = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_short = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_eagain = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_pages = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_value_unsent = ATOMIC64_INIT(0);
static atomic64_t gb_tcp_fetch_retries = ATOMIC64_INIT(0);
static u32 gb_tcp_dbg_run_pages = GB_SEND_PAGES;

/*
 * Give back a connection slot of @l, the last step of a connection's life:
 * a stopped listener is freed with its last slot (gb_tcp_stop() does not
 * wait for them), and gb_tcp_exit() waits for gb_tcp_nconns.
 */
static void gb_tcp_slot_put(struct gb_tcp_listener *l)
{
	bool free_l;

	spin_lock(&gb_tcp_lock);
	l->nconns--;
	gb_tcp_nconns--;
	free_l = l->stopped && !l->nconns;
	spin_unlock(&gb_tcp_lock);
	wake_up_all(&gb_tcp_waitq);
	if (free_l)
		kfree(l);
}

/* ---- output queue (the exec sink) ---- */

static int gb_sink_text(struct gb_mc_sink *sink, const char *p, size_t len)
{
	struct gb_tcp_conn *c = container_of(sink, struct gb_tcp_conn, sink);
	struct gb_out *e = NULL;
	size_t room, n;

	if (!list_empty(&c->out)) {
		e = list_last_entry(&c->out, struct gb_out, node);
		if (e->obj)
			e = NULL;
	}
	while (len) {
		room = e ? e->cap - e->len : 0;
		if (!room) {
			size_t cap = max_t(size_t, len, GB_TEXT_CHUNK);

			e = kmalloc(struct_size(e, data, cap), GFP_KERNEL);
			if (!e)
				return -ENOMEM;
			e->obj = NULL;
			e->off = 0;
			e->len = 0;
			e->cap = cap;
			e->req = c->requests;
			list_add_tail(&e->node, &c->out);
			room = cap;
		}
		n = min(room, len);
		memcpy(e->data + e->len, p, n);
		e->len += n;
		c->out_bytes += n;
		p += n;
		len -= n;
	}
	return 0;
}

static int gb_sink_value(struct gb_mc_sink *sink, struct gb_obj *obj)
{
	struct gb_tcp_conn *c = container_of(sink, struct gb_tcp_conn, sink);
	struct gb_out *e;

	if (!obj->len) {
		gb_obj_put(obj);
		return 0;
	}
	/* one per queued value, up to GB_OUT_REFS a connection */
	BUILD_BUG_ON(sizeof(*e) > 64);
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		gb_obj_put(obj);
		return -ENOMEM;
	}
	e->obj = obj;
	e->off = 0;
	e->len = obj->len;
	e->cap = 0;
	e->req = c->requests;
	list_add_tail(&e->node, &c->out);
	c->out_bytes += obj->len;
	trace_gb_tcp_value(&c->tid, c->requests, obj->len);
	c->out_refs++;
	atomic64_inc(&gb_tcp_queued_refs);
	return 0;
}

static void gb_out_free(struct gb_tcp_conn *c, struct gb_out *e)
{
	list_del(&e->node);
	if (e->obj) {
		gb_obj_put(e->obj);
		c->out_refs--;
		atomic64_dec(&gb_tcp_queued_refs);
	}
	kfree(e);
}

/* Enough queued output: execute (and read) nothing more until it drains. */
static bool gb_conn_backlog(const struct gb_tcp_conn *c)
{
	return c->out_bytes >= GB_OUT_HIGH || c->out_refs >= GB_OUT_REFS;
}

static bool gb_sink_full(struct gb_mc_sink *sink)
{
	return gb_conn_backlog(container_of(sink, struct gb_tcp_conn, sink));
}

static void gb_sink_mark(struct gb_mc_sink *sink)
{
	struct gb_tcp_conn *c = container_of(sink, struct gb_tcp_conn, sink);

	c->mark = list_empty(&c->out) ? NULL :
		  list_last_entry(&c->out, struct gb_out, node);
	c->mark_len = c->mark ? c->mark->len : 0;
	c->mark_bytes = c->out_bytes;
}

/*
 * Nothing is sent while a request executes, so the entries queued since
 * the mark are untouched and the mark entry only grew (text appended).
 */
static void gb_sink_rewind(struct gb_mc_sink *sink)
{
	struct gb_tcp_conn *c = container_of(sink, struct gb_tcp_conn, sink);
	struct gb_out *e;

	while (!list_empty(&c->out)) {
		e = list_last_entry(&c->out, struct gb_out, node);
		if (e == c->mark)
			break;
		gb_out_free(c, e);
	}
	if (c->mark)
		c->mark->len = c->mark_len;
	c->out_bytes = c->mark_bytes;
}

static const struct gb_mc_sink_ops gb_tcp_sink_ops = {
	.text = gb_sink_text,
	.value = gb_sink_value,
	.mark = gb_sink_mark,
	.rewind = gb_sink_rewind,
	.full = gb_sink_full,
};

/*
 * Entry @e was handed to the socket in full: gb_tcp_sent for each memcache
 * request whose whole response now was. Entries are in request order and
 * e->req is the request that queued an entry's first byte, so these are
 * e->req up to the one before the next entry's (a text entry may end
 * several requests' responses), or, when @e was the last entry, up to the
 * last request that finished queueing (not one paused in a multi-key get
 * or still taking its data block).
 */
static void gb_conn_trace_sent(struct gb_tcp_conn *c, struct gb_out *e,
			       bool last)
{
	u64 r, end;	/* the first request not sent in full */

	if (c->tid.xport != GB_TRACE_TCP)
		return;
	if (!last) {
		end = list_next_entry(e, node)->req;
	} else {
		end = c->requests + 1;
		if (c->rx == GB_RX_DATA || c->sink.resume)
			end--;
	}
	/* request 0: text queued before the first parse (a refusal) */
	for (r = max_t(u64, e->req, 1); r < end; r++)
		trace_gb_tcp_sent(c->id, r, c->bytes_out);
}

/*
 * Send the next run of value entry @e: from e->off, up to run_pages
 * (GB_SEND_PAGES) pages, each referenced for the call only, and only
 * about as many bytes as the socket has room for: TCP checks for room
 * only when it starts an skb, so it may take a little more, but a full
 * socket costs one page fetched (and an -EAGAIN), not a run's worth. At
 * least one page: TCP decides.
 *
 * A page that cannot be had (gb_obj_get_page_id() error, or a page TCP
 * must not reference) ends the run before it. As the first page of a run
 * it is retried if the error is transient (GB_STORE_RETRIES); then, or
 * for any other error, the call returns 0 with *@err set, never the
 * error as the socket's result. A later page's error is left for the
 * next run, whose first page it is, unless it is not transient and the
 * socket took the whole run: then *@err is set as well (the connection
 * closes after the bytes before the page, with no further call).
 *
 * Return: bytes the socket took (fewer than *@runlen, the run's length:
 * a short send), the socket's -errno (-EAGAIN: full), or 0 with *@err.
 */
static int gb_conn_send_run(struct gb_tcp_conn *c, struct gb_out *e,
			    int flags, size_t *runlen, int *err)
{
	unsigned int i, nr = 0, calls = 0, tries = 0, unsent = 0;
	unsigned int max = READ_ONCE(gb_tcp_dbg_run_pages);
	size_t budget = max_t(int, sk_stream_wspace(c->sock->sk), PAGE_SIZE);
	struct bio_vec bv[GB_SEND_PAGES];
	u64 left = e->len - e->off;
	size_t len = 0, off;
	int n, ret = 0;

	if (!max || max > GB_SEND_PAGES)
		max = GB_SEND_PAGES;
	c->tid.req = e->req;
	while (nr < max && len < left && len < budget) {
		unsigned int pgoff, seg;
		struct page *pg;

		ret = gb_obj_get_page_id(e->obj, e->off + len, &pg, &pgoff,
					 &seg, &c->tid);
		/*
		 * The socket will hold the page beyond this call: a slab
		 * page or one without a reference would be freed under it
		 * (6.12 fails it with -EIO, 6.1 sends it anyway). The store
		 * gives none; fail the same safe way on both kernels.
		 */
		if (!ret && WARN_ON_ONCE(!sendpage_ok(pg))) {
			put_page(pg);
			ret = -EIO;
		}
		if (ret) {
			if (nr || !gb_store_err_transient(ret) ||
			    tries++ >= GB_STORE_RETRIES)
				break;
			atomic64_inc(&gb_tcp_fetch_retries);
			msleep(GB_STORE_RETRY_MS);
			continue;
		}
		seg = min_t(u64, seg, left - len);
		bvec_set_page(&bv[nr++], pg, seg, pgoff);
		len += seg;
	}
	*runlen = len;
	if (!nr) {
		*err = ret;
		return 0;
	}
	if (len < left)
		flags |= MSG_MORE;
	n = gb_sock_sendpages(c->sock, bv, nr, len, flags, &calls);
	for (i = 0, off = 0; i < nr; i++) {
		if (n <= 0 || off >= (size_t)n)
			unsent++;
		off += bv[i].bv_len;
		put_page(bv[i].bv_page);
	}
	atomic64_inc(&gb_tcp_value_runs);
	atomic64_add(calls, &gb_tcp_value_calls);
	atomic64_add(nr, &gb_tcp_value_pages);
	if (unsent)
		atomic64_add(unsent, &gb_tcp_value_unsent);
	if (n > 0)
		atomic64_add(n, &gb_tcp_value_bytes);
	if (n > 0 && (size_t)n < len)
		atomic64_inc(&gb_tcp_value_short);
	else if (n == -EAGAIN)
		atomic64_inc(&gb_tcp_value_eagain);
	if (n > 0 && (size_t)n == len && ret && !gb_store_err_transient(ret))
		*err = ret;
	return n;
}

/*
 * Send queued output until done or the socket is full: it said -EAGAIN,
 * or took only part of a send (TCP then set SOCK_NOSPACE, so
 * gb_conn_write_space() resumes the connection once there is room;
 * another call now would only fetch pages for an -EAGAIN). Returns 0 or
 * the -errno to close the connection with.
 */
static int gb_conn_flush(struct gb_tcp_conn *c)
{
	while (!list_empty(&c->out)) {
		struct gb_out *e = list_first_entry(&c->out, struct gb_out,
						    node);
		bool last = list_is_last(&e->node, &c->out);
		u64 left = e->len - e->off;
		size_t want = left;
		bool part;
		int n, err = 0;
		int flags = MSG_DONTWAIT | MSG_NOSIGNAL | (last ? 0 : MSG_MORE);

		if (!e->obj) {
			struct kvec kv = { e->data + e->off, left };
			struct msghdr msg = { .msg_flags = flags };

			n = kernel_sendmsg(c->sock, &msg, &kv, 1, left);
			atomic64_inc(&gb_tcp_text_calls);
			if (n > 0)
				atomic64_add(n, &gb_tcp_text_bytes);
		} else {
			n = gb_conn_send_run(c, e, flags, &want, &err);
			if (!n && err)	/* a page that cannot be had */
				return err;
		}
		part = n > 0 && (size_t)n < want;
		WRITE_ONCE(c->send_eagain, n == -EAGAIN || part);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		if (n == 0)
			return -EPIPE;
		e->off += n;
		c->out_bytes -= n;
		c->bytes_out += n;
		atomic64_add(n, &gb_tcp_ctr(c->l)->bytes_written);
		if (e->off == e->len) {
			if (trace_gb_tcp_sent_enabled())
				gb_conn_trace_sent(c, e, last);
			gb_out_free(c, e);
		}
		if (err)
			return err;
		if (part)
			return 0;
	}
	return 0;
}

/* ---- input ---- */

/*
 * A get line the server will not hold (over MC_LINE_MAX_GET, or past the
 * module-wide cap on grown buffers): memcached's answer, then the close.
 */
static int gb_conn_line_refused(struct gb_tcp_conn *c)
{
	/* the pending line is given up: its scan count with it */
	mc_parse_reset(&c->req);
	c->closing = true;
	return gb_sink_text(&c->sink, MC_ERR_LINE_MEM "\r\n",
			    sizeof(MC_ERR_LINE_MEM) + 1);
}

static int gb_conn_recv(struct gb_tcp_conn *c)
{
	struct msghdr msg = { };
	struct kvec kv;
	char *p;
	int n;

	if (c->rpos == c->rlen) {
		c->rpos = 0;
		c->rlen = 0;
		/* a long get line is done: give its buffer back */
		if (c->rsize > GB_RBUF_SIZE) {
			p = kvmalloc(GB_RBUF_SIZE, GFP_KERNEL);
			if (!p)
				return -ENOMEM;
			kvfree(c->rbuf);
			atomic_long_sub(c->rsize - GB_RBUF_SIZE,
					&gb_tcp_rbuf_grown);
			c->rbuf = p;
			c->rsize = GB_RBUF_SIZE;
		}
	} else if (c->rpos && c->rlen == c->rsize) {
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
	if (c->rlen == c->rsize) {
		/* only a get line grows this far (mc_parse() bounds it) */
		if (c->rsize >= MC_LINE_MAX_GET)
			return -ENOBUFS;
		if (atomic_long_add_return(c->rsize, &gb_tcp_rbuf_grown) >
		    GB_RBUF_GROWN_MAX) {
			atomic_long_sub(c->rsize, &gb_tcp_rbuf_grown);
			gb_conn_line_refused(c);
			return 1;	/* answered: flushed, then closed */
		}
		p = kvmalloc(c->rsize * 2, GFP_KERNEL);
		if (!p) {
			atomic_long_sub(c->rsize, &gb_tcp_rbuf_grown);
			return -ENOMEM;
		}
		memcpy(p, c->rbuf, c->rlen);
		kvfree(c->rbuf);
		c->rbuf = p;
		c->rsize *= 2;
	}
	kv.iov_base = c->rbuf + c->rlen;
	kv.iov_len = c->rsize - c->rlen;
	n = kernel_recvmsg(c->sock, &msg, &kv, 1, kv.iov_len, MSG_DONTWAIT);
	if (n > 0) {
		c->rlen += n;
		trace_gb_tcp_recv(&c->tid, c->requests + (c->rx == GB_RX_LINE),
				  n);
		c->bytes_in += n;
		c->last_rx = jiffies;
		atomic64_add(n, &gb_tcp_ctr(c->l)->bytes_read);
	}
	return n;
}

/* Run (or resume) @req: 0 to go on, -errno / -ECONNRESET to close. */
static int gb_conn_exec(struct gb_tcp_conn *c, struct mc_req *req)
{
	int ret;

	c->tid.req = c->requests;
	ret = gb_mc_exec(req, &c->sink);
	if (ret < 0)
		return ret;
	/* quit: what earlier requests produced still goes out */
	if (ret == GB_MC_CLOSE)
		c->closing = true;
	return 0;
}

/*
 * The period within which a value must keep arriving: the shorter of the
 * listener's idle and write timeouts (write_timeout is never 0).
 */
static u32 gb_conn_data_secs(const struct gb_tcp_listener *l)
{
	return min_not_zero(l->cfg.idle_timeout, l->cfg.write_timeout);
}

/*
 * The whole data block (value and its CRLF) is due within one period per
 * GB_MC_DATA_STEP bytes, plus one: at least 64 KiB per period on average,
 * so a client dripping a byte now and then cannot hold a half-built
 * object of up to item_max for long.
 */
#define GB_MC_DATA_STEP		(64 * 1024)

static unsigned long gb_conn_data_deadline(const struct gb_tcp_conn *c)
{
	u64 periods = 1 + div_u64(c->op.vlen + 2, GB_MC_DATA_STEP);
	u64 t = periods * gb_conn_data_secs(c->l) * HZ;

	return jiffies + (unsigned long)min_t(u64, t, MAX_JIFFY_OFFSET);
}

/*
 * Execute what the buffer holds. Returns 1 if more input is needed, 0 if
 * the output backlog is too high or the connection is closing (c->closing),
 * or -errno / -ECONNRESET to close.
 */
static int gb_conn_process(struct gb_tcp_conn *c)
{
	struct mc_req *req = &c->req;
	int n, ret;

	if (c->l->proto)
		return c->l->proto->process(c);
	while (!gb_conn_backlog(c) && !c->closing) {
		size_t avail = c->rlen - c->rpos;

		if (c->sink.resume) {
			/* A get paused for output to drain: go on with it. */
			ret = gb_conn_exec(c, req);
			if (ret)
				return ret;
			if (!c->sink.resume)
				trace_gb_tcp_queued(c->id, c->requests,
						    c->out_bytes);
			continue;
		}
		if (c->rx == GB_RX_DATA) {
			if (c->dleft) {
				size_t take = min_t(u64, avail, c->dleft);

				if (!take)
					return 1;
				if (c->op.obj) {
					ret = gb_obj_write(c->op.obj,
							   c->op.vlen - c->dleft,
							   c->rbuf + c->rpos,
							   take);
					if (ret)
						return ret;
				}
				c->rpos += take;
				c->dleft -= take;
				continue;
			}
			while (c->ntail < 2 && c->rpos < c->rlen)
				c->tail[c->ntail++] = c->rbuf[c->rpos++];
			if (c->ntail < 2)
				return 1;
			WRITE_ONCE(c->rx, GB_RX_LINE);
			ret = gb_mc_store_end(&c->op, c->tail[0] == '\r' &&
					      c->tail[1] == '\n', &c->sink);
			if (ret)
				return ret;
			trace_gb_tcp_queued(c->id, c->requests, c->out_bytes);
			continue;
		}
		n = mc_parse_cont(c->rbuf + c->rpos, avail, req);
		if (n == MC_PARSE_MORE)
			return 1;
		if (n == MC_PARSE_CLOSE)
			return -ECONNRESET;
		if (n == MC_PARSE_TOO_LONG)
			return gb_conn_line_refused(c);
		c->rpos += n;
		c->requests++;
		trace_gb_tcp_parsed(c->id, c->requests, req->cmd);
		/* no data block to store or to swallow: execute right away */
		if (!mc_cmd_has_data(req->cmd) &&
		    !(req->cmd == MC_CMD_ERROR && req->vlen_swallow)) {
			ret = gb_conn_exec(c, req);
			if (ret)
				return ret;
			if (!c->sink.resume)
				trace_gb_tcp_queued(c->id, c->requests,
						    c->out_bytes);
			continue;
		}
		gb_mc_store_begin(req, &c->op);
		c->dleft = c->op.vlen;
		c->ntail = 0;
		WRITE_ONCE(c->data_deadline, gb_conn_data_deadline(c));
		/* gb_conn_data_stalled() reads the deadline after rx */
		smp_wmb();
		WRITE_ONCE(c->rx, GB_RX_DATA);
	}
	return 0;
}

/* ---- connection lifetime ---- */

/*
 * Queue @c's work on the CPU for input seen on @here (kmod/cpus.c:
 * gb_cpus_choose()). Any context.
 */
static void gb_tcp_queue_on(struct gb_tcp_conn *c, int here)
{
	queue_work_on(gb_cpus_choose(&c->cpu, here, NUMA_NO_NODE), gb_tcp_wq,
		      &c->work);
}

/*
 * Queue @c's work where its packets come in: TCP records the CPU of every
 * segment it receives in sk_incoming_cpu (in softirq, before it is queued
 * or backlogged), so this holds for every caller, also for the work's own
 * re-queue, a backlog drained in process context and the idle work.
 */
static void gb_tcp_queue(struct gb_tcp_conn *c)
{
	gb_tcp_queue_on(c, READ_ONCE(c->sock->sk->sk_incoming_cpu));
}

static void gb_conn_data_ready(struct sock *sk)
{
	struct gb_tcp_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c)
		gb_tcp_queue(c);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Like sk_stream_write_space(): act only once the socket is writeable
 * again (a third of the send buffer free) and clear SOCK_NOSPACE then.
 * TCP calls sk_write_space on every ACK while SOCK_NOSPACE is set; the
 * flag is set by the send that returned -EAGAIN and must be cleared here,
 * or every later incoming segment would queue the work.
 */
static void gb_conn_write_space(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;
	struct gb_tcp_conn *c;

	if (!sock || !__sk_stream_is_writeable(sk, 1))
		return;
	clear_bit(SOCK_NOSPACE, &sock->flags);
	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c)
		gb_tcp_queue(c);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Discard unread input (at most GB_DRAIN_MAX bytes) before a close. */
static void gb_conn_drain(struct gb_tcp_conn *c)
{
	size_t done = 0;
	int n;

	while (done < GB_DRAIN_MAX) {
		struct kvec kv = { c->rbuf, c->rsize };
		struct msghdr msg = { };

		n = kernel_recvmsg(c->sock, &msg, &kv, 1, kv.iov_len,
				   MSG_DONTWAIT);
		if (n <= 0)
			break;
		done += n;
	}
}

static void gb_conn_close(struct gb_tcp_conn *c)
{
	struct gb_tcp_listener *l = c->l;
	struct sock *sk = c->sock->sk;
	bool abort;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = c->saved_data_ready;
	sk->sk_write_space = c->saved_write_space;
	sk->sk_state_change = c->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	spin_lock(&gb_tcp_lock);
	list_del(&c->node);
	spin_unlock(&gb_tcp_lock);
	/* Nobody can queue us any more; drop a pending re-queue. */
	cancel_work(&c->work);
	gb_event_conn(gb_tcp_kind(l), l->id, c->id, &c->peer, false);

	/*
	 * Closing politely with everything sent: unread input would make
	 * tcp_close() reset the connection and drop what is still in flight.
	 */
	abort = READ_ONCE(c->abort);
	if (c->closing && list_empty(&c->out) && !abort)
		gb_conn_drain(c);
	/*
	 * Output that waited when the connection was killed (a client that
	 * stopped reading) ends with a reset: a FIN would queue behind the
	 * replies its zero window holds, and the orphaned socket would keep
	 * their pages referenced (quarantined in the pool) until TCP gave up
	 * probing it, minutes later. Linger 0 and no shutdown: tcp_close()
	 * purges the write queue and sends the RST in any state.
	 */
	if (abort)
		sock_no_linger(sk);
	else
		kernel_sock_shutdown(c->sock, SHUT_RDWR);
	sock_release(c->sock);
	while (!list_empty(&c->out))
		gb_out_free(c, list_first_entry(&c->out, struct gb_out, node));
	gb_mc_store_abort(&c->op);
	if (l->proto)
		l->proto->release(c);
	if (c->rsize > GB_RBUF_SIZE)
		atomic_long_sub(c->rsize - GB_RBUF_SIZE, &gb_tcp_rbuf_grown);
	kvfree(c->rbuf);
	/*
	 * The test delay sleeps before @c is freed: this runs in @c's own
	 * work, and a new connection allocated at the same address has its
	 * work serialised behind a running one with the same address and
	 * function (the workqueue's non-reentrancy), so a sleep after the
	 * kfree() stalled that connection for the whole delay.
	 */
	if (unlikely(READ_ONCE(gb_tcp_dbg_close_delay_ms)))
		msleep(min(READ_ONCE(gb_tcp_dbg_close_delay_ms), 60000U));
	kfree(c);
	gb_tcp_slot_put(l);
}

static void gb_conn_work(struct work_struct *work)
{
	struct gb_tcp_conn *c = container_of(work, struct gb_tcp_conn, work);
	int budget, ret;

	atomic64_inc(&gb_tcp_work_runs);
	WRITE_ONCE(c->ran_cpu, raw_smp_processor_id());
	for (budget = 0; budget < GB_WORK_BUDGET; budget++) {
		if (READ_ONCE(c->kill))
			goto close;
		ret = gb_conn_flush(c);
		if (ret)
			goto close;
		if (c->closing) {
			if (list_empty(&c->out))
				goto close;
			return;		/* resumed by gb_conn_write_space() */
		}
		if (gb_conn_backlog(c))
			return;		/* resumed by gb_conn_write_space() */
		ret = gb_conn_process(c);
		if (ret < 0) {
			gb_conn_flush(c);
			goto close;
		}
		if (ret == 0)
			continue;	/* backlog: flush first */
		ret = gb_conn_flush(c);
		if (ret)
			goto close;
		ret = gb_conn_recv(c);
		if (ret == -EAGAIN)
			return;		/* resumed by sk_data_ready */
		if (ret == 0)
			c->closing = true;	/* FIN: answer what came first */
		else if (ret < 0)
			goto close;
	}
	/* Let other connections on this CPU run. */
	gb_tcp_queue(c);
	return;
close:
	gb_conn_close(c);
}

/* What a refused connection's close drains of its receive queue, at most. */
#define GB_REFUSE_DRAIN		(16 * 1024)

/*
 * Answer a connection over max-conns with the protocol's refusal and close
 * it. A close with unread bytes in the receive queue sends a reset instead
 * of a FIN (RFC 2525 2.17) and drops what of the refusal is not yet sent
 * or acknowledged; the client gets an error instead of the end of the
 * stream. So the sending side is shut down after the refusal and what the
 * client has already sent (its first request, if it came before the accept
 * work) is read and dropped, without waiting and at most GB_REFUSE_DRAIN
 * bytes. More than that, or bytes arriving after the close, still draw a
 * reset, after the refusal and the FIN. Process context (the accept work).
 */
static void gb_tcp_refuse(struct gb_tcp_listener *l, struct socket *s)
{
	const char *msg_text = l->proto ? l->proto->refuse : gb_too_many;
	struct kvec kv = { (void *)msg_text, strlen(msg_text) };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	char sink[256];
	int drained = 0, n;

	kernel_sendmsg(s, &msg, &kv, 1, kv.iov_len);
	kernel_sock_shutdown(s, SHUT_WR);
	while (drained < GB_REFUSE_DRAIN) {
		struct msghdr rm = { .msg_flags = MSG_DONTWAIT };

		kv.iov_base = sink;
		kv.iov_len = sizeof(sink);
		n = kernel_recvmsg(s, &rm, &kv, 1, sizeof(sink), MSG_DONTWAIT);
		if (n <= 0)
			break;
		drained += n;
	}
	sock_release(s);
}

static void gb_tcp_new_conn(struct gb_tcp_listener *l, struct socket *s)
{
	struct gb_tcp_conn *c;
	struct sock *sk = s->sk;
	u32 max = l->cfg.max_conns;
	int cpu;

	spin_lock(&gb_tcp_lock);
	if (l->nconns >= max) {
		l->refused++;
		spin_unlock(&gb_tcp_lock);
		atomic64_inc(&gb_tcp_ctr(l)->rejected);
		gb_tcp_refuse(l, s);
		return;
	}
	l->nconns++;
	gb_tcp_nconns++;
	spin_unlock(&gb_tcp_lock);

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (c)
		c->rbuf = kvmalloc(GB_RBUF_SIZE, GFP_KERNEL);
	if (!c || !c->rbuf) {
		/* closed at once: counted like a refusal over max-conns */
		kfree(c);
		sock_release(s);
		spin_lock(&gb_tcp_lock);
		l->refused++;
		spin_unlock(&gb_tcp_lock);
		atomic64_inc(&gb_tcp_ctr(l)->rejected);
		gb_tcp_slot_put(l);
		return;
	}
	c->l = l;
	c->sock = s;
	c->rsize = GB_RBUF_SIZE;
	/*
	 * The CPU the connection's packets come in on: that of its data if
	 * some arrived (TCP set sk_incoming_cpu then), else this one, where
	 * the listener's callback queued the accept work for the handshake.
	 * A new socket's sk_incoming_cpu is not its own before it received
	 * data (Linux 6.1 copies the listener's), and the first work queued
	 * below runs on the CPU chosen here and serves a request that comes
	 * meanwhile, whatever CPU the data_ready callback asks for.
	 */
	cpu = READ_ONCE(sk->sk_incoming_cpu);
	if (skb_queue_empty_lockless(&sk->sk_receive_queue) || cpu < 0 ||
	    cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	gb_cpus_slot_init(&c->cpu);
	c->ran_cpu = -1;
	c->sink.ops = &gb_tcp_sink_ops;
	c->sink.tid = &c->tid;
	/* HTTP (proto) traces no timelines: its tail reads have no request */
	if (!l->proto)
		c->tid.xport = GB_TRACE_TCP;
	INIT_LIST_HEAD(&c->out);
	INIT_WORK(&c->work, gb_conn_work);
	c->last_rx = jiffies;
	c->started = ktime_get_boottime_seconds();
	if (kernel_getpeername(s, (struct sockaddr *)&c->peer) < 0)
		c->peer.ss_family = AF_UNSPEC;
	if (kernel_getsockname(s, (struct sockaddr *)&c->local) < 0)
		c->local.ss_family = AF_UNSPEC;
	tcp_sock_set_nodelay(sk);
	if (l->proto && l->proto->init(c)) {
		kfree(c->rbuf);
		kfree(c);
		sock_release(s);
		atomic64_inc(&gb_tcp_ctr(l)->rejected);
		gb_tcp_slot_put(l);
		return;
	}

	spin_lock(&gb_tcp_lock);
	c->id = ++gb_tcp_next_cid;
	c->tid.conn = c->id;
	l->conns_total++;
	list_add_tail(&c->node, &gb_tcp_conns);
	spin_unlock(&gb_tcp_lock);
	atomic64_inc(&gb_tcp_ctr(l)->total);
	gb_event_conn(gb_tcp_kind(l), l->id, c->id, &c->peer, true);

	write_lock_bh(&sk->sk_callback_lock);
	c->saved_data_ready = sk->sk_data_ready;
	c->saved_write_space = sk->sk_write_space;
	c->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = c;
	sk->sk_data_ready = gb_conn_data_ready;
	sk->sk_write_space = gb_conn_write_space;
	sk->sk_state_change = gb_conn_data_ready;
	/*
	 * Data may have arrived before the callbacks were in place. Queue
	 * under the lock: once it is dropped, a callback may run the work,
	 * which can close and free @c (a client's immediate FIN).
	 */
	gb_tcp_queue_on(c, cpu);
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * An accepted socket is a clone of the listener (sk_clone_lock()): it
 * carries the listener's sk_data_ready and sk_user_data. Give it the
 * listener's original callback and no user data before anything else
 * uses it, so that nothing of the listener (or of this module, once the
 * connection is closed and lingers in FIN_WAIT) stays reachable from it.
 */
static void gb_tcp_adopt(struct gb_tcp_listener *l, struct socket *s)
{
	struct sock *sk = s->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = l->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void gb_tcp_accept_work(struct work_struct *work)
{
	struct gb_tcp_listener *l = container_of(to_delayed_work(work),
						 struct gb_tcp_listener,
						 accept_work);
	unsigned int budget = GB_ACCEPT_BUDGET;
	struct socket *s;
	int err;

	atomic64_inc(&gb_tcp_accept_runs);
	if (READ_ONCE(l->accept_off)) {
		atomic64_inc(&gb_tcp_accept_late);
		return;
	}
	if (READ_ONCE(gb_tcp_dbg_accept_hold))
		return;
	while (!READ_ONCE(l->stopping)) {
		if (!budget--) {
			/* a connect flood must not keep this CPU's worker */
			queue_delayed_work(gb_tcp_wq, &l->accept_work, 0);
			break;
		}
		err = kernel_accept(l->sock, &s, O_NONBLOCK);
		if (!err) {
			gb_tcp_adopt(l, s);
			gb_tcp_new_conn(l, s);
			continue;
		}
		/*
		 * -EAGAIN: the queue is empty. No memory for the socket:
		 * connections stay queued that no new one may come to wake,
		 * so try again shortly. Anything else (a security module's
		 * denial) would fail again: the next connection retries.
		 */
		if (err == -ENOMEM || err == -ENOBUFS)
			queue_delayed_work(gb_tcp_wq, &l->accept_work, HZ / 10);
		else if (err != -EAGAIN)
			pr_warn_ratelimited("goblin: memcache listener %u: accept failed: %d\n",
					    l->id, err);
		break;
	}
}

static void gb_listen_data_ready(struct sock *sk)
{
	struct gb_tcp_listener *l;

	/*
	 * Children inherit this callback and the listener pointer until
	 * gb_tcp_adopt(): data on a connection still in the accept queue
	 * lands here. Only the listening socket may touch the listener; a
	 * child's copy of the pointer can outlive it (listener stop cancels
	 * the accept work before it closes the socket and its queue).
	 */
	if (sk->sk_state != TCP_LISTEN)
		return;
	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l)	/* now, even if an out-of-memory retry is pending */
		mod_delayed_work(gb_tcp_wq, &l->accept_work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Output waits: queued here, or unacknowledged in the socket. */
static bool gb_conn_out_waiting(struct gb_tcp_conn *c)
{
	const struct tcp_sock *tp = tcp_sk(c->sock->sk);

	return READ_ONCE(c->out_bytes) ||
	       READ_ONCE(tp->write_seq) != READ_ONCE(tp->snd_una);
}

/*
 * gb_conn_kill() - close @c from its work, with a reset if output waits
 * (see gb_conn_close()). Caller holds gb_tcp_lock, @c is on gb_tcp_conns.
 */
static void gb_conn_kill(struct gb_tcp_conn *c)
{
	if (gb_conn_out_waiting(c))
		WRITE_ONCE(c->abort, true);
	WRITE_ONCE(c->kill, true);
	gb_tcp_queue(c);
}

/*
 * Has @c had output waiting (queued, or in the socket unacknowledged)
 * without any progress for the listener's write_timeout? Sampled once a
 * second by the idle work; the stall_* fields are its own. A client that
 * stops reading (a zero window) is cut off here instead of holding the
 * objects and quarantined pages its replies reference. Caller holds
 * gb_tcp_lock (@c stays on the list, its socket open).
 */
static bool gb_conn_write_stalled(struct gb_tcp_conn *c)
{
	const struct tcp_sock *tp = tcp_sk(c->sock->sk);
	unsigned long limit = (unsigned long)c->l->cfg.write_timeout * HZ;
	u32 una = READ_ONCE(tp->snd_una);
	u64 out = READ_ONCE(c->bytes_out);

	if (!gb_conn_out_waiting(c) || out != c->stall_out ||
	    una != c->stall_una) {
		c->stall_out = out;
		c->stall_una = una;
		c->stall_since = jiffies;
		return false;
	}
	if (READ_ONCE(c->kill) || !time_after(jiffies, c->stall_since + limit))
		return false;
	atomic64_inc(&gb_tcp_ctr(c->l)->write_stalls);
	return true;
}

/*
 * memcached's idle_timeout rule: only a connection waiting for a command
 * times out, not one receiving a value or with a reply still going out
 * (queued here or unacknowledged in the socket). Caller holds gb_tcp_lock.
 */
static bool gb_conn_idle(struct gb_tcp_conn *c, unsigned long limit)
{
	if (!limit || !time_after(jiffies, READ_ONCE(c->last_rx) + limit))
		return false;
	return READ_ONCE(c->rx) == GB_RX_LINE && !READ_ONCE(c->sink.resume) &&
	       !gb_conn_out_waiting(c);
}

/*
 * A value that stopped arriving or arrives too slowly: a memcache
 * connection in the data phase of a storage command that received nothing
 * for gb_conn_data_secs(), or is past its gb_conn_data_deadline(), while
 * no reply waits (a client that does not read is write_timeout's). Closing
 * frees the half-built object it holds. Counted once: a connection being
 * killed is not looked at again. Caller holds gb_tcp_lock.
 */
static bool gb_conn_data_stalled(struct gb_tcp_conn *c)
{
	unsigned long secs = gb_conn_data_secs(c->l);
	unsigned long deadline;

	if (c->l->proto || READ_ONCE(c->kill) ||
	    READ_ONCE(c->rx) != GB_RX_DATA)
		return false;
	/* the deadline written before rx (gb_conn_process()) */
	smp_rmb();
	deadline = READ_ONCE(c->data_deadline);
	if (!time_after(jiffies, READ_ONCE(c->last_rx) + secs * HZ) &&
	    !time_after(jiffies, deadline))
		return false;
	if (gb_conn_out_waiting(c))
		return false;
	atomic64_inc(&gb_tcp_ctr(c->l)->data_stalls);
	return true;
}

/*
 * The last send said -EAGAIN (or took only part) and output waits here
 * while the socket holds none of it unacknowledged. A send that finds the
 * socket buffer full is resumed by the ACKs that empty it
 * (gb_conn_write_space()), but tcp_sendmsg() also stops (-EAGAIN, or
 * short) when it cannot allocate an skb, and with nothing in flight no ACK
 * will come: the reply would wait for write_timeout. The idle work retries
 * such a connection once a second.
 * Caller holds gb_tcp_lock.
 */
static bool gb_conn_send_stuck(struct gb_tcp_conn *c)
{
	const struct tcp_sock *tp = tcp_sk(c->sock->sk);

	return READ_ONCE(c->send_eagain) && READ_ONCE(c->out_bytes) &&
	       READ_ONCE(tp->write_seq) == READ_ONCE(tp->snd_una);
}

/* A protocol's deadline (gb_tcp_set_deadline()) has passed. */
static bool gb_conn_deadline_passed(const struct gb_tcp_conn *c)
{
	unsigned long d = READ_ONCE(c->deadline);

	return d && time_after(jiffies, d);
}

static void gb_tcp_idle_work(struct work_struct *work)
{
	struct gb_tcp_listener *l = container_of(to_delayed_work(work),
						 struct gb_tcp_listener,
						 idle_work);
	unsigned long limit = (unsigned long)l->cfg.idle_timeout * HZ;
	struct gb_tcp_conn *c;

	spin_lock(&gb_tcp_lock);
	list_for_each_entry(c, &gb_tcp_conns, node) {
		if (c->l != l)
			continue;
		if (gb_conn_idle(c, limit) || gb_conn_deadline_passed(c) ||
		    gb_conn_data_stalled(c) || gb_conn_write_stalled(c)) {
			gb_conn_kill(c);
		} else if (gb_conn_send_stuck(c)) {
			atomic64_inc(&gb_tcp_send_retries);
			gb_tcp_queue(c);
		}
	}
	spin_unlock(&gb_tcp_lock);
	queue_delayed_work(gb_tcp_wq, &l->idle_work, HZ);
}

/* ---- listeners ---- */

static struct gb_tcp_listener *gb_tcp_find(const struct sockaddr_storage *a)
{
	struct gb_tcp_listener *l;

	list_for_each_entry(l, &gb_tcp_listeners, node)
		if (gb_listener_addr_equal(&l->cfg.addr, a))
			return l;
	return NULL;
}

int gb_tcp_listen(const struct gb_listener_config *cfg,
		  const struct gb_tcp_proto *proto,
		  struct netlink_ext_ack *extack)
{
	struct gb_tcp_listener *l;
	struct socket *s;
	struct sock *sk;
	int family = cfg->addr.ss_family, alen, err;

	if (family == AF_INET) {
		alen = sizeof(struct sockaddr_in);
	} else if (family == AF_INET6) {
		alen = sizeof(struct sockaddr_in6);
	} else {
		NL_SET_ERR_MSG(extack, "TCP listener needs an IPv4 or IPv6 address");
		return -EAFNOSUPPORT;
	}

	mutex_lock(&gb_tcp_mutex);
	if (gb_tcp_find(&cfg->addr)) {
		mutex_unlock(&gb_tcp_mutex);
		NL_SET_ERR_MSG(extack, "a TCP listener already uses this address");
		return -EEXIST;
	}
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l) {
		err = -ENOMEM;
		goto unlock;
	}
	l->cfg = *cfg;
	l->proto = proto;
	l->cfg.kind = gb_tcp_kind(l);
	if (!l->cfg.max_conns)
		l->cfg.max_conns = GB_TCP_DEFAULT_MAX_CONNS;
	if (!l->cfg.write_timeout)
		l->cfg.write_timeout = GB_TCP_DEFAULT_WRITE_TIMEOUT;
	INIT_DELAYED_WORK(&l->accept_work, gb_tcp_accept_work);
	INIT_DELAYED_WORK(&l->idle_work, gb_tcp_idle_work);

	err = sock_create_kern(&init_net, family, SOCK_STREAM, IPPROTO_TCP,
			       &s);
	if (err) {
		/*
		 * __sock_create() says -ENFILE when sock_alloc() got no
		 * inode: a kernel socket has no file to count, so that is
		 * out of memory, and must read as such; so is inet6_create()'s
		 * -ENOBUFS when sk_alloc() fails.
		 */
		if (err == -ENFILE || err == -ENOBUFS)
			err = -ENOMEM;
		goto free;
	}
	sk = s->sk;
	sock_set_reuseaddr(sk);
	err = kernel_bind(s, (struct sockaddr *)&l->cfg.addr, alen);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot bind the TCP listener address");
		goto release;
	}
	err = kernel_listen(s, GB_BACKLOG);
	if (err)
		goto release;
	l->sock = s;
	l->id = ++gb_tcp_next_lid;

	write_lock_bh(&sk->sk_callback_lock);
	l->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = l;
	sk->sk_data_ready = gb_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	spin_lock(&gb_tcp_lock);
	list_add_tail(&l->node, &gb_tcp_listeners);
	spin_unlock(&gb_tcp_lock);
	/* Idle and write stall checks (write_timeout is never 0). */
	queue_delayed_work(gb_tcp_wq, &l->idle_work, HZ);
	queue_delayed_work(gb_tcp_wq, &l->accept_work, 0);
	mutex_unlock(&gb_tcp_mutex);
	gb_event_listener(gb_tcp_kind(l), l->id, &l->cfg.addr, true);
	return 0;

release:
	sock_release(s);
free:
	kfree(l);
unlock:
	mutex_unlock(&gb_tcp_mutex);
	return err;
}

static int gb_tcp_add(const struct gb_listener_config *cfg,
		      struct netlink_ext_ack *extack)
{
	return gb_tcp_listen(cfg, NULL, extack);
}

static bool gb_tcp_drained(void)
{
	bool empty;

	spin_lock(&gb_tcp_lock);
	empty = !gb_tcp_nconns;
	spin_unlock(&gb_tcp_lock);
	return empty;
}

/*
 * Stop @l and close its connections without waiting for them: listener
 * delete runs under genl_mutex, and a connection's teardown must not stall
 * every generic netlink family. @l leaves the list at once (its address
 * can be bound again) and is freed here if it has no connection, else by
 * the last one's gb_tcp_slot_put(). Called with gb_tcp_mutex held.
 */
static void gb_tcp_stop(struct gb_tcp_listener *l)
{
	struct sock *sk = l->sock->sk;
	struct gb_tcp_conn *c;
	bool free_l;

	WRITE_ONCE(l->stopping, true);
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = l->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_delayed_work_sync(&l->accept_work);
	WRITE_ONCE(l->accept_off, true);
	cancel_delayed_work_sync(&l->idle_work);
	if (READ_ONCE(gb_tcp_dbg_stop_delay_ms))
		msleep(READ_ONCE(gb_tcp_dbg_stop_delay_ms));
	/* Closes the children left in the accept queue, too. */
	kernel_sock_shutdown(l->sock, SHUT_RDWR);
	sock_release(l->sock);
	l->sock = NULL;
	/* No socket is left that could queue it; l is freed below. */
	cancel_delayed_work_sync(&l->accept_work);

	gb_event_listener(gb_tcp_kind(l), l->id, &l->cfg.addr, false);
	spin_lock(&gb_tcp_lock);
	list_del(&l->node);
	list_for_each_entry(c, &gb_tcp_conns, node)
		if (c->l == l)
			gb_conn_kill(c);
	l->stopped = true;
	free_l = !l->nconns;
	spin_unlock(&gb_tcp_lock);
	if (free_l)
		kfree(l);
}

int gb_tcp_unlisten(enum gb_listener_kind kind,
		    const struct sockaddr_storage *addr,
		    struct netlink_ext_ack *extack)
{
	struct gb_tcp_listener *l;

	mutex_lock(&gb_tcp_mutex);
	l = gb_tcp_find(addr);
	if (!l || gb_tcp_kind(l) != kind) {
		mutex_unlock(&gb_tcp_mutex);
		NL_SET_ERR_MSG(extack, "no such listener on this address");
		return -ENOENT;
	}
	gb_tcp_stop(l);
	mutex_unlock(&gb_tcp_mutex);
	return 0;
}

static int gb_tcp_del(const struct sockaddr_storage *addr,
		      struct netlink_ext_ack *extack)
{
	return gb_tcp_unlisten(GB_LISTENER_MEMCACHE, addr, extack);
}

static int gb_tcp_walk(u32 *cursor,
		       int (*fn)(const struct gb_listener_info *info, void *arg),
		       void *arg)
{
	return gb_tcp_listener_walk(GB_LISTENER_MEMCACHE, cursor, fn, arg);
}

int gb_tcp_listener_walk(enum gb_listener_kind kind, u32 *cursor,
			 int (*fn)(const struct gb_listener_info *info,
				   void *arg),
			 void *arg)
{
	struct gb_listener_info *info;
	struct gb_tcp_listener *l;
	int ret = 0;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&gb_tcp_mutex);
	list_for_each_entry(l, &gb_tcp_listeners, node) {
		if (l->id <= *cursor || gb_tcp_kind(l) != kind)
			continue;
		info->cfg = l->cfg;
		info->id = l->id;
		spin_lock(&gb_tcp_lock);
		info->conns = l->nconns;
		info->conns_total = l->conns_total;
		info->refused = l->refused;
		spin_unlock(&gb_tcp_lock);
		ret = fn(info, arg);
		if (ret)
			break;
		*cursor = l->id;
	}
	mutex_unlock(&gb_tcp_mutex);
	kfree(info);
	return ret;
}

static int gb_tcp_kconn_walk(int kind, u64 *cursor,
			     int (*fn)(const struct gb_tcp_conn_info *info,
				       void *arg),
			     void *arg);

int gb_tcp_conn_walk(u64 *cursor,
		     int (*fn)(const struct gb_tcp_conn_info *info, void *arg),
		     void *arg)
{
	return gb_tcp_kconn_walk(GB_LISTENER_MEMCACHE, cursor, fn, arg);
}

/* @kind < 0: connections of every kind */
static int gb_tcp_kconn_walk(int kind, u64 *cursor,
			     int (*fn)(const struct gb_tcp_conn_info *info,
				       void *arg),
			     void *arg)
{
	struct gb_tcp_conn_info *info;
	time64_t now = ktime_get_boottime_seconds();
	struct gb_tcp_conn *c;
	int ret = 0;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	spin_lock(&gb_tcp_lock);
	list_for_each_entry(c, &gb_tcp_conns, node) {
		if (c->id <= *cursor ||
		    (kind >= 0 && gb_tcp_kind(c->l) != kind))
			continue;
		memset(info, 0, sizeof(*info));
		info->id = c->id;
		info->listener_id = c->l->id;
		/* Copies from accept: nothing here may sleep. */
		info->peer = c->peer;
		info->local = c->local;
		info->requests = READ_ONCE(c->requests);
		info->bytes_in = READ_ONCE(c->bytes_in);
		info->bytes_out = READ_ONCE(c->bytes_out);
		info->age = now - c->started;
		info->idle = jiffies_to_msecs(jiffies - READ_ONCE(c->last_rx)) /
			     MSEC_PER_SEC;
		info->cpu = READ_ONCE(c->ran_cpu);
		ret = fn(info, arg);
		if (ret)
			break;
		*cursor = c->id;
	}
	spin_unlock(&gb_tcp_lock);
	kfree(info);
	return ret;
}

static void gb_tcp_kind_totals(enum gb_listener_kind kind,
			       struct gb_tcp_totals *t)
{
	struct gb_tcp_ctr *ctr = &gb_tcp_ctrs[kind];
	struct gb_tcp_listener *l;

	memset(t, 0, sizeof(*t));
	t->total_conns = atomic64_read(&ctr->total);
	t->rejected = atomic64_read(&ctr->rejected);
	t->bytes_read = atomic64_read(&ctr->bytes_read);
	t->bytes_written = atomic64_read(&ctr->bytes_written);
	t->write_stalls = atomic64_read(&ctr->write_stalls);
	t->data_stalls = atomic64_read(&ctr->data_stalls);
	spin_lock(&gb_tcp_lock);
	list_for_each_entry(l, &gb_tcp_listeners, node) {
		if (gb_tcp_kind(l) != kind)
			continue;
		t->curr_conns += l->nconns;
		t->max_conns += l->cfg.max_conns;
		t->listeners++;
	}
	spin_unlock(&gb_tcp_lock);
}

void gb_tcp_get_totals(struct gb_tcp_totals *t)
{
	gb_tcp_kind_totals(GB_LISTENER_MEMCACHE, t);
}

/* Adapter from gb_tcp_conn_walk() to the registry's struct gb_conn_info. */
struct gb_tcp_info_walk_arg {
	enum gb_listener_kind kind;
	gb_conn_visit_fn fn;
	void *arg;
	struct gb_conn_info ci;
};

static int gb_tcp_info_visit(const struct gb_tcp_conn_info *ti, void *arg)
{
	struct gb_tcp_info_walk_arg *w = arg;
	struct gb_conn_info *ci = &w->ci;

	memset(ci, 0, sizeof(*ci));
	ci->kind = w->kind;
	ci->listener_id = ti->listener_id;
	ci->id = ti->id;
	ci->peer = ti->peer;
	ci->rx_bytes = ti->bytes_in;
	ci->tx_bytes = ti->bytes_out;
	ci->cmds = ti->requests;
	ci->idle = ti->idle;
	ci->cpu = ti->cpu;
	return w->fn(ci, w->arg);
}

int gb_tcp_kind_conn_walk(enum gb_listener_kind kind, u64 *cursor,
			  gb_conn_visit_fn fn, void *arg)
{
	struct gb_tcp_info_walk_arg *w;
	int err;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->kind = kind;
	w->fn = fn;
	w->arg = arg;
	err = gb_tcp_kconn_walk(kind, cursor, gb_tcp_info_visit, w);
	kfree(w);
	return err;
}

static int gb_tcp_info_walk(u64 *cursor, gb_conn_visit_fn fn, void *arg)
{
	return gb_tcp_kind_conn_walk(GB_LISTENER_MEMCACHE, cursor, fn, arg);
}

static void gb_tcp_xport_stats(struct gb_xport_stats *st)
{
	gb_tcp_kind_stats(GB_LISTENER_MEMCACHE, st);
}

/* Adapter from the totals to the registry's struct gb_xport_stats. */
void gb_tcp_kind_stats(enum gb_listener_kind kind, struct gb_xport_stats *st)
{
	struct gb_tcp_totals t;

	gb_tcp_kind_totals(kind, &t);
	st->conns = t.curr_conns;
	st->conns_total = t.total_conns;
	st->rejected = t.rejected;
	st->rx_bytes = t.bytes_read;
	st->tx_bytes = t.bytes_written;
	st->write_stalls = t.write_stalls;
	st->data_stalls = t.data_stalls;
	st->max_conns = t.max_conns;
	st->listeners = t.listeners;
}

static const struct gb_listener_ops gb_tcp_listener_ops = {
	.add = gb_tcp_add,
	.del = gb_tcp_del,
	.walk = gb_tcp_walk,
	.conn_walk = gb_tcp_info_walk,
	.stats = gb_tcp_xport_stats,
};

/* ---- for the protocols over this machinery (tcp_int.h) ---- */

void gb_tcp_kind_stop_all(enum gb_listener_kind kind)
{
	struct gb_tcp_listener *l, *tmp;

	mutex_lock(&gb_tcp_mutex);
	list_for_each_entry_safe(l, tmp, &gb_tcp_listeners, node)
		if (gb_tcp_kind(l) == kind)
			gb_tcp_stop(l);
	mutex_unlock(&gb_tcp_mutex);
}

void *gb_tcp_priv(struct gb_tcp_conn *c)
{
	return c->priv;
}

void gb_tcp_set_priv(struct gb_tcp_conn *c, void *priv)
{
	c->priv = priv;
}

const struct gb_listener_config *gb_tcp_conn_cfg(struct gb_tcp_conn *c)
{
	return &c->l->cfg;
}

size_t gb_tcp_rx(struct gb_tcp_conn *c, char **p)
{
	*p = c->rbuf + c->rpos;
	return c->rlen - c->rpos;
}

void gb_tcp_rx_consume(struct gb_tcp_conn *c, size_t n)
{
	c->rpos += min(n, c->rlen - c->rpos);
}

size_t gb_tcp_rx_size(void)
{
	return GB_RBUF_SIZE;
}

int gb_tcp_out_text(struct gb_tcp_conn *c, const char *p, size_t len)
{
	return gb_sink_text(&c->sink, p, len);
}

int gb_tcp_out_obj(struct gb_tcp_conn *c, struct gb_obj *obj, u64 off,
		   u64 len)
{
	u64 vlen = obj->len;
	struct gb_out *e;
	int err;

	if (off > vlen || len > vlen - off) {
		gb_obj_put(obj);
		return -EINVAL;
	}
	err = gb_sink_value(&c->sink, obj);
	if (err || !vlen)
		return err;	/* a 0-byte value: reference already dropped */
	/* gb_sink_value() queued the whole value: narrow it */
	e = list_last_entry(&c->out, struct gb_out, node);
	c->out_bytes -= vlen - len;
	e->off = off;
	e->len = off + len;
	if (!len)
		gb_out_free(c, e);
	return 0;
}

bool gb_tcp_out_pending(struct gb_tcp_conn *c)
{
	return !list_empty(&c->out);
}

bool gb_tcp_backlog(struct gb_tcp_conn *c)
{
	return gb_conn_backlog(c);
}

void gb_tcp_count_request(struct gb_tcp_conn *c)
{
	WRITE_ONCE(c->requests, c->requests + 1);
}

void gb_tcp_linger(struct gb_tcp_conn *c)
{
	c->closing = true;
}

void gb_tcp_set_deadline(struct gb_tcp_conn *c, unsigned long deadline)
{
	WRITE_ONCE(c->deadline, deadline);
}

static int gb_tcp_dbg_counters_show(struct seq_file *m, void *v)
{
	seq_printf(m, "rbuf_grown %ld\n", atomic_long_read(&gb_tcp_rbuf_grown));
	seq_printf(m, "work_runs %lld\naccept_runs %lld\naccept_late %lld\nwrite_stalls %lld\nqueued_refs %lld\ndata_stalls %lld\n",
		   atomic64_read(&gb_tcp_work_runs),
		   atomic64_read(&gb_tcp_accept_runs),
		   atomic64_read(&gb_tcp_accept_late),
		   atomic64_read(&gb_tcp_ctrs[GB_LISTENER_MEMCACHE].write_stalls) +
		   atomic64_read(&gb_tcp_ctrs[GB_LISTENER_HTTP].write_stalls),
		   atomic64_read(&gb_tcp_queued_refs),
		   atomic64_read(&gb_tcp_ctrs[GB_LISTENER_MEMCACHE].data_stalls));
	seq_printf(m, "send_retries %lld\n",
		   atomic64_read(&gb_tcp_send_retries));
	seq_printf(m, "text_calls %lld\ntext_bytes %lld\nvalue_runs %lld\nvalue_calls %lld\nvalue_bytes %lld\nvalue_one_call %d\n",
		   atomic64_read(&gb_tcp_text_calls),
		   atomic64_read(&gb_tcp_text_bytes),
		   atomic64_read(&gb_tcp_value_runs),
		   atomic64_read(&gb_tcp_value_calls),
		   atomic64_read(&gb_tcp_value_bytes),
		   GB_SENDPAGES_ONE_CALL);
	seq_printf(m, "value_short %lld\nvalue_eagain %lld\nvalue_pages %lld\nvalue_unsent %lld\nfetch_retries %lld\n",
		   atomic64_read(&gb_tcp_value_short),
		   atomic64_read(&gb_tcp_value_eagain),
		   atomic64_read(&gb_tcp_value_pages),
		   atomic64_read(&gb_tcp_value_unsent),
		   atomic64_read(&gb_tcp_fetch_retries));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gb_tcp_dbg_counters);

static void gb_tcp_dbg_init(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL);

	if (IS_ERR_OR_NULL(dir))
		return;
	gb_tcp_dbg = debugfs_create_dir("tcp", dir);
	dput(dir);
	debugfs_create_file("counters", 0400, gb_tcp_dbg, NULL,
			    &gb_tcp_dbg_counters_fops);
	debugfs_create_bool("accept_hold", 0600, gb_tcp_dbg,
			    &gb_tcp_dbg_accept_hold);
	debugfs_create_u32("stop_delay_ms", 0600, gb_tcp_dbg,
			   &gb_tcp_dbg_stop_delay_ms);
	debugfs_create_u32("close_delay_ms", 0600, gb_tcp_dbg,
			   &gb_tcp_dbg_close_delay_ms);
	debugfs_create_u32("run_pages", 0600, gb_tcp_dbg,
			   &gb_tcp_dbg_run_pages);
}

int gb_tcp_init(void)
{
	struct gb_listener_config cfg = { .kind = GB_LISTENER_MEMCACHE };
	int err;

	/*
	 * Not WQ_MEM_RECLAIM: the work items allocate with GFP_KERNEL and
	 * read tail files; memory reclaim never waits for them.
	 */
	gb_tcp_wq = alloc_workqueue("goblin_tcp", 0, 0);
	if (!gb_tcp_wq)
		return -ENOMEM;
	gb_transport_register(GB_LISTENER_MEMCACHE, &gb_tcp_listener_ops);
	gb_tcp_dbg_init();
	if (gb_param_memcache && gb_param_memcache[0]) {
		err = gb_listener_parse_addr(gb_param_memcache, &cfg.addr);
		if (err) {
			pr_err("bad memcache address \"%s\"\n",
			       gb_param_memcache);
			goto fail;
		}
		err = gb_tcp_add(&cfg, NULL);
		if (err) {
			pr_err("cannot listen on %s: %d\n", gb_param_memcache,
			       err);
			goto fail;
		}
		pr_info("memcache listening on %s\n", gb_param_memcache);
	}
	return 0;
fail:
	gb_transport_unregister(GB_LISTENER_MEMCACHE);
	debugfs_remove(gb_tcp_dbg);
	gb_tcp_dbg = NULL;
	destroy_workqueue(gb_tcp_wq);
	return err;
}

void gb_tcp_exit(void)
{
	struct gb_tcp_listener *l, *tmp;

	mutex_lock(&gb_tcp_mutex);
	list_for_each_entry_safe(l, tmp, &gb_tcp_listeners, node)
		gb_tcp_stop(l);
	mutex_unlock(&gb_tcp_mutex);
	/* the connections' work runs on gb_tcp_wq, destroyed below */
	wait_event(gb_tcp_waitq, gb_tcp_drained());
	/*
	 * Unregister only now: a memcache "stats" of a connection still
	 * draining reads the totals through the registry (as it read them
	 * directly before the registry existed). Netlink, the other reader,
	 * is already gone.
	 */
	gb_transport_unregister(GB_LISTENER_MEMCACHE);
	debugfs_remove(gb_tcp_dbg);
	gb_tcp_dbg = NULL;
	destroy_workqueue(gb_tcp_wq);
}
