/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Nonresident page table: remembers recently evicted pages in 4 bytes each
 * and tells, when one comes back, how many evictions ago it left.
 * See the comment at the top of module/nonres.c for the design.
 */
#ifndef _CLOCKPRO_NONRES_H
#define _CLOCKPRO_NONRES_H

#include "platform.h"

/* One 64-byte bucket holds 16 cookies: exactly 4 bytes per remembered page. */
#define CP_BUCKET_SLOTS		16
#define CP_BUCKET_BYTES		(CP_BUCKET_SLOTS * sizeof(u32))

/*
 * Cookie layout (32 bits):
 *   [31..21]  eviction timestamp, in steps of 2^shift evictions (11 bits)
 *   [20]      the page had been on the active list (PG_workingset)
 *   [19..0]   check bits of the key hash (never all zero)
 * A zero cookie is an empty slot.
 */
#define CP_TS_BITS		11
#define CP_TS_SHIFT		(32 - CP_TS_BITS)
#define CP_TS_RANGE		BIT(CP_TS_BITS)
#define CP_TS_MASK		(CP_TS_RANGE - 1)
#define CP_TS_FUTURE		256	/* steps ahead read as "now" */
#define CP_FLAG_ACTIVE		BIT(20)
#define CP_CHECK_BITS		20
#define CP_CHECK_MASK		(BIT(CP_CHECK_BITS) - 1)
/* Timestamp steps per table capacity (2^CP_STEPS_SHIFT .. 2^(+1)) */
#define CP_STEPS_SHIFT		8

/* Special "mapping" value for swap-cache keys: index is the swap entry. */
#define CP_SWAP_MAPPING		1UL

struct cp_table {
	u32 *slots;		/* nbuckets * CP_BUCKET_SLOTS cookies */
	u32 nbuckets;
	u32 shift;		/* log2 of evictions per timestamp step */
	u64 capacity;		/* nbuckets * CP_BUCKET_SLOTS */
	u64 max_age;		/* older entries have expired (Beyond) */
	cp_atomic64_t clock;	/* eviction clock, in pages */
};

/* Result of cp_table_remember(): what the new entry replaced. */
enum cp_remember_result {
	CP_REMEMBER_EMPTY,	/* an empty slot */
	CP_REMEMBER_EXPIRED,	/* a slot freed of entries older than max_age */
	CP_REMEMBER_DISPLACED,	/* the bucket's oldest live entry */
	CP_REMEMBER_RACED,	/* lost a race three times; nothing stored */
};

/* Result of cp_table_lookup(). */
struct cp_refault {
	u64 distance;		/* evictions since the page was evicted */
	u32 flags;		/* CP_FLAG_* stored at eviction */
};

u64 cp_key_hash(unsigned long mapping, unsigned long ino, u32 gen,
		unsigned long index);
u32 cp_table_buckets(u64 entries);
size_t cp_table_bytes(u32 nbuckets);
void cp_table_init(struct cp_table *t, u32 *slots, u32 nbuckets);
u64 cp_table_clock_advance(struct cp_table *t, u32 nr);
enum cp_remember_result cp_table_remember(struct cp_table *t, u64 hash,
					  u64 when, u32 flags, u32 *expired);
bool cp_table_lookup(struct cp_table *t, u64 hash, u64 now,
		     struct cp_refault *r);
u64 cp_table_count_range(const struct cp_table *t, u64 now, u64 from, u64 to);
u64 cp_table_count(const struct cp_table *t, u64 now);

/*
 * A local eviction clock: the evictions of one lruvec, and where it stood
 * each time the table's global clock crossed a multiple of 2^shift, for
 * the last CP_LCLOCK_SAMPLES such points.  It turns a global refault
 * distance into the lruvec's own (cp_lclock_distance()).  Not locked:
 * the caller serialises.
 */
#define CP_LCLOCK_SAMPLES	128

struct cp_lclock {
	u64 now;			/* evictions so far */
	u64 first;			/* first sample index recorded */
	u64 next;			/* one past the last; 0: none yet */
	u32 at[CP_LCLOCK_SAMPLES];	/* low 32 bits of now at each */
};

static inline u32 cp_lclock_shift(const struct cp_table *t)
{
	/* CP_LCLOCK_SAMPLES samples cover max_age: 2^11 / 2 / 128 steps */
	return t->shift + CP_TS_BITS - 1 - 7;
}

void cp_lclock_advance(struct cp_lclock *lc, u32 shift, u64 global, u32 nr);
u64 cp_lclock_distance(const struct cp_lclock *lc, u32 shift, u64 global,
		       u64 distance);

static inline u64 cp_table_clock(const struct cp_table *t)
{
	return (u64)cp_atomic64_read(&t->clock);
}

#endif /* _CLOCKPRO_NONRES_H */
