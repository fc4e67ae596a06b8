/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLOCK-Pro's hot/cold balance mapped onto a two-list (active/inactive)
 * LRU.  Pure arithmetic: the kernel module and the simulator's kernel
 * model drive the same functions.  See module/policy.c for the design.
 */
#ifndef _CLOCKPRO_POLICY_H
#define _CLOCKPRO_POLICY_H

#include "platform.h"

/* Tunables, shared by every lruvec.  Percentages are of the file LRU. */
struct cp_policy_params {
	u32 target_min_pct;	/* lower bound of the hot (active) target */
	u32 target_max_pct;	/* upper bound of the hot target */
	u32 target_init_pct;	/* starting point of an adaptive target */
	u32 fixed_pct;		/* non-zero: fixed target, no adaptation */
	u32 step;		/* adaptation step, pages per event */
	u32 hyst_pct;		/* +- dead band around the target */
	u32 floor_pct;		/* inactive list never held below this */
	u32 floor_pages;	/* ... nor below this many pages */
	u32 hand_batch;		/* hot-hand pages scanned per request */
	u32 age_pct;		/* hot hand aging window, % of the LRU */
	u32 idle_pct;		/* no reuse for this % of the LRU: idle */
};

#define CP_POLICY_DEFAULTS {					\
	.target_min_pct = 40,						\
	.target_max_pct = 95,						\
	.target_init_pct = 50,						\
	.fixed_pct = 0,							\
	.step = 1,							\
	.hyst_pct = 2,							\
	.floor_pct = 3,							\
	.floor_pages = 256,						\
	.hand_batch = 512,						\
	.age_pct = 100,							\
	.idle_pct = 2,							\
}

/* Per-lruvec adaptive state (one per memcg x node in the kernel). */
struct cp_lru_state {
	s64 target;		/* hot target, pages; 0 = not yet set */
	u64 credits;		/* unreferenced hot pages demoted, unused */
	u64 pending;		/* refaults waiting for the hot hand */
	u64 wanted;		/* refaults kept cold, victim not found yet */
	u64 aging;		/* hot-hand steps due to the passing of time */
	u64 age_clock;		/* eviction clock at the start of this sweep */
	u64 sweep_len;		/* active pages when this sweep started */
	u64 sweep_given;	/* of those, steps granted so far */
	bool age_only;		/* the last scan granted was aging alone */
	bool trim;		/* ... was a trim of a list over its target */
	bool pass;		/* ... was the kernel's (escalated, floor) */
	bool settled;		/* active seen within its target: band on */
	u64 fill_clock;		/* eviction clock when last seen filling */
	u64 fill_inactive;	/* inactive pages at that moment */
	u64 quiet;		/* pages inserted since the last reuse */
	bool idle_on;		/* an idle episode is under way */
	u64 idle_old;		/* hot pages older than it, to drain */
	u64 idle_hot0;		/* idle_hot when it began */
	u64 idle_debt;		/* hot pages the idle rule demoted */
	u32 idle_shift;		/* idle window doubled this many times */
	u64 idle_clock;		/* eviction clock at the last idle demotion */
	/* statistics (monotonic) */
	u64 promotions;		/* refaults sent to the active list */
	u64 promoted_credit;	/* ... in a demoted victim's place */
	u64 kept_cold;		/* refaults kept on the inactive list */
	u64 kept_far;		/* ... of them, from beyond the LRU's size */
	u64 grow;		/* m_c - 1 events: hot target grew */
	u64 grow_kept;		/* ... of them, refaults kept cold */
	u64 grow_hot;		/* ... demoted hot pages back within the LRU */
	u64 grow_expired;	/* ... test periods ended unused */
	u64 shrink;		/* m_c + 1 events: hot target shrank */
	u64 rotated;		/* hot pages given a second chance */
	u64 demoted;		/* hot pages the hot hand demoted */
	u64 uncredited;		/* ... no credit: list over target */
	u64 trim_credited;	/* of them, credited as victims by a trim */
	u64 skips;		/* deactivation requests refused */
	u64 trims;		/* deactivation requests sized */
	u64 aged;		/* hot-hand steps taken for aging */
	u64 age_kept;		/* unreferenced pages aging left hot */
	u64 idle_hot;		/* new pages inserted hot: hot set idle */
	u64 idle_episodes;	/* idle episodes begun */
	u64 idle_demoted;	/* hot pages demoted, bit ignored: idle */
	u64 idle_past_old;	/* of them, once none older was left */
	u64 idle_reinstated;	/* such pages promoted again on refault */
	u64 restarts;		/* states let go: the LRU was dropped */
};

/* LRU sizes at the moment of a decision, in pages. */
struct cp_lru_sizes {
	u64 active;
	u64 inactive;
	u64 clock;	/* evictions so far (the nonresident table's clock) */
	u64 free;	/* room before reclaim, when needs_free says */
};

/*
 * Policy-only flag for cp_policy_refault() and cp_policy_cold_hit(): the
 * page is a block device's (filesystem metadata, touched by the
 * filesystem on every access to its files), no evidence that the hot set
 * is in use.  The table's flags (CP_FLAG_ACTIVE) never use this bit.
 */
#define CP_FLAG_META		BIT(0)

/* What the hot hand saw on an active page (cp_policy_hot_scanned()). */
#define CP_SCAN_REFERENCED	0x1	/* PG_referenced was set */
#define CP_SCAN_YOUNG		0x2	/* a mapping's PTE was young */
#define CP_SCAN_AGE_ONLY	0x4	/* the scan was granted for aging alone */
#define CP_SCAN_TRIM		0x8	/* ... as a trim (active over target) */

enum cp_verdict {
	CP_KEEP_COLD = 0,	/* insert on the inactive list */
	CP_PROMOTE = 1,		/* insert on the active list */
};

void cp_policy_defaults(struct cp_policy_params *p);
int cp_policy_validate(const struct cp_policy_params *p);
void cp_policy_state_init(const struct cp_policy_params *p,
			  struct cp_lru_state *s,
			  const struct cp_lru_sizes *sz);
enum cp_verdict cp_policy_refault(const struct cp_policy_params *p,
				  struct cp_lru_state *s,
				  const struct cp_lru_sizes *sz,
				  u64 distance, u32 flags);
enum cp_verdict cp_policy_new_page(const struct cp_policy_params *p,
				   struct cp_lru_state *s,
				   const struct cp_lru_sizes *sz);
bool cp_policy_new_page_quick(const struct cp_policy_params *p,
			      struct cp_lru_state *s,
			      const struct cp_lru_sizes *last);
bool cp_policy_new_page_needs_free(const struct cp_policy_params *p,
				   const struct cp_lru_state *s,
				   const struct cp_lru_sizes *sz);
void cp_policy_reused(struct cp_lru_state *s);
void cp_policy_expired(const struct cp_policy_params *p,
		       struct cp_lru_state *s, const struct cp_lru_sizes *sz,
		       u32 nr);
bool cp_policy_cold_hit(const struct cp_policy_params *p,
			struct cp_lru_state *s, const struct cp_lru_sizes *sz,
			u32 flags);
bool cp_policy_hot_scanned(const struct cp_policy_params *p,
			   struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz, u32 seen);
u64 cp_policy_deactivate(const struct cp_policy_params *p,
			 struct cp_lru_state *s, const struct cp_lru_sizes *sz,
			 u64 nr_to_scan, bool escalated);
u64 cp_policy_floor(const struct cp_policy_params *p,
		    const struct cp_lru_sizes *sz);
s64 cp_policy_target(const struct cp_policy_params *p,
		     const struct cp_lru_state *s,
		     const struct cp_lru_sizes *sz);

#endif /* _CLOCKPRO_POLICY_H */
