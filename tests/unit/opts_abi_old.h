/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LIBGOBLIN_1 versions of the fleet calls taking struct
 * gb_fleet_server, which programs built with the 0.1/0.2 headers are
 * bound to (the 0.1/0.2 layout); <goblin/fleet.h> now names the
 * LIBGOBLIN_1.2 ones. For test_opts_abi.
 */
#ifndef _OPTS_ABI_OLD_H
#define _OPTS_ABI_OLD_H

#include <stddef.h>

struct gb_fleet;
struct gb_fleet_opts;

void old_server_init_sz(void *s, size_t size);
int old_parse_sz(const char *list, void **servers, size_t size, size_t *n);
int old_create_sz(const struct gb_fleet_opts *o, size_t osize,
		  const void *servers, size_t ssize, size_t n,
		  struct gb_fleet **fleetp);
__asm__(".symver old_server_init_sz, gb_fleet_server_init_sz@LIBGOBLIN_1");
__asm__(".symver old_parse_sz, gb_fleet_parse_sz@LIBGOBLIN_1");
__asm__(".symver old_create_sz, gb_fleet_create_sz@LIBGOBLIN_1");

#endif /* _OPTS_ABI_OLD_H */
