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
 * strtoull()-like: optional leading whitespace and sign, at least one digit,
 * then the token must end or continue with whitespace. *@neg reports a '-'.
 * Overflow fails (ERANGE).
 */
static bool mc_strtou64(const char *p, size_t len, u64 *out, bool *neg)
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
	*out = *neg ? (u64)0 - v : v;
	return true;
}

/* memcached safe_strtoull(): negative input that wraps is rejected. */
static bool mc_u64(const struct mc_tok *t, u64 *out)
{
	bool neg;

	if (!mc_strtou64(t->p, t->len, out, &neg))
		return false;
	if (neg && (s64)*out < 0)
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

/* memcached safe_strtol() into an int32_t. */
static bool mc_s32(const struct mc_tok *t, s64 *out)
{
	u64 v;
	s64 s;
	bool neg;

	if (!mc_strtou64(t->p, t->len, &v, &neg))
		return false;
	if (neg) {
		if (v != 0 && (u64)0 - v > (u64)1 << 31)
			return false;
		s = -(s64)((u64)0 - v);
	} else {
		if (v > 0x7fffffffULL)
			return false;
		s = (s64)v;
	}
	*out = s;
	return true;
}

static size_t mc_tokenize(const char *p, size_t len, struct mc_tok *tok,
			  bool *more)
{
	size_t i = 0, n = 0, start;

	*more = false;
	while (i < len) {
		while (i < len && p[i] == ' ')
			i++;
		if (i == len)
			break;
		if (n == MC_MAX_TOKENS - 1) {
			*more = true;
			break;
		}
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

/* Strict base64 decode (padding required); returns length or -1. */
static int mc_b64_decode(const char *src, size_t len, char *dst, size_t max)
{
	size_t i, o = 0;

	if (len == 0 || len % 4)
		return -1;
	for (i = 0; i < len; i += 4) {
		int v[4], j, pad = 0;

		for (j = 0; j < 4; j++) {
			char c = src[i + j];

			if (c == '=' && i + 4 == len && j >= 2) {
				v[j] = 0;
				pad++;
				continue;
			}
			if (pad)
				return -1;
			v[j] = mc_b64_val(c);
			if (v[j] < 0)
				return -1;
		}
		if (o + 3 - pad > max)
			return -1;
		dst[o++] = (char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			dst[o++] = (char)((v[1] & 15) << 4 | v[2] >> 2);
		if (pad < 1)
			dst[o++] = (char)((v[2] & 3) << 6 | v[3]);
	}
	return (int)o;
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

/*
 * memcached _meta_flag_preparse(): records the flags in order and parses
 * their tokens. Returns NULL or the error string to send.
 */
static const char *mc_meta_flags(struct mc_req *req, const struct mc_tok *tok,
				 size_t first, size_t n)
{
	const char *err = NULL;
	size_t i;

	req->delta = 1;
	for (i = first; i < n; i++) {
		const struct mc_tok *t = &tok[i];
		unsigned char c = (unsigned char)t->p[0];
		struct mc_tok arg = { t->p + 1, t->len - 1 };
		s64 v;

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
			break;
		case 'N':
			if (!mc_s32(&arg, &req->vivify))
				err = MC_ERR_BAD_TOKEN;
			break;
		case 'T':
			if (!mc_s32(&arg, &req->exptime))
				err = MC_ERR_BAD_TOKEN;
			req->has_exptime = true;
			break;
		case 'R':
			if (!mc_s32(&arg, &v))
				err = MC_ERR_BAD_TOKEN;
			break;
		case 'O':
			if (t->len > MC_OPAQUE_MAX)
				err = MC_ERR_OPAQUE_LONG;
			req->opaque = t->p;
			req->olen = t->len;
			break;
		case 'q':
			req->noreply = true;
			break;
		case 'F':
			if (!mc_u32(&arg, &req->flags))
				err = MC_ERR_FORMAT;
			break;
		case 'C':
			if (!mc_u64(&arg, &req->cas))
				err = MC_ERR_BAD_TOKEN;
			break;
		case 'M':
			if (t->len != 2)
				err = "CLIENT_ERROR incorrect length for M token";
			else
				req->mode = t->p[1];
			break;
		case 'J':
			if (!mc_u64(&arg, &req->initial))
				err = "CLIENT_ERROR invalid numeric initial value";
			break;
		case 'D':
			if (!mc_u64(&arg, &req->delta))
				err = "CLIENT_ERROR invalid numeric delta value";
			break;
		case 'P': case 'L': case 'l': case 'k': case 's': case 't':
		case 'c': case 'f': case 'v': case 'h': case 'u': case 'I':
			break;
		default:
			return MC_ERR_BAD_FLAG;
		}
	}
	return err;
}

static const char *mc_meta_key(struct mc_req *req, const struct mc_tok *key)
{
	int kl;

	req->raw_key = key->p;
	req->raw_klen = key->len;
	req->key = key->p;
	req->klen = key->len;
	if (!req->b64)
		return NULL;
	kl = mc_b64_decode(key->p, key->len, req->keybuf, MC_KEY_MAX);
	if (kl <= 0)
		return MC_ERR_KEY_DECODE;
	req->key = req->keybuf;
	req->klen = kl;
	return NULL;
}

static void mc_parse_meta(struct mc_req *req, enum mc_cmd cmd,
			  const struct mc_tok *tok, size_t n, bool more)
{
	const char *err;
	size_t first = 2;
	s64 vlen = 0;

	if (n < 2) {
		mc_set_err(req, MC_ERR_ERROR, false);
		return;
	}
	if (tok[1].len > MC_KEY_MAX) {
		mc_set_err(req, MC_ERR_FORMAT, false);
		return;
	}
	if (cmd == MC_CMD_MS) {
		if (n < 3 || !mc_s32(&tok[2], &vlen) || vlen < 0 ||
		    vlen > 0x7fffffff - 2) {
			mc_set_err(req, MC_ERR_FORMAT, false);
			return;
		}
		req->vlen = (u64)vlen;
		first = 3;
	}
	err = more ? MC_ERR_BAD_FLAG : mc_meta_flags(req, tok, first, n);
	if (!err)
		err = mc_meta_key(req, &tok[1]);
	if (!err && cmd == MC_CMD_MS) {
		switch (req->mode) {
		case 0: case 'S': case 's':
			req->mode = MC_MS_SET;
			break;
		case 'E': case 'e':
			req->mode = MC_MS_ADD;
			break;
		case 'A': case 'a':
			req->mode = MC_MS_APPEND;
			break;
		case 'P': case 'p':
			req->mode = MC_MS_PREPEND;
			break;
		case 'R': case 'r':
			req->mode = MC_MS_REPLACE;
			break;
		default:
			err = MC_ERR_MS_MODE;
		}
	}
	if (!err && cmd == MC_CMD_MA) {
		switch (req->mode) {
		case 0: case 'I': case 'i': case '+':
			req->mode = 0;
			break;
		case 'D': case 'd': case '-':
			req->mode = 1;
			break;
		default:
			err = MC_ERR_MA_MODE;
		}
	}
	if (err) {
		if ((cmd == MC_CMD_MD || cmd == MC_CMD_MA) &&
		    strcmp(err, MC_ERR_KEY_DECODE) &&
		    strcmp(err, MC_ERR_MA_MODE))
			err = MC_ERR_MD_FLAG;
		mc_set_err(req, err, false);
		if (cmd == MC_CMD_MS)
			req->vlen_swallow = true;
		return;
	}
	req->cmd = cmd;
}

static void mc_parse_tokens(struct mc_req *req, const struct mc_tok *tok,
			    size_t n, bool more, const char *line_end)
{
	const struct mc_tok *c = &tok[0];
	/* memcached's ntokens counts a terminal empty token. */
	size_t nt = n + 1;

	if (n == 0) {
		mc_set_err(req, MC_ERR_ERROR, false);
		return;
	}
	if (mc_tok_is(c, "get") || mc_tok_is(c, "gets") ||
	    mc_tok_is(c, "gat") || mc_tok_is(c, "gats")) {
		enum mc_cmd cmd = c->len == 3 ? (c->p[1] == 'e' ? MC_CMD_GET :
						 MC_CMD_GAT) :
				  (c->p[1] == 'e' ? MC_CMD_GETS : MC_CMD_GATS);

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
			mc_parse_meta(req, MC_CMD_MG, tok, n, more);
			return;
		case 's':
			mc_parse_meta(req, MC_CMD_MS, tok, n, more);
			return;
		case 'd':
			mc_parse_meta(req, MC_CMD_MD, tok, n, more);
			return;
		case 'a':
			mc_parse_meta(req, MC_CMD_MA, tok, n, more);
			return;
		case 'n':
			req->cmd = MC_CMD_MN;
			return;
		case 'e':
			if (n < 2) {
				mc_set_err(req, MC_ERR_FORMAT, false);
				return;
			}
			req->cmd = MC_CMD_ME;
			req->key = tok[1].p;
			req->klen = tok[1].len > MC_KEY_MAX ? MC_KEY_MAX :
				    tok[1].len;
			return;
		}
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
		if (nt != 2) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
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
			if (mc_tok_is(&tok[1], "detail"))
				mc_set_err(req, MC_ERR_STATS_DETAIL, false);
		}
	} else if (mc_tok_is(c, "quit")) {
		if (nt != 2) {
			mc_set_err(req, MC_ERR_ERROR, false);
			return;
		}
		req->cmd = MC_CMD_QUIT;
	} else {
		mc_set_err(req, MC_ERR_ERROR, false);
	}
}

int mc_parse(const char *buf, size_t len, struct mc_req *req)
{
	struct mc_tok tok[MC_MAX_TOKENS];
	size_t scan = len < MC_LINE_MAX_GET ? len : MC_LINE_MAX_GET;
	const char *nl = memchr(buf, '\n', scan);
	size_t line, n;
	bool more;

	if (!nl) {
		const char *p = buf;
		size_t i = 0;

		if (len >= MC_LINE_MAX_GET)
			return MC_PARSE_CLOSE;
		if (len <= MC_LINE_MAX)
			return MC_PARSE_MORE;
		while (i < len && p[i] == ' ')
			i++;
		if (i > 100 || (len - i < 5) ||
		    (memcmp(p + i, "get ", 4) && memcmp(p + i, "gets ", 5)))
			return MC_PARSE_CLOSE;
		return MC_PARSE_MORE;
	}
	memset(req, 0, offsetof(struct mc_req, keybuf));
	line = nl - buf;
	if (line > 0 && buf[line - 1] == '\r')
		line--;
	n = mc_tokenize(buf, line, tok, &more);
	mc_parse_tokens(req, tok, n, more, buf + line);
	return (int)(nl - buf + 1);
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
