/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Index-linked lists over page ids: every page is on at most one list of a
 * set sharing the same next/prev arrays.  Head = most recent.
 */
#ifndef _CLOCKPRO_SIM_LIST_H
#define _CLOCKPRO_SIM_LIST_H

#include <stdlib.h>

#include "sim.h"

struct ilinks {
	u32 *next;
	u32 *prev;
};

struct ilist {
	u32 head;
	u32 tail;
	u64 count;
};

static inline void il_init(struct ilist *l)
{
	l->head = SIM_NIL;
	l->tail = SIM_NIL;
	l->count = 0;
}

static inline void il_links_alloc(struct ilinks *k, u32 n)
{
	k->next = xmalloc((size_t)(n ? n : 1) * sizeof(u32));
	k->prev = xmalloc((size_t)(n ? n : 1) * sizeof(u32));
}

static inline void il_links_free(struct ilinks *k)
{
	free(k->next);
	free(k->prev);
}

static inline void il_add_head(struct ilinks *k, struct ilist *l, u32 p)
{
	k->prev[p] = SIM_NIL;
	k->next[p] = l->head;
	if (l->head != SIM_NIL)
		k->prev[l->head] = p;
	else
		l->tail = p;
	l->head = p;
	l->count++;
}

static inline void il_del(struct ilinks *k, struct ilist *l, u32 p)
{
	u32 n = k->next[p], v = k->prev[p];

	if (v != SIM_NIL)
		k->next[v] = n;
	else
		l->head = n;
	if (n != SIM_NIL)
		k->prev[n] = v;
	else
		l->tail = v;
	l->count--;
}

/* Removes and returns the tail (least recent), SIM_NIL if empty. */
static inline u32 il_pop_tail(struct ilinks *k, struct ilist *l)
{
	u32 p = l->tail;

	if (p != SIM_NIL)
		il_del(k, l, p);
	return p;
}

#endif /* _CLOCKPRO_SIM_LIST_H */
