// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the nonresident table (module/nonres.c): throughput and
 * instructions per operation.  A benchmark, not a test: it asserts
 * nothing.  tools/testing/bench.sh runs it and adds callgrind's counts.
 *
 *	bench_nonres [-s SIZES] [-n OPS] [-r REPEAT] [-t THREADS]
 *	bench_nonres -c ENTRIES -n OPS		(under callgrind)
 *
 * SIZES is a comma list of table sizes in entries (suffix k, M, G: powers
 * of 2), default 1M,16M,256M.  A size whose table does not fit twice in
 * MemAvailable is skipped.  Each rate is the best of REPEAT (3) runs of
 * OPS (2M) operations: the machine may be shared.
 *
 * Each operation is what the module's probes do for an order-0 page:
 *
 *	hash		cp_key_hash() alone, for reference
 *	remember	cp_key_hash, cp_table_clock_advance and
 *			cp_table_remember into a steady-state table (every
 *			bucket full: the scan for the oldest reads 16 slots)
 *	lookup hit	cp_key_hash + cp_table_clock + cp_table_lookup of a
 *			page remembered earlier (consumes it)
 *	lookup miss	the same for a page never remembered
 *	mixed		evict one page and refault another, evicted 2^20
 *			(or a quarter table) evictions earlier: thrashing;
 *			T threads share the table and its clock
 *
 * The table memory is 4 KiB pages, as vzalloc() gives the module.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "clockpro/nonres.h"

#if defined(__has_include) && __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)	((void)(s))
#endif

#define MAPPING_EVICT	0xffff888012345000UL
#define MAPPING_NEVER	0xffff8880abcde000UL

static volatile u64 sink;

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static u64 key(unsigned long mapping, u64 i)
{
	return cp_key_hash(mapping, 1234, 0, i);
}

static u32 *table_alloc(struct cp_table *t, u64 entries)
{
	u32 nb = cp_table_buckets(entries);
	size_t bytes = cp_table_bytes(nb);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, bytes, MADV_NOHUGEPAGE);
	cp_table_init(t, p, nb);
	return p;
}

static void table_free(struct cp_table *t)
{
	munmap(t->slots, cp_table_bytes(t->nbuckets));
}

/*
 * A full bucket of live cookies, ages spread over one capacity, in the
 * form the table keeps its 64-bit words (module/nonres.c, "Pairs"): the
 * older cookie of each in the high half.
 */
static void fill_bucket(struct cp_table *t, u64 b, uint64_t *rs)
{
	u32 now_ts = (u32)(cp_table_clock(t) >> t->shift);
	u64 *w = (u64 *)(t->slots + b * CP_BUCKET_SLOTS);
	int i;

	for (i = 0; i < CP_BUCKET_SLOTS / 2; i++) {
		u32 c[2], age[2];
		int k;

		for (k = 0; k < 2; k++) {
			u64 r;

			*rs = *rs * 6364136223846793005ULL +
			      1442695040888963407ULL;
			r = *rs >> 11;
			age[k] = (u32)(r % 256);
			c[k] = ((now_ts - age[k]) & CP_TS_MASK) << CP_TS_SHIFT |
			       (((u32)(r >> 8) & CP_CHECK_MASK) | 1);
		}
		k = age[0] < age[1];	/* the older one's index */
		w[i] = (u64)c[k] << 32 | c[!k];
	}
}

/* Steady state: the clock a few capacities in, every bucket full. */
static void prefill_all(struct cp_table *t)
{
	uint64_t rs = 42;
	u64 b;

	cp_atomic64_set(&t->clock, (s64)(4 * t->capacity));
	for (b = 0; b < t->nbuckets; b++)
		fill_bucket(t, b, &rs);
}

/* Only the buckets that @n keys from @base will touch (callgrind runs). */
static void prefill_touched(struct cp_table *t, u64 base, u64 n)
{
	uint64_t rs = 42;
	u64 i;

	if (!cp_table_clock(t))
		cp_atomic64_set(&t->clock, (s64)(4 * t->capacity));
	for (i = 0; i < n; i++) {
		u64 h = key(MAPPING_EVICT, base + i);

		fill_bucket(t, ((h >> 32) * t->nbuckets) >> 32, &rs);
		h = key(MAPPING_NEVER, base + i);
		fill_bucket(t, ((h >> 32) * t->nbuckets) >> 32, &rs);
	}
}

static noinline void loop_hash(u64 base, u64 n)
{
	u64 i, x = 0;

	for (i = 0; i < n; i++)
		x ^= key(MAPPING_EVICT, base + i);
	sink = x;
}

static noinline void loop_remember(struct cp_table *t,
						    unsigned long mapping,
						    u64 base, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		u64 when = cp_table_clock_advance(t, 1);

		cp_table_remember(t, key(mapping, base + i), when, 0, NULL);
	}
}

static noinline u64 loop_lookup(struct cp_table *t,
						 unsigned long mapping,
						 u64 base, u64 n)
{
	struct cp_refault r;
	u64 i, hits = 0;

	for (i = 0; i < n; i++)
		hits += cp_table_lookup(t, key(mapping, base + i),
					cp_table_clock(t), &r);
	return hits;
}

struct mixed_arg {
	struct cp_table *t;
	pthread_barrier_t *go;
	unsigned long mapping;
	u64 n, d, hits;
	double secs;
};

static noinline u64 loop_mixed(struct cp_table *t,
						unsigned long mapping,
						u64 from, u64 n, u64 d)
{
	struct cp_refault r;
	u64 i, hits = 0;

	for (i = from; i < from + n; i++) {
		u64 when = cp_table_clock_advance(t, 1);

		cp_table_remember(t, key(mapping, i), when, 0, NULL);
		hits += cp_table_lookup(t, key(mapping, i - d),
					cp_table_clock(t), &r);
	}
	return hits;
}

static void *mixed_thread(void *p)
{
	struct mixed_arg *a = p;
	double t0;

	/* Warm-up: the first d evictions have nothing to refault. */
	loop_remember(a->t, a->mapping, 0, a->d);
	pthread_barrier_wait(a->go);
	t0 = now_sec();
	a->hits = loop_mixed(a->t, a->mapping, a->d, a->n, a->d);
	a->secs = now_sec() - t0;
	return NULL;
}

static double mixed(struct cp_table *t, int nthreads, u64 rep, u64 n,
		    double *hitp)
{
	struct mixed_arg a[8];
	pthread_barrier_t go;
	pthread_t th[8];
	double secs = 0;
	u64 hits = 0;
	int i;

	pthread_barrier_init(&go, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		a[i] = (struct mixed_arg){
			.t = t, .go = &go,
			.mapping = MAPPING_EVICT + 0x100000UL * (i + 1) +
				   0x10000000UL * rep,
			.n = n, .d = t->capacity / 4 < (1 << 20) ?
				     t->capacity / 4 : (1 << 20),
		};
		pthread_create(&th[i], NULL, mixed_thread, &a[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		if (a[i].secs > secs)
			secs = a[i].secs;
		hits += a[i].hits;
	}
	pthread_barrier_destroy(&go);
	*hitp = (double)hits / ((double)n * nthreads);
	return (double)n * nthreads / secs;
}

/* Keep the best rate seen: ops / secs. */
static void best(double *rate, u64 ops, double secs)
{
	if (secs > 0 && (double)ops / secs > *rate)
		*rate = (double)ops / secs;
}

static u64 mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return (u64)kb << 10;
}

static u64 parse_size(const char *s)
{
	char *end;
	u64 v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': return v << 10;
	case 'm': case 'M': return v << 20;
	case 'g': case 'G': return v << 30;
	default: return v;
	}
}

static const char *human(u64 entries, char *buf)
{
	if (entries >= (1ULL << 30) && !(entries & ((1ULL << 30) - 1)))
		sprintf(buf, "%llu Gi", (unsigned long long)(entries >> 30));
	else if (entries >= (1ULL << 20) && !(entries & ((1ULL << 20) - 1)))
		sprintf(buf, "%llu Mi", (unsigned long long)(entries >> 20));
	else
		sprintf(buf, "%llu", (unsigned long long)entries);
	return buf;
}

/*
 * Bytes per page actually remembered: an empty table receiving evictions
 * of distinct pages fills unevenly (Poisson arrivals per bucket) until
 * every bucket is full.
 */
static void occupancy(u64 entries)
{
	static const double caps[] = { 0.5, 1, 2, 4 };
	struct cp_table t;
	u64 done = 0, i;
	unsigned int c;
	char hb[32];

	table_alloc(&t, entries);
	printf("# bytes per remembered page, %s-entry table filled from empty:",
	       human(entries, hb));
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		u64 upto = (u64)(caps[c] * (double)t.capacity), live;

		for (i = done; i < upto; i++)
			cp_table_remember(&t, key(MAPPING_EVICT, i),
					  cp_table_clock_advance(&t, 1), 0, NULL);
		done = upto;
		live = cp_table_count(&t, cp_table_clock(&t));
		printf("%s after %.1f capacities %.2f (%.1f%% full)",
		       c ? "," : "", caps[c],
		       (double)cp_table_bytes(t.nbuckets) / (double)live,
		       100.0 * (double)live / (double)t.capacity);
	}
	printf("\n");
	table_free(&t);
}

/* Under callgrind: one dump per operation kind, ops each. */
static int run_callgrind(u64 entries, u64 ops)
{
	struct cp_table t;
	u64 base = 1ULL << 40;

	table_alloc(&t, entries);
	prefill_touched(&t, base, ops);

	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	loop_hash(base, ops);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("hash");

	CALLGRIND_TOGGLE_COLLECT;
	loop_remember(&t, MAPPING_EVICT, base, ops);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("remember");

	CALLGRIND_TOGGLE_COLLECT;
	sink = loop_lookup(&t, MAPPING_EVICT, base, ops);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("lookup-hit");

	CALLGRIND_TOGGLE_COLLECT;
	sink = loop_lookup(&t, MAPPING_NEVER, base, ops);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("lookup-miss");

	table_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	const char *sizes = "1M,16M,256M";
	char *list, *tok, *save = NULL;
	u64 ops = 2 << 20, cg_entries = 0, reps = 3;
	int maxthreads = 2, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			ops = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			maxthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			cg_entries = parse_size(argv[++i]);
		else {
			fprintf(stderr,
				"usage: %s [-s SIZES] [-n OPS] [-r REPEAT] [-t THREADS] | -c ENTRIES -n OPS\n",
				argv[0]);
			return 2;
		}
	}
	if (maxthreads < 1 || maxthreads > 8)
		maxthreads = 2;
	if (!reps)
		reps = 1;
	if (cg_entries)
		return run_callgrind(cg_entries, ops);

	printf("# best of %llu runs of %llu operations; Mops/s = million operations per second\n",
	       (unsigned long long)reps, (unsigned long long)ops);
	printf("%-8s %9s %6s %8s %9s %9s %9s %9s", "entries", "table",
	       "B/page", "hash", "remember", "look-hit", "look-miss",
	       "mixed");
	for (i = 2; i <= maxthreads; i++)
		printf("  mixed %dT", i);
	printf("  (Mops/s)\n");

	list = strdup(sizes);
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		u64 entries = parse_size(tok), n, hits, rounds, r, rep;
		double t0, r_hash = 0, r_rem = 0, r_hit = 0, r_miss = 0, hr;
		u64 n_hit = 0, hits_total = 0;
		struct cp_table t;
		char hb[32];
		size_t bytes;

		bytes = cp_table_bytes(cp_table_buckets(entries));
		if (2 * bytes > mem_available()) {
			printf("%-8s skipped: %zu MiB table, %llu MiB available\n",
			       human(entries, hb), bytes >> 20,
			       (unsigned long long)(mem_available() >> 20));
			continue;
		}
		table_alloc(&t, entries);
		prefill_all(&t);

		/* Best of @reps: the machine may be shared. */
		for (rep = 0; rep < reps; rep++) {
			t0 = now_sec();
			loop_hash(0, ops);
			best(&r_hash, ops, now_sec() - t0);
			t0 = now_sec();
			sink = loop_lookup(&t, MAPPING_NEVER, rep << 40, ops);
			best(&r_miss, ops, now_sec() - t0);
		}

		/* Remember then look up batches of half a table at most. */
		n = ops < t.capacity / 2 ? ops : t.capacity / 2;
		rounds = reps * ((ops + n - 1) / n);
		for (r = 0; r < rounds; r++) {
			u64 base = (r + 1) << 40;

			t0 = now_sec();
			loop_remember(&t, MAPPING_EVICT, base, n);
			best(&r_rem, n, now_sec() - t0);
			t0 = now_sec();
			hits = loop_lookup(&t, MAPPING_EVICT, base, n);
			best(&r_hit, n, now_sec() - t0);
			n_hit += n;
			hits_total += hits;
		}

		printf("%-8s %5zu MiB %6.2f %8.1f %9.1f %9.1f %9.1f",
		       human(entries, hb), bytes >> 20,
		       (double)bytes / (double)t.capacity, r_hash / 1e6,
		       r_rem / 1e6, r_hit / 1e6, r_miss / 1e6);
		for (i = 1; i <= maxthreads; i++) {
			struct cp_table t2;
			double r_mixed = 0;

			table_alloc(&t2, entries);
			prefill_all(&t2);
			for (rep = 0; rep < reps; rep++) {
				double v = mixed(&t2, i, rep, ops, &hr);

				if (v > r_mixed)
					r_mixed = v;
			}
			printf(" %9.1f", r_mixed / 1e6);
			table_free(&t2);
		}
		printf("   (hits: lookup %.1f%%, mixed %.1f%%)\n",
		       100.0 * hits_total / n_hit, 100 * hr);
		table_free(&t);
		fflush(stdout);
	}
	free(list);
	occupancy(1 << 20);
	return 0;
}
