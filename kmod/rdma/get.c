// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): sending records and the GET
 * (push) path.
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
 * Folded responses (revision 3.2, GB_RDMA_CONNECT_FOLD)
 * -----------------------------------------------------
 * For a client that asked for them, the records of a GET are folded into
 * as few SENDs as RC ordering allows. A value up to the inline limit
 * (conn->rec_size - 512) is copied (gb_obj_read()) into the send buffer
 * right behind its VALUE: one SEND, no window, no page reference kept
 * beyond the copy. A larger value's VALUE is not sent ahead: it rides in
 * the send of the first chunk (GB_RDMA_VALUE_BULK), i.e. it is the SEND at
 * the end of that chunk's WRITE chain, posted and signaled exactly as a
 * BULK would be, so the page ownership rules above hold unchanged. The
 * END of a GET whose last key hits goes out in that value's last SEND
 * (GB_RDMA_VALUE_END / GB_RDMA_BULK_END): the WRITEs before it in the
 * chain are placed before the client sees that SEND's receive
 * completion. If the store fails before a folded VALUE was sent, a plain
 * VALUE and then ERROR go out, exactly as on a 3.0/3.1 connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include "rdma_int.h"

/*
 * Tear down an rw ctx, then drop the page references behind it: the ctx
 * (MRs, DMA mapping) must be gone before the pages may be reused.
 */
void gb_rdma_rw_release(struct gb_rdma_conn *conn,
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

void gb_rdma_win_release(struct gb_rdma_conn *conn,
			 struct gb_rdma_win *w)
{
	gb_rdma_rw_release(conn, &w->ctx, w->sgl, w->nents, DMA_TO_DEVICE,
			   true);
	w->nents = 0;
	w->busy = false;
}

/* Count an initialised rw ctx; more WRs than R/W ops means MRs are used. */
void gb_rdma_rw_count(struct gb_rdma_conn *conn,
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
void gb_rdma_rw_errcqe(struct gb_rdma_conn *conn,
		       struct ib_send_wr *first, struct ib_send_wr *end)
{
	struct ib_send_wr *wr;

	for (wr = first; wr && wr != end; wr = wr->next)
		if (!wr->wr_cqe)
			wr->wr_cqe = &conn->rw_cqe;
}

void gb_rdma_tx_release(struct gb_rdma_conn *conn,
			struct gb_rdma_tx *tx)
{
	if (tx->win >= 0)
		gb_rdma_win_release(conn, &conn->win[tx->win]);
	if (tx->obj)
		gb_obj_put(tx->obj);
	tx->win = -1;
	tx->obj = NULL;
	conn->lease_posted &= ~tx->leases;	/* registered (or flushed) */
	tx->leases = 0;
	if (tx->held)		/* gb_rdma_lookup_reap_held() */
		conn->os_held_nwr -= tx->nwr;
	tx->held = false;
	conn->sq_avail += tx->nwr;
	tx->nwr = 0;
	list_add_tail(&tx->node, &conn->tx_free);
}

static bool gb_rdma_can_send(struct gb_rdma_conn *conn, u32 nwr)
{
	return !list_empty(&conn->tx_free) && conn->peer_credits >= 2 &&
	       conn->sq_avail >= (int)nwr;
}

/* May a chain that registers memory be posted now? (rxe quirk) */
bool gb_rdma_can_register(struct gb_rdma_conn *conn)
{
	return !conn->mr_quiesce || conn->sq_avail == conn->sq_size;
}

struct gb_rdma_tx *gb_rdma_tx_get(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx;

	tx = list_first_entry(&conn->tx_free, struct gb_rdma_tx, node);
	list_del(&tx->node);
	tx->win = -1;
	tx->obj = NULL;
	tx->leases = 0;
	tx->held = false;
	tx->nwr = 1;
	tx->len = GB_RDMA_RECORD_SIZE;
	return tx;
}

void *gb_rdma_tx_buf(struct gb_rdma_conn *conn, struct gb_rdma_tx *tx)
{
	return tx->buf;
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
int gb_rdma_post_tx(struct gb_rdma_conn *conn, struct gb_rdma_tx *tx,
		    struct ib_send_wr *first)
{
	struct gb_rdma_hdr *h = gb_rdma_tx_buf(conn, tx);
	int ret;

	h->credits = cpu_to_le16(conn->owed);
	ib_dma_sync_single_for_device(conn->dev->ibdev, tx->sge.addr,
				      tx->len, DMA_TO_DEVICE);
	tx->sge.length = tx->len;
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
	trace_gb_rdma_reply(conn->id, conn->cur.rec.tag, conn->cur.reply[0]);
	if (conn->cur.rec.type == GB_RDMA_GET)
		conn->st.get_sends++;
	return gb_rdma_post_tx(conn, tx, NULL);
}

/* Prepare ERROR of @kind; the message says what was wrong, never empty. */
__printf(3, 4) void gb_rdma_prep_error(struct gb_rdma_conn *conn,
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

void gb_rdma_prep_status(struct gb_rdma_conn *conn, u32 status)
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

/*
 * Send @obj's CRC with it (VALUE and last BULK)? Only to a client that
 * asked for CRCs at connect (revision 3.1): for every other one these
 * fields are reserved and go out as zero. The CRC was set before the
 * object was published and never changes.
 */
static bool gb_rdma_send_crc(const struct gb_rdma_conn *conn,
			     const struct gb_obj *obj)
{
	return (conn->geom.flags & GB_RDMA_CONNECT_CRC) && obj->has_crc;
}

/* Revision 3.2: fold this connection's GET responses (see top comment)? */
static bool gb_rdma_fold(const struct gb_rdma_conn *conn)
{
	return conn->geom.flags & GB_RDMA_CONNECT_FOLD;
}

/* Is the current value the GET's last key, so its last SEND may carry END? */
static bool gb_rdma_fold_end(const struct gb_rdma_conn *conn)
{
	return gb_rdma_fold(conn) &&
	       conn->cur.key + 1 == conn->cur.rec.u.get.nkeys;
}

/* Fill a VALUE body for the current object (its header is set already). */
static void gb_rdma_fill_value(struct gb_rdma_conn *conn,
			       struct gb_rdma_value *v)
{
	struct gb_rdma_req *r = &conn->cur;

	v->key_index = cpu_to_le16(r->key);
	v->klen = r->obj->klen;
	v->flags = cpu_to_le32(r->obj->flags);
	v->bytes = cpu_to_le64(r->obj->len);
	v->cas = cpu_to_le64(READ_ONCE(r->obj->cas));
	if (gb_rdma_send_crc(conn, r->obj)) {
		v->vflags = GB_RDMA_VALUE_CRC;
		v->crc = cpu_to_le32(r->obj->crc);
	}
	memcpy(v->key, r->obj->key, r->obj->klen);
}

/* 3.2: put END in @e; the request ends with the record carrying it. */
static void gb_rdma_fill_end(struct gb_rdma_conn *conn, struct gb_rdma_end *e)
{
	e->hits = cpu_to_le16(conn->cur.hits);
	e->misses = cpu_to_le16(conn->cur.misses);
	conn->cur.end_folded = true;
	conn->st.folded++;
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

		ret = gb_obj_get_page_id(r->obj, r->off + pos, &pg, &pgoff,
					 &seg, &conn->tid);
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
	trace_gb_rdma_write(conn->id, r->rec.tag, w, r->off, len, nwr);
	win->nents = n;
	win->busy = true;
	win->tag = r->rec.tag;

	tx = gb_rdma_tx_get(conn);
	first = rdma_rw_ctx_wrs(&win->ctx, conn->qp, conn->port, NULL,
				&tx->wr);
	gb_rdma_rw_errcqe(conn, first, &tx->wr);

	if (gb_rdma_fold(conn) && r->off == 0) {
		/* 3.2: the value's VALUE carries its first BULK */
		struct gb_rdma_value *v;

		gb_rdma_hdr_init(gb_rdma_tx_buf(conn, tx), GB_RDMA_R_VALUE,
				 r->rec.tag, 0, sizeof(*v));
		v = gb_rdma_tx_buf(conn, tx) + sizeof(struct gb_rdma_hdr);
		gb_rdma_fill_value(conn, v);
		v->vflags |= GB_RDMA_VALUE_BULK;
		if (last && gb_rdma_fold_end(conn)) {
			v->vflags |= GB_RDMA_VALUE_END;
			gb_rdma_fill_end(conn, &v->end);
		} else {
			conn->st.folded++;
		}
		b = &v->bulk;
	} else if (last && gb_rdma_fold_end(conn)) {
		struct gb_rdma_bulk_end *be;

		gb_rdma_hdr_init(gb_rdma_tx_buf(conn, tx), GB_RDMA_R_BULK,
				 r->rec.tag, 0, sizeof(*be));
		be = gb_rdma_tx_buf(conn, tx) + sizeof(struct gb_rdma_hdr);
		gb_rdma_fill_end(conn, &be->end);
		b = &be->bulk;
		b->flags = cpu_to_le16(GB_RDMA_BULK_END);
	} else {
		gb_rdma_hdr_init(gb_rdma_tx_buf(conn, tx), GB_RDMA_R_BULK,
				 r->rec.tag, 0, sizeof(*b));
		b = gb_rdma_tx_buf(conn, tx) + sizeof(struct gb_rdma_hdr);
	}
	b->window = cpu_to_le16(w);
	b->flags |= cpu_to_le16(last ? GB_RDMA_BULK_LAST : 0);
	b->len = cpu_to_le32(len);
	b->offset = cpu_to_le64(r->off);
	b->key_index = cpu_to_le16(r->key);
	if (last && gb_rdma_send_crc(conn, r->obj)) {
		b->flags |= cpu_to_le16(GB_RDMA_BULK_CRC);
		b->crc = cpu_to_le32(r->obj->crc);
	}
	tx->win = w;
	tx->nwr = nwr + 1;
	win->client = true;
	conn->win_client++;
	if (last) {
		tx->obj = r->obj;
		r->obj = NULL;
		r->key++;
	}
	trace_gb_rdma_bulk(conn->id, r->rec.tag, w, r->off, len, tx->nwr);
	r->off += len;
	conn->st.bytes_written += len;
	conn->st.chunks++;
	conn->st.get_sends++;
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
	gb_rdma_fill_value(conn, v);
	r->reply_pending = true;
}

/**
 * gb_rdma_post_inline() - send the current value inline in its VALUE (3.2)
 * @conn: connection; caller checked can_send(1)
 * @store_err: set to a store error (then nothing was posted)
 *
 * The value (at most conn->rec_size - 512 bytes, 0 included) is copied
 * right behind the 512-byte VALUE record; the SEND is 512 + bytes long.
 * END is folded in when this is the GET's last key. The object reference
 * is dropped here: nothing points at its pages after the copy.
 *
 * Return: 0 or a post error (the caller closes the connection).
 */
static int gb_rdma_post_inline(struct gb_rdma_conn *conn, int *store_err)
{
	struct gb_rdma_req *r = &conn->cur;
	struct gb_rdma_value *v;
	struct gb_rdma_tx *tx;
	u32 len = r->obj->len;
	u8 *buf;
	int ret;

	tx = gb_rdma_tx_get(conn);
	buf = gb_rdma_tx_buf(conn, tx);
	if (len) {
		ret = gb_obj_read(r->obj, 0, buf + GB_RDMA_RECORD_SIZE, len);
		if (ret) {
			list_add(&tx->node, &conn->tx_free);	/* not posted */
			*store_err = ret;
			return 0;
		}
	}
	gb_rdma_hdr_init(buf, GB_RDMA_R_VALUE, r->rec.tag, 0, sizeof(*v));
	v = (void *)(buf + sizeof(struct gb_rdma_hdr));
	gb_rdma_fill_value(conn, v);
	v->vflags |= GB_RDMA_VALUE_INLINE;
	if (gb_rdma_fold_end(conn)) {
		v->vflags |= GB_RDMA_VALUE_END;
		gb_rdma_fill_end(conn, &v->end);
	}
	tx->len = GB_RDMA_RECORD_SIZE + len;
	trace_gb_rdma_reply(conn->id, r->rec.tag, GB_RDMA_R_VALUE);
	gb_obj_put(r->obj);
	r->obj = NULL;
	r->key++;
	conn->st.bytes_written += len;
	conn->st.inline_values++;
	conn->st.get_sends++;
	return gb_rdma_post_tx(conn, tx, NULL);
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
int gb_rdma_flush_reply(struct gb_rdma_conn *conn)
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

/*
 * The store failed to read the current value: skip it and tell the client
 * with SERVER_ERROR. A folded VALUE (3.2) not sent yet goes out plain
 * first, so the client sees what a 3.0/3.1 client sees: VALUE, ERROR.
 */
static void gb_rdma_store_failed(struct gb_rdma_conn *conn, int serr)
{
	struct gb_rdma_req *r = &conn->cur;

	gb_rdma_count(conn, GB_RDMA_E_STORE);
	pr_warn_ratelimited("conn %llu: reading value failed: %d\n",
			    conn->id, serr);
	if (gb_rdma_fold(conn) && r->off == 0) {
		gb_rdma_prep_value(conn);
		r->err_pending = true;
	} else {
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
				   "error reading value");
	}
	gb_obj_put(r->obj);
	r->obj = NULL;
	r->key++;
}

/* Advance the GET; -EAGAIN when waiting for a window, credit or SQ slot. */
int gb_rdma_get_step(struct gb_rdma_conn *conn)
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
				trace_gb_rdma_done(conn->id, r->rec.tag,
						   r->rec.type);
				return 0;
			}
			if (r->err_pending) {
				/* the plain VALUE of a failed value is out */
				r->err_pending = false;
				gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
						   "error reading value");
			}
			continue;
		}
		if (r->end_folded) {
			/* 3.2: END went out in the last value's SEND */
			r->active = false;
			trace_gb_rdma_done(conn->id, r->rec.tag, r->rec.type);
			return 0;
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
			trace_gb_rdma_lookup(conn->id, r->rec.tag, i, !!r->obj,
					     r->obj ? r->obj->len : 0);
			if (!r->obj) {
				conn->st.misses++;
				r->misses++;
				r->key++;
				continue;
			}
			conn->st.hits++;
			r->hits++;
			r->off = 0;
			if (gb_rdma_fold(conn))
				continue;	/* VALUE goes with the data */
			gb_rdma_prep_value(conn);
			if (r->obj->len == 0) {
				/* nothing to stream: drop it after VALUE */
				gb_obj_put(r->obj);
				r->obj = NULL;
				r->key++;
			}
			continue;
		}
		if (gb_rdma_fold(conn) && r->off == 0 &&
		    r->obj->len <= conn->rec_size - GB_RDMA_RECORD_SIZE) {
			if (!gb_rdma_can_send(conn, 1))
				return -EAGAIN;
			serr = 0;
			ret = gb_rdma_post_inline(conn, &serr);
			if (ret)
				return ret;
			if (serr)
				gb_rdma_store_failed(conn, serr);
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
		if (serr)
			gb_rdma_store_failed(conn, serr);
	}
}
