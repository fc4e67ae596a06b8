// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the nonresident table, module/nonres.c, built from the
 * module's own source against tools/include/clockpro_user.h.
 *
 * The spec is the top comment of module/nonres.c.  Every test asserts
 * bounds that a broken table misses: one that always answers distance 0,
 * never finds anything, finds everything, forgets its clock across a wrap,
 * or hashes everything into a few buckets fails at least one of them.
 * Measurements (error percentiles, hit and false-positive rates against
 * theory) are printed as "# " lines.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "clockpro/nonres.h"
#include "nonres_model.h"
#include "tap.h"

#if defined(__has_include) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND	0
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Typical kernel pointers for the keys; the values do not matter. */
#define MAPPING_A	0xffff888012345000UL
#define MAPPING_B	0xffff8880abcde000UL

struct tbl {
	struct cp_table t;
	u32 *slots;
};

static void tbl_new(struct tbl *x, u32 nbuckets)
{
	size_t bytes = cp_table_bytes(nbuckets);

	x->slots = aligned_alloc(64, bytes);
	if (!x->slots) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(x->slots, 0, bytes);
	cp_table_init(&x->t, x->slots, nbuckets);
}

static void tbl_free(struct tbl *x)
{
	free(x->slots);
	x->slots = NULL;
}

static void tbl_set_clock(struct cp_table *t, u64 clock)
{
	cp_atomic64_set(&t->clock, (s64)clock);
}

static u64 step_of(const struct cp_table *t)
{
	return 1ULL << t->shift;
}

static u64 key_a(u64 i)
{
	return cp_key_hash(MAPPING_A, 42, 7, i);
}

static u64 key_b(u64 i)
{
	return cp_key_hash(MAPPING_B, 43, 7, i);
}

/* Non-zero slots in the whole table, expired or not. */
static u64 raw_occupied(const struct cp_table *t)
{
	u64 i, n = 0;

	for (i = 0; i < t->capacity; i++)
		n += t->slots[i] != 0;
	return n;
}

static double pois_cdf(int k, double lam)
{
	double s = 0, term = exp(-lam);
	int i;

	for (i = 0; i <= k; i++) {
		s += term;
		term *= lam / (i + 1);
	}
	return s;
}

/* ------------------------------------------------------------------ */

static void test_sizing(void)
{
	static const struct { u64 entries; u32 buckets; } cases[] = {
		{ 0, 1 }, { 1, 1 }, { 16, 1 }, { 17, 2 }, { 32, 2 },
		{ 33, 3 }, { 1ULL << 20, 1U << 16 }, { 1ULL << 24, 1U << 20 },
		{ 1ULL << 28, 1U << 24 },
		{ (16ULL << 32) - 16, 0xffffffffU },
		{ (16ULL << 32) - 17, 0xffffffffU },
		{ 16ULL << 32, 0xffffffffU },
		{ 1ULL << 40, 0xffffffffU },
		{ 1ULL << 60, 0xffffffffU },
	};
	static const u32 nbs[] = {
		1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 100, 1000, 3000,
		4096, 65535, 65536, 65537, 1U << 20, (1U << 24) + 1, 1U << 31,
		0xfffffffeU, 0xffffffffU,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK(cp_table_buckets(cases[i].entries) == cases[i].buckets,
		      "cp_table_buckets(%llu) = %u, want %u",
		      (unsigned long long)cases[i].entries,
		      cp_table_buckets(cases[i].entries), cases[i].buckets);

	CHECK(cp_table_bytes(1) == 64, "%zu", cp_table_bytes(1));
	CHECK(CP_BUCKET_BYTES == 64, "bucket is %zu bytes", CP_BUCKET_BYTES);
	/* 2^32 - 1 buckets: 256 GiB, no overflow in a 64-bit size_t. */
	CHECK(cp_table_bytes(0xffffffffU) == 0xffffffffULL * 64,
	      "cp_table_bytes(2^32-1) = %zu", cp_table_bytes(0xffffffffU));

	for (i = 0; i < ARRAY_SIZE(nbs); i++) {
		struct cp_table t;
		u64 cap = (u64)nbs[i] * CP_BUCKET_SLOTS, steps;

		/* No allocation: init only records the geometry. */
		cp_table_init(&t, NULL, nbs[i]);
		steps = cap >> t.shift;
		CHECK(t.nbuckets == nbs[i] && t.capacity == cap,
		      "nb %u: capacity %llu", nbs[i],
		      (unsigned long long)t.capacity);
		CHECK(cp_table_bytes(nbs[i]) == cap * 4,
		      "nb %u: %zu bytes for %llu entries: not 4 bytes each",
		      nbs[i], cp_table_bytes(nbs[i]), (unsigned long long)cap);
		if (cap < 512)
			CHECK(t.shift == 0, "nb %u: shift %u", nbs[i], t.shift);
		else
			CHECK(steps >= 256 && steps < 512,
			      "nb %u: capacity spans %llu steps", nbs[i],
			      (unsigned long long)steps);
		CHECK(t.max_age == (u64)(CP_TS_RANGE / 2) << t.shift,
		      "nb %u: max_age %llu", nbs[i],
		      (unsigned long long)t.max_age);
		/* "max_age, 2 to 4 capacities" */
		CHECK(t.max_age > 2 * cap &&
		      (cap < 512 || t.max_age <= 4 * cap),
		      "nb %u: max_age %llu for capacity %llu", nbs[i],
		      (unsigned long long)t.max_age, (unsigned long long)cap);
		CHECK(cp_table_clock(&t) == 0, "clock starts at %llu",
		      (unsigned long long)cp_table_clock(&t));
	}

	/* The benchmark's sizes: enough buckets, less than one extra. */
	for (i = 20; i <= 28; i += 4) {
		u64 e = 1ULL << i;
		u32 nb = cp_table_buckets(e);

		CHECK((u64)nb * 16 >= e && (u64)nb * 16 < e + 16,
		      "%llu entries -> %u buckets", (unsigned long long)e, nb);
	}
}

static void test_sizing_huge(void)
{
	CHECK(cp_table_buckets(~0ULL) == 0xffffffffU,
	      "cp_table_buckets(2^64-1) = %u", cp_table_buckets(~0ULL));
	CHECK(cp_table_buckets(~0ULL - 7) == 0xffffffffU,
	      "cp_table_buckets(2^64-8) = %u", cp_table_buckets(~0ULL - 7));
}

/* The layout that nonres_model.h (and the spec) assume is the real one. */
static void test_layout(void)
{
	static const u32 nbs[] = { 1, 3, 4096, 65537 };
	uint64_t rs = tap.seed;
	unsigned int n;
	int i;

	for (n = 0; n < ARRAY_SIZE(nbs); n++) {
		/* Each insert is found by a scan of the whole table. */
		int inserts = nbs[n] > 4096 ? 64 : 2000;
		struct tbl x;

		tbl_new(&x, nbs[n]);
		for (i = 0; i < inserts; i++) {
			u64 h = tap_rand_next(&rs), when, j, found = ~0ULL;
			u32 flags = (i & 1) ? 0xffffffffU : 0;
			struct cp_refault r;

			if (i < 8)	/* check values 0 and 1 */
				h = (h & ~(u64)CP_CHECK_MASK) | (i & 1);
			when = cp_table_clock_advance(&x.t, 1 + i % 5);
			cp_table_remember(&x.t, h, when, flags, NULL);
			for (j = 0; j < x.t.capacity; j++) {
				if (!x.slots[j])
					continue;
				CHECK(found == ~0ULL, "two slots used");
				found = j;
			}
			REQUIRE(found != ~0ULL, "entry not stored");
			CHECK(found / 16 == ref_bucket(h, nbs[n]),
			      "bucket %llu, spec %u",
			      (unsigned long long)found / 16,
			      ref_bucket(h, nbs[n]));
			CHECK(x.slots[found] ==
			      (ref_ts(when, x.t.shift) << CP_TS_SHIFT |
			       (flags & CP_FLAG_ACTIVE) | ref_check(h)),
			      "cookie %#x", x.slots[found]);
			CHECK(cp_table_lookup(&x.t, h, cp_table_clock(&x.t),
					      &r), "lookup missed");
			CHECK(r.flags == (flags & CP_FLAG_ACTIVE),
			      "flags %#x", r.flags);
		}
		CHECK(raw_occupied(&x.t) == 0, "table not empty");
		tbl_free(&x);
	}
}

static int popcount64(u64 x)
{
	return __builtin_popcountll(x);
}

static void test_key_hash(void)
{
	uint64_t rs = tap.seed;
	u64 flips[4] = { 0 }, samples = 0;
	int i, b;

	CHECK(cp_key_hash(MAPPING_A, 42, 7, 5) == cp_key_hash(MAPPING_A, 42,
							       7, 5),
	      "not deterministic");
	for (i = 0; i < 2000; i++) {
		unsigned long m = (unsigned long)tap_rand_next(&rs);
		unsigned long ino = (unsigned long)tap_rand_next(&rs);
		u32 gen = (u32)tap_rand_next(&rs);
		unsigned long idx = (unsigned long)tap_rand_next(&rs);
		u64 h = cp_key_hash(m, ino, gen, idx);

		/* Every input matters: flipping one bit flips ~32 bits. */
		b = (int)tap_rand_below(&rs, 64);
		flips[0] += popcount64(h ^ cp_key_hash(m ^ (1UL << b), ino,
						       gen, idx));
		flips[1] += popcount64(h ^ cp_key_hash(m,
						       ino ^ (1UL << (b & 31)),
						       gen, idx));
		flips[2] += popcount64(h ^ cp_key_hash(m, ino,
						       gen ^ (1U << (b & 31)),
						       idx));
		flips[3] += popcount64(h ^ cp_key_hash(m, ino, gen,
						       idx ^ (1UL << b)));
		samples++;
	}
	for (i = 0; i < 4; i++) {
		double avg = (double)flips[i] / (double)samples;
		static const char * const what[] = {
			"mapping", "ino (low 32 bits)", "gen", "index"
		};

		tap_info("one-bit flip of %s: %.2f of 64 hash bits change",
			 what[i], avg);
		CHECK(avg > 30 && avg < 34, "%s: avalanche %.2f", what[i], avg);
	}
}

/*
 * i_ino is an unsigned long: 64-bit inode numbers (XFS inode64, btrfs,
 * tmpfs inode64) differ in their high half, and must give other keys.
 */
static void test_key_hash_ino_high(void)
{
	uint64_t rs = tap.seed ^ 9;
	int i, b, same = 0;

	for (i = 0; i < 1000; i++) {
		unsigned long ino = (unsigned long)tap_rand_next(&rs);

		b = 32 + (int)tap_rand_below(&rs, 32);
		same += cp_key_hash(MAPPING_A, ino, 0, i) ==
			cp_key_hash(MAPPING_A, ino ^ (1UL << b), 0, i);
	}
	CHECK(same == 0,
	      "%d of 1000 inode numbers differing in bits 32..63 hash alike",
	      same);
}

/* A mapping reused by a new inode must not find the old inode's pages. */
static void test_identity(void)
{
	struct tbl x;
	u64 i, n = 8192, hits_ino = 0, hits_gen = 0, hits_same = 0;
	struct cp_refault r;

	tbl_new(&x, 4096);
	for (i = 0; i < n; i++)
		cp_table_remember(&x.t, cp_key_hash(MAPPING_A, 42, 7, i),
				  cp_table_clock_advance(&x.t, 1), 0, NULL);
	for (i = 0; i < n; i++) {
		u64 now = cp_table_clock(&x.t);

		hits_ino += cp_table_lookup(&x.t,
					    cp_key_hash(MAPPING_A, 43, 7, i),
					    now, &r);
		hits_gen += cp_table_lookup(&x.t,
					    cp_key_hash(MAPPING_A, 42, 8, i),
					    now, &r);
	}
	for (i = 0; i < n; i++)
		hits_same += cp_table_lookup(&x.t,
					     cp_key_hash(MAPPING_A, 42, 7, i),
					     cp_table_clock(&x.t), &r);
	tap_info("new inode on a reused mapping: %llu + %llu of %llu lookups hit (false positives)",
		 (unsigned long long)hits_ino, (unsigned long long)hits_gen,
		 (unsigned long long)n);
	CHECK(hits_ino + hits_gen <= 3, "%llu hits",
	      (unsigned long long)(hits_ino + hits_gen));
	CHECK(hits_same + hits_ino + hits_gen == n, "old inode found %llu",
	      (unsigned long long)hits_same);
	tbl_free(&x);
}

static void test_insert_lookup(void)
{
	struct tbl x;
	u64 i, n = 8192, hits = 0, again = 0, never = 0, *when;
	struct cp_refault r;
	u64 res[4] = { 0 };

	tbl_new(&x, 4096);
	when = calloc(n, sizeof(*when));
	CHECK(cp_table_count(&x.t, 0) == 0, "empty table counts entries");
	for (i = 0; i < n; i++) {
		/* Junk flag bits must not leak into the cookie. */
		u32 flags = (i % 3 == 0) ? CP_FLAG_ACTIVE :
			    (i % 3 == 1) ? ~(u32)CP_FLAG_ACTIVE : 0;

		when[i] = cp_table_clock_advance(&x.t, 1 + i % 4);
		res[cp_table_remember(&x.t, key_a(i), when[i], flags, NULL)]++;
	}
	CHECK(res[CP_REMEMBER_EMPTY] == n,
	      "sparse table: %llu empty, %llu expired, %llu displaced, %llu raced",
	      (unsigned long long)res[0], (unsigned long long)res[1],
	      (unsigned long long)res[2], (unsigned long long)res[3]);
	CHECK(cp_table_count(&x.t, cp_table_clock(&x.t)) == n, "count %llu",
	      (unsigned long long)cp_table_count(&x.t, cp_table_clock(&x.t)));

	for (i = 0; i < n; i++) {
		u64 now = cp_table_clock(&x.t), truth = now - when[i];
		u32 want = (i % 3 == 0) ? CP_FLAG_ACTIVE : 0;

		if (!CHECK(cp_table_lookup(&x.t, key_a(i), now, &r),
			   "key %llu not found", (unsigned long long)i))
			continue;
		hits++;
		CHECK(r.flags == want, "key %llu: flags %#x, want %#x",
		      (unsigned long long)i, r.flags, want);
		CHECK(r.distance + step_of(&x.t) > truth &&
		      r.distance < truth + step_of(&x.t),
		      "key %llu: distance %llu, true %llu",
		      (unsigned long long)i, (unsigned long long)r.distance,
		      (unsigned long long)truth);
	}
	CHECK(cp_table_count(&x.t, cp_table_clock(&x.t)) == 0,
	      "entries left after consuming all");
	for (i = 0; i < n; i++) {
		again += cp_table_lookup(&x.t, key_a(i), cp_table_clock(&x.t),
					 &r);
		never += cp_table_lookup(&x.t, key_b(i), cp_table_clock(&x.t),
					 &r);
	}
	CHECK(hits == n && again == 0 && never == 0,
	      "hits %llu, second lookups %llu, never-inserted %llu",
	      (unsigned long long)hits, (unsigned long long)again,
	      (unsigned long long)never);
	free(when);
	tbl_free(&x);
}

/* ------------------------------------------------------------------ */

/*
 * Evict one page at a random phase of the clock within a step: returns its
 * eviction time; the clock is then one past it.
 */
static u64 probe_evict(struct cp_table *t, uint64_t *rs, u64 h)
{
	u64 when;

	cp_table_clock_advance(t, (u32)tap_rand_below(rs, 2 * step_of(t)));
	when = cp_table_clock_advance(t, 1);
	cp_table_remember(t, h, when, 0, NULL);
	return when;
}

struct err_band {
	double lo, hi;		/* fraction of capacity */
	double *v;
	size_t n;
};

static void test_distance_accuracy(void)
{
	static const u32 nbs[] = { 1, 4096, 3000, 65536 };
	uint64_t rs = tap.seed;
	unsigned int n;

	for (n = 0; n < ARRAY_SIZE(nbs); n++) {
		struct err_band bands[] = {
			{ .lo = 0.05, .hi = 0.10 },
			{ .lo = 0.10, .hi = 0.25 },
			{ .lo = 0.25, .hi = 0.50 },
			{ .lo = 0.50, .hi = 1.00001 },
		};
		u64 trials = tap_scaled(20000, 4000), i, zero = 0;
		double *all = calloc(trials, sizeof(double));
		double sum_signed = 0, maxabs = 0, p50, p95, pmax;
		struct tbl x;
		unsigned int b;
		u64 step, cap;

		tbl_new(&x, nbs[n]);
		step = step_of(&x.t);
		cap = x.t.capacity;
		for (b = 0; b < ARRAY_SIZE(bands); b++)
			bands[b].v = calloc(trials, sizeof(double));

		for (i = 0; i < trials; i++) {
			double f = 0.05 + 0.95 * tap_rand_unit(&rs);
			u64 d = (u64)(f * (double)cap + 0.5), when, now, h;
			struct cp_refault r;
			double rel;

			if (!d)
				d = 1;
			h = key_a(i);
			when = probe_evict(&x.t, &rs, h);
			now = when + d;
			cp_table_clock_advance(&x.t, (u32)(now -
						cp_table_clock(&x.t)));
			if (!CHECK(cp_table_lookup(&x.t, h, now, &r),
				   "nb %u: distance %llu not found", nbs[n],
				   (unsigned long long)d))
				continue;
			zero += r.distance == 0;
			rel = fabs((double)r.distance - (double)d) / (double)d;
			sum_signed += ((double)r.distance - (double)d) /
				      (double)step;
			if (fabs((double)r.distance - (double)d) > maxabs)
				maxabs = fabs((double)r.distance - (double)d);
			all[i] = rel;
			for (b = 0; b < ARRAY_SIZE(bands); b++)
				if (f >= bands[b].lo && f < bands[b].hi)
					bands[b].v[bands[b].n++] = rel;
		}
		p50 = tap_percentile(all, trials, 50);
		p95 = tap_percentile(all, trials, 95);
		pmax = tap_percentile(all, trials, 100);
		tap_info("capacity %8llu (%4u buckets, step %4llu): distance 5-100%%: rel. error p50 %.2f%% p95 %.2f%% max %.2f%%; max abs %.0f (%.2f steps), bias %+.3f steps",
			 (unsigned long long)cap, nbs[n],
			 (unsigned long long)step, 100 * p50, 100 * p95,
			 100 * pmax, maxabs, maxabs / (double)step,
			 sum_signed / (double)trials);
		CHECK(p95 <= 0.10, "p95 %.3f", p95);
		CHECK(maxabs < (double)step, "max error %.0f >= a step",
		      maxabs);
		CHECK(fabs(sum_signed / (double)trials) < 0.05,
		      "biased: %.3f steps", sum_signed / (double)trials);
		CHECK(zero == 0, "%llu answers of distance 0",
		      (unsigned long long)zero);
		for (b = 0; b < ARRAY_SIZE(bands); b++) {
			double q50, q95, qmax;

			q50 = tap_percentile(bands[b].v, bands[b].n, 50);
			q95 = tap_percentile(bands[b].v, bands[b].n, 95);
			qmax = tap_percentile(bands[b].v, bands[b].n, 100);
			tap_info("    %3.0f-%3.0f%% of capacity: n %6zu p50 %.2f%% p95 %.2f%% max %.2f%%",
				 100 * bands[b].lo,
				 bands[b].hi > 1 ? 100 : 100 * bands[b].hi,
				 bands[b].n, 100 * q50, 100 * q95, 100 * qmax);
			CHECK(bands[b].n > trials / 30, "band too thin");
			CHECK(q95 <= 0.10, "band %.2f-%.2f: p95 %.3f",
			      bands[b].lo, bands[b].hi, q95);
			free(bands[b].v);
		}
		/* Short distances: the error stays below one step. */
		for (i = 0; i < 2000; i++) {
			u64 d = tap_rand_below(&rs, cap / 20 + 1), when, h;
			struct cp_refault r;

			h = key_b(i);
			when = probe_evict(&x.t, &rs, h);
			if (!CHECK(cp_table_lookup(&x.t, h, when + d, &r),
				   "short distance %llu not found",
				   (unsigned long long)d))
				continue;
			CHECK(r.distance + step > d && r.distance < d + step,
			      "distance %llu for %llu",
			      (unsigned long long)r.distance,
			      (unsigned long long)d);
		}
		free(all);
		tbl_free(&x);
	}
}

/* ------------------------------------------------------------------ */

/* A min-heap of probes waiting for their refault time. */
struct probe {
	u64 due;
	u64 when;
	u64 hash;
	double frac;		/* planned distance / capacity */
};

struct probe_heap {
	struct probe *p;
	size_t n, cap;
};

static void heap_push(struct probe_heap *h, struct probe v)
{
	size_t i;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->p = realloc(h->p, h->cap * sizeof(*h->p));
		if (!h->p)
			exit(2);
	}
	i = h->n++;
	while (i && h->p[(i - 1) / 2].due > v.due) {
		h->p[i] = h->p[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->p[i] = v;
}

static struct probe heap_pop(struct probe_heap *h)
{
	struct probe top = h->p[0], last = h->p[--h->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->p[c + 1].due < h->p[c].due)
			c++;
		if (h->p[c].due >= last.due)
			break;
		h->p[i] = h->p[c];
		i = c;
	}
	h->p[i] = last;
	return top;
}

/*
 * A loaded table: every eviction is remembered (a stream of pages that do
 * not come back), and probe pages refault after a planned distance.  In a
 * full bucket an entry survives until 16 more entries land in its bucket,
 * so a probe at distance D is still there with probability
 * P[Poisson(lambda D / nbuckets) < 16], lambda the rate at which entries
 * push others out.  Past the capacity, refaults mostly miss (Beyond).
 */
static void test_distance_under_load(void)
{
	static const double edges[] = {
		0.05, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 3.5,
	};
	enum { NB = ARRAY_SIZE(edges) - 1 };
	u64 tried[NB] = { 0 }, hit[NB] = { 0 }, bad_dist = 0, misses = 0;
	double theory_lo[NB] = { 0 }, theory_hi[NB] = { 0 };
	struct probe_heap heap = { 0 };
	uint64_t rs = tap.seed ^ 1;
	u64 i, evictions, inserts = 0, consumed = 0, cap, stream = 0, pk = 0;
	struct tbl x;
	double lam_i, lam_c, fp;
	int b;

	tbl_new(&x, 4096);
	cap = x.t.capacity;
	/* Steady state first: every bucket full. */
	for (i = 0; i < 4 * cap; i++)
		cp_table_remember(&x.t, key_b(stream++),
				  cp_table_clock_advance(&x.t, 1), 0, NULL);
	CHECK(cp_table_count(&x.t, cp_table_clock(&x.t)) == cap,
	      "prefill: %llu live of %llu",
	      (unsigned long long)cp_table_count(&x.t, cp_table_clock(&x.t)),
	      (unsigned long long)cap);

	evictions = tap_scaled(24 * cap, 8 * cap);
	for (i = 0; i < evictions; i++) {
		u64 when = cp_table_clock_advance(&x.t, 1);

		if (tap_rand_below(&rs, 8) == 0) {
			double f = edges[0] + (edges[NB] - edges[0]) *
				   tap_rand_unit(&rs);
			struct probe p = {
				.due = when + (u64)(f * (double)cap),
				.when = when,
				.hash = key_a(pk++),
				.frac = f,
			};

			cp_table_remember(&x.t, p.hash, when, 0, NULL);
			heap_push(&heap, p);
		} else {
			cp_table_remember(&x.t, key_b(stream++), when, 0, NULL);
		}
		inserts++;
		while (heap.n && heap.p[0].due <= cp_table_clock(&x.t)) {
			struct probe p = heap_pop(&heap);
			u64 now = cp_table_clock(&x.t), truth = now - p.when;
			struct cp_refault r;
			bool h;

			for (b = 0; b < NB; b++)
				if (p.frac >= edges[b] && p.frac < edges[b + 1])
					break;
			h = cp_table_lookup(&x.t, p.hash, now, &r);
			tried[b]++;
			hit[b] += h;
			consumed += h;
			misses += !h;
			if (h && (r.distance + step_of(&x.t) <= truth ||
				  r.distance >= truth + step_of(&x.t)))
				bad_dist++;
		}
	}
	/*
	 * A probe is displaced once 16 entries younger than it have landed
	 * in its bucket, less those of them already consumed (their holes
	 * take an insert without displacing).  Bounds: counting no
	 * consumption (lo), or every consumption at the global rate (hi),
	 * a difference of two Poisson counts.
	 */
	lam_i = (double)inserts / (double)evictions * 16;
	lam_c = (double)consumed / (double)evictions * 16;
	for (b = 0; b < NB; b++) {
		int k, c, steps = 50;

		for (k = 0; k < steps; k++) {
			double f = edges[b] + (edges[b + 1] - edges[b]) *
				   (k + 0.5) / steps;
			double pc = exp(-lam_c * f), sum = 0;

			for (c = 0; c < 60; c++) {
				sum += pc * pois_cdf(15 + c, lam_i * f);
				pc *= lam_c * f / (c + 1);
			}
			theory_hi[b] += sum / steps;
			theory_lo[b] += pois_cdf(15, lam_i * f) / steps;
		}
	}
	for (b = 0; b < NB; b++) {
		double got = tried[b] ? (double)hit[b] / (double)tried[b] : 0;

		tap_info("refault at %.2f-%.2f capacities: hit %6.2f%% (theory %6.2f%% .. %6.2f%%) of %llu",
			 edges[b], edges[b + 1], 100 * got,
			 100 * theory_lo[b], 100 * theory_hi[b],
			 (unsigned long long)tried[b]);
		CHECK(tried[b] > 200, "too few probes");
		CHECK(got > theory_lo[b] - 0.02 && got < theory_hi[b] + 0.02,
		      "hit rate %.3f, theory %.3f .. %.3f", got,
		      theory_lo[b], theory_hi[b]);
		if (edges[b + 1] <= 0.5)
			CHECK(got >= 0.99, "short refaults lost: %.3f", got);
		if (edges[b] >= 2.0)
			CHECK(got <= 0.05, "Beyond entries still hit: %.3f",
			      got);
	}
	/* A probe whose entry is gone can still match a stream cookie. */
	fp = (double)misses * 16 / (1 << CP_CHECK_BITS);
	tap_info("hits off by a step or more: %llu (false positives expected: %.1f)",
		 (unsigned long long)bad_dist, fp);
	CHECK(bad_dist <= 3 * fp + 3,
	      "%llu hits with a distance off by a step or more",
	      (unsigned long long)bad_dist);
	free(heap.p);
	tbl_free(&x);
}

/* ------------------------------------------------------------------ */

/*
 * Expiry: an entry is live up to 1024 steps (max_age) and expired from
 * 1025 to 2047 steps, the whole 11-bit range before a wrap.  Probed with
 * lookups at chosen times; a miss changes nothing, a hit is put back.
 */
static void test_expiry_lone(void)
{
	static const u32 nbs[] = { 1, 7, 4096 };
	uint64_t rs = tap.seed ^ 2;
	unsigned int n;

	for (n = 0; n < ARRAY_SIZE(nbs); n++) {
		struct tbl x;
		u64 step, when, a, h = key_a(n), live = 0, dead = 0, bad = 0;
		u64 future = 0;

		tbl_new(&x, nbs[n]);
		step = step_of(&x.t);
		tbl_set_clock(&x.t, tap_rand_next(&rs) >> 8);
		when = cp_table_clock_advance(&x.t, 1);
		cp_table_remember(&x.t, h, when, 0, NULL);
		for (a = 0; a < CP_TS_RANGE; a++) {
			u64 now = (((when >> x.t.shift) + a) << x.t.shift) +
				  tap_rand_below(&rs, step);
			u64 cnt = cp_table_count(&x.t, now);
			struct cp_refault r;
			bool hit = cp_table_lookup(&x.t, h, now, &r);

			if (a >= CP_TS_RANGE - CP_TS_FUTURE) {
				/* read as stamped ahead by a racing CPU */
				future++;
				if (!hit || r.distance != 0 || cnt != 1)
					bad++;
			} else if (a <= CP_TS_RANGE / 2) {
				live++;
				if (!hit || r.distance != a << x.t.shift ||
				    r.distance > x.t.max_age || cnt != 1)
					bad++;
			} else {
				dead++;
				if (hit || cnt != 0)
					bad++;
			}
			if (hit)
				cp_table_remember(&x.t, h, when, 0, NULL);
			if (a == CP_TS_RANGE / 2 + 1 || a == CP_TS_RANGE / 2)
				CHECK(hit == (a == CP_TS_RANGE / 2),
				      "nb %u: age %llu steps (max_age %llu): %s",
				      nbs[n], (unsigned long long)a,
				      (unsigned long long)x.t.max_age,
				      hit ? "hit" : "miss");
		}
		CHECK(bad == 0 && live == 1025 &&
		      dead == 1023 - CP_TS_FUTURE && future == CP_TS_FUTURE,
		      "nb %u: %llu wrong of %llu live + %llu expired + %llu future ages",
		      nbs[n], (unsigned long long)bad,
		      (unsigned long long)live, (unsigned long long)dead,
		      (unsigned long long)future);
		tbl_free(&x);
	}
}

/* Expired slots are reused before a live entry is displaced. */
static void test_expiry_replace(void)
{
	struct tbl x;
	struct cp_refault r;
	u64 i;
	int res;

	tbl_new(&x, 1);
	for (i = 0; i < 16; i++)
		CHECK(cp_table_remember(&x.t, key_a(i),
					cp_table_clock_advance(&x.t, 1), 0, NULL) ==
		      CP_REMEMBER_EMPTY, "fill %llu", (unsigned long long)i);
	/* Entries of time 0..7 are now older than 1024; 8..15 are not. */
	tbl_set_clock(&x.t, 1032);
	CHECK(cp_table_count(&x.t, 1032) == 8, "live %llu",
	      (unsigned long long)cp_table_count(&x.t, 1032));
	for (i = 0; i < 8; i++) {
		res = cp_table_remember(&x.t, key_b(i), 1032, 0, NULL);
		CHECK(res == CP_REMEMBER_EXPIRED || res == CP_REMEMBER_EMPTY,
		      "new %llu: result %d with expired slots",
		      (unsigned long long)i, res);
	}
	CHECK(cp_table_count(&x.t, 1032) == 16, "live %llu",
	      (unsigned long long)cp_table_count(&x.t, 1032));
	CHECK(cp_table_remember(&x.t, key_b(8), 1032, 0, NULL) ==
	      CP_REMEMBER_DISPLACED, "no displacement");
	/* key_a(8) was the oldest live entry. */
	CHECK(!cp_table_lookup(&x.t, key_a(8), 1032, &r),
	      "the oldest live entry survived");
	for (i = 9; i < 16; i++)
		CHECK(cp_table_lookup(&x.t, key_a(i), 1032, &r) &&
		      r.distance == 1032 - i, "live entry %llu lost",
		      (unsigned long long)i);
	for (i = 0; i < 8; i++)
		CHECK(!cp_table_lookup(&x.t, key_a(i), 1032, &r),
		      "expired entry %llu returned", (unsigned long long)i);
	for (i = 0; i < 9; i++)
		CHECK(cp_table_lookup(&x.t, key_b(i), 1032, &r) &&
		      r.distance == 0, "new entry %llu lost",
		      (unsigned long long)i);
	tbl_free(&x);
}

/*
 * The spec: "What the table does report is how entries leave it: consumed
 * by a refault, expired, or displaced as the oldest of a full bucket.  The
 * last two end a CLOCK-Pro test period without reuse."  The module feeds
 * EXPIRED + DISPLACED to cp_policy_expired() (m_c - 1 per page) and to
 * the "expired" counter.  An insert clears every expired slot of its
 * bucket and reports their number through its @expired argument.
 */
static void test_expiry_reported(void)
{
	struct model m;
	struct tbl x;
	uint64_t rs = tap.seed ^ 11;
	u64 i, reported = 0;
	int res;

	tbl_new(&x, 1);
	for (i = 0; i < 16; i++)
		cp_table_remember(&x.t, key_a(i),
				  cp_table_clock_advance(&x.t, 1), 0, NULL);
	tbl_set_clock(&x.t, 1032);	/* 8 of them expired */
	for (i = 0; i < 8; i++) {
		u32 gone;

		res = cp_table_remember(&x.t, key_b(i), 1032, 0, &gone);
		reported += gone + (res == CP_REMEMBER_DISPLACED);
	}
	CHECK(reported == 8, "8 entries expired, %llu reported",
	      (unsigned long long)reported);
	tbl_free(&x);

	/* The same over random operations: nothing leaves unreported. */
	tbl_new(&x, 4);
	if (model_init(&m, &x.t, false))
		exit(2);
	for (i = 0; i < tap_scaled(100000, 20000) && !m.err[0]; i++) {
		u64 k = tap_rand_below(&rs, 200);

		if (tap_rand_below(&rs, 3))
			model_remember(&m, k, key_a(k),
				       cp_table_clock_advance(&x.t,
					(u32)tap_rand_below(&rs, 40)), 0);
		else
			model_lookup(&m, k, key_a(k));
	}
	CHECK(!m.err[0], "model: %s", m.err);
	tap_info("random operations: %llu expired, %llu displaced reported; %llu entries cleared unreported",
		 (unsigned long long)m.st.expired,
		 (unsigned long long)m.st.displaced,
		 (unsigned long long)m.st.cleared);
	CHECK(m.st.cleared == 0, "%llu entries left without a report",
	      (unsigned long long)m.st.cleared);
	model_free(&m);
	tbl_free(&x);
}

/*
 * The spec: an entry can outlive a timestamp wrap only if its bucket sees
 * no insertion at all for max_age evictions.  Before f1a85be an insertion
 * took the first empty slot and looked no further, so an entry behind a
 * slot that refaults kept emptying was never replaced, and after 2048
 * steps its timestamp aliased to a young age.  Minimal case: one bucket,
 * one stale entry in slot 15, a thrashing loop cycling slot 0.
 */
static void test_expiry_alias_minimal(void)
{
	struct tbl x;
	struct cp_refault r;
	u64 h[16], k, now;
	int i;

	tbl_new(&x, 1);
	for (i = 0; i < 16; i++) {
		h[i] = key_a(i);
		cp_table_remember(&x.t, h[i], cp_table_clock_advance(&x.t, 1),
				  0, NULL);
	}
	for (i = 0; i < 15; i++)
		cp_table_lookup(&x.t, h[i], cp_table_clock(&x.t), &r);
	/* Churn: every eviction refaults right away (a thrashing loop). */
	for (k = 0; k < 2048 + 100; k++) {
		u64 c = key_b(k);

		cp_table_remember(&x.t, c, cp_table_clock_advance(&x.t, 1), 0, NULL);
		cp_table_lookup(&x.t, c, cp_table_clock(&x.t), &r);
	}
	now = cp_table_clock(&x.t);
	CHECK(!cp_table_lookup(&x.t, h[15], now, &r),
	      "entry %llu evictions old (max_age %llu) returned with distance %llu",
	      (unsigned long long)(now - 15),
	      (unsigned long long)x.t.max_age,
	      (unsigned long long)r.distance);
	tbl_free(&x);
}

/*
 * The same in a realistic setting: a 4096-entry table, a loop that thrashes
 * (most evicted pages refault within half a capacity) and a few pages that
 * come back only after 3 to 7 wraps of the timestamp.  Any hit on those is
 * an entry older than max_age coming back.
 */
static void test_expiry_alias_churn(void)
{
	struct probe_heap heap = { 0 };
	uint64_t rs = tap.seed ^ 3;
	u64 i, cap, evictions, late = 0, late_hits = 0, wrap;
	struct tbl x;

	tbl_new(&x, 256);
	cap = x.t.capacity;
	wrap = (u64)CP_TS_RANGE << x.t.shift;
	evictions = tap_scaled(40 * wrap, 16 * wrap);
	for (i = 0; i < evictions; i++) {
		u64 when = cp_table_clock_advance(&x.t, 1);
		struct probe p = { .when = when, .hash = key_a(i) };

		if (tap_rand_below(&rs, 100) < 97) {
			p.due = when + tap_rand_below(&rs, cap / 2);
			p.frac = 0;
		} else {
			p.due = when + wrap * 3 + tap_rand_below(&rs, 4 * wrap);
			p.frac = 1;
		}
		cp_table_remember(&x.t, p.hash, when, 0, NULL);
		heap_push(&heap, p);
		while (heap.n && heap.p[0].due <= cp_table_clock(&x.t)) {
			struct probe q = heap_pop(&heap);
			u64 now = cp_table_clock(&x.t);
			struct cp_refault r;
			bool hit = cp_table_lookup(&x.t, q.hash, now, &r);

			if (q.frac == 0)
				continue;
			late++;
			late_hits += hit;
		}
	}
	tap_info("pages back after 3-7 timestamp wraps: %llu of %llu hit (must be 0)",
		 (unsigned long long)late_hits, (unsigned long long)late);
	CHECK(late > 100, "too few late probes");
	CHECK(late_hits == 0, "%llu entries older than max_age returned",
	      (unsigned long long)late_hits);
	free(heap.p);
	tbl_free(&x);
}

/*
 * CPUs take eviction times from the shared clock and store them a moment
 * later, so a bucket can receive an entry stamped a step earlier than one
 * already there.  That younger-by-a-step entry is not expired.
 */
static void test_remember_stale_when(void)
{
	struct tbl x;
	struct cp_refault r;
	u64 h0, h1, t0;
	int res;

	tbl_new(&x, 1);
	tbl_set_clock(&x.t, 12);
	h0 = key_a(0);
	h1 = key_a(1);
	/* CPU 0 got when = 11 and stored first; CPU 1 got 10. */
	cp_table_remember(&x.t, h0, 11, 0, NULL);
	res = cp_table_remember(&x.t, h1, 10, 0, NULL);
	CHECK(res == CP_REMEMBER_EMPTY, "result %d with 15 empty slots", res);
	CHECK(cp_table_count(&x.t, 12) == 2, "count %llu",
	      (unsigned long long)cp_table_count(&x.t, 12));
	CHECK(cp_table_lookup(&x.t, h0, 12, &r), "entry of time 11 lost");
	tbl_free(&x);

	/* Same with a coarse clock, across a step boundary. */
	tbl_new(&x, 4096);
	t0 = 1000 * step_of(&x.t);
	tbl_set_clock(&x.t, t0 + 5);
	h0 = key_a(7);
	h1 = (h0 & ~(u64)CP_CHECK_MASK) | ((h0 + 0x55) & CP_CHECK_MASK);
	cp_table_remember(&x.t, h0, t0, 0, NULL);
	res = cp_table_remember(&x.t, h1, t0 - 1, 0, NULL);
	CHECK(res == CP_REMEMBER_EMPTY, "coarse: result %d", res);
	CHECK(cp_table_lookup(&x.t, h0, t0 + 5, &r), "coarse: entry lost");
	tbl_free(&x);
}

/* ------------------------------------------------------------------ */

/* Expected content of a one-bucket table, as a sorted list of keys. */
static bool bucket_holds(struct tbl *x, const u64 *hashes, const u64 *whens,
			 int n)
{
	u32 want[16], real[16];
	int i, nr = 0;

	for (i = 0; i < n; i++)
		want[i] = ref_ts(whens[i], x->t.shift) << CP_TS_SHIFT |
			  ref_check(hashes[i]);
	for (i = 0; i < 16; i++)
		if (x->slots[i])
			real[nr++] = x->slots[i];
	if (nr != n)
		return false;
	qsort(want, n, sizeof(u32), model_cmp_u32);
	qsort(real, n, sizeof(u32), model_cmp_u32);
	return !memcmp(want, real, n * sizeof(u32));
}

static void test_displacement_order(void)
{
	u64 h[16], w[16], k;
	struct cp_refault r;
	struct tbl x;
	int i, res;

	tbl_new(&x, 1);
	/* Fill in order: slot i holds time i. */
	for (i = 0; i < 16; i++) {
		h[i] = key_a(i);
		w[i] = cp_table_clock_advance(&x.t, 1);
		res = cp_table_remember(&x.t, h[i], w[i], 0, NULL);
		CHECK(res == CP_REMEMBER_EMPTY, "fill %d: %d", i, res);
	}
	CHECK(cp_table_count(&x.t, cp_table_clock(&x.t)) == 16, "not full");
	/* Each new entry displaces the oldest. */
	for (k = 16; k < 40; k++) {
		u64 when = cp_table_clock_advance(&x.t, 1);
		int oldest = 0;

		for (i = 1; i < 16; i++)
			if (w[i] < w[oldest])
				oldest = i;
		res = cp_table_remember(&x.t, key_a(k), when, 0, NULL);
		CHECK(res == CP_REMEMBER_DISPLACED, "insert %llu: %d",
		      (unsigned long long)k, res);
		h[oldest] = key_a(k);
		w[oldest] = when;
		CHECK(bucket_holds(&x, h, w, 16),
		      "insert %llu did not displace the oldest",
		      (unsigned long long)k);
	}
	/*
	 * Now the slot order is not the age order: empty a slot in the
	 * middle, refill it with the youngest entry, and the next insert
	 * must still take the globally oldest, wherever it sits.
	 */
	for (k = 0; k < 64; k++) {
		int victim = (int)((k * 7) % 16), oldest = 0;
		u64 when;

		CHECK(cp_table_lookup(&x.t, h[victim], cp_table_clock(&x.t),
				      &r), "lookup %d", victim);
		when = cp_table_clock_advance(&x.t, 1);
		h[victim] = key_b(2 * k);
		w[victim] = when;
		res = cp_table_remember(&x.t, h[victim], when, 0, NULL);
		CHECK(res == CP_REMEMBER_EMPTY, "refill: %d", res);
		for (i = 1; i < 16; i++)
			if (w[i] < w[oldest])
				oldest = i;
		when = cp_table_clock_advance(&x.t, 1 + (u32)(k % 3));
		res = cp_table_remember(&x.t, key_b(2 * k + 1), when,
					CP_FLAG_ACTIVE, NULL);
		CHECK(res == CP_REMEMBER_DISPLACED, "insert: %d", res);
		h[oldest] = key_b(2 * k + 1);
		w[oldest] = when;
		/* bucket_holds() ignores flags: compare without them. */
		for (i = 0; i < 16; i++)
			x.slots[i] &= ~CP_FLAG_ACTIVE;
		CHECK(bucket_holds(&x, h, w, 16),
		      "round %llu: the oldest entry was not the one replaced",
		      (unsigned long long)k);
	}
	tbl_free(&x);
}

/*
 * The word forms of the spec ("Pairs"): every 64-bit word of a bucket is
 * 0, one entry in the high half (the low half free), or two entries with
 * the older in the high half, whatever the sequence of inserts (some with
 * an eviction time a step stale, as racing CPUs give), claims and
 * expiries.  An insert into a full bucket ranks the high halves alone and
 * finds free slots by their zero low halves: a table that broke the forms
 * would displace the wrong entry.
 */
static s64 mod_age(u32 cookie, u64 now, u32 shift)
{
	s64 a = (ref_ts(now, shift) - (cookie >> CP_TS_SHIFT)) & CP_TS_MASK;

	return a >= (s64)CP_TS_RANGE - CP_TS_FUTURE ? a - (s64)CP_TS_RANGE : a;
}

static void test_pair_forms(void)
{
	uint64_t rs = tap.seed ^ 13;
	u64 i, ops = tap_scaled(200000, 40000), bad = 0, full = 0, one = 0;
	u64 nkeys, next = 0;
	struct tbl x;

	tbl_new(&x, 4);
	nkeys = 3 * x.t.capacity;
	for (i = 0; i < ops && !bad; i++) {
		u64 op = tap_rand_below(&rs, 10), k, now, j;
		const u64 *w = (const u64 *)x.slots;
		struct cp_refault r;

		if (op < 6) {
			u64 when = cp_table_clock_advance(&x.t, 1 +
				(u32)tap_rand_below(&rs, 2 * step_of(&x.t)));

			if (when && tap_rand_below(&rs, 4) == 0)
				when -= 1 + tap_rand_below(&rs, step_of(&x.t));
			k = next++ % nkeys;
			cp_table_remember(&x.t, key_a(k), when,
					  (u32)k & CP_FLAG_ACTIVE, NULL);
		} else if (op < 9) {
			k = tap_rand_below(&rs, nkeys);
			cp_table_lookup(&x.t, key_a(k), cp_table_clock(&x.t),
					&r);
		} else if (tap_rand_below(&rs, 20)) {
			cp_table_clock_advance(&x.t, (u32)tap_rand_below(&rs,
						20 * step_of(&x.t)));
		} else {
			/*
			 * Long idle: entries expire.  An insert into every
			 * bucket then clears them: none is left to wrap.
			 */
			u32 b;

			cp_table_clock_advance(&x.t, (u32)(step_of(&x.t) *
				(1000 + tap_rand_below(&rs, 300))));
			for (b = 0, k = nkeys; b < x.t.nbuckets; k++)
				if (ref_bucket(key_a(k), x.t.nbuckets) == b) {
					cp_table_remember(&x.t, key_a(k),
						cp_table_clock_advance(&x.t, 1),
						0, NULL);
					b++;
				}
		}
		now = cp_table_clock(&x.t);
		for (j = 0; j < x.t.capacity / 2; j++) {
			u32 hi = (u32)(w[j] >> 32), lo = (u32)w[j];

			if (!lo) {
				one += hi != 0;
				continue;
			}
			full++;
			if (!hi || mod_age(hi, now, x.t.shift) <
				   mod_age(lo, now, x.t.shift)) {
				bad++;
				tap_diag("op %llu word %llu: %#x:%#x, ages %lld and %lld",
					 (unsigned long long)i,
					 (unsigned long long)j, hi, lo,
					 (long long)mod_age(hi, now, x.t.shift),
					 (long long)mod_age(lo, now, x.t.shift));
				break;
			}
		}
	}
	tap_info("%llu operations: %llu full words and %llu single entries checked",
		 (unsigned long long)i, (unsigned long long)full,
		 (unsigned long long)one);
	CHECK(!bad, "a word not in its form");
	CHECK(full > ops && one > ops / 10, "forms not exercised");
	tbl_free(&x);
}

/*
 * An insert ranks the high halves only while no low half ranks before
 * its high half.  That happens when the older entry of a word is so old
 * that its timestamp wrapped (past 1791 steps, its bucket visited by no
 * insert all that time): it then reads as young, and the younger one is
 * the oldest, or expired.  One bucket, shift 0: steps are evictions.
 */
static void test_pair_wrap(void)
{
	static const u64 b_when[] = { 800, 300 };	/* B live, B expired */
	unsigned int s;

	for (s = 0; s < ARRAY_SIZE(b_when); s++) {
		struct cp_refault r;
		struct tbl x;
		u32 gone = 0;
		int i, res;

		tbl_new(&x, 1);
		/* A and B share a word: A older */
		cp_table_remember(&x.t, key_a(0), 0, 0, NULL);
		cp_table_remember(&x.t, key_a(1), b_when[s], 0, NULL);
		/* 14 entries younger than B fill the other seven words */
		for (i = 2; i < 16; i++)
			cp_table_remember(&x.t, key_a(i), 1000 + i, 0, NULL);
		CHECK(cp_table_count(&x.t, 1020) == 16, "not full");
		/* at 1800, A's timestamp wrapped: it reads as "future" */
		tbl_set_clock(&x.t, 1801);
		res = cp_table_remember(&x.t, key_b(0), 1800, 0, &gone);
		if (s == 0) {
			/* B, 1000 steps old, is the oldest live entry */
			CHECK(res == CP_REMEMBER_DISPLACED, "result %d", res);
			CHECK(!cp_table_lookup(&x.t, key_a(1), 1801, &r),
			      "the oldest live entry survived");
		} else {
			/* B, 1500 steps old, has expired */
			CHECK(res == CP_REMEMBER_EXPIRED && gone == 1,
			      "result %d, %u expired", res, gone);
			CHECK(!cp_table_lookup(&x.t, key_a(1), 1801, &r),
			      "the expired entry survived");
		}
		for (i = 2; i < 16; i++)
			CHECK(cp_table_lookup(&x.t, key_a(i), 1801, &r),
			      "case %u: live entry %d displaced", s, i);
		tbl_free(&x);
	}
}

/*
 * A CPU whose eviction time is stale stores an entry older than the one
 * its insert keeps in the chosen word: the word must still hold the older
 * entry in its high half, or a later insert would rank the wrong one.
 * One full bucket, shift 0.
 */
static void test_pair_stale_insert(void)
{
	const u64 *w;
	struct cp_refault r;
	struct tbl x;
	int i, bad = 0;

	tbl_new(&x, 1);
	w = (const u64 *)x.slots;
	for (i = 0; i < 16; i++)
		cp_table_remember(&x.t, key_a(i), 100 + i, 0, NULL);
	tbl_set_clock(&x.t, 120);
	/* the entry of 100 goes; the new one, of 90, is older than its mate */
	CHECK(cp_table_remember(&x.t, key_b(0), 90, 0, NULL) ==
	      CP_REMEMBER_DISPLACED, "not displaced");
	for (i = 0; i < 8; i++) {
		u32 hi = (u32)(w[i] >> 32), lo = (u32)w[i];

		if (!hi || !lo || mod_age(hi, 120, 0) < mod_age(lo, 120, 0)) {
			tap_diag("word %d: %#x:%#x", i, hi, lo);
			bad++;
		}
	}
	CHECK(!bad, "%d words not in their form", bad);
	/* the next insert displaces it, the oldest */
	CHECK(cp_table_remember(&x.t, key_b(1), 121, 0, NULL) ==
	      CP_REMEMBER_DISPLACED, "not displaced");
	CHECK(!cp_table_lookup(&x.t, key_b(0), 121, &r),
	      "the oldest entry survived");
	for (i = 1; i < 16; i++)
		CHECK(cp_table_lookup(&x.t, key_a(i), 121, &r),
		      "live entry %d displaced", i);
	tbl_free(&x);
}

/* ------------------------------------------------------------------ */

/*
 * Random operation sequences against the reference model.  @strict picks
 * the spec's liveness; @stale lets remembers use an eviction time up to two
 * steps old, as racing CPUs do.
 */
static void run_model(bool strict, bool stale, u64 ops_total)
{
	static const u32 nbs[] = { 1, 2, 7, 32, 33, 64 };
	static const u64 starts[] = {
		0, 0xfffffffffffff000ULL, 0x7ffffffffffff800ULL, 123456789,
	};
	uint64_t rs = tap.seed ^ (strict ? 5 : 4) ^ (stale ? 16 : 0);
	struct model_stats tot = { 0 };
	unsigned int n, s;

	for (n = 0; n < ARRAY_SIZE(nbs); n++) {
		for (s = 0; s < ARRAY_SIZE(starts); s++) {
			u64 ops = ops_total / (ARRAY_SIZE(nbs) *
					       ARRAY_SIZE(starts));
			u64 i, nkeys = 24 * nbs[n] + 8, next = 0;
			struct model m;
			struct tbl x;

			tbl_new(&x, nbs[n]);
			tbl_set_clock(&x.t, starts[s]);
			if (model_init(&m, &x.t, strict))
				exit(2);
			for (i = 0; i < ops && !m.err[0]; i++) {
				u64 op = tap_rand_below(&rs, 100), k, when;
				u64 step = step_of(&x.t);

				if (op < 45) {
					k = next++ % nkeys;
					when = cp_table_clock_advance(&x.t,
						(u32)tap_rand_below(&rs,
							2 * step + 1));
					if (stale &&
					    tap_rand_below(&rs, 4) == 0)
						when -= tap_rand_below(&rs,
							2 * step + 1);
					model_remember(&m, k, key_a(k), when,
						tap_rand_below(&rs, 2) ?
						CP_FLAG_ACTIVE : 0);
				} else if (op < 85) {
					k = tap_rand_below(&rs, nkeys);
					model_lookup(&m, k, key_a(k));
				} else if (op < 90) {
					k = tap_rand_next(&rs);
					model_lookup(&m, ~0ULL, key_b(k));
				} else if (op < 97) {
					cp_table_clock_advance(&x.t,
						(u32)tap_rand_below(&rs,
							64 * step));
				} else if (op < 99) {
					cp_table_clock_advance(&x.t,
						(u32)tap_rand_below(&rs,
							3000 * step));
				} else {
					model_count(&m);
				}
			}
			CHECK(!m.err[0], "nb %u start %#llx op %llu: %s",
			      nbs[n], (unsigned long long)starts[s],
			      (unsigned long long)i, m.err);
			tot.remembers += m.st.remembers;
			tot.empty += m.st.empty;
			tot.expired += m.st.expired;
			tot.displaced += m.st.displaced;
			tot.cleared += m.st.cleared;
			tot.lookups += m.st.lookups;
			tot.hits += m.st.hits;
			tot.collisions += m.st.collisions;
			tot.aliased_hits += m.st.aliased_hits;
			model_free(&m);
			tbl_free(&x);
		}
	}
	tap_info("%s model: %llu remembers (%llu empty, %llu expired, %llu displaced, %llu more expired cleared), %llu lookups, %llu hits (%llu collisions, %llu past max_age)",
		 strict ? "strict" : "modular",
		 (unsigned long long)tot.remembers,
		 (unsigned long long)tot.empty,
		 (unsigned long long)tot.expired,
		 (unsigned long long)tot.displaced,
		 (unsigned long long)tot.cleared,
		 (unsigned long long)tot.lookups, (unsigned long long)tot.hits,
		 (unsigned long long)tot.collisions,
		 (unsigned long long)tot.aliased_hits);
	CHECK(tot.empty && tot.expired && tot.displaced && tot.hits,
	      "the sequences did not exercise every path");
}

static void test_model_modular(void)
{
	run_model(false, true, tap_scaled(400000, 100000));
}

static void test_model_strict_wrap(void)
{
	run_model(true, false, tap_scaled(400000, 100000));
}

static void test_model_strict_stale(void)
{
	run_model(true, true, tap_scaled(400000, 100000));
}

/* ------------------------------------------------------------------ */

/*
 * False positives: a lookup of a key never inserted, in a table whose
 * buckets are full, matches one of 16 live 20-bit check values with
 * probability 16 / 2^20.  Measured on full and half-full tables.
 */
static void test_false_positives(void)
{
	static const u64 fills[] = { 8, 0 };	/* x capacity; 0 = half */
	unsigned int f;

	for (f = 0; f < ARRAY_SIZE(fills); f++) {
		u64 i, lookups = tap_scaled(4000000, 4000000), hits = 0;
		u64 n, live;
		struct tbl x;
		double theory, got;

		tbl_new(&x, 4096);
		n = fills[f] ? fills[f] * x.t.capacity : x.t.capacity / 2;
		for (i = 0; i < n; i++)
			cp_table_remember(&x.t, key_a(i),
					  cp_table_clock_advance(&x.t, 1), 0, NULL);
		live = cp_table_count(&x.t, cp_table_clock(&x.t));
		if (fills[f])
			CHECK(live == x.t.capacity, "not full: %llu",
			      (unsigned long long)live);
		for (i = 0; i < lookups; i++) {
			struct cp_refault r;

			hits += cp_table_lookup(&x.t,
						cp_key_hash(MAPPING_B, 9, 1,
							    i),
						cp_table_clock(&x.t), &r);
		}
		/* Live cookies per bucket / 2^20 per lookup. */
		theory = (double)live / x.t.nbuckets / (1 << CP_CHECK_BITS);
		got = (double)hits / (double)lookups;
		tap_info("false positives, %s table (%.1f live per bucket): %llu in %llu lookups = %.3g, theory %.3g (ratio %.2f)",
			 fills[f] ? "full" : "half-full",
			 (double)live / x.t.nbuckets,
			 (unsigned long long)hits,
			 (unsigned long long)lookups, got, theory,
			 got / theory);
		CHECK(got >= theory / 2 && got <= theory * 2,
		      "rate %.3g vs theory %.3g", got, theory);
		tbl_free(&x);
	}
}

/* ------------------------------------------------------------------ */

/*
 * The 64-bit clock wrapping to zero (and the signed atomic64 crossing
 * 2^63), and the 11-bit timestamp wrapping many times: distances stay
 * within a step of the truth, live entries are found.
 */
static void test_clock_wrap(void)
{
	static const u64 starts[] = {
		~0ULL, ~0ULL - 999, ~0ULL - 3 * 65536, 0x7fffffffffffff00ULL,
	};
	static const u32 nbs[] = { 1, 4096 };
	uint64_t rs = tap.seed ^ 6;
	unsigned int s, n;

	for (n = 0; n < ARRAY_SIZE(nbs); n++) {
		for (s = 0; s < ARRAY_SIZE(starts); s++) {
			struct tbl x;
			u64 step, span, start = starts[s], moved = 0, i = 0;
			u64 bad = 0, missed = 0, wraps;

			tbl_new(&x, nbs[n]);
			step = step_of(&x.t);
			span = 50ULL * CP_TS_RANGE * step;	/* 50 wraps */
			tbl_set_clock(&x.t, start);
			while (moved < span) {
				u64 d = 1 + tap_rand_below(&rs,
							   x.t.max_age - step);
				u64 when, now, h = key_a(i++);
				struct cp_refault r;

				when = probe_evict(&x.t, &rs, h);
				cp_table_clock_advance(&x.t, (u32)(d - 1));
				now = cp_table_clock(&x.t);
				moved = now - start;
				if (!cp_table_lookup(&x.t, h, now, &r)) {
					missed++;
					continue;
				}
				if (r.distance + step <= now - when ||
				    r.distance >= now - when + step)
					bad++;
			}
			wraps = moved / ((u64)CP_TS_RANGE * step);
			CHECK(missed == 0 && bad == 0,
			      "nb %u start %#llx: %llu missed, %llu wrong of %llu",
			      nbs[n], (unsigned long long)start,
			      (unsigned long long)missed,
			      (unsigned long long)bad, (unsigned long long)i);
			CHECK(wraps >= 50, "only %llu wraps",
			      (unsigned long long)wraps);
			if (start > ~0ULL - span)
				CHECK(cp_table_clock(&x.t) < start,
				      "clock did not wrap");
			tap_verbose("nb %u start %#llx: %llu probes over %llu timestamp wraps",
				    nbs[n], (unsigned long long)start,
				    (unsigned long long)i,
				    (unsigned long long)wraps);
			tbl_free(&x);
		}
	}
}

/* ------------------------------------------------------------------ */

static void test_small_tables(void)
{
	static const u32 nbs[] = { 1, 2, 3 };
	unsigned int n;

	for (n = 0; n < ARRAY_SIZE(nbs); n++) {
		struct tbl x;
		u64 i, cap, *when, found = 0, exact = 0, res[4] = { 0 };
		struct cp_refault r;

		tbl_new(&x, nbs[n]);
		cap = x.t.capacity;
		CHECK(cap == 16ULL * nbs[n] && x.t.shift == 0 &&
		      x.t.max_age == 1024, "nb %u: cap %llu shift %u age %llu",
		      nbs[n], (unsigned long long)cap, x.t.shift,
		      (unsigned long long)x.t.max_age);
		when = calloc(4 * cap, sizeof(*when));
		for (i = 0; i < 4 * cap; i++) {
			when[i] = cp_table_clock_advance(&x.t, 1);
			res[cp_table_remember(&x.t, key_a(i), when[i], 0, NULL)]++;
		}
		/* Every bucket full: count == capacity, 3 caps displaced. */
		CHECK(cp_table_count(&x.t, cp_table_clock(&x.t)) == cap,
		      "nb %u: count %llu", nbs[n],
		      (unsigned long long)cp_table_count(&x.t,
							 cp_table_clock(&x.t)));
		CHECK(res[CP_REMEMBER_EMPTY] == cap &&
		      res[CP_REMEMBER_DISPLACED] == 3 * cap,
		      "nb %u: %llu empty %llu displaced", nbs[n],
		      (unsigned long long)res[0], (unsigned long long)res[2]);
		for (i = 0; i < 4 * cap; i++) {
			u64 now = cp_table_clock(&x.t);

			if (!cp_table_lookup(&x.t, key_a(i), now, &r))
				continue;
			found++;
			exact += r.distance == now - when[i];
		}
		/* Shift 0: exact distances.  Survivors are all recent. */
		CHECK(found == cap && exact == found,
		      "nb %u: found %llu (exact %llu) of %llu", nbs[n],
		      (unsigned long long)found, (unsigned long long)exact,
		      (unsigned long long)cap);
		free(when);
		tbl_free(&x);
	}
}

/* ------------------------------------------------------------------ */

struct conc_ctx {
	struct cp_table *t;
	int id, nthreads;
	u64 nkeys;		/* per thread (phase A) or shared (phase C) */
	u64 *when;		/* phase A: eviction time per key */
	u32 *hits;		/* per key, atomic */
	u64 res[4];
	u64 gone;		/* expired entries cleared (@expired) */
	u64 lookups, found, bad_dist, rounds;
	u64 *stored, *lhits;	/* phase C: per key, atomic */
	u32 *state;		/* phase C: per key, atomic */
	u64 *cursor;		/* phase C: shared, atomic */
	uint64_t rs;
};

static u64 conc_key(int thread, u64 i)
{
	return cp_key_hash(MAPPING_A + 0x1000 * (unsigned long)thread, 77,
			   0, i);
}

static void *conc_insert(void *arg)
{
	struct conc_ctx *c = arg;
	u64 i;

	for (i = 0; i < c->nkeys; i++) {
		u64 k = c->id * c->nkeys + i;

		c->when[k] = cp_table_clock_advance(c->t, 1 + (u32)(i % 3));
		c->res[cp_table_remember(c->t, conc_key(c->id, i), c->when[k],
					 0, NULL)]++;
	}
	return NULL;
}

/* Every thread looks up every key, in its own order: overlapping claims. */
static void *conc_lookup_all(void *arg)
{
	struct conc_ctx *c = arg;
	u64 total = c->nkeys * c->nthreads, j;
	u64 now = cp_table_clock(c->t);

	for (j = 0; j < total; j++) {
		u64 k = (j * 2654435761ULL + (u64)c->id * total / 4) % total;
		int th = (int)(k / c->nkeys);
		struct cp_refault r;

		c->lookups++;
		if (!cp_table_lookup(c->t, conc_key(th, k % c->nkeys), now,
				     &r))
			continue;
		c->found++;
		__atomic_add_fetch(&c->hits[k], 1, __ATOMIC_RELAXED);
		if (r.distance + step_of(c->t) <= now - c->when[k] ||
		    r.distance >= now - c->when[k] + step_of(c->t))
			c->bad_dist++;
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), struct conc_ctx *ctx, int n)
{
	pthread_t th[8];
	int i;

	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, &ctx[i]))
			exit(2);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/*
 * Phase A: 4 threads insert disjoint keys into a sparse table; then all 4
 * look up all keys at once.  Every stored entry is found exactly once,
 * with the right distance, and the table ends empty.
 */
static void test_concurrent_claims(void)
{
	enum { NT = 4 };
	struct conc_ctx ctx[NT];
	u64 nkeys = tap_scaled(20000, 5000), total = nkeys * NT, k;
	u64 stored = 0, found = 0, twice = 0, lost = 0, bad = 0, stale = 0;
	u64 *when = calloc(total, sizeof(u64));
	u32 *hits = calloc(total, sizeof(u32));
	struct tbl x;
	int i;

	tbl_new(&x, 65536);
	for (i = 0; i < NT; i++) {
		ctx[i] = (struct conc_ctx){
			.t = &x.t, .id = i, .nthreads = NT, .nkeys = nkeys,
			.when = when, .hits = hits,
		};
	}
	run_threads(conc_insert, ctx, NT);
	for (i = 0; i < NT; i++) {
		/*
		 * Nothing can expire or be displaced here; an EXPIRED result
		 * is the known stale-@when bug (concurrent_clock_race) and
		 * cost one live entry: tolerated, counted, reported.
		 */
		stored += ctx[i].res[CP_REMEMBER_EMPTY] +
			  ctx[i].res[CP_REMEMBER_EXPIRED];
		stale += ctx[i].res[CP_REMEMBER_EXPIRED];
		CHECK(ctx[i].res[CP_REMEMBER_DISPLACED] == 0,
		      "thread %d: %llu displaced in a sparse table", i,
		      (unsigned long long)ctx[i].res[2]);
		tap_verbose("thread %d: raced %llu", i,
			    (unsigned long long)ctx[i].res[3]);
	}
	CHECK(cp_table_count(&x.t, cp_table_clock(&x.t)) == stored - stale,
	      "count %llu, stored %llu - %llu",
	      (unsigned long long)cp_table_count(&x.t, cp_table_clock(&x.t)),
	      (unsigned long long)stored, (unsigned long long)stale);
	run_threads(conc_lookup_all, ctx, NT);
	for (i = 0; i < NT; i++) {
		found += ctx[i].found;
		bad += ctx[i].bad_dist;
	}
	for (k = 0; k < total; k++) {
		twice += hits[k] > 1;
		lost += hits[k] == 0;
	}
	tap_info("4 threads: %llu stored, %llu found by %llu concurrent lookups; %llu twice, %llu lost (%llu to the stale-when bug)",
		 (unsigned long long)stored, (unsigned long long)found,
		 (unsigned long long)(total * NT), (unsigned long long)twice,
		 (unsigned long long)lost, (unsigned long long)stale);
	CHECK(twice == 0, "%llu entries consumed twice",
	      (unsigned long long)twice);
	CHECK(found == stored - stale && stored >= total - total / 1000,
	      "found %llu of %llu stored (%llu inserted, %llu stale-when)",
	      (unsigned long long)found, (unsigned long long)stored,
	      (unsigned long long)total, (unsigned long long)stale);
	CHECK(lost == total - found, "lost %llu, found %llu of %llu",
	      (unsigned long long)lost, (unsigned long long)found,
	      (unsigned long long)total);
	CHECK(bad == 0, "%llu wrong distances", (unsigned long long)bad);
	CHECK(raw_occupied(&x.t) == 0, "table not empty at the end");
	free(when);
	free(hits);
	tbl_free(&x);
}

/*
 * Phase B: the eviction clock races.  4 threads evict into a small table
 * with a fine clock (shift 0, so every eviction is a step).  A round moves
 * the clock by 240 < max_age = 1024: nothing can expire, so an EXPIRED
 * result means a live entry was taken for an expired one.  Conservation:
 * stored - displaced == entries left.
 */
static void *conc_evict_round(void *arg)
{
	struct conc_ctx *c = arg;
	u64 i;

	for (i = 0; i < 60; i++) {
		u64 when = cp_table_clock_advance(c->t, 1);

		u32 gone;

		c->res[cp_table_remember(c->t,
					 conc_key(c->id, c->rounds * 64 + i),
					 when, 0, &gone)]++;
		c->gone += gone;
	}
	return NULL;
}

static void test_concurrent_clock_race(void)
{
	enum { NT = 4 };
	struct conc_ctx ctx[NT];
	u64 rounds = tap_scaled(3000, 500), r, expired = 0, leak = 0;
	u64 stored_all = 0, displaced_all = 0;
	struct tbl x;
	int i;

	if (RUNNING_ON_VALGRIND)
		TAP_SKIP("valgrind serialises the threads: no race to see");
	tbl_new(&x, 8);
	memset(ctx, 0, sizeof(ctx));
	for (r = 0; r < rounds; r++) {
		u64 stored = 0, displaced = 0, left;

		memset(x.slots, 0, cp_table_bytes(8));
		tbl_set_clock(&x.t, r * 4096);
		for (i = 0; i < NT; i++) {
			memset(ctx[i].res, 0, sizeof(ctx[i].res));
			ctx[i].gone = 0;
			ctx[i].t = &x.t;
			ctx[i].id = i;
			ctx[i].rounds = r;
		}
		run_threads(conc_evict_round, ctx, NT);
		for (i = 0; i < NT; i++) {
			stored += ctx[i].res[0] + ctx[i].res[1] +
				  ctx[i].res[2];
			displaced += ctx[i].gone +
				     ctx[i].res[CP_REMEMBER_DISPLACED];
			expired += ctx[i].gone;
		}
		left = raw_occupied(&x.t);
		leak += stored - displaced != left;
		stored_all += stored;
		displaced_all += displaced;
	}
	tap_info("%llu racing rounds: %llu stored, %llu replaced, %llu of them as EXPIRED (must be 0), %llu rounds unbalanced",
		 (unsigned long long)rounds, (unsigned long long)stored_all,
		 (unsigned long long)displaced_all,
		 (unsigned long long)expired, (unsigned long long)leak);
	CHECK(leak == 0, "%llu rounds lost or duplicated entries",
	      (unsigned long long)leak);
	CHECK(expired == 0, "%llu live entries replaced as expired",
	      (unsigned long long)expired);
	tbl_free(&x);
}

/*
 * Phase C: a refault/evict storm on a shared key space.  The threads walk
 * the keys with a shared cursor: a key out of the table is evicted
 * (remembered), a key in it refaults (is looked up), by whichever thread
 * draws it; one operation in eight is instead a stray lookup of a random
 * key, racing with the owner's.  A key is back in turn after one pass of
 * the cursor, about 2048 evictions, far below max_age (8192): nothing
 * expires, so every stored entry is accounted for exactly: consumed,
 * replaced (DISPLACED, or EXPIRED), or still in the table at the end.
 * No entry may be consumed more often than it was stored.
 */
static void *conc_storm(void *arg)
{
	struct conc_ctx *c = arg;
	u64 i, ops = c->rounds;

	for (i = 0; i < ops; i++) {
		u64 k = __atomic_fetch_add(c->cursor, 1, __ATOMIC_RELAXED) %
			c->nkeys;
		u64 h;
		struct cp_refault r;
		u32 st = 0;

		if (tap_rand_below(&c->rs, 8) == 0) {
			/* A stray lookup: races with the owner. */
			k = tap_rand_below(&c->rs, c->nkeys);
			if (__atomic_load_n(&c->state[k], __ATOMIC_RELAXED) ==
			    0xdead)
				continue;
			h = conc_key(0, k);
			c->lookups++;
			if (cp_table_lookup(c->t, h, cp_table_clock(c->t), &r))
				__atomic_add_fetch(&c->lhits[k], 1,
						   __ATOMIC_RELAXED);
			continue;
		}
		if (__atomic_load_n(&c->state[k], __ATOMIC_RELAXED) == 0xdead)
			continue;
		h = conc_key(0, k);
		if (__atomic_compare_exchange_n(&c->state[k], &st, 2, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			u64 when = cp_table_clock_advance(c->t, 1);
			int res = cp_table_remember(c->t, h, when, 0, NULL);

			c->res[res]++;
			if (res != CP_REMEMBER_RACED)
				__atomic_add_fetch(&c->stored[k], 1,
						   __ATOMIC_RELAXED);
			__atomic_store_n(&c->state[k], 1, __ATOMIC_RELEASE);
			continue;
		}
		st = 1;
		if (__atomic_compare_exchange_n(&c->state[k], &st, 3, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			c->lookups++;
			if (cp_table_lookup(c->t, h, cp_table_clock(c->t),
					    &r)) {
				__atomic_add_fetch(&c->lhits[k], 1,
						   __ATOMIC_RELAXED);
				if (r.distance > c->t->max_age)
					c->bad_dist++;
			}
			__atomic_store_n(&c->state[k], 0, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

static void test_concurrent_storm(void)
{
	enum { NT = 4 };
	struct conc_ctx ctx[NT];
	u64 nkeys = 4096, k, stored = 0, hits = 0, replaced = 0, over = 0;
	u64 *st = calloc(nkeys, sizeof(u64)), *lh = calloc(nkeys, sizeof(u64));
	u32 *state = calloc(nkeys, sizeof(u32));
	u64 bad = 0, raced = 0, left, cursor = 0;
	struct tbl x;
	int i;

	/*
	 * 128 buckets, 2048 entries for about 2048 keys out at a time:
	 * displacement is common.  Keys whose (bucket, check) collide would
	 * make a lookup consume another key's entry: rule them out (the
	 * keys are fixed).
	 */
	tbl_new(&x, 128);
	for (k = 0; k < nkeys; k++)
		st[k] = (u64)ref_bucket(conc_key(0, k), 128) << 32 |
			ref_check(conc_key(0, k));
	for (k = 0; k < nkeys; k++) {
		u64 j;

		for (j = 0; j < k; j++)
			if (st[j] == st[k])
				state[k] = state[j] = 0xdead; /* unused */
	}
	memset(st, 0, nkeys * sizeof(u64));
	for (i = 0; i < NT; i++)
		ctx[i] = (struct conc_ctx){
			.t = &x.t, .id = i, .nkeys = nkeys,
			.rounds = tap_scaled(300000, 50000),
			.stored = st, .lhits = lh, .state = state,
			.cursor = &cursor, .rs = tap.seed + (u64)i * 7919,
		};
	run_threads(conc_storm, ctx, NT);
	for (i = 0; i < NT; i++) {
		replaced += ctx[i].res[CP_REMEMBER_EXPIRED] +
			    ctx[i].res[CP_REMEMBER_DISPLACED];
		raced += ctx[i].res[CP_REMEMBER_RACED];
		bad += ctx[i].bad_dist;
	}
	for (k = 0; k < nkeys; k++) {
		stored += st[k];
		hits += lh[k];
		over += lh[k] > st[k];
	}
	left = raw_occupied(&x.t);
	tap_info("storm: %llu stored, %llu consumed, %llu replaced, %llu left, %llu raced",
		 (unsigned long long)stored, (unsigned long long)hits,
		 (unsigned long long)replaced, (unsigned long long)left,
		 (unsigned long long)raced);
	CHECK(over == 0, "%llu keys consumed more often than stored",
	      (unsigned long long)over);
	/*
	 * Exact accounting (stored == consumed + replaced + left) fails
	 * today only through known bugs: a remember whose @when is a step
	 * behind takes younger entries for expired and clears them
	 * unreported (remember_stale_when, expiry_reported_once,
	 * concurrent_clock_race).  Here: nothing appears from nowhere, and
	 * the unaccounted entries stay a small fraction.
	 */
	CHECK(stored >= hits + replaced + left,
	      "stored %llu < consumed %llu + replaced %llu + left %llu",
	      (unsigned long long)stored, (unsigned long long)hits,
	      (unsigned long long)replaced, (unsigned long long)left);
	tap_info("storm: %lld entries unaccounted for (known stale-when bug)",
		 (long long)(stored - hits - replaced - left));
	CHECK(stored - hits - replaced - left <= stored / 100,
	      "%llu entries lost", (unsigned long long)(stored - hits -
							replaced - left));
	CHECK(hits > stored / 4 && replaced > stored / 20,
	      "the storm did not exercise hits and displacement");
	CHECK(bad == 0, "%llu distances beyond max_age",
	      (unsigned long long)bad);
	free(st);
	free(lh);
	free(state);
	tbl_free(&x);
}

/*
 * Phase D: the same slots at the same moment.  Per round, 4 threads start
 * together (barrier) and insert 16 keys each into an 8-bucket table, the
 * keys chosen so that each bucket receives exactly 8, all stamped with the
 * same time: every thread fights for the same empty slots, and nothing
 * may be displaced or lost.  Then all 4 look up all 64 keys in the same
 * order at once: every entry is claimed by exactly one of them.
 */
struct same_ctx {
	struct cp_table *t;
	pthread_barrier_t *go;
	const u64 *keys;	/* 64 */
	u32 *hits;		/* 64, atomic */
	int id;
	u64 when;
	u64 res[4];
	u64 found;
};

static void *same_insert(void *arg)
{
	struct same_ctx *c = arg;
	int i;

	pthread_barrier_wait(c->go);
	for (i = 0; i < 16; i++)
		c->res[cp_table_remember(c->t, c->keys[c->id * 16 + i],
					 c->when, 0, NULL)]++;
	return NULL;
}

static void *same_lookup(void *arg)
{
	struct same_ctx *c = arg;
	struct cp_refault r;
	int i;

	pthread_barrier_wait(c->go);
	for (i = 0; i < 64; i++) {
		if (!cp_table_lookup(c->t, c->keys[i], c->when, &r))
			continue;
		c->found++;
		__atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * @full: each bucket first holds 16 entries older than the new keys, so
 * that every insert displaces one of them (the full-bucket path) and none
 * of the new keys may be lost.
 */
static void run_same_slots(bool full)
{
	enum { NT = 4, NB = 8 };
	u64 rounds = tap_scaled(4000, 1000), r, keys[64], old[16 * NB], k = 0;
	u64 stored_all = 0, lost = 0, displaced = 0, twice = 0, missed = 0;
	int per_bucket[NB] = { 0 }, n = 0, i;
	pthread_barrier_t go;
	struct same_ctx ctx[NT];
	pthread_t th[NT];
	u32 hits[64];
	struct tbl x;

	/* 8 keys per bucket; thread i gets 2 of each bucket's 8. */
	while (n < 64) {
		u64 h = conc_key(9, k++);
		u32 b = ref_bucket(h, NB);

		if (per_bucket[b] == 8)
			continue;
		keys[(per_bucket[b] / 2) * 16 + b * 2 + per_bucket[b] % 2] = h;
		per_bucket[b]++;
		n++;
	}
	/* and 16 older ones per bucket */
	for (n = 0, k = 0; n < 16 * NB; k++) {
		u64 h = conc_key(10, k);
		u32 b = ref_bucket(h, NB);

		if (per_bucket[b] < 8 + 16) {
			old[n++] = h;
			per_bucket[b]++;
		}
	}
	tbl_new(&x, NB);
	pthread_barrier_init(&go, NULL, NT);
	for (r = 0; r < rounds; r++) {
		u64 stored = 0, left, when = r * 64 + (full ? 32 : 0);

		memset(x.slots, 0, cp_table_bytes(NB));
		memset(hits, 0, sizeof(hits));
		for (i = 0; full && i < 16 * NB; i++)
			cp_table_remember(&x.t, old[i], r * 64, 0, NULL);
		tbl_set_clock(&x.t, when);
		for (i = 0; i < NT; i++)
			ctx[i] = (struct same_ctx){
				.t = &x.t, .go = &go, .keys = keys,
				.hits = hits, .id = i, .when = when,
			};
		for (i = 0; i < NT; i++)
			pthread_create(&th[i], NULL, same_insert, &ctx[i]);
		for (i = 0; i < NT; i++) {
			pthread_join(th[i], NULL);
			stored += ctx[i].res[full ? CP_REMEMBER_DISPLACED :
						    CP_REMEMBER_EMPTY];
			displaced += ctx[i].res[CP_REMEMBER_EXPIRED] +
				     ctx[i].res[full ? CP_REMEMBER_EMPTY :
						       CP_REMEMBER_DISPLACED];
		}
		left = raw_occupied(&x.t) - (full ? 16 * NB - stored : 0);
		lost += stored - left;
		stored_all += stored;
		for (i = 0; i < NT; i++)
			pthread_create(&th[i], NULL, same_lookup, &ctx[i]);
		for (i = 0; i < NT; i++)
			pthread_join(th[i], NULL);
		for (i = 0; i < 64; i++) {
			twice += hits[i] > 1;
			missed += hits[i] == 0;
		}
		missed -= 64 - stored;	/* not stored: cannot be found */
	}
	pthread_barrier_destroy(&go);
	tap_info("%llu rounds of 4 threads on the same 8 %s buckets: %llu stored, %llu lost, %llu stored otherwise, %llu claimed twice, %llu not found",
		 (unsigned long long)rounds, full ? "full" : "empty",
		 (unsigned long long)stored_all, (unsigned long long)lost,
		 (unsigned long long)displaced, (unsigned long long)twice,
		 (unsigned long long)missed);
	CHECK(lost == 0 && displaced == 0,
	      "%llu entries lost, %llu stored otherwise",
	      (unsigned long long)lost, (unsigned long long)displaced);
	CHECK(twice == 0, "%llu entries claimed by two lookups",
	      (unsigned long long)twice);
	CHECK(missed == 0, "%llu stored entries not found",
	      (unsigned long long)missed);
	CHECK(stored_all >= rounds * 64 - rounds * 64 / 100,
	      "only %llu of %llu stored (RACED)",
	      (unsigned long long)stored_all,
	      (unsigned long long)(rounds * 64));
	tbl_free(&x);
}

static void test_concurrent_same_slots(void)
{
	run_same_slots(false);
}

static void test_concurrent_full_buckets(void)
{
	run_same_slots(true);
}

/*
 * Phase E: two lookups of the same entry in lockstep.  Phase D's threads
 * drift apart after their first few lookups, so a lookup that clears its
 * entry with a plain store instead of cmpxchg is caught there only by
 * luck.  Here two threads meet at a spinning barrier before every lookup
 * of a page remembered twice, and start it after a short random delay, so
 * that their relative offset sweeps across the lookup's read-to-claim
 * window (such a mutant is caught in one round in 15 on a 2-CPU EPYC):
 * every round, each lookup claims one of the two entries; the one that
 * loses the race for the younger must rescan and take the older.  Bounded
 * by a round count and by 2 s of wall time.
 */
struct lockstep {
	struct cp_table *t;
	u64 arrived;		/* spin barrier counter, atomic */
	u64 rounds, done, twice, unbalanced, deadline_ns;
	u64 key, when;
	u32 hits;		/* this round's hits, atomic */
	int stop;		/* atomic */
	bool remember;		/* both insert into a full bucket instead */
	u64 lost;		/* remember: new entries not found */
};

/* Set up a round of two remembers: a full bucket of older entries. */
static void lockstep_fill(struct lockstep *s)
{
	struct cp_refault r;
	int i;

	if (s->done)	/* the last round: both new entries are there */
		for (i = 0; i < 2; i++)
			s->lost += !cp_table_lookup(s->t, s->key + (u64)i,
						    s->when, &r);
	memset(s->t->slots, 0, cp_table_bytes(1));
	for (i = 0; i < 16; i++)
		cp_table_remember(s->t, conc_key(6, (u64)i),
				  s->when - 100 + (u64)i, 0, NULL);
}

struct lockstep_thread {
	struct lockstep *s;
	uint64_t rs;
	int id;
};

static u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Barrier number @n (1, 2, ...) of two threads. */
static void spin_barrier(u64 *arrived, u64 n)
{
	u32 spins = 0;

	__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < 2 * n)
		if (++spins % 4096 == 0)
			sched_yield();	/* the other thread is not running */
		else
			cpu_relax();
}

static void *lockstep_run(void *arg)
{
	struct lockstep_thread *c = arg;
	struct lockstep *s = c->s;
	u64 n = 0;

	for (;;) {
		struct cp_refault res;
		u32 d;

		if (c->id == 0) {
			/* account for the last round, set up the next */
			if (s->done == s->rounds ||
			    (!(s->done & 1023) && mono_ns() > s->deadline_ns))
				__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
		}
		if (c->id == 0 && s->remember) {
			lockstep_fill(s);
		} else if (c->id == 0) {
			if (s->done) {
				u64 left = raw_occupied(s->t);

				s->twice += s->hits + left > 2;
				s->unbalanced += s->hits != 2;
			}
			memset(s->t->slots, 0, cp_table_bytes(1));
			s->hits = 0;
			/* two entries of the page: one for each lookup */
			if (cp_table_remember(s->t, s->key, s->when - 2, 0,
					      NULL) != CP_REMEMBER_EMPTY ||
			    cp_table_remember(s->t, s->key, s->when - 1, 0,
					      NULL) != CP_REMEMBER_EMPTY)
				s->unbalanced++;
		}
		spin_barrier(&s->arrived, ++n);
		if (__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
			break;
		/* 0-3 pauses, or 0-31 every other round (pauses vary) */
		for (d = (u32)tap_rand_below(&c->rs, n & 2 ? 4 : 32); d; d--)
			cpu_relax();
		if (s->remember)
			cp_table_remember(s->t, s->key + (u64)c->id, s->when,
					  0, NULL);
		else if (cp_table_lookup(s->t, s->key, s->when, &res))
			__atomic_add_fetch(&s->hits, 1, __ATOMIC_RELAXED);
		spin_barrier(&s->arrived, ++n);
		if (c->id == 0)
			s->done++;
	}
	return NULL;
}

static void run_lockstep(bool remember)
{
	struct lockstep_thread c[2];
	struct lockstep s = { .remember = remember };
	pthread_t th[2];
	struct tbl x;
	int i;

	if (RUNNING_ON_VALGRIND)
		TAP_SKIP("valgrind serialises the threads: no race to see");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		TAP_SKIP("one CPU: the two lookups cannot overlap");
	tbl_new(&x, 1);
	tbl_set_clock(&x.t, 1000);
	s.t = &x.t;
	s.rounds = tap_scaled(100000, 50000);
	s.key = conc_key(5, 1);
	s.when = 1000;
	s.deadline_ns = mono_ns() + 2000000000ULL;
	for (i = 0; i < 2; i++) {
		c[i] = (struct lockstep_thread){
			.s = &s, .rs = tap.seed + 1 + (u64)i * 7919, .id = i,
		};
		if (pthread_create(&th[i], NULL, lockstep_run, &c[i]))
			exit(2);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (remember) {
		tap_info("%llu lockstep rounds of two remembers into a full bucket: %llu new entries lost",
			 (unsigned long long)s.done,
			 (unsigned long long)s.lost);
		CHECK(s.lost == 0, "%llu new entries lost",
		      (unsigned long long)s.lost);
	} else {
		tap_info("%llu lockstep rounds of two lookups of a page remembered twice: %llu entries claimed twice, %llu rounds without two hits",
			 (unsigned long long)s.done,
			 (unsigned long long)s.twice,
			 (unsigned long long)s.unbalanced);
		CHECK(s.twice == 0, "%llu entries claimed by both lookups",
		      (unsigned long long)s.twice);
		CHECK(s.unbalanced == 0, "%llu rounds without two hits",
		      (unsigned long long)s.unbalanced);
	}
	CHECK(s.done >= 1000, "only %llu rounds in the time allowed",
	      (unsigned long long)s.done);
	tbl_free(&x);
}

static void test_concurrent_claim_lockstep(void)
{
	run_lockstep(false);
}

/*
 * The same for two inserts into one full bucket: both take its oldest
 * word; the one that loses the race must rank again and take the next.
 */
static void test_concurrent_remember_lockstep(void)
{
	run_lockstep(true);
}

/* ------------------------------------------------------------------ */

struct occupancy {
	double chi2, z;
	u32 maxload;
	u64 same_check_pairs;
	double expect_pairs;
};

/* Buckets of @nb for @n keys from @keyfn. */
static struct occupancy occupancy(u32 nb, u64 n, u64 (*keyfn)(u64))
{
	u32 *cnt = calloc(nb, sizeof(u32));
	u64 *h = malloc(n * sizeof(u64));
	struct occupancy o = { 0 };
	double mean = (double)n / nb, pairs = 0;
	u64 i, j;

	for (i = 0; i < n; i++) {
		h[i] = keyfn(i);
		cnt[ref_bucket(h[i], nb)]++;
	}
	for (i = 0; i < nb; i++) {
		o.chi2 += ((double)cnt[i] - mean) * ((double)cnt[i] - mean) /
			  mean;
		if (cnt[i] > o.maxload)
			o.maxload = cnt[i];
		pairs += (double)cnt[i] * (cnt[i] - 1) / 2;
	}
	o.z = (o.chi2 - (nb - 1)) / sqrt(2.0 * (nb - 1));
	/* Same bucket and same check value: sort by (bucket, check). */
	for (i = 0; i < n; i++)
		h[i] = (u64)ref_bucket(h[i], nb) << 32 | ref_check(h[i]);
	qsort(h, n, sizeof(u64), tap_cmp_u64);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && h[j] == h[i]; j++)
			;
		o.same_check_pairs += (j - i) * (j - i - 1) / 2;
	}
	o.expect_pairs = pairs / (1 << CP_CHECK_BITS);
	free(cnt);
	free(h);
	return o;
}

static u64 key_swap_seq(u64 i)
{
	return cp_key_hash(CP_SWAP_MAPPING, 0, 0, i);
}

static u64 key_swap_stride512(u64 i)
{
	return cp_key_hash(CP_SWAP_MAPPING, 0, 0, i * 512);
}

static u64 key_file_stride4096(u64 i)
{
	return cp_key_hash(MAPPING_A, 1234, 0, i << 12);
}

/* Many small files: slab-allocated mappings, 16 pages each. */
static u64 key_many_mappings(u64 i)
{
	u64 j = i / 16;

	return cp_key_hash(0xffff888100000000UL + j * 0x2c0, 1000 + j, 0,
			   i % 16);
}

/* Swap entries: type in the high bits, offset below. */
static u64 key_swap_two_devices(u64 i)
{
	return cp_key_hash(CP_SWAP_MAPPING, 0, 0,
			   ((i & 1) << 58) | (i >> 1));
}

static void test_hash_quality(void)
{
	static const struct {
		const char *name;
		u64 (*fn)(u64);
	} cases[] = {
		{ "swap, sequential offsets", key_swap_seq },
		{ "swap, stride 512", key_swap_stride512 },
		{ "swap, two devices", key_swap_two_devices },
		{ "file, stride 4096", key_file_stride4096 },
		{ "many mappings x 16 pages", key_many_mappings },
	};
	u32 nb = (u32)tap_scaled(65536, 16384);
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct occupancy o = occupancy(nb, 16ULL * nb, cases[c].fn);

		tap_info("%-28s chi2 %.0f (df %u, z %+.2f) max load %u (mean 16); same-bucket check collisions %llu (expected %.1f)",
			 cases[c].name, o.chi2, nb - 1, o.z, o.maxload,
			 (unsigned long long)o.same_check_pairs,
			 o.expect_pairs);
		CHECK(o.z < 6, "%s: chi-square z %.2f", cases[c].name, o.z);
		CHECK(o.maxload <= 42, "%s: max load %u", cases[c].name,
		      o.maxload);
		CHECK((double)o.same_check_pairs <= 3 * o.expect_pairs + 10,
		      "%s: %llu check collisions, %.1f expected",
		      cases[c].name, (unsigned long long)o.same_check_pairs,
		      o.expect_pairs);
	}
}

/*
 * Local clocks: lruvecs evicting in turn on one global clock.  Each
 * eviction's global time is kept, with the lruvec's local clock then, for
 * an exact answer to compare the sampled one with.
 */
#define LC_EVICTIONS	(1 << 18)

static void test_lclock(void)
{
	static u16 owner[LC_EVICTIONS];
	static u64 local_at[LC_EVICTIONS];
	struct cp_lclock lc[3];
	u64 rs = 0x1c10c4, g, worst = 0, checked = 0;
	const u32 shift = 10;		/* a sample every 1024 evictions */
	u32 k;

	memset(lc, 0, sizeof(lc));
	CHECK(cp_lclock_distance(&lc[0], shift, 0, 0) == 0 &&
	      cp_lclock_distance(&lc[0], shift, 500, 300) == 300,
	      "no samples yet: the global distance stands");

	/* A alone for a while: local == global exactly. */
	for (g = 0; g < 5000; g++)
		cp_lclock_advance(&lc[0], shift, g, 1);
	CHECK(cp_lclock_distance(&lc[0], shift, 5000, 1234) == 1234,
	      "alone: %llu", (unsigned long long)
	      cp_lclock_distance(&lc[0], shift, 5000, 1234));

	/* Three lruvecs, shares 1/2, 1/3, 1/6, in random order. */
	memset(lc, 0, sizeof(lc));
	for (g = 0; g < LC_EVICTIONS; g++) {
		u64 r = tap_rand_below(&rs, 6);
		int v = r < 3 ? 0 : r < 5 ? 1 : 2;

		owner[g] = v;
		local_at[g] = lc[v].now;
		cp_lclock_advance(&lc[v], shift, g, 1);
	}
	for (k = 0; k < 20000; k++) {
		u64 d = 1 + tap_rand_below(&rs, CP_LCLOCK_SAMPLES << shift);
		u64 e = g - d;		/* evicted then, from owner[e] */
		int v = owner[e];
		u64 exact = lc[v].now - local_at[e];
		u64 est = cp_lclock_distance(&lc[v], shift, g, d);
		u64 err = est > exact ? est - exact : exact - est;

		checked++;
		if (err > worst)
			worst = err;
	}
	/*
	 * Error: below the local evictions of one sample interval (up to
	 * 512 here); interpolated, an eighth of that.
	 */
	CHECK(worst <= (1u << shift) / 8, "worst error %llu over %llu refaults",
	      (unsigned long long)worst, (unsigned long long)checked);
	tap_diag("local clocks: worst error %llu local evictions in %llu refaults",
		 (unsigned long long)worst, (unsigned long long)checked);

	/* The half-share lruvec sees half the global distance. */
	{
		u64 est = cp_lclock_distance(&lc[0], shift, g, 60000);

		CHECK(est > 27000 && est < 33000, "half share: %llu of 60000",
		      (unsigned long long)est);
	}
	/* Past the samples kept: the global distance, never more. */
	CHECK(cp_lclock_distance(&lc[0], shift, g,
				 (CP_LCLOCK_SAMPLES + 2) << shift) ==
	      (CP_LCLOCK_SAMPLES + 2) << shift, "beyond the samples");
	CHECK(cp_lclock_distance(&lc[0], shift, g, g + 5) == g + 5,
	      "before the clock started");

	/* A long pause of one lruvec: bounded work, samples still right. */
	memset(lc, 0, sizeof(lc));
	cp_lclock_advance(&lc[0], shift, 0, 100);
	cp_lclock_advance(&lc[0], shift, 1ULL << 40, 1);
	CHECK(lc[0].now == 101 && lc[0].next == (1ULL << 30) + 1 &&
	      cp_lclock_distance(&lc[0], shift, (1ULL << 40) + 10, 5) <= 1,
	      "after a pause: now %llu", (unsigned long long)lc[0].now);
}

static const struct cp_test tests[] = {
	{ "sizing", test_sizing },
	{ "sizing_huge_entries", test_sizing_huge },
	{ "layout_matches_spec", test_layout },
	{ "key_hash_avalanche", test_key_hash },
	{ "key_hash_ino_high_bits", test_key_hash_ino_high },
	{ "identity_new_inode", test_identity },
	{ "insert_lookup", test_insert_lookup },
	{ "distance_accuracy", test_distance_accuracy },
	{ "distance_under_load_beyond", test_distance_under_load },
	{ "expiry_lone_entry", test_expiry_lone },
	{ "expiry_replaced_before_live", test_expiry_replace },
	{ "expiry_reported_once", test_expiry_reported },
	{ "expiry_alias_minimal", test_expiry_alias_minimal },
	{ "expiry_alias_churn", test_expiry_alias_churn },
	{ "remember_stale_when", test_remember_stale_when },
	{ "displacement_order", test_displacement_order },
	{ "pair_forms", test_pair_forms },
	{ "pair_wrap", test_pair_wrap },
	{ "pair_stale_insert", test_pair_stale_insert },
	{ "model_random_ops", test_model_modular },
	{ "model_random_ops_strict", test_model_strict_wrap },
	{ "model_random_ops_strict_stale_when", test_model_strict_stale },
	{ "false_positive_rate", test_false_positives },
	{ "clock_wrap", test_clock_wrap },
	{ "small_tables", test_small_tables },
	{ "concurrent_claims", test_concurrent_claims },
	{ "concurrent_clock_race", test_concurrent_clock_race },
	{ "concurrent_storm", test_concurrent_storm },
	{ "concurrent_same_slots", test_concurrent_same_slots },
	{ "concurrent_full_buckets", test_concurrent_full_buckets },
	{ "concurrent_claim_lockstep", test_concurrent_claim_lockstep },
	{ "concurrent_remember_lockstep", test_concurrent_remember_lockstep },
	{ "hash_quality", test_hash_quality },
	{ "local_clocks", test_lclock },
};

int main(int argc, char **argv)
{
	return tap_main(argc, argv, tests, ARRAY_SIZE(tests));
}
