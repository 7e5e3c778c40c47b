// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): connection lifecycle, from the
 * connect request (queue and MR sizing) to teardown.
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
 * Send and receive records
 * ------------------------
 * Each connection has conn->nrx receive records of 512 bytes (the grant
 * plus GB_RDMA_RX_SLACK) and conn->ntx send records of conn->rec_size
 * bytes (512, or up to 4096 with 3.2 folding, for inline values). They
 * live in single zeroed pages (struct gb_rdma_ring), PAGE_SIZE / size
 * records to a page and none across a page boundary, each page one
 * ib_dma_map_single() of PAGE_SIZE: connection setup never needs a
 * higher-order allocation (which a fragmented, long-running server may
 * fail) nor a DMA mapping larger than a page (a device behind swiotlb
 * bounces at most 256 KiB per mapping). At most 17 pages receive and 128
 * pages (512 KiB, 3.2 with 4096-byte records and 128 credits) send. Each
 * rx/tx keeps its record's address (buf) and DMA address (sge.addr). A
 * send record belongs to conn->work from gb_rdma_tx_get() until it is
 * posted (written, then ib_dma_sync_single_for_device() of the bytes sent,
 * then posted), and to the device until its completion puts it back on
 * tx_free; a receive record belongs to the device while posted, and to the
 * CPU from its completion (ib_dma_sync_single_for_cpu()) until it is
 * posted again (gb_rdma_post_recv() syncs it back first). Both rings are
 * unmapped and freed only in gb_rdma_conn_free_mem(), after the QP was
 * drained and destroyed.
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
 * A LOOKUP (3.3) registers its leases' MRs on rxe whatever force_mr:
 * there (conn->os_quiesce) the REG_MRs go on an idle send queue as a
 * chain of their own, and the R_LOOKUP SEND only after their completion
 * was reaped, so that no REG_MR is unretired when the SEND can be
 * retransmitted (gb_rdma_lookup_step()). A retransmit timer that fires
 * while one chain REG_MR, SEND runs can otherwise find the REG_MR
 * executed but not retired, the SEND sent, and rewind to the REG_MR.
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

#include "rdma_int.h"

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
void gb_rdma_conn_close(struct gb_rdma_conn *conn)
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

/**
 * gb_rdma_ring_alloc() - allocate and map the record buffers of a ring
 * @ibdev:  device the pages are mapped for
 * @ring:   zeroed ring
 * @n:      records
 * @stride: bytes per record (at most PAGE_SIZE)
 * @dir:    DMA direction of the mappings
 *
 * See "Send and receive records" in the top comment: PAGE_SIZE / @stride
 * records in each single zeroed page, none across a page boundary, each
 * page one DMA mapping. On failure what was set up stays recorded in
 * @ring for gb_rdma_ring_free().
 *
 * Return: 0 or -ENOMEM.
 */
static int gb_rdma_ring_alloc(struct ib_device *ibdev,
			      struct gb_rdma_ring *ring, u32 n, u32 stride,
			      enum dma_data_direction dir)
{
	u32 pages = DIV_ROUND_UP(n, PAGE_SIZE / stride), i;
	u64 dma;

	ring->page = kcalloc(pages, sizeof(*ring->page), GFP_KERNEL);
	ring->dma = kcalloc(pages, sizeof(*ring->dma), GFP_KERNEL);
	if (!ring->page || !ring->dma)
		return -ENOMEM;
	for (i = 0; i < pages; i++) {
		ring->page[i] = (void *)get_zeroed_page(GFP_KERNEL);
		if (!ring->page[i])
			return -ENOMEM;
		ring->npages = i + 1;
	}
	for (i = 0; i < pages; i++) {
		dma = ib_dma_map_single(ibdev, ring->page[i], PAGE_SIZE, dir);
		if (ib_dma_mapping_error(ibdev, dma))
			return -ENOMEM;
		ring->dma[i] = dma;
		ring->nmapped = i + 1;
	}
	return 0;
}

/* Record @i of a ring of @stride-byte records: its address and DMA address. */
static u8 *gb_rdma_ring_slot(const struct gb_rdma_ring *ring, u32 i,
			     u32 stride, u64 *dma)
{
	u32 per = PAGE_SIZE / stride, off = (i % per) * stride;

	*dma = ring->dma[i / per] + off;
	return (u8 *)ring->page[i / per] + off;
}

/* Unmap and free what gb_rdma_ring_alloc() set up, also when it failed. */
static void gb_rdma_ring_free(struct ib_device *ibdev,
			      struct gb_rdma_ring *ring,
			      enum dma_data_direction dir)
{
	u32 i;

	for (i = 0; i < ring->nmapped && ibdev; i++)
		ib_dma_unmap_single(ibdev, ring->dma[i], PAGE_SIZE, dir);
	for (i = 0; i < ring->npages; i++)
		free_page((unsigned long)ring->page[i]);
	kfree(ring->page);
	kfree(ring->dma);
	memset(ring, 0, sizeof(*ring));
}

/* Free what gb_rdma_conn_alloc() and setup allocated (no QP/CQ/cm_id). */
static void gb_rdma_conn_free_mem(struct gb_rdma_conn *conn)
{
	struct ib_device *ibdev = conn->dev ? conn->dev->ibdev : NULL;
	u32 i;

	/* nothing may still run on the connection (see conn->release) */
	WARN_ON_ONCE(delayed_work_pending(&conn->idle) ||
		     delayed_work_pending(&conn->lease_dw) ||
		     work_pending(&conn->work) ||
		     work_pending(&conn->release));

	if (conn->win) {
		for (i = 0; i < conn->nwin_alloc; i++)
			kvfree(conn->win[i].sgl);
		kfree(conn->win);
	}
	gb_rdma_ring_free(ibdev, &conn->rxring, DMA_FROM_DEVICE);
	gb_rdma_ring_free(ibdev, &conn->txring, DMA_TO_DEVICE);
	gb_rdma_leases_free(conn);
	kfree(conn->bounce);
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
bool gb_rdma_lis_unused(const struct gb_rdma_listener *lis)
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
	trace_gb_conn(true, conn->id, GB_TRACE_CONN_CLOSE);
	cancel_work_sync(&conn->work);
	cancel_delayed_work_sync(&conn->idle);
	cancel_delayed_work_sync(&conn->lease_dw);
	rdma_disconnect(conn->cm_id);
	gb_rdma_fault_delay(&gb_rdma_fault_release_ms);
	ib_drain_qp(conn->qp);

	/* Every WR has completed: release what they referenced. */
	spin_lock(&conn->lock);
	list_splice_init(&conn->tx_done, &conn->tx_dead);
	spin_unlock(&conn->lock);
	/* an R_LOOKUP never posted (its REG_MR chain did not complete) */
	if (conn->os_tx)
		list_add_tail(&conn->os_tx->node, &conn->tx_dead);
	conn->os_tx = NULL;
	list_for_each_entry_safe(tx, ttmp, &conn->tx_dead, node) {
		list_del(&tx->node);
		gb_rdma_tx_release(conn, tx);
	}
	/* held chains (fault knob) were completed, hence released above */
	WARN_ON_ONCE(conn->os_held_nwr);
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
	gb_rdma_leases_end_all(conn);	/* drained: no READ can reach them */

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
	cancel_delayed_work_sync(&conn->lease_dw);

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
	/*
	 * 3.2: send records up to the client's receive buffer size, at most
	 * GB_RDMA_FOLD_RECORD_MAX (so ntx x rec_size <= 512 KiB, in single
	 * pages); the bytes past the 512-byte record carry inline values.
	 */
	BUILD_BUG_ON(GB_RDMA_FOLD_RECORD_MAX > PAGE_SIZE);
	conn->rec_size = GB_RDMA_RECORD_SIZE;
	if (conn->geom.flags & GB_RDMA_CONNECT_FOLD)
		conn->rec_size = min_t(u32, conn->geom.record_size,
				       GB_RDMA_FOLD_RECORD_MAX);
	conn->nwin = min_t(u32, windows, conn->geom.window_count);
	rq = conn->nrx + 1;
	if (rq > a->max_qp_wr || conn->ntx + 2 > a->max_qp_wr)
		return -EINVAL;

	conn->rx = kcalloc(conn->nrx, sizeof(*conn->rx), GFP_KERNEL);
	conn->tx = kcalloc(conn->ntx, sizeof(*conn->tx), GFP_KERNEL);
	conn->win = kcalloc(conn->nwin, sizeof(*conn->win), GFP_KERNEL);
	if (!conn->rx || !conn->tx || !conn->win)
		return -ENOMEM;
	for (i = 0; i < conn->nwin; i++) {
		conn->win[i].sgl = kvcalloc(conn->spw, sizeof(*conn->win[i].sgl),
					    GFP_KERNEL);
		if (!conn->win[i].sgl)
			return -ENOMEM;
		conn->nwin_alloc = i + 1;
	}
	if (gb_rdma_conn_onesided(conn))
		gb_rdma_leases_init(conn);
	if (gb_rdma_ring_alloc(ibdev, &conn->rxring, conn->nrx,
			       GB_RDMA_RECORD_SIZE, DMA_FROM_DEVICE) ||
	    gb_rdma_ring_alloc(ibdev, &conn->txring, conn->ntx,
			       conn->rec_size, DMA_TO_DEVICE))
		return -ENOMEM;
	for (i = 0; i < conn->nrx; i++) {
		struct gb_rdma_rx *rx = &conn->rx[i];

		rx->conn = conn;
		rx->idx = i;
		rx->cqe.done = gb_rdma_recv_done;
		rx->buf = gb_rdma_ring_slot(&conn->rxring, i,
					    GB_RDMA_RECORD_SIZE, &rx->sge.addr);
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
		tx->buf = gb_rdma_ring_slot(&conn->txring, i, conn->rec_size,
					    &tx->sge.addr);
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

/* The device's node for choosing CPUs (or the dev_node test knob's). */
static int gb_rdma_dev_node(struct ib_device *ibdev)
{
	int node = READ_ONCE(gb_rdma_fault_dev_node);

	return node == GB_RDMA_NODE_REAL ? ibdev_to_node(ibdev) : node;
}

/* round robin over the vectors when none can be matched to a CPU */
static atomic_t gb_rdma_vec_rr = ATOMIC_INIT(0);

/*
 * The completion vector for a connection served on @cpu, chosen once at
 * setup (a later change of `cpus` moves conn->work, not the interrupt):
 * the one whose interrupt affinity holds @cpu when the driver reports
 * affinities (ib_get_vector_affinity(); no in-tree driver does on Linux
 * 6.1 or 6.12), else the k-th vector when @cpu is the k-th CPU counting
 * from the device's node (cpumask_local_spread(k, node)), which is how
 * mlx5 spreads its vectors' interrupts by default, else the next vector
 * round robin. Soft devices (rxe) complete where they process the packets
 * whatever the vector; gb_cpus_choose() then moves the work.
 */
static u32 gb_rdma_vector(struct ib_device *ibdev, int cpu)
{
	u32 n = max_t(u32, ibdev->num_comp_vectors, 1), v;
	u32 spread = min_t(u32, n, num_online_cpus());
	int node = ibdev_to_node(ibdev);
	const struct cpumask *mask;

	for (v = 0; v < n; v++) {
		mask = ib_get_vector_affinity(ibdev, v);
		if (!mask)
			break;
		if (cpumask_test_cpu(cpu, mask))
			return v;
	}
	for (v = 0; v < spread; v++)
		if (cpumask_local_spread(v, node) == cpu)
			return v;
	return (u32)atomic_inc_return(&gb_rdma_vec_rr) % n;
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
	int ret, cpu;

	/* 3.3: a LOOKUP's REG_MR WRs ride in front of its SEND */
	if (gb_rdma_conn_onesided(conn))
		base += GB_RDMA_LOOKUP_MAX_KEYS;
	conn->port = conn->cm_id->port_num;
	conn->cpw = gb_rdma_rw_ctxs(conn, conn->spw, conn->max_sge);
	conn->crd = gb_rdma_rw_ctxs(conn, GB_RDMA_RD_SGES, max(rsge, 1U));
	ctxs = conn->nwin * conn->cpw + conn->crd;

	/* a flushed QP completes every WR, signaled or not */
	ncqe = min_t(u32, base + 3 * ctxs + rq + 2, gb_rdma_max_cqe(ibdev));
	conn->dev_node = gb_rdma_dev_node(ibdev);
	gb_cpus_slot_init(&conn->cpu);
	cpu = gb_cpus_choose(&conn->cpu, -1, conn->dev_node);
	conn->ran_cpu = -1;
	vec = gb_rdma_vector(ibdev, cpu);
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
int gb_rdma_connect_request(struct rdma_cm_id *id,
			    struct rdma_cm_event *ev)
{
	struct gb_rdma_listener *lis = id->context;
	const struct sockaddr_storage *peer;
	struct gb_rdma_accept acc = {};
	struct rdma_conn_param cp = {};
	struct gb_rdma_geom geom;
	struct gb_rdma_conn *conn;
	struct gb_rdma_dev *dev;
	u32 reason, detail = 0, ack_timeout;
	int ret;

	reason = gb_rdma_connect_parse(ev->param.conn.private_data,
				       ev->param.conn.private_data_len, &geom);
	if (reason == GB_RDMA_REJ_RECORD)
		detail = geom.record_size;
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
	/*
	 * 3.3 is granted while one-sided reads are on, to a client that
	 * READs (its initiator_depth, our responder_resources) from a device
	 * that serves READs and registers memory with FRWR; else accept.flags
	 * lacks the bit and the client uses GET.
	 */
	if (!gb_rdma_get_lease_ms() || !ev->param.conn.responder_resources ||
	    !id->device->attrs.max_qp_rd_atom ||
	    !(id->device->attrs.device_cap_flags &
	      IB_DEVICE_MEM_MGT_EXTENSIONS))
		geom.flags &= ~GB_RDMA_CONNECT_ONESIDED;

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
	INIT_DELAYED_WORK(&conn->lease_dw, gb_rdma_lease_work);
	conn->rw_cqe.done = gb_rdma_rw_done;
	conn->read_cqe.done = gb_rdma_read_done;
	conn->os_reg_cqe.done = gb_rdma_os_reg_done;

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
	conn->tid.conn = conn->id;
	conn->tid.xport = GB_TRACE_RDMA;
	lis->conns_total++;
	list_add_tail(&conn->node, &gb_rdma_conns);
	mutex_unlock(&gb_rdma_lock);
	id->context = conn;

	acc.magic = cpu_to_le32(GB_RDMA_MAGIC);
	acc.version = cpu_to_le16(GB_RDMA_VERSION);
	/* every revision the parser let through is one we honour */
	acc.flags = cpu_to_le16(conn->geom.flags & GB_RDMA_CONNECT_FLAGS);
	acc.credits = cpu_to_le16(conn->grant);
	acc.windows = cpu_to_le16(conn->nwin);
	acc.window_size = cpu_to_le32(conn->geom.window_size);
	acc.max_keys = cpu_to_le16(GB_RDMA_GET_MAX_KEYS);
	acc.record_size = cpu_to_le16(conn->rec_size);
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
	/*
	 * Fault injection: a local ACK timeout of 4.096 us x 2^N (1 jiffy on
	 * rxe for small N), so the QP's retransmit timer fires, mostly
	 * spuriously, all the time (tests/func/onesided: rxe's retries).
	 */
	ack_timeout = READ_ONCE(gb_rdma_fault_ack_timeout);
	if (ack_timeout)
		rdma_set_ack_timeout(id, min(ack_timeout, 31U));
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
	trace_gb_conn(true, 0, GB_TRACE_CONN_REFUSE);
	gb_rdma_reject(id, reason, detail);
	return 1;
}
