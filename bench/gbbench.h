/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gbbench: benchmark tool for Goblin Store (and stock memcached).
 *
 * The tool is split into the phase driver (gbbench.c), helpers for timing,
 * statistics, checksums and CPU accounting (util.c) and client backends:
 * the libgoblin adapter (be_libgoblin.c, built when lib/ provides the
 * library) and a minimal built-in memcache text client (be_mctcp.c) that
 * lets the TCP path run before, and independently of, libgoblin.
 */
#ifndef GBBENCH_H
#define GBBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../tools/include/gb_compiler.h"

#define GBB_MAX_LIST	16
#define GBB_KEY_LEN	32

enum gbb_transport {
	GBB_TCP,
	GBB_RDMA,
};

/* Completion status of one GET. Any value but GBB_OK is fatal. */
enum gbb_status {
	GBB_OK = 0,
	GBB_MISS,	/* server answered "not found" */
	GBB_BADKEY,	/* answer names another key */
	GBB_TOOBIG,	/* value larger than the buffer */
	GBB_PROTO,	/* bad framing or unexpected answer */
	GBB_IO,		/* connection error or EOF */
};

struct gbb_opts {
	const char *addr;
	const char *port;
	enum gbb_transport transport;
	const char *client;		/* "lib" or "builtin" */
	const char *servers;		/* libgoblin server set, or NULL */
	unsigned int count;		/* objects in the corpus */
	uint64_t size;			/* bytes per object */
	unsigned int qps[GBB_MAX_LIST];	/* throughput sweep, QPs */
	unsigned int nqps;
	unsigned int depth[GBB_MAX_LIST];	/* throughput sweep, depth */
	unsigned int ndepth;
	unsigned int load_qps;		/* parallel streams for load */
	double warmup_s;		/* throughput warmup window */
	double measure_s;		/* throughput measurement window */
	unsigned int lat_warmup;	/* latency warmup requests per rep */
	unsigned int lat_reqs;		/* latency measured requests per rep */
	unsigned int reps;		/* repetitions */
	unsigned int confirm;		/* confirmation runs at saturation */
	double sat_frac;		/* saturation threshold vs. best */
	uint64_t seed;
	int cpus[64];
	unsigned int ncpus;
	bool validate;
	unsigned int set_pct;		/* throughput: share of SETs, % */
	bool keep_going;		/* failed SETs counted, not fatal */
	unsigned int set_keys;		/* objects a QP's SETs rewrite */
	int spin_us;			/* libgoblin RDMA spin of open() */
	int lat_spin_us;		/* the same for the latency phase */
	const char *prefix;		/* key prefix */
	const char *out;		/* CSV path prefix */
	const char *watch;		/* comm prefixes for server CPU */
	const char *label;
};

/**
 * struct gbb_comp - one completed GET
 * @tag:       value passed to get_submit()
 * @status:    enum gbb_status
 * @len:       value length the server announced
 * @t_sub:     CLOCK_MONOTONIC ns at submission
 * @t_ttfb:    ns when the response header (VALUE) became visible
 * @t_payload: ns when the last payload byte was in the buffer
 * @t_done:    ns when the response was fully consumed (END)
 * @has_crc:   the backend computed @crc over the value (zero-copy views)
 * @crc:       CRC32C of the value when @has_crc
 * @crc_ns:    time spent computing @crc
 */
struct gbb_comp {
	uint64_t tag;
	int status;
	uint64_t len;
	uint64_t t_sub;
	uint64_t t_ttfb;
	uint64_t t_payload;
	uint64_t t_done;
	bool has_crc;
	uint32_t crc;
	uint64_t crc_ns;
};

struct gbb_conn;

/**
 * struct gbb_backend - a client implementation
 * @name:       short name reported in CSVs
 * @open:       connect; @depth is the most GETs kept in flight
 * @set:        store one value synchronously; 0 on success
 * @get_submit: queue a GET into @buf (@cap bytes); 0 on success
 * @get_wait:   block for the next completion (FIFO order not assumed);
 *              with @o->validate a zero-copy backend fills @has_crc
 * @close:      disconnect and free
 */
struct gbb_backend {
	const char *name;
	struct gbb_conn *(*open)(const struct gbb_opts *o, unsigned int depth,
				 char *err, size_t errlen);
	int (*set)(struct gbb_conn *c, const char *key, size_t klen,
		   const void *val, size_t len);
	int (*get_submit)(struct gbb_conn *c, const char *key, size_t klen,
			  void *buf, size_t cap, uint64_t tag);
	int (*get_wait)(struct gbb_conn *c, struct gbb_comp *out);
	void (*close)(struct gbb_conn *c);
};

extern const struct gbb_backend gbb_be_mctcp;
extern const struct gbb_backend *gbb_be_libgoblin;	/* NULL if absent */
extern const char *gbb_libgoblin_why;

/* util.c */
static inline uint64_t gbb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t gbb_splitmix64(uint64_t *state);
uint32_t gbb_pick(uint64_t *state, uint32_t n);
void gbb_fill(void *buf, uint64_t len, uint32_t idx);
uint32_t gbb_crc32c(uint32_t crc, const void *buf, size_t len);
void gbb_sort_u64(uint64_t *v, size_t n);
uint64_t gbb_rank(const uint64_t *sorted, size_t n, double pct);
void gbb_mean_sd(const double *v, size_t n, double *mean, double *sd);
const char *gbb_status_str(int status);

/**
 * struct gbb_cpu - a CPU accounting snapshot
 * @stat:  /proc/stat "cpu" line in USER_HZ ticks: user nice system idle
 *         iowait irq softirq steal
 * @watch: runtime (ns) of the threads whose comm starts with one of the
 *         watched prefixes
 * @all:   runtime (ns) of every thread in the system
 * @self:  this process' user+system CPU time in ns (getrusage)
 * @hz:    USER_HZ
 */
struct gbb_cpu {
	uint64_t stat[8];
	uint64_t watch;
	uint64_t all;
	uint64_t self;
	long hz;
};

void gbb_cpu_snap(struct gbb_cpu *s, const char *watch);

#endif /* GBBENCH_H */
