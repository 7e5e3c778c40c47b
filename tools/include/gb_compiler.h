/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Goblin Store: kernel-style compiler attribute macros for the userspace
 * code (libgoblin, tools, tests, benchmark, fuzzer), so that it can follow
 * the kernel coding style the rest of the tree uses. Include it with a path
 * relative to the including file; it needs nothing but a GNU C compiler.
 *
 * This is the one place that spells __attribute__ out: scripts/checkpatch
 * exempts this file from PREFER_DEFINED_ATTRIBUTE_MACRO.
 */
#ifndef _GB_COMPILER_H
#define _GB_COMPILER_H

#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#endif

#ifndef __noreturn
#define __noreturn	__attribute__((__noreturn__))
#endif

#ifndef __aligned
#define __aligned(x)	__attribute__((__aligned__(x)))
#endif

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif /* _GB_COMPILER_H */
