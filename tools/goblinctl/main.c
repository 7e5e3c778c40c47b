// SPDX-License-Identifier: GPL-2.0
/* goblinctl: main: global options, the command table, version, batch mode. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "goblinctl.h"

/* From the top-level VERSION file (Makefile). */
#ifndef GOBLINCTL_VERSION
#error "GOBLINCTL_VERSION is not defined: build with tools/goblinctl/Makefile"
#endif

static int version_cb(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct rec *r = arg;

	rec_str(r, "module", get_str(tb[GOBLIN_A_VERSION]));
	rec_u64(r, "genl_version", gh->version);
	return NL_OK;
}

static int cmd_version(int argc, char **argv)
{
	struct recs rs = { 0 };
	struct rec *r = rec_new(&rs);

	if (argc)
		usage_die("usage: %s version", prog);
	rec_str(r, "goblinctl", GOBLINCTL_VERSION);
	req_run(req_msg(GOBLIN_CMD_VERSION_GET, 0), version_cb, r, true);
	print_one(r);
	recs_free(&rs);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Main, batch mode                                                   */

static const char usage_text[] =
	"usage: goblinctl [-j] [-p] [-b FILE] COMMAND [ARGS]\n"
	"\n"
	"  store show | store set NAME VALUE...   memory block ram-head item-max\n"
	"                                         ssd-dir ssd-max promotion\n"
	"                                         promotion-rate mlock cores cpus\n"
	"                                         rdma-max-conns crc reclaim\n"
	"                                         reclaim-low\n"
	"  listener add KIND ADDR[:PORT] [window SIZE] [windows N] [max-conns N]\n"
	"                                [idle-timeout S] [write-timeout S]\n"
	"                                [header-timeout S]\n"
	"                                [credits N] [max-peer-conns N] [port N]\n"
	"  listener del KIND ADDR[:PORT]          KIND: memcache rdma http\n"
	"  listener show [KIND]\n"
	"  numa show | numa set [policy device|local|interleave|bind] [node N]\n"
	"  stats [global|listeners|conns|numa] [-w SECONDS [-n COUNT]]\n"
	"  conn show [KIND]\n"
	"  object show KEY | object list [--prefix P]\n"
	"  flush\n"
	"  monitor [count N] [timeout SECONDS] [rcvbuf SIZE]\n"
	"  version\n"
	"  help\n"
	"\n"
	"  -j, --json     JSON output      -p, --pretty   indented JSON\n"
	"  -b, --batch F  run commands from file F (\"-\" = stdin)\n"
	"  -h, --help     this text        -V, --version  goblinctl's version\n"
	"Commands and subcommands may be abbreviated (goblinctl l s); show and\n"
	"list are the same. `COMMAND help` shows one command. Sizes take K, M,\n"
	"G, T suffixes (powers of 1024). Exit status: 0 ok, 1 error (refused by\n"
	"the kernel, module not loaded, ...), 2 usage error. See goblinctl(8).\n";

static void print_usage(FILE *f)
{
	fputs(usage_text, f);
}

static int cmd_help(int argc, char **argv)
{
	print_usage(stdout);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "store", cmd_store,
	  "store show | store set NAME VALUE [NAME VALUE]...\n"
	  "  NAME: memory block ram-head item-max ssd-dir ssd-max promotion\n"
	  "        promotion-rate mlock cores cpus rdma-max-conns crc reclaim\n"
	  "        reclaim-low" },
	{ "listener", cmd_listener,
	  LISTENER_ADD_USAGE "\n       " LISTENER_DEL_USAGE
	  "\n       listener show [KIND]\n  KIND: memcache rdma http" },
	{ "numa", cmd_numa,
	  "numa show | numa set [policy device|local|interleave|bind] [node N]" },
	{ "stats", cmd_stats,
	  "stats [global|listeners|conns|numa] [-w SECONDS [-n COUNT]]" },
	{ "conn", cmd_conn, "conn show [KIND]" },
	{ "object", cmd_object, "object show KEY | object list [--prefix P]" },
	{ "flush", cmd_flush, "flush" },
	{ "monitor", cmd_monitor,
	  "monitor [count N] [timeout SECONDS] [rcvbuf SIZE]" },
	{ "version", cmd_version, "version" },
	{ "help", cmd_help, "help" },
};

static int run_command(int argc, char **argv)
{
	struct word words[ARRAY_SIZE(commands)];
	size_t i;
	int c;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		words[i].name = commands[i].name;
		words[i].id = i;
	}
	c = match_word("command", argv[0], words, ARRAY_SIZE(words));
	cmd_usage = commands[c].usage;
	if (argc >= 2 && is_help(argv[1]))
		help_exit();
	return commands[c].fn(argc - 1, argv + 1);
}

/* Split a batch line into words; supports '...' and "..." quoting. */
static int split_line(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line, *o;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (argc >= max)
			usage_die("batch: too many words");
		o = p;
		argv[argc++] = p;
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '\'' || *p == '"') {
				char q = *p++;

				while (*p && *p != q)
					*o++ = *p++;
				if (!*p)
					usage_die("batch: unterminated quote");
				p++;
			} else {
				*o++ = *p++;
			}
		}
		if (*p)
			p++;
		*o = '\0';
	}
	return argc;
}

static int run_batch(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line = NULL, *argv[64];
	size_t cap = 0;
	int argc, lineno = 0;

	if (!f)
		die("%s: %s", file, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		pid_t pid;
		int status;

		lineno++;
		argc = split_line(line, argv, ARRAY_SIZE(argv) - 1);
		if (!argc)
			continue;
		argv[argc] = NULL;
		/* Run each command in a child so die() stops only that one. */
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid) {
			/*
			 * _exit(): exit() would flush the batch FILE shared
			 * with the parent and move its file offset.
			 */
			status = run_command(argc, argv);
			fflush(stdout);
			fflush(stderr);
			_exit(status);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: batch: %s:%d: command failed\n",
				prog, file, lineno);
			free(line);
			/* the command's own status: 2 for a usage error */
			return WIFEXITED(status) && WEXITSTATUS(status) == 2 ?
			       2 : 1;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *batch = NULL;
	int c;

	/* "+": options end at the command (stats -w is the command's) */
	while ((c = getopt_long(argc, argv, "+jpb:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'p':
			opt_pretty = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		case 'V':
			printf("goblinctl %s\n", GOBLINCTL_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	/* -p alone means pretty JSON. */
	if (opt_pretty)
		opt_json = true;
	if (batch) {
		if (optind != argc)
			usage_die("-b: no command allowed with a batch file");
		return run_batch(batch);
	}
	if (optind >= argc) {
		print_usage(stderr);
		return 2;
	}
	return run_command(argc - optind, argv + optind);
}
