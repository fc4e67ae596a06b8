/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP 13 harness in the style of kselftest_harness.h's output.
 *
 * A test program lists its tests in a struct cp_test array and hands it to
 * tap_main().  Each test is one TAP line; inside it, CHECK() records a
 * failure with file and line and goes on, so one run shows every broken
 * property.  Diagnostics and measurements go out as "# " lines.
 *
 * A test whose property is known to be broken in module/ is marked with
 * TAP_KNOWN_BUG("reason"): it still runs, and reports "not ok ... # TODO"
 * (xfail, not a failure) while the bug is there, "ok ... # TODO" (xpass)
 * once it is fixed, so the mark can be dropped.
 *
 *	./test_nonres [-v] [-l] [-t name]... [-s seed]
 *
 * CP_TEST_SCALE (environment, default 1) scales the iteration counts of
 * the statistical tests; the valgrind run uses a smaller one.  Bounds are
 * chosen so that every scale >= 0.25 keeps them many sigmas away.
 */
#ifndef _CP_TAP_H
#define _CP_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cp_test {
	const char *name;
	void (*fn)(void);
};

struct tap_state {
	int failed;		/* CHECK failures in the current test */
	int skipped;
	const char *skip_reason;
	const char *todo_reason;
	int verbose;
	uint64_t seed;
	double scale;
};

static struct tap_state tap;

static inline void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* Report-only output: printed always (measurements are the point). */
#define tap_info(...)	tap_diag(__VA_ARGS__)
/* Chatty output: printed with -v only. */
#define tap_verbose(...)						\
	do {								\
		if (tap.verbose)					\
			tap_diag(__VA_ARGS__);				\
	} while (0)

static inline void tap_check_fail(const char *file, int line,
				  const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void tap_check_fail(const char *file, int line,
				  const char *expr, const char *fmt, ...)
{
	va_list ap;

	/* Cap the noise: a broken property can fail a million times. */
	if (++tap.failed > 20) {
		if (tap.failed == 21)
			tap_diag("(further failures of this test not shown)");
		return;
	}
	printf("# FAIL %s:%d: %s: ", file, line, expr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* Record a failure and continue; evaluates to the condition. */
#define CHECK(cond, ...)						\
	({								\
		bool __ok = (cond);					\
		if (!__ok)						\
			tap_check_fail(__FILE__, __LINE__, #cond,	\
				       __VA_ARGS__);			\
		__ok;							\
	})

/* Stop the current test: used when going on would only add noise. */
#define REQUIRE(cond, ...)						\
	do {								\
		if (!CHECK(cond, __VA_ARGS__))				\
			return;						\
	} while (0)

#define TAP_SKIP(reason)						\
	do {								\
		tap.skipped = 1;					\
		tap.skip_reason = (reason);				\
		return;							\
	} while (0)

#define TAP_KNOWN_BUG(reason)	(tap.todo_reason = (reason))

/* Iteration count scaled by CP_TEST_SCALE, never below @min. */
static inline uint64_t tap_scaled(uint64_t n, uint64_t min)
{
	uint64_t v = (uint64_t)((double)n * tap.scale);

	return v < min ? min : v;
}

/* splitmix64: the tests' deterministic PRNG. */
static inline uint64_t tap_rand_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t tap_rand_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)tap_rand_next(s) * n) >> 64);
}

static inline double tap_rand_unit(uint64_t *s)
{
	return (double)(tap_rand_next(s) >> 11) / (double)(1ULL << 53);
}

static inline int tap_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline int tap_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* p-th percentile (0..100) of @n values, sorting them in place. */
static inline double tap_percentile(double *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), tap_cmp_double);
	i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

static inline int tap_main(int argc, char **argv, const struct cp_test *tests,
			   int ntests)
{
	unsigned int pass = 0, fail = 0, xfail = 0, xpass = 0, skip = 0;
	const char *only[64];
	int nonly = 0, planned = 0, n = 0, i, j;
	const char *env = getenv("CP_TEST_SCALE");

	tap.seed = 0x636c6f636b70726fULL;	/* "clockpro" */
	tap.scale = env ? atof(env) : 1.0;
	if (tap.scale <= 0)
		tap.scale = 1.0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			tap.verbose = 1;
		} else if (!strcmp(argv[i], "-l")) {
			for (j = 0; j < ntests; j++)
				puts(tests[j].name);
			return 0;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc &&
			   nonly < 64) {
			only[nonly++] = argv[++i];
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			tap.seed = strtoull(argv[++i], NULL, 0);
		} else {
			fprintf(stderr,
				"usage: %s [-v] [-l] [-t test]... [-s seed]\n",
				argv[0]);
			return 2;
		}
	}

	for (j = 0; j < ntests; j++) {
		bool run = !nonly;

		for (i = 0; i < nonly; i++)
			run |= !strcmp(only[i], tests[j].name);
		planned += run;
	}
	printf("TAP version 13\n1..%d\n", planned);
	tap_diag("seed 0x%llx scale %g", (unsigned long long)tap.seed,
		 tap.scale);
	fflush(stdout);

	for (j = 0; j < ntests; j++) {
		bool run = !nonly;

		for (i = 0; i < nonly; i++)
			run |= !strcmp(only[i], tests[j].name);
		if (!run)
			continue;
		n++;
		tap.failed = 0;
		tap.skipped = 0;
		tap.skip_reason = NULL;
		tap.todo_reason = NULL;
		tap_diag("%s", tests[j].name);
		tests[j].fn();
		if (tap.skipped) {
			printf("ok %d - %s # SKIP %s\n", n, tests[j].name,
			       tap.skip_reason);
			skip++;
		} else if (tap.todo_reason) {
			printf("%sok %d - %s # TODO %s\n",
			       tap.failed ? "not " : "", n, tests[j].name,
			       tap.todo_reason);
			if (tap.failed)
				xfail++;
			else
				xpass++;
		} else if (tap.failed) {
			printf("not ok %d - %s\n", n, tests[j].name);
			fail++;
		} else {
			printf("ok %d - %s\n", n, tests[j].name);
			pass++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%u fail:%u xfail:%u xpass:%u skip:%u error:0\n",
	       pass, fail, xfail, xpass, skip);
	return fail ? 1 : 0;
}

#endif /* _CP_TAP_H */
