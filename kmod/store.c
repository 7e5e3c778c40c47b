// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: object index, lifetime, eviction and configuration.
 *
 * Index: an rhashtable keyed by the key bytes. Lookups run under RCU only
 * and take a reference with refcount_inc_not_zero(); every mutation (insert,
 * replace, unlink) is serialised by gb_wlock, a mutex, so all mutating
 * entry points must be called from process context. Lookups (gb_store_get,
 * gb_store_get_touch), gb_obj_put() and the read helpers on a referenced
 * object may run anywhere gb_obj_put() may (any context); gb_obj_get_page()
 * and gb_obj_read() sleep for tail bytes.
 *
 * Every linked object is also in an xarray indexed by a 64-bit id that
 * grows with every commit; netlink dumps walk it with "next id" as the
 * cursor, so an unchanged store is dumped exactly once in id order.
 *
 * Object ownership and page lifetime:
 *  - The index holds one reference on every linked object; each lookup
 *    adds one. A committed object is never modified (except exptime by
 *    touch), so a reader with a reference always sees one complete value.
 *  - Replacing, deleting, evicting or expiring an object only unlinks it
 *    and drops the index reference. When the last reference goes, its head
 *    pages go back to the pool and its budgets are uncharged at once, its
 *    tail file is closed and unlinked from a workqueue, and the struct is
 *    freed after an RCU grace period (readers may still be looking at it
 *    while their refcount_inc_not_zero() fails). An eviction therefore
 *    never waits for a grace period.
 *  - TCP: the transport holds the object reference across the send call.
 *    sendpage() leaves its own page references in socket buffers after the
 *    call returns; the object may then be freed, but its head pages are not
 *    reused: gb_pool_free() sees page_count() above the pool's idle
 *    baseline and parks the page in quarantine until the skbs let go.
 *  - RDMA: the transport holds the object reference (or a page reference
 *    from gb_obj_get_page()) until the WRITE completion, so the pages cannot
 *    be reused while the HCA reads them; pages it keeps mapped are again
 *    caught by the quarantine check.
 *  - Tail pages are page-cache pages of the tail file: readers get their
 *    own page reference; unlinking the file drops the page from the cache
 *    but not the reader's reference, and the bytes are never rewritten.
 *
 * Eviction: CLOCK (second chance). Linked objects sit on one list in
 * insertion order; a hit sets the object's "visited" bit without locking.
 * When the RAM budget (or SSD budget, for objects with tails) is full, the
 * hand takes objects from the head: a visited object loses its bit and
 * goes to the tail, an unvisited one is evicted. CLOCK needs no list
 * manipulation on the read path, which keeps GETs lock-free, and it is
 * scan resistant enough for a cache of large values.
 *
 * Memory budget changes: raising memory applies immediately; lowering it
 * below the RAM currently used by heads is refused (delete or flush first);
 * otherwise spare blocks are released by the maintenance worker, which
 * also evicts the objects of the least used block while no block is idle
 * (gb_trim_blocks()). ram_head
 * and block can only change while nothing is stored; block must be a page
 * multiple, at least ram_head (a block always holds one full head) and at
 * most 1 GiB.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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
#include "store_internal.h"
#include "tail.h"

#define GB_RAM_HEAD_MAX		SZ_16M
#define GB_BLOCK_MAX		SZ_1G
#define GB_MAINT_PERIOD		(2 * HZ)
#define GB_KICK_DELAY		(HZ / 20)	/* first quarantine recheck */
#define GB_EVICT_FRUITLESS	4	/* evictions that freed nothing, per SET */
#define GB_EVICT_SCAN		1024	/* CLOCK entries per gb_evict_one() */
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
 * @linked:    in the index (under gb_wlock)
 * @visited:   CLOCK reference bit
 * @fetched:   read at least once (for expired_unfetched)
 * @bad:       the tail failed (read or writeback error): never served again
 * @reaping:   queued on gb_reap_list (a lookup found it dead)
 * @reap_node: entry on gb_reap_list
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
	int bad;
	atomic_t reaping;
	struct llist_node reap_node;
	struct gb_tail *tail;
	u64 tail_acct;
	struct work_struct free_work;
	struct rcu_head rcu;
	struct gb_obj *obj;
	struct gb_hpage pages[];
};

struct gb_key {
	const char *key;
	size_t klen;
};

static u32 gb_key_hash(const void *data, u32 len, u32 seed)
{
	const struct gb_key *k = data;

	return jhash(k->key, k->klen, seed);
}

static u32 gb_obj_hash(const void *data, u32 len, u32 seed)
{
	const struct gb_obj *obj = data;

	return jhash(obj->key, obj->klen, seed);
}

static int gb_obj_cmp(struct rhashtable_compare_arg *arg, const void *ptr)
{
	const struct gb_key *k = arg->key;
	const struct gb_obj *obj = ptr;

	return obj->klen != k->klen || memcmp(obj->key, k->key, k->klen);
}

static const struct rhashtable_params gb_ht_params = {
	.head_offset = offsetof(struct gb_obj, node),
	.hashfn = gb_key_hash,
	.obj_hashfn = gb_obj_hash,
	.obj_cmpfn = gb_obj_cmp,
	.automatic_shrinking = true,
};

static struct rhashtable gb_ht;
static DEFINE_MUTEX(gb_wlock);		/* index, CLOCK list, id xarray */
static LIST_HEAD(gb_clock);
static DEFINE_XARRAY(gb_ids);
static u64 gb_next_id;
static atomic64_t gb_cas_seq;
static atomic_t gb_gen;
static atomic64_t gb_items, gb_bytes, gb_head_bytes, gb_tail_bytes;

static DEFINE_MUTEX(gb_cfg_mutex);	/* configuration changes */
static struct gb_store_config gb_cfg;
static u32 gb_ram_head;			/* READ_ONCE copy of gb_cfg.ram_head */
static u64 gb_ssd_max;
static DEFINE_SPINLOCK(gb_ssd_lock);	/* gb_ssd pointer */
static struct gb_ssd *gb_ssd;
static uuid_t gb_uuid;

static atomic64_t gb_flush_cas;
static s64 gb_flush_when;
static struct delayed_work gb_flush_dwork;

static struct workqueue_struct *gb_wq;		/* maintenance */
static struct workqueue_struct *gb_free_wq;	/* deferred frees */
static struct delayed_work gb_maint_dwork;	/* periodic: reclaim walk */
static struct delayed_work gb_quar_dwork;	/* kicked: quarantine, trim */
static unsigned long gb_quar_delay;		/* its current backoff */
static struct work_struct gb_reap_work;
static LLIST_HEAD(gb_reap_list);
static atomic64_t gb_maint_runs, gb_reclaim_walks;	/* debugfs */
static atomic64_t gb_evict_scanned;			/* debugfs */
static bool gb_running;
static struct dentry *gb_dbg_dir;
static bool gb_dbg_own_dir;
static unsigned long gb_pressure_next;	/* jiffies of the next event */

s64 gb_now(void)
{
	return ktime_get_real_seconds();
}
EXPORT_SYMBOL_GPL(gb_now);

s64 gb_exptime_abs(s64 exptime)
{
	if (exptime < 0)
		return -1;
	if (!exptime || exptime > GB_EXPTIME_REL_MAX)
		return exptime;
	return gb_now() + exptime;
}

/*
 * Maintenance comes in three parts:
 *  - the periodic work (GB_MAINT_PERIOD) walks the whole index for dead
 *    objects: O(items), so nothing but the period runs it;
 *  - kicks (a page went to quarantine, metadata over budget, a new
 *    configuration) run the cheap part only: recheck the quarantine and
 *    give blocks back. While pages stay quarantined (a client that stops
 *    reading) the recheck backs off exponentially from GB_KICK_DELAY to
 *    GB_MAINT_PERIOD, and starts over once the quarantine is empty;
 *  - a lookup that finds a dead object hands it to gb_reap_work, which
 *    unlinks just that object.
 *
 * gb_store_kick_maint() queues the recheck with the current backoff; it
 * never brings a pending one forward. Any context.
 */
void gb_store_kick_maint(void)
{
	if (READ_ONCE(gb_running))
		queue_delayed_work(gb_wq, &gb_quar_dwork,
				   READ_ONCE(gb_quar_delay));
}

u32 gb_store_generation(void)
{
	return atomic_read(&gb_gen);
}

static bool gb_obj_expired(const struct gb_obj *obj, s64 now)
{
	s64 e = READ_ONCE(obj->exptime);

	return e && e <= now;
}

static bool gb_obj_flushed(const struct gb_obj *obj, s64 now)
{
	s64 fw = READ_ONCE(gb_flush_when);

	if (obj->cas <= (u64)atomic64_read(&gb_flush_cas))
		return true;
	return fw && now >= fw && obj->priv->stime < fw;
}

static bool gb_obj_dead(const struct gb_obj *obj, s64 now)
{
	return gb_obj_expired(obj, now) || gb_obj_flushed(obj, now);
}

static bool gb_key_valid(const char *key, size_t klen)
{
	size_t i;

	if (!klen || klen > GB_KEY_MAX)
		return false;
	for (i = 0; i < klen; i++)
		if ((u8)key[i] <= ' ' || key[i] == 0x7f)
			return false;
	return true;
}

/* ---------------------------------------------------------------------- */
/* Object lifetime                                                        */

static struct gb_ssd *gb_ssd_get_current(void)
{
	struct gb_ssd *ssd;

	spin_lock(&gb_ssd_lock);
	ssd = gb_ssd;
	if (ssd)
		kref_get(&ssd->ref);
	spin_unlock(&gb_ssd_lock);
	return ssd;
}

/* RCU callback: no lookup can be looking at the object any more. */
static void gb_obj_free_rcu(struct rcu_head *rcu)
{
	struct gb_obj_priv *priv = container_of(rcu, struct gb_obj_priv, rcu);

	kfree(priv->obj);
	kvfree(priv);
}

static void gb_obj_free_work(struct work_struct *work)
{
	struct gb_obj_priv *priv = container_of(work, struct gb_obj_priv,
						free_work);

	gb_tail_destroy(priv->tail);
	priv->tail = NULL;
	call_rcu(&priv->rcu, gb_obj_free_rcu);
}

static void gb_obj_free(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;
	u32 i;

	/*
	 * Pages, the tail and the budgets can go back at once: an RCU reader
	 * that still sees the object fails refcount_inc_not_zero() and looks
	 * at nothing else, so only the memory of the object itself has to
	 * wait for a grace period. After a failed gb_obj_alloc() only the
	 * first pages are there; the budgets were charged in full (or not at
	 * all, then @meta is 0).
	 */
	for (i = 0; i < priv->nr_pages; i++)
		if (priv->pages[i].blk)
			gb_pool_free(&priv->pages[i]);
	if (priv->meta) {
		atomic64_sub((u64)priv->nr_pages << PAGE_SHIFT, &gb_head_bytes);
		gb_pool_meta_add(-(s64)priv->meta);
		priv->meta = 0;
	}
	priv->nr_pages = 0;
	/* The file goes in process context (we may be in any). */
	atomic64_sub(priv->tail_acct, &gb_tail_bytes);
	priv->tail_acct = 0;
	if (priv->tail) {
		INIT_WORK(&priv->free_work, gb_obj_free_work);
		queue_work(gb_free_wq, &priv->free_work);
	} else {
		call_rcu(&priv->rcu, gb_obj_free_rcu);
	}
}

/**
 * gb_obj_put - drop an object reference
 * @obj: object (may be NULL)
 *
 * Any context. The last reference frees the head pages (or quarantines
 * them) and schedules the tail file deletion.
 */
void gb_obj_put(struct gb_obj *obj)
{
	if (obj && refcount_dec_and_test(&obj->ref))
		gb_obj_free(obj);
}

/* Remove a linked object from the index; caller holds gb_wlock. */
static void gb_unlink(struct gb_obj *obj, bool from_ht)
{
	struct gb_obj_priv *priv = obj->priv;

	lockdep_assert_held(&gb_wlock);
	if (!priv->linked)
		return;
	if (from_ht)
		rhashtable_remove_fast(&gb_ht, &obj->node, gb_ht_params);
	list_del_init(&priv->lru);
	xa_erase(&gb_ids, priv->id);
	priv->linked = false;
	atomic64_dec(&gb_items);
	atomic64_sub(obj->len, &gb_bytes);
	atomic_inc(&gb_gen);
	gb_obj_put(obj);
}

/* Unlink a dead object and count why; caller holds gb_wlock. */
static void gb_unlink_dead(struct gb_obj *obj, s64 now)
{
	if (gb_obj_expired(obj, now) && !obj->priv->fetched)
		gb_stat_inc(GB_ST_EXPIRED_UNFETCHED);
	gb_stat_inc(GB_ST_RECLAIMED);
	gb_unlink(obj, true);
}

/*
 * A lookup found @obj dead: have the worker unlink it (lookups may run in
 * atomic context). Takes over the caller's reference. Each object is on
 * the list at most once, so the list is bounded by the index. Any context.
 */
static void gb_reap_later(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;

	if (!READ_ONCE(gb_running) || atomic_xchg(&priv->reaping, 1)) {
		gb_obj_put(obj);
		return;
	}
	llist_add(&priv->reap_node, &gb_reap_list);
	queue_work(gb_wq, &gb_reap_work);
}

static void gb_reap(void)
{
	struct llist_node *list = llist_del_all(&gb_reap_list);
	struct gb_obj_priv *priv, *tmp;
	s64 now = gb_now();
	unsigned int n = 0;

	if (!list)
		return;
	mutex_lock(&gb_wlock);
	llist_for_each_entry(priv, list, reap_node) {
		if (priv->linked && gb_obj_dead(priv->obj, now))
			gb_unlink_dead(priv->obj, now);
		if (!(++n % 1024)) {
			mutex_unlock(&gb_wlock);
			cond_resched();
			mutex_lock(&gb_wlock);
		}
	}
	mutex_unlock(&gb_wlock);
	/* Our references keep every entry alive until here. */
	llist_for_each_entry_safe(priv, tmp, list, reap_node) {
		atomic_set(&priv->reaping, 0);
		gb_obj_put(priv->obj);
	}
}

static void gb_reap_work_fn(struct work_struct *work)
{
	gb_reap();
}

/* What an eviction has to free. */
enum gb_need {
	GB_NEED_ANY,		/* anything (memory budget) */
	GB_NEED_PAGES,		/* head pages */
	GB_NEED_TAIL,		/* SSD space */
};

/*
 * Would unlinking @priv free what @need asks for right away? Only if the
 * index holds the last reference (nobody is reading or sending it, so it
 * is freed on unlink) and it has that kind of storage. Caller holds
 * gb_wlock.
 */
static bool gb_evict_frees(struct gb_obj_priv *priv, enum gb_need need)
{
	u32 nr = priv->nr_pages;

	if (refcount_read(&priv->obj->ref) != 1)
		return false;
	/* Pages a send still holds go to quarantine, not back to the pool. */
	if (need != GB_NEED_TAIL && nr &&
	    (gb_hpage_busy(&priv->pages[0]) || gb_hpage_busy(&priv->pages[nr - 1])))
		return false;
	switch (need) {
	case GB_NEED_PAGES:
		return nr;
	case GB_NEED_TAIL:
		return priv->tail;
	default:
		return true;
	}
}

/**
 * gb_evict_one - run the CLOCK hand until one object is evicted
 * @need: what the caller is short of
 *
 * Objects that would not free @need now (in use by a reader or a send, or
 * without that kind of storage) are passed over like visited ones, keeping
 * their bit: evicting them would lose a cached value and give nothing.
 * Dead objects are unlinked either way.
 *
 * The hand looks at GB_EVICT_SCAN entries at most (two rounds of a smaller
 * CLOCK list, so that every visited bit can be cleared once): the lock is
 * never held for a walk over a large index, and a SET that calls this a
 * few dozen times stays bounded. Passed-over entries go to the tail, so
 * the next call goes on where this one stopped.
 *
 * Return: true if an object that frees @need was unlinked; false if none
 * of the entries looked at would.
 */
static bool gb_evict_one(enum gb_need need)
{
	struct gb_obj_priv *priv;
	s64 now = gb_now();
	u64 scan, n;
	bool done = false;

	mutex_lock(&gb_wlock);
	scan = min_t(u64, GB_EVICT_SCAN, 2 * atomic64_read(&gb_items) + 2);
	for (n = 0; n < scan && !list_empty(&gb_clock); n++) {
		priv = list_first_entry(&gb_clock, struct gb_obj_priv, lru);
		if (gb_obj_dead(priv->obj, now)) {
			/*
			 * Unlinking may drop the last reference: @priv can be
			 * freed after a grace period, and a mutex holder is
			 * not an RCU reader. Look at it first.
			 */
			bool frees = gb_evict_frees(priv, need);

			gb_unlink_dead(priv->obj, now);
			if (frees) {
				done = true;
				break;
			}
			continue;
		}
		if (!gb_evict_frees(priv, need)) {
			list_move_tail(&priv->lru, &gb_clock);
			continue;
		}
		if (READ_ONCE(priv->visited)) {
			WRITE_ONCE(priv->visited, false);
			list_move_tail(&priv->lru, &gb_clock);
			continue;
		}
		gb_stat_inc(GB_ST_EVICTIONS);
		gb_unlink(priv->obj, true);
		done = true;
		break;
	}
	mutex_unlock(&gb_wlock);
	atomic64_add(n + done, &gb_evict_scanned);
	return done;
}

/**
 * gb_note_pressure - report that an allocation had to evict
 * @tail: the SSD budget (tails) was short, not the RAM budget (heads)
 *
 * Sends at most one pressure event per GB_PRESSURE_PERIOD, the first one
 * right away. Called without store locks held (the netlink event helpers
 * allow any context, this just keeps them off the eviction lock).
 */
static void gb_note_pressure(bool tail)
{
	unsigned long next = READ_ONCE(gb_pressure_next);
	unsigned long now = jiffies;
	u64 used, limit;

	if (time_before(now, next))
		return;
	/* One winner per period when several allocations evict at once. */
	if (cmpxchg(&gb_pressure_next, next, now + GB_PRESSURE_PERIOD) != next)
		return;
	if (tail) {
		used = atomic64_read(&gb_tail_bytes);
		limit = READ_ONCE(gb_ssd_max);
	} else {
		used = atomic64_read(&gb_head_bytes) + gb_pool_meta_bytes();
		limit = READ_ONCE(gb_cfg.memory);
	}
	gb_event_pressure(used, limit, gb_stat_sum(GB_ST_EVICTIONS));
}

/* Wait until the tail files of freed objects are deleted and released. */
static void gb_drain_tails(void)
{
	flush_workqueue(gb_free_wq);
	/* fput() from a kworker is deferred; tail space is freed on release. */
	flush_delayed_fput();
}

/* Wait until every freed object is gone, memory included (config, unload). */
static void gb_drain_frees(void)
{
	gb_drain_tails();
	rcu_barrier();
}

/*
 * Head pages for @priv, in runs of one gb_pool_rwsem hold each. When the
 * pool has none, evict objects that hold pages (without the rwsem, between
 * runs); an eviction after which there is still no page (its pages went to
 * quarantine because a send still references them) is fruitless, and after
 * GB_EVICT_FRUITLESS of those the allocation only waits for the quarantine
 * instead of emptying the cache.
 */
static int gb_obj_alloc_pages(struct gb_obj_priv *priv)
{
	int tries = 0, fruitless = 0;
	bool evicted = false;
	u32 i = 0, n;
	int err;

	while (i < priv->nr_pages) {
		err = gb_pool_alloc_n(NUMA_NO_NODE, &priv->pages[i],
				      priv->nr_pages - i, priv, &n);
		i += n;
		if (!err)
			break;
		if (err != -ENOMEM)
			return err;
		/* The last eviction did not give us a page. */
		if (evicted && !n)
			fruitless++;
		evicted = fruitless < GB_EVICT_FRUITLESS &&
			  gb_evict_one(GB_NEED_PAGES);
		if (evicted) {
			gb_note_pressure(false);
			continue;
		}
		/* Nothing to evict: pages held by readers or quarantine. */
		if (++tries > 50)
			return -ENOMEM;
		gb_pool_maint(false);
		usleep_range(2000, 4000);
	}
	return 0;
}

/* RAM that objects hold: head pages (lent or reserved), quarantine, metadata. */
static u64 gb_ram_used(void)
{
	return atomic64_read(&gb_head_bytes) + gb_pool_quarantined_bytes() +
	       gb_pool_meta_bytes();
}

/*
 * Kernel memory an object takes besides its head pages: the object and its
 * private part as slab rounds them up, its share of the hash table and the
 * id xarray, and for a tail the open file (struct file, dentry and inode,
 * which the filesystem sizes: estimated).
 */
#define GB_INDEX_OVERHEAD	32
#define GB_TAIL_OVERHEAD	2048

static u32 gb_obj_meta_size(u32 nr, bool tail)
{
	size_t m = kmalloc_size_roundup(sizeof(struct gb_obj)) +
		   kmalloc_size_roundup(sizeof(struct gb_obj_priv) +
					(size_t)nr * sizeof(struct gb_hpage)) +
		   GB_INDEX_OVERHEAD;

	if (tail)
		m += kmalloc_size_roundup(sizeof(struct gb_tail)) +
		     GB_TAIL_OVERHEAD;
	return m;
}

/*
 * Charge @priv's head pages and metadata to the memory budget and evict
 * until what objects hold fits in it again. Objects without a value take
 * no page but still count, so a flood of empty values evicts instead of
 * growing kernel memory. Fruitless evictions (whose victim's memory did
 * not come back) are bounded as in gb_obj_alloc_pages().
 */
static int gb_obj_charge(struct gb_obj_priv *priv, bool tail)
{
	u64 limit = READ_ONCE(gb_cfg.memory);
	int tries = 0, fruitless = 0;
	u64 before;

	priv->meta = gb_obj_meta_size(priv->nr_pages, tail);
	gb_pool_meta_add(priv->meta);
	atomic64_add((u64)priv->nr_pages << PAGE_SHIFT, &gb_head_bytes);
	if (((u64)priv->nr_pages << PAGE_SHIFT) + priv->meta > limit)
		return -ENOMEM;
	while ((before = gb_ram_used()) > limit) {
		if (fruitless < GB_EVICT_FRUITLESS &&
		    gb_evict_one(GB_NEED_ANY)) {
			gb_note_pressure(false);
			if (gb_ram_used() >= before)
				fruitless++;
			continue;
		}
		if (++tries > 50)
			return -ENOMEM;
		gb_pool_maint(false);
		usleep_range(2000, 4000);
	}
	/* Metadata may have left more blocks than the budget allows now. */
	if (gb_pool_over_budget())
		gb_store_kick_maint();
	return 0;
}

static int gb_obj_alloc_tail(struct gb_obj_priv *priv, struct gb_ssd *ssd,
			     u64 tail_len)
{
	u64 acct = round_up(tail_len, PAGE_SIZE);
	int tries = 0, fruitless = 0;
	struct gb_tail *t;
	int err;

	if (acct > READ_ONCE(gb_ssd_max))
		return -ENOSPC;
	while (atomic64_add_return(acct, &gb_tail_bytes) > READ_ONCE(gb_ssd_max)) {
		u64 before = atomic64_sub_return(acct, &gb_tail_bytes);

		if (fruitless >= GB_EVICT_FRUITLESS ||
		    !gb_evict_one(GB_NEED_TAIL))
			return -ENOSPC;
		gb_note_pressure(true);
		/* A victim nobody holds is uncharged when it is unlinked. */
		if (atomic64_read(&gb_tail_bytes) >= before)
			fruitless++;
	}
	priv->tail_acct = acct;
	t = gb_tail_create(ssd);
	if (IS_ERR(t))
		return PTR_ERR(t);
	priv->tail = t;
	/* Reserve the space now so that SSD full is detected before commit. */
	for (;;) {
		u64 could;
		int i, evicted = 0;

		err = vfs_fallocate(t->file, 0, 0, tail_len);
		if (err == -EOPNOTSUPP)
			return 0;
		if (err != -ENOSPC)
			return err;
		/* Evict only if removing our other tails can make it fit. */
		could = gb_ssd_avail(ssd) + atomic64_read(&gb_tail_bytes) - acct;
		if (++tries > 8 || could < tail_len)
			return -ENOSPC;
		for (i = 0; i < 4; i++)
			evicted += gb_evict_one(GB_NEED_TAIL);
		if (!evicted)
			return -ENOSPC;
		gb_note_pressure(true);
		gb_drain_tails();
	}
}

/**
 * gb_obj_alloc - build a new, unpublished object
 * @key:     key bytes
 * @klen:    key length
 * @flags:   client flags
 * @exptime: memcache exptime or absolute time (see gb_exptime_abs())
 * @len:     value length
 *
 * Reserves head pages (evicting as needed) and, for values longer than
 * ram_head, creates and reserves the tail file. Process context.
 *
 * Return: the object with one reference, or an ERR_PTR.
 */
struct gb_obj *gb_obj_alloc(const char *key, size_t klen, u32 flags,
			    s64 exptime, u64 len)
{
	u32 ram_head = READ_ONCE(gb_ram_head);
	struct gb_obj_priv *priv;
	struct gb_ssd *ssd = NULL;
	struct gb_obj *obj;
	u32 head_len, nr;
	int err;

	if (!gb_key_valid(key, klen))
		return ERR_PTR(-EINVAL);
	if (len > GB_VALUE_MAX)
		return ERR_PTR(-E2BIG);
	head_len = min_t(u64, len, ram_head);
	if (len > head_len) {
		ssd = gb_ssd_get_current();
		if (!ssd)
			return ERR_PTR(-E2BIG);
	}
	nr = DIV_ROUND_UP(head_len, PAGE_SIZE);
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	priv = kvzalloc(struct_size(priv, pages, nr), GFP_KERNEL);
	if (!obj || !priv) {
		kfree(obj);
		kvfree(priv);
		gb_ssd_put(ssd);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&obj->ref, 1);
	obj->len = len;
	obj->flags = flags;
	obj->exptime = gb_exptime_abs(exptime);
	obj->priv = priv;
	obj->klen = klen;
	memcpy(obj->key, key, klen);
	priv->obj = obj;
	priv->head_len = head_len;
	priv->nr_pages = nr;
	INIT_LIST_HEAD(&priv->lru);

	err = gb_obj_charge(priv, ssd);
	if (!err)
		err = gb_obj_alloc_pages(priv);
	if (!err && ssd)
		err = gb_obj_alloc_tail(priv, ssd, len - head_len);
	gb_ssd_put(ssd);
	if (err) {
		gb_obj_put(obj);
		return ERR_PTR(err);
	}
	return obj;
}

/**
 * gb_obj_head_len - bytes of the value held in RAM head pages
 * @obj: object from gb_obj_alloc() or a lookup (any reference)
 *
 * Value bytes [0, gb_obj_head_len()) live in head pages; the rest, if any,
 * in the tail file. Fixed when the object is allocated (min(len, ram_head)
 * at that time), so it stays valid for the object's whole life even if
 * ram_head is changed later. Any context.
 *
 * Return: head length in bytes, at most @obj->len.
 */
u32 gb_obj_head_len(const struct gb_obj *obj)
{
	return obj->priv->head_len;
}

/*
 * Copy between @buf and the head bytes [*@off, head_len) of @priv, as many
 * of @len as fall in the head (@to_head: into the head pages). Advances
 * *@off and returns the number of bytes copied.
 */
static size_t gb_head_copy(struct gb_obj_priv *priv, u64 *off, void *buf,
			   size_t len, bool to_head)
{
	size_t done = 0, n;

	while (done < len && *off < priv->head_len) {
		struct page *page = gb_hpage_page(&priv->pages[*off >> PAGE_SHIFT]);
		unsigned int pgoff = offset_in_page(*off);
		void *p;

		n = min_t(u64, len - done, min_t(u64, PAGE_SIZE - pgoff,
						 priv->head_len - *off));
		p = kmap_local_page(page);
		if (to_head)
			memcpy(p + pgoff, buf + done, n);
		else
			memcpy(buf + done, p + pgoff, n);
		kunmap_local(p);
		done += n;
		*off += n;
	}
	return done;
}

/*
 * A tail operation on @obj failed with @err (@wb: its writeback failed).
 * Unless the error is transient, the value cannot be served any more: the
 * first failure counts it and unlinks the object if it is still the one in
 * the index, so that later lookups miss instead of failing again. Process
 * context, no store lock held. Returns the error to pass on.
 */
static int gb_obj_tail_error(struct gb_obj *obj, int err, bool wb)
{
	struct gb_obj_priv *priv = obj->priv;

	if (err == -ENOMEM || err == -EINTR || err == -ERESTARTSYS ||
	    err == -EAGAIN)
		return err;
	if (xchg(&priv->bad, 1))
		return err;
	gb_stat_inc(wb ? GB_ST_TAIL_WB_ERRORS : GB_ST_TAIL_IO_ERRORS);
	pr_warn_ratelimited("tail %016llx: %s error %d, object dropped\n",
			    priv->tail->id, wb ? "writeback" : "read", err);
	mutex_lock(&gb_wlock);
	gb_unlink(obj, true);
	mutex_unlock(&gb_wlock);
	return err;
}

/* Check a tail read of @obj that got @err (0 if it worked) for errors. */
static int gb_obj_tail_check(struct gb_obj *obj, int err)
{
	if (err)
		return gb_obj_tail_error(obj, err, false);
	err = gb_tail_check_wb(obj->priv->tail);
	if (err)
		return gb_obj_tail_error(obj, -EIO, true);
	return 0;
}

/**
 * gb_obj_write - fill value bytes of an unpublished object
 * @obj: object from gb_obj_alloc()
 * @off: value offset
 * @src: bytes
 * @len: count
 *
 * Return: 0, -EINVAL out of range, or the tail file's write error.
 */
int gb_obj_write(struct gb_obj *obj, u64 off, const void *src, size_t len)
{
	struct gb_obj_priv *priv = obj->priv;
	size_t n;

	if (off > obj->len || len > obj->len - off)
		return -EINVAL;
	n = gb_head_copy(priv, &off, (void *)src, len, true);
	if (n == len)
		return 0;
	return gb_tail_write(priv->tail, off - priv->head_len, src + n,
			     len - n);
}

/**
 * gb_obj_get_page - reference the page holding value byte @off
 * @obj:   referenced object
 * @off:   value offset
 * @pg:    page (put_page() when done)
 * @pgoff: offset of @off in *@pg
 * @seg:   contiguous value bytes from @off in *@pg
 *
 * A tail that fails to read or whose writeback failed makes the store drop
 * the object (see store.h).
 *
 * Return: 0 or -errno. Sleeps for tail bytes.
 */
int gb_obj_get_page(struct gb_obj *obj, u64 off, struct page **pg,
		    unsigned int *pgoff, unsigned int *seg)
{
	struct gb_obj_priv *priv = obj->priv;
	struct page *page;
	u64 end;
	int err;

	if (off >= obj->len)
		return -EINVAL;
	if (off < priv->head_len) {
		page = gb_hpage_page(&priv->pages[off >> PAGE_SHIFT]);
		get_page(page);
		end = priv->head_len;
	} else {
		if (READ_ONCE(priv->bad))
			return -EIO;
		page = gb_tail_get_page(priv->tail, off - priv->head_len,
					obj->len - priv->head_len);
		err = gb_obj_tail_check(obj, PTR_ERR_OR_ZERO(page));
		if (err) {
			if (!IS_ERR(page))
				put_page(page);
			return err;
		}
		end = obj->len;
	}
	*pg = page;
	*pgoff = offset_in_page(off);
	*seg = min_t(u64, PAGE_SIZE - *pgoff, end - off);
	return 0;
}

/**
 * gb_obj_read - copy value bytes out
 * @obj: referenced object
 * @off: value offset
 * @dst: buffer
 * @len: count
 *
 * Return: 0 or -errno. Sleeps for tail bytes.
 */
int gb_obj_read(struct gb_obj *obj, u64 off, void *dst, size_t len)
{
	struct gb_obj_priv *priv = obj->priv;
	size_t n;

	if (off > obj->len || len > obj->len - off)
		return -EINVAL;
	n = gb_head_copy(priv, &off, dst, len, false);
	if (n == len)
		return 0;
	if (READ_ONCE(priv->bad))
		return -EIO;
	return gb_obj_tail_check(obj, gb_tail_read(priv->tail,
						   off - priv->head_len,
						   dst + n, len - n));
}

/**
 * gb_obj_copy - copy value bytes between objects
 * @dst:     unpublished destination
 * @dst_off: offset in @dst
 * @src:     referenced source
 * @src_off: offset in @src
 * @len:     count
 *
 * Return: 0 or -errno. Sleeps.
 */
int gb_obj_copy(struct gb_obj *dst, u64 dst_off, struct gb_obj *src,
		u64 src_off, u64 len)
{
	void *buf;
	size_t n;
	int err = 0;

	if (src_off > src->len || len > src->len - src_off ||
	    dst_off > dst->len || len > dst->len - dst_off)
		return -EINVAL;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while (len && !err) {
		n = min_t(u64, len, PAGE_SIZE);
		err = gb_obj_read(src, src_off, buf, n);
		if (!err)
			err = gb_obj_write(dst, dst_off, buf, n);
		src_off += n;
		dst_off += n;
		len -= n;
	}
	kfree(buf);
	return err;
}

/* ---------------------------------------------------------------------- */
/* Lookups                                                                */

/* Referenced live object or NULL; @why is set to the GET counter to bump. */
static struct gb_obj *gb_lookup(const char *key, size_t klen, int *why)
{
	struct gb_key k = { .key = key, .klen = klen };
	struct gb_obj *obj;
	s64 now;

	*why = GB_ST_GET_MISSES;
	if (!gb_key_valid(key, klen))
		return NULL;
	rcu_read_lock();
	obj = rhashtable_lookup(&gb_ht, &k, gb_ht_params);
	if (obj && !refcount_inc_not_zero(&obj->ref))
		obj = NULL;
	rcu_read_unlock();
	if (!obj)
		return NULL;
	now = gb_now();
	if (gb_obj_dead(obj, now)) {
		*why = gb_obj_expired(obj, now) ? GB_ST_GET_EXPIRED :
						  GB_ST_GET_FLUSHED;
		/* Lazy reclaim: the worker unlinks it (we may be atomic). */
		gb_reap_later(obj);
		return NULL;
	}
	return obj;
}

/**
 * gb_store_get - look up a live object
 * @key:  key
 * @klen: key length
 *
 * Any context. Return: a referenced object or NULL.
 */
struct gb_obj *gb_store_get(const char *key, size_t klen)
{
	struct gb_obj *obj;
	int why;

	obj = gb_lookup(key, klen, &why);
	if (!obj) {
		gb_stat_inc(GB_ST_GET_MISSES);
		if (why != GB_ST_GET_MISSES)
			gb_stat_inc(why);
		return NULL;
	}
	if (!READ_ONCE(obj->priv->visited))
		WRITE_ONCE(obj->priv->visited, true);
	if (!READ_ONCE(obj->priv->fetched))
		WRITE_ONCE(obj->priv->fetched, true);
	gb_stat_inc(GB_ST_GET_HITS);
	return obj;
}

struct gb_obj *gb_store_get_touch(const char *key, size_t klen, s64 exptime)
{
	struct gb_obj *obj;

	gb_stat_inc(GB_ST_CMD_TOUCH);
	obj = gb_store_get(key, klen);
	if (!obj) {
		gb_stat_inc(GB_ST_TOUCH_MISSES);
		return NULL;
	}
	gb_stat_inc(GB_ST_TOUCH_HITS);
	WRITE_ONCE(obj->exptime, gb_exptime_abs(exptime));
	return obj;
}

int gb_store_touch(const char *key, size_t klen, s64 exptime)
{
	struct gb_obj *obj;
	s64 abs;
	int why;

	gb_stat_inc(GB_ST_CMD_TOUCH);
	obj = gb_lookup(key, klen, &why);
	if (!obj) {
		gb_stat_inc(GB_ST_TOUCH_MISSES);
		return GB_NOT_FOUND;
	}
	abs = gb_exptime_abs(exptime);
	WRITE_ONCE(obj->exptime, abs);
	WRITE_ONCE(obj->priv->visited, true);
	gb_stat_inc(GB_ST_TOUCH_HITS);
	/* @obj may be gone once our reference is: use the local copy. */
	if (abs < 0)
		gb_reap_later(obj);
	else
		gb_obj_put(obj);
	return GB_STORED;
}

/* ---------------------------------------------------------------------- */
/* Mutations                                                              */

/* Live linked object for @obj's key, or NULL; caller holds gb_wlock. */
static struct gb_obj *gb_find_locked(const char *key, size_t klen, s64 now)
{
	struct gb_key k = { .key = key, .klen = klen };
	struct gb_obj *old;

	old = rhashtable_lookup_fast(&gb_ht, &k, gb_ht_params);
	if (old && gb_obj_dead(old, now)) {
		gb_unlink_dead(old, now);
		old = NULL;
	}
	return old;
}

/* Link @obj (taking over the caller's reference), replacing @old. */
static int gb_link_locked(struct gb_obj *obj, struct gb_obj *old, s64 now)
{
	struct gb_obj_priv *priv = obj->priv;
	int err;

	obj->cas = atomic64_inc_return(&gb_cas_seq);
	priv->stime = now;
	priv->id = ++gb_next_id;
	err = xa_err(xa_store(&gb_ids, priv->id, obj, GFP_KERNEL));
	if (err)
		return err;
	if (old) {
		err = rhashtable_replace_fast(&gb_ht, &old->node, &obj->node,
					      gb_ht_params);
		if (!err)
			gb_unlink(old, false);
	} else {
		err = rhashtable_insert_fast(&gb_ht, &obj->node, gb_ht_params);
	}
	if (err) {
		xa_erase(&gb_ids, priv->id);
		return err;
	}
	priv->linked = true;
	list_add_tail(&priv->lru, &gb_clock);
	atomic64_inc(&gb_items);
	atomic64_add(obj->len, &gb_bytes);
	atomic_inc(&gb_gen);
	gb_stat_inc(GB_ST_TOTAL_ITEMS);
	return 0;
}

static int __gb_store_commit(struct gb_obj *obj, enum gb_store_mode mode,
			     u64 cas, bool count)
{
	s64 now = gb_now();
	struct gb_obj *old;
	int res = GB_STORED;
	bool lost = false;
	int err;

	/*
	 * Tail pages written back (and failed) already while the value was
	 * being written: refuse to publish it rather than serve it later.
	 */
	if (obj->priv->tail && gb_tail_check_wb(obj->priv->tail)) {
		gb_stat_inc(GB_ST_TAIL_WB_ERRORS);
		pr_warn_ratelimited("tail %016llx: writeback error, not stored\n",
				    obj->priv->tail->id);
		lost = true;
	}
	mutex_lock(&gb_wlock);
	old = gb_find_locked(obj->key, obj->klen, now);
	switch (mode) {
	case GB_MODE_SET:
		break;
	case GB_MODE_ADD:
		if (old) {
			WRITE_ONCE(old->priv->visited, true);
			res = GB_NOT_STORED;
		}
		break;
	case GB_MODE_REPLACE:
		if (!old)
			res = GB_NOT_STORED;
		break;
	case GB_MODE_CAS:
		if (!old)
			res = GB_NOT_FOUND;
		else if (old->cas != cas)
			res = GB_EXISTS;
		if (count)
			gb_stat_inc(res == GB_NOT_FOUND ? GB_ST_CAS_MISSES :
				    res == GB_EXISTS ? GB_ST_CAS_BADVAL :
				    GB_ST_CAS_HITS);
		break;
	default:
		res = -EINVAL;
	}
	if (res == GB_STORED) {
		if (obj->exptime < 0 || lost) {
			/*
			 * Already expired: storing it just removes the old
			 * one. Lost: the store fails, and a failed SET leaves
			 * no older value behind (as when it runs out of
			 * memory).
			 */
			if (old && (!lost || mode == GB_MODE_SET))
				gb_unlink(old, true);
			gb_obj_put(obj);
			if (lost)
				res = -EIO;
		} else {
			err = gb_link_locked(obj, old, now);
			if (err) {
				res = err;
				gb_obj_put(obj);
			}
		}
	} else {
		gb_obj_put(obj);
	}
	mutex_unlock(&gb_wlock);
	return res;
}

/* Append/prepend: build old + new (or new + old) and swap it in by CAS. */
static int gb_store_concat(struct gb_obj *add, bool prepend)
{
	struct gb_obj *old, *obj;
	int why, res, tries;

	for (tries = 0; tries < 16; tries++) {
		old = gb_lookup(add->key, add->klen, &why);
		if (!old) {
			res = GB_NOT_STORED;
			break;
		}
		if (old->len + add->len > GB_VALUE_MAX) {
			gb_obj_put(old);
			res = -E2BIG;
			break;
		}
		obj = gb_obj_alloc(add->key, add->klen, old->flags,
				   READ_ONCE(old->exptime) ?: 0,
				   old->len + add->len);
		if (IS_ERR(obj)) {
			gb_obj_put(old);
			res = PTR_ERR(obj);
			break;
		}
		res = gb_obj_copy(obj, prepend ? add->len : 0, old, 0, old->len);
		if (!res)
			res = gb_obj_copy(obj, prepend ? 0 : old->len, add, 0,
					  add->len);
		if (res) {
			gb_obj_put(old);
			gb_obj_put(obj);
			break;
		}
		res = __gb_store_commit(obj, GB_MODE_CAS, old->cas, false);
		gb_obj_put(old);
		if (res != GB_EXISTS) {
			if (res == GB_NOT_FOUND)
				res = GB_NOT_STORED;
			break;
		}
	}
	gb_obj_put(add);
	return res;
}

/**
 * gb_store_commit - publish an object
 * @obj:  object from gb_obj_alloc(), fully written
 * @mode: memcache storage command
 * @cas:  expected CAS unique for GB_MODE_CAS
 *
 * Consumes the caller's reference. Process context.
 *
 * Return: a &enum gb_store_result or -errno.
 */
int gb_store_commit(struct gb_obj *obj, enum gb_store_mode mode, u64 cas)
{
	gb_stat_inc(GB_ST_CMD_SET);
	if (mode == GB_MODE_APPEND || mode == GB_MODE_PREPEND)
		return gb_store_concat(obj, mode == GB_MODE_PREPEND);
	return __gb_store_commit(obj, mode, cas, true);
}

static int __gb_store_delete(const char *key, size_t klen, u64 cas)
{
	struct gb_obj *old;
	int res = GB_NOT_FOUND;

	mutex_lock(&gb_wlock);
	old = gb_find_locked(key, klen, gb_now());
	if (old && cas && old->cas != cas) {
		res = GB_EXISTS;
	} else if (old) {
		gb_unlink(old, true);
		res = GB_STORED;
	}
	mutex_unlock(&gb_wlock);
	return res;
}

int gb_store_delete(const char *key, size_t klen, u64 cas)
{
	int res = GB_NOT_FOUND;

	if (gb_key_valid(key, klen))
		res = __gb_store_delete(key, klen, cas);
	gb_stat_inc(res == GB_STORED ? GB_ST_DELETE_HITS : GB_ST_DELETE_MISSES);
	return res;
}

/**
 * gb_store_drop - unlink whatever @key holds, not as a delete command
 * @key:  key
 * @klen: key length
 *
 * For a SET that failed: the old value must not stay behind it. Not
 * counted in delete_hits / delete_misses (no client asked for a delete).
 * Process context.
 */
void gb_store_drop(const char *key, size_t klen)
{
	if (gb_key_valid(key, klen))
		__gb_store_delete(key, klen, 0);
}

/*
 * memcached only does arithmetic on items below its slab chunk limit (512 KiB
 * including a ~59 byte header and the key); larger ones are "non-numeric".
 */
#define GB_ARITH_ITEM_MAX	(512 * 1024)
#define GB_ARITH_ITEM_HDR	59

/*
 * Parse a counter like memcached's safe_strtoull() on the item data (the
 * value followed by "\r\n"): leading whitespace, an optional sign, 1..20
 * digits, then whitespace or the end of the value. A result that is
 * negative as an s64 is refused when the value holds a '-'.
 */
static int gb_parse_counter(struct gb_obj *obj, u64 *val)
{
	enum { SPACE, SIGN, DIGITS, DONE } st = SPACE;
	bool neg = false, digits = false;
	u64 off = 0, v = 0;
	char buf[64];
	size_t i, n;
	int err;

	while (st != DONE && off < obj->len) {
		n = min_t(u64, sizeof(buf), obj->len - off);
		err = gb_obj_read(obj, off, buf, n);
		if (err)
			return err;
		for (i = 0; i < n && st != DONE; i++) {
			char c = buf[i];

			if (st == SPACE && (c == ' ' || (c >= '\t' && c <= '\r')))
				continue;
			if (st == SPACE && (c == '+' || c == '-')) {
				neg = c == '-';
				st = SIGN;
				continue;
			}
			if (c >= '0' && c <= '9') {
				if (check_mul_overflow(v, (u64)10, &v) ||
				    check_add_overflow(v, (u64)(c - '0'), &v))
					return -EINVAL;
				digits = true;
				st = DIGITS;
				continue;
			}
			/* The number must be followed by whitespace. */
			if (!digits || !(c == ' ' || (c >= '\t' && c <= '\r')))
				return -EINVAL;
			st = DONE;
		}
		off += n;
	}
	if (!digits)
		return -EINVAL;
	if (neg)
		v = 0 - v;
	if ((s64)v < 0) {
		/* memcached: strchr(value, '-') */
		if (neg)
			return -EINVAL;
		for (off = 0; off < obj->len; off += n) {
			n = min_t(u64, sizeof(buf), obj->len - off);
			err = gb_obj_read(obj, off, buf, n);
			if (err)
				return err;
			if (memchr(buf, '-', n))
				return -EINVAL;
		}
	}
	*val = v;
	return 0;
}

/**
 * gb_store_arith - memcached incr/decr
 * @key:     key
 * @klen:    key length
 * @decr:    decrement instead of increment
 * @delta:   amount
 * @result:  new value
 * @cas_out: CAS unique of the new object (may be NULL)
 *
 * The counter is parsed like memcached 1.6 (leading whitespace, a number
 * followed by whitespace or the end). The new value is stored as a new
 * object holding its decimal string, padded with spaces to the old length
 * when shorter (memcached rewrites the item in place); flags and exptime
 * are kept. incr wraps at 2^64, decr stops at 0.
 *
 * Return: GB_STORED, GB_NOT_FOUND, -EINVAL (not a number) or -errno.
 */
int gb_store_arith(const char *key, size_t klen, bool decr, u64 delta,
		   u64 *result, u64 *cas_out)
{
	struct gb_obj *old, *obj;
	char buf[64];
	int why, res = -EAGAIN, tries, n;
	u64 v, len, off;

	for (tries = 0; tries < 16 && res == -EAGAIN; tries++) {
		old = gb_lookup(key, klen, &why);
		if (!old) {
			res = GB_NOT_FOUND;
			break;
		}
		if (!old->len ||
		    old->len + klen + GB_ARITH_ITEM_HDR > GB_ARITH_ITEM_MAX)
			res = -EINVAL;
		else
			res = gb_parse_counter(old, &v);
		if (res) {
			gb_obj_put(old);
			break;
		}
		if (decr)
			v = v < delta ? 0 : v - delta;
		else
			v += delta;
		n = snprintf(buf, sizeof(buf), "%llu", v);
		len = max_t(u64, n, old->len);
		obj = gb_obj_alloc(key, klen, old->flags,
				   READ_ONCE(old->exptime), len);
		if (IS_ERR(obj)) {
			gb_obj_put(old);
			res = PTR_ERR(obj);
			break;
		}
		res = gb_obj_write(obj, 0, buf, n);
		memset(buf, ' ', sizeof(buf));
		for (off = n; !res && off < len; off += sizeof(buf))
			res = gb_obj_write(obj, off, buf,
					   min_t(u64, sizeof(buf), len - off));
		if (res) {
			gb_obj_put(obj);
			gb_obj_put(old);
			break;
		}
		refcount_inc(&obj->ref);
		res = __gb_store_commit(obj, GB_MODE_CAS, old->cas, false);
		gb_obj_put(old);
		if (res == GB_STORED) {
			*result = v;
			if (cas_out)
				*cas_out = obj->cas;
		} else if (res == GB_EXISTS) {
			res = -EAGAIN;
		}
		gb_obj_put(obj);
	}
	if (res == -EAGAIN)
		res = -EBUSY;
	if (decr)
		gb_stat_inc(res == GB_STORED ? GB_ST_DECR_HITS : GB_ST_DECR_MISSES);
	else
		gb_stat_inc(res == GB_STORED ? GB_ST_INCR_HITS : GB_ST_INCR_MISSES);
	return res;
}

/* Unlink every dead object (or all with @all, or all tailed with @tails). */
static void gb_reclaim(bool all, bool tails)
{
	struct gb_obj *obj;
	unsigned long id;
	s64 now = gb_now();
	unsigned int n = 0;

	atomic64_inc(&gb_reclaim_walks);
	mutex_lock(&gb_wlock);
	xa_for_each(&gb_ids, id, obj) {
		if (all || (tails && obj->priv->tail))
			gb_unlink(obj, true);
		else if (gb_obj_dead(obj, now))
			gb_unlink_dead(obj, now);
		if (!(++n % 1024)) {
			mutex_unlock(&gb_wlock);
			cond_resched();
			mutex_lock(&gb_wlock);
		}
	}
	mutex_unlock(&gb_wlock);
}

static void gb_flush_now(void)
{
	atomic64_set(&gb_flush_cas, atomic64_read(&gb_cas_seq));
	WRITE_ONCE(gb_flush_when, 0);
	/* Lookups reap what they find, the periodic walk the rest. */
}

/*
 * The flush work is armed for at most GB_FLUSH_STEP at a time and re-arms
 * itself until gb_flush_when is reached: the timer wheel caps a delay (at
 * about 2^30 jiffies, 49 days at HZ=250) and fires a longer one early, and
 * (when - now) * HZ must not overflow. gb_flush_mutex orders the work
 * against a new flush_all, so neither re-arms for a stale deadline.
 */
#define GB_FLUSH_STEP		(24 * 60 * 60)	/* seconds */
static DEFINE_MUTEX(gb_flush_mutex);

/* Caller holds gb_flush_mutex; @when > @now. */
static void gb_flush_arm(s64 when, s64 now)
{
	s64 wait = min_t(s64, when - now, GB_FLUSH_STEP);

	mod_delayed_work(gb_wq, &gb_flush_dwork, (unsigned long)wait * HZ);
}

static void gb_flush_work(struct work_struct *work)
{
	s64 now = gb_now(), when;

	mutex_lock(&gb_flush_mutex);
	when = READ_ONCE(gb_flush_when);
	if (when && now < when)
		gb_flush_arm(when, now);
	else if (when)
		gb_flush_now();
	mutex_unlock(&gb_flush_mutex);
}

/**
 * gb_store_flush - memcached flush_all
 * @when: absolute time (or memcache exptime) at which everything stored up
 *        to then becomes invalid; <= now flushes immediately
 */
void gb_store_flush(s64 when)
{
	s64 now = gb_now();

	when = when > 0 ? gb_exptime_abs(when) : 0;
	mutex_lock(&gb_flush_mutex);
	if (when <= now) {
		cancel_delayed_work(&gb_flush_dwork);
		gb_flush_now();
	} else {
		WRITE_ONCE(gb_flush_when, when);
		gb_flush_arm(when, now);
	}
	mutex_unlock(&gb_flush_mutex);
}

/* Pool callback: reference the object owning a head page (pool lock held). */
static bool gb_obj_grab(void *owner)
{
	struct gb_obj_priv *priv = owner;

	return refcount_inc_not_zero(&priv->obj->ref);
}

/*
 * While the pools hold more blocks than the budget allows (it was lowered)
 * and none is idle, evict the objects of the least used block so that it
 * can go: evictions alone would free pages all over, possibly never a
 * whole block. Objects in use are unlinked too; their pages follow when
 * the last reference goes. Bounded per run; the next run continues.
 */
static void gb_trim_blocks(void)
{
	void *victims[64];
	int round, n, i, evicted;

	for (round = 0; round < 16 && gb_pool_over_budget(); round++) {
		n = gb_pool_victims(gb_obj_grab, victims, ARRAY_SIZE(victims));
		evicted = 0;
		mutex_lock(&gb_wlock);
		for (i = 0; i < n; i++) {
			struct gb_obj_priv *priv = victims[i];

			if (priv->linked) {
				gb_stat_inc(GB_ST_EVICTIONS);
				gb_unlink(priv->obj, true);
				evicted++;
			}
		}
		mutex_unlock(&gb_wlock);
		for (i = 0; i < n; i++)
			gb_obj_put(((struct gb_obj_priv *)victims[i])->obj);
		/* Only readers hold that block now: wait for them. */
		if (!evicted)
			break;
		/* Give the emptied block back before picking the next one. */
		gb_pool_maint(false);
	}
}

static void gb_maint_work(struct work_struct *work)
{
	gb_reclaim(false, false);
	gb_pool_maint(false);
	gb_trim_blocks();
	if (READ_ONCE(gb_running))
		queue_delayed_work(gb_wq, &gb_maint_dwork, GB_MAINT_PERIOD);
}

/* Kicked maintenance: no index walk (see gb_store_kick_maint()). */
static void gb_quar_work(struct work_struct *work)
{
	atomic64_inc(&gb_maint_runs);
	/* gb_pool_maint() re-kicks while pages stay quarantined: back off. */
	WRITE_ONCE(gb_quar_delay,
		   min_t(unsigned long, gb_quar_delay * 2, GB_MAINT_PERIOD));
	gb_pool_maint(false);
	gb_trim_blocks();
	if (!gb_pool_quarantined_bytes())
		WRITE_ONCE(gb_quar_delay, GB_KICK_DELAY);
}

/* ---------------------------------------------------------------------- */
/* Dumps, statistics, configuration                                       */

/**
 * gb_store_walk - visit live objects in id order
 * @cursor: next id to visit (0 to start); updated
 * @fn:     visitor; a non-zero return stops the walk at that object
 * @arg:    passed to @fn
 *
 * An object is visited at most once per walk and every object that stays
 * linked during the walk is visited. Return: 0 at the end, or @fn's error
 * (*@cursor then points at the object to retry).
 */
int gb_store_walk(u64 *cursor, gb_store_visit_fn fn, void *arg)
{
	unsigned long id = *cursor;
	struct gb_obj *obj;
	s64 now = gb_now();
	int err;

	for (;;) {
		rcu_read_lock();
		obj = xa_find(&gb_ids, &id, ULONG_MAX, XA_PRESENT);
		if (obj && !refcount_inc_not_zero(&obj->ref)) {
			rcu_read_unlock();
			id++;
			continue;
		}
		rcu_read_unlock();
		if (!obj)
			break;
		if (gb_obj_dead(obj, now)) {
			gb_obj_put(obj);
			id++;
			continue;
		}
		err = fn(obj, arg);
		gb_obj_put(obj);
		if (err) {
			*cursor = id;
			return err;
		}
		id++;
	}
	*cursor = id;
	return 0;
}

void gb_store_get_stats(struct gb_store_stats *st)
{
	struct gb_pool_stats ps;

	memset(st, 0, sizeof(*st));
	gb_pool_get_stats(&ps);
	st->curr_items = atomic64_read(&gb_items);
	st->total_items = gb_stat_sum(GB_ST_TOTAL_ITEMS);
	st->bytes = atomic64_read(&gb_bytes);
	st->head_bytes = atomic64_read(&gb_head_bytes);
	st->meta_bytes = gb_pool_meta_bytes();
	st->tail_bytes = atomic64_read(&gb_tail_bytes);
	st->evictions = gb_stat_sum(GB_ST_EVICTIONS);
	st->expired_unfetched = gb_stat_sum(GB_ST_EXPIRED_UNFETCHED);
	st->reclaimed = gb_stat_sum(GB_ST_RECLAIMED);
	st->get_hits = gb_stat_sum(GB_ST_GET_HITS);
	st->get_misses = gb_stat_sum(GB_ST_GET_MISSES);
	st->get_expired = gb_stat_sum(GB_ST_GET_EXPIRED);
	st->get_flushed = gb_stat_sum(GB_ST_GET_FLUSHED);
	st->cmd_set = gb_stat_sum(GB_ST_CMD_SET);
	st->cmd_touch = gb_stat_sum(GB_ST_CMD_TOUCH);
	st->touch_hits = gb_stat_sum(GB_ST_TOUCH_HITS);
	st->touch_misses = gb_stat_sum(GB_ST_TOUCH_MISSES);
	st->delete_hits = gb_stat_sum(GB_ST_DELETE_HITS);
	st->delete_misses = gb_stat_sum(GB_ST_DELETE_MISSES);
	st->incr_hits = gb_stat_sum(GB_ST_INCR_HITS);
	st->incr_misses = gb_stat_sum(GB_ST_INCR_MISSES);
	st->decr_hits = gb_stat_sum(GB_ST_DECR_HITS);
	st->decr_misses = gb_stat_sum(GB_ST_DECR_MISSES);
	st->cas_hits = gb_stat_sum(GB_ST_CAS_HITS);
	st->cas_misses = gb_stat_sum(GB_ST_CAS_MISSES);
	st->cas_badval = gb_stat_sum(GB_ST_CAS_BADVAL);
	st->blocks_total = ps.blocks_total;
	st->blocks_huge = ps.blocks_huge;
	st->blocks_small = ps.blocks_small;
	st->pages_free = ps.pages_free;
	st->pages_quarantined = ps.pages_quarantined;
	st->quarantined_total = gb_stat_sum(GB_ST_QUARANTINED);
	st->tail_io_errors = gb_stat_sum(GB_ST_TAIL_IO_ERRORS);
	st->tail_wb_errors = gb_stat_sum(GB_ST_TAIL_WB_ERRORS);
	st->memory_limit = READ_ONCE(gb_cfg.memory);
	st->ssd_limit = READ_ONCE(gb_ssd_max);
}

/**
 * gb_store_node_usage - head memory of the store on one NUMA node
 * @nid:        node id
 * @head_bytes: set to the bytes of head pages lent to objects on @nid
 * @blocks:     set to the number of pool blocks allocated on @nid
 *
 * Both are 0 for a node the store has not used. Process context.
 */
void gb_store_node_usage(int nid, u64 *head_bytes, u64 *blocks)
{
	u64 pages;

	gb_pool_node_usage(nid, &pages, blocks);
	*head_bytes = pages << PAGE_SHIFT;
}

void gb_store_get_config(struct gb_store_config *cfg)
{
	mutex_lock(&gb_cfg_mutex);
	*cfg = gb_cfg;
	cfg->ssd_max = gb_ssd_max;
	mutex_unlock(&gb_cfg_mutex);
}

static u64 gb_default_memory(void)
{
	return ((u64)totalram_pages() << PAGE_SHIFT) / 8;
}

/* Refuse a configuration: @msg is a static string naming the field. */
static int gb_refuse(struct netlink_ext_ack *extack, const char *msg, int err)
{
	if (extack)
		extack->_msg = msg;
	pr_err("config refused: %s\n", msg);
	return err;
}

/**
 * gb_store_set_config - apply a complete configuration
 * @cfg:    wanted configuration (memory 0 = 1/8 of RAM, ssd_max 0 = 90% of
 *          the free space, empty ssd_dir = RAM only)
 * @extack: receives the reason of a refusal
 *
 * Either everything is applied or nothing is. Process context.
 *
 * Return: 0 or -errno.
 */
int gb_store_set_config(const struct gb_store_config *cfg,
			struct netlink_ext_ack *extack)
{
	u64 memory = cfg->memory ?: gb_default_memory();
	bool geom = cfg->block != gb_cfg.block || cfg->ram_head != gb_cfg.ram_head;
	struct gb_ssd *ssd = NULL, *old_ssd = NULL;
	bool dir_change;
	const char *why = NULL;
	u32 old_block;
	int err = 0;

	mutex_lock(&gb_cfg_mutex);
	if (cfg->ram_head < 4096 || !PAGE_ALIGNED(cfg->ram_head) ||
	    cfg->ram_head > GB_RAM_HEAD_MAX) {
		err = gb_refuse(extack,
				"ram_head: must be a page multiple between 4 KiB and 16 MiB",
				-EINVAL);
		goto out;
	}
	if (!PAGE_ALIGNED(cfg->block) || cfg->block < cfg->ram_head ||
	    cfg->block > GB_BLOCK_MAX) {
		err = gb_refuse(extack,
				"block: must be a page multiple, at least ram_head and at most 1 GiB",
				-EINVAL);
		goto out;
	}
	if (memory > (u64)totalram_pages() << PAGE_SHIFT) {
		err = gb_refuse(extack, "memory: larger than RAM",
				-EINVAL);
		goto out;
	}
	if (memory < cfg->block) {
		err = gb_refuse(extack, "memory: smaller than one block",
				-EINVAL);
		goto out;
	}
	if (strnlen(cfg->ssd_dir, sizeof(cfg->ssd_dir)) >= sizeof(cfg->ssd_dir)) {
		err = gb_refuse(extack, "ssd_dir: too long",
				-ENAMETOOLONG);
		goto out;
	}

	if (geom) {
		gb_reclaim(false, false);
		if (atomic64_read(&gb_items)) {
			err = gb_refuse(extack,
					"ram_head/block: cannot change while objects are stored",
					-EBUSY);
			goto out;
		}
	}
	if (memory < (u64)atomic64_read(&gb_head_bytes) + gb_pool_meta_bytes()) {
		err = gb_refuse(extack,
				"memory: below the RAM used by stored objects; delete or flush first",
				-EBUSY);
		goto out;
	}

	old_block = gb_cfg.block;
	if (cfg->block != gb_cfg.block) {
		gb_drain_frees();
		if (gb_pool_set_block(cfg->block)) {
			err = gb_refuse(extack,
					"block: head pages still lent to a SET or referenced by a send; retry",
					-EBUSY);
			goto out;
		}
	}

	dir_change = strcmp(cfg->ssd_dir, gb_cfg.ssd_dir) != 0;
	if (cfg->ssd_dir[0] && (dir_change || geom)) {
		ssd = gb_ssd_open(cfg->ssd_dir, cfg->ram_head, cfg->block,
				  &gb_uuid, &why);
		if (IS_ERR(ssd)) {
			err = PTR_ERR(ssd);
			if (extack)
				extack->_msg = why;
			pr_err("ssd_dir %s refused: %s (%d)\n", cfg->ssd_dir,
			       why, err);
			if (cfg->block != old_block)
				gb_pool_set_block(old_block);
			goto out;
		}
	}

	/* Nothing can fail from here on. */
	if (cfg->ssd_dir[0] && (dir_change || geom)) {
		spin_lock(&gb_ssd_lock);
		old_ssd = gb_ssd;
		gb_ssd = ssd;
		spin_unlock(&gb_ssd_lock);
	} else if (!cfg->ssd_dir[0] && gb_ssd) {
		spin_lock(&gb_ssd_lock);
		old_ssd = gb_ssd;
		gb_ssd = NULL;
		spin_unlock(&gb_ssd_lock);
	}
	if (old_ssd) {
		/* Tails in the old directory go with their objects. */
		gb_reclaim(false, true);
		gb_ssd_put(old_ssd);
	}
	gb_cfg.ram_head = cfg->ram_head;
	WRITE_ONCE(gb_ram_head, cfg->ram_head);
	gb_cfg.block = cfg->block;
	gb_cfg.memory = memory;
	gb_pool_set_memory(memory);
	strscpy(gb_cfg.ssd_dir, cfg->ssd_dir, sizeof(gb_cfg.ssd_dir));
	if (gb_ssd)
		WRITE_ONCE(gb_ssd_max, cfg->ssd_max ?: gb_ssd_default_max(gb_ssd));
	else
		WRITE_ONCE(gb_ssd_max, 0);
	gb_cfg.ssd_max = gb_ssd_max;
	gb_store_kick_maint();
out:
	mutex_unlock(&gb_cfg_mutex);
	return err;
}

/* ---------------------------------------------------------------------- */
/* debugfs test interface: /sys/kernel/debug/goblin/store                 */

/*
 * Commands written to the file (one per write):
 *   set KEY LEN SEED [EXPTIME]   store LEN pattern bytes derived from SEED
 *   get KEY SEED                 check the value against the pattern
 *   del KEY                      delete
 *   flush [WHEN]                 flush_all
 *   touch KEY EXPTIME            touch
 *   head KEY                     LEN = gb_obj_head_len() of KEY
 *   hold KEY                     keep a reference on the first head page,
 *                                like an skb after sendpage()
 *   release                      drop it
 *   delay alloc MS               the next head page allocation sleeps MS
 *                                ms after picking its pool (race windows)
 * Reading the file returns the result of the last command, the stats and
 * per online node "nodeN_head_bytes" / "nodeN_blocks" (gb_store_node_usage).
 */
static DEFINE_MUTEX(gb_dbg_mutex);
static char gb_dbg_result[128];
static struct page *gb_dbg_held;

static int gb_dbg_hold(const char *key)
{
	struct gb_obj *obj;
	unsigned int pgoff, seg;
	struct page *pg;
	int err;

	obj = gb_store_get(key, strlen(key));
	if (!obj)
		return -ENOENT;
	err = gb_obj_get_page(obj, 0, &pg, &pgoff, &seg);
	gb_obj_put(obj);
	if (err)
		return err;
	if (gb_dbg_held)
		put_page(gb_dbg_held);
	gb_dbg_held = pg;
	return 0;
}

static u8 gb_dbg_byte(u64 i, u32 seed)
{
	return (u8)((i * 131 + seed * 7 + (i >> 12)) & 0xff);
}

static int gb_dbg_set(const char *key, u64 len, u32 seed, s64 exptime)
{
	struct gb_obj *obj;
	u8 *buf;
	u64 off, i;
	size_t n;
	int err = 0;

	obj = gb_obj_alloc(key, strlen(key), seed, exptime, len);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf) {
		gb_obj_put(obj);
		return -ENOMEM;
	}
	for (off = 0; off < len && !err; off += n) {
		n = min_t(u64, len - off, PAGE_SIZE);
		for (i = 0; i < n; i++)
			buf[i] = gb_dbg_byte(off + i, seed);
		err = gb_obj_write(obj, off, buf, n);
	}
	kfree(buf);
	if (err) {
		gb_obj_put(obj);
		return err;
	}
	return gb_store_commit(obj, GB_MODE_SET, 0);
}

static int gb_dbg_get(const char *key, u32 seed, u64 *len)
{
	struct gb_obj *obj;
	struct page *pg;
	unsigned int pgoff, seg, i;
	u64 off;
	u8 *p;
	int err = 0;

	obj = gb_store_get(key, strlen(key));
	if (!obj)
		return -ENOENT;
	*len = obj->len;
	for (off = 0; off < obj->len && !err; off += seg) {
		err = gb_obj_get_page(obj, off, &pg, &pgoff, &seg);
		if (err)
			break;
		p = kmap_local_page(pg);
		for (i = 0; i < seg; i++)
			if (p[pgoff + i] != gb_dbg_byte(off + i, seed)) {
				err = -EILSEQ;
				break;
			}
		kunmap_local(p);
		put_page(pg);
	}
	gb_obj_put(obj);
	return err;
}

static int gb_dbg_head(const char *key, u64 *len)
{
	struct gb_obj *obj;

	obj = gb_store_get(key, strlen(key));
	if (!obj)
		return -ENOENT;
	*len = gb_obj_head_len(obj);
	gb_obj_put(obj);
	return 0;
}

static ssize_t gb_dbg_write(struct file *f, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[16], key[GB_KEY_MAX + 1];
	long long a = 0, c = 0;
	unsigned int b = 0;
	u64 len = 0;
	char *buf;
	int n, res;

	if (count > 512)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%15s %250s %lld %u %lld", cmd, key, &a, &b, &c);
	if (n >= 1 && (!strcmp(cmd, "flush") || !strcmp(cmd, "release")))
		n = sscanf(buf, "%15s %lld", cmd, &a);
	kfree(buf);
	mutex_lock(&gb_dbg_mutex);
	if (n >= 4 && !strcmp(cmd, "set")) {
		res = gb_dbg_set(key, a, b, n >= 5 ? c : 0);
	} else if (n >= 3 && !strcmp(cmd, "get")) {
		res = gb_dbg_get(key, a, &len);
	} else if (n >= 2 && !strcmp(cmd, "del")) {
		res = gb_store_delete(key, strlen(key), 0);
	} else if (n >= 3 && !strcmp(cmd, "touch")) {
		res = gb_store_touch(key, strlen(key), a);
	} else if (n >= 2 && !strcmp(cmd, "head")) {
		res = gb_dbg_head(key, &len);
	} else if (n >= 2 && !strcmp(cmd, "hold")) {
		res = gb_dbg_hold(key);
	} else if (n >= 1 && !strcmp(cmd, "release")) {
		if (gb_dbg_held)
			put_page(gb_dbg_held);
		gb_dbg_held = NULL;
		res = 0;
	} else if (n >= 3 && !strcmp(cmd, "delay") && !strcmp(key, "alloc")) {
		gb_pool_dbg_delay_next(clamp_t(long long, a, 0, 60000));
		res = 0;
	} else if (n >= 1 && !strcmp(cmd, "flush")) {
		gb_store_flush(n >= 2 ? a : 0);
		res = 0;
	} else {
		mutex_unlock(&gb_dbg_mutex);
		return -EINVAL;
	}
	snprintf(gb_dbg_result, sizeof(gb_dbg_result), "%s %d %llu\n", cmd,
		 res, len);
	mutex_unlock(&gb_dbg_mutex);
	return count;
}

static ssize_t gb_dbg_read(struct file *f, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct gb_store_stats st;
	ssize_t ret;
	char *buf;
	int len, nid;

	buf = kmalloc(2048, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	gb_store_get_stats(&st);
	mutex_lock(&gb_dbg_mutex);
	len = scnprintf(buf, 2048, "%s", gb_dbg_result);
	mutex_unlock(&gb_dbg_mutex);
	len += scnprintf(buf + len, 2048 - len,
			 "curr_items %llu\ntotal_items %llu\nbytes %llu\nhead_bytes %llu\ntail_bytes %llu\nevictions %llu\nreclaimed %llu\nget_hits %llu\nget_misses %llu\nget_expired %llu\nget_flushed %llu\nblocks_total %llu\nblocks_huge %llu\nblocks_small %llu\npages_free %llu\npages_quarantined %llu\nquarantined_total %llu\nmemory_limit %llu\nssd_limit %llu\ntail_io_errors %llu\ntail_wb_errors %llu\nmeta_bytes %llu\nmaint_runs %lld\nreclaim_walks %lld\nevict_scanned %lld\n",
			 st.curr_items, st.total_items, st.bytes, st.head_bytes,
			 st.tail_bytes, st.evictions, st.reclaimed, st.get_hits,
			 st.get_misses, st.get_expired, st.get_flushed,
			 st.blocks_total, st.blocks_huge, st.blocks_small,
			 st.pages_free, st.pages_quarantined,
			 st.quarantined_total, st.memory_limit, st.ssd_limit,
			 st.tail_io_errors, st.tail_wb_errors, st.meta_bytes,
			 atomic64_read(&gb_maint_runs),
			 atomic64_read(&gb_reclaim_walks),
			 atomic64_read(&gb_evict_scanned));
	for_each_online_node(nid) {
		u64 head, blocks;

		gb_store_node_usage(nid, &head, &blocks);
		len += scnprintf(buf + len, 2048 - len,
				 "node%d_head_bytes %llu\nnode%d_blocks %llu\n",
				 nid, head, nid, blocks);
	}
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static const struct file_operations gb_dbg_fops = {
	.owner = THIS_MODULE,
	.read = gb_dbg_read,
	.write = gb_dbg_write,
	.llseek = default_llseek,
};

static void gb_dbg_init(void)
{
	gb_dbg_dir = debugfs_lookup("goblin", NULL);
	if (!gb_dbg_dir) {
		gb_dbg_dir = debugfs_create_dir("goblin", NULL);
		gb_dbg_own_dir = true;
	}
	debugfs_create_file("store", 0600, gb_dbg_dir, NULL, &gb_dbg_fops);
}

static void gb_dbg_exit(void)
{
	if (IS_ERR_OR_NULL(gb_dbg_dir))
		return;
	if (gb_dbg_held)
		put_page(gb_dbg_held);
	gb_dbg_held = NULL;
	debugfs_lookup_and_remove("store", gb_dbg_dir);
	if (gb_dbg_own_dir)
		debugfs_remove(gb_dbg_dir);
	else
		dput(gb_dbg_dir);
	gb_dbg_dir = NULL;
}

/* ---------------------------------------------------------------------- */
/* Init / exit                                                            */

int gb_store_init(void)
{
	struct gb_store_config cfg = {};
	int err;

	uuid_gen(&gb_uuid);
	atomic64_set(&gb_cas_seq, 0);
	atomic64_set(&gb_flush_cas, 0);
	gb_flush_when = 0;
	gb_next_id = 0;
	gb_pressure_next = jiffies;
	gb_ssd = NULL;
	gb_ssd_max = 0;
	atomic64_set(&gb_items, 0);
	atomic64_set(&gb_bytes, 0);
	atomic64_set(&gb_head_bytes, 0);
	atomic64_set(&gb_tail_bytes, 0);

	cfg.memory = gb_param_memory;
	cfg.block = gb_param_block;
	cfg.ram_head = gb_param_ram_head;
	cfg.ssd_max = gb_param_ssd_max;
	strscpy(cfg.ssd_dir, gb_param_ssd_dir ?: "", sizeof(cfg.ssd_dir));

	err = rhashtable_init(&gb_ht, &gb_ht_params);
	if (err)
		return err;
	gb_wq = alloc_workqueue("goblin_store", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	gb_free_wq = alloc_workqueue("goblin_free", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!gb_wq || !gb_free_wq) {
		err = -ENOMEM;
		goto err_wq;
	}
	INIT_DELAYED_WORK(&gb_maint_dwork, gb_maint_work);
	INIT_DELAYED_WORK(&gb_quar_dwork, gb_quar_work);
	INIT_WORK(&gb_reap_work, gb_reap_work_fn);
	gb_quar_delay = GB_KICK_DELAY;
	atomic64_set(&gb_maint_runs, 0);
	atomic64_set(&gb_reclaim_walks, 0);
	atomic64_set(&gb_evict_scanned, 0);
	INIT_DELAYED_WORK(&gb_flush_dwork, gb_flush_work);

	/* Geometry the validation compares against: none yet. */
	gb_cfg.block = cfg.block;
	gb_cfg.ram_head = cfg.ram_head;
	gb_cfg.ssd_dir[0] = '\0';
	gb_ram_head = cfg.ram_head;
	err = gb_pool_init(cfg.memory ?: gb_default_memory(), cfg.block);
	if (err)
		goto err_wq;
	err = gb_store_set_config(&cfg, NULL);
	if (err) {
		pr_err("invalid module parameters (%d)\n", err);
		goto err_pool;
	}
	WRITE_ONCE(gb_running, true);
	queue_delayed_work(gb_wq, &gb_maint_dwork, GB_MAINT_PERIOD);
	gb_dbg_init();
	return 0;

err_pool:
	gb_pool_exit();
err_wq:
	if (gb_wq)
		destroy_workqueue(gb_wq);
	if (gb_free_wq)
		destroy_workqueue(gb_free_wq);
	gb_wq = NULL;
	gb_free_wq = NULL;
	rhashtable_destroy(&gb_ht);
	return err;
}

void gb_store_exit(void)
{
	gb_dbg_exit();
	WRITE_ONCE(gb_running, false);
	cancel_delayed_work_sync(&gb_flush_dwork);
	cancel_delayed_work_sync(&gb_maint_dwork);
	cancel_delayed_work_sync(&gb_quar_dwork);
	cancel_work_sync(&gb_reap_work);
	gb_reap();
	gb_reclaim(true, false);
	gb_drain_frees();
	cancel_delayed_work_sync(&gb_maint_dwork);
	cancel_delayed_work_sync(&gb_quar_dwork);
	destroy_workqueue(gb_free_wq);
	destroy_workqueue(gb_wq);
	gb_pool_exit();
	gb_ssd_put(gb_ssd);
	gb_ssd = NULL;
	WARN_ON(atomic64_read(&gb_head_bytes));
	WARN_ON(gb_pool_meta_bytes());
	WARN_ON(atomic64_read(&gb_tail_bytes));
	rhashtable_destroy(&gb_ht);
	xa_destroy(&gb_ids);
	memset(&gb_cfg, 0, sizeof(gb_cfg));
}
