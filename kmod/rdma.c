// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the rdma subsystem. */
#include "goblin.h"

int gb_rdma_init(void)
{
	return 0;
}

void gb_rdma_exit(void)
{
}
