/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: native RDMA transport (protocol v3), its counters.
 *
 * Listeners, connection dumps and totals reach netlink through the
 * registry (kmod/registry.h); this header is the transport's own.
 *
 * Locking for callers: gb_rdma_get_stats() and the registry's conn_walk
 * take the RDMA subsystem mutex and may sleep; a walk's @fn is called with
 * that mutex held, so it must not call back into the RDMA transport
 * (listener add/del). Returning non-zero from @fn stops the walk (e.g.
 * -EMSGSIZE when the skb is full); the cursor then points at the
 * connection that was not reported, so the next call resumes with it.
 */
#ifndef _GOBLIN_RDMA_H
#define _GOBLIN_RDMA_H

#include <linux/socket.h>
#include <linux/types.h>

#include "registry.h"

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

#endif /* _GOBLIN_RDMA_H */
