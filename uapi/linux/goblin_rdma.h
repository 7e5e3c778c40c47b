/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Goblin Store native RDMA protocol, version 3.
 *
 * Transport: one RDMA RC queue pair per connection, set up with rdma_cm
 * (RDMA_PS_TCP). Every field below is little-endian. Every structure has a
 * fixed size checked by static assertions at the end of this file.
 *
 * 1. Connection setup
 *
 *    The client connects with struct gb_rdma_connect as private data. The
 *    transport may pad it; the server always reads GB_RDMA_CONNECT_SIZE (56)
 *    bytes, missing bytes being zero. The client describes its bulk windows:
 *    window_count windows of window_size bytes each, window i starting at
 *    remote address window_base + i * window_size, all covered by rkey, which
 *    must allow remote write. region_len (>= window_count * window_size)
 *    is the length of the client memory starting at window_base that the
 *    server may access with rkey; bytes past the windows may be used as
 *    staging for SET values (needs remote read). The client also says how
 *    many receive buffers it posted (credits: records the server may send).
 *
 *    The server either accepts with struct gb_rdma_accept as private data or
 *    rejects with struct gb_rdma_reject (reason code, printable with
 *    gb_rdma_reject_str() in libgoblin). The server may use fewer windows
 *    than offered (accept.windows; it then only uses windows 0..windows-1).
 *
 * 2. Records
 *
 *    After setup, both sides exchange records of exactly GB_RDMA_RECORD_SIZE
 *    (512) bytes with SEND/RECV (the receiver must accept a SEND of exactly
 *    that size; shorter or longer SENDs are protocol errors). A record is a
 *    struct gb_rdma_hdr followed by a type-specific body. hdr.tag is chosen
 *    by the client for each request and echoed in every response record of
 *    that request. Requests are executed in order; responses of one request
 *    are never interleaved with those of another request.
 *
 *    Client to server:            Server to client:
 *      NOOP     -> NOOP reply       VALUE   value header (key, flags, bytes,
 *      VERSION  -> VERSION reply            cas, key index)
 *      GET      -> (VALUE BULK*)*   BULK    value bytes are in a window
 *                  END              END     end of a GET response
 *      SET      -> STATUS           STATUS  result code of SET/DELETE/TOUCH
 *      DELETE   -> STATUS           ERROR   memcache-style error string
 *      TOUCH    -> STATUS           FLOW    credit grant (both directions)
 *      FLOW     (no reply)
 *
 *    A GET carries 1..GB_RDMA_GET_MAX_KEYS keys, packed as (u8 length, key
 *    bytes) pairs. For each hit, in key order, the server sends VALUE then,
 *    if bytes > 0, one or more BULK records; misses send nothing (memcache
 *    semantics: the client sees which keys are missing from VALUE.key_index).
 *    After the last key: END (with hit and miss counts).
 *
 *    Value CRCs (revision 3.1, only for a client that set
 *    GB_RDMA_CONNECT_CRC, see 7): when the server stored the value with a
 *    CRC (store setting crc), VALUE carries it in value.crc with
 *    GB_RDMA_VALUE_CRC set in value.vflags, and the value's last BULK
 *    (GB_RDMA_BULK_LAST) carries the same CRC in bulk.crc with
 *    GB_RDMA_BULK_CRC in bulk.flags. The CRC is CRC-32C (Castagnoli,
 *    reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, result
 *    inverted: the iSCSI/ext4 one; "123456789" gives 0xE3069283) of the
 *    value's bytes in value order, computed once when the value was
 *    written. A client compares it with the CRC of the bytes it received;
 *    a mismatch means the stored or transferred bytes are not the ones
 *    written. A value without the flags has no CRC (stored with the
 *    setting off): nothing to check. A 0-byte value has CRC 0.
 *
 * 3. Bulk windows (GET)
 *
 *    Windows start owned by the server. For a value, the server RDMA WRITEs
 *    up to window_size bytes into a window it owns, then sends BULK (window
 *    index, offset of the chunk in the value, chunk length, LAST flag on the
 *    value's final chunk). The WRITEs are posted before the BULK SEND on the
 *    same QP, so when the client sees BULK the bytes are in place. The
 *    window now belongs to the client until it returns it with a FLOW record
 *    (bit i of FLOW.windows returns window i). A value larger than one
 *    window streams through successive windows; with N windows at most N
 *    chunks are in flight, and the server waits for returns when it has
 *    none. A client that never returns windows stalls only itself. If the
 *    server cannot read a value after its VALUE was sent, it sends ERROR
 *    (SERVER_ERROR, same tag) instead of the remaining BULK records and
 *    continues with the next key; the GET still ends with END (hits
 *    counts the failed key). An ERROR between a VALUE and its last BULK
 *    thus fails that value only; any other ERROR answers the whole GET
 *    record, and no END follows it.
 *
 * 4. SET
 *
 *    The client places the value in its own memory at remote address
 *    SET.addr (inside [window_base, window_base + region_len), not in a
 *    window the server owns) and sends SET. The server pulls the bytes with
 *    RDMA READ and replies STATUS (STORED, NOT_STORED, EXISTS, NOT_FOUND) or
 *    ERROR. After STATUS/ERROR the client may reuse that memory. A SET
 *    (mode SET) that fails, including by the connection closing before its
 *    value was read, leaves no older value of the key behind.
 *
 * 5. Credits
 *
 *    Each side may have at most as many records in flight as the peer has
 *    granted. Initial grants: connect.credits (server -> client direction)
 *    and accept.credits (client -> server direction). Sending any record
 *    consumes one credit. Every record's hdr.credits grants the peer that
 *    many more (receives reposted since the last grant). Rules:
 *     - Only a FLOW record whose hdr.credits >= 1 may use the sender's last
 *       credit. Any other record needs at least two credits available.
 *     - A side that owes the peer at least half of its initial grant and has
 *       nothing else to send sends a FLOW record.
 *    These two rules keep both directions live. The server posts a few
 *    receives beyond what it granted; a client that sends a record without
 *    a credit, or breaks the last-credit rule, is disconnected.
 *
 * 6. Errors
 *
 *    ERROR carries a kind (ERROR, CLIENT_ERROR, SERVER_ERROR, as in memcache)
 *    and a NUL-terminated message saying what was wrong. The server answers
 *    a record it can answer and keeps the connection:
 *     - an unknown record type, or a response type (VALUE, BULK, ...) sent
 *       by the client: ERROR "unknown record type 0xNN";
 *     - a bad key, key count, GET body or SET mode: CLIENT_ERROR with the
 *       reason ("bad key", "bad key count", "truncated key list", "bad GET
 *       record", "bad command line format");
 *     - a store failure (no memory, unreadable value): SERVER_ERROR.
 *    It closes the connection, without a reply, on a SEND that is not
 *    exactly GB_RDMA_RECORD_SIZE bytes, a header length above the body
 *    size, a record sent without a credit, a FLOW returning a window the
 *    client does not hold, a SET source outside [window_base, window_base +
 *    region_len) or in a window the server owns, and a failed RDMA
 *    operation or completion (e.g. a wrong rkey).
 *
 * 7. Versioning
 *
 *    connect.version and accept.version are GB_RDMA_VERSION. A server
 *    rejects other versions with GB_RDMA_REJ_VERSION and reports the range
 *    it supports. New record types may be added in a new minor revision of
 *    the same version only if the client asked for them via connect.flags;
 *    reserved fields must be sent as zero. Reserved fields of records are
 *    ignored on receipt; connect.flags bits of no revision the server
 *    knows, and non-zero reserved bytes of the connect data, are rejected
 *    with GB_RDMA_REJ_VERSION.
 *
 *    Minor revisions (each one a connect.flags bit; a server that knows
 *    the bit answers with the same bit in accept.flags, a server of an
 *    older revision rejects the connect with GB_RDMA_REJ_VERSION, and the
 *    client may connect again without the bit):
 *     - 3.1, GB_RDMA_CONNECT_CRC: value CRCs (see 2). The fields it uses
 *       (value.vflags, value.crc, bulk.crc, GB_RDMA_BULK_CRC) were
 *       reserved in 3.0: the server fills them only on a connection whose
 *       client set the bit, and sends them as zero to every other client.
 *     - 3.2, GB_RDMA_CONNECT_FOLD: folded GET responses and inline values
 *       (see 8). Uses connect.record_size (reserved0 before 3.2; with the
 *       bit clear it must still be 0) and accept.record_size.
 *
 * 8. Folded GET responses and inline values (revision 3.2)
 *
 *    A client that sets GB_RDMA_CONNECT_FOLD says in connect.record_size
 *    how large its receive buffers are: GB_RDMA_FOLD_RECORD_MIN up to
 *    GB_RDMA_FOLD_RECORD_CAP, a multiple of 64 (else the connect is
 *    rejected with GB_RDMA_REJ_RECORD, detail = the size asked for). The
 *    server grants min(record_size, GB_RDMA_FOLD_RECORD_MAX) in
 *    accept.record_size and sets the bit in accept.flags. Records from
 *    the client stay GB_RDMA_RECORD_SIZE bytes; records from the server
 *    are GB_RDMA_RECORD_SIZE bytes except an inline VALUE (below), which
 *    is GB_RDMA_RECORD_SIZE + value.bytes <= accept.record_size bytes.
 *    For such a client the responses of a GET are folded:
 *     - a value of at most accept.record_size - GB_RDMA_RECORD_SIZE bytes
 *       (the inline limit; 0-byte values included) is one VALUE with
 *       GB_RDMA_VALUE_INLINE: its bytes follow the 512-byte record in the
 *       same SEND; no window, no WRITE, no BULK. With CRCs, value.crc
 *       covers those bytes;
 *     - a larger value's VALUE is sent after its first chunk's WRITEs, in
 *       the same post chain, with GB_RDMA_VALUE_BULK: value.bulk is that
 *       chunk's BULK (window, LAST, CRC as a BULK record would have
 *       them). Further chunks are BULK records as before;
 *     - the END of a GET whose last key hits is folded into that value's
 *       last record: GB_RDMA_VALUE_END in a VALUE (value.end holds hits
 *       and misses), or GB_RDMA_BULK_END in the last BULK (the body is a
 *       struct gb_rdma_bulk_end). No END record follows then. When the
 *       last key misses (or fails), END is a record of its own.
 *    So a GET of one value that fits one window is one SEND (VALUE +
 *    BULK + END) after the WRITEs, and of one inline value one SEND
 *    without WRITEs. Flags of this revision are never set in records to a
 *    client that did not ask for it. A VALUE with both INLINE and BULK, an
 *    INLINE VALUE whose SEND length is not 512 + bytes or whose bytes
 *    exceed the granted inline limit, and any other record longer than
 *    GB_RDMA_RECORD_SIZE are protocol errors; so are GB_RDMA_VALUE_END in
 *    a VALUE that is neither INLINE nor carries its last BULK,
 *    GB_RDMA_BULK_END without GB_RDMA_BULK_LAST, and a value.bulk whose
 *    offset is not 0, whose key_index differs from the VALUE's, that has
 *    GB_RDMA_BULK_END, or whose GB_RDMA_BULK_LAST disagrees with its len
 *    being value.bytes.
 *
 * 9. One-sided reads (revision 3.3, GB_RDMA_CONNECT_ONESIDED)
 *
 *    A client that sets the bit, and sets initiator_depth >= 1 in its
 *    connect parameters (it issues RDMA READs), may send LOOKUP. The server
 *    grants the bit only while its one-sided setting (store setting
 *    rdma_lease_ms, 0 = off) is on; otherwise accept.flags lacks it and
 *    the client uses GET. A LOOKUP on a connection without the bit is
 *    answered CLIENT_ERROR "one-sided reads not negotiated"; while the
 *    setting is off, SERVER_ERROR "one-sided reads are off".
 *
 *    LOOKUP has the body of a GET (struct gb_rdma_get) with 1 ..
 *    GB_RDMA_LOOKUP_MAX_KEYS keys; get.flags may hold
 *    GB_RDMA_LOOKUP_RELEASE. Its one response is R_LOOKUP (struct
 *    gb_rdma_lookup_r): a descriptor per key. For a HIT the server holds a
 *    lease: until the lease ends, the len bytes at addr readable with rkey
 *    are exactly the value stored under the key when the LOOKUP ran (cas
 *    names it), and nothing else is readable with that rkey. The server
 *    ends a lease when the client releases it (GB_RDMA_LOOKUP_RELEASE ends
 *    every lease of the connection before the LOOKUP's own keys are looked
 *    up), when lease_ms plus a grace period of GB_RDMA_LEASE_GRACE_MS have
 *    passed since it sent R_LOOKUP, or when the connection closes. A
 *    client starts its READs of a descriptor no later than lease_ms after
 *    it sent the LOOKUP and must not release a lease while a READ of it
 *    is outstanding. A READ outside a live lease (expired, released,
 *    forged rkey or address) fails with a remote access error, which
 *    ends that connection only. A connection holds at most
 *    GB_RDMA_LEASES_MAX leases; a key that finds none free is BUSY.
 *    Values in tail files, or larger than GB_RDMA_ONESIDED_MAX, are GET:
 *    the client reads them two-sided. A replace, delete or eviction
 *    during a lease does not change the leased bytes: the old pages are
 *    freed after the lease ends. A client checks the CRC (GB_RDMA_DESC_CRC,
 *    3.1 rules) of what it read and falls back to GET on a mismatch.
 */
#ifndef _UAPI_LINUX_GOBLIN_RDMA_H
#define _UAPI_LINUX_GOBLIN_RDMA_H

#include <linux/types.h>

#define GB_RDMA_MAGIC		0x33524247	/* "GBR3" little-endian */
#define GB_RDMA_VERSION		3
#define GB_RDMA_RECORD_SIZE	512
#define GB_RDMA_CONNECT_SIZE	56
#define GB_RDMA_FOLD_RECORD_MAX	4096	/* most a server grants (3.2) */
#define GB_RDMA_FOLD_RECORD_CAP	65536	/* most a client may ask for */
#define GB_RDMA_FOLD_RECORD_MIN	576	/* least: room for an inline byte */
#define GB_RDMA_KEY_MAX		250
#define GB_RDMA_MAX_WINDOWS	64
#define GB_RDMA_WINDOW_MIN	4096U
#define GB_RDMA_WINDOW_MAX	(16U << 20)
#define GB_RDMA_CREDITS_MIN	4
#define GB_RDMA_CREDITS_MAX	1024
#define GB_RDMA_GET_MAX_KEYS	64
#define GB_RDMA_LOOKUP_MAX_KEYS	12	/* 3.3: keys per LOOKUP (one reply) */
#define GB_RDMA_LEASES_MAX	64	/* 3.3: leases one connection holds */
#define GB_RDMA_ONESIDED_MAX	(512U << 10)	/* 3.3: largest value a
						 * LOOKUP describes
						 */
#define GB_RDMA_LEASE_GRACE_MS	1000	/* 3.3: a lease outlives lease_ms */
#define GB_RDMA_DEFAULT_PORT	11311

/**
 * struct gb_rdma_connect - client's connect private data (56 bytes)
 * @magic:        GB_RDMA_MAGIC
 * @version:      GB_RDMA_VERSION
 * @flags:        GB_RDMA_CONNECT_* revisions the client speaks (see 7);
 *                any other bit is rejected
 * @window_size:  bytes per window, multiple of 4096 in
 *                [GB_RDMA_WINDOW_MIN, GB_RDMA_WINDOW_MAX]
 * @window_count: windows offered, 1..GB_RDMA_MAX_WINDOWS
 * @credits:      receives the client posted (records the server may send),
 *                GB_RDMA_CREDITS_MIN..GB_RDMA_CREDITS_MAX
 * @rkey:         remote key of the region
 * @record_size:  with GB_RDMA_CONNECT_FOLD (3.2): bytes of each receive
 *                buffer the client posted (see 8); else 0
 * @window_base:  remote address of window 0
 * @region_len:   bytes accessible from window_base with rkey; at least
 *                window_size * window_count
 * @reserved:     0
 */
/* struct gb_rdma_connect.flags and struct gb_rdma_accept.flags */
#define GB_RDMA_CONNECT_CRC	0x0001	/* 3.1: value CRCs in VALUE/BULK */
#define GB_RDMA_CONNECT_FOLD	0x0002	/* 3.2: folded GET responses,
					 * inline values
					 */
#define GB_RDMA_CONNECT_ONESIDED 0x0004	/* 3.3: LOOKUP and one-sided
					 * READs of value heads (see 9)
					 */
#define GB_RDMA_CONNECT_FLAGS	(GB_RDMA_CONNECT_CRC | GB_RDMA_CONNECT_FOLD | \
				 GB_RDMA_CONNECT_ONESIDED)

struct gb_rdma_connect {
	__le32 magic;
	__le16 version;
	__le16 flags;
	__le32 window_size;
	__le16 window_count;
	__le16 credits;
	__le32 rkey;
	__le32 record_size;
	__le64 window_base;
	__le64 region_len;
	__u8 reserved[16];
};

/**
 * struct gb_rdma_accept - server's accept private data (56 bytes)
 * @magic:        GB_RDMA_MAGIC
 * @version:      GB_RDMA_VERSION
 * @flags:        the GB_RDMA_CONNECT_* bits of connect.flags the server
 *                will honour (all it knows), 0 when the client set none
 * @credits:      records the client may send before the first grant
 * @windows:      windows the server will use (0..windows-1)
 * @window_size:  echo of the client's window size
 * @max_keys:     most keys accepted in one GET
 * @record_size:  GB_RDMA_RECORD_SIZE; with GB_RDMA_CONNECT_FOLD granted
 *                (3.2): the largest record the server will send, at most
 *                connect.record_size (see 8)
 * @max_value:    largest value the server stores, in bytes
 * @conn_id:      server's connection id (shown in server statistics)
 * @reserved:     0
 */
struct gb_rdma_accept {
	__le32 magic;
	__le16 version;
	__le16 flags;
	__le16 credits;
	__le16 windows;
	__le32 window_size;
	__le16 max_keys;
	__le16 record_size;
	__le32 reserved0;
	__le64 max_value;
	__le64 conn_id;
	__u8 reserved[16];
};

/* Reject reasons (struct gb_rdma_reject.reason). */
enum gb_rdma_reject_reason {
	GB_RDMA_REJ_NONE = 0,
	GB_RDMA_REJ_MAGIC = 1,		/* no or bad magic: not a Goblin client */
	GB_RDMA_REJ_VERSION = 2,	/* unsupported protocol version */
	GB_RDMA_REJ_WINDOW = 3,		/* bad window size/count/region */
	GB_RDMA_REJ_CREDITS = 4,	/* credits out of range */
	GB_RDMA_REJ_BUSY = 5,		/* connection limit reached */
	GB_RDMA_REJ_NOMEM = 6,		/* server out of resources */
	GB_RDMA_REJ_SHUTDOWN = 7,	/* listener is going away */
	GB_RDMA_REJ_DEVICE = 8,		/* device lacks a needed capability */
	GB_RDMA_REJ_READ = 9,		/* client serves no RDMA READ
					 * (responder_resources 0): the
					 * server could never pull a SET
					 */
	GB_RDMA_REJ_RECORD = 10,	/* 3.2: connect.record_size out of
					 * range (detail: the size asked for)
					 */
};

/**
 * struct gb_rdma_reject - server's reject private data (16 bytes)
 * @magic:       GB_RDMA_MAGIC
 * @reason:      enum gb_rdma_reject_reason
 * @version_min: oldest protocol version the server speaks
 * @version_max: newest protocol version the server speaks
 * @reserved:    0
 * @detail:      reason-specific value (e.g. the limit that was hit)
 */
struct gb_rdma_reject {
	__le32 magic;
	__le16 reason;
	__u8 version_min;
	__u8 version_max;
	__le32 reserved;
	__le32 detail;
};

/* Record types. Requests < 0x80 <= responses. FLOW goes both ways. */
enum gb_rdma_rec_type {
	GB_RDMA_NOOP = 0x01,
	GB_RDMA_VERSION_REQ = 0x02,
	GB_RDMA_GET = 0x10,
	GB_RDMA_SET = 0x11,
	GB_RDMA_DELETE = 0x12,
	GB_RDMA_TOUCH = 0x13,
	GB_RDMA_LOOKUP = 0x14,		/* 3.3 */
	GB_RDMA_FLOW = 0x20,

	GB_RDMA_R_NOOP = 0x81,
	GB_RDMA_R_VERSION = 0x82,
	GB_RDMA_R_VALUE = 0x90,
	GB_RDMA_R_BULK = 0x91,
	GB_RDMA_R_END = 0x92,
	GB_RDMA_R_STATUS = 0x93,
	GB_RDMA_R_ERROR = 0x94,
	GB_RDMA_R_LOOKUP = 0x95,	/* 3.3 */
};

/**
 * struct gb_rdma_hdr - header of every record (16 bytes)
 * @type:    enum gb_rdma_rec_type
 * @flags:   type-specific flags, 0 if none defined
 * @credits: credits granted to the receiver of this record
 * @len:     bytes of body used (<= GB_RDMA_RECORD_SIZE - 16, else the
 *           record is fatal); rest is 0. Receivers bound GET key lists by
 *           it; fixed-layout bodies are read at their offsets within the
 *           record whatever @len says
 * @reserved: 0
 * @tag:     request tag, echoed in responses; 0 in FLOW
 */
struct gb_rdma_hdr {
	__u8 type;
	__u8 flags;
	__le16 credits;
	__le16 len;
	__le16 reserved;
	__le64 tag;
};

#define GB_RDMA_BODY_MAX	(GB_RDMA_RECORD_SIZE - 16)

/**
 * struct gb_rdma_get - GET request body (header + this + packed keys)
 * @nkeys:    keys that follow, 1..GB_RDMA_GET_MAX_KEYS
 * @flags:    reserved, 0
 * @reserved: 0
 * @keys:     nkeys x (u8 key length 1..250, key bytes); keys must not
 *            contain control characters or spaces (memcache rules)
 */
struct gb_rdma_get {
	__le16 nkeys;
	__le16 flags;
	__le32 reserved;
	__u8 keys[GB_RDMA_BODY_MAX - 8];
};

/* SET modes (struct gb_rdma_set.mode). */
enum gb_rdma_set_mode {
	GB_RDMA_SET_SET = 0,
	GB_RDMA_SET_ADD = 1,
	GB_RDMA_SET_REPLACE = 2,
	GB_RDMA_SET_CAS = 3,
	GB_RDMA_SET_APPEND = 4,
	GB_RDMA_SET_PREPEND = 5,
};

/**
 * struct gb_rdma_set - SET request body
 * @mode:     enum gb_rdma_set_mode
 * @flags:    memcache client flags stored with the value
 * @exptime:  memcache exptime (0 never, <= 30 days relative, else absolute,
 *            negative: expired immediately)
 * @cas:      expected CAS for GB_RDMA_SET_CAS, else 0
 * @bytes:    value length
 * @addr:     remote address of the value in the client's region
 * @klen:     key length 1..250
 * @reserved: 0
 * @key:      key bytes
 */
struct gb_rdma_set {
	__le32 mode;
	__le32 flags;
	__le64 exptime;
	__le64 cas;
	__le64 bytes;
	__le64 addr;
	__u8 klen;
	__u8 reserved[7];
	__u8 key[GB_RDMA_KEY_MAX];
	__u8 pad[GB_RDMA_BODY_MAX - 48 - GB_RDMA_KEY_MAX];
};

/**
 * struct gb_rdma_keyop - DELETE and TOUCH request body
 * @exptime:  TOUCH: new exptime (memcache rules); DELETE: 0
 * @cas:      DELETE: expected CAS or 0 for any; TOUCH: 0
 * @klen:     key length 1..250
 * @reserved: 0
 * @key:      key bytes
 */
struct gb_rdma_keyop {
	__le64 exptime;
	__le64 cas;
	__u8 klen;
	__u8 reserved[7];
	__u8 key[GB_RDMA_KEY_MAX];
	__u8 pad[GB_RDMA_BODY_MAX - 24 - GB_RDMA_KEY_MAX];
};

/**
 * struct gb_rdma_flow - FLOW body (credits are in the header)
 * @windows:  client to server: bit i returns window i; server to client: 0
 * @reserved: 0
 */
struct gb_rdma_flow {
	__le64 windows;
	__le64 reserved;
};

/* struct gb_rdma_bulk.flags */
#define GB_RDMA_BULK_LAST	0x0001	/* final chunk of this value */
#define GB_RDMA_BULK_CRC	0x0002	/* with LAST: bulk.crc holds the
					 * value's CRC (3.1)
					 */
#define GB_RDMA_BULK_END	0x0004	/* 3.2: END folded in, the body is a
					 * struct gb_rdma_bulk_end
					 */

/**
 * struct gb_rdma_bulk - BULK response body
 * @window:    window index holding the chunk (at window offset 0)
 * @flags:     GB_RDMA_BULK_*
 * @len:       chunk length, 1..window_size
 * @offset:    offset of the chunk in the value
 * @key_index: key index of the value (as in VALUE)
 * @reserved:  0
 * @crc:       with GB_RDMA_BULK_CRC: CRC-32C of the whole value, as in
 *             VALUE (3.1); else 0
 */
struct gb_rdma_bulk {
	__le16 window;
	__le16 flags;
	__le32 len;
	__le64 offset;
	__le16 key_index;
	__u8 reserved[2];
	__le32 crc;
};

/**
 * struct gb_rdma_end - END response body
 * @hits:     keys found
 * @misses:   keys not found
 * @reserved: 0
 */
struct gb_rdma_end {
	__le16 hits;
	__le16 misses;
	__le32 reserved;
};

/**
 * struct gb_rdma_bulk_end - BULK body with GB_RDMA_BULK_END (3.2)
 * @bulk: the BULK
 * @end:  the GET's END (no END record follows)
 */
struct gb_rdma_bulk_end {
	struct gb_rdma_bulk bulk;
	struct gb_rdma_end end;
};

/* struct gb_rdma_value.vflags */
#define GB_RDMA_VALUE_CRC	0x01	/* value.crc holds the value's CRC */
#define GB_RDMA_VALUE_INLINE	0x02	/* 3.2: the bytes follow the record */
#define GB_RDMA_VALUE_BULK	0x04	/* 3.2: value.bulk is the first BULK */
#define GB_RDMA_VALUE_END	0x08	/* 3.2: value.end is the GET's END */

/**
 * struct gb_rdma_value - VALUE response body
 * @key_index: index of the key in the GET request
 * @klen:      key length
 * @vflags:    GB_RDMA_VALUE_* (3.1 and 3.2 bits, only those of revisions
 *             the client asked for at connect; else 0)
 * @flags:     client flags
 * @bytes:     value length; that many bytes follow in BULK records (or,
 *             with GB_RDMA_VALUE_INLINE, right after this record)
 * @cas:       CAS unique
 * @crc:       with GB_RDMA_VALUE_CRC: CRC-32C of the value (see 2); else 0
 * @reserved:  0
 * @key:       key bytes
 * @reserved2: 0
 * @bulk:      with GB_RDMA_VALUE_BULK (3.2): the value's first BULK; else 0
 * @end:       with GB_RDMA_VALUE_END (3.2): the GET's END; else 0
 */
struct gb_rdma_value {
	__le16 key_index;
	__u8 klen;
	__u8 vflags;
	__le32 flags;
	__le64 bytes;
	__le64 cas;
	__le32 crc;
	__le32 reserved;
	__u8 key[GB_RDMA_KEY_MAX];
	__u8 reserved2[6];
	struct gb_rdma_bulk bulk;
	struct gb_rdma_end end;
	__u8 pad[GB_RDMA_BODY_MAX - 320];
};

/* STATUS codes (struct gb_rdma_status.status), memcache words in comments. */
enum gb_rdma_status_code {
	GB_RDMA_ST_STORED = 0,		/* STORED */
	GB_RDMA_ST_NOT_STORED = 1,	/* NOT_STORED */
	GB_RDMA_ST_EXISTS = 2,		/* EXISTS */
	GB_RDMA_ST_NOT_FOUND = 3,	/* NOT_FOUND */
	GB_RDMA_ST_DELETED = 4,		/* DELETED */
	GB_RDMA_ST_TOUCHED = 5,		/* TOUCHED */
};

/**
 * struct gb_rdma_status - STATUS response body
 * @status:   enum gb_rdma_status_code
 * @reserved: 0
 * @cas:      CAS of the stored object after a successful SET, else 0
 */
struct gb_rdma_status {
	__le32 status;
	__le32 reserved;
	__le64 cas;
};

/* ERROR kinds (struct gb_rdma_error.kind). */
enum gb_rdma_error_kind {
	GB_RDMA_ERR_ERROR = 0,		/* ERROR: unknown command */
	GB_RDMA_ERR_CLIENT = 1,		/* CLIENT_ERROR <msg> */
	GB_RDMA_ERR_SERVER = 2,		/* SERVER_ERROR <msg> */
};

#define GB_RDMA_MSG_MAX	128

/**
 * struct gb_rdma_error - ERROR response body
 * @kind:     enum gb_rdma_error_kind
 * @reserved: 0
 * @msg:      NUL-terminated message, e.g. "object too large for cache"
 */
struct gb_rdma_error {
	__le32 kind;
	__le32 reserved;
	char msg[GB_RDMA_MSG_MAX];
};

/**
 * struct gb_rdma_version - VERSION response body
 * @version:  protocol version (GB_RDMA_VERSION)
 * @reserved: 0
 * @server:   NUL-terminated server version string, e.g. "0.1.0"
 */
struct gb_rdma_version {
	__le32 version;
	__le32 reserved;
	char server[64];
};

/* struct gb_rdma_get.flags of a LOOKUP (3.3) */
#define GB_RDMA_LOOKUP_RELEASE	0x0001	/* first end every lease this
					 * connection holds
					 */

/* struct gb_rdma_desc.status (3.3) */
enum gb_rdma_desc_status {
	GB_RDMA_DESC_HIT = 0,		/* READ len bytes at addr with rkey */
	GB_RDMA_DESC_MISS = 1,		/* not found (memcache miss) */
	GB_RDMA_DESC_GET = 2,		/* found, but not readable one-sided
					 * (a tail, larger than
					 * GB_RDMA_ONESIDED_MAX): use GET
					 */
	GB_RDMA_DESC_BUSY = 3,		/* no lease or MR free now: use GET */
};

/* struct gb_rdma_desc.dflags */
#define GB_RDMA_DESC_CRC	0x01	/* desc.crc holds the value's CRC */

/**
 * struct gb_rdma_desc - where one value of a LOOKUP lives (3.3)
 * @addr:     with GB_RDMA_DESC_HIT and len > 0: remote address of the
 *            value's first byte; the value is len bytes from there. An
 *            address in the lease's MR only (a random base per lease), no
 *            server memory address
 * @rkey:     remote key for RDMA READ of [addr, addr + len); valid
 *            until the lease ends. Afterwards the device may hand the
 *            same rkey to another MR: a client keeps only READs that
 *            completed within lease_ms of sending the LOOKUP
 * @len:      value length (HIT; 0 otherwise)
 * @cas:      CAS of the object described (its version), HIT and GET
 * @crc:      with GB_RDMA_DESC_CRC: CRC-32C of the value, as in VALUE
 * @status:   enum gb_rdma_desc_status
 * @dflags:   GB_RDMA_DESC_*
 * @reserved: 0
 * @flags:    client flags (HIT)
 * @reserved2: 0
 */
struct gb_rdma_desc {
	__le64 addr;
	__le32 rkey;
	__le32 len;
	__le64 cas;
	__le32 crc;
	__u8 status;
	__u8 dflags;
	__le16 reserved;
	__le32 flags;
	__le32 reserved2;
};

/**
 * struct gb_rdma_lookup_r - LOOKUP response body (3.3)
 * @nkeys:    descriptors that follow, as many as the LOOKUP's keys
 * @reserved: 0
 * @lease_ms: how long after the client sent the LOOKUP it may start
 *            READs of the HIT descriptors (see 9)
 * @desc:     one per key, in key order
 * @pad:      0
 */
struct gb_rdma_lookup_r {
	__le16 nkeys;
	__le16 reserved;
	__le32 lease_ms;
	struct gb_rdma_desc desc[GB_RDMA_LOOKUP_MAX_KEYS];
	__u8 pad[GB_RDMA_BODY_MAX - 8 - 40 * GB_RDMA_LOOKUP_MAX_KEYS];
};

/* Wire sizes are part of the ABI: check them at compile time. */
#if defined(__KERNEL__)
#include <linux/build_bug.h>
#elif !defined(__cplusplus)
#include <assert.h>
#endif
#define GB_RDMA_ASSERT(c, m) static_assert(c, m)

GB_RDMA_ASSERT(sizeof(struct gb_rdma_connect) == GB_RDMA_CONNECT_SIZE,
	       "connect private data is 56 bytes");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_accept) == 56, "accept size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_reject) == 16, "reject size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_hdr) == 16, "header size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_get) == GB_RDMA_BODY_MAX, "get size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_set) == GB_RDMA_BODY_MAX, "set size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_keyop) == GB_RDMA_BODY_MAX, "keyop");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_value) == GB_RDMA_BODY_MAX, "value");
GB_RDMA_ASSERT(__builtin_offsetof(struct gb_rdma_value, bulk) == 288,
	       "value.bulk offset");
GB_RDMA_ASSERT(__builtin_offsetof(struct gb_rdma_value, end) == 312,
	       "value.end offset");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_bulk_end) == 32, "bulk_end size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_flow) == 16, "flow size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_bulk) == 24, "bulk size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_end) == 8, "end size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_status) == 16, "status size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_error) == 136, "error size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_version) == 72, "version size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_desc) == 40, "desc size");
GB_RDMA_ASSERT(sizeof(struct gb_rdma_lookup_r) == GB_RDMA_BODY_MAX,
	       "lookup reply size");

#endif /* _UAPI_LINUX_GOBLIN_RDMA_H */
