// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the netlink subsystem. */
#include "goblin.h"

int gb_netlink_init(void)
{
	return 0;
}

void gb_netlink_exit(void)
{
}
