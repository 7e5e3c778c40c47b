/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: tiny compatibility shim so that the protocol parsers in
 * kmod/proto/ build both inside the kernel and in userspace (unit tests,
 * fuzzers). Only fixed-width types, bool and size_t/memcpy/memchr.
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
#endif

#endif /* _GB_COMPAT_H */
