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
#define GB_EVICT_FRUITLESS	4	/* evictions that freed nothing, per SET */
#define GB_EVICT_SCAN		1024	/* CLOCK entries per gb_store_evict_one() */
#define GB_EXPTIME_REL_MAX	(60 * 60 * 24 * 30)
#define GB_PRESSURE_PERIOD	HZ	/* at most one pressure event per second */

/**
 * struct gb_obj_priv - store-private part of an object
 * @id:        walk id (0 until committed)
 * @lru:       entry on the CLOCK list while linked
 * @stime:     commit time (gb_now())
 * @head_len:  value bytes held in head pages
 * @nr_pages:  number of head pages
 * @meta:      bytes of metadata charged to the memory budget
 * @linked:    in the index (under gb_store_wlock)
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
 * @free_work: deferred tail deletion
 * @rcu:       deferred free
 * @obj:       back pointer
 * @pages:     head pages
 */
struct gb_obj_priv {
	u64 id;
	struct list_head lru;
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

/* index.c: the index */
extern const struct rhashtable_params gb_store_ht_params;
extern struct rhashtable gb_store_ht;
extern struct mutex gb_store_wlock;
extern struct list_head gb_store_clock;
extern struct xarray gb_store_ids;
extern u64 gb_store_next_id;
extern atomic64_t gb_store_cas_seq;
extern atomic64_t gb_store_items, gb_store_bytes;
extern atomic64_t gb_store_head_bytes, gb_store_tail_bytes;
bool gb_obj_dead(const struct gb_obj *obj, s64 now);
bool gb_store_key_valid(const char *key, size_t klen);
void gb_store_unlink(struct gb_obj *obj, bool from_ht);
void gb_store_unlink_dead(struct gb_obj *obj, s64 now);
void gb_store_reap(void);
void gb_store_reap_work_fn(struct work_struct *work);
void gb_store_rmw_init(void);
int gb_store_promote_link(struct gb_obj *obj, struct gb_obj *old);

/* object.c: objects and their pages (API in kmod/store.h) */
int gb_obj_crc_check(struct gb_obj *obj);
int gb_obj_seal_fail_next(int err);
int gb_obj_tail_fail_next(int err, int count, int skip);
int gb_obj_read_fail_next(const char *key, size_t klen, u64 off, int err);
struct gb_obj *gb_obj_alloc_promo(struct gb_obj *old, int node,
				  bool (*room)(int node, u32 nr));
int gb_obj_copy_crc(struct gb_obj *dst, u64 dst_off, struct gb_obj *src,
		    u64 src_off, u64 len, u32 *run, u32 *own);

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
extern atomic64_t gb_store_evict_scanned;
extern bool gb_store_running;
extern unsigned long gb_store_pressure_next;
bool gb_store_evict_one(enum gb_need need);
void gb_store_note_pressure(bool tail);
void gb_store_drain_tails(void);
void gb_store_drain_frees(void);
void gb_store_reclaim(bool all, bool tails);
void gb_store_flush_work(struct work_struct *work);
void gb_store_maint_work(struct work_struct *work);
void gb_store_quar_work(struct work_struct *work);

/* debugfs.c: test interface */
void gb_store_dbg_init(void);
void gb_store_dbg_exit(void);

#endif /* _GOBLIN_STORE_INT_H */
