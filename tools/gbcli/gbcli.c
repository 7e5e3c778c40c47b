// SPDX-License-Identifier: GPL-2.0
/*
 * gbcli: command-line client for Goblin Store, built on libgoblin.
 *
 *   gbcli [-t rdma|tcp] -s ADDR -p PORT [options] COMMAND ARGS...
 *   gbcli -S SERVERS [options] COMMAND ARGS...
 *
 * -S talks to a server set (goblin/fleet.h): SERVERS is a list such as
 * "rdma://10.0.0.1:11311/2=10.0.0.1,10.0.0.2:11211", keys are placed with
 * ketama as libmemcached and twemproxy place them.
 *
 * Commands:
 *   get KEY            write the value, byte-exact, to stdout (or -o FILE)
 *   set KEY [FILE]     store FILE (default: stdin) under KEY
 *   delete KEY         remove KEY
 *   touch KEY EXPTIME  change the expiry of KEY
 *   mget KEY...        fetch a batch; prints "KEY LEN" or "KEY NOT_FOUND"
 *                      per key; with -o DIR writes each value to DIR/KEY
 *   where KEY...       (-S only) print "KEY RING_NAME ADDRESS" per key: the
 *                      server the ring gives it
 *
 * Exit status: 0 success, 1 not found (for mget: any key missing),
 * 2 other failure, 64 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <goblin/client.h>
#include <goblin/fleet.h>

#define EXIT_NOTFOUND	1
#define EXIT_FAIL	2
#define EXIT_USAGE	64

static const char *prog = "gbcli";
static int verbose;

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [-t rdma|tcp] -s ADDR -p PORT [-T MS] [-W BYTES] [-N WINDOWS]\n"
		"          [-F FLAGS] [-E EXPTIME] [-o OUT] [-v] COMMAND ARGS...\n"
		"       %s -S SERVERS [-f] [-T MS] [-W BYTES] [-N WINDOWS] [-F FLAGS]\n"
		"          [-E EXPTIME] [-o OUT] [-v] COMMAND ARGS...\n"
		"commands: get KEY | set KEY [FILE] | delete KEY | touch KEY EXPTIME |\n"
		"          mget KEY... | where KEY... (-S)\n"
		"SERVERS: [tcp|rdma://]HOST[:PORT][/WEIGHT][=RING_NAME],...\n",
		prog, prog);
	exit(EXIT_USAGE);
}

static int err_exit(struct gb_conn *c, const char *what, int ret)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, gb_errmsg(c));
	return ret == -GB_ENOTFOUND ? EXIT_NOTFOUND : EXIT_FAIL;
}

static void print_ts(const char *what, const struct gb_timestamps *ts)
{
	if (!verbose || !ts->submit_ns)
		return;
	fprintf(stderr, "%s: header %.1f us, payload %.1f us, complete %.1f us\n",
		what,
		ts->header_ns ? (ts->header_ns - ts->submit_ns) / 1e3 : 0.0,
		ts->payload_ns ? (ts->payload_ns - ts->submit_ns) / 1e3 : 0.0,
		ts->complete_ns ? (ts->complete_ns - ts->submit_ns) / 1e3 : 0.0);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static char *read_all(int fd, size_t *lenp)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap), *p;
	ssize_t n;

	while (buf) {
		if (len == cap) {
			if (cap > GB_VALUE_MAX) {
				errno = EFBIG;
				break;
			}
			p = realloc(buf, cap * 2);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (!n) {
			*lenp = len;
			return buf;
		}
		len += (size_t)n;
	}
	free(buf);
	return NULL;
}

static int cmd_get(struct gb_conn *c, const char *key, const char *out)
{
	struct gb_view v;
	int fd = STDOUT_FILENO, ret, rc = 0;

	ret = gb_get(c, key, strlen(key), &v);
	if (ret)
		return err_exit(c, "get", ret);
	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, out,
				strerror(errno));
			gb_release(&v);
			return EXIT_FAIL;
		}
	}
	for (;;) {
		if (write_all(fd, v.data, v.len)) {
			fprintf(stderr, "%s: write: %s\n", prog,
				strerror(errno));
			rc = EXIT_FAIL;
			break;
		}
		if (gb_view_last(&v))
			break;
		ret = gb_view_next(&v);
		if (ret) {
			rc = err_exit(c, "get", ret);
			break;
		}
	}
	print_ts("get", &v.ts);
	gb_release(&v);
	if (out)
		close(fd);
	return rc;
}

static int cmd_set(struct gb_conn *c, const char *key, const char *file,
		   uint32_t flags, uint32_t exptime)
{
	struct gb_timestamps ts;
	size_t len = 0;
	char *val;
	int fd = STDIN_FILENO, ret;

	if (file && strcmp(file, "-")) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, file,
				strerror(errno));
			return EXIT_FAIL;
		}
	}
	val = read_all(fd, &len);
	if (fd != STDIN_FILENO)
		close(fd);
	if (!val) {
		fprintf(stderr, "%s: reading value: %s\n", prog,
			strerror(errno));
		return EXIT_FAIL;
	}
	ret = gb_set(c, key, strlen(key), val, len, flags, exptime);
	free(val);
	if (ret)
		return err_exit(c, "set", ret);
	gb_last_timestamps(c, &ts);
	print_ts("set", &ts);
	return 0;
}

struct mget_state {
	const char *const *keys;
	const char *dir;
	int *fds;
	int missing;
	int failed;
};

static void mget_chunk(void *arg, size_t idx, int status,
		       const struct gb_view *v)
{
	struct mget_state *st = arg;
	char path[4096];

	if (status) {
		printf("%s %s\n", st->keys[idx],
		       status == -GB_ENOTFOUND ? "NOT_FOUND" : gb_strerror(status));
		if (status == -GB_ENOTFOUND)
			st->missing = 1;
		else
			st->failed = 1;
		return;
	}
	if (st->dir && st->fds[idx] < 0 && !st->failed) {
		snprintf(path, sizeof(path), "%s/%s", st->dir, st->keys[idx]);
		st->fds[idx] = open(path, O_WRONLY | O_CREAT | O_TRUNC |
				    O_CLOEXEC, 0644);
		if (st->fds[idx] < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(errno));
			st->failed = 1;
		}
	}
	if (st->dir && st->fds[idx] >= 0 &&
	    write_all(st->fds[idx], v->data, v->len)) {
		fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
		st->failed = 1;
	}
	if (gb_view_last(v)) {
		printf("%s %llu\n", st->keys[idx],
		       (unsigned long long)v->total);
		print_ts(st->keys[idx], &v->ts);
		if (st->dir && st->fds[idx] >= 0) {
			close(st->fds[idx]);
			st->fds[idx] = -1;
		}
	}
}

/*
 * mget_begin()/mget_end(): the key lengths and output files around one
 * get_many over a connection or a server set. mget_end() closes and frees
 * what mget_begin() made and returns the exit status of the answers.
 */
static int mget_begin(struct mget_state *st, int n, char **keys,
		      const char *dir, size_t **klens)
{
	int i;

	*st = (struct mget_state){ .keys = (const char *const *)keys,
				   .dir = dir };
	*klens = calloc((size_t)n, sizeof(**klens));
	st->fds = calloc((size_t)n, sizeof(*st->fds));
	if (!*klens || !st->fds) {
		free(*klens);
		free(st->fds);
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		(*klens)[i] = strlen(keys[i]);
		st->fds[i] = -1;
	}
	return 0;
}

static int mget_end(struct mget_state *st, int n, size_t *klens)
{
	int i;

	for (i = 0; i < n; i++)
		if (st->fds[i] >= 0)
			close(st->fds[i]);
	free(klens);
	free(st->fds);
	if (st->failed)
		return EXIT_FAIL;
	return st->missing ? EXIT_NOTFOUND : 0;
}

static int cmd_mget(struct gb_conn *c, int n, char **keys, const char *dir)
{
	struct mget_state st;
	size_t *klens;
	int ret, rc;

	rc = mget_begin(&st, n, keys, dir, &klens);
	if (rc)
		return rc;
	ret = gb_get_many(c, (size_t)n, st.keys, klens, mget_chunk, &st);
	rc = mget_end(&st, n, klens);
	return ret ? err_exit(c, "mget", ret) : rc;
}

/* ---- server sets (-S) ---- */

static int fleet_exit(struct gb_fleet *f, const char *what, int ret)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, gb_fleet_errmsg(f));
	return ret == -GB_ENOTFOUND ? EXIT_NOTFOUND : EXIT_FAIL;
}

static int fleet_get(struct gb_fleet *f, const char *key, const char *out)
{
	size_t cap = 1 << 20, len = 0;
	int fd = STDOUT_FILENO, ret, rc = 0;
	char *buf = NULL, *p;

	for (;;) {
		p = realloc(buf, cap);
		if (!p) {
			free(buf);
			fprintf(stderr, "%s: out of memory\n", prog);
			return EXIT_FAIL;
		}
		buf = p;
		ret = gb_fleet_get_copy(f, key, strlen(key), buf, cap, &len,
					NULL);
		if (ret != -GB_ENOSPC || len <= cap)
			break;
		cap = len;
	}
	if (ret) {
		free(buf);
		return fleet_exit(f, "get", ret);
	}
	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, out,
				strerror(errno));
			free(buf);
			return EXIT_FAIL;
		}
	}
	if (write_all(fd, buf, len)) {
		fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
		rc = EXIT_FAIL;
	}
	if (out)
		close(fd);
	free(buf);
	return rc;
}

static int fleet_set(struct gb_fleet *f, const char *key, const char *file,
		     uint32_t flags, uint32_t exptime)
{
	size_t len = 0;
	char *val;
	int fd = STDIN_FILENO, ret;

	if (file && strcmp(file, "-")) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, file,
				strerror(errno));
			return EXIT_FAIL;
		}
	}
	val = read_all(fd, &len);
	if (fd != STDIN_FILENO)
		close(fd);
	if (!val) {
		fprintf(stderr, "%s: reading value: %s\n", prog,
			strerror(errno));
		return EXIT_FAIL;
	}
	ret = gb_fleet_set(f, key, strlen(key), val, len, flags, exptime);
	free(val);
	return ret ? fleet_exit(f, "set", ret) : 0;
}

static int fleet_mget(struct gb_fleet *f, int n, char **keys,
		      const char *dir)
{
	struct mget_state st;
	size_t *klens;
	int ret, rc;

	rc = mget_begin(&st, n, keys, dir, &klens);
	if (rc)
		return rc;
	ret = gb_fleet_get_many(f, (size_t)n, st.keys, klens, mget_chunk, &st);
	rc = mget_end(&st, n, klens);
	return ret ? fleet_exit(f, "mget", ret) : rc;
}

static int fleet_where(struct gb_fleet *f, int n, char **keys)
{
	struct gb_fleet_state st;
	int i;

	for (i = 0; i < n; i++) {
		if (gb_fleet_state(f, gb_fleet_server_for_key(f, keys[i],
							      strlen(keys[i])),
				   &st))
			return EXIT_FAIL;
		printf("%s %s %s\n", keys[i], st.ring_name, st.addr);
	}
	return 0;
}

/* Every server of @list gets the tuning options of @o. */
static int fleet_main(const char *list, const struct gb_connect_opts *o,
		      bool failover, const char *cmd, int nargs, char **args,
		      const char *out, uint32_t flags, uint32_t exptime)
{
	struct gb_fleet_server *srv;
	struct gb_fleet_opts fo;
	struct gb_fleet *f;
	size_t n, i;
	int ret;

	ret = gb_fleet_parse(list, &srv, &n);
	if (ret) {
		fprintf(stderr, "%s: bad server list '%s': %s\n", prog, list,
			gb_strerror(ret));
		return EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		srv[i].conn.window_size = o->window_size;
		srv[i].conn.windows = o->windows;
		srv[i].conn.credits = o->credits;
	}
	gb_fleet_opts_init(&fo);
	fo.failover = failover;
	fo.timeout_ms = o->timeout_ms;
	ret = gb_fleet_create(&fo, srv, n, &f);
	free(srv);
	if (ret) {
		fprintf(stderr, "%s: %s\n", prog, gb_fleet_errmsg(NULL));
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "get")) {
		ret = fleet_get(f, args[0], out);
	} else if (!strcmp(cmd, "set")) {
		ret = fleet_set(f, args[0], nargs > 1 ? args[1] : NULL, flags,
				exptime);
	} else if (!strcmp(cmd, "delete")) {
		ret = gb_fleet_delete(f, args[0], strlen(args[0]));
		ret = ret ? fleet_exit(f, "delete", ret) : 0;
	} else if (!strcmp(cmd, "touch")) {
		ret = gb_fleet_touch(f, args[0], strlen(args[0]), exptime);
		ret = ret ? fleet_exit(f, "touch", ret) : 0;
	} else if (!strcmp(cmd, "mget")) {
		ret = fleet_mget(f, nargs, args, out);
	} else {
		ret = fleet_where(f, nargs, args);
	}
	gb_fleet_destroy(f);
	return ret;
}

static unsigned long num(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "%s: bad number '%s'\n", prog, s);
		exit(EXIT_USAGE);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct gb_connect_opts o;
	struct gb_conn *c;
	uint32_t flags = 0, exptime = 0;
	const char *out = NULL, *cmd, *servers = NULL;
	int opt, ret, nargs;
	bool have_port = false, failover = false;

	gb_connect_opts_init(&o);
	o.host = NULL;
	while ((opt = getopt(argc, argv, "t:s:p:S:fT:W:N:C:F:E:o:vh")) != -1) {
		switch (opt) {
		case 't':
			if (gb_transport_parse(optarg, &o.transport)) {
				fprintf(stderr, "%s: unknown transport '%s'\n",
					prog, optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			o.host = optarg;
			break;
		case 'p':
			o.port = (uint16_t)num(optarg, 65535);
			have_port = true;
			break;
		case 'S':
			servers = optarg;
			break;
		case 'f':
			failover = true;
			break;
		case 'T':
			o.timeout_ms = (int)num(optarg, 3600000);
			break;
		case 'W':
			o.window_size = (uint32_t)num(optarg, UINT32_MAX);
			break;
		case 'N':
			o.windows = (uint32_t)num(optarg, UINT32_MAX);
			break;
		case 'C':
			o.credits = (uint32_t)num(optarg, UINT32_MAX);
			break;
		case 'F':
			flags = (uint32_t)num(optarg, UINT32_MAX);
			break;
		case 'E':
			exptime = (uint32_t)num(optarg, UINT32_MAX);
			break;
		case 'o':
			out = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if ((servers ? o.host || have_port : !o.host || !have_port) ||
	    optind >= argc)
		usage();
	cmd = argv[optind++];
	nargs = argc - optind;
	if (servers && !strcmp(cmd, "where") && nargs >= 1) {
		ret = fleet_main(servers, &o, failover, cmd, nargs,
				 argv + optind, out, flags, exptime);
		fflush(stdout);
		return ret;
	}
	if (!strcmp(cmd, "touch") && nargs == 2)
		exptime = (uint32_t)num(argv[optind + 1], UINT32_MAX);
	if ((!strcmp(cmd, "get") && nargs != 1) ||
	    (!strcmp(cmd, "set") && (nargs < 1 || nargs > 2)) ||
	    (!strcmp(cmd, "delete") && nargs != 1) ||
	    (!strcmp(cmd, "touch") && nargs != 2) ||
	    (!strcmp(cmd, "mget") && nargs < 1))
		usage();
	if (strcmp(cmd, "get") && strcmp(cmd, "set") && strcmp(cmd, "delete") &&
	    strcmp(cmd, "touch") && strcmp(cmd, "mget"))
		usage();
	if (servers) {
		ret = fleet_main(servers, &o, failover, cmd, nargs,
				 argv + optind, out, flags, exptime);
		if (fflush(stdout)) {
			fprintf(stderr, "%s: stdout: %s\n", prog,
				strerror(errno));
			return EXIT_FAIL;
		}
		return ret;
	}

	ret = gb_connect(&o, &c);
	if (ret) {
		fprintf(stderr, "%s: %s %s:%u: %s\n", prog,
			gb_transport_name(o.transport), o.host, o.port,
			gb_errmsg(NULL));
		return EXIT_FAIL;
	}
	if (!strcmp(cmd, "get")) {
		ret = cmd_get(c, argv[optind], out);
	} else if (!strcmp(cmd, "set")) {
		ret = cmd_set(c, argv[optind], nargs > 1 ? argv[optind + 1] :
			      NULL, flags, exptime);
	} else if (!strcmp(cmd, "delete")) {
		ret = gb_delete(c, argv[optind], strlen(argv[optind]));
		ret = ret ? err_exit(c, "delete", ret) : 0;
	} else if (!strcmp(cmd, "touch")) {
		ret = gb_touch(c, argv[optind], strlen(argv[optind]), exptime);
		ret = ret ? err_exit(c, "touch", ret) : 0;
	} else {
		ret = cmd_mget(c, nargs, argv + optind, out);
	}
	gb_close(c);
	if (fflush(stdout)) {
		fprintf(stderr, "%s: stdout: %s\n", prog, strerror(errno));
		return EXIT_FAIL;
	}
	return ret;
}
