// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libgoblin: ketama consistent hashing, placed exactly where libmemcached
 * (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED) and twemproxy (distribution: ketama)
 * place keys.
 *
 * The ring: a server with ring name NAME and weight w out of a total W over
 * L servers gets P = 4 * floor(w / W * 160 / 4 * L) points (the arithmetic
 * in single precision, as both reference implementations do it). For
 * i = 0 .. P/4 - 1 the MD5 digest of the string "NAME-i" yields four
 * points: its bytes 0-3, 4-7, 8-11 and 12-15, each read little-endian.
 * The points are sorted by value, ties by server index.
 *
 * A key's hash is the first four bytes of its MD5 digest, little-endian;
 * its server owns the first point whose value is >= the hash, wrapping to
 * the first point past the top of the circle.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/md5.h>

#include <goblin/fleet.h>

#include "ketama.h"

static uint32_t le32_at(const uint8_t *d, unsigned int i)
{
	const uint8_t *p = d + 4 * i;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void md5(const void *data, size_t len, uint8_t out[MD5_DIGEST_SIZE])
{
	struct md5_ctx ctx;

	md5_init(&ctx);
	md5_update(&ctx, len, data);
	md5_digest(&ctx, MD5_DIGEST_SIZE, out);
}

/**
 * gb_ketama_hash() - the ring position of a key
 * @key: key bytes
 * @len: key length
 *
 * Return: the first four bytes of MD5(@key), little-endian (libhashkit's
 * MEMCACHED_HASH_MD5, twemproxy's "hash: md5").
 */
uint32_t gb_ketama_hash(const void *key, size_t len)
{
	uint8_t d[MD5_DIGEST_SIZE];

	md5(key, len, d);
	return le32_at(d, 0);
}

/**
 * gb_ketama_points() - ring points of one server
 * @weight:       its weight
 * @total_weight: sum of the weights of the live servers
 * @live:         number of live servers
 *
 * The computation is kept in float, step by step in the reference order,
 * so rounding matches libmemcached's and twemproxy's bit for bit (the tiny
 * addend is below float precision at these magnitudes but kept for
 * fidelity).
 * Return: a multiple of 4.
 */
uint32_t gb_ketama_points(uint32_t weight, uint64_t total_weight,
			  uint32_t live)
{
	float pct, f;

	if (!total_weight)
		return 0;
	pct = (float)weight / (float)total_weight;
	f = pct * GB_KETAMA_POINTS;
	f = f / 4;
	f = f * (float)live;
	f = f + 0.0000000001F;
	return (uint32_t)floorf(f) * 4;
}

static int point_cmp(const void *a, const void *b)
{
	const struct gb_ketama_point *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->server != y->server)
		return x->server < y->server ? -1 : 1;
	return 0;
}

/**
 * gb_ketama_build() - build the ring of a set of servers
 * @k:       ring to fill (its previous points are freed)
 * @nserv:   number of servers (all live)
 * @names:   ring names (NUL-terminated, at most GB_FLEET_NAME_MAX bytes)
 * @weights: weights (> 0)
 * @points:  optional: set to the points each server got
 *
 * Return: 0, -ENOMEM, or -EINVAL when no server got a point.
 */
int gb_ketama_build(struct gb_ketama *k, size_t nserv,
		    const char *const *names, const uint32_t *weights,
		    uint32_t *points)
{
	char buf[GB_FLEET_NAME_MAX + 16];
	uint8_t d[MD5_DIGEST_SIZE];
	struct gb_ketama_point *pts;
	uint64_t total = 0;
	size_t i, n = 0, at = 0;
	uint32_t j, q, pps;
	int len;

	for (i = 0; i < nserv; i++)
		total += weights[i];
	for (i = 0; i < nserv; i++)
		n += gb_ketama_points(weights[i], total, (uint32_t)nserv);
	if (!n)
		return -EINVAL;
	pts = calloc(n, sizeof(*pts));
	if (!pts)
		return -ENOMEM;
	for (i = 0; i < nserv; i++) {
		pps = gb_ketama_points(weights[i], total, (uint32_t)nserv);
		if (points)
			points[i] = pps;
		for (j = 0; j < pps / 4; j++) {
			len = snprintf(buf, sizeof(buf), "%s-%u", names[i], j);
			if (len < 0 || (size_t)len >= sizeof(buf)) {
				free(pts);
				return -EINVAL;
			}
			md5(buf, (size_t)len, d);
			for (q = 0; q < 4; q++) {
				pts[at].value = le32_at(d, q);
				pts[at].server = (uint32_t)i;
				at++;
			}
		}
	}
	qsort(pts, n, sizeof(*pts), point_cmp);
	free(k->pts);
	k->pts = pts;
	k->n = n;
	return 0;
}

/**
 * gb_ketama_find() - the point a hash maps to
 * @k:    ring with at least one point
 * @hash: gb_ketama_hash() of a key
 *
 * Return: index of the first point with value >= @hash, or 0 (wrap).
 */
size_t gb_ketama_find(const struct gb_ketama *k, uint32_t hash)
{
	size_t lo = 0, hi = k->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->pts[mid].value < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == k->n ? 0 : lo;
}

void gb_ketama_free(struct gb_ketama *k)
{
	free(k->pts);
	k->pts = NULL;
	k->n = 0;
}
