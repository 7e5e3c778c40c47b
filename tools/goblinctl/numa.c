// SPDX-License-Identifier: GPL-2.0
/* goblinctl: numa show/set. */
#include <string.h>
#include <stdlib.h>

#include "goblinctl.h"

struct numa_reply {
	struct rec *top;
	struct recs nodes;
};

static int parse_numa(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct numa_reply *nr = arg;
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *a;
	int rem;

	nr->top = xcalloc(1, sizeof(*nr->top));
	rec_str(nr->top, "policy",
		name_of(numa_names, ARRAY_SIZE(numa_names),
			tb[GOBLIN_A_NUMA_POLICY] ?
			nla_get_u8(tb[GOBLIN_A_NUMA_POLICY]) : 0xff));
	rec_u64(nr->top, "node", get_u32(tb[GOBLIN_A_NUMA_NODE]));
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem) {
		struct nlattr *nt[GOBLIN_NODE_A_MAX + 1];
		struct rec *r;

		if (nla_type(a) != GOBLIN_A_NODE ||
		    nla_parse_nested(nt, GOBLIN_NODE_A_MAX, a, NULL))
			continue;
		r = rec_new(&nr->nodes);
		rec_u64(r, "id", get_u32(nt[GOBLIN_NODE_A_ID]));
		rec_size(r, "mem_total", get_u64(nt[GOBLIN_NODE_A_MEM_TOTAL]));
		rec_size(r, "mem_free", get_u64(nt[GOBLIN_NODE_A_MEM_FREE]));
		rec_u64(r, "cpus", get_u32(nt[GOBLIN_NODE_A_CPUS]));
		rec_size(r, "head_bytes",
			 get_u64(nt[GOBLIN_NODE_A_HEAD_BYTES]));
		rec_u64(r, "blocks", get_u64(nt[GOBLIN_NODE_A_BLOCKS]));
		rec_u64(r, "blocks_huge",
			get_u64(nt[GOBLIN_NODE_A_BLOCKS_HUGE]));
		rec_u64(r, "blocks_small",
			get_u64(nt[GOBLIN_NODE_A_BLOCKS_SMALL]));
		rec_u64(r, "objects", get_u64(nt[GOBLIN_NODE_A_OBJECTS]));
		rec_u64(r, "remote", get_u64(nt[GOBLIN_NODE_A_REMOTE]));
		rec_u64(r, "promoted", get_u64(nt[GOBLIN_NODE_A_PROMOTED]));
	}
	return NL_OK;
}

static const char *const node_cols[] = {
	"id", "cpus", "mem_total", "mem_free", "head_bytes", "objects",
	"remote", "promoted", "blocks", "blocks_huge", "blocks_small", NULL
};

static void get_numa(struct numa_reply *nr)
{
	memset(nr, 0, sizeof(*nr));
	req_run(req_msg(GOBLIN_CMD_NUMA_GET, 0), parse_numa, nr, true);
	if (!nr->top)
		die("no reply from the kernel");
}

static void free_numa(struct numa_reply *nr)
{
	int i;

	for (i = 0; i < nr->top->n; i++)
		free(nr->top->f[i].str);
	free(nr->top);
	recs_free(&nr->nodes);
}

int numa_show(void)
{
	struct numa_reply nr;

	get_numa(&nr);
	if (opt_json) {
		json_object *o = json_rec(nr.top);

		json_add(o, "nodes", json_recs(&nr.nodes));
		json_put(o, false);
	} else {
		human_kv(nr.top);
		putchar('\n');
		human_table(&nr.nodes, node_cols);
	}
	free_numa(&nr);
	return 0;
}

int cmd_numa(int argc, char **argv)
{
	struct nl_msg *msg;
	int i;

	int w = argc ? match_word("numa", argv[0], show_set_words,
				  ARRAY_SIZE(show_set_words)) : W_SHOW;

	if (argc)
		sub_help(argc - 1, argv + 1);
	if (w == W_SHOW) {
		if (argc > 1)
			usage_die("usage: %s numa show", prog);
		return numa_show();
	}
	if (argc < 3 || argc % 2 == 0)
		usage_die("usage: %s numa set [policy device|local|interleave|bind] [node N]",
			  prog);
	msg = req_msg(GOBLIN_CMD_NUMA_SET, 0);
	for (i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "policy"))
			nla_put_u8(msg, GOBLIN_A_NUMA_POLICY,
				   lookup("policy", argv[i + 1], numa_names,
					  ARRAY_SIZE(numa_names)));
		else if (!strcmp(argv[i], "node"))
			nla_put_u32(msg, GOBLIN_A_NUMA_NODE,
				    arg_u64("node", argv[i + 1], UINT32_MAX));
		else
			usage_die("numa set: unknown setting \"%s\" (policy, node)",
				  argv[i]);
	}
	req_run(msg, NULL, NULL, true);
	return 0;
}
