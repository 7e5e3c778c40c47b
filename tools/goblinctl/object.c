// SPDX-License-Identifier: GPL-2.0
/* goblinctl: object show/list (list streamed). */
#include <string.h>

#include "goblinctl.h"

static int parse_obj(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct rec *r;

	if (!tb[GOBLIN_A_KEY])
		return NL_SKIP;
	r = rec_new(arg);
	rec_bin(r, "key", nla_data(tb[GOBLIN_A_KEY]), nla_len(tb[GOBLIN_A_KEY]));
	rec_u64(r, "len", get_u64(tb[GOBLIN_A_OBJ_LEN]));
	rec_u64(r, "flags", get_u32(tb[GOBLIN_A_OBJ_FLAGS]));
	rec_u64(r, "cas", get_u64(tb[GOBLIN_A_OBJ_CAS]));
	rec_s64(r, "exptime", tb[GOBLIN_A_OBJ_EXPTIME] ?
		(int64_t)nla_get_u64(tb[GOBLIN_A_OBJ_EXPTIME]) : 0);
	return NL_OK;
}

/*
 * object list: each object is printed as its message arrives, from one
 * record reused for all, so memory does not grow with the store.
 */
struct obj_stream {
	uint64_t n;
};

static void obj_row(const struct rec *r);

static int stream_obj(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct obj_stream *st = arg;
	struct recs one = { 0 };
	struct rec *r;

	if (parse_obj(tb, nlh, &one) != NL_OK || one.n != 1) {
		recs_free(&one);
		return NL_OK;
	}
	r = one.r[0];
	if (opt_json)
		json_stream_add(json_rec(r));
	else
		obj_row(r);
	st->n++;
	recs_free(&one);
	return NL_OK;
}

/*
 * Human rows of a streamed listing: fixed columns (widths cannot be
 * measured before the end); a longer key or number shifts its row only.
 */
static void obj_row(const struct rec *r)
{
	static bool header;
	char key[4 * GOBLIN_KEY_MAX + 8], len[32], flags[32], cas[32], exp[32];

	if (!header) {
		printf("%-32s  %12s  %10s  %20s  %11s\n", "KEY", "LEN", "FLAGS",
		       "CAS", "EXPTIME");
		header = true;
	}
	fmt_field(key, sizeof(key), rec_get(r, "key"));
	fmt_field(len, sizeof(len), rec_get(r, "len"));
	fmt_field(flags, sizeof(flags), rec_get(r, "flags"));
	fmt_field(cas, sizeof(cas), rec_get(r, "cas"));
	fmt_field(exp, sizeof(exp), rec_get(r, "exptime"));
	printf("%-32s  %12s  %10s  %20s  %11s\n", key, len, flags, cas, exp);
}

int cmd_object(int argc, char **argv)
{
	struct obj_stream st = { 0 };
	struct recs rs = { 0 };
	struct nl_msg *msg;
	int ret;

	need_args(argc, 1, "object show KEY | object list [--prefix P]");
	sub_help(argc - 1, argv + 1);
	/* "object show" without a key lists, as "object list" */
	if (match_word("object", argv[0], show_words,
		       ARRAY_SIZE(show_words)) == W_SHOW &&
	    strncmp(argv[0], "list", strlen(argv[0])) && argc >= 2 &&
	    strcmp(argv[1], "--prefix") && strcmp(argv[1], "prefix")) {
		if (argc > 2)
			usage_die("usage: %s object show KEY", prog);
		if (!argv[1][0] || strlen(argv[1]) > GOBLIN_KEY_MAX)
			usage_die("key: must be 1..%d bytes", GOBLIN_KEY_MAX);
		msg = req_msg(GOBLIN_CMD_OBJ_GET, 0);
		nla_put(msg, GOBLIN_A_KEY, strlen(argv[1]), argv[1]);
		req_run(msg, parse_obj, &rs, true);
		if (rs.n != 1)
			die("no reply from the kernel");
		print_one(rs.r[0]);
		recs_free(&rs);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "--prefix") ||
			  !strcmp(argv[1], "prefix"))) {
		if (strlen(argv[2]) > GOBLIN_KEY_MAX)
			usage_die("prefix: longer than %d bytes", GOBLIN_KEY_MAX);
	} else if (argc != 1) {
		usage_die("usage: %s object list [--prefix P]", prog);
	}
	msg = req_msg(GOBLIN_CMD_OBJ_GET, NLM_F_DUMP);
	if (argc == 3)
		nla_put(msg, GOBLIN_A_PREFIX, strlen(argv[2]), argv[2]);
	/*
	 * Open the socket first: an error before the first object must not
	 * leave a "[" behind.
	 */
	nl_open();
	if (opt_json)
		json_stream_begin();
	ret = req_run(msg, stream_obj, &st, false);
	if (ret < 0) {
		if (opt_json)
			json_stream_end();
		fflush(stdout);
		explain(&last_err);
	}
	if (opt_json)
		json_stream_end();
	/*
	 * NLM_F_DUMP_INTR: the kernel could not promise that every object
	 * present for the whole dump is in it exactly once (goblin.ko never
	 * sets it today; a streamed listing cannot be retried).
	 */
	if (ret == 1)
		fprintf(stderr, "%s: warning: objects changed during the dump\n",
			prog);
	return 0;
}
