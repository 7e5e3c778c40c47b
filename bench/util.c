// SPDX-License-Identifier: GPL-2.0
/*
 * gbbench helpers: key selector, deterministic payloads, CRC32C,
 * nearest-rank percentiles and CPU accounting snapshots.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "gbbench.h"

/* SplitMix64 (Steele, Lea, Flood 2014): one 64-bit output per call. */
uint64_t gbb_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform index in [0, n) by multiply-high (bias < n / 2^64). */
uint32_t gbb_pick(uint64_t *state, uint32_t n)
{
	unsigned __int128 m = (unsigned __int128)gbb_splitmix64(state) * n;

	return (uint32_t)(m >> 64);
}

/* Object @idx's content: a SplitMix64 stream seeded from the index. */
void gbb_fill(void *buf, uint64_t len, uint32_t idx)
{
	uint64_t st = 0x676f626c696eull ^ ((uint64_t)idx << 20);
	unsigned char *p = buf;
	uint64_t v;

	while (len >= 8) {
		v = gbb_splitmix64(&st);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	v = gbb_splitmix64(&st);
	memcpy(p, &v, len);
}

static uint32_t crc_tab[8][256];
static int crc_hw = -1;

static void crc_init(void)
{
	uint32_t c;
	int i, j;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82f63b78u & -(c & 1));
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_tab[j][i] = (crc_tab[j - 1][i] >> 8) ^
				crc_tab[0][crc_tab[j - 1][i] & 0xff];
	crc_hw = __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc, v;

	while (len >= 8) {
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

/**
 * gbb_crc32c() - CRC32C (Castagnoli), hardware if the CPU has SSE4.2
 * @crc: previous value (0 to start)
 * @buf: data
 * @len: bytes
 *
 * Return: the updated CRC (pre/post inverted as usual).
 */
uint32_t gbb_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t v;

	if (crc_hw < 0)
		crc_init();
	crc = ~crc;
	if (crc_hw)
		return ~crc_sse42(crc, p, len);
	while (len >= 8) {
		memcpy(&v, p, 8);
		v ^= crc;
		crc = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^
		      crc_tab[5][(v >> 16) & 0xff] ^
		      crc_tab[4][(v >> 24) & 0xff] ^
		      crc_tab[3][(v >> 32) & 0xff] ^
		      crc_tab[2][(v >> 40) & 0xff] ^
		      crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void gbb_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

/* Nearest-rank percentile: the ceil(pct/100 * n)-th smallest sample. */
uint64_t gbb_rank(const uint64_t *sorted, size_t n, double pct)
{
	size_t r;
	double x;

	if (!n)
		return 0;
	x = pct / 100.0 * (double)n;
	r = (size_t)x;
	if ((double)r < x)
		r++;
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return sorted[r - 1];
}

/* Mean and sample standard deviation (n - 1). */
void gbb_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / n : 0;
	for (i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? __builtin_sqrt(q / (n - 1)) : 0;
}

const char *gbb_status_str(int status)
{
	switch (status) {
	case GBB_OK:
		return "ok";
	case GBB_MISS:
		return "miss";
	case GBB_BADKEY:
		return "wrong key";
	case GBB_TOOBIG:
		return "value larger than buffer";
	case GBB_PROTO:
		return "bad framing";
	case GBB_IO:
		return "connection error";
	}
	return "unknown";
}

static bool watched(const char *comm, const char *watch)
{
	const char *p = watch, *e;
	size_t n;

	while (p && *p) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && !strncmp(comm, p, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* Runtime in ns of /proc/<pid>/task/<tid> from schedstat (precise). */
static uint64_t task_runtime(const char *pid, const char *tid)
{
	unsigned long long ns = 0;
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/schedstat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* Add the runtimes of the threads of /proc/<pid> to @s. */
static void scan_pid(struct gbb_cpu *s, const char *pid, const char *watch)
{
	char path[600], comm[64];
	struct dirent *t;
	uint64_t ns;
	size_t n;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((t = readdir(d))) {
		if (!isdigit((unsigned char)t->d_name[0]))
			continue;
		ns = task_runtime(pid, t->d_name);
		s->all += ns;
		if (!watch || !*watch)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pid,
			 t->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fread(comm, 1, sizeof(comm) - 1, f);
		fclose(f);
		comm[n] = 0;
		if (watched(comm, watch))
			s->watch += ns;
	}
	closedir(d);
}

/**
 * gbb_cpu_snap() - take a CPU accounting snapshot
 * @s:     filled in
 * @watch: comma-separated comm prefixes (NULL or "" for none)
 *
 * Thread runtimes come from schedstat (ns, precise even where the guest
 * loses timer ticks). Exited threads drop out of the sums, so the watched
 * set should be long-lived (kernel workers, a server process).
 */
void gbb_cpu_snap(struct gbb_cpu *s, const char *watch)
{
	struct rusage ru;
	struct dirent *e;
	char line[512];
	DIR *d;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->hz = sysconf(_SC_CLK_TCK);
	f = fopen("/proc/stat", "r");
	if (f) {
		if (fgets(line, sizeof(line), f))
			sscanf(line, "cpu %lu %lu %lu %lu %lu %lu %lu %lu",
			       &s->stat[0], &s->stat[1], &s->stat[2],
			       &s->stat[3], &s->stat[4], &s->stat[5],
			       &s->stat[6], &s->stat[7]);
		fclose(f);
	}
	d = opendir("/proc");
	while (d && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			scan_pid(s, e->d_name, watch);
	if (d)
		closedir(d);
	getrusage(RUSAGE_SELF, &ru);
	s->self = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
		  ru.ru_utime.tv_usec * 1000ull +
		  (uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
		  ru.ru_stime.tv_usec * 1000ull;
}
