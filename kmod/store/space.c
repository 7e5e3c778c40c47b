// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, the SSD budget (ssd_max): tail charges and the
 * fair wait for space.
 *
 * Every tail is charged to gb_store_tail_bytes, rounded up to pages, from
 * its SET's allocation until the object is freed. When a SET's tail does
 * not fit, the SET queues (struct gb_space_waiter on gb_space.queue, in
 * arrival order) and sleeps; it never polls.
 *
 * Grants are FIFO. Every uncharge (a freed object: a tail evicted,
 * replaced, deleted or expired, or a failed allocation) grants space in
 * queue order (gb_space_grant()): while the first waiter's charge fits, it
 * is charged on that waiter's behalf, taken off the queue and woken. A
 * later SET never takes space ahead of a queued one: while anyone is
 * queued, new SETs queue behind (each SET that looked at the queue just
 * before the first waiter came may still charge past it, once). A smaller
 * charge behind a first waiter that does not fit waits too (no barging,
 * so no starvation of large values). A waiter whose charge is larger than
 * the whole budget (ssd_max was lowered) fails at once.
 *
 * Eviction is parallel. The first GB_SPACE_EVICTORS waiters (the
 * evictors) evict tails, each on its own, as SETs did before there was a
 * queue: there is one CLOCK over the shard lists, but each run takes the
 * next-oldest of the three oldest shards whose lock is free
 * (gb_evict_pick()), so K evictors run K evictions at once instead of
 * handing the hand from one SET to the next with a wake-up per SET.
 * Whoever evicts, the space freed goes to the queue in order, so
 * fairness does not depend on who evicted: an evictor
 * behind the first waiter evicts for the ones ahead of it and then for
 * itself. It stops when it is granted (or its bound passes), after the
 * eviction it is running; so when the queue empties, only the evictions
 * in flight then may free more than the queue needed: one per waiter that
 * was evicting, the K evictors and those granted just before that finish
 * theirs (debugfs tail_evictors_max: 7 at once seen on the debug kernel
 * with K = 4). Over-eviction is bounded by those victims, as long as the
 * first waiter can fit at all: while its charge and the tails in flight
 * (gb_store_tail_inflight: charged by SETs whose values still arrive, not
 * linked, so no eviction frees them) exceed ssd_max, evicting is in vain
 * (gb_space_hopeless()), and the evictors count as starved without
 * scanning; the link of a tail (or an uncharge that grants) changes that.
 * Tails held by readers still count as evictable there: evictions may
 * free other tails and still not fit the first waiter. A waiter that
 * becomes an evictor (queued among the first K, or moved up) is woken to
 * start.
 *
 * An evictor sleeps when evicting does not help for now, and scans again
 * on an event or after GB_SPACE_RETRY at most (a safety net for changes
 * that send no event, such as an expiry):
 *  - fruitless: GB_EVICT_FRUITLESS evictions after which neither the
 *    budget's use dropped nor a waiter was granted (the victims are still
 *    referenced: their space comes with their last put, as an uncharge).
 *    Any uncharge that grants nobody wakes it (GB_SPACE_KICK_BUSY; one
 *    that grants a waiter does not: the space went to it).
 *  - starved: it scanned the whole CLOCK and found nothing it could evict
 *    (every tail held by a reader, a send or a SET in flight, or read
 *    since the hand last passed it). One gb_store_evict() looks at one
 *    window (GB_EVICT_SCAN entries): a window that ran out
 *    (GB_EVICT_WINDOW) is no starvation, the evictor goes on with the next
 *    one, until the evictors together scanned gb_space_windows() windows
 *    since the last hit (gb_space.wins; a lap: twice the index, as a
 *    small index's single gb_store_evict(); at most GB_EVICT_WAITS
 *    windows, what a SET short of memory scans). Only then is it starved;
 *    once starved, each scan below is one window, except after the link
 *    of a new tail, which starts the count again (it is a lap from the
 *    hand). The count starts again too when the queue empties.
 *    Starvation is shared (one CLOCK): the first evictor to starve is the
 *    scout (gb_space.scout), the only one that listens, retries and makes
 *    sure. Any other evictor that starves (or becomes an evictor) while
 *    there is a scout waits (GB_STARVE_WAIT): it sleeps without a retry
 *    until an evictor evicts something or the scout leaves
 *    (gb_space_unwait()), and then scans afresh; one of them may become
 *    the next scout.
 *  - listen: the scout counts itself in gb_space_starved and scans once
 *    more before it sleeps; a put that
 *    leaves an object with a tail evictable (the index's reference, and
 *    the promotion queue's, the only ones left: gb_space_note_put()) or
 *    the link of a tail (gb_space_note_tail()) wakes it while it listens
 *    (GB_SPACE_KICK_ALL). It stays counted while it scans after such an
 *    event and stops when a scan evicts something or it leaves. The flag
 *    is what keeps the GET path cheap: a put reads it (a read-mostly
 *    word, only written when the scout starts or stops listening) and
 *    takes no lock unless the scout listens. Pairing: the scout publishes
 *    gb_space_starved, smp_mb(), then scans (reads the refcounts and the
 *    CLOCK lists); a put drops its reference, smp_mb__after_atomic(),
 *    then reads gb_space_starved (a link: its shard unlock, smp_mb()).
 *    A put that does not see the flag came before the scan read the
 *    refcounts, and a put that comes later sees it and wakes the scout:
 *    no release is lost. But a scan is one window from the hand: what
 *    holds is that a release before the scout listened is found by the
 *    make-sure scan if that window covers the object (always on an index
 *    of up to GB_EVICT_SCAN / 2 objects), else by a later window (an
 *    event's or a GB_SPACE_RETRY one, each going on from where the last
 *    stopped). So on a large index a starved scout may find a released
 *    tail only after several retries, or not before its bound. A newly
 *    linked tail is the youngest entry, a lap from the hand: its event
 *    buys a lap of windows (gb_space.wins starts again), so it is found
 *    unless it is read again meanwhile.
 *  - deaf: an event was no use (the scan it caused found nothing again:
 *    a value read one reader after the other is evictable for a moment
 *    after each put and held again by the time the scan gets to it). The
 *    scout stops listening to releases and to new tails (and forgets the
 *    kicks that came during that scan) until its next GB_SPACE_RETRY
 *    scan, which listens again (and makes sure, as above). So whatever
 *    the readers do, starved waiters scan at most three windows per
 *    GB_SPACE_RETRY in all (an event, the retry, the scan that makes
 *    sure), one when nothing happens; an object freed meanwhile waits for
 *    the retry.
 *
 * A waiter gives up after its bound (GB_SPACE_WAIT, debugfs
 * goblin/tail_wait_ms), also while evicting, on a fatal signal, or when the
 * store fails all waiters (gb_space_abort(): the SSD directory changes or
 * goes, the module is unloaded). Leaving as the first waiter makes the next
 * the first, and the queue may now fit it; so a first waiter that needs
 * more than will ever be freed (its own SET or append holds the rest)
 * blocks the queue for its bound, not longer. Kworkers cannot get a
 * signal: while they wait they are in D state (counted in the load
 * average), for 500 ms by default and at most the 60 s of the debugfs
 * knob, below the 120 s of the hung-task watchdog.
 *
 * The queue's lock is a spinlock taken with interrupts off: uncharges come
 * from gb_obj_put(), which is allowed in any context. It is a leaf lock
 * (only wake-ups are done under it). gb_space_nwait lets uncharges skip
 * the lock while nobody waits; the waiter publishes itself with a full
 * barrier before it looks at the budget, and the uncharger updates the
 * budget with one before it looks at gb_space_nwait, so one of them sees
 * the other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/signal.h>

#include "store_int.h"

/* Waiters at the front of the queue that evict (see the top). */
#define GB_SPACE_EVICTORS	4

/* What an event asks of the evictors (gb_space_grant()). */
enum gb_space_kick {
	GB_SPACE_KICK_NONE,
	GB_SPACE_KICK_BUSY,	/* space freed: the evictors not starved */
	GB_SPACE_KICK_ALL,	/* a tail may be evictable: all but deaf ones */
};

/* An evictor's view of what it can evict (see the top). */
enum gb_space_starve {
	GB_STARVE_NO,		/* its last scan evicted something */
	GB_STARVE_LISTEN,	/* the scout, counted in gb_space_starved */
	GB_STARVE_DEAF,		/* the scout, waits for its retry */
	GB_STARVE_WAIT,		/* starved, sleeps until the scout pokes it */
};

/**
 * struct gb_space_waiter - a SET waiting for SSD budget (on its stack)
 * @node:    entry on gb_space.queue, while queued
 * @task:    the waiting task
 * @acct:    bytes it needs charged
 * @ticket:  its place in the arrival order (checks that grants are FIFO)
 * @res:     1 while queued; 0 once charged (granted); -errno once failed
 * @kick:    evictor: something may have changed, scan again
 * @evictor: among the first GB_SPACE_EVICTORS: evicts when kicked
 * @starve:  enum gb_space_starve (written by the waiter; from WAIT to NO
 *           by whoever pokes it)
 * @asleep:  sleeps or is about to: wake it to tell it something
 *
 * Everything but @task, @acct and @ticket is under gb_space.lock; @res is
 * also read without it by its waiter while it evicts.
 */
struct gb_space_waiter {
	struct list_head node;
	struct task_struct *task;
	u64 acct;
	u64 ticket;
	int res;
	bool kick;
	bool evictor;
	u8 starve;
	bool asleep;
};

/*
 * The queue, its lock and what the lock protects, on cache lines of their
 * own: every SET that queues writes them. gb_space_nwait (read by every
 * SET and free) and gb_space_starved (read by every put of an object with
 * a tail) are elsewhere: see the top.
 */
static struct {
	spinlock_t lock;		/* the rest, and the waiters queued */
	struct list_head queue;
	unsigned long grants;		/* waiters granted so far */
	u64 ticket;			/* arrival order: last ticket given */
	u64 last_grant;			/* ticket of the last waiter granted */
	struct gb_space_waiter *scout;	/* the starved one that scans */
	atomic_t wins;			/* CLOCK windows since the last hit */
	bool closed;			/* unload: nobody waits any more */
} gb_space ____cacheline_aligned_in_smp = {
	.lock = __SPIN_LOCK_UNLOCKED(gb_space.lock),
	.queue = LIST_HEAD_INIT(gb_space.queue),
};

/* waiters queued: written under the lock, read without it by SETs, frees */
static unsigned int gb_space_nwait ____cacheline_aligned_in_smp;
/* evictors listening (the top): read by puts, written when one starts */
static unsigned int gb_space_starved __read_mostly;
/* the first waiter's charge (0: none), for the evictors (the top) */
static u64 gb_space_head_acct;
/* tails charged and not linked yet: no eviction can free them */
atomic64_t gb_store_tail_inflight;
u32 gb_space_wait_ms;			/* debugfs tail_wait_ms; 0: default */
static atomic64_t gb_space_waits;	/* SETs that queued (debugfs) */
static atomic64_t gb_space_fails;	/* waiters that got no space */
static atomic64_t gb_space_disorder;	/* grants out of arrival order */
static atomic_t gb_space_nevicting;	/* waiters evicting now */
static atomic_t gb_space_max_evicting;	/* most at once (debugfs) */
static atomic64_t gb_space_starvations;	/* evictors that starved (debugfs) */
static atomic_long_t gb_space_max_wait;	/* longest wait that got space */

/* The first waiter, or NULL. Under gb_space.lock. */
static struct gb_space_waiter *gb_space_head(void)
{
	return list_first_entry_or_null(&gb_space.queue,
					struct gb_space_waiter, node);
}

/* Tell @w to scan again (an evictor), waking it if it sleeps. */
static void gb_space_poke(struct gb_space_waiter *w)
{
	if (w->kick)
		return;
	w->kick = true;
	if (w->asleep)
		wake_up_process(w->task);
}

/*
 * Make the first GB_SPACE_EVICTORS waiters evictors and tell those that
 * were none what they are now; @kick, as well, the evictors that were
 * (GB_SPACE_KICK_BUSY: those not starved). Under gb_space.lock.
 */
static void gb_space_evictors(enum gb_space_kick kick)
{
	struct gb_space_waiter *w;
	int i = 0;

	list_for_each_entry(w, &gb_space.queue, node) {
		if (i++ == GB_SPACE_EVICTORS)
			break;
		if (!w->evictor) {
			w->evictor = true;
			/* the scout looks for all: sleep until it finds */
			if (gb_space.scout)
				w->starve = GB_STARVE_WAIT;
			else
				gb_space_poke(w);
		} else if ((kick == GB_SPACE_KICK_ALL &&
			    (w->starve == GB_STARVE_NO ||
			     w->starve == GB_STARVE_LISTEN)) ||
			   (kick == GB_SPACE_KICK_BUSY &&
			    w->starve == GB_STARVE_NO)) {
			gb_space_poke(w);
		}
	}
}

/* @w leaves the queue with @res and learns it (wakes). Under the lock. */
static void gb_space_dequeue(struct gb_space_waiter *w, int res)
{
	list_del_init(&w->node);
	WRITE_ONCE(gb_space_nwait, gb_space_nwait - 1);
	/* the next waiter looks at a whole lap before it starves */
	if (!gb_space_nwait)
		atomic_set(&gb_space.wins, 0);
	WRITE_ONCE(w->res, res);
	if (res)
		atomic64_inc(&gb_space_fails);
	if (w->asleep)
		wake_up_process(w->task);
}

/*
 * Grant space in queue order while the first waiter's charge fits (fail
 * one that can never fit); then see to the evictors: new ones start,
 * @kick says which others to tell. Caller holds gb_space.lock.
 */
static void gb_space_grant(enum gb_space_kick kick)
{
	u64 max = READ_ONCE(gb_store_ssd_max);
	struct gb_space_waiter *w;
	bool granted = false;

	while ((w = gb_space_head())) {
		if (w->acct > max) {
			gb_space_dequeue(w, -ENOSPC);
			continue;
		}
		/* cheap look first: events come while the head cannot fit */
		if (atomic64_read(&gb_store_tail_bytes) + w->acct > max)
			break;
		/* a SET that saw no queue may charge meanwhile: add, check */
		if (atomic64_add_return(w->acct, &gb_store_tail_bytes) > max) {
			atomic64_sub(w->acct, &gb_store_tail_bytes);
			break;
		}
		if (w->ticket < gb_space.last_grant)
			atomic64_inc(&gb_space_disorder);
		gb_space.last_grant = w->ticket;
		WRITE_ONCE(gb_space.grants, gb_space.grants + 1);
		gb_space_dequeue(w, 0);
		granted = true;
	}
	w = gb_space_head();
	WRITE_ONCE(gb_space_head_acct, w ? w->acct : 0);
	/* the space went to a waiter: no use scanning for it */
	if (granted && kick == GB_SPACE_KICK_BUSY)
		kick = GB_SPACE_KICK_NONE;
	gb_space_evictors(kick);
}

/* Something the waiters may use happened: grant, or tell the evictors. */
static void gb_space_event(enum gb_space_kick kick)
{
	unsigned long flags;

	spin_lock_irqsave(&gb_space.lock, flags);
	gb_space_grant(kick);
	spin_unlock_irqrestore(&gb_space.lock, flags);
}

/**
 * gb_space_uncharge - give tail budget back
 * @acct: bytes charged (0: nothing)
 *
 * Grants the freed space to the waiters in queue order. Any context.
 */
void gb_space_uncharge(u64 acct)
{
	if (!acct)
		return;
	atomic64_sub(acct, &gb_store_tail_bytes);
	/* pairs with the smp_mb() of a waiter queueing (see the top) */
	smp_mb__after_atomic();
	if (unlikely(READ_ONCE(gb_space_nwait)))
		gb_space_event(GB_SPACE_KICK_BUSY);
}

/**
 * gb_space_inflight - count a charged tail as in flight, or no more
 * @priv: its object: unpublished (ours), being linked (under its shard
 *        lock) or being freed
 * @on:   true when its tail was charged; false when it is linked (it is
 *        evictable from then on) or freed before that
 *
 * Any context.
 */
void gb_space_inflight(struct gb_obj_priv *priv, bool on)
{
	if (priv->tail_inflight == on || !priv->tail_acct)
		return;
	priv->tail_inflight = on;
	if (on)
		atomic64_add(priv->tail_acct, &gb_store_tail_inflight);
	else
		atomic64_sub(priv->tail_acct, &gb_store_tail_inflight);
}

/*
 * The first waiter cannot fit whatever is evicted, until SETs in flight
 * link their tails (or fail): their charges leave too little (the top).
 */
static bool gb_space_hopeless(void)
{
	return READ_ONCE(gb_space_head_acct) +
	       atomic64_read(&gb_store_tail_inflight) >
	       READ_ONCE(gb_store_ssd_max);
}

/**
 * gb_space_note_put - a put left an object with a tail evictable
 *
 * gb_obj_put() calls it right after its refcount decrement (a release)
 * when at most the index's reference and the promotion queue's are left.
 * Wakes the evictors only while one starves (see the top): otherwise a
 * barrier (free on x86) and a read. Any context.
 */
void gb_space_note_put(void)
{
	/* the decrement, then the flag: pairs with gb_space_set_starve() */
	smp_mb__after_atomic();
	if (unlikely(READ_ONCE(gb_space_starved)))
		gb_space_event(GB_SPACE_KICK_ALL);
}

/**
 * gb_space_note_tail - an object with a tail was linked
 *
 * gb_store_commit() calls it after its shard unlock: the SET's reference
 * went to the index, so the object is evictable. As gb_space_note_put().
 * Any context.
 */
void gb_space_note_tail(void)
{
	/* the link, then the flag: pairs with gb_space_set_starve() */
	smp_mb();
	if (unlikely(READ_ONCE(gb_space_starved))) {
		/* the new tail is the youngest entry: worth a lap (the top) */
		atomic_set(&gb_space.wins, 0);
		gb_space_event(GB_SPACE_KICK_ALL);
	}
}

/**
 * gb_space_try - charge a tail if it fits at once and nobody waits
 * @acct: bytes
 *
 * Never waits and never evicts. Any context.
 *
 * Return: whether @acct was charged.
 */
bool gb_space_try(u64 acct)
{
	if (READ_ONCE(gb_space_nwait))
		return false;
	if (atomic64_add_return(acct, &gb_store_tail_bytes) <=
	    READ_ONCE(gb_store_ssd_max))
		return true;
	gb_space_uncharge(acct);
	return false;
}

/* A waiter leaves with @res (it was not granted). Under gb_space.lock. */
static void gb_space_leave(struct gb_space_waiter *w, int res)
{
	bool head = gb_space_head() == w;

	gb_space_dequeue(w, res);
	/* the next one is first now: it may even fit; a new evictor */
	gb_space_grant(head ? GB_SPACE_KICK_BUSY : GB_SPACE_KICK_NONE);
}

static unsigned long gb_space_bound(void)
{
	u32 ms = READ_ONCE(gb_space_wait_ms);

	return ms ? msecs_to_jiffies(ms) : GB_SPACE_WAIT;
}

/*
 * Something was evicted: the evictors that slept on the scout's
 * starvation scan again (the first GB_SPACE_EVICTORS waiters are the
 * evictors); @scout: the scout evicted it or leaves, it is one no more.
 * Under gb_space.lock.
 */
static void gb_space_unwait(bool scout)
{
	struct gb_space_waiter *w;
	int i = 0;

	if (scout)
		WRITE_ONCE(gb_space.scout, NULL);
	list_for_each_entry(w, &gb_space.queue, node) {
		if (i++ == GB_SPACE_EVICTORS)
			break;
		if (w->starve == GB_STARVE_WAIT) {
			w->starve = GB_STARVE_NO;
			gb_space_poke(w);
		}
	}
}

/*
 * @w's view changes to @to (enum gb_space_starve). Starting to listen,
 * the full barrier after the count orders it before the scan that follows
 * (see the top); but when another evictor is the scout, @w waits for it
 * instead (returns false). Going deaf also forgets the kicks that came
 * meanwhile: with reads faster than a scan, a kick is always pending when
 * the scan ends, and the evictor would scan back to back. The scout that
 * hits wakes the evictors that wait.
 */
static bool gb_space_set_starve(struct gb_space_waiter *w, u8 to)
{
	int d;

	spin_lock_irq(&gb_space.lock);
	/* a starvation begins (not a starved evictor listening again) */
	if (to == GB_STARVE_LISTEN && w->starve == GB_STARVE_NO)
		atomic64_inc(&gb_space_starvations);
	if (to == GB_STARVE_LISTEN && gb_space.scout && gb_space.scout != w) {
		w->starve = GB_STARVE_WAIT;
		w->kick = false;	/* only the scout wakes it */
		spin_unlock_irq(&gb_space.lock);
		return false;
	}
	d = (to == GB_STARVE_LISTEN) - (w->starve == GB_STARVE_LISTEN);
	w->starve = to;
	WRITE_ONCE(gb_space_starved, gb_space_starved + d);
	if (to == GB_STARVE_LISTEN)
		WRITE_ONCE(gb_space.scout, w);
	else if (to == GB_STARVE_NO && gb_space.scout)
		gb_space_unwait(gb_space.scout == w);
	/* deaf: drop the events that came during the useless scan too */
	if (to == GB_STARVE_DEAF)
		w->kick = false;
	spin_unlock_irq(&gb_space.lock);
	if (to != GB_STARVE_LISTEN)
		return true;
	/* the count, then the scan: pairs with gb_space_note_put()/_tail() */
	smp_mb();
	return true;
}

/*
 * The CLOCK windows (gb_store_evict()) an evictor scans without a hit
 * before it counts as starved: enough for a lap (twice the index, as one
 * gb_store_evict() on a small one), at most GB_EVICT_WAITS (the scans a
 * SET short of memory makes).
 */
static unsigned int gb_space_windows(void)
{
	u64 lap = 2 * gb_store_shard_items() + 2;

	return min_t(u64, DIV_ROUND_UP(lap, GB_EVICT_SCAN), GB_EVICT_WAITS);
}

/*
 * An evictor's turn: evict tails until @w is granted or its bound @end
 * passes (or a fatal signal comes), or evicting does not help for now
 * (starved or fruitless, see the top). @timer: the turn comes from its
 * GB_SPACE_RETRY, not from an event. Returns with @w granted or not.
 */
static void gb_space_evict(struct gb_space_waiter *w, unsigned long end,
			   bool timer)
{
	int fruitless = 0, n, max;
	bool sure = false;

	n = atomic_inc_return(&gb_space_nevicting);
	max = atomic_read(&gb_space_max_evicting);
	while (n > max && !atomic_try_cmpxchg(&gb_space_max_evicting, &max, n))
		;
	while (READ_ONCE(w->res) > 0 && time_before(jiffies, end) &&
	       !fatal_signal_pending(current)) {
		u64 before = atomic64_read(&gb_store_tail_bytes);
		unsigned long grants = READ_ONCE(gb_space.grants);
		enum gb_evict_res r = GB_EVICT_NONE;

		/* in vain while SETs in flight hold too much: starved */
		if (!gb_space_hopeless())
			r = gb_obj_evict_inline_res(GB_NEED_TAIL);

		/* the window ran out: the rest of the CLOCK is still to see */
		if (r == GB_EVICT_WINDOW &&
		    atomic_inc_return(&gb_space.wins) < gb_space_windows()) {
			cond_resched();
			continue;
		}
		if (!gb_evict_hit(r)) {
			if (w->starve != GB_STARVE_LISTEN) {
				/* listen, then make sure (see the top) */
				if (!gb_space_set_starve(w, GB_STARVE_LISTEN))
					break;	/* the scout looks for us */
				sure = true;
				continue;
			}
			/* the event that sent us here was no use */
			if (!timer && !sure)
				gb_space_set_starve(w, GB_STARVE_DEAF);
			break;	/* sleep until an event or the retry */
		}
		atomic_set(&gb_space.wins, 0);
		/* a hit ends the starvation: the scout's, or the others' */
		if (w->starve != GB_STARVE_NO || READ_ONCE(gb_space.scout))
			gb_space_set_starve(w, GB_STARVE_NO);
		gb_store_note_pressure(true);
		/* the victim's space went nowhere yet (still referenced) */
		if (atomic64_read(&gb_store_tail_bytes) >= before &&
		    READ_ONCE(gb_space.grants) == grants &&
		    ++fruitless >= GB_EVICT_FRUITLESS)
			break;
		cond_resched();
	}
	atomic_dec(&gb_space_nevicting);
}

/* The longest wait that got space: @t (jiffies), if longer. */
static void gb_space_note_wait(unsigned long t)
{
	long max = atomic_long_read(&gb_space_max_wait);

	while ((long)t > max &&
	       !atomic_long_try_cmpxchg(&gb_space_max_wait, &max, t))
		;
}

/**
 * gb_space_charge - charge a tail to the SSD budget, waiting fairly
 * @acct: bytes (page multiple, at most gb_store_ssd_max)
 *
 * Charges at once when nobody waits and @acct fits. Otherwise queues
 * behind the SETs already waiting and sleeps (killable) until the
 * uncharges of freed tails grant it the space in queue order; among the
 * first waiters it evicts (see the top of this file). Process context;
 * the caller must hold no lock that a reader, a SET or an eviction may
 * need (no shard lock, no RMW lock: gb_store_concat() and
 * gb_store_arith() let theirs go to wait, see struct gb_space_pre).
 *
 * Return: 0 with @acct charged; -ENOSPC when the bound passed, @acct is
 * larger than the budget, or the store failed all waiters
 * (reconfiguration, unload); -EINTR on a fatal signal.
 */
int gb_space_charge(u64 acct)
{
	struct gb_space_waiter w = { .task = current, .acct = acct, .res = 1 };
	unsigned long start = jiffies, end = start + gb_space_bound();
	bool retry = false;
	int res;

	might_sleep();
	if (gb_space_try(acct))
		return 0;
	spin_lock_irq(&gb_space.lock);
	if (gb_space.closed) {
		spin_unlock_irq(&gb_space.lock);
		return -ENOSPC;
	}
	w.ticket = ++gb_space.ticket;
	list_add_tail(&w.node, &gb_space.queue);
	WRITE_ONCE(gb_space_nwait, gb_space_nwait + 1);
	/* pairs with the barrier of gb_space_uncharge() */
	smp_mb();
	/* first in the queue: it may fit; among the first K: evict */
	gb_space_grant(GB_SPACE_KICK_NONE);
	spin_unlock_irq(&gb_space.lock);
	atomic64_inc(&gb_space_waits);

	for (;;) {
		bool evict, timer;
		long left;

		spin_lock_irq(&gb_space.lock);
		w.asleep = false;
		if (w.res <= 0)
			break;
		/* checked on every turn: events may keep an evictor busy */
		left = (long)(end - jiffies);
		if (left <= 0 || fatal_signal_pending(current)) {
			gb_space_leave(&w, left <= 0 ? -ENOSPC : -EINTR);
			break;
		}
		evict = w.evictor && (w.kick || retry);
		timer = !w.kick;
		w.kick = false;
		retry = false;
		if (evict) {
			spin_unlock_irq(&gb_space.lock);
			gb_space_evict(&w, end, timer);
			continue;
		}
		/* an evictor looks again now and then (see the top) */
		if (w.evictor && w.starve != GB_STARVE_WAIT)
			left = min_t(long, left, GB_SPACE_RETRY);
		w.asleep = true;
		set_current_state(TASK_KILLABLE);
		spin_unlock_irq(&gb_space.lock);
		retry = !schedule_timeout(left);
	}
	res = w.res;
	if (w.starve == GB_STARVE_LISTEN)
		WRITE_ONCE(gb_space_starved, gb_space_starved - 1);
	/* the scout leaves: one of the others takes over */
	if (gb_space.scout == &w)
		gb_space_unwait(true);
	spin_unlock_irq(&gb_space.lock);
	if (!res)
		gb_space_note_wait(jiffies - start);
	return res;
}

/**
 * gb_space_abort - fail every SET waiting for SSD budget
 * @close: and every one that would wait from now on (unload); false: a
 *         reconfiguration, later SETs wait again
 *
 * The waiters return -ENOSPC. One granted meanwhile keeps its space.
 * Process context.
 */
void gb_space_abort(bool close)
{
	struct gb_space_waiter *w;

	spin_lock_irq(&gb_space.lock);
	if (close)
		gb_space.closed = true;
	while ((w = gb_space_head()))
		gb_space_dequeue(w, -ENOSPC);
	spin_unlock_irq(&gb_space.lock);
}

/**
 * gb_space_kick - the budget changed (ssd_max): grant what fits now
 *
 * A waiter that needs more than the new budget fails at once, wherever it
 * is in the queue. Process context.
 */
void gb_space_kick(void)
{
	u64 max = READ_ONCE(gb_store_ssd_max);
	struct gb_space_waiter *w, *n;

	spin_lock_irq(&gb_space.lock);
	list_for_each_entry_safe(w, n, &gb_space.queue, node)
		if (w->acct > max)
			gb_space_dequeue(w, -ENOSPC);
	gb_space_grant(GB_SPACE_KICK_ALL);
	spin_unlock_irq(&gb_space.lock);
}

/* Store init: nobody waits, nothing counted. */
void gb_space_init(void)
{
	spin_lock_irq(&gb_space.lock);
	WARN_ON(!list_empty(&gb_space.queue));
	gb_space.closed = false;
	gb_space_nwait = 0;
	gb_space_starved = 0;
	WRITE_ONCE(gb_space.scout, NULL);
	gb_space.grants = 0;
	gb_space.ticket = 0;
	gb_space.last_grant = 0;
	spin_unlock_irq(&gb_space.lock);
	atomic64_set(&gb_space_waits, 0);
	atomic64_set(&gb_space_fails, 0);
	atomic64_set(&gb_space_disorder, 0);
	atomic_set(&gb_space_nevicting, 0);
	atomic_set(&gb_space.wins, 0);
	atomic64_set(&gb_store_tail_inflight, 0);
	WRITE_ONCE(gb_space_head_acct, 0);
	atomic_set(&gb_space_max_evicting, 0);
	atomic64_set(&gb_space_starvations, 0);
	atomic_long_set(&gb_space_max_wait, 0);
	WRITE_ONCE(gb_space_wait_ms, 0);
}

/**
 * gb_space_dbg_stats - the wait's state for debugfs
 * @st: receives the SETs that queued, those that got no space, the
 *      waiters queued now, the longest wait that got space (ms), the
 *      grants out of arrival order (0 unless broken), the most waiters
 *      that evicted at once and how often an evictor starved (found
 *      nothing to evict in a lap of the CLOCK, or had to wait for the
 *      SETs in flight)
 */
void gb_space_dbg_stats(struct gb_space_stats *st)
{
	st->waits = atomic64_read(&gb_space_waits);
	st->fails = atomic64_read(&gb_space_fails);
	st->waiting = READ_ONCE(gb_space_nwait);
	st->max_wait_ms =
		jiffies_to_msecs(atomic_long_read(&gb_space_max_wait));
	st->disorder = atomic64_read(&gb_space_disorder);
	st->max_evicting = atomic_read(&gb_space_max_evicting);
	st->starvations = atomic64_read(&gb_space_starvations);
}

/**
 * gb_store_stop_waits - fail the SETs waiting for SSD space, for good
 *
 * Module unload calls it before the transports stop, so that none of
 * their workers sits out a waiter's bound: the SETs waiting now fail with
 * -ENOSPC at once, and so does every later one that would have to wait.
 * Process context.
 */
void gb_store_stop_waits(void)
{
	gb_space_abort(true);
}
