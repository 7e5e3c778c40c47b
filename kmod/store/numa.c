// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: NUMA placement of heads, and the mlock setting of the head
 * memory (promotion is kmod/store/promote.c).
 *
 * Placement (Documentation/numa.rst): every object's head pages come from
 * the pool of one node chosen here when the object is built:
 *
 *   device      (default) the node of the RDMA device the value arrives
 *               through, which the transport passes down as a plain node
 *               number (gb_obj_alloc_node()); without one (memcache over
 *               TCP, a device on no node) the node of the writing CPU
 *   local       the node of the writing CPU
 *   interleave  page by page over the online nodes
 *   bind NODE   NODE
 *
 * The store never looks at a transport: a node is all it is given. The
 * pool lends a page of another node when the wanted one has no memory or
 * the budget is spent, and counts that as remote (kmod/pool.c).
 *
 * The settings are written under the netlink family's lock and read by
 * allocations without one: policy and node are packed into one word so
 * that an allocation never sees the policy of one setting with the node of
 * another.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/topology.h>

#include <linux/goblin.h>

#include "store_int.h"

#define GB_NUMA_NODE_BITS	16

static u32 gb_numa_word = GOBLIN_NUMA_DEVICE << GB_NUMA_NODE_BITS;
static atomic_long_t gb_numa_objs[MAX_NUMNODES];

static bool gb_numa_node_ok(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && node_state(nid, N_MEMORY);
}

/**
 * gb_store_pick_node - the pool node for a new object's heads
 * @dev_node: node of the device the value comes through, NUMA_NO_NODE for
 *            none
 *
 * Return: a node id, or GB_POOL_INTERLEAVE.
 */
int gb_store_pick_node(int dev_node)
{
	u32 w = READ_ONCE(gb_numa_word);
	int node = w & ((1U << GB_NUMA_NODE_BITS) - 1);

	switch (w >> GB_NUMA_NODE_BITS) {
	case GOBLIN_NUMA_BIND:
		if (gb_numa_node_ok(node))
			return node;
		break;
	case GOBLIN_NUMA_INTERLEAVE:
		return GB_POOL_INTERLEAVE;
	case GOBLIN_NUMA_DEVICE:
		if (gb_numa_node_ok(dev_node))
			return dev_node;
		break;
	default:
		break;
	}
	/* the memory node of this CPU (its own node may have none) */
	return numa_mem_id();
}

/* Count an object on the node of its first head page (@delta +1 or -1). */
void gb_store_numa_obj_add(int nid, long delta)
{
	if (nid >= 0 && nid < MAX_NUMNODES)
		atomic_long_add(delta, &gb_numa_objs[nid]);
}

void gb_store_get_numa(struct gb_store_numa *nc)
{
	u32 w = READ_ONCE(gb_numa_word);

	nc->policy = w >> GB_NUMA_NODE_BITS;
	nc->node = w & ((1U << GB_NUMA_NODE_BITS) - 1);
}

/**
 * gb_store_set_numa - set the placement policy for objects stored from now
 * @nc:     policy and node (the node matters for GOBLIN_NUMA_BIND only and
 *          must be online)
 * @extack: receives the reason of a refusal
 *
 * Objects already stored stay where they are until promotion moves them
 * (kmod/store/promote.c), whose queue is emptied: what was queued was
 * wanted on another node. Process context.
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int gb_store_set_numa(const struct gb_store_numa *nc,
		      struct netlink_ext_ack *extack)
{
	if (nc->policy > GOBLIN_NUMA_DEVICE) {
		NL_SET_ERR_MSG(extack, "policy: unknown");
		return -ERANGE;
	}
	if (nc->node >= MAX_NUMNODES || nc->node >= (1U << GB_NUMA_NODE_BITS) ||
	    (nc->policy == GOBLIN_NUMA_BIND && !node_state(nc->node, N_MEMORY))) {
		NL_SET_ERR_MSG(extack, "node: no such online NUMA node with memory");
		return -EINVAL;
	}
	WRITE_ONCE(gb_numa_word,
		   (u32)nc->policy << GB_NUMA_NODE_BITS | nc->node);
	gb_store_promote_policy_changed();
	return 0;
}

/**
 * gb_store_node_usage - what the store holds on one NUMA node
 * @nid:  node id
 * @nu:   filled in; all 0 for a node the store has not used
 * @walk: also count the head pages on @nid by walking the pool
 *        (@nu->walked_bytes; for tests, takes the pool locks a while)
 *
 * Process context.
 */
void gb_store_node_usage(int nid, struct gb_store_node_usage *nu, bool walk)
{
	struct gb_pool_node_stats ns;

	gb_pool_node_usage(nid, &ns, walk);
	memset(nu, 0, sizeof(*nu));
	nu->head_bytes = ns.resident << PAGE_SHIFT;
	nu->walked_bytes = ns.walked << PAGE_SHIFT;
	nu->remote = ns.remote;
	nu->blocks = ns.blocks;
	nu->blocks_huge = ns.blocks_huge;
	nu->blocks_small = ns.blocks - ns.blocks_huge;
	nu->promoted = gb_store_promote_node_in(nid);
	if (nid >= 0 && nid < MAX_NUMNODES)
		nu->objects = max_t(long, atomic_long_read(&gb_numa_objs[nid]), 0);
}

/**
 * gb_store_set_mlock - keep head pages unevictable (or not)
 * @on:     wanted setting
 * @extack: receives the reason of a refusal
 *
 * Heads are always unevictable: the pool pins every page and marks its
 * mappings unevictable (kmod/pool.c), and nothing in the store could cope
 * with a head page going to swap under a send or an RDMA mapping. So only
 * "on" is accepted; "off" is refused rather than stored and ignored.
 *
 * Return: 0 or -EOPNOTSUPP.
 */
int gb_store_set_mlock(bool on, struct netlink_ext_ack *extack)
{
	if (on)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "mlock: off is not implemented (head pages are always pinned and unevictable)");
	return -EOPNOTSUPP;
}

bool gb_store_get_mlock(void)
{
	return true;
}

void gb_store_numa_init(void)
{
	int i;

	WRITE_ONCE(gb_numa_word, GOBLIN_NUMA_DEVICE << GB_NUMA_NODE_BITS);
	for (i = 0; i < MAX_NUMNODES; i++)
		atomic_long_set(&gb_numa_objs[i], 0);
}
