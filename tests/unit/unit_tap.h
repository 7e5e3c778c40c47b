/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP harness shared by the parser unit tests: CHECK() counts a
 * failed check in the running test, unit_run() runs a table of tests and
 * prints one TAP line per test.
 */
#ifndef GB_UNIT_TAP_H
#define GB_UNIT_TAP_H

#include <stddef.h>
#include <stdio.h>

static int test_failed;		/* checks failed in the running test */

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: CHECK(%s) failed\n", __FILE__,		\
		       __LINE__, #cond);				\
		test_failed++;						\
	}								\
} while (0)

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* Run @n tests; return the exit status (0 when all passed). */
static int unit_run(const struct unit_test *tests, size_t n)
{
	size_t i, failed = 0;

	printf("1..%zu\n", n);
	for (i = 0; i < n; i++) {
		test_failed = 0;
		tests[i].fn();
		if (test_failed)
			failed++;
		printf("%s %zu - %s\n", test_failed ? "not ok" : "ok", i + 1,
		       tests[i].name);
	}
	printf("# %zu passed, %zu failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

#endif /* GB_UNIT_TAP_H */
