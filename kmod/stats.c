// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the stats subsystem. */
#include "goblin.h"

int gb_stats_init(void)
{
	return 0;
}

void gb_stats_exit(void)
{
}
