// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the store, configuration, statistics, init and exit.
 *
 * The store's files (kmod/store/): config.c configuration, statistics,
 * init and exit; index.c the index and the operations on it; object.c
 * objects and their pages; evict.c eviction, expiry and maintenance;
 * debugfs.c the test interface. store_int.h declares what they share;
 * everyone else uses kmod/store.h.
 *
 * Memory budget changes: raising memory applies immediately; lowering it
 * below the RAM currently used by heads is refused (delete or flush first);
 * otherwise spare blocks are released by the maintenance worker, which
 * also evicts the objects of the least used block while no block is idle
 * (gb_trim_blocks()). ram_head
 * and block can only change while nothing is stored; block must be a page
 * multiple, at least ram_head (a block always holds one full head) and at
 * most 1 GiB. item_max (memcache's largest value, 1 KiB..16 MiB) applies
 * to values stored after the change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "store_int.h"

static DEFINE_MUTEX(gb_cfg_mutex);	/* configuration changes */
struct gb_store_config gb_store_cfg;
u32 gb_store_ram_head;			/* READ_ONCE copy of gb_store_cfg.ram_head */
static u32 gb_store_item_max_cur;	/* READ_ONCE copy of gb_store_cfg.item_max */
u64 gb_store_ssd_max;
static DEFINE_SPINLOCK(gb_ssd_lock);	/* gb_store_ssd pointer */
struct gb_ssd *gb_store_ssd;
static uuid_t gb_uuid;

/* ---------------------------------------------------------------------- */
/* Object lifetime                                                        */

struct gb_ssd *gb_store_ssd_get_current(void)
{
	struct gb_ssd *ssd;

	spin_lock(&gb_ssd_lock);
	ssd = gb_store_ssd;
	if (ssd)
		kref_get(&ssd->ref);
	spin_unlock(&gb_ssd_lock);
	return ssd;
}

void gb_store_get_stats(struct gb_store_stats *st)
{
	struct gb_pool_stats ps;

	memset(st, 0, sizeof(*st));
	gb_pool_get_stats(&ps);
	st->curr_items = gb_store_curr_items();
	st->total_items = gb_stat_sum(GB_ST_TOTAL_ITEMS);
	st->bytes = max_t(s64, (s64)gb_stat_sum(GB_ST_CURR_BYTES), 0);
	st->head_bytes = atomic64_read(&gb_store_head_bytes);
	st->meta_bytes = gb_pool_meta_bytes();
	st->tail_bytes = atomic64_read(&gb_store_tail_bytes);
	st->evictions = gb_stat_sum(GB_ST_EVICTIONS);
	st->expired_unfetched = gb_stat_sum(GB_ST_EXPIRED_UNFETCHED);
	st->reclaimed = gb_stat_sum(GB_ST_RECLAIMED);
	st->get_hits = gb_stat_sum(GB_ST_GET_HITS);
	st->get_misses = gb_stat_sum(GB_ST_GET_MISSES);
	st->get_expired = gb_stat_sum(GB_ST_GET_EXPIRED);
	st->get_flushed = gb_stat_sum(GB_ST_GET_FLUSHED);
	st->cmd_set = gb_stat_sum(GB_ST_CMD_SET);
	st->cmd_touch = gb_stat_sum(GB_ST_CMD_TOUCH);
	st->touch_hits = gb_stat_sum(GB_ST_TOUCH_HITS);
	st->touch_misses = gb_stat_sum(GB_ST_TOUCH_MISSES);
	st->delete_hits = gb_stat_sum(GB_ST_DELETE_HITS);
	st->delete_misses = gb_stat_sum(GB_ST_DELETE_MISSES);
	st->incr_hits = gb_stat_sum(GB_ST_INCR_HITS);
	st->incr_misses = gb_stat_sum(GB_ST_INCR_MISSES);
	st->decr_hits = gb_stat_sum(GB_ST_DECR_HITS);
	st->decr_misses = gb_stat_sum(GB_ST_DECR_MISSES);
	st->cas_hits = gb_stat_sum(GB_ST_CAS_HITS);
	st->cas_misses = gb_stat_sum(GB_ST_CAS_MISSES);
	st->cas_badval = gb_stat_sum(GB_ST_CAS_BADVAL);
	st->blocks_total = ps.blocks_total;
	st->blocks_huge = ps.blocks_huge;
	st->blocks_small = ps.blocks_small;
	st->pages_free = ps.pages_free;
	st->pages_quarantined = ps.pages_quarantined;
	st->quarantined_total = gb_stat_sum(GB_ST_QUARANTINED);
	st->tail_io_errors = gb_stat_sum(GB_ST_TAIL_IO_ERRORS);
	st->tail_wb_errors = gb_stat_sum(GB_ST_TAIL_WB_ERRORS);
	st->promotions = gb_stat_sum(GB_ST_PROMOTIONS);
	st->promoted_bytes = gb_stat_sum(GB_ST_PROMOTED_BYTES);
	st->promotion_failures = gb_stat_sum(GB_ST_PROMOTION_FAILURES);
	st->memory_limit = READ_ONCE(gb_store_cfg.memory);
	st->ssd_limit = READ_ONCE(gb_store_ssd_max);
}

void gb_store_get_config(struct gb_store_config *cfg)
{
	mutex_lock(&gb_cfg_mutex);
	*cfg = gb_store_cfg;
	cfg->ssd_max = gb_store_ssd_max;
	mutex_unlock(&gb_cfg_mutex);
}

u32 gb_store_item_max(void)
{
	return READ_ONCE(gb_store_item_max_cur);
}

u64 gb_store_memory(void)
{
	return READ_ONCE(gb_store_cfg.memory);
}

static u64 gb_default_memory(void)
{
	return ((u64)totalram_pages() << PAGE_SHIFT) / 8;
}

/* Refuse a configuration: @msg is a static string naming the field. */
static int gb_refuse(struct netlink_ext_ack *extack, const char *msg, int err)
{
	if (extack)
		extack->_msg = msg;
	pr_err("config refused: %s\n", msg);
	return err;
}

/**
 * gb_store_set_config - apply a complete configuration
 * @cfg:    wanted configuration (memory 0 = 1/8 of RAM, ssd_max 0 = 90% of
 *          the free space, empty ssd_dir = RAM only, reclaim_low 0 = the
 *          reclaimer's automatic low watermark, see evict.c)
 * @extack: receives the reason of a refusal
 *
 * Either everything is applied or nothing is. Process context.
 *
 * Return: 0 or -errno.
 */
int gb_store_set_config(const struct gb_store_config *cfg,
			struct netlink_ext_ack *extack)
{
	u64 memory = cfg->memory ?: gb_default_memory();
	bool geom = cfg->block != gb_store_cfg.block ||
		    cfg->ram_head != gb_store_cfg.ram_head;
	struct gb_ssd *ssd = NULL, *old_ssd = NULL;
	bool dir_change;
	const char *why = NULL;
	u32 old_block;
	int err = 0;

	mutex_lock(&gb_cfg_mutex);
	if (cfg->ram_head < 4096 || !PAGE_ALIGNED(cfg->ram_head) ||
	    cfg->ram_head > GB_RAM_HEAD_MAX) {
		err = gb_refuse(extack,
				"ram_head: must be a page multiple between 4 KiB and 16 MiB",
				-EINVAL);
		goto out;
	}
	if (!PAGE_ALIGNED(cfg->block) || cfg->block < cfg->ram_head ||
	    cfg->block > GB_BLOCK_MAX) {
		err = gb_refuse(extack,
				"block: must be a page multiple, at least ram_head and at most 1 GiB",
				-EINVAL);
		goto out;
	}
	if (cfg->item_max < GB_ITEM_MAX_MIN || cfg->item_max > GB_VALUE_MAX) {
		err = gb_refuse(extack,
				"item_max: must be between 1 KiB and 16 MiB",
				-EINVAL);
		goto out;
	}
	if (memory > (u64)totalram_pages() << PAGE_SHIFT) {
		err = gb_refuse(extack, "memory: larger than RAM",
				-EINVAL);
		goto out;
	}
	if (memory < cfg->block) {
		err = gb_refuse(extack, "memory: smaller than one block",
				-EINVAL);
		goto out;
	}
	if (strnlen(cfg->ssd_dir, sizeof(cfg->ssd_dir)) >= sizeof(cfg->ssd_dir)) {
		err = gb_refuse(extack, "ssd_dir: too long",
				-ENAMETOOLONG);
		goto out;
	}

	if (geom) {
		gb_store_reclaim(false, false);
		/*
		 * A snapshot: a SET may link an object right after it. That
		 * race is as old as the check (SETs never took gb_cfg_mutex).
		 */
		if (gb_store_shard_items()) {
			err = gb_refuse(extack,
					"ram_head/block: cannot change while objects are stored",
					-EBUSY);
			goto out;
		}
	}
	if (cfg->reclaim_low &&
	    (cfg->reclaim_low < PAGE_SIZE || cfg->reclaim_low > memory / 4)) {
		err = gb_refuse(extack,
				"reclaim_low: must be 0 (automatic) or between 4 KiB and a quarter of memory",
				-EINVAL);
		goto out;
	}
	if (memory < (u64)atomic64_read(&gb_store_head_bytes) + gb_pool_meta_bytes()) {
		err = gb_refuse(extack,
				"memory: below the RAM used by stored objects; delete or flush first",
				-EBUSY);
		goto out;
	}

	old_block = gb_store_cfg.block;
	if (cfg->block != gb_store_cfg.block) {
		/* neither a copy under way nor the queue may hold pages */
		gb_store_promote_quiesce();
		gb_store_drain_frees();
		if (gb_pool_set_block(cfg->block)) {
			err = gb_refuse(extack,
					"block: head pages still lent to a SET or referenced by a send; retry",
					-EBUSY);
			goto out;
		}
	}

	dir_change = strcmp(cfg->ssd_dir, gb_store_cfg.ssd_dir) != 0;
	if (cfg->ssd_dir[0] && (dir_change || geom)) {
		ssd = gb_ssd_open(cfg->ssd_dir, cfg->ram_head, cfg->block,
				  &gb_uuid, &why);
		if (IS_ERR(ssd)) {
			err = PTR_ERR(ssd);
			if (extack)
				extack->_msg = why;
			pr_err("ssd_dir %s refused: %s (%d)\n", cfg->ssd_dir,
			       why, err);
			if (cfg->block != old_block)
				gb_pool_set_block(old_block);
			goto out;
		}
	}

	/* Nothing can fail from here on. */
	if (cfg->ssd_dir[0] && (dir_change || geom)) {
		spin_lock(&gb_ssd_lock);
		old_ssd = gb_store_ssd;
		gb_store_ssd = ssd;
		spin_unlock(&gb_ssd_lock);
	} else if (!cfg->ssd_dir[0] && gb_store_ssd) {
		spin_lock(&gb_ssd_lock);
		old_ssd = gb_store_ssd;
		gb_store_ssd = NULL;
		spin_unlock(&gb_ssd_lock);
	}
	if (old_ssd) {
		/* SETs waiting for space in the old directory fail. */
		gb_space_abort(false);
		/* Tails in the old directory go with their objects. */
		gb_store_reclaim(false, true);
		gb_ssd_put(old_ssd);
	}
	gb_store_cfg.ram_head = cfg->ram_head;
	WRITE_ONCE(gb_store_ram_head, cfg->ram_head);
	gb_store_cfg.block = cfg->block;
	/* Stored values stay; new ones are checked against the new limit. */
	gb_store_cfg.item_max = cfg->item_max;
	WRITE_ONCE(gb_store_item_max_cur, cfg->item_max);
	WRITE_ONCE(gb_store_cfg.memory, memory);
	gb_pool_set_memory(memory);
	strscpy(gb_store_cfg.ssd_dir, cfg->ssd_dir, sizeof(gb_store_cfg.ssd_dir));
	if (gb_store_ssd)
		WRITE_ONCE(gb_store_ssd_max,
			   cfg->ssd_max ?: gb_ssd_default_max(gb_store_ssd));
	else
		WRITE_ONCE(gb_store_ssd_max, 0);
	gb_store_cfg.ssd_max = gb_store_ssd_max;
	/* a larger budget may fit the SETs waiting for space now */
	gb_space_kick();
	/* read locklessly by SETs and the reclaimer (evict.c) */
	WRITE_ONCE(gb_store_cfg.reclaim_low, cfg->reclaim_low);
	WRITE_ONCE(gb_store_cfg.reclaim, cfg->reclaim);
	gb_store_kick_maint();
out:
	mutex_unlock(&gb_cfg_mutex);
	return err;
}

/* ---------------------------------------------------------------------- */
/* Init / exit                                                            */

int gb_store_init(void)
{
	struct gb_store_config cfg = {};
	int err;

	uuid_gen(&gb_uuid);
	gb_store_rmw_init();
	gb_store_shards_init();
	gb_store_numa_init();
	gb_store_promote_init();
	atomic64_set(&gb_store_cas_seq, 0);
	atomic64_set(&gb_store_flush_cas, 0);
	gb_store_flush_when = 0;
	gb_store_pressure_next = jiffies;
	gb_store_ssd = NULL;
	gb_store_ssd_max = 0;
	atomic64_set(&gb_store_head_bytes, 0);
	atomic64_set(&gb_store_tail_bytes, 0);
	gb_space_init();

	cfg.memory = gb_param_memory;
	cfg.block = gb_param_block;
	cfg.ram_head = gb_param_ram_head;
	cfg.item_max = gb_param_item_max;
	cfg.ssd_max = gb_param_ssd_max;
	cfg.reclaim = gb_param_reclaim;
	strscpy(cfg.ssd_dir, gb_param_ssd_dir ?: "", sizeof(cfg.ssd_dir));

	err = rhashtable_init(&gb_store_ht, &gb_store_ht_params);
	if (err)
		return err;
	gb_store_wq = alloc_workqueue("goblin_store", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	gb_store_free_wq = alloc_workqueue("goblin_free",
					   WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!gb_store_wq || !gb_store_free_wq) {
		err = -ENOMEM;
		goto err_wq;
	}
	INIT_DELAYED_WORK(&gb_store_maint_dwork, gb_store_maint_work);
	INIT_DELAYED_WORK(&gb_store_quar_dwork, gb_store_quar_work);
	INIT_WORK(&gb_store_reap_work, gb_store_reap_work_fn);
	INIT_WORK(&gb_store_reclaim_work, gb_store_reclaim_work_fn);
	gb_store_reclaim_next = jiffies;
	gb_store_quar_delay = GB_KICK_DELAY;
	atomic64_set(&gb_store_maint_runs, 0);
	atomic64_set(&gb_store_reclaim_walks, 0);
	atomic64_set(&gb_store_reclaim_backoffs, 0);
	atomic64_set(&gb_store_evict_scanned, 0);
	atomic64_set(&gb_store_lookup_gaveup, 0);
	INIT_DELAYED_WORK(&gb_store_flush_dwork, gb_store_flush_work);

	/* Geometry the validation compares against: none yet. */
	gb_store_cfg.block = cfg.block;
	gb_store_cfg.ram_head = cfg.ram_head;
	gb_store_cfg.ssd_dir[0] = '\0';
	gb_store_ram_head = cfg.ram_head;
	gb_pool_set_kick(gb_store_kick_maint);
	err = gb_pool_init(cfg.memory ?: gb_default_memory(), cfg.block);
	if (err)
		goto err_wq;
	err = gb_store_set_config(&cfg, NULL);
	if (err) {
		pr_err("invalid module parameters (%d)\n", err);
		goto err_pool;
	}
	WRITE_ONCE(gb_store_running, true);
	queue_delayed_work(gb_store_wq, &gb_store_maint_dwork, GB_MAINT_PERIOD);
	gb_store_dbg_init();
	return 0;

err_pool:
	gb_pool_exit();
err_wq:
	if (gb_store_wq)
		destroy_workqueue(gb_store_wq);
	if (gb_store_free_wq)
		destroy_workqueue(gb_store_free_wq);
	gb_store_wq = NULL;
	gb_store_free_wq = NULL;
	gb_pool_set_kick(NULL);
	rhashtable_destroy(&gb_store_ht);
	return err;
}

void gb_store_exit(void)
{
	gb_space_abort(true);	/* normally done already (gb_store_stop_waits()) */
	gb_store_dbg_exit();
	WRITE_ONCE(gb_store_running, false);
	/* promotions hold objects and use the pool: stop them first */
	gb_store_promote_exit();
	cancel_delayed_work_sync(&gb_store_flush_dwork);
	cancel_delayed_work_sync(&gb_store_maint_dwork);
	cancel_delayed_work_sync(&gb_store_quar_dwork);
	cancel_work_sync(&gb_store_reap_work);
	cancel_work_sync(&gb_store_reclaim_work);
	gb_store_reap();
	gb_store_reclaim(true, false);
	gb_store_drain_frees();
	cancel_delayed_work_sync(&gb_store_maint_dwork);
	cancel_delayed_work_sync(&gb_store_quar_dwork);
	destroy_workqueue(gb_store_free_wq);
	destroy_workqueue(gb_store_wq);
	gb_pool_exit();
	gb_pool_set_kick(NULL);
	gb_ssd_put(gb_store_ssd);
	gb_store_ssd = NULL;
	WARN_ON(atomic64_read(&gb_store_head_bytes));
	WARN_ON(gb_pool_meta_bytes());
	WARN_ON(atomic64_read(&gb_store_tail_bytes));
	rhashtable_destroy(&gb_store_ht);
	xa_destroy(&gb_store_ids);
	memset(&gb_store_cfg, 0, sizeof(gb_store_cfg));
}
