/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the goblin.ko kselftests: loading and unloading the
 * module with the raw syscalls, reading sysfs and /proc, watching the
 * kernel log for warnings, the store's debugfs test hook and raw generic
 * netlink requests (no libnl). Header-only so each test stays one .c file.
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
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

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

/*
 * Store debugfs hook (kmod/store/debugfs.c, gb_dbg_write): one command per write;
 * the first line read back is "CMD RESULT LEN".
 */
#define GB_DEBUGFS	"/sys/kernel/debug"
#define GB_DBG_STORE	GB_DEBUGFS "/goblin/store"

/* Mount debugfs unless it is; 0 or -errno. */
static inline int gb_debugfs_mount(void)
{
	struct stat st;

	if (stat(GB_DEBUGFS "/goblin", &st) == 0)
		return 0;
	if (mount("none", GB_DEBUGFS, "debugfs", 0, NULL) && errno != EBUSY)
		return -errno;
	return 0;
}

/* Run @cmd; *@res and *@len get its result. 0 or -errno (I/O, format). */
static inline int gb_dbg_cmd(const char *cmd, int *res, unsigned long long *len)
{
	char out[2048], name[32];
	int ret;

	ret = gb_write_file(GB_DBG_STORE, cmd);
	if (ret)
		return ret;
	ret = gb_read_file(GB_DBG_STORE, out, sizeof(out));
	if (ret < 0)
		return ret;
	if (sscanf(out, "%31s %d %llu", name, res, len) != 3)
		return -EPROTO;
	return 0;
}

/*
 * Raw generic netlink. gb_genl_open() gives a socket with a receive
 * timeout; gb_genl_do() sends one request (@cmd, optional string attribute
 * @attr/@str) to @family and reads the reply into @buf: returns the
 * attribute payload length with *@attrs pointing at it, or -errno (from
 * NLMSG_ERROR too).
 */
static inline int gb_genl_open(void)
{
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static inline int gb_genl_do(int fd, __u16 family, __u8 cmd, __u16 attr,
			     const char *str, void *buf, size_t size,
			     struct nlattr **attrs)
{
	static __u32 seq;
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char a[256];
	} req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nlh = buf;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.n.nlmsg_type = family;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = ++seq;
	req.g.cmd = cmd;
	req.g.version = 1;
	if (str) {
		struct nlattr *na = (struct nlattr *)req.a;
		size_t sl = strlen(str) + 1;

		if (NLA_HDRLEN + sl > sizeof(req.a))
			return -EINVAL;
		na->nla_type = attr;
		na->nla_len = NLA_HDRLEN + sl;
		memcpy((char *)na + NLA_HDRLEN, str, sl);
		req.n.nlmsg_len += NLA_ALIGN(na->nla_len);
	}
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		return -errno;
	do {
		n = recv(fd, buf, size, 0);
		if (n < 0)
			return -errno;
		if (n < (ssize_t)NLMSG_HDRLEN || !NLMSG_OK(nlh, n))
			return -EPROTO;
	} while (nlh->nlmsg_seq != seq);	/* stale reply */
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(nlh);

		return e->error ? e->error : -ENODATA;
	}
	if (nlh->nlmsg_type != family ||
	    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EPROTO;
	*attrs = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	return nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
}

/* Attribute @type in the @len bytes at @na (a reply or a nest), or NULL. */
static inline struct nlattr *gb_nla_find(struct nlattr *na, int len, int type)
{
	while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len) {
		if ((na->nla_type & NLA_TYPE_MASK) == type)
			return na;
		len -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
	return NULL;
}

static inline void *gb_nla_data(struct nlattr *na)
{
	return (char *)na + NLA_HDRLEN;
}

static inline int gb_nla_len(const struct nlattr *na)
{
	return na->nla_len - NLA_HDRLEN;
}

/* Resolve a generic netlink family id; > 0 or -errno. */
static inline int gb_genl_family(int fd, const char *name)
{
	char buf[8192];
	struct nlattr *a, *id;
	int len;

	len = gb_genl_do(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			 CTRL_ATTR_FAMILY_NAME, name, buf, sizeof(buf), &a);
	if (len < 0)
		return len;
	id = gb_nla_find(a, len, CTRL_ATTR_FAMILY_ID);
	if (!id || gb_nla_len(id) != sizeof(__u16))
		return -EPROTO;
	return *(__u16 *)gb_nla_data(id);
}

#endif /* GB_KSFT_H */
