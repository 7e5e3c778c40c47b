// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, the index: lookups, commits, deletes, arithmetic,
 * unlinking and the walk.
 *
 * Index: an rhashtable keyed by the key bytes. Lookups run under RCU only
 * and take a reference with refcount_inc_not_zero(). The rhashtable locks
 * its own buckets; what must not interleave on one key (look up the old
 * object, decide, replace or unlink it) is serialised by the key's shard
 * lock (struct gb_shard, GB_STORE_SHARDS of them, picked by a hash of the
 * key), a mutex, so all mutating entry points must be called from process
 * context. SETs of keys in different shards run in parallel. Lookups
 * (gb_store_get, gb_store_get_touch), gb_obj_put() and the read helpers on
 * a referenced object may run anywhere gb_obj_put() may (any context);
 * gb_obj_get_page() and gb_obj_read() sleep for tail bytes.
 *
 * Every linked object is also in an xarray indexed by a 64-bit id that
 * grows with every commit; netlink dumps walk it with "next id" as the
 * cursor, so an unchanged store is dumped exactly once in id order.
 *
 * Locks of the store, outermost first (a lock may only be taken while
 * holding locks above it in this list, never one below):
 *
 *  gb_dbg_mutex (debugfs.c)     the test hook's commands; held across
 *                               SETs (stress), flushes and stats reads.
 *  gb_cfg_mutex (config.c)      configuration changes. Process context.
 *  gb_flush_mutex (evict.c)     flush_all now vs the delayed flush work.
 *  gb_rmw_locks[] (meta lock)   read-modify-write commands and the memcache
 *                               meta state of one key (see gb_rmw_lock()).
 *                               Mutex, process context. Never two at once.
 *  gb_store_flush_sem           read: md I changing a linked object's cas
 *                               in place; write: flush_all setting
 *                               gb_store_flush_cas. Never on the SET path.
 *  gb_shard.lock                the shard's keys: their index entries
 *                               (rhashtable insert/replace/remove, id
 *                               xarray slot), priv->linked, and the shard's
 *                               CLOCK list (lru, cstamp, head_stamp, nr).
 *                               Mutex, process context. NEVER two shard
 *                               locks at once (they share a lockdep class,
 *                               lockdep reports a second one), and no
 *                               eviction (gb_store_evict(), hence no object
 *                               allocation) under one: the hand takes the
 *                               victims' shard locks itself.
 *  leaf locks                   the rhashtable's bucket locks, xa_lock of
 *                               gb_store_ids, gb_promo_lock (spin, irqsave;
 *                               gb_store_promote_unqueue()).
 *  pool locks (pool.c)          spin, irqsave; taken by the last put of
 *                               an object (gb_store_put_list(), after the
 *                               shard lock) and by gb_pool_victims(),
 *                               whose callback gb_obj_grab() only takes a
 *                               reference: no store lock under them.
 *
 * Under a shard lock no object is freed: gb_store_unlink() moves the
 * index's reference onto the caller's list (priv->lru, unused once
 * unlinked) and the caller drops them with gb_store_put_list() after the
 * unlock, so head pages go back to the pool (its locks) and tail files to
 * their workqueue outside it. Two puts do happen under a shard lock, and
 * neither can be the last: gb_store_promote_link() drops the index's
 * reference to the replaced object while its caller still holds one, and
 * an unlink's gb_store_promote_unqueue() drops the promotion queue's
 * while the index's is on the put list. The counters of items and bytes are per-CPU
 * gauges (GB_ST_CURR_ITEMS, GB_ST_CURR_BYTES); ids, CAS values and CLOCK
 * stamps come from atomic64 sequences.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "store_int.h"

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

const struct rhashtable_params gb_store_ht_params = {
	.head_offset = offsetof(struct gb_obj, node),
	.hashfn = gb_key_hash,
	.obj_hashfn = gb_obj_hash,
	.obj_cmpfn = gb_obj_cmp,
	.automatic_shrinking = true,
};

struct rhashtable gb_store_ht;
struct gb_shard gb_store_shards[GB_STORE_SHARDS];
DECLARE_RWSEM(gb_store_flush_sem);
atomic64_t gb_store_clock_seq;
DEFINE_XARRAY(gb_store_ids);
atomic64_t gb_store_next_id;
atomic64_t gb_store_cas_seq;
static atomic_t gb_gen;
atomic64_t gb_store_head_bytes, gb_store_tail_bytes;

/* Not the seed of gb_rmw_lock(): a key's two stripes are independent. */
#define GB_SHARD_SEED	0x9e3779b9

u32 gb_store_shard_of(const char *key, size_t klen)
{
	return jhash(key, klen, GB_SHARD_SEED) & (GB_STORE_SHARDS - 1);
}

void gb_store_shards_init(void)
{
	int i;

	for (i = 0; i < GB_STORE_SHARDS; i++) {
		struct gb_shard *sh = &gb_store_shards[i];

		mutex_init(&sh->lock);
		INIT_LIST_HEAD(&sh->clock);
		sh->head_stamp = U64_MAX;
		sh->nr = 0;
	}
	atomic64_set(&gb_store_clock_seq, 0);
	atomic64_set(&gb_store_next_id, 0);
}

/* Publish the stamp of @sh's first CLOCK entry; caller holds @sh->lock. */
void gb_shard_sync_head(struct gb_shard *sh)
{
	struct gb_obj_priv *first;

	lockdep_assert_held(&sh->lock);
	first = list_first_entry_or_null(&sh->clock, struct gb_obj_priv, lru);
	WRITE_ONCE(sh->head_stamp, first ? first->cstamp : U64_MAX);
}

/*
 * Put @priv at the tail of @sh's CLOCK list (it is on it, or @lru is
 * empty) with a fresh stamp. Stamps are taken under the shard lock, so a
 * shard's list is in stamp order and the eviction hand can merge the
 * shards' lists into one global CLOCK order. Caller holds @sh->lock and
 * calls gb_shard_sync_head() when done.
 */
void gb_shard_clock_tail(struct gb_shard *sh, struct gb_obj_priv *priv)
{
	lockdep_assert_held(&sh->lock);
	priv->cstamp = atomic64_inc_return(&gb_store_clock_seq);
	list_move_tail(&priv->lru, &sh->clock);
}

/*
 * Linked objects now (sum of the per-CPU gauge): for the stats. Unlocked
 * and summed over every possible CPU, it can read transiently wrong while
 * a task migrates between the -1 and the +1 of a replace.
 */
u64 gb_store_curr_items(void)
{
	s64 n = (s64)gb_stat_sum(GB_ST_CURR_ITEMS);

	return n > 0 ? n : 0;
}

/*
 * Linked objects now, from the shards' counts (updated under each shard
 * lock, so a replace never shows as a missing object): cheap (64 reads,
 * no per-CPU sum), for the eviction hand's scan bound and for "is anything
 * stored". Unlocked, so only a snapshot: SETs may link objects meanwhile.
 */
u64 gb_store_shard_items(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < GB_STORE_SHARDS; i++)
		n += READ_ONCE(gb_store_shards[i].nr);
	return n;
}

/* Drop the references gb_store_unlink() queued on @put (no lock held). */
void gb_store_put_list(struct list_head *put)
{
	struct gb_obj_priv *priv, *tmp;

	list_for_each_entry_safe(priv, tmp, put, lru) {
		list_del_init(&priv->lru);
		gb_obj_put(priv->obj);
	}
}

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
	s64 fw = READ_ONCE(gb_store_flush_when);

	if (READ_ONCE(obj->cas) <= (u64)atomic64_read(&gb_store_flush_cas))
		return true;
	return fw && now >= fw && obj->priv->stime < fw;
}

bool gb_obj_dead(const struct gb_obj *obj, s64 now)
{
	return gb_obj_expired(obj, now) || gb_obj_flushed(obj, now);
}

bool gb_store_key_valid(const char *key, size_t klen)
{
	size_t i;

	if (!klen || klen > GB_KEY_MAX)
		return false;
	for (i = 0; i < klen; i++)
		if ((u8)key[i] <= ' ' || key[i] == 0x7f)
			return false;
	return true;
}

/*
 * Remove a linked object from the index; caller holds its shard lock. The
 * index's reference goes onto @put, for gb_store_put_list() after the
 * unlock: the last reference frees pages and tail outside the lock.
 */
void gb_store_unlink(struct gb_obj *obj, bool from_ht, struct list_head *put)
{
	struct gb_obj_priv *priv = obj->priv;
	struct gb_shard *sh = gb_obj_shard(obj);

	lockdep_assert_held(&sh->lock);
	if (!priv->linked)
		return;
	if (from_ht)
		rhashtable_remove_fast(&gb_store_ht, &obj->node, gb_store_ht_params);
	list_move_tail(&priv->lru, put);
	WRITE_ONCE(sh->nr, sh->nr - 1);
	gb_shard_sync_head(sh);
	xa_erase(&gb_store_ids, priv->id);
	priv->linked = false;
	gb_stat_add(GB_ST_CURR_ITEMS, -1);
	gb_stat_add(GB_ST_CURR_BYTES, -obj->len);
	atomic_inc(&gb_gen);
	/*
	 * The promotion queue gives it back now, not when its turn comes.
	 * The barrier orders the store to @linked before the bit is read:
	 * gb_store_promote_note() sets the bit, then reads @linked.
	 */
	smp_mb();
	if (test_bit(GB_PROMO_QUEUED, &priv->pflags))
		gb_store_promote_unqueue(obj);
}

/* Unlink a dead object and count why; caller holds its shard lock. */
void gb_store_unlink_dead(struct gb_obj *obj, s64 now, struct list_head *put)
{
	if (gb_obj_expired(obj, now) && !obj->priv->fetched)
		gb_stat_inc(GB_ST_EXPIRED_UNFETCHED);
	gb_stat_inc(GB_ST_RECLAIMED);
	gb_store_unlink(obj, true, put);
}

/*
 * A lookup found @obj dead: have the worker unlink it (lookups may run in
 * atomic context). Takes over the caller's reference. Each object is on
 * the list at most once, so the list is bounded by the index. Any context.
 */
static void gb_reap_later(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;

	if (!READ_ONCE(gb_store_running) || atomic_xchg(&priv->reaping, 1)) {
		gb_obj_put(obj);
		return;
	}
	llist_add(&priv->reap_node, &gb_store_reap_list);
	queue_work(gb_store_wq, &gb_store_reap_work);
}

void gb_store_reap(void)
{
	struct llist_node *list = llist_del_all(&gb_store_reap_list);
	struct gb_obj_priv *priv, *tmp;
	s64 now = gb_now();
	LIST_HEAD(put);

	if (!list)
		return;
	/*
	 * A reap is no eviction: it is counted as reclaimed, and it neither
	 * kicks nor feeds the background reclaimer.
	 */
	llist_for_each_entry(priv, list, reap_node) {
		struct gb_shard *sh = gb_obj_shard(priv->obj);

		mutex_lock(&sh->lock);
		if (priv->linked && gb_obj_dead(priv->obj, now))
			gb_store_unlink_dead(priv->obj, now, &put);
		mutex_unlock(&sh->lock);
		gb_store_put_list(&put);
		cond_resched();
	}
	/* Our references keep every entry alive until here. */
	llist_for_each_entry_safe(priv, tmp, list, reap_node) {
		atomic_set(&priv->reaping, 0);
		gb_obj_put(priv->obj);
	}
}

void gb_store_reap_work_fn(struct work_struct *work)
{
	gb_store_reap();
}

/* ---------------------------------------------------------------------- */
/* Lookups                                                                */

/*
 * A read of @obj: the CLOCK bit, and memcached's access state (mg h, l):
 * the first read marks the object fetched, later ones set the access time
 * (memcached's segmented LRU leaves the time alone on the first hit).
 */
static void gb_obj_bump(struct gb_obj *obj)
{
	struct gb_obj_priv *priv = obj->priv;

	if (!READ_ONCE(priv->visited))
		WRITE_ONCE(priv->visited, true);
	gb_store_promote_note(obj);
	if (!READ_ONCE(priv->fetched)) {
		WRITE_ONCE(priv->fetched, true);
		return;
	}
	if (READ_ONCE(priv->atime) != gb_now())
		WRITE_ONCE(priv->atime, gb_now());
}

#define GB_LOOKUP_RETRIES	64

atomic64_t gb_store_lookup_gaveup;	/* debugfs lookup_gaveup */
atomic64_t gb_store_lookup_retries;	/* debugfs lookup_retries */
static atomic_t gb_lookup_race_ms;

/**
 * gb_store_lookup_dbg_race - test hook (debugfs "delay lookup MS")
 * @ms: at most that long (0: disarm)
 *
 * The next lookup that finds an object in the table waits, between
 * finding it and taking its reference, until the object's last reference
 * is gone (a concurrent SET replaced the key) or @ms have passed: what a
 * reader preempted at that point sees. The wait is a busy one (the
 * lookup is in an RCU read-side section, and may be in atomic context).
 * One shot.
 *
 * Return: the ms armed before (0: it has fired, or was not armed).
 */
unsigned int gb_store_lookup_dbg_race(unsigned int ms)
{
	return atomic_xchg(&gb_lookup_race_ms, ms);
}

static void gb_lookup_race(struct gb_obj *obj)
{
	int ms = atomic_xchg(&gb_lookup_race_ms, 0);

	while (ms-- > 0 && refcount_read(&obj->ref))
		mdelay(1);
}

/* Referenced live object or NULL; @why is set to the GET counter to bump. */
static struct gb_obj *gb_lookup(const char *key, size_t klen, int *why)
{
	struct gb_key k = { .key = key, .klen = klen };
	struct gb_obj *obj;
	int tries = 0;
	s64 now;

	*why = GB_ST_GET_MISSES;
	if (!gb_store_key_valid(key, klen))
		return NULL;
	rcu_read_lock();
	/*
	 * An object whose last reference is gone was replaced or unlinked
	 * before that (the index drops its reference after the unlink): look
	 * again, the key's new object (if any) is in the table by now.
	 * Missing instead would make a GET that races a SET of its key find
	 * neither value. Each retry means a mutation of the key completed;
	 * bounded anyway, since we may be in atomic context.
	 */
	for (;;) {
		obj = rhashtable_lookup(&gb_store_ht, &k, gb_store_ht_params);
		if (unlikely(atomic_read(&gb_lookup_race_ms)) && obj)
			gb_lookup_race(obj);
		if (!obj || refcount_inc_not_zero(&obj->ref))
			break;
		atomic64_inc(&gb_store_lookup_retries);
		if (++tries >= GB_LOOKUP_RETRIES) {
			/*
			 * Practically unreachable (each retry needs a whole
			 * SET and put of the key within our RCU section),
			 * but a miss for a key that has a value: count it.
			 */
			atomic64_inc(&gb_store_lookup_gaveup);
			pr_warn_once("lookup gave up after %d retries\n",
				     GB_LOOKUP_RETRIES);
			obj = NULL;
			break;
		}
		/* the unlink before the final put (its release) */
		smp_rmb();
	}
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
	gb_obj_bump(obj);
	gb_stat_inc(GB_ST_GET_HITS);
	return obj;
}

struct gb_obj *gb_store_peek(const char *key, size_t klen)
{
	int why;

	return gb_lookup(key, klen, &why);
}

s64 gb_obj_mtime(const struct gb_obj *obj)
{
	return obj->priv->stime;
}

struct gb_obj *gb_store_get_meta(const char *key, size_t klen, bool bump,
				 bool touch, struct gb_obj_access *before)
{
	struct gb_obj *obj;
	int why;

	if (touch)
		gb_stat_inc(GB_ST_CMD_TOUCH);
	obj = gb_lookup(key, klen, &why);
	if (!obj) {
		gb_stat_inc(GB_ST_GET_MISSES);
		if (why != GB_ST_GET_MISSES)
			gb_stat_inc(why);
		if (touch)
			gb_stat_inc(GB_ST_TOUCH_MISSES);
		return NULL;
	}
	before->fetched = READ_ONCE(obj->priv->fetched);
	before->atime = READ_ONCE(obj->priv->atime);
	if (bump)
		gb_obj_bump(obj);
	gb_stat_inc(GB_ST_GET_HITS);
	if (touch)
		gb_stat_inc(GB_ST_TOUCH_HITS);
	return obj;
}

void gb_obj_mark_read(struct gb_obj *obj)
{
	gb_obj_bump(obj);
}

void gb_obj_set_exptime(struct gb_obj *obj, s64 exptime)
{
	WRITE_ONCE(obj->exptime, exptime);
}

bool gb_obj_stale(const struct gb_obj *obj)
{
	return test_bit(GB_OBJ_STALE, &obj->priv->mstate);
}

bool gb_obj_win_sent(const struct gb_obj *obj)
{
	return test_bit(GB_OBJ_WON, &obj->priv->mstate);
}

bool gb_obj_claim_win(struct gb_obj *obj)
{
	return !test_and_set_bit(GB_OBJ_WON, &obj->priv->mstate);
}

void gb_obj_preset_win(struct gb_obj *obj)
{
	set_bit(GB_OBJ_WON, &obj->priv->mstate);
}

/* gat, gats: under the key's RMW lock (see gb_store_meta_lock()). */
struct gb_obj *gb_store_get_touch(const char *key, size_t klen, s64 exptime)
{
	struct gb_obj *obj;

	gb_stat_inc(GB_ST_CMD_TOUCH);
	if (!gb_store_key_valid(key, klen)) {
		gb_stat_inc(GB_ST_GET_MISSES);
		gb_stat_inc(GB_ST_TOUCH_MISSES);
		return NULL;
	}
	gb_store_meta_lock(key, klen);
	obj = gb_store_get(key, klen);
	if (obj)
		WRITE_ONCE(obj->exptime, gb_exptime_abs(exptime));
	gb_store_meta_unlock(key, klen);
	gb_stat_inc(obj ? GB_ST_TOUCH_HITS : GB_ST_TOUCH_MISSES);
	return obj;
}

int gb_store_touch(const char *key, size_t klen, s64 exptime)
{
	struct gb_obj *obj;
	s64 abs;
	int why;

	gb_stat_inc(GB_ST_CMD_TOUCH);
	if (!gb_store_key_valid(key, klen)) {
		gb_stat_inc(GB_ST_TOUCH_MISSES);
		return GB_NOT_FOUND;
	}
	/* under the key's RMW lock (see gb_store_meta_lock()) */
	gb_store_meta_lock(key, klen);
	obj = gb_lookup(key, klen, &why);
	if (!obj) {
		gb_store_meta_unlock(key, klen);
		gb_stat_inc(GB_ST_TOUCH_MISSES);
		return GB_NOT_FOUND;
	}
	abs = gb_exptime_abs(exptime);
	WRITE_ONCE(obj->exptime, abs);
	gb_store_meta_unlock(key, klen);
	gb_obj_bump(obj);
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

/*
 * Live linked object for @key, or NULL; caller holds the key's shard lock
 * (@sh). A dead one found there is unlinked, its reference put on @put.
 */
static struct gb_obj *gb_find_locked(struct gb_shard *sh, const char *key,
				     size_t klen, s64 now,
				     struct list_head *put)
{
	struct gb_key k = { .key = key, .klen = klen };
	struct gb_obj *old;

	lockdep_assert_held(&sh->lock);
	old = rhashtable_lookup_fast(&gb_store_ht, &k, gb_store_ht_params);
	if (old && gb_obj_dead(old, now)) {
		gb_store_unlink_dead(old, now, put);
		old = NULL;
	}
	return old;
}

/*
 * Link @obj (taking over the caller's reference), replacing @old, whose
 * reference goes onto @put. Caller holds the key's shard lock.
 */
static int gb_link_locked(struct gb_obj *obj, struct gb_obj *old, s64 now,
			  struct list_head *put)
{
	struct gb_obj_priv *priv = obj->priv;
	struct gb_shard *sh = gb_obj_shard(obj);
	int err;

	lockdep_assert_held(&sh->lock);

	obj->cas = atomic64_inc_return(&gb_store_cas_seq);
	priv->stime = now;
	/* arith keeps the old object's, set before it commits */
	if (!priv->atime)
		priv->atime = now;
	priv->id = atomic64_inc_return(&gb_store_next_id);
	err = xa_err(xa_store(&gb_store_ids, priv->id, obj, GFP_KERNEL));
	if (err)
		return err;
	if (old) {
		err = rhashtable_replace_fast(&gb_store_ht, &old->node, &obj->node,
					      gb_store_ht_params);
		if (!err)
			gb_store_unlink(old, false, put);
	} else {
		err = rhashtable_insert_fast(&gb_store_ht, &obj->node, gb_store_ht_params);
	}
	if (err) {
		xa_erase(&gb_store_ids, priv->id);
		return err;
	}
	priv->linked = true;
	gb_shard_clock_tail(sh, priv);
	WRITE_ONCE(sh->nr, sh->nr + 1);
	gb_shard_sync_head(sh);
	gb_stat_add(GB_ST_CURR_ITEMS, 1);
	gb_stat_add(GB_ST_CURR_BYTES, obj->len);
	atomic_inc(&gb_gen);
	gb_stat_inc(GB_ST_TOTAL_ITEMS);
	return 0;
}

/**
 * gb_store_promote_link - publish a promotion copy in place of @old
 * @obj: unpublished copy of @old (gb_obj_alloc_promo()); the caller's
 *       reference is consumed
 * @old: referenced object the copy was made of
 *
 * Only while the key still maps to @old: a SET, delete, eviction or
 * expiry since the copy was made wins and the copy is dropped. The meta
 * state that changes in place (exptime, CAS, stale and win bits) changes
 * under the key's meta lock or its shard lock: both are held while it is
 * copied and the copy swapped in, so nothing done to @old is lost. (The
 * debugfs crcflip hook changes the CRC without either lock; a flip racing
 * a promotion may be lost, which only a test that flips during one sees.) The
 * copy takes @old's id, CAS, commit time and place on the CLOCK list: a
 * dump reports the key once, a gets/cas pair across the promotion still
 * matches, and the counters of items and bytes do not change. @old is
 * unlinked like a replaced object: its pages stay until its last reader
 * is gone. Process context, no store lock held.
 *
 * Return: 0 when published, -EAGAIN when @old was no longer the key's
 * object, or -errno.
 */
int gb_store_promote_link(struct gb_obj *obj, struct gb_obj *old)
{
	struct gb_key k = { .key = old->key, .klen = old->klen };
	struct gb_obj_priv *priv = obj->priv, *opriv = old->priv;
	struct gb_shard *sh = gb_obj_shard(old);
	int err = -EAGAIN;

	gb_store_meta_lock(old->key, old->klen);
	mutex_lock(&sh->lock);
	if (!opriv->linked || gb_obj_dead(old, gb_now()) ||
	    rhashtable_lookup_fast(&gb_store_ht, &k, gb_store_ht_params) != old)
		goto out;
	obj->exptime = READ_ONCE(old->exptime);
	obj->cas = READ_ONCE(old->cas);
	obj->crc = READ_ONCE(old->crc);
	priv->stime = opriv->stime;
	priv->atime = READ_ONCE(opriv->atime);
	priv->fetched = READ_ONCE(opriv->fetched);
	priv->visited = READ_ONCE(opriv->visited);
	priv->mstate = READ_ONCE(opriv->mstate);
	priv->id = opriv->id;
	/* the slot exists: replacing its entry allocates nothing */
	err = xa_err(xa_store(&gb_store_ids, priv->id, obj, GFP_KERNEL));
	if (err)
		goto out;
	err = rhashtable_replace_fast(&gb_store_ht, &old->node, &obj->node,
				      gb_store_ht_params);
	if (err) {
		xa_store(&gb_store_ids, priv->id, old, GFP_KERNEL);
		goto out;
	}
	/* same key, same shard: the copy takes @old's CLOCK place and stamp */
	priv->cstamp = opriv->cstamp;
	list_replace_init(&opriv->lru, &priv->lru);
	priv->linked = true;
	opriv->linked = false;
	atomic_inc(&gb_gen);
	/*
	 * The index's reference to @old; @obj's is the index's now. Not the
	 * last one: our caller holds @old (see the comment at the top).
	 */
	WARN_ON_ONCE(refcount_read(&old->ref) == 1);
	gb_obj_put(old);
	obj = NULL;
out:
	mutex_unlock(&sh->lock);
	gb_store_meta_unlock(old->key, old->klen);
	gb_obj_put(obj);
	return err;
}

/*
 * The SET mode's verdict on publishing @obj over @old (the live object of
 * its key, or NULL): GB_STORED, GB_NOT_STORED, GB_NOT_FOUND or GB_EXISTS.
 * No side effect but on @obj (a stale CAS takes @old's TTL and win token),
 * so it may run again on a later pass. Caller holds the key's shard lock.
 */
static int gb_commit_verdict(struct gb_obj *obj, struct gb_obj *old,
			     enum gb_store_mode mode, u64 cas)
{
	switch (mode) {
	case GB_MODE_SET:
		return GB_STORED;
	case GB_MODE_ADD:
		return old ? GB_NOT_STORED : GB_STORED;
	case GB_MODE_REPLACE:
		return old ? GB_STORED : GB_NOT_STORED;
	case GB_MODE_CAS:
	case GB_MODE_CAS_STALE:
		if (!old)
			return GB_NOT_FOUND;
		if (old->cas == cas)
			return GB_STORED;	/* a match stores a fresh object */
		if (mode == GB_MODE_CAS_STALE && cas && cas < old->cas) {
			/* memcached: stale, with the old TTL and win token */
			obj->exptime = READ_ONCE(old->exptime);
			set_bit(GB_OBJ_STALE, &obj->priv->mstate);
			/*
			 * assign, not set: a later pass may see another old
			 * object (a plain set replaced it during the CRC
			 * pass), whose token must not be claimed as sent
			 */
			assign_bit(GB_OBJ_WON, &obj->priv->mstate,
				   test_bit(GB_OBJ_WON, &old->priv->mstate));
			return GB_STORED;
		}
		return GB_EXISTS;
	default:
		return -EINVAL;
	}
}

static int gb_store_seal(struct gb_obj *obj, enum gb_store_mode mode);

/*
 * Publish @obj under @mode. @seal: compute its CRC first (gb_obj_seal()),
 * but only once the mode lets it be published: a failing ADD, REPLACE or
 * CAS, an already expired value and one whose tail writeback failed pay
 * no CRC pass over the value. The pass reads the whole value and may sleep
 * on its tail, so it runs outside the shard lock, and the verdict is taken
 * again after it (the key may have changed meanwhile). On a seal error the
 * object is dropped (gb_store_seal()) and the error returned.
 *
 * Only the key's shard lock is held while the key is looked at and the
 * object linked; the object it replaces (or a dead one found in its place)
 * is put after the unlock, so its pages and tail are freed outside it.
 */
static int __gb_store_commit(struct gb_obj *obj, enum gb_store_mode mode,
			     u64 cas, bool count, bool seal, u64 *cas_out,
			     bool *replaced)
{
	struct gb_shard *sh = &gb_store_shards[obj->priv->shard];
	bool tail = obj->priv->tail_acct;	/* ours until linked */
	struct gb_obj *old;
	bool lost = false;
	LIST_HEAD(put);
	int res, err;
	s64 now;

	if (seal && !gb_store_get_crc()) {
		/* crc off: nothing to compute (turned on since: later values) */
		obj->has_crc = false;
		seal = false;
	}
again:
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
	now = gb_now();
	mutex_lock(&sh->lock);
	old = gb_find_locked(sh, obj->key, obj->klen, now, &put);
	res = gb_commit_verdict(obj, old, mode, cas);
	if (seal && res == GB_STORED && !lost && obj->exptime >= 0) {
		mutex_unlock(&sh->lock);
		gb_store_put_list(&put);
		seal = false;
		err = gb_store_seal(obj, mode);
		if (err)
			return err;
		goto again;
	}
	if (mode == GB_MODE_ADD && old)
		WRITE_ONCE(old->priv->visited, true);
	if (count && (mode == GB_MODE_CAS || mode == GB_MODE_CAS_STALE))
		gb_stat_inc(res == GB_NOT_FOUND ? GB_ST_CAS_MISSES :
			    res == GB_EXISTS ? GB_ST_CAS_BADVAL :
			    GB_ST_CAS_HITS);
	if (res == GB_STORED) {
		if (obj->exptime < 0 || lost) {
			/*
			 * Already expired: storing it just removes the old
			 * one. Lost: the store fails, and a failed SET leaves
			 * no older value behind (as when it runs out of
			 * memory).
			 */
			if (old && (!lost || mode == GB_MODE_SET))
				gb_store_unlink(old, true, &put);
			list_add(&obj->priv->lru, &put);
			if (lost)
				res = -EIO;
			else if (cas_out)
				/* memcached gives the dead item a cas too (ms c) */
				*cas_out = atomic64_inc_return(&gb_store_cas_seq);
		} else {
			err = gb_link_locked(obj, old, now, &put);
			if (err) {
				res = err;
				list_add(&obj->priv->lru, &put);
			} else {
				/* evictable from now on: no longer in flight */
				gb_space_inflight(obj->priv, false);
				if (cas_out)
					*cas_out = obj->cas;
				if (replaced)
					*replaced = old;
			}
		}
	} else {
		list_add(&obj->priv->lru, &put);
	}
	mutex_unlock(&sh->lock);
	gb_store_put_list(&put);
	/*
	 * Linked, the index's reference is the only one: a SET waiting for
	 * SSD space may evict the tail now (no put told it, the caller's
	 * reference went to the index).
	 */
	if (tail && res == GB_STORED)
		gb_space_note_tail();
	return res;
}

/*
 * Read-modify-write commands (append, prepend, incr, decr) on one key are
 * serialised by a striped mutex: each builds the new value from the old
 * one and swaps it in by CAS, and without the lock 16 clients on one key
 * could make one of them lose the race 16 times in a row (it then failed
 * with EXISTS or SERVER_ERROR, where memcached, which holds the item lock,
 * never fails). Plain SETs are not serialised; the CAS retry covers them.
 * Taken before a shard lock, never under one.
 */
#define GB_RMW_LOCKS	64
static struct mutex gb_rmw_locks[GB_RMW_LOCKS];

void gb_store_rmw_init(void)
{
	int i;

	for (i = 0; i < GB_RMW_LOCKS; i++)
		mutex_init(&gb_rmw_locks[i]);
}

static struct mutex *gb_rmw_lock(const char *key, size_t klen)
{
	return &gb_rmw_locks[jhash(key, klen, 0) % GB_RMW_LOCKS];
}

/*
 * The memcache meta state (exptime, GB_OBJ_STALE, GB_OBJ_WON) of a linked
 * object changes in place; the commands that copy it into a new object
 * (incr/decr/ma, append/prepend, ms C with I) and md I do so under the
 * key's RMW lock from the read of the old object to the link of the new
 * one. mg T/N/R, mg of a stale object and touch/gat change it under the
 * same lock, so no change made on the old object after the copy is lost
 * (a win claimed there would be claimed again on the copy: two winners).
 */
void gb_store_meta_lock(const char *key, size_t klen)
{
	mutex_lock(gb_rmw_lock(key, klen));
}

void gb_store_meta_unlock(const char *key, size_t klen)
{
	mutex_unlock(gb_rmw_lock(key, klen));
}

bool gb_obj_linked(const struct gb_obj *obj)
{
	return READ_ONCE(obj->priv->linked);
}

/*
 * Fill @obj with @old's value and @add's, in that order or (@prepend) the
 * other. If @old has a CRC, its part is checked against it on the way,
 * whatever the store setting crc is now: a stored value whose bytes no
 * longer match its CRC (corrupted in memory or on the SSD) is never
 * re-blessed with a fresh CRC over the bad bytes, nor stripped of the CRC
 * that exposes the damage; the append/prepend fails with -EBADMSG and
 * leaves the old object in place. With crc on, the result gets the CRC of
 * all its bytes as they are copied, in @obj's order, whether or not @old
 * had one (as a result of incr/decr does): an old value stored while crc
 * was off has nothing to check its part against, and that part is vouched
 * for from this copy on. With crc off, the result has none.
 */
static int gb_concat_fill(struct gb_obj *obj, struct gb_obj *old,
			  struct gb_obj *add, bool prepend)
{
	bool check = old->has_crc, seal = gb_store_get_crc();
	u32 run = ~0U, own = ~0U;
	u32 *runp = check || seal ? &run : NULL;
	int res;

	obj->has_crc = false;
	if (prepend) {
		res = gb_obj_copy_crc(obj, 0, add, 0, add->len, runp, NULL);
		if (!res)
			res = gb_obj_copy_crc(obj, add->len, old, 0, old->len,
					      runp, check ? &own : NULL);
	} else {
		res = gb_obj_copy_crc(obj, 0, old, 0, old->len, runp, NULL);
		own = run;
		if (!res)
			res = gb_obj_copy_crc(obj, old->len, add, 0, add->len,
					      runp, NULL);
	}
	if (res)
		return res;
	if (check && ~own != old->crc) {
		pr_warn_ratelimited("%s of a value whose bytes fail its CRC (%08x, stored %08x): refused\n",
				    prepend ? "prepend" : "append", ~own,
				    old->crc);
		return -EBADMSG;
	}
	if (seal) {
		obj->crc = ~run;
		obj->has_crc = true;
	}
	return 0;
}

/*
 * Append/prepend: build old + new (or new + old) and swap it in by CAS.
 * @cas not 0: the old object's CAS must be @cas (memcache ms C).
 *
 * The result's tail never waits for SSD space under the RMW lock (readers
 * of the key's meta state need it): when it does not fit at once, the old
 * object is let go and the lock dropped, the space waited for in turn with
 * the SETs (gb_space_charge()), and the append starts over with the space
 * paid (struct gb_space_pre). It waits once; a result that grew past the
 * space paid meanwhile and does not fit fails with -ENOSPC, and so does,
 * without waiting, one that cannot fit beside the tails of the old value
 * and of the data appended (evicting the old value would fail the append
 * anyway). incr/decr
 * (gb_store_arith()) do the same for a counter padded to a tail's length.
 */
static int gb_store_concat(struct gb_obj *add, bool prepend, u64 cas,
			   u64 *cas_out)
{
	struct mutex *lock = gb_rmw_lock(add->key, add->klen);
	struct gb_space_pre pre = { };
	struct gb_obj *old, *obj;
	int why, res, tries;
	bool waited = false;

	mutex_lock(lock);
	for (tries = 0; tries < 16; tries++) {
		old = gb_lookup(add->key, add->klen, &why);
		if (!old) {
			res = GB_NOT_STORED;
			break;
		}
		if (cas && READ_ONCE(old->cas) != cas) {
			gb_obj_put(old);
			res = GB_EXISTS;
			break;
		}
		if (old->len + add->len > gb_store_item_max()) {
			gb_obj_put(old);
			res = -E2BIG;
			break;
		}
		pre.need = 0;	/* -EAGAIN with it set: wait for space */
		obj = gb_obj_alloc_pre(add->key, add->klen, old->flags,
				       READ_ONCE(old->exptime) ?: 0,
				       old->len + add->len, NUMA_NO_NODE, &pre);
		if (PTR_ERR_OR_ZERO(obj) == -EAGAIN && pre.need && !waited) {
			/* beside old's and add's tails it never fits */
			if (pre.need + old->priv->tail_acct +
			    add->priv->tail_acct > READ_ONCE(gb_store_ssd_max)) {
				gb_obj_put(old);
				res = -ENOSPC;
				break;
			}
			gb_obj_put(old);
			mutex_unlock(lock);
			waited = true;
			res = gb_space_charge(pre.need);
			mutex_lock(lock);
			if (res)
				break;
			pre.paid = pre.need;
			continue;
		}
		if (IS_ERR(obj)) {
			gb_obj_put(old);
			res = PTR_ERR(obj) == -EAGAIN ? -ENOSPC : PTR_ERR(obj);
			break;
		}
		res = gb_concat_fill(obj, old, add, prepend);
		if (res) {
			gb_obj_put(old);
			gb_obj_put(obj);
			break;
		}
		res = __gb_store_commit(obj, GB_MODE_CAS, READ_ONCE(old->cas),
					false, false, cas_out, NULL);
		gb_obj_put(old);
		if (res != GB_EXISTS) {
			if (res == GB_NOT_FOUND)
				res = GB_NOT_STORED;
			break;
		}
	}
	mutex_unlock(lock);
	gb_space_uncharge(pre.paid);	/* what no allocation took */
	gb_obj_put(add);
	return res;
}

/*
 * Compute @obj's CRC before it is published (gb_obj_seal(), from
 * __gb_store_commit() once the mode lets it be published). When that
 * fails (its tail cannot be read back), the object is dropped and, as for
 * a tail lost to a writeback error, a failed SET leaves no older value of
 * the key behind. Consumes the reference on failure. Not under
 * a shard lock.
 */
static int gb_store_seal(struct gb_obj *obj, enum gb_store_mode mode)
{
	int err = gb_obj_seal(obj);

	if (err) {
		if (mode == GB_MODE_SET)
			gb_store_drop(obj->key, obj->klen);
		gb_obj_put(obj);
	}
	return err;
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
	if (mode == GB_MODE_APPEND || mode == GB_MODE_PREPEND)
		cas = 0;
	return gb_store_commit_cas(obj, mode, cas, NULL);
}

int gb_store_commit_cas(struct gb_obj *obj, enum gb_store_mode mode, u64 cas,
			u64 *cas_out)
{
	int res;

	gb_stat_inc(GB_ST_CMD_SET);
	if (mode == GB_MODE_APPEND || mode == GB_MODE_PREPEND)
		return gb_store_concat(obj, mode == GB_MODE_PREPEND, cas,
				       cas_out);
	if (mode != GB_MODE_CAS_STALE)
		return __gb_store_commit(obj, mode, cas, true, true, cas_out,
					 NULL);
	/*
	 * It copies the old object's TTL and win token: see gb_rmw_lock.
	 * The CRC pass (tail I/O) runs before that striped lock, which every
	 * meta command, touch and incr of 1 key in 64 takes: a stale CAS
	 * that then fails has paid for it, a rare case.
	 */
	res = gb_store_seal(obj, mode);
	if (res)
		return res;
	gb_store_meta_lock(obj->key, obj->klen);
	res = __gb_store_commit(obj, mode, cas, true, false, cas_out, NULL);
	gb_store_meta_unlock(obj->key, obj->klen);
	return res;
}

/**
 * gb_store_commit_replaced - gb_store_commit() telling what it replaced
 * @obj:      object from gb_obj_alloc(), fully written
 * @mode:     memcache storage command other than APPEND/PREPEND
 * @cas:      expected CAS unique for GB_MODE_CAS
 * @replaced: if not NULL, set on GB_STORED: a live value was replaced
 *            (under the same lock as the store, so not racy)
 *
 * Return: as gb_store_commit().
 */
int gb_store_commit_replaced(struct gb_obj *obj, enum gb_store_mode mode,
			     u64 cas, bool *replaced)
{
	gb_stat_inc(GB_ST_CMD_SET);
	if (mode == GB_MODE_APPEND || mode == GB_MODE_PREPEND)
		return gb_store_concat(obj, mode == GB_MODE_PREPEND, 0, NULL);
	return __gb_store_commit(obj, mode, cas, true, true, NULL, replaced);
}

static int __gb_store_delete(const char *key, size_t klen, u64 cas)
{
	struct gb_shard *sh = &gb_store_shards[gb_store_shard_of(key, klen)];
	struct gb_obj *old;
	int res = GB_NOT_FOUND;
	LIST_HEAD(put);

	mutex_lock(&sh->lock);
	old = gb_find_locked(sh, key, klen, gb_now(), &put);
	if (old && cas && old->cas != cas) {
		res = GB_EXISTS;
	} else if (old) {
		gb_store_unlink(old, true, &put);
		res = GB_STORED;
	}
	mutex_unlock(&sh->lock);
	gb_store_put_list(&put);
	return res;
}

int gb_store_delete(const char *key, size_t klen, u64 cas)
{
	int res = GB_NOT_FOUND;

	if (gb_store_key_valid(key, klen))
		res = __gb_store_delete(key, klen, cas);
	gb_stat_inc(res == GB_STORED ? GB_ST_DELETE_HITS : GB_ST_DELETE_MISSES);
	return res;
}

/*
 * memcache md I. Under the key's RMW lock too: an incr/decr/ma copying the
 * object's state meanwhile must not swap the stale mark away.
 */
int gb_store_invalidate(const char *key, size_t klen, u64 cas,
			const s64 *exptime)
{
	struct gb_shard *sh;
	struct gb_obj *old;
	int res = GB_NOT_FOUND;
	LIST_HEAD(put);
	s64 now;

	if (!gb_store_key_valid(key, klen))
		return res;
	sh = &gb_store_shards[gb_store_shard_of(key, klen)];
	mutex_lock(gb_rmw_lock(key, klen));
	down_read(&gb_store_flush_sem);
	mutex_lock(&sh->lock);
	old = gb_find_locked(sh, key, klen, gb_now(), &put);
	if (old && cas && old->cas != cas) {
		res = GB_EXISTS;
	} else if (old) {
		/*
		 * In place, under gb_store_flush_sem: gb_flush_now() takes it
		 * for writing, so the new cas is either flushed with the
		 * object or set after a flush that gb_find_locked() has seen
		 * already.
		 */
		if (exptime)
			WRITE_ONCE(old->exptime, *exptime);
		set_bit(GB_OBJ_STALE, &old->priv->mstate);
		clear_bit(GB_OBJ_WON, &old->priv->mstate);
		WRITE_ONCE(old->cas, atomic64_inc_return(&gb_store_cas_seq));
		res = GB_STORED;
		/* T-1 (or any past time): gone now, as touch does it */
		now = gb_now();
		if (gb_obj_dead(old, now))
			gb_store_unlink_dead(old, now, &put);
	}
	mutex_unlock(&sh->lock);
	up_read(&gb_store_flush_sem);
	mutex_unlock(gb_rmw_lock(key, klen));
	gb_store_put_list(&put);
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
	if (gb_store_key_valid(key, klen))
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
 * @cas:     expected CAS unique, 0 = any (meta ma C)
 * @exptime: new expiry (absolute), NULL = keep (meta ma T)
 * @res:     result
 *
 * The counter is parsed like memcached 1.6 (leading whitespace, a number
 * followed by whitespace or the end). The new value is stored as a new
 * object holding its decimal string, padded with spaces to the old length
 * when shorter (memcached rewrites the item in place then, so the access
 * and meta state stay too); flags and exptime are kept unless @exptime
 * says otherwise. incr wraps at 2^64, decr stops at 0.
 *
 * Return: GB_STORED, GB_NOT_FOUND, GB_EXISTS (@cas differs), -EINVAL (not
 * a number) or -errno.
 */
int gb_store_arith(const char *key, size_t klen, bool decr, u64 delta,
		   u64 cas, const s64 *exptime, struct gb_arith_res *res)
{
	struct mutex *lock = gb_rmw_lock(key, klen);
	struct gb_space_pre pre = { };
	struct gb_obj *old, *obj;
	int why, ret = -EAGAIN, tries, n;
	bool waited = false;
	u64 v, len, off;
	char buf[64];
	s64 exp;

	mutex_lock(lock);
	for (tries = 0; tries < 16 && ret == -EAGAIN; tries++) {
		old = gb_lookup(key, klen, &why);
		if (!old) {
			ret = GB_NOT_FOUND;
			break;
		}
		/* memcached's order: too long to be a number, cas, parse */
		if (!old->len ||
		    old->len + klen + GB_ARITH_ITEM_HDR > GB_ARITH_ITEM_MAX)
			ret = -EINVAL;
		else if (cas && READ_ONCE(old->cas) != cas)
			ret = GB_EXISTS;
		else if (gb_obj_crc_check(old) == -EBADMSG)
			ret = -EBADMSG;	/* never re-bless bad bytes, crc on or off */
		else
			ret = gb_parse_counter(old, &v);
		if (ret) {
			gb_obj_put(old);
			break;
		}
		if (decr)
			v = v < delta ? 0 : v - delta;
		else
			v += delta;
		n = snprintf(buf, sizeof(buf), "%llu", v);
		len = max_t(u64, n, old->len);
		res->old_exp = READ_ONCE(old->exptime);
		exp = exptime ? *exptime : res->old_exp;
		/* a padded counter may need a tail: wait as append does */
		pre.need = 0;	/* -EAGAIN with it set: wait for space */
		obj = gb_obj_alloc_pre(key, klen, old->flags, 0, len,
				       NUMA_NO_NODE, &pre);
		if (PTR_ERR_OR_ZERO(obj) == -EAGAIN && pre.need && !waited) {
			/* beside old's tail it never fits */
			if (pre.need + old->priv->tail_acct >
			    READ_ONCE(gb_store_ssd_max)) {
				gb_obj_put(old);
				ret = -ENOSPC;
				break;
			}
			gb_obj_put(old);
			mutex_unlock(lock);
			waited = true;
			ret = gb_space_charge(pre.need);
			mutex_lock(lock);
			if (ret)
				break;
			pre.paid = pre.need;
			ret = -EAGAIN;	/* start over */
			continue;
		}
		if (IS_ERR(obj)) {
			gb_obj_put(old);
			ret = PTR_ERR(obj) == -EAGAIN ? -ENOSPC : PTR_ERR(obj);
			break;
		}
		/* absolute already: gb_obj_alloc() takes memcache exptimes */
		obj->exptime = exp;
		if (len == old->len) {
			/* memcached's in-place rewrite keeps the item's state */
			obj->priv->fetched = READ_ONCE(old->priv->fetched);
			obj->priv->atime = READ_ONCE(old->priv->atime);
			obj->priv->mstate = READ_ONCE(old->priv->mstate);
		}
		ret = gb_obj_write(obj, 0, buf, n);
		memset(buf, ' ', sizeof(buf));
		for (off = n; !ret && off < len; off += sizeof(buf))
			ret = gb_obj_write(obj, off, buf,
					   min_t(u64, sizeof(buf), len - off));
		if (ret) {
			gb_obj_put(obj);
			gb_obj_put(old);
			break;
		}
		/* sealed there: the result gets the CRC of its full bytes */
		refcount_inc(&obj->ref);
		ret = __gb_store_commit(obj, GB_MODE_CAS, READ_ONCE(old->cas),
					false, true, NULL, NULL);
		gb_obj_put(old);
		if (ret == GB_STORED) {
			res->value = v;
			res->cas = READ_ONCE(obj->cas);
			res->exp = exp;
		} else if (ret == GB_EXISTS) {
			ret = -EAGAIN;
		}
		gb_obj_put(obj);
	}
	mutex_unlock(lock);
	gb_space_uncharge(pre.paid);	/* what no allocation took */
	if (ret == -EAGAIN)
		ret = -EBUSY;
	if (decr)
		gb_stat_inc(ret == GB_STORED ? GB_ST_DECR_HITS : GB_ST_DECR_MISSES);
	else
		gb_stat_inc(ret == GB_STORED ? GB_ST_INCR_HITS : GB_ST_INCR_MISSES);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Dumps, statistics, configuration                                       */

/**
 * gb_store_next_obj - the next object in id order, with a reference
 * @id: the first id to look at; set to the returned object's id
 *
 * Skips ids whose object is being freed (last reference gone). The caller
 * puts the object and continues from *@id + 1.
 *
 * Return: a referenced object, or NULL past the last id.
 */
struct gb_obj *gb_store_next_obj(unsigned long *id)
{
	struct gb_obj *obj;

	rcu_read_lock();
	for (;;) {
		obj = xa_find(&gb_store_ids, id, ULONG_MAX, XA_PRESENT);
		if (!obj || refcount_inc_not_zero(&obj->ref))
			break;
		++*id;
	}
	rcu_read_unlock();
	return obj;
}

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

	while ((obj = gb_store_next_obj(&id))) {
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
