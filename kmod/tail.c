// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: SSD tier (value tails).
 *
 * Tail file scheme: every object longer than ram_head gets one named,
 * regular file <ssd_dir>/goblin-tails/<16 hex digits> created with O_EXCL
 * when the object is allocated. The file stays open (struct file held by
 * the object) for the life of the object and is unlinked with vfs_unlink()
 * when the object is freed. Named files let operators and tests see what
 * is on the SSD; a crash or unload leaves them behind, so they are deleted
 * when a directory is (re)configured.
 *
 * Writes go through kernel_write() (page cache, written back by the usual
 * writeback). Reads use the page cache directly: read_mapping_page() after
 * synchronous readahead, so a sender gets real page-cache pages. tmpfs has
 * no ->read_folio, so tails on tmpfs are read with shmem_read_mapping_page();
 * any other filesystem without ->read_folio gets a bounce page.
 *
 * Every function here sleeps and must run in process context.
 *
 * Safety marker: <ssd_dir>/.goblin-store records magic, format version,
 * store uuid, host name, ram_head and block. A directory is accepted when
 * it is empty (it is then marked), or when its marker has our magic and
 * version, comes from the same host and matches ram_head and block (a
 * previous load of this store: its tails are stale and deleted). Anything
 * else is refused with a reason, which also goes out as a netlink
 * safety-refused event (listener kind GB_LISTENER_KIND_MAX: not a
 * transport, no peer). The marker itself must be a regular file with one
 * link: a symlink, FIFO, device node or hard link in its place is refused
 * and never followed, opened for blocking or truncated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "compat.h"
#include "goblin.h"
#include "events.h"
#include "tail.h"
#include "trace.h"

static atomic64_t gb_tail_ids = ATOMIC64_INIT(0);

/* Unlink @name in directory @dir; -ENOENT if it is not there. */
static int gb_unlink_at(const struct path *dir, const char *name)
{
	struct inode *dinode = d_inode(dir->dentry);
	struct dentry *dentry;
	int err;

	err = mnt_want_write(dir->mnt);
	if (err)
		return err;
	inode_lock_nested(dinode, I_MUTEX_PARENT);
	dentry = lookup_one_len(name, dir->dentry, strlen(name));
	if (IS_ERR(dentry)) {
		err = PTR_ERR(dentry);
	} else {
		if (d_is_negative(dentry))
			err = -ENOENT;
		else if (d_is_dir(dentry))
			err = -EISDIR;
		else
			err = vfs_unlink(gb_mnt_idmap(dir->mnt), dinode, dentry,
					 NULL);
		dput(dentry);
	}
	inode_unlock(dinode);
	mnt_drop_write(dir->mnt);
	return err;
}

/* Make directory @name in @dir if missing and return its path in @out. */
static int gb_mkdir_at(const struct path *dir, const char *name,
		       struct path *out)
{
	struct inode *dinode = d_inode(dir->dentry);
	struct dentry *dentry;
	int err;

	err = mnt_want_write(dir->mnt);
	if (err)
		return err;
	inode_lock_nested(dinode, I_MUTEX_PARENT);
	dentry = lookup_one_len(name, dir->dentry, strlen(name));
	if (IS_ERR(dentry)) {
		err = PTR_ERR(dentry);
		goto unlock;
	}
	if (d_is_negative(dentry))
		err = vfs_mkdir(gb_mnt_idmap(dir->mnt), dinode, dentry, 0700);
	if (!err && !d_is_dir(dentry))
		err = -ENOTDIR;
	if (!err) {
		out->mnt = mntget(dir->mnt);
		out->dentry = dget(dentry);
	}
	dput(dentry);
unlock:
	inode_unlock(dinode);
	mnt_drop_write(dir->mnt);
	return err;
}

struct gb_name {
	struct list_head node;
	char name[];
};

struct gb_lister {
	struct dir_context ctx;
	struct list_head names;
	unsigned int count;
	bool skip_ours;
	int err;
};

static bool gb_list_actor(struct dir_context *ctx, const char *name, int len,
			  loff_t pos, u64 ino, unsigned int type)
{
	struct gb_lister *l = container_of(ctx, struct gb_lister, ctx);
	struct gb_name *n;

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (l->skip_ours &&
	    ((len == strlen(GB_MARKER_NAME) && !memcmp(name, GB_MARKER_NAME, len)) ||
	     (len == strlen(GB_TAILS_NAME) && !memcmp(name, GB_TAILS_NAME, len))))
		return true;
	l->count++;
	if (l->skip_ours)
		return true;	/* only counting */
	n = kmalloc(sizeof(*n) + len + 1, GFP_KERNEL);
	if (!n) {
		l->err = -ENOMEM;
		return false;
	}
	memcpy(n->name, name, len);
	n->name[len] = '\0';
	list_add_tail(&n->node, &l->names);
	return true;
}

/* List @dir; with @skip_ours only count entries that are not ours. */
static int gb_list_dir(const struct path *dir, struct gb_lister *l,
		       bool skip_ours)
{
	struct file *f;
	int err;

	l->ctx.actor = gb_list_actor;
	l->ctx.pos = 0;
	INIT_LIST_HEAD(&l->names);
	l->count = 0;
	l->skip_ours = skip_ours;
	l->err = 0;
	f = file_open_root(dir, ".", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = iterate_dir(f, &l->ctx);
	fput(f);
	return err ? err : l->err;
}

static void gb_free_names(struct gb_lister *l)
{
	struct gb_name *n, *tmp;

	list_for_each_entry_safe(n, tmp, &l->names, node)
		kfree(n);
	INIT_LIST_HEAD(&l->names);
}

/* Delete every leftover file of a previous store in the tails directory. */
static void gb_clean_tails(struct gb_ssd *ssd)
{
	struct gb_lister l;
	struct gb_name *n;
	unsigned int done = 0;

	if (gb_list_dir(&ssd->tails, &l, false)) {
		gb_free_names(&l);
		pr_warn("%s: cannot list stale tails\n", ssd->name);
		return;
	}
	list_for_each_entry(n, &l.names, node)
		if (!gb_unlink_at(&ssd->tails, n->name))
			done++;
	gb_free_names(&l);
	if (done)
		pr_info("%s: deleted %u stale tail files\n", ssd->name, done);
}

struct gb_marker {
	char magic[16];
	u32 version;
	char uuid[40];
	char host[__NEW_UTS_LEN + 1];
	u32 ram_head;
	u32 block;
};

/*
 * Open the marker of @ssd with @flags. The marker must be a regular file
 * (or, with O_CREAT, absent): it is never followed as a symlink, and a FIFO,
 * socket or device node in its place is refused without being opened, so
 * the configuring task (which holds the store's configuration lock) never
 * blocks on it and nothing outside the directory is created or truncated.
 * -ELOOP means "there is something else than a regular file".
 */
static struct file *gb_marker_open(struct gb_ssd *ssd, int flags, umode_t mode)
{
	struct dentry *d;
	struct file *f;
	int err = 0;

	d = lookup_one_len_unlocked(GB_MARKER_NAME, ssd->dir.dentry,
				    strlen(GB_MARKER_NAME));
	if (IS_ERR(d))
		return ERR_CAST(d);
	if (d_is_negative(d)) {
		if (!(flags & O_CREAT))
			err = -ENOENT;
	} else if (!d_is_reg(d)) {
		err = -ELOOP;
	}
	dput(d);
	if (err)
		return ERR_PTR(err);
	/* It may have been swapped since: check again on what we opened. */
	f = file_open_root(&ssd->dir, GB_MARKER_NAME,
			   flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode);
	if (IS_ERR(f))
		return f;
	if (!S_ISREG(file_inode(f)->i_mode)) {
		fput(f);
		return ERR_PTR(-ELOOP);
	}
	return f;
}

static int gb_marker_read(struct gb_ssd *ssd, struct gb_marker *m)
{
	struct file *f;
	loff_t pos = 0;
	char *buf;
	ssize_t n;
	int err = 0;

	f = gb_marker_open(ssd, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	buf = kzalloc(512, GFP_KERNEL);
	if (!buf) {
		fput(f);
		return -ENOMEM;
	}
	n = kernel_read(f, buf, 511, &pos);
	fput(f);
	if (n < 0)
		err = n;
	else if (sscanf(buf, "%15s %u uuid %39s host %64s ram_head %u block %u",
			m->magic, &m->version, m->uuid, m->host, &m->ram_head,
			&m->block) != 6)
		err = -EINVAL;
	kfree(buf);
	return err;
}

static int gb_marker_write(struct gb_ssd *ssd, u32 ram_head, u32 block,
			   const uuid_t *uuid)
{
	struct file *f;
	loff_t pos = 0;
	char *buf;
	ssize_t n;
	int len, err;

	buf = kmalloc(512, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = scnprintf(buf, 512,
			"%s %u\nuuid %pUb\nhost %s\nram_head %u\nblock %u\n",
			GB_MARKER_MAGIC, GB_MARKER_VERSION, uuid,
			utsname()->nodename[0] ? utsname()->nodename : "-",
			ram_head, block);
	/*
	 * No O_TRUNC: a marker with a second hard link is some other file's
	 * data as well, and is refused before anything is written to it.
	 */
	f = gb_marker_open(ssd, O_WRONLY | O_CREAT, 0644);
	if (IS_ERR(f)) {
		kfree(buf);
		return PTR_ERR(f);
	}
	err = file_inode(f)->i_nlink > 1 ? -EMLINK : 0;
	if (!err) {
		n = kernel_write(f, buf, len, &pos);
		err = n < 0 ? n : (n != len ? -EIO : 0);
	}
	if (!err)
		err = vfs_truncate(&f->f_path, len);
	if (!err)
		err = vfs_fsync(f, 0);
	fput(f);
	kfree(buf);
	return err;
}

static void gb_ssd_release(struct kref *ref)
{
	struct gb_ssd *ssd = container_of(ref, struct gb_ssd, ref);

	path_put(&ssd->tails);
	path_put(&ssd->dir);
	kfree(ssd);
}

void gb_ssd_put(struct gb_ssd *ssd)
{
	if (ssd)
		kref_put(&ssd->ref, gb_ssd_release);
}

/*
 * Entries in the goblin-tails directory of an unmarked @ssd: without a
 * marker it is only ours (left by an interrupted first setup) if empty.
 */
static int gb_count_unmarked_tails(struct gb_ssd *ssd, unsigned int *count)
{
	struct gb_lister l;
	struct file *f;
	int err;

	f = file_open_root(&ssd->dir, GB_TAILS_NAME,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
		if (err == -ENOENT)
			return 0;
		if (err != -ENOTDIR && err != -ELOOP)
			return err;
		(*count)++;	/* not a directory: not ours */
		return 0;
	}
	err = gb_list_dir(&f->f_path, &l, false);
	*count += l.count;
	gb_free_names(&l);
	fput(f);
	return err;
}

/*
 * @what, or "out of memory" when that is why it failed: an allocation
 * failure says nothing about the directory and must not read as if it did.
 */
static const char *gb_ssd_why(int err, const char *what)
{
	return err == -ENOMEM ? "ssd_dir: out of memory" : what;
}

/* Refuse a directory on a safety-marker ground: tell @why and monitors. */
static int gb_ssd_refuse(const char **why, const char *reason, int err)
{
	*why = reason;
	gb_event_safety(GB_LISTENER_KIND_MAX, NULL, reason);
	return err;
}

/* Check the marker of @ssd or mark an empty directory. */
static int gb_ssd_check(struct gb_ssd *ssd, u32 ram_head, u32 block,
			const uuid_t *uuid, const char **why)
{
	const char *host = utsname()->nodename[0] ? utsname()->nodename : "-";
	struct gb_marker m = {};
	struct gb_lister l;
	char us[40];
	int err;

	err = gb_marker_read(ssd, &m);
	if (err == -ELOOP)
		return gb_ssd_refuse(why,
				     "ssd_dir: .goblin-store is not a regular file",
				     -EINVAL);
	if (err == -ENOENT) {
		err = gb_list_dir(&ssd->dir, &l, true);
		if (!err)
			err = gb_count_unmarked_tails(ssd, &l.count);
		if (err) {
			*why = gb_ssd_why(err, "ssd_dir: cannot be listed");
			return err;
		}
		if (l.count)
			return gb_ssd_refuse(why,
					     "ssd_dir: is not empty and has no .goblin-store marker",
					     -ENOTEMPTY);
		return 0;
	}
	if (err == -ENOMEM) {
		*why = "ssd_dir: out of memory reading the .goblin-store marker";
		return err;
	}
	if (err)
		return gb_ssd_refuse(why,
				     "ssd_dir: has an unreadable or foreign .goblin-store marker",
				     -EINVAL);
	if (strcmp(m.magic, GB_MARKER_MAGIC) || m.version != GB_MARKER_VERSION)
		return gb_ssd_refuse(why,
				     "ssd_dir: marker has a different magic or format version",
				     -EINVAL);
	snprintf(us, sizeof(us), "%pUb", uuid);
	if (!strcmp(m.uuid, us))
		return 0;
	if (strcmp(m.host, host))
		return gb_ssd_refuse(why,
				     "ssd_dir: is marked by a Goblin Store on another host",
				     -EBUSY);
	if (m.ram_head != ram_head || m.block != block)
		return gb_ssd_refuse(why,
				     "ssd_dir: is marked by another Goblin Store with a different ram_head/block",
				     -EBUSY);
	return 0;
}

/**
 * gb_ssd_open - validate, mark and clean an SSD directory
 * @dir:      absolute path of ssd_dir
 * @ram_head: current ram_head (recorded in the marker)
 * @block:    current block size (recorded in the marker)
 * @uuid:     this store's identity
 * @why:      set to a human-readable reason on failure
 *
 * Return: a counted &struct gb_ssd, or an ERR_PTR.
 */
struct gb_ssd *gb_ssd_open(const char *dir, u32 ram_head, u32 block,
			   const uuid_t *uuid, const char **why)
{
	struct gb_ssd *ssd;
	int err;

	if (dir[0] != '/') {
		*why = "ssd_dir: must be an absolute path";
		return ERR_PTR(-EINVAL);
	}
	ssd = kzalloc(sizeof(*ssd), GFP_KERNEL);
	if (!ssd) {
		*why = "ssd_dir: out of memory";
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&ssd->ref);
	strscpy(ssd->name, dir, sizeof(ssd->name));
	err = kern_path(dir, LOOKUP_FOLLOW, &ssd->dir);
	if (err) {
		*why = err == -ENOENT ? "ssd_dir: does not exist" :
			gb_ssd_why(err, "ssd_dir: cannot be looked up");
		goto free;
	}
	if (!d_is_dir(ssd->dir.dentry)) {
		*why = "ssd_dir: is not a directory";
		err = -ENOTDIR;
		goto put_dir;
	}
	err = gb_ssd_check(ssd, ram_head, block, uuid, why);
	if (err)
		goto put_dir;
	err = gb_mkdir_at(&ssd->dir, GB_TAILS_NAME, &ssd->tails);
	if (err) {
		*why = gb_ssd_why(err, "ssd_dir: cannot create goblin-tails");
		goto put_dir;
	}
	err = gb_marker_write(ssd, ram_head, block, uuid);
	if (err) {
		*why = gb_ssd_why(err,
				  "ssd_dir: cannot write the .goblin-store marker");
		path_put(&ssd->tails);
		goto put_dir;
	}
	gb_clean_tails(ssd);
	return ssd;
put_dir:
	path_put(&ssd->dir);
free:
	kfree(ssd);
	return ERR_PTR(err);
}

/**
 * gb_ssd_default_max - default SSD budget: 90% of the free space
 * @ssd: configured directory
 *
 * Return: bytes, 0 if the filesystem cannot be queried.
 */
u64 gb_ssd_default_max(struct gb_ssd *ssd)
{
	return div_u64(gb_ssd_avail(ssd) * 9, 10);
}

/**
 * gb_ssd_avail - free bytes on the SSD filesystem
 * @ssd: configured directory
 *
 * Return: bytes available to us, 0 if the filesystem cannot be queried.
 */
u64 gb_ssd_avail(struct gb_ssd *ssd)
{
	struct kstatfs st;

	if (vfs_statfs(&ssd->tails, &st))
		return 0;
	return (u64)st.f_bavail * st.f_bsize;
}

/**
 * gb_tail_create - create the (empty) tail file of a new object
 * @ssd: directory to create it in
 *
 * Return: the tail or an ERR_PTR.
 */
struct gb_tail *gb_tail_create(struct gb_ssd *ssd)
{
	struct gb_tail *t;
	struct file *f;
	char name[20];
	int tries;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	for (tries = 0; tries < 8; tries++) {
		t->id = atomic64_inc_return(&gb_tail_ids);
		snprintf(name, sizeof(name), "%016llx", t->id);
		f = file_open_root(&ssd->tails, name,
				   O_RDWR | O_CREAT | O_EXCL | O_LARGEFILE,
				   0600);
		if (!IS_ERR(f) || PTR_ERR(f) != -EEXIST)
			break;
	}
	if (IS_ERR(f)) {
		kfree(t);
		return ERR_CAST(f);
	}
	t->file = f;
	kref_get(&ssd->ref);
	t->ssd = ssd;
	return t;
}

/**
 * gb_tail_write - write tail bytes [@off, @off + @len)
 * @t:   tail
 * @off: offset in the tail
 * @src: bytes
 * @len: count
 *
 * Return: 0 or -errno (-ENOSPC when the filesystem is full).
 */
int gb_tail_write(struct gb_tail *t, u64 off, const void *src, size_t len)
{
	loff_t pos = off;
	ssize_t n;

	while (len) {
		n = kernel_write(t->file, src, len, &pos);
		if (n < 0)
			return n;
		if (!n)
			return -EIO;
		src += n;
		len -= n;
	}
	return 0;
}

/**
 * gb_tail_check_wb - has writeback of the tail failed?
 * @t: tail
 *
 * A page whose writeback failed is clean afterwards: reclaim may drop it
 * and a later read gets what the disk holds (zeros for an unwritten extent)
 * instead of the value. The error is recorded in the mapping before the
 * page leaves writeback, so checking after a page was obtained covers
 * every page the caller got. Any context; does not sleep.
 *
 * Return: 0, or the writeback error recorded since the file was opened.
 */
int gb_tail_check_wb(struct gb_tail *t)
{
	return filemap_check_wb_err(t->file->f_mapping, t->file->f_wb_err);
}

/**
 * gb_tail_read - copy tail bytes out
 * @t:   tail
 * @off: offset in the tail
 * @dst: buffer
 * @len: count
 *
 * Return: 0 or -errno (-EIO on a short file).
 */
int gb_tail_read(struct gb_tail *t, u64 off, void *dst, size_t len)
{
	loff_t pos = off;
	ssize_t n;

	while (len) {
		n = kernel_read(t->file, dst, len, &pos);
		if (n < 0)
			return n;
		if (!n)
			return -EIO;
		dst += n;
		len -= n;
	}
	return 0;
}

/**
 * gb_tail_get_page - page-cache page holding tail byte @off
 * @t:   tail
 * @off: offset in the tail
 * @len: tail length (bounds readahead)
 * @tid: request the read is traced for (kmod/trace.h; NULL: none)
 *
 * Starts synchronous readahead for the rest of the tail when the page is
 * not cached. Return: a referenced, uptodate page or an ERR_PTR.
 */
struct page *gb_tail_get_page(struct gb_tail *t, u64 off, u64 len,
			      const struct gb_trace_id *tid)
{
	struct address_space *mapping = t->file->f_mapping;
	pgoff_t index = off >> PAGE_SHIFT;
	unsigned long nr = DIV_ROUND_UP(len, PAGE_SIZE) - index;
	struct page *page;
	int err;

	if (file_inode(t->file)->i_sb->s_magic == TMPFS_MAGIC)
		return shmem_read_mapping_page(mapping, index);
	if (mapping->a_ops->read_folio) {
		page = find_get_page(mapping, index);
		if (!page) {
			trace_gb_tail_read_start(tid, index, nr);
			page_cache_sync_readahead(mapping, &t->file->f_ra,
						  t->file, index, nr);
		} else if (folio_test_readahead(page_folio(page))) {
			struct folio *folio = page_folio(page);
			DEFINE_READAHEAD(ractl, t->file, &t->file->f_ra,
					 mapping, folio->index);

			page_cache_async_ra(&ractl, folio,
					    nr + index - folio->index);
		}
		if (page && PageUptodate(page))
			return page;
		if (page) {
			trace_gb_tail_read_start(tid, index, 1);
			put_page(page);
		}
		page = read_mapping_page(mapping, index, t->file);
		trace_gb_tail_read_done(tid, index, PTR_ERR_OR_ZERO(page));
		return page;
	}
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return ERR_PTR(-ENOMEM);
	err = gb_tail_read(t, (u64)index << PAGE_SHIFT, page_address(page),
			   min_t(u64, PAGE_SIZE, len - ((u64)index << PAGE_SHIFT)));
	if (err) {
		put_page(page);
		return ERR_PTR(err);
	}
	return page;
}

/**
 * gb_tail_destroy - close and delete a tail file
 * @t: tail (may be NULL)
 */
void gb_tail_destroy(struct gb_tail *t)
{
	char name[20];
	int err;

	if (!t)
		return;
	snprintf(name, sizeof(name), "%016llx", t->id);
	fput(t->file);
	err = gb_unlink_at(&t->ssd->tails, name);
	if (err && err != -ENOENT)
		pr_warn_ratelimited("%s: cannot delete tail %s: %d\n",
				    t->ssd->name, name, err);
	gb_ssd_put(t->ssd);
	kfree(t);
}
