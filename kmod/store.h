/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: the object store API used by every transport.
 *
 * Objects are immutable once published: a SET builds a complete new object
 * (gb_obj_alloc + gb_obj_write + gb_store_commit) and swaps it into the index
 * atomically, so a reader sees either the old or the new value in full.
 * The value, length and flags never change after that; the memcache meta
 * state does in place: exptime (touch, gat, mg T), cas (md I, under
 * the key's shard lock) and the stale/win bits. Read those with READ_ONCE().
 *
 * Ownership (see the block comment in kmod/store/object.c for the full rules):
 *  - gb_store_get() returns a counted reference; the caller drops it with
 *    gb_obj_put() once every byte it sends has left its hands (TCP: after
 *    the send call returned; RDMA: after the WRITE completion).
 *  - gb_obj_get_page() returns a page with its own reference (put_page()).
 *  - A head page is never reused for another object while any reference
 *    (object or page) taken through this API is outstanding.
 */
#ifndef _GOBLIN_STORE_H
#define _GOBLIN_STORE_H

#include <linux/types.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>

struct gb_trace_id;
struct netlink_ext_ack;
struct page;

#define GB_KEY_MAX		250
#define GB_VALUE_MAX		(16ULL << 20)	/* largest value, largest item_max */
#define GB_ITEM_MAX_MIN		1024		/* smallest item_max (memcached -I) */

struct gb_obj_priv;

/**
 * struct gb_obj - one stored object (read-only for transports)
 * @len:     value length in bytes
 * @flags:   client flags (memcache 32-bit flags)
 * @cas:     64-bit CAS unique
 * @exptime: absolute expiry in seconds of ktime_get_real_seconds(), 0 = never
 * @crc:     CRC-32C (Castagnoli, the iSCSI one: seed ~0, result inverted)
 *           of the value, valid when @has_crc
 * @has_crc: the store computed @crc when the value was written (store
 *           setting crc on); both are set before the object is published
 *           and never change afterwards
 * @klen:    key length
 * @key:     key bytes (not NUL terminated)
 *
 * Other members are private to the store.
 */
struct gb_obj {
	struct rhash_head node;
	refcount_t ref;
	u64 len;
	u32 flags;
	u64 cas;
	s64 exptime;
	struct gb_obj_priv *priv;
	u32 crc;
	bool has_crc;
	u8 klen;
	char key[GB_KEY_MAX + 1];
};

enum gb_store_mode {
	GB_MODE_SET,
	GB_MODE_ADD,
	GB_MODE_REPLACE,
	GB_MODE_CAS,
	GB_MODE_APPEND,
	GB_MODE_PREPEND,
	/*
	 * memcache ms C with I: CAS, but a cas older than the object's is
	 * stored too, marked stale, keeping the old TTL and win token.
	 */
	GB_MODE_CAS_STALE,
};

/* Results of gb_store_commit() and friends (>= 0). Errors are -errno. */
enum gb_store_result {
	GB_STORED,
	GB_NOT_STORED,
	GB_EXISTS,
	GB_NOT_FOUND,
};

/* Lookup; NULL on miss or expired. Takes a reference. */
struct gb_obj *gb_store_get(const char *key, size_t klen);
/*
 * Lookup for a writer that asks what it would replace (HTTP PUT/DELETE
 * preconditions): not a read, so no GET counter, no CLOCK reference, not
 * "fetched". NULL on miss or expired. Takes a reference. Any context.
 */
struct gb_obj *gb_store_peek(const char *key, size_t klen);
/* Lookup and update exptime (gat/touch); NULL on miss. Takes a reference. */
struct gb_obj *gb_store_get_touch(const char *key, size_t klen, s64 exptime);
void gb_obj_put(struct gb_obj *obj);

/*
 * Build a new object. Without an ssd_dir the whole value lives in head
 * pages; with one, the first ram_head bytes do and the rest goes to a tail
 * file. Errors: -EINVAL (bad key), -E2BIG (more than GB_VALUE_MAX: "object
 * too large for cache"), -ENOMEM / -ENOSPC (no memory / no SSD space even after
 * eviction: "out of memory storing object").
 */
struct gb_obj *gb_obj_alloc(const char *key, size_t klen, u32 flags,
			    s64 exptime, u64 len);
/*
 * The same for a value arriving through a device on NUMA node @node (the
 * RDMA transport passes its ib_device's node): under the default placement
 * policy the heads go to that node. NUMA_NO_NODE = no device (the writing
 * CPU's node), what gb_obj_alloc() passes.
 */
struct gb_obj *gb_obj_alloc_node(const char *key, size_t klen, u32 flags,
				 s64 exptime, u64 len, int node);
/* Fill value bytes [off, off + len). May sleep. */
int gb_obj_write(struct gb_obj *obj, u64 off, const void *src, size_t len);
/*
 * Set @obj's CRC-32C from its bytes when the store setting crc is on (else
 * leave it without one). Called by gb_store_commit() and friends for every
 * object they publish; a transport never needs to. Process context, may
 * sleep (tail bytes); 0 or a tail read error.
 */
int gb_obj_seal(struct gb_obj *obj);
/* Copy value bytes from another object (append/prepend). May sleep. */
int gb_obj_copy(struct gb_obj *dst, u64 dst_off, struct gb_obj *src,
		u64 src_off, u64 len);
/*
 * Reference the page holding value byte @off. *@seg is the number of bytes
 * from @off contiguous in that page. Tail bytes come from the page cache
 * (with readahead) and may sleep. The caller drops the page with put_page().
 *
 * Tail errors (here and in gb_obj_read()): when the tail cannot be read,
 * or its writeback failed (so what the page cache holds may already be
 * lost), the call fails with -EIO or the read error and the store drops the
 * object from the index itself (later lookups miss; counted in
 * tail_io_errors / tail_wb_errors). Transports only fail their request.
 * A transient error (gb_store_err_transient(): no memory, interrupted,
 * try again) drops nothing: the same call may work when repeated.
 * Call without store locks held.
 *
 * gb_obj_get_page_id(): the same; tail reads are traced as part of the
 * request @tid names (kmod/trace.h; NULL: no request).
 */
int gb_obj_get_page_id(struct gb_obj *obj, u64 off, struct page **pg,
		       unsigned int *pgoff, unsigned int *seg,
		       const struct gb_trace_id *tid);

/*
 * Whether @err from gb_obj_get_page_id() or gb_obj_read() is transient:
 * the store kept the object and a later call may succeed.
 */
static inline bool gb_store_err_transient(int err)
{
	return err == -ENOMEM || err == -EINTR || err == -ERESTARTSYS ||
	       err == -EAGAIN;
}

/*
 * How a caller that may sleep retries a transient error before it gives
 * up on the request: GB_STORE_RETRIES more calls, GB_STORE_RETRY_MS apart
 * (the TCP transport for each value page it sends, memcache's exec for the
 * first tail page before a VALUE line).
 */
#define GB_STORE_RETRIES	3
#define GB_STORE_RETRY_MS	10

static inline int gb_obj_get_page(struct gb_obj *obj, u64 off,
				  struct page **pg, unsigned int *pgoff,
				  unsigned int *seg)
{
	return gb_obj_get_page_id(obj, off, pg, pgoff, seg, NULL);
}

/* Copy value bytes out (for small values / tests). May sleep. */
int gb_obj_read(struct gb_obj *obj, u64 off, void *dst, size_t len);
/*
 * Bytes of the value held in RAM head pages: [0, head_len) is in head pages
 * (gb_obj_get_page() never sleeps for them), the rest is in the tail file.
 * Fixed at gb_obj_alloc() time; any context.
 */
u32 gb_obj_head_len(const struct gb_obj *obj);
/* When the value was stored (gb_now() seconds of its commit). Any context. */
s64 gb_obj_mtime(const struct gb_obj *obj);

/*
 * Publish @obj under @mode. @cas is the expected CAS for GB_MODE_CAS.
 * Consumes the caller's reference to @obj in every case. Returns a
 * gb_store_result or -errno. APPEND/PREPEND are done by the store: @obj then
 * holds only the data to add.
 */
int gb_store_commit(struct gb_obj *obj, enum gb_store_mode mode, u64 cas);
/*
 * gb_store_commit() for the memcache meta commands: append/prepend compare
 * @cas too when it is not 0 (GB_EXISTS on a mismatch), and *@cas_out
 * (may be NULL) gets the CAS of the object stored.
 */
int gb_store_commit_cas(struct gb_obj *obj, enum gb_store_mode mode, u64 cas,
			u64 *cas_out);
/* The same; *@replaced (on GB_STORED): a live value was replaced. */
int gb_store_commit_replaced(struct gb_obj *obj, enum gb_store_mode mode,
			     u64 cas, bool *replaced);
/* Delete; @cas 0 = any. GB_STORED (deleted), GB_NOT_FOUND, GB_EXISTS. */
int gb_store_delete(const char *key, size_t klen, u64 cas);
/* Unlink after a failed SET; not counted as a delete. */
void gb_store_drop(const char *key, size_t klen);
/* Touch: GB_STORED (touched) or GB_NOT_FOUND. */
int gb_store_touch(const char *key, size_t klen, s64 exptime);
/**
 * struct gb_arith_res - result of gb_store_arith()
 * @value:   the new value
 * @cas:     CAS of the object holding it
 * @old_exp: expiry before the command
 * @exp:     expiry after it
 */
struct gb_arith_res {
	u64 value;
	u64 cas;
	s64 old_exp;
	s64 exp;
};

/*
 * incr/decr with memcached rules (64-bit wrap on incr, floor 0 on decr).
 * @exptime (NULL: keep) is the new expiry, set in the same step (meta ma
 * T). GB_STORED with *@res set, GB_NOT_FOUND, GB_EXISTS when @cas is not 0
 * and not the object's, or -EINVAL when the value is not a decimal number.
 */
int gb_store_arith(const char *key, size_t klen, bool decr, u64 delta,
		   u64 cas, const s64 *exptime, struct gb_arith_res *res);

/* memcache meta state (memcached's item flags for mg h l X Z W) */

/**
 * struct gb_obj_access - how an object was accessed before a lookup
 * @fetched: it had been read (mg h)
 * @atime:   last access, gb_now() seconds (mg l)
 */
struct gb_obj_access {
	bool fetched;
	s64 atime;
};

/*
 * Lookup for memcache mg, counted as a get (and a touch when @touch):
 * *@before gets the access state before this lookup, which counts as an
 * access only when @bump (mg without u). Any context.
 */
struct gb_obj *gb_store_get_meta(const char *key, size_t klen, bool bump,
				 bool touch, struct gb_obj_access *before);
/* Count a read of @obj for its access state (mg h, l) and the CLOCK. */
void gb_obj_mark_read(struct gb_obj *obj);
/* Set the expiry of a looked-up object (mg T), under gb_store_meta_lock(). */
void gb_obj_set_exptime(struct gb_obj *obj, s64 exptime);
/* Stale: invalidated by md I, or stored by ms I with an older cas. */
bool gb_obj_stale(const struct gb_obj *obj);
/* A client was told it won the recache (W) since it was stored. */
bool gb_obj_win_sent(const struct gb_obj *obj);
/*
 * Take the win token: true for the first caller only. Under
 * gb_store_meta_lock() with gb_obj_linked() true, or a copy made
 * meanwhile may hand the token out once more.
 */
bool gb_obj_claim_win(struct gb_obj *obj);
/*
 * Serialise a change of an object's meta state (exptime, stale, win
 * token) on @key with the commands that copy that state into a new
 * object (incr/decr/ma, append/prepend, ms C with I, md I). Process
 * context; no other store lock may be held.
 */
void gb_store_meta_lock(const char *key, size_t klen);
void gb_store_meta_unlock(const char *key, size_t klen);
/* @obj is still in the index (a replacement unlinks it). */
bool gb_obj_linked(const struct gb_obj *obj);
/* Lookup without counting it or marking an access. Takes a reference. */
struct gb_obj *gb_store_peek(const char *key, size_t klen);
/* Before commit: the object is stored with its win token taken (mg N). */
void gb_obj_preset_win(struct gb_obj *obj);
/*
 * memcache md I: mark the object stale, give it a new CAS, free its win
 * token and set its expiry to *@exptime (NULL: keep). @cas 0 = any.
 * GB_STORED, GB_NOT_FOUND or GB_EXISTS (@cas differs).
 */
int gb_store_invalidate(const char *key, size_t klen, u64 cas,
			const s64 *exptime);
/* flush_all: invalidate everything stored at or before @when (abs secs). */
void gb_store_flush(s64 when);

/*
 * Convert a memcache exptime to absolute seconds: 0 = never; up to 30 days
 * relative; larger is absolute unix time; negative = already expired
 * (returns -1).
 */
s64 gb_exptime_abs(s64 exptime);
/* Current time on the exptime clock (seconds). */
s64 gb_now(void);

/* Configuration and statistics (used by netlink). */
struct gb_store_config {
	u64 memory;
	u32 block;
	u32 ram_head;
	u32 item_max;		/* memcache's largest value (memcached -I) */
	u64 ssd_max;
	bool reclaim;		/* background reclaimer on */
	u64 reclaim_low;	/* its low watermark, 0 = automatic */
	char ssd_dir[256];
};

struct gb_store_stats {
	u64 curr_items;
	u64 total_items;
	u64 bytes;		/* sum of value lengths */
	u64 head_bytes;		/* RAM used by heads */
	u64 meta_bytes;		/* RAM used by object metadata */
	u64 tail_bytes;		/* SSD used by tails */
	u64 evictions;
	u64 expired_unfetched;
	u64 reclaimed;
	u64 get_hits;
	u64 get_misses;
	u64 get_expired;
	u64 get_flushed;
	u64 cmd_set;
	u64 cmd_touch;
	u64 touch_hits;
	u64 touch_misses;
	u64 delete_hits;
	u64 delete_misses;
	u64 incr_hits;
	u64 incr_misses;
	u64 decr_hits;
	u64 decr_misses;
	u64 cas_hits;
	u64 cas_misses;
	u64 cas_badval;
	u64 blocks_total;
	u64 blocks_huge;	/* blocks backed by huge/compound pages */
	u64 blocks_small;	/* blocks backed by order-0 pages */
	u64 pages_free;
	u64 memory_limit;
	u64 ssd_limit;
	u64 pages_quarantined;	/* head pages waiting for foreign refs */
	u64 quarantined_total;	/* pages ever put in quarantine */
	u64 tail_io_errors;	/* objects dropped: a tail read failed */
	u64 tail_wb_errors;	/* objects dropped or refused: tail writeback failed */
	u64 promotions;		/* objects moved to their wanted node */
	u64 promoted_bytes;	/* value bytes they hold */
	u64 promotion_failures;	/* copies that could not be made */
};

void gb_store_get_config(struct gb_store_config *cfg);
/*
 * Current item_max, the largest value the memcache transport accepts
 * (memcached's -I; the RDMA protocol's limit is GB_VALUE_MAX). Any context.
 */
u32 gb_store_item_max(void);
/*
 * Current memory budget in bytes (the "memory" setting: RAM for heads and
 * object metadata). Any context; a snapshot, it may change at any time.
 */
u64 gb_store_memory(void);
int gb_store_set_config(const struct gb_store_config *cfg,
			struct netlink_ext_ack *extack);
void gb_store_get_stats(struct gb_store_stats *st);

/* NUMA placement and head memory settings (kmod/store/numa.c). */
struct gb_store_numa {
	u8 policy;		/* enum goblin_numa_policy */
	u32 node;		/* node of GOBLIN_NUMA_BIND */
};

/* What the store holds on one NUMA node. */
struct gb_store_node_usage {
	u64 head_bytes;		/* lent head pages on the node (page_to_nid) */
	u64 walked_bytes;	/* the same, counted now by a walk (tests) */
	u64 objects;		/* objects whose first head page is there */
	u64 remote;		/* pages wanted there, lent from another node */
	u64 blocks;		/* blocks of the node's pool */
	u64 blocks_huge;
	u64 blocks_small;
	u64 promoted;		/* objects promoted to the node (since load) */
};

void gb_store_get_numa(struct gb_store_numa *nc);
int gb_store_set_numa(const struct gb_store_numa *nc,
		      struct netlink_ext_ack *extack);
/* May sleep. */
void gb_store_node_usage(int nid, struct gb_store_node_usage *nu, bool walk);
int gb_store_set_mlock(bool on, struct netlink_ext_ack *extack);
bool gb_store_get_mlock(void);
/*
 * NUMA promotion (kmod/store/promote.c): objects read @hits times (the
 * count halves every 10 s) whose heads are on another node than placement
 * wants move there in the background, at most @rate bytes per second;
 * @hits 0 = off. Process context.
 */
void gb_store_set_promotion(u32 hits, u32 rate);
u32 gb_store_get_promotion(void);
u32 gb_store_get_promotion_rate(void);
/*
 * Store setting crc: compute the CRC-32C of every value written from then
 * on (objects stored while it was off keep having none). Any context.
 */
void gb_store_set_crc(bool on);
bool gb_store_get_crc(void);

/* Iterate objects for dumps: visit from *@cursor, return next cursor. */
typedef int (*gb_store_visit_fn)(struct gb_obj *obj, void *arg);
int gb_store_walk(u64 *cursor, gb_store_visit_fn fn, void *arg);
/* Monotonic generation bumped on every insert/remove (for NLM_F_DUMP_INTR). */
u32 gb_store_generation(void);

#endif /* _GOBLIN_STORE_H */
