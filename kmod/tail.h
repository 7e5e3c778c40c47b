/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: SSD tier. Value bytes beyond the RAM head live in one file
 * per object under <ssd_dir>/goblin-tails/, accessed through the page cache.
 */
#ifndef _GOBLIN_TAIL_H
#define _GOBLIN_TAIL_H

#include <linux/kref.h>
#include <linux/path.h>
#include <linux/types.h>
#include <linux/uuid.h>

struct file;
struct gb_trace_id;
struct page;

#define GB_MARKER_NAME	".goblin-store"
#define GB_TAILS_NAME	"goblin-tails"
#define GB_MARKER_MAGIC	"goblin-store"
#define GB_MARKER_VERSION 1

/**
 * struct gb_ssd - one configured SSD directory
 * @ref:   held by the store while configured and by every tail in it
 * @dir:   the ssd_dir itself
 * @tails: its goblin-tails subdirectory
 * @name:  ssd_dir as configured
 */
struct gb_ssd {
	struct kref ref;
	struct path dir;
	struct path tails;
	char name[256];
};

/**
 * struct gb_tail - tail file of one object
 * @ssd:  directory the file lives in (counted)
 * @file: the open file
 * @id:   file name as a number (printed as 16 hex digits)
 */
struct gb_tail {
	struct gb_ssd *ssd;
	struct file *file;
	u64 id;
};

struct gb_ssd *gb_ssd_open(const char *dir, u32 ram_head, u32 block,
			   const uuid_t *uuid, const char **why);
void gb_ssd_put(struct gb_ssd *ssd);
u64 gb_ssd_default_max(struct gb_ssd *ssd);
u64 gb_ssd_avail(struct gb_ssd *ssd);
struct gb_tail *gb_tail_create(struct gb_ssd *ssd);
int gb_tail_write(struct gb_tail *t, u64 off, const void *src, size_t len);
int gb_tail_read(struct gb_tail *t, u64 off, void *dst, size_t len);
struct page *gb_tail_get_page(struct gb_tail *t, u64 off, u64 len,
			      const struct gb_trace_id *tid);
int gb_tail_check_wb(struct gb_tail *t);
void gb_tail_destroy(struct gb_tail *t);

#endif /* _GOBLIN_TAIL_H */
