/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of the nonresident table, for the unit tests and the
 * fuzzer.
 *
 * The model keeps, per bucket, the multiset of cookies that the top
 * comment of module/nonres.c says must be there, each with the exact
 * eviction time and key it came from.  After every operation it compares
 * that multiset with the real bucket (the slot order is free: the model
 * never guesses which slot is used), and checks the operation's result:
 *
 *  remember	an empty slot, else an expired entry, else the oldest live
 *		entry is replaced; the result names which; RACED never
 *		happens single-threaded
 *  lookup	hits iff a live cookie with the key's check value is there;
 *		the youngest such is consumed; distance = age in steps <<
 *		shift; flags as stored
 *  count	the number of live cookies
 *
 * Where several entries qualify (ties in age, an empty and an expired slot
 * both present), the model reads which one the table took and accepts any
 * of them.
 *
 * The table may also drop expired entries whenever it touches their
 * bucket (a design choice left open): the model accepts that.
 *
 * Liveness comes in two flavours:
 *
 *  strict	the spec: an entry is live iff its true age, in steps, is at
 *		most 2^10 (max_age); an entry stamped later than the operation
 *		(a remember with a stale @when, as CPUs racing on the clock
 *		produce) is live and youngest.  An entry past max_age may come
 *		back (its timestamp wrapped) only if no remember into its
 *		bucket ever saw it expired: that is the spec's own argument
 *		("its bucket would have to see no insertion for max_age
 *		evictions"), which a fuzzer, choosing the keys, can defeat.
 *  modular	what an 11-bit timestamp shows: the age is taken mod 2^11,
 *		so old entries come back to life; entries up to CP_TS_FUTURE
 *		steps in the future read as age 0.  Exactly module/nonres.c.
 *
 * The differences between the two are the known bugs reported with the
 * tests (test_nonres.c: expiry_alias_*, remember_stale_when).
 *
 * Independently of the flavour, every hit is checked against the truth:
 * the consumed entry's true distance is within one step of the answer, and
 * (strict) it is not an entry that was seen expired.
 *
 * The bucket and check value are recomputed here from the layout that
 * nonres.c documents (high half of the hash, Lemire reduction; low 20 bits,
 * zero mapped to one); test_nonres.c checks that they agree.
 */
#ifndef _CP_NONRES_MODEL_H
#define _CP_NONRES_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clockpro/nonres.h"

static inline u32 ref_bucket(u64 hash, u32 nbuckets)
{
	return (u32)(((hash >> 32) * (u64)nbuckets) >> 32);
}

static inline u32 ref_check(u64 hash)
{
	u32 c = (u32)hash & CP_CHECK_MASK;

	return c ? c : 1;
}

static inline u32 ref_ts(u64 clock, u32 shift)
{
	return (u32)(clock >> shift) & CP_TS_MASK;
}

/* True age in steps of an entry evicted at @when, seen at @now (signed). */
static inline s64 ref_age_steps(u64 now, u64 when, u32 shift)
{
	u64 m = shift ? (1ULL << (64 - shift)) - 1 : ~0ULL;
	u64 d = ((now >> shift) - (when >> shift)) & m;

	/* Sign-extend from 64 - shift bits: "future" entries are negative. */
	if (shift && (d >> (63 - shift)))
		d |= ~m;
	return (s64)d;
}

struct model_ent {
	u32 cookie;
	u32 flags;
	u64 when;
	u64 key;
	bool dead_seen;	/* a remember saw it expired (strict flavour) */
};

struct model_bucket {
	int n;
	struct model_ent e[CP_BUCKET_SLOTS];
};

struct model_stats {
	u64 remembers, empty, expired, displaced, cleared;
	u64 lookups, hits, collisions, aliased_hits, future;
	u64 counts;
};

struct model {
	struct cp_table *t;
	struct model_bucket *b;
	bool strict;
	char err[256];		/* first failure, empty if none */
	struct model_stats st;
};

static inline int model_init(struct model *m, struct cp_table *t, bool strict)
{
	memset(m, 0, sizeof(*m));
	m->t = t;
	m->strict = strict;
	m->b = calloc(t->nbuckets, sizeof(*m->b));
	return m->b ? 0 : -1;
}

static inline void model_free(struct model *m)
{
	free(m->b);
	m->b = NULL;
}

#define model_fail(m, ...)						\
	do {								\
		if (!(m)->err[0])					\
			snprintf((m)->err, sizeof((m)->err), __VA_ARGS__); \
	} while (0)

#define MODEL_HALF	((s64)(CP_TS_RANGE / 2))

/* The age in steps that an 11-bit timestamp shows. */
static inline s64 model_mod_age(const struct model *m,
				const struct model_ent *e, u64 now)
{
	s64 a = (ref_ts(now, m->t->shift) - (e->cookie >> CP_TS_SHIFT)) &
		CP_TS_MASK;

	/* Up to CP_TS_FUTURE steps ahead of @now reads as age 0. */
	return a >= (s64)CP_TS_RANGE - CP_TS_FUTURE ? 0 : a;
}

/*
 * Age in steps as the flavour sees it; -1 = expired.  Strict: by true age;
 * an entry that went past max_age may alias back to life only if no
 * remember into its bucket saw it expired (the spec's own excuse: "its
 * bucket would have to see no insertion").
 */
static inline s64 model_age(const struct model *m, const struct model_ent *e,
			    u64 now)
{
	s64 a;

	if (m->strict) {
		a = ref_age_steps(now, e->when, m->t->shift);
		if (a < 0)
			return 0;
		if (a <= MODEL_HALF)
			return a;
		if (e->dead_seen)
			return -1;
	}
	a = model_mod_age(m, e, now);
	return a > MODEL_HALF ? -1 : a;
}

static inline int model_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return (x > y) - (x < y);
}

/*
 * Compare bucket @bi of the table with the model plus @extra (0: none).
 * Fills @lost with the model indices of the cookies that the table no
 * longer has and returns how many, or -1 if the table holds a cookie the
 * model does not (or lost @extra).  Identical cookies are interchangeable:
 * the first model entries carrying one are named.
 */
static inline int model_diff(const struct model *m, u32 bi, u32 extra,
			     int *lost)
{
	const struct model_bucket *mb = &m->b[bi];
	const u32 *slots = m->t->slots + (u64)bi * CP_BUCKET_SLOTS;
	u32 real[CP_BUCKET_SLOTS];
	bool used[CP_BUCKET_SLOTS] = { false };
	int nr = 0, nl = 0, i, j;

	for (i = 0; i < CP_BUCKET_SLOTS; i++)
		if (READ_ONCE(slots[i]))
			real[nr++] = READ_ONCE(slots[i]);
	/* Each real cookie must be claimed by the model or be @extra. */
	for (j = 0; j < nr; j++) {
		if (extra && real[j] == extra) {
			extra = 0;
			continue;
		}
		for (i = 0; i < mb->n; i++)
			if (!used[i] && mb->e[i].cookie == real[j])
				break;
		if (i == mb->n)
			return -1;
		used[i] = true;
	}
	if (extra)
		return -1;
	for (i = 0; i < mb->n; i++)
		if (!used[i])
			lost[nl++] = i;
	return nl;
}

/* Drop the model entries listed in @lost (@nl of them). */
static inline void model_drop(struct model_bucket *mb, const int *lost, int nl)
{
	bool gone[CP_BUCKET_SLOTS] = { false };
	int i, k = 0;

	for (i = 0; i < nl; i++)
		gone[lost[i]] = true;
	for (i = 0; i < mb->n; i++)
		if (!gone[i])
			mb->e[k++] = mb->e[i];
	mb->n = k;
}

static inline void model_remember(struct model *m, u64 key, u64 hash,
				  u64 when, u32 flags)
{
	struct cp_table *t = m->t;
	u32 bi = ref_bucket(hash, t->nbuckets);
	struct model_bucket *mb = &m->b[bi];
	u32 cookie = ref_ts(when, t->shift) << CP_TS_SHIFT |
		     (flags & CP_FLAG_ACTIVE) | ref_check(hash);
	enum cp_remember_result res;
	s64 oldest = -1, age[CP_BUCKET_SLOTS];
	int lost[CP_BUCKET_SLOTS], ndead = 0, nlive_lost = 0, nl, i;
	u32 gone;

	for (i = 0; i < mb->n; i++) {
		age[i] = model_age(m, &mb->e[i], when);
		if (age[i] < 0)
			ndead++;
		else if (age[i] > oldest)
			oldest = age[i];
	}

	res = cp_table_remember(t, hash, when, flags, &gone);
	m->st.remembers++;
	nl = model_diff(m, bi, cookie, lost);
	if (nl < 0) {
		model_fail(m, "remember: bucket %u content differs from model",
			   bi);
		return;
	}
	for (i = 0; i < nl; i++)
		nlive_lost += age[lost[i]] >= 0;

	switch (res) {
	case CP_REMEMBER_EMPTY:
		m->st.empty++;
		if (mb->n - nl >= CP_BUCKET_SLOTS)
			model_fail(m, "remember: EMPTY but bucket %u is full",
				   bi);
		else if (nlive_lost)
			model_fail(m, "remember: EMPTY but a live entry is gone");
		break;
	case CP_REMEMBER_EXPIRED:
		m->st.expired++;
		if (!nl) {
			model_fail(m, "remember: EXPIRED but nothing replaced");
			break;
		}
		for (i = 0; i < nl; i++) {
			const struct model_ent *e = &mb->e[lost[i]];

			if (age[lost[i]] < 0)
				continue;
			model_fail(m,
				   "remember: EXPIRED replaced a live entry (%lld steps old: when %llu, entry's %llu)",
				   (long long)ref_age_steps(when, e->when,
							    t->shift),
				   (unsigned long long)when,
				   (unsigned long long)e->when);
		}
		break;
	case CP_REMEMBER_DISPLACED:
		m->st.displaced++;
		if (nlive_lost != 1)
			model_fail(m, "remember: DISPLACED %d live entries",
				   nlive_lost);
		else if (mb->n < CP_BUCKET_SLOTS || ndead)
			model_fail(m,
				   "remember: displaced a live entry with %d empty and %d expired slots",
				   CP_BUCKET_SLOTS - mb->n, ndead);
		for (i = 0; i < nl; i++)
			if (age[lost[i]] >= 0 && age[lost[i]] != oldest)
				model_fail(m,
					   "remember: displaced an entry %lld steps old, the oldest is %lld",
					   (long long)age[lost[i]],
					   (long long)oldest);
		break;
	default:
		model_fail(m, "remember: result %d single-threaded", res);
		return;
	}
	if (m->err[0])
		return;
	/* Entries that left without being counted by @gone or DISPLACED. */
	m->st.cleared += nl - gone - (res == CP_REMEMBER_DISPLACED);
	model_drop(mb, lost, nl);
	{
		struct model_ent *e = &mb->e[mb->n++];

		e->cookie = cookie;
		e->flags = flags & CP_FLAG_ACTIVE;
		e->when = when;
		e->key = key;
		e->dead_seen = false;
	}
	/*
	 * Strict: whatever this remember could see expired must stay dead.
	 * Past 2048 steps the timestamp shows a young age again: an insert
	 * cannot tell, and the spec excuses it.
	 */
	for (i = 0; i < mb->n; i++)
		if (ref_age_steps(when, mb->e[i].when, t->shift) > MODEL_HALF &&
		    model_mod_age(m, &mb->e[i], when) > MODEL_HALF)
			mb->e[i].dead_seen = true;
}

/* Returns 1 on a hit, 0 on a miss. */
static inline int model_lookup(struct model *m, u64 key, u64 hash)
{
	struct cp_table *t = m->t;
	u64 now = cp_table_clock(t);
	u32 bi = ref_bucket(hash, t->nbuckets);
	struct model_bucket *mb = &m->b[bi];
	u32 check = ref_check(hash);
	struct cp_refault r = { 0 };
	s64 best = -1, age[CP_BUCKET_SLOTS];
	int lost[CP_BUCKET_SLOTS], nl, i, primary = -1;
	const struct model_ent *e;
	bool hit;

	for (i = 0; i < mb->n; i++) {
		age[i] = model_age(m, &mb->e[i], now);
		if ((mb->e[i].cookie & CP_CHECK_MASK) != check)
			continue;
		if (age[i] >= 0 && (best < 0 || age[i] < best))
			best = age[i];
	}

	hit = cp_table_lookup(t, hash, now, &r);
	m->st.lookups++;
	nl = model_diff(m, bi, 0, lost);
	if (nl < 0) {
		model_fail(m, "lookup: bucket %u content differs from model",
			   bi);
		return hit;
	}
	for (i = 0; i < nl; i++) {
		if (age[lost[i]] < 0)
			continue;
		if (primary >= 0 || !hit) {
			model_fail(m, "lookup: a live entry vanished");
			return hit;
		}
		primary = lost[i];
	}
	if (!hit) {
		if (best >= 0)
			model_fail(m, "lookup: missed a live entry of age %lld",
				   (long long)best);
		m->st.cleared += nl;
		model_drop(mb, lost, nl);
		return 0;
	}
	m->st.hits++;
	if (best < 0) {
		model_fail(m, "lookup: hit with no live matching entry");
		return 1;
	}
	if (primary < 0) {
		model_fail(m, "lookup: hit but nothing consumed");
		return 1;
	}
	e = &mb->e[primary];
	if ((e->cookie & CP_CHECK_MASK) != check || age[primary] != best) {
		model_fail(m, "lookup: consumed the wrong entry");
		return 1;
	}
	if (r.distance != (u64)best << t->shift)
		model_fail(m, "lookup: distance %llu, model %llu",
			   (unsigned long long)r.distance,
			   (unsigned long long)((u64)best << t->shift));
	if (r.flags != e->flags)
		model_fail(m, "lookup: flags %#x, stored %#x", r.flags,
			   e->flags);

	/* Against the truth, whatever the flavour. */
	{
		s64 steps = ref_age_steps(now, e->when, t->shift);
		u64 truth = now - e->when;
		u64 err = r.distance > truth ? r.distance - truth :
			  truth - r.distance;

		if (steps < 0) {
			m->st.future++;	/* stamped after @now */
		} else if (steps > MODEL_HALF) {
			m->st.aliased_hits++;
			if (m->strict && e->dead_seen)
				model_fail(m,
					   "lookup: hit on an entry %lld steps old (max %lld)",
					   (long long)steps,
					   (long long)MODEL_HALF);
		} else if (err >= (1ULL << t->shift)) {
			model_fail(m,
				   "lookup: distance %llu, true %llu: more than a step",
				   (unsigned long long)r.distance,
				   (unsigned long long)truth);
		}
	}
	if (e->key != key)
		m->st.collisions++;
	m->st.cleared += nl - 1;
	model_drop(mb, lost, nl);
	return 1;
}

static inline void model_count(struct model *m)
{
	u64 now = cp_table_clock(m->t), want = 0, got;
	u32 bi;
	int i;

	for (bi = 0; bi < m->t->nbuckets; bi++)
		for (i = 0; i < m->b[bi].n; i++)
			want += model_age(m, &m->b[bi].e[i], now) >= 0;
	got = cp_table_count(m->t, now);
	m->st.counts++;
	if (got != want)
		model_fail(m, "count: table %llu, model %llu",
			   (unsigned long long)got, (unsigned long long)want);
}

#endif /* _CP_NONRES_MODEL_H */
