/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: declarations shared by the store's own files (store.c,
 * pool.c, tail.c, stats.c). Not for transports: they use store.h.
 */
#ifndef _GOBLIN_STORE_INTERNAL_H
#define _GOBLIN_STORE_INTERNAL_H

/* Ask the maintenance worker to run soon (any context). */
void gb_store_kick_maint(void);

#endif /* _GOBLIN_STORE_INTERNAL_H */
