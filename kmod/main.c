// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: module entry points and boot-time parameters.
 *
 * Subsystems come up in dependency order and go down in reverse. Netlink is
 * registered last so that userspace cannot reach a half-initialised module,
 * and unregistered first so that no configuration request races teardown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "cpus.h"
#include "goblin.h"

unsigned long long gb_param_memory;
module_param_named(memory, gb_param_memory, ullong, 0444);
MODULE_PARM_DESC(memory, "RAM budget for object heads in bytes (default 0: 1/8 of RAM)");

unsigned int gb_param_block = 2 << 20;
module_param_named(block, gb_param_block, uint, 0444);
MODULE_PARM_DESC(block, "Allocation block size in bytes (default 2 MiB)");

unsigned int gb_param_ram_head = 256 << 10;
module_param_named(ram_head, gb_param_ram_head, uint, 0444);
MODULE_PARM_DESC(ram_head, "Bytes of each value held in RAM (default 256 KiB)");

unsigned int gb_param_item_max = 1 << 20;
module_param_named(item_max, gb_param_item_max, uint, 0444);
MODULE_PARM_DESC(item_max, "Largest value in bytes, 1 KiB..16 MiB (default 1 MiB, like memcached -I)");

char *gb_param_ssd_dir = "";
module_param_named(ssd_dir, gb_param_ssd_dir, charp, 0444);
MODULE_PARM_DESC(ssd_dir, "Directory for value tails (default: none, RAM only)");

unsigned long long gb_param_ssd_max;
module_param_named(ssd_max, gb_param_ssd_max, ullong, 0444);
MODULE_PARM_DESC(ssd_max, "Budget for tails in bytes (default 0: 90% of free space)");

unsigned int gb_param_cores;
module_param_named(cores, gb_param_cores, uint, 0444);
MODULE_PARM_DESC(cores, "Worker CPUs for network service (default 0: all online)");

bool gb_param_reclaim;
module_param_named(reclaim, gb_param_reclaim, bool, 0444);
MODULE_PARM_DESC(reclaim, "Background reclaimer at load (store setting reclaim): keep 1/16 to 1/8 of memory (at most 64 to 128 MiB) free for SETs (default off)");

char *gb_param_memcache = "";
module_param_named(memcache, gb_param_memcache, charp, 0444);
MODULE_PARM_DESC(memcache, "Memcache TCP listener to start at load, \"addr:port\" (default: none)");

struct gb_subsys {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
};

static const struct gb_subsys gb_subsystems[] = {
	{ "stats",	gb_stats_init,		gb_stats_exit },
	{ "store",	gb_store_init,		gb_store_exit },
	{ "mc_exec",	gb_mc_exec_init,	gb_mc_exec_exit },
	{ "cpus",	gb_cpus_init,		gb_cpus_exit },
	{ "tcp",	gb_tcp_init,		gb_tcp_exit },
	{ "http",	gb_http_init,		gb_http_exit },
	{ "rdma",	gb_rdma_init,		gb_rdma_exit },
	{ "netlink",	gb_netlink_init,	gb_netlink_exit },
};

static void gb_unwind(int count)
{
	while (count-- > 0)
		gb_subsystems[count].exit();
}

static int __init gb_init(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(gb_subsystems); i++) {
		err = gb_subsystems[i].init();
		if (err) {
			pr_err("%s init failed: %d\n", gb_subsystems[i].name, err);
			gb_unwind(i);
			return err;
		}
	}
	pr_info("Goblin Store " GB_VERSION " loaded\n");
	return 0;
}

static void __exit gb_exit(void)
{
	/* SETs waiting for SSD space must not hold up the transports' exit */
	gb_store_stop_waits();
	gb_unwind(ARRAY_SIZE(gb_subsystems));
	pr_info("unloaded\n");
}

module_init(gb_init);
module_exit(gb_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("Goblin Store developers");
MODULE_DESCRIPTION("Goblin Store: large-object cache over RDMA and memcache");
MODULE_VERSION(GB_VERSION);
/*
 * crc32c() (store setting crc) comes from libcrc32c (CONFIG_LIBCRC32C, m in
 * Debian's 6.1 and 6.12): a symbol dependency, which modprobe resolves by
 * itself; a plain insmod needs "modprobe libcrc32c" first.
 */
MODULE_SOFTDEP("pre: ib_core rdma_cm");
