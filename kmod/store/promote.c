// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: NUMA promotion (Documentation/numa.rst).
 *
 * An object whose heads are on another node than placement wants for them
 * (stored under another policy, or spilled to another node's pages when
 * its node was short) is moved to the wanted node once it is read often:
 *
 *  - Every read (gb_obj_bump(), any context) counts a hit in the object;
 *    the count halves every GB_PROMO_DECAY seconds. At the setting
 *    `promotion` (hits, 0 = off) an object on the wrong node is put on a
 *    bounded queue (GB_PROMO_QUEUE_MAX entries and GB_PROMO_QUEUE_BYTES
 *    value bytes, each object at most once, with a reference), unless a
 *    failed promotion of it backs off. A queued object that leaves the
 *    index is given back at once (gb_store_promote_kick()), not when the
 *    rate lets the worker get to it.
 *  - A work item takes objects off the queue, at most
 *    `promotion_rate` bytes per second (paced: after B bytes the next
 *    promotion waits B / rate seconds), and builds a copy of each on the
 *    wanted node (gb_obj_alloc_promo(): that node's pages only, at most
 *    GB_PROMO_EVICT evictions and only while the node has free memory).
 *  - The copy replaces the object only if the key still maps to it
 *    (gb_store_promote_link(), under the key's meta lock and
 *    gb_store_wlock): a SET, delete, eviction or expiry meanwhile wins and
 *    the copy is dropped. The copy keeps the object's CAS, id, expiry,
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
 * A policy change, `promotion 0` and unload drain the queue. Unload:
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
#define GB_PROMO_RATE_DEFAULT	(16U << 20)

static u32 gb_promo_hits;			/* 0 = off */
static u32 gb_promo_rate = GB_PROMO_RATE_DEFAULT;	/* bytes/s */
static DEFINE_SPINLOCK(gb_promo_lock);		/* queue, length */
static LIST_HEAD(gb_promo_queue);
static unsigned int gb_promo_len;
static u64 gb_promo_bytes;			/* value bytes queued */
static struct delayed_work gb_promo_dwork;
static u64 gb_promo_next_ns;	/* pacing: no promotion before (ktime ns) */
static atomic_long_t gb_promo_node_in[MAX_NUMNODES];
static unsigned int gb_promo_dbg_ms;		/* debugfs, one-shot */
static atomic64_t gb_promo_attempts;		/* debugfs: copies begun */

/* The node placement wants @priv's heads on now, -1 for none. */
static int gb_promo_want(const struct gb_obj_priv *priv)
{
	struct gb_store_numa nc;

	gb_store_get_numa(&nc);
	switch (nc.policy) {
	case GOBLIN_NUMA_BIND:
		return nc.node < MAX_NUMNODES &&
		       node_state(nc.node, N_MEMORY) ? (int)nc.node : -1;
	case GOBLIN_NUMA_INTERLEAVE:
		return -1;
	default:
		return priv->want;
	}
}

/*
 * Free memory on @node for @nr more pages and a block besides: evicting
 * to promote only helps when the node can then take the pages.
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
	return free > need;
}

/**
 * gb_store_promote_note - count a read of @obj for promotion
 * @obj: referenced object
 *
 * Queues @obj when it has been read often enough and its heads are not on
 * the node placement wants. Any context; never sleeps, never waits for
 * the promotion.
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
	want = gb_promo_want(priv);
	if (want < 0 || want == priv->nid - 1)
		return;
	if (time_before(jiffies, READ_ONCE(priv->pnext)))
		return;
	if (test_and_set_bit(GB_PROMO_QUEUED, &priv->pflags))
		return;
	spin_lock_irqsave(&gb_promo_lock, flags);
	if (gb_promo_len >= GB_PROMO_QUEUE_MAX ||
	    (gb_promo_len && gb_promo_bytes + obj->len > GB_PROMO_QUEUE_BYTES) ||
	    !READ_ONCE(gb_store_running) || !READ_ONCE(priv->linked)) {
		spin_unlock_irqrestore(&gb_promo_lock, flags);
		clear_bit(GB_PROMO_QUEUED, &priv->pflags);
		return;
	}
	/* the caller's reference keeps @obj alive until this one is taken */
	refcount_inc(&obj->ref);
	list_add_tail(&priv->pnode, &gb_promo_queue);
	gb_promo_len++;
	gb_promo_bytes += obj->len;
	/* under the lock: unload cancels the work after it saw the flag */
	queue_delayed_work(system_unbound_wq, &gb_promo_dwork, 0);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
}

/* Give back the queue's reference to @priv's object. */
static void gb_promo_release(struct gb_obj_priv *priv)
{
	struct gb_obj *obj = priv->obj;

	clear_bit(GB_PROMO_QUEUED, &priv->pflags);
	gb_obj_put(obj);
}

/* Empty the queue (policy change, promotion off, unload). Process context. */
static void gb_promo_drain(void)
{
	struct gb_obj_priv *priv, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&gb_promo_lock, flags);
	list_splice_init(&gb_promo_queue, &list);
	gb_promo_len = 0;
	gb_promo_bytes = 0;
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	list_for_each_entry_safe(priv, tmp, &list, pnode) {
		list_del_init(&priv->pnode);
		gb_promo_release(priv);
	}
}

/*
 * Give back the queued objects that left the index (replaced, deleted,
 * evicted, expired): while the worker waits for the rate, they would keep
 * their memory. Process context.
 */
static void gb_promo_prune(void)
{
	struct gb_obj_priv *priv, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&gb_promo_lock, flags);
	list_for_each_entry_safe(priv, tmp, &gb_promo_queue, pnode) {
		if (READ_ONCE(priv->linked))
			continue;
		list_move_tail(&priv->pnode, &list);
		gb_promo_len--;
		gb_promo_bytes -= priv->obj->len;
	}
	spin_unlock_irqrestore(&gb_promo_lock, flags);
	list_for_each_entry_safe(priv, tmp, &list, pnode) {
		list_del_init(&priv->pnode);
		gb_promo_release(priv);
	}
}

/**
 * gb_store_promote_kick - a queued object left the index
 *
 * Runs the worker now, which gives such objects back at once even while
 * it waits for the rate. Any context (gb_store_unlink(), under
 * gb_store_wlock).
 */
void gb_store_promote_kick(void)
{
	unsigned long flags;

	spin_lock_irqsave(&gb_promo_lock, flags);
	if (gb_promo_len && READ_ONCE(gb_store_running))
		mod_delayed_work(system_unbound_wq, &gb_promo_dwork, 0);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
}

/* A promotion of @priv's object failed: back off before the next one. */
static void gb_promo_backoff(struct gb_obj_priv *priv)
{
	u32 shift = min_t(u32, priv->pfails, GB_PROMO_BACKOFF_SHIFT);

	priv->pfails++;
	WRITE_ONCE(priv->pnext,
		   jiffies + ((unsigned long)GB_PROMO_BACKOFF * HZ << shift));
	gb_stat_inc(GB_ST_PROMOTION_FAILURES);
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
	if (want < 0 || want == priv->nid - 1)
		return 0;
	atomic64_inc(&gb_promo_attempts);
	copy = gb_obj_alloc_promo(obj, want, gb_promo_room);
	if (IS_ERR(copy))
		return PTR_ERR(copy);
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
		next = READ_ONCE(gb_promo_next_ns);
		if (now < next && READ_ONCE(priv->linked)) {
			/* paced: come back when the rate allows the next one */
			spin_unlock_irqrestore(&gb_promo_lock, flags);
			gb_promo_prune();
			spin_lock_irqsave(&gb_promo_lock, flags);
			if (gb_promo_len && READ_ONCE(gb_store_running))
				queue_delayed_work(system_unbound_wq, &gb_promo_dwork,
						   nsecs_to_jiffies(next - now) + 1);
			spin_unlock_irqrestore(&gb_promo_lock, flags);
			return;
		}
		list_del_init(&priv->pnode);
		gb_promo_len--;
		gb_promo_bytes -= priv->obj->len;
		spin_unlock_irqrestore(&gb_promo_lock, flags);

		moved = READ_ONCE(gb_promo_hits) ? gb_promo_one(priv->obj) : 0;
		if (moved < 0) {
			gb_promo_backoff(priv);
		} else if (moved > 0) {
			gb_stat_inc(GB_ST_PROMOTIONS);
			gb_stat_add(GB_ST_PROMOTED_BYTES, moved);
			next = max(READ_ONCE(gb_promo_next_ns), now) +
				div_u64((u64)moved * NSEC_PER_SEC,
					max(READ_ONCE(gb_promo_rate), 1U));
			WRITE_ONCE(gb_promo_next_ns, next);
		}
		gb_promo_release(priv);
		cond_resched();
	}
	spin_lock_irqsave(&gb_promo_lock, flags);
	if (gb_promo_len && READ_ONCE(gb_store_running))
		queue_delayed_work(system_unbound_wq, &gb_promo_dwork, 0);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
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
	if (rate == READ_ONCE(gb_promo_rate))
		return;
	/* a new rate paces from now on, not from what the old one left */
	WRITE_ONCE(gb_promo_rate, rate);
	WRITE_ONCE(gb_promo_next_ns, 0);
	spin_lock_irqsave(&gb_promo_lock, flags);
	if (gb_promo_len && READ_ONCE(gb_store_running))
		mod_delayed_work(system_unbound_wq, &gb_promo_dwork, 0);
	spin_unlock_irqrestore(&gb_promo_lock, flags);
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
	gb_promo_dbg_ms = 0;
	atomic64_set(&gb_promo_attempts, 0);
	for (i = 0; i < MAX_NUMNODES; i++)
		atomic_long_set(&gb_promo_node_in[i], 0);
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
	cancel_delayed_work_sync(&gb_promo_dwork);
	gb_promo_drain();
}
