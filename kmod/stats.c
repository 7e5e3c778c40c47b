// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: per-cpu event counters.
 *
 * Event counters only ever grow; the gauges (GB_ST_CURR_*) go up and down,
 * each CPU adding its own deltas. Readers sum all possible CPUs without
 * locking, which gives a value that is exact once traffic stops and close
 * enough while it runs (the same contract as memcached's "stats"); a
 * gauge's sum can be transiently off, even 0 with objects stored, while a
 * task migrates between the two halves of an update.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>

#include "goblin.h"
#include "stats.h"

DEFINE_PER_CPU(struct gb_pcpu_stats, gb_pcpu_stats);

/**
 * gb_stat_sum - total of one counter over every CPU
 * @s: counter to read
 *
 * Return: the sum of @s on all possible CPUs.
 */
u64 gb_stat_sum(enum gb_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(gb_pcpu_stats, cpu).v[s]);
	return sum;
}

int gb_stats_init(void)
{
	int cpu;

	/* The module may be reloaded: start every counter from zero. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&gb_pcpu_stats, cpu), 0,
		       sizeof(struct gb_pcpu_stats));
	return 0;
}

void gb_stats_exit(void)
{
}
