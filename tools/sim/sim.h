/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clockpro-sim: trace-driven cache replacement simulator.
 * Shared declarations; see main.c for the overview.
 */
#ifndef _CLOCKPRO_SIM_H
#define _CLOCKPRO_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clockpro/policy.h"

#define SIM_NIL		UINT32_MAX
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * A loaded trace.  Page keys are mapped to dense ids 0..npages-1.  A
 * reference that repeats the immediately previous one is a hit for every
 * policy and never reaches the policy (the reference simulators'
 * "if (ref == last_ref)" rule): seq[] holds the references without those
 * repeats, and repeats counts them.  rep[] tells how often each entry of
 * seq[] was repeated (CLOCK's reference bit is set by a repeat, and
 * --warmup needs the raw positions).
 */
struct trace {
	char *name;		/* basename without .gz/.trace/.trc/.txt */
	char *path;
	u32 *seq;		/* page ids, consecutive repeats removed */
	u32 *rep;		/* rep[i]: repeats right after seq[i] */
	u64 nseq;
	u64 nrefs;		/* all references, repeats included */
	u64 repeats;		/* nrefs - nseq */
	u32 npages;		/* distinct pages */
	u64 *keys;		/* id -> key as written in the trace */
	u32 *next_use;		/* OPT: next index in seq, lazily built */
};

/* Tunables given with --param NAME=VALUE (see main.c for the list). */
struct sim_opts {
	struct cp_policy_params cp;	/* kernel-clockpro */
	u32 batch;			/* kernel: pages per reclaim cycle */
	u32 miss_mark;			/* kernel: mark misses accessed */
	u32 cp_gate;			/* kernel-clockpro: 6.1 gating */
	u32 table_pct;			/* table entries, % of cache */
	u32 beyond;			/* kernel-clockpro: Beyond too */
	u32 cold_min_pct;		/* clockpro: m_c bounds (percent) */
	u32 cold_max_pct;
	u32 fixed_cold_pct;		/* clockpro-fixed: m_c (percent) */
	u32 lirs_hir_pct;		/* lirs: resident HIR share, % */
	bool distance_error;
	u64 sample;			/* print policy state every N refs */
	int verbose;
};

/* Distance-estimator error ranges, by exact distance in % of capacity. */
#define DE_NR_RANGES	5

struct de_range {
	u64 n;
	double *err;		/* relative errors, |est - exact| / exact */
	u64 cap;
	double bias_sum;	/* sum of (est - exact) / exact */
};

struct dist_err {
	u64 capacity;		/* table entries */
	u64 lookups;
	u64 hits;		/* table hits that match the last eviction */
	u64 false_pos;		/* hits not on the page's last eviction */
	u64 fp_never;		/* ... of which never evicted */
	u64 stale;		/* hits older than max_age (wrapped) */
	u64 stale_max;		/* largest exact distance among those */
	u64 new_miss;		/* misses: page never evicted */
	u64 beyond;		/* misses: page was evicted */
	u64 beyond_early;	/* ... with exact distance <= capacity */
	u64 expired;		/* remember results */
	u64 displaced;
	u64 empty;
	struct de_range r[DE_NR_RANGES];
};

/* Named statistics a policy reports with its result (-v, --json). */
#define SIM_MAX_STATS	40

struct sim_stat {
	const char *name;
	double val;
};

struct run {
	const struct trace *tr;
	const struct sim_opts *o;
	u64 cache;
	u64 warm_seq;		/* count hits from seq[warm_seq] on */
	u64 hits;		/* over seq[]; repeats are added later */
	int nstats;
	struct sim_stat stats[SIM_MAX_STATS];
	struct dist_err *de;	/* set by policies that report it */
	const char *policy;
};

/* Count a hit on seq[i] (only after the warm-up, --warmup). */
static inline void run_hit(struct run *r, u64 i)
{
	if (i >= r->warm_seq)
		r->hits++;
}

typedef int (*policy_fn)(struct run *r);

struct policy {
	const char *name;
	policy_fn fn;
	const char *help;
};

/* util */
void *xcalloc(size_t n, size_t sz);
void *xmalloc(size_t sz);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
					       noreturn));
void run_stat(struct run *r, const char *name, double val);

/* trace.c */
struct trace *trace_load(const char *path);
struct trace *trace_from_keys(const char *name, const u64 *keys, u64 n);
void trace_free(struct trace *t);
const u32 *trace_next_use(struct trace *t);

/* gen.c */
int gen_trace(const char *spec, u64 **keys, u64 *n);
void gen_usage(FILE *f);

/* policies */
int run_lru(struct run *r);
int run_clock(struct run *r);
int run_opt(struct run *r);
int run_arc(struct run *r);
int run_lirs(struct run *r);
int run_clockpro(struct run *r);
int run_clockpro_fixed(struct run *r);
int run_kernel(struct run *r);
int run_kernel_clockpro(struct run *r);
int run_nonres(struct run *r);

/* kernel.c: distance error bookkeeping, shared with the nonres mode */
void de_init(struct dist_err *de, u64 capacity);
void de_free(struct dist_err *de);
void de_finish(struct dist_err *de);
extern const char *const de_range_names[DE_NR_RANGES];
double de_quantile(const struct de_range *r, double q);

#endif /* _CLOCKPRO_SIM_H */
