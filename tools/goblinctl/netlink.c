// SPDX-License-Identifier: GPL-2.0
/* goblinctl: the generic netlink socket, requests, extended acks. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "goblinctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nl_sock *sk;
static int family_id;

/* Names of top-level attributes, for error messages. */
static const char *const attr_names[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_MEMORY] = "memory",
	[GOBLIN_A_BLOCK] = "block",
	[GOBLIN_A_RAM_HEAD] = "ram_head",
	[GOBLIN_A_SSD_DIR] = "ssd_dir",
	[GOBLIN_A_SSD_MAX] = "ssd_max",
	[GOBLIN_A_PROMOTION] = "promotion",
	[GOBLIN_A_MLOCK] = "mlock",
	[GOBLIN_A_CORES] = "cores",
	[GOBLIN_A_LISTENER_KIND] = "listener kind",
	[GOBLIN_A_ADDR4] = "address",
	[GOBLIN_A_ADDR6] = "address",
	[GOBLIN_A_PORT] = "port",
	[GOBLIN_A_WINDOW] = "window",
	[GOBLIN_A_WINDOWS] = "windows",
	[GOBLIN_A_MAX_CONNS] = "max_conns",
	[GOBLIN_A_IDLE_TIMEOUT] = "idle_timeout",
	[GOBLIN_A_CREDITS] = "credits",
	[GOBLIN_A_MAX_PEER_CONNS] = "max_peer_conns",
	[GOBLIN_A_RDMA_MAX_CONNS] = "rdma_max_conns",
	[GOBLIN_A_WRITE_TIMEOUT] = "write_timeout",
	[GOBLIN_A_ITEM_MAX] = "item_max",
	[GOBLIN_A_CRC] = "crc",
	[GOBLIN_A_RDMA_LEASE_MS] = "rdma_lease_ms",
	[GOBLIN_A_CPUS] = "cpus",
	[GOBLIN_A_CPU] = "cpu",
	[GOBLIN_A_CPU_NODE] = "cpu_node",
	[GOBLIN_A_PROMOTION_RATE] = "promotion_rate",
	[GOBLIN_A_RECLAIM] = "reclaim",
	[GOBLIN_A_RECLAIM_LOW] = "reclaim_low",
	[GOBLIN_A_HEADER_TIMEOUT] = "header_timeout",
	[GOBLIN_A_KEY] = "key",
	[GOBLIN_A_PREFIX] = "prefix",
	[GOBLIN_A_NUMA_POLICY] = "policy",
	[GOBLIN_A_NUMA_NODE] = "node",
};

void nl_open(void)
{
	int one = 1, fd;

	if (sk)
		return;
	sk = nl_socket_alloc();
	if (!sk)
		die("out of memory");
	if (genl_connect(sk))
		die("cannot open a generic netlink socket");
	fd = nl_socket_get_fd(sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(sk, 1 << 20, 1 << 20);
	family_id = genl_ctrl_resolve(sk, GOBLIN_GENL_NAME);
	if (family_id < 0)
		die("goblin module not loaded (try: modprobe goblin)");
}

/*
 * A request, built before any socket is opened (so that every syntax error
 * is reported as such, module or not); req_run() fills in the family id.
 */
struct nl_msg *req_msg(uint8_t cmd, int flags)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		die("out of memory");
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, flags,
			 cmd, GOBLIN_GENL_VERSION))
		die("cannot build request");
	return msg;
}

/* Name of the attribute at byte @offs of the request we sent. */
static const char *offending_attr(struct nl_msg *msg, uint32_t offs)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *a;

	if (offs < NLMSG_HDRLEN + GENL_HDRLEN ||
	    offs + sizeof(*a) > nlh->nlmsg_len)
		return NULL;
	a = (struct nlattr *)((char *)nlh + offs);
	if (nla_type(a) > GOBLIN_A_MAX)
		return NULL;
	return attr_names[nla_type(a)];
}

/* Decode the extended ack TLVs following struct nlmsgerr. */
static void parse_ext_ack(struct req *rq, struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = nlmsg_data(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { NULL };
	struct nlattr *ptb[NL_POLICY_TYPE_ATTR_MAX + 1] = { NULL };
	const char *attr = NULL, *msg = NULL;
	size_t off = sizeof(*e), len;
	char range[128] = "";

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		goto out;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
		goto out;
	len = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off), len, NULL))
		goto out;
	if (tb[NLMSGERR_ATTR_MSG])
		msg = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	if (tb[NLMSGERR_ATTR_OFFS])
		attr = offending_attr(rq->msg,
				      nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		uint32_t t = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);

		if (t <= GOBLIN_A_MAX)
			attr = attr_names[t];
	}
	if (tb[NLMSGERR_ATTR_POLICY] &&
	    !nla_parse_nested(ptb, NL_POLICY_TYPE_ATTR_MAX,
			      tb[NLMSGERR_ATTR_POLICY], NULL)) {
		struct nlattr *lo = ptb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U];
		struct nlattr *hi = ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U];

		if (lo && hi)
			snprintf(range, sizeof(range),
				 " (valid range %llu..%llu)",
				 (unsigned long long)nla_get_u64(lo),
				 (unsigned long long)nla_get_u64(hi));
		else if (ptb[NL_POLICY_TYPE_ATTR_MIN_LENGTH] &&
			 ptb[NL_POLICY_TYPE_ATTR_MAX_LENGTH])
			snprintf(range, sizeof(range),
				 " (valid length %u..%u bytes)",
				 nla_get_u32(ptb[NL_POLICY_TYPE_ATTR_MIN_LENGTH]),
				 nla_get_u32(ptb[NL_POLICY_TYPE_ATTR_MAX_LENGTH]));
	}
out:
	if (!msg)
		msg = strerror(-rq->error);
	if (attr && strncmp(msg, attr, strlen(attr)))
		snprintf(rq->errmsg, sizeof(rq->errmsg), "%s: %s%s", attr, msg,
			 range);
	else
		snprintf(rq->errmsg, sizeof(rq->errmsg), "%s%s", msg, range);
}

static int cb_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct req *rq = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);

	rq->error = e->error;
	rq->done = true;
	if (e->error)
		parse_ext_ack(rq, nlh);
	return NL_STOP;
}

static int cb_finish(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	rq->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err = *(int *)nlmsg_data(nlh);

		if (err < 0) {
			rq->error = err;
			snprintf(rq->errmsg, sizeof(rq->errmsg), "%s",
				 strerror(-err));
		}
	}
	return NL_STOP;
}

static int cb_ack(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;

	rq->done = true;
	return NL_STOP;
}

static int cb_valid(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[GOBLIN_A_MAX + 1];

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		rq->intr = true;
	if (genlmsg_parse(nlh, 0, tb, GOBLIN_A_MAX, NULL))
		return NL_SKIP;
	if (rq->parse)
		return rq->parse(tb, nlh, rq->arg);
	return NL_OK;
}

/* The failed request of the last req_run(..., false). */
struct req last_err;

void __noreturn explain(const struct req *rq)
{
	if (rq->error == -EPERM)
		die("%s",
		    "permission denied: this command changes or reveals protected state and needs CAP_NET_ADMIN (run as root)");
	if (rq->error == -EOPNOTSUPP && !rq->errmsg[0])
		die("not supported by this goblin module");
	die("%s", rq->errmsg[0] ? rq->errmsg : strerror(-rq->error));
}

/* Send @msg (consumed) and process replies until ACK/DONE/error. */
int req_run(struct nl_msg *msg,
	    int (*parse)(struct nlattr **, struct nlmsghdr *, void *),
	    void *arg, bool fatal)
{
	struct req rq = { .msg = msg, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int err;

	nl_open();
	nlmsg_hdr(msg)->nlmsg_type = family_id;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		die("out of memory");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, cb_valid, &rq);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, &rq);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cb_ack, &rq);
	nl_cb_err(cb, NL_CB_CUSTOM, cb_error, &rq);
	err = nl_send_auto(sk, msg);
	if (err < 0)
		die("cannot send request: %s", nl_geterror(err));
	while (!rq.done) {
		err = nl_recvmsgs(sk, cb);
		if (err == -NLE_DUMP_INTR) {
			rq.intr = true;
			continue;
		}
		if (err < 0 && !rq.done) {
			if (!rq.error) {
				rq.error = -EIO;
				snprintf(rq.errmsg, sizeof(rq.errmsg),
					 "netlink: %s", nl_geterror(err));
			}
			break;
		}
	}
	nl_cb_put(cb);
	nlmsg_free(msg);
	if (rq.error && fatal)
		explain(&rq);
	if (rq.error)
		last_err = rq;
	if (rq.error)
		return rq.error;
	return rq.intr ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Parsers of replies into records                                    */

uint64_t get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

uint32_t get_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

const char *get_str(struct nlattr *a)
{
	return a ? nla_get_string(a) : "";
}

void rec_addr(struct rec *r, const char *name, const char *pname,
	      struct nlattr *a4, struct nlattr *a6, struct nlattr *port)
{
	char buf[INET6_ADDRSTRLEN];

	if (a4 && nla_len(a4) == 4)
		fmt_addr(buf, sizeof(buf), AF_INET, nla_data(a4));
	else if (a6 && nla_len(a6) == 16)
		fmt_addr(buf, sizeof(buf), AF_INET6, nla_data(a6));
	else
		strcpy(buf, "");
	rec_str(r, name, buf);
	rec_u64(r, pname, port ? nla_get_u16(port) : 0);
}
