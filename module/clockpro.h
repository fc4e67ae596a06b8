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

struct seq_file;

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
	CP_STAT_MGLRU_TAIL,	/* MGLRU code ran on an lruvec it had left */
	CP_STAT_ESCALATED,	/* enforce: escalated reclaim, not held */
	CP_STAT_ESC_FORCED,	/* of which: the kernel's forced deactivation */
	CP_STAT_ESC_PRIORITY,	/* of which: priority 0 (CLOCK steps) */
	CP_STAT_ESC_ZONES,	/* of which: zones it may not reclaim from */
	CP_STAT_SLOTS_FREED,	/* state slots of dead memcgs released */
	CP_STAT_REMOTE_REFAULTS, /* enforce: judged on another node's clock */
	CP_STAT_HAND_LOST,	/* enforce: hot pages scanned, the call's mode lost */
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

/* Rows of one lruvec's refault histogram, at most (the first hist_rows). */
#define CP_SLOT_HIST_ROWS	64

/*
 * The refaults of one lruvec, on its own eviction clock (the slot's lc):
 * summed over a memcg's nodes, they are the memcg's histogram.  552 bytes
 * a slot.  Counts started in an epoch of the global histogram (its resets,
 * cp.hist_epoch) other than the current one are void; so are counts with
 * a geometry other than the current one.  Changed under the slot lock.
 */
struct cp_slot_hist {
	u64 epoch;			/* cp.hist_epoch at the start; 0: none */
	u64 geom;			/* CP_HIST_GEOM() of the rows */
	u64 refaults;			/* pages found in the table */
	u64 new_pages;			/* misses: never evicted */
	u64 beyond;			/* misses: evicted, no longer in table */
	u64 rows[CP_SLOT_HIST_ROWS];	/* refaults by local distance */
};

/*
 * Adaptive state of one lruvec; the lock is taken with IRQs saved.  The
 * key is compared, never followed, outside the probes: a memcg's lruvec is
 * freed with it, and its slot released first (cp_hooks_memcg_free()).
 * Readers show what the slot recorded at its last decision.
 */
struct cp_lruvec_slot {
	raw_spinlock_t lock;
	void *lruvec;			/* key; NULL when free */
	unsigned long last_used;	/* jiffies */
	u64 cgroup_ino;			/* of the memcg; 0: none (no memcg) */
	u16 memcg_id;			/* mem_cgroup_id(), when claimed */
	u16 nid;			/* node of the lruvec */
	struct cp_lru_sizes sz;		/* at the last decision */
	u32 gone;			/* expiries not yet applied */
	u32 quick;			/* new pages since sizes were read */
	struct cp_lru_state st;
	struct cp_lclock lc;		/* the lruvec's own evictions */
	struct cp_slot_hist h;		/* its refaults, on lc */
};

/*
 * Histogram geometry, published as one word so that a probe never sees a
 * width from one write and a row count from another: width in the high
 * half (>= 1), rows in the low half (1..CP_HIST_MAX).
 */
#define CP_HIST_GEOM(width, rows)	((u64)(width) << 32 | (rows))
#define CP_HIST_GEOM_WIDTH(g)		((u32)((g) >> 32))
#define CP_HIST_GEOM_ROWS(g)		((u32)(g))

/* Everything shared by the probe handlers and the interfaces. */
struct cp_global {
	struct cp_table table;
	u32 *slots;
	int mode;			/* enum cp_mode, READ_ONCE */
	u32 hist_width;			/* knob: pages per row; 0: auto */
	u32 hist_rows;			/* knob: rows */
	u64 hist_geom;			/* in use: CP_HIST_GEOM(), READ_ONCE */
	atomic64_t hist_epoch;		/* resets of the histograms, from 1 */
	u32 memcg_hist;			/* knob: per-memcg histograms on */
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

/*
 * The hot target of a slot (or of a copy), as the readers show it: from
 * its sizes at the last decision and the knobs; 0 before its first.
 */
static inline s64 cp_slot_target(const struct cp_lruvec_slot *s)
{
	return s->st.target ? cp_policy_target(&cp.params, &s->st, &s->sz) : 0;
}

int cp_hooks_register(void);
int cp_hooks_arm(bool enforce);
void cp_hooks_follow_mode(void);
void cp_slots_reset(void);
void cp_hooks_unregister(void);
const char *cp_hooks_describe(unsigned int i, bool *active);
void cp_hooks_show(struct seq_file *m);
const char *cp_hooks_enforce_missing(void);
int cp_lruvec_stats(void (*fn)(void *arg,
			       const struct cp_lruvec_slot *s),
		    void *arg);

#endif /* _CLOCKPRO_INTERNAL_H */
