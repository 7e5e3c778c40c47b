// SPDX-License-Identifier: GPL-2.0
/* goblinctl: store show/set, flush. */
#include <string.h>

#include "goblinctl.h"

static int parse_store(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r = rec_new(arg);

	rec_size(r, "memory", get_u64(tb[GOBLIN_A_MEMORY]));
	rec_size(r, "block", get_u32(tb[GOBLIN_A_BLOCK]));
	rec_size(r, "ram_head", get_u32(tb[GOBLIN_A_RAM_HEAD]));
	rec_size(r, "item_max", get_u32(tb[GOBLIN_A_ITEM_MAX]));
	rec_str(r, "ssd_dir", get_str(tb[GOBLIN_A_SSD_DIR]));
	rec_size(r, "ssd_max", get_u64(tb[GOBLIN_A_SSD_MAX]));
	rec_u64(r, "promotion", get_u32(tb[GOBLIN_A_PROMOTION]));
	rec_bool(r, "mlock", tb[GOBLIN_A_MLOCK] &&
		 nla_get_u8(tb[GOBLIN_A_MLOCK]));
	rec_u64(r, "cores", get_u32(tb[GOBLIN_A_CORES]));
	rec_str(r, "cpus", tb[GOBLIN_A_CPUS] ? get_str(tb[GOBLIN_A_CPUS])
					     : "all");
	rec_u64(r, "rdma_max_conns", get_u32(tb[GOBLIN_A_RDMA_MAX_CONNS]));
	rec_bool(r, "crc", tb[GOBLIN_A_CRC] && nla_get_u8(tb[GOBLIN_A_CRC]));
	rec_u64(r, "rdma_lease_ms", get_u32(tb[GOBLIN_A_RDMA_LEASE_MS]));
	rec_size(r, "promotion_rate", get_u32(tb[GOBLIN_A_PROMOTION_RATE]));
	rec_bool(r, "reclaim", tb[GOBLIN_A_RECLAIM] &&
		 nla_get_u8(tb[GOBLIN_A_RECLAIM]));
	rec_size(r, "reclaim_low", get_u64(tb[GOBLIN_A_RECLAIM_LOW]));
	return NL_OK;
}

static int store_show(void)
{
	struct recs rs = { 0 };

	req_run(req_msg(GOBLIN_CMD_STORE_GET, 0), parse_store, &rs, true);
	if (rs.n != 1)
		die("no reply from the kernel");
	print_one(rs.r[0]);
	recs_free(&rs);
	return 0;
}

static int store_set(int argc, char **argv)
{
	struct nl_msg *msg = req_msg(GOBLIN_CMD_STORE_SET, 0);
	int i;

	if (argc < 2 || argc % 2)
		usage_die("usage: %s store set NAME VALUE [NAME VALUE]...", prog);
	for (i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		int err;

		if (!strcmp(k, "memory"))
			err = nla_put_u64(msg, GOBLIN_A_MEMORY,
					  arg_size(k, v, UINT64_MAX));
		else if (!strcmp(k, "block"))
			err = nla_put_u32(msg, GOBLIN_A_BLOCK,
					  arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "ram-head") || !strcmp(k, "ram_head"))
			err = nla_put_u32(msg, GOBLIN_A_RAM_HEAD,
					  arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "item-max") || !strcmp(k, "item_max"))
			err = nla_put_u32(msg, GOBLIN_A_ITEM_MAX,
					  arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "ssd-dir") || !strcmp(k, "ssd_dir"))
			err = nla_put_string(msg, GOBLIN_A_SSD_DIR, v);
		else if (!strcmp(k, "ssd-max") || !strcmp(k, "ssd_max"))
			err = nla_put_u64(msg, GOBLIN_A_SSD_MAX,
					  arg_size(k, v, UINT64_MAX));
		else if (!strcmp(k, "promotion"))
			err = nla_put_u32(msg, GOBLIN_A_PROMOTION,
					  arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "mlock"))
			err = nla_put_u8(msg, GOBLIN_A_MLOCK, arg_bool(k, v));
		else if (!strcmp(k, "cores"))
			err = nla_put_u32(msg, GOBLIN_A_CORES,
					  arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "rdma-max-conns") ||
			 !strcmp(k, "rdma_max_conns"))
			err = nla_put_u32(msg, GOBLIN_A_RDMA_MAX_CONNS,
					  arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "crc"))
			err = nla_put_u8(msg, GOBLIN_A_CRC, arg_bool(k, v));
		else if (!strcmp(k, "cpus"))
			err = nla_put_string(msg, GOBLIN_A_CPUS, v);
		else if (!strcmp(k, "promotion-rate") ||
			 !strcmp(k, "promotion_rate"))
			err = nla_put_u32(msg, GOBLIN_A_PROMOTION_RATE,
					  arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "reclaim"))
			err = nla_put_u8(msg, GOBLIN_A_RECLAIM, arg_bool(k, v));
		else if (!strcmp(k, "reclaim-low") ||
			 !strcmp(k, "reclaim_low"))
			err = nla_put_u64(msg, GOBLIN_A_RECLAIM_LOW,
					  arg_size(k, v, UINT64_MAX));
		else if (!strcmp(k, "rdma-lease-ms") ||
			 !strcmp(k, "rdma_lease_ms"))
			err = nla_put_u32(msg, GOBLIN_A_RDMA_LEASE_MS,
					  arg_u64(k, v, UINT32_MAX));
		else
			usage_die("store set: unknown setting \"%s\" (%s)", k,
				  "memory, block, ram-head, item-max, ssd-dir, ssd-max, promotion, promotion-rate, mlock, cores, cpus, rdma-max-conns, rdma-lease-ms, crc, reclaim, reclaim-low");
		if (err)
			die("request too large");
	}
	req_run(msg, NULL, NULL, true);
	return 0;
}

int cmd_store(int argc, char **argv)
{
	int w = argc ? match_word("store", argv[0], show_set_words,
				  ARRAY_SIZE(show_set_words)) : W_SHOW;

	if (argc)
		sub_help(argc - 1, argv + 1);
	if (w == W_SET)
		return store_set(argc - 1, argv + 1);
	if (argc > 1)
		usage_die("usage: %s store show", prog);
	return store_show();
}

int cmd_flush(int argc, char **argv)
{
	if (argc)
		usage_die("usage: %s flush", prog);
	req_run(req_msg(GOBLIN_CMD_FLUSH, 0), NULL, NULL, true);
	return 0;
}
