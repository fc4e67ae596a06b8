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
 * shorter than that of the coldest hot page, and it is promoted while that
 * hot page is demoted.  Evicted cold pages stay remembered (nonresident)
 * until their test period ends.  One clock holds all pages; HAND_hot walks
 * the hot pages, clearing reference bits and demoting the first hot page
 * found unreferenced.  The cold share of memory, m_c, adapts:
 *
 *	a cold page accessed within its test period:	m_c + 1
 *	a test period ending without an access:		m_c - 1
 *
 * Song Jiang's own simulator adds a rule that matters a great deal: a cold
 * page is not promoted when HAND_hot finds no unreferenced hot page to
 * demote for it.  A loop slightly larger than memory is the case in point:
 * every hot page is re-referenced once per pass, no victim exists, the hot
 * set stays put, and it hits, where LRU hits nothing.
 *
 *		Mapping it onto the kernel's lists
 *
 * An out-of-tree module cannot replace the kernel's two LRU lists, so they
 * serve as hot and cold:
 *
 *	active   = hot pages, held at a target of m - m_c pages
 *	inactive = resident cold pages (FIFO for unmapped page cache)
 *	table    = nonresident cold pages, with their eviction time
 *
 *	HAND_hot = the kernel's shrink_active_list(), which scans the active
 *		   tail; the module turns its verdict for each page into a
 *		   CLOCK step: a page referenced since the last pass of the
 *		   hand (PG_referenced, or young PTEs) loses the bit and is
 *		   rotated; an unreferenced one is demoted.
 *
 * The policy then reads:
 *
 *	refault of a demoted hot page within	m_c - 1 first (the hot set
 *	the LRU size:				was short), then as below
 *	refault, active below target:		promote (the hot set fills)
 *	refault, distance beyond the LRU size:	keep cold; test over, m_c - 1
 *	refault, a demoted victim is unspent:	promote, spending it
 *	refault, otherwise:			keep cold, ask the hot hand to
 *						move, m_c - 1 (the hot pages
 *						all proved hot)
 *	inactive page referenced again:		m_c + 1 (a cold hit in test;
 *						the kernel activates it),
 *						unless the hot set is below
 *						target (it fills), the page
 *						was admitted while it filled,
 *						or the page is a demoted hot
 *						page (no test period)
 *	table entry expired unused:		m_c - 1 per page
 *
 * Victims are credited only while the active list is within its target or,
 * once it has been within it, inside the dead band above it, where no trim
 * runs; above that, demotions merely shrink the list.  The kernel's hot
 * hand judges a batch it has taken off the list, so during a trim (a scan
 * of the excess over the target) the list reads as within its target and
 * the trim's demotions are credited too.  That is what lets a moving
 * working set in: its cold hits take the target down, the trims demote the
 * old hot pages, and their credits promote the new set's
 * refaults.  Crediting a trim only for refaults kept cold and waiting
 * collapsed the moving set (0.33 against 0.91, 6.1); the same credits are
 * suspected of a loop's rare churn on two NUMA nodes (docs/results.md).
 * trim_credited counts them.
 *
 * The hand also ages: it passes every hot page at least once per window
 * of age_pct% of the LRU size in evictions, clearing bits, and demotes on
 * the way only for refaults kept cold that still want a victim.  A hot set
 * that fell out of use is then found unreferenced by the first refaults
 * of its successor rather than after two sweeps driven by them (cp_age()).
 *
 * A working set that moves, read at random (4 C reads over one region of
 * 0.8 C, then as many over another), gets in by its refaults: the
 * inactive list is too short for most of its pages to be read twice
 * before eviction, and every page let in demotes an old one.  How fast
 * that goes is set by the target when the move begins: the state of a
 * module loaded before the first region was read begins at the move's
 * first refault, and used to start at the active list the kernel had
 * built while the region fit (80 % and more), with a cliff at 85 %
 * above which the move was lost (cp_policy_state_init()).  It starts at
 * target_init_pct now, and a state begun before the cache was dropped
 * (at the module's load) begins again at the move (cp_let_go_if_dropped()).
 * That start is half the LRU (the kernel's own split below 1 GiB), and
 * the cold hits of the move may take the target no lower than
 * target_min_pct, 40 %: the new set's second reads activate its pages
 * whatever the target, and a target far below the active list the
 * kernel keeps building only trims them back out.  From 67 % and 10 %
 * the moving set ended 1.3 points below stock on average on 6.12 (7
 * boots, 256 MiB) and at 0.921 at 512 MiB on 6.1; from 50 % and 40 %,
 * 0.7 points below, and 0.936 against stock's 0.925-0.941
 * (docs/results.md).
 * A demoted hot page refaulting within the LRU
 * size is m_c - 1 first, ARC's rule for a ghost of its frequent side:
 * the hot set was short.  That keeps a zigzag's hot set, which a lower
 * start would otherwise trim into a churn.  CLOCK-Pro's own m_c + 1 for
 * a refault promoted in a victim's place follows the move faster still
 * but took a loop's target down into a churn of demotions and
 * promotions (0.705 in 1 boot of 8): not counted.  A move after another
 * workload, with the target already high, is still lost
 * (docs/results.md).
 *
 *		When the hot set falls idle
 *
 * CLOCK-Pro bets that pages read once are a scan and that the hot pages
 * will be wanted again.  When a program moves on to a new working set
 * (a phase change), the bet is wrong: the new pages all pass through the
 * small cold share, are evicted before their second read, and become
 * hot only one per victim the hot hand finds, while the old hot pages
 * keep reference bits from their last use.  A region of 0.8 C read four
 * times after another one hit 30 % here, against 74 % with MGLRU.
 *
 * There is no reuse distance to rank by during such a change: nothing is
 * used twice.  So when more than idle_pct% of the LRU has been inserted
 * with no reuse at all in the lruvec (no hot page read again, no cold
 * hit, no refault; a block device's metadata pages do not count), while
 * the active list holds at least three quarters of the LRU and less
 * memory is free than half the LRU, the hot set is idle and the policy
 * falls back to recency:
 *
 *	new page:		inserted hot, behind the old hot pages
 *	deactivation:		drains the pages that were hot when the
 *				episode began, target or not
 *	hot hand:		demotes what it finds; PG_referenced
 *				predates the idleness (young PTEs still
 *				count)
 *	aging:			none, and none owed afterwards: a step
 *				would demote the oldest new pages
 *	hot target:		at least the pages of the quiet run, the
 *				new working set (within its bounds)
 *
 * The old hot set then flows to the inactive list ahead of the new pages,
 * which stay resident as under LRU; the new pages leave the active list
 * only by the usual trims.  The first reuse of any kind ends it.
 *
 * The two conditions on the sizes keep the rule to phase changes.  A set
 * read for the first time into free memory (after a cache drop, in a new
 * memcg) is quiet as well, but there is no hot set to replace, nothing
 * is being evicted, and pages inserted hot there skip the second read
 * that tells CLOCK-Pro which of them are hot; they then meet the trims
 * with nothing to rank them by.
 *
 * The price is CLOCK-Pro's scan resistance for a hot set that is idle
 * while a scan runs: it is demoted as LRU would demote it.  The policy
 * learns from that, as ARC learns from its ghost lists: when a hot page
 * the idle rule demoted refaults within the LRU's size (and soon after an
 * idle demotion, so that the hand's own victims do not pass for it), the
 * bet was lost: the page is hot again at once, above the target if need
 * be, and the window doubles (up to 64 times idle_pct).  idle_pct 0 is
 * CLOCK-Pro alone.
 *
 * Which reads count as a hot page's reuse matters: the first read of a
 * page the rule inserted hot must not end the episode it belongs to.  So
 * a read of an active page is a reuse when PG_referenced is set or the
 * page is PG_workingset, which the hooks set on pages the hot hand
 * rotates and on pages the kernel activates on their second read; a
 * page inserted hot has neither until it is read again.
 *
 *		Holding the target
 *
 * cp_policy_deactivate() tells the kernel how many of nr_to_scan active
 * pages to scan:
 *
 *	escalated reclaim:				all of them, as the
 *							kernel would: the
 *							hand rotates
 *							nothing (pass)
 *	inactive below its floor:			all of them, as
 *							CLOCK steps
 *	hot set idle, pages hot before it still there:	up to idle_old
 *	active above target + hysteresis:		the excess
 *	hot set idle:					none (no aging)
 *	refaults waiting for the hot hand, or the	up to hand_batch
 *	hand's minimum speed (age_pct) due:
 *	otherwise:					none
 *
 * The floor (a share of the file LRU and a page minimum) keeps reclaim
 * able to make progress: the inactive list is never starved to hold the
 * active one.  Below the floor the hand still rotates what was referenced
 * since it last passed: a hot set in use is not given up for a moment's
 * shortage; if reclaim cannot progress that way, it escalates (the
 * caller's @escalated), and the kernel's own scan runs.  A scan beyond
 * what the kernel asked for never isolates
 * more active pages than the inactive list holds (cp_scan_cap()).  The
 * +-hysteresis band keeps the target from chasing the instantaneous list
 * sizes.  A new state has no band until its active list has been within
 * the target once: a first trim that stopped inside the band (its
 * rotations put back part of what it was granted) credited no victim,
 * none followed, and a moving set's refaults, kept cold, grew the target
 * to its maximum, the old set locked in (the band trap, docs/results.md).
 * A settled state fell into it too while victims were credited below the
 * target alone: at 512 MiB a moving set's list stood about the band's
 * width above its target (the kernel activates pages the table cannot
 * see), trims after the first credited nothing and no victim search's
 * demotion was credited; so the band credits too (cp_within_band()).
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
	if (p->target_max_pct > 100 || p->floor_pct > 100 ||
	    p->fixed_pct > 100 || p->hyst_pct > 100)
		return -EINVAL;	/* before any sum can wrap */
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
	if (!p->hand_batch || p->hand_batch > 4096)
		return -EINVAL;
	if (p->age_pct > 1000 || p->idle_pct > 100)
		return -EINVAL;
	return 0;
}

static inline u64 cp_lru(const struct cp_lru_sizes *sz)
{
	return sz->active + sz->inactive;
}

/**
 * cp_policy_floor - pages the inactive list is never held below
 * @p: parameters
 * @sz: LRU sizes (active and inactive)
 *
 * Return: floor_pct of the LRU, and at least floor_pages (but never more
 * than a 32nd of a tiny LRU).
 */
u64 cp_policy_floor(const struct cp_policy_params *p,
		    const struct cp_lru_sizes *sz)
{
	/* floor_pages is for real memory sizes: never a 32nd of a tiny LRU */
	return max_t(u64, CP_PCT(cp_lru(sz), p->floor_pct),
		     min_t(u64, p->floor_pages, cp_lru(sz) / 32));
}

static s64 cp_clamp_target(const struct cp_policy_params *p,
			   const struct cp_lru_sizes *sz, s64 target)
{
	u64 lru = cp_lru(sz);
	/* a fixed target is the experimenter's: no adaptive minimum */
	s64 lo = p->fixed_pct ? 1 : (s64)CP_PCT(lru, p->target_min_pct);
	s64 hi = (s64)CP_PCT(lru, p->target_max_pct);
	s64 room = (s64)lru - (s64)cp_policy_floor(p, sz);

	hi = min(hi, room);
	lo = min(lo, hi);
	if (lo < 1)
		lo = 1;
	if (hi < lo)
		hi = lo;
	return clamp(target, lo, hi);
}

/*
 * During an idle episode the pages of the quiet run are the new working
 * set, replacing the old one: the hot target is at least their number
 * (within its bounds), or the trims would demote the oldest of them before
 * their second read, and their first refaults, finding no room, would
 * send the hot hand after the rest for victims.
 */
static void cp_idle_follow(const struct cp_policy_params *p,
			   struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz)
{
	if (!p->fixed_pct && s->idle_on && s->target &&
	    s->target < (s64)s->quiet)
		s->target = cp_clamp_target(p, sz, (s64)s->quiet);
}

/**
 * cp_policy_state_init - start the adaptive state of one lruvec
 * @p: parameters
 * @s: state to initialise: zeroed once when the lruvec's slot was taken;
 *     the statistics carry over, and so does the idle count, kept before
 *     any target existed
 * @sz: current LRU sizes
 */
void cp_policy_state_init(const struct cp_policy_params *p,
			  struct cp_lru_state *s,
			  const struct cp_lru_sizes *sz)
{
	*s = (struct cp_lru_state){
		/* statistics, kept over a new beginning (cp_let_go_if_dropped()) */
		.promotions = s->promotions,
		.promoted_credit = s->promoted_credit,
		.kept_cold = s->kept_cold,
		.kept_far = s->kept_far,
		.grow = s->grow,
		.grow_kept = s->grow_kept,
		.grow_hot = s->grow_hot,
		.grow_expired = s->grow_expired,
		.shrink = s->shrink,
		.rotated = s->rotated,
		.demoted = s->demoted,
		.uncredited = s->uncredited,
		.trim_credited = s->trim_credited,
		.skips = s->skips,
		.trims = s->trims,
		.aged = s->aged,
		.age_kept = s->age_kept,
		.restarts = s->restarts,
		/* counted before any target existed */
		.quiet = s->quiet,
		.idle_on = s->idle_on,
		.idle_old = s->idle_old,
		.idle_hot = s->idle_hot,
		.idle_hot0 = s->idle_hot0,
		.idle_episodes = s->idle_episodes,
		.idle_debt = s->idle_debt,
		.idle_shift = s->idle_shift,
		.idle_clock = s->idle_clock,
		.idle_demoted = s->idle_demoted,
		.idle_past_old = s->idle_past_old,
		.idle_reinstated = s->idle_reinstated,
		.age_clock = sz->clock,
		.sweep_len = sz->active,
		/* the inactive pages were admitted before any target existed */
		.fill_clock = sz->clock,
		.fill_inactive = sz->inactive,
	};
	/*
	 * Start from target_init_pct, whatever the active list holds: the
	 * kernel activated those pages on a second read while memory had
	 * room, which says nothing of how they compare with what comes next.
	 * Starting from the active list (up to 95 % of the LRU after a
	 * region read into free memory) left the next working set a sliver
	 * of inactive list to be read twice in, and above about 85 % the
	 * target never came down: the new set's refaults met the old pages'
	 * reference bits, were kept cold and grew it (docs/results.md).
	 */
	s->target = cp_clamp_target(p, sz,
				    (s64)CP_PCT(cp_lru(sz), p->target_init_pct));
	cp_idle_follow(p, s, sz);	/* begun during an episode */
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

/* m_c - 1: the hot target grows by @n steps; @src counts them by cause. */
static void cp_grow(const struct cp_policy_params *p, struct cp_lru_state *s,
		    const struct cp_lru_sizes *sz, u32 n, u64 *src)
{
	if (p->fixed_pct || !n)
		return;
	s->target = cp_clamp_target(p, sz, s->target + (s64)p->step * n);
	s->grow += n;
	*src += n;
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
 * The LRU holds less than a quarter of the hot target: most of the pages
 * the state was learnt on are gone (a dropped cache, deleted files, a
 * memcg emptied).  The target, the fill and the hand's sweep describe a
 * memory that is gone, and a state begun there meets the next working
 * set with them: in the enforce test's moving set at 0.9 C (6.1), each
 * of the 5 first runs whose state began at the module's load, before the
 * cache was dropped, ended more than three points below stock, against 3
 * of the 18 whose state began at the move's first refault
 * (docs/results.md).  So the state is let go and begins again: at once
 * where a refault, an expiry or reclaim's scan needs it (the LRU is full
 * again by then), else at the next of them (cp_policy_cold_hit()).
 */
static void cp_let_go_if_dropped(const struct cp_policy_params *p,
				 struct cp_lru_state *s,
				 const struct cp_lru_sizes *sz)
{
	if (p->fixed_pct || s->target <= 0 ||
	    cp_lru(sz) * 4 >= (u64)s->target)
		return;
	s->restarts++;
	s->target = 0;
}

static void cp_ensure_init(const struct cp_policy_params *p,
			   struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz)
{
	cp_let_go_if_dropped(p, s, sz);
	if (!s->target)
		cp_policy_state_init(p, s, sz);
}

/* The dead band around the target, in pages. */
static u64 cp_hyst(const struct cp_policy_params *p,
		   const struct cp_lru_sizes *sz)
{
	return CP_PCT(cp_lru(sz), p->hyst_pct);
}

/*
 * Is the hot set within its @target, or (once it has been within it)
 * within the dead band above it?  A demotion by the hot hand lets one
 * refault be promoted in the demoted page's place (a credit) only then:
 * above the band the list is being trimmed and a credit would refill what
 * the trim takes away.  Inside the band no trim runs (cp_policy_deactivate()), so
 * with credits granted only below the target, a list that hovers just
 * above it (the kernel activates pages the table does not see) kept
 * refaults cold while its demotions went uncredited: at an LRU of 100 000
 * pages a moving working set stayed 6-7 points below LRU.
 */
static bool cp_within_band(const struct cp_policy_params *p,
			   const struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz, s64 target)
{
	if (s->settled)
		target += (s64)cp_hyst(p, sz);
	return (s64)sz->active <= target;
}

/*
 * Remember when the hot set was last filling: below @target by more than
 * the hysteresis band.  The inactive pages of that moment were admitted
 * while there was room for hot pages (cp_policy_cold_hit()).
 */
static void cp_note_fill(const struct cp_policy_params *p,
			 struct cp_lru_state *s, const struct cp_lru_sizes *sz,
			 s64 target)
{
	if ((s64)(sz->active + cp_hyst(p, sz)) < target) {
		s->fill_clock = sz->clock;
		s->fill_inactive = sz->inactive;
	}
}

/*
 * The hot set is idle when no page of the lruvec has been reused while
 * more than idle_pct% of the LRU was inserted (times 2^idle_shift, one
 * doubling per lost bet): the hot pages' reference bits are all older
 * than that, and the new pages prove nothing yet.
 */
static bool cp_quiet_after(const struct cp_policy_params *p,
			   const struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz, u64 quiet)
{
	return p->idle_pct &&
	       quiet > CP_PCT(cp_lru(sz), p->idle_pct) << s->idle_shift;
}

static bool cp_quiet(const struct cp_policy_params *p,
		     const struct cp_lru_state *s, const struct cp_lru_sizes *sz)
{
	return cp_quiet_after(p, s, sz, s->quiet);
}

/* An idle episode is under way (cp_policy_new_page() began it). */
static bool cp_idle(const struct cp_policy_params *p,
		    const struct cp_lru_state *s, const struct cp_lru_sizes *sz)
{
	return s->idle_on && cp_quiet(p, s, sz);
}

/*
 * Only an established hot set can fall idle, and only a full memory makes
 * its idleness matter: an episode begins while the active list holds at
 * least three quarters of the LRU and less memory is free than half the
 * LRU.  A set read for the first time into free memory (after a cache
 * drop, a module load, in a new memcg) is quiet too, but it has no
 * predecessor to replace, and inserting it hot would only hand it to the
 * trims before its second read shows which of it is hot.
 */
static bool cp_hot_set_established(const struct cp_lru_sizes *sz)
{
	return sz->active * 4 >= cp_lru(sz) * 3;
}

static bool cp_idle_may_begin(const struct cp_lru_sizes *sz)
{
	return cp_hot_set_established(sz) && sz->free * 2 < cp_lru(sz);
}

/**
 * cp_policy_new_page_quick - count a new page without fresh sizes, if it can
 * @p: parameters
 * @s: lruvec state (need not be initialised)
 * @last: the LRU sizes of the lruvec's last decision
 *
 * Most new pages only lengthen the quiet run: while no idle episode is
 * under way, and either the run stays short of the idle window or the
 * hot set is too small for an episode to begin (a stream read into a
 * cache that holds no hot set), cp_policy_new_page() would count the page
 * and keep it cold.  The sizes change by a page or so per insertion, and
 * reading them costs more than the rest of the decision: both are judged
 * on @last, which the caller refreshes now and then.
 *
 * Return: true if the page was counted (keep it cold); false if the caller
 * must call cp_policy_new_page() with the current sizes.
 */
bool cp_policy_new_page_quick(const struct cp_policy_params *p,
			      struct cp_lru_state *s,
			      const struct cp_lru_sizes *last)
{
	if (s->idle_on || !cp_lru(last))
		return false;
	if (cp_quiet_after(p, s, last, s->quiet + 1) &&
	    cp_hot_set_established(last))
		return false;
	s->quiet++;
	return true;
}

/**
 * cp_policy_new_page_needs_free - will the next new page read @sz->free
 * @p: parameters
 * @s: lruvec state (need not be initialised)
 * @sz: current LRU sizes (free not filled in)
 *
 * Free memory is costly to sum on every insertion and matters only at the
 * start of an idle episode: the caller fills in @sz->free when this says
 * so, before cp_policy_new_page().
 *
 * Return: true if cp_policy_new_page() would read @sz->free now.
 */
bool cp_policy_new_page_needs_free(const struct cp_policy_params *p,
				   const struct cp_lru_state *s,
				   const struct cp_lru_sizes *sz)
{
	return !s->idle_on && cp_quiet_after(p, s, sz, s->quiet + 1) &&
	       cp_hot_set_established(sz);
}

/**
 * cp_policy_reused - a page of the lruvec was used again
 * @s: lruvec state
 *
 * A reference to a page already referenced (a hot page, or a cold page in
 * its test period) or a refault of any distance: the hot set is not idle.
 * Needs no parameters and no initialised state.
 */
void cp_policy_reused(struct cp_lru_state *s)
{
	s->quiet = 0;
	s->idle_on = false;
	s->idle_old = 0;
}

/**
 * cp_policy_new_page - a page the table does not remember is inserted
 * @p: parameters
 * @s: lruvec state (need not be initialised)
 * @sz: current LRU sizes
 *
 * Return: CP_PROMOTE while the hot set is idle (recency decides: the new
 * page goes behind the stale hot pages), else CP_KEEP_COLD.
 */
enum cp_verdict cp_policy_new_page(const struct cp_policy_params *p,
				   struct cp_lru_state *s,
				   const struct cp_lru_sizes *sz)
{
	s->quiet++;
	if (!cp_quiet(p, s, sz))
		return CP_KEEP_COLD;
	if (!s->idle_on) {	/* the episode starts: drain what is hot now */
		if (!cp_idle_may_begin(sz))
			return CP_KEEP_COLD;
		s->idle_on = true;
		s->idle_old = sz->active;
		s->idle_hot0 = s->idle_hot;
		s->idle_episodes++;
	}
	s->idle_hot++;
	cp_idle_follow(p, s, sz);	/* the new set so far */
	return CP_PROMOTE;
}

/**
 * cp_policy_refault - decide where a refaulting page goes
 * @p: parameters
 * @s: state of the lruvec the page is charged to
 * @sz: its current LRU sizes
 * @distance: refault distance from the nonresident table, in evictions
 * @flags: the table entry's flags; CP_FLAG_ACTIVE marks a demoted hot
 *	   page, which CLOCK-Pro demotes without a test period: its refault
 *	   does not adapt m_c
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
	u32 test = flags & CP_FLAG_ACTIVE ? 0 : 1;
	bool lost = false;
	s64 target;

	if (!(flags & CP_FLAG_META))
		cp_policy_reused(s);	/* remembered: used before */
	/*
	 * A hot page the idle rule demoted was wanted: the bet lost.  Such a
	 * page was evicted at most an LRU's worth of evictions after the
	 * last idle demotion; it comes back within the LRU's size.
	 */
	if ((flags & CP_FLAG_ACTIVE) && s->idle_debt &&
	    distance <= cp_lru(sz) &&
	    sz->clock <= s->idle_clock + cp_lru(sz) + distance) {
		lost = true;
		s->idle_debt--;
		if (s->idle_shift < 6)
			s->idle_shift++;
	}
	cp_ensure_init(p, s, sz);
	/* A demoted hot page back within the LRU: the hot set was short. */
	if ((flags & CP_FLAG_ACTIVE) && distance <= cp_lru(sz))
		cp_grow(p, s, sz, 1, &s->grow_hot);
	target = cp_policy_target(p, s, sz);
	cp_note_fill(p, s, sz, target);
	if ((s64)sz->active < target) {
		/* Room in the hot set; if a victim made it, it is spent. */
		if (s->credits)
			s->credits--;
		s->promotions++;
		return CP_PROMOTE;
	}
	if (lost) {
		/* hot until the idle rule ignored its reference: reinstated */
		s->promotions++;
		s->idle_reinstated++;
		return CP_PROMOTE;
	}
	if (distance > cp_lru(sz)) {
		/* Could not stay resident in all of memory: test over. */
		cp_grow(p, s, sz, test, &s->grow_kept);
		s->kept_cold++;
		s->kept_far++;
		return CP_KEEP_COLD;
	}
	if (s->credits) {
		s->credits--;
		s->promotions++;
		s->promoted_credit++;
		return CP_PROMOTE;	/* takes a demoted victim's place */
	}
	/* Every hot page seen lately was referenced: they earn their keep. */
	if (s->pending < 4 * (u64)p->hand_batch)
		s->pending++;
	if (s->wanted < 4 * (u64)p->hand_batch)
		s->wanted++;
	cp_grow(p, s, sz, test, &s->grow_kept);
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
	cp_ensure_init(p, s, sz);
	cp_note_fill(p, s, sz, cp_policy_target(p, s, sz));
	cp_grow(p, s, sz, nr, &s->grow_expired);
}

/**
 * cp_policy_cold_hit - a resident cold page was referenced again
 * @p: parameters
 * @s: lruvec state
 * @sz: current LRU sizes
 * @flags: CP_FLAG_ACTIVE if the page is a demoted hot page (PG_workingset)
 *
 * The kernel activates an inactive page on its second reference.  A cold
 * page reused within its test period means m_c + 1, but only when the hot
 * set is full: below its target the page simply fills it, as a refault
 * does (cp_policy_refault()).  Counted there, the second reads of a new
 * hot set would take the target down by the hot set's own size, and the
 * trims that follow would demote the pages just activated.  A demoted hot
 * page has no test period (CLOCK-Pro demotes without one), so its reuse
 * adapts nothing either: counting it would let the hand's own demotions
 * shrink the hot target, whose next trim demotes more pages in use.
 *
 * Nor does the reuse of a page admitted while the hot set was filling:
 * CLOCK-Pro would have made it hot at once, so it never had a test
 * period.  Such pages are the inactive ones of the last moment the hot set
 * was below its target by more than the hysteresis band (or of the
 * state's start); the inactive list is a FIFO, so they are gone once that
 * many pages have been evicted since.  Without this rule a loop's second
 * pass, finding much of its first pass still in memory, counted tens of
 * thousands of activations as cold hits once the hot set reached its
 * target, took the target to its minimum and lost the loop for passes.
 *
 * Return: true if the hot target adapted.
 */
bool cp_policy_cold_hit(const struct cp_policy_params *p,
			struct cp_lru_state *s, const struct cp_lru_sizes *sz,
			u32 flags)
{
	s64 target;

	if (!(flags & CP_FLAG_META))
		cp_policy_reused(s);	/* a cold page used again */
	cp_let_go_if_dropped(p, s, sz);	/* begins again at a refault */
	/* Before the first refault the LRU may be tiny: no target from it. */
	if (!s->target || (flags & CP_FLAG_ACTIVE))
		return false;
	target = cp_policy_target(p, s, sz);
	cp_note_fill(p, s, sz, target);
	if ((s64)sz->active < target)
		return false;	/* the hot set has room: it fills */
	if (sz->clock - s->fill_clock < s->fill_inactive)
		return false;	/* admitted while it filled: no test period */
	cp_shrink(p, s, sz);
	return true;
}

/**
 * cp_policy_hot_scanned - the hot hand reached an active page
 * @p: parameters
 * @s: lruvec state
 * @sz: current LRU sizes
 * @seen: CP_SCAN_REFERENCED and/or CP_SCAN_YOUNG: the page was referenced
 *	  since the hand last passed (PG_referenced, or a young PTE);
 *	  CP_SCAN_AGE_ONLY: the scan is one cp_policy_deactivate() granted
 *	  for aging alone (@s->age_only then), where an unreferenced page
 *	  stays hot unless a refault wants a victim; CP_SCAN_TRIM: granted
 *	  as a trim (@s->trim then), counted when it credits a victim
 *
 * While the hot set is idle a PG_referenced bit predates the idleness
 * (or the page's first read): the hand demotes from the tail in insertion
 * order, as LRU would.  A young PTE is a use the table cannot see, and
 * still counts.
 *
 * Return: true to rotate the page (keep it hot; the caller clears its
 * reference), false to let it be demoted.
 */
bool cp_policy_hot_scanned(const struct cp_policy_params *p,
			   struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz, u32 seen)
{
	if (!(seen & CP_SCAN_YOUNG) && cp_idle(p, s, sz)) {
		s->idle_demoted++;
		s->idle_clock = sz->clock;
		if (s->idle_old)
			s->idle_old--;
		else
			s->idle_past_old++;	/* a floor scan or a trim */
		if (s->idle_debt < sz->active)
			s->idle_debt++;
		return false;
	}
	if (seen & (CP_SCAN_REFERENCED | CP_SCAN_YOUNG)) {
		s->rotated++;
		return true;
	}
	if ((seen & CP_SCAN_AGE_ONLY) && !s->wanted) {
		s->age_kept++;	/* no refault wants a victim: clear only */
		return true;
	}
	if (s->wanted)
		s->wanted--;
	s->demoted++;
	if (s->target &&
	    cp_within_band(p, s, sz, cp_policy_target(p, s, sz)) &&
	    s->credits < sz->active) {
		s->credits++;
		if (seen & CP_SCAN_TRIM)
			s->trim_credited++;
	} else if (s->target) {
		s->uncredited++;
	}
	return false;
}

/*
 * The hot hand's minimum speed.  The hand moves for refaults that want a
 * victim, and only then may it demote; but a hot set that fell out of use
 * keeps the reference bits of its last use until those refaults have
 * driven the hand around once to clear them and once more to demote, two
 * sweeps during which nothing new becomes hot.  So the hand also ages:
 * every hot page is passed at least once per window of age_pct% of the LRU
 * size in evictions, and such aging steps only clear the bit (referenced or
 * not, the page stays hot).  A bit found clear by a later victim search
 * then means unused for about a window or more, longer than the refault
 * distance of any page this policy promotes.
 *
 * It is a minimum speed, not an addition: the steps taken for refaults
 * count toward the sweep, and aging only makes up what they fall short of.
 * A hand already driven fast by refaults (a loop larger than memory) gets
 * no aging steps on top, which would make it pass hot pages twice between
 * their uses and demote them.
 *
 * The aging runs in sweeps over the pages that were active when the sweep
 * began, spread evenly over one window: a page promoted during a sweep is
 * behind all of them, so a burst of promotions cannot speed the hand past
 * pages just inserted.  Bounded: one sweep's pages per window at most,
 * however long the hand stood still.
 */
static void cp_age_restart(struct cp_lru_state *s,
			   const struct cp_lru_sizes *sz)
{
	s->age_clock = sz->clock;
	s->aging = 0;
	s->sweep_len = 0;
	s->sweep_given = 0;
}

static void cp_age(const struct cp_policy_params *p, struct cp_lru_state *s,
		   const struct cp_lru_sizes *sz)
{
	u64 window = CP_PCT(cp_lru(sz), p->age_pct);
	u64 elapsed, due;

	if (!p->age_pct || !window || sz->clock < s->age_clock) {
		cp_age_restart(s, sz);	/* off, or the clock restarted */
		return;
	}
	elapsed = sz->clock - s->age_clock;
	if (elapsed >= window) {
		/* pay what is left of this sweep, then start the next one */
		if (s->sweep_given < s->sweep_len)
			s->aging += s->sweep_len - s->sweep_given;
		s->age_clock = elapsed >= 2 * window ? sz->clock
						    : s->age_clock + window;
		s->sweep_len = sz->active;
		s->sweep_given = 0;
		elapsed = sz->clock - s->age_clock;
	}
	/* share of the window gone, in 1/65536: no u64 product can wrap */
	due = s->sweep_len * ((elapsed << 16) / window) >> 16;
	if (due > s->sweep_given) {	/* not if the clock stepped back */
		s->aging += due - s->sweep_given;
		s->sweep_given = due;
	}
	s->aging = min_t(u64, s->aging, sz->active);
}

/*
 * A scan larger than the kernel asked for isolates no more active pages
 * than the inactive list holds: reclaim throttles (too_many_isolated())
 * when isolated pages outnumber the inactive ones, and a hot hand that
 * outruns a tiny inactive list would stall every reclaimer of the node.
 * The steps cut off are not owed: the next call grants them again.
 */
static u64 cp_scan_cap(const struct cp_lru_sizes *sz, u64 nr_to_scan, u64 n)
{
	return min_t(u64, n, max_t(u64, nr_to_scan, sz->inactive));
}

/*
 * The count of hot pages older than the idle episode, for the drain, must
 * follow them out however they leave.  The hand counts its own demotions,
 * but the kernel's escalated scans (which the hand does not see) take old
 * pages from the tail too; counted by the hand alone, the drain went on
 * past the old pages into the new ones inserted hot, the oldest first: a
 * new region's second and third tenths, lost in its second pass (3 063
 * pages in a 6.1 boot with 8 escalated scans; docs/results.md).  The pages
 * the episode inserted hot are on the active list unless the drain took
 * them, and it stops before them: no more than the rest of the list can
 * be old.  (If some did leave, the bound is the lower: the drain stops
 * early, and the trims find what it left.  A large folio counts once in
 * idle_hot and many times in the sizes: the bound is then the higher,
 * never below the old pages.)  Later boots with escalated reclaim still
 * lost new pages, so the kernel's own scans may take them too once the
 * old ones are gone: this bounds the drain, not reclaim.
 */
static void cp_idle_old_bound(struct cp_lru_state *s,
			      const struct cp_lru_sizes *sz)
{
	u64 fresh = s->idle_hot - s->idle_hot0;
	u64 rest = sz->active > fresh ? sz->active - fresh : 0;

	s->idle_old = min(s->idle_old, rest);
}

/**
 * cp_policy_deactivate - how many active pages to scan now
 * @p: parameters
 * @s: lruvec state
 * @sz: current LRU sizes
 * @nr_to_scan: what the kernel asked for
 * @escalated: reclaim is struggling (a low scan priority, the kernel's
 *	       forced deactivation, zones it may not reclaim from)
 *
 * Sets @s->pass when the scan is the kernel's own (escalated: the hot
 * hand must not rotate anything), @s->age_only when it was granted for
 * aging alone and @s->trim when it trims a list over its target.
 *
 * Return: pages to scan; 0 means hold the active list.
 */
u64 cp_policy_deactivate(const struct cp_policy_params *p,
			 struct cp_lru_state *s, const struct cp_lru_sizes *sz,
			 u64 nr_to_scan, bool escalated)
{
	s64 target;
	u64 n;

	s->age_only = false;
	s->trim = false;
	s->pass = escalated;	/* the kernel's scan: no hand steps */
	if (escalated || sz->inactive < cp_policy_floor(p, sz))
		return nr_to_scan;
	if (s->idle_old)
		cp_idle_old_bound(s, sz);	/* before the drain is sized */
	if (s->idle_old && cp_idle(p, s, sz)) {
		/* drain the hot pages older than the idle episode */
		s->trims++;
		return cp_scan_cap(sz, nr_to_scan,
				   min_t(u64, max_t(u64, nr_to_scan,
						    p->hand_batch),
					 s->idle_old));
	}

	cp_ensure_init(p, s, sz);
	target = cp_policy_target(p, s, sz);
	cp_note_fill(p, s, sz, target);
	/* no band before the list was first within its target (above) */
	if ((s64)sz->active <= target)
		s->settled = true;
	/* the trim's rule is the credit's: over the band, trim; inside, credit */
	if (!cp_within_band(p, s, sz, target)) {
		n = min_t(u64, sz->active - (u64)target,
			  max_t(u64, nr_to_scan, 1024));
		s->trims++;
		s->trim = true;
		return cp_scan_cap(sz, nr_to_scan, n);
	}
	if (cp_idle(p, s, sz)) {
		/*
		 * No aging while the hot set is idle, and none owed for it
		 * afterwards: a step would demote (or rotate) the oldest of
		 * the new pages, which LRU keeps in insertion order, and a
		 * sweep paid at the episode's end would rotate the old hot
		 * set ahead of the new one.
		 */
		cp_age_restart(s, sz);	/* none owed */
		s->skips++;
		return 0;
	}
	cp_age(p, s, sz);
	if (s->pending || s->aging) {
		n = min_t(u64, s->pending, p->hand_batch);
		s->pending -= n;
		/* a minimum speed: steps for refaults count toward the sweep */
		s->sweep_given += n;
		s->aging -= min(s->aging, n);
		if (n < p->hand_batch) {
			u64 a = min_t(u64, s->aging, p->hand_batch - n);

			s->aging -= a;
			s->aged += a;
			s->age_only = !n;
			n += a;
		}
		s->trims++;
		return cp_scan_cap(sz, nr_to_scan, n);
	}
	s->skips++;
	return 0;
}
