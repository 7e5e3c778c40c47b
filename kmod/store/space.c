// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, the SSD budget (ssd_max): tail charges and the
 * fair wait for space.
 *
 * Every tail is charged to gb_store_tail_bytes, rounded up to pages, from
 * its SET's allocation until the object is freed. When a SET's tail does
 * not fit, the SET queues (struct gb_space_waiter on gb_space_queue, in
 * arrival order) and sleeps; it never polls:
 *  - Only the first waiter (the head) evicts, and only when something may
 *    have changed: when it became head, after an uncharge that was not
 *    enough for it, when a reference on an object with a tail was dropped
 *    (a reader, a send or a SET's read-back let go) and when an object
 *    with a tail was linked (a SET stored it): either may be evictable now
 *    (gb_space_note_tail()). A scan that finds nothing to evict sends it
 *    back to sleep until the next such event, or GB_SPACE_RETRY at most
 *    (a safety net for changes that send no event).
 *  - Every uncharge (a freed object: a tail evicted, replaced, deleted or
 *    expired, or a failed allocation) grants space in queue order
 *    (gb_space_grant()): while the head's charge fits, it is charged on the
 *    head's behalf, taken off the queue and woken. A later SET never takes
 *    space ahead of a queued one: while anyone is queued, new SETs queue
 *    behind (a SET that looked at the queue just before the first waiter
 *    came may still charge past it, once). A smaller charge behind a head
 *    that does not fit waits too (no barging, so no starvation of large
 *    values).
 *  - A waiter gives up after its bound (GB_SPACE_WAIT, debugfs
 *    goblin/tail_wait_ms), on a fatal signal, or when the store fails all
 *    waiters (gb_space_abort(): the SSD directory changes or goes, the
 *    module is unloaded). Leaving as head makes the next waiter the head,
 *    so a head that needs more than will ever be freed (its own SET or
 *    append holds the rest) blocks the queue for its bound, not longer.
 *
 * The queue's lock is a spinlock taken with interrupts off: uncharges come
 * from gb_obj_put(), which is allowed in any context. It is a leaf lock
 * (only wake-ups are done under it). gb_space_nwait lets uncharges and
 * puts skip the lock while nobody waits; the waiter publishes itself with
 * a full barrier before it looks at the budget, and the uncharger updates
 * the budget with one before it looks at gb_space_nwait, so one of them
 * sees the other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/signal.h>

#include "store_int.h"

/**
 * struct gb_space_waiter - a SET waiting for SSD budget (on its stack)
 * @node: entry on gb_space_queue, while queued
 * @task: the waiting task
 * @acct: bytes it needs charged
 * @res:  1 while queued; 0 once charged (granted); -errno once failed
 *        (gb_space_abort())
 * @kick: head only: something may have become evictable, scan again
 *
 * Everything but @task and @acct is under gb_space_lock.
 */
struct gb_space_waiter {
	struct list_head node;
	struct task_struct *task;
	u64 acct;
	int res;
	bool kick;
};

static DEFINE_SPINLOCK(gb_space_lock);
static LIST_HEAD(gb_space_queue);
static unsigned int gb_space_nwait;	/* waiters queued */
static bool gb_space_closed;		/* unload: nobody waits any more */
u32 gb_space_wait_ms;			/* debugfs tail_wait_ms; 0: default */
static atomic64_t gb_space_waits;	/* SETs that queued (debugfs) */
static atomic64_t gb_space_fails;	/* waiters that got no space */
static unsigned long gb_space_max_wait;	/* longest wait that got space */

/* The current head, or NULL. Under gb_space_lock. */
static struct gb_space_waiter *gb_space_head(void)
{
	return list_first_entry_or_null(&gb_space_queue,
					struct gb_space_waiter, node);
}

static void gb_space_dequeue(struct gb_space_waiter *w, int res)
{
	list_del_init(&w->node);
	WRITE_ONCE(gb_space_nwait, gb_space_nwait - 1);
	w->res = res;
}

/*
 * Grant space in queue order while the head's charge fits; then tell the
 * head that is left (if any) to evict for itself. @kick: tell it even if
 * it was the head before (something may have become evictable). Caller
 * holds gb_space_lock.
 */
static void gb_space_grant(bool kick)
{
	u64 max = READ_ONCE(gb_store_ssd_max);
	struct gb_space_waiter *w;

	while ((w = gb_space_head())) {
		/* a SET that saw no queue may charge meanwhile: add, check */
		if (atomic64_add_return(w->acct, &gb_store_tail_bytes) > max) {
			atomic64_sub(w->acct, &gb_store_tail_bytes);
			break;
		}
		gb_space_dequeue(w, 0);
		wake_up_process(w->task);
		kick = true;	/* a new head */
	}
	if (w && kick && !w->kick) {
		w->kick = true;
		wake_up_process(w->task);
	}
}

/* Something the head may use happened: grant, or make it look again. */
static void gb_space_event(void)
{
	unsigned long flags;

	spin_lock_irqsave(&gb_space_lock, flags);
	gb_space_grant(true);
	spin_unlock_irqrestore(&gb_space_lock, flags);
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
		gb_space_event();
}

/**
 * gb_space_note_tail - an object with a tail may be evictable now
 *
 * A reference on it was dropped (gb_obj_put(): not the last one, whoever
 * held it let go) or it was linked (gb_store_commit(): the SET's
 * reference went to the index): the head waiter (if any) scans again.
 * Any context; called right after the reference went.
 */
void gb_space_note_tail(void)
{
	/* the refcount_dec() before is no full barrier everywhere */
	smp_mb();
	if (unlikely(READ_ONCE(gb_space_nwait)))
		gb_space_event();
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

/* A waiter leaves with @res (it was not granted). Under gb_space_lock. */
static void gb_space_leave(struct gb_space_waiter *w, int res)
{
	bool head = gb_space_head() == w;

	gb_space_dequeue(w, res);
	atomic64_inc(&gb_space_fails);
	/* the next one is the head now: it may even fit */
	if (head)
		gb_space_grant(true);
}

static unsigned long gb_space_bound(void)
{
	u32 ms = READ_ONCE(gb_space_wait_ms);

	return ms ? msecs_to_jiffies(ms) : GB_SPACE_WAIT;
}

/*
 * The head's turn: evict tails until it is granted, or nothing more can
 * be evicted for now (every tail held, or GB_EVICT_FRUITLESS evictions
 * after which the budget's use did not drop: their space went to others
 * or a reader took the victim first). Returns with @w granted or not.
 */
static void gb_space_evict(struct gb_space_waiter *w)
{
	int fruitless = 0;

	while (fruitless < GB_EVICT_FRUITLESS) {
		u64 before = atomic64_read(&gb_store_tail_bytes);

		if (!gb_obj_evict_inline(GB_NEED_TAIL))
			return;
		gb_store_note_pressure(true);
		/* the victim's uncharge granted us, if it was enough */
		if (!READ_ONCE(w->res))
			return;
		if (atomic64_read(&gb_store_tail_bytes) >= before)
			fruitless++;
		cond_resched();
	}
}

/**
 * gb_space_charge - charge a tail to the SSD budget, waiting fairly
 * @acct: bytes (page multiple, at most gb_store_ssd_max)
 *
 * Charges at once when nobody waits and @acct fits. Otherwise queues
 * behind the SETs already waiting and sleeps (killable) until the
 * uncharges of freed tails grant it the space in queue order; as the
 * head it evicts for itself (see the top of this file). Process context;
 * the caller must hold no lock that a reader, a SET or an eviction may
 * need (no shard lock, no RMW lock: gb_store_concat() and
 * gb_store_arith() let theirs go to wait, see struct gb_space_pre).
 *
 * Return: 0 with @acct charged; -ENOSPC when the bound passed or the
 * store failed all waiters (reconfiguration, unload); -EINTR on a fatal
 * signal.
 */
int gb_space_charge(u64 acct)
{
	struct gb_space_waiter w = { .task = current, .acct = acct, .res = 1 };
	unsigned long start = jiffies, end = start + gb_space_bound(), now;
	bool retry = false;
	int res;

	if (gb_space_try(acct))
		return 0;
	spin_lock_irq(&gb_space_lock);
	if (gb_space_closed) {
		spin_unlock_irq(&gb_space_lock);
		return -ENOSPC;
	}
	list_add_tail(&w.node, &gb_space_queue);
	WRITE_ONCE(gb_space_nwait, gb_space_nwait + 1);
	/* pairs with the barriers of gb_space_uncharge(), _note_tail() */
	smp_mb();
	/* first in the queue: it may fit, else we are the head and evict */
	if (gb_space_head() == &w)
		gb_space_grant(true);
	spin_unlock_irq(&gb_space_lock);
	atomic64_inc(&gb_space_waits);

	for (;;) {
		bool evict;
		long left;

		spin_lock_irq(&gb_space_lock);
		if (w.res <= 0)
			break;
		/* checked on every turn: events may keep the head busy */
		left = (long)(end - jiffies);
		if (left <= 0 || fatal_signal_pending(current)) {
			gb_space_leave(&w, left <= 0 ? -ENOSPC : -EINTR);
			break;
		}
		evict = (w.kick || retry) && gb_space_head() == &w;
		w.kick = false;
		retry = false;
		if (evict) {
			spin_unlock_irq(&gb_space_lock);
			gb_space_evict(&w);
			continue;
		}
		/* the head looks again now and then (see the top) */
		if (gb_space_head() == &w)
			left = min_t(long, left, GB_SPACE_RETRY);
		set_current_state(TASK_KILLABLE);
		spin_unlock_irq(&gb_space_lock);
		retry = !schedule_timeout(left);
	}
	res = w.res;
	spin_unlock_irq(&gb_space_lock);
	if (!res) {
		now = jiffies - start;
		if (now > READ_ONCE(gb_space_max_wait))
			WRITE_ONCE(gb_space_max_wait, now);
	}
	return res;
}

/**
 * gb_space_abort - fail every SET waiting for SSD budget
 * @close: and every one that would wait from now on (unload); false: a
 *         reconfiguration, later SETs wait again
 *
 * The waiters return -ENOSPC. A head that was granted meanwhile keeps its
 * space. Process context.
 */
void gb_space_abort(bool close)
{
	struct gb_space_waiter *w;

	spin_lock_irq(&gb_space_lock);
	if (close)
		gb_space_closed = true;
	while ((w = gb_space_head())) {
		gb_space_dequeue(w, -ENOSPC);
		atomic64_inc(&gb_space_fails);
		wake_up_process(w->task);
	}
	spin_unlock_irq(&gb_space_lock);
}

/**
 * gb_space_kick - the budget changed (ssd_max): grant what fits now
 *
 * Process context.
 */
void gb_space_kick(void)
{
	spin_lock_irq(&gb_space_lock);
	gb_space_grant(true);
	spin_unlock_irq(&gb_space_lock);
}

/* Store init: nobody waits, nothing counted. */
void gb_space_init(void)
{
	spin_lock_irq(&gb_space_lock);
	WARN_ON(!list_empty(&gb_space_queue));
	gb_space_closed = false;
	gb_space_nwait = 0;
	spin_unlock_irq(&gb_space_lock);
	atomic64_set(&gb_space_waits, 0);
	atomic64_set(&gb_space_fails, 0);
	WRITE_ONCE(gb_space_max_wait, 0);
	WRITE_ONCE(gb_space_wait_ms, 0);
}

/**
 * gb_space_dbg_stats - the wait's state for debugfs
 * @st: receives the SETs that queued, those that got no space, the
 *      waiters queued now and the longest wait that got space (ms)
 */
void gb_space_dbg_stats(struct gb_space_stats *st)
{
	st->waits = atomic64_read(&gb_space_waits);
	st->fails = atomic64_read(&gb_space_fails);
	st->waiting = READ_ONCE(gb_space_nwait);
	st->max_wait_ms = jiffies_to_msecs(READ_ONCE(gb_space_max_wait));
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
