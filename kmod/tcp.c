// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the tcp subsystem. */
#include "goblin.h"

int gb_tcp_init(void)
{
	return 0;
}

void gb_tcp_exit(void)
{
}
