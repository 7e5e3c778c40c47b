// SPDX-License-Identifier: GPL-2.0
/* goblinctl: stats, stats -w. */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "goblinctl.h"

static const char *const stats_names[GOBLIN_STATS_A_MAX + 1] = {
	[GOBLIN_STATS_A_CURR_ITEMS] = "curr_items",
	[GOBLIN_STATS_A_TOTAL_ITEMS] = "total_items",
	[GOBLIN_STATS_A_BYTES] = "bytes",
	[GOBLIN_STATS_A_HEAD_BYTES] = "head_bytes",
	[GOBLIN_STATS_A_TAIL_BYTES] = "tail_bytes",
	[GOBLIN_STATS_A_EVICTIONS] = "evictions",
	[GOBLIN_STATS_A_EXPIRED_UNFETCHED] = "expired_unfetched",
	[GOBLIN_STATS_A_RECLAIMED] = "reclaimed",
	[GOBLIN_STATS_A_GET_HITS] = "get_hits",
	[GOBLIN_STATS_A_GET_MISSES] = "get_misses",
	[GOBLIN_STATS_A_GET_EXPIRED] = "get_expired",
	[GOBLIN_STATS_A_GET_FLUSHED] = "get_flushed",
	[GOBLIN_STATS_A_CMD_SET] = "cmd_set",
	[GOBLIN_STATS_A_CMD_TOUCH] = "cmd_touch",
	[GOBLIN_STATS_A_TOUCH_HITS] = "touch_hits",
	[GOBLIN_STATS_A_TOUCH_MISSES] = "touch_misses",
	[GOBLIN_STATS_A_DELETE_HITS] = "delete_hits",
	[GOBLIN_STATS_A_DELETE_MISSES] = "delete_misses",
	[GOBLIN_STATS_A_INCR_HITS] = "incr_hits",
	[GOBLIN_STATS_A_INCR_MISSES] = "incr_misses",
	[GOBLIN_STATS_A_DECR_HITS] = "decr_hits",
	[GOBLIN_STATS_A_DECR_MISSES] = "decr_misses",
	[GOBLIN_STATS_A_CAS_HITS] = "cas_hits",
	[GOBLIN_STATS_A_CAS_MISSES] = "cas_misses",
	[GOBLIN_STATS_A_CAS_BADVAL] = "cas_badval",
	[GOBLIN_STATS_A_BLOCKS_TOTAL] = "blocks_total",
	[GOBLIN_STATS_A_BLOCKS_HUGE] = "blocks_huge",
	[GOBLIN_STATS_A_BLOCKS_SMALL] = "blocks_small",
	[GOBLIN_STATS_A_PAGES_FREE] = "pages_free",
	[GOBLIN_STATS_A_MEMORY_LIMIT] = "memory_limit",
	[GOBLIN_STATS_A_SSD_LIMIT] = "ssd_limit",
	[GOBLIN_STATS_A_LISTENERS] = "listeners",
	[GOBLIN_STATS_A_CONNS] = "conns",
	[GOBLIN_STATS_A_CONNS_TOTAL] = "conns_total",
	[GOBLIN_STATS_A_REFUSED] = "refused",
	[GOBLIN_STATS_A_PAGES_QUARANTINED] = "pages_quarantined",
	[GOBLIN_STATS_A_QUARANTINED_TOTAL] = "quarantined_total",
	[GOBLIN_STATS_A_TCP_BYTES_IN] = "tcp_bytes_in",
	[GOBLIN_STATS_A_TCP_BYTES_OUT] = "tcp_bytes_out",
	[GOBLIN_STATS_A_TCP_REJECTED] = "tcp_rejected",
	[GOBLIN_STATS_A_RDMA_REQUESTS] = "rdma_requests",
	[GOBLIN_STATS_A_RDMA_HITS] = "rdma_hits",
	[GOBLIN_STATS_A_RDMA_MISSES] = "rdma_misses",
	[GOBLIN_STATS_A_RDMA_SETS] = "rdma_sets",
	[GOBLIN_STATS_A_RDMA_BYTES_WRITTEN] = "rdma_bytes_written",
	[GOBLIN_STATS_A_RDMA_BYTES_READ] = "rdma_bytes_read",
	[GOBLIN_STATS_A_RDMA_ERRORS] = "rdma_errors",
	[GOBLIN_STATS_A_RDMA_WINDOWS_IN_FLIGHT] = "rdma_windows_in_flight",
	[GOBLIN_STATS_A_TAIL_IO_ERRORS] = "tail_io_errors",
	[GOBLIN_STATS_A_TAIL_WB_ERRORS] = "tail_wb_errors",
	[GOBLIN_STATS_A_META_BYTES] = "meta_bytes",
	[GOBLIN_STATS_A_HTTP_REQUESTS] = "http_requests",
	[GOBLIN_STATS_A_HTTP_GET] = "http_get",
	[GOBLIN_STATS_A_HTTP_HEAD] = "http_head",
	[GOBLIN_STATS_A_HTTP_PUT] = "http_put",
	[GOBLIN_STATS_A_HTTP_DELETE] = "http_delete",
	[GOBLIN_STATS_A_HTTP_OTHER] = "http_other",
	[GOBLIN_STATS_A_HTTP_1XX] = "http_1xx",
	[GOBLIN_STATS_A_HTTP_2XX] = "http_2xx",
	[GOBLIN_STATS_A_HTTP_3XX] = "http_3xx",
	[GOBLIN_STATS_A_HTTP_4XX] = "http_4xx",
	[GOBLIN_STATS_A_HTTP_5XX] = "http_5xx",
	[GOBLIN_STATS_A_HTTP_BYTES_IN] = "http_bytes_in",
	[GOBLIN_STATS_A_HTTP_BYTES_OUT] = "http_bytes_out",
	[GOBLIN_STATS_A_HTTP_VALUE_BYTES_IN] = "http_value_bytes_in",
	[GOBLIN_STATS_A_HTTP_VALUE_BYTES_OUT] = "http_value_bytes_out",
	[GOBLIN_STATS_A_HTTP_REJECTED] = "http_rejected",
	[GOBLIN_STATS_A_PROMOTIONS] = "promotions",
	[GOBLIN_STATS_A_PROMOTED_BYTES] = "promoted_bytes",
	[GOBLIN_STATS_A_PROMOTION_FAILURES] = "promotion_failures",
};

/*
 * GOBLIN_RDMA_ERR_A_* as stats fields; connection fields drop the "rdma_"
 * (RDMA_ERR_CONN_NAME).
 */
static const char *const rdma_err_names[GOBLIN_RDMA_ERR_A_MAX + 1] = {
	[GOBLIN_RDMA_ERR_A_BAD_RECORD] = "rdma_err_bad_record",
	[GOBLIN_RDMA_ERR_A_CREDIT] = "rdma_err_credit",
	[GOBLIN_RDMA_ERR_A_WINDOW] = "rdma_err_window",
	[GOBLIN_RDMA_ERR_A_RANGE] = "rdma_err_range",
	[GOBLIN_RDMA_ERR_A_RDMA_OP] = "rdma_err_rdma_op",
	[GOBLIN_RDMA_ERR_A_COMPLETION] = "rdma_err_completion",
	[GOBLIN_RDMA_ERR_A_STORE] = "rdma_err_store",
	[GOBLIN_RDMA_ERR_A_REJECTED] = "rdma_err_rejected",
};

#define RDMA_ERR_CONN_NAME(i)	(rdma_err_names[i] + strlen("rdma_"))

/*
 * Add the counters of a GOBLIN_RDMA_ERR_A_* nest to @r, the ones the kernel
 * sent only (a connection has no "rejected"), named for a connection
 * (@conn) or for the stats; return their sum.
 */
uint64_t rec_rdma_errors(struct rec *r, struct nlattr *nest, bool conn)
{
	struct nlattr *e[GOBLIN_RDMA_ERR_A_MAX + 1];
	uint64_t sum = 0;
	int i;

	if (!nest || nla_parse_nested(e, GOBLIN_RDMA_ERR_A_MAX, nest, NULL))
		return 0;
	for (i = 0; i <= GOBLIN_RDMA_ERR_A_MAX; i++) {
		if (!rdma_err_names[i] || !e[i])
			continue;
		rec_u64(r, conn ? RDMA_ERR_CONN_NAME(i) : rdma_err_names[i],
			get_u64(e[i]));
		sum += get_u64(e[i]);
	}
	return sum;
}

static int parse_stats(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *st[GOBLIN_STATS_A_MAX + 1];
	struct rec *r = rec_new(arg);
	int i;

	if (!tb[GOBLIN_A_STATS] ||
	    nla_parse_nested(st, GOBLIN_STATS_A_MAX, tb[GOBLIN_A_STATS], NULL))
		return NL_SKIP;
	for (i = 0; i <= GOBLIN_STATS_A_MAX; i++) {
		if (!stats_names[i])
			continue;
		rec_u64(r, stats_names[i], get_u64(st[i]));
	}
	rec_rdma_errors(r, st[GOBLIN_STATS_A_RDMA_ERROR_KINDS], false);
	return NL_OK;
}

static struct rec *get_stats(struct recs *rs)
{
	req_run(req_msg(GOBLIN_CMD_STATS_GET, 0), parse_stats, rs, true);
	if (rs->n != 1)
		die("no reply from the kernel");
	return rs->r[0];
}

/* Print per-second rates of the counters every @interval seconds. */
static int stats_watch(unsigned int interval, uint64_t count)
{
	static const char *const gauges[] = {
		"curr_items", "bytes", "head_bytes", "tail_bytes",
		"pages_free", "memory_limit", "ssd_limit", "listeners",
		"conns", "blocks_total", "blocks_huge", "blocks_small",
		"pages_quarantined", "rdma_windows_in_flight", NULL
	};
	struct recs prev = { 0 }, cur = { 0 };
	struct rec out;
	uint64_t n;
	int i, g;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	get_stats(&prev);
	for (n = 0; !stop && (!count || n < count); n++) {
		sleep(interval);
		if (stop)
			break;
		get_stats(&cur);
		memset(&out, 0, sizeof(out));
		rec_u64(&out, "interval", interval);
		for (i = 0; i < cur.r[0]->n; i++) {
			const struct field *c = &cur.r[0]->f[i];
			const struct field *p = &prev.r[0]->f[i];
			bool gauge = false;

			for (g = 0; gauges[g]; g++)
				if (!strcmp(gauges[g], c->name))
					gauge = true;
			if (gauge)
				rec_u64(&out, c->name, c->u);
			else
				rec_u64(&out, c->name,
					(c->u - p->u) / interval);
		}
		if (opt_json) {
			/* one object a line, -p or not */
			json_put(json_rec(&out), true);
		} else {
			printf("%-10s %10s %10s %10s %10s %10s %8s\n", "time",
			       "get_hits/s", "misses/s", "sets/s", "evict/s",
			       "items", "conns");
			{
				char tbuf[16];
				time_t t = time(NULL);

				strftime(tbuf, sizeof(tbuf), "%H:%M:%S",
					 localtime(&t));
				printf("%-10s %10llu %10llu %10llu %10llu %10llu %8llu\n",
				       tbuf,
				       (unsigned long long)rec_get(&out, "get_hits")->u,
				       (unsigned long long)rec_get(&out, "get_misses")->u,
				       (unsigned long long)rec_get(&out, "cmd_set")->u,
				       (unsigned long long)rec_get(&out, "evictions")->u,
				       (unsigned long long)rec_get(&out, "curr_items")->u,
				       (unsigned long long)rec_get(&out, "conns")->u);
			}
			fflush(stdout);
		}
		recs_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	recs_free(&prev);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	const char *what = "global";
	unsigned int interval = 0;
	uint64_t count = 0;
	struct recs rs = { 0 };
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-w") || !strcmp(argv[i], "--watch")) {
			if (++i >= argc)
				usage_die("-w: missing SECONDS");
			interval = arg_u64("-w", argv[i], 86400);
			if (!interval)
				usage_die("-w: SECONDS must be at least 1");
		} else if (!strcmp(argv[i], "-n") ||
			   !strcmp(argv[i], "--count")) {
			if (++i >= argc)
				usage_die("-n: missing COUNT");
			count = arg_u64("-n", argv[i], UINT64_MAX);
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			help_exit();
		} else {
			static const struct word w[] = {
				{ "global", 0 }, { "listeners", 1 },
				{ "conns", 2 }, { "numa", 3 },
			};

			what = w[match_word("stats", argv[i], w,
					    ARRAY_SIZE(w))].name;
		}
	}
	if (interval) {
		if (strcmp(what, "global"))
			usage_die("-w: only global statistics can be watched");
		return stats_watch(interval, count);
	}
	if (!strcmp(what, "numa"))
		return numa_show();
	if (!strcmp(what, "listeners")) {
		dump_listeners(&rs, -1);
		print_list(&rs, listener_cols);
	} else if (!strcmp(what, "conns")) {
		dump_conns(&rs, -1);
		print_list(&rs, conn_cols);
	} else {
		print_one(get_stats(&rs));
	}
	recs_free(&rs);
	return 0;
}
