// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: head page pool.
 *
 * Memory for object heads comes from page-cache pages of one unlinked shmem
 * file per NUMA node, so every head byte lives in an ordinary struct page
 * that TCP can sendpage() and RDMA can DMA-map without a copy. The `memory`
 * budget is cut into `block`-sized units; a block is a contiguous range of
 * file offsets whose pages are all read in (allocated) when the block is
 * created and pinned by one reference per page until the block is released.
 *
 * Huge pages: when the block size is a multiple of the PMD size the files
 * live on a private tmpfs mount with huge=always, so shmem first tries a
 * transparent huge page for every 2 MiB of a block and silently falls back
 * to order-0 pages when none is available. A block whose pages are all
 * compound counts as "huge", any other as "small". Otherwise (or when the
 * private mount cannot be made) the files come from shmem_file_setup(),
 * which follows the system-wide shmem_enabled policy. Note that
 * shmem_kernel_file_setup() is not exported to modules, so the files carry
 * no S_PRIVATE flag; they are never reachable from userspace anyway.
 *
 * Locking: see gb_pool_rwsem.
 *
 * NUMA: pools are per node. shmem allocates with the local memory policy,
 * so a block for another node is created from a CPU of that node through
 * work_on_cpu(); the store decides which node heads go to
 * (Documentation/numa.rst). The pages are what counts, not the pool: when
 * the node is out of memory the page allocator falls back to another node,
 * and once the budget is spent a page of another node's pool is lent.
 * Every page is therefore accounted by page_to_nid() when it is lent
 * (gb_node_resident) and, when that is not the node the allocation asked
 * for, counted as remote for the wanted node (gb_node_remote). Lent pages
 * are pinned by the pool, so they cannot migrate and their node stays what
 * it was when they were lent. A node without CPUs gets its blocks from
 * the allocating CPU's node (counted as remote).
 *
 * Reclaim: the mappings are unevictable and every page carries a pool
 * reference, so reclaim never writes a head page to swap and never takes
 * one away; "mlock off" is therefore refused by the store.
 *
 * Page reuse and quarantine: a page is only handed to a new object when its
 * reference count is back to its idle baseline, i.e. the references held
 * by the page cache and by this pool (two per base page of the folio).
 * Anything above that is somebody else (a socket buffer after sendpage, an
 * RDMA MR, a transient LRU batch) still looking at the old bytes, so such a
 * page is parked in its block's quarantine bitmap and rechecked by the store
 * maintenance worker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/workqueue.h>

#include "goblin.h"
#include "pool.h"
#include "stats.h"

/**
 * struct gb_block - one budget unit of head pages
 * @pool:    owning pool
 * @pnode:   entry on the pool's partial list (has free pages)
 * @qnode:   entry on the pool's quarantine list (has quarantined pages)
 * @bnode:   entry on the pool's list of all blocks
 * @nr:      pages in the block
 * @nr_free: entries in @free
 * @nr_quar: bits set in @qmap
 * @blkno:   block number in the pool file (first page = blkno * nr)
 * @huge:    every page of the block is part of a huge page
 * @free:    stack of free page indexes
 * @qmap:    quarantined page indexes
 * @owner:   per page, the owner it is lent to (NULL: free or quarantined)
 * @pages:   the pages, one pool reference each
 */
struct gb_block {
	struct gb_pool *pool;
	struct list_head pnode;
	struct list_head qnode;
	struct list_head bnode;
	u32 nr;
	u32 nr_free;
	u32 nr_quar;
	u32 blkno;
	bool huge;
	u32 *free;
	unsigned long *qmap;
	void **owner;
	struct page *pages[];
};

struct gb_pool {
	int node;
	struct file *file;
	spinlock_t lock;	/* lists and counters below, block free state */
	struct list_head blocks;
	struct list_head partial;
	struct list_head quarantine;
	struct ida ida;
	u64 nr_blocks;
	u64 nr_huge;
	u64 nr_free;
	u64 nr_used;
	u64 nr_quar;
};

/*
 * gb_pools[] and the block size: every user of a pool pointer (allocation,
 * maintenance, statistics) holds gb_pool_rwsem for reading; a block size
 * change, which frees the pools, and unload hold it for writing. Pages
 * are given back (gb_pool_free(), any context) through their block's pool
 * without it: pools are only freed while no page is lent or quarantined.
 */
static struct gb_pool *gb_pools[MAX_NUMNODES];
static DECLARE_RWSEM(gb_pool_rwsem);
static DEFINE_MUTEX(gb_pool_mutex);	/* pool creation (under the rwsem) */
static unsigned int gb_pool_dbg_delay;	/* ms, one-shot (debugfs) */
static struct vfsmount *gb_huge_mnt;
static u32 gb_block_pages;
static atomic_long_t gb_blocks_total;
static unsigned long gb_blocks_max;	/* memory / block */
static u64 gb_mem_budget;		/* memory */
static atomic64_t gb_meta_bytes;	/* charged by the store */
static atomic_long_t gb_quar_pages;	/* all pools' nr_quar */
static gb_pool_kick_fn gb_pool_kick;	/* gb_pool_set_kick() */
/* Per node: lent pages on the node, and remote lends for allocations that
 * wanted the node (see the NUMA paragraph at the top).
 */
static atomic_long_t gb_node_resident[MAX_NUMNODES];
static atomic_long_t gb_node_remote[MAX_NUMNODES];
static atomic_t gb_interleave_seq;

/**
 * gb_pool_set_kick() - set how the pool asks for a maintenance pass
 * @kick: called, in any context, when pages went to quarantine or a
 *        recheck should come soon; NULL for none
 *
 * The store passes its gb_store_kick_maint() at init (before the pool
 * exists) and NULL at exit, so the pool calls up into the store without
 * knowing it.
 */
void gb_pool_set_kick(gb_pool_kick_fn kick)
{
	WRITE_ONCE(gb_pool_kick, kick);
}

static void gb_pool_kick_maint(void)
{
	gb_pool_kick_fn kick = READ_ONCE(gb_pool_kick);

	if (kick)
		kick();
}

/*
 * The RAM budget covers the blocks and the store's object metadata
 * (gb_pool_meta_add()). Metadata can grow after the blocks were made, so
 * two limits: a new block may be made while the blocks do not cover what
 * the metadata leaves of the budget (at most memory / block blocks); the
 * worker gives idle blocks back once blocks and metadata together exceed
 * the budget, and empties partly used ones only while there are more
 * blocks than that first limit (gb_pool_over_budget()). The store keeps
 * what objects hold (head pages, quarantine, metadata) within the budget
 * itself, so the RAM held is below memory + one block at all times and
 * converges to memory.
 */
static unsigned long gb_blocks_allowed(void)
{
	u64 mem = READ_ONCE(gb_mem_budget);
	u64 meta = atomic64_read(&gb_meta_bytes);
	u64 block = (u64)READ_ONCE(gb_block_pages) << PAGE_SHIFT;
	unsigned long cap = READ_ONCE(gb_blocks_max);

	if (meta >= mem)
		return 0;
	return min_t(u64, cap, div64_u64(mem - meta + block - 1, block));
}

/* Blocks and metadata together above the budget: idle blocks should go. */
static bool gb_pool_idle_excess(void)
{
	u64 block = (u64)READ_ONCE(gb_block_pages) << PAGE_SHIFT;

	return atomic_long_read(&gb_blocks_total) * block +
	       atomic64_read(&gb_meta_bytes) > READ_ONCE(gb_mem_budget) ||
	       atomic_long_read(&gb_blocks_total) > READ_ONCE(gb_blocks_max);
}

struct page *gb_hpage_page(const struct gb_hpage *hp)
{
	return hp->blk->pages[hp->idx];
}

/*
 * Idle reference count of @page: the page cache holds one reference per base
 * page of the folio and the pool holds one per base page as well.
 */
static bool gb_page_busy(struct page *page)
{
	struct folio *folio = page_folio(page);

	return folio_ref_count(folio) > 2 * folio_nr_pages(folio);
}

static void gb_pool_make_huge_mnt(void)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	char opts[] = "huge=always";
	struct file_system_type *type;
	struct vfsmount *mnt;

	type = get_fs_type("tmpfs");
	if (!type)
		return;
	mnt = vfs_kern_mount(type, SB_KERNMOUNT, type->name, opts);
	if (IS_ERR(mnt)) {
		pr_info("no private huge tmpfs (%ld), heads use order-0 pages\n",
			PTR_ERR(mnt));
		return;
	}
	gb_huge_mnt = mnt;
#endif
}

static bool gb_block_wants_huge(u32 block)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	return gb_huge_mnt && IS_ALIGNED(block, HPAGE_PMD_SIZE);
#else
	return false;
#endif
}

static struct gb_pool *gb_pool_create(int node)
{
	struct gb_pool *pool;
	struct file *file;
	char name[32];

	pool = kzalloc_node(sizeof(*pool), GFP_KERNEL, node);
	if (!pool)
		return NULL;
	snprintf(name, sizeof(name), "goblin-heads-%d", node);
	if (gb_block_wants_huge(gb_block_pages << PAGE_SHIFT))
		file = shmem_file_setup_with_mnt(gb_huge_mnt, name,
						 MAX_LFS_FILESIZE, VM_NORESERVE);
	else
		file = shmem_file_setup(name, MAX_LFS_FILESIZE, VM_NORESERVE);
	if (IS_ERR(file)) {
		kfree(pool);
		return NULL;
	}
	/* Heads are pinned by the pool: keep reclaim from scanning them. */
	mapping_set_unevictable(file->f_mapping);
	mapping_set_gfp_mask(file->f_mapping, GFP_HIGHUSER);
	pool->node = node;
	pool->file = file;
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->blocks);
	INIT_LIST_HEAD(&pool->partial);
	INIT_LIST_HEAD(&pool->quarantine);
	ida_init(&pool->ida);
	return pool;
}

static struct gb_pool *gb_pool_of(int node)
{
	struct gb_pool *pool;

	lockdep_assert_held(&gb_pool_rwsem);

	if (node < 0 || node >= MAX_NUMNODES || !node_state(node, N_MEMORY))
		node = numa_node_id();
	pool = READ_ONCE(gb_pools[node]);
	if (pool)
		return pool;
	mutex_lock(&gb_pool_mutex);
	pool = gb_pools[node];
	if (!pool) {
		pool = gb_pool_create(node);
		WRITE_ONCE(gb_pools[node], pool);
	}
	mutex_unlock(&gb_pool_mutex);
	return pool;
}

static void gb_block_release(struct gb_block *blk)
{
	struct gb_pool *pool = blk->pool;
	loff_t start = (loff_t)blk->blkno * blk->nr << PAGE_SHIFT;
	u32 i;

	for (i = 0; i < blk->nr; i++)
		if (blk->pages[i])
			put_page(blk->pages[i]);
	shmem_truncate_range(file_inode(pool->file), start,
			     start + ((loff_t)blk->nr << PAGE_SHIFT) - 1);
	ida_free(&pool->ida, blk->blkno);
	kvfree(blk->free);
	kvfree(blk->owner);
	bitmap_free(blk->qmap);
	kvfree(blk);
}

static long gb_block_fill(void *arg)
{
	struct gb_block *blk = arg;
	struct address_space *mapping = blk->pool->file->f_mapping;
	pgoff_t first = (pgoff_t)blk->blkno * blk->nr;
	bool huge = true;
	struct page *page;
	u32 i;

	for (i = 0; i < blk->nr; i++) {
		page = shmem_read_mapping_page_gfp(mapping, first + i,
						   GFP_HIGHUSER | __GFP_NOWARN);
		if (IS_ERR(page))
			return PTR_ERR(page);
		blk->pages[i] = page;
		/* PMD-sized only: 6.12's smaller shmem THP sizes are not huge */
		if (!PageTransCompound(page) ||
		    !folio_test_pmd_mappable(page_folio(page)))
			huge = false;
	}
	blk->huge = huge;
	return 0;
}

static int gb_block_create(struct gb_pool *pool)
{
	struct gb_block *blk;
	u32 nr = READ_ONCE(gb_block_pages);
	unsigned long flags;
	long err;
	int cpu;
	u32 i;

	if (atomic_long_inc_return(&gb_blocks_total) > gb_blocks_allowed()) {
		atomic_long_dec(&gb_blocks_total);
		return -ENOMEM;
	}
	blk = kvzalloc_node(struct_size(blk, pages, nr), GFP_KERNEL, pool->node);
	if (!blk)
		goto nomem;
	blk->pool = pool;
	blk->nr = nr;
	blk->free = kvmalloc_array(nr, sizeof(u32), GFP_KERNEL);
	blk->owner = kvcalloc(nr, sizeof(void *), GFP_KERNEL);
	blk->qmap = bitmap_zalloc(nr, GFP_KERNEL);
	err = ida_alloc(&pool->ida, GFP_KERNEL);
	if (!blk->free || !blk->owner || !blk->qmap || err < 0) {
		if (err >= 0)
			ida_free(&pool->ida, err);
		kvfree(blk->free);
		kvfree(blk->owner);
		bitmap_free(blk->qmap);
		kvfree(blk);
		goto nomem;
	}
	blk->blkno = err;

	cpu = nr_cpu_ids;
	if (pool->node != numa_node_id())
		cpu = cpumask_any_and(cpumask_of_node(pool->node),
				      cpu_online_mask);
	if (cpu < nr_cpu_ids)
		err = work_on_cpu(cpu, gb_block_fill, blk);
	else
		err = gb_block_fill(blk);
	if (err) {
		gb_block_release(blk);
		atomic_long_dec(&gb_blocks_total);
		return err == -ENOSPC ? -ENOMEM : (int)err;
	}
	for (i = 0; i < nr; i++)
		blk->free[i] = nr - 1 - i;
	blk->nr_free = nr;

	spin_lock_irqsave(&pool->lock, flags);
	list_add_tail(&blk->bnode, &pool->blocks);
	list_add_tail(&blk->pnode, &pool->partial);
	INIT_LIST_HEAD(&blk->qnode);
	pool->nr_blocks++;
	if (blk->huge)
		pool->nr_huge++;
	pool->nr_free += nr;
	spin_unlock_irqrestore(&pool->lock, flags);
	return 0;
nomem:
	atomic_long_dec(&gb_blocks_total);
	return -ENOMEM;
}

/*
 * Take @blk out of @pool and its counters (pool->lock held); the caller
 * releases it after dropping the lock. gb_blocks_total drops at once so
 * that budget checks see the release.
 */
static void gb_pool_unlink_block(struct gb_pool *pool, struct gb_block *blk)
{
	list_del(&blk->bnode);
	list_del_init(&blk->pnode);
	list_del_init(&blk->qnode);
	pool->nr_blocks--;
	if (blk->huge)
		pool->nr_huge--;
	pool->nr_free -= blk->nr_free;
	pool->nr_quar -= blk->nr_quar;
	atomic_long_sub(blk->nr_quar, &gb_quar_pages);
	atomic_long_dec(&gb_blocks_total);
}

/*
 * Give back one completely free block of any node. Used when the budget
 * allows no new block for this node while another node sits on an unused
 * one (after a flush, or once the budget was lowered): without this, that
 * node could never get a head page again until its block was released.
 */
static bool gb_pool_release_idle(void)
{
	struct gb_block *blk, *found = NULL;
	unsigned long flags;
	int node;

	for (node = 0; node < MAX_NUMNODES && !found; node++) {
		struct gb_pool *pool = READ_ONCE(gb_pools[node]);

		if (!pool)
			continue;
		spin_lock_irqsave(&pool->lock, flags);
		list_for_each_entry(blk, &pool->blocks, bnode) {
			if (blk->nr_free != blk->nr || blk->nr_quar)
				continue;
			gb_pool_unlink_block(pool, blk);
			found = blk;
			break;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	if (!found)
		return false;
	gb_block_release(found);
	return true;
}

/* Take a free page of @pool for @owner if it has one. */
static bool gb_pool_take(struct gb_pool *pool, struct gb_hpage *hp,
			 void *owner)
{
	struct gb_block *blk;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	blk = list_first_entry_or_null(&pool->partial, struct gb_block, pnode);
	if (blk) {
		hp->blk = blk;
		hp->idx = blk->free[--blk->nr_free];
		blk->owner[hp->idx] = owner;
		if (!blk->nr_free)
			list_del_init(&blk->pnode);
		pool->nr_free--;
		pool->nr_used++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return blk;
}

/* Take a free page of any node's pool but @local's. */
static bool gb_pool_take_remote(struct gb_pool *local, struct gb_hpage *hp,
				void *owner)
{
	int node;

	for (node = 0; node < MAX_NUMNODES; node++) {
		struct gb_pool *pool = READ_ONCE(gb_pools[node]);

		if (pool && pool != local && gb_pool_take(pool, hp, owner))
			return true;
	}
	return false;
}

/* The next online node for an interleaved page. */
static int gb_pool_interleave_node(void)
{
	unsigned int k = (unsigned int)atomic_inc_return(&gb_interleave_seq);
	int nid;

	k %= num_node_state(N_MEMORY);
	for_each_node_state(nid, N_MEMORY)
		if (!k--)
			return nid;
	return numa_node_id();
}

/* Account a page just lent by @pool (see the NUMA paragraph at the top). */
static void gb_pool_lent(struct gb_pool *pool, struct gb_hpage *hp)
{
	int nid = page_to_nid(gb_hpage_page(hp));

	atomic_long_inc(&gb_node_resident[nid]);
	if (nid != pool->node)
		atomic_long_inc(&gb_node_remote[pool->node]);
}

static int __gb_pool_alloc(int node, struct gb_hpage *hp, void *owner,
			   bool strict)
{
	struct gb_pool *pool;
	unsigned int ms;
	int err;

	if (node == GB_POOL_INTERLEAVE)
		node = gb_pool_interleave_node();
	pool = gb_pool_of(node);
	if (!pool)
		return -ENOMEM;
	if (unlikely(READ_ONCE(gb_pool_dbg_delay))) {
		ms = xchg(&gb_pool_dbg_delay, 0);
		if (ms)
			msleep(ms);
	}
	for (;;) {
		if (gb_pool_take(pool, hp, owner)) {
			gb_pool_lent(pool, hp);
			return 0;
		}
		err = gb_block_create(pool);
		if (!err)
			continue;
		if (err != -ENOMEM)
			return err;
		if (gb_pool_full() && gb_pool_release_idle())
			continue;
		/*
		 * The budget is spent and no block is idle: a free page on
		 * another node is better than evicting for one here (the
		 * caller's victims may well free pages on that node only).
		 * Unless the caller wants this node's pages or none.
		 */
		if (strict || !gb_pool_take_remote(pool, hp, owner))
			return -ENOMEM;
		gb_pool_lent(pool, hp);
		return 0;
	}
}

/* gb_pool_alloc_n() and gb_pool_alloc_node_n() (@strict: no other node). */
static int __gb_pool_alloc_n(int node, struct gb_hpage *hp, u32 nr,
			     void *owner, u32 *done, bool strict)
{
	int err = 0;
	u32 i;

	down_read(&gb_pool_rwsem);
	for (i = 0; i < nr; i++) {
		err = __gb_pool_alloc(node, &hp[i], owner, strict);
		if (err)
			break;
	}
	up_read(&gb_pool_rwsem);
	*done = i;
	return err;
}

/**
 * gb_pool_alloc_n - lend a run of head pages to an object
 * @node:  preferred NUMA node (NUMA_NO_NODE: local; GB_POOL_INTERLEAVE:
 *         each page on the next online node in turn)
 * @hp:    array of @nr pages, filled in order
 * @nr:    pages wanted
 * @owner: recorded with each page until it is freed (gb_pool_victims())
 * @done:  set to the number of pages filled, also on failure
 *
 * Takes free pages of the node's pool, creating new blocks when the pool
 * is empty and the RAM budget allows (after giving back an idle block of
 * another node if that is what it takes), else free pages of another
 * node's pool. May sleep. Holds gb_pool_rwsem for reading once for the
 * whole run (a 16 MiB value is 4096 pages), so no pool can go away under
 * it; it stops at the first page it cannot get and drops the rwsem, so
 * that the caller evicts, runs pool maintenance or backs off without it
 * and then asks again for the rest. Pages already taken count as used
 * (a block size change meanwhile fails with -EBUSY).
 *
 * Return: 0 with all @nr pages, or -ENOMEM when the budget is exhausted
 * (the caller evicts).
 */
int gb_pool_alloc_n(int node, struct gb_hpage *hp, u32 nr, void *owner,
		    u32 *done)
{
	return __gb_pool_alloc_n(node, hp, nr, owner, done, false);
}

/**
 * gb_pool_alloc_node_n - gb_pool_alloc_n() from one node's pool only
 * @node:  NUMA node (a node id, not GB_POOL_INTERLEAVE)
 * @hp:    array of @nr pages, filled in order
 * @nr:    pages wanted
 * @owner: recorded with each page until it is freed
 * @done:  set to the number of pages filled, also on failure
 *
 * For NUMA promotion: never lends a page of another node's pool when the
 * budget is spent (-ENOMEM instead). The pages of a block of @node's pool
 * can still be on another node when the page allocator fell back while
 * creating it: the caller checks page_to_nid(). May sleep.
 *
 * Return: 0 with all @nr pages, -ENOMEM, or -EINVAL for a node that is
 * not a node with memory.
 */
int gb_pool_alloc_node_n(int node, struct gb_hpage *hp, u32 nr, void *owner,
			 u32 *done)
{
	/* gb_pool_of() would take the pool of this CPU's node instead */
	if (node < 0 || node >= MAX_NUMNODES || !node_state(node, N_MEMORY)) {
		*done = 0;
		return -EINVAL;
	}
	return __gb_pool_alloc_n(node, hp, nr, owner, done, true);
}

/**
 * gb_pool_free - give a head page back
 * @hp: page lent by gb_pool_alloc_n()
 *
 * Any context. A page still referenced by someone else (socket buffer,
 * RDMA) goes to quarantine instead of the free list.
 */
void gb_pool_free(struct gb_hpage *hp)
{
	struct gb_block *blk = hp->blk;
	struct gb_pool *pool = blk->pool;
	unsigned long flags;
	bool kick = false;

	atomic_long_dec(&gb_node_resident[page_to_nid(blk->pages[hp->idx])]);
	spin_lock_irqsave(&pool->lock, flags);
	pool->nr_used--;
	blk->owner[hp->idx] = NULL;
	if (gb_page_busy(blk->pages[hp->idx])) {
		__set_bit(hp->idx, blk->qmap);
		if (!blk->nr_quar++)
			list_add_tail(&blk->qnode, &pool->quarantine);
		pool->nr_quar++;
		atomic_long_inc(&gb_quar_pages);
		kick = true;
	} else {
		blk->free[blk->nr_free++] = hp->idx;
		if (blk->nr_free == 1)
			list_add_tail(&blk->pnode, &pool->partial);
		pool->nr_free++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (kick) {
		gb_stat_inc(GB_ST_QUARANTINED);
		gb_pool_kick_maint();
	}
}

/* Move quarantined pages whose count is back to baseline to the free list. */
static bool gb_pool_unquarantine(struct gb_pool *pool)
{
	struct gb_block *blk, *tmp;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry_safe(blk, tmp, &pool->quarantine, qnode) {
		for_each_set_bit(i, blk->qmap, blk->nr) {
			if (gb_page_busy(blk->pages[i]))
				continue;
			__clear_bit(i, blk->qmap);
			blk->nr_quar--;
			pool->nr_quar--;
			atomic_long_dec(&gb_quar_pages);
			blk->free[blk->nr_free++] = i;
			if (blk->nr_free == 1)
				list_add_tail(&blk->pnode, &pool->partial);
			pool->nr_free++;
		}
		if (!blk->nr_quar)
			list_del_init(&blk->qnode);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return pool->nr_quar != 0;
}

/* Release completely free blocks while over budget (or all with @all). */
static void gb_pool_shrink(struct gb_pool *pool, bool all)
{
	struct gb_block *blk, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);

	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry_safe(blk, tmp, &pool->blocks, bnode) {
		if (!all && !gb_pool_idle_excess())
			break;
		if (!all && (blk->nr_free != blk->nr || blk->nr_quar))
			continue;
		gb_pool_unlink_block(pool, blk);
		list_add(&blk->bnode, &dead);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	list_for_each_entry_safe(blk, tmp, &dead, bnode)
		gb_block_release(blk);
}

/* gb_pool_maint() with gb_pool_rwsem held (either way). */
static void __gb_pool_maint(bool all)
{
	bool again = false;
	int node;

	lockdep_assert_held(&gb_pool_rwsem);
	for (node = 0; node < MAX_NUMNODES; node++) {
		struct gb_pool *pool = READ_ONCE(gb_pools[node]);

		if (!pool)
			continue;
		if (gb_pool_unquarantine(pool))
			again = true;
		gb_pool_shrink(pool, all);
	}
	if (again && !all)
		gb_pool_kick_maint();
}

/**
 * gb_pool_maint - periodic pool housekeeping (process context)
 * @all: release every block (module unload)
 *
 * Rechecks quarantined pages and gives fully free blocks back to the system
 * while more blocks exist than the budget allows.
 */
void gb_pool_maint(bool all)
{
	down_read(&gb_pool_rwsem);
	__gb_pool_maint(all);
	up_read(&gb_pool_rwsem);
}

bool gb_pool_full(void)
{
	return atomic_long_read(&gb_blocks_total) >= gb_blocks_allowed();
}

/* More blocks than the budget allows (it was lowered, metadata grew). */
bool gb_pool_over_budget(void)
{
	return atomic_long_read(&gb_blocks_total) > gb_blocks_allowed();
}

/**
 * gb_pool_meta_add - charge (or with a negative @delta uncharge) metadata
 * @delta: bytes
 *
 * Any context. The store charges what each object takes outside the pool.
 */
void gb_pool_meta_add(s64 delta)
{
	atomic64_add(delta, &gb_meta_bytes);
}

u64 gb_pool_meta_bytes(void)
{
	return atomic64_read(&gb_meta_bytes);
}

/* Bytes of head pages in quarantine (not lent, not reusable yet). */
u64 gb_pool_quarantined_bytes(void)
{
	return (u64)atomic_long_read(&gb_quar_pages) << PAGE_SHIFT;
}

/* Is a page of @hp referenced by someone else (a send) right now? */
bool gb_hpage_busy(const struct gb_hpage *hp)
{
	return gb_page_busy(hp->blk->pages[hp->idx]);
}

/*
 * Is @blk (found earlier, maybe released since) still in @pool? Pool lock
 * held; only compares addresses.
 */
static bool gb_pool_has_block(struct gb_pool *pool, struct gb_block *blk)
{
	struct gb_block *b;

	list_for_each_entry(b, &pool->blocks, bnode)
		if (b == blk)
			return true;
	return false;
}

/**
 * gb_pool_victims - owners whose eviction frees a whole block
 * @grab: takes a reference on an owner, false if it cannot (called under
 *        the pool lock: an owner stays valid while it holds a lent page)
 * @out:  receives up to @max grabbed owners (one entry per page: an owner
 *        appears, and was grabbed, once per page it holds)
 * @max:  size of @out
 *
 * While there are more blocks than the budget allows and none of them is
 * idle (gb_pool_maint() gives idle ones back), partly used blocks have to
 * be emptied: this picks the block with the fewest lent pages and hands
 * out the owners of those pages, for the store to evict. Process context.
 *
 * Return: number of entries in @out.
 */
int gb_pool_victims(bool (*grab)(void *owner), void **out, int max)
{
	struct gb_pool *pool, *bpool = NULL;
	struct gb_block *blk, *best = NULL;
	u32 used, best_used = U32_MAX, i;
	unsigned long flags;
	int node, n = 0;

	down_read(&gb_pool_rwsem);
	if (!gb_pool_over_budget())
		goto out;
	for (node = 0; node < MAX_NUMNODES; node++) {
		pool = READ_ONCE(gb_pools[node]);
		if (!pool)
			continue;
		spin_lock_irqsave(&pool->lock, flags);
		list_for_each_entry(blk, &pool->blocks, bnode) {
			used = blk->nr - blk->nr_free - blk->nr_quar;
			/* Nothing lent: free soon, or waiting for quarantine. */
			if (used && used < best_used) {
				best = blk;
				bpool = pool;
				best_used = used;
			}
		}
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	if (!best)
		goto out;
	spin_lock_irqsave(&bpool->lock, flags);
	if (gb_pool_has_block(bpool, best)) {
		for (i = 0; i < best->nr && n < max; i++)
			if (best->owner[i] && grab(best->owner[i]))
				out[n++] = best->owner[i];
	}
	spin_unlock_irqrestore(&bpool->lock, flags);
out:
	up_read(&gb_pool_rwsem);
	return n;
}

/**
 * gb_pool_node_room - could @node's pool lend @nr more pages now
 * @node: NUMA node with memory
 * @nr:   pages
 *
 * Counts the pool's free pages, the blocks the budget still allows and
 * the idle blocks of any node (given back for a new one when the budget
 * is spent). For NUMA promotion, which evicts for a copy only when the
 * node can then take it: evicting objects frees pages in their blocks,
 * which stay allocated, and does not let another node's pool grow.
 * Whether the page allocator has the memory is not checked. May sleep.
 *
 * Return: true if @nr pages are available to @node's pool.
 */
bool gb_pool_node_room(int node, u32 nr)
{
	unsigned long total, allowed, flags;
	struct gb_block *blk;
	struct gb_pool *pool;
	u64 avail = 0;
	int n;

	if (node < 0 || node >= MAX_NUMNODES || !node_state(node, N_MEMORY))
		return false;
	down_read(&gb_pool_rwsem);
	total = atomic_long_read(&gb_blocks_total);
	allowed = gb_blocks_allowed();
	if (total < allowed)
		avail += (u64)(allowed - total) * READ_ONCE(gb_block_pages);
	for (n = 0; n < MAX_NUMNODES && avail < nr; n++) {
		pool = READ_ONCE(gb_pools[n]);
		if (!pool)
			continue;
		spin_lock_irqsave(&pool->lock, flags);
		if (n == node) {
			avail += pool->nr_free;
		} else if (total >= allowed) {
			list_for_each_entry(blk, &pool->blocks, bnode)
				if (blk->nr_free == blk->nr && !blk->nr_quar)
					avail += blk->nr;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	up_read(&gb_pool_rwsem);
	return avail >= nr;
}

void gb_pool_set_memory(u64 memory)
{
	WRITE_ONCE(gb_mem_budget, memory);
	WRITE_ONCE(gb_blocks_max, div_u64(memory, gb_block_pages << PAGE_SHIFT));
}

static void gb_pool_destroy_all(void)
{
	int node;

	lockdep_assert_held_write(&gb_pool_rwsem);
	for (node = 0; node < MAX_NUMNODES; node++) {
		struct gb_pool *pool = gb_pools[node];

		if (!pool)
			continue;
		gb_pool_shrink(pool, true);
		fput(pool->file);
		ida_destroy(&pool->ida);
		kfree(pool);
		WRITE_ONCE(gb_pools[node], NULL);
	}
}

static void __gb_pool_get_stats(struct gb_pool_stats *st)
{
	unsigned long flags;
	int node;

	lockdep_assert_held(&gb_pool_rwsem);
	memset(st, 0, sizeof(*st));
	for (node = 0; node < MAX_NUMNODES; node++) {
		struct gb_pool *pool = READ_ONCE(gb_pools[node]);

		if (!pool)
			continue;
		spin_lock_irqsave(&pool->lock, flags);
		st->blocks_total += pool->nr_blocks;
		st->blocks_huge += pool->nr_huge;
		st->pages_free += pool->nr_free;
		st->pages_used += pool->nr_used;
		st->pages_quarantined += pool->nr_quar;
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	st->blocks_small = st->blocks_total - st->blocks_huge;
	st->pages_total = st->pages_free + st->pages_used + st->pages_quarantined;
}

/**
 * gb_pool_set_block - change the block size
 * @block: new size in bytes (page multiple)
 *
 * Every block is released and the pools are rebuilt lazily with the new
 * size. Excludes every allocation and every reader of the pools while it
 * checks that no page is lent or quarantined and frees them.
 *
 * Return: 0, or -EBUSY while a page is lent (an object being stored) or
 * quarantined pages are still referenced.
 */
int gb_pool_set_block(u32 block)
{
	struct gb_pool_stats st;
	int err = 0;

	down_write(&gb_pool_rwsem);
	__gb_pool_maint(false);
	__gb_pool_get_stats(&st);
	if (st.pages_quarantined || st.pages_used) {
		err = -EBUSY;
		goto out;
	}
	gb_pool_destroy_all();
	WRITE_ONCE(gb_block_pages, block >> PAGE_SHIFT);
	gb_pool_set_memory(READ_ONCE(gb_mem_budget));
out:
	up_write(&gb_pool_rwsem);
	return err;
}

void gb_pool_get_stats(struct gb_pool_stats *st)
{
	down_read(&gb_pool_rwsem);
	__gb_pool_get_stats(st);
	up_read(&gb_pool_rwsem);
}

/* Lent pages of every pool that are on @nid now (pool rwsem held). */
static u64 gb_pool_walk_node(int nid)
{
	struct gb_block *blk;
	unsigned long flags;
	int node;
	u64 n = 0;
	u32 i;

	for (node = 0; node < MAX_NUMNODES; node++) {
		struct gb_pool *pool = READ_ONCE(gb_pools[node]);

		if (!pool)
			continue;
		spin_lock_irqsave(&pool->lock, flags);
		list_for_each_entry(blk, &pool->blocks, bnode)
			for (i = 0; i < blk->nr; i++)
				if (blk->owner[i] &&
				    page_to_nid(blk->pages[i]) == nid)
					n++;
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	return n;
}

/**
 * gb_pool_node_usage - what the pool holds on one NUMA node
 * @nid:  node id
 * @ns:   filled in (all 0 for a node the pool has not used)
 * @walk: also count the lent pages on @nid by walking every block
 *        (@ns->walked; takes every pool lock for a while: tests only)
 *
 * Holds gb_pool_rwsem so that a concurrent block size change cannot free
 * the pool under us; may sleep.
 */
void gb_pool_node_usage(int nid, struct gb_pool_node_stats *ns, bool walk)
{
	struct gb_pool *pool;
	unsigned long flags;

	memset(ns, 0, sizeof(*ns));
	if (nid < 0 || nid >= MAX_NUMNODES)
		return;
	ns->resident = atomic_long_read(&gb_node_resident[nid]);
	ns->remote = atomic_long_read(&gb_node_remote[nid]);
	down_read(&gb_pool_rwsem);
	pool = gb_pools[nid];
	if (pool) {
		spin_lock_irqsave(&pool->lock, flags);
		ns->blocks = pool->nr_blocks;
		ns->blocks_huge = pool->nr_huge;
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	if (walk)
		ns->walked = gb_pool_walk_node(nid);
	up_read(&gb_pool_rwsem);
}

/**
 * gb_pool_dbg_delay_next - test hook: make the next allocation pause
 * @ms: milliseconds the next page allocation sleeps once it has picked its
 *      pool, before it takes a page (0 disarms)
 *
 * Widens the window between choosing a pool and using it, for the store's
 * debugfs interface.
 */
void gb_pool_dbg_delay_next(unsigned int ms)
{
	WRITE_ONCE(gb_pool_dbg_delay, ms);
}

int gb_pool_init(u64 memory, u32 block)
{
	int i;

	atomic_long_set(&gb_blocks_total, 0);
	atomic_long_set(&gb_quar_pages, 0);
	atomic64_set(&gb_meta_bytes, 0);
	for (i = 0; i < MAX_NUMNODES; i++) {
		atomic_long_set(&gb_node_resident[i], 0);
		atomic_long_set(&gb_node_remote[i], 0);
	}
	gb_block_pages = block >> PAGE_SHIFT;
	gb_pool_set_memory(memory);
	gb_pool_make_huge_mnt();
	return 0;
}

void gb_pool_exit(void)
{
	down_write(&gb_pool_rwsem);
	gb_pool_destroy_all();
	up_write(&gb_pool_rwsem);
	if (gb_huge_mnt) {
		kern_unmount(gb_huge_mnt);
		gb_huge_mnt = NULL;
	}
}
