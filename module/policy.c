// SPDX-License-Identifier: GPL-2.0
/*
 * CLOCK-Pro's hot/cold balance on a two-list LRU
 *
 *		Hot, cold and the test period
 *
 * CLOCK-Pro (Jiang, Chen, Zhang, USENIX ATC 2005) ranks pages by reuse
 * distance rather than recency.  Hot pages have short reuse distances; cold
 * pages are everything else.  A cold page is given a "test period" after
 * each access; if it is accessed again within it, its reuse distance is
 * shorter than that of the hot pages and it becomes hot, while the coldest
 * hot page is demoted.  Evicted cold pages stay remembered (nonresident)
 * until their test period ends.  The cold share of memory, m_c, adapts:
 *
 *	a cold page accessed within its test period:	m_c + 1
 *	a test period ending without an access:		m_c - 1
 *
 * so that memory goes to whichever kind of page is showing reuse.
 *
 *		Mapping it onto the kernel's lists
 *
 * The kernel's classic LRU has an active and an inactive list, and an
 * out-of-tree module cannot replace them.  They serve as hot and cold:
 *
 *	active   = hot pages, held at a target size of m - m_c
 *	inactive = resident cold pages, FIFO for unmapped page cache
 *	table    = nonresident cold pages, with their eviction time
 *
 * Song Jiang warned in 2005 that separate lists lose CLOCK-Pro's key
 * comparison, a refaulting cold page against the hot page with the largest
 * recency.  We restore it with two measurements instead of a clock hand:
 *
 *  - the reuse distance of a refaulting cold page, in eviction time, is
 *    r = d + I: d evictions while it was out (from the table), and about
 *    I evictions while it crossed the inactive list of I pages;
 *
 *  - the reuse distance of a hot page is R_hot = A * E / H, where A pages
 *    are active and H references to active pages were seen while E pages
 *    were evicted (both decayed by halving): each hot page is referenced
 *    every A / (H / E) evictions on average.
 *
 * A refault is "within its test period" iff r < R_hot (with a margin, so
 * that exact ties, such as every page of a loop, do not churn).  Then:
 *
 *	active below the target:	promote; the list is still filling
 *	r < R_hot:			promote, owe one demotion, m_c + 1
 *	otherwise:			keep cold,             m_c - 1
 *	table entry expired unused:	m_c - 1 per page
 *
 * A refault of a page that had been hot (PG_workingset) is judged the same
 * way but does not adapt m_c: CLOCK-Pro demotes hot pages without a test
 * period.
 *
 * For a file read in a loop slightly larger than memory, every page has
 * the same reuse distance, so refaults are never hotter than the hot pages:
 * m_c shrinks to its floor, the active list fills to its maximum and holds,
 * and each pass hits on the active part, about (m - m_c) / N of the loop,
 * where LRU gets nothing.  With a one-time stream, entries expire unused,
 * m_c shrinks and the hot set is protected.  With a shifting working set,
 * hot pages stop being referenced, R_hot grows, newcomers are promoted and
 * the stale hot pages are demoted to pay for them.
 *
 *		Holding the target
 *
 * The kernel deactivates active pages in shrink_active_list().  The caller
 * asks cp_policy_deactivate() how many of nr_to_scan pages to deactivate:
 *
 *	escalated reclaim, or inactive below its floor:	all of them
 *	active above target + hysteresis:		the excess
 *	promotions owed:				that many
 *	otherwise:					none
 *
 * The floor (a share of the file LRU and a page minimum) keeps reclaim
 * able to make progress: the inactive list is never starved to hold the
 * active one.  The +-hysteresis band keeps the target from chasing the
 * instantaneous list sizes.
 */
#include "clockpro/nonres.h"
#include "clockpro/policy.h"

#define CP_PCT(v, pct)	((v) * (u64)(pct) / 100)

/**
 * cp_policy_defaults - fill in the default parameters
 * @p: parameters to set
 */
void cp_policy_defaults(struct cp_policy_params *p)
{
	*p = (struct cp_policy_params)CP_POLICY_DEFAULTS;
}

/**
 * cp_policy_validate - check a parameter set
 * @p: parameters
 *
 * Return: 0 if usable, -EINVAL otherwise.
 */
int cp_policy_validate(const struct cp_policy_params *p)
{
	if (!p->target_min_pct || p->target_min_pct > p->target_max_pct)
		return -EINVAL;
	if (p->target_max_pct + p->floor_pct > 99)
		return -EINVAL;
	if (p->target_init_pct < p->target_min_pct ||
	    p->target_init_pct > p->target_max_pct)
		return -EINVAL;
	if (p->fixed_pct && p->fixed_pct + p->floor_pct > 99)
		return -EINVAL;
	if (!p->step || p->step > 65536)
		return -EINVAL;
	if (p->hyst_pct > 20 || p->floor_pct > 50)
		return -EINVAL;
	if (!p->margin_shift || p->margin_shift > 16)
		return -EINVAL;
	return 0;
}

static inline u64 cp_lru(const struct cp_lru_sizes *sz)
{
	return sz->active + sz->inactive;
}

static u64 cp_floor(const struct cp_policy_params *p,
		    const struct cp_lru_sizes *sz)
{
	return max_t(u64, CP_PCT(cp_lru(sz), p->floor_pct), p->floor_pages);
}

static s64 cp_clamp_target(const struct cp_policy_params *p,
			   const struct cp_lru_sizes *sz, s64 target)
{
	u64 lru = cp_lru(sz);
	s64 lo = (s64)CP_PCT(lru, p->target_min_pct);
	s64 hi = (s64)CP_PCT(lru, p->target_max_pct);
	s64 room = (s64)lru - (s64)cp_floor(p, sz);

	hi = min(hi, room);
	lo = min(lo, hi);
	if (lo < 1)
		lo = 1;
	if (hi < lo)
		hi = lo;
	return clamp(target, lo, hi);
}

/**
 * cp_policy_state_init - start the adaptive state of one lruvec
 * @p: parameters
 * @s: state to initialise
 * @sz: current LRU sizes
 */
void cp_policy_state_init(const struct cp_policy_params *p,
			  struct cp_lru_state *s,
			  const struct cp_lru_sizes *sz)
{
	*s = (struct cp_lru_state){ 0 };
	s->target = cp_clamp_target(p, sz,
				    (s64)CP_PCT(cp_lru(sz),
						p->target_init_pct));
}

/**
 * cp_policy_target - current hot (active) target in pages
 * @p: parameters
 * @s: lruvec state
 * @sz: current LRU sizes
 *
 * Return: the fixed target if one is set, else the adaptive one, both
 * clamped to the bounds for the current LRU size.
 */
s64 cp_policy_target(const struct cp_policy_params *p,
		     const struct cp_lru_state *s,
		     const struct cp_lru_sizes *sz)
{
	if (p->fixed_pct)
		return cp_clamp_target(p, sz,
				       (s64)CP_PCT(cp_lru(sz), p->fixed_pct));
	return cp_clamp_target(p, sz, s->target);
}

/* m_c - 1: the hot target grows by @n steps. */
static void cp_grow(const struct cp_policy_params *p, struct cp_lru_state *s,
		    const struct cp_lru_sizes *sz, u32 n)
{
	if (p->fixed_pct)
		return;
	s->target = cp_clamp_target(p, sz, s->target + (s64)p->step * n);
	s->grow += n;
}

/* m_c + 1: the hot target shrinks by one step. */
static void cp_shrink(const struct cp_policy_params *p,
		      struct cp_lru_state *s, const struct cp_lru_sizes *sz)
{
	if (p->fixed_pct)
		return;
	s->target = cp_clamp_target(p, sz, s->target - (s64)p->step);
	s->shrink++;
}

/*
 * Is a cold page with reuse distance @r hotter than the hot pages?
 * r * H * (1 - 2^-margin) < A * E, i.e. r < R_hot with a margin.
 */
static bool cp_in_test(const struct cp_policy_params *p,
		       const struct cp_lru_state *s,
		       const struct cp_lru_sizes *sz, u64 r)
{
	u64 lhs, rhs;

	if (!s->hot_refs)
		return true;	/* nothing hot is being used */
	lhs = r * s->hot_refs;
	lhs -= lhs >> p->margin_shift;
	rhs = sz->active * s->evictions;
	return lhs < rhs;
}

/**
 * cp_policy_refault - decide where a refaulting page goes
 * @p: parameters
 * @s: state of the lruvec the page is charged to
 * @sz: its current LRU sizes
 * @distance: refault distance from the nonresident table, in evictions
 * @flags: the table entry's flags (CP_FLAG_ACTIVE: it had been hot)
 *
 * Adapts the hot target by CLOCK-Pro's rules (see the top of this file).
 *
 * Return: CP_PROMOTE to insert the page on the active list, else
 * CP_KEEP_COLD.
 */
enum cp_verdict cp_policy_refault(const struct cp_policy_params *p,
				  struct cp_lru_state *s,
				  const struct cp_lru_sizes *sz,
				  u64 distance, u32 flags)
{
	u64 lru = cp_lru(sz);
	u64 hyst = CP_PCT(lru, p->hyst_pct);
	s64 target;
	bool was_hot = flags & CP_FLAG_ACTIVE;

	if (!s->target)
		cp_policy_state_init(p, s, sz);
	target = cp_policy_target(p, s, sz);

	if (distance > lru) {
		/* Could not stay resident in all of memory: test over. */
		if (!was_hot)
			cp_grow(p, s, sz, 1);
		s->kept_cold++;
		return CP_KEEP_COLD;
	}

	if ((s64)(sz->active + s->owed + hyst) < target) {
		s->promotions++;
		return CP_PROMOTE;	/* still filling the hot target */
	}

	if (cp_in_test(p, s, sz, distance + sz->inactive)) {
		if (!was_hot)
			cp_shrink(p, s, sz);
		if (s->owed < sz->active)
			s->owed++;
		s->promotions++;
		return CP_PROMOTE;
	}

	if (!was_hot)
		cp_grow(p, s, sz, 1);
	s->kept_cold++;
	return CP_KEEP_COLD;
}

/**
 * cp_policy_expired - nonresident entries left the table unused
 * @p: parameters
 * @s: lruvec state
 * @sz: current LRU sizes
 * @nr: pages whose test period ended without reuse
 */
void cp_policy_expired(const struct cp_policy_params *p,
		       struct cp_lru_state *s, const struct cp_lru_sizes *sz,
		       u32 nr)
{
	if (!s->target)
		cp_policy_state_init(p, s, sz);
	cp_grow(p, s, sz, nr);
}

/**
 * cp_policy_hot_ref - an active (hot) page was referenced
 * @s: lruvec state
 * @nr: pages referenced
 */
void cp_policy_hot_ref(struct cp_lru_state *s, u32 nr)
{
	s->hot_refs += nr;
}

/**
 * cp_policy_evicted - pages were evicted from this lruvec
 * @s: lruvec state
 * @sz: current LRU sizes
 * @nr: pages evicted
 *
 * Advances the window over which hot references are counted; the window is
 * halved once it spans twice the LRU, so R_hot follows the workload.
 */
void cp_policy_evicted(struct cp_lru_state *s, const struct cp_lru_sizes *sz,
		       u32 nr)
{
	s->evictions += nr;
	if (s->evictions > 2 * cp_lru(sz) + 64) {
		s->evictions >>= 1;
		s->hot_refs >>= 1;
	}
}

/**
 * cp_policy_deactivate - how many active pages to deactivate now
 * @p: parameters
 * @s: lruvec state
 * @sz: current LRU sizes
 * @nr_to_scan: what the kernel asked for
 * @escalated: reclaim is struggling (high scan priority, forced pass)
 *
 * Return: pages to deactivate; 0 means hold the active list.
 */
u64 cp_policy_deactivate(const struct cp_policy_params *p,
			 struct cp_lru_state *s, const struct cp_lru_sizes *sz,
			 u64 nr_to_scan, bool escalated)
{
	u64 hyst = CP_PCT(cp_lru(sz), p->hyst_pct);
	u64 batch = max_t(u64, nr_to_scan, 32);
	s64 target;
	u64 n;

	if (escalated || sz->inactive < cp_floor(p, sz))
		return nr_to_scan;

	if (!s->target)
		cp_policy_state_init(p, s, sz);
	target = cp_policy_target(p, s, sz);

	if ((s64)sz->active > target + (s64)hyst) {
		n = min_t(u64, sz->active - (u64)target, max_t(u64, batch, 1024));
		s->trims++;
		return n;
	}
	if ((s64)sz->active + (s64)hyst <= target) {
		s->owed = 0;	/* room to spare: promotions are free */
		s->skips++;
		return 0;
	}
	if (s->owed) {
		n = min(s->owed, batch);
		s->owed -= n;
		s->trims++;
		return n;
	}
	s->skips++;
	return 0;
}
