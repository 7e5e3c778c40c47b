// SPDX-License-Identifier: GPL-2.0
/* goblinctl: listener add/del/show. */
#include <arpa/inet.h>
#include <string.h>

#include "goblinctl.h"

int parse_listener(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r = rec_new(arg);
	uint8_t kind = tb[GOBLIN_A_LISTENER_KIND] ?
		       nla_get_u8(tb[GOBLIN_A_LISTENER_KIND]) : 0xff;

	rec_str(r, "kind", name_of(kind_names, ARRAY_SIZE(kind_names), kind));
	rec_u64(r, "id", get_u32(tb[GOBLIN_A_LISTENER_ID]));
	rec_addr(r, "address", "port", tb[GOBLIN_A_ADDR4], tb[GOBLIN_A_ADDR6],
		 tb[GOBLIN_A_PORT]);
	rec_u64(r, "conns", get_u32(tb[GOBLIN_A_CONNS]));
	rec_u64(r, "conns_total", get_u64(tb[GOBLIN_A_CONNS_TOTAL]));
	rec_u64(r, "refused", get_u64(tb[GOBLIN_A_REFUSED]));
	rec_u64(r, "max_conns", get_u32(tb[GOBLIN_A_MAX_CONNS]));
	rec_u64(r, "idle_timeout", get_u32(tb[GOBLIN_A_IDLE_TIMEOUT]));
	if (kind != GOBLIN_LISTENER_RDMA)
		rec_u64(r, "write_timeout",
			get_u32(tb[GOBLIN_A_WRITE_TIMEOUT]));
	if (kind == GOBLIN_LISTENER_HTTP)
		rec_u64(r, "header_timeout",
			get_u32(tb[GOBLIN_A_HEADER_TIMEOUT]));
	if (kind == GOBLIN_LISTENER_RDMA) {
		rec_size(r, "window", get_u32(tb[GOBLIN_A_WINDOW]));
		rec_u64(r, "windows", get_u32(tb[GOBLIN_A_WINDOWS]));
		rec_u64(r, "credits", get_u32(tb[GOBLIN_A_CREDITS]));
		rec_u64(r, "max_peer_conns",
			get_u32(tb[GOBLIN_A_MAX_PEER_CONNS]));
	}
	return NL_OK;
}

static void put_addr(struct nl_msg *msg, const struct addr *ad)
{
	if (ad->family == AF_INET)
		nla_put(msg, GOBLIN_A_ADDR4, 4, ad->a);
	else
		nla_put(msg, GOBLIN_A_ADDR6, 16, ad->a);
}

static int listener_change(bool add, int argc, char **argv)
{
	const char *usage = add ? LISTENER_ADD_USAGE : LISTENER_DEL_USAGE;
	struct nl_msg *msg;
	struct addr ad;
	int kind, i;

	need_args(argc, 2, usage);
	kind = lookup("listener kind", argv[0], kind_names,
		      ARRAY_SIZE(kind_names));
	arg_addr(argv[1], &ad);
	msg = req_msg(add ? GOBLIN_CMD_LISTENER_ADD : GOBLIN_CMD_LISTENER_DEL,
		      0);
	nla_put_u8(msg, GOBLIN_A_LISTENER_KIND, kind);
	put_addr(msg, &ad);
	for (i = 2; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage_die("%s: missing value", k);
		if (!strcmp(k, "port"))
			ad.port = arg_u64(k, v, 65535);
		else if (!add)
			usage_die("usage: %s %s", prog, usage);
		else if (!strcmp(k, "window"))
			nla_put_u32(msg, GOBLIN_A_WINDOW,
				    arg_size(k, v, UINT32_MAX));
		else if (!strcmp(k, "windows"))
			nla_put_u32(msg, GOBLIN_A_WINDOWS,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "max-conns") || !strcmp(k, "max_conns"))
			nla_put_u32(msg, GOBLIN_A_MAX_CONNS,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "idle-timeout") ||
			 !strcmp(k, "idle_timeout"))
			nla_put_u32(msg, GOBLIN_A_IDLE_TIMEOUT,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "write-timeout") ||
			 !strcmp(k, "write_timeout"))
			nla_put_u32(msg, GOBLIN_A_WRITE_TIMEOUT,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "header-timeout") ||
			 !strcmp(k, "header_timeout"))
			nla_put_u32(msg, GOBLIN_A_HEADER_TIMEOUT,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "credits"))
			nla_put_u32(msg, GOBLIN_A_CREDITS,
				    arg_u64(k, v, UINT32_MAX));
		else if (!strcmp(k, "max-peer-conns") ||
			 !strcmp(k, "max_peer_conns"))
			nla_put_u32(msg, GOBLIN_A_MAX_PEER_CONNS,
				    arg_u64(k, v, UINT32_MAX));
		else
			usage_die("listener add: unknown setting \"%s\"", k);
	}
	if (ad.port < 0)
		usage_die("port: missing (use ADDR:PORT, [ADDR6]:PORT or port N)");
	if (ad.port == 0)
		usage_die("port: must be 1..65535");
	nla_put_u16(msg, GOBLIN_A_PORT, ad.port);
	req_run(msg, NULL, NULL, true);
	return 0;
}

void dump_listeners(struct recs *rs, int kind)
{
	struct nl_msg *msg = req_msg(GOBLIN_CMD_LISTENER_GET, NLM_F_DUMP);

	if (kind >= 0)
		nla_put_u8(msg, GOBLIN_A_LISTENER_KIND, kind);
	req_run(msg, parse_listener, rs, true);
}

const char *const listener_cols[] = {
	"kind", "id", "address", "port", "conns", "conns_total", "refused",
	"max_conns", "idle_timeout", "write_timeout", "header_timeout",
	"window", "windows", "credits", "max_peer_conns", NULL
};

int cmd_listener(int argc, char **argv)
{
	struct recs rs = { 0 };
	int kind = -1;

	int w = argc ? match_word("listener", argv[0], listener_words,
				  ARRAY_SIZE(listener_words)) : W_SHOW;

	if (argc)
		sub_help(argc - 1, argv + 1);
	if (w == W_ADD)
		return listener_change(true, argc - 1, argv + 1);
	if (w == W_DEL)
		return listener_change(false, argc - 1, argv + 1);
	if (argc > 2)
		usage_die("usage: %s listener show [KIND]", prog);
	if (argc >= 2)
		kind = lookup("listener kind", argv[1], kind_names,
			      ARRAY_SIZE(kind_names));
	dump_listeners(&rs, kind);
	print_list(&rs, listener_cols);
	recs_free(&rs);
	return 0;
}
