// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, the debugfs test interface (goblin/store).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched/task.h>

#include "store_int.h"

static struct dentry *gb_dbg_dir;
static bool gb_dbg_own_dir;

/* ---------------------------------------------------------------------- */
/* debugfs test interface: /sys/kernel/debug/goblin/store                 */

/*
 * Commands written to the file (one per write):
 *   set KEY LEN SEED [EXPTIME]   store LEN pattern bytes derived from SEED
 *   setdev KEY LEN SEED NODE     the same, as if it came through a device
 *                                on NUMA node NODE (-1: none), like an
 *                                RDMA SET (gb_obj_alloc_node())
 *   get KEY SEED                 check the value against the pattern
 *   del KEY                      delete
 *   flush [WHEN]                 flush_all
 *   touch KEY EXPTIME            touch
 *   head KEY                     LEN = gb_obj_head_len() of KEY
 *   hold KEY                     keep a reference on the first head page,
 *                                like an skb after sendpage()
 *   release                      drop it
 *   walk NODE                    LEN = bytes of lent head pages on NUMA
 *                                node NODE, counted now by a walk of every
 *                                block (page_to_nid() of every lent page)
 *   delay alloc MS               the next head page allocation sleeps MS
 *                                ms after picking its pool (race windows)
 *   delay lookup MS              the next lookup that finds an object
 *                                waits (busy) until that object's last
 *                                reference is gone or MS ms (at most 2000)
 *                                have passed, before it takes a reference
 *                                (gb_store_lookup_dbg_race()): it must
 *                                then look again and find the key's new
 *                                object ("lookup_retries" in the stats
 *                                counts the retries). 0 disarms. LEN =
 *                                the ms armed before (0: it has fired)
 *   race evict [0]               the next run of the CLOCK hand that
 *                                evicts runs another one between its
 *                                lockless pick of a shard and taking that
 *                                shard's lock (gb_store_evict_dbg_race());
 *                                0 disarms. LEN = 1 if it was armed before
 *                                (0: it has fired)
 *   delay promote MS             the next NUMA promotion sleeps MS ms
 *                                between copying the value and publishing
 *                                the copy (a SET or delete meanwhile wins)
 *   node KEY                     LEN = the NUMA node of KEY's first head
 *                                page (not a read: counts no hit);
 *                                -ENODATA for a value without head pages
 *   corrupt KEY OFF              flip the bits of value byte OFF of the
 *                                stored KEY in place (head page, or the
 *                                tail through the page cache), leaving its
 *                                CRC as it was: what a memory or SSD error
 *                                would do. LEN = the byte's new value
 *   crc KEY                      LEN = the CRC-32C stored with KEY; result
 *                                -ENODATA when it has none (stored with the
 *                                store setting crc off)
 *   crcflip KEY                  flip the bits of the CRC stored with KEY
 *                                (the bytes stay): a value of any length,
 *                                0 B included, that fails its check;
 *                                -ENODATA when it has none
 *   fail seal ERRNO              the next CRC computation at publication
 *                                (gb_obj_seal(), store setting crc on)
 *                                fails with -ERRNO, as a tail that cannot
 *                                be read back would; 0 disarms. LEN = what
 *                                was armed before (0: it has fired)
 *   fail tail ERRNO [COUNT [SKIP]]
 *                                after SKIP (default 0) more tail page
 *                                fetches (gb_obj_get_page_id()) that work,
 *                                the next COUNT (default 1, at most
 *                                1000000) fail with -ERRNO as the read
 *                                would: a transient error (-EAGAIN,
 *                                -ENOMEM, ...) leaves the object, others
 *                                drop it; 0 disarms. LEN = the failures
 *                                still armed before (0: all fired)
 *   stress WRITERS KEYS ITERS LEN MODE
 *                                WRITERS (1..64) kernel threads each store
 *                                ITERS values under KEYS keys (the same
 *                                keys "mtK" for all with MODE bit 0 set,
 *                                their own "mtW.K" without) through
 *                                gb_obj_alloc() and gb_store_commit(), at
 *                                once, and read each back at once: every
 *                                value read must be, byte for byte and in
 *                                length, one that a writer stored (the
 *                                pattern of the seed in its flags; with
 *                                OVERLAP 0 the one just stored). At the end
 *                                every key must hold the last value some
 *                                writer stored under it. MODE bit 1: the
 *                                cache is expected to evict, a key may be
 *                                missing. MODE bit 2: hot keys; after
 *                                each SET a writer GETs (a hit, which sets
 *                                the CLOCK bit) "mhJ", J = its iteration
 *                                modulo GB_STRESS_HOT, which the caller
 *                                stored before: one missing is -ENOENT,
 *                                however full the cache (second chance).
 *                                MODE bit 4 (without bit 0): a SET
 *                                refused for SSD space (-ENOSPC) is
 *                                counted ("stress_nospc" in the stats)
 *                                and the writer goes on; at the end each
 *                                key must hold the last value its writer
 *                                stored, or be evicted. Every stress
 *                                also reports "stress_min_stored" (SETs
 *                                stored by the writer that stored fewest)
 *                                and "stress_max_set_ms" (the slowest
 *                                SET of any writer, waits for space
 *                                included) in the stats.
 *                                MODE bit 3 (with bits 0 and 1): writer 0
 *                                stores nothing but goes over the keys
 *                                until the other writers are done,
 *                                deleting one, marking the next one stale
 *                                (md I, gb_store_invalidate()) and every
 *                                eighth time flushing all (flush_all).
 *                                Values are LEN/2 to LEN bytes.
 *                                Result: 0, or the first
 *                                error (-EILSEQ for a wrong value, -ENOENT
 *                                for a missing one where it must be, a
 *                                SET's error); LEN = SETs that stored.
 *                                Details of failures in the kernel log.
 *                                Bounds: LEN 2..4 MiB, WRITERS x ITERS at
 *                                most 2^18 and x LEN at most 4 GiB. The
 *                                write waits killably (gb_dbg_mutex held):
 *                                a signal stops the writers, -EINTR
 *   fail read KEY OFF ERRNO      the next read of KEY's value that reaches
 *                                byte OFF (gb_obj_read(), or a page from
 *                                gb_obj_get_page() at OFF or later) fails
 *                                with -ERRNO, once, as a tail that cannot
 *                                be read would; the value stays stored.
 *                                0 disarms. LEN = what was armed before
 *                                (0: it has fired)
 * Reading the file returns the result of the last command, the stats, the
 * promotion state ("promo_attempts": copies begun since load,
 * "promo_queued" and "promo_queued_bytes": the queue now,
 * "promo_delay_ms": a "delay promote" not consumed yet), the eviction
 * counters ("inline_evictions": by SETs themselves, for RAM or SSD space,
 * "reclaimer_runs" and "reclaimer_evictions": the background reclaimer,
 * see evict.c; evictions is their sum plus the evictions of NUMA
 * promotions and of block trimming), "lookup_gaveup" (lookups that missed
 * after GB_LOOKUP_RETRIES, index.c) and per online
 * node "nodeN_head_bytes", "nodeN_blocks", "nodeN_objects", "nodeN_remote"
 * and "nodeN_blocks_huge" (gb_store_node_usage()).
 *
 * goblin/maint_period_ms (0: the default of 2 s; at most one hour, more is
 * refused with -ERANGE) is the period of the maintenance walk that reclaims
 * dead objects (gb_store_maint_period()); a write re-arms the pending walk
 * for the new period, so the next one is that long after the write.
 *
 * The wait for SSD space (kmod/store/space.c) shows as "tail_waits" (SETs
 * that queued since load), "tail_wait_fails" (of them, those that got no
 * space: bound, signal, reconfiguration), "tail_waiters" (queued now),
 * "tail_wait_max_ms" (the longest wait that got space), "tail_evictors_max"
 * (the most waiters evicting at once) and "tail_starvations" (how often an
 * evictor began to starve: a lap of the CLOCK without a victim, or SETs in
 * flight leaving the first waiter no room). goblin/tail_wait_ms
 * (0: the default of 500 ms; at most 60000, more is refused with -ERANGE)
 * is the bound of the waits that start after the write (tests).
 */
#define GB_DBG_BUF	8192

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

static int gb_dbg_set(const char *key, u64 len, u32 seed, s64 exptime,
		      int node)
{
	struct gb_obj *obj;
	u8 *buf;
	u64 off, i;
	size_t n;
	int err = 0;

	obj = gb_obj_alloc_node(key, strlen(key), seed, exptime, len, node);
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

/* Compare every byte of referenced @obj with the pattern of @seed. */
static int gb_dbg_obj_check(struct gb_obj *obj, u32 seed)
{
	struct page *pg;
	unsigned int pgoff, seg, i;
	u64 off;
	u8 *p;
	int err = 0;

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
	return err;
}

static int gb_dbg_get(const char *key, u32 seed, u64 *len)
{
	struct gb_obj *obj;
	int err;

	obj = gb_store_get(key, strlen(key));
	if (!obj)
		return -ENOENT;
	*len = obj->len;
	err = gb_dbg_obj_check(obj, seed);
	gb_obj_put(obj);
	return err;
}

/* ---- stress: concurrent writers (see the command list above) ---- */

#define GB_STRESS_WRITERS	64
#define GB_STRESS_ITERS		BIT(20)	/* seed: writer << 20 | iteration */
#define GB_STRESS_SETS		BIT(18)	/* writers x iterations */
#define GB_STRESS_BYTES		(4ULL << 30)	/* writers x iterations x LEN */
#define GB_STRESS_HOT		4	/* hot keys "mh0".."mh3" (MODE bit 2) */

struct gb_stress {
	u32 writers, keys, iters, len;
	bool overlap, evicts, hot, deleter;
	u32 *last;		/* MODE bit 4: [writer * keys + key] last stored + 1 */
	atomic_t err;		/* first error */
	atomic64_t stored;
	atomic64_t nospc;	/* MODE bit 4: SETs refused for SSD space */
	atomic_t left;		/* writers still running */
	struct completion done;
};

struct gb_stress_writer {
	struct gb_stress *st;
	struct task_struct *task;	/* referenced until kthread_stop() */
	u32 id;
	u32 stored;		/* its SETs that stored */
	u64 max_set_ns;		/* its slowest SET (alloc to commit) */
};

/* The flags (seed) of value ITER of writer W: unique per store. */
static u32 gb_stress_seed(u32 w, u32 iter)
{
	return (w << 20) | iter;
}

/* Value length for @seed: LEN/2..LEN, from the seed alone. */
static u64 gb_stress_len(const struct gb_stress *st, u32 seed)
{
	u32 half = st->len / 2;

	return st->len - half + (u64)(seed * 2654435761U) % (half + 1);
}

static void gb_stress_key(const struct gb_stress *st, u32 w, u32 k,
			  char *key, size_t size)
{
	if (st->overlap)
		snprintf(key, size, "mt%u", k);
	else
		snprintf(key, size, "mt%u.%u", w, k);
}

static void gb_stress_fail(struct gb_stress *st, int err, const char *key,
			   const char *why, u64 a, u64 b)
{
	pr_warn("stress: %s: %s (%llu, %llu): %d\n", key, why, a, b, err);
	atomic_cmpxchg(&st->err, 0, err);
}

/*
 * Check @key's value: its bytes are the pattern of the seed in its flags,
 * its length the one that seed gets, and the seed one that a writer of
 * this run could have stored. Returns 0 with the seed, or -errno.
 */
static int gb_stress_check(struct gb_stress *st, const char *key, u32 *seed)
{
	struct gb_obj *obj;
	int err = -EILSEQ;

	obj = gb_store_peek(key, strlen(key));
	if (!obj)
		return -ENOENT;
	/* the object we hold stays as it is, even if it is replaced */
	*seed = obj->flags;
	if ((*seed >> 20) >= st->writers ||
	    (*seed & (GB_STRESS_ITERS - 1)) >= st->iters)
		gb_stress_fail(st, err, key, "seed of no writer", *seed,
			       obj->len);
	else if (obj->len != gb_stress_len(st, *seed))
		gb_stress_fail(st, err, key, "length", obj->len,
			       gb_stress_len(st, *seed));
	else if (gb_dbg_obj_check(obj, *seed))
		gb_stress_fail(st, err, key, "bytes of seed", *seed, obj->len);
	else
		err = 0;
	gb_obj_put(obj);
	return err;
}

/* MODE bit 3: writer 0 deletes, invalidates and flushes instead. */
static void gb_stress_delete(struct gb_stress *st)
{
	char key[32];
	u32 i;

	/* st->left counts us too */
	for (i = 0; atomic_read(&st->left) > 1 && !atomic_read(&st->err) &&
	     !kthread_should_stop(); i++) {
		gb_stress_key(st, 0, i % st->keys, key, sizeof(key));
		if (i % 8 == 7)
			gb_store_flush(0);
		else if (i % 2)
			gb_store_invalidate(key, strlen(key), 0, NULL);
		else
			gb_store_delete(key, strlen(key), 0);
		cond_resched();
	}
}

static int gb_stress_fn(void *arg)
{
	struct gb_stress_writer *wr = arg;
	struct gb_stress *st = wr->st;
	char key[32];
	u32 i, seed, got = 0;
	u64 t0;
	int err;

	if (st->deleter && !wr->id)
		gb_stress_delete(st);
	for (i = 0; i < st->iters && !atomic_read(&st->err) &&
	     !kthread_should_stop() && !(st->deleter && !wr->id); i++) {
		gb_stress_key(st, wr->id, i % st->keys, key, sizeof(key));
		seed = gb_stress_seed(wr->id, i);
		t0 = ktime_get_ns();
		err = gb_dbg_set(key, gb_stress_len(st, seed), seed, 0,
				 NUMA_NO_NODE);
		wr->max_set_ns = max(wr->max_set_ns, ktime_get_ns() - t0);
		if (err == -ENOSPC && st->last) {
			atomic64_inc(&st->nospc);
			cond_resched();
			continue;
		}
		if (err != GB_STORED) {
			gb_stress_fail(st, err ?: -EIO, key, "set", seed, 0);
			break;
		}
		atomic64_inc(&st->stored);
		wr->stored++;
		if (st->last)	/* this writer's own slot */
			st->last[wr->id * st->keys + i % st->keys] = i + 1;
		/* nothing deletes: a key is missing only if it was evicted */
		err = gb_stress_check(st, key, &got);
		if (err == -ENOENT && st->evicts)
			continue;
		if (err == -ENOENT)
			gb_stress_fail(st, err, key, "read back", seed, got);
		else if (!st->overlap && got != seed)
			gb_stress_fail(st, -EILSEQ, key, "own value replaced",
				       seed, got);
		if (st->hot) {
			struct gb_obj *obj;

			snprintf(key, sizeof(key), "mh%u", i % GB_STRESS_HOT);
			obj = gb_store_get(key, strlen(key));
			if (!obj)
				gb_stress_fail(st, -ENOENT, key,
					       "hot key evicted", seed, 0);
			gb_obj_put(obj);
		}
		cond_resched();
	}
	/*
	 * gb_dbg_stress() holds a reference on our task and kthread_stop()s
	 * us, which waits until we have left this function: the module text
	 * cannot go away under us.
	 */
	if (atomic_dec_and_test(&st->left))
		complete(&st->done);
	return 0;
}

/* Of the last stress (written under gb_dbg_mutex, read without it). */
static u64 gb_dbg_stress_nospc;		/* SETs refused for SSD space */
static u64 gb_dbg_stress_min_stored;	/* SETs stored by the writer with fewest */
static u64 gb_dbg_stress_max_set_ms;	/* the slowest SET of any writer */

/* Run a stress; returns the first error or 0, *@stored = SETs stored. */
static int gb_dbg_stress(u32 writers, u32 keys, u32 iters, u32 len,
			 u32 mode, u64 *stored)
{
	bool overlap = mode & 1;
	struct gb_stress_writer *wr;
	struct gb_stress st = {
		.writers = writers, .keys = keys, .iters = iters,
		.len = len, .overlap = overlap, .evicts = mode & 2,
		.hot = mode & 4, .deleter = (mode & 11) == 11,
	};
	u64 min_stored, max_set_ns;
	char key[32];
	u32 w, k, seed, last;
	int err;

	if (!writers || writers > GB_STRESS_WRITERS || !keys ||
	    !iters || iters > GB_STRESS_ITERS || len < 2 || len > SZ_4M ||
	    (u64)writers * iters > GB_STRESS_SETS ||
	    (u64)writers * iters * len > GB_STRESS_BYTES)
		return -EINVAL;
	if ((mode & 16) && overlap)
		return -EINVAL;
	wr = kcalloc(writers, sizeof(*wr), GFP_KERNEL);
	if (!wr)
		return -ENOMEM;
	if (mode & 16) {
		/* writers x min(keys, iters) <= GB_STRESS_SETS */
		st.last = kvcalloc((size_t)writers * min(keys, iters),
				   sizeof(*st.last), GFP_KERNEL);
		if (!st.last) {
			kfree(wr);
			return -ENOMEM;
		}
		st.keys = min(keys, iters);
	}
	atomic_set(&st.left, writers);
	init_completion(&st.done);
	for (w = 0; w < writers; w++) {
		struct task_struct *t;

		wr[w].st = &st;
		wr[w].id = w;
		t = kthread_create(gb_stress_fn, &wr[w], "gb_stress/%u", w);
		if (IS_ERR(t)) {
			gb_stress_fail(&st, PTR_ERR(t), "-", "kthread", w, 0);
			if (atomic_dec_and_test(&st.left))
				complete(&st.done);
			continue;
		}
		/* kthread_stop() below needs the task even after it exited */
		wr[w].task = get_task_struct(t);
		wake_up_process(t);
	}
	/* killable: a mistyped command must not leave us in D state */
	if (wait_for_completion_killable(&st.done))
		gb_stress_fail(&st, -EINTR, "-", "interrupted", 0, 0);
	min_stored = U64_MAX;
	max_set_ns = 0;
	for (w = 0; w < writers; w++) {
		if (!wr[w].task)
			continue;
		kthread_stop(wr[w].task);
		put_task_struct(wr[w].task);
		/* the writer is gone: its counts are final */
		min_stored = min_t(u64, min_stored, wr[w].stored);
		max_set_ns = max(max_set_ns, wr[w].max_set_ns);
	}
	kfree(wr);
	WRITE_ONCE(gb_dbg_stress_min_stored, min_stored == U64_MAX ? 0 : min_stored);
	WRITE_ONCE(gb_dbg_stress_max_set_ms, div_u64(max_set_ns, NSEC_PER_MSEC));
	if (atomic_read(&st.err) == -EINTR)
		return -EINTR;
	/* every key holds the last value one of its writers stored */
	for (w = 0; w < (overlap ? 1 : writers); w++) {
		for (k = 0; k < keys && k < iters; k++) {
			gb_stress_key(&st, w, k, key, sizeof(key));
			last = k + (iters - 1 - k) / keys * keys;
			/* MODE bit 4: the last SET of the key that stored */
			if (st.last)
				last = st.last[w * st.keys + k] - 1;
			err = gb_stress_check(&st, key, &seed);
			if (err == -ENOENT && (st.evicts || last == U32_MAX))
				continue;
			if (err)
				gb_stress_fail(&st, err, key, "final", last, 0);
			else if ((seed & (GB_STRESS_ITERS - 1)) != last ||
				 (!overlap && seed >> 20 != w))
				gb_stress_fail(&st, -EILSEQ, key,
					       "final value not a last one",
					       seed, last);
		}
	}
	kvfree(st.last);
	WRITE_ONCE(gb_dbg_stress_nospc, atomic64_read(&st.nospc));
	*stored = atomic64_read(&st.stored);
	return atomic_read(&st.err);
}

/*
 * Damage a published value behind the store's back (tests only): readers
 * may see the byte change under them, as with a real memory error.
 */
static int gb_dbg_corrupt(const char *key, u64 off, u64 *len)
{
	struct gb_obj *obj;
	u8 b;
	int err;

	obj = gb_store_peek(key, strlen(key));
	if (!obj)
		return -ENOENT;
	err = off < obj->len ? gb_obj_read(obj, off, &b, 1) : -ERANGE;
	if (!err) {
		b ^= 0xff;
		err = gb_obj_write(obj, off, &b, 1);
		*len = b;
	}
	gb_obj_put(obj);
	return err;
}

/*
 * The CRC kept with a published value into @len; @flip: damage it (its
 * complement), not the value's bytes (tests only).
 */
static int gb_dbg_crc(const char *key, u64 *len, bool flip)
{
	struct gb_obj *obj;
	int err = -ENODATA;

	obj = gb_store_peek(key, strlen(key));
	if (!obj)
		return -ENOENT;
	if (obj->has_crc) {
		if (flip)
			WRITE_ONCE(obj->crc, ~READ_ONCE(obj->crc));
		*len = READ_ONCE(obj->crc);
		err = 0;
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

static int gb_dbg_node(const char *key, u64 *len)
{
	struct gb_obj *obj;
	int err = 0;

	obj = gb_store_peek(key, strlen(key));
	if (!obj)
		return -ENOENT;
	if (obj->priv->nid)
		*len = obj->priv->nid - 1;
	else
		err = -ENODATA;
	gb_obj_put(obj);
	return err;
}

static ssize_t gb_dbg_write(struct file *f, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[16], key[GB_KEY_MAX + 1];
	long long a = 0, c = 0;
	unsigned int b = 0;
	bool fail_read;
	u64 len = 0;
	char *buf;
	int n, res;

	if (count > 512)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%15s %250s %lld %u %lld", cmd, key, &a, &b, &c);
	if (n >= 1 && !strcmp(cmd, "stress")) {
		u32 sw, sk, si, sl, so;

		n = sscanf(buf, "%15s %u %u %u %u %u", cmd, &sw, &sk, &si, &sl,
			   &so);
		kfree(buf);
		if (n != 6)
			return -EINVAL;
		mutex_lock(&gb_dbg_mutex);
		res = gb_dbg_stress(sw, sk, si, sl, so, &len);
		goto result;
	}
	if (n >= 1 && (!strcmp(cmd, "flush") || !strcmp(cmd, "release")))
		n = sscanf(buf, "%15s %lld", cmd, &a);
	fail_read = n >= 2 && !strcmp(cmd, "fail") && !strcmp(key, "read");
	if (fail_read)	/* fail read KEY OFF ERRNO */
		n = sscanf(buf, "%15s %*s %250s %lld %lld", cmd, key, &a, &c);
	kfree(buf);
	mutex_lock(&gb_dbg_mutex);
	if (fail_read && n == 4) {
		res = a < 0 || c < 0 || c > MAX_ERRNO ? -ERANGE :
		      gb_obj_read_fail_next(key, strlen(key), a, c);
		if (res > 0) {
			len = res;	/* the errno armed before */
			res = 0;
		}
	} else if (fail_read) {
		mutex_unlock(&gb_dbg_mutex);
		return -EINVAL;
	} else if (n >= 4 && !strcmp(cmd, "set")) {
		res = gb_dbg_set(key, a, b, n >= 5 ? c : 0, NUMA_NO_NODE);
	} else if (n >= 5 && !strcmp(cmd, "setdev")) {
		res = gb_dbg_set(key, a, b, 0,
				 c < 0 || c >= MAX_NUMNODES ? NUMA_NO_NODE : (int)c);
	} else if (n >= 3 && !strcmp(cmd, "get")) {
		res = gb_dbg_get(key, a, &len);
	} else if (n >= 2 && !strcmp(cmd, "del")) {
		res = gb_store_delete(key, strlen(key), 0);
	} else if (n >= 3 && !strcmp(cmd, "touch")) {
		res = gb_store_touch(key, strlen(key), a);
	} else if (n >= 3 && !strcmp(cmd, "corrupt")) {
		res = a < 0 ? -ERANGE : gb_dbg_corrupt(key, a, &len);
	} else if (n >= 2 && !strcmp(cmd, "crc")) {
		res = gb_dbg_crc(key, &len, false);
	} else if (n >= 2 && !strcmp(cmd, "crcflip")) {
		res = gb_dbg_crc(key, &len, true);
	} else if (n >= 3 && !strcmp(cmd, "fail") && !strcmp(key, "seal")) {
		res = a < 0 || a > MAX_ERRNO ? -ERANGE : 0;
		if (!res)
			len = gb_obj_seal_fail_next(a);
	} else if (n >= 3 && !strcmp(cmd, "fail") && !strcmp(key, "tail")) {
		if (n < 4)
			b = 1;
		if (n < 5)
			c = 0;
		res = a < 0 || a > MAX_ERRNO || b > 1000000 || c < 0 ||
		      c > INT_MAX ? -ERANGE : 0;
		if (!res)
			len = gb_obj_tail_fail_next(a, b, c);
	} else if (n >= 2 && !strcmp(cmd, "head")) {
		res = gb_dbg_head(key, &len);
	} else if (n >= 2 && !strcmp(cmd, "walk")) {
		struct gb_store_node_usage nu;
		int nid;

		res = kstrtoint(key, 10, &nid);
		if (!res && (nid < 0 || nid >= MAX_NUMNODES || !node_online(nid)))
			res = -EINVAL;
		if (!res) {
			gb_store_node_usage(nid, &nu, true);
			len = nu.walked_bytes;
		}
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
	} else if (n >= 3 && !strcmp(cmd, "delay") && !strcmp(key, "lookup")) {
		len = gb_store_lookup_dbg_race(clamp_t(long long, a, 0, 2000));
		res = 0;
	} else if (n >= 2 && !strcmp(cmd, "race") && !strcmp(key, "evict")) {
		len = gb_store_evict_dbg_race(n < 3 || a);
		res = 0;
	} else if (n >= 3 && !strcmp(cmd, "delay") && !strcmp(key, "promote")) {
		gb_store_promote_dbg_delay(clamp_t(long long, a, 0, 60000));
		res = 0;
	} else if (n >= 2 && !strcmp(cmd, "node")) {
		res = gb_dbg_node(key, &len);
	} else if (n >= 1 && !strcmp(cmd, "flush")) {
		gb_store_flush(n >= 2 ? a : 0);
		res = 0;
	} else {
		mutex_unlock(&gb_dbg_mutex);
		return -EINVAL;
	}
result:
	snprintf(gb_dbg_result, sizeof(gb_dbg_result), "%s %d %llu\n", cmd,
		 res, len);
	mutex_unlock(&gb_dbg_mutex);
	return count;
}

static ssize_t gb_dbg_read(struct file *f, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct gb_promo_dbg_stats ps;
	struct gb_space_stats ss;
	struct gb_store_stats st;
	ssize_t ret;
	char *buf;
	int len, nid;

	buf = kmalloc(GB_DBG_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	gb_store_get_stats(&st);
	mutex_lock(&gb_dbg_mutex);
	len = scnprintf(buf, GB_DBG_BUF, "%s", gb_dbg_result);
	mutex_unlock(&gb_dbg_mutex);
	len += scnprintf(buf + len, GB_DBG_BUF - len,
			 "curr_items %llu\ntotal_items %llu\nbytes %llu\nhead_bytes %llu\ntail_bytes %llu\nevictions %llu\nreclaimed %llu\nget_hits %llu\nget_misses %llu\nget_expired %llu\nget_flushed %llu\nblocks_total %llu\nblocks_huge %llu\nblocks_small %llu\npages_free %llu\npages_quarantined %llu\nquarantined_total %llu\nmemory_limit %llu\nssd_limit %llu\ntail_io_errors %llu\ntail_wb_errors %llu\nmeta_bytes %llu\npromotions %llu\npromoted_bytes %llu\npromotion_failures %llu\nmaint_runs %lld\nreclaim_walks %lld\nevict_scanned %lld\nlookup_gaveup %lld\ninline_evictions %llu\nreclaimer_runs %llu\nreclaimer_evictions %llu\nreclaimer_backoffs %lld\n",
			 st.curr_items, st.total_items, st.bytes, st.head_bytes,
			 st.tail_bytes, st.evictions, st.reclaimed, st.get_hits,
			 st.get_misses, st.get_expired, st.get_flushed,
			 st.blocks_total, st.blocks_huge, st.blocks_small,
			 st.pages_free, st.pages_quarantined,
			 st.quarantined_total, st.memory_limit, st.ssd_limit,
			 st.tail_io_errors, st.tail_wb_errors, st.meta_bytes,
			 st.promotions, st.promoted_bytes, st.promotion_failures,
			 atomic64_read(&gb_store_maint_runs),
			 atomic64_read(&gb_store_reclaim_walks),
			 atomic64_read(&gb_store_evict_scanned),
			 atomic64_read(&gb_store_lookup_gaveup),
			 gb_stat_sum(GB_ST_EVICT_INLINE),
			 gb_stat_sum(GB_ST_RECLAIMER_RUNS),
			 gb_stat_sum(GB_ST_RECLAIMER_EVICTIONS),
			 atomic64_read(&gb_store_reclaim_backoffs));
	gb_store_promote_dbg_stats(&ps);
	len += scnprintf(buf + len, GB_DBG_BUF - len,
			 "promo_attempts %llu\npromo_queued %llu\npromo_queued_bytes %llu\npromo_delay_ms %llu\n",
			 ps.attempts, ps.queued, ps.queued_bytes, ps.delay_ms);
	len += scnprintf(buf + len, GB_DBG_BUF - len,
			 "lookup_retries %lld\nstress_nospc %llu\nstress_min_stored %llu\nstress_max_set_ms %llu\n",
			 atomic64_read(&gb_store_lookup_retries),
			 READ_ONCE(gb_dbg_stress_nospc),
			 READ_ONCE(gb_dbg_stress_min_stored),
			 READ_ONCE(gb_dbg_stress_max_set_ms));
	gb_space_dbg_stats(&ss);
	len += scnprintf(buf + len, GB_DBG_BUF - len,
			 "tail_waits %llu\ntail_wait_fails %llu\ntail_waiters %llu\ntail_wait_max_ms %llu\ntail_wait_disorder %llu\ntail_evictors_max %llu\ntail_starvations %llu\n",
			 ss.waits, ss.fails, ss.waiting, ss.max_wait_ms,
			 ss.disorder, ss.max_evicting, ss.starvations);
	for_each_online_node(nid) {
		struct gb_store_node_usage nu;

		gb_store_node_usage(nid, &nu, false);
		len += scnprintf(buf + len, GB_DBG_BUF - len,
				 "node%d_head_bytes %llu\nnode%d_blocks %llu\nnode%d_objects %llu\nnode%d_remote %llu\nnode%d_blocks_huge %llu\n",
				 nid, nu.head_bytes, nid, nu.blocks,
				 nid, nu.objects, nid, nu.remote,
				 nid, nu.blocks_huge);
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

/*
 * goblin/maint_period_ms: a new period applies at once, the next walk is
 * re-armed for it (the file goes before the work is cancelled at exit).
 */
static int gb_dbg_period_get(void *data, u64 *val)
{
	*val = READ_ONCE(gb_store_maint_period_ms);
	return 0;
}

static int gb_dbg_period_set(void *data, u64 val)
{
	if (val > GB_MAINT_PERIOD_MAX_MS)
		return -ERANGE;
	WRITE_ONCE(gb_store_maint_period_ms, (u32)val);
	if (READ_ONCE(gb_store_running))
		mod_delayed_work(gb_store_wq, &gb_store_maint_dwork,
				 gb_store_maint_period());
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(gb_dbg_period_fops, gb_dbg_period_get,
			 gb_dbg_period_set, "%llu\n");

/* goblin/tail_wait_ms: the bound of the next waits for SSD space. */
static int gb_dbg_tail_wait_get(void *data, u64 *val)
{
	*val = READ_ONCE(gb_space_wait_ms);
	return 0;
}

static int gb_dbg_tail_wait_set(void *data, u64 val)
{
	if (val > GB_SPACE_WAIT_MAX_MS)
		return -ERANGE;
	WRITE_ONCE(gb_space_wait_ms, (u32)val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(gb_dbg_tail_wait_fops, gb_dbg_tail_wait_get,
			 gb_dbg_tail_wait_set, "%llu\n");

void gb_store_dbg_init(void)
{
	gb_dbg_dir = debugfs_lookup("goblin", NULL);
	if (!gb_dbg_dir) {
		gb_dbg_dir = debugfs_create_dir("goblin", NULL);
		gb_dbg_own_dir = true;
	}
	debugfs_create_file("store", 0600, gb_dbg_dir, NULL, &gb_dbg_fops);
	debugfs_create_file_unsafe("maint_period_ms", 0600, gb_dbg_dir, NULL,
				   &gb_dbg_period_fops);
	debugfs_create_file_unsafe("tail_wait_ms", 0600, gb_dbg_dir, NULL,
				   &gb_dbg_tail_wait_fops);
}

void gb_store_dbg_exit(void)
{
	if (IS_ERR_OR_NULL(gb_dbg_dir))
		return;
	if (gb_dbg_held)
		put_page(gb_dbg_held);
	gb_dbg_held = NULL;
	debugfs_lookup_and_remove("store", gb_dbg_dir);
	debugfs_lookup_and_remove("maint_period_ms", gb_dbg_dir);
	debugfs_lookup_and_remove("tail_wait_ms", gb_dbg_dir);
	if (gb_dbg_own_dir)
		debugfs_remove(gb_dbg_dir);
	else
		dput(gb_dbg_dir);
	gb_dbg_dir = NULL;
}
