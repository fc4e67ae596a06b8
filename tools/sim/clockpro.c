// SPDX-License-Identifier: GPL-2.0
/*
 * CLOCK-Pro (Jiang, Chen, Zhang, USENIX ATC 2005), behaving exactly like
 * the authors' reference simulator (clock-pro.c, Song Jiang, 2005), so that
 * its hit ratios can be compared number for number.
 *
 *		The clock
 *
 * All pages known to the policy, resident or not, sit on one circular
 * list.  A page enters at the list head; the three hands walk from the
 * old end of the list towards the head (the "prev" direction here), and
 * a page moved to the head is the last one a hand will reach again.
 *
 *  HAND_cold  rests on a resident cold page and is the only hand that
 *	       evicts.  A cold page with its reference bit clear, or not in
 *	       its test period, is evicted; if it was in its test period it
 *	       stays on the clock as a nonresident cold page.  A referenced
 *	       cold page in its test period is promoted to hot (and HAND_hot
 *	       runs to demote a hot page in exchange).
 *  HAND_hot   rests on the hot page with the largest recency.  A hot page
 *	       with its bit set has the bit cleared and moves to the head; one
 *	       with the bit clear is demoted to cold (no test period) and
 *	       moves to the head.  Cold pages it passes are left in place.
 *  HAND_test  ends test periods: it runs one step whenever HAND_hot catches
 *	       up with it, and runs to remove the oldest nonresident page
 *	       whenever there are more than m (= cache size) of them.  A
 *	       nonresident page whose test period ends leaves the clock.
 *
 * A miss on a nonresident page still in its test period makes it hot at
 * once, unless HAND_hot, running to make room, passes the page first (it
 * then counts as a new cold page).
 *
 *		Adaptation (clockpro) or not (clockpro-fixed)
 *
 * The resident cold share m_c starts at its minimum.  "clockpro" adapts
 * it as in the paper: +1 for a cold page accessed in its test period, -1
 * for a nonresident page whose test period ends, applied through the
 * reference code's ColdIncreaseCredits counter, which HAND_cold consumes
 * (credit < 0: promote without running HAND_hot; credit > 0: run HAND_hot
 * to demote but do not promote), within [cold_min_pct, cold_max_pct] of
 * the cache, 1..99 % by default (CP-adapt in traces/lirs/README.md).
 * "clockpro-fixed" keeps m_c at fixed_cold_pct, 5 % by default, like the
 * reference code's default build (CP-ref); both bounds are at least 2
 * pages.
 *
 *		Reference-code details kept on purpose
 *
 *  - A resident hit only sets the reference bit; a miss loads the page
 *    with the bit clear.
 *  - The first m - min(m_c) misses load hot pages, the next min(m_c) cold
 *    pages in their test period.
 *  - HAND_test clears the reference bit and test flag of resident cold
 *    pages it passes.
 *  - When HAND_hot is run by HAND_cold with positive credit and demotes a
 *    page without reaching the cold page, the cold page moves to the head
 *    in a new test period, and the reference bit ends up on the page that
 *    HAND_cold moves to rather than on the moved page (as in the
 *    reference code: the bit the comment wants to restore lands on the
 *    new HAND_cold page).
 *  - When HAND_hot reaches the accessed cold page without demoting
 *    anything, the cold page is not promoted ("does not promote the
 *    accessed node when runHandHot failed to find a non-accessed hot
 *    node between the handHot and the accessed cold node").
 * Conditions the reference code asserts against are counted as
 * "anomalies" instead of aborting; none occur on the LIRS traces.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define PG_RES		0x01	/* resident */
#define PG_HOT		0x02	/* hot; clear: cold */
#define PG_CLOCK	0x04	/* on the clock */
#define PG_TEST		0x08	/* cold page in its test period */
#define PG_REF		0x10	/* reference bit */

struct cpro {
	u32 *nx;		/* towards older pages */
	u32 *pv;		/* towards newer pages: the hands' direction */
	u8 *f;
	u32 head, hot, cold, test;
	s64 mem, free, nhot, nnonres, credits;
	s64 min_cold, max_cold;
	bool adaptive;
	u64 guard;
	/* statistics */
	u64 promote_refault;	/* nonresident in test -> hot on a miss */
	u64 promote_cold;	/* resident cold in test -> hot by HAND_cold */
	u64 demotions;
	u64 test_ends;		/* nonresident pages whose test ended */
	u64 anomalies;
	s64 cold_lo, cold_hi;	/* range of m_c after warm-up */
};

static inline s64 cp_cold(const struct cpro *c)
{
	return c->mem - c->nhot;
}

static void cp_unlink(struct cpro *c, u32 p, bool permanent)
{
	if (p == c->hot || p == c->cold || p == c->test)
		c->anomalies++;
	if (p == c->head)
		c->head = c->nx[p];
	c->nx[c->pv[p]] = c->nx[p];
	c->pv[c->nx[p]] = c->pv[p];
	c->nx[p] = SIM_NIL;
	c->pv[p] = SIM_NIL;
	c->f[p] &= ~(PG_CLOCK | PG_TEST | PG_REF);
	if (permanent)
		c->f[p] &= ~(PG_RES | PG_HOT);
}

static void cp_push_head(struct cpro *c, u32 p)
{
	u32 h = c->head;

	c->nx[p] = h;
	c->pv[p] = c->pv[h];
	c->nx[c->pv[h]] = p;
	c->pv[h] = p;
	c->head = p;
	c->f[p] |= PG_CLOCK;
}

static void cp_credit(struct cpro *c, int d)
{
	if (c->adaptive)
		c->credits += d;
}

/* HAND_test: one step if @step, then enforce the nonresident limit. */
static void cp_hand_test(struct cpro *c, bool step)
{
	u32 t;

	if (step) {
		t = c->test;
		if (!(c->f[t] & PG_HOT)) {
			bool res = c->f[t] & PG_RES;

			c->f[t] &= ~(PG_TEST | PG_REF);
			c->test = c->pv[t];
			if (!res) {
				cp_credit(c, -1);
				cp_unlink(c, t, true);
				c->nnonres--;
				c->test_ends++;
			}
		} else {
			c->test = c->pv[t];
		}
	}
	if (c->nnonres > c->mem) {
		u64 n = 0;

		while (c->f[c->test] & PG_RES) {
			if (!(c->f[c->test] & PG_HOT))
				c->f[c->test] &= ~(PG_TEST | PG_REF);
			c->test = c->pv[c->test];
			if (++n > c->guard)
				die("clockpro: HAND_test finds no nonresident");
		}
		cp_credit(c, -1);
		t = c->test;
		c->test = c->pv[t];
		cp_unlink(c, t, true);
		c->nnonres--;
		c->test_ends++;
	}
}

/*
 * HAND_hot: run until a hot page is demoted or @cold_ptr is reached, then
 * on to the next hot page.  Returns 0 if @cold_ptr was not reached, 1 if
 * it was reached without a demotion, 2 if reached with one.
 */
static int cp_hand_hot(struct cpro *c, u32 cold_ptr)
{
	bool done = false, matched = false, demoted = false;
	u64 n = 0;

	while (!done || !(c->f[c->hot] & PG_HOT)) {
		u32 h = c->hot;

		if (++n > c->guard)
			die("clockpro: HAND_hot does not terminate");
		if (c->f[h] & PG_HOT) {
			if (c->f[h] & PG_REF) {
				c->f[h] &= ~PG_REF;
			} else {
				c->f[h] &= ~PG_HOT;
				c->nhot--;
				c->demotions++;
				done = true;
				demoted = true;
			}
			if (c->test == h)
				c->test = c->pv[h];
			c->hot = c->pv[h];
			cp_unlink(c, h, false);
			cp_push_head(c, h);
		} else {
			if (h == cold_ptr) {
				done = true;
				matched = true;
			}
			c->hot = c->pv[h];
		}
		if (c->nx[c->hot] == c->test)
			cp_hand_test(c, true);
	}
	return matched ? (demoted ? 2 : 1) : 0;
}

static void cp_bound_credits(struct cpro *c)
{
	if (c->credits > 0 && cp_cold(c) >= c->max_cold)
		c->credits = 0;
	if (c->credits < 0 && cp_cold(c) <= c->min_cold)
		c->credits = 0;
}

/* Move HAND_cold to the next cold page (towards the head). */
static void cp_cold_next(struct cpro *c)
{
	u64 n = 0;

	while (c->f[c->cold] & PG_HOT) {
		c->cold = c->pv[c->cold];
		if (++n > c->guard)
			die("clockpro: no cold page for HAND_cold");
	}
}

/* HAND_cold: free one page. */
static void cp_hand_cold(struct cpro *c)
{
	u64 n = 0;

	for (;;) {
		u32 h = c->cold, v;
		int m;

		if (++n > c->guard)
			die("clockpro: HAND_cold does not terminate");
		if (!(c->f[h] & PG_HOT) && !(c->f[h] & PG_RES))
			c->anomalies++;
		if (!(c->f[h] & PG_REF) || !(c->f[h] & PG_TEST)) {
			/* evict */
			c->f[h] &= ~PG_RES;
			c->free++;
			c->cold = c->pv[h];
			v = c->nx[c->cold];
			if (c->f[v] & PG_TEST)
				c->nnonres++;
			else
				cp_unlink(c, v, true);
			cp_cold_next(c);
			if (!(c->f[c->cold] & PG_RES))
				c->anomalies++;
			cp_hand_test(c, false);
			return;
		}

		cp_bound_credits(c);
		if (c->credits < 0) {
			/* promote without running HAND_hot */
			c->cold = c->pv[h];
			cp_unlink(c, h, false);
			c->f[h] |= PG_HOT;
			c->nhot++;
			c->promote_cold++;
			cp_push_head(c, h);
			c->credits++;
		} else if (c->credits > 0) {
			/* demote a hot page, keep the accessed one cold */
			m = cp_hand_hot(c, h);
			if (!m) {
				c->cold = c->pv[h];
				cp_unlink(c, h, false);
				c->f[c->cold] |= PG_REF;
				c->f[h] |= PG_TEST;
				cp_push_head(c, h);
				c->credits--;
			} else {
				c->f[h] &= ~PG_REF;
				if (m == 2)
					c->credits--;
				continue;	/* re-examine the same page */
			}
		} else {
			/* one promotion, one demotion */
			m = cp_hand_hot(c, h);
			if (m != 1) {
				c->cold = c->pv[h];
				cp_unlink(c, h, false);
				cp_push_head(c, h);
				c->f[h] |= PG_HOT;
				c->nhot++;
				c->promote_cold++;
			}
		}
		cp_cold_next(c);
	}
}

static void cp_miss(struct cpro *c, u32 p)
{
	int m;

	if (c->free > c->min_cold) {
		/* warm-up: a hot page */
		c->f[p] |= PG_RES | PG_HOT;
		c->free--;
		c->nhot++;
		if (c->hot == SIM_NIL) {
			c->nx[p] = p;
			c->pv[p] = p;
			c->hot = p;
			c->test = p;
			c->head = p;
			c->f[p] |= PG_CLOCK;
		} else {
			cp_push_head(c, p);
		}
		return;
	}
	if (c->free > 0) {
		/* warm-up: a cold page in its test period */
		c->f[p] |= PG_RES | PG_TEST;
		c->free--;
		if (c->cold == SIM_NIL)
			c->cold = p;
		cp_push_head(c, p);
		return;
	}

	for (;;) {
		if (!(c->f[p] & PG_CLOCK)) {
			/* not on the clock: a new cold page in test */
			if (c->free == 0)
				cp_hand_cold(c);
			c->f[p] |= PG_RES;
			c->free--;
			cp_push_head(c, p);
			c->f[p] |= PG_TEST;
			return;
		}
		/* nonresident cold page in its test period */
		cp_hand_cold(c);
		if (!(c->f[p] & PG_CLOCK))
			continue;
		m = cp_hand_hot(c, p);
		if (m == 1)
			continue;
		c->f[p] |= PG_RES | PG_HOT;
		c->free--;
		c->nhot++;
		c->promote_refault++;
		cp_credit(c, 1);
		if (c->f[p] & PG_CLOCK) {
			if (m == 2)
				c->anomalies++;
			if (p == c->test)
				c->test = c->pv[p];
			cp_unlink(c, p, false);
			c->f[p] |= PG_RES | PG_HOT;
			c->nnonres--;
		}
		cp_push_head(c, p);
		return;
	}
}

static int cp_run(struct run *r, double min_pct, double max_pct,
		  bool adaptive)
{
	const struct trace *t = r->tr;
	u32 n = t->npages ? t->npages : 1;
	struct cpro c;
	u64 i, warm = 0;

	if (r->cache < 5)
		die("clockpro: cache must be at least 5 pages");
	memset(&c, 0, sizeof(c));
	c.nx = xmalloc(n * sizeof(u32));
	c.pv = xmalloc(n * sizeof(u32));
	c.f = xcalloc(n, 1);
	c.head = SIM_NIL;
	c.hot = SIM_NIL;
	c.cold = SIM_NIL;
	c.test = SIM_NIL;
	c.mem = (s64)r->cache;
	c.free = c.mem;
	c.adaptive = adaptive;
	c.guard = 16 * (u64)c.mem + 64;
	/* the reference code's band computation, in double like it */
	c.min_cold = (s64)(min_pct / 100.0 * (double)c.mem);
	if (c.min_cold < 2)
		c.min_cold = 2;
	if (max_pct < min_pct) {
		c.max_cold = c.min_cold;
	} else {
		c.max_cold = (s64)(max_pct / 100.0 * (double)c.mem);
		if (c.max_cold < 2)
			c.max_cold = 2;
	}
	c.cold_lo = c.mem;
	c.cold_hi = 0;

	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];

		if (c.f[p] & PG_RES) {
			c.f[p] |= PG_REF;
			run_hit(r, i);
		} else {
			cp_miss(&c, p);
			c.f[p] &= ~PG_REF;
		}
		if (c.free == 0) {
			s64 cold = cp_cold(&c);

			warm = 1;
			if (cold < c.cold_lo)
				c.cold_lo = cold;
			if (cold > c.cold_hi)
				c.cold_hi = cold;
		}
		if (r->o->sample && (i + 1) % r->o->sample == 0)
			fprintf(stderr,
				"%s %s %llu ref %llu: cold %lld nonres %lld "
				"credits %lld\n", t->name, r->policy,
				(unsigned long long)r->cache,
				(unsigned long long)i + 1,
				(long long)cp_cold(&c), (long long)c.nnonres,
				(long long)c.credits);
	}
	run_stat(r, "cold_min", (double)c.min_cold);
	run_stat(r, "cold_max", (double)c.max_cold);
	run_stat(r, "cold_final", (double)cp_cold(&c));
	run_stat(r, "cold_low", warm ? (double)c.cold_lo : 0);
	run_stat(r, "cold_high", warm ? (double)c.cold_hi : 0);
	run_stat(r, "nonres_final", (double)c.nnonres);
	run_stat(r, "promote_refault", (double)c.promote_refault);
	run_stat(r, "promote_cold", (double)c.promote_cold);
	run_stat(r, "demotions", (double)c.demotions);
	run_stat(r, "test_ends", (double)c.test_ends);
	run_stat(r, "anomalies", (double)c.anomalies);
	free(c.nx);
	free(c.pv);
	free(c.f);
	return 0;
}

int run_clockpro(struct run *r)
{
	return cp_run(r, r->o->cold_min_pct, r->o->cold_max_pct, true);
}

int run_clockpro_fixed(struct run *r)
{
	return cp_run(r, r->o->fixed_cold_pct, r->o->fixed_cold_pct, false);
}
