/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libgoblin: userspace client library for Goblin Store.
 *
 * One API, two transports: the native Goblin RDMA protocol (RC QP through
 * librdmacm/libibverbs) and the classic memcache text protocol over TCP.
 *
 * Thread model: a struct gb_conn belongs to one thread at a time. Open one
 * connection per thread; the library keeps no global mutable state, so
 * connections in different threads never interfere.
 *
 * Return convention: every function returning int returns 0 on success or a
 * negative GB_E* code. gb_strerror() names the code; gb_errmsg() gives the
 * detailed message of the last failure on a connection (for example the
 * text a server sent with SERVER_ERROR).
 *
 * ABI: the library never depends on the size of a structure the caller
 * allocates. Every function taking or filling such a structure (struct
 * gb_connect_opts, struct gb_view, and those of <goblin/fleet.h>) is an
 * inline wrapper passing sizeof() of the caller's structure to a *_sz
 * entry point; fields are only ever appended, and a library accepts the
 * sizes of every older version of its headers, and those of newer ones
 * whose fields it does not know are 0 (else -GB_ENOTSUP). struct
 * gb_timestamps is frozen: it never changes.
 * The one exception so far: 0.3 appended to struct gb_connect_opts, which
 * moved the fields of struct gb_fleet_server after its embedded conn.
 * The three fleet calls taking that structure got new symbol versions
 * (LIBGOBLIN_1.2; the LIBGOBLIN_1 ones keep taking the 0.1/0.2 layout),
 * so a program built with these headers needs libgoblin 0.3 or later:
 * an older library is refused by the dynamic loader, not misread.
 * struct gb_connect_opts now keeps reserved room for later options, so
 * that it, and with it struct gb_fleet_server, never grows again.
 *
 * See libgoblin(3) and Documentation/libgoblin.rst.
 */
#ifndef _GOBLIN_CLIENT_H
#define _GOBLIN_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <goblin/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden: these are its API. */
#pragma GCC visibility push(default)

#define GB_KEY_MAX	250			/* bytes */
#define GB_VALUE_MAX	(16u * 1024 * 1024)	/* bytes */

enum gb_transport {
	GB_TRANSPORT_TCP = 0,	/* memcache text protocol */
	GB_TRANSPORT_RDMA = 1,	/* Goblin RDMA protocol over RC */
};

/* Error codes; functions return them negated. */
enum gb_error {
	GB_OK = 0,
	GB_ENOTFOUND,	/* key not found */
	GB_ENOTSTORED,	/* server did not store the value */
	GB_EKEYLEN,	/* key empty or longer than GB_KEY_MAX */
	GB_EKEY,	/* key has bytes the transport cannot carry */
	GB_EVALLEN,	/* value larger than GB_VALUE_MAX or server limit */
	GB_EREJECTED,	/* server rejected the request (reason in errmsg) */
	GB_ESERVER,	/* server-side failure (text in errmsg) */
	GB_ECONNLOST,	/* connection lost; the gb_conn is now unusable */
	GB_ECONNECT,	/* could not establish the connection */
	GB_EPROTO,	/* malformed or unexpected response; conn unusable */
	GB_ETIMEDOUT,	/* no progress within the timeout; conn unusable */
	GB_ENOMEM,	/* out of memory */
	GB_EINVAL,	/* invalid argument */
	GB_ENOSPC,	/* user buffer too small (needed size reported) */
	GB_EBUSY,	/* too many views held: release one first */
	GB_ENOTSUP,	/* transport or server does not support this */
	GB_ESYS,	/* system call failed (errno text in errmsg) */
	GB_ECRC,	/* value failed its CRC check (checked at its last
			 * chunk: earlier chunks were shown); the connection
			 * stays usable (LIBGOBLIN_1.1)
			 */
	GB_ERROR_MAX,
};

/**
 * struct gb_connect_opts - how to reach a server
 * @transport:   GB_TRANSPORT_TCP or GB_TRANSPORT_RDMA
 * @host:        address or host name of the server
 * @port:        port (TCP port, or RDMA CM port)
 * @bind_host:   local address to connect from (NULL = any); for RDMA this
 *               also picks the device
 * @window_size: RDMA: bytes per receive window (0 = library default)
 * @windows:     RDMA: receive windows per connection (0 = default)
 * @credits:     RDMA: outstanding control messages (0 = default)
 * @set_max:     RDMA: largest value gb_set() can send; sizes the registered
 *               staging area (0 = GB_VALUE_MAX)
 * @timeout_ms:  per-operation I/O timeout; 0 = 10 s, negative = none
 * @spin_us:     RDMA: busy-poll the completion queue for up to this many
 *               microseconds before sleeping on the completion channel;
 *               0 = library default (GB_SPIN_US_DEFAULT), negative = never
 *               spin (always sleep). Spinning trades a CPU for lower
 *               latency.
 * @one_sided:   RDMA: 1 = ask the server for one-sided reads (protocol
 *               3.3, see gb_get_onesided()), 0 = do not (default); other
 *               values are refused (GB_EINVAL). GOBLIN_RDMA_ONESIDED=1 or
 *               =0 in the environment overrides it. Ignored over TCP
 *               and in a fleet's servers (see <goblin/fleet.h>). Since
 *               0.3; a library older than 0.3 refuses a nonzero value
 *               with -GB_ENOTSUP.
 * @reserved:    must be 0 (gb_connect_opts_init() clears it), else
 *               -GB_ENOTSUP: room for the options of later versions, so
 *               that this structure (and struct gb_fleet_server, which
 *               embeds it) keeps its size. Since 0.3.
 * Call gb_connect_opts_init() first so new fields get defaults. New
 * options take slots of @reserved (see the ABI note at the top).
 */
struct gb_connect_opts {
	enum gb_transport transport;
	const char *host;
	uint16_t port;
	const char *bind_host;
	uint32_t window_size;
	uint32_t windows;
	uint32_t credits;
	uint32_t set_max;
	int timeout_ms;
	int spin_us;
	int one_sided;
	uint32_t reserved[5];	/* no tail padding on LP64 nor ILP32 */
};

/* Default RDMA busy-poll period before sleeping (see gb_connect_opts). */
#define GB_SPIN_US_DEFAULT 50

/**
 * struct gb_timestamps - CLOCK_MONOTONIC times (ns) of one request
 * @submit_ns:   request handed to the transport
 * @header_ns:   response header seen (value length known)
 * @payload_ns:  all value bytes present in client memory
 * @complete_ns: response fully processed
 *
 * Fields not applicable to an operation (e.g. payload for a set) are 0.
 * This structure is frozen (part of the ABI of struct gb_view and
 * gb_get_copy()): it never gains fields.
 */
struct gb_timestamps {
	uint64_t submit_ns;
	uint64_t header_ns;
	uint64_t payload_ns;
	uint64_t complete_ns;
};

struct gb_conn;

/**
 * struct gb_view - zero-copy view of one chunk of a value
 * @data:   first byte of this chunk (read-only, library-owned memory)
 * @len:    bytes in this chunk
 * @offset: offset of this chunk within the value
 * @total:  length of the whole value
 * @flags:  client flags stored with the value
 * @ts:     timestamps of the request (payload/complete set at last chunk)
 * @conn:   connection the view belongs to (private)
 * @priv:   transport state (private)
 * @slot:   transport state (private)
 *
 * Over RDMA @data points into the registered receive window the server
 * wrote the chunk to; a value larger than one window arrives as several
 * chunks in successive windows. Over TCP the whole value is one chunk.
 *
 * The caller provides the memory but the library knows its size (gb_get()
 * passes sizeof(*v)): later versions append public fields after @slot and
 * fill them only for callers whose structure has them.
 */
struct gb_view {
	const void *data;
	size_t len;
	uint64_t offset;
	uint64_t total;
	uint32_t flags;
	struct gb_timestamps ts;
	struct gb_conn *conn;
	void *priv;
	int slot;
};

/* True when @v holds the last chunk of its value. */
static inline int gb_view_last(const struct gb_view *v)
{
	return v->offset + v->len >= v->total;
}

/**
 * typedef gb_chunk_fn - receives the results of gb_get_many()
 * @arg:    caller cookie
 * @idx:    index of the key in the batch
 * @status: 0 when @v holds a chunk, else a negative GB_E* (e.g.
 *          -GB_ENOTFOUND); then @v only has timestamps
 * @v:      the chunk; valid only during the call
 *
 * Chunks of one value come in order; chunks of different keys may
 * interleave over RDMA. The call with gb_view_last(v) true, or with
 * @status != 0, is the last one for @idx.
 */
typedef void (*gb_chunk_fn)(void *arg, size_t idx, int status,
			    const struct gb_view *v);

/*
 * Value CRCs: an RDMA connection asks the server for the CRC-32C of every
 * value it stored with one (server store setting crc) and checks the bytes
 * it receives against it. The check completes with the value's last chunk:
 * a value that does not match fails with -GB_ECRC there, from gb_get_copy()
 * (@buf then holds bytes that must not be used), from the gb_get() or
 * gb_view_next() that would have returned the last chunk (the view then
 * has no data), or as the key's status in gb_get_many() instead of its
 * last chunk. A value that arrives in several chunks (larger than one
 * window) has had its earlier chunks handed out already: a zero-copy
 * reader must not act on a value before its last chunk came without an
 * error. A server too old to know CRCs is connected to without them.
 * gb_crc_verify(c, 0) stops the checks on @c (gb_crc_verify(c, 1) resumes
 * them) and returns the previous setting (1 or 0) or -GB_EINVAL.
 */

/**
 * struct gb_crc_stats - value CRC checks on one connection
 * @verified:   values whose bytes matched the CRC the server sent
 * @mismatched: values whose bytes did not (their gets failed -GB_ECRC)
 * @unverified: values received complete without a CRC to check (stored
 *              with the server's crc setting off, a server without CRCs,
 *              or checks turned off with gb_crc_verify())
 * @active:     1 when the server agreed to send CRCs on this connection
 *
 * Only RDMA connections carry CRCs; on a TCP connection all are 0.
 *
 * Fields are only ever appended (see the ABI note at the top).
 */
struct gb_crc_stats {
	uint64_t verified;
	uint64_t mismatched;
	uint64_t unverified;
	uint32_t active;
};

/*
 * One-sided reads (RDMA protocol 3.3): with gb_connect_opts.one_sided = 1
 * (or GOBLIN_RDMA_ONESIDED=1 in the environment at connect), an RDMA
 * connection asks the server for them; the server grants them while its
 * store setting rdma_lease_ms is not 0.
 * gb_get_onesided() and gb_get_many_onesided() then resolve keys with one
 * LOOKUP per batch of up to 12 and RDMA-READ each value from the server's
 * memory, with no server CPU on the data path (gb_get_many_onesided()
 * keeps the READs of a batch in flight together, as many as the
 * connection's READ depth allows, at most 16); a value in a tail file,
 * larger than 512 KiB, without a lease free, whose lease ran out before
 * its READ, or whose bytes fail their CRC, is fetched two-sided instead
 * (counted in fallbacks). Without the grant, over TCP, or when the server
 * turned the setting off, they are gb_get_copy() and gb_get_many().
 */

/**
 * struct gb_onesided_stats - one-sided reads on one connection
 * @lookups:   LOOKUP records sent
 * @reads:     values read one-sided
 * @read_bytes: their bytes
 * @fallbacks: keys found but read two-sided (see above)
 * @crc_fallbacks: of those, values whose one-sided bytes failed the CRC
 * @active:    1 when the server granted one-sided reads at connect
 * @read_depth_max: most READs this connection had in flight at once
 *             (posted together, completions not yet taken): how far
 *             gb_get_many_onesided() pipelined. Always 0 from the
 *             first library with one-sided reads, which READ one value
 *             at a time (the field took the structure's tail padding:
 *             its size did not change).
 *
 * Fields are only ever appended (see the ABI note at the top).
 */
struct gb_onesided_stats {
	uint64_t lookups;
	uint64_t reads;
	uint64_t read_bytes;
	uint64_t fallbacks;
	uint64_t crc_fallbacks;
	uint32_t active;
	uint32_t read_depth_max;
};

/* Sized entry points behind the inline wrappers below. */
void gb_connect_opts_init_sz(struct gb_connect_opts *o, size_t size);
int gb_connect_sz(const struct gb_connect_opts *o, size_t size,
		  struct gb_conn **connp);
int gb_get_sz(struct gb_conn *c, const char *key, size_t klen,
	      struct gb_view *v, size_t size);
int gb_view_next_sz(struct gb_view *v, size_t size);
void gb_release_sz(struct gb_view *v, size_t size);
int gb_crc_stats_sz(const struct gb_conn *c, struct gb_crc_stats *st,
		    size_t size);
int gb_crc_verify(struct gb_conn *c, int on);
int gb_onesided_stats_sz(const struct gb_conn *c,
			 struct gb_onesided_stats *st, size_t size);

/* Version of the library in use (GB_VERSION_* give the headers'). */
const char *gb_version(void);
unsigned int gb_version_number(void);	/* GB_VERSION_ENCODE() form */

void gb_close(struct gb_conn *c);

const char *gb_strerror(int err);
const char *gb_errmsg(const struct gb_conn *c);
const char *gb_transport_name(enum gb_transport t);
const char *gb_rdma_reject_str(unsigned int reason);
int gb_transport_parse(const char *name, enum gb_transport *t);

int gb_get_copy(struct gb_conn *c, const char *key, size_t klen,
		void *buf, size_t buflen, size_t *vlen, uint32_t *flags,
		struct gb_timestamps *ts);

int gb_get_many(struct gb_conn *c, size_t n, const char *const *keys,
		const size_t *klens, gb_chunk_fn fn, void *arg);
int gb_get_onesided(struct gb_conn *c, const char *key, size_t klen,
		    void *buf, size_t buflen, size_t *vlen, uint32_t *flags);
int gb_get_many_onesided(struct gb_conn *c, size_t n,
			 const char *const *keys, const size_t *klens,
			 gb_chunk_fn fn, void *arg);

/*
 * Manifest reads: gb_get_many_into() fetches a batch of keys like
 * gb_get_many_onesided() (one-sided where granted, else two-sided, over
 * TCP too) and lands the values back to back in one buffer of the
 * caller's, reporting where each one went.
 */

/**
 * struct gb_into_result - where gb_get_many_into() put one key's value
 * @offset: with @status 0: offset of the value's first byte in dst
 * @len:    with @status 0: value length; with -GB_ENOSPC: the bytes it
 *          would have needed (it did not fit in what was left of dst)
 * @flags:  with @status 0: the value's client flags
 * @status: 0, or the key's negative GB_E* code (-GB_ENOTFOUND,
 *          -GB_ENOSPC, -GB_ECRC, -GB_EKEY, or the error that ended the
 *          call for the keys it did not reach)
 *
 * An array of them is filled, one per key, in key order. Fields are only
 * ever appended (see the ABI note at the top): gb_get_many_into() passes
 * sizeof() of the caller's structure, the array's stride.
 */
struct gb_into_result {
	uint64_t offset;
	uint64_t len;
	uint32_t flags;
	int32_t status;
};

int gb_get_many_into_sz(struct gb_conn *c, size_t n, const char *const *keys,
			const size_t *klens, void *dst, size_t dstlen,
			struct gb_into_result *res, size_t size);

int gb_set(struct gb_conn *c, const char *key, size_t klen,
	   const void *val, size_t vlen, uint32_t flags, uint32_t exptime);
int gb_delete(struct gb_conn *c, const char *key, size_t klen);
int gb_touch(struct gb_conn *c, const char *key, size_t klen,
	     uint32_t exptime);

void gb_last_timestamps(const struct gb_conn *c, struct gb_timestamps *ts);

#pragma GCC visibility pop

static inline void gb_connect_opts_init(struct gb_connect_opts *o)
{
	gb_connect_opts_init_sz(o, sizeof(*o));
}

static inline int gb_connect(const struct gb_connect_opts *o,
			     struct gb_conn **connp)
{
	return gb_connect_sz(o, sizeof(*o), connp);
}

static inline int gb_get(struct gb_conn *c, const char *key, size_t klen,
			 struct gb_view *v)
{
	return gb_get_sz(c, key, klen, v, sizeof(*v));
}

static inline int gb_view_next(struct gb_view *v)
{
	return gb_view_next_sz(v, sizeof(*v));
}

static inline void gb_release(struct gb_view *v)
{
	gb_release_sz(v, sizeof(*v));
}

/* Counters of the one-sided reads on @c (struct gb_onesided_stats). */
static inline int gb_onesided_stats(const struct gb_conn *c,
				    struct gb_onesided_stats *st)
{
	return gb_onesided_stats_sz(c, st, sizeof(*st));
}

/**
 * gb_get_many_into() - fetch a batch of keys into one buffer (a manifest)
 * @c:      connection
 * @n:      number of keys
 * @keys:   key pointers
 * @klens:  key lengths
 * @dst:    where the values land (may be NULL when @dstlen is 0)
 * @dstlen: its size
 * @res:    @n results, filled in key order (struct gb_into_result)
 *
 * Values land back to back from @dst on, in the order they arrive (not
 * key order: hits read one-sided first, then the keys that went
 * two-sided), each at the offset its result gives, with no padding
 * between them. A value that does not fit in what is left of @dst gets
 * -GB_ENOSPC and its length, and takes no room: smaller ones after it may
 * still fit. A key that fails after some of its bytes landed (-GB_ECRC at
 * its last chunk, or the connection lost) leaves that room used. The
 * bytes are copied from the library's own receive buffers, the same ones
 * gb_get_many_onesided() hands out: one copy per value, @dst is not
 * registered with the device.
 *
 * Return: 0 when every key has its result in @res (each with its own
 * status), -GB_EINVAL for bad arguments (@res untouched), or the error
 * that ended the connection (the keys not reached have it as status).
 */
static inline int gb_get_many_into(struct gb_conn *c, size_t n,
				   const char *const *keys,
				   const size_t *klens, void *dst,
				   size_t dstlen, struct gb_into_result *res)
{
	return gb_get_many_into_sz(c, n, keys, klens, dst, dstlen, res,
				   sizeof(*res));
}

/* Counters of the value CRC checks on @c (struct gb_crc_stats). */
static inline int gb_crc_stats(const struct gb_conn *c,
			       struct gb_crc_stats *st)
{
	return gb_crc_stats_sz(c, st, sizeof(*st));
}

#ifdef __cplusplus
}
#endif

#endif /* _GOBLIN_CLIENT_H */
