// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, eviction, expiry (flush) and the maintenance
 * worker.
 *
 * Eviction: CLOCK (second chance). Linked objects sit on one list in
 * insertion order; a hit sets the object's "visited" bit without locking.
 * When the RAM budget (or SSD budget, for objects with tails) is full, the
 * hand takes objects from the head: a visited object loses its bit and
 * goes to the tail, an unvisited one is evicted. CLOCK needs no list
 * manipulation on the read path, which keeps GETs lock-free, and it is
 * scan resistant enough for a cache of large values.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "store_int.h"

atomic64_t gb_store_flush_cas;
s64 gb_store_flush_when;
struct delayed_work gb_store_flush_dwork;

struct workqueue_struct *gb_store_wq;		/* maintenance */
struct workqueue_struct *gb_store_free_wq;	/* deferred frees */
struct delayed_work gb_store_maint_dwork;	/* periodic: reclaim walk */
struct delayed_work gb_store_quar_dwork;	/* kicked: quarantine, trim */
unsigned long gb_store_quar_delay;		/* its current backoff */
u32 gb_store_maint_period_ms;			/* debugfs; 0: GB_MAINT_PERIOD */
struct work_struct gb_store_reap_work;
LLIST_HEAD(gb_store_reap_list);
atomic64_t gb_store_maint_runs, gb_store_reclaim_walks;	/* debugfs */
atomic64_t gb_store_evict_scanned;			/* debugfs */
bool gb_store_running;

unsigned long gb_store_pressure_next;	/* jiffies of the next event */

/*
 * Maintenance comes in three parts:
 *  - the periodic work (GB_MAINT_PERIOD) walks the whole index for dead
 *    objects: O(items), so nothing but the period runs it;
 *  - kicks (a page went to quarantine, metadata over budget, a new
 *    configuration) run the cheap part only: recheck the quarantine and
 *    give blocks back. While pages stay quarantined (a client that stops
 *    reading) the recheck backs off exponentially from GB_KICK_DELAY to
 *    GB_MAINT_PERIOD, and starts over once the quarantine is empty;
 *  - a lookup that finds a dead object hands it to gb_store_reap_work, which
 *    unlinks just that object.
 *
 * gb_store_kick_maint() queues the recheck with the current backoff; it
 * never brings a pending one forward. Any context.
 */
void gb_store_kick_maint(void)
{
	if (READ_ONCE(gb_store_running))
		queue_delayed_work(gb_store_wq, &gb_store_quar_dwork,
				   READ_ONCE(gb_store_quar_delay));
}

/*
 * Would unlinking @priv free what @need asks for right away? Only if the
 * index holds the last reference (nobody is reading or sending it, so it
 * is freed on unlink), besides the promotion queue's, which the unlink
 * gives back at once (gb_store_promote_unqueue()), and it has that kind of
 * storage. Caller holds gb_store_wlock.
 */
static bool gb_evict_frees(struct gb_obj_priv *priv, enum gb_need need)
{
	u32 nr = priv->nr_pages;

	if (refcount_read(&priv->obj->ref) !=
	    1 + gb_store_promote_queued(priv))
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
 * gb_store_evict_one - run the CLOCK hand until one object is evicted
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
bool gb_store_evict_one(enum gb_need need)
{
	struct gb_obj_priv *priv;
	s64 now = gb_now();
	u64 scan, n;
	bool done = false;

	mutex_lock(&gb_store_wlock);
	scan = min_t(u64, GB_EVICT_SCAN, 2 * atomic64_read(&gb_store_items) + 2);
	for (n = 0; n < scan && !list_empty(&gb_store_clock); n++) {
		priv = list_first_entry(&gb_store_clock, struct gb_obj_priv, lru);
		if (gb_obj_dead(priv->obj, now)) {
			/*
			 * Unlinking may drop the last reference: @priv can be
			 * freed after a grace period, and a mutex holder is
			 * not an RCU reader. Look at it first.
			 */
			bool frees = gb_evict_frees(priv, need);

			gb_store_unlink_dead(priv->obj, now);
			if (frees) {
				done = true;
				break;
			}
			continue;
		}
		if (!gb_evict_frees(priv, need)) {
			list_move_tail(&priv->lru, &gb_store_clock);
			continue;
		}
		if (READ_ONCE(priv->visited)) {
			WRITE_ONCE(priv->visited, false);
			list_move_tail(&priv->lru, &gb_store_clock);
			continue;
		}
		gb_stat_inc(GB_ST_EVICTIONS);
		gb_store_unlink(priv->obj, true);
		done = true;
		break;
	}
	mutex_unlock(&gb_store_wlock);
	atomic64_add(n + done, &gb_store_evict_scanned);
	return done;
}

/**
 * gb_store_note_pressure - report that an allocation had to evict
 * @tail: the SSD budget (tails) was short, not the RAM budget (heads)
 *
 * Sends at most one pressure event per GB_PRESSURE_PERIOD, the first one
 * right away. Called without store locks held (the netlink event helpers
 * allow any context, this just keeps them off the eviction lock).
 */
void gb_store_note_pressure(bool tail)
{
	unsigned long next = READ_ONCE(gb_store_pressure_next);
	unsigned long now = jiffies;
	u64 used, limit;

	if (time_before(now, next))
		return;
	/* One winner per period when several allocations evict at once. */
	if (cmpxchg(&gb_store_pressure_next, next, now + GB_PRESSURE_PERIOD) != next)
		return;
	if (tail) {
		used = atomic64_read(&gb_store_tail_bytes);
		limit = READ_ONCE(gb_store_ssd_max);
	} else {
		used = atomic64_read(&gb_store_head_bytes) + gb_pool_meta_bytes();
		limit = READ_ONCE(gb_store_cfg.memory);
	}
	gb_event_pressure(used, limit, gb_stat_sum(GB_ST_EVICTIONS));
}

/* Wait until the tail files of freed objects are deleted and released. */
void gb_store_drain_tails(void)
{
	flush_workqueue(gb_store_free_wq);
	/* fput() from a kworker is deferred; tail space is freed on release. */
	flush_delayed_fput();
}

/* Wait until every freed object is gone, memory included (config, unload). */
void gb_store_drain_frees(void)
{
	gb_store_drain_tails();
	rcu_barrier();
}

/* Unlink every dead object (or all with @all, or all tailed with @tails). */
void gb_store_reclaim(bool all, bool tails)
{
	struct gb_obj *obj;
	unsigned long id;
	s64 now = gb_now();
	unsigned int n = 0;

	atomic64_inc(&gb_store_reclaim_walks);
	mutex_lock(&gb_store_wlock);
	xa_for_each(&gb_store_ids, id, obj) {
		if (all || (tails && obj->priv->tail))
			gb_store_unlink(obj, true);
		else if (gb_obj_dead(obj, now))
			gb_store_unlink_dead(obj, now);
		if (!(++n % 1024)) {
			mutex_unlock(&gb_store_wlock);
			cond_resched();
			mutex_lock(&gb_store_wlock);
		}
	}
	mutex_unlock(&gb_store_wlock);
}

static void gb_flush_now(void)
{
	/*
	 * Under gb_store_wlock: md I gives a linked object a new cas in
	 * place (gb_store_invalidate()); without the lock a pre-flush object
	 * could get a cas above gb_store_flush_cas and survive the flush.
	 */
	mutex_lock(&gb_store_wlock);
	atomic64_set(&gb_store_flush_cas, atomic64_read(&gb_store_cas_seq));
	mutex_unlock(&gb_store_wlock);
	WRITE_ONCE(gb_store_flush_when, 0);
	/* Lookups reap what they find, the periodic walk the rest. */
}

/*
 * The flush work is armed for at most GB_FLUSH_STEP at a time and re-arms
 * itself until gb_store_flush_when is reached: the timer wheel caps a delay (at
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

	mod_delayed_work(gb_store_wq, &gb_store_flush_dwork, (unsigned long)wait * HZ);
}

void gb_store_flush_work(struct work_struct *work)
{
	s64 now = gb_now(), when;

	mutex_lock(&gb_flush_mutex);
	when = READ_ONCE(gb_store_flush_when);
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
		cancel_delayed_work(&gb_store_flush_dwork);
		gb_flush_now();
	} else {
		WRITE_ONCE(gb_store_flush_when, when);
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
		mutex_lock(&gb_store_wlock);
		for (i = 0; i < n; i++) {
			struct gb_obj_priv *priv = victims[i];

			if (priv->linked) {
				gb_stat_inc(GB_ST_EVICTIONS);
				gb_store_unlink(priv->obj, true);
				evicted++;
			}
		}
		mutex_unlock(&gb_store_wlock);
		for (i = 0; i < n; i++)
			gb_obj_put(((struct gb_obj_priv *)victims[i])->obj);
		/* Only readers hold that block now: wait for them. */
		if (!evicted)
			break;
		/* Give the emptied block back before picking the next one. */
		gb_pool_maint(false);
	}
}

/**
 * gb_store_maint_period - delay between two periodic maintenance walks
 *
 * GB_MAINT_PERIOD unless the debugfs knob goblin/maint_period_ms says
 * otherwise (tests: a long period separates what the periodic walk reclaims
 * from what a lookup's kick does). A write of the knob re-arms the pending
 * walk (kmod/store/debugfs.c).
 *
 * Return: the delay in jiffies.
 */
unsigned long gb_store_maint_period(void)
{
	u32 ms = READ_ONCE(gb_store_maint_period_ms);

	if (!ms)
		return GB_MAINT_PERIOD;
	return msecs_to_jiffies(ms);
}

void gb_store_maint_work(struct work_struct *work)
{
	gb_store_reclaim(false, false);
	gb_pool_maint(false);
	gb_trim_blocks();
	if (READ_ONCE(gb_store_running))
		queue_delayed_work(gb_store_wq, &gb_store_maint_dwork,
				   gb_store_maint_period());
}

/* Kicked maintenance: no index walk (see gb_store_kick_maint()). */
void gb_store_quar_work(struct work_struct *work)
{
	atomic64_inc(&gb_store_maint_runs);
	/* gb_pool_maint() re-kicks while pages stay quarantined: back off. */
	WRITE_ONCE(gb_store_quar_delay,
		   min_t(unsigned long, gb_store_quar_delay * 2, GB_MAINT_PERIOD));
	gb_pool_maint(false);
	gb_trim_blocks();
	if (!gb_pool_quarantined_bytes())
		WRITE_ONCE(gb_store_quar_delay, GB_KICK_DELAY);
}
