// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): the SET (pull) path, DELETE and
 * TOUCH.
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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include "rdma_int.h"

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
	conn->rd_tag = r->rec.tag;
	r->slen = len;
	first = rdma_rw_ctx_wrs(&conn->rd_ctx, conn->qp, conn->port,
				&conn->read_cqe, NULL);
	gb_rdma_rw_errcqe(conn, first, NULL);
	trace_gb_rdma_read(conn->id, r->rec.tag, r->soff, len, conn->rd_nwr,
			   conn->rd_bounce);
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
	case -EBADMSG:	/* append/prepend: the old bytes fail their CRC */
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
				   "stored value fails its CRC check");
		break;
	case -EINVAL:	/* gb_obj_alloc(): the store refused the key */
		gb_rdma_prep_error(conn, GB_RDMA_ERR_CLIENT, "bad key");
		break;
	case -EIO:	/* the tail: its writeback, or reading it back */
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
				   "I/O error storing object");
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
u32 gb_rdma_set_delay_ms;
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
void gb_rdma_set_failed(struct gb_rdma_conn *conn)
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

int gb_rdma_set_start(struct gb_rdma_conn *conn)
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
		obj = gb_obj_alloc_node(r->rec.u.set.key, r->rec.u.set.klen,
					r->rec.u.set.flags,
					gb_exptime_abs(r->rec.u.set.exptime),
					bytes, ibdev_to_node(conn->dev->ibdev));
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

int gb_rdma_set_step(struct gb_rdma_conn *conn)
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
				/*
				 * -EINVAL here is no bad key but a write out
				 * of the object's range (a server bug): the
				 * client is told of an I/O error, deliberately.
				 */
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

void gb_rdma_keyop(struct gb_rdma_conn *conn)
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
