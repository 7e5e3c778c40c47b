/* SPDX-License-Identifier: GPL-2.0 */
/*
 * goblinctl - configure and inspect Goblin Store over generic netlink.
 *
 * Every command builds one request, collects the replies as records (a flat
 * list of named, typed fields) and then prints them either as aligned text
 * or as JSON. The JSON field names are part of the interface: see
 * goblinctl(8) and Documentation/goblinctl.rst.
 *
 * Files: main.c (options, command table, batch mode), util.c (exit and
 * allocation helpers), record.c (records), output.c (text and JSON),
 * args.c (argument and command-word parsing), netlink.c (socket, requests,
 * extended acks), and one file per command group: store.c (store, flush),
 * listener.c, conn.c, object.c, numa.c, stats.c, monitor.c.
 */
#ifndef GOBLINCTL_H
#define GOBLINCTL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/goblin.h>

#include <json-c/json.h>

#include "../include/gb_compiler.h"

/* util.c: global options, exits, allocation */

extern bool opt_json;
extern bool opt_pretty;
extern const char *prog;

void __noreturn leave(int status);
void __noreturn __printf(1, 2) die(const char *fmt, ...);
void __noreturn __printf(1, 2) usage_die(const char *fmt, ...);
void *xcalloc(size_t n, size_t sz);

/* Set by on_signal() (SIGINT, SIGTERM): stop watching or monitoring. */
extern atomic_bool stop;
void on_signal(int sig);

/* record.c: records */

enum ftype { F_U64, F_S64, F_STR, F_BOOL, F_SIZE, F_BIN };

struct field {
	const char *name;
	enum ftype type;
	uint64_t u;
	int64_t s;
	char *str;		/* F_STR, F_BIN (len in u) */
};

#define MAX_FIELDS 80

struct rec {
	int n;
	struct field f[MAX_FIELDS];
};

struct recs {
	size_t n, cap;
	struct rec **r;
};

struct rec *rec_new(struct recs *rs);
void recs_free(struct recs *rs);
void rec_u64(struct rec *r, const char *name, uint64_t v);
void rec_size(struct rec *r, const char *name, uint64_t v);
void rec_s64(struct rec *r, const char *name, int64_t v);
void rec_bool(struct rec *r, const char *name, bool v);
void rec_str(struct rec *r, const char *name, const char *s);
void rec_bin(struct rec *r, const char *name, const void *p, size_t len);
const struct field *rec_get(const struct rec *r, const char *name);

/* output.c: text and JSON */

void fmt_field(char *buf, size_t len, const struct field *f);
void json_add(json_object *obj, const char *name, json_object *v);
json_object *json_rec(const struct rec *r);
json_object *json_recs(const struct recs *rs);
void json_put(json_object *obj, bool oneline);
void json_stream_begin(void);
void json_stream_add(json_object *obj);
void json_stream_end(void);
void human_kv(const struct rec *r);
void human_table(const struct recs *rs, const char *const *cols);
void print_one(const struct rec *r);
void print_list(const struct recs *rs, const char *const *cols);

/* args.c: arguments, names, command words, help */

struct addr {
	int family;		/* AF_INET, AF_INET6 */
	unsigned char a[16];
	int port;		/* -1 = not given */
};

/*
 * Command words: an exact name, or an unambiguous prefix of names meaning
 * the same (`goblinctl l s` is `listener show`). Names with the same id
 * are aliases ("show" and "list").
 */
struct word {
	const char *name;
	int id;
};

enum { W_SHOW, W_SET, W_ADD, W_DEL };

extern const struct word show_set_words[3];
extern const struct word show_words[2];
extern const struct word listener_words[5];
extern const char *const kind_names[GOBLIN_LISTENER_HTTP + 1];
extern const char *const numa_names[GOBLIN_NUMA_DEVICE + 1];
extern const char *cmd_usage;

uint64_t arg_u64(const char *what, const char *s, uint64_t max);
uint64_t arg_size(const char *what, const char *s, uint64_t max);
bool arg_bool(const char *what, const char *s);
void arg_addr(const char *s, struct addr *ad);
void fmt_addr(char *buf, size_t len, int family, const void *a);
int lookup(const char *what, const char *s, const char *const *names, int n);
int match_word(const char *what, const char *w, const struct word *words,
	       size_t n);
bool is_help(const char *w);
void __noreturn help_exit(void);
void sub_help(int argc, char **argv);
const char *name_of(const char *const *names, int n, unsigned int v);
void need_args(int argc, int n, const char *usage);

/* netlink.c: the socket and requests */

struct req {
	struct nl_msg *msg;
	int error;		/* negative errno from the kernel */
	char errmsg[512];
	bool done;
	bool intr;
	int (*parse)(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
	void *arg;
};

extern struct nl_sock *sk;
extern struct req last_err;

void nl_open(void);
struct nl_msg *req_msg(uint8_t cmd, int flags);
void __noreturn explain(const struct req *rq);
int req_run(struct nl_msg *msg,
	    int (*parse)(struct nlattr **, struct nlmsghdr *, void *),
	    void *arg, bool fatal);
uint64_t get_u64(struct nlattr *a);
uint32_t get_u32(struct nlattr *a);
const char *get_str(struct nlattr *a);
void rec_addr(struct rec *r, const char *name, const char *pname,
	      struct nlattr *a4, struct nlattr *a6, struct nlattr *port);

/* Command groups */

#define LISTENER_ADD_USAGE \
	"listener add KIND ADDR[:PORT] [port N] [window SIZE] [windows N] [max-conns N] [idle-timeout S] [write-timeout S] [header-timeout S] [credits N] [max-peer-conns N]"
#define LISTENER_DEL_USAGE \
	"listener del KIND ADDR[:PORT] [port N]"

extern const char *const listener_cols[];
int parse_listener(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
void dump_listeners(struct recs *rs, int kind);
extern const char *const conn_cols[];
void dump_conns(struct recs *rs, int kind);
uint64_t rec_rdma_errors(struct rec *r, struct nlattr *nest, bool conn);
int numa_show(void);

int cmd_store(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_listener(int argc, char **argv);
int cmd_conn(int argc, char **argv);
int cmd_object(int argc, char **argv);
int cmd_numa(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_monitor(int argc, char **argv);

#endif /* GOBLINCTL_H */
