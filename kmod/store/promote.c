// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: NUMA promotion (Documentation/numa.rst).
 *
 * An object whose heads are on another node than placement wants for them
 * (stored under another policy, or spilled to another node's pages when
 * its node was short) is moved to the wanted node once it is read often:
 *
 *  - Every read (gb_obj_bump(), any context) of an object on the wrong
 *    node counts a hit in the object; the count halves every
 *    GB_PROMO_DECAY seconds. At the setting `promotion` (hits, 0 = off)
 *    the object is put on a bounded queue (GB_PROMO_QUEUE_MAX entries and
 *    GB_PROMO_QUEUE_BYTES value bytes, each object at most once, with a
 *    reference), unless a failed promotion of it or to its node backs off.
 *    Reads of an object on the right node or of a queued one write
 *    nothing; past the threshold the count is not written either, and a
 *    full queue or a back-off is seen without taking the lock.
 *  - The queue's reference does not keep an object from being evicted:
 *    one that leaves the index (replaced, deleted, evicted, expired) is
 *    taken off the queue and given back at once
 *    (gb_store_promote_unqueue(), from gb_store_unlink()).
 *  - A work item takes objects off the queue, at most `promotion_rate`
 *    bytes per second: every attempt is charged before anything is
 *    allocated or evicted, so failures and lost races are paced like
 *    promotions (after an attempt of B bytes the next waits B / rate
 *    seconds). It builds a copy of each on the wanted node
 *    (gb_obj_alloc_promo(): that node's pages only, and at most
 *    GB_PROMO_EVICT evictions, only while the node can then take the
 *    copy: gb_promo_room()). A copy that fails for want of room on the
 *    node makes that node back off for every object (GB_PROMO_NODE_BACKOFF
 *    seconds, doubling).
 *  - The copy replaces the object only if the key still maps to it
 *    (gb_store_promote_link(), under the key's meta lock and its shard
 *    lock): a SET, delete, eviction or expiry meanwhile wins and the copy
 *    is dropped. The copy keeps the object's CAS, id, expiry,
 *    CRC and access state: to clients it is the same object.
 *  - Readers never wait: they keep the object they looked up, whose pages
 *    go back to the pool when the last reference is gone (and to the
 *    quarantine while a send or an RDMA mapping still holds them), as for
 *    any replaced object (kmod/store/object.c).
 *
 * The work item runs on system_unbound_wq, not on the store's
 * WQ_MEM_RECLAIM queue: a copy may create a pool block on its node, which
 * waits for work_on_cpu() (system_wq), and nothing reclaims memory by
 * promoting.
 *
 * A policy change, `promotion 0`, a block size change and unload drain
 * the queue; the last two also wait for a copy under way
 * (gb_store_promote_quiesce()). `promotion 0` does not stop a copy under
 * way: it is published (or dropped) as usual. Unload:
 * gb_store_running is cleared first, so nothing is queued any more, then
 * the work is cancelled (it re-queues itself only while running), then
 * the queue's references are dropped; all before the objects are
 * reclaimed and the pool goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/goblin.h>

#include "store_int.h"

#define GB_PROMO_QUEUE_MAX	256	/* objects waiting ... */
#define GB_PROMO_QUEUE_BYTES	SZ_64M	/* ... and their value bytes */
#define GB_PROMO_DECAY		10	/* seconds: the hit count halves */
#define GB_PROMO_BATCH		16	/* objects per work run */
#define GB_PROMO_BACKOFF	5	/* seconds after a first failure ... */
#define GB_PROMO_BACKOFF_SHIFT	6	/* ... doubled up to 64 times that */
#define GB_PROMO_NODE_BACKOFF	1	/* seconds: a node after a failure */
#define GB_PROMO_RATE_DEFAULT	(16U << 20)

static u32 gb_promo_hits;			/* 0 = off */
static u32 gb_promo_rate = GB_PROMO_RATE_DEFAULT;	/* bytes/s */
static DEFINE_SPINLOCK(gb_promo_lock);	/* queue, length, bytes, pacing */
static LIST_HEAD(gb_promo_queue);
static unsigned int gb_promo_len;
static u64 gb_promo_bytes;			/* value bytes queued */
static bool gb_promo_full;	/* the last enqueue was refused (lockless) */
static struct delayed_work gb_promo_dwork;
static u64 gb_promo_next_ns;	/* pacing: no promotion before (ktime ns) */
/* per node: no promotion to it before (jiffies), after failures in a row */
static unsigned long gb_promo_node_next[MAX_NUMNODES];
static u32 gb_promo_node_fails[MAX_NUMNODES];
static atomic_long_t gb_promo_node_in[MAX_NUMNODES];
static unsigned int gb_promo_dbg_ms;		/* debugfs, one-shot */
static atomic64_t gb_promo_attempts;		/* debugfs: copies begun */

/* The node placement wants @priv's heads on now, -1 for none. */
static int gb_promo_want(const struct gb_obj_priv *priv)
{
	struct gb_store_numa nc;
	int want;

	gb_store_get_numa(&nc);
	switch (nc.policy) {
	case GOBLIN_NUMA_BIND:
		want = nc.node;
		break;
	case GOBLIN_NUMA_INTERLEAVE:
		return -1;
	default:
		want = priv->want;
		break;
	}
	/* a node without memory (memoryless, or its memory went offline) */
	if (want < 0 || want >= MAX_NUMNODES || !node_state(want, N_MEMORY))
		return -1;
	return want;
}

/* Is @node backing off after failed promotions? Any context. */
static bool gb_promo_node_waits(int node)
{
	return READ_ONCE(gb_promo_node_fails[node]) &&
	       time_before(jiffies, READ_ONCE(gb_promo_node_next[node]));
}

/*
 * Evicting to promote to @node only helps when the node can then take the
 * copy's @nr pages: its pool has them free or may grow by them (the
 * budget allows blocks or an idle one can go), and the page allocator
 * has free memory on the node for them and a block besides. Otherwise an
 * eviction frees pages in blocks of other nodes, which stay allocated.
 */
static bool gb_promo_room(int node, u32 nr)
{
	u64 free = 0, need;
	int z;

	if (node < 0 || node >= MAX_NUMNODES || !node_state(node, N_MEMORY))
		return false;
	for (z = 0; z < MAX_NR_ZONES; z++)
		free += zone_page_state(&NODE_DATA(node)->node_zones[z],
					NR_FREE_PAGES);
	need = (u64)nr + (READ_ONCE(gb_store_cfg.block) >> PAGE_SHIFT);
	return free > need && gb_pool_node_room(node, nr);
}

/**
 * gb_store_promote_note - count a read of @obj for promotion
 * @obj: referenced object
 *
 * Queues @obj when it has been read often enough and its heads are not on
 * the node placement wants. Any context; never sleeps, never waits for
 * the promotion. An object on the wanted node, one already queued and a
 * full queue cost reads and no write of a shared line.
 */
void gb_store_promote_note(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;
	u32 thr = READ_ONCE(gb_promo_hits);
	u32 now, age, h;
	unsigned long flags;
	int want;

	if (!thr || !priv->nid || priv->tail)
		return;
	want = gb_promo_want(priv);
	if (want < 0 || want == priv->nid - 1)
		return;
	if (test_bit(GB_PROMO_QUEUED, &priv->pflags))
		return;
	now = (u32)ktime_get_seconds();
	age = now - READ_ONCE(priv->pstamp);
	h = READ_ONCE(priv->phits);
	if (age >= GB_PROMO_DECAY) {
		h >>= min_t(u32, age / GB_PROMO_DECAY, 31);
		WRITE_ONCE(priv->pstamp, now);
	}
	/*
	 * Racy: two readers may count one hit, fine for a heuristic. Past
	 * the threshold the count is left alone, so a hot object's line is
	 * not written by every read.
	 */
	if (h < thr) {
		WRITE_ONCE(priv->phits, ++h);
		if (h < thr)
			return;
	} else if (age >= GB_PROMO_DECAY) {
		WRITE_ONCE(priv->phits, h);
	}
	if (READ_ONCE(priv->pfails) &&
	    time_before(jiffies, READ_ONCE(priv->pnext)))
		return;
	if (gb_promo_node_waits(want) || READ_ONCE(gb_promo_full))
		return;
	if (test_and_set_bit(GB_PROMO_QUEUED, &priv->pflags))
		return;
	spin_lock_irqsave(&gb_promo_lock, flags);
	if (gb_promo_len >= GB_PROMO_QUEUE_MAX ||
	    (gb_promo_len && gb_promo_bytes + obj->len > GB_PROMO_QUEUE_BYTES)) {
		/* readers stop trying until the worker took an entry */
		WRITE_ONCE(gb_promo_full, true);
		goto refuse;
	}
	if (!READ_ONCE(gb_store_running) || !READ_ONCE(priv->linked))
		goto refuse;
	/* the caller's reference keeps @obj alive until this one is taken */
	refcount_inc(&obj->ref);
	list_add_tail(&priv->pnode, &gb_promo_queue);
	gb_promo_len++;
	gb_promo_bytes += obj->len;
	/* under the lock: unload cancels the work after it saw the flag */
	queue_delayed_work(system_unbound_wq, &gb_promo_dwork, 0);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	return;
refuse:
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	clear_bit(GB_PROMO_QUEUED, &priv->pflags);
}

/* Take @priv off the queue; gb_promo_lock held, @priv on the queue. */
static void gb_promo_del(struct gb_obj_priv *priv)
{
	lockdep_assert_held(&gb_promo_lock);
	list_del_init(&priv->pnode);
	gb_promo_len--;
	gb_promo_bytes -= priv->obj->len;
	WRITE_ONCE(gb_promo_full, false);
}

/* Give back the queue's reference to @priv's object. */
static void gb_promo_release(struct gb_obj_priv *priv)
{
	struct gb_obj *obj = priv->obj;

	clear_bit(GB_PROMO_QUEUED, &priv->pflags);
	gb_obj_put(obj);
}

/*
 * (Re)arm the work after @delay jiffies while something is queued and the
 * store runs (@mod: also bring a later run forward). Any context.
 */
static void gb_promo_schedule(unsigned long delay, bool mod)
{
	unsigned long flags;

	spin_lock_irqsave(&gb_promo_lock, flags);
	if (gb_promo_len && READ_ONCE(gb_store_running)) {
		if (mod)
			mod_delayed_work(system_unbound_wq, &gb_promo_dwork,
					 delay);
		else
			queue_delayed_work(system_unbound_wq, &gb_promo_dwork,
					   delay);
	}
	spin_unlock_irqrestore(&gb_promo_lock, flags);
}

/*
 * Empty the queue (policy change, promotion off, geometry change, unload),
 * one entry at a time: gb_store_promote_unqueue() may take any entry that
 * is still on the queue meanwhile. Process context.
 */
static void gb_promo_drain(void)
{
	struct gb_obj_priv *priv;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&gb_promo_lock, flags);
		priv = list_first_entry_or_null(&gb_promo_queue,
						struct gb_obj_priv, pnode);
		if (priv)
			gb_promo_del(priv);
		spin_unlock_irqrestore(&gb_promo_lock, flags);
		if (!priv)
			return;
		gb_promo_release(priv);
	}
}

/**
 * gb_store_promote_queued - is @priv's object waiting on the queue
 * @priv: object
 *
 * Then the queue holds one reference on it, which its eviction gives back
 * at once (gb_store_promote_unqueue()). Racy (a hint for eviction): the
 * worker may be taking it. Any context.
 */
bool gb_store_promote_queued(const struct gb_obj_priv *priv)
{
	return !list_empty(&priv->pnode);
}

/**
 * gb_store_promote_unqueue - @obj left the index: take it off the queue
 * @obj: object gb_store_unlink() just unlinked, with its
 *       GB_PROMO_QUEUED bit set
 *
 * Gives the queue's reference back now, not when the rate lets the worker
 * get to it, so that a replaced, deleted, evicted or expired object is
 * freed at once. An object the worker took already is left to it (it
 * sees the object unlinked). Caller holds the object's shard lock; any context.
 */
void gb_store_promote_unqueue(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;
	unsigned long flags;
	bool queued;

	spin_lock_irqsave(&gb_promo_lock, flags);
	queued = !list_empty(&priv->pnode);
	if (queued)
		gb_promo_del(priv);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	if (queued)
		gb_promo_release(priv);
}

/* A promotion of @priv's object failed: back off before the next one. */
static void gb_promo_backoff(struct gb_obj_priv *priv)
{
	u32 shift = min_t(u32, priv->pfails, GB_PROMO_BACKOFF_SHIFT);

	WRITE_ONCE(priv->pnext,
		   jiffies + ((unsigned long)GB_PROMO_BACKOFF * HZ << shift));
	WRITE_ONCE(priv->pfails, priv->pfails + 1);
	gb_stat_inc(GB_ST_PROMOTION_FAILURES);
}

/*
 * Promotions to @node failed for want of room (@failed) or succeeded: a
 * node that has no room is not tried again, whichever object asks, for
 * GB_PROMO_NODE_BACKOFF seconds, doubling with every further failure up
 * to 64 times that. Only the worker writes these.
 */
static void gb_promo_node_result(int node, bool failed)
{
	u32 fails = gb_promo_node_fails[node];

	if (!failed) {
		if (fails)
			WRITE_ONCE(gb_promo_node_fails[node], 0);
		return;
	}
	WRITE_ONCE(gb_promo_node_next[node], jiffies +
		   ((unsigned long)GB_PROMO_NODE_BACKOFF * HZ <<
		    min_t(u32, fails, GB_PROMO_BACKOFF_SHIFT)));
	WRITE_ONCE(gb_promo_node_fails[node], fails + 1);
}

/*
 * Charge an attempt of @bytes to the rate, before anything is allocated
 * or evicted: failures and lost races cost as much as promotions.
 */
static void gb_promo_charge(u64 bytes)
{
	unsigned long flags;
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&gb_promo_lock, flags);
	gb_promo_next_ns = max(gb_promo_next_ns, now) +
		div_u64(bytes * NSEC_PER_SEC, max(gb_promo_rate, 1U));
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	atomic64_inc(&gb_promo_attempts);
}

/*
 * Promote @obj if it still needs it. Return: the bytes moved, 0 when there
 * was nothing to do or a concurrent change of the key won, or -errno.
 */
static long gb_promo_one(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;
	struct gb_obj *copy;
	unsigned int ms;
	int want, err;

	if (!READ_ONCE(priv->linked) || priv->tail || !priv->nid ||
	    gb_obj_dead(obj, gb_now()))
		return 0;
	want = gb_promo_want(priv);
	if (want < 0 || want == priv->nid - 1 || gb_promo_node_waits(want))
		return 0;
	gb_promo_charge((u64)priv->nr_pages << PAGE_SHIFT);
	copy = gb_obj_alloc_promo(obj, want, gb_promo_room);
	if (IS_ERR(copy)) {
		err = PTR_ERR(copy);
		gb_promo_node_result(want, err == -ENOMEM || err == -EXDEV);
		return err;
	}
	gb_promo_node_result(want, false);
	ms = xchg(&gb_promo_dbg_ms, 0);
	if (ms)
		msleep(ms);
	/* the policy may have changed while the bytes were copied */
	if (gb_promo_want(priv) != want) {
		gb_obj_put(copy);
		return 0;
	}
	err = gb_store_promote_link(copy, obj);
	if (err == -EAGAIN)
		return 0;
	if (err)
		return err;
	atomic_long_inc(&gb_promo_node_in[want]);
	return obj->len;
}

static void gb_promo_work(struct work_struct *work)
{
	struct gb_obj_priv *priv;
	unsigned long flags;
	int done;
	u64 now, next;
	long moved;

	for (done = 0; done < GB_PROMO_BATCH; done++) {
		spin_lock_irqsave(&gb_promo_lock, flags);
		priv = list_first_entry_or_null(&gb_promo_queue,
						struct gb_obj_priv, pnode);
		if (!priv) {
			spin_unlock_irqrestore(&gb_promo_lock, flags);
			return;
		}
		now = ktime_get_ns();
		next = gb_promo_next_ns;
		if (now < next) {
			/* paced: come back when the rate allows the next one */
			if (READ_ONCE(gb_store_running))
				queue_delayed_work(system_unbound_wq, &gb_promo_dwork,
						   nsecs_to_jiffies(next - now) + 1);
			spin_unlock_irqrestore(&gb_promo_lock, flags);
			return;
		}
		gb_promo_del(priv);
		spin_unlock_irqrestore(&gb_promo_lock, flags);

		moved = READ_ONCE(gb_promo_hits) ? gb_promo_one(priv->obj) : 0;
		if (moved < 0) {
			gb_promo_backoff(priv);
		} else if (moved > 0) {
			WRITE_ONCE(priv->pfails, 0);
			gb_stat_inc(GB_ST_PROMOTIONS);
			gb_stat_add(GB_ST_PROMOTED_BYTES, moved);
		}
		gb_promo_release(priv);
		cond_resched();
	}
	gb_promo_schedule(0, false);
}

/**
 * gb_store_set_promotion - set NUMA promotion
 * @hits: reads (halved every 10 s) after which an object on another node
 *        than placement wants is moved there, 0 = off
 * @rate: bytes per second promoted at most (at least 4096)
 *
 * Off drains the queue. Process context (netlink, under its lock).
 */
void gb_store_set_promotion(u32 hits, u32 rate)
{
	unsigned long flags;

	rate = max(rate, 4096U);
	WRITE_ONCE(gb_promo_hits, hits);
	if (!hits)
		gb_promo_drain();
	spin_lock_irqsave(&gb_promo_lock, flags);
	if (rate == gb_promo_rate) {
		spin_unlock_irqrestore(&gb_promo_lock, flags);
		return;
	}
	/* a new rate paces from now on, not from what the old one left */
	WRITE_ONCE(gb_promo_rate, rate);
	gb_promo_next_ns = 0;
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	gb_promo_schedule(0, true);
}

u32 gb_store_get_promotion(void)
{
	return READ_ONCE(gb_promo_hits);
}

u32 gb_store_get_promotion_rate(void)
{
	return READ_ONCE(gb_promo_rate);
}

/* The placement policy changed: what is queued was wanted elsewhere. */
void gb_store_promote_policy_changed(void)
{
	gb_promo_drain();
}

/**
 * gb_store_promote_quiesce - no promotion under way or queued
 *
 * Waits for a copy under way (it publishes or drops its copy) and empties
 * the queue, so that neither holds head pages: a block size change after
 * the index was emptied does not fail because of promotion. Objects
 * queued later start the work again themselves. Process context.
 */
void gb_store_promote_quiesce(void)
{
	cancel_delayed_work_sync(&gb_promo_dwork);
	gb_promo_drain();
}

/* Objects promoted to @nid since load. */
u64 gb_store_promote_node_in(int nid)
{
	if (nid < 0 || nid >= MAX_NUMNODES)
		return 0;
	return atomic_long_read(&gb_promo_node_in[nid]);
}

/* debugfs "delay promote MS": the next promotion waits before publishing. */
void gb_store_promote_dbg_delay(unsigned int ms)
{
	WRITE_ONCE(gb_promo_dbg_ms, ms);
}

/**
 * gb_store_promote_dbg_stats - promotion state for the debugfs interface
 * @st: filled in: attempts since load, what is queued now, and the
 *      "delay promote" still armed (0: consumed or never set)
 */
void gb_store_promote_dbg_stats(struct gb_promo_dbg_stats *st)
{
	unsigned long flags;

	st->attempts = atomic64_read(&gb_promo_attempts);
	st->delay_ms = READ_ONCE(gb_promo_dbg_ms);
	spin_lock_irqsave(&gb_promo_lock, flags);
	st->queued = gb_promo_len;
	st->queued_bytes = gb_promo_bytes;
	spin_unlock_irqrestore(&gb_promo_lock, flags);
}

void gb_store_promote_init(void)
{
	int i;

	INIT_DELAYED_WORK(&gb_promo_dwork, gb_promo_work);
	gb_promo_hits = 0;
	gb_promo_rate = GB_PROMO_RATE_DEFAULT;
	gb_promo_next_ns = 0;
	gb_promo_len = 0;
	gb_promo_bytes = 0;
	gb_promo_full = false;
	gb_promo_dbg_ms = 0;
	atomic64_set(&gb_promo_attempts, 0);
	for (i = 0; i < MAX_NUMNODES; i++) {
		atomic_long_set(&gb_promo_node_in[i], 0);
		gb_promo_node_fails[i] = 0;
		gb_promo_node_next[i] = 0;
	}
}

/*
 * Unload, after gb_store_running was cleared: no object is queued any
 * more. Cancel the work (waiting for a promotion in progress, which drops
 * its copy or publishes it like any SET), then drop the queue's
 * references, before the objects are reclaimed.
 */
void gb_store_promote_exit(void)
{
	unsigned long flags;

	/* a gb_store_promote_note() that saw the store running is done */
	spin_lock_irqsave(&gb_promo_lock, flags);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	gb_store_promote_quiesce();
}
