/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the parts of clockpro.ko.
 */
#ifndef _CLOCKPRO_INTERNAL_H
#define _CLOCKPRO_INTERNAL_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "clockpro/nonres.h"
#include "clockpro/policy.h"

/* Rows of the refault histogram, at most. */
#define CP_HIST_MAX		256
/* Adaptive state slots, one per (memcg, node) lruvec seen by reclaim. */
#define CP_LRUVEC_SLOTS		512

enum cp_mode {
	CP_MODE_OBSERVE,
	CP_MODE_ENFORCE,
};

/* Per-CPU event counters; summed when read. */
enum cp_stat_item {
	CP_STAT_EVICTIONS,	/* pages evicted by reclaim */
	CP_STAT_EVICT_LARGE,	/* of which in large folios */
	CP_STAT_SWAP_EVICTIONS,	/* of which from the swap cache */
	CP_STAT_INSERTIONS,	/* pages inserted into page/swap cache */
	CP_STAT_REFAULTS,	/* insertions found in the table */
	CP_STAT_SWAP_REFAULTS,	/* of which swap-ins */
	CP_STAT_NEW,		/* misses: never evicted (no kernel shadow) */
	CP_STAT_BEYOND,		/* misses: evicted, but no longer in table */
	CP_STAT_SHADOW,		/* pages the kernel found a shadow for */
	CP_STAT_EXPIRED,	/* table entries replaced after max_age */
	CP_STAT_DISPLACED,	/* live entries pushed out of a full bucket */
	CP_STAT_RACED,		/* entries not stored: contention */
	CP_STAT_PROMOTED,	/* enforce: refaults sent to active */
	CP_STAT_KEPT_COLD,	/* enforce: refaults kept inactive */
	CP_STAT_OVERRIDDEN,	/* enforce: kernel activations undone */
	CP_STAT_DEACT_SKIPPED,	/* enforce: shrink_active_list calls held */
	CP_STAT_DEACT_TRIMMED,	/* enforce: calls trimmed or forced */
	CP_STAT_DEACT_PAGES,	/* enforce: pages the module let deactivate */
	CP_STAT_COLD_HITS,	/* enforce: cold pages reused in their test */
	CP_STAT_DEMOTED_HITS,	/* enforce: demoted hot pages reused */
	CP_STAT_HAND_ROTATED,	/* enforce: hot pages given a second chance */
	CP_STAT_HAND_DEMOTED,	/* enforce: hot pages the hand demoted */
	CP_STAT_IDLE_HOT,	/* enforce: new pages inserted hot, set idle */
	CP_STAT_NO_LRUVEC,	/* no state slot free for an lruvec */
	CP_STAT_MGLRU_SEEN,	/* enforce dropped: MGLRU reclaim ran */
	CP_NR_STATS,
};

/*
 * Verification of the distance estimate against the exact distance, for
 * the pages of one inode: the exact eviction clock of each page index.
 */
enum cp_verify_item {
	CP_VERIFY_REFAULTS,	/* refaults of the inode with an exact record */
	CP_VERIFY_WITHIN_1,	/* estimate within 1% of the exact distance */
	CP_VERIFY_WITHIN_5,
	CP_VERIFY_WITHIN_10,
	CP_VERIFY_OUTSIDE_10,
	CP_VERIFY_UNRECORDED,	/* table hit, but no exact eviction record */
	CP_VERIFY_WITHIN_STEP,	/* estimate off by less than one clock step */
	CP_NR_VERIFY,
};

struct cp_verify {
	unsigned long ino;
	unsigned long pages;	/* indices 0..pages-1 are recorded */
	atomic64_t counts[CP_NR_VERIFY];
	atomic64_t rows[CP_HIST_MAX];	/* exact distances, refaults' rows */
	u64 clock[];		/* eviction clock + 1 per index; 0: none */
};

struct cp_pcpu_stats {
	u64 v[CP_NR_STATS];
};

struct cp_hist {
	u64 rows[CP_HIST_MAX];
};

/* Adaptive state of one lruvec; the lock is taken with IRQs saved. */
struct cp_lruvec_slot {
	raw_spinlock_t lock;
	void *lruvec;			/* key; NULL when free */
	unsigned long last_used;	/* jiffies */
	struct cp_lru_state st;
};

/* Everything shared by the probe handlers and the interfaces. */
struct cp_global {
	struct cp_table table;
	u32 *slots;
	int mode;			/* enum cp_mode, READ_ONCE */
	u32 hist_width;			/* pages per histogram row */
	u32 hist_rows;			/* rows in use */
	struct cp_policy_params params;	/* written under knob_lock */
	struct mutex knob_lock;
	struct cp_pcpu_stats __percpu *stats;
	struct cp_hist __percpu *hist;
	struct cp_lruvec_slot *lruvecs;	/* CP_LRUVEC_SLOTS */
	void *root_memcg;		/* struct mem_cgroup * */
	struct cp_verify __rcu *verify;	/* NULL: off */
};

extern struct cp_global cp;

static inline void cp_count(enum cp_stat_item item, u64 n)
{
	this_cpu_add(cp.stats->v[item], n);
}

int cp_hooks_register(void);
void cp_hooks_unregister(void);
const char *cp_hooks_describe(unsigned int i, bool *active);
void cp_lruvec_stats(void (*fn)(void *arg, void *lruvec,
				const struct cp_lru_state *st,
				const struct cp_lru_sizes *sz, s64 target),
		     void *arg);

#endif /* _CLOCKPRO_INTERNAL_H */
