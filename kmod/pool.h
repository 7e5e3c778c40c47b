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
void gb_pool_free(struct gb_hpage *hp);
struct page *gb_hpage_page(const struct gb_hpage *hp);
void gb_pool_set_memory(u64 memory);
int gb_pool_set_block(u32 block);
void gb_pool_maint(bool all);
void gb_pool_get_stats(struct gb_pool_stats *st);
void gb_pool_node_usage(int nid, u64 *pages_used, u64 *blocks);
bool gb_pool_full(void);
bool gb_pool_over_budget(void);
void gb_pool_meta_add(s64 delta);
u64 gb_pool_meta_bytes(void);
u64 gb_pool_quarantined_bytes(void);
bool gb_hpage_busy(const struct gb_hpage *hp);
int gb_pool_victims(bool (*grab)(void *owner), void **out, int max);
void gb_pool_dbg_delay_next(unsigned int ms);
typedef void (*gb_pool_kick_fn)(void);
void gb_pool_set_kick(gb_pool_kick_fn kick);

#endif /* _GOBLIN_POOL_H */
