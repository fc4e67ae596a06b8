// SPDX-License-Identifier: GPL-2.0
/*
 * The textbook policies: LRU, CLOCK, OPT (Belady) and ARC.
 *
 * Conventions (they reproduce the reference hit ratios of the LIRS trace
 * set, traces/lirs/README.md):
 *  - consecutive repeats never reach a policy (they are hits, main.c);
 *  - CLOCK: a frame array swept by one hand; a miss takes the first frame
 *    whose reference bit is clear (clearing bits on the way), loads the
 *    page with its bit clear and moves the hand past it; a hit sets the
 *    bit.  While the cache is filling, frames are used in order.  Unlike
 *    the other policies, CLOCK does see consecutive repeats: they are
 *    hits that set the reference bit (this is what reproduces the
 *    README's CLOCK column; skipping them is off by up to 0.15 point).
 *  - OPT: on a miss with a full cache, evict the resident page whose next
 *    use is farthest (never = infinitely far); the missing page is always
 *    loaded (demand paging, no bypass).  Exact: a max-heap over next-use
 *    times, updated on every reference.
 */
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "sim.h"

/* === LRU === */

int run_lru(struct run *r)
{
	const struct trace *t = r->tr;
	struct ilinks k;
	struct ilist l;
	u8 *res = xcalloc(t->npages ? t->npages : 1, 1);
	u64 i;

	il_links_alloc(&k, t->npages);
	il_init(&l);
	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];

		if (res[p]) {
			run_hit(r, i);
			il_del(&k, &l, p);
		} else {
			if (l.count == r->cache)
				res[il_pop_tail(&k, &l)] = 0;
			res[p] = 1;
		}
		il_add_head(&k, &l, p);
	}
	il_links_free(&k);
	free(res);
	return 0;
}

/* === CLOCK === */

int run_clock(struct run *r)
{
	const struct trace *t = r->tr;
	u32 *frame = xmalloc(r->cache * sizeof(u32));
	u8 *ref = xcalloc(r->cache, 1);
	u32 *where = xmalloc((size_t)(t->npages ? t->npages : 1) *
			     sizeof(u32));
	u64 used = 0, hand = 0, i;

	memset(where, 0xff, (size_t)t->npages * sizeof(u32));
	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];
		u64 f;

		if (where[p] != SIM_NIL) {
			run_hit(r, i);
			ref[where[p]] = 1;
			continue;
		}
		if (used < r->cache) {
			f = used++;
		} else {
			while (ref[hand]) {
				ref[hand] = 0;
				hand = hand + 1 == r->cache ? 0 : hand + 1;
			}
			f = hand;
			where[frame[f]] = SIM_NIL;
			hand = hand + 1 == r->cache ? 0 : hand + 1;
		}
		frame[f] = p;
		/* a repeat right after the miss sets the bit */
		ref[f] = t->rep[i] != 0;
		where[p] = (u32)f;
	}
	free(frame);
	free(ref);
	free(where);
	return 0;
}

/* === OPT === */

struct opt_heap {
	u32 *page;		/* heap of resident pages */
	u32 *key;		/* next use of heap[i] */
	u32 *pos;		/* page -> heap index, SIM_NIL if absent */
	u64 n;
};

static inline void oh_swap(struct opt_heap *h, u64 a, u64 b)
{
	u32 p = h->page[a], k = h->key[a];

	h->page[a] = h->page[b];
	h->key[a] = h->key[b];
	h->page[b] = p;
	h->key[b] = k;
	h->pos[h->page[a]] = (u32)a;
	h->pos[h->page[b]] = (u32)b;
}

static void oh_up(struct opt_heap *h, u64 i)
{
	while (i > 0) {
		u64 up = (i - 1) / 2;

		if (h->key[up] >= h->key[i])
			break;
		oh_swap(h, up, i);
		i = up;
	}
}

static void oh_down(struct opt_heap *h, u64 i)
{
	for (;;) {
		u64 l = 2 * i + 1, big = i;

		if (l < h->n && h->key[l] > h->key[big])
			big = l;
		if (l + 1 < h->n && h->key[l + 1] > h->key[big])
			big = l + 1;
		if (big == i)
			break;
		oh_swap(h, i, big);
		i = big;
	}
}

int run_opt(struct run *r)
{
	struct trace *t = (struct trace *)r->tr;
	const u32 *nu = trace_next_use(t);
	struct opt_heap h;
	u64 i;

	h.page = xmalloc(r->cache * sizeof(u32));
	h.key = xmalloc(r->cache * sizeof(u32));
	h.pos = xmalloc((size_t)(t->npages ? t->npages : 1) * sizeof(u32));
	memset(h.pos, 0xff, (size_t)t->npages * sizeof(u32));
	h.n = 0;
	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];
		u64 j;

		if (h.pos[p] != SIM_NIL) {
			/* The key only grows: it was i, now the next use. */
			run_hit(r, i);
			j = h.pos[p];
			h.key[j] = nu[i];
			oh_up(&h, j);
			continue;
		}
		if (h.n == r->cache) {
			h.pos[h.page[0]] = SIM_NIL;
			h.n--;
			if (h.n) {
				h.page[0] = h.page[h.n];
				h.key[0] = h.key[h.n];
				h.pos[h.page[0]] = 0;
				oh_down(&h, 0);
			}
		}
		j = h.n++;
		h.page[j] = p;
		h.key[j] = nu[i];
		h.pos[p] = (u32)j;
		oh_up(&h, j);
	}
	free(h.page);
	free(h.key);
	free(h.pos);
	return 0;
}

/* === ARC (Megiddo & Modha, FAST 2003) === */

enum { ARC_NONE, ARC_T1, ARC_T2, ARC_B1, ARC_B2 };

struct arc {
	struct ilinks k;
	struct ilist l[5];
	u8 *where;
	double p;
	u64 c;
};

static void arc_move(struct arc *a, u32 x, int to)
{
	if (a->where[x] != ARC_NONE)
		il_del(&a->k, &a->l[a->where[x]], x);
	a->where[x] = (u8)to;
	if (to != ARC_NONE)
		il_add_head(&a->k, &a->l[to], x);
}

static void arc_replace(struct arc *a, bool in_b2)
{
	u64 t1 = a->l[ARC_T1].count;

	if (t1 >= 1 && ((double)t1 > a->p || (in_b2 && (double)t1 == a->p)))
		arc_move(a, a->l[ARC_T1].tail, ARC_B1);
	else if (a->l[ARC_T2].count)
		arc_move(a, a->l[ARC_T2].tail, ARC_B2);
	else if (t1)
		arc_move(a, a->l[ARC_T1].tail, ARC_B1);
}

int run_arc(struct run *r)
{
	const struct trace *t = r->tr;
	struct arc a;
	u64 i;
	int j;

	memset(&a, 0, sizeof(a));
	il_links_alloc(&a.k, t->npages);
	for (j = 0; j < 5; j++)
		il_init(&a.l[j]);
	a.where = xcalloc(t->npages ? t->npages : 1, 1);
	a.c = r->cache;
	for (i = 0; i < t->nseq; i++) {
		u32 x = t->seq[i];
		u64 b1 = a.l[ARC_B1].count, b2 = a.l[ARC_B2].count;
		u64 l1, total;

		switch (a.where[x]) {
		case ARC_T1:
		case ARC_T2:
			run_hit(r, i);
			arc_move(&a, x, ARC_T2);
			continue;
		case ARC_B1:
			a.p += b1 >= b2 ? 1.0 : (double)b2 / (double)b1;
			if (a.p > (double)a.c)
				a.p = (double)a.c;
			arc_replace(&a, false);
			arc_move(&a, x, ARC_T2);
			continue;
		case ARC_B2:
			a.p -= b2 >= b1 ? 1.0 : (double)b1 / (double)b2;
			if (a.p < 0)
				a.p = 0;
			arc_replace(&a, true);
			arc_move(&a, x, ARC_T2);
			continue;
		}
		l1 = a.l[ARC_T1].count + b1;
		total = l1 + a.l[ARC_T2].count + b2;
		if (l1 == a.c) {
			if (a.l[ARC_T1].count < a.c) {
				arc_move(&a, a.l[ARC_B1].tail, ARC_NONE);
				arc_replace(&a, false);
			} else {
				arc_move(&a, a.l[ARC_T1].tail, ARC_NONE);
			}
		} else if (total >= a.c) {
			if (total == 2 * a.c)
				arc_move(&a, a.l[ARC_B2].tail, ARC_NONE);
			arc_replace(&a, false);
		}
		arc_move(&a, x, ARC_T1);
	}
	run_stat(r, "p_final", a.p);
	il_links_free(&a.k);
	free(a.where);
	return 0;
}
