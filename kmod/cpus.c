// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the worker CPUs of the network transports.
 *
 * The `cpus` setting (netlink STORE_SET CPUS, a CPU list such as "0-1,3",
 * or "all") and `cores` (how many of them) decide on which CPUs TCP and
 * RDMA connections execute requests. The transports ask gb_cpus_choose()
 * where to queue a connection's work: the CPU its input was seen on (TCP:
 * the socket's sk_incoming_cpu; RDMA: the completion handler's CPU) when
 * that is a worker of the preferred node (the RDMA device's; any for TCP
 * or a device on no node) or the preferred node has no worker, else the
 * CPU chosen before unless that is stale, else a worker of the preferred
 * node (for TCP the input CPU's node) round robin, else any worker.
 *
 * Readers run in any context (socket callbacks in softirq): the set is an
 * RCU-protected copy, replaced whole by the netlink handler (under
 * gb_cpus_lock), and gb_cpus_gen_nr advances after every change, when a
 * CPU has come online and when one is dead (the workers are counted over
 * online CPUs), so that a CPU chosen before it is chosen again
 * (gb_cpus_stale()). One decision reads the generation, then the
 * settings once under one rcu_read_lock().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/goblin.h>

#include "goblin.h"
#include "cpus.h"

struct gb_cpus_cfg {
	struct rcu_head rcu;
	struct cpumask mask;
};

/* NULL: every online CPU */
static struct gb_cpus_cfg __rcu *gb_cpus_cur;
/* writers of gb_cpus_cur (the netlink handler; genl_mutex -> this) */
static DEFINE_MUTEX(gb_cpus_lock);
static atomic_t gb_cpus_gen_nr = ATOMIC_INIT(0);
static atomic_t gb_cpus_rr = ATOMIC_INIT(0);
static int gb_cpus_hp_online = -1;
static int gb_cpus_hp_dead = -1;
static struct dentry *gb_cpus_dbg;
/*
 * The longest CPU list (as STORE_GET prints it) that `cpus` may be: the
 * reply buffer's size less the NUL; a test lowers it through debugfs
 * (cpus/list_max), as no test guest has CPUs enough for a long list.
 */
static u32 gb_cpus_list_max = GOBLIN_CPUS_MAX - 1;

/**
 * gb_cpus_gen() - the generation of the worker settings
 *
 * Return: a number that changes with every change of `cpus` or `cores`
 * and of the online CPUs. Read before the settings themselves (acquire),
 * so a CPU chosen after reading generation G honours the settings of G or
 * later.
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
 * ERR_PTR: -EINVAL when @list is no CPU list, is empty, names a CPU that
 * is not online or not possible, or would not fit the STORE_GET reply in
 * its normalised form (group syntax expands: "0-1023:1/2" prints 512
 * numbers).
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
	ret = snprintf(NULL, 0, "%*pbl", cpumask_pr_args(&cfg->mask));
	if (ret > min_t(u32, READ_ONCE(gb_cpus_list_max),
			GOBLIN_CPUS_MAX - 1)) {
		NL_SET_ERR_MSG(extack, "cpus: too long as a CPU list");
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
 * gb_cpus_nworkers() - how many workers there are now
 *
 * Return: the online CPUs of `cpus` (all online CPUs when none is), at
 * most `cores` of them when `cores` is not 0.
 */
unsigned int gb_cpus_nworkers(void)
{
	unsigned int cores = READ_ONCE(gb_param_cores);
	unsigned int n = gb_cpus_count(ERR_PTR(-ENOENT));

	return cores ? min(cores, n) : n;
}

/* A new generation: after the settings it covers were written. */
static void gb_cpus_new_gen(void)
{
	/* the settings before the generation; pairs with gb_cpus_gen() */
	smp_mb__before_atomic();
	atomic_inc(&gb_cpus_gen_nr);
}

/**
 * gb_cpus_apply() - make a validated setting current
 * @cfg: from gb_cpus_parse() (NULL: all CPUs); taken over
 * @change: false to keep the current set (@cfg is then ignored) and only
 *          start a new generation (`cores` changed)
 *
 * Caller: the netlink handler (process context), after writing
 * gb_param_cores.
 */
void gb_cpus_apply(struct gb_cpus_cfg *cfg, bool change)
{
	struct gb_cpus_cfg *old = NULL;

	mutex_lock(&gb_cpus_lock);
	if (change)
		old = rcu_replace_pointer(gb_cpus_cur, cfg,
					  lockdep_is_held(&gb_cpus_lock));
	/* the new set (and cores) before the new generation */
	gb_cpus_new_gen();
	mutex_unlock(&gb_cpus_lock);
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * CPU hotplug: the online CPUs, and so the workers, changed. Called for a
 * CPU coming up once it is online (CPUHP_AP_ONLINE_DYN), and for one
 * going down once it is dead (CPUHP_BP_PREPARE_DYN teardown, on a control
 * CPU): a CPU that is still in cpu_online_mask when the generation moves
 * could be chosen again in the new one.
 */
static int gb_cpus_hotplug(unsigned int cpu)
{
	gb_cpus_new_gen();
	return 0;
}

/* debugfs cpus/gen: the generation (tests watch it move on hotplug) */
static int gb_cpus_gen_get(void *data, u64 *val)
{
	*val = gb_cpus_gen();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(gb_cpus_gen_fops, gb_cpus_gen_get, NULL, "%llu\n");

static void gb_cpus_dbg_init(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL);

	if (IS_ERR_OR_NULL(dir))
		return;
	gb_cpus_dbg = debugfs_create_dir("cpus", dir);
	dput(dir);
	debugfs_create_file_unsafe("gen", 0400, gb_cpus_dbg, NULL,
				   &gb_cpus_gen_fops);
	debugfs_create_u32("list_max", 0600, gb_cpus_dbg, &gb_cpus_list_max);
}

/**
 * gb_cpus_init() - follow CPU hotplug; the debugfs knobs
 *
 * Return: 0 or a negative errno.
 */
int gb_cpus_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"goblin/cpus:online", gb_cpus_hotplug,
					NULL);
	if (ret < 0)
		return ret;
	gb_cpus_hp_online = ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"goblin/cpus:dead", NULL,
					gb_cpus_hotplug);
	if (ret < 0) {
		cpuhp_remove_state_nocalls(gb_cpus_hp_online);
		return ret;
	}
	gb_cpus_hp_dead = ret;
	gb_cpus_dbg_init();
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
 * @len: its size (GOBLIN_CPUS_MAX holds every setting gb_cpus_parse()
 *       accepts)
 *
 * Return: the length written: "all" or the CPU list in its normalised
 * form ("1,0" reads back "0-1"), its CPUs online or not now.
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

/* Is @cpu (in range) a worker? Under rcu_read_lock(). */
static bool gb_cpus_worker(const struct cpumask *base, unsigned int cores,
			   int cpu)
{
	unsigned int i = 0;
	int c;

	if (!cpu_online(cpu) || !cpumask_test_cpu(cpu, base))
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

/* Has @node (not NUMA_NO_NODE) a worker? Under rcu_read_lock(). */
static bool gb_cpus_node_has(const struct cpumask *base, unsigned int cores,
			     int node)
{
	int c;

	if (cores)
		return gb_cpus_nth(base, cores, node, 0) >= 0;
	for_each_cpu_and(c, base, cpumask_of_node(node))
		if (cpu_online(c))
			return true;
	return false;
}

/*
 * A worker of @node round robin, any worker when @node is NUMA_NO_NODE or
 * has none. Under rcu_read_lock().
 */
static int gb_cpus_pick(const struct cpumask *base, unsigned int cores,
			int node)
{
	int n = node == NUMA_NO_NODE ? 0 : gb_cpus_nth(base, cores, node, -1);
	int cpu;

	if (!n) {
		node = NUMA_NO_NODE;
		n = gb_cpus_nth(base, cores, node, -1);
	}
	cpu = n ? gb_cpus_nth(base, cores, node,
			      (unsigned int)atomic_inc_return(&gb_cpus_rr) % n)
		: -1;
	/* the chosen one went offline meanwhile: the first worker */
	if (cpu < 0)
		cpu = cpumask_first_and(base, cpu_online_mask);
	/* every CPU of it went offline meanwhile: this one is as good */
	if (cpu < 0 || cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	return cpu;
}

/* @node if it is an online node, else NUMA_NO_NODE */
static int gb_cpus_node(int node)
{
	if (node < 0 || node >= MAX_NUMNODES || !node_online(node))
		return NUMA_NO_NODE;
	return node;
}

/**
 * gb_cpus_choose() - where to queue a connection's work
 * @slot: the connection's gb_cpus_pack()ed choice, updated (initialise it
 *        with gb_cpus_slot_init())
 * @here: the CPU the connection's input was seen on (TCP: its socket's
 *        sk_incoming_cpu; RDMA: the completion handler's CPU), or -1 when
 *        the caller is not on the data path (idle ticks, connection
 *        events, setup): the stored CPU is kept then unless it is stale
 * @node: the preferred node (RDMA: the device's); NUMA_NO_NODE (or a node
 *        that is not online): none
 *
 * @here is taken when it is a worker and @node is none, is @here's node
 * or has no worker. Else the stored CPU is kept unless it is stale (the
 * settings or the online CPUs changed since it was chosen, or it is
 * none). Else a worker of @node, or of @here's node when @node is none,
 * round robin; any worker when that node has none. The generation is read
 * first, the settings once; racing callers each store a choice of the
 * current generation or an older one (chosen again next time).
 *
 * Context: any (softirq, under spinlocks): RCU only, never sleeps.
 * Return: an online CPU (a worker unless the workers changed meanwhile).
 */
int gb_cpus_choose(atomic64_t *slot, int here, int node)
{
	s64 v = atomic64_read(slot), nv;
	const struct cpumask *base;
	int cpu = gb_cpus_unpack(v);
	unsigned int cores;
	u32 gen;

	if (here < 0 || here >= nr_cpu_ids)
		here = -1;
	if (likely(here < 0 || here == cpu) && !gb_cpus_stale(v))
		return cpu;
	gen = gb_cpus_gen();
	rcu_read_lock();
	base = gb_cpus_base(rcu_dereference(gb_cpus_cur));
	cores = READ_ONCE(gb_param_cores);
	node = gb_cpus_node(node);
	if (here >= 0 && gb_cpus_worker(base, cores, here) &&
	    (node == NUMA_NO_NODE || cpu_to_node(here) == node ||
	     !gb_cpus_node_has(base, cores, node))) {
		cpu = here;
	} else if (gb_cpus_stale(v)) {
		if (node == NUMA_NO_NODE && here >= 0)
			node = gb_cpus_node(cpu_to_node(here));
		cpu = gb_cpus_pick(base, cores, node);
	}
	rcu_read_unlock();
	nv = gb_cpus_pack(cpu, gen);
	if (nv != v)
		atomic64_set(slot, nv);
	return cpu;
}

/* Module unload: the netlink family is gone, nothing changes the set. */
void gb_cpus_exit(void)
{
	struct gb_cpus_cfg *cfg;

	debugfs_remove(gb_cpus_dbg);
	gb_cpus_dbg = NULL;
	cpuhp_remove_state_nocalls(gb_cpus_hp_dead);
	cpuhp_remove_state_nocalls(gb_cpus_hp_online);
	mutex_lock(&gb_cpus_lock);
	cfg = rcu_replace_pointer(gb_cpus_cur, NULL,
				  lockdep_is_held(&gb_cpus_lock));
	mutex_unlock(&gb_cpus_lock);

	synchronize_rcu();
	kfree(cfg);
}
