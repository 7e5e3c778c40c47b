/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: tiny compatibility shim so that the protocol parsers in
 * kmod/proto/ build both inside the kernel and in userspace (unit tests,
 * fuzzers). Kernel fixed-width types (u8..u64, s64), bool and size_t/memcpy/memchr.
 */
#ifndef _GB_COMPAT_H
#define _GB_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;
#endif

#endif /* _GB_COMPAT_H */
