// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Goblin Store: validation of RDMA protocol v3 records and connect data.
 *
 * Shared by the kernel server and the userspace client library. Input
 * buffers must be 8-byte aligned (receive buffers always are).
 */
#include "rdma_rec.h"

/**
 * gb_rdma_key_ok() - check a key against memcache rules
 * @key: key bytes
 * @len: key length
 *
 * Return: true for 1..250 bytes without control characters or spaces.
 */
bool gb_rdma_key_ok(const char *key, size_t len)
{
	size_t i;

	if (len == 0 || len > GB_RDMA_KEY_MAX)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = key[i];

		if (c <= ' ' || c == 0x7f)
			return false;
	}
	return true;
}

static bool gb_rdma_zero(const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static bool gb_rdma_has_nul(const char *s, size_t len)
{
	return memchr(s, 0, len);
}

static int gb_rdma_parse_get(const struct gb_rdma_get *g, size_t blen,
			     unsigned int max, struct gb_rdma_rec *rec,
			     const char **msg)
{
	size_t pos = 0, avail;
	unsigned int i, n;

	if (blen < 8) {
		*msg = "bad GET record";
		return GB_RDMA_PARSE_CLIENT;
	}
	avail = blen - 8;
	n = gbr_le16(g->nkeys);
	if (n == 0 || n > max) {
		*msg = "bad key count";
		return GB_RDMA_PARSE_CLIENT;
	}
	rec->u.get.nkeys = n;
	for (i = 0; i < n; i++) {
		unsigned int kl;

		if (pos >= avail) {
			*msg = "truncated key list";
			return GB_RDMA_PARSE_CLIENT;
		}
		kl = g->keys[pos++];
		if (kl > avail - pos ||
		    !gb_rdma_key_ok((const char *)&g->keys[pos], kl)) {
			*msg = "bad key";
			return GB_RDMA_PARSE_CLIENT;
		}
		rec->u.get.off[i] = (__u16)(sizeof(struct gb_rdma_hdr) +
					     offsetof(struct gb_rdma_get,
						      keys) + pos);
		rec->u.get.klen[i] = (__u8)kl;
		pos += kl;
	}
	return GB_RDMA_PARSE_OK;
}

static int gb_rdma_parse_key(const __u8 *key, __u8 klen, const char **msg)
{
	if (!gb_rdma_key_ok((const char *)key, klen)) {
		*msg = "bad key";
		return GB_RDMA_PARSE_CLIENT;
	}
	return GB_RDMA_PARSE_OK;
}

/* Decode a BULK body; false if the window or length is impossible. */
static bool gb_rdma_bulk_decode(const struct gb_rdma_bulk *b,
				struct gb_rdma_rec_bulk *d)
{
	d->window = gbr_le16(b->window);
	d->flags = gbr_le16(b->flags);
	d->len = gbr_le32(b->len);
	d->offset = gbr_le64(b->offset);
	d->key_index = gbr_le16(b->key_index);
	d->crc = gbr_le32(b->crc);
	d->hits = 0;
	d->misses = 0;
	return d->window < GB_RDMA_MAX_WINDOWS && d->len &&
	       d->len <= GB_RDMA_WINDOW_MAX;
}

/**
 * gb_rdma_rec_parse() - validate one record and decode it
 * @buf: record bytes (8-byte aligned)
 * @len: bytes received; must be GB_RDMA_RECORD_SIZE
 * @rec: decoded record (host byte order; pointers into @buf)
 * @msg: on GB_RDMA_PARSE_CLIENT, a memcache-style message
 *
 * Header fields (type, tag, credits) are decoded before the body is
 * checked, so they are valid for any result but GB_RDMA_PARSE_FATAL.
 *
 * Return: enum gb_rdma_parse.
 */
int gb_rdma_rec_parse(const void *buf, size_t len, struct gb_rdma_rec *rec,
		      const char **msg)
{
	const struct gb_rdma_hdr *h = buf;
	const __u8 *body = (const __u8 *)buf + sizeof(*h);
	size_t blen;

	*msg = "";
	if (len != GB_RDMA_RECORD_SIZE) {
		*msg = "bad record size";
		return GB_RDMA_PARSE_FATAL;
	}
	blen = gbr_le16(h->len);
	if (blen > GB_RDMA_BODY_MAX) {
		*msg = "bad record length";
		return GB_RDMA_PARSE_FATAL;
	}
	rec->type = h->type;
	rec->flags = h->flags;
	rec->credits = gbr_le16(h->credits);
	rec->tag = gbr_le64(h->tag);

	switch (h->type) {
	case GB_RDMA_NOOP:
	case GB_RDMA_VERSION_REQ:
	case GB_RDMA_R_NOOP:
		return GB_RDMA_PARSE_OK;
	case GB_RDMA_GET:
		rec->u.get.flags = 0;
		return gb_rdma_parse_get((const struct gb_rdma_get *)body, blen,
					 GB_RDMA_GET_MAX_KEYS, rec, msg);
	case GB_RDMA_LOOKUP: {
		int r;

		r = gb_rdma_parse_get((const struct gb_rdma_get *)body, blen,
				      GB_RDMA_LOOKUP_MAX_KEYS, rec, msg);
		if (r != GB_RDMA_PARSE_OK)
			return r;
		rec->u.get.flags =
			gbr_le16(((const struct gb_rdma_get *)body)->flags);
		/* a flag of a later revision must not be taken for none */
		if (rec->u.get.flags & ~GB_RDMA_LOOKUP_RELEASE) {
			*msg = "bad LOOKUP flags";
			return GB_RDMA_PARSE_CLIENT;
		}
		return GB_RDMA_PARSE_OK;
	}
	case GB_RDMA_R_LOOKUP: {
		const struct gb_rdma_lookup_r *l = (const void *)body;
		unsigned int i;

		rec->u.lookup.nkeys = gbr_le16(l->nkeys);
		rec->u.lookup.lease_ms = gbr_le32(l->lease_ms);
		rec->u.lookup.desc = l->desc;
		if (rec->u.lookup.nkeys == 0 ||
		    rec->u.lookup.nkeys > GB_RDMA_LOOKUP_MAX_KEYS) {
			*msg = "bad descriptor count";
			return GB_RDMA_PARSE_FATAL;
		}
		for (i = 0; i < rec->u.lookup.nkeys; i++) {
			const struct gb_rdma_desc *d = &l->desc[i];

			if (d->status > GB_RDMA_DESC_BUSY ||
			    gbr_le32(d->len) > GB_RDMA_ONESIDED_MAX) {
				*msg = "bad descriptor";
				return GB_RDMA_PARSE_FATAL;
			}
		}
		return GB_RDMA_PARSE_OK;
	}
	case GB_RDMA_SET: {
		const struct gb_rdma_set *s = (const void *)body;

		rec->u.set.mode = gbr_le32(s->mode);
		rec->u.set.flags = gbr_le32(s->flags);
		rec->u.set.exptime = (__s64)gbr_le64(s->exptime);
		rec->u.set.cas = gbr_le64(s->cas);
		rec->u.set.bytes = gbr_le64(s->bytes);
		rec->u.set.addr = gbr_le64(s->addr);
		rec->u.set.klen = s->klen;
		rec->u.set.key = (const char *)s->key;
		if (rec->u.set.mode > GB_RDMA_SET_PREPEND) {
			*msg = "bad command line format";
			return GB_RDMA_PARSE_CLIENT;
		}
		return gb_rdma_parse_key(s->key, s->klen, msg);
	}
	case GB_RDMA_DELETE:
	case GB_RDMA_TOUCH: {
		const struct gb_rdma_keyop *k = (const void *)body;

		rec->u.keyop.exptime = (__s64)gbr_le64(k->exptime);
		rec->u.keyop.cas = gbr_le64(k->cas);
		rec->u.keyop.klen = k->klen;
		rec->u.keyop.key = (const char *)k->key;
		return gb_rdma_parse_key(k->key, k->klen, msg);
	}
	case GB_RDMA_FLOW: {
		const struct gb_rdma_flow *f = (const void *)body;

		rec->u.flow.windows = gbr_le64(f->windows);
		return GB_RDMA_PARSE_OK;
	}
	case GB_RDMA_R_VALUE: {
		const struct gb_rdma_value *v = (const void *)body;

		rec->u.value.key_index = gbr_le16(v->key_index);
		rec->u.value.klen = v->klen;
		rec->u.value.vflags = v->vflags;
		rec->u.value.flags = gbr_le32(v->flags);
		rec->u.value.bytes = gbr_le64(v->bytes);
		rec->u.value.cas = gbr_le64(v->cas);
		rec->u.value.crc = gbr_le32(v->crc);
		rec->u.value.key = (const char *)v->key;
		memset(&rec->u.value.bulk, 0, sizeof(rec->u.value.bulk));
		rec->u.value.hits = 0;
		rec->u.value.misses = 0;
		rec->u.value.data = NULL;
		if (rec->u.value.key_index >= GB_RDMA_GET_MAX_KEYS)
			return GB_RDMA_PARSE_FATAL;
		return gb_rdma_parse_key(v->key, v->klen, msg);
	}
	case GB_RDMA_R_BULK:
		if (!gb_rdma_bulk_decode((const void *)body, &rec->u.bulk))
			return GB_RDMA_PARSE_FATAL;
		return GB_RDMA_PARSE_OK;
	case GB_RDMA_R_END: {
		const struct gb_rdma_end *e = (const void *)body;

		rec->u.end.hits = gbr_le16(e->hits);
		rec->u.end.misses = gbr_le16(e->misses);
		return GB_RDMA_PARSE_OK;
	}
	case GB_RDMA_R_STATUS: {
		const struct gb_rdma_status *s = (const void *)body;

		rec->u.status.status = gbr_le32(s->status);
		rec->u.status.cas = gbr_le64(s->cas);
		return GB_RDMA_PARSE_OK;
	}
	case GB_RDMA_R_ERROR: {
		const struct gb_rdma_error *e = (const void *)body;

		rec->u.error.kind = gbr_le32(e->kind);
		rec->u.error.msg = e->msg;
		if (!gb_rdma_has_nul(e->msg, sizeof(e->msg)))
			return GB_RDMA_PARSE_FATAL;
		return GB_RDMA_PARSE_OK;
	}
	case GB_RDMA_R_VERSION: {
		const struct gb_rdma_version *v = (const void *)body;

		rec->u.version.version = gbr_le32(v->version);
		rec->u.version.server = v->server;
		if (!gb_rdma_has_nul(v->server, sizeof(v->server)))
			return GB_RDMA_PARSE_FATAL;
		return GB_RDMA_PARSE_OK;
	}
	default:
		return GB_RDMA_PARSE_UNKNOWN;
	}
}

/*
 * 3.2: decode the first BULK folded into VALUE @v (whose own fields are in
 * @rec already). It must be a BULK of this value at offset 0 that a BULK
 * record could carry (no END of its own: VALUE folds END in value.end),
 * and consistent with the value's length: LAST exactly when the chunk is
 * the whole value.
 */
static bool gb_rdma_first_bulk(const struct gb_rdma_value *v,
			       struct gb_rdma_rec *rec)
{
	struct gb_rdma_rec_bulk *b = &rec->u.value.bulk;
	bool last;

	if (!gb_rdma_bulk_decode(&v->bulk, b))
		return false;
	last = b->flags & GB_RDMA_BULK_LAST;
	return b->offset == 0 && b->key_index == rec->u.value.key_index &&
	       !(b->flags & GB_RDMA_BULK_END) && b->len <= rec->u.value.bytes &&
	       last == (b->len == rec->u.value.bytes);
}

/**
 * gb_rdma_resp_parse() - validate one record received by a client
 * @buf:     record bytes (8-byte aligned)
 * @len:     bytes received
 * @rec_max: accept.record_size of a connection with GB_RDMA_CONNECT_FOLD
 *           granted (revision 3.2), else GB_RDMA_RECORD_SIZE
 * @rec:     decoded record (host byte order; pointers into @buf)
 * @msg:     on GB_RDMA_PARSE_CLIENT, a memcache-style message
 *
 * With @rec_max at GB_RDMA_RECORD_SIZE this is gb_rdma_rec_parse(): the
 * 3.2 flags are left as sent and their fields not decoded. Above it, a
 * record may be longer than GB_RDMA_RECORD_SIZE only as a VALUE with
 * GB_RDMA_VALUE_INLINE of exactly GB_RDMA_RECORD_SIZE + value.bytes
 * (@rec->u.value.data points at the inline bytes), and the folded BULK and END
 * of VALUE (GB_RDMA_VALUE_BULK, GB_RDMA_VALUE_END) and END of BULK
 * (GB_RDMA_BULK_END) are decoded and checked. Fatal, besides what
 * gb_rdma_rec_parse() refuses: a VALUE both INLINE and BULK; a folded
 * BULK not at offset 0, for another key index, with GB_RDMA_BULK_END, or
 * whose length and LAST disagree with value.bytes; GB_RDMA_VALUE_END on a
 * VALUE that is neither INLINE nor carries its last BULK; GB_RDMA_BULK_END
 * without GB_RDMA_BULK_LAST.
 *
 * Return: enum gb_rdma_parse.
 */
int gb_rdma_resp_parse(const void *buf, size_t len, size_t rec_max,
		       struct gb_rdma_rec *rec, const char **msg)
{
	const __u8 *body = (const __u8 *)buf + sizeof(struct gb_rdma_hdr);
	int ret;

	if (rec_max <= GB_RDMA_RECORD_SIZE)
		return gb_rdma_rec_parse(buf, len, rec, msg);
	*msg = "";
	if (len < GB_RDMA_RECORD_SIZE || len > rec_max) {
		*msg = "bad record size";
		return GB_RDMA_PARSE_FATAL;
	}
	ret = gb_rdma_rec_parse(buf, GB_RDMA_RECORD_SIZE, rec, msg);
	if (ret != GB_RDMA_PARSE_OK)
		return ret;
	if (rec->type == GB_RDMA_R_VALUE) {
		const struct gb_rdma_value *v = (const void *)body;
		__u8 vf = rec->u.value.vflags;

		if ((vf & GB_RDMA_VALUE_INLINE) && (vf & GB_RDMA_VALUE_BULK)) {
			*msg = "VALUE both inline and bulk";
			return GB_RDMA_PARSE_FATAL;
		}
		if (vf & GB_RDMA_VALUE_INLINE) {
			if (rec->u.value.bytes > rec_max - GB_RDMA_RECORD_SIZE ||
			    len != GB_RDMA_RECORD_SIZE + rec->u.value.bytes) {
				*msg = "bad inline value length";
				return GB_RDMA_PARSE_FATAL;
			}
			rec->u.value.data = (const __u8 *)buf +
					    GB_RDMA_RECORD_SIZE;
		} else if (len != GB_RDMA_RECORD_SIZE) {
			*msg = "bad record size";
			return GB_RDMA_PARSE_FATAL;
		}
		if ((vf & GB_RDMA_VALUE_BULK) &&
		    !gb_rdma_first_bulk(v, rec)) {
			*msg = "bad folded BULK";
			return GB_RDMA_PARSE_FATAL;
		}
		if (vf & GB_RDMA_VALUE_END) {
			/* END only after the value's last byte */
			if (!(vf & GB_RDMA_VALUE_INLINE) &&
			    !((vf & GB_RDMA_VALUE_BULK) &&
			      (rec->u.value.bulk.flags & GB_RDMA_BULK_LAST))) {
				*msg = "END folded into an unfinished value";
				return GB_RDMA_PARSE_FATAL;
			}
			rec->u.value.hits = gbr_le16(v->end.hits);
			rec->u.value.misses = gbr_le16(v->end.misses);
		}
		return GB_RDMA_PARSE_OK;
	}
	if (len != GB_RDMA_RECORD_SIZE) {
		*msg = "bad record size";
		return GB_RDMA_PARSE_FATAL;
	}
	if (rec->type == GB_RDMA_R_BULK &&
	    (rec->u.bulk.flags & GB_RDMA_BULK_END)) {
		const struct gb_rdma_bulk_end *be = (const void *)body;

		if (!(rec->u.bulk.flags & GB_RDMA_BULK_LAST)) {
			*msg = "END folded into a BULK that is not the last";
			return GB_RDMA_PARSE_FATAL;
		}
		rec->u.bulk.hits = gbr_le16(be->end.hits);
		rec->u.bulk.misses = gbr_le16(be->end.misses);
	}
	return GB_RDMA_PARSE_OK;
}

/**
 * gb_rdma_req_parse() - validate one record received by a server
 * @buf: record bytes (8-byte aligned)
 * @len: bytes received; must be GB_RDMA_RECORD_SIZE
 * @rec: decoded record (host byte order; pointers into @buf)
 * @msg: on GB_RDMA_PARSE_CLIENT, a memcache-style message
 *
 * As gb_rdma_rec_parse(), except that a response type (0x80 and up: VALUE,
 * BULK, ...) is not a request, so it is GB_RDMA_PARSE_UNKNOWN like any
 * other type a server does not know, whatever its body holds: only a bad
 * size or header length makes it fatal.
 *
 * Return: enum gb_rdma_parse.
 */
int gb_rdma_req_parse(const void *buf, size_t len, struct gb_rdma_rec *rec,
		      const char **msg)
{
	const struct gb_rdma_hdr *h = buf;

	if (len != GB_RDMA_RECORD_SIZE || h->type < 0x80)
		return gb_rdma_rec_parse(buf, len, rec, msg);
	*msg = "";
	if (gbr_le16(h->len) > GB_RDMA_BODY_MAX) {
		*msg = "bad record length";
		return GB_RDMA_PARSE_FATAL;
	}
	rec->type = h->type;
	rec->flags = h->flags;
	rec->credits = gbr_le16(h->credits);
	rec->tag = gbr_le64(h->tag);
	return GB_RDMA_PARSE_UNKNOWN;
}

/**
 * gb_rdma_connect_parse() - validate a client's connect private data
 * @priv: private data as received (may be NULL)
 * @len:  its length; shorter data is treated as zero padded
 * @geom: decoded parameters on success
 *
 * Return: GB_RDMA_REJ_NONE if acceptable, else the reject reason.
 */
enum gb_rdma_reject_reason gb_rdma_connect_parse(const void *priv, size_t len,
						 struct gb_rdma_geom *geom)
{
	struct gb_rdma_connect c;
	__u64 span;

	memset(&c, 0, sizeof(c));
	if (priv)
		memcpy(&c, priv, len < sizeof(c) ? len : sizeof(c));
	if (gbr_le32(c.magic) != GB_RDMA_MAGIC)
		return GB_RDMA_REJ_MAGIC;
	if (gbr_le16(c.version) != GB_RDMA_VERSION)
		return GB_RDMA_REJ_VERSION;
	geom->flags = gbr_le16(c.flags);
	geom->window_size = gbr_le32(c.window_size);
	geom->window_count = gbr_le16(c.window_count);
	geom->credits = gbr_le16(c.credits);
	geom->rkey = gbr_le32(c.rkey);
	geom->window_base = gbr_le64(c.window_base);
	geom->region_len = gbr_le64(c.region_len);
	if (geom->window_size < GB_RDMA_WINDOW_MIN ||
	    geom->window_size > GB_RDMA_WINDOW_MAX ||
	    geom->window_size % 4096 ||
	    geom->window_count == 0 ||
	    geom->window_count > GB_RDMA_MAX_WINDOWS)
		return GB_RDMA_REJ_WINDOW;
	span = (__u64)geom->window_size * geom->window_count;
	if (geom->region_len < span ||
	    geom->window_base + geom->region_len < geom->window_base)
		return GB_RDMA_REJ_WINDOW;
	if (geom->credits < GB_RDMA_CREDITS_MIN ||
	    geom->credits > GB_RDMA_CREDITS_MAX)
		return GB_RDMA_REJ_CREDITS;
	if ((geom->flags & ~GB_RDMA_CONNECT_FLAGS) ||
	    !gb_rdma_zero(c.reserved, sizeof(c.reserved)))
		return GB_RDMA_REJ_VERSION;
	/* 3.2: the receive buffer size; reserved (zero) without the flag */
	geom->record_size = gbr_le32(c.record_size);
	if (!(geom->flags & GB_RDMA_CONNECT_FOLD))
		return geom->record_size ? GB_RDMA_REJ_VERSION :
					   GB_RDMA_REJ_NONE;
	/*
	 * Above GB_RDMA_RECORD_SIZE: a grant of exactly that size would tell
	 * gb_rdma_resp_parse() that nothing is folded.
	 */
	if (geom->record_size < GB_RDMA_FOLD_RECORD_MIN ||
	    geom->record_size > GB_RDMA_FOLD_RECORD_CAP ||
	    geom->record_size % 64)
		return GB_RDMA_REJ_RECORD;
	return GB_RDMA_REJ_NONE;
}

/**
 * gb_rdma_connect_build() - encode connect private data
 * @c:    output (GB_RDMA_CONNECT_SIZE bytes)
 * @geom: client parameters
 */
void gb_rdma_connect_build(struct gb_rdma_connect *c,
			   const struct gb_rdma_geom *geom)
{
	memset(c, 0, sizeof(*c));
	c->magic = gbr_cpu32(GB_RDMA_MAGIC);
	c->version = gbr_cpu16(GB_RDMA_VERSION);
	c->flags = gbr_cpu16(geom->flags);
	c->window_size = gbr_cpu32(geom->window_size);
	c->window_count = gbr_cpu16(geom->window_count);
	c->credits = gbr_cpu16(geom->credits);
	c->rkey = gbr_cpu32(geom->rkey);
	c->record_size = gbr_cpu32(geom->record_size);
	c->window_base = gbr_cpu64(geom->window_base);
	c->region_len = gbr_cpu64(geom->region_len);
}

/**
 * gb_rdma_reject_str() - printable text of a reject reason
 * @reason: enum gb_rdma_reject_reason
 *
 * Return: a static string.
 */
const char *gb_rdma_reject_str(unsigned int reason)
{
	switch (reason) {
	case GB_RDMA_REJ_NONE:
		return "not rejected by Goblin server";
	case GB_RDMA_REJ_MAGIC:
		return "bad magic (not a Goblin v3 client)";
	case GB_RDMA_REJ_VERSION:
		return "unsupported protocol version or flags";
	case GB_RDMA_REJ_WINDOW:
		return "bad bulk window geometry";
	case GB_RDMA_REJ_CREDITS:
		return "credits out of range";
	case GB_RDMA_REJ_BUSY:
		return "server connection limit reached";
	case GB_RDMA_REJ_NOMEM:
		return "server out of resources";
	case GB_RDMA_REJ_SHUTDOWN:
		return "listener shutting down";
	case GB_RDMA_REJ_DEVICE:
		return "RDMA device lacks a needed capability";
	case GB_RDMA_REJ_READ:
		return "client allows no RDMA READ (responder_resources 0)";
	case GB_RDMA_REJ_RECORD:
		return "bad record size (folded responses)";
	default:
		return "unknown reject reason";
	}
}

/**
 * gb_rdma_hdr_init() - zero a record and fill its header
 * @rec:      GB_RDMA_RECORD_SIZE bytes, 8-byte aligned
 * @type:     enum gb_rdma_rec_type
 * @tag:      request tag
 * @credits:  credits granted to the receiver
 * @body_len: bytes of body used
 */
void gb_rdma_hdr_init(void *rec, __u8 type, __u64 tag, __u16 credits,
		      __u16 body_len)
{
	struct gb_rdma_hdr *h = rec;

	memset(rec, 0, GB_RDMA_RECORD_SIZE);
	h->type = type;
	h->credits = gbr_cpu16(credits);
	h->len = gbr_cpu16(body_len);
	h->tag = gbr_cpu64(tag);
}

/**
 * gb_rdma_get_add_key() - append a key to a GET record
 * @rec:  record initialised by gb_rdma_hdr_init(..., GB_RDMA_GET, ..., 8)
 * @key:  key bytes
 * @klen: key length
 *
 * Return: 0, or -1 if the key is invalid or does not fit.
 */
int gb_rdma_get_add_key(void *rec, const char *key, size_t klen)
{
	struct gb_rdma_hdr *h = rec;
	struct gb_rdma_get *g = (void *)(h + 1);
	size_t used = gbr_le16(h->len);
	unsigned int n = gbr_le16(g->nkeys);

	if (used < 8)
		used = 8;
	if (!gb_rdma_key_ok(key, klen) || n >= GB_RDMA_GET_MAX_KEYS ||
	    used + 1 + klen > GB_RDMA_BODY_MAX)
		return -1;
	g->keys[used - 8] = (__u8)klen;
	memcpy(&g->keys[used - 7], key, klen);
	g->nkeys = gbr_cpu16(n + 1);
	h->len = gbr_cpu16((__u16)(used + 1 + klen));
	return 0;
}
