// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the worker CPUs of the network transports.
 *
 * The `cpus` setting (netlink STORE_SET CPUS, a CPU list such as "0-1,3",
 * or "all") and `cores` (how many of them) decide on which CPUs TCP and
 * RDMA connections execute requests. The transports ask here for a CPU:
 * gb_cpus_near() for the CPU that received a connection's packets (the
 * CPU itself if it is a worker, else a worker of its node, else any
 * worker) and gb_cpus_pick() for a worker of a node (an RDMA device's),
 * any worker for NUMA_NO_NODE or a node without workers. Workers are
 * chosen round robin among the candidates.
 *
 * Readers run in any context (socket callbacks in softirq): the set is an
 * RCU-protected copy, replaced whole by the netlink handler (genl_mutex
 * serialises writers), and gb_cpus_gen_nr advances after every change,
 * and when a CPU goes online or offline (the workers are counted over
 * online CPUs), so that a CPU chosen before it is chosen again
 * (gb_cpus_stale()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "goblin.h"
#include "cpus.h"

struct gb_cpus_cfg {
	struct rcu_head rcu;
	struct cpumask mask;
};

/* NULL: every online CPU */
static struct gb_cpus_cfg __rcu *gb_cpus_cur;
static atomic_t gb_cpus_gen_nr = ATOMIC_INIT(0);
static atomic_t gb_cpus_rr = ATOMIC_INIT(0);
static int gb_cpus_hp_state;

/**
 * gb_cpus_gen() - the generation of the worker settings
 *
 * Return: a number that changes with every change of `cpus` or `cores`.
 * Read before the settings themselves (acquire), so a CPU chosen after
 * reading generation G honours the settings of G or later.
 */
u32 gb_cpus_gen(void)
{
	return (u32)atomic_read_acquire(&gb_cpus_gen_nr);
}

/**
 * gb_cpus_parse() - validate a `cpus` value
 * @list: "all", or a CPU list (cpulist_parse(): "0-3,8")
 * @extack: for the refusal message
 *
 * Return: a new setting for gb_cpus_apply() (NULL for "all"), or an
 * ERR_PTR: -EINVAL when @list is no CPU list, is empty, or names a CPU
 * that is not online or not possible.
 */
struct gb_cpus_cfg *gb_cpus_parse(const char *list,
				  struct netlink_ext_ack *extack)
{
	struct gb_cpus_cfg *cfg;
	int ret;

	if (!strcmp(list, "all"))
		return NULL;
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg) {
		NL_SET_ERR_MSG(extack, "out of memory");
		return ERR_PTR(-ENOMEM);
	}
	ret = cpulist_parse(list, &cfg->mask);
	if (ret == -ERANGE) {
		NL_SET_ERR_MSG(extack, "cpus: a CPU beyond the possible CPUs");
		goto bad;
	} else if (ret) {
		NL_SET_ERR_MSG(extack, "cpus: not a CPU list");
		goto bad;
	}
	if (cpumask_empty(&cfg->mask)) {
		NL_SET_ERR_MSG(extack, "cpus: no CPU");
		goto bad;
	}
	if (!cpumask_subset(&cfg->mask, cpu_online_mask)) {
		NL_SET_ERR_MSG(extack, "cpus: a CPU of the list is not online");
		goto bad;
	}
	return cfg;
bad:
	kfree(cfg);
	return ERR_PTR(-EINVAL);
}

/* The CPUs workers come from: the setting, or every online CPU. */
static const struct cpumask *gb_cpus_base(const struct gb_cpus_cfg *cfg)
{
	if (cfg && cpumask_intersects(&cfg->mask, cpu_online_mask))
		return &cfg->mask;
	return cpu_online_mask;
}

/**
 * gb_cpus_count() - how many online CPUs a `cpus` setting names
 * @cfg: a value from gb_cpus_parse(), or ERR_PTR(-ENOENT) for the current
 *       setting; NULL means all
 *
 * Return: the number of online CPUs in it (for the bound on `cores`).
 */
unsigned int gb_cpus_count(const struct gb_cpus_cfg *cfg)
{
	unsigned int n;

	rcu_read_lock();
	if (IS_ERR(cfg))
		cfg = rcu_dereference(gb_cpus_cur);
	n = cpumask_weight_and(gb_cpus_base(cfg), cpu_online_mask);
	rcu_read_unlock();
	return n;
}

/**
 * gb_cpus_apply() - make a validated setting current
 * @cfg: from gb_cpus_parse() (NULL: all CPUs); taken over
 * @change: false to keep the current set (@cfg is then ignored) and only
 *          start a new generation (`cores` changed)
 *
 * Caller: the netlink handler (genl_mutex), after writing gb_param_cores;
 * CPU hotplug callbacks with @change false.
 */
void gb_cpus_apply(struct gb_cpus_cfg *cfg, bool change)
{
	struct gb_cpus_cfg *old = NULL;

	if (change)
		old = rcu_replace_pointer(gb_cpus_cur, cfg, true);
	/* the new set (and cores) before the new generation */
	smp_mb__before_atomic();
	atomic_inc(&gb_cpus_gen_nr);
	if (old)
		kfree_rcu(old, rcu);
}

/* CPU hotplug: the online CPUs, and so the workers, changed. */
static int gb_cpus_hotplug(unsigned int cpu)
{
	gb_cpus_apply(NULL, false);
	return 0;
}

/**
 * gb_cpus_init() - follow CPU hotplug
 *
 * Return: 0 or a negative errno.
 */
int gb_cpus_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "goblin/cpus:online",
					gb_cpus_hotplug, gb_cpus_hotplug);
	if (ret < 0)
		return ret;
	gb_cpus_hp_state = ret;
	return 0;
}

/* Free a value of gb_cpus_parse() that was not applied. */
void gb_cpus_free(struct gb_cpus_cfg *cfg)
{
	if (!IS_ERR_OR_NULL(cfg))
		kfree(cfg);
}

/**
 * gb_cpus_print() - the current setting as STORE_GET reports it
 * @buf: output
 * @len: its size
 *
 * Return: the length written: "all" or the CPU list as given (online or
 * not now).
 */
int gb_cpus_print(char *buf, size_t len)
{
	const struct gb_cpus_cfg *cfg;
	int n;

	rcu_read_lock();
	cfg = rcu_dereference(gb_cpus_cur);
	if (cfg)
		n = scnprintf(buf, len, "%*pbl", cpumask_pr_args(&cfg->mask));
	else
		n = scnprintf(buf, len, "all");
	rcu_read_unlock();
	return n;
}

/* Is @cpu a worker? Under rcu_read_lock(). */
static bool gb_cpus_worker_rcu(const struct cpumask *base, unsigned int cores,
			       int cpu)
{
	unsigned int i = 0;
	int c;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu) ||
	    !cpumask_test_cpu(cpu, base))
		return false;
	if (!cores)
		return true;
	for_each_cpu_and(c, base, cpu_online_mask) {
		if (i++ >= cores)
			break;
		if (c == cpu)
			return true;
	}
	return false;
}

/**
 * gb_cpus_worker() - whether a CPU is one of the workers now
 * @cpu: CPU number (anything: out of range is no worker)
 *
 * Return: true if it is.
 */
bool gb_cpus_worker(int cpu)
{
	bool ret;

	rcu_read_lock();
	ret = gb_cpus_worker_rcu(gb_cpus_base(rcu_dereference(gb_cpus_cur)),
				 READ_ONCE(gb_param_cores), cpu);
	rcu_read_unlock();
	return ret;
}

/* The @k-th worker (of @node, if not NUMA_NO_NODE); count them if k < 0. */
static int gb_cpus_nth(const struct cpumask *base, unsigned int cores,
		       int node, int k)
{
	unsigned int i = 0;
	int c, found = 0;

	for_each_cpu_and(c, base, cpu_online_mask) {
		if (cores && i++ >= cores)
			break;
		if (node != NUMA_NO_NODE && cpu_to_node(c) != node)
			continue;
		if (found++ == k)
			return c;
	}
	return k < 0 ? found : -1;
}

/**
 * gb_cpus_pick() - a worker CPU for work of a NUMA node
 * @node: the node, or NUMA_NO_NODE
 *
 * Return: a worker of @node, round robin; any worker when @node is
 * NUMA_NO_NODE or has none.
 */
int gb_cpus_pick(int node)
{
	unsigned int cores = READ_ONCE(gb_param_cores);
	const struct cpumask *base;
	int n, cpu;

	rcu_read_lock();
	base = gb_cpus_base(rcu_dereference(gb_cpus_cur));
	if (node < 0 || node >= MAX_NUMNODES || !node_online(node))
		node = NUMA_NO_NODE;
	n = gb_cpus_nth(base, cores, node, -1);
	if (!n && node != NUMA_NO_NODE) {
		node = NUMA_NO_NODE;
		n = gb_cpus_nth(base, cores, node, -1);
	}
	cpu = n ? gb_cpus_nth(base, cores, node,
			      (unsigned int)atomic_inc_return(&gb_cpus_rr) % n)
		: -1;
	rcu_read_unlock();
	/* every CPU went offline meanwhile: this one is as good as any */
	return cpu >= 0 ? cpu : raw_smp_processor_id();
}

/**
 * gb_cpus_near() - the worker closest to a CPU
 * @cpu: the CPU (e.g. the one receiving a connection's packets); < 0 for
 *       none
 *
 * Return: @cpu if it is a worker, else a worker of its node, else any.
 */
int gb_cpus_near(int cpu)
{
	if (gb_cpus_worker(cpu))
		return cpu;
	return gb_cpus_pick(cpu >= 0 && cpu < nr_cpu_ids ? cpu_to_node(cpu)
							 : NUMA_NO_NODE);
}

/* Module unload: the netlink family is gone, nothing changes the set. */
void gb_cpus_exit(void)
{
	struct gb_cpus_cfg *cfg;

	cpuhp_remove_state_nocalls(gb_cpus_hp_state);
	cfg = rcu_replace_pointer(gb_cpus_cur, NULL, true);

	synchronize_rcu();
	kfree(cfg);
}
