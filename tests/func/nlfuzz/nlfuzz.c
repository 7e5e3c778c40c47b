// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: live fuzzer of the goblin generic netlink family (run in the test
 * guest as root; tests/func/nlfuzz/run drives it).
 *
 *   nlfuzz fuzz [-u] [-s SEED] [-n COUNT] [-t SECONDS] [-v] [-o INDEX] [-d]
 *   nlfuzz save FILE       snapshot configuration, NUMA policy, listeners
 *   nlfuzz restore FILE    put them back (flushes the store), then verify
 *
 * fuzz sends COUNT messages (or for SECONDS, whichever ends first) built
 * from a seeded generator: for every command of the family (and for
 * numbers that are not commands), attribute sets drawn from the
 * command's policy with values around each limit, wrong types and sizes,
 * unknown and duplicate attributes, odd header flags and versions, batches,
 * and byte-level mutations (bit flips, truncation, bad nla_len, junk) of
 * earlier messages. The sequence depends on the seed only, so "-s SEED -o
 * INDEX" sends message INDEX of a run alone and -v prints every message.
 * The message type is always the goblin family, and a message is never
 * sent with bytes after its (aligned) nlmsg_len, so nothing reaches another
 * family.
 *
 * Every reply is checked: well-formed netlink messages with our sequence
 * numbers, an error in [-4095, 0], extended ack attributes inside their
 * bounds (a NUL-terminated message, an offset inside the request), reply
 * attributes well-formed down to nested ones. Every 200 messages
 * VERSION_GET and STATS_GET must still succeed. As root an extra socket
 * subscribed to the "events" group is drained and its messages checked.
 *
 * With -u the program opens one socket as root, then becomes nobody
 * (65534) and opens another; on both, every well-formed request for an
 * admin command must fail with EPERM (EOPNOTSUPP where the kernel checks
 * do/dump support first), no other command may fail with EPERM, joining
 * the "events" group must fail with EPERM, and afterwards the
 * configuration, NUMA policy and listeners must be exactly as before.
 *
 * Exit status 0 when no check failed, 1 on a failure (the message is
 * printed in hex), 2 on usage or setup errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/goblin.h>

#include "../../../tools/include/gb_compiler.h"

#define MSG_MAX		4096	/* one generated message */
#define BATCH_MAX	3	/* messages in one send */
#define POOL_SIZE	64	/* earlier messages kept for mutation */
#define RXBUF		(1024 * 1024)
#define REPLY_TIMEOUT_MS 30000	/* a request unanswered this long fails */
#define PROBE_EVERY	200
#define NOBODY		65534
#define SEQ_SENTINEL	15	/* seq = base + this: the NOOP sentinel */
#define GEN_FAMILY	0x7e	/* message type while generating, see seal() */

/* ---------------------------------------------------------------------- */
/* Random numbers (splitmix64): the message sequence depends on the seed   */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n > 0; the bias is irrelevant here) */
static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

/* true with probability 1/n */
static bool one_in(uint32_t n)
{
	return rnd(n) == 0;
}

/* a random index of array @tab */
#define IDX(tab)	rnd(ARRAY_SIZE(tab))

/* ---------------------------------------------------------------------- */
/* The family, as uapi/linux/goblin.h and the YAML spec describe it        */

enum vtype { V_BIN, V_U8, V_U16, V_U32, V_U64, V_STR, V_NEST };

/* Request attributes have their own generators; the rest get their type. */
static const uint8_t attr_type[GOBLIN_A_MAX + 1] = {
	[GOBLIN_A_PAD] = V_BIN,
	[GOBLIN_A_VERSION] = V_STR,
	[GOBLIN_A_MEMORY] = V_U64,
	[GOBLIN_A_BLOCK] = V_U32,
	[GOBLIN_A_RAM_HEAD] = V_U32,
	[GOBLIN_A_SSD_DIR] = V_STR,
	[GOBLIN_A_SSD_MAX] = V_U64,
	[GOBLIN_A_PROMOTION] = V_U32,
	[GOBLIN_A_MLOCK] = V_U8,
	[GOBLIN_A_CORES] = V_U32,
	[GOBLIN_A_STATS] = V_NEST,
	[GOBLIN_A_LISTENER_KIND] = V_U8,
	[GOBLIN_A_LISTENER_ID] = V_U32,
	[GOBLIN_A_ADDR4] = V_BIN,
	[GOBLIN_A_ADDR6] = V_BIN,
	[GOBLIN_A_PORT] = V_U16,
	[GOBLIN_A_WINDOW] = V_U32,
	[GOBLIN_A_WINDOWS] = V_U32,
	[GOBLIN_A_MAX_CONNS] = V_U32,
	[GOBLIN_A_IDLE_TIMEOUT] = V_U32,
	[GOBLIN_A_CREDITS] = V_U32,
	[GOBLIN_A_CONNS] = V_U32,
	[GOBLIN_A_CONNS_TOTAL] = V_U64,
	[GOBLIN_A_REFUSED] = V_U64,
	[GOBLIN_A_CONN_ID] = V_U64,
	[GOBLIN_A_PEER_ADDR4] = V_BIN,
	[GOBLIN_A_PEER_ADDR6] = V_BIN,
	[GOBLIN_A_PEER_PORT] = V_U16,
	[GOBLIN_A_RX_BYTES] = V_U64,
	[GOBLIN_A_TX_BYTES] = V_U64,
	[GOBLIN_A_CMDS] = V_U64,
	[GOBLIN_A_IDLE] = V_U32,
	[GOBLIN_A_DEVICE] = V_STR,
	[GOBLIN_A_KEY] = V_BIN,
	[GOBLIN_A_PREFIX] = V_BIN,
	[GOBLIN_A_OBJ_LEN] = V_U64,
	[GOBLIN_A_OBJ_FLAGS] = V_U32,
	[GOBLIN_A_OBJ_CAS] = V_U64,
	[GOBLIN_A_OBJ_EXPTIME] = V_U64,
	[GOBLIN_A_NUMA_POLICY] = V_U8,
	[GOBLIN_A_NUMA_NODE] = V_U32,
	[GOBLIN_A_NODE] = V_NEST,
	[GOBLIN_A_REASON] = V_STR,
	[GOBLIN_A_PRESSURE_USED] = V_U64,
	[GOBLIN_A_PRESSURE_LIMIT] = V_U64,
	[GOBLIN_A_PRESSURE_EVICTED] = V_U64,
	[GOBLIN_A_HITS] = V_U64,
	[GOBLIN_A_MISSES] = V_U64,
	[GOBLIN_A_BYTES_WRITTEN] = V_U64,
	[GOBLIN_A_BYTES_READ] = V_U64,
	[GOBLIN_A_WINDOWS_IN_FLIGHT] = V_U32,
	[GOBLIN_A_RDMA_ERRORS] = V_NEST,
	[GOBLIN_A_MAX_PEER_CONNS] = V_U32,
	[GOBLIN_A_RDMA_MAX_CONNS] = V_U32,
	[GOBLIN_A_WRITE_TIMEOUT] = V_U32,
	[GOBLIN_A_ITEM_MAX] = V_U32,
	[GOBLIN_A_HEADER_TIMEOUT] = V_U32,
	[GOBLIN_A_CRC] = V_U8,
	[GOBLIN_A_CPUS] = V_STR,
	[GOBLIN_A_CPU] = V_U32,
	[GOBLIN_A_CPU_NODE] = V_U32,
	[GOBLIN_A_PROMOTION_RATE] = V_U32,
	[GOBLIN_A_RDMA_LEASE_MS] = V_U32,
};

/* Attributes of replies and events that are nests (checked recursively). */
static bool attr_is_nest(int type)
{
	return type == GOBLIN_A_STATS || type == GOBLIN_A_NODE ||
	       type == GOBLIN_A_RDMA_ERRORS;
}

enum cmd_kind {
	C_UNKNOWN,	/* not in this table (newer uapi): no expectations */
	C_OP,		/* an operation of the family */
	C_NONE,		/* a number the family has no operation for */
};

struct cmd_desc {
	const char *name;
	enum cmd_kind kind;
	bool admin, has_do, has_dump;
	const uint16_t *attrs;	/* the request policy (0-terminated) */
	const uint16_t *need;	/* what a request needs to get far */
};

#define A(...)		((const uint16_t[]){ __VA_ARGS__, 0 })

static const struct cmd_desc cmds[GOBLIN_CMD_MAX + 1] = {
	[GOBLIN_CMD_UNSPEC] = { .name = "unspec", .kind = C_NONE },
	[GOBLIN_CMD_VERSION_GET] = {
		.name = "version-get", .kind = C_OP, .has_do = true,
	},
	[GOBLIN_CMD_STORE_GET] = {
		.name = "store-get", .kind = C_OP, .has_do = true,
	},
	[GOBLIN_CMD_STORE_SET] = {
		.name = "store-set", .kind = C_OP, .admin = true, .has_do = true,
		.attrs = A(GOBLIN_A_MEMORY, GOBLIN_A_BLOCK, GOBLIN_A_RAM_HEAD,
			   GOBLIN_A_SSD_DIR, GOBLIN_A_SSD_MAX,
			   GOBLIN_A_PROMOTION, GOBLIN_A_MLOCK, GOBLIN_A_CORES,
			   GOBLIN_A_RDMA_MAX_CONNS, GOBLIN_A_ITEM_MAX,
			   GOBLIN_A_CRC, GOBLIN_A_CPUS,
			   GOBLIN_A_PROMOTION_RATE, GOBLIN_A_RDMA_LEASE_MS),
	},
	[GOBLIN_CMD_STATS_GET] = {
		.name = "stats-get", .kind = C_OP, .has_do = true,
	},
	[GOBLIN_CMD_LISTENER_ADD] = {
		.name = "listener-add", .kind = C_OP, .admin = true, .has_do = true,
		.attrs = A(GOBLIN_A_LISTENER_KIND, GOBLIN_A_ADDR4,
			   GOBLIN_A_ADDR6, GOBLIN_A_PORT, GOBLIN_A_WINDOW,
			   GOBLIN_A_WINDOWS, GOBLIN_A_MAX_CONNS,
			   GOBLIN_A_IDLE_TIMEOUT, GOBLIN_A_CREDITS,
			   GOBLIN_A_MAX_PEER_CONNS, GOBLIN_A_WRITE_TIMEOUT,
			   GOBLIN_A_HEADER_TIMEOUT),
		.need = A(GOBLIN_A_LISTENER_KIND, GOBLIN_A_ADDR4,
			  GOBLIN_A_PORT),
	},
	[GOBLIN_CMD_LISTENER_DEL] = {
		.name = "listener-del", .kind = C_OP, .admin = true, .has_do = true,
		.attrs = A(GOBLIN_A_LISTENER_KIND, GOBLIN_A_ADDR4,
			   GOBLIN_A_ADDR6, GOBLIN_A_PORT),
		.need = A(GOBLIN_A_LISTENER_KIND, GOBLIN_A_ADDR4,
			  GOBLIN_A_PORT),
	},
	[GOBLIN_CMD_LISTENER_GET] = {
		.name = "listener-get", .kind = C_OP, .has_dump = true,
		.attrs = A(GOBLIN_A_LISTENER_KIND),
	},
	[GOBLIN_CMD_CONN_GET] = {
		.name = "conn-get", .kind = C_OP, .admin = true, .has_dump = true,
		.attrs = A(GOBLIN_A_LISTENER_KIND),
	},
	[GOBLIN_CMD_OBJ_GET] = {
		.name = "obj-get", .kind = C_OP, .admin = true, .has_do = true,
		.has_dump = true,
		.attrs = A(GOBLIN_A_KEY, GOBLIN_A_PREFIX),
		.need = A(GOBLIN_A_KEY),
	},
	[GOBLIN_CMD_FLUSH] = {
		.name = "flush", .kind = C_OP, .admin = true, .has_do = true,
	},
	[GOBLIN_CMD_NUMA_GET] = {
		.name = "numa-get", .kind = C_OP, .has_do = true,
	},
	[GOBLIN_CMD_NUMA_SET] = {
		.name = "numa-set", .kind = C_OP, .admin = true, .has_do = true,
		.attrs = A(GOBLIN_A_NUMA_POLICY, GOBLIN_A_NUMA_NODE),
		.need = A(GOBLIN_A_NUMA_POLICY),
	},
	[GOBLIN_CMD_EVT_LISTENER_UP] = { .name = "evt-listener-up", .kind = C_NONE },
	[GOBLIN_CMD_EVT_LISTENER_DOWN] = { .name = "evt-listener-down", .kind = C_NONE },
	[GOBLIN_CMD_EVT_CONN_OPEN] = { .name = "evt-conn-open", .kind = C_NONE },
	[GOBLIN_CMD_EVT_CONN_CLOSE] = { .name = "evt-conn-close", .kind = C_NONE },
	[GOBLIN_CMD_EVT_DEVICE_ADD] = { .name = "evt-device-add", .kind = C_NONE },
	[GOBLIN_CMD_EVT_DEVICE_DEL] = { .name = "evt-device-del", .kind = C_NONE },
	[GOBLIN_CMD_EVT_SAFETY_REFUSED] = { .name = "evt-safety-refused", .kind = C_NONE },
	[GOBLIN_CMD_EVT_EVICT_PRESSURE] = { .name = "evt-evict-pressure", .kind = C_NONE },
};

/* Entries of a 0-terminated attribute list. */
static unsigned int nattrs(const uint16_t *l)
{
	unsigned int n = 0;

	while (l && l[n])
		n++;
	return n;
}

static enum cmd_kind cmd_kind(unsigned int cmd)
{
	if (cmd > GOBLIN_CMD_MAX)
		return C_NONE;
	return cmds[cmd].kind;
}

static const char *cmd_name(unsigned int cmd)
{
	static char buf[16];

	if (cmd <= GOBLIN_CMD_MAX && cmds[cmd].name)
		return cmds[cmd].name;
	snprintf(buf, sizeof(buf), "cmd-%u", cmd);
	return buf;
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

struct msg {
	uint8_t b[MSG_MAX];
	size_t len;
};

static void put(struct msg *m, const void *p, size_t len)
{
	if (!len)
		return;
	if (len > sizeof(m->b) - m->len)
		len = sizeof(m->b) - m->len;
	memcpy(m->b + m->len, p, len);
	m->len += len;
}

static void put_attr(struct msg *m, uint16_t type, const void *p, size_t len)
{
	struct nlattr nla;
	static const uint8_t zero[4];

	if (m->len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(m->b))
		return;
	nla.nla_len = NLA_HDRLEN + len;
	nla.nla_type = type;
	put(m, &nla, sizeof(nla));
	put(m, p, len);
	put(m, zero, NLA_ALIGN(len) - len);
}

static void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_u64(struct msg *m, uint16_t type, uint64_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_u8(struct msg *m, uint16_t type, uint8_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_u16(struct msg *m, uint16_t type, uint16_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_str(struct msg *m, uint16_t type, const char *s)
{
	put_attr(m, type, s, strlen(s) + 1);
}

/* Start a request: netlink and genetlink headers, nlmsg_len fixed later. */
static void msg_start(struct msg *m, uint16_t family, uint16_t flags,
		      uint8_t cmd, uint8_t version, uint16_t reserved)
{
	struct nlmsghdr nlh = {
		.nlmsg_type = family,
		.nlmsg_flags = flags,
	};
	struct genlmsghdr g = {
		.cmd = cmd,
		.version = version,
		.reserved = reserved,
	};

	m->len = 0;
	put(m, &nlh, sizeof(nlh));
	put(m, &g, sizeof(g));
}

static void msg_set_len(struct msg *m)
{
	((struct nlmsghdr *)m->b)->nlmsg_len = m->len;
}

/* ---------------------------------------------------------------------- */
/* Values                                                                  */

#define K	1024ULL
#define M	(1024 * K)
#define G	(1024 * M)

static uint64_t v_memory(void)
{
	static const uint64_t v[] = {
		0, M - 1, M, 2 * M, 4 * M, 8 * M, 64 * M, 256 * M, G, 3 * G,
		1ULL << 40, 1ULL << 63, UINT64_MAX,
	};

	return one_in(8) ? rnd64() : v[IDX(v)];
}

static uint32_t v_block(void)
{
	static const uint32_t v[] = {
		0, 1, 4095, 4096, 4097, 8192, 64 * K, 256 * K, 2 * M, 16 * M,
		G, G + 4096, UINT32_MAX,
	};

	if (one_in(8))
		return one_in(2) ? (uint32_t)rnd64() : (uint32_t)rnd64() & ~4095U;
	return v[IDX(v)];
}

static uint32_t v_ram_head(void)
{
	static const uint32_t v[] = {
		0, 4095, 4096, 8192, 64 * K, 256 * K, M, 16 * M, 16 * M + 1,
		16 * M + 4096, UINT32_MAX,
	};

	if (one_in(8))
		return (uint32_t)rnd64() & (one_in(2) ? ~4095U : ~0U);
	return v[IDX(v)];
}

static uint32_t v_window(void)
{
	static const uint32_t v[] = {
		0, 1, 4095, 4096, 8192, 64 * K, M, 16 * M, 16 * M + 4096,
		64 * M, 64 * M + 1, 64 * M + 4096, UINT32_MAX,
	};

	return one_in(8) ? (uint32_t)rnd64() & ~4095U : v[IDX(v)];
}

static uint32_t v_small(const uint32_t *v, size_t n)
{
	return one_in(8) ? (uint32_t)rnd64() : v[rnd(n)];
}

#define V_SMALL(...)	v_small(LIST32(__VA_ARGS__), NLIST32(__VA_ARGS__))
#define LIST32(...)	((const uint32_t[]){ __VA_ARGS__ })
#define NLIST32(...)	(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

/*
 * Ports: a small set, so that listeners the fuzzer adds stay few (every
 * (kind, address, port) triple exists once). 11211 is the suite's own
 * memcache listener.
 */
static uint16_t v_port(void)
{
	static const uint16_t v[] = {
		0, 1, 11211, 11311, 20000, 20001, 20002, 20003, 65535,
	};

	return one_in(32) ? (uint16_t)rnd64() : v[IDX(v)];
}

static void v_addr4(uint8_t a[4])
{
	static const uint8_t v[][4] = {
		{ 127, 0, 0, 1 }, { 0, 0, 0, 0 }, { 10, 77, 0, 1 },
		{ 10, 77, 0, 2 }, { 1, 2, 3, 4 }, { 255, 255, 255, 255 },
		{ 224, 0, 0, 1 }, { 127, 0, 0, 2 },
	};
	uint32_t r = (uint32_t)rnd64();

	if (one_in(16))
		memcpy(a, &r, 4);
	else
		memcpy(a, v[IDX(v)], 4);
}

static void v_addr6(uint8_t a[16])
{
	static const uint8_t v[][16] = {
		{ [15] = 1 },					/* ::1 */
		{ 0 },						/* :: */
		{ [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },	/* v4-mapped */
		{ 0xfe, 0x80, [15] = 1 },			/* fe80::1 */
		{ 0xff, 0x02, [15] = 1 },			/* ff02::1 */
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 5 },		/* 2001:db8::5 */
	};
	uint64_t r[2] = { rnd64(), rnd64() };

	if (one_in(16))
		memcpy(a, r, 16);
	else
		memcpy(a, v[IDX(v)], 16);
}

/*
 * ssd_dir: never anything outside the guest's tmpfs /tmp that is writable
 * (the host's root is mounted read-only; /run/goblin/results is the
 * host's results directory and must stay out of reach).
 */
static void v_ssd_dir(char *s, size_t size)
{
	static const char *const v[] = {
		"", "/tmp/nlfuzz-ssd", "/tmp/nlfuzz-ssd/", "/tmp/nlfuzz-ssd/a",
		"/tmp/nlfuzz-ssd/missing/deeper", "/nonexistent", "relative",
		"./tmp", "/proc", "/dev/null", "/tmp/nlfuzz-ssd/../nlfuzz-ssd",
		"/tmp/nlfuzz-file",
	};
	size_t n, i;

	switch (rnd(8)) {
	case 0:		/* as long as allowed, or one longer */
		n = size - 1 - rnd(2);
		memcpy(s, "/tmp/", 5);
		for (i = 5; i < n; i++)
			s[i] = 'a' + rnd(26);
		s[n] = '\0';
		break;
	case 1:		/* printable junk under the scratch directory */
		i = snprintf(s, size, "/tmp/nlfuzz-ssd/");
		for (n = i + rnd(24); i < n && i < size - 1; i++)
			s[i] = 0x21 + rnd(0x5e);
		s[i] = '\0';
		if (strstr(s, ".."))
			snprintf(s, size, "/tmp/nlfuzz-ssd/dots");
		break;
	default:
		snprintf(s, size, "%s", v[IDX(v)]);
		break;
	}
}

/*
 * CPU lists: valid ones for a 2-CPU guest, offline and absurd CPUs, bad
 * syntax, and lists as long as the attribute allows or one longer.
 */
static void v_cpus(char *s, size_t size)
{
	static const char *const v[] = {
		"all", "0", "1", "0-1", "0,1", "1-0", "2", "4095", "4096",
		"0-4095", "0-1:1/2", "0-1:0/2", "", " ", "-", "0-", "-1", ",",
		"0,,1", "all,0", "ALL", "0x1", "99999999999999999999",
		"0-1:2/1",
	};
	size_t n, i;

	switch (rnd(6)) {
	case 0:		/* "0,0,0,..." up to the limit (GOBLIN_CPUS_MAX) */
		n = GOBLIN_CPUS_MAX - 1 - rnd(2) + rnd(3);
		if (n > size - 1)
			n = size - 1;
		for (i = 0; i < n; i++)
			s[i] = i % 2 ? ',' : '0';
		s[n] = '\0';
		break;
	case 1:		/* digits and separators */
		n = rnd(24);
		for (i = 0; i < n && i < size - 1; i++)
			s[i] = "0123456789,-:/ "[rnd(15)];
		s[i] = '\0';
		break;
	default:
		snprintf(s, size, "%s", v[IDX(v)]);
		break;
	}
}

/* Keys of objects the suite stored: "nlfuzz:0" .. "nlfuzz:15". */
static size_t v_key(uint8_t *k, size_t size, bool prefix)
{
	size_t n, i;

	switch (rnd(6)) {
	case 0:
	case 1:
		return snprintf((char *)k, size, "nlfuzz:%u", rnd(20));
	case 2:
		if (prefix)
			return snprintf((char *)k, size, "%.*s", (int)rnd(8),
					"nlfuzz:1");
		return snprintf((char *)k, size, "nlfuzz:%u", rnd(20));
	case 3:		/* around the key length limit */
		n = GOBLIN_KEY_MAX - 1 + rnd(3);
		break;
	case 4:
		n = rnd(2);
		break;
	default:
		n = rnd(300);
		break;
	}
	if (n > size)
		n = size;
	for (i = 0; i < n; i++)
		k[i] = one_in(4) ? (uint8_t)rnd64() : 'a' + rnd(26);
	return n;
}

static void put_random_bytes(struct msg *m, uint16_t type, size_t n)
{
	uint8_t b[64];
	size_t i;

	for (i = 0; i < n && i < sizeof(b); i++)
		b[i] = (uint8_t)rnd64();
	put_attr(m, type, b, i);
}

static void put_random_nest(struct msg *m, uint16_t type, int depth);

/* A value of @vt with a random size now and then. */
static void put_typed(struct msg *m, uint16_t type, enum vtype vt, int depth)
{
	char s[80];
	size_t i, n;

	switch (vt) {
	case V_U8:
		put_u8(m, type, (uint8_t)rnd64());
		break;
	case V_U16:
		put_u16(m, type, (uint16_t)rnd64());
		break;
	case V_U32:
		put_u32(m, type, (uint32_t)rnd64());
		break;
	case V_U64:
		put_u64(m, type, rnd64());
		break;
	case V_STR:
		n = rnd(sizeof(s) - 1);
		for (i = 0; i < n; i++)
			s[i] = 0x20 + rnd(0x5f);
		s[n] = '\0';
		put_attr(m, type, s, n + !one_in(8));
		break;
	case V_NEST:
		put_random_nest(m, type, depth);
		break;
	default:
		put_random_bytes(m, type, rnd(24));
		break;
	}
}

static void put_random_nest(struct msg *m, uint16_t type, int depth)
{
	size_t start = m->len;
	unsigned int i, n = rnd(5);

	if (depth > 2 || m->len + NLA_HDRLEN > sizeof(m->b)) {
		put_random_bytes(m, type, rnd(8));
		return;
	}
	put_attr(m, type | (one_in(2) ? NLA_F_NESTED : 0), NULL, 0);
	for (i = 0; i < n; i++)
		put_typed(m, rnd(64), (enum vtype)rnd(V_NEST + 1), depth + 1);
	((struct nlattr *)(m->b + start))->nla_len = m->len - start;
}

/* One attribute @type with a value from its generator. */
static void put_value(struct msg *m, uint16_t type)
{
	uint8_t buf[320];
	char dir[GOBLIN_PATH_MAX + 8];
	char cpus[GOBLIN_CPUS_MAX + 8];
	size_t n;

	if (one_in(12)) {	/* wrong size */
		put_random_bytes(m, type, rnd(20));
		return;
	}
	switch (type) {
	case GOBLIN_A_MEMORY:
	case GOBLIN_A_SSD_MAX:
		put_u64(m, type, v_memory());
		break;
	case GOBLIN_A_BLOCK:
		put_u32(m, type, v_block());
		break;
	case GOBLIN_A_RAM_HEAD:
		put_u32(m, type, v_ram_head());
		break;
	case GOBLIN_A_SSD_DIR:
		v_ssd_dir(dir, GOBLIN_PATH_MAX + 1);
		n = strlen(dir);
		put_attr(m, type, dir, n + !one_in(16));
		break;
	case GOBLIN_A_PROMOTION:
		put_u32(m, type, V_SMALL(0, 1, 999, 1000, 1001, UINT32_MAX));
		break;
	case GOBLIN_A_MLOCK:
		put_u8(m, type, V_SMALL(0, 1, 2, 255));
		break;
	case GOBLIN_A_CORES:
		put_u32(m, type, V_SMALL(0, 1, 2, 3, 64, 4096, 4097));
		break;
	case GOBLIN_A_LISTENER_KIND:
		put_u8(m, type, V_SMALL(GOBLIN_LISTENER_MEMCACHE,
					GOBLIN_LISTENER_MEMCACHE,
					GOBLIN_LISTENER_RDMA,
					GOBLIN_LISTENER_RDMA,
					GOBLIN_LISTENER_HTTP, 3, 255));
		break;
	case GOBLIN_A_ADDR4:
	case GOBLIN_A_PEER_ADDR4:
		v_addr4(buf);
		put_attr(m, type, buf, 4);
		break;
	case GOBLIN_A_ADDR6:
	case GOBLIN_A_PEER_ADDR6:
		v_addr6(buf);
		put_attr(m, type, buf, 16);
		break;
	case GOBLIN_A_PORT:
	case GOBLIN_A_PEER_PORT:
		put_u16(m, type, v_port());
		break;
	case GOBLIN_A_WINDOW:
		put_u32(m, type, v_window());
		break;
	case GOBLIN_A_WINDOWS:
		put_u32(m, type, V_SMALL(0, 1, 2, 16, 64, 65, UINT32_MAX));
		break;
	case GOBLIN_A_MAX_CONNS:
	case GOBLIN_A_MAX_PEER_CONNS:
	case GOBLIN_A_RDMA_MAX_CONNS:
		put_u32(m, type, V_SMALL(0, 1, 2, 1048576, 1048577));
		break;
	case GOBLIN_A_WRITE_TIMEOUT:
	case GOBLIN_A_HEADER_TIMEOUT:
		put_u32(m, type, V_SMALL(0, 1, 604800, 604801, UINT32_MAX));
		break;
	case GOBLIN_A_ITEM_MAX:
		put_u32(m, type, V_SMALL(0, 1023, 1024, 1048576, 16777216,
					 16777217, UINT32_MAX));
		break;
	case GOBLIN_A_CRC:
		put_u8(m, type, V_SMALL(0, 1, 2, 255));
		break;
	case GOBLIN_A_CPUS:
		v_cpus(cpus, sizeof(cpus));
		n = strlen(cpus);
		put_attr(m, type, cpus, n + !one_in(16));
		break;
	case GOBLIN_A_PROMOTION_RATE:
		put_u32(m, type, V_SMALL(0, 1, 4095, 4096, 16 << 20,
					 UINT32_MAX));
		break;
	case GOBLIN_A_IDLE_TIMEOUT:
		put_u32(m, type, V_SMALL(0, 1, 604800, 604801, UINT32_MAX));
		break;
	case GOBLIN_A_RDMA_LEASE_MS:
		put_u32(m, type, V_SMALL(0, 1, 9, 10, 60000, 60001,
					 UINT32_MAX));
		break;
	case GOBLIN_A_CREDITS:
		put_u32(m, type, V_SMALL(0, 1, 3, 4, 128, 129, 4096, 4097));
		break;
	case GOBLIN_A_KEY:
	case GOBLIN_A_PREFIX:
		n = v_key(buf, sizeof(buf), type == GOBLIN_A_PREFIX);
		put_attr(m, type, buf, n);
		break;
	case GOBLIN_A_NUMA_POLICY:
		put_u8(m, type, V_SMALL(GOBLIN_NUMA_LOCAL,
					GOBLIN_NUMA_INTERLEAVE,
					GOBLIN_NUMA_BIND, GOBLIN_NUMA_DEVICE,
					GOBLIN_NUMA_DEVICE + 1, 255));
		break;
	case GOBLIN_A_NUMA_NODE:
		put_u32(m, type, V_SMALL(0, 0, 1, 2, 63, 64, 1023, 1024,
					 0x7fffffff, UINT32_MAX));
		break;
	default:
		if (type <= GOBLIN_A_MAX)
			put_typed(m, type, (enum vtype)attr_type[type], 0);
		else
			put_typed(m, type, (enum vtype)rnd(V_NEST + 1), 0);
		break;
	}
}

static uint8_t pick_cmd(void)
{
	uint8_t c;

	switch (rnd(20)) {
	case 0:
		return (uint8_t)rnd64();
	case 1:
		return GOBLIN_CMD_MAX + 1 + rnd(4);
	default:
		do {
			c = rnd(GOBLIN_CMD_MAX + 1);
		} while (cmd_kind(c) != C_OP && !one_in(8));
		return c;
	}
}

static uint16_t pick_flags(uint8_t cmd)
{
	const struct cmd_desc *d = cmd <= GOBLIN_CMD_MAX ? &cmds[cmd] : NULL;
	uint16_t f = NLM_F_REQUEST | NLM_F_ACK;

	if (d && d->has_dump && (!d->has_do || one_in(2)) && !one_in(16))
		f |= NLM_F_DUMP;
	else if (one_in(16))
		f |= NLM_F_DUMP;
	if (one_in(24))
		f &= ~NLM_F_ACK;
	if (one_in(24))
		f |= 1 << rnd(16);
	if (one_in(64))
		f = (uint16_t)rnd64();
	return f;
}

/*
 * Requests the kernel should accept, to get past the policies into the
 * handlers and transports: listeners on local addresses (RDMA ones bind on
 * the guest's rxe0 address), store geometries, NUMA settings. Return false
 * for a command without such a generator.
 */
static bool put_valid(struct msg *m, uint8_t cmd)
{
	static const uint8_t addrs[][4] = {
		{ 127, 0, 0, 1 }, { 10, 77, 0, 1 }, { 0, 0, 0, 0 },
	};
	static const uint32_t blocks[] = { 64 * K, 256 * K, 2 * M, 4 * M };
	static const uint32_t heads[] = { 4 * K, 64 * K, 256 * K };
	static const uint64_t mems[] = { 8 * M, 32 * M, 128 * M, 512 * M };
	static const uint16_t ports[] = { 20000, 20001, 20002, 20003 };
	uint8_t kind = one_in(2) ? GOBLIN_LISTENER_MEMCACHE : GOBLIN_LISTENER_RDMA;
	uint32_t block = blocks[IDX(blocks)], head = heads[IDX(heads)];

	switch (cmd) {
	case GOBLIN_CMD_LISTENER_ADD:
	case GOBLIN_CMD_LISTENER_DEL:
		put_u8(m, GOBLIN_A_LISTENER_KIND, kind);
		put_attr(m, GOBLIN_A_ADDR4, addrs[IDX(addrs)], 4);
		put_u16(m, GOBLIN_A_PORT, ports[IDX(ports)]);
		if (cmd == GOBLIN_CMD_LISTENER_DEL)
			return true;
		if (one_in(2))
			put_u32(m, GOBLIN_A_MAX_CONNS, 1 + rnd(64));
		if (one_in(2))
			put_u32(m, GOBLIN_A_IDLE_TIMEOUT, rnd(3600));
		if (kind == GOBLIN_LISTENER_RDMA && one_in(2)) {
			put_u32(m, GOBLIN_A_WINDOW, 4096 << rnd(13));
			put_u32(m, GOBLIN_A_WINDOWS, 1 + rnd(64));
			put_u32(m, GOBLIN_A_CREDITS, 4 + rnd(125));
		}
		if (kind == GOBLIN_LISTENER_RDMA && one_in(3))
			put_u32(m, GOBLIN_A_MAX_PEER_CONNS, 1 + rnd(64));
		if (kind == GOBLIN_LISTENER_MEMCACHE && one_in(3))
			put_u32(m, GOBLIN_A_WRITE_TIMEOUT, 1 + rnd(3600));
		return true;
	case GOBLIN_CMD_STORE_SET:
		if (one_in(2))
			put_u64(m, GOBLIN_A_MEMORY, mems[IDX(mems)]);
		if (one_in(3)) {
			put_u32(m, GOBLIN_A_BLOCK, block);
			put_u32(m, GOBLIN_A_RAM_HEAD, head < block ? head : block);
		}
		if (one_in(3))
			put_str(m, GOBLIN_A_SSD_DIR,
				one_in(2) ? "" : "/tmp/nlfuzz-ssd");
		if (one_in(3))
			put_u64(m, GOBLIN_A_SSD_MAX, one_in(2) ? 0 : 64 * M);
		if (one_in(3))
			put_u32(m, GOBLIN_A_PROMOTION, rnd(1001));
		if (one_in(3))
			put_u8(m, GOBLIN_A_MLOCK, rnd(2));
		if (one_in(3))
			put_u32(m, GOBLIN_A_CORES, rnd(3));
		if (one_in(3))
			put_u32(m, GOBLIN_A_RDMA_MAX_CONNS, 1 + rnd(2048));
		if (one_in(3))
			put_u32(m, GOBLIN_A_ITEM_MAX, 1024 << rnd(15));
		if (one_in(3))
			put_u8(m, GOBLIN_A_CRC, rnd(2));
		if (one_in(3))
			put_str(m, GOBLIN_A_CPUS, one_in(2) ? "all" :
				one_in(2) ? "0" : "0-1");
		if (one_in(3))
			put_u32(m, GOBLIN_A_PROMOTION_RATE, 4096 + rnd(1 << 26));
		return true;
	case GOBLIN_CMD_NUMA_SET:
		put_u8(m, GOBLIN_A_NUMA_POLICY, rnd(GOBLIN_NUMA_DEVICE + 1));
		put_u32(m, GOBLIN_A_NUMA_NODE, 0);
		return true;
	case GOBLIN_CMD_OBJ_GET:
		put_value(m, GOBLIN_A_KEY);
		return true;
	}
	return false;
}

/* A fresh message for @family. */
static void gen_fresh(struct msg *m, uint16_t family)
{
	uint8_t cmd = pick_cmd();
	const struct cmd_desc *d = cmd <= GOBLIN_CMD_MAX ? &cmds[cmd] : NULL;
	unsigned int i, n, na = d ? nattrs(d->attrs) : 0;
	uint16_t type;

	if (one_in(3)) {
		cmd = pick_cmd();
		msg_start(m, family, NLM_F_REQUEST | NLM_F_ACK, cmd,
			  GOBLIN_GENL_VERSION, 0);
		if (put_valid(m, cmd)) {
			msg_set_len(m);
			return;
		}
	}
	msg_start(m, family, pick_flags(cmd), cmd,
		  one_in(16) ? (uint8_t)rnd64() : GOBLIN_GENL_VERSION,
		  one_in(32) ? (uint16_t)rnd64() : 0);
	/* Most of the time give what the command needs, to get past it. */
	if (d && d->need && !one_in(4)) {
		for (i = 0; d->need[i]; i++) {
			type = d->need[i];
			if (type == GOBLIN_A_ADDR4 && one_in(3))
				type = GOBLIN_A_ADDR6;
			put_value(m, type);
		}
	}
	/* commands without attributes mostly get none: strict policies */
	n = na ? rnd(na + 2) : (one_in(3) ? 1 + rnd(3) : 0);
	for (i = 0; i < n; i++) {
		if (na && !one_in(8))
			type = d->attrs[rnd(na)];
		else if (!one_in(4))
			type = rnd(GOBLIN_A_MAX + 3);
		else
			type = (uint16_t)rnd64();
		if (one_in(32))
			type |= NLA_F_NESTED;
		if (one_in(32))
			type |= NLA_F_NET_BYTEORDER;
		put_value(m, type);
	}
	msg_set_len(m);
}

/* Positions of the attributes of @m (after the genetlink header). */
static size_t attr_offsets(const struct msg *m, size_t *off, size_t max)
{
	size_t p = NLMSG_HDRLEN + GENL_HDRLEN, n = 0;
	const struct nlattr *a;

	while (n < max && p + NLA_HDRLEN <= m->len) {
		a = (const struct nlattr *)(m->b + p);
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > m->len)
			break;
		off[n++] = p;
		p += NLA_ALIGN(a->nla_len);
	}
	return n;
}

/* Byte-level mutations of an earlier message. */
static void mutate(struct msg *m)
{
	static const uint16_t lens[] = { 0, 1, 3, 4, 5, 7, 8, 9, 0xffff };
	static const uint8_t bytes[] = { 0, 1, 0x7f, 0x80, 0xff, '/', ':' };
	static const uint32_t hlens[] = { 0, 15, 16, 19, 20, 21 };
	unsigned int ops = 1 + rnd(4);
	size_t off[64], n, p, len, k;
	struct nlattr *a;
	uint8_t junk[64];

	while (ops--) {
		switch (rnd(10)) {
		case 0:		/* bit flip */
			if (m->len)
				m->b[rnd(m->len)] ^= 1 << rnd(8);
			break;
		case 1:		/* interesting byte */
			if (m->len)
				m->b[rnd(m->len)] = bytes[IDX(bytes)];
			break;
		case 2:		/* interesting word in the attributes */
			if (m->len >= 24) {
				uint32_t v = V_SMALL(0, 1, 4096, 0xffff,
						     0x7fffffff, UINT32_MAX);

				p = 20 + rnd(m->len - 23);
				memcpy(m->b + p, &v, 4);
			}
			break;
		case 3:		/* truncate */
			if (m->len)
				m->len = rnd(m->len);
			break;
		case 4:		/* append junk */
			len = 1 + rnd(sizeof(junk));
			for (p = 0; p < len; p++)
				junk[p] = (uint8_t)rnd64();
			put(m, junk, len);
			break;
		case 5:		/* insert junk */
			len = 1 + rnd(8);
			if (m->len + len <= sizeof(m->b) && m->len) {
				p = rnd(m->len);
				memmove(m->b + p + len, m->b + p, m->len - p);
				for (k = 0; k < len; k++)
					m->b[p + k] = (uint8_t)rnd64();
				m->len += len;
			}
			break;
		case 6:		/* cut out a range */
			if (m->len > 20) {
				p = 20 + rnd(m->len - 20);
				len = 1 + rnd(m->len - p);
				memmove(m->b + p, m->b + p + len,
					m->len - p - len);
				m->len -= len;
			}
			break;
		case 7:		/* a bad nla_len */
			n = attr_offsets(m, off, ARRAY_SIZE(off));
			if (n) {
				a = (struct nlattr *)(m->b + off[rnd(n)]);
				a->nla_len = one_in(2) ? lens[IDX(lens)] :
					a->nla_len + rnd(9) - 4;
			}
			break;
		case 8:		/* repeat an attribute */
			n = attr_offsets(m, off, ARRAY_SIZE(off));
			if (n) {
				p = off[rnd(n)];
				a = (struct nlattr *)(m->b + p);
				len = NLA_ALIGN(a->nla_len);
				if (p + len <= m->len && m->len + len <= sizeof(m->b))
					put(m, m->b + p, len);
			}
			break;
		default:	/* another attribute type */
			n = attr_offsets(m, off, ARRAY_SIZE(off));
			if (n) {
				a = (struct nlattr *)(m->b + off[rnd(n)]);
				a->nla_type = one_in(2) ? rnd(GOBLIN_A_MAX + 3) :
					(uint16_t)(a->nla_type ^ (1U << rnd(16)));
			}
			break;
		}
	}
	if (m->len >= NLMSG_HDRLEN && !one_in(8))
		msg_set_len(m);
	else if (m->len >= 4)
		((struct nlmsghdr *)m->b)->nlmsg_len = hlens[IDX(hlens)] +
						       (one_in(2) ? m->len : 0);
}

/* ---------------------------------------------------------------------- */
/* The generated sequence                                                  */

struct pool {
	struct msg m[POOL_SIZE];
	unsigned int n, next;
};

struct round {
	struct msg sub[BATCH_MAX];	/* as sent, back to back */
	unsigned int nsub;
	uint8_t wire[BATCH_MAX * MSG_MAX];
	size_t wlen;
};

/*
 * Never send bytes after a message's aligned nlmsg_len: the kernel would
 * read them as another message, whose type could be any family.
 */
static void seal(struct msg *m, uint16_t family, uint32_t seq)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	if (m->len >= 6)
		h->nlmsg_type = family;
	if (m->len >= 12)
		h->nlmsg_seq = seq;
	if (m->len >= NLMSG_HDRLEN && h->nlmsg_len >= NLMSG_HDRLEN &&
	    NLMSG_ALIGN(h->nlmsg_len) < m->len)
		m->len = NLMSG_ALIGN(h->nlmsg_len);
}

/* The kernel reads on after @m exactly when its length is as sent. */
static bool exact(const struct msg *m)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)m->b;

	return m->len >= NLMSG_HDRLEN && h->nlmsg_len >= NLMSG_HDRLEN &&
	       NLMSG_ALIGN(h->nlmsg_len) == NLMSG_ALIGN(m->len);
}

static void gen_round(struct round *r, struct pool *pool, uint16_t family,
		      uint32_t base)
{
	unsigned int i;
	struct msg *m;

	r->nsub = one_in(16) ? 2 + rnd(BATCH_MAX - 1) : 1;
	r->wlen = 0;
	memset(r->wire, 0, sizeof(r->wire));
	for (i = 0; i < r->nsub; i++) {
		m = &r->sub[i];
		if (pool->n && one_in(3)) {
			*m = pool->m[rnd(pool->n)];
			mutate(m);
		} else {
			/*
			 * Mutations move header bytes into the attributes, so
			 * generate with a fixed type: the sequence then depends
			 * on the seed alone, not on the family id of this boot.
			 */
			gen_fresh(m, GEN_FAMILY);
		}
		pool->m[pool->next] = *m;
		pool->next = (pool->next + 1) % POOL_SIZE;
		if (pool->n < POOL_SIZE)
			pool->n++;
		seal(m, family, base + i);
		/*
		 * Inside a batch the padding is sent too (as zeros) and the
		 * kernel may read it as part of this message (an nlmsg_len
		 * up to the aligned size): make the copy say the same.
		 */
		memset(m->b + m->len, 0, NLMSG_ALIGN(m->len) - m->len);
		/*
		 * After a message whose length is not what was sent, the
		 * kernel stops or reads from the middle of the next one:
		 * such a message can only come last.
		 */
		if (!exact(m))
			r->nsub = i + 1;
		memcpy(r->wire + r->wlen, m->b, m->len);
		r->wlen += NLMSG_ALIGN(m->len);
	}
	/* the padding after the last message is not sent */
	r->wlen -= NLMSG_ALIGN(m->len) - m->len;
}

/* ---------------------------------------------------------------------- */
/* Sockets                                                                 */

static uint16_t family_id;
static uint32_t mcgrp_events;
static uint8_t *rx;
static bool verbose;

static __printf(1, 2) __noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("nlfuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int nl_open(bool cap_ack)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, big = RXBUF;

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    (cap_ack && setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
				   sizeof(one))))
		die("setsockopt: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind: %s", strerror(errno));
	return fd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Next buffer from @fd (0 on timeout, -errno on error). */
static ssize_t rx_wait(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (timeout_ms >= 0) {
		n = poll(&p, 1, timeout_ms);
		if (n <= 0)
			return n < 0 ? -errno : 0;
	}
	n = recv(fd, rx, RXBUF, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n > RXBUF)
		die("reply of %zd bytes does not fit the buffer", n);
	return n;
}

static const struct nlattr *attr_find(const void *p, size_t len, int type)
{
	const uint8_t *b = p;
	const struct nlattr *a;
	size_t off = 0;

	while (off + NLA_HDRLEN <= len) {
		a = (const struct nlattr *)(b + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

#define NLA_DATA(a)	((const void *)((const uint8_t *)(a) + NLA_HDRLEN))
#define NLA_LEN(a)	((size_t)(a)->nla_len - NLA_HDRLEN)

/*
 * A simple request on a fresh or given socket: send @m, collect the reply
 * payloads (genetlink header included) into @cb until the ack or DONE.
 * Return the error of the ack (0, -errno), or 1 if none came.
 */
static int request(int fd, struct msg *m,
		   void (*cb)(const uint8_t *p, size_t len, void *arg),
		   void *arg)
{
	static uint32_t seq = 0x40000000;
	const struct nlmsghdr *h;
	long long end = now_ms() + REPLY_TIMEOUT_MS;
	ssize_t n;
	size_t off;

	((struct nlmsghdr *)m->b)->nlmsg_seq = ++seq;
	msg_set_len(m);
	if (send(fd, m->b, m->len, 0) != (ssize_t)m->len)
		return -errno;
	while (now_ms() < end) {
		n = rx_wait(fd, (int)(end - now_ms()));
		if (n < 0)
			return (int)n;
		for (off = 0; off + NLMSG_HDRLEN <= (size_t)n;
		     off += NLMSG_ALIGN(h->nlmsg_len)) {
			h = (const struct nlmsghdr *)(rx + off);
			if (h->nlmsg_len < NLMSG_HDRLEN ||
			    off + h->nlmsg_len > (size_t)n)
				break;
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_type == NLMSG_DONE)
				return *(const int *)NLMSG_DATA(h);
			if (cb)
				cb(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN,
				   arg);
		}
	}
	return 1;
}

static void family_cb(const uint8_t *p, size_t len, void *arg)
{
	const struct nlattr *a, *grps, *g, *name, *id;
	size_t off;

	(void)arg;
	p += GENL_HDRLEN;
	len -= GENL_HDRLEN;
	a = attr_find(p, len, CTRL_ATTR_FAMILY_ID);
	if (a && NLA_LEN(a) >= 2)
		family_id = *(const uint16_t *)NLA_DATA(a);
	grps = attr_find(p, len, CTRL_ATTR_MCAST_GROUPS);
	if (!grps)
		return;
	for (off = 0; off + NLA_HDRLEN <= NLA_LEN(grps);
	     off += NLA_ALIGN(g->nla_len)) {
		g = (const struct nlattr *)((const uint8_t *)NLA_DATA(grps) + off);
		if (g->nla_len < NLA_HDRLEN)
			break;
		name = attr_find(NLA_DATA(g), NLA_LEN(g), CTRL_ATTR_MCAST_GRP_NAME);
		id = attr_find(NLA_DATA(g), NLA_LEN(g), CTRL_ATTR_MCAST_GRP_ID);
		if (name && id && NLA_LEN(id) >= 4 &&
		    !strncmp(NLA_DATA(name), GOBLIN_MCGRP_EVENTS, NLA_LEN(name)))
			mcgrp_events = *(const uint32_t *)NLA_DATA(id);
	}
}

static void resolve_family(int fd)
{
	struct msg m;
	int err;

	msg_start(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
		  CTRL_CMD_GETFAMILY, 1, 0);
	put_str(&m, CTRL_ATTR_FAMILY_NAME, GOBLIN_GENL_NAME);
	err = request(fd, &m, family_cb, NULL);
	if (err || !family_id)
		die("family %s not found (%d): is goblin.ko loaded?",
		    GOBLIN_GENL_NAME, err);
}

/* A request of the goblin family with no attributes. */
static int simple(int fd, uint8_t cmd, uint16_t flags,
		  void (*cb)(const uint8_t *p, size_t len, void *arg),
		  void *arg)
{
	struct msg m;

	msg_start(&m, family_id, NLM_F_REQUEST | NLM_F_ACK | flags, cmd,
		  GOBLIN_GENL_VERSION, 0);
	return request(fd, &m, cb, arg);
}

/* ---------------------------------------------------------------------- */
/* Snapshots: configuration, NUMA policy, listeners                        */

#define SNAP_LISTENERS	256

struct snap_listener {
	uint32_t id;
	uint8_t kind;
	uint8_t addr[16];
	bool v6;
	uint16_t port;
	uint32_t window, windows, credits, max_conns, idle_timeout;
};

struct snap {
	uint64_t memory, ssd_max;
	uint32_t block, ram_head, promotion, cores;
	uint32_t rdma_max_conns, item_max, promotion_rate;
	uint8_t mlock, crc;
	char ssd_dir[GOBLIN_PATH_MAX];
	char cpus[GOBLIN_CPUS_MAX];
	uint8_t numa_policy;
	uint32_t numa_node;
	unsigned int nl;
	bool overflow, store_ok, numa_ok;
	struct snap_listener l[SNAP_LISTENERS];
};

static uint64_t get_uint(const uint8_t *p, size_t len, int type)
{
	const struct nlattr *a = attr_find(p, len, type);
	uint64_t v = 0;

	if (!a)
		return 0;
	switch (NLA_LEN(a)) {
	case 1:
		return *(const uint8_t *)NLA_DATA(a);
	case 2:
		return *(const uint16_t *)NLA_DATA(a);
	case 4:
		return *(const uint32_t *)NLA_DATA(a);
	case 8:
		memcpy(&v, NLA_DATA(a), 8);
		return v;
	}
	return 0;
}

static void store_cb(const uint8_t *p, size_t len, void *arg)
{
	struct snap *s = arg;
	const struct nlattr *d;

	p += GENL_HDRLEN;
	len -= GENL_HDRLEN;
	s->memory = get_uint(p, len, GOBLIN_A_MEMORY);
	s->block = get_uint(p, len, GOBLIN_A_BLOCK);
	s->ram_head = get_uint(p, len, GOBLIN_A_RAM_HEAD);
	s->ssd_max = get_uint(p, len, GOBLIN_A_SSD_MAX);
	s->promotion = get_uint(p, len, GOBLIN_A_PROMOTION);
	s->mlock = get_uint(p, len, GOBLIN_A_MLOCK);
	s->cores = get_uint(p, len, GOBLIN_A_CORES);
	s->rdma_max_conns = get_uint(p, len, GOBLIN_A_RDMA_MAX_CONNS);
	s->item_max = get_uint(p, len, GOBLIN_A_ITEM_MAX);
	s->crc = get_uint(p, len, GOBLIN_A_CRC);
	s->promotion_rate = get_uint(p, len, GOBLIN_A_PROMOTION_RATE);
	d = attr_find(p, len, GOBLIN_A_SSD_DIR);
	if (d)
		snprintf(s->ssd_dir, sizeof(s->ssd_dir), "%.*s",
			 (int)strnlen(NLA_DATA(d), NLA_LEN(d)),
			 (const char *)NLA_DATA(d));
	d = attr_find(p, len, GOBLIN_A_CPUS);
	if (d)
		snprintf(s->cpus, sizeof(s->cpus), "%.*s",
			 (int)strnlen(NLA_DATA(d), NLA_LEN(d)),
			 (const char *)NLA_DATA(d));
	s->store_ok = true;
}

static void numa_cb(const uint8_t *p, size_t len, void *arg)
{
	struct snap *s = arg;

	p += GENL_HDRLEN;
	len -= GENL_HDRLEN;
	s->numa_policy = get_uint(p, len, GOBLIN_A_NUMA_POLICY);
	s->numa_node = get_uint(p, len, GOBLIN_A_NUMA_NODE);
	s->numa_ok = true;
}

static void listener_cb(const uint8_t *p, size_t len, void *arg)
{
	struct snap *s = arg;
	struct snap_listener *l;
	const struct nlattr *a;

	if (s->nl == SNAP_LISTENERS) {
		s->overflow = true;
		return;
	}
	l = &s->l[s->nl++];
	memset(l, 0, sizeof(*l));
	p += GENL_HDRLEN;
	len -= GENL_HDRLEN;
	l->id = get_uint(p, len, GOBLIN_A_LISTENER_ID);
	l->kind = get_uint(p, len, GOBLIN_A_LISTENER_KIND);
	l->port = get_uint(p, len, GOBLIN_A_PORT);
	l->window = get_uint(p, len, GOBLIN_A_WINDOW);
	l->windows = get_uint(p, len, GOBLIN_A_WINDOWS);
	l->credits = get_uint(p, len, GOBLIN_A_CREDITS);
	l->max_conns = get_uint(p, len, GOBLIN_A_MAX_CONNS);
	l->idle_timeout = get_uint(p, len, GOBLIN_A_IDLE_TIMEOUT);
	a = attr_find(p, len, GOBLIN_A_ADDR6);
	if (a && NLA_LEN(a) == 16) {
		l->v6 = true;
		memcpy(l->addr, NLA_DATA(a), 16);
	}
	a = attr_find(p, len, GOBLIN_A_ADDR4);
	if (a && NLA_LEN(a) == 4)
		memcpy(l->addr, NLA_DATA(a), 4);
}

static int take_snapshot(int fd, struct snap *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = simple(fd, GOBLIN_CMD_STORE_GET, 0, store_cb, s);
	if (!err)
		err = simple(fd, GOBLIN_CMD_NUMA_GET, 0, numa_cb, s);
	if (!err)
		err = simple(fd, GOBLIN_CMD_LISTENER_GET, NLM_F_DUMP,
			     listener_cb, s);
	if (!err && (!s->store_ok || !s->numa_ok))
		err = -ENODATA;
	return err;
}

static bool same_listener(const struct snap_listener *a,
			  const struct snap_listener *b, bool ids)
{
	return (!ids || a->id == b->id) && a->kind == b->kind &&
	       a->v6 == b->v6 && !memcmp(a->addr, b->addr, 16) &&
	       a->port == b->port && a->window == b->window &&
	       a->windows == b->windows && a->credits == b->credits &&
	       a->max_conns == b->max_conns &&
	       a->idle_timeout == b->idle_timeout;
}

static const struct snap_listener *snap_find(const struct snap *s,
					     const struct snap_listener *l,
					     bool ids)
{
	unsigned int i;

	for (i = 0; i < s->nl; i++) {
		if (same_listener(&s->l[i], l, ids))
			return &s->l[i];
	}
	return NULL;
}

static void print_listener(const char *what, const struct snap_listener *l)
{
	char a[64] = "";
	int i;

	if (l->v6) {
		for (i = 0; i < 16; i += 2)
			snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s%x",
				 i ? ":" : "", l->addr[i] << 8 | l->addr[i + 1]);
	} else {
		snprintf(a, sizeof(a), "%u.%u.%u.%u", l->addr[0], l->addr[1],
			 l->addr[2], l->addr[3]);
	}
	fprintf(stderr, "nlfuzz:   %s listener id %u kind %u %s port %u",
		what, l->id, l->kind, a, l->port);
	fprintf(stderr, " window %u windows %u credits %u max_conns %u idle %u\n",
		l->window, l->windows, l->credits, l->max_conns,
		l->idle_timeout);
}

static bool same_u64(const char *what, uint64_t was, uint64_t now)
{
	if (was == now)
		return true;
	fprintf(stderr, "nlfuzz:   %s was %llu, now %llu\n", what,
		(unsigned long long)was, (unsigned long long)now);
	return false;
}

/* Report the differences; true if there are none. */
static bool snap_compare(const struct snap *a, const struct snap *b, bool ids)
{
	bool same = true;
	unsigned int i;

	same &= same_u64("memory", a->memory, b->memory);
	same &= same_u64("ssd_max", a->ssd_max, b->ssd_max);
	same &= same_u64("block", a->block, b->block);
	same &= same_u64("ram_head", a->ram_head, b->ram_head);
	same &= same_u64("promotion", a->promotion, b->promotion);
	same &= same_u64("cores", a->cores, b->cores);
	same &= same_u64("mlock", a->mlock, b->mlock);
	same &= same_u64("rdma_max_conns", a->rdma_max_conns,
			 b->rdma_max_conns);
	same &= same_u64("item_max", a->item_max, b->item_max);
	same &= same_u64("crc", a->crc, b->crc);
	same &= same_u64("promotion_rate", a->promotion_rate,
			 b->promotion_rate);
	same &= same_u64("numa_policy", a->numa_policy, b->numa_policy);
	same &= same_u64("numa_node", a->numa_node, b->numa_node);
	same &= same_u64("listeners", a->nl, b->nl);
	if (strcmp(a->ssd_dir, b->ssd_dir)) {
		fprintf(stderr, "nlfuzz:   ssd_dir was \"%s\", now \"%s\"\n",
			a->ssd_dir, b->ssd_dir);
		same = false;
	}
	if (strcmp(a->cpus, b->cpus)) {
		fprintf(stderr, "nlfuzz:   cpus was \"%s\", now \"%s\"\n",
			a->cpus, b->cpus);
		same = false;
	}
	for (i = 0; i < a->nl; i++) {
		if (!snap_find(b, &a->l[i], ids)) {
			print_listener("lost", &a->l[i]);
			same = false;
		}
	}
	for (i = 0; i < b->nl; i++) {
		if (!snap_find(a, &b->l[i], ids)) {
			print_listener("new", &b->l[i]);
			same = false;
		}
	}
	return same && !a->overflow && !b->overflow;
}

static void put_listener_addr(struct msg *m, const struct snap_listener *l)
{
	put_u8(m, GOBLIN_A_LISTENER_KIND, l->kind);
	if (l->v6)
		put_attr(m, GOBLIN_A_ADDR6, l->addr, 16);
	else
		put_attr(m, GOBLIN_A_ADDR4, l->addr, 4);
	put_u16(m, GOBLIN_A_PORT, l->port);
}

static int cmd_save(const char *file)
{
	int fd = nl_open(false);
	struct snap *s = calloc(1, sizeof(*s));
	FILE *f;
	int err;

	if (!s)
		die("out of memory");
	resolve_family(fd);
	err = take_snapshot(fd, s);
	if (err)
		die("snapshot failed: %s", strerror(-err));
	f = fopen(file, "w");
	if (!f || fwrite(s, sizeof(*s), 1, f) != 1 || fclose(f))
		die("%s: %s", file, strerror(errno));
	printf("nlfuzz: saved memory %llu block %u ram_head %u ssd_dir \"%s\"",
	       (unsigned long long)s->memory, s->block, s->ram_head, s->ssd_dir);
	printf(", %u listeners\n", s->nl);
	return 0;
}

/* Put the configuration, NUMA policy and listeners of FILE back. */
static int cmd_restore(const char *file)
{
	struct snap *want = calloc(1, sizeof(*want));
	struct snap *cur = calloc(1, sizeof(*cur));
	int fd = nl_open(false), err, tries;
	const struct snap_listener *l;
	unsigned int i;
	struct msg m;
	FILE *f;

	if (!want || !cur)
		die("out of memory");
	f = fopen(file, "r");
	if (!f || fread(want, sizeof(*want), 1, f) != 1)
		die("%s: cannot read the snapshot", file);
	fclose(f);
	resolve_family(fd);

	/* geometry changes need an empty store */
	err = simple(fd, GOBLIN_CMD_FLUSH, 0, NULL, NULL);
	if (err)
		die("flush failed: %d", err);
	for (tries = 0; tries < 100; tries++) {
		msg_start(&m, family_id, NLM_F_REQUEST | NLM_F_ACK,
			  GOBLIN_CMD_STORE_SET, GOBLIN_GENL_VERSION, 0);
		put_u64(&m, GOBLIN_A_MEMORY, want->memory);
		put_u32(&m, GOBLIN_A_BLOCK, want->block);
		put_u32(&m, GOBLIN_A_RAM_HEAD, want->ram_head);
		put_str(&m, GOBLIN_A_SSD_DIR, want->ssd_dir);
		put_u64(&m, GOBLIN_A_SSD_MAX, want->ssd_max);
		put_u32(&m, GOBLIN_A_PROMOTION, want->promotion);
		put_u8(&m, GOBLIN_A_MLOCK, want->mlock);
		put_u32(&m, GOBLIN_A_CORES, want->cores);
		if (want->rdma_max_conns)
			put_u32(&m, GOBLIN_A_RDMA_MAX_CONNS,
				want->rdma_max_conns);
		if (want->item_max)
			put_u32(&m, GOBLIN_A_ITEM_MAX, want->item_max);
		put_u8(&m, GOBLIN_A_CRC, want->crc);
		if (want->cpus[0])
			put_str(&m, GOBLIN_A_CPUS, want->cpus);
		if (want->promotion_rate)
			put_u32(&m, GOBLIN_A_PROMOTION_RATE,
				want->promotion_rate);
		err = request(fd, &m, NULL, NULL);
		if (err != -EBUSY)
			break;
		usleep(100000);		/* in-flight sends, reclaim */
	}
	if (err)
		die("store set failed: %s", strerror(err < 0 ? -err : EIO));
	msg_start(&m, family_id, NLM_F_REQUEST | NLM_F_ACK,
		  GOBLIN_CMD_NUMA_SET, GOBLIN_GENL_VERSION, 0);
	put_u8(&m, GOBLIN_A_NUMA_POLICY, want->numa_policy);
	put_u32(&m, GOBLIN_A_NUMA_NODE, want->numa_node);
	err = request(fd, &m, NULL, NULL);
	if (err)
		die("numa set failed: %d", err);

	err = take_snapshot(fd, cur);
	if (err)
		die("snapshot failed: %d", err);
	for (i = 0; i < cur->nl; i++) {
		if (snap_find(want, &cur->l[i], false))
			continue;
		msg_start(&m, family_id, NLM_F_REQUEST | NLM_F_ACK,
			  GOBLIN_CMD_LISTENER_DEL, GOBLIN_GENL_VERSION, 0);
		put_listener_addr(&m, &cur->l[i]);
		err = request(fd, &m, NULL, NULL);
		if (err) {
			print_listener("cannot delete", &cur->l[i]);
			die("listener del failed: %d", err);
		}
	}
	for (i = 0; i < want->nl; i++) {
		l = &want->l[i];
		if (snap_find(cur, l, false))
			continue;
		msg_start(&m, family_id, NLM_F_REQUEST | NLM_F_ACK,
			  GOBLIN_CMD_LISTENER_ADD, GOBLIN_GENL_VERSION, 0);
		put_listener_addr(&m, l);
		if (l->max_conns)
			put_u32(&m, GOBLIN_A_MAX_CONNS, l->max_conns);
		put_u32(&m, GOBLIN_A_IDLE_TIMEOUT, l->idle_timeout);
		if (l->kind == GOBLIN_LISTENER_RDMA) {
			put_u32(&m, GOBLIN_A_WINDOW, l->window);
			put_u32(&m, GOBLIN_A_WINDOWS, l->windows);
			put_u32(&m, GOBLIN_A_CREDITS, l->credits);
		}
		err = request(fd, &m, NULL, NULL);
		if (err) {
			print_listener("cannot add", l);
			die("listener add failed: %d", err);
		}
	}
	err = take_snapshot(fd, cur);
	if (err)
		die("snapshot failed: %d", err);
	if (!snap_compare(want, cur, false)) {
		fprintf(stderr, "nlfuzz: restore did not bring the state back\n");
		return 1;
	}
	printf("nlfuzz: restored memory %llu block %u ram_head %u ssd_dir \"%s\"",
	       (unsigned long long)cur->memory, cur->block, cur->ram_head,
	       cur->ssd_dir);
	printf(", %u listeners\n", cur->nl);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Checking replies                                                        */

struct stats {
	unsigned long sent, ok, dumps, replies, enobufs, events, probes;
	unsigned long per_cmd[256], per_cmd_ok[256], per_cmd_eperm[256];
	unsigned long err[4096];
	long long slowest_ms;
	unsigned long slowest_i;
	uint8_t slowest_cmd;
};

static struct stats st;
static const char *failure;
static char failure_buf[256];

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	if (failure)
		return;
	va_start(ap, fmt);
	vsnprintf(failure_buf, sizeof(failure_buf), fmt, ap);
	va_end(ap);
	failure = failure_buf;
}

enum attr_ctx { CTX_TOP, CTX_STATS, CTX_OTHER };

/* Attributes in [p, p + len) are well-formed; nests recursively. */
static bool attrs_ok(const uint8_t *p, size_t len, enum attr_ctx ctx,
		     int depth)
{
	const struct nlattr *a;
	size_t off = 0;
	int type;
	bool nest;

	while (off + NLA_HDRLEN <= len) {
		a = (const struct nlattr *)(p + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			return false;
		type = a->nla_type & NLA_TYPE_MASK;
		nest = (a->nla_type & NLA_F_NESTED) ||
		       (ctx == CTX_TOP && attr_is_nest(type)) ||
		       (ctx == CTX_STATS &&
			type == GOBLIN_STATS_A_RDMA_ERROR_KINDS);
		if (nest && depth < 4 &&
		    !attrs_ok(p + off + NLA_HDRLEN, NLA_LEN(a),
			      ctx == CTX_TOP && type == GOBLIN_A_STATS ?
			      CTX_STATS : CTX_OTHER, depth + 1))
			return false;
		off += NLA_ALIGN(a->nla_len);
	}
	/* nothing but the padding of the last attribute may follow */
	return off >= len || len - off < NLA_HDRLEN;
}

/* NLMSG_ERROR / NLMSG_DONE extended ack of a request of @req_len bytes. */
static void check_ext_ack(const struct nlmsghdr *h, size_t req_len,
			  size_t skip)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(h) + skip;
	const struct nlattr *a;
	size_t len;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (h->nlmsg_len < NLMSG_HDRLEN + skip) {
		fail("ack with TLVs too short for its header");
		return;
	}
	len = h->nlmsg_len - NLMSG_HDRLEN - skip;
	if (!attrs_ok(p, len, CTX_OTHER, 0)) {
		fail("malformed extended ack attributes");
		return;
	}
	a = attr_find(p, len, NLMSGERR_ATTR_MSG);
	if (a && (!NLA_LEN(a) ||
		  !memchr(NLA_DATA(a), '\0', NLA_LEN(a))))
		fail("extended ack message not NUL-terminated");
	a = attr_find(p, len, NLMSGERR_ATTR_OFFS);
	if (a) {
		if (NLA_LEN(a) != 4)
			fail("extended ack offset of %zu bytes", NLA_LEN(a));
		else if (*(const uint32_t *)NLA_DATA(a) >= req_len)
			fail("extended ack offset %u outside the %zu-byte request",
			     *(const uint32_t *)NLA_DATA(a), req_len);
	}
}

struct outcome {
	bool got;		/* an NLMSG_ERROR or NLMSG_DONE came */
	int err;		/* its error */
	unsigned int data;	/* data messages */
	bool done;		/* a dump finished */
};

/* One request as the kernel will read it. */
struct expect {
	bool wellformed;	/* genetlink gets to look at it */
	uint8_t cmd;
	bool dump, ack;
	bool strict_bad;	/* fails genl_header_check() */
	uint32_t len;		/* nlmsg_len */
};

static void expect_of(const struct msg *m, size_t avail, struct expect *e)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)m->b;
	const struct genlmsghdr *g = (const void *)(m->b + NLMSG_HDRLEN);
	uint16_t flags;

	memset(e, 0, sizeof(*e));
	if (m->len < NLMSG_HDRLEN + GENL_HDRLEN)
		return;
	flags = h->nlmsg_flags;
	e->len = h->nlmsg_len;
	e->cmd = g->cmd;
	e->dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	e->ack = flags & NLM_F_ACK;
	e->wellformed = h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN &&
			h->nlmsg_len <= avail && (flags & NLM_F_REQUEST);
	/*
	 * Commands from resv_start_op (GOBLIN_CMD_UNSPEC + 1, kmod/netlink.c)
	 * on get the strict header check: reserved 0, no flags but REQUEST,
	 * ACK, ECHO, DUMP. The kernel may make it before or after the
	 * operation and permission lookups, so -EINVAL is one right answer.
	 */
	if (e->dump)
		flags &= ~NLM_F_DUMP;
	e->strict_bad = g->cmd >= GOBLIN_CMD_UNSPEC + 1 &&
			(g->reserved ||
			 (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)));
}

static void check_outcome(const struct expect *e, const struct outcome *o,
			  bool nobody)
{
	enum cmd_kind kind = cmd_kind(e->cmd);
	const struct cmd_desc *d = e->cmd <= GOBLIN_CMD_MAX ? &cmds[e->cmd] : NULL;
	bool unsupported;
	int err = o->err;

	if (!e->wellformed)
		return;
	if (!o->got) {
		/* only a success goes unanswered, and only without ACK */
		if (e->ack) {
			fail("no ack or error for a well-formed %s request",
			     cmd_name(e->cmd));
			return;
		}
		err = 0;
	}
	if (kind == C_NONE) {
		if (err != -EOPNOTSUPP && !(e->strict_bad && err == -EINVAL))
			fail("%s is not an operation, but got error %d",
			     cmd_name(e->cmd), err);
		return;
	}
	if (kind != C_OP)
		return;
	if (e->strict_bad && err == -EINVAL)
		return;
	unsupported = e->dump ? !d->has_dump : !d->has_do;
	if (nobody && d->admin) {
		/* 6.1 checks the permission first, later kernels do/dump */
		if (err != -EPERM && !(unsupported && err == -EOPNOTSUPP))
			fail("admin command %s%s as nobody: error %d, not EPERM",
			     cmd_name(e->cmd), e->dump ? " (dump)" : "", err);
		else if (o->data)
			fail("admin command %s as nobody returned data",
			     cmd_name(e->cmd));
		return;
	}
	if (nobody && err == -EPERM)
		fail("%s is not an admin command but got EPERM as nobody",
		     cmd_name(e->cmd));
	else if (unsupported && err != -EOPNOTSUPP)
		fail("%s has no %s operation but got error %d",
		     cmd_name(e->cmd), e->dump ? "dump" : "do", err);
}

/* Messages in one received buffer; @base is the round's first seq. */
static void parse_rx(const uint8_t *b, size_t n, uint32_t base,
		     const struct round *r, struct outcome *o, bool *sentinel)
{
	const struct nlmsghdr *h, *req;
	const struct nlmsgerr *e;
	size_t off, sub, skip;

	for (off = 0; off < n; off += NLMSG_ALIGN(h->nlmsg_len)) {
		h = (const struct nlmsghdr *)(b + off);
		if (n - off < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN ||
		    h->nlmsg_len > n - off) {
			fail("malformed netlink message in a reply buffer");
			return;
		}
		if (h->nlmsg_seq == base + SEQ_SENTINEL) {
			if (h->nlmsg_type != NLMSG_ERROR ||
			    h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e) ||
			    ((const struct nlmsgerr *)NLMSG_DATA(h))->error)
				fail("bad answer to the NOOP sentinel");
			*sentinel = true;
			continue;
		}
		sub = h->nlmsg_seq - base;
		if (h->nlmsg_seq < base || sub >= r->nsub) {
			fail("reply with a foreign sequence number %u",
			     h->nlmsg_seq);
			return;
		}
		st.replies++;
		switch (h->nlmsg_type) {
		case NLMSG_ERROR:
			if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
				fail("short NLMSG_ERROR");
				return;
			}
			e = NLMSG_DATA(h);
			req = (const struct nlmsghdr *)r->sub[sub].b;
			if (e->error > 0 || e->error < -4095)
				fail("error %d out of range", e->error);
			skip = sizeof(*e);
			if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
				/* the whole request is echoed back */
				skip += NLMSG_ALIGN(req->nlmsg_len) - NLMSG_HDRLEN;
				if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(int) +
				    req->nlmsg_len)
					fail("error message shorter than the echoed request");
				else if (memcmp(&e->msg, req, req->nlmsg_len))
					fail("echoed request differs from the request");
			} else if (memcmp(&e->msg, req, NLMSG_HDRLEN)) {
				fail("echoed request header differs");
			}
			check_ext_ack(h, req->nlmsg_len, skip);
			o[sub].got = true;
			o[sub].err = e->error;
			break;
		case NLMSG_DONE:
			if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(int)) {
				fail("short NLMSG_DONE");
				return;
			}
			req = (const struct nlmsghdr *)r->sub[sub].b;
			check_ext_ack(h, req->nlmsg_len, sizeof(int));
			o[sub].got = true;
			o[sub].done = true;
			o[sub].err = *(const int *)NLMSG_DATA(h);
			st.dumps++;
			break;
		default:
			if (h->nlmsg_type != family_id) {
				fail("reply of type %u", h->nlmsg_type);
				return;
			}
			if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
			    !attrs_ok((const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN,
				      h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
				      CTX_TOP, 0))
				fail("malformed reply attributes");
			o[sub].data++;
			break;
		}
	}
}

/* Drain the events socket and check what came. */
static void drain_events(int fd)
{
	const struct nlmsghdr *h;
	const struct genlmsghdr *g;
	ssize_t n;
	size_t off;

	if (fd < 0)
		return;
	while ((n = rx_wait(fd, -1)) != 0) {
		if (n == -ENOBUFS) {
			st.enobufs++;
			continue;
		}
		if (n < 0)
			break;
		for (off = 0; off + NLMSG_HDRLEN <= (size_t)n;
		     off += NLMSG_ALIGN(h->nlmsg_len)) {
			h = (const struct nlmsghdr *)(rx + off);
			g = NLMSG_DATA(h);
			if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
			    off + h->nlmsg_len > (size_t)n ||
			    h->nlmsg_type != family_id ||
			    g->cmd < GOBLIN_CMD_EVT_LISTENER_UP ||
			    !attrs_ok((const uint8_t *)g + GENL_HDRLEN,
				      h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
				      CTX_TOP, 0)) {
				fail("malformed event message");
				return;
			}
			st.events++;
		}
	}
}

static void hexdump(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\nnlfuzz:   ", p[i]);
	fputc('\n', stderr);
}

static void print_round(unsigned long i, const struct round *r)
{
	unsigned int s;

	for (s = 0; s < r->nsub; s++) {
		fprintf(stderr, "nlfuzz: message #%lu.%u (%zu bytes, %s):", i,
			s, r->sub[s].len,
			r->sub[s].len > NLMSG_HDRLEN ?
			cmd_name(r->sub[s].b[NLMSG_HDRLEN]) : "no genl header");
		hexdump(r->sub[s].b, r->sub[s].len);
	}
}

/* Send one round and its sentinel, collect and check the answers. */
static void run_round(int fd, unsigned long i, const struct round *r,
		      uint32_t base, bool nobody)
{
	struct outcome o[BATCH_MAX] = { 0 };
	struct msg sentinel;
	struct expect e;
	long long t0 = now_ms(), end = t0 + REPLY_TIMEOUT_MS;
	bool got_sentinel = false;
	unsigned int s;
	ssize_t n;
	int err;

	msg_start(&sentinel, NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, 0, 0, 0);
	sentinel.len = NLMSG_HDRLEN;
	msg_set_len(&sentinel);
	((struct nlmsghdr *)sentinel.b)->nlmsg_seq = base + SEQ_SENTINEL;

	if (send(fd, r->wire, r->wlen, 0) < 0) {
		err = errno;
		/* netlink refuses empty messages; nothing else is expected */
		if (err != ENODATA || r->wlen)
			fail("send: %s", strerror(err));
		return;
	}
	if (send(fd, sentinel.b, sentinel.len, 0) < 0) {
		fail("send sentinel: %s", strerror(errno));
		return;
	}
	while (!got_sentinel && !failure) {
		n = rx_wait(fd, (int)(end - now_ms()));
		if (n == -ENOBUFS) {
			st.enobufs++;
			continue;
		}
		if (n <= 0) {
			fail("no answer within %d s", REPLY_TIMEOUT_MS / 1000);
			return;
		}
		parse_rx(rx, n, base, r, o, &got_sentinel);
	}
	/* the rest of a dump comes as we read */
	while (!failure && (n = rx_wait(fd, -1)) != 0) {
		if (n == -ENOBUFS) {
			st.enobufs++;
			continue;
		}
		if (n < 0) {
			fail("recv: %s", strerror((int)-n));
			return;
		}
		parse_rx(rx, n, base, r, o, &got_sentinel);
	}
	if (now_ms() - t0 > st.slowest_ms) {
		st.slowest_ms = now_ms() - t0;
		st.slowest_i = i;
		st.slowest_cmd = r->sub[0].len > NLMSG_HDRLEN ?
				 r->sub[0].b[NLMSG_HDRLEN] : 0;
	}
	for (s = 0; s < r->nsub && !failure; s++) {
		/* all but the last are followed by their padding */
		expect_of(&r->sub[s], s + 1 < r->nsub ?
			  NLMSG_ALIGN(r->sub[s].len) : r->sub[s].len, &e);
		check_outcome(&e, &o[s], nobody);
		if (e.wellformed) {
			st.per_cmd[e.cmd]++;
			if (o[s].got && !o[s].err)
				st.per_cmd_ok[e.cmd]++;
			if (o[s].got && o[s].err == -EPERM)
				st.per_cmd_eperm[e.cmd]++;
		}
		if (o[s].got && !o[s].err)
			st.ok++;
		if (o[s].got && o[s].err < 0 && o[s].err >= -4095)
			st.err[-o[s].err]++;
	}
}

/* VERSION_GET and STATS_GET on a clean socket must still work. */
static void liveness(int fd)
{
	int err;

	st.probes++;
	err = simple(fd, GOBLIN_CMD_VERSION_GET, 0, NULL, NULL);
	if (err)
		fail("VERSION_GET failed (%d)", err);
	err = simple(fd, GOBLIN_CMD_STATS_GET, 0, NULL, NULL);
	if (err)
		fail("STATS_GET failed (%d)", err);
}

static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		die("cannot become nobody: %s", strerror(errno));
	if (setuid(0) == 0)
		die("still able to become root");
}

/* Joining the events group must fail for nobody, work for root. */
static int join_events(int fd)
{
	if (!mcgrp_events)
		return -ENOENT;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &mcgrp_events,
		       sizeof(mcgrp_events)))
		return -errno;
	return 0;
}

static __noreturn void print_usage(void)
{
	fprintf(stderr,
		"usage: nlfuzz fuzz [-u] [-s SEED] [-n COUNT] [-t SECONDS] [-v] [-o INDEX] [-d]\n"
		"       nlfuzz save FILE | restore FILE\n");
	exit(2);
}

static int cmd_fuzz(int argc, char **argv)
{
	unsigned long count = 20000, i, only = ULONG_MAX, fail_i = ULONG_MAX;
	unsigned long long seed = time(NULL) ^ ((unsigned long long)getpid() << 32);
	struct snap *before = NULL, *after = NULL;
	int fds[2], probe_fd, ev_fd = -1, opt, err, which;
	bool nobody = false, dry = false;
	static struct pool pool_mem;
	static struct round round_mem;
	struct pool *pool = &pool_mem;
	struct round *r = &round_mem;
	double secs = 60;
	long long t0, end;
	uint32_t base;

	while ((opt = getopt(argc, argv, "us:n:t:vo:d")) != -1) {
		switch (opt) {
		case 'u':
			nobody = true;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		case 'v':
			verbose = true;
			break;
		case 'o':
			only = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dry = true;
			break;
		default:
			print_usage();
		}
	}
	rng_state = seed;
	printf("nlfuzz: seed 0x%016llx (%s), up to %lu messages / %.0f s\n",
	       seed, nobody ? "as nobody" : "as root", count, secs);
	fflush(stdout);

	if (dry) {	/* print the messages, send nothing */
		family_id = GENL_MIN_ID + 1;
		for (i = 0; i < count; i++) {
			gen_round(r, pool, family_id, (uint32_t)(i * 16) + 1);
			rnd64();
			if (verbose && (only == ULONG_MAX || i == only))
				print_round(i, r);
		}
		return 0;
	}
	fds[0] = nl_open(false);
	resolve_family(fds[0]);
	if (nobody) {
		before = calloc(1, sizeof(*before));
		after = calloc(1, sizeof(*after));
		if (!before || !after)
			die("out of memory");
		err = take_snapshot(fds[0], before);
		if (err)
			die("snapshot failed: %d", err);
		/* fds[0] stays a socket root opened */
		drop_privileges();
		ev_fd = nl_open(false);
		err = join_events(ev_fd);
		if (err != -EPERM)
			fail("nobody joining the events group: %d, not EPERM",
			     err);
		close(ev_fd);
		ev_fd = -1;
	} else {
		ev_fd = nl_open(false);
		err = join_events(ev_fd);
		if (err)
			fail("root cannot join the events group: %d", err);
		fcntl(ev_fd, F_SETFL, O_NONBLOCK);
	}
	fds[1] = nl_open(true);
	probe_fd = nl_open(false);

	t0 = now_ms();
	end = t0 + (long long)(secs * 1000);
	for (i = 0; i < count && !failure; i++) {
		if (only == ULONG_MAX && now_ms() >= end)
			break;
		base = (uint32_t)(i * 16) + 1;
		gen_round(r, pool, family_id, base);
		which = rnd64() & 1;
		if (only != ULONG_MAX && i != only)
			continue;
		if (verbose)
			print_round(i, r);
		st.sent++;
		run_round(fds[which], i, r, base, nobody);
		drain_events(ev_fd);
		if (failure) {
			fprintf(stderr, "nlfuzz: FAIL at message #%lu (seed 0x%016llx): %s\n",
				i, seed, failure);
			print_round(i, r);
			fail_i = i;
			break;
		}
		if (i % PROBE_EVERY == PROBE_EVERY - 1 || only != ULONG_MAX) {
			liveness(probe_fd);
			if (failure)
				fprintf(stderr, "nlfuzz: FAIL after message #%lu: %s\n",
					i, failure);
		}
	}
	if (!failure)
		liveness(probe_fd);
	if (!failure && nobody) {
		err = take_snapshot(probe_fd, after);
		if (err)
			fail("snapshot after failed: %d", err);
		else if (!snap_compare(before, after, true))
			fail("nobody changed the configuration or listeners");
		if (failure)
			fprintf(stderr, "nlfuzz: FAIL (seed 0x%016llx): %s\n",
				seed, failure);
	}

	printf("nlfuzz: %lu messages in %.1f s, %lu acked ok, %lu replies, %lu dumps done,",
	       st.sent, (now_ms() - t0) / 1000.0, st.ok, st.replies, st.dumps);
	printf(" %lu events, %lu liveness probes, %lu ENOBUFS\n", st.events,
	       st.probes, st.enobufs);
	printf("nlfuzz: slowest: message #%lu (%s), %lld ms\n", st.slowest_i,
	       cmd_name(st.slowest_cmd), st.slowest_ms);
	for (i = 0; i < 256; i++) {
		if (st.per_cmd[i] && cmd_kind(i) == C_OP)
			printf("nlfuzz:   %-14s %6lu sent %6lu ok %6lu EPERM\n",
			       cmd_name(i), st.per_cmd[i], st.per_cmd_ok[i],
			       st.per_cmd_eperm[i]);
	}
	printf("nlfuzz:   errors:");
	for (i = 1; i < ARRAY_SIZE(st.err); i++) {
		if (st.err[i])
			printf(" %s %lu", strerrorname_np(i) ?: "?", st.err[i]);
	}
	printf("\n");
	if (failure && fail_i != ULONG_MAX)
		printf("nlfuzz: FAILED: %s (reproduce: nlfuzz fuzz%s -s 0x%016llx -o %lu -v)\n",
		       failure, nobody ? " -u" : "", seed, fail_i);
	else if (failure)
		printf("nlfuzz: FAILED: %s\n", failure);
	return failure ? 1 : 0;
}

int main(int argc, char **argv)
{
	rx = malloc(RXBUF);
	if (!rx)
		die("out of memory");
	if (argc < 2)
		print_usage();
	if (!strcmp(argv[1], "fuzz"))
		return cmd_fuzz(argc - 1, argv + 1);
	if (!strcmp(argv[1], "save") && argc == 3)
		return cmd_save(argv[2]);
	if (!strcmp(argv[1], "restore") && argc == 3)
		return cmd_restore(argv[2]);
	print_usage();
}
