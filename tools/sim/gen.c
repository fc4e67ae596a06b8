// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic traces, in the plain format (one key per line).
 *
 *   KIND[:name=value[,name=value...]]
 *
 * Sizes are in pages; seed selects the random stream (default 1).
 * Keys are page numbers starting at base (default 0); a second set of
 * pages (stream, pool b, next phase) follows the first without overlap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct gen_kind {
	const char *name;
	const char *params;	/* name=default,... */
	const char *help;
	int (*fn)(const double *v, u64 **keys, u64 *n);
};

/* xoshiro256** seeded by splitmix64 */
struct rng {
	u64 s[4];
};

static u64 rng_sm(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, u64 seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = rng_sm(&seed);
}

static inline u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static u64 rng_next(struct rng *r)
{
	u64 *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n). */
static u64 rng_below(struct rng *r, u64 n)
{
	return (u64)(((__uint128_t)rng_next(r) * n) >> 64);
}

static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

struct out {
	u64 *k;
	u64 n, cap;
};

static void out_put(struct out *o, u64 key)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1 << 16;
		o->k = realloc(o->k, o->cap * sizeof(u64));
		if (!o->k)
			die("out of memory");
	}
	o->k[o->n++] = key;
}

/* Parameter slots, by position in the kind's params string. */
enum { P0, P1, P2, P3, P4, P5, P6 };

static int g_loop(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 pages = (u64)v[P0], passes = (u64)v[P1], base = (u64)v[P2];
	u64 i, j;

	for (j = 0; j < passes; j++)
		for (i = 0; i < pages; i++)
			out_put(&o, base + i);
	*keys = o.k;
	*n = o.n;
	return 0;
}

static int g_zigzag(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 pages = (u64)v[P0], passes = (u64)v[P1], base = (u64)v[P2];
	u64 i, j;

	for (j = 0; j < passes; j++)
		for (i = 0; i < pages; i++)
			out_put(&o, base + ((j & 1) ? pages - 1 - i : i));
	*keys = o.k;
	*n = o.n;
	return 0;
}

/* hot: uniform over `hot` pages with probability p, else a one-time stream */
static int g_hotstream(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 hot = (u64)v[P0], refs = (u64)v[P1], base = (u64)v[P4];
	double p = v[P2];
	u64 stream = base + hot, i;
	struct rng r;

	rng_seed(&r, (u64)v[P3]);
	for (i = 0; i < refs; i++) {
		if (rng_unit(&r) < p)
			out_put(&o, base + rng_below(&r, hot));
		else
			out_put(&o, stream++);
	}
	*keys = o.k;
	*n = o.n;
	return 0;
}

static int g_zipf(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 pages = (u64)v[P0], refs = (u64)v[P1], base = (u64)v[P4];
	double alpha = v[P2], sum = 0;
	double *cdf;
	struct rng r;
	u64 i;

	if (!pages)
		return -1;
	cdf = xmalloc(pages * sizeof(double));
	for (i = 0; i < pages; i++) {
		sum += 1.0 / pow((double)(i + 1), alpha);
		cdf[i] = sum;
	}
	rng_seed(&r, (u64)v[P3]);
	for (i = 0; i < refs; i++) {
		double x = rng_unit(&r) * sum;
		u64 lo = 0, hi = pages - 1;

		while (lo < hi) {
			u64 mid = (lo + hi) / 2;

			if (cdf[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* scatter ranks: key order unrelated to popularity */
		out_put(&o, base + (lo * 2654435761ULL) % pages);
	}
	free(cdf);
	*keys = o.k;
	*n = o.n;
	return 0;
}

static int g_twopools(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 a = (u64)v[P0], b = (u64)v[P1], refs = (u64)v[P2];
	u64 base = (u64)v[P5], i;
	double p = v[P3];
	struct rng r;

	if (!a || !b)
		return -1;
	rng_seed(&r, (u64)v[P4]);
	for (i = 0; i < refs; i++) {
		if (rng_unit(&r) < p)
			out_put(&o, base + rng_below(&r, a));
		else
			out_put(&o, base + a + rng_below(&r, b));
	}
	*keys = o.k;
	*n = o.n;
	return 0;
}

/*
 * phase: `phases` working sets of `pages` each, `refs` references per
 * phase, uniform within the set; consecutive sets share `overlap` pages.
 */
static int g_phase(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 pages = (u64)v[P0], refs = (u64)v[P1], phases = (u64)v[P2];
	u64 overlap = (u64)v[P3], base = (u64)v[P5], i, j;
	struct rng r;

	if (!pages || overlap >= pages)
		return -1;
	rng_seed(&r, (u64)v[P4]);
	for (j = 0; j < phases; j++) {
		u64 start = base + j * (pages - overlap);

		for (i = 0; i < refs; i++)
			out_put(&o, start + rng_below(&r, pages));
	}
	*keys = o.k;
	*n = o.n;
	return 0;
}

/*
 * seqphase: `phases` regions of `pages` each, every one scanned `passes`
 * times in order before the next (the enforce test's phase case).
 */
static int g_seqphase(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 pages = (u64)v[P0], passes = (u64)v[P1], phases = (u64)v[P2];
	u64 base = (u64)v[P3], i, j, k;

	if (!pages)
		return -1;
	for (j = 0; j < phases; j++)
		for (k = 0; k < passes; k++)
			for (i = 0; i < pages; i++)
				out_put(&o, base + j * pages + i);
	*keys = o.k;
	*n = o.n;
	return 0;
}

/* looping scan of `pages` interleaved with uniform hot references */
static int g_loophot(const double *v, u64 **keys, u64 *n)
{
	struct out o = { 0 };
	u64 pages = (u64)v[P0], passes = (u64)v[P1], hot = (u64)v[P2];
	u64 base = (u64)v[P5], i, j;
	double p = v[P3];
	struct rng r;

	if (!hot)
		return -1;
	rng_seed(&r, (u64)v[P4]);
	for (j = 0; j < passes; j++) {
		for (i = 0; i < pages; i++) {
			while (rng_unit(&r) < p)
				out_put(&o, base + pages + rng_below(&r, hot));
			out_put(&o, base + i);
		}
	}
	*keys = o.k;
	*n = o.n;
	return 0;
}

static const struct gen_kind kinds[] = {
	{ "loop", "n=1250,passes=20,base=0", "cyclic scan of n pages",
	  g_loop },
	{ "zigzag", "n=2000,passes=26,base=0",
	  "scans of n pages, alternating direction", g_zigzag },
	{ "hotstream", "hot=500,refs=100000,p=0.5,seed=1,base=0",
	  "uniform over hot pages with probability p, else a new page",
	  g_hotstream },
	{ "zipf", "n=10000,refs=100000,alpha=0.8,seed=1,base=0",
	  "zipf(alpha) over n pages", g_zipf },
	{ "twopools", "a=100,b=10000,refs=100000,p=0.5,seed=1,base=0",
	  "uniform over pool a with probability p, else over pool b",
	  g_twopools },
	{ "phase", "n=800,refs=50000,phases=4,overlap=0,seed=1,base=0",
	  "uniform working set of n pages, moving every refs references",
	  g_phase },
	{ "seqphase", "n=800,passes=4,phases=2,base=0",
	  "scans of n pages, passes times, then the next n pages",
	  g_seqphase },
	{ "loophot", "n=1250,passes=20,hot=200,p=0.5,seed=1,base=0",
	  "loop over n pages; before each, hot refs while rand < p",
	  g_loophot },
};

#define NKINDS	ARRAY_SIZE(kinds)

void gen_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Generators (--gen SPEC, or a trace named gen:SPEC):\n");
	for (i = 0; i < NKINDS; i++)
		fprintf(f, "  %-10s %s\n  %-10s   defaults: %s\n",
			kinds[i].name, kinds[i].help, "", kinds[i].params);
	fprintf(f, "  e.g. loop:n=1250,passes=20  "
		"zipf:n=5000,alpha=1.0,seed=7\n");
}

/**
 * gen_trace - generate a trace from a spec
 * @spec: KIND[:name=value,...]
 * @keys: set to a malloc'ed array of references
 * @n: set to its length
 *
 * Return: 0, or -1 for an unknown kind or parameter.
 */
int gen_trace(const char *spec, u64 **keys, u64 *n)
{
	char names[8][32], buf[512], *s, *tok, *save = NULL;
	double v[8] = { 0 };
	const struct gen_kind *k = NULL;
	size_t klen = strcspn(spec, ":");
	int np = 0, i;

	for (i = 0; i < (int)NKINDS; i++)
		if (strlen(kinds[i].name) == klen &&
		    !strncmp(kinds[i].name, spec, klen))
			k = &kinds[i];
	if (!k)
		return -1;

	snprintf(buf, sizeof(buf), "%s", k->params);
	for (tok = strtok_r(buf, ",", &save); tok && np < 8;
	     tok = strtok_r(NULL, ",", &save), np++) {
		char *eq = strchr(tok, '=');

		*eq = '\0';
		snprintf(names[np], sizeof(names[np]), "%s", tok);
		v[np] = atof(eq + 1);
	}

	if (spec[klen] == ':') {
		snprintf(buf, sizeof(buf), "%s", spec + klen + 1);
		save = NULL;
		for (s = strtok_r(buf, ",", &save); s;
		     s = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(s, '='), *end;
			double x;

			if (!eq)
				return -1;
			*eq = '\0';
			x = strtod(eq + 1, &end);
			if (*end || end == eq + 1 || x < 0)
				return -1;
			for (i = 0; i < np; i++)
				if (!strcmp(names[i], s))
					break;
			if (i == np)
				return -1;
			v[i] = x;
		}
	}
	return k->fn(v, keys, n);
}
