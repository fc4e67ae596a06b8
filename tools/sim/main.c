// SPDX-License-Identifier: GPL-2.0
/*
 * clockpro-sim - trace-driven simulator for CLOCK-Pro and the kernel's LRU
 *
 *   clockpro-sim -p POLICY[,POLICY...] -c PAGES[,PAGES...]
 *		  [--json|--csv] [--distance-error] [--param NAME=VALUE]...
 *		  [--warmup N] [--sample N] [-v] TRACE...
 *   clockpro-sim --gen SPEC > file
 *
 * Every trace is simulated with every policy at every cache size.  The hit
 * ratio counts all references: a reference that repeats the immediately
 * previous one is a hit that no policy sees (the LIRS/CLOCK-Pro reference
 * simulators' convention, see trace.c).
 *
 * Policies (see the file named for details):
 *   lru, clock, opt, arc		basic.c
 *   lirs				lirs.c
 *   clockpro, clockpro-fixed		clockpro.c
 *   kernel, kernel-clockpro, nonres	kernel.c
 *
 * Output: a table (default), one JSON array (--json) or CSV (--csv), on
 * stdout; diagnostics on stderr.  Exit status 0, or 1 on any error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clockpro/policy.h"
#include "sim.h"

static const struct policy policies[] = {
	{ "lru", run_lru, "exact LRU" },
	{ "clock", run_clock, "CLOCK (second chance), one hand" },
	{ "opt", run_opt, "Belady's OPT, exact" },
	{ "arc", run_arc, "ARC (Megiddo & Modha)" },
	{ "lirs", run_lirs, "LIRS as the authors' lirs.c (1% HIR)" },
	{ "clockpro", run_clockpro,
	  "CLOCK-Pro, adaptive cold share (CP-adapt: 1..99%)" },
	{ "clockpro-fixed", run_clockpro_fixed,
	  "CLOCK-Pro, fixed 5% cold share (CP-ref)" },
	{ "kernel", run_kernel, "Linux 6.1 two-list LRU + workingset model" },
	{ "kernel-clockpro", run_kernel_clockpro,
	  "kernel model driven by module/policy.c + module/nonres.c" },
	{ "nonres", run_nonres,
	  "exact LRU observed by the nonresident table (--distance-error)" },
};

#define NPOLICIES	ARRAY_SIZE(policies)

/* === util === */

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("clockpro-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *xmalloc(size_t sz)
{
	void *p = malloc(sz ? sz : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die("out of memory");
	return p;
}

void run_stat(struct run *r, const char *name, double val)
{
	if (r->nstats == SIM_MAX_STATS)
		die("too many statistics");
	r->stats[r->nstats].name = name;
	r->stats[r->nstats].val = val;
	r->nstats++;
}

/* === parameters === */

struct param {
	const char *name;
	size_t off;
	const char *help;
};

#define SP(f, h)	{ #f, offsetof(struct sim_opts, f), h }
#define CPP(f, h)	{ #f, offsetof(struct sim_opts, cp.f), h }

static const struct param params[] = {
	CPP(target_min_pct, "kernel-clockpro: lower bound of the hot target"),
	CPP(target_max_pct, "kernel-clockpro: upper bound of the hot target"),
	CPP(target_init_pct, "kernel-clockpro: initial hot target"),
	CPP(fixed_pct, "kernel-clockpro: non-zero = fixed hot target"),
	CPP(step, "kernel-clockpro: adaptation step, pages"),
	CPP(hyst_pct, "kernel-clockpro: dead band around the target"),
	CPP(floor_pct, "kernel-clockpro: inactive floor, % of the LRU"),
	CPP(floor_pages, "kernel-clockpro: inactive floor, pages"),
	CPP(hand_batch, "kernel-clockpro: hot-hand pages per request"),
	CPP(age_pct, "kernel-clockpro: hot-hand sweep window, % of the LRU"),
	CPP(idle_pct, "kernel-clockpro: inserted without reuse, % of the LRU, = idle"),
	SP(batch, "kernel*: pages reclaimed per cycle (32)"),
	SP(miss_mark, "kernel*: a miss is also marked accessed (1)"),
	SP(cp_gate, "kernel-clockpro: deactivate only when 6.1 would (0)"),
	SP(table_pct, "nonres table size, % of the cache (100)"),
	SP(beyond, "kernel-clockpro: Beyond refaults to the policy (0)"),
	SP(cold_min_pct, "clockpro: minimum cold share, % (1)"),
	SP(cold_max_pct, "clockpro: maximum cold share, % (99)"),
	SP(fixed_cold_pct, "clockpro-fixed: cold share, % (5)"),
	SP(lirs_hir_pct, "lirs: resident HIR share, % (1)"),
};

#define NPARAMS	ARRAY_SIZE(params)

static void set_param(struct sim_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	char *end;
	size_t i;

	if (!eq)
		die("--param wants NAME=VALUE, not '%s'", arg);
	errno = 0;
	v = strtoull(eq + 1, &end, 0);
	if (errno || *end || end == eq + 1 || v > UINT32_MAX)
		die("--param %s: bad value", arg);
	for (i = 0; i < NPARAMS; i++) {
		if (strlen(params[i].name) == (size_t)(eq - arg) &&
		    !strncmp(params[i].name, arg, eq - arg)) {
			*(u32 *)((char *)o + params[i].off) = (u32)v;
			return;
		}
	}
	die("unknown parameter '%.*s' (see --help)", (int)(eq - arg), arg);
}

/* === output === */

struct result {
	const struct trace *tr;
	struct run run;
	u64 refs;		/* references counted (after the warm-up) */
	u64 repeats;		/* ... of which consecutive repeats */
	u64 nseq;		/* ... of which seen by the policy */
};

static inline u64 res_hits(const struct result *x)
{
	return x->run.hits + x->repeats;
}

static inline u64 res_misses(const struct result *x)
{
	return x->nseq - x->run.hits;
}

static double hit_ratio(const struct result *x)
{
	return x->refs ? (double)res_hits(x) / (double)x->refs : 0;
}

/* Where the warm-up of @warm raw references ends in seq[]. */
static void warm_split(const struct trace *t, u64 warm, struct result *x)
{
	u64 pos = 0, i, rep = 0;

	x->run.warm_seq = t->nseq;
	for (i = 0; i < t->nseq; i++) {
		if (pos >= warm) {
			x->run.warm_seq = i;
			break;
		}
		/* repeats at raw positions pos + 1 .. pos + rep[i] */
		if (pos + t->rep[i] >= warm)
			rep += pos + t->rep[i] - warm + 1;
		pos += 1 + t->rep[i];
	}
	for (; i < t->nseq; i++)
		rep += t->rep[i];
	x->refs = t->nrefs > warm ? t->nrefs - warm : 0;
	x->repeats = rep;
	x->nseq = t->nseq - x->run.warm_seq;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_de(const struct dist_err *de)
{
	int i;

	printf(", \"distance_error\": {\"capacity\": %llu, \"lookups\": %llu, "
	       "\"hits\": %llu, \"false_positives\": %llu, "
	       "\"false_positives_never_evicted\": %llu, \"stale\": %llu, "
	       "\"stale_max_distance\": %llu, \"new\": %llu, "
	       "\"beyond\": %llu, \"beyond_within_capacity\": %llu, "
	       "\"remember_empty\": %llu, \"remember_expired\": %llu, "
	       "\"remember_displaced\": %llu, \"ranges\": [",
	       (unsigned long long)de->capacity,
	       (unsigned long long)de->lookups, (unsigned long long)de->hits,
	       (unsigned long long)de->false_pos,
	       (unsigned long long)de->fp_never,
	       (unsigned long long)de->stale,
	       (unsigned long long)de->stale_max,
	       (unsigned long long)de->new_miss,
	       (unsigned long long)de->beyond,
	       (unsigned long long)de->beyond_early,
	       (unsigned long long)de->empty,
	       (unsigned long long)de->expired,
	       (unsigned long long)de->displaced);
	for (i = 0; i < DE_NR_RANGES; i++) {
		const struct de_range *r = &de->r[i];

		printf("%s{\"range\": \"%s\", \"hits\": %llu, \"p50\": %.6f, "
		       "\"p95\": %.6f, \"p99\": %.6f, \"max\": %.6f, "
		       "\"bias\": %.6f}", i ? ", " : "", de_range_names[i],
		       (unsigned long long)r->n, de_quantile(r, 0.5),
		       de_quantile(r, 0.95), de_quantile(r, 0.99),
		       de_quantile(r, 1.0),
		       r->n ? r->bias_sum / (double)r->n : 0);
	}
	printf("]}");
}

static void print_json(const struct result *res, size_t n)
{
	size_t i;
	int j;

	printf("[\n");
	for (i = 0; i < n; i++) {
		const struct result *x = &res[i];
		const struct trace *t = x->tr;

		printf("  {\"trace\": ");
		json_str(t->name);
		printf(", \"path\": ");
		json_str(t->path);
		printf(", \"policy\": \"%s\", \"cache\": %llu, \"refs\": %llu, "
		       "\"hits\": %llu, \"misses\": %llu, \"hit_ratio\": %.6f, "
		       "\"distinct\": %u, \"repeats\": %llu, \"stats\": {",
		       x->run.policy, (unsigned long long)x->run.cache,
		       (unsigned long long)x->refs,
		       (unsigned long long)res_hits(x),
		       (unsigned long long)res_misses(x),
		       hit_ratio(x), t->npages,
		       (unsigned long long)x->repeats);
		for (j = 0; j < x->run.nstats; j++)
			printf("%s\"%s\": %.10g", j ? ", " : "",
			       x->run.stats[j].name, x->run.stats[j].val);
		printf("}");
		if (x->run.de)
			json_de(x->run.de);
		printf("}%s\n", i + 1 < n ? "," : "");
	}
	printf("]\n");
}

/* A CSV field, quoted if it needs to be (RFC 4180). */
static void csv_str(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const struct result *res, size_t n, bool de)
{
	size_t i;
	int j;

	printf("trace,policy,cache,refs,hits,hit_ratio,misses,stats\n");
	for (i = 0; i < n; i++) {
		const struct result *x = &res[i];
		const struct trace *t = x->tr;

		csv_str(t->name);
		printf(",%s,%llu,%llu,%llu,%.6f,%llu,",
		       x->run.policy, (unsigned long long)x->run.cache,
		       (unsigned long long)x->refs,
		       (unsigned long long)res_hits(x), hit_ratio(x),
		       (unsigned long long)res_misses(x));
		for (j = 0; j < x->run.nstats; j++)
			printf("%s%s=%.10g", j ? ";" : "",
			       x->run.stats[j].name, x->run.stats[j].val);
		putchar('\n');
	}
	if (!de)
		return;
	printf("\ntrace,policy,cache,range,hits,p50_pct,p95_pct,p99_pct,"
	       "max_pct,bias_pct\n");
	for (i = 0; i < n; i++) {
		const struct result *x = &res[i];
		const struct dist_err *d = x->run.de;
		static const char *const cnt[] = {
			"lookups", "false_pos", "false_pos_never_evicted",
			"new", "beyond", "beyond_within_capacity", "stale",
		};
		u64 v[7];

		if (!d)
			continue;
		v[0] = d->lookups;
		v[1] = d->false_pos;
		v[2] = d->fp_never;
		v[3] = d->new_miss;
		v[4] = d->beyond;
		v[5] = d->beyond_early;
		v[6] = d->stale;
		for (j = 0; j < DE_NR_RANGES; j++) {
			const struct de_range *r = &d->r[j];

			csv_str(x->tr->name);
			printf(",%s,%llu,%s,%llu,%.3f,%.3f,%.3f,%.3f,%.3f\n",
			       x->run.policy,
			       (unsigned long long)x->run.cache,
			       de_range_names[j], (unsigned long long)r->n,
			       100 * de_quantile(r, 0.5),
			       100 * de_quantile(r, 0.95),
			       100 * de_quantile(r, 0.99),
			       100 * de_quantile(r, 1.0),
			       r->n ? 100 * r->bias_sum / (double)r->n : 0);
		}
		for (j = 0; j < 7; j++) {
			csv_str(x->tr->name);
			printf(",%s,%llu,%s,%llu,,,,,\n", x->run.policy,
			       (unsigned long long)x->run.cache, cnt[j],
			       (unsigned long long)v[j]);
		}
	}
}

static void print_de_human(const struct result *x)
{
	const struct dist_err *d = x->run.de;
	int j;

	printf("\ndistance error: %s %s cache %llu, table %llu entries\n",
	       x->tr->name, x->run.policy, (unsigned long long)x->run.cache,
	       (unsigned long long)d->capacity);
	printf("  lookups %llu: hits %llu, false positives %llu "
	       "(never evicted %llu), "
	       "New %llu, Beyond %llu (within capacity %llu)\n",
	       (unsigned long long)d->lookups, (unsigned long long)d->hits,
	       (unsigned long long)d->false_pos,
	       (unsigned long long)d->fp_never,
	       (unsigned long long)d->new_miss,
	       (unsigned long long)d->beyond,
	       (unsigned long long)d->beyond_early);
	printf("  remembered into: empty %llu, expired %llu, displaced %llu\n",
	       (unsigned long long)d->empty, (unsigned long long)d->expired,
	       (unsigned long long)d->displaced);
	printf("  stale hits (older than max_age, timestamp wrapped): %llu, "
	       "largest exact distance %llu\n", (unsigned long long)d->stale,
	       (unsigned long long)d->stale_max);
	printf("  %-9s %9s %8s %8s %8s %8s %8s\n", "distance", "hits",
	       "p50 %", "p95 %", "p99 %", "max %", "bias %");
	for (j = 0; j < DE_NR_RANGES; j++) {
		const struct de_range *r = &d->r[j];

		printf("  %-9s %9llu %8.2f %8.2f %8.2f %8.2f %8.2f\n",
		       de_range_names[j], (unsigned long long)r->n,
		       100 * de_quantile(r, 0.5), 100 * de_quantile(r, 0.95),
		       100 * de_quantile(r, 0.99), 100 * de_quantile(r, 1.0),
		       r->n ? 100 * r->bias_sum / (double)r->n : 0);
	}
}

static void print_human(const struct result *res, size_t n, int verbose)
{
	size_t i;
	int j;

	printf("%-12s %-16s %8s %10s %10s %8s\n", "trace", "policy", "cache",
	       "refs", "hits", "hit %");
	for (i = 0; i < n; i++) {
		const struct result *x = &res[i];
		const struct trace *t = x->tr;

		printf("%-12s %-16s %8llu %10llu %10llu %8.2f\n", t->name,
		       x->run.policy, (unsigned long long)x->run.cache,
		       (unsigned long long)x->refs,
		       (unsigned long long)res_hits(x), 100 * hit_ratio(x));
		if (verbose && x->run.nstats) {
			printf("   ");
			for (j = 0; j < x->run.nstats; j++)
				printf(" %s=%.6g", x->run.stats[j].name,
				       x->run.stats[j].val);
			printf("\n");
		}
	}
	for (i = 0; i < n; i++)
		if (res[i].run.de)
			print_de_human(&res[i]);
}

/* === main === */

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: clockpro-sim -p POLICY[,...] -c PAGES[,...]\n"
		"         [--json|--csv] [--distance-error]\n"
		"         [--param NAME=VALUE]... [--warmup N] [--sample N]\n"
		"         [-v] TRACE...\n"
		"       clockpro-sim --gen SPEC\n\n"
		"TRACE: LIRS or plain trace (one key per line, '#' comments),\n"
		"       optionally gzip'ed; gen:SPEC generates one.\n"
		"--warmup N: count references from the N-th on (default 0).\n"
		"--sample N: print the policy state every N references.\n\n"
		"Policies:\n");
	for (i = 0; i < NPOLICIES; i++)
		fprintf(f, "  %-16s %s\n", policies[i].name, policies[i].help);
	fprintf(f, "\nParameters (--param NAME=VALUE):\n");
	for (i = 0; i < NPARAMS; i++)
		fprintf(f, "  %-16s %s\n", params[i].name, params[i].help);
	fprintf(f, "  (kernel-clockpro defaults: cp_policy_defaults())\n\n");
	gen_usage(f);
}

static const struct policy *find_policy(const char *name)
{
	size_t i;

	for (i = 0; i < NPOLICIES; i++)
		if (!strcmp(policies[i].name, name))
			return &policies[i];
	die("unknown policy '%s' (see --help)", name);
}

static size_t split(char *s, char **out, size_t max)
{
	size_t n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("too many list items");
		out[n++] = tok;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "cache", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'C' },
		{ "distance-error", no_argument, NULL, 'd' },
		{ "param", required_argument, NULL, 'P' },
		{ "gen", required_argument, NULL, 'g' },
		{ "sample", required_argument, NULL, 's' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *pol_arg = NULL, *cache_arg = NULL, *pnames[64], *cnames[64];
	const struct policy *pols[64];
	u64 caches[64];
	struct sim_opts o;
	struct result *res;
	struct trace **traces;
	size_t npol, ncache, nres = 0, i, j, k;
	u64 warmup = 0;
	int fmt = 0, c;

	memset(&o, 0, sizeof(o));
	cp_policy_defaults(&o.cp);
	o.batch = 32;
	o.miss_mark = 1;
	o.table_pct = 100;
	o.cold_min_pct = 1;
	o.cold_max_pct = 99;
	o.fixed_cold_pct = 5;
	o.lirs_hir_pct = 1;

	while ((c = getopt_long(argc, argv, "p:c:vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pol_arg = optarg;
			break;
		case 'c':
			cache_arg = optarg;
			break;
		case 'j':
			fmt = 1;
			break;
		case 'C':
			fmt = 2;
			break;
		case 'd':
			o.distance_error = true;
			break;
		case 'P':
			set_param(&o, optarg);
			break;
		case 'g': {
			u64 *keys, n, x;

			if (gen_trace(optarg, &keys, &n))
				die("bad generator spec '%s' (see --help)",
				    optarg);
			for (x = 0; x < n; x++)
				printf("%llu\n", (unsigned long long)keys[x]);
			free(keys);
			return fflush(stdout) ? 1 : 0;
		}
		case 's':
			o.sample = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			warmup = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			o.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (!pol_arg || !cache_arg || optind == argc) {
		usage(stderr);
		return 1;
	}
	if (cp_policy_validate(&o.cp))
		die("invalid kernel-clockpro parameters (cp_policy_validate)");
	if (!o.batch || !o.table_pct || o.cold_min_pct > 100 ||
	    o.cold_max_pct > 100 || o.fixed_cold_pct > 100 ||
	    !o.lirs_hir_pct || o.lirs_hir_pct >= 100)
		die("invalid simulator parameters");

	npol = split(pol_arg, pnames, 64);
	for (i = 0; i < npol; i++)
		pols[i] = find_policy(pnames[i]);
	ncache = split(cache_arg, cnames, 64);
	for (i = 0; i < ncache; i++) {
		char *end;

		errno = 0;
		caches[i] = strtoull(cnames[i], &end, 10);
		if (errno || *end || !caches[i] || caches[i] >= UINT32_MAX)
			die("bad cache size '%s'", cnames[i]);
	}

	res = xcalloc((size_t)(argc - optind) * npol * ncache, sizeof(*res));
	traces = xcalloc((size_t)(argc - optind), sizeof(*traces));
	for (k = optind; k < (size_t)argc; k++) {
		struct trace *t = trace_load(argv[k]);

		traces[k - optind] = t;

		for (i = 0; i < npol; i++) {
			for (j = 0; j < ncache; j++) {
				struct result *x = &res[nres++];

				x->tr = t;
				warm_split(t, warmup, x);
				x->run.tr = t;
				x->run.o = &o;
				x->run.cache = caches[j];
				x->run.policy = pols[i]->name;
				if (pols[i]->fn(&x->run))
					die("%s: %s failed", t->name,
					    pols[i]->name);
			}
		}
		/* keep the trace's name and counts for the output */
		free(t->next_use);
		free(t->seq);
		free(t->rep);
		free(t->keys);
		t->next_use = NULL;
		t->rep = NULL;
		t->seq = NULL;
		t->keys = NULL;
	}

	if (fmt == 1)
		print_json(res, nres);
	else if (fmt == 2)
		print_csv(res, nres, o.distance_error);
	else
		print_human(res, nres, o.verbose);

	for (i = 0; i < nres; i++) {
		if (res[i].run.de) {
			de_free(res[i].run.de);
			free(res[i].run.de);
		}
	}
	for (k = 0; k < (size_t)(argc - optind); k++)
		trace_free(traces[k]);
	free(traces);
	free(res);
	return fflush(stdout) ? 1 : 0;
}
