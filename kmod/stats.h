/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: per-cpu event counters of the store.
 *
 * Hot counters (hits, misses, sets) are bumped on every request from any
 * CPU, so they live in per-cpu storage and are only summed when userspace
 * asks for statistics.
 */
#ifndef _GOBLIN_STATS_H
#define _GOBLIN_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

enum gb_stat {
	GB_ST_TOTAL_ITEMS,
	GB_ST_EVICTIONS,
	GB_ST_EXPIRED_UNFETCHED,
	GB_ST_RECLAIMED,
	GB_ST_GET_HITS,
	GB_ST_GET_MISSES,
	GB_ST_GET_EXPIRED,
	GB_ST_GET_FLUSHED,
	GB_ST_CMD_SET,
	GB_ST_CMD_TOUCH,
	GB_ST_TOUCH_HITS,
	GB_ST_TOUCH_MISSES,
	GB_ST_DELETE_HITS,
	GB_ST_DELETE_MISSES,
	GB_ST_INCR_HITS,
	GB_ST_INCR_MISSES,
	GB_ST_DECR_HITS,
	GB_ST_DECR_MISSES,
	GB_ST_CAS_HITS,
	GB_ST_CAS_MISSES,
	GB_ST_CAS_BADVAL,
	GB_ST_QUARANTINED,
	GB_ST_TAIL_IO_ERRORS,
	GB_ST_TAIL_WB_ERRORS,
	GB_ST_PROMOTIONS,
	GB_ST_PROMOTED_BYTES,
	GB_ST_PROMOTION_FAILURES,
	/*
	 * Gauges: linked objects and their value bytes. Each CPU adds and
	 * subtracts; only the sum over every CPU (as s64) means anything.
	 */
	GB_ST_CURR_ITEMS,
	GB_ST_CURR_BYTES,
	/* store internals (debugfs): who evicted, the background reclaimer */
	GB_ST_EVICT_INLINE,
	GB_ST_RECLAIMER_RUNS,
	GB_ST_RECLAIMER_EVICTIONS,
	GB_ST_NR,
};

struct gb_pcpu_stats {
	u64 v[GB_ST_NR];
};

DECLARE_PER_CPU(struct gb_pcpu_stats, gb_pcpu_stats);

static inline void gb_stat_add(enum gb_stat s, u64 n)
{
	this_cpu_add(gb_pcpu_stats.v[s], n);
}

static inline void gb_stat_inc(enum gb_stat s)
{
	gb_stat_add(s, 1);
}

u64 gb_stat_sum(enum gb_stat s);

#endif /* _GOBLIN_STATS_H */
