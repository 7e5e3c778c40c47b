/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: module-wide declarations shared by every subsystem.
 *
 * Each subsystem (store, memcache TCP, RDMA, netlink) has its own header for
 * its API; this one only carries the boot-time defaults and the init/exit
 * entry points that kmod/main.c calls in order.
 */
#ifndef _GOBLIN_H
#define _GOBLIN_H

#include <linux/types.h>

#define GB_VERSION "0.3.0"

/* Boot-time defaults (module parameters, see kmod/main.c). */
extern unsigned long long gb_param_memory;	/* bytes, 0 = 1/8 of RAM */
extern unsigned int gb_param_block;		/* bytes */
extern unsigned int gb_param_ram_head;		/* bytes */
extern unsigned int gb_param_item_max;		/* bytes, largest value */
extern char *gb_param_ssd_dir;			/* "" = no SSD tier */
extern unsigned long long gb_param_ssd_max;	/* bytes, 0 = free space */
extern unsigned int gb_param_cores;		/* 0 = all online CPUs */
extern bool gb_param_reclaim;			/* background reclaimer */
extern char *gb_param_memcache;			/* "" = off, "addr:port" */

int gb_stats_init(void);
void gb_stats_exit(void);
int gb_store_init(void);
void gb_store_exit(void);
void gb_store_stop_waits(void);
int gb_mc_exec_init(void);
void gb_mc_exec_exit(void);
int gb_tcp_init(void);
void gb_tcp_exit(void);
int gb_http_init(void);
void gb_http_exit(void);
int gb_rdma_init(void);
void gb_rdma_exit(void);
int gb_netlink_init(void);
void gb_netlink_exit(void);

#endif /* _GOBLIN_H */
