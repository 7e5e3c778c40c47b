/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: tracepoints of the data paths (trace system "goblin").
 *
 * Every step a request takes through the RDMA transport (protocol v3) and
 * the memcache TCP transport has an event; tools/gbtrace enables them
 * through tracefs, groups the events of one request and prints where the
 * time goes (Documentation/tracing.rst). A disabled tracepoint costs a
 * patched-out branch (static key); the arguments are not even evaluated
 * into the ring buffer.
 *
 * Request identity: events of a request carry "conn=ID req=N". For RDMA,
 * ID is the connection id (goblinctl conn list) and N the record tag the
 * client chose (libgoblin numbers its requests per connection). For TCP,
 * ID is the connection id and N the number of the request on the
 * connection (1, 2, ...). Layers below the transports (the store lookup
 * of a memcache get, tail page-cache reads) do not know the request: the
 * transport hands them a struct gb_trace_id (NULL: none), and their
 * events carry "xport=rdma|tcp|none conn=ID req=N" from it. A tail read
 * done while a value is being sent, long after the request was parsed
 * and maybe in another task, so still lands in its own request's
 * timeline.
 *
 * This is a leaf header of the base layer (scripts/layer-check): every
 * layer may include it, it includes nothing of the module. Only
 * kmod/trace.c defines CREATE_TRACE_POINTS.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM goblin

#if !defined(_GOBLIN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GOBLIN_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

#ifndef _GOBLIN_TRACE_ID
#define _GOBLIN_TRACE_ID
/* struct gb_trace_id.xport */
#define GB_TRACE_NONE	0
#define GB_TRACE_RDMA	1
#define GB_TRACE_TCP	2

/**
 * struct gb_trace_id - identity of a request, for events of lower layers
 * @conn:  connection id
 * @req:   RDMA record tag, or number of the TCP request on @conn
 * @xport: GB_TRACE_RDMA or GB_TRACE_TCP
 *
 * Set once per request (or queued value) by the transport; only the
 * tracepoints read it, and only while enabled.
 */
struct gb_trace_id {
	u64 conn;
	u64 req;
	u8 xport;
};

/* TP_fast_assign of the identity fields; @id may be NULL (no request) */
static inline void gb_trace_id_put(const struct gb_trace_id *id, u64 *conn,
				   u64 *req, u8 *xport)
{
	*conn = id ? id->conn : 0;
	*req = id ? id->req : 0;
	*xport = id ? id->xport : GB_TRACE_NONE;
}
#endif

#define gb_trace_xport(x)					\
	__print_symbolic(x,					\
			 { GB_TRACE_NONE, "none" },		\
			 { GB_TRACE_RDMA, "rdma" },		\
			 { GB_TRACE_TCP, "tcp" })

#define gb_trace_rdma_type(t)					\
	__print_symbolic(t,					\
			 { 0x01, "NOOP" },			\
			 { 0x02, "VERSION" },			\
			 { 0x10, "GET" },			\
			 { 0x11, "SET" },			\
			 { 0x12, "DELETE" },			\
			 { 0x13, "TOUCH" },			\
			 { 0x20, "FLOW" },			\
			 { 0x81, "R_NOOP" },			\
			 { 0x82, "R_VERSION" },			\
			 { 0x90, "R_VALUE" },			\
			 { 0x91, "R_BULK" },			\
			 { 0x92, "R_END" },			\
			 { 0x93, "R_STATUS" },			\
			 { 0x94, "R_ERROR" })

/* Connection events (both transports): what happened to connection @conn. */
#define GB_TRACE_CONN_ACCEPT	1	/* accepted (TCP) / connect request */
#define GB_TRACE_CONN_UP	2	/* established */
#define GB_TRACE_CONN_CLOSE	3	/* teardown starts */
#define GB_TRACE_CONN_FREE	4	/* gone, every resource released */
#define GB_TRACE_CONN_REFUSE	5	/* refused (limits, errors) */

#define gb_trace_conn_what(w)					\
	__print_symbolic(w,					\
			 { GB_TRACE_CONN_ACCEPT, "accept" },	\
			 { GB_TRACE_CONN_UP, "up" },		\
			 { GB_TRACE_CONN_CLOSE, "close" },	\
			 { GB_TRACE_CONN_FREE, "free" },	\
			 { GB_TRACE_CONN_REFUSE, "refuse" })

/* ---------------------------------------------------------------------- */
/* request steps: connection, request, record type */

DECLARE_EVENT_CLASS(gb_rdma_rec_class,
		    TP_PROTO(u64 conn, u64 req, u8 type),
		    TP_ARGS(conn, req, type),
		    TP_STRUCT__entry(__field(u64, conn)
				     __field(u64, req)
				     __field(u8, type)),
		    TP_fast_assign(__entry->conn = conn;
				   __entry->req = req;
				   __entry->type = type;),
		    TP_printk("conn=%llu req=%llu type=%s", __entry->conn,
			      __entry->req, gb_trace_rdma_type(__entry->type)));

/* A request record arrived (CQ context, before conn->work sees it). */
DEFINE_EVENT(gb_rdma_rec_class, gb_rdma_recv,
	     TP_PROTO(u64 conn, u64 req, u8 type),
	     TP_ARGS(conn, req, type));

/* conn->work took the record and parsed it: execution starts. */
DEFINE_EVENT(gb_rdma_rec_class, gb_rdma_parsed,
	     TP_PROTO(u64 conn, u64 req, u8 type),
	     TP_ARGS(conn, req, type));

/* A response header record (VALUE, END, STATUS, ERROR, ...) was posted. */
DEFINE_EVENT(gb_rdma_rec_class, gb_rdma_reply,
	     TP_PROTO(u64 conn, u64 req, u8 type),
	     TP_ARGS(conn, req, type));

/*
 * A signaled SEND (reply or BULK) completed (CQ context); status is the
 * work completion's (enum ib_wc_status: 0 success, 5 IB_WC_WR_FLUSH_ERR:
 * flushed, the QP went into error first, ...).
 */
TRACE_EVENT(gb_rdma_send_done,
	    TP_PROTO(u64 conn, u64 req, u8 type, int status),
	    TP_ARGS(conn, req, type, status),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(int, status)
			     __field(u8, type)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->req = req;
			   __entry->status = status;
			   __entry->type = type;),
	    TP_printk("conn=%llu req=%llu type=%s status=%d", __entry->conn,
		      __entry->req, gb_trace_rdma_type(__entry->type),
		      __entry->status));

/* The request finished executing: conn->work takes the next one. */
DEFINE_EVENT(gb_rdma_rec_class, gb_rdma_done,
	     TP_PROTO(u64 conn, u64 req, u8 type),
	     TP_ARGS(conn, req, type));

TRACE_EVENT(gb_rdma_lookup,
	    TP_PROTO(u64 conn, u64 req, u32 key, bool hit, u64 bytes),
	    TP_ARGS(conn, req, key, hit, bytes),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(u64, bytes)
			     __field(u32, key)
			     __field(bool, hit)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->req = req;
			   __entry->bytes = bytes;
			   __entry->key = key;
			   __entry->hit = hit;),
	    TP_printk("conn=%llu req=%llu key=%u hit=%d bytes=%llu",
		      __entry->conn, __entry->req, __entry->key, __entry->hit,
		      __entry->bytes));

DECLARE_EVENT_CLASS(gb_rdma_chunk_class,
		    TP_PROTO(u64 conn, u64 req, u32 win, u64 off, u32 len,
			     u32 nwr),
		    TP_ARGS(conn, req, win, off, len, nwr),
		    TP_STRUCT__entry(__field(u64, conn)
				     __field(u64, req)
				     __field(u64, off)
				     __field(u32, win)
				     __field(u32, len)
				     __field(u32, nwr)),
		    TP_fast_assign(__entry->conn = conn;
				   __entry->req = req;
				   __entry->off = off;
				   __entry->win = win;
				   __entry->len = len;
				   __entry->nwr = nwr;),
		    TP_printk("conn=%llu req=%llu win=%u off=%llu len=%u nwr=%u",
			      __entry->conn, __entry->req, __entry->win,
			      __entry->off, __entry->len, __entry->nwr));

/* The RDMA WRITE WRs of one chunk are set up (pages mapped or registered). */
DEFINE_EVENT(gb_rdma_chunk_class, gb_rdma_write,
	     TP_PROTO(u64 conn, u64 req, u32 win, u64 off, u32 len, u32 nwr),
	     TP_ARGS(conn, req, win, off, len, nwr));

/* The chunk's WRITE chain and its BULK SEND were posted. */
DEFINE_EVENT(gb_rdma_chunk_class, gb_rdma_bulk,
	     TP_PROTO(u64 conn, u64 req, u32 win, u64 off, u32 len, u32 nwr),
	     TP_ARGS(conn, req, win, off, len, nwr));

/*
 * SET: one RDMA READ of the value (bytes [off, off + len) of it, nwr WRs)
 * was posted; bounce is 1 when it lands in the bounce buffer (tail
 * bytes, copied into the page cache afterwards), 0 into head pages.
 */
TRACE_EVENT(gb_rdma_read,
	    TP_PROTO(u64 conn, u64 req, u64 off, u32 len, u32 nwr, bool bounce),
	    TP_ARGS(conn, req, off, len, nwr, bounce),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(u64, off)
			     __field(u32, len)
			     __field(u32, nwr)
			     __field(bool, bounce)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->req = req;
			   __entry->off = off;
			   __entry->len = len;
			   __entry->nwr = nwr;
			   __entry->bounce = bounce;),
	    TP_printk("conn=%llu req=%llu off=%llu len=%u nwr=%u bounce=%d",
		      __entry->conn, __entry->req, __entry->off, __entry->len,
		      __entry->nwr, __entry->bounce));

/* That READ completed (CQ context); status as for gb_rdma_send_done. */
TRACE_EVENT(gb_rdma_read_done,
	    TP_PROTO(u64 conn, u64 req, int status),
	    TP_ARGS(conn, req, status),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(int, status)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->req = req;
			   __entry->status = status;),
	    TP_printk("conn=%llu req=%llu status=%d", __entry->conn,
		      __entry->req, __entry->status));

/* The client returned (FLOW) window @win, last filled for request @req. */
TRACE_EVENT(gb_rdma_win_return,
	    TP_PROTO(u64 conn, u64 req, u32 win),
	    TP_ARGS(conn, req, win),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(u32, win)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->req = req;
			   __entry->win = win;),
	    TP_printk("conn=%llu req=%llu win=%u", __entry->conn, __entry->req,
		      __entry->win));

/* ---------------------------------------------------------------------- */
/* memcache TCP */

DECLARE_EVENT_CLASS(gb_tcp_class,
		    TP_PROTO(u64 conn, u64 req, u64 n),
		    TP_ARGS(conn, req, n),
		    TP_STRUCT__entry(__field(u64, conn)
				     __field(u64, req)
				     __field(u64, n)),
		    TP_fast_assign(__entry->conn = conn;
				   __entry->req = req;
				   __entry->n = n;),
		    TP_printk("conn=%llu req=%llu n=%llu", __entry->conn,
			      __entry->req, __entry->n));

/*
 * The same fields, for events the transport records for every connection
 * (also HTTP's, which trace no timelines): only those of memcache
 * connections (@id: the connection's, xport GB_TRACE_TCP) are recorded.
 */
DECLARE_EVENT_CLASS(gb_tcp_conn_class,
		    TP_PROTO(const struct gb_trace_id *id, u64 req, u64 n),
		    TP_ARGS(id, req, n),
		    TP_STRUCT__entry(__field(u64, conn)
				     __field(u64, req)
				     __field(u64, n)),
		    TP_fast_assign(__entry->conn = id->conn;
				   __entry->req = req;
				   __entry->n = n;),
		    TP_printk("conn=%llu req=%llu n=%llu", __entry->conn,
			      __entry->req, __entry->n));

/* Bytes arrived (n bytes); req is the request they start or continue. */
DEFINE_EVENT_CONDITION(gb_tcp_conn_class, gb_tcp_recv,
		       TP_PROTO(const struct gb_trace_id *id, u64 req, u64 n),
		       TP_ARGS(id, req, n),
		       TP_CONDITION(id->xport == GB_TRACE_TCP));

/* Request line parsed (n: enum mc_cmd). */
DEFINE_EVENT(gb_tcp_class, gb_tcp_parsed,
	     TP_PROTO(u64 conn, u64 req, u64 n),
	     TP_ARGS(conn, req, n));

/* A value (n bytes, by page reference) was queued for sending. */
DEFINE_EVENT_CONDITION(gb_tcp_conn_class, gb_tcp_value,
		       TP_PROTO(const struct gb_trace_id *id, u64 req, u64 n),
		       TP_ARGS(id, req, n),
		       TP_CONDITION(id->xport == GB_TRACE_TCP));

/*
 * The request executed, its whole response is queued (n: bytes queued on
 * the connection); a storage command once its data block was taken, a
 * multi-key get that paused for output to drain once its last key is.
 */
DEFINE_EVENT(gb_tcp_class, gb_tcp_queued,
	     TP_PROTO(u64 conn, u64 req, u64 n),
	     TP_ARGS(conn, req, n));

/*
 * The last byte of request req's response was handed to the socket (n:
 * bytes sent on the connection so far). Requests whose responses end in
 * the same queued text get one each, in order.
 */
DEFINE_EVENT(gb_tcp_class, gb_tcp_sent,
	     TP_PROTO(u64 conn, u64 req, u64 n),
	     TP_ARGS(conn, req, n));

/* Store lookup of a memcache get key. */
TRACE_EVENT(gb_mc_lookup,
	    TP_PROTO(const struct gb_trace_id *id, u32 klen, bool hit,
		     u64 bytes),
	    TP_ARGS(id, klen, hit, bytes),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(u64, bytes)
			     __field(u32, klen)
			     __field(bool, hit)
			     __field(u8, xport)),
	    TP_fast_assign(gb_trace_id_put(id, &__entry->conn, &__entry->req,
					   &__entry->xport);
			   __entry->bytes = bytes;
			   __entry->klen = klen;
			   __entry->hit = hit;),
	    TP_printk("xport=%s conn=%llu req=%llu klen=%u hit=%d bytes=%llu",
		      gb_trace_xport(__entry->xport), __entry->conn,
		      __entry->req, __entry->klen, __entry->hit,
		      __entry->bytes));

/* ---------------------------------------------------------------------- */
/* tails, connections */

/* A tail page is not in the page cache: reading it starts (or waits). */
TRACE_EVENT(gb_tail_read_start,
	    TP_PROTO(const struct gb_trace_id *id, u64 index, u64 pages),
	    TP_ARGS(id, index, pages),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(u64, index)
			     __field(u64, pages)
			     __field(u8, xport)),
	    TP_fast_assign(gb_trace_id_put(id, &__entry->conn, &__entry->req,
					   &__entry->xport);
			   __entry->index = index;
			   __entry->pages = pages;),
	    TP_printk("xport=%s conn=%llu req=%llu index=%llu pages=%llu",
		      gb_trace_xport(__entry->xport), __entry->conn,
		      __entry->req, __entry->index, __entry->pages));

/* The read of tail page @index is done (err: 0 or -errno). */
TRACE_EVENT(gb_tail_read_done,
	    TP_PROTO(const struct gb_trace_id *id, u64 index, int err),
	    TP_ARGS(id, index, err),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(u64, req)
			     __field(u64, index)
			     __field(int, err)
			     __field(u8, xport)),
	    TP_fast_assign(gb_trace_id_put(id, &__entry->conn, &__entry->req,
					   &__entry->xport);
			   __entry->index = index;
			   __entry->err = err;),
	    TP_printk("xport=%s conn=%llu req=%llu index=%llu err=%d",
		      gb_trace_xport(__entry->xport), __entry->conn,
		      __entry->req, __entry->index, __entry->err));

/* Connection lifecycle; rdma is 1 for RDMA, 0 for TCP. */
TRACE_EVENT(gb_conn,
	    TP_PROTO(bool rdma, u64 conn, int what),
	    TP_ARGS(rdma, conn, what),
	    TP_STRUCT__entry(__field(u64, conn)
			     __field(int, what)
			     __field(bool, rdma)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->what = what;
			   __entry->rdma = rdma;),
	    TP_printk("xport=%s conn=%llu what=%s",
		      __entry->rdma ? "rdma" : "tcp", __entry->conn,
		      gb_trace_conn_what(__entry->what)));

#endif /* _GOBLIN_TRACE_H */

/*
 * define_trace.h includes this file again through TRACE_INCLUDE_PATH:
 * "." relative to the -I of kmod/ that Kbuild gives every object (the
 * in-tree, the per-kernel out-of-tree and the DKMS builds alike).
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
