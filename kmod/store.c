// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the store subsystem. */
#include "goblin.h"

int gb_store_init(void)
{
	return 0;
}

void gb_store_exit(void)
{
}
