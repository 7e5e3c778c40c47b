/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Goblin Store: validation of RDMA protocol v3 records and connect data.
 *
 * Plain C shared by the kernel server (kmod/rdma*.c) and the userspace
 * client library: every byte handed to these functions is assumed hostile.
 * Parsing never writes to the input and never reads past @len.
 */
#ifndef _GB_RDMA_REC_H
#define _GB_RDMA_REC_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#define gbr_le16(x)	le16_to_cpu(x)
#define gbr_le32(x)	le32_to_cpu(x)
#define gbr_le64(x)	le64_to_cpu(x)
#define gbr_cpu16(x)	cpu_to_le16(x)
#define gbr_cpu32(x)	cpu_to_le32(x)
#define gbr_cpu64(x)	cpu_to_le64(x)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <linux/types.h>
#define gbr_le16(x)	le16toh(x)
#define gbr_le32(x)	le32toh(x)
#define gbr_le64(x)	le64toh(x)
#define gbr_cpu16(x)	htole16(x)
#define gbr_cpu32(x)	htole32(x)
#define gbr_cpu64(x)	htole64(x)
#endif

#include <linux/goblin_rdma.h>

/* Result of gb_rdma_rec_parse(). */
enum gb_rdma_parse {
	GB_RDMA_PARSE_OK = 0,
	GB_RDMA_PARSE_UNKNOWN,	/* unknown type: answer ERROR */
	GB_RDMA_PARSE_CLIENT,	/* bad body: answer CLIENT_ERROR <msg> */
	GB_RDMA_PARSE_FATAL,	/* cannot be answered: close connection */
};

/**
 * struct gb_rdma_rec_bulk - a decoded BULK (host byte order)
 * @window:    window index
 * @flags:     GB_RDMA_BULK_*
 * @len:       chunk length
 * @offset:    offset of the chunk in the value
 * @key_index: key index of the value
 * @crc:       as sent; meaningful with GB_RDMA_BULK_CRC
 * @hits:      with GB_RDMA_BULK_END (3.2, gb_rdma_resp_parse() only)
 * @misses:    likewise
 */
struct gb_rdma_rec_bulk {
	__u16 window;
	__u16 flags;
	__u32 len;
	__u64 offset;
	__u16 key_index;
	__u32 crc;
	__u16 hits;
	__u16 misses;
};

/**
 * struct gb_rdma_rec - a parsed record (host byte order)
 * @type:    enum gb_rdma_rec_type
 * @flags:   header flags
 * @credits: credits granted by the sender
 * @tag:     request tag
 * @u:       type-specific fields; key pointers point into the input buffer,
 *           get.off[i] is the offset of key i from the start of the record;
 *           value.bulk, value.hits/misses and value.data are only decoded by
 *           gb_rdma_resp_parse() with folding on (revision 3.2)
 */
struct gb_rdma_rec {
	__u8 type;
	__u8 flags;
	__u16 credits;
	__u64 tag;
	union {
		struct {
			__u16 nkeys;
			__u16 flags;	/* LOOKUP only (3.3); GET: 0 */
			__u16 off[GB_RDMA_GET_MAX_KEYS];
			__u8 klen[GB_RDMA_GET_MAX_KEYS];
		} get;		/* GET and LOOKUP */
		struct {
			__u16 nkeys;
			__u32 lease_ms;
			/* in the input, as sent (little-endian) */
			const struct gb_rdma_desc *desc;
		} lookup;	/* R_LOOKUP (3.3) */
		struct {
			__u32 mode;
			__u32 flags;
			__s64 exptime;
			__u64 cas;
			__u64 bytes;
			__u64 addr;
			__u8 klen;
			const char *key;
		} set;
		struct {
			__s64 exptime;
			__u64 cas;
			__u8 klen;
			const char *key;
		} keyop;
		struct {
			__u64 windows;
		} flow;
		struct {
			__u16 key_index;
			__u8 klen;
			__u8 vflags;	/* GB_RDMA_VALUE_*, as sent */
			__u32 flags;
			__u64 bytes;
			__u64 cas;
			__u32 crc;	/* as sent; meaningful with VALUE_CRC */
			const char *key;
			/* 3.2: VALUE_BULK, VALUE_END, VALUE_INLINE */
			struct gb_rdma_rec_bulk bulk;
			__u16 hits;
			__u16 misses;
			const void *data;	/* inline bytes, in the input */
		} value;
		struct gb_rdma_rec_bulk bulk;
		struct {
			__u16 hits;
			__u16 misses;
		} end;
		struct {
			__u32 status;
			__u64 cas;
		} status;
		struct {
			__u32 kind;
			const char *msg;	/* NUL-terminated within record */
		} error;
		struct {
			__u32 version;
			const char *server;	/* NUL-terminated within record */
		} version;
	} u;
};

/**
 * struct gb_rdma_geom - validated connect parameters (host byte order)
 * @window_size:  bytes per window
 * @window_count: windows offered
 * @credits:      records the server may send
 * @rkey:         remote key
 * @window_base:  remote address of window 0
 * @region_len:   bytes accessible from window_base
 * @flags:        GB_RDMA_CONNECT_* revisions asked for (only known bits)
 * @record_size:  with GB_RDMA_CONNECT_FOLD: the client's receive buffer
 *                size (checked: 512..GB_RDMA_FOLD_RECORD_CAP, 64-multiple)
 */
struct gb_rdma_geom {
	__u32 window_size;
	__u16 window_count;
	__u16 credits;
	__u32 rkey;
	__u64 window_base;
	__u64 region_len;
	__u16 flags;
	__u32 record_size;
};

bool gb_rdma_key_ok(const char *key, size_t len);
int gb_rdma_rec_parse(const void *buf, size_t len, struct gb_rdma_rec *rec,
		      const char **msg);
int gb_rdma_resp_parse(const void *buf, size_t len, size_t rec_max,
		       struct gb_rdma_rec *rec, const char **msg);
int gb_rdma_req_parse(const void *buf, size_t len, struct gb_rdma_rec *rec,
		      const char **msg);
enum gb_rdma_reject_reason gb_rdma_connect_parse(const void *priv, size_t len,
						 struct gb_rdma_geom *geom);
void gb_rdma_connect_build(struct gb_rdma_connect *c,
			   const struct gb_rdma_geom *geom);
const char *gb_rdma_reject_str(unsigned int reason);
void gb_rdma_hdr_init(void *rec, __u8 type, __u64 tag, __u16 credits,
		      __u16 body_len);
int gb_rdma_get_add_key(void *rec, const char *key, size_t klen);

#endif /* _GB_RDMA_REC_H */
