/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libgoblin internals: the transport-independent connection object and the
 * table of operations each backend provides.
 */
#ifndef _GOBLIN_INTERNAL_H
#define _GOBLIN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <time.h>

#include <goblin/client.h>

#include "../../tools/include/gb_compiler.h"

#define GB_ERRMSG_LEN		256
#define GB_DEFAULT_TIMEOUT_MS	10000

/**
 * struct gb_backend - one transport's implementation
 * @name:      transport name for messages
 * @get:       fetch the first chunk of a value into @v
 * @view_next: replace the chunk in @v with the next one
 * @release:   give back the memory behind @v (must tolerate mid-value)
 * @get_copy:  optional direct copy path; NULL = generic via get/next
 * @get_many:  pipelined batch fetch
 * @set:       store a value
 * @del:       delete a key
 * @touch:     update the expiry of a key
 * @get_onesided: optional one-sided read (RDMA 3.3) into @buf; 1: not
 *             possible for this key, use @get_copy (or the generic path)
 * @get_many_onesided: optional one-sided batch; NULL: @get_many
 * @valid_key: optional extra key check; returns 0 or -GB_EKEY
 * @close:     tear down and free the backend (c itself included)
 */
struct gb_backend {
	const char *name;
	int (*get)(struct gb_conn *c, const char *key, size_t klen,
		   struct gb_view *v);
	int (*view_next)(struct gb_conn *c, struct gb_view *v);
	void (*release)(struct gb_conn *c, struct gb_view *v);
	int (*get_copy)(struct gb_conn *c, const char *key, size_t klen,
			void *buf, size_t buflen, size_t *vlen,
			uint32_t *flags);
	int (*get_many)(struct gb_conn *c, size_t n, const char *const *keys,
			const size_t *klens, gb_chunk_fn fn, void *arg);
	int (*set)(struct gb_conn *c, const char *key, size_t klen,
		   const void *val, size_t vlen, uint32_t flags,
		   uint32_t exptime);
	int (*del)(struct gb_conn *c, const char *key, size_t klen);
	int (*touch)(struct gb_conn *c, const char *key, size_t klen,
		     uint32_t exptime);
	int (*get_onesided)(struct gb_conn *c, const char *key, size_t klen,
			    void *buf, size_t buflen, size_t *vlen,
			    uint32_t *flags);
	int (*get_many_onesided)(struct gb_conn *c, size_t n,
				 const char *const *keys, const size_t *klens,
				 gb_chunk_fn fn, void *arg);
	int (*valid_key)(const char *key, size_t klen);
	void (*close)(struct gb_conn *c);
};

/**
 * struct gb_conn - transport-independent part of a connection
 * @be:         backend operations
 * @dead:       0, or the error that made the connection unusable
 * @timeout_ms: per-operation I/O timeout (negative: none)
 * @ts:         timestamps of the last request
 * @crc:        value CRC check counters (gb_crc_stats())
 * @crc_skip:   value CRCs are not checked (gb_crc_verify(c, 0))
 * @os:         one-sided read counters (gb_onesided_stats())
 * @err:        message of the last failure
 *
 * Backends embed this as the first member of their own structure.
 */
struct gb_conn {
	const struct gb_backend *be;
	int dead;
	int timeout_ms;
	struct gb_timestamps ts;
	struct gb_crc_stats crc;
	bool crc_skip;
	struct gb_onesided_stats os;
	char err[GB_ERRMSG_LEN];
};

static inline uint64_t gb_clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline uint64_t gb_now_ns(void)
{
	return gb_clock_ns(CLOCK_MONOTONIC);
}

/*
 * Lease ages: CLOCK_BOOTTIME goes on across a system suspend, during
 * which the server's lease deadline passes too.
 */
static inline uint64_t gb_boot_ns(void)
{
	return gb_clock_ns(CLOCK_BOOTTIME);
}

__printf(3, 4)
int gb_fail(struct gb_conn *c, int err, const char *fmt, ...);
__printf(3, 4)
int gb_fatal(struct gb_conn *c, int err, const char *fmt, ...);
int gb_server_text_err(struct gb_conn *c, const char *line, size_t len);
/*
 * Structures the caller allocates (ABI rule in <goblin/client.h>):
 * gb_struct_in() copies the caller's @ssize bytes into the library's own
 * @dsize ones (-GB_EINVAL if too small, -GB_ENOTSUP if a field this library
 * does not know is set); gb_struct_out() fills the caller's @dsize bytes
 * from the library's @ssize ones, zeroing what it does not know.
 */
int gb_struct_in(void *dst, size_t dsize, const void *src, size_t ssize);
int gb_struct_out(void *dst, size_t dsize, const void *src, size_t ssize);

/*
 * Older layouts still accepted. struct gb_connect_opts of libgoblin 0.1.0
 * and 0.2.0 ended at spin_us (0.3 appended one_sided and reserved[]): the
 * library tells it apart by the size the caller's header passed. struct
 * gb_fleet_server embeds it, so its fields after conn moved as well: the
 * functions taking it have a LIBGOBLIN_1 version for this layout and a
 * LIBGOBLIN_1.2 one for the current (fleet.c, GB_SYMVER).
 */
struct gb_connect_opts_v1 {
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
};

struct gb_fleet_server_v1 {
	struct gb_connect_opts_v1 conn;
	uint32_t weight;
	const char *ring_name;
};

int gb_connect_opts_in(struct gb_connect_opts *o, const void *src,
		       size_t size);

/*
 * Symbol versions of an entry point (the nodes are in libgoblin.map):
 * GB_SYMVER("name@LIBGOBLIN_1") on the definition of a function exports
 * it as that version of name, which programs linked against it keep
 * using; "name@@LIBGOBLIN_1.2" makes it the default version, the one
 * programs link to from now on. The function's own name (gb_*_v1, _v2)
 * is local in libgoblin.so (libgoblin.map: local: *) and in libgoblin.a
 * (lib/Makefile localizes gb_*_v[0-9]). An attribute, not top-level
 * .symver asm, so that it survives LTO.
 */
#define GB_SYMVER(ver)	__attribute__((symver(ver), visibility("default")))

/*
 * fleet.c: the versions of the calls taking struct gb_fleet_server, v1
 * (@LIBGOBLIN_1) for the 0.1/0.2 layout, v2 (@@LIBGOBLIN_1.2) for this one.
 */
struct gb_fleet;
struct gb_fleet_opts;
struct gb_fleet_server;
void gb_fleet_server_init_sz_v1(void *s, size_t size);
void gb_fleet_server_init_sz_v2(struct gb_fleet_server *s, size_t size);
int gb_fleet_parse_sz_v1(const char *list, void **servers, size_t size,
			 size_t *n);
int gb_fleet_parse_sz_v2(const char *list, struct gb_fleet_server **servers,
			 size_t size, size_t *n);
int gb_fleet_create_sz_v1(const struct gb_fleet_opts *o, size_t osize,
			  const void *servers, size_t ssize, size_t n,
			  struct gb_fleet **fleetp);
int gb_fleet_create_sz_v2(const struct gb_fleet_opts *o, size_t osize,
			  const struct gb_fleet_server *servers, size_t ssize,
			  size_t n, struct gb_fleet **fleetp);

size_t gb_sanitize(char *dst, size_t dstlen, const char *src, size_t len);

int gb_tcp_connect(const struct gb_connect_opts *o, struct gb_conn **connp,
		   char *err, size_t errlen);
int gb_rdma_connect(const struct gb_connect_opts *o, struct gb_conn **connp,
		    char *err, size_t errlen);

#endif /* _GOBLIN_INTERNAL_H */
