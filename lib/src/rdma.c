// SPDX-License-Identifier: GPL-2.0
/*
 * libgoblin RDMA backend (placeholder until the wire protocol lands).
 */
#include <stdio.h>

#include "internal.h"

int gb_rdma_connect(const struct gb_connect_opts *o, struct gb_conn **connp,
		    char *err, size_t errlen)
{
	(void)o;
	(void)connp;
	snprintf(err, errlen, "RDMA transport not built");
	return -GB_ENOTSUP;
}
