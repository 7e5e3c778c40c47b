// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: generic netlink control plane (family "goblin").
 *
 * The wire format is described in uapi/linux/goblin.h and, authoritatively,
 * in Documentation/netlink/specs/goblin.yaml; scripts/nl-spec-check keeps the
 * policy tables below in line with the spec, so they are written one
 * attribute per line in a fixed style.
 *
 * Locking: the family is not parallel_ops, so every doit and dumpit runs
 * under genl_mutex; the one setting this file keeps itself (cores) needs
 * no other lock. The one exception is the object
 * dump, which lets go of genl_mutex now and then during its walk (see
 * gb_nl_obj_yield()). The event senders run in any context and only read
 * gb_nl_ready under RCU.
 *
 * Dumps: every dump walks its entries in ascending id order (ids only
 * grow) and keeps the last id it sent in cb->ctx, so an entry that exists
 * for the whole dump is sent exactly once whatever changes meanwhile.
 * That is all uapi/linux/goblin.h promises, so no dump sets
 * NLM_F_DUMP_INTR.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/vmstat.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <linux/goblin.h>

#include "compat.h"
#include "cpus.h"
#include "events.h"
#include "goblin.h"
#include "listener.h"
#include "registry.h"
#include "store.h"

enum gb_nl_mcgrp {
	GB_NL_MCGRP_EVENTS,
};

/* The TCP transport reads it as gb_param_cores; reported back as set. */
static u32 gb_nl_cores;

static bool gb_nl_ready;

/*
 * debugfs goblin/netlink/obj_dump_delay_us: busy-wait this long (at most
 * 1000 us, measured on the monotonic clock, not with udelay(), whose loop
 * calibration is unreliable in an emulated guest) per object an object
 * dump looks at, to make the walk of a small test index as long as that
 * of a big one.
 */
static struct dentry *gb_nl_dbg;
static u32 gb_nl_dbg_obj_delay_us;

static struct genl_family gb_nl_family;

/* ---------------------------------------------------------------------- */
/* Policies                                                               */

static struct netlink_range_validation gb_range_memory = {
	.min = SZ_1M,
	.max = U64_MAX,
};

static struct netlink_range_validation gb_range_block = {
	.min = SZ_4K,
	.max = SZ_1G,
};

static struct netlink_range_validation gb_range_ram_head = {
	.min = SZ_4K,
	.max = SZ_16M,
};

/* GB_ITEM_MAX_MIN..GB_VALUE_MAX */
static struct netlink_range_validation gb_range_item_max = {
	.min = 1024,
	.max = SZ_16M,
};

static struct netlink_range_validation gb_range_window = {
	.min = SZ_4K,
	.max = SZ_64M,
};

static struct netlink_range_validation gb_range_max_conns = {
	.min = 1,
	.max = 1048576,
};

static struct netlink_range_validation gb_range_idle_timeout = {
	.min = 0,
	.max = 604800,
};

static struct netlink_range_validation gb_range_write_timeout = {
	.min = 1,
	.max = 604800,
};

/* NLA_POLICY_MAX() holds an s16: larger bounds need a range struct */
static struct netlink_range_validation gb_range_lease_ms = {
	.min = 0,
	.max = 60000,
};

static const struct nla_policy gb_store_set_policy[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_MEMORY] = NLA_POLICY_FULL_RANGE(NLA_U64, &gb_range_memory),
	[GOBLIN_A_BLOCK] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_block),
	[GOBLIN_A_RAM_HEAD] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_ram_head),
	[GOBLIN_A_SSD_DIR] = { .type = NLA_NUL_STRING, .len = GOBLIN_PATH_MAX - 1 },
	[GOBLIN_A_SSD_MAX] = { .type = NLA_U64 },
	[GOBLIN_A_PROMOTION] = NLA_POLICY_MAX(NLA_U32, 1000),
	[GOBLIN_A_MLOCK] = NLA_POLICY_MAX(NLA_U8, 1),
	[GOBLIN_A_CORES] = NLA_POLICY_MAX(NLA_U32, 4096),
	[GOBLIN_A_RDMA_MAX_CONNS] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_max_conns),
	[GOBLIN_A_ITEM_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_item_max),
	[GOBLIN_A_CRC] = NLA_POLICY_MAX(NLA_U8, 1),
	[GOBLIN_A_CPUS] = { .type = NLA_NUL_STRING, .len = GOBLIN_CPUS_MAX - 1 },
	[GOBLIN_A_PROMOTION_RATE] = NLA_POLICY_MIN(NLA_U32, 4096),
	[GOBLIN_A_RECLAIM] = NLA_POLICY_MAX(NLA_U8, 1),
	[GOBLIN_A_RECLAIM_LOW] = { .type = NLA_U64 },
	[GOBLIN_A_RDMA_LEASE_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_lease_ms),
};

static const struct nla_policy gb_listener_add_policy[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_LISTENER_KIND] = NLA_POLICY_MAX(NLA_U8, GOBLIN_LISTENER_HTTP),
	[GOBLIN_A_ADDR4] = NLA_POLICY_EXACT_LEN(4),
	[GOBLIN_A_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[GOBLIN_A_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[GOBLIN_A_WINDOW] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_window),
	[GOBLIN_A_WINDOWS] = NLA_POLICY_RANGE(NLA_U32, 1, 64),
	[GOBLIN_A_MAX_CONNS] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_max_conns),
	[GOBLIN_A_IDLE_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_idle_timeout),
	[GOBLIN_A_CREDITS] = NLA_POLICY_RANGE(NLA_U32, 1, 4096),
	[GOBLIN_A_MAX_PEER_CONNS] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_max_conns),
	[GOBLIN_A_WRITE_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_write_timeout),
	[GOBLIN_A_HEADER_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &gb_range_write_timeout),
};

static const struct nla_policy gb_listener_del_policy[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_LISTENER_KIND] = NLA_POLICY_MAX(NLA_U8, GOBLIN_LISTENER_HTTP),
	[GOBLIN_A_ADDR4] = NLA_POLICY_EXACT_LEN(4),
	[GOBLIN_A_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[GOBLIN_A_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
};

static const struct nla_policy gb_kind_filter_policy[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_LISTENER_KIND] = NLA_POLICY_MAX(NLA_U8, GOBLIN_LISTENER_HTTP),
};

static const struct nla_policy gb_obj_get_policy[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_KEY] = NLA_POLICY_RANGE(NLA_BINARY, 1, GOBLIN_KEY_MAX),
	[GOBLIN_A_PREFIX] = { .type = NLA_BINARY, .len = GOBLIN_KEY_MAX },
};

static const struct nla_policy gb_numa_set_policy[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_NUMA_POLICY] = NLA_POLICY_MAX(NLA_U8, GOBLIN_NUMA_DEVICE),
	[GOBLIN_A_NUMA_NODE] = { .type = NLA_U32 },
};

/* Used by requests that take no attributes at all. */
static const struct nla_policy gb_empty_policy[GOBLIN_A_MAX + 1] = {
};

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */

static bool gb_nl_has_msg(const struct genl_info *info)
{
	return info->extack && info->extack->_msg;
}

static int gb_nl_put_addr(struct sk_buff *skb,
			  const struct sockaddr_storage *ss,
			  int a4, int a6, int aport)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		if (nla_put_in_addr(skb, a4, sin->sin_addr.s_addr) ||
		    nla_put_u16(skb, aport, ntohs(sin->sin_port)))
			return -EMSGSIZE;
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		if (nla_put_in6_addr(skb, a6, &sin6->sin6_addr) ||
		    nla_put_u16(skb, aport, ntohs(sin6->sin6_port)))
			return -EMSGSIZE;
	}
	return 0;
}

/* Build a sockaddr from ADDR4|ADDR6 + PORT; exactly one address family. */
static int gb_nl_get_addr(struct genl_info *info, struct sockaddr_storage *ss)
{
	struct nlattr **tb = info->attrs;

	memset(ss, 0, sizeof(*ss));
	if (tb[GOBLIN_A_ADDR4] && tb[GOBLIN_A_ADDR6]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_ADDR6],
				    "address: give IPv4 or IPv6, not both");
		return -EINVAL;
	}
	if (!tb[GOBLIN_A_ADDR4] && !tb[GOBLIN_A_ADDR6]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GOBLIN_A_ADDR4);
		NL_SET_ERR_MSG(info->extack, "address: missing");
		return -EINVAL;
	}
	if (!tb[GOBLIN_A_PORT]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GOBLIN_A_PORT);
		NL_SET_ERR_MSG(info->extack, "port: missing");
		return -EINVAL;
	}
	if (tb[GOBLIN_A_ADDR4]) {
		struct sockaddr_in *sin = (void *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = nla_get_in_addr(tb[GOBLIN_A_ADDR4]);
		sin->sin_port = htons(nla_get_u16(tb[GOBLIN_A_PORT]));
	} else {
		struct sockaddr_in6 *sin6 = (void *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = nla_get_in6_addr(tb[GOBLIN_A_ADDR6]);
		sin6->sin6_port = htons(nla_get_u16(tb[GOBLIN_A_PORT]));
	}
	return 0;
}

/* The transport of a request; NULL (with extack set) when unavailable. */
static const struct gb_listener_ops *gb_nl_get_ops(struct genl_info *info,
						   enum gb_listener_kind *kind)
{
	struct nlattr *attr = info->attrs[GOBLIN_A_LISTENER_KIND];
	const struct gb_listener_ops *ops;

	if (!attr) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GOBLIN_A_LISTENER_KIND);
		NL_SET_ERR_MSG(info->extack, "listener kind: missing");
		return NULL;
	}
	*kind = nla_get_u8(attr);
	ops = gb_transport_ops(*kind);
	if (!ops) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "listener kind: transport not supported");
		return NULL;
	}
	return ops;
}

static struct sk_buff *gb_nl_reply_new_size(struct genl_info *info,
					    void **hdr, size_t size)
{
	struct sk_buff *skb;

	skb = genlmsg_new(max_t(size_t, size, NLMSG_DEFAULT_SIZE), GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put_reply(skb, info, &gb_nl_family, 0,
				 info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

static struct sk_buff *gb_nl_reply_new(struct genl_info *info, void **hdr)
{
	return gb_nl_reply_new_size(info, hdr, NLMSG_DEFAULT_SIZE);
}

static int gb_nl_reply_send(struct sk_buff *skb, void *hdr,
			    struct genl_info *info)
{
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
}

/* Start one dump message; NULL when the skb is full. */
static void *gb_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &gb_nl_family, NLM_F_MULTI,
			  genl_dumpit_info(cb)->op.cmd);
	return hdr;
}

/* ---------------------------------------------------------------------- */
/* VERSION_GET, STORE_GET/SET, FLUSH                                      */

static int gb_nl_version_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = gb_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, GOBLIN_A_VERSION, GB_VERSION)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return gb_nl_reply_send(msg, hdr, info);
}

/* The RDMA transport's cap on all its connections (RDMA_MAX_CONNS). */
static u32 gb_nl_rdma_max_conns(void)
{
	const struct gb_listener_ops *ops = gb_transport_ops(GB_LISTENER_RDMA);

	return ops && ops->get_max_conns ? ops->get_max_conns() : 0;
}

static void gb_nl_rdma_set_max_conns(u32 max)
{
	const struct gb_listener_ops *ops = gb_transport_ops(GB_LISTENER_RDMA);

	if (ops && ops->set_max_conns)
		ops->set_max_conns(max);
}

/* The RDMA transport's one-sided lease (RDMA_LEASE_MS), 0 = off. */
static u32 gb_nl_rdma_lease_ms(void)
{
	const struct gb_listener_ops *ops = gb_transport_ops(GB_LISTENER_RDMA);

	return ops && ops->get_lease_ms ? ops->get_lease_ms() : 0;
}

static int gb_nl_store_get(struct sk_buff *skb, struct genl_info *info)
{
	struct gb_store_config cfg;
	struct sk_buff *msg;
	char *cpus;
	void *hdr;

	gb_store_get_config(&cfg);
	cfg.ssd_dir[sizeof(cfg.ssd_dir) - 1] = '\0';
	cpus = kmalloc(GOBLIN_CPUS_MAX, GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	gb_cpus_print(cpus, GOBLIN_CPUS_MAX);
	msg = gb_nl_reply_new(info, &hdr);
	if (!msg) {
		kfree(cpus);
		return -ENOMEM;
	}
	if (nla_put_u64_64bit(msg, GOBLIN_A_MEMORY, cfg.memory, GOBLIN_A_PAD) ||
	    nla_put_u32(msg, GOBLIN_A_BLOCK, cfg.block) ||
	    nla_put_u32(msg, GOBLIN_A_RAM_HEAD, cfg.ram_head) ||
	    nla_put_string(msg, GOBLIN_A_SSD_DIR, cfg.ssd_dir) ||
	    nla_put_u64_64bit(msg, GOBLIN_A_SSD_MAX, cfg.ssd_max,
			      GOBLIN_A_PAD) ||
	    nla_put_u32(msg, GOBLIN_A_PROMOTION, gb_store_get_promotion()) ||
	    nla_put_u8(msg, GOBLIN_A_MLOCK, gb_store_get_mlock()) ||
	    nla_put_u32(msg, GOBLIN_A_CORES, gb_nl_cores) ||
	    nla_put_u32(msg, GOBLIN_A_RDMA_MAX_CONNS, gb_nl_rdma_max_conns()) ||
	    nla_put_u32(msg, GOBLIN_A_ITEM_MAX, cfg.item_max) ||
	    nla_put_u8(msg, GOBLIN_A_CRC, gb_store_get_crc()) ||
	    nla_put_string(msg, GOBLIN_A_CPUS, cpus) ||
	    nla_put_u32(msg, GOBLIN_A_PROMOTION_RATE,
			gb_store_get_promotion_rate()) ||
	    nla_put_u8(msg, GOBLIN_A_RECLAIM, cfg.reclaim) ||
	    nla_put_u64_64bit(msg, GOBLIN_A_RECLAIM_LOW, cfg.reclaim_low,
			      GOBLIN_A_PAD) ||
	    nla_put_u32(msg, GOBLIN_A_RDMA_LEASE_MS, gb_nl_rdma_lease_ms())) {
		kfree(cpus);
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	kfree(cpus);
	return gb_nl_reply_send(msg, hdr, info);
}

/*
 * STORE_SET after parsing CPUS: @cpus is the parsed value (NULL: "all"),
 * ERR_PTR(-ENOENT) without CPUS; taken over on success only.
 */
static int gb_nl_store_set_cfg(struct genl_info *info,
			       struct gb_cpus_cfg *cpus)
{
	struct nlattr **tb = info->attrs;
	struct gb_store_config cfg;
	u32 cores = gb_nl_cores;
	bool store = false;
	int err;

	gb_store_get_config(&cfg);
	if (tb[GOBLIN_A_CORES]) {
		cores = nla_get_u32(tb[GOBLIN_A_CORES]);
		if (cores > num_online_cpus()) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_CORES],
					    "cores: more than the online CPUs");
			return -ERANGE;
		}
	}
	/* a new cpus with the old cores, or the reverse, must fit too */
	if ((tb[GOBLIN_A_CPUS] || tb[GOBLIN_A_CORES]) &&
	    cores > gb_cpus_count(cpus)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[GOBLIN_A_CORES] ?: tb[GOBLIN_A_CPUS],
				    "cores: more than the online CPUs of cpus");
		return -ERANGE;
	}
	if (tb[GOBLIN_A_MEMORY]) {
		cfg.memory = nla_get_u64(tb[GOBLIN_A_MEMORY]);
		store = true;
	}
	if (tb[GOBLIN_A_BLOCK]) {
		cfg.block = nla_get_u32(tb[GOBLIN_A_BLOCK]);
		if (!PAGE_ALIGNED(cfg.block)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_BLOCK],
					    "block: must be a multiple of the page size");
			return -EINVAL;
		}
		store = true;
	}
	if (tb[GOBLIN_A_RAM_HEAD]) {
		cfg.ram_head = nla_get_u32(tb[GOBLIN_A_RAM_HEAD]);
		if (cfg.ram_head < PAGE_SIZE || !PAGE_ALIGNED(cfg.ram_head)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_RAM_HEAD],
					    "ram_head: must be a multiple of the page size");
			return -EINVAL;
		}
		store = true;
	}
	if (tb[GOBLIN_A_SSD_DIR]) {
		nla_strscpy(cfg.ssd_dir, tb[GOBLIN_A_SSD_DIR],
			    sizeof(cfg.ssd_dir));
		if (cfg.ssd_dir[0] && cfg.ssd_dir[0] != '/') {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_SSD_DIR],
					    "ssd_dir: must be an absolute path");
			return -EINVAL;
		}
		store = true;
	}
	if (tb[GOBLIN_A_SSD_MAX]) {
		cfg.ssd_max = nla_get_u64(tb[GOBLIN_A_SSD_MAX]);
		store = true;
	}
	if (tb[GOBLIN_A_ITEM_MAX]) {
		cfg.item_max = nla_get_u32(tb[GOBLIN_A_ITEM_MAX]);
		store = true;
	}
	if (tb[GOBLIN_A_RECLAIM]) {
		cfg.reclaim = nla_get_u8(tb[GOBLIN_A_RECLAIM]);
		store = true;
	}
	if (tb[GOBLIN_A_RECLAIM_LOW]) {
		cfg.reclaim_low = nla_get_u64(tb[GOBLIN_A_RECLAIM_LOW]);
		store = true;
	}
	if (tb[GOBLIN_A_RDMA_LEASE_MS]) {
		u32 ms = nla_get_u32(tb[GOBLIN_A_RDMA_LEASE_MS]);
		const struct gb_listener_ops *ops =
			gb_transport_ops(GB_LISTENER_RDMA);

		if (ms && ms < 10) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[GOBLIN_A_RDMA_LEASE_MS],
					    "rdma_lease_ms: 0 (off) or at least 10");
			return -ERANGE;
		}
		if (ms && (!ops || !ops->set_lease_ms)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[GOBLIN_A_RDMA_LEASE_MS],
					    "rdma_lease_ms: no RDMA transport");
			return -EOPNOTSUPP;
		}
	}
	/*
	 * Settings the store cannot honour are refused here, before anything
	 * is applied (they have nothing to apply when accepted).
	 */
	if (tb[GOBLIN_A_MLOCK]) {
		err = gb_store_set_mlock(nla_get_u8(tb[GOBLIN_A_MLOCK]),
					 info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, tb[GOBLIN_A_MLOCK]);
			return err;
		}
	}

	/* The store validates the whole set and applies all or nothing. */
	if (store) {
		err = gb_store_set_config(&cfg, info->extack);
		if (err) {
			if (!gb_nl_has_msg(info) && err == -ENOMEM)
				NL_SET_ERR_MSG(info->extack, "out of memory");
			else if (!gb_nl_has_msg(info))
				NL_SET_ERR_MSG(info->extack,
					       "store rejected the configuration");
			return err;
		}
	}
	gb_nl_cores = cores;
	/* The transports choose their workers' CPUs from these. */
	WRITE_ONCE(gb_param_cores, cores);
	if (tb[GOBLIN_A_CPUS] || tb[GOBLIN_A_CORES])
		gb_cpus_apply(cpus, !IS_ERR(cpus));
	if (tb[GOBLIN_A_RDMA_MAX_CONNS])
		gb_nl_rdma_set_max_conns(nla_get_u32(tb[GOBLIN_A_RDMA_MAX_CONNS]));
	if (tb[GOBLIN_A_RDMA_LEASE_MS]) {
		const struct gb_listener_ops *ops =
			gb_transport_ops(GB_LISTENER_RDMA);

		if (ops && ops->set_lease_ms)
			ops->set_lease_ms(nla_get_u32(tb[GOBLIN_A_RDMA_LEASE_MS]));
	}
	/* values written from now on; stored ones keep their CRC or none */
	if (tb[GOBLIN_A_CRC])
		gb_store_set_crc(nla_get_u8(tb[GOBLIN_A_CRC]));
	if (tb[GOBLIN_A_PROMOTION] || tb[GOBLIN_A_PROMOTION_RATE])
		gb_store_set_promotion(tb[GOBLIN_A_PROMOTION] ?
				       nla_get_u32(tb[GOBLIN_A_PROMOTION]) :
				       gb_store_get_promotion(),
				       tb[GOBLIN_A_PROMOTION_RATE] ?
				       nla_get_u32(tb[GOBLIN_A_PROMOTION_RATE]) :
				       gb_store_get_promotion_rate());
	return 0;
}

static int gb_nl_store_set(struct sk_buff *skb, struct genl_info *info)
{
	struct gb_cpus_cfg *cpus = ERR_PTR(-ENOENT);
	struct nlattr *a = info->attrs[GOBLIN_A_CPUS];
	int err;

	if (a) {
		cpus = gb_cpus_parse(nla_data(a), info->extack);
		if (IS_ERR(cpus)) {
			NL_SET_BAD_ATTR(info->extack, a);
			return PTR_ERR(cpus);
		}
	}
	err = gb_nl_store_set_cfg(info, cpus);
	if (err)
		gb_cpus_free(cpus);
	return err;
}

static int gb_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	gb_store_flush(gb_now());
	return 0;
}

/* ---------------------------------------------------------------------- */
/* STATS_GET                                                              */

struct gb_nl_lsum {
	u64 listeners;
	u64 conns;
	u64 conns_total;
	u64 refused;
	struct gb_xport_stats tcp;
	struct gb_xport_stats rdma;
	struct gb_xport_stats http;
	u64 rdma_errors;
};

static int gb_nl_lsum_visit(const struct gb_listener_info *li, void *arg)
{
	struct gb_nl_lsum *sum = arg;

	sum->listeners++;
	sum->conns += li->conns;
	sum->conns_total += li->conns_total;
	sum->refused += li->refused;
	return 0;
}

static void gb_nl_listener_sum(struct gb_nl_lsum *sum)
{
	const struct gb_listener_ops *ops;
	u32 cursor;
	int kind;

	memset(sum, 0, sizeof(*sum));
	for (kind = 0; kind < GB_LISTENER_KIND_MAX; kind++) {
		ops = gb_transport_ops(kind);
		if (!ops || !ops->walk)
			continue;
		cursor = 0;
		ops->walk(&cursor, gb_nl_lsum_visit, sum);
	}
	gb_transport_get_stats(GB_LISTENER_MEMCACHE, &sum->tcp);
	gb_transport_get_stats(GB_LISTENER_RDMA, &sum->rdma);
	gb_transport_get_stats(GB_LISTENER_HTTP, &sum->http);
	for (kind = 0; kind < GB_RDMA_E_NR; kind++)
		sum->rdma_errors += sum->rdma.errors[kind];
}

static int gb_nl_put_stat(struct sk_buff *skb, int type, u64 val)
{
	return nla_put_u64_64bit(skb, type, val, GOBLIN_STATS_A_PAD);
}

/* uapi attribute of an enum gb_rdma_err counter (-Wswitch: no kind left) */
static int gb_nl_rdma_err_attr(enum gb_rdma_err kind)
{
	switch (kind) {
	case GB_RDMA_E_BAD_RECORD:
		return GOBLIN_RDMA_ERR_A_BAD_RECORD;
	case GB_RDMA_E_CREDIT:
		return GOBLIN_RDMA_ERR_A_CREDIT;
	case GB_RDMA_E_WINDOW:
		return GOBLIN_RDMA_ERR_A_WINDOW;
	case GB_RDMA_E_RANGE:
		return GOBLIN_RDMA_ERR_A_RANGE;
	case GB_RDMA_E_RDMA:
		return GOBLIN_RDMA_ERR_A_RDMA_OP;
	case GB_RDMA_E_WC:
		return GOBLIN_RDMA_ERR_A_COMPLETION;
	case GB_RDMA_E_STORE:
		return GOBLIN_RDMA_ERR_A_STORE;
	case GB_RDMA_E_REJECT:
		return GOBLIN_RDMA_ERR_A_REJECTED;
	case GB_RDMA_E_NR:
		break;
	}
	return GOBLIN_RDMA_ERR_A_UNSPEC;
}

/**
 * gb_nl_put_rdma_errors() - put RDMA error counters as a nest
 * @skb:    message
 * @type:   the nest's attribute (GOBLIN_A_RDMA_ERRORS or
 *          GOBLIN_STATS_A_RDMA_ERROR_KINDS)
 * @errors: counters indexed by enum gb_rdma_err
 * @conn:   per-connection counters: leave out the connect rejections,
 *          which happen before there is a connection
 *
 * Return: 0, or -EMSGSIZE with nothing added.
 */
static int gb_nl_put_rdma_errors(struct sk_buff *skb, int type,
				 const u64 *errors, bool conn)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < GB_RDMA_E_NR; i++) {
		if (conn && i == GB_RDMA_E_REJECT)
			continue;
		if (nla_put_u64_64bit(skb, gb_nl_rdma_err_attr(i), errors[i],
				      GOBLIN_RDMA_ERR_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int gb_nl_put_stats(struct sk_buff *skb, const struct gb_store_stats *st,
			   const struct gb_nl_lsum *sum)
{
	const struct {
		int type;
		u64 val;
	} v[] = {
		{ GOBLIN_STATS_A_CURR_ITEMS, st->curr_items },
		{ GOBLIN_STATS_A_TOTAL_ITEMS, st->total_items },
		{ GOBLIN_STATS_A_BYTES, st->bytes },
		{ GOBLIN_STATS_A_HEAD_BYTES, st->head_bytes },
		{ GOBLIN_STATS_A_TAIL_BYTES, st->tail_bytes },
		{ GOBLIN_STATS_A_EVICTIONS, st->evictions },
		{ GOBLIN_STATS_A_EXPIRED_UNFETCHED, st->expired_unfetched },
		{ GOBLIN_STATS_A_RECLAIMED, st->reclaimed },
		{ GOBLIN_STATS_A_GET_HITS, st->get_hits },
		{ GOBLIN_STATS_A_GET_MISSES, st->get_misses },
		{ GOBLIN_STATS_A_GET_EXPIRED, st->get_expired },
		{ GOBLIN_STATS_A_GET_FLUSHED, st->get_flushed },
		{ GOBLIN_STATS_A_CMD_SET, st->cmd_set },
		{ GOBLIN_STATS_A_CMD_TOUCH, st->cmd_touch },
		{ GOBLIN_STATS_A_TOUCH_HITS, st->touch_hits },
		{ GOBLIN_STATS_A_TOUCH_MISSES, st->touch_misses },
		{ GOBLIN_STATS_A_DELETE_HITS, st->delete_hits },
		{ GOBLIN_STATS_A_DELETE_MISSES, st->delete_misses },
		{ GOBLIN_STATS_A_INCR_HITS, st->incr_hits },
		{ GOBLIN_STATS_A_INCR_MISSES, st->incr_misses },
		{ GOBLIN_STATS_A_DECR_HITS, st->decr_hits },
		{ GOBLIN_STATS_A_DECR_MISSES, st->decr_misses },
		{ GOBLIN_STATS_A_CAS_HITS, st->cas_hits },
		{ GOBLIN_STATS_A_CAS_MISSES, st->cas_misses },
		{ GOBLIN_STATS_A_CAS_BADVAL, st->cas_badval },
		{ GOBLIN_STATS_A_BLOCKS_TOTAL, st->blocks_total },
		{ GOBLIN_STATS_A_BLOCKS_HUGE, st->blocks_huge },
		{ GOBLIN_STATS_A_BLOCKS_SMALL, st->blocks_small },
		{ GOBLIN_STATS_A_PAGES_FREE, st->pages_free },
		{ GOBLIN_STATS_A_MEMORY_LIMIT, st->memory_limit },
		{ GOBLIN_STATS_A_SSD_LIMIT, st->ssd_limit },
		{ GOBLIN_STATS_A_LISTENERS, sum->listeners },
		{ GOBLIN_STATS_A_CONNS, sum->conns },
		{ GOBLIN_STATS_A_CONNS_TOTAL, sum->conns_total },
		{ GOBLIN_STATS_A_REFUSED, sum->refused },
		{ GOBLIN_STATS_A_PAGES_QUARANTINED, st->pages_quarantined },
		{ GOBLIN_STATS_A_QUARANTINED_TOTAL, st->quarantined_total },
		{ GOBLIN_STATS_A_TCP_BYTES_IN, sum->tcp.rx_bytes },
		{ GOBLIN_STATS_A_TCP_BYTES_OUT, sum->tcp.tx_bytes },
		{ GOBLIN_STATS_A_TCP_REJECTED, sum->tcp.rejected },
		{ GOBLIN_STATS_A_RDMA_REQUESTS, sum->rdma.requests },
		{ GOBLIN_STATS_A_RDMA_HITS, sum->rdma.hits },
		{ GOBLIN_STATS_A_RDMA_MISSES, sum->rdma.misses },
		{ GOBLIN_STATS_A_RDMA_SETS, sum->rdma.sets },
		{ GOBLIN_STATS_A_RDMA_BYTES_WRITTEN, sum->rdma.bytes_written },
		{ GOBLIN_STATS_A_RDMA_BYTES_READ, sum->rdma.bytes_read },
		{ GOBLIN_STATS_A_RDMA_ERRORS, sum->rdma_errors },
		{ GOBLIN_STATS_A_RDMA_WINDOWS_IN_FLIGHT,
		  sum->rdma.windows_in_flight },
		{ GOBLIN_STATS_A_TAIL_IO_ERRORS, st->tail_io_errors },
		{ GOBLIN_STATS_A_TAIL_WB_ERRORS, st->tail_wb_errors },
		{ GOBLIN_STATS_A_PROMOTIONS, st->promotions },
		{ GOBLIN_STATS_A_PROMOTED_BYTES, st->promoted_bytes },
		{ GOBLIN_STATS_A_PROMOTION_FAILURES, st->promotion_failures },
		{ GOBLIN_STATS_A_META_BYTES, st->meta_bytes },
		{ GOBLIN_STATS_A_HTTP_REQUESTS, sum->http.requests },
		{ GOBLIN_STATS_A_HTTP_GET, sum->http.http_methods[0] },
		{ GOBLIN_STATS_A_HTTP_HEAD, sum->http.http_methods[1] },
		{ GOBLIN_STATS_A_HTTP_PUT, sum->http.http_methods[2] },
		{ GOBLIN_STATS_A_HTTP_DELETE, sum->http.http_methods[3] },
		{ GOBLIN_STATS_A_HTTP_OTHER, sum->http.http_methods[4] },
		{ GOBLIN_STATS_A_HTTP_1XX, sum->http.http_status[0] },
		{ GOBLIN_STATS_A_HTTP_2XX, sum->http.http_status[1] },
		{ GOBLIN_STATS_A_HTTP_3XX, sum->http.http_status[2] },
		{ GOBLIN_STATS_A_HTTP_4XX, sum->http.http_status[3] },
		{ GOBLIN_STATS_A_HTTP_5XX, sum->http.http_status[4] },
		{ GOBLIN_STATS_A_HTTP_BYTES_IN, sum->http.rx_bytes },
		{ GOBLIN_STATS_A_HTTP_BYTES_OUT, sum->http.tx_bytes },
		{ GOBLIN_STATS_A_HTTP_VALUE_BYTES_IN, sum->http.bytes_read },
		{ GOBLIN_STATS_A_HTTP_VALUE_BYTES_OUT, sum->http.bytes_written },
		{ GOBLIN_STATS_A_HTTP_REJECTED, sum->http.rejected },
	};
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, GOBLIN_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		if (gb_nl_put_stat(skb, v[i].type, v[i].val))
			goto cancel;
	}
	if (gb_nl_put_rdma_errors(skb, GOBLIN_STATS_A_RDMA_ERROR_KINDS,
				  sum->rdma.errors, false))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int gb_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct gb_store_stats *st;
	struct gb_nl_lsum sum;
	struct sk_buff *msg;
	void *hdr;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	gb_store_get_stats(st);
	gb_nl_listener_sum(&sum);
	msg = gb_nl_reply_new(info, &hdr);
	if (!msg) {
		kfree(st);
		return -ENOMEM;
	}
	err = gb_nl_put_stats(msg, st, &sum);
	kfree(st);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return gb_nl_reply_send(msg, hdr, info);
}

/* ---------------------------------------------------------------------- */
/* LISTENER_ADD/DEL/GET                                                   */

static void gb_nl_fallback_msg(struct genl_info *info, int err)
{
	/*
	 * Out of memory says nothing about the request, and replaces a
	 * transport's message: that may be a guess at the cause of any
	 * failure of a step (rdma_bind_addr() failed: "no RDMA device on that
	 * address?"), and an allocation can fail in every step.
	 */
	if (err == -ENOMEM) {
		NL_SET_ERR_MSG(info->extack, "out of memory");
		return;
	}
	if (gb_nl_has_msg(info))
		return;
	switch (err) {
	case -EADDRINUSE:
		NL_SET_ERR_MSG(info->extack, "address: already in use");
		break;
	case -EEXIST:
		NL_SET_ERR_MSG(info->extack, "address: listener already exists");
		break;
	case -EADDRNOTAVAIL:
		NL_SET_ERR_MSG(info->extack, "address: not available on this host");
		break;
	case -ENODEV:
		NL_SET_ERR_MSG(info->extack, "address: no RDMA device has this address");
		break;
	case -ENOENT:
		NL_SET_ERR_MSG(info->extack, "address: no such listener");
		break;
	default:
		NL_SET_ERR_MSG(info->extack, "transport refused the request");
		break;
	}
}

static int gb_nl_listener_add(struct sk_buff *skb, struct genl_info *info)
{
	static const int rdma_only[] = {
		GOBLIN_A_WINDOW, GOBLIN_A_WINDOWS, GOBLIN_A_CREDITS,
		GOBLIN_A_MAX_PEER_CONNS,
	};
	const struct gb_listener_ops *ops;
	struct nlattr **tb = info->attrs;
	struct gb_listener_config cfg;
	enum gb_listener_kind kind;
	int i, err;

	ops = gb_nl_get_ops(info, &kind);
	if (!ops)
		return info->attrs[GOBLIN_A_LISTENER_KIND] ? -EOPNOTSUPP : -EINVAL;
	memset(&cfg, 0, sizeof(cfg));
	cfg.kind = kind;
	err = gb_nl_get_addr(info, &cfg.addr);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(rdma_only); i++) {
		if (kind != GB_LISTENER_RDMA && tb[rdma_only[i]]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[rdma_only[i]],
					    "window/credits/max_peer_conns: only RDMA listeners have them");
			return -EINVAL;
		}
	}
	if (kind == GB_LISTENER_RDMA && tb[GOBLIN_A_WRITE_TIMEOUT]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_WRITE_TIMEOUT],
				    "write_timeout: only TCP listeners have it");
		return -EINVAL;
	}
	if (kind != GB_LISTENER_HTTP && tb[GOBLIN_A_HEADER_TIMEOUT]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_HEADER_TIMEOUT],
				    "header_timeout: only HTTP listeners have it");
		return -EINVAL;
	}
	if (tb[GOBLIN_A_WRITE_TIMEOUT])
		cfg.write_timeout = nla_get_u32(tb[GOBLIN_A_WRITE_TIMEOUT]);
	if (tb[GOBLIN_A_HEADER_TIMEOUT])
		cfg.header_timeout = nla_get_u32(tb[GOBLIN_A_HEADER_TIMEOUT]);
	if (tb[GOBLIN_A_WINDOW]) {
		cfg.window = nla_get_u32(tb[GOBLIN_A_WINDOW]);
		if (!PAGE_ALIGNED(cfg.window)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_WINDOW],
					    "window: must be a multiple of the page size");
			return -EINVAL;
		}
	}
	if (tb[GOBLIN_A_WINDOWS])
		cfg.windows = nla_get_u32(tb[GOBLIN_A_WINDOWS]);
	if (tb[GOBLIN_A_CREDITS])
		cfg.credits = nla_get_u32(tb[GOBLIN_A_CREDITS]);
	if (tb[GOBLIN_A_MAX_CONNS])
		cfg.max_conns = nla_get_u32(tb[GOBLIN_A_MAX_CONNS]);
	if (tb[GOBLIN_A_IDLE_TIMEOUT])
		cfg.idle_timeout = nla_get_u32(tb[GOBLIN_A_IDLE_TIMEOUT]);
	if (tb[GOBLIN_A_MAX_PEER_CONNS])
		cfg.max_peer_conns = nla_get_u32(tb[GOBLIN_A_MAX_PEER_CONNS]);
	if (!ops->add) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GOBLIN_A_LISTENER_KIND],
				    "listener kind: transport not supported");
		return -EOPNOTSUPP;
	}
	err = ops->add(&cfg, info->extack);
	if (err)
		gb_nl_fallback_msg(info, err);
	return err;
}

static int gb_nl_listener_del(struct sk_buff *skb, struct genl_info *info)
{
	const struct gb_listener_ops *ops;
	struct sockaddr_storage addr;
	enum gb_listener_kind kind;
	int err;

	ops = gb_nl_get_ops(info, &kind);
	if (!ops)
		return info->attrs[GOBLIN_A_LISTENER_KIND] ? -EOPNOTSUPP : -EINVAL;
	err = gb_nl_get_addr(info, &addr);
	if (err)
		return err;
	if (!ops->del) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GOBLIN_A_LISTENER_KIND],
				    "listener kind: transport not supported");
		return -EOPNOTSUPP;
	}
	err = ops->del(&addr, info->extack);
	if (err)
		gb_nl_fallback_msg(info, err);
	return err;
}

static int gb_nl_put_listener(struct sk_buff *skb,
			      const struct gb_listener_info *li)
{
	const struct gb_listener_config *c = &li->cfg;

	if (nla_put_u8(skb, GOBLIN_A_LISTENER_KIND, c->kind) ||
	    nla_put_u32(skb, GOBLIN_A_LISTENER_ID, li->id) ||
	    gb_nl_put_addr(skb, &c->addr, GOBLIN_A_ADDR4, GOBLIN_A_ADDR6,
			   GOBLIN_A_PORT) ||
	    nla_put_u32(skb, GOBLIN_A_MAX_CONNS, c->max_conns) ||
	    nla_put_u32(skb, GOBLIN_A_IDLE_TIMEOUT, c->idle_timeout) ||
	    nla_put_u32(skb, GOBLIN_A_CONNS, li->conns) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_CONNS_TOTAL, li->conns_total,
			      GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_REFUSED, li->refused,
			      GOBLIN_A_PAD))
		return -EMSGSIZE;
	if (c->kind == GB_LISTENER_RDMA &&
	    (nla_put_u32(skb, GOBLIN_A_WINDOW, c->window) ||
	     nla_put_u32(skb, GOBLIN_A_WINDOWS, c->windows) ||
	     nla_put_u32(skb, GOBLIN_A_CREDITS, c->credits) ||
	     nla_put_u32(skb, GOBLIN_A_MAX_PEER_CONNS, c->max_peer_conns)))
		return -EMSGSIZE;
	if (c->kind != GB_LISTENER_RDMA &&
	    nla_put_u32(skb, GOBLIN_A_WRITE_TIMEOUT, c->write_timeout))
		return -EMSGSIZE;
	if (c->kind == GB_LISTENER_HTTP &&
	    nla_put_u32(skb, GOBLIN_A_HEADER_TIMEOUT, c->header_timeout))
		return -EMSGSIZE;
	return 0;
}

/* Dump cursors, kept in cb->ctx between dumpit calls. */
struct gb_nl_listener_ctx {
	u32 kind;
	u32 last_id;
	bool done;
};

struct gb_nl_conn_ctx {
	u64 last_id;
	u32 kind;
	bool done;
};

struct gb_nl_obj_ctx {
	u64 cursor;
	bool done;
};

struct gb_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	void *ctx;
	const u8 *prefix;
	unsigned int plen;
	unsigned int count;
	unsigned int scanned;
	unsigned long yield_at;
	u32 delay_us;
};

static int gb_nl_listener_visit(const struct gb_listener_info *li, void *arg)
{
	struct gb_nl_dump *d = arg;
	struct gb_nl_listener_ctx *ctx = d->ctx;
	void *hdr;

	if (li->id <= ctx->last_id)
		return 0;
	hdr = gb_nl_dump_put(d->skb, d->cb);
	if (!hdr)
		return -EMSGSIZE;
	if (gb_nl_put_listener(d->skb, li)) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	ctx->last_id = li->id;
	d->count++;
	return 0;
}

/* Kind filter of a dump request, or -1 for all kinds. */
static int gb_nl_dump_kind(struct netlink_callback *cb)
{
	struct nlattr *attr = gb_genl_dump_attrs(cb)[GOBLIN_A_LISTENER_KIND];

	return attr ? nla_get_u8(attr) : -1;
}

static int gb_nl_listener_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gb_nl_listener_ctx *ctx = (void *)cb->ctx;
	struct gb_nl_dump d = { .skb = skb, .cb = cb, .ctx = ctx };
	const struct gb_listener_ops *ops;
	int filter = gb_nl_dump_kind(cb);
	u32 cursor;
	int err;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (ctx->done)
		return 0;
	for (; ctx->kind < GB_LISTENER_KIND_MAX; ctx->kind++, ctx->last_id = 0) {
		if (filter >= 0 && ctx->kind != filter)
			continue;
		ops = gb_transport_ops(ctx->kind);
		if (!ops || !ops->walk)
			continue;
		cursor = ctx->last_id;
		err = ops->walk(&cursor, gb_nl_listener_visit, &d);
		if (err == -EMSGSIZE && d.count)
			return skb->len;
		if (err)
			return err;
	}
	ctx->done = true;
	return skb->len;
}

/* ---------------------------------------------------------------------- */
/* CONN_GET                                                               */

/* What only RDMA connections report. */
static int gb_nl_put_conn_rdma(struct sk_buff *skb,
			       const struct gb_conn_info *ci)
{
	if (nla_put_u64_64bit(skb, GOBLIN_A_HITS, ci->hits, GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_MISSES, ci->misses,
			      GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_BYTES_WRITTEN, ci->bytes_written,
			      GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_BYTES_READ, ci->bytes_read,
			      GOBLIN_A_PAD) ||
	    nla_put_u32(skb, GOBLIN_A_WINDOWS_IN_FLIGHT,
			ci->windows_in_flight))
		return -EMSGSIZE;
	return gb_nl_put_rdma_errors(skb, GOBLIN_A_RDMA_ERRORS, ci->errors,
				     true);
}

static int gb_nl_conn_visit(const struct gb_conn_info *ci, void *arg)
{
	struct gb_nl_dump *d = arg;
	struct gb_nl_conn_ctx *ctx = d->ctx;
	struct sk_buff *skb = d->skb;
	void *hdr;

	if (ci->id <= ctx->last_id)
		return 0;
	hdr = gb_nl_dump_put(skb, d->cb);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u8(skb, GOBLIN_A_LISTENER_KIND, ci->kind) ||
	    nla_put_u32(skb, GOBLIN_A_LISTENER_ID, ci->listener_id) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_CONN_ID, ci->id, GOBLIN_A_PAD) ||
	    gb_nl_put_addr(skb, &ci->peer, GOBLIN_A_PEER_ADDR4,
			   GOBLIN_A_PEER_ADDR6, GOBLIN_A_PEER_PORT) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_RX_BYTES, ci->rx_bytes,
			      GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_TX_BYTES, ci->tx_bytes,
			      GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_CMDS, ci->cmds, GOBLIN_A_PAD) ||
	    nla_put_u32(skb, GOBLIN_A_IDLE, ci->idle) ||
	    (ci->cpu >= 0 && cpu_possible(ci->cpu) &&
	     (nla_put_u32(skb, GOBLIN_A_CPU, ci->cpu) ||
	      nla_put_u32(skb, GOBLIN_A_CPU_NODE, cpu_to_node(ci->cpu)))) ||
	    (ci->device[0] &&
	     nla_put(skb, GOBLIN_A_DEVICE,
		     strnlen(ci->device, sizeof(ci->device) - 1) + 1,
		     ci->device)) ||
	    (ci->rdma && gb_nl_put_conn_rdma(skb, ci))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	ctx->last_id = ci->id;
	d->count++;
	return 0;
}

static int gb_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gb_nl_conn_ctx *ctx = (void *)cb->ctx;
	struct gb_nl_dump d = { .skb = skb, .cb = cb, .ctx = ctx };
	int filter = gb_nl_dump_kind(cb);
	const struct gb_listener_ops *ops;
	u64 cursor;
	int err;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (ctx->done)
		return 0;
	for (; ctx->kind < GB_LISTENER_KIND_MAX; ctx->kind++, ctx->last_id = 0) {
		if (filter >= 0 && ctx->kind != filter)
			continue;
		ops = gb_transport_ops(ctx->kind);
		if (!ops || !ops->conn_walk)
			continue;
		cursor = ctx->last_id;
		err = ops->conn_walk(&cursor, gb_nl_conn_visit, &d);
		if (err == -EMSGSIZE && d.count)
			return skb->len;
		if (err)
			return err;
	}
	ctx->done = true;
	return skb->len;
}

/* ---------------------------------------------------------------------- */
/* OBJ_GET                                                                */

static int gb_nl_put_obj(struct sk_buff *skb, const struct gb_obj *obj)
{
	if (nla_put(skb, GOBLIN_A_KEY, obj->klen, obj->key) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_OBJ_LEN, obj->len, GOBLIN_A_PAD) ||
	    nla_put_u32(skb, GOBLIN_A_OBJ_FLAGS, obj->flags) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_OBJ_CAS, READ_ONCE(obj->cas), GOBLIN_A_PAD) ||
	    nla_put_s64(skb, GOBLIN_A_OBJ_EXPTIME, obj->exptime, GOBLIN_A_PAD))
		return -EMSGSIZE;
	return 0;
}

static int gb_nl_obj_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *key = info->attrs[GOBLIN_A_KEY];
	struct sk_buff *msg;
	struct gb_obj *obj;
	void *hdr;
	int err;

	if (!key) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GOBLIN_A_KEY);
		NL_SET_ERR_MSG(info->extack, "key: missing");
		return -EINVAL;
	}
	obj = gb_store_get(nla_data(key), nla_len(key));
	if (!obj) {
		NL_SET_ERR_MSG_ATTR(info->extack, key, "key: no such object");
		return -ENOENT;
	}
	msg = gb_nl_reply_new(info, &hdr);
	if (!msg) {
		gb_obj_put(obj);
		return -ENOMEM;
	}
	err = gb_nl_put_obj(msg, obj);
	gb_obj_put(obj);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return gb_nl_reply_send(msg, hdr, info);
}

/*
 * An object dump lets go of genl_mutex after this many objects or once it
 * has held it past the next tick, whichever comes first: the hold is
 * bounded in time whatever an object costs to look at.
 */
#define GB_NL_OBJ_BATCH	256

/*
 * A prefix that matches little makes one dumpit walk the whole index (it
 * returns only once the message buffer is full or the walk is done), and
 * genetlink holds genl_mutex, which every non-parallel family shares,
 * around it. Let go of it between batches: the walk runs under RCU and
 * object references only, its cursor is in cb->ctx (serialised by the
 * netlink socket's dump mutex), and the module cannot go while a dump
 * runs (the dump holds a module reference). genl_mutex is held exactly
 * once here, by genetlink's dumpit wrapper. Not released: genetlink's
 * cb_lock, which the first dumpit call (from the request's sendmsg) holds
 * for reading, so a generic netlink family registered or unregistered
 * meanwhile waits for that call's walk (the command needs CAP_NET_ADMIN).
 */
static void gb_nl_obj_yield(void)
{
	genl_unlock();
	cond_resched();
	genl_lock();
}

/* The obj_dump_delay_us test knob: spin @us on the monotonic clock. */
static void gb_nl_obj_delay(u32 us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static int gb_nl_obj_visit(struct gb_obj *obj, void *arg)
{
	struct gb_nl_dump *d = arg;
	void *hdr;

	if (!(++d->scanned % GB_NL_OBJ_BATCH) ||
	    time_after(jiffies, d->yield_at)) {
		gb_nl_obj_yield();
		d->yield_at = jiffies;
	}
	if (unlikely(d->delay_us))
		gb_nl_obj_delay(d->delay_us);
	if (d->plen && (obj->klen < d->plen ||
			memcmp(obj->key, d->prefix, d->plen)))
		return 0;
	hdr = gb_nl_dump_put(d->skb, d->cb);
	if (!hdr)
		return -EMSGSIZE;
	if (gb_nl_put_obj(d->skb, obj)) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	d->count++;
	return 0;
}

static int gb_nl_obj_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gb_nl_obj_ctx *ctx = (void *)cb->ctx;
	struct nlattr *prefix = gb_genl_dump_attrs(cb)[GOBLIN_A_PREFIX];
	struct gb_nl_dump d = { .skb = skb, .cb = cb, .ctx = ctx };
	int err;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (ctx->done)
		return 0;
	if (prefix) {
		d.prefix = nla_data(prefix);
		d.plen = nla_len(prefix);
	}
	d.delay_us = min(READ_ONCE(gb_nl_dbg_obj_delay_us), 1000U);
	d.yield_at = jiffies;
	err = gb_store_walk(&ctx->cursor, gb_nl_obj_visit, &d);
	if (err == -EMSGSIZE && d.count)
		return skb->len;
	if (err)
		return err;
	ctx->done = true;
	return skb->len;
}

/* ---------------------------------------------------------------------- */
/* NUMA_GET/SET                                                           */

/*
 * One GOBLIN_A_NODE nest: the node's memory and CPUs and what the store holds
 * there (gb_store_node_usage() may sleep: process context only).
 */
static int gb_nl_put_node(struct sk_buff *skb, int nid)
{
	struct gb_store_node_usage nu;
	u64 total = 0, free = 0;
	struct nlattr *nest;
	struct zone *zone;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		zone = &NODE_DATA(nid)->node_zones[z];
		total += zone_managed_pages(zone);
		free += zone_page_state(zone, NR_FREE_PAGES);
	}
	gb_store_node_usage(nid, &nu, false);
	nest = nla_nest_start(skb, GOBLIN_A_NODE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GOBLIN_NODE_A_ID, nid) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_MEM_TOTAL, total << PAGE_SHIFT,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_MEM_FREE, free << PAGE_SHIFT,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u32(skb, GOBLIN_NODE_A_CPUS, nr_cpus_node(nid)) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_HEAD_BYTES, nu.head_bytes,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_BLOCKS, nu.blocks,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_OBJECTS, nu.objects,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_REMOTE, nu.remote,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_BLOCKS_HUGE, nu.blocks_huge,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_BLOCKS_SMALL, nu.blocks_small,
			      GOBLIN_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_NODE_A_PROMOTED, nu.promoted,
			      GOBLIN_NODE_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Room for one GOBLIN_A_NODE nest (gb_nl_put_node). */
static size_t gb_nl_node_size(void)
{
	return nla_total_size(0) +			/* GOBLIN_A_NODE */
	       nla_total_size(sizeof(u32)) * 2 +	/* ID, CPUS */
	       nla_total_size_64bit(sizeof(u64)) * 9;	/* 64-bit counters */
}

static int gb_nl_numa_get(struct sk_buff *skb, struct genl_info *info)
{
	struct gb_store_numa nc;
	struct sk_buff *msg;
	void *hdr;
	int nid;

	msg = gb_nl_reply_new_size(info, &hdr,
				   nla_total_size(sizeof(u8)) +
				   nla_total_size(sizeof(u32)) +
				   num_online_nodes() * gb_nl_node_size());
	if (!msg)
		return -ENOMEM;
	gb_store_get_numa(&nc);
	if (nla_put_u8(msg, GOBLIN_A_NUMA_POLICY, nc.policy) ||
	    nla_put_u32(msg, GOBLIN_A_NUMA_NODE, nc.node))
		goto too_big;
	for_each_online_node(nid) {
		if (gb_nl_put_node(msg, nid))
			goto too_big;
	}
	return gb_nl_reply_send(msg, hdr, info);
too_big:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int gb_nl_numa_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *pol = info->attrs[GOBLIN_A_NUMA_POLICY];
	struct nlattr *node = info->attrs[GOBLIN_A_NUMA_NODE];
	struct gb_store_numa nc;
	u8 policy;
	u32 nid;

	gb_store_get_numa(&nc);
	policy = nc.policy;
	nid = nc.node;
	if (pol)
		policy = nla_get_u8(pol);
	if (node) {
		nid = nla_get_u32(node);
		if (nid >= MAX_NUMNODES || !node_state(nid, N_MEMORY)) {
			NL_SET_ERR_MSG_ATTR(info->extack, node,
					    "node: no such online NUMA node with memory");
			return -EINVAL;
		}
	}
	if (policy == GOBLIN_NUMA_BIND && !node) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GOBLIN_A_NUMA_NODE);
		NL_SET_ERR_MSG(info->extack, "node: required by policy bind");
		return -EINVAL;
	}
	nc.policy = policy;
	nc.node = nid;
	return gb_store_set_numa(&nc, info->extack);
}

/* ---------------------------------------------------------------------- */
/* Events                                                                 */

static struct sk_buff *gb_nl_event_new(u8 cmd, void **hdr)
{
	struct sk_buff *skb;

	if (!READ_ONCE(gb_nl_ready) ||
	    !genl_has_listeners(&gb_nl_family, &init_net, GB_NL_MCGRP_EVENTS))
		return NULL;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_ATOMIC);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &gb_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

static void gb_nl_event_send(struct sk_buff *skb, void *hdr)
{
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&gb_nl_family, skb, 0, GB_NL_MCGRP_EVENTS,
			  GFP_ATOMIC);
}

/**
 * gb_nl_event_listener - report a listener going up or down
 * @kind: transport
 * @id:   listener id
 * @addr: bound address
 * @up:   true when it started, false when it stopped
 */
static void gb_nl_event_listener(enum gb_listener_kind kind, u32 id,
				 const struct sockaddr_storage *addr, bool up)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = gb_nl_event_new(up ? GOBLIN_CMD_EVT_LISTENER_UP :
				   GOBLIN_CMD_EVT_LISTENER_DOWN, &hdr);
	if (!skb)
		goto out;
	if (nla_put_u8(skb, GOBLIN_A_LISTENER_KIND, kind) ||
	    nla_put_u32(skb, GOBLIN_A_LISTENER_ID, id) ||
	    gb_nl_put_addr(skb, addr, GOBLIN_A_ADDR4, GOBLIN_A_ADDR6,
			   GOBLIN_A_PORT)) {
		nlmsg_free(skb);
		goto out;
	}
	gb_nl_event_send(skb, hdr);
out:
	rcu_read_unlock();
}

/**
 * gb_nl_event_conn - report a connection being opened or closed
 * @kind:        transport
 * @listener_id: listener that accepted the connection
 * @id:          connection id
 * @peer:        remote address
 * @open:        true on accept, false on close
 */
static void gb_nl_event_conn(enum gb_listener_kind kind, u32 listener_id,
			     u64 id, const struct sockaddr_storage *peer,
			     bool open)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = gb_nl_event_new(open ? GOBLIN_CMD_EVT_CONN_OPEN :
				     GOBLIN_CMD_EVT_CONN_CLOSE, &hdr);
	if (!skb)
		goto out;
	if (nla_put_u8(skb, GOBLIN_A_LISTENER_KIND, kind) ||
	    nla_put_u32(skb, GOBLIN_A_LISTENER_ID, listener_id) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_CONN_ID, id, GOBLIN_A_PAD) ||
	    gb_nl_put_addr(skb, peer, GOBLIN_A_PEER_ADDR4, GOBLIN_A_PEER_ADDR6,
			   GOBLIN_A_PEER_PORT)) {
		nlmsg_free(skb);
		goto out;
	}
	gb_nl_event_send(skb, hdr);
out:
	rcu_read_unlock();
}

/**
 * gb_nl_event_device - report an RDMA device being added or removed
 * @name:  device name
 * @added: true when added
 */
static void gb_nl_event_device(const char *name, bool added)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = gb_nl_event_new(added ? GOBLIN_CMD_EVT_DEVICE_ADD :
				      GOBLIN_CMD_EVT_DEVICE_DEL, &hdr);
	if (!skb)
		goto out;
	if (nla_put_string(skb, GOBLIN_A_DEVICE, name)) {
		nlmsg_free(skb);
		goto out;
	}
	gb_nl_event_send(skb, hdr);
out:
	rcu_read_unlock();
}

/**
 * gb_nl_event_safety - report a request refused by a safety-marker check
 * @kind:   transport, or GB_LISTENER_KIND_MAX for the store itself (the
 *          event then has no LISTENER_KIND)
 * @peer:   remote address (may be NULL)
 * @reason: short static description
 */
static void gb_nl_event_safety(enum gb_listener_kind kind,
			       const struct sockaddr_storage *peer,
			       const char *reason)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = gb_nl_event_new(GOBLIN_CMD_EVT_SAFETY_REFUSED, &hdr);
	if (!skb)
		goto out;
	/* GB_LISTENER_KIND_MAX: refused by the store itself, no transport */
	if ((kind < GB_LISTENER_KIND_MAX &&
	     nla_put_u8(skb, GOBLIN_A_LISTENER_KIND, kind)) ||
	    (peer && gb_nl_put_addr(skb, peer, GOBLIN_A_PEER_ADDR4,
				    GOBLIN_A_PEER_ADDR6,
				    GOBLIN_A_PEER_PORT)) ||
	    nla_put_string(skb, GOBLIN_A_REASON, reason ? reason : "")) {
		nlmsg_free(skb);
		goto out;
	}
	gb_nl_event_send(skb, hdr);
out:
	rcu_read_unlock();
}

/**
 * gb_nl_event_pressure - report eviction pressure
 * @used:    bytes in use
 * @limit:   budget in bytes
 * @evicted: objects evicted since load
 */
static void gb_nl_event_pressure(u64 used, u64 limit, u64 evicted)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = gb_nl_event_new(GOBLIN_CMD_EVT_EVICT_PRESSURE, &hdr);
	if (!skb)
		goto out;
	if (nla_put_u64_64bit(skb, GOBLIN_A_PRESSURE_USED, used, GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_PRESSURE_LIMIT, limit,
			      GOBLIN_A_PAD) ||
	    nla_put_u64_64bit(skb, GOBLIN_A_PRESSURE_EVICTED, evicted,
			      GOBLIN_A_PAD)) {
		nlmsg_free(skb);
		goto out;
	}
	gb_nl_event_send(skb, hdr);
out:
	rcu_read_unlock();
}

static const struct gb_event_sink gb_nl_event_sink = {
	.listener = gb_nl_event_listener,
	.conn = gb_nl_event_conn,
	.device = gb_nl_event_device,
	.safety = gb_nl_event_safety,
	.pressure = gb_nl_event_pressure,
};

/* ---------------------------------------------------------------------- */
/* Family                                                                 */

static const struct genl_ops gb_nl_ops[] = {
	{
		.cmd = GOBLIN_CMD_VERSION_GET,
		.doit = gb_nl_version_get,
		.policy = gb_empty_policy,
		.maxattr = GOBLIN_A_MAX,
	},
	{
		.cmd = GOBLIN_CMD_STORE_GET,
		.doit = gb_nl_store_get,
		.policy = gb_empty_policy,
		.maxattr = GOBLIN_A_MAX,
	},
	{
		.cmd = GOBLIN_CMD_STORE_SET,
		.doit = gb_nl_store_set,
		.policy = gb_store_set_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GOBLIN_CMD_STATS_GET,
		.doit = gb_nl_stats_get,
		.policy = gb_empty_policy,
		.maxattr = GOBLIN_A_MAX,
	},
	{
		.cmd = GOBLIN_CMD_LISTENER_ADD,
		.doit = gb_nl_listener_add,
		.policy = gb_listener_add_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GOBLIN_CMD_LISTENER_DEL,
		.doit = gb_nl_listener_del,
		.policy = gb_listener_del_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GOBLIN_CMD_LISTENER_GET,
		.dumpit = gb_nl_listener_dump,
		.policy = gb_kind_filter_policy,
		.maxattr = GOBLIN_A_MAX,
	},
	{
		.cmd = GOBLIN_CMD_CONN_GET,
		.dumpit = gb_nl_conn_dump,
		.policy = gb_kind_filter_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GOBLIN_CMD_OBJ_GET,
		.doit = gb_nl_obj_get,
		.dumpit = gb_nl_obj_dump,
		.policy = gb_obj_get_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GOBLIN_CMD_FLUSH,
		.doit = gb_nl_flush,
		.policy = gb_empty_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GOBLIN_CMD_NUMA_GET,
		.doit = gb_nl_numa_get,
		.policy = gb_empty_policy,
		.maxattr = GOBLIN_A_MAX,
	},
	{
		.cmd = GOBLIN_CMD_NUMA_SET,
		.doit = gb_nl_numa_set,
		.policy = gb_numa_set_policy,
		.maxattr = GOBLIN_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

/* Events carry client addresses: subscribing needs CAP_NET_ADMIN. */
static const struct genl_multicast_group gb_nl_mcgrps[] = {
	[GB_NL_MCGRP_EVENTS] = {
		.name = GOBLIN_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

static struct genl_family gb_nl_family = {
	.name = GOBLIN_GENL_NAME,
	.version = GOBLIN_GENL_VERSION,
	.maxattr = GOBLIN_A_MAX,
	.module = THIS_MODULE,
	.ops = gb_nl_ops,
	.n_ops = ARRAY_SIZE(gb_nl_ops),
	/*
	 * Every command is new-style: genetlink rejects a nonzero
	 * genlmsghdr.reserved and nlmsg_flags beyond REQUEST/ACK/ECHO/DUMP.
	 */
	.resv_start_op = GOBLIN_CMD_UNSPEC + 1,
	.mcgrps = gb_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gb_nl_mcgrps),
};

static void gb_nl_dbg_init(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL);

	if (IS_ERR_OR_NULL(dir))
		return;
	gb_nl_dbg = debugfs_create_dir("netlink", dir);
	dput(dir);
	debugfs_create_u32("obj_dump_delay_us", 0600, gb_nl_dbg,
			   &gb_nl_dbg_obj_delay_us);
}

int gb_netlink_init(void)
{
	int err;

	BUILD_BUG_ON((int)GB_LISTENER_MEMCACHE != (int)GOBLIN_LISTENER_MEMCACHE);
	BUILD_BUG_ON((int)GB_LISTENER_RDMA != (int)GOBLIN_LISTENER_RDMA);
	BUILD_BUG_ON((int)GB_LISTENER_HTTP != (int)GOBLIN_LISTENER_HTTP);
	BUILD_BUG_ON(GB_KEY_MAX != GOBLIN_KEY_MAX);

	gb_nl_cores = gb_param_cores;
	err = genl_register_family(&gb_nl_family);
	if (err)
		return err;
	WRITE_ONCE(gb_nl_ready, true);
	gb_events_set_sink(&gb_nl_event_sink);
	gb_nl_dbg_init();
	return 0;
}

void gb_netlink_exit(void)
{
	debugfs_remove(gb_nl_dbg);
	gb_nl_dbg = NULL;
	gb_events_set_sink(NULL);
	WRITE_ONCE(gb_nl_ready, false);
	/* Wait for event senders that saw the sink or gb_nl_ready == true. */
	synchronize_rcu();
	genl_unregister_family(&gb_nl_family);
}
