// SPDX-License-Identifier: GPL-2.0
/*
 * LIRS (Jiang, Zhang, SIGMETRICS 2002), behaving like the authors'
 * reference simulator lirs.c (Song Jiang, 2002).
 *
 * Stack S holds LIR pages and recently seen HIR pages (resident or not) in
 * recency order, its bottom always a LIR page; queue Q holds the resident
 * HIR pages, lirs_hir_pct of the cache (1 %, at least 2 pages).  A miss
 * with a full cache evicts the front of Q (the page may stay in S).  A HIR
 * page referenced while in S becomes LIR and the bottom LIR page moves to
 * the end of Q; S is then pruned down to its new bottom LIR page.  The
 * first cache - |Q| misses load LIR pages.  The stack is not otherwise
 * bounded (the reference limit is 2500 times the cache).
 */
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "sim.h"

#define LP_RES		0x01
#define LP_HIR		0x02	/* clear: LIR */
#define LP_INS		0x04	/* in stack S */
#define LP_INQ		0x08	/* in queue Q */

struct lirs {
	struct ilinks s;	/* stack S, head = top */
	struct ilinks q;	/* queue Q, head = end, tail = front */
	struct ilist ls, lq;
	u8 *f;
};

/* Remove HIR pages from the bottom of S until a LIR page is there. */
static void lirs_prune(struct lirs *l)
{
	while (l->ls.tail != SIM_NIL && (l->f[l->ls.tail] & LP_HIR)) {
		u32 p = l->ls.tail;

		il_del(&l->s, &l->ls, p);
		l->f[p] &= ~LP_INS;
	}
}

int run_lirs(struct run *r)
{
	const struct trace *t = r->tr;
	u32 n = t->npages ? t->npages : 1;
	struct lirs l;
	u64 hir_max, nlir = 0, free_slots = r->cache, i;

	if (r->cache < 10)
		die("lirs: cache must be at least 10 pages");
	hir_max = (u64)(r->o->lirs_hir_pct / 100.0 * (double)r->cache);
	if (hir_max < 2)
		hir_max = 2;
	memset(&l, 0, sizeof(l));
	il_links_alloc(&l.s, n);
	il_links_alloc(&l.q, n);
	il_init(&l.ls);
	il_init(&l.lq);
	l.f = xcalloc(n, 1);
	for (i = 0; i < n; i++)
		l.f[i] = LP_HIR;

	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];
		bool was_bottom;

		if (!(l.f[p] & LP_RES)) {
			if (free_slots == 0) {
				u32 v = il_pop_tail(&l.q, &l.lq);

				l.f[v] &= ~(LP_RES | LP_INQ);
				free_slots++;
			} else if (free_slots > hir_max) {
				l.f[p] &= ~LP_HIR;
				nlir++;
			}
			free_slots--;
		} else {
			run_hit(r, i);
			if (l.f[p] & LP_INQ) {
				il_del(&l.q, &l.lq, p);
				l.f[p] &= ~LP_INQ;
			}
		}

		/* move to the top of S */
		was_bottom = false;
		if (l.f[p] & LP_INS) {
			was_bottom = l.ls.tail == p;
			il_del(&l.s, &l.ls, p);
		}
		il_add_head(&l.s, &l.ls, p);
		if (was_bottom)
			lirs_prune(&l);
		l.f[p] |= LP_RES;

		if ((l.f[p] & LP_HIR) && (l.f[p] & LP_INS)) {
			/* HIR page with a small reuse distance: now LIR */
			l.f[p] &= ~LP_HIR;
			nlir++;
			if (nlir > r->cache - hir_max) {
				u32 b = l.ls.tail;

				il_del(&l.s, &l.ls, b);
				l.f[b] &= ~LP_INS;
				l.f[b] |= LP_HIR | LP_INQ;
				il_add_head(&l.q, &l.lq, b);
				nlir--;
				lirs_prune(&l);
			}
		} else if (l.f[p] & LP_HIR) {
			il_add_head(&l.q, &l.lq, p);
			l.f[p] |= LP_INQ;
		}
		l.f[p] |= LP_INS;
	}
	run_stat(r, "hir_resident_max", (double)hir_max);
	run_stat(r, "stack_final", (double)l.ls.count);
	il_links_free(&l.s);
	il_links_free(&l.q);
	free(l.f);
	return 0;
}
