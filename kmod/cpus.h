/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: the worker CPUs of the network transports (kmod/cpus.c).
 *
 * The workers are the online CPUs of the `cpus` setting (all online CPUs by
 * default, or when none of the set is online), of which only the first
 * `cores` in CPU number order when `cores` is not 0. Every change of either
 * setting, and every CPU going online or offline, advances a generation
 * number; a connection remembers its CPU together with the generation it
 * was chosen in (gb_cpus_pack(), in a slot that gb_cpus_choose() reads and
 * updates) and chooses again when the generation is old or the CPU went
 * offline, so no connection, also none still being set up, keeps a CPU
 * across a change.
 */
#ifndef _GOBLIN_CPUS_H
#define _GOBLIN_CPUS_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/types.h>

struct netlink_ext_ack;
struct gb_cpus_cfg;

struct gb_cpus_cfg *gb_cpus_parse(const char *list,
				  struct netlink_ext_ack *extack);
unsigned int gb_cpus_count(const struct gb_cpus_cfg *cfg);
void gb_cpus_apply(struct gb_cpus_cfg *cfg, bool change);
void gb_cpus_free(struct gb_cpus_cfg *cfg);
int gb_cpus_print(char *buf, size_t len);
int gb_cpus_init(void);
void gb_cpus_exit(void);

int gb_cpus_choose(atomic64_t *slot, int here, int node);
unsigned int gb_cpus_nworkers(void);
u32 gb_cpus_gen(void);

/*
 * A CPU and the generation it was chosen in, in one atomic word. The
 * generation is a u32: a slot left untouched across exactly 2^32 changes
 * would look current again (only netlink requests and CPU hotplug advance
 * it, so this is theoretical).
 */
static inline s64 gb_cpus_pack(int cpu, u32 gen)
{
	return (s64)((u64)gen << 32 | (u32)cpu);
}

static inline int gb_cpus_unpack(s64 v)
{
	return (int)(u32)v;
}

/* A slot with no CPU chosen yet (stale: the first gb_cpus_choose() picks). */
static inline void gb_cpus_slot_init(atomic64_t *slot)
{
	atomic64_set(slot, gb_cpus_pack(-1, 0));
}

/*
 * gb_cpus_stale() - whether a packed CPU must be chosen again: chosen
 * before the last change of the settings, none yet, or offline now.
 */
static inline bool gb_cpus_stale(s64 v)
{
	int cpu = gb_cpus_unpack(v);

	return (u32)((u64)v >> 32) != gb_cpus_gen() || cpu < 0 ||
	       cpu >= nr_cpu_ids || !cpu_online(cpu);
}

#endif /* _GOBLIN_CPUS_H */
