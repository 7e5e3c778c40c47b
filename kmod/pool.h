/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: head page pool.
 *
 * The RAM budget is carved into blocks of page-cache pages taken from one
 * kernel-internal shmem file per NUMA node; objects borrow single pages from
 * those blocks for their heads.
 */
#ifndef _GOBLIN_POOL_H
#define _GOBLIN_POOL_H

#include <linux/types.h>

struct gb_block;
struct page;

/**
 * struct gb_hpage - one head page lent to an object
 * @blk: block the page belongs to
 * @idx: index of the page inside @blk
 */
struct gb_hpage {
	struct gb_block *blk;
	u32 idx;
};

/* gb_pool_alloc_n() node: spread the pages over the online nodes. */
#define GB_POOL_INTERLEAVE	(-2)

/**
 * struct gb_pool_node_stats - what the pool holds on one NUMA node
 * @resident:     head pages lent out that are on the node (page_to_nid()
 *                of each page when it was lent)
 * @remote:       pages lent to allocations that wanted this node but got
 *                a page on another one (node full, budget spent)
 * @blocks:       blocks of the node's pool
 * @blocks_huge:  of those, backed by huge pages only
 * @walked:       lent pages on the node counted now by walking every
 *                block (page_to_nid() of every lent page; slow)
 */
struct gb_pool_node_stats {
	u64 resident;
	u64 remote;
	u64 blocks;
	u64 blocks_huge;
	u64 walked;
};

struct gb_pool_stats {
	u64 blocks_total;
	u64 blocks_huge;
	u64 blocks_small;
	u64 pages_total;
	u64 pages_free;
	u64 pages_used;
	u64 pages_quarantined;
};

int gb_pool_init(u64 memory, u32 block);
void gb_pool_exit(void);
int gb_pool_alloc_n(int node, struct gb_hpage *hp, u32 nr, void *owner,
		    u32 *done);
int gb_pool_alloc_node_n(int node, struct gb_hpage *hp, u32 nr, void *owner,
			 u32 *done);
void gb_pool_free(struct gb_hpage *hp);
struct page *gb_hpage_page(const struct gb_hpage *hp);
void gb_pool_set_memory(u64 memory);
int gb_pool_set_block(u32 block);
void gb_pool_maint(bool all);
void gb_pool_get_stats(struct gb_pool_stats *st);
void gb_pool_node_usage(int nid, struct gb_pool_node_stats *ns, bool walk);
bool gb_pool_full(void);
bool gb_pool_over_budget(void);
void gb_pool_meta_add(s64 delta);
u64 gb_pool_meta_bytes(void);
u64 gb_pool_quarantined_bytes(void);
bool gb_hpage_busy(const struct gb_hpage *hp);
int gb_pool_victims(bool (*grab)(void *owner), void **out, int max);
bool gb_pool_node_room(int node, u32 nr);
void gb_pool_dbg_delay_next(unsigned int ms);
typedef void (*gb_pool_kick_fn)(void);
void gb_pool_set_kick(gb_pool_kick_fn kick);

#endif /* _GOBLIN_POOL_H */
