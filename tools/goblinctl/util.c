// SPDX-License-Identifier: GPL-2.0
/* goblinctl: exit and allocation helpers, global options, the stop flag. */
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "goblinctl.h"

bool opt_json;
bool opt_pretty;
const char *prog = "goblinctl";

/*
 * Leave without flushing other stdio streams: in batch mode this runs in a
 * child that shares the batch FILE with its parent.
 */
void __noreturn leave(int status)
{
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}

static void __noreturn vdie(int status, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	leave(status);
}

void __noreturn __printf(1, 2)
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(1, fmt, ap);
}

/* A syntax error: exit status 2, before anything is sent to the kernel. */
void __noreturn __printf(1, 2)
usage_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(2, fmt, ap);
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p)
		die("out of memory");
	return p;
}

/* Set by the signal handler: lock-free, hence async-signal-safe. */
atomic_bool stop;

void on_signal(int sig)
{
	stop = 1;
}
