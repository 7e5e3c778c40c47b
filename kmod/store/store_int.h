/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: declarations shared by the store's files (the C files in
 * kmod/store/). Nothing else includes this header: the store's API is
 * kmod/store.h.
 */
#ifndef _GOBLIN_STORE_INT_H
#define _GOBLIN_STORE_INT_H

#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/delay.h>
#include <linux/jhash.h>
#include <linux/llist.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/rhashtable.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uuid.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/netlink.h>

#include "goblin.h"
#include "events.h"
#include "pool.h"
#include "stats.h"
#include "store.h"
#include "tail.h"

#define GB_RAM_HEAD_MAX		SZ_16M
#define GB_BLOCK_MAX		SZ_1G
#define GB_MAINT_PERIOD		(2 * HZ)
#define GB_MAINT_PERIOD_MAX_MS	(60 * 60 * 1000)	/* debugfs maint_period_ms */
#define GB_KICK_DELAY		(HZ / 20)	/* first quarantine recheck */
#define GB_EVICT_FRUITLESS	4	/* evictions freeing nothing, per wait */
#define GB_EVICT_WAITS		50	/* 2-4 ms waits of a SET short of memory */
#define GB_EVICT_SCAN		1024	/* CLOCK entries per gb_store_evict_one() */
#define GB_SPACE_WAIT		(HZ / 2)	/* a SET's wait for SSD space, at most */
#define GB_SPACE_WAIT_MAX_MS	60000	/* debugfs tail_wait_ms, at most */
#define GB_SPACE_RETRY		(HZ / 20)	/* the head scans again, at least */
#define GB_EXPTIME_REL_MAX	(60 * 60 * 24 * 30)
#define GB_PRESSURE_PERIOD	HZ	/* at most one pressure event per second */
#define GB_RECLAIM_LOW_MAX	SZ_64M	/* reclaimer's low watermark, at most */
#define GB_RECLAIM_BACKOFF	(HZ / 10)	/* after a run found nothing */
#define GB_RECLAIM_BATCH	256	/* evictions per run, then requeue */

/**
 * struct gb_obj_priv - store-private part of an object
 * @id:        walk id (0 until committed)
 * @lru:       entry on its shard's CLOCK list while linked; once
 *             unlinked, entry on the caller's list of references to drop
 *             after the shard lock (gb_store_put_list())
 * @cstamp:    CLOCK stamp: gb_store_clock_seq when @lru went to the tail
 *             of its shard's list (under the shard lock)
 * @shard:     index of the object's shard in gb_store_shards (key hash)
 * @stime:     commit time (gb_now())
 * @head_len:  value bytes held in head pages
 * @nr_pages:  number of head pages
 * @meta:      bytes of metadata charged to the memory budget
 * @linked:    in the index (under the shard lock)
 * @visited:   CLOCK reference bit
 * @fetched:   read at least once (for expired_unfetched, memcache mg h)
 * @atime:     last access (gb_now()), for memcache mg l: set at commit and
 *             by every read after the first (memcached's rule)
 * @mstate:    memcache meta state, GB_OBJ_STALE and GB_OBJ_WON bits
 * @nid:       node of the first head page + 1, 0 for none (counted in
 *             the per-node objects)
 * @bad:       the tail failed (read or writeback error): never served again
 * @reaping:   queued on gb_store_reap_list (a lookup found it dead)
 * @reap_node: entry on gb_store_reap_list
 * @want:      node placement wanted for the heads when the object was
 *             built, -1 for none (interleave)
 * @phits:     reads, halved every GB_PROMO_DECAY seconds (promotion)
 * @pstamp:    ktime_get_seconds() when @phits was last halved
 * @pnext:     jiffies before which a failed promotion is not retried
 * @pfails:    promotions of the object that failed in a row
 * @pflags:    GB_PROMO_QUEUED
 * @pnode:     entry on the promotion queue (under gb_promo_lock)
 * @tail:      tail file, NULL for RAM-only objects
 * @tail_acct: bytes charged to the SSD budget
 * @tail_inflight: @tail_acct counted in gb_store_tail_inflight (charged,
 *             not linked yet)
 * @free_work: deferred tail deletion
 * @rcu:       deferred free
 * @obj:       back pointer
 * @pages:     head pages
 */
struct gb_obj_priv {
	u64 id;
	struct list_head lru;
	u64 cstamp;
	u32 shard;
	s64 stime;
	u32 head_len;
	u32 nr_pages;
	u32 meta;
	bool linked;
	bool visited;
	bool fetched;
	s64 atime;
	unsigned long mstate;
	int nid;
	int bad;
	atomic_t reaping;
	struct llist_node reap_node;
	int want;
	u32 phits;
	u32 pstamp;
	unsigned long pnext;
	u32 pfails;
	unsigned long pflags;
	struct list_head pnode;
	struct gb_tail *tail;
	u64 tail_acct;
	bool tail_inflight;
	struct work_struct free_work;
	struct rcu_head rcu;
	struct gb_obj *obj;
	struct gb_hpage pages[];
};

/* bits of gb_obj_priv.pflags */
enum {
	GB_PROMO_QUEUED,	/* on the promotion queue or being promoted */
};

/* bits of gb_obj_priv.mstate */
enum {
	GB_OBJ_STALE,		/* md I, ms I: served with X until replaced */
	GB_OBJ_WON,		/* a recache win (W) was sent */
};

struct gb_key {
	const char *key;
	size_t klen;
};

/* What an eviction has to free. */
enum gb_need {
	GB_NEED_ANY,		/* anything (memory budget) */
	GB_NEED_PAGES,		/* head pages */
	GB_NEED_TAIL,		/* SSD space */
};

/* config.c: configuration, statistics, init and exit */
extern struct gb_store_config gb_store_cfg;
extern u32 gb_store_ram_head;
extern u64 gb_store_ssd_max;
extern struct gb_ssd *gb_store_ssd;
struct gb_ssd *gb_store_ssd_get_current(void);

/* numa.c: placement */
int gb_store_pick_node(int dev_node);
void gb_store_numa_obj_add(int nid, long delta);
void gb_store_numa_init(void);

/* promote.c: NUMA promotion of read objects */
void gb_store_promote_note(struct gb_obj *obj);
void gb_store_promote_init(void);
void gb_store_promote_exit(void);
void gb_store_promote_policy_changed(void);
void gb_store_promote_dbg_delay(unsigned int ms);
u64 gb_store_promote_node_in(int nid);
bool gb_store_promote_queued(const struct gb_obj_priv *priv);
void gb_store_promote_unqueue(struct gb_obj *obj);
void gb_store_promote_quiesce(void);

/**
 * struct gb_promo_dbg_stats - promotion state (debugfs)
 * @attempts:     promotion copies begun since load (each is charged to
 *                promotion_rate, whether it succeeds or not)
 * @queued:       objects on the promotion queue now
 * @queued_bytes: their value bytes
 * @delay_ms:     the "delay promote" armed and not yet consumed
 */
struct gb_promo_dbg_stats {
	u64 attempts;
	u64 queued;
	u64 queued_bytes;
	u64 delay_ms;
};

void gb_store_promote_dbg_stats(struct gb_promo_dbg_stats *st);

/*
 * The store's shards (index.c; lock order in the comment at the top of
 * index.c). A key belongs to shard gb_store_shard_of(key): its shard's
 * mutex serialises every mutation of the key's index entry (insert,
 * replace, unlink, in-place meta changes under gb_store_flush_sem) and
 * guards the shard's CLOCK list. @head_stamp mirrors the cstamp of the
 * list's first entry (U64_MAX when empty) for lockless reads by the
 * eviction hand, which merges the shards' lists in stamp order.
 */
#define GB_STORE_SHARDS		64	/* a power of two */

struct gb_shard {
	struct mutex lock;	/* the shard's keys and CLOCK list */
	struct list_head clock;
	u64 head_stamp;
	unsigned long nr;
} ____cacheline_aligned_in_smp;

/* index.c: the index */
extern const struct rhashtable_params gb_store_ht_params;
extern struct rhashtable gb_store_ht;
extern struct gb_shard gb_store_shards[GB_STORE_SHARDS];
extern struct rw_semaphore gb_store_flush_sem;
extern atomic64_t gb_store_clock_seq;
extern struct xarray gb_store_ids;
extern atomic64_t gb_store_next_id;
extern atomic64_t gb_store_cas_seq;
extern atomic64_t gb_store_head_bytes, gb_store_tail_bytes;
u32 gb_store_shard_of(const char *key, size_t klen);

static inline struct gb_shard *gb_obj_shard(const struct gb_obj *obj)
{
	return &gb_store_shards[obj->priv->shard];
}

void gb_store_shards_init(void);
void gb_shard_sync_head(struct gb_shard *sh);
void gb_shard_clock_tail(struct gb_shard *sh, struct gb_obj_priv *priv);
u64 gb_store_curr_items(void);
u64 gb_store_shard_items(void);
bool gb_obj_dead(const struct gb_obj *obj, s64 now);
bool gb_store_key_valid(const char *key, size_t klen);
void gb_store_unlink(struct gb_obj *obj, bool from_ht, struct list_head *put);
void gb_store_unlink_dead(struct gb_obj *obj, s64 now, struct list_head *put);
void gb_store_put_list(struct list_head *put);
void gb_store_reap(void);
void gb_store_reap_work_fn(struct work_struct *work);
void gb_store_rmw_init(void);
int gb_store_promote_link(struct gb_obj *obj, struct gb_obj *old);

/* object.c: objects and their pages (API in kmod/store.h) */
u64 gb_store_ram_used(void);
int gb_obj_crc_check(struct gb_obj *obj);
int gb_obj_seal_fail_next(int err);
int gb_obj_tail_fail_next(int err, int count, int skip);
int gb_obj_read_fail_next(const char *key, size_t klen, u64 off, int err);
struct gb_obj *gb_obj_alloc_promo(struct gb_obj *old, int node,
				  bool (*room)(int node, u32 nr));
int gb_obj_copy_crc(struct gb_obj *dst, u64 dst_off, struct gb_obj *src,
		    u64 src_off, u64 len, u32 *run, u32 *own);
bool gb_obj_evict_inline(enum gb_need need);

/**
 * struct gb_space_pre - SSD budget charged before an allocation
 * @paid: bytes charged (gb_space_charge()) for the allocation to take;
 *        what is left of them is the caller's to give back
 *        (gb_space_uncharge())
 * @need: set by a gb_obj_alloc_pre() that failed with -EAGAIN: the bytes
 *        its tail needs
 */
struct gb_space_pre {
	u64 paid;
	u64 need;
};

struct gb_obj *gb_obj_alloc_pre(const char *key, size_t klen, u32 flags,
				s64 exptime, u64 len, int node,
				struct gb_space_pre *pre);

/* space.c: the SSD budget and the fair wait for it */
struct gb_space_stats {
	u64 waits;		/* SETs that queued */
	u64 fails;		/* of them, those that got no space */
	u64 waiting;		/* queued now */
	u64 max_wait_ms;	/* longest wait that got space */
	u64 disorder;		/* grants out of arrival order */
	u64 max_evicting;	/* most waiters evicting at once */
	u64 starvations;	/* evictors that starved */
};

extern u32 gb_space_wait_ms;
int gb_space_charge(u64 acct);
bool gb_space_try(u64 acct);
void gb_space_uncharge(u64 acct);
void gb_space_note_put(void);
void gb_space_note_tail(void);
extern atomic64_t gb_store_tail_inflight;
void gb_space_inflight(struct gb_obj_priv *priv, bool on);
void gb_space_abort(bool close);
void gb_space_kick(void);
void gb_space_init(void);
void gb_space_dbg_stats(struct gb_space_stats *st);

/* evict.c: eviction, expiry, maintenance */
/* Ask the maintenance worker to run soon (any context). */
void gb_store_kick_maint(void);
extern atomic64_t gb_store_flush_cas;
extern s64 gb_store_flush_when;
extern struct delayed_work gb_store_flush_dwork;
extern struct workqueue_struct *gb_store_wq;
extern struct workqueue_struct *gb_store_free_wq;
extern struct delayed_work gb_store_maint_dwork;
extern struct delayed_work gb_store_quar_dwork;
extern unsigned long gb_store_quar_delay;
extern u32 gb_store_maint_period_ms;
unsigned long gb_store_maint_period(void);
extern struct work_struct gb_store_reap_work;
extern struct llist_head gb_store_reap_list;
extern atomic64_t gb_store_maint_runs, gb_store_reclaim_walks;
extern atomic64_t gb_store_reclaim_backoffs;
extern atomic64_t gb_store_evict_scanned;
extern atomic64_t gb_store_lookup_gaveup;
extern atomic64_t gb_store_lookup_retries;
unsigned int gb_store_lookup_dbg_race(unsigned int ms);
extern bool gb_store_running;
extern unsigned long gb_store_pressure_next;

/* What one run of the CLOCK hand did (gb_store_evict()). */
enum gb_evict_res {
	GB_EVICT_NONE,		/* nothing that frees what was asked for */
	GB_EVICT_EVICTED,	/* a live object was evicted */
	GB_EVICT_REAPED,	/* a dead (expired, flushed) one was unlinked */
	GB_EVICT_WINDOW,	/* nothing so far, but the CLOCK is not covered */
};

/* @r unlinked something that frees what was asked for */
static inline bool gb_evict_hit(enum gb_evict_res r)
{
	return r == GB_EVICT_EVICTED || r == GB_EVICT_REAPED;
}

enum gb_evict_res gb_store_evict(enum gb_need need);
enum gb_evict_res gb_obj_evict_inline_res(enum gb_need need);
bool gb_store_evict_one(enum gb_need need);
extern struct work_struct gb_store_reclaim_work;
extern unsigned long gb_store_reclaim_next;
void gb_store_reclaim_work_fn(struct work_struct *work);
void gb_store_kick_reclaim(u64 limit);
bool gb_store_evict_dbg_race(bool arm);
void gb_store_note_pressure(bool tail);
void gb_store_drain_tails(void);
void gb_store_drain_frees(void);
struct gb_obj *gb_store_next_obj(unsigned long *id);
void gb_store_reclaim(bool all, bool tails);
void gb_store_flush_work(struct work_struct *work);
void gb_store_maint_work(struct work_struct *work);
void gb_store_quar_work(struct work_struct *work);

/* debugfs.c: test interface */
void gb_store_dbg_init(void);
void gb_store_dbg_exit(void);

#endif /* _GOBLIN_STORE_INT_H */
