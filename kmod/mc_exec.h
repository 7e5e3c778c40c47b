/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: memcache request execution.
 *
 * Executes a parsed request (kmod/proto/mc_parse.h) against the store and
 * produces memcached's exact response bytes through a transport-provided
 * sink. Transport independent: TCP uses it today, other transports can
 * reuse the same semantics.
 *
 * Storage commands are split in three steps because their value arrives
 * after the command line: gb_mc_store_begin() allocates the object (or
 * decides to swallow the data), the transport streams the value into
 * op->obj with gb_obj_write(), and gb_mc_store_end() checks the trailing
 * "\r\n", publishes the object and answers.
 */
#ifndef _GOBLIN_MC_EXEC_H
#define _GOBLIN_MC_EXEC_H

#include <linux/types.h>

#include "mc_parse.h"

struct gb_obj;
struct gb_mc_sink;
struct gb_trace_id;

/**
 * struct gb_mc_sink_ops - where responses go
 * @text:   queue @len bytes of response text (copied)
 * @value:  queue all value bytes of @obj; takes over the caller's reference
 * @mark:   remember the end of what is queued
 * @rewind: drop what was queued since the last @mark (nothing of it has
 *          been sent: gb_mc_exec() calls both within one request)
 * @full:   optional: the transport holds as much queued output as it
 *          allows; a multi-key get then pauses (GB_MC_SUSPEND)
 *
 * @text and @value return 0 or -errno (the transport then closes the
 * connection).
 */
struct gb_mc_sink_ops {
	int (*text)(struct gb_mc_sink *sink, const char *p, size_t len);
	int (*value)(struct gb_mc_sink *sink, struct gb_obj *obj);
	void (*mark)(struct gb_mc_sink *sink);
	void (*rewind)(struct gb_mc_sink *sink);
	bool (*full)(struct gb_mc_sink *sink);
};

/**
 * struct gb_mc_sink - response destination
 * @ops:    transport operations
 * @resume: a get returned GB_MC_SUSPEND: the transport must call
 *          gb_mc_exec() with the same request again (its key cursor
 *          points at the next key) before it parses anything else
 * @tid:    the request being executed, for tracepoints (NULL: none)
 */
struct gb_mc_sink {
	const struct gb_mc_sink_ops *ops;
	bool resume;
	const struct gb_trace_id *tid;
};

/* What gb_mc_exec() asks the transport to do next. */
enum gb_mc_action {
	GB_MC_CONTINUE,		/* parse the next request */
	GB_MC_CLOSE,		/* close the connection (quit, fatal error) */
	GB_MC_SUSPEND,		/* paused until output drains (sink->resume) */
};

/**
 * struct gb_mc_store_op - a storage command waiting for its value
 * @obj:     object receiving the value, NULL when swallowing
 * @vlen:    value length
 * @cmd:     MC_CMD_SET .. MC_CMD_CAS or MC_CMD_MS
 * @mode:    store mode for gb_store_commit()
 * @cas:     expected cas
 * @noreply: suppress the success reply (noreply / meta q)
 * @err:     error to send once the data is swallowed (NULL: none)
 * @err_quiet: do not send @err
 * @ret_c:   ms: return the new cas (c flag)
 * @ret_k:   ms: return the key (k flag)
 * @b64:     ms: key was base64
 * @olen:    ms: opaque token length (0: none)
 * @opaque:  ms: opaque token ("O...")
 * @klen:    key length
 * @key:     key copy (for replies and for SET failure cleanup)
 */
struct gb_mc_store_op {
	struct gb_obj *obj;
	u64 vlen;
	enum mc_cmd cmd;
	int mode;
	u64 cas;
	bool noreply;
	const char *err;
	bool err_quiet;
	bool ret_c;
	bool ret_k;
	bool b64;
	u8 olen;
	char opaque[MC_OPAQUE_MAX];
	u8 klen;
	char key[MC_KEY_MAX];
};

/**
 * gb_mc_exec() - execute a non-storage request (or a parse error)
 * @req:  parsed request (not a storage command)
 * @sink: response destination
 *
 * Return: a gb_mc_action, or -errno if the sink failed.
 */
int gb_mc_exec(struct mc_req *req, struct gb_mc_sink *sink);

/**
 * gb_mc_store_begin() - start a storage command
 * @req: parsed set/add/replace/append/prepend/cas/ms request
 * @op:  filled in; the transport must then consume op->vlen + 2 bytes,
 *       writing the first op->vlen into op->obj when it is not NULL
 */
void gb_mc_store_begin(const struct mc_req *req, struct gb_mc_store_op *op);

/**
 * gb_mc_store_end() - finish a storage command
 * @op:       from gb_mc_store_begin(); op->obj is consumed
 * @chunk_ok: the two bytes after the value were "\r\n"
 * @sink:     response destination
 *
 * Return: 0 or -errno if the sink failed.
 */
int gb_mc_store_end(struct gb_mc_store_op *op, bool chunk_ok,
		    struct gb_mc_sink *sink);

/* Drop a pending op (connection closed mid-value). */
void gb_mc_store_abort(struct gb_mc_store_op *op);

/*
 * Module-wide memcache state (the stats counters, the "stats detail"
 * prefix table). kmod/main.c calls gb_mc_exec_init() before the
 * transports that execute requests start, and gb_mc_exec_exit(), which
 * frees the prefix table, after the last of them has exited.
 */
/* int gb_mc_exec_init(void) and void gb_mc_exec_exit(void): goblin.h */

#endif /* _GOBLIN_MC_EXEC_H */
