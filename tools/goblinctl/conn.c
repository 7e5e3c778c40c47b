// SPDX-License-Identifier: GPL-2.0
/* goblinctl: conn show. */
#include <string.h>

#include "goblinctl.h"

static int parse_conn(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r = rec_new(arg);
	uint8_t kind = tb[GOBLIN_A_LISTENER_KIND] ?
		       nla_get_u8(tb[GOBLIN_A_LISTENER_KIND]) : 0xff;

	rec_str(r, "kind", name_of(kind_names, ARRAY_SIZE(kind_names), kind));
	rec_u64(r, "listener_id", get_u32(tb[GOBLIN_A_LISTENER_ID]));
	rec_u64(r, "id", get_u64(tb[GOBLIN_A_CONN_ID]));
	rec_addr(r, "peer", "peer_port", tb[GOBLIN_A_PEER_ADDR4],
		 tb[GOBLIN_A_PEER_ADDR6], tb[GOBLIN_A_PEER_PORT]);
	rec_u64(r, "rx_bytes", get_u64(tb[GOBLIN_A_RX_BYTES]));
	rec_u64(r, "tx_bytes", get_u64(tb[GOBLIN_A_TX_BYTES]));
	rec_u64(r, "cmds", get_u64(tb[GOBLIN_A_CMDS]));
	rec_u64(r, "idle", get_u32(tb[GOBLIN_A_IDLE]));
	/* -1: the connection's work has not run yet */
	rec_s64(r, "cpu", tb[GOBLIN_A_CPU] ?
		(int64_t)nla_get_u32(tb[GOBLIN_A_CPU]) : -1);
	rec_s64(r, "node", tb[GOBLIN_A_CPU_NODE] ?
		(int64_t)nla_get_u32(tb[GOBLIN_A_CPU_NODE]) : -1);
	rec_str(r, "device", get_str(tb[GOBLIN_A_DEVICE]));
	/* absent from modules older than the per-QP statistics */
	if (kind == GOBLIN_LISTENER_RDMA && tb[GOBLIN_A_HITS]) {
		rec_u64(r, "hits", get_u64(tb[GOBLIN_A_HITS]));
		rec_u64(r, "misses", get_u64(tb[GOBLIN_A_MISSES]));
		rec_u64(r, "bytes_written", get_u64(tb[GOBLIN_A_BYTES_WRITTEN]));
		rec_u64(r, "bytes_read", get_u64(tb[GOBLIN_A_BYTES_READ]));
		rec_u64(r, "windows_in_flight",
			get_u32(tb[GOBLIN_A_WINDOWS_IN_FLIGHT]));
		rec_u64(r, "errors",
			rec_rdma_errors(r, tb[GOBLIN_A_RDMA_ERRORS], true));
	}
	return NL_OK;
}

const char *const conn_cols[] = {
	"kind", "listener_id", "id", "peer", "peer_port", "rx_bytes",
	"tx_bytes", "cmds", "hits", "misses", "bytes_written",
	"windows_in_flight", "errors", "idle", "cpu", "node", "device", NULL
};

void dump_conns(struct recs *rs, int kind)
{
	struct nl_msg *msg = req_msg(GOBLIN_CMD_CONN_GET, NLM_F_DUMP);

	if (kind >= 0)
		nla_put_u8(msg, GOBLIN_A_LISTENER_KIND, kind);
	req_run(msg, parse_conn, rs, true);
}

int cmd_conn(int argc, char **argv)
{
	struct recs rs = { 0 };
	int kind = -1;

	if (argc)
		match_word("conn", argv[0], show_words, ARRAY_SIZE(show_words));
	if (argc)
		sub_help(argc - 1, argv + 1);
	if (argc > 2)
		usage_die("usage: %s conn show [KIND]", prog);
	if (argc >= 2)
		kind = lookup("listener kind", argv[1], kind_names,
			      ARRAY_SIZE(kind_names));
	dump_conns(&rs, kind);
	print_list(&rs, conn_cols);
	recs_free(&rs);
	return 0;
}
