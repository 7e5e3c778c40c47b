/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: native RDMA transport (protocol v3), API for netlink.
 *
 * Listeners are managed through gb_listener_ops[GB_LISTENER_RDMA] (see
 * kmod/listener.h). This header adds what a netlink dump of RDMA
 * connections and counters needs.
 *
 * Locking for callers: both functions take the RDMA subsystem mutex and may
 * sleep; @fn is called with that mutex held, so it must not call back into
 * the RDMA transport (listener add/del). Returning non-zero from @fn stops
 * the walk (e.g. -EMSGSIZE when the skb is full); the cursor then points at
 * the connection that was not reported, so the next call resumes with it.
 */
#ifndef _GOBLIN_RDMA_H
#define _GOBLIN_RDMA_H

#include <linux/socket.h>
#include <linux/types.h>

/* Error kinds counted per connection and in total. */
enum gb_rdma_err {
	GB_RDMA_E_BAD_RECORD,	/* malformed / unknown record, bad size */
	GB_RDMA_E_CREDIT,	/* client sent beyond its credits */
	GB_RDMA_E_WINDOW,	/* bad window return */
	GB_RDMA_E_RANGE,	/* SET address/length outside the region */
	GB_RDMA_E_RDMA,		/* RDMA WRITE/READ failed (e.g. wrong rkey) */
	GB_RDMA_E_WC,		/* SEND/RECV completion error (peer died) */
	GB_RDMA_E_STORE,	/* store failed to read a value mid-transfer */
	GB_RDMA_E_REJECT,	/* connect requests rejected */
	GB_RDMA_E_NR,
};

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
	u64 errors[GB_RDMA_E_NR];
	u64 windows_in_flight;
};

/**
 * gb_rdma_get_stats() - totals since module load (closed connections too)
 * @st: filled in
 * @conns: currently open connections (may be NULL)
 */
void gb_rdma_get_stats(struct gb_rdma_stats *st, u32 *conns);

/*
 * Cap on RDMA connections over all listeners (beside each listener's
 * max_conns and max_peer_conns); lowering it refuses new connections only.
 */
u32 gb_rdma_get_max_conns(void);
void gb_rdma_set_max_conns(u32 max);

#endif /* _GOBLIN_RDMA_H */
