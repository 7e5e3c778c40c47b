// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: memcache text protocol parser.
 *
 * Mirrors memcached 1.6 (proto_text.c) line handling byte for byte where a
 * client can observe it: tokenisation on ' ' only, a 24-token limit, the
 * safe_strto*() number rules, the exact error strings and the cases where
 * the data block of a failed storage command is swallowed or re-parsed as
 * commands. No allocation; everything points into the caller's buffer.
 */
#include "mc_parse.h"

#define MC_MAX_TOKENS	24

struct mc_tok {
	const char *p;
	size_t len;
};

static bool mc_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

static bool mc_tok_is(const struct mc_tok *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && !memcmp(t->p, s, n);
}

/*
 * strtoul()-like scan: optional leading whitespace and sign, at least one
 * digit, then the token must end or continue with whitespace. Returns the
 * magnitude in *@mag and the sign in *@neg; fails when the magnitude does
 * not fit 64 bits.
 */
static bool mc_scan_num(const char *p, size_t len, u64 *mag, bool *neg)
{
	const char *end = p + len;
	u64 v = 0;
	bool digits = false;

	*neg = false;
	while (p < end && mc_isspace(*p))
		p++;
	if (p < end && (*p == '+' || *p == '-')) {
		*neg = *p == '-';
		p++;
	}
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned int d = *p - '0';

		if (v > (~(u64)0 - d) / 10)
			return false;
		v = v * 10 + d;
		digits = true;
		p++;
	}
	if (!digits)
		return false;
	if (p < end && !mc_isspace(*p))
		return false;
	*mag = v;
	return true;
}

/*
 * memcached safe_strtoull(): strtoull() wraps "-N" around 2^64; a result
 * that looks negative as a signed number is rejected when the token holds
 * a '-' anywhere.
 */
static bool mc_u64(const struct mc_tok *t, u64 *out)
{
	u64 mag;
	bool neg;

	if (!mc_scan_num(t->p, t->len, &mag, &neg))
		return false;
	*out = neg ? (u64)0 - mag : mag;
	if ((s64)*out < 0 && memchr(t->p, '-', t->len))
		return false;
	return true;
}

/* memcached safe_strtoul()/safe_strtoflags() on LP64: truncates to 32 bits. */
static bool mc_u32(const struct mc_tok *t, u32 *out)
{
	u64 v;

	if (!mc_u64(t, &v))
		return false;
	*out = (u32)v;
	return true;
}

/*
 * memcached 1.6.18 safe_strtol(): a 64-bit strtol() (only values outside
 * the s64 range fail) whose result is then truncated to an int32_t.
 */
static bool mc_s32(const struct mc_tok *t, s64 *out)
{
	u64 mag, v;
	bool neg;

	if (!mc_scan_num(t->p, t->len, &mag, &neg))
		return false;
	if (mag > (neg ? (u64)1 << 63 : ((u64)1 << 63) - 1))
		return false;
	v = neg ? (u64)0 - mag : mag;
	/* Two's complement truncation without implementation-defined casts. */
	v &= 0xffffffffULL;
	*out = v & 0x80000000ULL ? (s64)v - ((s64)1 << 32) : (s64)v;
	return true;
}

/*
 * Split on ' ' like memcached's tokenize_command(): at most
 * MC_MAX_TOKENS - 1 tokens are produced; anything after them is ignored
 * (memcached keeps it only for multigets, which read the raw line).
 */
static size_t mc_tokenize(const char *p, size_t len, struct mc_tok *tok)
{
	size_t i = 0, n = 0, start;

	while (i < len && n < MC_MAX_TOKENS - 1) {
		while (i < len && p[i] == ' ')
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && p[i] != ' ')
			i++;
		tok[n].p = p + start;
		tok[n].len = i - start;
		n++;
	}
	return n;
}

static void mc_set_err(struct mc_req *req, const char *err, bool quiet)
{
	req->cmd = MC_CMD_ERROR;
	req->err = err;
	req->err_quiet = quiet;
}

/* memcached set_noreply_maybe(): the last token is exactly "noreply". */
static bool mc_noreply(const struct mc_tok *tok, size_t n)
{
	return n > 0 && mc_tok_is(&tok[n - 1], "noreply");
}

static void mc_parse_storage(struct mc_req *req, enum mc_cmd cmd,
			     const struct mc_tok *tok, size_t n)
{
	bool is_cas = cmd == MC_CMD_CAS;
	s64 vlen;

	if (n != (is_cas ? 6u : 5u) && n != (is_cas ? 7u : 6u)) {
		mc_set_err(req, MC_ERR_ERROR, false);
		return;
	}
	req->noreply = mc_noreply(tok, n);
	if (tok[1].len > MC_KEY_MAX ||
	    !mc_u32(&tok[2], &req->flags) ||
	    !mc_s32(&tok[3], &req->exptime) ||
	    !mc_s32(&tok[4], &vlen) ||
	    (is_cas && !mc_u64(&tok[5], &req->cas)) ||
	    vlen < 0 || vlen > 0x7fffffff - 2) {
		mc_set_err(req, MC_ERR_FORMAT, req->noreply);
		return;
	}
	req->cmd = cmd;
	req->key = tok[1].p;
	req->klen = tok[1].len;
	req->vlen = (u64)vlen;
}

static void mc_parse_get(struct mc_req *req, enum mc_cmd cmd,
			 const struct mc_tok *tok, size_t n,
			 const char *line_end)
{
	size_t first = 1;
	const char *k;
	size_t kl;

	if (cmd == MC_CMD_GAT || cmd == MC_CMD_GATS) {
		if (!mc_s32(&tok[1], &req->exptime)) {
			mc_set_err(req, MC_ERR_EXPTIME, false);
			return;
		}
		first = 2;
	}
	req->cmd = cmd;
	if (first < n) {
		req->keys = tok[first].p;
		req->keys_end = line_end;
	} else {
		req->keys = line_end;
		req->keys_end = line_end;
	}
	/* Validate every key up front: a bad one fails the whole line. */
	{
		struct mc_req it = *req;

		while (mc_next_key(&it, &k, &kl)) {
			if (kl > MC_KEY_MAX) {
				mc_set_err(req, MC_ERR_FORMAT, false);
				return;
			}
		}
	}
	if (first < n) {
		req->key = tok[first].p;
		req->klen = tok[first].len;
	}
}

bool mc_next_key(struct mc_req *req, const char **key, size_t *klen)
{
	const char *p = req->keys, *end = req->keys_end;

	while (p < end && *p == ' ')
		p++;
	if (p >= end) {
		req->keys = end;
		return false;
	}
	*key = p;
	while (p < end && *p != ' ')
		p++;
	*klen = p - *key;
	req->keys = p;
	return true;
}

static int mc_b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Base64 decode like memcached 1.6 (base64.c): bytes outside the alphabet
 * are skipped, '=' counts as a zero digit and marks padding, the number of
 * digits must be a non-zero multiple of 4, decoding stops after the first
 * block holding padding and a block with 3 or 4 pads is an error. Returns
 * the decoded length, 0 on error (memcached treats an empty result as an
 * error too).
 */
static size_t mc_b64_decode(const char *src, size_t len, char *dst,
			    size_t max)
{
	size_t i, count = 0, o = 0;
	int blk[4], pad = 0, v;

	for (i = 0; i < len; i++)
		if (src[i] == '=' || mc_b64_val(src[i]) >= 0)
			count++;
	if (count == 0 || count % 4 || count / 4 * 3 > max)
		return 0;
	count = 0;
	for (i = 0; i < len; i++) {
		if (src[i] == '=') {
			v = 0;
			pad++;
		} else {
			v = mc_b64_val(src[i]);
			if (v < 0)
				continue;
		}
		blk[count++] = v;
		if (count < 4)
			continue;
		dst[o++] = (char)(blk[0] << 2 | blk[1] >> 4);
		dst[o++] = (char)((blk[1] & 15) << 4 | blk[2] >> 2);
		dst[o++] = (char)((blk[2] & 3) << 6 | blk[3]);
		count = 0;
		if (pad) {
			if (pad > 2)
				return 0;
			o -= pad;
			break;
		}
	}
	return o;
}

size_t mc_b64_encode(const char *src, size_t len, char *dst)
{
	static const char tbl[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = (const unsigned char *)src;
	size_t i, o = 0;

	for (i = 0; i + 2 < len; i += 3) {
		dst[o++] = tbl[s[i] >> 2];
		dst[o++] = tbl[(s[i] & 3) << 4 | s[i + 1] >> 4];
		dst[o++] = tbl[(s[i + 1] & 15) << 2 | s[i + 2] >> 6];
		dst[o++] = tbl[s[i + 2] & 63];
	}
	if (i < len) {
		dst[o++] = tbl[s[i] >> 2];
		if (i + 1 < len) {
			dst[o++] = tbl[(s[i] & 3) << 4 | s[i + 1] >> 4];
			dst[o++] = tbl[(s[i + 1] & 15) << 2];
		} else {
			dst[o++] = tbl[(s[i] & 3) << 4];
			dst[o++] = '=';
		}
		dst[o++] = '=';
	}
	return o;
}

/* Decode a base64 meta key into req->keybuf; false if it does not decode. */
static bool mc_meta_b64(struct mc_req *req, const struct mc_tok *key)
{
	size_t kl = mc_b64_decode(key->p, key->len, req->keybuf, MC_KEY_MAX);

	if (!kl)
		return false;
	req->key = req->keybuf;
	req->klen = kl;
	return true;
}

/*
 * memcached _meta_flag_preparse(): records the flags in order and parses
 * their tokens. A duplicate or unknown flag stops at once; other errors are
 * remembered (the last one wins, like memcached's errstr) and the scan goes
 * on. A bad F token keeps the previous message (memcached sets no errstr).
 * Returns NULL or the error string to send.
 */
static const char *mc_meta_flags(struct mc_req *req, const struct mc_tok *tok,
				 size_t first, size_t n)
{
	const char *err = NULL;
	bool bad = false;
	size_t i;

	req->delta = 1;
	for (i = first; i < n; i++) {
		const struct mc_tok *t = &tok[i];
		unsigned char c = (unsigned char)t->p[0];
		struct mc_tok arg = { t->p + 1, t->len - 1 };

		if (c >= 127)
			return MC_ERR_DUP_FLAG;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
			return MC_ERR_BAD_FLAG;
		if (req->mflags & MC_MF(c))
			return MC_ERR_DUP_FLAG;
		req->mflags |= MC_MF(c);
		if (req->nmeta < MC_META_FLAGS_MAX) {
			struct mc_meta_flag *m = &req->meta[req->nmeta++];

			m->c = (char)c;
			m->tok = arg.p;
			m->len = arg.len > 255 ? 255 : (u8)arg.len;
		}
		switch (c) {
		case 'b':
			req->b64 = true;
			if (!mc_meta_b64(req, &tok[1])) {
				err = MC_ERR_KEY_DECODE;
				bad = true;
			}
			break;
		case 'N':
			if (!mc_s32(&arg, &req->vivify)) {
				err = MC_ERR_BAD_TOKEN;
				bad = true;
			}
			break;
		case 'T':
			if (!mc_s32(&arg, &req->exptime)) {
				err = MC_ERR_BAD_TOKEN;
				bad = true;
			}
			req->has_exptime = true;
			break;
		case 'R':
			if (!mc_s32(&arg, &req->recache)) {
				err = MC_ERR_BAD_TOKEN;
				bad = true;
			}
			break;
		case 'O':
			req->opaque = t->p;
			req->olen = t->len;
			break;
		case 'q':
			req->noreply = true;
			break;
		case 'F':
			if (!mc_u32(&arg, &req->flags))
				bad = true;
			break;
		case 'C':
			if (!mc_u64(&arg, &req->cas)) {
				err = MC_ERR_BAD_TOKEN;
				bad = true;
			}
			break;
		case 'M':
			if (t->len != 2) {
				err = "CLIENT_ERROR incorrect length for M token";
				bad = true;
			} else {
				req->mode = t->p[1];
			}
			break;
		case 'J':
			if (!mc_u64(&arg, &req->initial)) {
				err = "CLIENT_ERROR invalid numeric initial value";
				bad = true;
			}
			break;
		case 'D':
			if (!mc_u64(&arg, &req->delta)) {
				err = "CLIENT_ERROR invalid numeric delta value";
				bad = true;
			}
			break;
		case 'P': case 'L': case 'l': case 'k': case 's': case 't':
		case 'c': case 'f': case 'v': case 'h': case 'u': case 'I':
			break;
		default:
			return MC_ERR_BAD_FLAG;
		}
	}
	if (bad)
		return err ? err : MC_ERR_FORMAT;
	return NULL;
}

/* The O token is checked by each meta command after the flag scan. */
static const char *mc_meta_opaque(const struct mc_req *req)
{
	return req->olen > MC_OPAQUE_MAX ? MC_ERR_OPAQUE_LONG : NULL;
}

static void mc_parse_meta(struct mc_req *req, enum mc_cmd cmd,
			  const struct mc_tok *tok, size_t n)
{
	const char *err;
	size_t first = 2;
	s64 vlen = 0;

	/* memcached's ntokens is n + 1 (it counts a terminal empty token). */
	if (n < 2) {
		mc_set_err(req, MC_ERR_ERROR, false);
		return;
	}
	if (tok[1].len > MC_KEY_MAX || (cmd == MC_CMD_MS && n == 2)) {
		mc_set_err(req, MC_ERR_FORMAT, false);
		return;
	}
	if (n + 1 > MC_META_TOKENS_MAX) {
		mc_set_err(req, cmd == MC_CMD_MG ? MC_ERR_FLAGS_LONG_MG :
			   MC_ERR_FLAGS_LONG, false);
		return;
	}
	if (cmd == MC_CMD_MS) {
		if (!mc_s32(&tok[2], &vlen) || vlen < 0 ||
		    vlen > 0x7fffffff - 2) {
			mc_set_err(req, MC_ERR_FORMAT, false);
			return;
		}
		req->vlen = (u64)vlen;
		first = 3;
	}
	req->raw_key = tok[1].p;
	req->raw_klen = tok[1].len;
	req->key = tok[1].p;
	req->klen = tok[1].len;
	err = mc_meta_flags(req, tok, first, n);
	if (err && (cmd == MC_CMD_MD || cmd == MC_CMD_MA))
		err = MC_ERR_MD_FLAG;
	if (!err && cmd != MC_CMD_MA)
		err = mc_meta_opaque(req);
	if (!err && cmd == MC_CMD_MS) {
		switch (req->mode) {
		case 0: case 'S':
			req->mode = MC_MS_SET;
			break;
		case 'E':
			req->mode = MC_MS_ADD;
			break;
		case 'A':
			req->mode = MC_MS_APPEND;
			break;
		case 'P':
			req->mode = MC_MS_PREPEND;
			break;
		case 'R':
			req->mode = MC_MS_REPLACE;
			break;
		default:
			err = MC_ERR_MS_MODE;
		}
	}
	if (!err && cmd == MC_CMD_MA) {
		switch (req->mode) {
		case 0: case 'I': case '+':
			req->mode = 0;
			break;
		case 'D': case '-':
			req->mode = 1;
			break;
		default:
			err = MC_ERR_MA_MODE;
		}
		if (!err)
			err = mc_meta_opaque(req);
	}
	if (err) {
		mc_set_err(req, err, false);
		if (cmd == MC_CMD_MS)
			req->vlen_swallow = true;
		return;
	}
	req->cmd = cmd;
}

/*
 * memcached "me <key> [b]": the key must be at most 250 bytes; a "b" third
 * token means base64 (a key that does not decode is a format error).
 */
static void mc_parse_me(struct mc_req *req, const struct mc_tok *tok,
			size_t n)
{
	if (n < 2 || tok[1].len > MC_KEY_MAX) {
		mc_set_err(req, MC_ERR_FORMAT, false);
		return;
	}
	req->raw_key = tok[1].p;
	req->raw_klen = tok[1].len;
	req->key = tok[1].p;
	req->klen = tok[1].len;
	if (n >= 3 && mc_tok_is(&tok[2], "b")) {
		req->b64 = true;
		if (!mc_meta_b64(req, &tok[1])) {
			mc_set_err(req, MC_ERR_FORMAT, false);
			return;
		}
	}
	req->cmd = MC_CMD_ME;
}

/* memcached closes the connection on an unknown command ending in HTTP/. */
static bool mc_http(const struct mc_tok *tok, size_t n)
{
	const struct mc_tok *last = &tok[n - 1];

	if (strchr("gsacidt", tok[0].p[0]) ||
	    (tok[0].p[0] == 'm' && tok[0].len == 2))
		return false;
	return last->len >= 5 && !memcmp(last->p, "HTTP/", 5);
}

static void mc_parse_tokens(struct mc_req *req, const struct mc_tok *tok,
			    size_t n, const char *line_end)
{
	const struct mc_tok *c = &tok[0];
	/* memcached's ntokens counts a terminal empty token. */
	size_t nt = n + 1;

	/* No valid command is shorter than two bytes. */
	if (n == 0 || c->len < 2) {
		mc_set_err(req, MC_ERR_ERROR, false);
		return;
	}
	if (mc_tok_is(c, "get") || mc_tok_is(c, "gets") ||
	    mc_tok_is(c, "gat") || mc_tok_is(c, "gats") ||
	    mc_tok_is(c, "bget")) {
		enum mc_cmd cmd = c->len == 3 ? (c->p[1] == 'e' ? MC_CMD_GET :
						 MC_CMD_GAT) :
				  (c->p[1] == 'e' ? MC_CMD_GETS : MC_CMD_GATS);

		/* "bget": an old alias of get that memcached still accepts. */
		if (c->p[0] == 'b')
			cmd = MC_CMD_GET;

		if (nt < 3) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		mc_parse_get(req, cmd, tok, n, line_end);
		return;
	}
	if (c->len == 2 && c->p[0] == 'm') {
		switch (c->p[1]) {
		case 'g':
			mc_parse_meta(req, MC_CMD_MG, tok, n);
			return;
		case 's':
			mc_parse_meta(req, MC_CMD_MS, tok, n);
			return;
		case 'd':
			mc_parse_meta(req, MC_CMD_MD, tok, n);
			return;
		case 'a':
			mc_parse_meta(req, MC_CMD_MA, tok, n);
			return;
		case 'n':
			req->cmd = MC_CMD_MN;
			return;
		case 'e':
			mc_parse_me(req, tok, n);
			return;
		}
		mc_set_err(req, MC_ERR_ERROR, false);
		return;
	}
	if (mc_tok_is(c, "set")) {
		mc_parse_storage(req, MC_CMD_SET, tok, n);
	} else if (mc_tok_is(c, "add")) {
		mc_parse_storage(req, MC_CMD_ADD, tok, n);
	} else if (mc_tok_is(c, "replace")) {
		mc_parse_storage(req, MC_CMD_REPLACE, tok, n);
	} else if (mc_tok_is(c, "append")) {
		mc_parse_storage(req, MC_CMD_APPEND, tok, n);
	} else if (mc_tok_is(c, "prepend")) {
		mc_parse_storage(req, MC_CMD_PREPEND, tok, n);
	} else if (mc_tok_is(c, "cas")) {
		mc_parse_storage(req, MC_CMD_CAS, tok, n);
	} else if (mc_tok_is(c, "incr") || mc_tok_is(c, "decr")) {
		if (nt != 4 && nt != 5) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		req->noreply = mc_noreply(tok, n);
		if (tok[1].len > MC_KEY_MAX) {
			mc_set_err(req, MC_ERR_FORMAT, req->noreply);
			return;
		}
		if (!mc_u64(&tok[2], &req->delta)) {
			mc_set_err(req, MC_ERR_DELTA, req->noreply);
			return;
		}
		req->cmd = c->p[0] == 'i' ? MC_CMD_INCR : MC_CMD_DECR;
		req->key = tok[1].p;
		req->klen = tok[1].len;
	} else if (mc_tok_is(c, "delete")) {
		if (nt < 3 || nt > 5) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		if (nt > 3) {
			bool zero = mc_tok_is(&tok[2], "0");

			req->noreply = mc_noreply(tok, n);
			if (!((nt == 4 && (zero || req->noreply)) ||
			      (nt == 5 && zero && req->noreply))) {
				mc_set_err(req, MC_ERR_DELETE_USAGE,
					   req->noreply);
				return;
			}
		}
		if (tok[1].len > MC_KEY_MAX) {
			mc_set_err(req, MC_ERR_FORMAT, req->noreply);
			return;
		}
		req->cmd = MC_CMD_DELETE;
		req->key = tok[1].p;
		req->klen = tok[1].len;
	} else if (mc_tok_is(c, "touch")) {
		if (nt != 4 && nt != 5) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		req->noreply = mc_noreply(tok, n);
		if (tok[1].len > MC_KEY_MAX) {
			mc_set_err(req, MC_ERR_FORMAT, req->noreply);
			return;
		}
		if (!mc_s32(&tok[2], &req->exptime)) {
			mc_set_err(req, MC_ERR_EXPTIME, req->noreply);
			return;
		}
		req->cmd = MC_CMD_TOUCH;
		req->key = tok[1].p;
		req->klen = tok[1].len;
	} else if (mc_tok_is(c, "flush_all")) {
		if (nt < 2 || nt > 4) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		req->noreply = mc_noreply(tok, n);
		if (nt != (req->noreply ? 3u : 2u)) {
			if (!mc_s32(&tok[1], &req->exptime)) {
				mc_set_err(req, MC_ERR_EXPTIME, req->noreply);
				return;
			}
			req->has_exptime = true;
		}
		req->cmd = MC_CMD_FLUSH_ALL;
	} else if (mc_tok_is(c, "version")) {
		/* memcached ignores any further tokens. */
		req->cmd = MC_CMD_VERSION;
	} else if (mc_tok_is(c, "verbosity")) {
		if (nt != 3 && nt != 4) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		req->noreply = mc_noreply(tok, n);
		if (!mc_u32(&tok[1], &req->verbosity)) {
			mc_set_err(req, MC_ERR_FORMAT, req->noreply);
			return;
		}
		req->cmd = MC_CMD_VERBOSITY;
	} else if (mc_tok_is(c, "stats")) {
		req->cmd = MC_CMD_STATS;
		if (n > 1) {
			req->key = tok[1].p;
			req->klen = tok[1].len > MC_KEY_MAX ? MC_KEY_MAX :
				    tok[1].len;
			/* memcached: on/off answer OK, dump END */
			if (mc_tok_is(&tok[1], "detail")) {
				if (n > 2 && mc_tok_is(&tok[2], "on"))
					req->mode = MC_STATS_DETAIL_ON;
				else if (n > 2 && mc_tok_is(&tok[2], "off"))
					req->mode = MC_STATS_DETAIL_OFF;
				else if (n > 2 && mc_tok_is(&tok[2], "dump"))
					req->mode = MC_STATS_DETAIL_DUMP;
				else
					mc_set_err(req, MC_ERR_STATS_DETAIL,
						   false);
			}
		}
	} else if (mc_tok_is(c, "quit")) {
		req->cmd = MC_CMD_QUIT;
	} else if (mc_http(tok, n)) {
		/* An HTTP request line: memcached just closes. */
		req->cmd = MC_CMD_QUIT;
	} else {
		mc_set_err(req, MC_ERR_ERROR, false);
	}
}

/* Parse the line in @buf, whose first @from bytes hold no newline. */
static int mc_parse_from(const char *buf, size_t len, size_t from,
			 struct mc_req *req)
{
	struct mc_tok tok[MC_MAX_TOKENS];
	size_t scan = len < MC_LINE_MAX_GET ? len : MC_LINE_MAX_GET;
	const char *nl = NULL;
	const char *nul;
	size_t line, n;

	if (from < scan)
		nl = memchr(buf + from, '\n', scan - from);
	if (!nl) {
		const char *p = buf;
		size_t i = 0;

		if (len <= MC_LINE_MAX)
			return MC_PARSE_MORE;
		while (i < len && p[i] == ' ')
			i++;
		/* memcached lets only get/gets grow; gat/gats here too */
		if (i > 100 || (len - i < 5) ||
		    (memcmp(p + i, "get ", 4) && memcmp(p + i, "gets ", 5) &&
		     memcmp(p + i, "gat ", 4) && memcmp(p + i, "gats ", 5)))
			return MC_PARSE_CLOSE;
		if (len >= MC_LINE_MAX_GET)
			return MC_PARSE_TOO_LONG;
		return MC_PARSE_MORE;
	}
	memset(req, 0, offsetof(struct mc_req, keybuf));
	line = nl - buf;
	if (line > 0 && buf[line - 1] == '\r')
		line--;
	/* memcached sees the line as a C string: a NUL byte ends it. */
	nul = memchr(buf, '\0', line);
	if (nul)
		line = nul - buf;
	n = mc_tokenize(buf, line, tok);
	mc_parse_tokens(req, tok, n, buf + line);
	return (int)(nl - buf + 1);
}

int mc_parse(const char *buf, size_t len, struct mc_req *req)
{
	return mc_parse_from(buf, len, 0, req);
}

int mc_parse_cont(const char *buf, size_t len, struct mc_req *req)
{
	/* never trust more than what is there now */
	size_t from = req->scanned <= len ? req->scanned : 0;
	int ret = mc_parse_from(buf, len, from, req);

	if (ret == MC_PARSE_MORE)
		req->scanned = len < MC_LINE_MAX_GET ? len : MC_LINE_MAX_GET;
	else
		mc_parse_reset(req);
	return ret;
}

const char *mc_cmd_name(enum mc_cmd cmd)
{
	static const char * const names[MC_CMD_MAX] = {
		[MC_CMD_ERROR] = "error", [MC_CMD_GET] = "get",
		[MC_CMD_GETS] = "gets", [MC_CMD_GAT] = "gat",
		[MC_CMD_GATS] = "gats", [MC_CMD_SET] = "set",
		[MC_CMD_ADD] = "add", [MC_CMD_REPLACE] = "replace",
		[MC_CMD_APPEND] = "append", [MC_CMD_PREPEND] = "prepend",
		[MC_CMD_CAS] = "cas", [MC_CMD_DELETE] = "delete",
		[MC_CMD_INCR] = "incr", [MC_CMD_DECR] = "decr",
		[MC_CMD_TOUCH] = "touch", [MC_CMD_FLUSH_ALL] = "flush_all",
		[MC_CMD_VERSION] = "version", [MC_CMD_VERBOSITY] = "verbosity",
		[MC_CMD_STATS] = "stats", [MC_CMD_QUIT] = "quit",
		[MC_CMD_MG] = "mg", [MC_CMD_MS] = "ms", [MC_CMD_MD] = "md",
		[MC_CMD_MA] = "ma", [MC_CMD_MN] = "mn", [MC_CMD_ME] = "me",
	};

	if ((unsigned int)cmd >= MC_CMD_MAX)
		return "?";
	return names[cmd];
}
