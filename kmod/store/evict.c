// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, eviction, expiry (flush) and the maintenance
 * worker.
 *
 * Eviction: CLOCK (second chance). Linked objects sit on their shard's
 * list (struct gb_shard, lock order at the top of index.c) in the order
 * they got their CLOCK stamp (a global sequence, taken when an entry goes
 * to the tail); a hit sets the object's "visited" bit without locking.
 * When the RAM budget (or SSD budget, for objects with tails) is full, the
 * hand takes objects from the head: a visited object loses its bit and
 * goes to the tail, an unvisited one is evicted. CLOCK needs no list
 * manipulation on the read path, which keeps GETs lock-free, and it is
 * scan resistant enough for a cache of large values.
 *
 * The hand works on one shard at a time, under that shard's lock only:
 * it picks the shard whose first entry has the lowest stamp (the oldest
 * position of the global CLOCK; each shard publishes it in head_stamp)
 * and goes on in that shard while its entries are older than the first
 * entry of any other shard. The shards' lists are merged in stamp order,
 * so eviction follows approximately one CLOCK over the whole store however
 * few shards hold objects, and SETs of other shards go on meanwhile.
 * "Approximately": the pick is lockless and head_stamp is published when a
 * hand lets go of the shard, so a hand that waited for the lock may look
 * at an entry younger than another shard's first one; and when the oldest
 * shard's lock is busy (another evictor, a SET of one of its keys) the
 * hand takes the next-oldest shard whose lock is free (gb_evict_pick()),
 * rather than have every evictor of a full cache queue on one mutex.
 * Sequentially (one SET at a time) the order is exact.
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
atomic64_t gb_store_reclaim_backoffs;	/* debugfs */
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
 * storage. Caller holds the object's shard lock.
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

/* Shards gb_evict_pick() tries without waiting, oldest first. */
#define GB_EVICT_PICK	3

static atomic_t gb_evict_race = ATOMIC_INIT(0);

/**
 * gb_store_evict_dbg_race - test hook (debugfs "race evict")
 * @arm: arm (true) or disarm the hook
 *
 * When armed, the next gb_evict_pick() runs another whole hand
 * (gb_store_evict(GB_NEED_ANY)) between reading the shards' stamps and
 * taking the lock, as a concurrent evictor may: the pick's view of the
 * shard it takes is then stale. One shot.
 *
 * Return: whether it was armed before.
 */
bool gb_store_evict_dbg_race(bool arm)
{
	return atomic_xchg(&gb_evict_race, arm);
}

/*
 * Lock and return a shard holding one of the oldest CLOCK entries, or
 * NULL if every shard is empty. The GB_EVICT_PICK shards with the oldest
 * first entries are tried with mutex_trylock(), oldest first, so that
 * concurrent evictors of a full cache spread over a few shards instead of
 * queueing on one lock; if all are busy, wait for the oldest. *@next is
 * the stamp of the oldest first entry of a shard after the one taken
 * (U64_MAX: none), where the hand stops; busy shards skipped are left to
 * whoever holds them. *@seen is the stamp of the taken shard's first entry
 * as the pick saw it: once the lock is ours, a younger first entry means
 * another hand went over the shard meanwhile. Lockless view: a stale one
 * only makes the hand look at a slightly younger entry first. head_stamp
 * is u64 read with READ_ONCE(), which may tear on 32-bit: a wrong pick,
 * nothing worse.
 */
static struct gb_shard *gb_evict_pick(u64 *next, u64 *seen)
{
	struct gb_shard *c[GB_EVICT_PICK + 1] = { };
	u64 s[GB_EVICT_PICK + 1], st;
	int i, j;

	for (i = 0; i <= GB_EVICT_PICK; i++)
		s[i] = U64_MAX;
	for (i = 0; i < GB_STORE_SHARDS; i++) {
		st = READ_ONCE(gb_store_shards[i].head_stamp);
		if (st >= s[GB_EVICT_PICK])
			continue;
		/* insert, keeping s[] sorted */
		for (j = GB_EVICT_PICK; j > 0 && s[j - 1] > st; j--) {
			s[j] = s[j - 1];
			c[j] = c[j - 1];
		}
		s[j] = st;
		c[j] = &gb_store_shards[i];
	}
	if (!c[0])
		return NULL;
	/* no recursion: the hook is disarmed before the other hand runs */
	if (unlikely(atomic_read(&gb_evict_race)) &&
	    atomic_xchg(&gb_evict_race, 0))
		gb_store_evict(GB_NEED_ANY);
	for (i = 0; i < GB_EVICT_PICK && c[i]; i++) {
		if (mutex_trylock(&c[i]->lock)) {
			*next = s[i + 1];
			*seen = s[i];
			return c[i];
		}
	}
	mutex_lock(&c[0]->lock);
	*next = s[1];
	*seen = s[0];
	return c[0];
}

/**
 * gb_store_evict - run the CLOCK hand until one object is evicted
 * @need: what the caller is short of
 *
 * Objects that would not free @need now (in use by a reader or a send, or
 * without that kind of storage) are passed over like visited ones, keeping
 * their bit: evicting them would lose a cached value and give nothing.
 * Dead objects are unlinked either way; one that frees @need ends the run
 * as a reap, which is not an eviction (counted as reclaimed).
 *
 * The hand looks at GB_EVICT_SCAN entries at most (two rounds of a smaller
 * CLOCK, so that every visited bit can be cleared once): no shard lock is
 * held for a walk over a large index, and a SET that calls this a few
 * dozen times stays bounded. Passed-over entries go to the tail with a new
 * stamp, so the next call goes on where this one stopped. The unlinked
 * objects are put after the shard lock is dropped.
 *
 * Counts GB_ST_EVICTIONS for an eviction and GB_ST_RECLAIMED for a reap.
 * Who evicted is the caller's to count: a SET GB_ST_EVICT_INLINE
 * (gb_obj_evict_inline()), the reclaimer GB_ST_RECLAIMER_EVICTIONS; so
 * evictions = inline + reclaimer + those of promotions and of block
 * trimming (gb_trim_blocks()), which have no counter of their own.
 *
 * Process context; the caller holds no shard lock (see index.c).
 *
 * Return: GB_EVICT_EVICTED or GB_EVICT_REAPED if an object that frees
 * @need was unlinked; GB_EVICT_NONE if none of the entries looked at would
 * and they covered the CLOCK (twice its length, or every shard empty);
 * GB_EVICT_WINDOW if none would but the window ran out first: the entries
 * after it were not looked at, so a further call may well find one.
 */
enum gb_evict_res gb_store_evict(enum gb_need need)
{
	enum gb_evict_res res = GB_EVICT_NONE;
	struct gb_obj_priv *priv;
	struct gb_shard *sh;
	s64 now = gb_now();
	u64 scan, lap, n = 0, next, seen;
	LIST_HEAD(put);

	/*
	 * All shard locks share one lockdep class (one mutex_init() call
	 * site, gb_store_shards_init()): annotating shard 0 covers them.
	 * Per-shard lock classes would need this to change.
	 */
	might_lock(&gb_store_shards[0].lock);
	lap = 2 * gb_store_shard_items() + 2;
	scan = min_t(u64, GB_EVICT_SCAN, lap);
	while (n < scan && res == GB_EVICT_NONE) {
		bool first = true;

		sh = gb_evict_pick(&next, &seen);	/* locked */
		if (!sh)
			break;
		while (n < scan && !list_empty(&sh->clock)) {
			priv = list_first_entry(&sh->clock, struct gb_obj_priv,
						lru);
			/*
			 * Another shard holds the older entry now. The first
			 * entry is looked at anyway (progress with a stale
			 * pick), unless it is younger than the pick saw: then
			 * another hand went over this shard while we waited
			 * for its lock (and perhaps just gave this entry its
			 * second chance), and head_stamp, re-synced by that
			 * hand, makes the next pick a true one. Such a
			 * re-pick counts as a look, so that it is bounded.
			 */
			if (priv->cstamp > next &&
			    (!first || priv->cstamp > seen)) {
				n += first;
				break;
			}
			first = false;
			n++;
			if (gb_obj_dead(priv->obj, now)) {
				if (gb_evict_frees(priv, need))
					res = GB_EVICT_REAPED;
				gb_store_unlink_dead(priv->obj, now, &put);
				if (res != GB_EVICT_NONE)
					break;
				continue;
			}
			if (!gb_evict_frees(priv, need)) {
				gb_shard_clock_tail(sh, priv);
				continue;
			}
			if (READ_ONCE(priv->visited)) {
				WRITE_ONCE(priv->visited, false);
				gb_shard_clock_tail(sh, priv);
				continue;
			}
			gb_stat_inc(GB_ST_EVICTIONS);
			gb_store_unlink(priv->obj, true, &put);
			res = GB_EVICT_EVICTED;
			break;
		}
		gb_shard_sync_head(sh);
		mutex_unlock(&sh->lock);
		gb_store_put_list(&put);
	}
	atomic64_add(n, &gb_store_evict_scanned);
	if (res == GB_EVICT_NONE && n >= scan && scan < lap)
		res = GB_EVICT_WINDOW;
	return res;
}

/* gb_store_evict(): whether anything that frees @need was unlinked. */
bool gb_store_evict_one(enum gb_need need)
{
	return gb_evict_hit(gb_store_evict(need));
}

/*
 * The background reclaimer keeps RAM free for SETs, so that they rarely
 * evict themselves (inline, on their own time): a SET whose charge leaves
 * less than the low watermark free in the memory budget kicks it
 * (gb_store_kick_reclaim()), and it evicts, one CLOCK run at a time,
 * until the high watermark (twice the low one) is free again. The low
 * watermark is the store setting reclaim_low, or when that is 0 a
 * sixteenth of the budget, at most GB_RECLAIM_LOW_MAX. Only SETs kick it:
 * reaps of dead objects (lookups, the maintenance walk) free memory and
 * are no evictions. Turning it on takes effect at the next SET.
 *
 * One run evicts at most GB_RECLAIM_BATCH objects and then queues itself
 * again if the high watermark is not reached yet, so that it never holds
 * a worker for long while SETs keep coming. Each victim is progress: the
 * hand only evicts an object nobody holds whose pages no send references
 * (gb_evict_frees()), which is freed and uncharged at once. The budget's
 * use is no measure of it, since SETs charge theirs meanwhile. A run
 * stops early when a run of the hand finds nothing it can evict (every
 * object read, sent or held), and then neither kicks nor an already
 * queued run start it for GB_RECLAIM_BACKOFF (counted in
 * gb_store_reclaim_backoffs, debugfs). It runs on gb_store_wq (process
 * context, no store lock held);
 * unload cancels it once gb_store_running is clear. Its evictions report
 * memory pressure like a SET's (gb_store_note_pressure()).
 *
 * Limits: it evicts in global CLOCK order whatever memory is short, so
 * under a NUMA policy that binds SETs to one node it may free memory on
 * another node that those SETs cannot use (they then evict inline), and it
 * evicts objects with tails for their RAM share like any other.
 *
 * The store setting reclaim (netlink, goblinctl store set reclaim; the
 * module parameter reclaim is its load-time default) turns it on; it is
 * off by default, so that the cache fills the whole budget and SETs evict
 * only for themselves.
 */
struct work_struct gb_store_reclaim_work;
unsigned long gb_store_reclaim_next;	/* jiffies: runs ignored before */

static void gb_reclaim_marks(u64 limit, u64 *low, u64 *high)
{
	*low = READ_ONCE(gb_store_cfg.reclaim_low) ?:
	       min_t(u64, limit / 16, GB_RECLAIM_LOW_MAX);
	*high = 2 * *low;
}

/**
 * gb_store_kick_reclaim - a SET charged its object: maybe start the reclaimer
 * @limit: the memory budget the SET charged against
 *
 * Queues the reclaimer when it is on, less than the low watermark is free
 * and no backoff holds. Process context, no store lock held.
 */
void gb_store_kick_reclaim(u64 limit)
{
	u64 low, high, used = gb_store_ram_used();

	gb_reclaim_marks(limit, &low, &high);
	if (used + low <= limit || !READ_ONCE(gb_store_cfg.reclaim) ||
	    !READ_ONCE(gb_store_running) ||
	    time_before(jiffies, READ_ONCE(gb_store_reclaim_next)))
		return;
	queue_work(gb_store_wq, &gb_store_reclaim_work);
}

/**
 * gb_store_reclaim_work_fn - one run of the background reclaimer
 * @work: gb_store_reclaim_work
 *
 * Evicts (GB_NEED_ANY) until the high watermark is free, at most
 * GB_RECLAIM_BATCH objects, then requeues itself; see the comment above.
 * Counts GB_ST_RECLAIMER_RUNS per run that starts and
 * GB_ST_RECLAIMER_EVICTIONS per object it evicted, right after that
 * eviction (GB_EVICT_EVICTED; a dead object the hand reaps on the way is
 * counted as reclaimed only).
 */
void gb_store_reclaim_work_fn(struct work_struct *work)
{
	u64 limit = READ_ONCE(gb_store_cfg.memory), low, high;
	bool again = false, stalled = false;
	unsigned int n = 0;
	u64 evicted = 0;

	/* a kick made while the last run was stopping queued us: back off */
	if (time_before(jiffies, READ_ONCE(gb_store_reclaim_next)))
		return;
	gb_stat_inc(GB_ST_RECLAIMER_RUNS);
	gb_reclaim_marks(limit, &low, &high);
	while (READ_ONCE(gb_store_running) && READ_ONCE(gb_store_cfg.reclaim) &&
	       gb_store_ram_used() + high > limit) {
		enum gb_evict_res r;

		if (n++ >= GB_RECLAIM_BATCH) {
			again = true;
			break;
		}
		r = gb_store_evict(GB_NEED_ANY);
		if (!gb_evict_hit(r)) {
			stalled = true;
			break;
		}
		/* a dead object reaped on the way is no eviction */
		if (r == GB_EVICT_EVICTED) {
			evicted++;
			gb_stat_inc(GB_ST_RECLAIMER_EVICTIONS);
		}
		cond_resched();
	}
	if (evicted)
		gb_store_note_pressure(false);
	if (again && READ_ONCE(gb_store_running)) {
		queue_work(gb_store_wq, &gb_store_reclaim_work);
	} else if (stalled) {
		WRITE_ONCE(gb_store_reclaim_next, jiffies + GB_RECLAIM_BACKOFF);
		atomic64_inc(&gb_store_reclaim_backoffs);
	}
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

/*
 * Unlink every dead object (or all with @all, or all tailed with @tails).
 * Walks the id xarray under RCU with a reference on each object and takes
 * its shard lock for the unlink only.
 */
void gb_store_reclaim(bool all, bool tails)
{
	unsigned long id = 0;
	struct gb_obj *obj;
	s64 now = gb_now();
	LIST_HEAD(put);

	atomic64_inc(&gb_store_reclaim_walks);
	while ((obj = gb_store_next_obj(&id))) {
		struct gb_shard *sh = gb_obj_shard(obj);

		mutex_lock(&sh->lock);
		if (all || (tails && obj->priv->tail))
			gb_store_unlink(obj, true, &put);	/* no-op if unlinked */
		else if (obj->priv->linked && gb_obj_dead(obj, now))
			gb_store_unlink_dead(obj, now, &put);
		mutex_unlock(&sh->lock);
		gb_store_put_list(&put);
		gb_obj_put(obj);
		if (!(++id % 256))
			cond_resched();
	}
}

static void gb_flush_now(void)
{
	/*
	 * Under gb_store_flush_sem: md I gives a linked object a new cas in
	 * place (gb_store_invalidate(), holding it for reading); without it
	 * a pre-flush object could get a cas above gb_store_flush_cas and
	 * survive the flush. SETs take a fresh cas and need no ordering.
	 */
	down_write(&gb_store_flush_sem);
	atomic64_set(&gb_store_flush_cas, atomic64_read(&gb_store_cas_seq));
	up_write(&gb_store_flush_sem);
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
	LIST_HEAD(put);

	for (round = 0; round < 16 && gb_pool_over_budget(); round++) {
		n = gb_pool_victims(gb_obj_grab, victims, ARRAY_SIZE(victims));
		evicted = 0;
		for (i = 0; i < n; i++) {
			struct gb_obj_priv *priv = victims[i];
			struct gb_shard *sh = gb_obj_shard(priv->obj);

			mutex_lock(&sh->lock);
			if (priv->linked) {
				gb_stat_inc(GB_ST_EVICTIONS);
				gb_store_unlink(priv->obj, true, &put);
				evicted++;
			}
			mutex_unlock(&sh->lock);
			gb_store_put_list(&put);
		}
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
