// SPDX-License-Identifier: GPL-2.0
/*
 * gbcli: command-line client for Goblin Store, built on libgoblin.
 *
 *   gbcli [-t rdma|tcp] -s ADDR -p PORT [options] COMMAND ARGS...
 *
 * Commands:
 *   get KEY            write the value, byte-exact, to stdout (or -o FILE)
 *   set KEY [FILE]     store FILE (default: stdin) under KEY
 *   delete KEY         remove KEY
 *   touch KEY EXPTIME  change the expiry of KEY
 *   mget KEY...        fetch a batch; prints "KEY LEN" or "KEY NOT_FOUND"
 *                      per key; with -o DIR writes each value to DIR/KEY
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
		"commands: get KEY | set KEY [FILE] | delete KEY | touch KEY EXPTIME |\n"
		"          mget KEY...\n", prog);
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

static int cmd_mget(struct gb_conn *c, int n, char **keys, const char *dir)
{
	struct mget_state st = { .keys = (const char *const *)keys,
				 .dir = dir };
	size_t *klens;
	int i, ret;

	klens = calloc((size_t)n, sizeof(*klens));
	st.fds = calloc((size_t)n, sizeof(*st.fds));
	if (!klens || !st.fds) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		klens[i] = strlen(keys[i]);
		st.fds[i] = -1;
	}
	ret = gb_get_many(c, (size_t)n, st.keys, klens, mget_chunk, &st);
	for (i = 0; i < n; i++)
		if (st.fds[i] >= 0)
			close(st.fds[i]);
	free(klens);
	free(st.fds);
	if (ret)
		return err_exit(c, "mget", ret);
	if (st.failed)
		return EXIT_FAIL;
	return st.missing ? EXIT_NOTFOUND : 0;
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
	const char *out = NULL, *cmd;
	int opt, ret, nargs;
	bool have_port = false;

	gb_connect_opts_init(&o);
	o.host = NULL;
	while ((opt = getopt(argc, argv, "t:s:p:T:W:N:C:F:E:o:vh")) != -1) {
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
	if (!o.host || !have_port || optind >= argc)
		usage();
	cmd = argv[optind++];
	nargs = argc - optind;
	if ((!strcmp(cmd, "get") && nargs != 1) ||
	    (!strcmp(cmd, "set") && (nargs < 1 || nargs > 2)) ||
	    (!strcmp(cmd, "delete") && nargs != 1) ||
	    (!strcmp(cmd, "touch") && nargs != 2) ||
	    (!strcmp(cmd, "mget") && nargs < 1))
		usage();
	if (strcmp(cmd, "get") && strcmp(cmd, "set") && strcmp(cmd, "delete") &&
	    strcmp(cmd, "touch") && strcmp(cmd, "mget"))
		usage();

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
		exptime = (uint32_t)num(argv[optind + 1], UINT32_MAX);
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
