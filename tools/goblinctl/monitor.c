// SPDX-License-Identifier: GPL-2.0
/* goblinctl: monitor: multicast events, resynchronised after ENOBUFS. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "goblinctl.h"

/* monitor: print multicast events until interrupted or COUNT events. */
static const char *const event_names[] = {
	[GOBLIN_CMD_EVT_LISTENER_UP] = "listener-up",
	[GOBLIN_CMD_EVT_LISTENER_DOWN] = "listener-down",
	[GOBLIN_CMD_EVT_CONN_OPEN] = "conn-open",
	[GOBLIN_CMD_EVT_CONN_CLOSE] = "conn-close",
	[GOBLIN_CMD_EVT_DEVICE_ADD] = "device-add",
	[GOBLIN_CMD_EVT_DEVICE_DEL] = "device-del",
	[GOBLIN_CMD_EVT_SAFETY_REFUSED] = "safety-refused",
	[GOBLIN_CMD_EVT_EVICT_PRESSURE] = "evict-pressure",
};

static uint64_t events_seen;

/* One event: a JSON object a line, or "HH:MM:SS event name=value...". */
static void print_event(const struct rec *r)
{
	char tbuf[32];
	int i;

	if (opt_json) {
		json_put(json_rec(r), true);
	} else {
		time_t t = time(NULL);

		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
		printf("%s %s", tbuf, r->f[0].str);
		for (i = 2; i < r->n; i++) {
			char buf[300];

			fmt_field(buf, sizeof(buf), &r->f[i]);
			printf(" %s=%s", r->f[i].name, buf);
		}
		putchar('\n');
		fflush(stdout);
	}
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[GOBLIN_A_MAX + 1];
	struct rec r = { 0 };
	int i;

	if (genlmsg_parse(nlh, 0, tb, GOBLIN_A_MAX, NULL))
		return NL_SKIP;
	rec_str(&r, "event", name_of(event_names, ARRAY_SIZE(event_names),
				     gh->cmd));
	rec_s64(&r, "time", time(NULL));
	if (tb[GOBLIN_A_LISTENER_KIND])
		rec_str(&r, "kind", name_of(kind_names, ARRAY_SIZE(kind_names),
					    nla_get_u8(tb[GOBLIN_A_LISTENER_KIND])));
	if (tb[GOBLIN_A_LISTENER_ID])
		rec_u64(&r, "listener_id", nla_get_u32(tb[GOBLIN_A_LISTENER_ID]));
	if (tb[GOBLIN_A_ADDR4] || tb[GOBLIN_A_ADDR6])
		rec_addr(&r, "address", "port", tb[GOBLIN_A_ADDR4],
			 tb[GOBLIN_A_ADDR6], tb[GOBLIN_A_PORT]);
	if (tb[GOBLIN_A_CONN_ID])
		rec_u64(&r, "conn_id", nla_get_u64(tb[GOBLIN_A_CONN_ID]));
	if (tb[GOBLIN_A_PEER_ADDR4] || tb[GOBLIN_A_PEER_ADDR6])
		rec_addr(&r, "peer", "peer_port", tb[GOBLIN_A_PEER_ADDR4],
			 tb[GOBLIN_A_PEER_ADDR6], tb[GOBLIN_A_PEER_PORT]);
	if (tb[GOBLIN_A_DEVICE])
		rec_str(&r, "device", nla_get_string(tb[GOBLIN_A_DEVICE]));
	if (tb[GOBLIN_A_REASON])
		rec_str(&r, "reason", nla_get_string(tb[GOBLIN_A_REASON]));
	if (tb[GOBLIN_A_PRESSURE_USED])
		rec_u64(&r, "used", nla_get_u64(tb[GOBLIN_A_PRESSURE_USED]));
	if (tb[GOBLIN_A_PRESSURE_LIMIT])
		rec_u64(&r, "limit", nla_get_u64(tb[GOBLIN_A_PRESSURE_LIMIT]));
	if (tb[GOBLIN_A_PRESSURE_EVICTED])
		rec_u64(&r, "evicted",
			nla_get_u64(tb[GOBLIN_A_PRESSURE_EVICTED]));
	print_event(&r);
	for (i = 0; i < r.n; i++)
		free(r.f[i].str);
	events_seen++;
	return NL_OK;
}

/*
 * The socket overflowed (ENOBUFS): events were dropped. Say so, then
 * resynchronise: list the listeners that exist now (from a second socket,
 * as "listener" records) so that a consumer tracking them can rebuild its
 * state, and carry on. Connections are not listed (they may be many).
 */
static void monitor_resync(void)
{
	struct nl_sock *mon = sk;
	struct rec r = { 0 };
	struct recs rs = { 0 };
	size_t i;
	int j;

	fprintf(stderr, "%s: monitor: socket overflow, events lost; resynchronising\n",
		prog);
	rec_str(&r, "event", "events-lost");
	rec_s64(&r, "time", time(NULL));
	print_event(&r);
	free(r.f[0].str);
	sk = NULL;
	nl_open();
	req_run(req_msg(GOBLIN_CMD_LISTENER_GET, NLM_F_DUMP), parse_listener,
		&rs, false);
	nl_socket_free(sk);
	sk = mon;
	for (i = 0; i < rs.n; i++) {
		struct rec *l = rs.r[i];

		memset(&r, 0, sizeof(r));
		rec_str(&r, "event", "listener");
		rec_s64(&r, "time", time(NULL));
		for (j = 0; j < l->n && j < 4; j++)	/* kind id address port */
			r.f[r.n++] = l->f[j];
		print_event(&r);
		free(r.f[0].str);
	}
	memset(&r, 0, sizeof(r));
	rec_str(&r, "event", "resync-done");
	rec_s64(&r, "time", time(NULL));
	rec_u64(&r, "listeners", rs.n);
	print_event(&r);
	free(r.f[0].str);
	recs_free(&rs);
}

int cmd_monitor(int argc, char **argv)
{
	static const struct word words[] = {
		{ "count", 0 }, { "timeout", 1 }, { "rcvbuf", 2 },
	};
	uint64_t count = 0, timeout = 0, rcvbuf = 0;
	struct pollfd pfd;
	time_t end = 0;
	int grp, err, i;

	sub_help(argc, argv);
	for (i = 0; i < argc; i += 2) {
		int w = match_word("monitor", argv[i], words, ARRAY_SIZE(words));

		if (i + 1 >= argc)
			usage_die("%s: missing value", words[w].name);
		if (w == 0)
			count = arg_u64("count", argv[i + 1], UINT64_MAX);
		else if (w == 1)
			timeout = arg_u64("timeout", argv[i + 1], 86400 * 365);
		else
			rcvbuf = arg_size("rcvbuf", argv[i + 1], INT_MAX / 2);
	}
	nl_open();
	if (rcvbuf)
		nl_socket_set_buffer_size(sk, rcvbuf, 0);
	grp = genl_ctrl_resolve_grp(sk, GOBLIN_GENL_NAME, GOBLIN_MCGRP_EVENTS);
	if (grp < 0)
		die("goblin module has no \"events\" group");
	err = nl_socket_add_membership(sk, grp);
	if (err == -NLE_PERM || err == -NLE_NOACCESS)
		die("permission denied: subscribing to events needs CAP_NET_ADMIN (run as root)");
	if (err < 0)
		die("cannot subscribe to events: %s", nl_geterror(err));
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!opt_json) {
		printf("listening for goblin events (Ctrl-C to stop)\n");
		fflush(stdout);
	}
	if (timeout)
		end = time(NULL) + timeout;
	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	while (!stop && (!count || events_seen < count)) {
		int ms = -1;

		if (end) {
			time_t now = time(NULL);

			if (now >= end)
				break;
			ms = (end - now) * 1000;
		}
		err = poll(&pfd, 1, ms);
		if (err < 0 && errno == EINTR)
			continue;
		if (err <= 0)
			continue;
		err = nl_recvmsgs_default(sk);
		/* libnl reports ENOBUFS as NLE_NOMEM */
		if (err == -NLE_NOMEM)
			monitor_resync();
		else if (err < 0 && err != -NLE_AGAIN && err != -NLE_INTR)
			die("receiving events: %s", nl_geterror(err));
	}
	return 0;
}
