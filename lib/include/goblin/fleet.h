/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libgoblin server sets ("fleets"): one client handle over several Goblin
 * or memcache servers, keys placed with ketama consistent hashing.
 *
 * Placement is bit-compatible with libmemcached's weighted ketama
 * (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED) and with twemproxy's
 * "distribution: ketama, hash: md5": a key lands on the same server whether
 * libmemcached writes it over TCP, twemproxy forwards it, or libgoblin
 * sends it over RDMA, as long as every client names the servers alike (see
 * &struct gb_fleet_server.ring_name).
 *
 * Thread model: like a struct gb_conn, a struct gb_fleet belongs to one
 * thread at a time. gb_fleet_get_many() runs its per-server batches on
 * worker threads of its own and serialises the callbacks.
 *
 * Servers are connected lazily, on the first request that needs them. A
 * server whose connection fails or drops is marked down for a retry
 * interval (doubling on every failed retry, up to a cap); its keys then
 * fail fast, or with &struct gb_fleet_opts.failover go to the next server
 * on the ring. The first request after the interval reconnects.
 *
 * ABI: struct gb_fleet_server, struct gb_fleet_opts and struct
 * gb_fleet_state follow the rule of <goblin/client.h>: the functions using
 * them are inline wrappers passing the caller's sizeof() to *_sz entry
 * points (an array of servers is walked with the caller's element size).
 * Exception: struct gb_fleet_server is the one structure that was not only
 * appended to. 0.3 grew the struct gb_connect_opts it embeds first, which
 * moved weight and ring_name, so gb_fleet_server_init_sz(),
 * gb_fleet_parse_sz() and gb_fleet_create_sz() have new symbol versions
 * (LIBGOBLIN_1.2) for this layout; the LIBGOBLIN_1 ones, which programs
 * built with the 0.1/0.2 headers call, still take the old one. Programs
 * built with these headers need libgoblin 0.3 or later (an older one is
 * refused by the dynamic loader). conn keeps its size from now on: new
 * connect options take its reserved[] slots.
 *
 * See libgoblin(3) and Documentation/fleet.rst.
 */
#ifndef _GOBLIN_FLEET_H
#define _GOBLIN_FLEET_H

#include <goblin/client.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define GB_FLEET_MAX_SERVERS	1024
#define GB_FLEET_NAME_MAX	1024	/* bytes of a ring name */
#define GB_FLEET_WEIGHT_MAX	65536
#define GB_KETAMA_POINTS	160	/* ring points per server at mean weight */
#define GB_MEMCACHE_PORT	11211	/* port libmemcached leaves out of names */

/**
 * struct gb_fleet_server - one member of a fleet
 * @conn:      how to reach it (transport, host, port, tuning), as for
 *             gb_connect(); the strings are copied by gb_fleet_create().
 *             @conn.one_sided must be 0 or 1 and is ignored: no gb_fleet_*
 *             call reads one-sided, so the fleet's connections never ask
 *             for it
 * @weight:    ketama weight (0 = 1); points on the ring are 160 times the
 *             server's share of the total weight times the server count
 * @ring_name: the name hashed into the ring; NULL = the name libmemcached
 *             gives a server added as (@conn.host, @conn.port): "HOST" when
 *             the port is 11211, else "HOST:PORT". An RDMA entry must carry
 *             the name of the memcache TCP listener other clients use for
 *             the same store (e.g. "10.0.0.1" for 10.0.0.1:11211) for the
 *             fleets to agree.
 *
 * Call gb_fleet_server_init() first so new fields get defaults.
 */
struct gb_fleet_server {
	struct gb_connect_opts conn;
	uint32_t weight;
	const char *ring_name;
};

/**
 * struct gb_fleet_opts - behaviour of a fleet
 * @retry_ms:     how long a failed server stays down before the next
 *                request tries to reconnect; 0 = 1000
 * @retry_max_ms: every failed reconnect doubles the down period up to
 *                this; 0 = 30000
 * @failover:     nonzero: keys of a down server go to the next live server
 *                clockwise on the ring (for equal weights, exactly where
 *                libmemcached's and twemproxy's auto-eject put them); 0:
 *                requests for them fail with -GB_ECONNECT at once
 * @timeout_ms:   I/O and connect timeout of every server whose
 *                @conn.timeout_ms is 0; 0 = the library default (10 s)
 *
 * Call gb_fleet_opts_init() first so new fields get defaults.
 */
struct gb_fleet_opts {
	int retry_ms;
	int retry_max_ms;
	int failover;
	int timeout_ms;
};

/**
 * struct gb_fleet_state - what a fleet knows about one server
 * @ring_name: name on the ring
 * @addr:      "TRANSPORT://HOST:PORT"
 * @weight:    ketama weight
 * @points:    points the server holds on the ring
 * @connected: a connection is open
 * @down:      marked down (until @retry_in_ms has passed)
 * @retry_in_ms: when @down, milliseconds until a request may retry it
 * @failures:  how many times the server was marked down
 * @last_err:  last connection-level error (negative GB_E*), 0 if none
 * @errmsg:    its message
 *
 * The strings are owned by the fleet and valid until gb_fleet_destroy().
 * @errmsg is overwritten by the next failure of the server.
 */
struct gb_fleet_state {
	const char *ring_name;
	const char *addr;
	uint32_t weight;
	uint32_t points;
	int connected;
	int down;
	int retry_in_ms;
	uint64_t failures;
	int last_err;
	const char *errmsg;
};

struct gb_fleet;

void gb_fleet_server_init_sz(struct gb_fleet_server *s, size_t size);
void gb_fleet_opts_init_sz(struct gb_fleet_opts *o, size_t size);

/**
 * gb_fleet_parse() - parse a server list
 * @list:    "SERVER[,SERVER...]" (commas or white space), each SERVER
 *           "[TRANSPORT://]HOST[:PORT][/WEIGHT][=RING_NAME]"; TRANSPORT is
 *           tcp (default) or rdma, PORT defaults to 11211, WEIGHT to 1;
 *           an IPv6 HOST is written in brackets
 * @servers: set to a malloc()ed array (one block: free() it) of servers
 *           initialised as by gb_fleet_server_init()
 * @n:       set to its length
 *
 * Return: 0, -GB_EINVAL (malformed list) or -GB_ENOMEM.
 */
int gb_fleet_parse_sz(const char *list, struct gb_fleet_server **servers,
		      size_t size, size_t *n);

/**
 * gb_fleet_create() - make a fleet over @n servers
 * @o:       options (NULL = defaults)
 * @servers: the members, in the order libmemcached would add them (the
 *           order matters only for ties between ring points)
 * @n:       1..GB_FLEET_MAX_SERVERS
 * @fleetp:  set to the new fleet
 *
 * Builds the ring; connects to nothing yet.
 * Return: 0, -GB_EINVAL (bad server, duplicate ring name, weight above
 * GB_FLEET_WEIGHT_MAX, conn.one_sided neither 0 nor 1), -GB_ENOTSUP (a
 * conn.reserved[] slot set: an option of a newer libgoblin) or
 * -GB_ENOMEM; gb_fleet_errmsg(NULL) says why.
 */
int gb_fleet_create_sz(const struct gb_fleet_opts *o, size_t osize,
		       const struct gb_fleet_server *servers, size_t ssize,
		       size_t n, struct gb_fleet **fleetp);
void gb_fleet_destroy(struct gb_fleet *f);

/**
 * gb_fleet_errmsg() - message of the last failure
 * @f: fleet, or NULL for the last failed gb_fleet_create() in this thread
 *
 * Names the server involved, e.g. "rdma://10.0.0.1:11311: connection lost:
 * ...".
 */
const char *gb_fleet_errmsg(const struct gb_fleet *f);

size_t gb_fleet_count(const struct gb_fleet *f);

/**
 * gb_fleet_server_for_key() - the ring owner of a key
 * @f:    fleet
 * @key:  key bytes
 * @klen: key length
 *
 * The server libmemcached's memcached_generate_hash() names for the same
 * servers, regardless of whether the server is up.
 * Return: index into the server array given to gb_fleet_create().
 */
size_t gb_fleet_server_for_key(const struct gb_fleet *f, const char *key,
			       size_t klen);

/**
 * gb_fleet_state() - what the fleet knows about server @i
 * @f:  fleet
 * @i:  server index
 * @st: filled in
 *
 * Return: 0 or -GB_EINVAL.
 */
int gb_fleet_state_sz(const struct gb_fleet *f, size_t i,
		      struct gb_fleet_state *st, size_t size);

/*
 * Keyed requests: as gb_get_copy(), gb_set(), gb_delete() and gb_touch(),
 * sent to the key's server. A request to a down server fails with
 * -GB_ECONNECT (or, with failover, goes to the next live server; when every
 * server is down it fails). A request whose server fails underneath it
 * marks the server down and returns the connection error (with failover:
 * is retried once per remaining server).
 */
int gb_fleet_get_copy(struct gb_fleet *f, const char *key, size_t klen,
		      void *buf, size_t buflen, size_t *vlen,
		      uint32_t *flags);
int gb_fleet_set(struct gb_fleet *f, const char *key, size_t klen,
		 const void *val, size_t vlen, uint32_t flags,
		 uint32_t exptime);
int gb_fleet_delete(struct gb_fleet *f, const char *key, size_t klen);
int gb_fleet_touch(struct gb_fleet *f, const char *key, size_t klen,
		   uint32_t exptime);

/**
 * gb_fleet_get_many() - fetch a batch spread over the fleet
 * @f:     fleet
 * @n:     number of keys
 * @keys:  key pointers
 * @klens: key lengths
 * @fn:    called for every chunk or per-key failure, as for gb_get_many();
 *         @idx is the key's index in this batch
 * @arg:   cookie for @fn
 *
 * The batch is split by server; the per-server batches run in parallel
 * (one worker thread per server beyond the first, each batch pipelined
 * as by gb_get_many()). @fn is called from those threads but never
 * concurrently with itself, and must not call into @f. Keys of a server
 * that is down or fails before answering them are reported with the
 * connection error, or with failover fetched from the next live server.
 *
 * Return: 0, or the first connection-level error (-GB_ECONNECT,
 * -GB_ECONNLOST, -GB_ETIMEDOUT, ...) reported for a key; keys that
 * failover fetched elsewhere do not count. Every key is reported to @fn
 * with a final status either way.
 */
int gb_fleet_get_many(struct gb_fleet *f, size_t n, const char *const *keys,
		      const size_t *klens, gb_chunk_fn fn, void *arg);

#pragma GCC visibility pop

static inline void gb_fleet_server_init(struct gb_fleet_server *s)
{
	gb_fleet_server_init_sz(s, sizeof(*s));
}

static inline void gb_fleet_opts_init(struct gb_fleet_opts *o)
{
	gb_fleet_opts_init_sz(o, sizeof(*o));
}

static inline int gb_fleet_parse(const char *list,
				 struct gb_fleet_server **servers, size_t *n)
{
	return gb_fleet_parse_sz(list, servers, sizeof(**servers), n);
}

static inline int gb_fleet_create(const struct gb_fleet_opts *o,
				  const struct gb_fleet_server *servers,
				  size_t n, struct gb_fleet **fleetp)
{
	return gb_fleet_create_sz(o, sizeof(*o), servers, sizeof(*servers), n,
				  fleetp);
}

static inline int gb_fleet_state(const struct gb_fleet *f, size_t i,
				 struct gb_fleet_state *st)
{
	return gb_fleet_state_sz(f, i, st, sizeof(*st));
}

#ifdef __cplusplus
}
#endif

#endif /* _GOBLIN_FLEET_H */
