/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the goblin.ko kselftests: loading and unloading the
 * module with the raw syscalls, reading sysfs and /proc, and watching the
 * kernel log for warnings. Header-only so each test stays one .c file.
 */
#ifndef GB_KSFT_H
#define GB_KSFT_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GB_MODNAME	"goblin"
#define GB_SYSMOD	"/sys/module/" GB_MODNAME
#define GB_PARAMS	GB_SYSMOD "/parameters"

/* Path of the module under test: $GOBLIN_KO, else ./goblin.ko. */
static inline const char *gb_ko_path(void)
{
	const char *p = getenv("GOBLIN_KO");

	return p && *p ? p : "goblin.ko";
}

/* Parameters the runner loaded the module with ($GOBLIN_MODPARAMS). */
static inline const char *gb_default_params(void)
{
	const char *p = getenv("GOBLIN_MODPARAMS");

	return p ? p : "";
}

static inline bool gb_loaded(void)
{
	struct stat st;

	return stat(GB_SYSMOD "/parameters", &st) == 0 ||
	       stat(GB_SYSMOD "/initstate", &st) == 0;
}

/* finit_module() the module with @params; returns 0 or -errno. */
static inline int gb_insmod(const char *params)
{
	int fd, ret;

	fd = open(gb_ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * delete_module() goblin; retries for a few seconds while the module is
 * busy (references from sockets still being torn down). 0 or -errno.
 */
static inline int gb_rmmod(void)
{
	int i, ret = 0;

	for (i = 0; i < 100; i++) {
		if (syscall(SYS_delete_module, GB_MODNAME, O_NONBLOCK) == 0)
			return 0;
		ret = -errno;
		if (ret != -EAGAIN && ret != -EBUSY && ret != -EWOULDBLOCK)
			return ret;
		usleep(50000);
	}
	return ret;
}

/* Read a small file into @buf (NUL-terminated, trailing newline cut). */
static inline int gb_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

static inline int gb_write_file(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Value of a module parameter as text; 0 or -errno. */
static inline int gb_param(const char *name, char *buf, size_t len)
{
	char path[256];
	int ret;

	snprintf(path, sizeof(path), GB_PARAMS "/%s", name);
	ret = gb_read_file(path, buf, len);
	return ret < 0 ? ret : 0;
}

/* One field of /proc/meminfo in KiB, or -1. */
static inline long gb_meminfo(const char *field)
{
	char line[256];
	size_t flen = strlen(field);
	long val = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			val = strtol(line + flen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/* Bytes held by active objects of all slab caches (/proc/slabinfo). */
static inline long long gb_slab_bytes(void)
{
	char line[512], name[128];
	long long total = 0;
	long active, num, objsize;
	FILE *f;

	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %ld %ld %ld", name, &active, &num,
			   &objsize) == 4 && name[0] != '#')
			total += (long long)active * objsize;
	}
	fclose(f);
	return total;
}

/* Let deferred frees (RCU, workqueues) finish and drop page cache. */
static inline void gb_settle(void)
{
	sync();
	gb_write_file("/proc/sys/vm/drop_caches", "3");
	usleep(300000);
	gb_write_file("/proc/sys/vm/drop_caches", "3");
}

/* Memory snapshot for leak checks, in KiB except slab_bytes. */
struct gb_mem {
	long long slab_bytes;
	long sunreclaim;
	long vmalloc;
	long used;		/* MemTotal - MemFree - Buffers - Cached */
};

static inline void gb_mem_snapshot(struct gb_mem *m)
{
	gb_settle();
	m->slab_bytes = gb_slab_bytes();
	m->sunreclaim = gb_meminfo("SUnreclaim");
	m->vmalloc = gb_meminfo("VmallocUsed");
	m->used = gb_meminfo("MemTotal") - gb_meminfo("MemFree") -
		  gb_meminfo("Buffers") - gb_meminfo("Cached") -
		  gb_meminfo("SReclaimable");
}

/*
 * Kernel log watcher: gb_kmsg_open() positions at the end of /dev/kmsg;
 * gb_kmsg_scan() reads everything logged since and counts the records
 * that look like a kernel warning, oops or corruption report, printing
 * each to stderr.
 */
#define GB_KMSG_BAD \
	"BUG:|WARNING:|Oops:|general protection fault|list_(add|del) corruption|" \
	"refcount_t:|KASAN:|UBSAN:|kernel BUG at|Slab cache still has objects"

static inline int gb_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static inline int gb_kmsg_scan(int fd)
{
	char rec[8192];
	regex_t re;
	int bad = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (regcomp(&re, GB_KMSG_BAD, REG_EXTENDED | REG_NOSUB))
		return -1;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: skip ahead */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (!regexec(&re, rec, 0, NULL, 0)) {
			char *msg = strchr(rec, ';');

			fprintf(stderr, "# kernel: %s", msg ? msg + 1 : rec);
			bad++;
		}
	}
	regfree(&re);
	return bad;
}

#endif /* GB_KSFT_H */
