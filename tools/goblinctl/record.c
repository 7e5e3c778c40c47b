// SPDX-License-Identifier: GPL-2.0
/* goblinctl: records: flat lists of named, typed fields. */
#include <stdlib.h>
#include <string.h>

#include "goblinctl.h"

struct rec *rec_new(struct recs *rs)
{
	struct rec *r = xcalloc(1, sizeof(*r));

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->r = realloc(rs->r, rs->cap * sizeof(*rs->r));
		if (!rs->r)
			die("out of memory");
	}
	rs->r[rs->n++] = r;
	return r;
}

void recs_free(struct recs *rs)
{
	size_t i;
	int j;

	for (i = 0; i < rs->n; i++) {
		for (j = 0; j < rs->r[i]->n; j++)
			free(rs->r[i]->f[j].str);
		free(rs->r[i]);
	}
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

static struct field *rec_add(struct rec *r, const char *name, enum ftype t)
{
	struct field *f;

	if (r->n >= MAX_FIELDS)
		die("internal error: too many fields");
	f = &r->f[r->n++];
	f->name = name;
	f->type = t;
	return f;
}

void rec_u64(struct rec *r, const char *name, uint64_t v)
{
	rec_add(r, name, F_U64)->u = v;
}

void rec_size(struct rec *r, const char *name, uint64_t v)
{
	rec_add(r, name, F_SIZE)->u = v;
}

void rec_s64(struct rec *r, const char *name, int64_t v)
{
	rec_add(r, name, F_S64)->s = v;
}

void rec_bool(struct rec *r, const char *name, bool v)
{
	rec_add(r, name, F_BOOL)->u = v;
}

void rec_str(struct rec *r, const char *name, const char *s)
{
	struct field *f = rec_add(r, name, F_STR);

	f->str = strdup(s);
	if (!f->str)
		die("out of memory");
}

void rec_bin(struct rec *r, const char *name, const void *p, size_t len)
{
	struct field *f = rec_add(r, name, F_BIN);

	f->str = xcalloc(1, len + 1);
	memcpy(f->str, p, len);
	f->u = len;
}

const struct field *rec_get(const struct rec *r, const char *name)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].name, name))
			return &r->f[i];
	return NULL;
}
