/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: memcache text protocol parser.
 *
 * Plain C, no allocation, no kernel headers: it builds in the kernel and in
 * userspace (tests/unit, fuzz/). The caller owns the receive buffer; the
 * parser only looks at it and points into it.
 *
 * Usage (one request at a time):
 *
 *	struct mc_req req;
 *	int n = mc_parse(buf, len, &req);
 *
 *	n == MC_PARSE_MORE   no complete line yet: read more and call again
 *	                     with the same (grown) buffer.
 *	n == MC_PARSE_CLOSE  line too long without a newline: close the
 *	                     connection silently (memcached 1.6 does the same).
 *	n == MC_PARSE_TOO_LONG  a get/gets/gat/gats line reached
 *	                     MC_LINE_MAX_GET without a newline: answer
 *	                     MC_ERR_LINE_MEM, then close once it is sent
 *	                     (memcached's answer when it cannot hold a
 *	                     request).
 *	n > 0                one line of n bytes (terminator included) was
 *	                     parsed into req; drop those n bytes.
 *
 * On n > 0, req.cmd tells what to do:
 *  - MC_CMD_ERROR: send req.err followed by "\r\n" unless req.err_quiet
 *    (errors after a valid "noreply"/q are silent like memcached's). If
 *    req.vlen_swallow, then req.vlen + 2 data bytes follow and must be
 *    discarded (memcached "swallow" state).
 *  - storage commands (set/add/replace/append/prepend/cas, ms): req.vlen
 *    value bytes follow, then "\r\n". Check the two trailing bytes with
 *    mc_data_end_ok(); if they are wrong answer MC_ERR_BAD_CHUNK (subject
 *    to noreply) and continue parsing right after the vlen + 2 bytes.
 *  - get/gets/gat/gats: iterate keys with mc_next_key(); every key was
 *    already validated (length 1..250).
 *  - everything else: fields below.
 *
 * Pointers in req (key, opaque, keys) point into the caller's buffer
 * (or into req itself for base64-decoded meta keys) and are valid until
 * the buffer changes.
 */
#ifndef _MC_PARSE_H
#define _MC_PARSE_H

#include "gb_compat.h"

#define MC_KEY_MAX		250
/* A line without '\n' longer than this is fatal unless it is a multiget. */
#define MC_LINE_MAX		2048
/*
 * Hard bound for any line, multigets included: 1 MiB, some 4,000 keys of
 * the longest length or 100,000 of 10 bytes on one get line.
 */
#define MC_LINE_MAX_GET		1048576
#define MC_OPAQUE_MAX		32
#define MC_META_FLAGS_MAX	24
/* memcached MFLAG_MAX_OPT_LENGTH: most tokens (+1 terminal) a meta line has */
#define MC_META_TOKENS_MAX	20

#define MC_PARSE_MORE		0
#define MC_PARSE_CLOSE		(-1)
#define MC_PARSE_TOO_LONG	(-2)

enum mc_cmd {
	MC_CMD_ERROR = 0,	/* req.err holds the response line */
	MC_CMD_GET,
	MC_CMD_GETS,
	MC_CMD_GAT,
	MC_CMD_GATS,
	MC_CMD_SET,
	MC_CMD_ADD,
	MC_CMD_REPLACE,
	MC_CMD_APPEND,
	MC_CMD_PREPEND,
	MC_CMD_CAS,
	MC_CMD_DELETE,
	MC_CMD_INCR,
	MC_CMD_DECR,
	MC_CMD_TOUCH,
	MC_CMD_FLUSH_ALL,
	MC_CMD_VERSION,
	MC_CMD_VERBOSITY,
	MC_CMD_STATS,		/* req.key/klen: optional argument ("" = general) */
	MC_CMD_QUIT,
	MC_CMD_MG,
	MC_CMD_MS,
	MC_CMD_MD,
	MC_CMD_MA,
	MC_CMD_MN,
	MC_CMD_ME,
	MC_CMD_MAX,
};

/* Exact memcached 1.6 error strings (without "\r\n"). */
#define MC_ERR_ERROR		"ERROR"
#define MC_ERR_FORMAT		"CLIENT_ERROR bad command line format"
#define MC_ERR_LINE_MEM		"SERVER_ERROR out of memory reading request"
#define MC_ERR_BAD_CHUNK	"CLIENT_ERROR bad data chunk"
#define MC_ERR_TOO_LARGE	"SERVER_ERROR object too large for cache"
#define MC_ERR_NO_MEMORY	"SERVER_ERROR out of memory storing object"
#define MC_ERR_EXPTIME		"CLIENT_ERROR invalid exptime argument"
#define MC_ERR_DELTA		"CLIENT_ERROR invalid numeric delta argument"
#define MC_ERR_NON_NUMERIC	"CLIENT_ERROR cannot increment or decrement non-numeric value"
#define MC_ERR_DELETE_USAGE	"CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]"
#define MC_ERR_BAD_FLAG		"CLIENT_ERROR invalid flag"
#define MC_ERR_DUP_FLAG		"CLIENT_ERROR duplicate flag"
#define MC_ERR_BAD_TOKEN	"CLIENT_ERROR bad token in command line format"
#define MC_ERR_OPAQUE_LONG	"CLIENT_ERROR opaque token too long"
#define MC_ERR_KEY_DECODE	"CLIENT_ERROR error decoding key"
#define MC_ERR_MS_MODE		"CLIENT_ERROR invalid mode for ms M token"
#define MC_ERR_MA_MODE		"CLIENT_ERROR invalid mode for ma M token"
#define MC_ERR_MD_FLAG		"CLIENT_ERROR invalid or duplicate flag"
#define MC_ERR_FLAGS_LONG_MG	"CLIENT_ERROR options flags are too long"
#define MC_ERR_FLAGS_LONG	"CLIENT_ERROR options flags too long"
#define MC_ERR_STATS_DETAIL	"CLIENT_ERROR usage: stats detail on|off|dump"

/* Meta set modes (ms M token) and arithmetic modes (ma M token). */
enum mc_ms_mode {
	MC_MS_SET = 0,		/* S (default) */
	MC_MS_ADD,		/* E */
	MC_MS_APPEND,		/* A */
	MC_MS_PREPEND,		/* P */
	MC_MS_REPLACE,		/* R */
};

/**
 * struct mc_meta_flag - one meta flag in request order
 * @c:   flag letter
 * @tok: token after the letter (may be empty, not NUL terminated)
 * @len: token length
 */
struct mc_meta_flag {
	char c;
	u8 len;
	const char *tok;
};

/* Bit for meta flag letter c ('A'..'Z', 'a'..'z') in mc_req.mflags. */
static inline u64 MC_MF(int c)
{
	return c >= 'a' ? 1ULL << (c - 'a' + 26) : 1ULL << (c - 'A');
}

/* "stats detail" subcommands (mc_req.mode) */
enum mc_stats_detail {
	MC_STATS_DETAIL_ON = 1,
	MC_STATS_DETAIL_OFF,
	MC_STATS_DETAIL_DUMP,
};

/**
 * struct mc_req - one parsed request
 * @cmd:          command (MC_CMD_ERROR: see @err)
 * @err:          error response line (no "\r\n") when @cmd is MC_CMD_ERROR
 * @err_quiet:    do not send @err (noreply was given)
 * @vlen_swallow: for MC_CMD_ERROR: discard @vlen + 2 data bytes
 * @noreply:      classic "noreply" given; meta: q flag given
 * @key:          key (first key for multigets), meta key after b decoding
 * @klen:         key length (0 if none)
 * @keys:         get/gets/gat/gats: start of the key list (use mc_next_key)
 * @keys_end:     end of the key list
 * @flags:        client flags (set family, ms F)
 * @exptime:      raw exptime (set family, touch, gat, flush_all delay,
 *                meta T); see @has_exptime
 * @has_exptime:  flush_all: delay given; meta: T given
 * @vlen:         data bytes following the line (storage commands)
 * @cas:          cas unique (cas command; meta C token)
 * @delta:        incr/decr/ma D delta (ma default 1)
 * @verbosity:    verbosity level
 * @initial:      ma J initial value (default 0)
 * @vivify:       mg/ma N autovivify ttl
 * @recache:      mg R recache ttl
 * @mode:         ms: enum mc_ms_mode; ma: 0 incr, 1 decr; stats detail:
 *                enum mc_stats_detail
 * @mflags:       meta: set of flag letters present (MC_MF())
 * @nmeta:        meta: number of entries in @meta
 * @meta:         meta: flags in request order (for the return flags)
 * @opaque:       meta O token
 * @olen:         meta O token length
 * @b64:          meta: key was base64 (b flag); echo keys back encoded
 * @raw_key:      meta: key token as sent (base64 text when @b64)
 * @raw_klen:     length of @raw_key
 * @keybuf:       storage for a decoded base64 key
 * @scanned:      mc_parse_cont() only: bytes of the pending line already
 *                searched for its newline (see there)
 */
struct mc_req {
	enum mc_cmd cmd;
	const char *err;
	bool err_quiet;
	bool vlen_swallow;
	bool noreply;
	const char *key;
	u32 klen;
	const char *keys;
	const char *keys_end;
	u32 flags;
	s64 exptime;
	bool has_exptime;
	u64 vlen;
	u64 cas;
	u64 delta;
	u32 verbosity;
	u64 initial;
	s64 vivify;
	s64 recache;
	int mode;
	u64 mflags;
	unsigned int nmeta;
	struct mc_meta_flag meta[MC_META_FLAGS_MAX];
	const char *opaque;
	u32 olen;
	bool b64;
	const char *raw_key;
	u32 raw_klen;
	char keybuf[MC_KEY_MAX + 1];
	u32 scanned;
};

/**
 * mc_parse() - parse one request line
 * @buf: received bytes (need not be NUL terminated)
 * @len: number of bytes in @buf
 * @req: filled in when the return value is > 0
 *
 * Return: bytes consumed (> 0), MC_PARSE_MORE or MC_PARSE_CLOSE.
 */
int mc_parse(const char *buf, size_t len, struct mc_req *req);

/**
 * mc_parse_cont() - mc_parse() for a line that arrives in pieces
 * @buf: received bytes, starting at the pending line
 * @len: number of bytes in @buf
 * @req: as for mc_parse(); its @scanned must be 0 (e.g. zeroed memory)
 *       before the first call of a connection and is kept by the parser
 *
 * After MC_PARSE_MORE, the next call for the same line (the same bytes
 * followed by more) searches for the newline only in what is new, so a
 * long get line read in many pieces is scanned once, not once per piece.
 * Anything but MC_PARSE_MORE resets @scanned.
 *
 * Return: as mc_parse().
 */
int mc_parse_cont(const char *buf, size_t len, struct mc_req *req);

/**
 * mc_parse_reset() - forget how far a pending line was scanned
 * @req: the request mc_parse_cont() is called with
 *
 * For a caller that drops or moves away from the pending line without a
 * result from mc_parse_cont() (input discarded, the line refused): the
 * next call then searches the bytes it is given from their start. Only
 * MC_PARSE_MORE leaves @req->scanned set; mc_parse_cont() bounds it by
 * @len, but a stale count below @len would skip a newline of a new line.
 */
static inline void mc_parse_reset(struct mc_req *req)
{
	req->scanned = 0;
}

/**
 * mc_next_key() - iterate the keys of a get/gets/gat/gats request
 * @req:  parsed request; its @keys cursor advances
 * @key:  set to the next key
 * @klen: set to its length
 *
 * Return: true while a key was produced.
 */
bool mc_next_key(struct mc_req *req, const char **key, size_t *klen);

/* True if the two bytes after a value are "\r\n". */
static inline bool mc_data_end_ok(const char *p)
{
	return p[0] == '\r' && p[1] == '\n';
}

/**
 * mc_b64_encode() - base64 encode (for echoing b-flag keys)
 * @src: bytes
 * @len: number of bytes
 * @dst: output, at least ((len + 2) / 3) * 4 bytes
 *
 * Return: number of characters written.
 */
size_t mc_b64_encode(const char *src, size_t len, char *dst);

/* Name of a command for stats and debugging ("get", "ms", ...). */
const char *mc_cmd_name(enum mc_cmd cmd);

/* Is @cmd followed by a data block of req.vlen bytes and "\r\n"? */
static inline bool mc_cmd_has_data(enum mc_cmd cmd)
{
	switch (cmd) {
	case MC_CMD_SET:
	case MC_CMD_ADD:
	case MC_CMD_REPLACE:
	case MC_CMD_APPEND:
	case MC_CMD_PREPEND:
	case MC_CMD_CAS:
	case MC_CMD_MS:
		return true;
	default:
		return false;
	}
}

#endif /* _MC_PARSE_H */
