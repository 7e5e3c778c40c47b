/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libgoblin: the ketama continuum (consistent hashing ring) of a fleet.
 */
#ifndef _GOBLIN_KETAMA_H
#define _GOBLIN_KETAMA_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct gb_ketama_point - one point of the ring
 * @value:  position on the 32-bit circle
 * @server: index of the server owning it
 */
struct gb_ketama_point {
	uint32_t value;
	uint32_t server;
};

/**
 * struct gb_ketama - a ring, points sorted by (@value, @server)
 * @pts: the points
 * @n:   how many
 */
struct gb_ketama {
	struct gb_ketama_point *pts;
	size_t n;
};

uint32_t gb_ketama_hash(const void *key, size_t len);
uint32_t gb_ketama_points(uint32_t weight, uint64_t total_weight,
			  uint32_t live);
int gb_ketama_build(struct gb_ketama *k, size_t nserv,
		    const char *const *names, const uint32_t *weights,
		    uint32_t *points);
size_t gb_ketama_find(const struct gb_ketama *k, uint32_t hash);
void gb_ketama_free(struct gb_ketama *k);

#endif /* _GOBLIN_KETAMA_H */
