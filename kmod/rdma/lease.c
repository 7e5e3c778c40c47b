// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): LOOKUP and the leases behind one-sided
 * READs of value heads (revision 3.3).
 *
 * Page ownership on the one-sided path
 * ------------------------------------
 * A lease (struct gb_rdma_lease, conn->leases[i], at most
 * GB_RDMA_LEASES_MAX per connection; the table is allocated at the
 * connection's first LOOKUP) is one object, one fast-registration MR and
 * one scatterlist sized for the value's pages (allocated when the lease
 * is taken, freed when it ends). LOOKUP takes the object reference from
 * gb_store_get() and a page reference for every head page of the value
 * (gb_obj_get_page(), as the GET path does; only values wholly in head
 * pages and at most GB_RDMA_ONESIDED_MAX bytes qualify), maps the pages
 * (DMA_TO_DEVICE) and maps them into an MR of its own, allocated for the
 * lease in the device's PD (ib_alloc_mr(), never
 * IB_PD_UNSAFE_GLOBAL_RKEY), with a new key byte (ib_update_fast_reg_key())
 * and a random address (iova) instead of the pages' DMA address
 * (gb_rdma_lease_rebase()). The REG_MR WRs, access
 * IB_ACCESS_REMOTE_READ only, go in one chain in front of the R_LOOKUP
 * SEND (on rxe a chain of their own, the SEND posted after their
 * completion: gb_rdma_lookup_step()), so they have executed before the
 * client can see the rkey.
 *
 * The store never reuses a head page while a reference taken through its
 * API is held (kmod/store.h): a replace, delete, eviction or promotion
 * during the lease unlinks the object, but its pages stay as they were
 * (objects are immutable once published) until the lease drops its
 * references. No hook in the store is needed for that.
 *
 * A lease ends (gb_rdma_lease_end()) on the client's release
 * (GB_RDMA_LOOKUP_RELEASE; a lease whose R_LOOKUP completion is not reaped
 * yet is marked in conn->lease_release and ends right after that reap, in
 * gb_rdma_leases_expire()), at its deadline (lease_ms plus
 * GB_RDMA_LEASE_GRACE_MS after the R_LOOKUP was posted; conn->lease_dw
 * kicks conn->work then), or at teardown after the QP was drained. In that
 * order: ib_dereg_mr() (the rkey is invalid when it returns, and the
 * driver has finished any access through the MR: rxe waits for its
 * references), unmap, put_page() of every page, gb_obj_put(). Only then may
 * the store reuse the pages. A lease whose REG_MR chain has not completed
 * yet (bit set in conn->lease_posted, cleared when the R_LOOKUP SEND's
 * completion is reaped) is not ended before that, except at teardown. All
 * of this runs in conn->work (and conn->release once work is cancelled).
 *
 * Memory a client can pin: a leased object holds a reference, so the
 * store's eviction passes over it (kmod/store/evict.c) and it stays
 * linked and charged inside the store's memory budget until the lease
 * ends; and a client can renew its leases for ever (RELEASE, then LOOKUP
 * the same keys). Left alone, a few connections could fill the budget with
 * objects nobody can evict, and every SET would then fail for lack of
 * memory. So leases are capped in bytes as well as in number: a connection
 * holds at most GB_RDMA_LEASES_MAX leases (MRs) and GB_RDMA_LEASE_CONN_BYTES
 * (4 MiB) of values, all connections together at most 1/8 of the store's
 * memory budget (gb_rdma_lease_charge(), gb_rdma_leased_bytes()); a key
 * above a cap gets BUSY and the client reads it with GET. The global cap
 * is first come, first served, with no share per peer (one peer address
 * holds at most max_peer_conns x GB_RDMA_LEASE_CONN_BYTES per listener):
 * documented in rdma-protocol.rst, it costs the others speed, not memory.
 * A lease is charged the pages it pins (PAGE_SIZE each), and lasts at most
 * lease_ms + grace.
 *
 * A READ with a stale or forged rkey or address fails at the responder
 * with a remote access error: the server's QP of that connection goes to the
 * error state and the connection closes (its leases end); other
 * connections and their MRs are untouched. All connections of a device
 * share its PD, so a forged rkey could name another connection's live
 * lease: it reads a value any client may GET, never a freed page.
 *
 * rxe re-executes local operations on retransmission (see kmod/rdma/conn.c),
 * so there a LOOKUP's REG_MR chain is posted on an idle send queue only
 * (the fault knob's held chains aside, gb_rdma_lookup_reap_held()), and
 * its R_LOOKUP SEND only once the REG_MRs' completion is reaped (the
 * block comment in gb_rdma_lookup_step()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include "rdma_int.h"

/* Lease length for new leases, ms; 0 = one-sided reads off (default). */
u32 gb_rdma_lease_ms;

/* Value bytes leased now, over all connections (see the top comment). */
static atomic64_t gb_rdma_lease_bytes_all = ATOMIC64_INIT(0);

u64 gb_rdma_leased_bytes(void)
{
	return (u64)atomic64_read(&gb_rdma_lease_bytes_all);
}

/*
 * gb_rdma_lease_fits() - whether a lease of @len bytes is within both caps
 * now (a refusal counted): gb_rdma_lease_charge()'s check, also made
 * before the page walk with a lower bound of the charge, so that a client
 * at its cap pays one compare per key, not an allocation and a page
 * reference per page.
 */
static bool gb_rdma_lease_fits(struct gb_rdma_conn *conn, u32 len)
{
	u64 cap = gb_store_memory() >> GB_RDMA_LEASE_MEM_SHIFT;

	if (conn->lease_bytes + len > GB_RDMA_LEASE_CONN_BYTES) {
		conn->st.leases_busy_conn++;
		return false;
	}
	if ((u64)atomic64_read(&gb_rdma_lease_bytes_all) + len > cap) {
		conn->st.leases_busy_global++;
		return false;
	}
	return true;
}

/**
 * gb_rdma_lease_charge() - count @len leased bytes against both caps
 * @conn: connection (conn->work)
 * @len:  bytes of the new lease (its value's pages)
 *
 * The connection may lease at most GB_RDMA_LEASE_CONN_BYTES, all
 * connections together at most the store's memory budget >>
 * GB_RDMA_LEASE_MEM_SHIFT (read now: a lowered budget refuses new leases,
 * held ones run out). Two connections racing for the last bytes may both
 * be refused; the total never passes the cap.
 *
 * Return: true when charged (gb_rdma_lease_uncharge() gives it back), false
 * when a cap would be passed (counted; the caller answers BUSY).
 */
static bool gb_rdma_lease_charge(struct gb_rdma_conn *conn, u32 len)
{
	u64 cap = gb_store_memory() >> GB_RDMA_LEASE_MEM_SHIFT;

	if (!gb_rdma_lease_fits(conn, len))
		return false;
	/* connections racing for the last bytes: the add decides */
	if ((u64)atomic64_add_return(len, &gb_rdma_lease_bytes_all) > cap) {
		atomic64_sub(len, &gb_rdma_lease_bytes_all);
		conn->st.leases_busy_global++;
		return false;
	}
	conn->lease_bytes += len;
	return true;
}

static void gb_rdma_lease_uncharge(struct gb_rdma_conn *conn, u32 len)
{
	atomic64_sub(len, &gb_rdma_lease_bytes_all);
	conn->lease_bytes -= len;
}

u32 gb_rdma_get_lease_ms(void)
{
	return READ_ONCE(gb_rdma_lease_ms);
}

void gb_rdma_set_lease_ms(u32 ms)
{
	WRITE_ONCE(gb_rdma_lease_ms, ms);
}

/*
 * A connection that negotiated 3.3. Nothing is allocated until it sends
 * a LOOKUP (gb_rdma_lookup_start()): the lease table then, and each
 * lease's scatterlist when it is taken, sized for its pages.
 */
void gb_rdma_leases_init(struct gb_rdma_conn *conn)
{
	conn->os_quiesce = conn->dev->ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	get_random_bytes(&conn->os_key, sizeof(conn->os_key));
}

/* Free the lease table, if any (after gb_rdma_leases_end_all()). */
void gb_rdma_leases_free(struct gb_rdma_conn *conn)
{
	if (!conn->leases)
		return;
	WARN_ON_ONCE(conn->lease_live || conn->lease_bytes);
	kfree(conn->leases);
	conn->leases = NULL;
}

/*
 * End lease @i: invalidate (deregister) its MR, then unmap and drop the
 * pages and the object. The order is what keeps a READ from ever seeing
 * a page the store has reused (see the top comment).
 */
static void gb_rdma_lease_end(struct gb_rdma_conn *conn, u32 i)
{
	struct gb_rdma_lease *l = &conn->leases[i];
	struct scatterlist *sg;
	u32 k;

	if (l->mr)
		WARN_ON_ONCE(ib_dereg_mr(l->mr));
	l->mr = NULL;
	if (l->mapped)
		ib_dma_unmap_sg(conn->dev->ibdev, l->sgl, l->nents,
				DMA_TO_DEVICE);
	l->mapped = 0;
	for_each_sg(l->sgl, sg, l->nents, k)
		put_page(sg_page(sg));
	l->nents = 0;
	kfree(l->sgl);
	l->sgl = NULL;
	if (l->obj)
		gb_obj_put(l->obj);
	l->obj = NULL;
	gb_rdma_lease_uncharge(conn, l->bytes);
	l->bytes = 0;
	conn->lease_live &= ~BIT_ULL(i);
	conn->lease_posted &= ~BIT_ULL(i);
	conn->lease_release &= ~BIT_ULL(i);
}

/* Teardown, after the QP was drained: end every lease. */
void gb_rdma_leases_end_all(struct gb_rdma_conn *conn)
{
	u64 m = conn->lease_live;

	while (m) {
		u32 i = __ffs64(m);

		m &= m - 1;
		gb_rdma_lease_end(conn, i);
	}
}

/* End the leases in @m whose registration has completed. */
static void gb_rdma_leases_end_mask(struct gb_rdma_conn *conn, u64 m,
				    u64 *count)
{
	m &= conn->lease_live & ~conn->lease_posted;
	while (m) {
		u32 i = __ffs64(m);

		m &= m - 1;
		gb_rdma_lease_end(conn, i);
		(*count)++;
	}
}

/**
 * gb_rdma_leases_expire() - end released and expired leases
 * @conn: connection (conn->work, after the reap)
 *
 * Ends the leases the client released while their R_LOOKUP completion was
 * not reaped yet (conn->lease_release) once it is, and the leases past
 * their deadline. Arms conn->lease_dw for the next deadline, if any lease
 * is left.
 */
void gb_rdma_leases_expire(struct gb_rdma_conn *conn)
{
	unsigned long now = jiffies, next = 0;
	bool any = false;
	u64 m, done = 0;

	if (conn->lease_release)
		gb_rdma_leases_end_mask(conn, conn->lease_release,
					&conn->st.leases_released);
	if (!conn->lease_live)
		return;
	for (m = conn->lease_live; m; m &= m - 1) {
		u32 i = __ffs64(m);
		unsigned long d = conn->leases[i].deadline;

		if (time_after_eq(now, d))
			done |= BIT_ULL(i);
		else if (!any || time_before(d, next))
			next = d, any = true;
	}
	gb_rdma_leases_end_mask(conn, done, &conn->st.leases_expired);
	/* one still posted at its deadline: look again soon */
	if (conn->lease_live & done)
		next = now + HZ / 10 + 1, any = true;
	/* fault injection: a held R_LOOKUP chain is reaped then */
	if (conn->os_hold_until) {
		unsigned long d = conn->os_hold_until;

		if (!time_after(d, now))
			d = now + 1;
		if (!any || time_before(d, next))
			next = d, any = true;
	}
	if (any)
		mod_delayed_work(gb_rdma_wq, &conn->lease_dw, next - now);
}

/**
 * gb_rdma_lookup_reap_held() - fault injection: reap @tx later?
 * @conn: connection (conn->work, gb_rdma_reap())
 * @tx:   a completed R_LOOKUP chain that registered leases
 *
 * With debugfs rdma-fault/lookup_reap_delay_ms set, the completion of a
 * LOOKUP chain stays unreaped for that long, as when the client's ACK is
 * late (coalesced by the HCA), so that a test can send LOOKUP|RELEASE
 * meanwhile. conn->lease_dw kicks conn->work when it is due
 * (gb_rdma_leases_expire()). Its send queue slots count in
 * conn->os_held_nwr until then: on rxe a LOOKUP may be posted while only
 * held chains are outstanding (their completions arrived, nothing of
 * theirs can be retransmitted), not while any other WR is
 * (gb_rdma_lookup_step()).
 *
 * Return: true to leave @tx on conn->tx_done for now.
 */
bool gb_rdma_lookup_reap_held(struct gb_rdma_conn *conn,
			      struct gb_rdma_tx *tx)
{
	u32 ms = READ_ONCE(gb_rdma_fault_lookup_reap_ms);
	unsigned long now = jiffies;

	if (!ms)
		return false;
	/*
	 * A held chain keeps its tx and send queue slots, and no completion
	 * moves conn->last_cqe meanwhile: at most 20 s, below the stall
	 * limit of the default idle timeout (30 s).
	 */
	ms = min(ms, 20000U);
	if (!tx->held) {
		tx->held = true;
		tx->hold_until = now + msecs_to_jiffies(ms);
		conn->os_held_nwr += tx->nwr;	/* gb_rdma_tx_release() */
	}
	if (time_after_eq(now, tx->hold_until))
		return false;
	if (!conn->os_hold_until ||
	    time_before(tx->hold_until, conn->os_hold_until))
		conn->os_hold_until = tx->hold_until;
	return true;
}

/* conn->lease_dw: a lease deadline passed, have conn->work look. */
void gb_rdma_lease_work(struct work_struct *work)
{
	struct gb_rdma_conn *conn = container_of(to_delayed_work(work),
						 struct gb_rdma_conn, lease_dw);

	gb_rdma_kick(conn);
}

/**
 * gb_rdma_lease_rebase() - give a mapped lease MR an address of its own
 * @mr: MR just mapped by ib_map_mr_sg(), its REG_MR not posted yet
 *
 * ib_map_mr_sg() sets mr->iova to the DMA address of the first byte: a
 * kernel virtual address on rxe and siw (their DMA mapping is virtual), a
 * physical one on hardware without an IOMMU. The client must not learn
 * either (it goes out in the descriptor's addr), and it needs no real
 * address: the iova only names the MR's byte 0 in the space the rkey
 * opens. So move the MR to a random page-aligned base in [0, 2^44), for
 * each lease anew, before the REG_MR is built (the device takes the iova
 * from the WR's MR when it executes it). The in-page offset stays, as the
 * drivers' page lists were computed for it.
 */
static void gb_rdma_lease_rebase(struct ib_mr *mr)
{
	/* 44 - PAGE_SHIFT random bits of page number, whatever the page size */
	mr->iova = ((u64)(get_random_u32() >> (PAGE_SHIFT - 12)) << PAGE_SHIFT) |
		   offset_in_page(mr->iova);
}

/**
 * gb_rdma_lease_take() - lease @obj's head pages in free lease slot @i
 * @conn: connection
 * @i:    free slot
 * @obj:  the object, a reference the lease takes over on success
 *
 * Charges the pages it pins (PAGE_SIZE each, after the page walk) against
 * the lease caps (gb_rdma_lease_charge()); gb_rdma_lease_end() uncharges
 * them.
 *
 * Return: 0 with conn->leases[i].reg ready to post; -EAGAIN when a lease
 * cap would be passed (BUSY); -E2BIG when the value cannot be one page
 * list (use GET); a store error; -ENOMEM or an MR error (BUSY). On error
 * nothing is held or charged but @obj.
 */
static int gb_rdma_lease_take(struct gb_rdma_conn *conn, u32 i,
			      struct gb_obj *obj)
{
	struct gb_rdma_lease *l = &conn->leases[i];
	struct ib_device *ibdev = conn->dev->ibdev;
	u32 len = obj->len, pos = 0, n = 0, nsg, bytes = 0;
	struct scatterlist *sg;
	struct ib_mr *mr;
	int ret, got;

	/* the charge below is at least PAGE_ALIGN(len) */
	if (!gb_rdma_lease_fits(conn, PAGE_ALIGN(len))) {
		ret = -EAGAIN;
		goto unwind;
	}
	/* the pages of len bytes, one more if the first starts inside */
	nsg = min_t(u32, DIV_ROUND_UP(len, PAGE_SIZE) + 1, GB_RDMA_OS_SGES);
	l->sgl = kmalloc_array(nsg, sizeof(*l->sgl), GFP_KERNEL);
	if (!l->sgl) {
		ret = -ENOMEM;
		goto unwind;
	}
	sg_init_table(l->sgl, nsg);
	while (pos < len) {
		struct page *pg;
		unsigned int pgoff, seg;

		ret = gb_obj_get_page_id(obj, pos, &pg, &pgoff, &seg,
					 &conn->tid);
		if (ret)
			goto unwind;
		seg = min(seg, len - pos);
		/* one page list: only the first may start, the last end, inside */
		if (!seg || n == nsg || (n && pgoff) ||
		    (pos + seg < len && pgoff + seg != PAGE_SIZE)) {
			put_page(pg);
			ret = -E2BIG;
			goto unwind;
		}
		sg_set_page(&l->sgl[n++], pg, seg, pgoff);
		pos += seg;
	}
	sg_mark_end(&l->sgl[n - 1]);
	/* the pages it pins: one more than len rounds up to if it straddles */
	if (!gb_rdma_lease_charge(conn, n << PAGE_SHIFT)) {
		ret = -EAGAIN;
		goto unwind;
	}
	bytes = n << PAGE_SHIFT;
	l->nents = n;
	got = ib_dma_map_sg(ibdev, l->sgl, n, DMA_TO_DEVICE);
	if (!got) {
		ret = -ENOMEM;
		goto unwind;
	}
	l->mapped = got;
	/* merged DMA entries still map page by page: size for the pages */
	mr = ib_alloc_mr(conn->dev->pd, IB_MR_TYPE_MEM_REG, n);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto unmap;
	}
	ib_update_fast_reg_key(mr, conn->os_key++);
	ret = ib_map_mr_sg(mr, l->sgl, got, NULL, PAGE_SIZE);
	if (ret != got) {
		ib_dereg_mr(mr);
		ret = -E2BIG;
		goto unmap;
	}
	gb_rdma_lease_rebase(mr);
	l->mr = mr;
	l->obj = obj;
	l->bytes = bytes;
	memset(&l->reg, 0, sizeof(l->reg));
	l->reg.wr.opcode = IB_WR_REG_MR;
	l->reg.wr.wr_cqe = &conn->rw_cqe;
	l->reg.mr = mr;
	l->reg.key = mr->rkey;
	l->reg.access = IB_ACCESS_REMOTE_READ;
	return 0;

unmap:
	ib_dma_unmap_sg(ibdev, l->sgl, n, DMA_TO_DEVICE);
	l->mapped = 0;
unwind:
	for_each_sg(l->sgl, sg, n, got)
		put_page(sg_page(sg));
	l->nents = 0;
	kfree(l->sgl);
	l->sgl = NULL;
	if (bytes)
		gb_rdma_lease_uncharge(conn, bytes);
	return ret;
}

/**
 * gb_rdma_lookup_start() - a LOOKUP record arrived
 * @conn: connection (conn->work)
 *
 * Refused with ERROR unless 3.3 was negotiated and the setting is on;
 * else the LOOKUP is served by gb_rdma_lookup_step(). The connection's
 * first LOOKUP allocates its lease table (GB_RDMA_LEASES_MAX slots).
 */
void gb_rdma_lookup_start(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;

	if (!gb_rdma_conn_onesided(conn)) {
		gb_rdma_count(conn, GB_RDMA_E_BAD_RECORD);
		gb_rdma_prep_error(conn, GB_RDMA_ERR_CLIENT,
				   "one-sided reads not negotiated");
		return;
	}
	if (!gb_rdma_get_lease_ms()) {
		gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
				   "one-sided reads are off");
		return;
	}
	if (!conn->leases) {
		conn->leases = kcalloc(GB_RDMA_LEASES_MAX,
				       sizeof(*conn->leases), GFP_KERNEL);
		if (!conn->leases) {
			gb_rdma_prep_error(conn, GB_RDMA_ERR_SERVER,
					   "out of memory");
			return;
		}
	}
	conn->st.lookups++;
	r->done_after_reply = false;
}

/**
 * gb_rdma_lookup_send() - rxe: post the R_LOOKUP after its REG_MR chain
 * @conn: connection (conn->work), conn->os_tx set
 *
 * Once the completion of the REG_MR chain is reaped (conn->os_reg_nwr
 * back to 0, gb_rdma_reap()), the leases' deadlines restart from now and
 * the R_LOOKUP SEND in conn->os_tx is posted; see gb_rdma_lookup_step().
 *
 * Return: 0 (reply posted), -EAGAIN (REG_MRs not reaped yet) or an error
 * (the caller closes the connection).
 */
static int gb_rdma_lookup_send(struct gb_rdma_conn *conn)
{
	struct gb_rdma_tx *tx = conn->os_tx;
	const struct gb_rdma_lookup_r *lr;
	unsigned long deadline;
	u64 m;
	int ret;

	/* (credits only grow meanwhile: gb_rdma_send_flow() waits) */
	if (conn->os_reg_nwr || conn->peer_credits < 2)
		return -EAGAIN;
	lr = gb_rdma_tx_buf(conn, tx) + sizeof(struct gb_rdma_hdr);
	deadline = jiffies + msecs_to_jiffies(le32_to_cpu(lr->lease_ms) +
					      GB_RDMA_LEASE_GRACE_MS);
	for (m = tx->leases; m; m &= m - 1)
		conn->leases[__ffs64(m)].deadline = deadline;
	conn->os_tx = NULL;
	trace_gb_rdma_reply(conn->id, conn->cur.rec.tag, GB_RDMA_R_LOOKUP);
	ret = gb_rdma_post_tx(conn, tx, NULL);
	if (ret)
		return ret;	/* the leases end at teardown */
	gb_rdma_leases_expire(conn);	/* arms lease_dw */
	conn->cur.done_after_reply = true;
	return 0;
}

/**
 * gb_rdma_lookup_step() - look the keys up, lease the hits, reply
 * @conn: connection (conn->work)
 *
 * Posts the REG_MR WRs of the new leases and the R_LOOKUP SEND as one
 * chain; the SEND's completion releases the send queue slots of all of
 * them and marks the leases registered. On rxe the REG_MRs go first as a
 * chain of their own and the SEND follows once their completion is
 * reaped (gb_rdma_lookup_send(), the comment below).
 *
 * Return: 0 (reply posted), -EAGAIN (waiting for a credit, a send record,
 * send queue slots or rxe's REG_MRs) or an error (the caller closes the
 * connection).
 */
int gb_rdma_lookup_step(struct gb_rdma_conn *conn)
{
	struct gb_rdma_req *r = &conn->cur;
	u32 n = r->rec.u.get.nkeys, i, lease_ms = gb_rdma_get_lease_ms();
	struct ib_send_wr *first = NULL, **link = &first;
	unsigned long deadline;
	struct gb_rdma_lookup_r *lr;
	struct gb_rdma_tx *tx;
	u64 mask = 0;
	u32 nreg;
	int ret;

	if (conn->os_tx)	/* rxe: the REG_MRs are posted */
		return gb_rdma_lookup_send(conn);
	/*
	 * rxe: on an idle send queue only. Chains the fault knob holds
	 * unreaped (conn->os_held_nwr) have completed: they do not count.
	 */
	if (list_empty(&conn->tx_free) || conn->peer_credits < 2 ||
	    conn->sq_avail < (int)(n + 1) ||
	    (conn->os_quiesce &&
	     conn->sq_avail + (int)conn->os_held_nwr != conn->sq_size))
		return -EAGAIN;
	if (r->rec.u.get.flags & GB_RDMA_LOOKUP_RELEASE) {
		gb_rdma_leases_end_mask(conn, U64_MAX,
					&conn->st.leases_released);
		/* R_LOOKUP completion not reaped yet: end them after it */
		conn->lease_release |= conn->lease_live;
	}
	if (!lease_ms)		/* turned off meanwhile: lease nothing */
		lease_ms = 1;
	deadline = jiffies + msecs_to_jiffies(lease_ms +
					      GB_RDMA_LEASE_GRACE_MS);

	tx = gb_rdma_tx_get(conn);
	gb_rdma_hdr_init(gb_rdma_tx_buf(conn, tx), GB_RDMA_R_LOOKUP,
			 r->rec.tag, 0, sizeof(*lr));
	lr = gb_rdma_tx_buf(conn, tx) + sizeof(struct gb_rdma_hdr);
	lr->nkeys = cpu_to_le16(n);
	lr->lease_ms = cpu_to_le32(lease_ms);
	for (i = 0; i < n; i++) {
		struct gb_rdma_desc *d = &lr->desc[i];
		u64 free = ~(conn->lease_live | mask);
		struct gb_obj *obj;
		u32 slot;

		obj = gb_store_get(r->buf + r->rec.u.get.off[i],
				   r->rec.u.get.klen[i]);
		if (!obj) {
			d->status = GB_RDMA_DESC_MISS;
			continue;
		}
		d->cas = cpu_to_le64(READ_ONCE(obj->cas));
		if (obj->len > GB_RDMA_ONESIDED_MAX ||
		    gb_obj_head_len(obj) < obj->len) {
			d->status = GB_RDMA_DESC_GET;
			gb_obj_put(obj);
			continue;
		}
		d->flags = cpu_to_le32(obj->flags);
		if (obj->has_crc) {
			d->dflags = GB_RDMA_DESC_CRC;
			d->crc = cpu_to_le32(obj->crc);
		}
		if (!obj->len) {	/* nothing to READ, nothing to lease */
			d->status = GB_RDMA_DESC_HIT;
			gb_obj_put(obj);
			continue;
		}
		if (!free) {
			d->status = GB_RDMA_DESC_BUSY;
			gb_obj_put(obj);
			continue;
		}
		slot = __ffs64(free);
		ret = gb_rdma_lease_take(conn, slot, obj);
		if (ret) {
			d->status = ret == -E2BIG || !gb_store_err_transient(ret) ?
				    GB_RDMA_DESC_GET : GB_RDMA_DESC_BUSY;
			gb_obj_put(obj);
			continue;
		}
		d->status = GB_RDMA_DESC_HIT;
		d->addr = cpu_to_le64(conn->leases[slot].mr->iova);
		d->rkey = cpu_to_le32(conn->leases[slot].mr->rkey);
		d->len = cpu_to_le32(obj->len);
		conn->leases[slot].deadline = deadline;
		*link = &conn->leases[slot].reg.wr;
		link = &conn->leases[slot].reg.wr.next;
		mask |= BIT_ULL(slot);
		conn->st.leases++;
	}
	nreg = hweight64(mask);
	tx->leases = mask;
	conn->lease_live |= mask;
	conn->lease_posted |= mask;
	if (conn->os_quiesce && nreg) {
		struct ib_send_wr *last = container_of(link, struct ib_send_wr,
						       next);

		/*
		 * rxe: the REG_MRs alone, the last one signaled; the R_LOOKUP
		 * SEND is posted once that completion is reaped.
		 *
		 * Why: 6.1's rxe retransmits from the oldest WQE its completer
		 * has not retired (req_retry()), and rxe_requester() runs a
		 * REG_MR found there again whatever its state, which fails
		 * ("rxe_reg_fast_mr: ... not free") and errs the QP. rxe's
		 * retransmit timer is not stopped when the send queue empties,
		 * so it also fires spuriously. With one chain, a completer run
		 * of that timer could find the REG_MR not executed yet and, by
		 * the time it decided to retry, the REG_MR executed (not yet
		 * retired) and the SEND sent: the retry rewound to the REG_MR.
		 * The completer retires WQEs in order, so the completion of the
		 * last REG_MR means all of them are executed and retired: when
		 * the SEND is posted, nothing but the SEND is left to rewind to.
		 * The REG_MR chain itself cannot be retransmitted: it goes on
		 * an idle send queue (checked above) and sends no packet, so rxe
		 * has nothing unacknowledged to retry. Nothing else may be
		 * posted behind it either: this request stays conn->cur (no
		 * other reply goes out) and gb_rdma_send_flow() waits while
		 * conn->os_tx is set.
		 *
		 * Ownership meanwhile is as with one chain: the leases are
		 * live and posted (conn->lease_posted, so neither a RELEASE nor
		 * the deadline ends them) and own their pages, objects and
		 * MRs; the tx (its record, tx->leases) is conn->os_tx's until
		 * it is posted, then the device's until its completion is
		 * reaped and clears lease_posted. If the connection fails
		 * meanwhile (a failed REG_MR, a close), conn->release puts
		 * conn->os_tx on tx_dead after the QP drain and ends the
		 * leases, as for a posted chain. Other devices do not run
		 * local operations twice: one chain there.
		 */
		last->send_flags |= IB_SEND_SIGNALED;
		last->wr_cqe = &conn->os_reg_cqe;
		*link = NULL;
		ret = ib_post_send(conn->qp, first, NULL);
		if (ret) {	/* some may be posted: parked until the drain */
			list_add_tail(&tx->node, &conn->tx_dead);
			return ret;
		}
		conn->sq_avail -= nreg;
		conn->os_reg_nwr = nreg;
		tx->nwr = 1;
		conn->os_tx = tx;
		return -EAGAIN;
	}
	*link = &tx->wr;
	tx->nwr = 1 + nreg;
	trace_gb_rdma_reply(conn->id, r->rec.tag, GB_RDMA_R_LOOKUP);
	ret = gb_rdma_post_tx(conn, tx, first);
	if (ret)
		return ret;	/* the leases end at teardown */
	gb_rdma_leases_expire(conn);	/* arms lease_dw */
	r->done_after_reply = true;
	return 0;
}
