/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Invariants every gb_rdma_rec_parse() and gb_rdma_connect_parse() result
 * must satisfy, whatever the input. Shared by the unit tests (random smoke
 * test) and fuzz/rdma_rec_fuzz.c.
 */
#ifndef _RDMA_CHECK_H
#define _RDMA_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_rec.h"

#include "../../tools/include/gb_compiler.h"

#define RC_BODY		sizeof(struct gb_rdma_hdr)
#define RC_KEYS		(RC_BODY + offsetof(struct gb_rdma_get, keys))

static inline uint16_t rc_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t rc_le32(const uint8_t *p)
{
	return (uint32_t)rc_le16(p) | (uint32_t)rc_le16(p + 2) << 16;
}

static inline uint64_t rc_le64(const uint8_t *p)
{
	return (uint64_t)rc_le32(p) | (uint64_t)rc_le32(p + 4) << 32;
}

static inline int rc_known_type(unsigned int type)
{
	switch (type) {
	case GB_RDMA_NOOP:
	case GB_RDMA_VERSION_REQ:
	case GB_RDMA_GET:
	case GB_RDMA_SET:
	case GB_RDMA_DELETE:
	case GB_RDMA_TOUCH:
	case GB_RDMA_LOOKUP:
	case GB_RDMA_FLOW:
	case GB_RDMA_R_NOOP:
	case GB_RDMA_R_VERSION:
	case GB_RDMA_R_VALUE:
	case GB_RDMA_R_BULK:
	case GB_RDMA_R_END:
	case GB_RDMA_R_STATUS:
	case GB_RDMA_R_ERROR:
	case GB_RDMA_R_LOOKUP:
		return 1;
	default:
		return 0;
	}
}

/* @p..@p+@n lies inside @lo..@lo+@len */
static inline int rc_in(const void *p, size_t n, const void *lo, size_t len)
{
	const uint8_t *b = p, *l = lo;

	return b >= l && n <= len && (size_t)(b - l) <= len - n;
}

static inline const char *rc_check_get(const uint8_t *buf,
				       const struct gb_rdma_rec *rec)
{
	size_t end = RC_BODY + rc_le16(buf + 4), next = RC_KEYS;
	unsigned int i;

	if (rec->u.get.nkeys == 0 || rec->u.get.nkeys > GB_RDMA_GET_MAX_KEYS)
		return "GET key count out of range";
	if (rec->u.get.nkeys != rc_le16(buf + RC_BODY))
		return "GET key count differs from the record";
	for (i = 0; i < rec->u.get.nkeys; i++) {
		size_t off = rec->u.get.off[i], kl = rec->u.get.klen[i];

		if (off != next + 1)
			return "GET keys not packed in order";
		if (buf[off - 1] != kl)
			return "GET key length differs from the record";
		if (off + kl > end || end > GB_RDMA_RECORD_SIZE)
			return "GET key outside the body";
		if (!gb_rdma_key_ok((const char *)buf + off, kl))
			return "GET key is not a valid key";
		next = off + kl;
	}
	return NULL;
}

/* key at body offset @off, its length byte at body offset @loff */
static inline const char *rc_check_key(const uint8_t *buf, const char *key,
				       size_t kl, size_t off, size_t loff)
{
	if ((const uint8_t *)key != buf + RC_BODY + off)
		return "key pointer at the wrong place";
	if (kl != buf[RC_BODY + loff])
		return "key length differs from the record";
	if (!gb_rdma_key_ok(key, kl))
		return "key is not a valid key";
	return NULL;
}

/* Checks that hold for any record that parsed OK. */
static inline const char *rc_check_ok(const uint8_t *buf,
				      const struct gb_rdma_rec *rec)
{
	const uint8_t *b = buf + RC_BODY;

	switch (rec->type) {
	case GB_RDMA_GET:
		return rc_check_get(buf, rec);
	case GB_RDMA_LOOKUP:
		if (rec->u.get.nkeys > GB_RDMA_LOOKUP_MAX_KEYS)
			return "LOOKUP key count out of range";
		if (rec->u.get.flags != rc_le16(b + 2))
			return "LOOKUP flags decoded wrongly";
		return rc_check_get(buf, rec);
	case GB_RDMA_R_LOOKUP: {
		unsigned int i;

		if (rec->u.lookup.nkeys == 0 ||
		    rec->u.lookup.nkeys > GB_RDMA_LOOKUP_MAX_KEYS)
			return "R_LOOKUP descriptor count out of range";
		if ((const uint8_t *)rec->u.lookup.desc != b + 8)
			return "R_LOOKUP descriptors at the wrong place";
		for (i = 0; i < rec->u.lookup.nkeys; i++)
			if (rec->u.lookup.desc[i].status > GB_RDMA_DESC_BUSY ||
			    rc_le32(b + 8 + 40 * i + 12) > GB_RDMA_ONESIDED_MAX)
				return "R_LOOKUP descriptor out of range";
		return NULL;
	}
	case GB_RDMA_SET:
		if (rec->u.set.mode > GB_RDMA_SET_PREPEND)
			return "SET mode out of range";
		if (rec->u.set.bytes != rc_le64(b + 24) ||
		    rec->u.set.addr != rc_le64(b + 32) ||
		    (uint64_t)rec->u.set.exptime != rc_le64(b + 8))
			return "SET fields decoded wrongly";
		return rc_check_key(buf, rec->u.set.key, rec->u.set.klen,
				    offsetof(struct gb_rdma_set, key),
				    offsetof(struct gb_rdma_set, klen));
	case GB_RDMA_DELETE:
	case GB_RDMA_TOUCH:
		if (rec->u.keyop.cas != rc_le64(b + 8))
			return "keyop fields decoded wrongly";
		return rc_check_key(buf, rec->u.keyop.key, rec->u.keyop.klen,
				    offsetof(struct gb_rdma_keyop, key),
				    offsetof(struct gb_rdma_keyop, klen));
	case GB_RDMA_R_VALUE:
		if (rec->u.value.key_index >= GB_RDMA_GET_MAX_KEYS)
			return "VALUE key index out of range";
		return rc_check_key(buf, rec->u.value.key, rec->u.value.klen,
				    offsetof(struct gb_rdma_value, key),
				    offsetof(struct gb_rdma_value, klen));
	case GB_RDMA_R_BULK:
		if (rec->u.bulk.window >= GB_RDMA_MAX_WINDOWS)
			return "BULK window out of range";
		if (rec->u.bulk.len == 0 || rec->u.bulk.len > GB_RDMA_WINDOW_MAX)
			return "BULK length out of range";
		return NULL;
	case GB_RDMA_R_ERROR:
		if ((const uint8_t *)rec->u.error.msg != b + 8 ||
		    !memchr(rec->u.error.msg, 0, GB_RDMA_MSG_MAX))
			return "ERROR message not terminated in the record";
		return NULL;
	case GB_RDMA_R_VERSION:
		if ((const uint8_t *)rec->u.version.server != b + 8 ||
		    !memchr(rec->u.version.server, 0, 64))
			return "VERSION string not terminated in the record";
		return NULL;
	case GB_RDMA_FLOW:
		if (rec->u.flow.windows != rc_le64(b))
			return "FLOW windows decoded wrongly";
		return NULL;
	default:
		if (!rc_known_type(rec->type))
			return "unknown type parsed OK";
		return NULL;
	}
}

/*
 * rc_check_rec() - check one gb_rdma_rec_parse() outcome
 * @buf: input buffer, @len: its length
 * @ret: return value, @rec: the record it filled in, @msg: its message
 *
 * Return: NULL if all invariants hold, else the first one violated.
 */
static inline const char *rc_check_rec(const void *buf, size_t len, int ret,
				       const struct gb_rdma_rec *rec,
				       const char *msg)
{
	const uint8_t *p = buf;
	size_t blen;

	if (!msg)
		return "message pointer is NULL";
	if (ret < GB_RDMA_PARSE_OK || ret > GB_RDMA_PARSE_FATAL)
		return "result out of range";
	if (len != GB_RDMA_RECORD_SIZE)
		return ret == GB_RDMA_PARSE_FATAL ? NULL :
		       "record of the wrong size not fatal";
	blen = rc_le16(p + 4);
	if (blen > GB_RDMA_BODY_MAX)
		return ret == GB_RDMA_PARSE_FATAL ? NULL :
		       "body length over GB_RDMA_BODY_MAX not fatal";
	if (ret == GB_RDMA_PARSE_FATAL) {
		switch (p[0]) {
		case GB_RDMA_R_VALUE:
		case GB_RDMA_R_BULK:
		case GB_RDMA_R_ERROR:
		case GB_RDMA_R_VERSION:
		case GB_RDMA_R_LOOKUP:
			return NULL;
		default:
			return "fatal result for a type that is never fatal";
		}
	}
	if (rec->type != p[0] || rec->flags != p[1] ||
	    rec->credits != rc_le16(p + 2) || rec->tag != rc_le64(p + 8))
		return "header decoded wrongly";
	switch (ret) {
	case GB_RDMA_PARSE_UNKNOWN:
		return rc_known_type(p[0]) ? "known type reported unknown" :
		       NULL;
	case GB_RDMA_PARSE_CLIENT:
		if (!*msg || strlen(msg) >= GB_RDMA_MSG_MAX ||
		    strpbrk(msg, "\r\n"))
			return "client error message empty or unusable";
		if (p[0] != GB_RDMA_GET && p[0] != GB_RDMA_LOOKUP &&
		    p[0] != GB_RDMA_SET &&
		    p[0] != GB_RDMA_DELETE && p[0] != GB_RDMA_TOUCH &&
		    p[0] != GB_RDMA_R_VALUE)
			return "client error for a type without a key";
		return NULL;
	default:
		return rc_check_ok(p, rec);
	}
}

/*
 * rc_check_get_rebuild() - re-encode a parsed GET and parse it again
 * @buf: the record that parsed OK, @rec: its parse result
 *
 * Return: NULL if the re-encoded record parses to the same keys.
 */
static inline const char *rc_check_get_rebuild(const uint8_t *buf,
					       const struct gb_rdma_rec *rec)
{
	struct gb_rdma_rec again;
	const char *msg, *why = NULL;
	uint8_t *out = malloc(GB_RDMA_RECORD_SIZE);	/* 16-byte aligned */
	unsigned int i;

	if (!out)
		abort();
	gb_rdma_hdr_init(out, GB_RDMA_GET, rec->tag, rec->credits, 8);
	for (i = 0; i < rec->u.get.nkeys && !why; i++)
		if (gb_rdma_get_add_key(out, (const char *)buf +
					rec->u.get.off[i],
					rec->u.get.klen[i]))
			why = "gb_rdma_get_add_key refused a parsed key";
	if (!why && gb_rdma_rec_parse(out, GB_RDMA_RECORD_SIZE, &again,
				      &msg) != GB_RDMA_PARSE_OK)
		why = "re-encoded GET does not parse";
	if (!why && (again.u.get.nkeys != rec->u.get.nkeys ||
		     again.tag != rec->tag || again.credits != rec->credits))
		why = "re-encoded GET has other header fields";
	for (i = 0; !why && i < rec->u.get.nkeys; i++)
		if (again.u.get.klen[i] != rec->u.get.klen[i] ||
		    memcmp(out + again.u.get.off[i], buf + rec->u.get.off[i],
			   rec->u.get.klen[i]))
			why = "re-encoded GET has other keys";
	free(out);
	return why;
}

/*
 * rc_check_connect() - check one gb_rdma_connect_parse() outcome
 * @priv: private data (may be NULL), @len: its length
 * @reason: return value, @geom: the geometry it filled in
 *
 * An accepted connect must encode back (gb_rdma_connect_build) to exactly
 * the zero-padded input: it has no reserved bits set.
 *
 * Return: NULL if all invariants hold, else the first one violated.
 */
static inline const char *rc_check_connect(const void *priv, size_t len,
					   unsigned int reason,
					   const struct gb_rdma_geom *geom)
{
	uint8_t in[GB_RDMA_CONNECT_SIZE] = { 0 };
	struct gb_rdma_connect out;
	uint64_t span;

	if (reason > GB_RDMA_REJ_CREDITS && reason != GB_RDMA_REJ_RECORD)
		return "reject reason the parser cannot give";
	if (reason == GB_RDMA_REJ_RECORD &&
	    (!(geom->flags & GB_RDMA_CONNECT_FOLD) ||
	     (geom->record_size >= GB_RDMA_FOLD_RECORD_MIN &&
	      geom->record_size <= GB_RDMA_FOLD_RECORD_CAP &&
	      geom->record_size % 64 == 0)))
		return "record size refused without cause";
	if (reason != GB_RDMA_REJ_NONE)
		return NULL;
	if (!priv)
		return "NULL private data accepted";
	memcpy(in, priv, len < sizeof(in) ? len : sizeof(in));
	span = (uint64_t)geom->window_size * geom->window_count;
	if (geom->window_size < GB_RDMA_WINDOW_MIN ||
	    geom->window_size > GB_RDMA_WINDOW_MAX ||
	    geom->window_size % 4096)
		return "accepted window size out of range";
	if (geom->window_count == 0 ||
	    geom->window_count > GB_RDMA_MAX_WINDOWS)
		return "accepted window count out of range";
	if (geom->credits < GB_RDMA_CREDITS_MIN ||
	    geom->credits > GB_RDMA_CREDITS_MAX)
		return "accepted credits out of range";
	if (geom->region_len < span ||
	    geom->window_base + geom->region_len < geom->window_base)
		return "accepted region too small or wrapping";
	if (geom->flags & ~GB_RDMA_CONNECT_FLAGS)
		return "accepted connect flags of no known revision";
	if ((geom->flags & GB_RDMA_CONNECT_FOLD) ?
	    geom->record_size < GB_RDMA_FOLD_RECORD_MIN ||
	    geom->record_size > GB_RDMA_FOLD_RECORD_CAP ||
	    geom->record_size % 64 : geom->record_size != 0)
		return "accepted record size out of range";
	gb_rdma_connect_build(&out, geom);
	if (memcmp(&out, in, sizeof(in)))
		return "accepted connect data does not encode back to itself";
	return NULL;
}

/**
 * rc_check_resp() - check one gb_rdma_resp_parse() outcome (revision 3.2)
 * @buf: record, @len: its length, @rec_max: the granted record size
 * @ret: return value, @rec: the decoded record
 *
 * A record longer than GB_RDMA_RECORD_SIZE is accepted only as an inline
 * VALUE holding exactly the bytes that follow the record, within
 * @rec_max; a folded BULK is inside the window bounds, at offset 0 of the
 * VALUE's key, without an END of its own, LAST exactly when it is the
 * whole value; END is folded only into the value's last record (an
 * inline VALUE, a VALUE with its last BULK, a LAST BULK).
 *
 * Return: NULL if all invariants hold, else the first one violated.
 */
static inline const char *rc_check_resp(const void *buf, size_t len,
					size_t rec_max, int ret,
					const struct gb_rdma_rec *rec)
{
	const uint8_t *p = buf, *b = p + RC_BODY;
	uint8_t vf;

	if (ret != GB_RDMA_PARSE_OK)
		return NULL;
	if (rec_max <= GB_RDMA_RECORD_SIZE) {
		if (len != GB_RDMA_RECORD_SIZE)
			return "record of a bad size accepted";
		return NULL;
	}
	if (len < GB_RDMA_RECORD_SIZE || len > rec_max)
		return "record beyond the granted size accepted";
	if (rec->type != GB_RDMA_R_VALUE) {
		if (len != GB_RDMA_RECORD_SIZE)
			return "long record other than VALUE accepted";
		/* flags as sent, not as decoded */
		if (p[0] == GB_RDMA_R_BULK &&
		    (rc_le16(b + 2) & GB_RDMA_BULK_END) &&
		    !(rc_le16(b + 2) & GB_RDMA_BULK_LAST))
			return "END folded into a BULK that is not the last accepted";
		return NULL;
	}
	vf = b[3];
	if (vf & GB_RDMA_VALUE_BULK) {
		const uint8_t *fb = b + offsetof(struct gb_rdma_value, bulk);
		uint64_t bytes = rc_le64(b + 8);
		uint16_t bf = rc_le16(fb + 2);
		uint32_t blen = rc_le32(fb + 4);
		int last = !!(bf & GB_RDMA_BULK_LAST), whole = blen == bytes;

		if (rc_le64(fb + 8) || rc_le16(fb + 16) != rc_le16(b))
			return "folded BULK of another offset or key accepted";
		if ((bf & GB_RDMA_BULK_END) || blen > bytes || last != whole)
			return "folded BULK inconsistent with its VALUE accepted";
	}
	if ((vf & GB_RDMA_VALUE_END) && !(vf & GB_RDMA_VALUE_INLINE) &&
	    !((vf & GB_RDMA_VALUE_BULK) &&
	      (rc_le16(b + offsetof(struct gb_rdma_value, bulk) + 2) &
	       GB_RDMA_BULK_LAST)))
		return "END folded into an unfinished value accepted";
	if (rec->u.value.vflags & GB_RDMA_VALUE_INLINE) {
		if (rec->u.value.vflags & GB_RDMA_VALUE_BULK)
			return "VALUE both inline and bulk accepted";
		if (len != GB_RDMA_RECORD_SIZE + rec->u.value.bytes ||
		    rec->u.value.data !=
		    (const uint8_t *)buf + GB_RDMA_RECORD_SIZE)
			return "inline bytes not exactly the record's tail";
	} else if (len != GB_RDMA_RECORD_SIZE) {
		return "long VALUE without inline bytes accepted";
	}
	if ((rec->u.value.vflags & GB_RDMA_VALUE_BULK) &&
	    (rec->u.value.bulk.window >= GB_RDMA_MAX_WINDOWS ||
	     !rec->u.value.bulk.len ||
	     rec->u.value.bulk.len > GB_RDMA_WINDOW_MAX))
		return "folded BULK out of bounds accepted";
	return NULL;
}

#endif /* _RDMA_CHECK_H */
