/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the C test programs of the guest suites (under tests/func):
 * tap() prints one numbered result, skip() a skipped one, diag() a comment
 * line; ntest and nfail count them for the plan and the exit status.
 * A program that wants more after every result (a timestamp) sets
 * tap_after. Everything is flushed at once: the suites' output is read
 * through a pipe while they run.
 */
#ifndef GB_TESTS_TAP_H
#define GB_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../tools/include/gb_compiler.h"

static unsigned int ntest, nfail;
static void (*tap_after)(void);

static void tap(bool ok, const char *fmt, ...) __printf(2, 3);

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (!ok)
		nfail++;
	printf("%sok %u - ", ok ? "" : "not ", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (tap_after)
		tap_after();
	fflush(stdout);
}

static inline void skip(const char *what, const char *why)
{
	printf("ok %u - %s # SKIP %s\n", ++ntest, what, why);
	fflush(stdout);
}

static void diag(const char *fmt, ...) __printf(1, 2);

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#endif /* GB_TESTS_TAP_H */
