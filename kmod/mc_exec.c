// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: memcache request execution (classic and meta commands).
 *
 * Responses are byte-compatible with memcached 1.6.18 for everything the
 * store can express; the remaining differences are listed in
 * Documentation/memcache.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "cpus.h"
#include "goblin.h"
#include "store.h"
#include "registry.h"
#include "mc_exec.h"
#include "trace.h"

/*
 * append/prepend/incr/decr on a value whose bytes fail the CRC it was
 * stored with (store setting crc, kmod/store/index.c): refused, the value
 * stays as it is.
 */
#define GB_MC_ERR_BAD_CRC	"SERVER_ERROR stored value fails its CRC check"

/*
 * The store could not read back what it was storing (the tail, for the
 * CRC of crc on): an I/O error, not a lack of memory (kmod/rdma/set.c
 * says the same over RDMA).
 */
#define GB_MC_ERR_IO		"SERVER_ERROR I/O error storing object"

/*
 * The line for a store error: its own for a CRC mismatch and an I/O
 * error, else @nomem (the command's out-of-memory text).
 */
static const char *gb_mc_store_err(int err, const char *nomem)
{
	switch (err) {
	case -EBADMSG:
		return GB_MC_ERR_BAD_CRC;
	case -EIO:
		return GB_MC_ERR_IO;
	default:
		return nomem;
	}
}

static atomic64_t gb_mc_cmd_get = ATOMIC64_INIT(0);
static atomic64_t gb_mc_cmd_flush = ATOMIC64_INIT(0);
static atomic64_t gb_mc_cmd_touch = ATOMIC64_INIT(0);
static atomic64_t gb_mc_cmd_meta = ATOMIC64_INIT(0);
static time64_t gb_mc_started;
/* Reported by "stats settings" only: Goblin logs nothing per request. */
static u32 gb_mc_verbosity;
static bool gb_mc_detail;

/*
 * The counters "stats reset" zeroes in memcached 1.6.18 (stats_reset():
 * the global, per-thread and per-slab-class counters; not curr_items,
 * bytes, curr_connections or uptime). The store's and transport's
 * counters are shared with goblinctl and the RDMA transport, so they are
 * not touched: "stats" reports them less the values they had at the last
 * reset.
 */
enum {
	GB_MC_R_TOTAL_CONNS,
	GB_MC_R_REJECTED,
	GB_MC_R_CMD_GET,
	GB_MC_R_CMD_SET,
	GB_MC_R_CMD_FLUSH,
	GB_MC_R_CMD_TOUCH,
	GB_MC_R_CMD_META,
	GB_MC_R_GET_HITS,
	GB_MC_R_GET_MISSES,
	GB_MC_R_GET_EXPIRED,
	GB_MC_R_GET_FLUSHED,
	GB_MC_R_DELETE_MISSES,
	GB_MC_R_DELETE_HITS,
	GB_MC_R_INCR_MISSES,
	GB_MC_R_INCR_HITS,
	GB_MC_R_DECR_MISSES,
	GB_MC_R_DECR_HITS,
	GB_MC_R_CAS_MISSES,
	GB_MC_R_CAS_HITS,
	GB_MC_R_CAS_BADVAL,
	GB_MC_R_TOUCH_HITS,
	GB_MC_R_TOUCH_MISSES,
	GB_MC_R_BYTES_READ,
	GB_MC_R_BYTES_WRITTEN,
	GB_MC_R_TOTAL_ITEMS,
	GB_MC_R_EXPIRED_UNFETCHED,
	GB_MC_R_EVICTIONS,
	GB_MC_R_RECLAIMED,
	GB_MC_R_NR
};

/* Values at the last "stats reset"; under gb_mc_reset_lock. */
static u64 gb_mc_reset_base[GB_MC_R_NR];
static DEFINE_SPINLOCK(gb_mc_reset_lock);

static int gb_text(struct gb_mc_sink *s, const char *p, size_t len)
{
	return s->ops->text(s, p, len);
}

static int gb_line(struct gb_mc_sink *s, const char *line)
{
	char buf[160];
	size_t n = strlen(line);

	if (n + 2 > sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, n);
	buf[n++] = '\r';
	buf[n++] = '\n';
	return gb_text(s, buf, n);
}

/*
 * "stats detail": per key prefix (the part before the first ':') counts
 * of gets, hits, storage commands and deletes while detail_enabled, as
 * memcached 1.6.18's stats_prefix.c keeps them: a table of 256 buckets
 * by the prefix's MurmurHash3 (memcached's default hash), newest first
 * in a bucket, so that "stats detail dump" lists them in memcached's
 * order. At most GB_MC_PREFIX_MAX prefixes are kept (memcached has no
 * bound): a client cannot make the table grow without limit. Counts of
 * keys whose prefix is not in the table and cannot be added (the table
 * is full, or the allocation failed) go to gb_mc_prefix_dropped, which
 * plain "stats" reports as detail_dropped (a Goblin extension).
 *
 * Locking. gb_mc_prefix_record() runs for every counted key, in process
 * context only: the memcache transport executes requests from its
 * connections' work items (kmod/tcp.c, gb_conn_work() on gb_tcp_wq),
 * never from its socket callbacks, and no other caller exists. So it
 * may sleep, and the bucket locks need not disable bottom halves.
 *
 *  - Lookup and counting take no lock: the bucket lists are RCU lists
 *    (walked under rcu_read_lock()), the counters are atomic64_t.
 *  - Insertion takes the bucket's spinlock (gb_mc_prefix_tab[b].lock)
 *    only to look again and link the entry, which was allocated with
 *    GFP_KERNEL before the lock; gb_mc_nprefixes (atomic) bounds the
 *    table across buckets.
 *  - gb_mc_prefix_lock (a mutex) is taken only by "stats detail dump"
 *    and by gb_mc_prefix_clear() ("stats reset", unload): it keeps the
 *    entries alive while the dump, which may sleep in the sink, walks
 *    them. Entries are freed only by gb_mc_prefix_clear(), after an RCU
 *    grace period (kfree_rcu()).
 *
 * The table belongs to mc_exec: gb_mc_exec_init() sets it up and
 * gb_mc_exec_exit() frees it, called by kmod/main.c after the transports
 * that execute requests are gone.
 */
#define GB_MC_PREFIX_BUCKETS	256
#define GB_MC_PREFIX_MAX	256

enum gb_mc_prefix_op { GB_MC_PFX_GET, GB_MC_PFX_SET, GB_MC_PFX_DEL };

struct gb_mc_prefix {
	struct gb_mc_prefix __rcu *next;
	struct rcu_head rcu;
	atomic64_t gets, hits, sets, dels;
	u8 len;
	char prefix[];
};

static struct {
	struct gb_mc_prefix __rcu *head;
	spinlock_t lock;		/* insertion and unlinking */
} gb_mc_prefix_tab[GB_MC_PREFIX_BUCKETS];

static DEFINE_MUTEX(gb_mc_prefix_lock);	/* dump vs. clear */
static atomic_t gb_mc_nprefixes = ATOMIC_INIT(0);
static atomic64_t gb_mc_prefix_dropped = ATOMIC64_INIT(0);

/* MurmurHash3_x86_32 with seed 0, memcached's murmur3_hash() */
static u32 gb_mc_murmur3(const u8 *p, size_t len)
{
	const u32 c1 = 0xcc9e2d51, c2 = 0x1b873593;
	size_t i, nblocks = len / 4;
	u32 h = 0, k;

	for (i = 0; i < nblocks; i++) {
		k = p[4 * i] | (u32)p[4 * i + 1] << 8 |
		    (u32)p[4 * i + 2] << 16 | (u32)p[4 * i + 3] << 24;
		k *= c1;
		k = rol32(k, 15);
		k *= c2;
		h ^= k;
		h = rol32(h, 13);
		h = h * 5 + 0xe6546b64;
	}
	p += 4 * nblocks;
	k = 0;
	switch (len & 3) {
	case 3:
		k ^= (u32)p[2] << 16;
		fallthrough;
	case 2:
		k ^= (u32)p[1] << 8;
		fallthrough;
	case 1:
		k ^= p[0];
		k *= c1;
		k = rol32(k, 15);
		k *= c2;
		h ^= k;
	}
	h ^= (u32)len;
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/* Bucket @b's head: under rcu_read_lock() or the bucket's lock. */
#define gb_mc_pfx_deref(p, b) \
	rcu_dereference_check(p, lockdep_is_held(&gb_mc_prefix_tab[b].lock))

/* The entry of prefix @key[0..@len) in bucket @b, or NULL. */
static struct gb_mc_prefix *gb_mc_prefix_find(u32 b, const char *key,
					      size_t len)
{
	struct gb_mc_prefix *e;

	for (e = gb_mc_pfx_deref(gb_mc_prefix_tab[b].head, b); e;
	     e = gb_mc_pfx_deref(e->next, b))
		if (e->len == len && !memcmp(e->prefix, key, len))
			return e;
	return NULL;
}

static void gb_mc_prefix_count(struct gb_mc_prefix *e,
			       enum gb_mc_prefix_op op, bool hit)
{
	switch (op) {
	case GB_MC_PFX_GET:
		atomic64_inc(&e->gets);
		if (hit) {
			/* after gets: the dump reads hits first */
			smp_mb__before_atomic();
			atomic64_inc(&e->hits);
		}
		break;
	case GB_MC_PFX_SET:
		atomic64_inc(&e->sets);
		break;
	case GB_MC_PFX_DEL:
		atomic64_inc(&e->dels);
		break;
	}
}

/*
 * Add the prefix @key[0..@len) to bucket @b (it was not there a moment
 * ago) and count @op for it. Process context: allocates with GFP_KERNEL
 * before taking the bucket lock.
 */
static void gb_mc_prefix_add(u32 b, const char *key, size_t len,
			     enum gb_mc_prefix_op op, bool hit)
{
	struct gb_mc_prefix *e, *n = NULL;

	might_sleep();
	if (atomic_read(&gb_mc_nprefixes) < GB_MC_PREFIX_MAX) {
		n = kzalloc(struct_size(n, prefix, len), GFP_KERNEL);
		if (n) {
			n->len = len;
			memcpy(n->prefix, key, len);
		}
	}
	spin_lock(&gb_mc_prefix_tab[b].lock);
	/* another connection may have added it meanwhile */
	e = gb_mc_prefix_find(b, key, len);
	if (!e && n && atomic_add_unless(&gb_mc_nprefixes, 1,
					 GB_MC_PREFIX_MAX)) {
		e = n;
		n = NULL;
		gb_mc_prefix_count(e, op, hit);
		RCU_INIT_POINTER(e->next,
				 gb_mc_pfx_deref(gb_mc_prefix_tab[b].head, b));
		rcu_assign_pointer(gb_mc_prefix_tab[b].head, e);
	} else if (e) {
		gb_mc_prefix_count(e, op, hit);
	} else {
		atomic64_inc(&gb_mc_prefix_dropped);
	}
	spin_unlock(&gb_mc_prefix_tab[b].lock);
	kfree(n);
}

/* Count @op (a get: @hit) for the prefix of @key, if detail is on. */
static void gb_mc_prefix_record(const char *key, size_t klen,
				enum gb_mc_prefix_op op, bool hit)
{
	struct gb_mc_prefix *e;
	const char *colon;
	size_t len;
	u32 b;

	if (!READ_ONCE(gb_mc_detail))
		return;
	colon = memchr(key, ':', min_t(size_t, klen, MC_KEY_MAX));
	if (!colon)
		return;
	len = colon - key;
	b = gb_mc_murmur3((const u8 *)key, len) % GB_MC_PREFIX_BUCKETS;
	rcu_read_lock();
	e = gb_mc_prefix_find(b, key, len);
	if (e)
		gb_mc_prefix_count(e, op, hit);
	rcu_read_unlock();
	if (!e)
		gb_mc_prefix_add(b, key, len, op, hit);
}

/* Forget every prefix and the dropped count ("stats reset", unload). */
static void gb_mc_prefix_clear(void)
{
	struct gb_mc_prefix *e, *first, *next;
	unsigned int b, n;

	mutex_lock(&gb_mc_prefix_lock);
	for (b = 0; b < GB_MC_PREFIX_BUCKETS; b++) {
		spin_lock(&gb_mc_prefix_tab[b].lock);
		first = gb_mc_pfx_deref(gb_mc_prefix_tab[b].head, b);
		RCU_INIT_POINTER(gb_mc_prefix_tab[b].head, NULL);
		/*
		 * The count drops with the unlink, under the bucket lock: an
		 * add racing the reset must not see a full table that is
		 * already empty (at most GB_MC_PREFIX_MAX entries to count).
		 */
		for (n = 0, e = first; e; n++)
			e = rcu_dereference_protected(e->next, true);
		atomic_sub(n, &gb_mc_nprefixes);
		spin_unlock(&gb_mc_prefix_tab[b].lock);
		/* unlinked: only lockless readers still see these */
		for (e = first; e; e = next) {
			next = rcu_dereference_protected(e->next, true);
			kfree_rcu(e, rcu);
		}
	}
	atomic64_set(&gb_mc_prefix_dropped, 0);
	mutex_unlock(&gb_mc_prefix_lock);
}

/* A list pointer, for the dump: entries are added meanwhile, not freed. */
#define gb_mc_dump_deref(p) \
	rcu_dereference_check(p, lockdep_is_held(&gb_mc_prefix_lock))

/* "stats detail dump": one PREFIX line per prefix, then END. */
static int gb_mc_prefix_dump(struct gb_mc_sink *sink)
{
	char line[MC_KEY_MAX + 120];
	struct gb_mc_prefix *e;
	unsigned int b;
	u64 gets, hits;
	int n, err = 0;

	/*
	 * The mutex keeps the entries from being freed while the sink may
	 * sleep; entries added meanwhile (at a bucket's head) may be missed.
	 */
	mutex_lock(&gb_mc_prefix_lock);
	for (b = 0; b < GB_MC_PREFIX_BUCKETS && !err; b++) {
		e = gb_mc_dump_deref(gb_mc_prefix_tab[b].head);
		for (; e && !err; e = gb_mc_dump_deref(e->next)) {
			hits = atomic64_read(&e->hits);
			/* pairs with gb_mc_prefix_count(): hit <= get */
			smp_rmb();
			gets = atomic64_read(&e->gets);
			n = scnprintf(line, sizeof(line),
				      "PREFIX %.*s get %llu hit %llu set %llu del %llu\r\n",
				      (int)e->len, e->prefix, gets, hits,
				      (u64)atomic64_read(&e->sets),
				      (u64)atomic64_read(&e->dels));
			err = gb_text(sink, line, n);
		}
	}
	mutex_unlock(&gb_mc_prefix_lock);
	return err ? err : gb_text(sink, "END\r\n", 5);
}

int gb_mc_exec_init(void)
{
	unsigned int b;

	gb_mc_started = ktime_get_boottime_seconds();
	for (b = 0; b < GB_MC_PREFIX_BUCKETS; b++)
		spin_lock_init(&gb_mc_prefix_tab[b].lock);
	return 0;
}

/* After the last request: every transport that calls us has exited. */
void gb_mc_exec_exit(void)
{
	gb_mc_prefix_clear();
}

/* Raw memcache exptime to the store's absolute seconds (-1: expired). */
static s64 gb_mc_abs(s64 exptime)
{
	return gb_exptime_abs(exptime);
}

/* Append " k<key>" (base64 when @b64, followed by " b"). */
static size_t gb_put_key(char *p, const char *key, size_t klen, bool b64)
{
	size_t o = 0;

	p[o++] = ' ';
	p[o++] = 'k';
	if (b64) {
		o += mc_b64_encode(key, klen, p + o);
		memcpy(p + o, " b", 2);
		o += 2;
	} else {
		memcpy(p + o, key, klen);
		o += klen;
	}
	return o;
}

/*
 * The version we announce: the memcached protocol level first (clients such
 * as memccapable gate 1.6 behaviour, e.g. "version foo" answering VERSION,
 * on it), then our own version.
 */
#define GB_MC_VERSION	"1.6.18-goblin-" GB_VERSION

/* memcached's item header plus "\r\n" (for "me" size=). */
#define GB_MC_ITEM_HDR	59

/* Longest meta header: "VA " + 20 + flags; keys may be base64 (344). */
#define GB_META_HDR	(3 * MC_META_FLAGS_MAX * 24 + 2 * 344 + 64)

/* A value whose tail could not be read (see gb_value_readable()). */
#define GB_MC_ERR_UNREADABLE	"SERVER_ERROR cannot read value"

/*
 * Transports send the header of a value before its bytes, and the tail
 * bytes are read only as they go out: an error there leaves the
 * transport no way but to cut the connection. Read the first tail page
 * before the header is queued, so that a tail that cannot be read (the
 * store then drops the object) is answered with SERVER_ERROR instead. An
 * error further into the tail still cuts the connection. A transient
 * error (no memory, try again: the store keeps the object) is retried as
 * the transport retries its page fetches (GB_STORE_RETRIES times,
 * GB_STORE_RETRY_MS apart) before the SERVER_ERROR, unless @retry is
 * false: a caller holding the key's meta lock (a striped lock that
 * touch, incr, append and other meta commands of unrelated keys share)
 * must not sleep under it, and answers the SERVER_ERROR at once.
 *
 * Context: process (the connection's work); sleeps if @retry.
 * Return: 0 if the value can be sent, else -errno from the store.
 */
static int gb_value_readable(struct gb_obj *obj,
			     const struct gb_trace_id *tid, bool retry)
{
	u32 head = gb_obj_head_len(obj);
	unsigned int pgoff, seg, tries = 0;
	struct page *pg;
	int err;

	if (obj->len <= head)
		return 0;
	for (;;) {
		err = gb_obj_get_page_id(obj, head, &pg, &pgoff, &seg, tid);
		if (!err)
			break;
		if (!retry || !gb_store_err_transient(err) ||
		    tries++ >= GB_STORE_RETRIES)
			return err;
		msleep(GB_STORE_RETRY_MS);
	}
	put_page(pg);
	return 0;
}

/* Returns 0, 1 if the value cannot be read, or -errno if the sink failed. */
static int gb_get_one(struct mc_req *req, struct gb_mc_sink *sink,
		      const char *key, size_t klen, bool with_cas,
		      bool touch, s64 abs)
{
	char hdr[MC_KEY_MAX + 80];
	struct gb_obj *obj;
	int n, err;

	atomic64_inc(&gb_mc_cmd_get);
	if (touch) {
		atomic64_inc(&gb_mc_cmd_touch);
		obj = gb_store_get_touch(key, klen, abs);
	} else {
		obj = gb_store_get(key, klen);
	}
	trace_gb_mc_lookup(sink->tid, klen, !!obj, obj ? obj->len : 0);
	gb_mc_prefix_record(key, klen, GB_MC_PFX_GET, obj);
	if (!obj)
		return 0;
	if (gb_value_readable(obj, sink->tid, true)) {
		gb_obj_put(obj);
		return 1;
	}
	if (with_cas)
		n = scnprintf(hdr, sizeof(hdr), "VALUE %.*s %u %llu %llu\r\n",
			      (int)klen, key, obj->flags, obj->len, READ_ONCE(obj->cas));
	else
		n = scnprintf(hdr, sizeof(hdr), "VALUE %.*s %u %llu\r\n",
			      (int)klen, key, obj->flags, obj->len);
	err = gb_text(sink, hdr, n);
	if (err) {
		gb_obj_put(obj);
		return err;
	}
	err = sink->ops->value(sink, obj);
	if (err)
		return err;
	return gb_text(sink, "\r\n", 2);
}

static int gb_mc_get(struct mc_req *req, struct gb_mc_sink *sink)
{
	bool with_cas = req->cmd == MC_CMD_GETS || req->cmd == MC_CMD_GATS;
	bool touch = req->cmd == MC_CMD_GAT || req->cmd == MC_CMD_GATS;
	s64 abs = touch ? gb_mc_abs(req->exptime) : 0;
	bool resumed = sink->resume;
	unsigned int n = 0;
	const char *key;
	size_t klen;
	int err;

	/*
	 * Like memcached when it cannot build a get response: drop what this
	 * get queued so far and answer only SERVER_ERROR.
	 */
	if (!resumed)
		sink->ops->mark(sink);
	sink->resume = false;
	for (;;) {
		/*
		 * Every key queues an object reference: pause once the
		 * transport holds enough, so that a get of thousands of keys
		 * towards a client that does not read cannot pin them all.
		 */
		if (n++ && sink->ops->full && sink->ops->full(sink)) {
			sink->resume = true;
			return GB_MC_SUSPEND;
		}
		if (!mc_next_key(req, &key, &klen))
			break;
		err = gb_get_one(req, sink, key, klen, with_cas, touch, abs);
		if (err == 1) {
			/* Part of the reply may be sent: no way to take it back. */
			if (resumed)
				return -EIO;
			sink->ops->rewind(sink);
			return gb_line(sink, GB_MC_ERR_UNREADABLE);
		}
		if (err)
			return err;
	}
	return gb_text(sink, "END\r\n", 5);
}

static __printf(5, 6) void gb_mc_stat(char *buf, size_t size, size_t *off,
				      const char *name, const char *fmt, ...)
{
	va_list ap;

	*off += scnprintf(buf + *off, size - *off, "STAT %s ", name);
	va_start(ap, fmt);
	*off += vscnprintf(buf + *off, size - *off, fmt, ap);
	va_end(ap);
	*off += scnprintf(buf + *off, size - *off, "\r\n");
}

static bool gb_stats_sub(const struct mc_req *req, const char *name)
{
	return req->klen == strlen(name) && !memcmp(req->key, name, req->klen);
}

/* The resettable counters as the store and transport count them. */
static void gb_mc_counters(u64 *c, const struct gb_store_stats *st,
			   const struct gb_xport_stats *tt)
{
	c[GB_MC_R_TOTAL_CONNS] = tt->conns_total;
	c[GB_MC_R_REJECTED] = tt->rejected;
	c[GB_MC_R_CMD_GET] = atomic64_read(&gb_mc_cmd_get);
	c[GB_MC_R_CMD_SET] = st->cmd_set;
	c[GB_MC_R_CMD_FLUSH] = atomic64_read(&gb_mc_cmd_flush);
	c[GB_MC_R_CMD_TOUCH] = atomic64_read(&gb_mc_cmd_touch);
	c[GB_MC_R_CMD_META] = atomic64_read(&gb_mc_cmd_meta);
	c[GB_MC_R_GET_HITS] = st->get_hits;
	c[GB_MC_R_GET_MISSES] = st->get_misses;
	c[GB_MC_R_GET_EXPIRED] = st->get_expired;
	c[GB_MC_R_GET_FLUSHED] = st->get_flushed;
	c[GB_MC_R_DELETE_MISSES] = st->delete_misses;
	c[GB_MC_R_DELETE_HITS] = st->delete_hits;
	c[GB_MC_R_INCR_MISSES] = st->incr_misses;
	c[GB_MC_R_INCR_HITS] = st->incr_hits;
	c[GB_MC_R_DECR_MISSES] = st->decr_misses;
	c[GB_MC_R_DECR_HITS] = st->decr_hits;
	c[GB_MC_R_CAS_MISSES] = st->cas_misses;
	c[GB_MC_R_CAS_HITS] = st->cas_hits;
	c[GB_MC_R_CAS_BADVAL] = st->cas_badval;
	c[GB_MC_R_TOUCH_HITS] = st->touch_hits;
	c[GB_MC_R_TOUCH_MISSES] = st->touch_misses;
	c[GB_MC_R_BYTES_READ] = tt->rx_bytes;
	c[GB_MC_R_BYTES_WRITTEN] = tt->tx_bytes;
	c[GB_MC_R_TOTAL_ITEMS] = st->total_items;
	c[GB_MC_R_EXPIRED_UNFETCHED] = st->expired_unfetched;
	c[GB_MC_R_EVICTIONS] = st->evictions;
	c[GB_MC_R_RECLAIMED] = st->reclaimed;
}

/*
 * "stats reset": remember the counters' current values. A counter found
 * below its base later (the transport reports 0 while it is unloaded)
 * reads 0.
 */
static noinline_for_stack void gb_mc_stats_reset(void)
{
	struct gb_store_stats st;
	struct gb_xport_stats tt;
	u64 c[GB_MC_R_NR];

	gb_store_get_stats(&st);
	gb_transport_get_stats(GB_LISTENER_MEMCACHE, &tt);
	gb_mc_counters(c, &st, &tt);
	spin_lock(&gb_mc_reset_lock);
	memcpy(gb_mc_reset_base, c, sizeof(c));
	spin_unlock(&gb_mc_reset_lock);
}

/* The resettable counters since the last "stats reset", into @c. */
static void gb_mc_counters_since_reset(u64 *c, const struct gb_store_stats *st,
				       const struct gb_xport_stats *tt)
{
	unsigned int i;

	gb_mc_counters(c, st, tt);
	spin_lock(&gb_mc_reset_lock);
	for (i = 0; i < GB_MC_R_NR; i++)
		c[i] = c[i] > gb_mc_reset_base[i] ?
		       c[i] - gb_mc_reset_base[i] : 0;
	spin_unlock(&gb_mc_reset_lock);
}

/* "stats settings": memcached's names, for the settings Goblin has. */
static int gb_mc_settings(struct gb_mc_sink *sink, char *buf, size_t size)
{
	struct gb_store_stats st;
	struct gb_xport_stats tt;
	size_t off = 0;

	gb_store_get_stats(&st);
	gb_transport_get_stats(GB_LISTENER_MEMCACHE, &tt);
	gb_mc_stat(buf, size, &off, "maxbytes", "%llu", st.memory_limit);
	gb_mc_stat(buf, size, &off, "maxconns", "%u", tt.max_conns);
	gb_mc_stat(buf, size, &off, "verbosity", "%u",
		   READ_ONCE(gb_mc_verbosity));
	gb_mc_stat(buf, size, &off, "evictions", "on");
	gb_mc_stat(buf, size, &off, "num_threads", "%u", gb_cpus_nworkers());
	gb_mc_stat(buf, size, &off, "detail_enabled", "%s",
		   READ_ONCE(gb_mc_detail) ? "yes" : "no");
	gb_mc_stat(buf, size, &off, "cas_enabled", "yes");
	gb_mc_stat(buf, size, &off, "item_size_max", "%u",
		   gb_store_item_max());
	gb_mc_stat(buf, size, &off, "flush_enabled", "yes");
	off += scnprintf(buf + off, size - off, "END\r\n");
	return gb_text(sink, buf, off);
}

/*
 * stats with a subcommand; memcached 1.6.18's answers where it has one.
 * Not inlined: its callees' statistics snapshots would add to those of
 * gb_mc_stats() in one frame (over 2 KiB under KASAN).
 */
static noinline_for_stack int gb_mc_stats_sub(struct mc_req *req,
					      struct gb_mc_sink *sink)
{
	char *buf;
	int err;

	if (gb_stats_sub(req, "detail")) {
		if (req->mode == MC_STATS_DETAIL_DUMP)
			return gb_mc_prefix_dump(sink);
		WRITE_ONCE(gb_mc_detail, req->mode == MC_STATS_DETAIL_ON);
		return gb_line(sink, "OK");
	}
	if (gb_stats_sub(req, "sizes"))
		return gb_line(sink, "STAT sizes_status disabled\r\nEND");
	if (gb_stats_sub(req, "items") || gb_stats_sub(req, "slabs") ||
	    gb_stats_sub(req, "conns"))
		return gb_text(sink, "END\r\n", 5);
	if (gb_stats_sub(req, "reset")) {
		gb_mc_stats_reset();
		gb_mc_prefix_clear();
		return gb_text(sink, "RESET\r\n", 7);
	}
	if (!gb_stats_sub(req, "settings"))
		return gb_line(sink, MC_ERR_ERROR);
	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = gb_mc_settings(sink, buf, 1024);
	kfree(buf);
	return err;
}

static int gb_mc_stats(struct mc_req *req, struct gb_mc_sink *sink)
{
	struct gb_store_stats st;
	struct gb_xport_stats tt;
	size_t size = 4096, off = 0;
	u64 c[GB_MC_R_NR];
	char *buf;
	int err;

	if (req->klen)
		return gb_mc_stats_sub(req, sink);
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	gb_store_get_stats(&st);
	/* all 0 while the transport is being unloaded */
	gb_transport_get_stats(GB_LISTENER_MEMCACHE, &tt);
	gb_mc_counters_since_reset(c, &st, &tt);
	gb_mc_stat(buf, size, &off, "pid", "%d", 0);
	gb_mc_stat(buf, size, &off, "uptime", "%lld",
		   (s64)(ktime_get_boottime_seconds() - gb_mc_started));
	gb_mc_stat(buf, size, &off, "time", "%lld",
		   (s64)ktime_get_real_seconds());
	gb_mc_stat(buf, size, &off, "version", "%s", GB_MC_VERSION);
	gb_mc_stat(buf, size, &off, "pointer_size", "%d",
		   (int)(8 * sizeof(void *)));
	gb_mc_stat(buf, size, &off, "max_connections", "%u", tt.max_conns);
	gb_mc_stat(buf, size, &off, "curr_connections", "%u", tt.conns);
	gb_mc_stat(buf, size, &off, "total_connections", "%llu",
		   c[GB_MC_R_TOTAL_CONNS]);
	gb_mc_stat(buf, size, &off, "rejected_connections", "%llu",
		   c[GB_MC_R_REJECTED]);
	gb_mc_stat(buf, size, &off, "write_stall_closes", "%llu",
		   tt.write_stalls);
	gb_mc_stat(buf, size, &off, "data_stall_closes", "%llu",
		   tt.data_stalls);
	gb_mc_stat(buf, size, &off, "cmd_get", "%llu",
		   c[GB_MC_R_CMD_GET]);
	gb_mc_stat(buf, size, &off, "cmd_set", "%llu",
		   c[GB_MC_R_CMD_SET]);
	gb_mc_stat(buf, size, &off, "cmd_flush", "%llu",
		   c[GB_MC_R_CMD_FLUSH]);
	gb_mc_stat(buf, size, &off, "cmd_touch", "%llu",
		   c[GB_MC_R_CMD_TOUCH]);
	gb_mc_stat(buf, size, &off, "cmd_meta", "%llu",
		   c[GB_MC_R_CMD_META]);
	gb_mc_stat(buf, size, &off, "get_hits", "%llu",
		   c[GB_MC_R_GET_HITS]);
	gb_mc_stat(buf, size, &off, "get_misses", "%llu",
		   c[GB_MC_R_GET_MISSES]);
	gb_mc_stat(buf, size, &off, "get_expired", "%llu",
		   c[GB_MC_R_GET_EXPIRED]);
	gb_mc_stat(buf, size, &off, "get_flushed", "%llu",
		   c[GB_MC_R_GET_FLUSHED]);
	gb_mc_stat(buf, size, &off, "delete_misses", "%llu",
		   c[GB_MC_R_DELETE_MISSES]);
	gb_mc_stat(buf, size, &off, "delete_hits", "%llu",
		   c[GB_MC_R_DELETE_HITS]);
	gb_mc_stat(buf, size, &off, "incr_misses", "%llu",
		   c[GB_MC_R_INCR_MISSES]);
	gb_mc_stat(buf, size, &off, "incr_hits", "%llu",
		   c[GB_MC_R_INCR_HITS]);
	gb_mc_stat(buf, size, &off, "decr_misses", "%llu",
		   c[GB_MC_R_DECR_MISSES]);
	gb_mc_stat(buf, size, &off, "decr_hits", "%llu",
		   c[GB_MC_R_DECR_HITS]);
	gb_mc_stat(buf, size, &off, "cas_misses", "%llu",
		   c[GB_MC_R_CAS_MISSES]);
	gb_mc_stat(buf, size, &off, "cas_hits", "%llu",
		   c[GB_MC_R_CAS_HITS]);
	gb_mc_stat(buf, size, &off, "cas_badval", "%llu",
		   c[GB_MC_R_CAS_BADVAL]);
	gb_mc_stat(buf, size, &off, "touch_hits", "%llu",
		   c[GB_MC_R_TOUCH_HITS]);
	gb_mc_stat(buf, size, &off, "touch_misses", "%llu",
		   c[GB_MC_R_TOUCH_MISSES]);
	gb_mc_stat(buf, size, &off, "bytes_read", "%llu",
		   c[GB_MC_R_BYTES_READ]);
	gb_mc_stat(buf, size, &off, "bytes_written", "%llu",
		   c[GB_MC_R_BYTES_WRITTEN]);
	gb_mc_stat(buf, size, &off, "limit_maxbytes", "%llu", st.memory_limit);
	gb_mc_stat(buf, size, &off, "threads", "%u", gb_cpus_nworkers());
	gb_mc_stat(buf, size, &off, "bytes", "%llu", st.bytes);
	gb_mc_stat(buf, size, &off, "curr_items", "%llu", st.curr_items);
	gb_mc_stat(buf, size, &off, "total_items", "%llu",
		   c[GB_MC_R_TOTAL_ITEMS]);
	gb_mc_stat(buf, size, &off, "expired_unfetched", "%llu",
		   c[GB_MC_R_EXPIRED_UNFETCHED]);
	gb_mc_stat(buf, size, &off, "evictions", "%llu",
		   c[GB_MC_R_EVICTIONS]);
	gb_mc_stat(buf, size, &off, "reclaimed", "%llu",
		   c[GB_MC_R_RECLAIMED]);
	gb_mc_stat(buf, size, &off, "tail_io_errors", "%llu",
		   st.tail_io_errors);
	gb_mc_stat(buf, size, &off, "tail_wb_errors", "%llu",
		   st.tail_wb_errors);
	gb_mc_stat(buf, size, &off, "promotions", "%llu", st.promotions);
	gb_mc_stat(buf, size, &off, "promoted_bytes", "%llu",
		   st.promoted_bytes);
	gb_mc_stat(buf, size, &off, "promotion_failures", "%llu",
		   st.promotion_failures);
	gb_mc_stat(buf, size, &off, "meta_bytes", "%llu", st.meta_bytes);
	gb_mc_stat(buf, size, &off, "detail_dropped", "%llu",
		   (u64)atomic64_read(&gb_mc_prefix_dropped));
	off += scnprintf(buf + off, size - off, "END\r\n");
	err = gb_text(sink, buf, off);
	kfree(buf);
	return err;
}

/* " O<opaque>" */
static size_t gb_put_opaque(char *p, const struct mc_req *req)
{
	p[0] = ' ';
	memcpy(p + 1, req->opaque, req->olen);
	return req->olen + 1;
}

/* " t<ttl>" for absolute expiry @exp (memcached: -1 when immortal) */
static size_t gb_put_ttl(char *p, s64 exp)
{
	s64 ttl = exp ? exp - gb_now() : -1;

	if (exp && ttl < 0)
		ttl = 0;
	return sprintf(p, " t%lld", ttl);
}

/* Echo only O and k (misses, md, ms). */
static size_t gb_meta_echo(const struct mc_req *req, char *p)
{
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < req->nmeta; i++) {
		if (req->meta[i].c == 'O')
			o += gb_put_opaque(p + o, req);
		else if (req->meta[i].c == 'k')
			o += gb_put_key(p + o, req->key, req->klen, req->b64);
	}
	return o;
}

static int gb_meta_reply(struct gb_mc_sink *sink, const char *code,
			 const struct mc_req *req, bool quiet)
{
	char *buf;
	size_t o;
	int err;

	if (quiet)
		return 0;
	buf = kmalloc(GB_META_HDR, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, code, 2);
	o = 2 + gb_meta_echo(req, buf + 2);
	buf[o++] = '\r';
	buf[o++] = '\n';
	err = gb_text(sink, buf, o);
	kfree(buf);
	return err;
}

/*
 * Create an object holding @len bytes of @data (vivify, ma), with its win
 * token taken when @won (mg N: the creator is told W, everyone after Z).
 * When stored and @objp is not NULL, *@objp gets a reference to it (not
 * to whatever replaced it meanwhile).
 */
static int gb_mc_create(const char *key, size_t klen, s64 abs, bool won,
			const void *data, size_t len, u64 *cas,
			struct gb_obj **objp)
{
	struct gb_obj *obj = gb_obj_alloc(key, klen, 0, abs, len);
	int err;

	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (len) {
		err = gb_obj_write(obj, 0, data, len);
		if (err) {
			gb_obj_put(obj);
			return err;
		}
	}
	if (won)
		gb_obj_preset_win(obj);
	if (!objp)
		return gb_store_commit_cas(obj, GB_MODE_ADD, 0, cas);
	refcount_inc(&obj->ref);
	err = gb_store_commit_cas(obj, GB_MODE_ADD, 0, cas);
	if (err == GB_STORED)
		*objp = obj;
	else
		gb_obj_put(obj);
	return err;
}

/*
 * mg, as memcached 1.6.18's process_mget_command(): the return flags in
 * request order, T and N applied where they stand (a t before T shows the
 * old TTL), h and l as they were before this access, then Z (a win was
 * sent already), X (stale) and W (this client won: N created the item, R
 * found its TTL below the token, or it is stale, and no win was sent yet).
 * T, N, R and a stale object change the meta state: that happens under
 * gb_store_meta_lock(), as memcached holds the item lock for them.
 */
static int gb_mc_mg(struct mc_req *req, struct gb_mc_sink *sink)
{
	bool created = false, want = false, won = false, z = false;
	bool stale, bump = !(req->mflags & MC_MF('u'));
	struct gb_obj_access before = { };
	bool locked = req->mflags & (MC_MF('T') | MC_MF('N') | MC_MF('R'));
	struct gb_obj *obj;
	unsigned int i;
	s64 exp, now;
	char *buf;
	size_t o;
	int err;

	atomic64_inc(&gb_mc_cmd_meta);
	atomic64_inc(&gb_mc_cmd_get);
	if (req->has_exptime)
		atomic64_inc(&gb_mc_cmd_touch);
	if (locked)
		gb_store_meta_lock(req->key, req->klen);
	obj = gb_store_get_meta(req->key, req->klen, bump, req->has_exptime,
				&before);
	if (obj && !locked && gb_obj_stale(obj)) {
		/* the win token is at stake: lock, then make sure of @obj */
		gb_store_meta_lock(req->key, req->klen);
		locked = true;
		if (!gb_obj_linked(obj)) {
			gb_obj_put(obj);
			obj = gb_store_peek(req->key, req->klen);
		}
	}
	if (!obj && (req->mflags & MC_MF('N'))) {
		/* the TTL the flags leave it with, in their order */
		exp = 0;
		for (i = 0; i < req->nmeta; i++) {
			if (req->meta[i].c == 'N')
				exp = gb_mc_abs(req->vivify);
			else if (req->meta[i].c == 'T')
				exp = gb_mc_abs(req->exptime);
		}
		err = gb_mc_create(req->key, req->klen, exp, true, NULL, 0,
				   NULL, &obj);
		created = err == GB_STORED;
		if (created) {
			/* memcached bumps the item it created too (h1 next) */
			if (bump)
				gb_obj_mark_read(obj);
			before = (struct gb_obj_access){ .atime = gb_now() };
		} else {
			/* stored by a command that does not take the lock */
			obj = gb_store_get_meta(req->key, req->klen, bump,
						false, &before);
		}
	}
	/* a vivified object is a miss, as memcached counts it */
	trace_gb_mc_lookup(sink->tid, req->klen, obj && !created,
			   obj ? obj->len : 0);
	if (!obj) {
		if (locked)
			gb_store_meta_unlock(req->key, req->klen);
		return gb_meta_reply(sink, "EN", req, req->noreply);
	}
	/* stale and win token stay put while locked (md I takes it too) */
	stale = locked && gb_obj_stale(obj);
	if ((req->mflags & MC_MF('v')) &&
	    gb_value_readable(obj, sink->tid, !locked)) {
		if (locked)
			gb_store_meta_unlock(req->key, req->klen);
		gb_obj_put(obj);
		return gb_line(sink, GB_MC_ERR_UNREADABLE);
	}

	buf = kmalloc(GB_META_HDR, GFP_KERNEL);
	if (!buf) {
		if (locked)
			gb_store_meta_unlock(req->key, req->klen);
		gb_obj_put(obj);
		return -ENOMEM;
	}
	if (req->mflags & MC_MF('v'))
		o = sprintf(buf, "VA %llu", obj->len);
	else
		o = sprintf(buf, "HD");
	/*
	 * memcached allocates a vivified item immortal, then applies T and
	 * N in order; a created object has its final TTL already.
	 */
	exp = created ? 0 : READ_ONCE(obj->exptime);
	now = gb_now();
	for (i = 0; i < req->nmeta; i++) {
		switch (req->meta[i].c) {
		case 'T':
			exp = gb_mc_abs(req->exptime);
			if (!created)
				gb_obj_set_exptime(obj, exp);
			break;
		case 'N':
			if (created)
				exp = gb_mc_abs(req->vivify);
			break;
		case 'R':
			if (!created && exp && exp < gb_mc_abs(req->recache))
				want = true;
			break;
		case 's':
			o += sprintf(buf + o, " s%llu", obj->len);
			break;
		case 't':
			o += gb_put_ttl(buf + o, exp);
			break;
		case 'c':
			o += sprintf(buf + o, " c%llu", READ_ONCE(obj->cas));
			break;
		case 'f':
			o += sprintf(buf + o, " f%u", obj->flags);
			break;
		case 'h':
			o += sprintf(buf + o, " h%d", before.fetched);
			break;
		case 'l':
			o += sprintf(buf + o, " l%lld",
				     max_t(s64, now - before.atime, 0));
			break;
		case 'O':
			o += gb_put_opaque(buf + o, req);
			break;
		case 'k':
			o += gb_put_key(buf + o, req->key, req->klen, req->b64);
			break;
		}
	}
	if (created) {
		won = true;
	} else {
		if (stale)
			want = true;
		/* one winner: the token is taken under the lock */
		if (want)
			won = gb_obj_claim_win(obj);
		z = want ? !won : gb_obj_win_sent(obj);
	}
	if (locked)
		gb_store_meta_unlock(req->key, req->klen);
	if (z) {
		memcpy(buf + o, " Z", 2);
		o += 2;
	}
	if (stale) {
		memcpy(buf + o, " X", 2);
		o += 2;
	}
	if (won) {
		memcpy(buf + o, " W", 2);
		o += 2;
	}
	buf[o++] = '\r';
	buf[o++] = '\n';
	err = gb_text(sink, buf, o);
	kfree(buf);
	if (err || !(req->mflags & MC_MF('v'))) {
		gb_obj_put(obj);
		return err;
	}
	err = sink->ops->value(sink, obj);
	if (err)
		return err;
	return gb_text(sink, "\r\n", 2);
}

/* md, with I (mark stale, new cas, T sets the TTL) like memcached 1.6.18 */
static int gb_mc_md(struct mc_req *req, struct gb_mc_sink *sink)
{
	s64 exp;
	int ret;

	atomic64_inc(&gb_mc_cmd_meta);
	if (req->mflags & MC_MF('I')) {
		exp = gb_mc_abs(req->exptime);
		ret = gb_store_invalidate(req->key, req->klen, req->cas,
					  req->has_exptime ? &exp : NULL);
	} else {
		ret = gb_store_delete(req->key, req->klen, req->cas);
	}
	switch (ret) {
	case GB_STORED:
		return gb_meta_reply(sink, "HD", req, req->noreply);
	case GB_EXISTS:
		return gb_meta_reply(sink, "EX", req, false);
	case GB_NOT_FOUND:
		return gb_meta_reply(sink, "NF", req, false);
	default:
		return gb_line(sink, "SERVER_ERROR out of memory");
	}
}

/*
 * ma, as memcached 1.6.18: T sets the TTL in the same step as the
 * arithmetic (under the store's read-modify-write lock), a value N
 * creates gets N's TTL or T's, whichever comes last, and t shows the TTL
 * as of its place among the flags.
 */
static int gb_mc_ma(struct mc_req *req, struct gb_mc_sink *sink)
{
	struct gb_arith_res res = { };
	s64 exp_t = gb_mc_abs(req->exptime);
	bool created = false;
	char num[24];
	unsigned int i;
	char *buf;
	size_t o;
	int ret, n;
	s64 exp;

	atomic64_inc(&gb_mc_cmd_meta);
	ret = gb_store_arith(req->key, req->klen, req->mode == 1, req->delta,
			     req->cas, req->has_exptime ? &exp_t : NULL, &res);
	if (ret == GB_NOT_FOUND && (req->mflags & MC_MF('N'))) {
		/* the expiry the flags leave it with, in their order */
		exp = 0;
		for (i = 0; i < req->nmeta; i++) {
			if (req->meta[i].c == 'N')
				exp = gb_mc_abs(req->vivify);
			else if (req->meta[i].c == 'T')
				exp = exp_t;
		}
		n = scnprintf(num, sizeof(num), "%llu", req->initial);
		ret = gb_mc_create(req->key, req->klen, exp, false, num, n,
				   &res.cas, NULL);
		if (ret == GB_STORED) {
			created = true;
			res.value = req->initial;
			res.old_exp = 0;
			res.exp = exp;
		} else if (ret == GB_NOT_STORED) {
			/* lost the race to create it: count on the winner's */
			ret = gb_store_arith(req->key, req->klen,
					     req->mode == 1, req->delta,
					     req->cas,
					     req->has_exptime ? &exp_t : NULL,
					     &res);
		}
	}
	if (ret == -EINVAL)
		return gb_line(sink, MC_ERR_NON_NUMERIC);
	if (ret == GB_NOT_FOUND)
		return gb_meta_reply(sink, "NF", req, false);
	if (ret == GB_EXISTS)
		return gb_meta_reply(sink, "EX", req, false);
	if (ret < 0)
		return gb_line(sink, gb_mc_store_err(ret,
						     "SERVER_ERROR out of memory"));
	if (req->noreply)
		return 0;

	buf = kmalloc(GB_META_HDR, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	n = scnprintf(num, sizeof(num), "%llu", res.value);
	if (req->mflags & MC_MF('v'))
		o = sprintf(buf, "VA %d", n);
	else
		o = sprintf(buf, "HD");
	exp = res.old_exp;
	for (i = 0; i < req->nmeta; i++) {
		switch (req->meta[i].c) {
		case 'c':
			o += sprintf(buf + o, " c%llu", res.cas);
			break;
		case 't':
			o += gb_put_ttl(buf + o, exp);
			break;
		case 'T':
			exp = exp_t;
			break;
		case 'N':
			if (created)
				exp = gb_mc_abs(req->vivify);
			break;
		case 'O':
			o += gb_put_opaque(buf + o, req);
			break;
		case 'k':
			o += gb_put_key(buf + o, req->key, req->klen, req->b64);
			break;
		}
	}
	buf[o++] = '\r';
	buf[o++] = '\n';
	if (req->mflags & MC_MF('v')) {
		memcpy(buf + o, num, n);
		o += n;
		buf[o++] = '\r';
		buf[o++] = '\n';
	}
	ret = gb_text(sink, buf, o);
	kfree(buf);
	return ret;
}

/*
 * "me <key>": memcached's debug line. Fields the store does not track are
 * constant (la=0, fetch=no, cls=1); exp uses memcached's formula (now -
 * exptime, -1 when immortal) and size its item size estimate.
 */
static int gb_mc_me(struct mc_req *req, struct gb_mc_sink *sink)
{
	struct gb_obj *obj;
	char *buf;
	size_t o;
	int err;

	atomic64_inc(&gb_mc_cmd_meta);
	obj = gb_store_get(req->key, req->klen);
	if (!obj)
		return gb_text(sink, "EN\r\n", 4);
	buf = kmalloc(GB_META_HDR, GFP_KERNEL);
	if (!buf) {
		gb_obj_put(obj);
		return -ENOMEM;
	}
	memcpy(buf, "ME ", 3);
	o = 3;
	if (req->b64) {
		o += mc_b64_encode(obj->key, obj->klen, buf + o);
	} else {
		memcpy(buf + o, obj->key, obj->klen);
		o += obj->klen;
	}
	o += scnprintf(buf + o, GB_META_HDR - o,
		       " exp=%lld la=0 cas=%llu fetch=no cls=1 size=%llu\r\n",
		       obj->exptime ? gb_now() - obj->exptime : -1LL, READ_ONCE(obj->cas),
		       obj->len + obj->klen + GB_MC_ITEM_HDR);
	gb_obj_put(obj);
	err = gb_text(sink, buf, o);
	kfree(buf);
	return err;
}

static int gb_mc_arith(struct mc_req *req, struct gb_mc_sink *sink)
{
	struct gb_arith_res res;
	char num[24];
	int ret, n;

	ret = gb_store_arith(req->key, req->klen, req->cmd == MC_CMD_DECR,
			     req->delta, 0, NULL, &res);
	if (req->noreply)
		return 0;
	switch (ret) {
	case GB_STORED:
		n = scnprintf(num, sizeof(num), "%llu\r\n", res.value);
		return gb_text(sink, num, n);
	case GB_NOT_FOUND:
		return gb_line(sink, "NOT_FOUND");
	case -EINVAL:
		return gb_line(sink, MC_ERR_NON_NUMERIC);
	default:
		return gb_line(sink, gb_mc_store_err(ret,
						     "SERVER_ERROR out of memory"));
	}
}

int gb_mc_exec(struct mc_req *req, struct gb_mc_sink *sink)
{
	int ret = 0;
	s64 when;

	switch (req->cmd) {
	case MC_CMD_ERROR:
		if (!req->err_quiet)
			ret = gb_line(sink, req->err);
		break;
	case MC_CMD_GET:
	case MC_CMD_GETS:
	case MC_CMD_GAT:
	case MC_CMD_GATS:
		ret = gb_mc_get(req, sink);
		if (ret == GB_MC_SUSPEND)
			return ret;
		break;
	case MC_CMD_DELETE:
		gb_mc_prefix_record(req->key, req->klen, GB_MC_PFX_DEL, false);
		ret = gb_store_delete(req->key, req->klen, 0);
		if (!req->noreply)
			ret = gb_line(sink, ret == GB_STORED ? "DELETED" :
				      "NOT_FOUND");
		else
			ret = 0;
		break;
	case MC_CMD_INCR:
	case MC_CMD_DECR:
		ret = gb_mc_arith(req, sink);
		break;
	case MC_CMD_TOUCH:
		atomic64_inc(&gb_mc_cmd_touch);
		ret = gb_store_touch(req->key, req->klen,
				     gb_mc_abs(req->exptime));
		if (!req->noreply)
			ret = gb_line(sink, ret == GB_STORED ? "TOUCHED" :
				      "NOT_FOUND");
		else
			ret = 0;
		break;
	case MC_CMD_FLUSH_ALL:
		atomic64_inc(&gb_mc_cmd_flush);
		if (req->has_exptime && req->exptime > 0)
			when = gb_mc_abs(req->exptime) - 1;
		else
			when = gb_now();
		gb_store_flush(when);
		if (!req->noreply)
			ret = gb_line(sink, "OK");
		break;
	case MC_CMD_VERSION:
		ret = gb_line(sink, "VERSION " GB_MC_VERSION);
		break;
	case MC_CMD_VERBOSITY:
		WRITE_ONCE(gb_mc_verbosity, req->verbosity);
		if (!req->noreply)
			ret = gb_line(sink, "OK");
		break;
	case MC_CMD_STATS:
		ret = gb_mc_stats(req, sink);
		break;
	case MC_CMD_QUIT:
		return GB_MC_CLOSE;
	case MC_CMD_MG:
		ret = gb_mc_mg(req, sink);
		break;
	case MC_CMD_MD:
		ret = gb_mc_md(req, sink);
		break;
	case MC_CMD_MA:
		ret = gb_mc_ma(req, sink);
		break;
	case MC_CMD_MN:
		ret = gb_text(sink, "MN\r\n", 4);
		break;
	case MC_CMD_ME:
		ret = gb_mc_me(req, sink);
		break;
	default:
		/* Storage commands never come here. */
		ret = gb_line(sink, MC_ERR_ERROR);
		break;
	}
	return ret < 0 ? ret : GB_MC_CONTINUE;
}

void gb_mc_store_begin(const struct mc_req *req, struct gb_mc_store_op *op)
{
	struct gb_obj *obj;
	s64 abs;

	memset(op, 0, sizeof(*op));
	op->cmd = req->cmd;
	op->vlen = req->vlen;
	op->noreply = req->noreply;
	op->cas = req->cas;
	op->klen = req->klen;
	memcpy(op->key, req->key, req->klen);

	if (req->cmd == MC_CMD_ERROR) {
		/* A meta set error: swallow, then always report. */
		op->err = req->err;
		return;
	}
	switch (req->cmd) {
	case MC_CMD_ADD:
		op->mode = GB_MODE_ADD;
		break;
	case MC_CMD_REPLACE:
		op->mode = GB_MODE_REPLACE;
		break;
	case MC_CMD_APPEND:
		op->mode = GB_MODE_APPEND;
		break;
	case MC_CMD_PREPEND:
		op->mode = GB_MODE_PREPEND;
		break;
	case MC_CMD_CAS:
		op->mode = GB_MODE_CAS;
		break;
	case MC_CMD_MS:
		atomic64_inc(&gb_mc_cmd_meta);
		op->ret_c = !!(req->mflags & MC_MF('c'));
		op->ret_k = !!(req->mflags & MC_MF('k'));
		op->b64 = req->b64;
		op->olen = req->olen;
		memcpy(op->opaque, req->opaque, req->olen);
		/*
		 * memcached 1.6.18: C turns set and replace into cas (with I,
		 * an older cas stores the value stale), append and prepend
		 * compare it, add ignores it.
		 */
		switch (req->mode) {
		case MC_MS_ADD:
			op->mode = GB_MODE_ADD;
			op->cas = 0;
			break;
		case MC_MS_APPEND:
			op->mode = GB_MODE_APPEND;
			break;
		case MC_MS_PREPEND:
			op->mode = GB_MODE_PREPEND;
			break;
		default:
			if (!(req->mflags & MC_MF('C')))
				op->mode = req->mode == MC_MS_REPLACE ?
					   GB_MODE_REPLACE : GB_MODE_SET;
			else if (req->mflags & MC_MF('I'))
				op->mode = GB_MODE_CAS_STALE;
			else
				op->mode = GB_MODE_CAS;
			break;
		}
		break;
	default:
		op->mode = GB_MODE_SET;
		break;
	}
	if (req->cmd != MC_CMD_MS)
		gb_mc_prefix_record(req->key, req->klen, GB_MC_PFX_SET, false);

	abs = req->cmd == MC_CMD_MS && !req->has_exptime ? 0 :
	      gb_mc_abs(req->exptime);
	/* memcached's -I: item_max value bytes (Documentation/memcache.rst) */
	if (req->vlen > gb_store_item_max())
		obj = ERR_PTR(-E2BIG);
	else
		obj = gb_obj_alloc(req->key, req->klen, req->flags, abs,
				   req->vlen);
	if (IS_ERR(obj)) {
		/*
		 * -EINVAL: the store refuses keys with control bytes (see
		 * Documentation/memcache.rst); memcached would store them.
		 */
		if (PTR_ERR(obj) == -EINVAL)
			op->err = MC_ERR_FORMAT;
		else if (PTR_ERR(obj) == -E2BIG)
			op->err = MC_ERR_TOO_LARGE;
		else
			op->err = MC_ERR_NO_MEMORY;
		/* memcached: classic errors obey noreply, meta always show. */
		op->err_quiet = req->cmd != MC_CMD_MS && req->noreply;
		/* Never leave a stale value behind a failed SET. */
		if (op->mode == GB_MODE_SET)
			gb_store_drop(req->key, req->klen);
		return;
	}
	op->obj = obj;
}

void gb_mc_store_abort(struct gb_mc_store_op *op)
{
	if (op->obj)
		gb_obj_put(op->obj);
	op->obj = NULL;
}

static int gb_ms_reply(struct gb_mc_store_op *op, const char *code,
		       u64 cas, struct gb_mc_sink *sink)
{
	char *buf = kmalloc(GB_META_HDR, GFP_KERNEL);
	size_t o = 2;
	int err;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, code, 2);
	if (op->ret_c && code[0] == 'H')
		o += sprintf(buf + o, " c%llu", cas);
	if (op->olen) {
		buf[o++] = ' ';
		memcpy(buf + o, op->opaque, op->olen);
		o += op->olen;
	}
	if (op->ret_k)
		o += gb_put_key(buf + o, op->key, op->klen, op->b64);
	buf[o++] = '\r';
	buf[o++] = '\n';
	err = gb_text(sink, buf, o);
	kfree(buf);
	return err;
}

int gb_mc_store_end(struct gb_mc_store_op *op, bool chunk_ok,
		    struct gb_mc_sink *sink)
{
	static const char * const classic[] = {
		[GB_STORED] = "STORED", [GB_NOT_STORED] = "NOT_STORED",
		[GB_EXISTS] = "EXISTS", [GB_NOT_FOUND] = "NOT_FOUND",
	};
	static const char * const meta[] = {
		[GB_STORED] = "HD", [GB_NOT_STORED] = "NS",
		[GB_EXISTS] = "EX", [GB_NOT_FOUND] = "NF",
	};
	bool is_meta = op->cmd == MC_CMD_MS;
	u64 cas = 0;
	int ret;

	if (!op->obj) {
		if (op->err && !op->err_quiet)
			return gb_line(sink, op->err);
		return 0;
	}
	if (!chunk_ok) {
		gb_mc_store_abort(op);
		if (op->noreply && !is_meta)
			return 0;
		return gb_line(sink, MC_ERR_BAD_CHUNK);
	}
	if (is_meta)
		ret = gb_store_commit_cas(op->obj, op->mode, op->cas, &cas);
	else
		ret = gb_store_commit(op->obj, op->mode, op->cas);
	op->obj = NULL;
	if (ret < 0) {
		if (op->noreply && !is_meta)
			return 0;
		return gb_line(sink, gb_mc_store_err(ret, ret == -E2BIG ?
						     MC_ERR_TOO_LARGE :
						     MC_ERR_NO_MEMORY));
	}
	if (ret > GB_NOT_FOUND)
		ret = GB_NOT_STORED;
	if (is_meta) {
		if (ret == GB_STORED && op->noreply)
			return 0;
		return gb_ms_reply(op, meta[ret], cas, sink);
	}
	if (op->noreply)
		return 0;
	return gb_line(sink, classic[ret]);
}
