// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, objects: allocation and budget charges, value
 * bytes, freeing.
 *
 * Object ownership and page lifetime:
 *  - The index holds one reference on every linked object; each lookup
 *    adds one. A committed object is never modified (except exptime by
 *    touch), so a reader with a reference always sees one complete value.
 *  - Replacing, deleting, evicting or expiring an object only unlinks it
 *    and drops the index reference (and the NUMA promotion queue's, if it
 *    is queued; a promotion replaces it by a copy like a SET would).
 *    When the last reference goes, its head pages go back to the pool
 *    and its budgets are uncharged at once, its tail file is closed and
 *    unlinked from a workqueue, and the struct is
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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>

#include "store_int.h"

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
	if (priv->nid) {
		gb_store_numa_obj_add(priv->nid - 1, -1);
		priv->nid = 0;
	}
	for (i = 0; i < priv->nr_pages; i++)
		if (priv->pages[i].blk)
			gb_pool_free(&priv->pages[i]);
	if (priv->meta) {
		atomic64_sub((u64)priv->nr_pages << PAGE_SHIFT, &gb_store_head_bytes);
		gb_pool_meta_add(-(s64)priv->meta);
		priv->meta = 0;
	}
	priv->nr_pages = 0;
	/* The file goes in process context (we may be in any). */
	gb_space_inflight(priv, false);		/* freed before it was linked */
	gb_space_uncharge(priv->tail_acct);	/* grants SETs waiting */
	priv->tail_acct = 0;
	if (priv->tail) {
		INIT_WORK(&priv->free_work, gb_obj_free_work);
		queue_work(gb_store_free_wq, &priv->free_work);
	} else {
		call_rcu(&priv->rcu, gb_obj_free_rcu);
	}
}

/**
 * gb_obj_put - drop an object reference
 * @obj: object (may be NULL)
 *
 * Any context. The last reference frees the head pages (or quarantines
 * them) and schedules the tail file deletion. A put that leaves an object
 * with a tail evictable (only the index's reference and the promotion
 * queue's are left, what gb_evict_frees() wants) tells the SETs waiting
 * for SSD space, if one of them starves (gb_space_note_put(): no lock
 * otherwise).
 */
void gb_obj_put(struct gb_obj *obj)
{
	struct gb_obj_priv *priv;
	int old;

	if (!obj)
		return;
	priv = obj->priv;
	/* ours until the reference goes; set before the object was shared */
	if (!priv->tail_acct) {
		if (refcount_dec_and_test(&obj->ref))
			gb_obj_free(obj);
		return;
	}
	/*
	 * At most the index's and the promotion queue's references left: it
	 * may be evictable now. Not exact (a queued object's promotion may
	 * drop its reference meanwhile), so no hint is read before the put:
	 * a note too many costs only while an evictor listens.
	 */
	if (__refcount_dec_and_test(&obj->ref, &old))
		gb_obj_free(obj);
	else if (old <= 3)
		gb_space_note_put();
}

/*
 * A SET evicts for itself (RAM or SSD budget): what gb_store_evict() did,
 * counting GB_ST_EVICT_INLINE when it was an eviction (not the reap of a
 * dead object).
 */
enum gb_evict_res gb_obj_evict_inline_res(enum gb_need need)
{
	enum gb_evict_res r = gb_store_evict(need);

	if (r == GB_EVICT_EVICTED)
		gb_stat_inc(GB_ST_EVICT_INLINE);
	return r;
}

/* As gb_obj_evict_inline_res(): whether something that frees @need went. */
bool gb_obj_evict_inline(enum gb_need need)
{
	return gb_evict_hit(gb_obj_evict_inline_res(need));
}

/*
 * Head pages for @priv, in runs of one gb_pool_rwsem hold each. When the
 * pool has none, evict objects that hold pages (without the rwsem, between
 * runs); an eviction after which there is still no page (its pages went to
 * quarantine because a send still references them) is fruitless, and after
 * GB_EVICT_FRUITLESS of those the allocation waits for the quarantine
 * instead of emptying the cache. "No page" is global state: a concurrent
 * SET may have taken the pages our victim freed. So a wait re-arms
 * eviction; what bounds the SET is the number of waits (GB_EVICT_WAITS).
 */
static int gb_obj_alloc_pages(struct gb_obj_priv *priv, int node)
{
	int tries = 0, fruitless = 0;
	bool evicted = false;
	u32 i = 0, n;
	int err;

	while (i < priv->nr_pages) {
		err = gb_pool_alloc_n(node, &priv->pages[i],
				      priv->nr_pages - i, priv, &n);
		i += n;
		if (!err)
			break;
		if (err != -ENOMEM)
			return err;
		/* The last eviction did not give us a page. */
		if (evicted && !n)
			fruitless++;
		evicted = false;
		if (fruitless < GB_EVICT_FRUITLESS)
			evicted = gb_obj_evict_inline(GB_NEED_PAGES);
		if (evicted) {
			gb_store_note_pressure(false);
			continue;
		}
		/* Nothing to evict: pages held by readers or quarantine. */
		if (++tries > GB_EVICT_WAITS)
			return -ENOMEM;
		gb_pool_maint(false);
		usleep_range(2000, 4000);
		fruitless = 0;
	}
	if (priv->nr_pages) {
		priv->nid = page_to_nid(gb_hpage_page(&priv->pages[0])) + 1;
		gb_store_numa_obj_add(priv->nid - 1, 1);
	}
	return 0;
}

/* RAM that objects hold: head pages (lent or reserved), quarantine, metadata. */
u64 gb_store_ram_used(void)
{
	return atomic64_read(&gb_store_head_bytes) + gb_pool_quarantined_bytes() +
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
 * growing kernel memory. Fruitless evictions (after which what objects
 * hold did not drop, be it because the victim's memory went to quarantine
 * or because concurrent SETs charged theirs meanwhile) are bounded, and
 * re-armed after each wait, as in gb_obj_alloc_pages().
 */
static int gb_obj_charge(struct gb_obj_priv *priv, bool tail)
{
	u64 limit = READ_ONCE(gb_store_cfg.memory);
	int tries = 0, fruitless = 0;
	u64 before;

	priv->meta = gb_obj_meta_size(priv->nr_pages, tail);
	gb_pool_meta_add(priv->meta);
	atomic64_add((u64)priv->nr_pages << PAGE_SHIFT, &gb_store_head_bytes);
	if (((u64)priv->nr_pages << PAGE_SHIFT) + priv->meta > limit)
		return -ENOMEM;
	while ((before = gb_store_ram_used()) > limit) {
		if (fruitless < GB_EVICT_FRUITLESS &&
		    gb_obj_evict_inline(GB_NEED_ANY)) {
			gb_store_note_pressure(false);
			if (gb_store_ram_used() >= before)
				fruitless++;
			continue;
		}
		if (++tries > GB_EVICT_WAITS)
			return -ENOMEM;
		gb_pool_maint(false);
		usleep_range(2000, 4000);
		fruitless = 0;
	}
	/* Metadata may have left more blocks than the budget allows now. */
	if (gb_pool_over_budget())
		gb_store_kick_maint();
	/* below the low watermark: the reclaimer makes room for the next */
	gb_store_kick_reclaim(limit);
	return 0;
}

/*
 * Charge the tail to the SSD budget (gb_space_charge(): a fair wait, see
 * space.c), or with @pre (gb_store_concat(), under its RMW lock) never
 * wait: take the space @pre->paid holds, or what fits at once while
 * nobody waits, else -EAGAIN with @pre->need set. Then create the file and
 * reserve its blocks.
 */
static int gb_obj_alloc_tail(struct gb_obj_priv *priv, struct gb_ssd *ssd,
			     u64 tail_len, struct gb_space_pre *pre)
{
	u64 acct = round_up(tail_len, PAGE_SIZE);
	struct gb_tail *t;
	int tries = 0;
	int err;

	if (acct > READ_ONCE(gb_store_ssd_max))
		return -ENOSPC;
	if (!pre) {
		err = gb_space_charge(acct);
		if (err)
			return err;
		/*
		 * ssd_dir changed while we waited: the waiters then failed,
		 * and a tail in the old directory would go with it anyway.
		 */
		if (READ_ONCE(gb_store_ssd) != ssd) {
			gb_space_uncharge(acct);
			return -ENOSPC;
		}
	} else if (pre->paid >= acct) {
		gb_space_uncharge(pre->paid - acct);
		pre->paid = 0;
	} else if (!gb_space_try(acct)) {
		pre->need = acct;
		return -EAGAIN;
	}
	priv->tail_acct = acct;
	gb_space_inflight(priv, true);
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
		could = gb_ssd_avail(ssd) + atomic64_read(&gb_store_tail_bytes) - acct;
		if (++tries > 8 || could < tail_len)
			return -ENOSPC;
		for (i = 0; i < 4; i++)
			evicted += gb_obj_evict_inline(GB_NEED_TAIL);
		if (!evicted)
			return -ENOSPC;
		gb_store_note_pressure(true);
		gb_store_drain_tails();
	}
}

/**
 * gb_obj_alloc_node - build a new, unpublished object
 * @key:     key bytes
 * @klen:    key length
 * @flags:   client flags
 * @exptime: memcache exptime or absolute time (see gb_exptime_abs())
 * @len:     value length
 * @node:    NUMA node of the device the value arrives through, or
 *           NUMA_NO_NODE; the placement policy decides (kmod/store/numa.c)
 *
 * Reserves head pages (evicting as needed) and, for values longer than
 * ram_head while an ssd_dir is configured, creates and reserves the tail
 * file; without one the whole value gets head pages. A tail that does not
 * fit in the SSD budget waits for space, in turn with the other SETs that
 * wait (kmod/store/space.c), for a bound of about 500 ms. Process context;
 * the caller holds no store lock.
 *
 * Return: the object with one reference, or an ERR_PTR.
 */
struct gb_obj *gb_obj_alloc_node(const char *key, size_t klen, u32 flags,
				 s64 exptime, u64 len, int node)
{
	return gb_obj_alloc_pre(key, klen, flags, exptime, len, node, NULL);
}

/**
 * gb_obj_alloc_pre - gb_obj_alloc_node() that never waits for SSD space
 * @key:     key bytes
 * @klen:    key length
 * @flags:   client flags
 * @exptime: memcache exptime or absolute time (see gb_exptime_abs())
 * @len:     value length
 * @node:    NUMA node, as for gb_obj_alloc_node()
 * @pre:     SSD budget charged beforehand (@pre->paid bytes, from
 *           gb_space_charge()), or NULL to wait like gb_obj_alloc_node()
 *
 * With @pre, a tail takes its charge out of @pre->paid when that is enough
 * (the rest goes back at once, @pre->paid becomes 0); otherwise it charges
 * only what fits at once while no SET waits, and else fails with -EAGAIN,
 * @pre->need set to the bytes to wait for. For callers holding a lock
 * that readers or other SETs need (gb_store_concat()): they drop it, wait
 * with gb_space_charge(@pre->need), take it again and retry with the
 * space paid. Process context.
 *
 * Return: the object with one reference, or an ERR_PTR.
 */
struct gb_obj *gb_obj_alloc_pre(const char *key, size_t klen, u32 flags,
				s64 exptime, u64 len, int node,
				struct gb_space_pre *pre)
{
	u32 ram_head = READ_ONCE(gb_store_ram_head);
	struct gb_obj_priv *priv;
	struct gb_ssd *ssd = NULL;
	struct gb_obj *obj;
	u32 head_len, nr;
	int err;

	if (!gb_store_key_valid(key, klen))
		return ERR_PTR(-EINVAL);
	if (len > GB_VALUE_MAX)
		return ERR_PTR(-E2BIG);
	/* ram_head splits a value only when there is a tier below. */
	head_len = len;
	if (len > ram_head) {
		ssd = gb_store_ssd_get_current();
		if (ssd)
			head_len = ram_head;
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
	priv->shard = gb_store_shard_of(key, klen);
	INIT_LIST_HEAD(&priv->lru);
	INIT_LIST_HEAD(&priv->pnode);
	node = gb_store_pick_node(node);
	priv->want = node >= 0 ? node : -1;

	err = gb_obj_charge(priv, ssd);
	if (!err)
		err = gb_obj_alloc_pages(priv, node);
	if (!err && ssd)
		err = gb_obj_alloc_tail(priv, ssd, len - head_len, pre);
	gb_ssd_put(ssd);
	if (err) {
		gb_obj_put(obj);
		return ERR_PTR(err);
	}
	return obj;
}

/* At most this many evictions make room for one promotion copy. */
#define GB_PROMO_EVICT	2

/*
 * Budget and pages of @node for a promotion copy: at most GB_PROMO_EVICT
 * evictions in all, only while @room(@node, pages) says that the node can
 * take the pages, and never a page of another node.
 */
static int gb_obj_promo_pages(struct gb_obj_priv *priv, int node,
			      bool (*room)(int node, u32 nr))
{
	u64 limit = READ_ONCE(gb_store_cfg.memory);
	u32 nr = priv->nr_pages, i = 0, n;
	int evictions = 0, err;

	priv->meta = gb_obj_meta_size(nr, false);
	gb_pool_meta_add(priv->meta);
	atomic64_add((u64)nr << PAGE_SHIFT, &gb_store_head_bytes);
	while (gb_store_ram_used() > limit) {
		if (evictions >= GB_PROMO_EVICT || !room(node, nr) ||
		    !gb_store_evict_one(GB_NEED_ANY))
			return -ENOMEM;
		evictions++;
	}
	for (;;) {
		err = gb_pool_alloc_node_n(node, &priv->pages[i], nr - i, priv,
					   &n);
		i += n;
		if (err != -ENOMEM)
			break;
		if (evictions >= GB_PROMO_EVICT || !room(node, nr - i) ||
		    !gb_store_evict_one(GB_NEED_PAGES))
			return -ENOMEM;
		evictions++;
	}
	if (err)
		return err;
	priv->nid = page_to_nid(gb_hpage_page(&priv->pages[0])) + 1;
	gb_store_numa_obj_add(priv->nid - 1, 1);
	/* a block of the node's pool may hold pages of another node */
	for (i = 0; i < nr; i++)
		if (page_to_nid(gb_hpage_page(&priv->pages[i])) != node)
			return -EXDEV;
	return 0;
}

/**
 * gb_obj_alloc_promo - a copy of @old with its heads on @node
 * @old:  referenced object without a tail
 * @node: NUMA node
 * @room: whether @node has free memory for a number of pages (evicting
 *        for the copy only helps then)
 *
 * The copy has @old's key, value, flags, expiry and CRC; the state that
 * changes in place (CAS, expiry, access and meta state) is taken again
 * when it is published (gb_store_promote_link()). Process context.
 *
 * Return: the unpublished copy with one reference, or an ERR_PTR:
 * -ENOMEM (no room on @node within the evictions allowed), -EXDEV (the
 * node's pool gave pages of another node), -EINVAL (@old has a tail).
 */
struct gb_obj *gb_obj_alloc_promo(struct gb_obj *old, int node,
				  bool (*room)(int node, u32 nr))
{
	struct gb_obj_priv *opriv = old->priv, *priv;
	u32 nr = opriv->nr_pages, i;
	struct gb_obj *obj;
	int err;

	if (opriv->tail || !nr || opriv->head_len != old->len)
		return ERR_PTR(-EINVAL);
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	priv = kvzalloc(struct_size(priv, pages, nr), GFP_KERNEL);
	if (!obj || !priv) {
		kfree(obj);
		kvfree(priv);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&obj->ref, 1);
	obj->len = old->len;
	obj->flags = old->flags;
	obj->exptime = READ_ONCE(old->exptime);
	obj->crc = old->crc;
	obj->has_crc = old->has_crc;
	obj->priv = priv;
	obj->klen = old->klen;
	memcpy(obj->key, old->key, old->klen);
	priv->obj = obj;
	priv->head_len = opriv->head_len;
	priv->nr_pages = nr;
	priv->want = node;
	priv->shard = opriv->shard;
	INIT_LIST_HEAD(&priv->lru);
	INIT_LIST_HEAD(&priv->pnode);

	err = gb_obj_promo_pages(priv, node, room);
	if (err) {
		gb_obj_put(obj);
		return ERR_PTR(err);
	}
	/* the value never changes once published: copy it page by page */
	for (i = 0; i < nr; i++) {
		u32 n = min_t(u64, PAGE_SIZE,
			      priv->head_len - ((u64)i << PAGE_SHIFT));
		void *src = kmap_local_page(gb_hpage_page(&opriv->pages[i]));
		void *dst = kmap_local_page(gb_hpage_page(&priv->pages[i]));

		memcpy(dst, src, n);
		kunmap_local(dst);
		kunmap_local(src);
		cond_resched();
	}
	return obj;
}

/* gb_obj_alloc_node() for a value that comes through no device. */
struct gb_obj *gb_obj_alloc(const char *key, size_t klen, u32 flags,
			    s64 exptime, u64 len)
{
	return gb_obj_alloc_node(key, klen, flags, exptime, len, NUMA_NO_NODE);
}

/**
 * gb_obj_head_len - bytes of the value held in RAM head pages
 * @obj: object from gb_obj_alloc() or a lookup (any reference)
 *
 * Value bytes [0, gb_obj_head_len()) live in head pages; the rest, if any,
 * in the tail file. Fixed when the object is allocated (min(len, ram_head)
 * with an ssd_dir at that time, else len), so it stays valid for the object's whole life even if
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
	struct gb_shard *sh = gb_obj_shard(obj);
	LIST_HEAD(put);

	if (gb_store_err_transient(err))
		return err;
	if (xchg(&priv->bad, 1))
		return err;
	gb_stat_inc(wb ? GB_ST_TAIL_WB_ERRORS : GB_ST_TAIL_IO_ERRORS);
	pr_warn_ratelimited("tail %016llx: %s error %d, object dropped\n",
			    priv->tail->id, wb ? "writeback" : "read", err);
	mutex_lock(&sh->lock);
	gb_store_unlink(obj, true, &put);
	mutex_unlock(&sh->lock);
	gb_store_put_list(&put);
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

/*
 * Test knob (debugfs "fail tail ERRNO COUNT SKIP"): after SKIP more tail
 * page fetches (gb_obj_get_page_id() of a tail byte) that work, the next
 * COUNT fail with -ERRNO instead of reading the page, and are handled as
 * that read error would be (a transient one leaves the object, any other
 * drops it). Error 0: disarmed. Armed in the order count, skip, error; a
 * race with a fetch in between only moves the fault by a page.
 */
static atomic_t gb_obj_tail_fail_err = ATOMIC_INIT(0);
static atomic_t gb_obj_tail_fail_skip = ATOMIC_INIT(0);
static atomic_t gb_obj_tail_fail_count = ATOMIC_INIT(0);

/* Arm the knob (@err 0: disarm); returns the failures still armed. */
int gb_obj_tail_fail_next(int err, int count, int skip)
{
	int left = atomic_read(&gb_obj_tail_fail_err) ?
		   atomic_read(&gb_obj_tail_fail_count) : 0;

	atomic_set(&gb_obj_tail_fail_err, 0);
	atomic_set(&gb_obj_tail_fail_count, err ? count : 0);
	atomic_set(&gb_obj_tail_fail_skip, err ? skip : 0);
	atomic_set(&gb_obj_tail_fail_err, err);
	return left;
}

/* The error an armed knob makes this tail page fetch fail with, or 0. */
static int gb_obj_tail_fault(void)
{
	int err = atomic_read(&gb_obj_tail_fail_err);

	if (likely(!err))
		return 0;
	if (atomic_dec_if_positive(&gb_obj_tail_fail_skip) >= 0)
		return 0;
	if (atomic_dec_if_positive(&gb_obj_tail_fail_count) < 0)
		return 0;
	return -err;
}

/*
 * Test knob (debugfs "fail read KEY OFF ERRNO"): the next read of KEY's
 * value bytes through gb_obj_read() or gb_obj_get_page_id() that reaches
 * value byte OFF (for gb_obj_get_page_id(): that starts at OFF or later)
 * fails with -ERRNO, once, as a tail that cannot be read would; unlike
 * a real tail error the object stays in the index, so it reads fine
 * afterwards. Reads of every other key, and those before OFF, are not
 * touched. An ERRNO of 0 disarms. gb_obj_read_fail_armed keeps the
 * read paths to one atomic_read() while nothing is armed.
 */
static DEFINE_SPINLOCK(gb_obj_read_fail_lock);
static atomic_t gb_obj_read_fail_armed = ATOMIC_INIT(0);
static int gb_obj_read_fail_err;		/* under the lock */
static u64 gb_obj_read_fail_off;
static u8 gb_obj_read_fail_klen;
static char gb_obj_read_fail_key[GB_KEY_MAX];

/**
 * gb_obj_read_fail_next() - arm or disarm the read fault knob
 * @key:  key whose value the fault hits
 * @klen: its length (at most GB_KEY_MAX)
 * @off:  first value byte the failing read reaches
 * @err:  positive errno the read fails with; 0 disarms
 *
 * Return: the errno that was armed before (0: none, or it has fired), or
 * -EINVAL for a key that is too long.
 */
int gb_obj_read_fail_next(const char *key, size_t klen, u64 off, int err)
{
	unsigned long flags;
	int old;

	if (klen > GB_KEY_MAX)
		return -EINVAL;
	spin_lock_irqsave(&gb_obj_read_fail_lock, flags);
	old = gb_obj_read_fail_err;
	memcpy(gb_obj_read_fail_key, key, klen);
	gb_obj_read_fail_klen = klen;
	gb_obj_read_fail_off = off;
	gb_obj_read_fail_err = err;
	atomic_set(&gb_obj_read_fail_armed, !!err);
	spin_unlock_irqrestore(&gb_obj_read_fail_lock, flags);
	return old;
}

/* The read of [@off, @end) of @obj: 0, or the armed fault's -errno. */
static int gb_obj_read_fault(const struct gb_obj *obj, u64 off, u64 end)
{
	unsigned long flags;
	int err = 0;

	if (likely(!atomic_read(&gb_obj_read_fail_armed)))
		return 0;
	spin_lock_irqsave(&gb_obj_read_fail_lock, flags);
	if (gb_obj_read_fail_err && end > gb_obj_read_fail_off &&
	    obj->klen == gb_obj_read_fail_klen &&
	    !memcmp(obj->key, gb_obj_read_fail_key, obj->klen)) {
		err = -gb_obj_read_fail_err;
		gb_obj_read_fail_err = 0;
		atomic_set(&gb_obj_read_fail_armed, 0);
	}
	spin_unlock_irqrestore(&gb_obj_read_fail_lock, flags);
	return err;
}

/**
 * gb_obj_get_page_id - reference the page holding value byte @off
 * @obj:   referenced object
 * @off:   value offset
 * @pg:    page (put_page() when done)
 * @pgoff: offset of @off in *@pg
 * @seg:   contiguous value bytes from @off in *@pg
 * @tid:   request the tail read events belong to (NULL: none)
 *
 * A tail that fails to read or whose writeback failed makes the store drop
 * the object (see store.h).
 *
 * Return: 0 or -errno. Sleeps for tail bytes.
 */
int gb_obj_get_page_id(struct gb_obj *obj, u64 off, struct page **pg,
		       unsigned int *pgoff, unsigned int *seg,
		       const struct gb_trace_id *tid)
{
	struct gb_obj_priv *priv = obj->priv;
	struct page *page;
	u64 end;
	int err;

	if (off >= obj->len)
		return -EINVAL;
	err = gb_obj_read_fault(obj, off, off + 1);
	if (err)
		return err;
	if (off < priv->head_len) {
		page = gb_hpage_page(&priv->pages[off >> PAGE_SHIFT]);
		get_page(page);
		end = priv->head_len;
	} else {
		if (READ_ONCE(priv->bad))
			return -EIO;
		err = gb_obj_tail_fault();
		if (unlikely(err))
			page = ERR_PTR(err);
		else
			page = gb_tail_get_page(priv->tail,
						off - priv->head_len,
						obj->len - priv->head_len, tid);
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
	int err;

	if (off > obj->len || len > obj->len - off)
		return -EINVAL;
	err = gb_obj_read_fault(obj, off, off + len);
	if (err)
		return err;
	n = gb_head_copy(priv, &off, dst, len, false);
	if (n == len)
		return 0;
	if (READ_ONCE(priv->bad))
		return -EIO;
	return gb_obj_tail_check(obj, gb_tail_read(priv->tail,
						   off - priv->head_len,
						   dst + n, len - n));
}

/* ---------------------------------------------------------------------- */
/* CRC-32C of values (store setting crc)                                   */

/*
 * Every value stored while the setting is on gets the CRC-32C of its bytes,
 * computed once, when it is published (gb_obj_seal() from the commit
 * paths, or while append/prepend copy the bytes), and kept with the object
 * (gb_obj.crc). The RDMA transport sends it to the clients that asked for
 * it; nothing in the store checks it on reads. crc32c() is the kernel's
 * library one (libcrc32c: the CPU's CRC32 instruction where there is one);
 * it neither seeds nor inverts, so the standard CRC is ~crc32c(~0, ...).
 */
static bool gb_store_crc_on;

void gb_store_set_crc(bool on)
{
	WRITE_ONCE(gb_store_crc_on, on);
}

bool gb_store_get_crc(void)
{
	return READ_ONCE(gb_store_crc_on);
}

/* Continue the raw CRC @crc over value bytes [off, off + len) of @obj. */
static int gb_obj_crc_range(struct gb_obj *obj, u64 off, u64 len, u32 *crc)
{
	unsigned int pgoff, seg;
	struct page *pg;
	void *p;
	int err;

	while (len) {
		err = gb_obj_get_page(obj, off, &pg, &pgoff, &seg);
		if (err)
			return err;
		seg = min_t(u64, seg, len);
		p = kmap_local_page(pg);
		*crc = crc32c(*crc, p + pgoff, seg);
		kunmap_local(p);
		put_page(pg);
		off += seg;
		len -= seg;
		cond_resched();
	}
	return 0;
}

/*
 * Test knob (debugfs "fail seal ERRNO"): the next gb_obj_seal() with the
 * setting on fails with -ERRNO without reading the value, as one whose
 * tail cannot be read back would. 0: disarmed.
 */
static atomic_t gb_obj_seal_fail = ATOMIC_INIT(0);

/* Arm (@err > 0) or disarm (0) the knob; returns what was armed. */
int gb_obj_seal_fail_next(int err)
{
	return atomic_xchg(&gb_obj_seal_fail, err);
}

/**
 * gb_obj_seal - compute the CRC of an unpublished object
 * @obj: object from gb_obj_alloc(), fully written, not yet published
 *
 * With the store setting crc on, sets @obj->crc to the CRC-32C of the
 * value and @obj->has_crc; with it off, clears @obj->has_crc. The bytes are
 * the ones just written (head pages, and the tail in the page cache).
 *
 * Return: 0 or the error reading the tail back (-EIO for an I/O error, a
 * page cache allocation may fail with -ENOMEM). Process context, may sleep.
 */
int gb_obj_seal(struct gb_obj *obj)
{
	u32 crc = ~0U;
	int err;

	obj->has_crc = false;
	if (!gb_store_get_crc())
		return 0;
	err = atomic_xchg(&gb_obj_seal_fail, 0);
	if (err)
		return -err;
	err = gb_obj_crc_range(obj, 0, obj->len, &crc);
	if (err)
		return err;
	obj->crc = ~crc;
	obj->has_crc = true;
	return 0;
}

/*
 * Check a published object's bytes against its CRC: 0 when they match or
 * it has none, -EBADMSG when they do not, or a tail read error. Process
 * context, may sleep.
 */
int gb_obj_crc_check(struct gb_obj *obj)
{
	u32 crc = ~0U;
	int err;

	if (!obj->has_crc)
		return 0;
	err = gb_obj_crc_range(obj, 0, obj->len, &crc);
	if (err)
		return err;
	return ~crc == obj->crc ? 0 : -EBADMSG;
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
	return gb_obj_copy_crc(dst, dst_off, src, src_off, len, NULL, NULL);
}

/**
 * gb_obj_copy_crc - gb_obj_copy() computing CRCs of the bytes on the way
 * @dst:     unpublished destination
 * @dst_off: offset in @dst
 * @src:     referenced source
 * @src_off: offset in @src
 * @len:     count
 * @run:     if not NULL, raw CRC-32C continued over the bytes copied
 * @own:     if not NULL, a second one, also continued over them
 *
 * The CRCs cover the bytes exactly as they were read from @src and
 * written to @dst (one buffer), so a check of them against @src's CRC
 * vouches for what @dst got.
 *
 * Return: 0 or -errno. Sleeps.
 */
int gb_obj_copy_crc(struct gb_obj *dst, u64 dst_off, struct gb_obj *src,
		    u64 src_off, u64 len, u32 *run, u32 *own)
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
		if (!err && run)
			*run = crc32c(*run, buf, n);
		if (!err && own)
			*own = crc32c(*own, buf, n);
		if (!err)
			err = gb_obj_write(dst, dst_off, buf, n);
		src_off += n;
		dst_off += n;
		len -= n;
	}
	kfree(buf);
	return err;
}
