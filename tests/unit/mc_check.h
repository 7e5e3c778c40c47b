/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Invariants every mc_parse() result must satisfy, whatever the input.
 * Shared by the unit tests (random smoke test) and fuzz/mc_parse_fuzz.c.
 */
#ifndef _MC_CHECK_H
#define _MC_CHECK_H

#include <stdio.h>
#include <string.h>

#include "mc_parse.h"

#include "../../tools/include/gb_compiler.h"

static inline int mc_check_in(const char *p, size_t n, const char *lo,
			      size_t len)
{
	return p >= lo && n <= len && p + n <= lo + len;
}

static inline int mc_check_prefix(const char *s, const char *pfx)
{
	return !strncmp(s, pfx, strlen(pfx));
}

/*
 * mc_check_result() - check one mc_parse() outcome
 * @buf: input buffer, @len: its length
 * @ret: mc_parse() return value, @req: the request it filled in
 * @why: set to a description of the first violated invariant
 *
 * Return: 1 if all invariants hold, 0 otherwise.
 */
static inline int mc_check_result(const char *buf, size_t len, int ret,
				  const struct mc_req *req, const char **why)
{
	const char *k;
	size_t kl, nkeys = 0;
	struct mc_req it;

	*why = NULL;
	if (ret == MC_PARSE_MORE) {
		if (memchr(buf, '\n', len < MC_LINE_MAX_GET ? len :
			   MC_LINE_MAX_GET))
			*why = "MORE although a newline is present";
		else if (len >= MC_LINE_MAX_GET)
			*why = "MORE for a line over MC_LINE_MAX_GET";
		return !*why;
	}
	if (ret == MC_PARSE_CLOSE) {
		if (len <= MC_LINE_MAX)
			*why = "CLOSE for a short buffer";
		return !*why;
	}
	if (ret == MC_PARSE_TOO_LONG) {
		if (len < MC_LINE_MAX_GET)
			*why = "TOO_LONG below MC_LINE_MAX_GET";
		return !*why;
	}
	if (ret < 0 || (size_t)ret > len || ret > MC_LINE_MAX_GET)
		*why = "consumed length out of range";
	else if (buf[ret - 1] != '\n')
		*why = "consumed line does not end with a newline";
	else if (memchr(buf, '\n', ret - 1))
		*why = "consumed more than one line";
	else if ((unsigned int)req->cmd >= MC_CMD_MAX)
		*why = "bad command";
	if (*why)
		return 0;

	if (req->cmd == MC_CMD_ERROR) {
		if (!req->err)
			*why = "error without message";
		else if (!mc_check_prefix(req->err, "ERROR") &&
			 !mc_check_prefix(req->err, "CLIENT_ERROR ") &&
			 !mc_check_prefix(req->err, "SERVER_ERROR "))
			*why = "error message with a bad prefix";
		else if (strchr(req->err, '\r') || strchr(req->err, '\n'))
			*why = "error message contains a line break";
		else if (req->vlen_swallow && req->vlen > 0x7fffffff)
			*why = "swallow length out of range";
		return !*why;
	}
	if (mc_cmd_name(req->cmd)[0] == '?')
		*why = "command without a name";

	switch (req->cmd) {
	case MC_CMD_GET:
	case MC_CMD_GETS:
	case MC_CMD_GAT:
	case MC_CMD_GATS:
		it = *req;
		if (!mc_check_in(it.keys, it.keys_end - it.keys, buf, ret))
			*why = "key list outside the line";
		while (!*why && mc_next_key(&it, &k, &kl)) {
			nkeys++;
			if (kl == 0 || kl > MC_KEY_MAX)
				*why = "multiget key length out of range";
			else if (!mc_check_in(k, kl, buf, ret))
				*why = "multiget key outside the line";
			else if (memchr(k, ' ', kl))
				*why = "multiget key contains a space";
		}
		break;
	case MC_CMD_SET:
	case MC_CMD_ADD:
	case MC_CMD_REPLACE:
	case MC_CMD_APPEND:
	case MC_CMD_PREPEND:
	case MC_CMD_CAS:
	case MC_CMD_MS:
		if (req->vlen > 0x7fffffff - 2)
			*why = "value length out of range";
		fallthrough;
	case MC_CMD_DELETE:
	case MC_CMD_INCR:
	case MC_CMD_DECR:
	case MC_CMD_TOUCH:
	case MC_CMD_MG:
	case MC_CMD_MD:
	case MC_CMD_MA:
		if (*why)
			break;
		if (req->klen == 0 || req->klen > MC_KEY_MAX)
			*why = "key length out of range";
		else if (!mc_check_in(req->key, req->klen, buf, ret) &&
			 !mc_check_in(req->key, req->klen, req->keybuf,
				      sizeof(req->keybuf)))
			*why = "key outside the line";
		else if (req->nmeta > MC_META_FLAGS_MAX)
			*why = "too many meta flags";
		else if (req->olen > MC_OPAQUE_MAX)
			*why = "opaque too long";
		else if (req->olen &&
			 !mc_check_in(req->opaque, req->olen, buf, ret))
			*why = "opaque outside the line";
		break;
	default:
		break;
	}
	return !*why;
}

#endif /* _MC_CHECK_H */
