/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Goblin Store generic netlink interface.
 *
 * Family "goblin" (GOBLIN_GENL_NAME), version GOBLIN_GENL_VERSION, initial
 * network namespace only. The machine-readable description of everything in
 * this file is Documentation/netlink/specs/goblin.yaml; scripts/nl-spec-check
 * verifies that this header and the kernel policies match it.
 *
 * Attributes are plain netlink attributes (no C structs). 64-bit values are
 * 8-byte aligned with GOBLIN_A_PAD / GOBLIN_STATS_A_PAD /
 * GOBLIN_NODE_A_PAD. Integers are host byte order, including ports.
 * Addresses are GOBLIN_A_ADDR4 (exactly 4 bytes, network order) or
 * GOBLIN_A_ADDR6 (exactly 16 bytes); peer addresses likewise.
 *
 * Units: sizes in bytes, times in seconds, counters are totals since load.
 *
 * Commands (P = needs CAP_NET_ADMIN, GENL_ADMIN_PERM):
 *   VERSION_GET        do     -> VERSION
 *   STORE_GET          do     -> MEMORY BLOCK RAM_HEAD SSD_DIR SSD_MAX
 *                                PROMOTION MLOCK CORES RDMA_MAX_CONNS
 *                                ITEM_MAX CRC CPUS PROMOTION_RATE
 *                                RECLAIM RECLAIM_LOW
 *                                RDMA_LEASE_MS
 *   STORE_SET      P   do     any subset of the STORE_GET attributes; the
 *                             new configuration is validated as a whole and
 *                             applied completely or not at all
 *   STATS_GET          do     -> STATS (nest, GOBLIN_STATS_A_*)
 *   LISTENER_ADD   P   do     LISTENER_KIND, ADDR4|ADDR6, PORT, optional
 *                             WINDOW WINDOWS MAX_CONNS IDLE_TIMEOUT CREDITS
 *                             MAX_PEER_CONNS (WINDOW WINDOWS CREDITS
 *                             MAX_PEER_CONNS: RDMA listeners only)
 *   LISTENER_DEL   P   do     LISTENER_KIND, ADDR4|ADDR6, PORT
 *   LISTENER_GET       dump   optional LISTENER_KIND filter; one message per
 *                             listener: LISTENER_KIND LISTENER_ID ADDR4|6
 *                             PORT WINDOW WINDOWS MAX_CONNS IDLE_TIMEOUT
 *                             CREDITS CONNS CONNS_TOTAL REFUSED
 *                             MAX_PEER_CONNS
 *   CONN_GET       P   dump   optional LISTENER_KIND filter; one message per
 *                             connection: LISTENER_KIND LISTENER_ID CONN_ID
 *                             PEER_ADDR4|6 PEER_PORT RX_BYTES TX_BYTES
 *                             CMDS IDLE CPU CPU_NODE, and for RDMA
 *                             connections also DEVICE HITS MISSES
 *                             BYTES_WRITTEN BYTES_READ WINDOWS_IN_FLIGHT
 *                             RDMA_ERRORS (nest)
 *   OBJ_GET        P   do     KEY -> KEY OBJ_LEN OBJ_FLAGS OBJ_CAS
 *                             OBJ_EXPTIME
 *                      dump   optional PREFIX; one message per object
 *   FLUSH          P   do     invalidate every object
 *   NUMA_GET           do     -> NUMA_POLICY NUMA_NODE, one NODE (nest,
 *                             GOBLIN_NODE_A_*) per online node, including
 *                             the store's head bytes, objects, remote
 *                             allocations and pool blocks there
 *   NUMA_SET       P   do     NUMA_POLICY, NUMA_NODE (required for "bind");
 *                             applies to objects stored from then on
 *
 * STORE_SET refuses settings the module does not implement with
 * EOPNOTSUPP and an extack message: MLOCK 0.
 * CPUS that is no CPU list, empty, names an offline CPU or would print
 * longer than GOBLIN_CPUS_MAX - 1 characters in its normalised form (as
 * STORE_GET reports it), and CORES above the online CPUs of CPUS, are
 * refused with EINVAL / ERANGE.
 *
 * Statistics, configuration, listeners and NUMA state are readable by any
 * user: they carry no keys, values or client addresses. Connection dumps
 * (client addresses) and object lookups/dumps (keys) need CAP_NET_ADMIN.
 *
 * Dumps resume across messages from the id of the last entry sent:
 * listeners, connections and objects are walked in ascending id order and
 * ids only grow. An entry that exists from the start to the end of a dump
 * is reported exactly once, whatever else changes meanwhile; one added or
 * removed during the dump may or may not be. An object replaced during an
 * object dump is a removal plus an addition: its key can be reported twice
 * (old and new object, the new one after the old one). A dump is not a
 * point-in-time snapshot. NLM_F_DUMP_INTR on a message means that this
 * promise could not be kept and the client should restart the dump; the
 * current module always keeps it and never sets the flag.
 *
 * Errors are negative errno values in NLMSG_ERROR with an extended ack
 * message (NLMSGERR_ATTR_MSG) and, where one attribute is at fault, its
 * offset (NLMSGERR_ATTR_OFFS) and policy (NLMSGERR_ATTR_POLICY). Common
 * ones: EINVAL (bad value), ERANGE (out of range), EOPNOTSUPP (transport not
 * supported), EADDRINUSE (port in use), EEXIST (listener exists), ENOENT (no
 * such listener/object), EADDRNOTAVAIL (address on no RDMA device / not
 * local), ENOTDIR (ssd_dir is not a directory), EPERM (not CAP_NET_ADMIN).
 *
 * Multicast group "events" (GOBLIN_MCGRP_EVENTS), listen-only, messages
 * are sent with the following commands:
 *   EVT_LISTENER_UP/DOWN   LISTENER_KIND LISTENER_ID ADDR4|6 PORT
 *   EVT_CONN_OPEN/CLOSE    LISTENER_KIND LISTENER_ID CONN_ID PEER_ADDR4|6
 *                          PEER_PORT
 *   EVT_DEVICE_ADD/DEL     DEVICE (RDMA device name)
 *   EVT_SAFETY_REFUSED     LISTENER_KIND PEER_ADDR4|6 PEER_PORT REASON
 *                          (a request refused by a safety marker check)
 *   EVT_EVICT_PRESSURE     PRESSURE_USED PRESSURE_LIMIT PRESSURE_EVICTED
 */
#ifndef _UAPI_LINUX_GOBLIN_H
#define _UAPI_LINUX_GOBLIN_H

#define GOBLIN_GENL_NAME	"goblin"
#define GOBLIN_GENL_VERSION	1
#define GOBLIN_MCGRP_EVENTS	"events"

#define GOBLIN_KEY_MAX		250
#define GOBLIN_PATH_MAX		256	/* ssd_dir, including the NUL */
#define GOBLIN_DEVICE_MAX	64	/* RDMA device name, including NUL */
#define GOBLIN_CPUS_MAX		1024	/* cpus list, including the NUL */

enum goblin_cmd {
	GOBLIN_CMD_UNSPEC,
	GOBLIN_CMD_VERSION_GET,
	GOBLIN_CMD_STORE_GET,
	GOBLIN_CMD_STORE_SET,
	GOBLIN_CMD_STATS_GET,
	GOBLIN_CMD_LISTENER_ADD,
	GOBLIN_CMD_LISTENER_DEL,
	GOBLIN_CMD_LISTENER_GET,
	GOBLIN_CMD_CONN_GET,
	GOBLIN_CMD_OBJ_GET,
	GOBLIN_CMD_FLUSH,
	GOBLIN_CMD_NUMA_GET,
	GOBLIN_CMD_NUMA_SET,
	GOBLIN_CMD_EVT_LISTENER_UP,
	GOBLIN_CMD_EVT_LISTENER_DOWN,
	GOBLIN_CMD_EVT_CONN_OPEN,
	GOBLIN_CMD_EVT_CONN_CLOSE,
	GOBLIN_CMD_EVT_DEVICE_ADD,
	GOBLIN_CMD_EVT_DEVICE_DEL,
	GOBLIN_CMD_EVT_SAFETY_REFUSED,
	GOBLIN_CMD_EVT_EVICT_PRESSURE,

	__GOBLIN_CMD_MAX,
	GOBLIN_CMD_MAX = __GOBLIN_CMD_MAX - 1
};

/* GOBLIN_A_LISTENER_KIND values */
enum goblin_listener_kind {
	GOBLIN_LISTENER_MEMCACHE,
	GOBLIN_LISTENER_RDMA,
	GOBLIN_LISTENER_HTTP,
};

/* GOBLIN_A_NUMA_POLICY values */
enum goblin_numa_policy {
	GOBLIN_NUMA_LOCAL,	/* allocate on the node of the serving CPU */
	GOBLIN_NUMA_INTERLEAVE,	/* spread blocks over all online nodes */
	GOBLIN_NUMA_BIND,	/* allocate on GOBLIN_A_NUMA_NODE only */
	GOBLIN_NUMA_DEVICE,	/* (default) the node of the RDMA device a
				 * value arrives through, else local
				 */
};

enum goblin_attr {
	GOBLIN_A_UNSPEC,
	GOBLIN_A_PAD,
	GOBLIN_A_VERSION,		/* string */
	GOBLIN_A_MEMORY,		/* u64 bytes, RAM budget for heads */
	GOBLIN_A_BLOCK,			/* u32 bytes, allocation block */
	GOBLIN_A_RAM_HEAD,		/* u32 bytes of each value kept in RAM */
	GOBLIN_A_SSD_DIR,		/* string, "" = no SSD tier */
	GOBLIN_A_SSD_MAX,		/* u64 bytes, SSD budget (0 = auto) */
	GOBLIN_A_PROMOTION,		/* u32 0..1000, NUMA promotion: reads
					 * (the count halves every 10 s)
					 * after which an object whose heads
					 * are on another node than placement
					 * wants is moved there in the
					 * background; 0 = off (default).
					 * PROMOTION_RATE bounds the bytes/s.
					 * Objects with an SSD tail are not
					 * promoted.
					 */
	GOBLIN_A_MLOCK,			/* u8 0/1: keep heads unswappable
					 * (always 1; 0 is refused)
					 */
	GOBLIN_A_CORES,			/* u32 worker CPUs, 0 = all online */
	GOBLIN_A_STATS,			/* nest, GOBLIN_STATS_A_* */
	GOBLIN_A_LISTENER_KIND,		/* u8, enum goblin_listener_kind */
	GOBLIN_A_LISTENER_ID,		/* u32 */
	GOBLIN_A_ADDR4,			/* binary[4], network order */
	GOBLIN_A_ADDR6,			/* binary[16] */
	GOBLIN_A_PORT,			/* u16 */
	GOBLIN_A_WINDOW,		/* u32 bytes, RDMA bulk window size */
	GOBLIN_A_WINDOWS,		/* u32, RDMA bulk windows per QP */
	GOBLIN_A_MAX_CONNS,		/* u32 */
	GOBLIN_A_IDLE_TIMEOUT,		/* u32 seconds; 0 = never for memcache,
					 * the default (300) for RDMA
					 */
	GOBLIN_A_CREDITS,		/* u32, RDMA control ring credits */
	GOBLIN_A_CONNS,			/* u32 open connections */
	GOBLIN_A_CONNS_TOTAL,		/* u64 accepted since creation */
	GOBLIN_A_REFUSED,		/* u64 refused connections */
	GOBLIN_A_CONN_ID,		/* u64 */
	GOBLIN_A_PEER_ADDR4,		/* binary[4] */
	GOBLIN_A_PEER_ADDR6,		/* binary[16] */
	GOBLIN_A_PEER_PORT,		/* u16 */
	GOBLIN_A_RX_BYTES,		/* u64 */
	GOBLIN_A_TX_BYTES,		/* u64 */
	GOBLIN_A_CMDS,			/* u64 requests served */
	GOBLIN_A_IDLE,			/* u32 seconds since last request */
	GOBLIN_A_DEVICE,		/* string, RDMA device name */
	GOBLIN_A_KEY,			/* binary[1..250] */
	GOBLIN_A_PREFIX,		/* binary[0..250], dump filter */
	GOBLIN_A_OBJ_LEN,		/* u64 bytes */
	GOBLIN_A_OBJ_FLAGS,		/* u32 client flags */
	GOBLIN_A_OBJ_CAS,		/* u64 */
	GOBLIN_A_OBJ_EXPTIME,		/* s64 absolute unix time, 0 = never */
	GOBLIN_A_NUMA_POLICY,		/* u8, enum goblin_numa_policy */
	GOBLIN_A_NUMA_NODE,		/* u32 node for GOBLIN_NUMA_BIND */
	GOBLIN_A_NODE,			/* nest, GOBLIN_NODE_A_*, multi */
	GOBLIN_A_REASON,		/* string */
	GOBLIN_A_PRESSURE_USED,		/* u64 bytes */
	GOBLIN_A_PRESSURE_LIMIT,	/* u64 bytes */
	GOBLIN_A_PRESSURE_EVICTED,	/* u64 objects evicted so far */
	GOBLIN_A_HITS,			/* u64 keys found (RDMA connection) */
	GOBLIN_A_MISSES,		/* u64 keys not found */
	GOBLIN_A_BYTES_WRITTEN,		/* u64 value bytes RDMA-written */
	GOBLIN_A_BYTES_READ,		/* u64 value bytes RDMA-read (SET) */
	GOBLIN_A_WINDOWS_IN_FLIGHT,	/* u32 bulk windows filled, not yet
					 * returned by the client
					 */
	GOBLIN_A_RDMA_ERRORS,		/* nest, GOBLIN_RDMA_ERR_A_* */
	GOBLIN_A_MAX_PEER_CONNS,	/* u32, RDMA listener: connections from
					 * one peer address (default 32)
					 */
	GOBLIN_A_RDMA_MAX_CONNS,	/* u32, RDMA connections over all
					 * listeners (default 1024)
					 */
	GOBLIN_A_WRITE_TIMEOUT,		/* u32 seconds, memcache listener: a
					 * connection whose output makes no
					 * progress this long is closed
					 * (default 60)
					 */
	GOBLIN_A_ITEM_MAX,		/* u32 bytes, largest memcache value
					 * (1024..16777216, default 1 MiB)
					 */
	GOBLIN_A_HEADER_TIMEOUT,	/* u32 seconds, HTTP listener: a
					 * request head must arrive within
					 * this time (default 10)
					 */
	GOBLIN_A_CRC,			/* u8 0/1: compute the CRC-32C of
					 * every value written from then on
					 * and send it to RDMA clients that
					 * ask for it (default 0)
					 */
	GOBLIN_A_CPUS,			/* string, the CPUs connections are
					 * served on: a CPU list ("0-1,3") of
					 * online CPUs, or "all" (default)
					 */
	GOBLIN_A_CPU,			/* u32, connection: the CPU that last
					 * ran its work (absent before any)
					 */
	GOBLIN_A_CPU_NODE,		/* u32, connection: the node of CPU */
	GOBLIN_A_PROMOTION_RATE,	/* u32 bytes/s, at least 4096: NUMA
					 * promotion moves at most this many
					 * value bytes per second (default
					 * 16 MiB)
					 */
	GOBLIN_A_RECLAIM,		/* u8 0/1: a background reclaimer
					 * keeps RECLAIM_LOW to twice that
					 * free in the memory budget for
					 * SETs (default 0: SETs evict for
					 * themselves, the cache fills the
					 * whole budget)
					 */
	GOBLIN_A_RECLAIM_LOW,		/* u64 bytes: the reclaimer's low
					 * watermark, 0 (default) = 1/16 of
					 * memory, at most 64 MiB; else at
					 * least 4096 and at most memory/4
					 */
	GOBLIN_A_RDMA_LEASE_MS,		/* u32 ms, RDMA one-sided reads
					 * (3.3): lease of a LOOKUP, 0 = off
					 * (default), else 10..60000
					 */

	__GOBLIN_A_MAX,
	GOBLIN_A_MAX = __GOBLIN_A_MAX - 1
};

/*
 * Inside GOBLIN_A_STATS; every counter is a u64, except
 * GOBLIN_STATS_A_RDMA_ERROR_KINDS, a nest of GOBLIN_RDMA_ERR_A_* counters
 * whose sum is GOBLIN_STATS_A_RDMA_ERRORS.
 */
enum goblin_stats_attr {
	GOBLIN_STATS_A_UNSPEC,
	GOBLIN_STATS_A_PAD,
	GOBLIN_STATS_A_CURR_ITEMS,
	GOBLIN_STATS_A_TOTAL_ITEMS,
	GOBLIN_STATS_A_BYTES,
	GOBLIN_STATS_A_HEAD_BYTES,
	GOBLIN_STATS_A_TAIL_BYTES,
	GOBLIN_STATS_A_EVICTIONS,
	GOBLIN_STATS_A_EXPIRED_UNFETCHED,
	GOBLIN_STATS_A_RECLAIMED,
	GOBLIN_STATS_A_GET_HITS,
	GOBLIN_STATS_A_GET_MISSES,
	GOBLIN_STATS_A_GET_EXPIRED,
	GOBLIN_STATS_A_GET_FLUSHED,
	GOBLIN_STATS_A_CMD_SET,
	GOBLIN_STATS_A_CMD_TOUCH,
	GOBLIN_STATS_A_TOUCH_HITS,
	GOBLIN_STATS_A_TOUCH_MISSES,
	GOBLIN_STATS_A_DELETE_HITS,
	GOBLIN_STATS_A_DELETE_MISSES,
	GOBLIN_STATS_A_INCR_HITS,
	GOBLIN_STATS_A_INCR_MISSES,
	GOBLIN_STATS_A_DECR_HITS,
	GOBLIN_STATS_A_DECR_MISSES,
	GOBLIN_STATS_A_CAS_HITS,
	GOBLIN_STATS_A_CAS_MISSES,
	GOBLIN_STATS_A_CAS_BADVAL,
	GOBLIN_STATS_A_BLOCKS_TOTAL,
	GOBLIN_STATS_A_BLOCKS_HUGE,
	GOBLIN_STATS_A_BLOCKS_SMALL,
	GOBLIN_STATS_A_PAGES_FREE,
	GOBLIN_STATS_A_MEMORY_LIMIT,
	GOBLIN_STATS_A_SSD_LIMIT,
	GOBLIN_STATS_A_LISTENERS,
	GOBLIN_STATS_A_CONNS,
	GOBLIN_STATS_A_CONNS_TOTAL,
	GOBLIN_STATS_A_REFUSED,
	GOBLIN_STATS_A_PAGES_QUARANTINED,
	GOBLIN_STATS_A_QUARANTINED_TOTAL,
	GOBLIN_STATS_A_TCP_BYTES_IN,
	GOBLIN_STATS_A_TCP_BYTES_OUT,
	GOBLIN_STATS_A_TCP_REJECTED,
	GOBLIN_STATS_A_RDMA_REQUESTS,
	GOBLIN_STATS_A_RDMA_HITS,
	GOBLIN_STATS_A_RDMA_MISSES,
	GOBLIN_STATS_A_RDMA_SETS,
	GOBLIN_STATS_A_RDMA_BYTES_WRITTEN,
	GOBLIN_STATS_A_RDMA_BYTES_READ,
	GOBLIN_STATS_A_RDMA_ERRORS,
	GOBLIN_STATS_A_RDMA_WINDOWS_IN_FLIGHT,	/* open connections, now */
	GOBLIN_STATS_A_RDMA_ERROR_KINDS,	/* nest, GOBLIN_RDMA_ERR_A_* */
	GOBLIN_STATS_A_TAIL_IO_ERRORS,	/* objects dropped: tail read failed */
	GOBLIN_STATS_A_TAIL_WB_ERRORS,	/* objects dropped or refused: tail
					 * writeback failed
					 */
	GOBLIN_STATS_A_META_BYTES,	/* RAM of object metadata (counts
					 * against memory with head_bytes)
					 */
	GOBLIN_STATS_A_HTTP_REQUESTS,	/* HTTP request heads parsed */
	GOBLIN_STATS_A_HTTP_GET,	/* HTTP requests by method */
	GOBLIN_STATS_A_HTTP_HEAD,
	GOBLIN_STATS_A_HTTP_PUT,
	GOBLIN_STATS_A_HTTP_DELETE,
	GOBLIN_STATS_A_HTTP_OTHER,	/* other methods and unparsable */
	GOBLIN_STATS_A_HTTP_1XX,	/* HTTP responses by status class */
	GOBLIN_STATS_A_HTTP_2XX,
	GOBLIN_STATS_A_HTTP_3XX,
	GOBLIN_STATS_A_HTTP_4XX,
	GOBLIN_STATS_A_HTTP_5XX,
	GOBLIN_STATS_A_HTTP_BYTES_IN,	/* bytes received on HTTP conns */
	GOBLIN_STATS_A_HTTP_BYTES_OUT,	/* bytes sent on HTTP conns */
	GOBLIN_STATS_A_HTTP_VALUE_BYTES_IN,	/* PUT value bytes */
	GOBLIN_STATS_A_HTTP_VALUE_BYTES_OUT,	/* GET value bytes */
	GOBLIN_STATS_A_HTTP_REJECTED,	/* refused for max_conns */
	GOBLIN_STATS_A_PROMOTIONS,	/* objects moved by NUMA promotion */
	GOBLIN_STATS_A_PROMOTED_BYTES,	/* their value bytes */
	GOBLIN_STATS_A_PROMOTION_FAILURES,	/* copies that could not be
						 * made (no room on the node,
						 * pages of another node, an
						 * index error)
						 */

	__GOBLIN_STATS_A_MAX,
	GOBLIN_STATS_A_MAX = __GOBLIN_STATS_A_MAX - 1
};

/* Inside GOBLIN_A_NODE: one online NUMA node. */
enum goblin_node_attr {
	GOBLIN_NODE_A_UNSPEC,
	GOBLIN_NODE_A_PAD,
	GOBLIN_NODE_A_ID,		/* u32 */
	GOBLIN_NODE_A_MEM_TOTAL,	/* u64 bytes managed by the kernel */
	GOBLIN_NODE_A_MEM_FREE,		/* u64 bytes free */
	GOBLIN_NODE_A_CPUS,		/* u32 online CPUs on the node */
	GOBLIN_NODE_A_HEAD_BYTES,	/* u64 bytes of head pages lent to
					 * objects that are on the node
					 * (page_to_nid() of each page)
					 */
	GOBLIN_NODE_A_BLOCKS,		/* u64 blocks of the node's pool */
	GOBLIN_NODE_A_OBJECTS,		/* u64 objects whose first head page
					 * is on the node
					 */
	GOBLIN_NODE_A_REMOTE,		/* u64 head pages placement wanted on
					 * this node that were lent from
					 * another node (total since load)
					 */
	GOBLIN_NODE_A_BLOCKS_HUGE,	/* u64 of BLOCKS: huge pages only */
	GOBLIN_NODE_A_BLOCKS_SMALL,	/* u64 of BLOCKS: some order-0 pages */
	GOBLIN_NODE_A_PROMOTED,		/* u64 objects NUMA promotion moved
					 * to the node (total since load)
					 */

	__GOBLIN_NODE_A_MAX,
	GOBLIN_NODE_A_MAX = __GOBLIN_NODE_A_MAX - 1
};

/*
 * Inside GOBLIN_A_RDMA_ERRORS (one RDMA connection) and
 * GOBLIN_STATS_A_RDMA_ERROR_KINDS (all of them since load): RDMA protocol
 * errors by kind, every one a u64. BAD_RECORD counts records the server
 * answers and keeps the connection for (an unknown or response type gets
 * ERROR, a bad key, key count, GET body or SET mode CLIENT_ERROR) and
 * records it cannot answer (a SEND of the wrong size, a header length
 * above the body size), which close the connection; STORE (SERVER_ERROR)
 * keeps it; every other kind closes it (uapi/linux/goblin_rdma.h, section
 * 6). Documentation/rdma-protocol.rst lists what counts where. REJECTED
 * (connect requests refused) is in the totals only.
 */
enum goblin_rdma_err_attr {
	GOBLIN_RDMA_ERR_A_UNSPEC,
	GOBLIN_RDMA_ERR_A_PAD,
	GOBLIN_RDMA_ERR_A_BAD_RECORD,	/* malformed/unknown record, bad key */
	GOBLIN_RDMA_ERR_A_CREDIT,	/* records sent beyond the credits */
	GOBLIN_RDMA_ERR_A_WINDOW,	/* bad window return */
	GOBLIN_RDMA_ERR_A_RANGE,	/* SET source outside the region */
	GOBLIN_RDMA_ERR_A_RDMA_OP,	/* RDMA WRITE/READ failed (rkey...) */
	GOBLIN_RDMA_ERR_A_COMPLETION,	/* SEND/RECV failed (peer gone) */
	GOBLIN_RDMA_ERR_A_STORE,	/* value unreadable mid-transfer */
	GOBLIN_RDMA_ERR_A_REJECTED,	/* connect requests rejected */

	__GOBLIN_RDMA_ERR_A_MAX,
	GOBLIN_RDMA_ERR_A_MAX = __GOBLIN_RDMA_ERR_A_MAX - 1
};

#endif /* _UAPI_LINUX_GOBLIN_H */
