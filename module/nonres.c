// SPDX-License-Identifier: GPL-2.0
/*
 * Nonresident page table: which pages were evicted, and how long ago
 *
 *		Remembering evicted pages in 4 bytes
 *
 * CLOCK-Pro decides whether a page is hot by its reuse distance, so it
 * must remember pages after they leave memory ("nonresident cold pages in
 * their test period").  Like the 2005 nonresident.c, the table here keeps
 * a 32-bit cookie per remembered page in a hash table of cache-line sized
 * buckets, each bucket a small circular buffer:
 *
 *	bucket = 64 bytes = 16 cookies
 *
 *	+------+------+------+-- ... --+------+
 *	| c0   | c1   | c2   |         | c15  |
 *	+------+------+------+-- ... --+------+
 *
 * A page (mapping identity, index) hashes to one bucket and to a 20-bit
 * check value; a lookup compares the check against the bucket's 16
 * cookies, one cache miss.  The table is sized to about the number of RAM
 * pages, 4 bytes per remembered page, 1/1024 of RAM.
 *
 *		Refault distance
 *
 * The refault distance of a page is the number of pages evicted between
 * its eviction and its refault (workingset.c's R - E).  The 2005 code
 * derived it from the cookie's position in its bucket: with a good hash
 * every bucket turns at the same speed, so d slots behind the hand means
 * about d * nbuckets evictions.  That estimate has only 15 steps and is
 * poor for short distances, where the Poisson spread of arrivals per
 * bucket is as large as the value itself.
 *
 * Here every cookie carries its own coarse eviction timestamp instead:
 *
 *	31          21 20  19                 0
 *	+-------------+---+--------------------+
 *	|  timestamp  | A |       check        |
 *	+-------------+---+--------------------+
 *
 * A global eviction clock counts evicted pages (a large folio advances it
 * by its size).  The timestamp is that clock divided by 2^shift, modulo
 * 2^11, where shift is chosen at init so that the table capacity is 256 to
 * 512 steps.  The distance is then
 *
 *	distance = ((now >> shift) - ts) mod 2^11, times 2^shift
 *
 * with an error below one step, i.e. under 0.4% of the capacity, or under
 * 8% for a distance of 5% of the capacity (the quantisation is symmetric,
 * so the p95 error is smaller still).  No hand needs to be stored: the
 * bucket's circular order is recovered from the timestamps.  One pass
 * ranks the 16 cookies with a single subtraction and unsigned compare
 * each (cp_rank()): a new entry replaces the oldest expired entry, else
 * an empty slot, else the oldest live entry; an insert that meets an
 * expired entry clears every other expired entry of its bucket too, and
 * counts them.  A lookup compares the check values two cookies at a time
 * in 64-bit words, without branches, and computes an age only for a
 * match.
 *
 * Both read the bucket as eight 64-bit words (two cookies each), so the
 * scans need no per-slot addresses, and both keep the rare cases out of
 * line: an insert whose victim is expired, or whose cmpxchg lost a race,
 * goes to cp_remember_slow(); a lookup returns after the compare on a
 * miss and claims its match in cp_lookup_claim().  Per order-0 page, with
 * the key hash (about 22 instructions) and the caller's loop (callgrind,
 * tools/testing/bench.sh): remember about 214 instructions, lookup hit
 * 178, miss 113; the exact oldest-of-16 ranking is most of the first
 * (about 7 per cookie).
 * Sixteen cookies per line instead of fifteen is what keeps the cost at
 * exactly 4 bytes per page.
 *
 *		Expiry, New and Beyond
 *
 * The 11-bit timestamp covers 2048 steps, 4 to 8 times the capacity.  An
 * entry older than half of that (max_age, 2 to 4 capacities) has expired:
 * it is ignored by lookups and cleared by the next insert into its bucket,
 * so the modular timestamp cannot alias unless the bucket sees no
 * insertion at all for another max_age evictions, while it expects 32 to
 * 64 of them: a probability below e^-32.  Timestamps up to
 * CP_TS_FUTURE (256) steps ahead of the caller's clock are read as age 0:
 * CPUs take their eviction time and store their entry in either order.
 * Ages 1024..1791 are thus expired, 1792..2047 "future".
 *
 * A lookup that misses cannot tell a page never seen (New) from one that
 * fell out (Beyond); the caller settles that with the kernel's own
 * shadow entries.  What the table does report is how entries leave it:
 * consumed by a refault, expired, or displaced as the oldest of a full
 * bucket.  The last two end a CLOCK-Pro test period without reuse.
 *
 * The A bit records that the page had been on the active list (it was a
 * demoted hot page, PG_workingset), for the policy.
 *
 *		False positives and identity
 *
 * A lookup of a page never evicted matches a live cookie of its bucket with
 * probability 16 / 2^20 (1.5e-5).  Keys mix the mapping pointer with the
 * inode number and generation, so a mapping reused by a new inode does not
 * find the entries of the dead one: they become unreachable and expire.
 *
 *		Concurrency
 *
 * No locks.  Inserting picks a victim slot and installs the cookie with
 * cmpxchg, retrying the scan twice if another CPU changed the slot; a
 * lookup claims a matching cookie with cmpxchg to zero, rescanning twice
 * at most, so two CPUs can never both consume the same entry.  A 64-bit
 * bucket word may be read torn on 32-bit machines: each cookie is still
 * read whole, and one that changed fails its cmpxchg.  The probe handlers
 * that call this run with preemption or interrupts disabled and never
 * sleep or allocate.
 */
#include "clockpro/nonres.h"

/*
 * One wide multiply, its two halves folded (wyhash's "mum"): every bit of
 * either factor moves about half of the 64 result bits.
 */
static inline u64 cp_mum(u64 a, u64 b)
{
#ifdef __SIZEOF_INT128__
	__uint128_t p = (__uint128_t)a * b;

	return (u64)p ^ (u64)(p >> 64);
#else
	/* no 128-bit product: a splitmix64-style chain instead */
	u64 x = (a ^ a >> 29) * 0xbf58476d1ce4e5b9ULL ^ b;

	x = (x ^ x >> 31) * 0x94d049bb133111ebULL;
	x = (x ^ x >> 29) * 0xbf58476d1ce4e5b9ULL;
	return x ^ x >> 32;
#endif
}

/**
 * cp_key_hash - hash a page's identity
 * @mapping: address_space pointer, or CP_SWAP_MAPPING for swap entries
 * @ino: inode number of the mapping's host (0 for swap)
 * @gen: inode generation (0 for swap)
 * @index: page index in the mapping, or the swap entry value
 *
 * The mapping and inode form one factor, the index and generation the
 * other; the index enters the first as well, so that the product of
 * consecutive indices is no arithmetic sequence.  The constants keep
 * either factor from being zero for any plausible key.
 *
 * Return: a 64-bit hash; the high half selects the bucket, the low bits
 * form the cookie's check value.
 */
u64 cp_key_hash(unsigned long mapping, unsigned long ino, u32 gen,
		unsigned long index)
{
	u64 a = ((u64)mapping ^ 0xa0761d6478bd642fULL) +
		(u64)ino * 0x9e3779b97f4a7c15ULL;
	u64 b = ((u64)index ^ 0xe7037ed1a0b428dbULL) + (u64)gen * 0x7f4a7c15U;

	u64 x = cp_mum(a, b);

	/* a run of indices makes a near arithmetic sequence: break it */
	x = (x ^ x >> 32) * 0xbf58476d1ce4e5b9ULL;
	return x ^ x >> 29;
}

static inline u32 *cp_bucket(const struct cp_table *t, u64 hash)
{
	/* Lemire's multiply-shift range reduction: any bucket count works. */
	u64 b = ((hash >> 32) * (u64)t->nbuckets) >> 32;

	return t->slots + b * CP_BUCKET_SLOTS;
}

static inline u32 cp_check(u64 hash)
{
	u32 c = (u32)hash & CP_CHECK_MASK;

	return c ? c : 1;
}

static inline u32 cp_ts(const struct cp_table *t, u64 clock)
{
	return (u32)(clock >> t->shift) & CP_TS_MASK;
}

/*
 * Age of a cookie in timestamp steps.  Another CPU may store an entry
 * stamped a step or two after our own @now_ts: such an entry is from the
 * "future", not 2047 steps old, and counts as age 0.
 */
static inline u32 cp_age(u32 cookie, u32 now_ts)
{
	u32 age = (now_ts - (cookie >> CP_TS_SHIFT)) & CP_TS_MASK;

	return age >= CP_TS_RANGE - CP_TS_FUTURE ? 0 : age;
}

static inline bool cp_expired(u32 age)
{
	return age > CP_TS_RANGE / 2;
}

/*
 * Replacement rank of a cookie: the lowest goes first.  Subtracting
 * cp_rank_base() rotates the timestamps so that one unsigned compare
 * orders a bucket as an insert wants it: expired entries (oldest first),
 * then empty slots, then live entries from the oldest to age 0, then
 * those stamped in the "future".  In the top 11 bits, the rank of an
 * entry of age a is 1791 - a (mod 2^11): expired 0..766, age 1024 767,
 * age 0 1791, future 1792..2047.  An empty slot ranks CP_RANK_EMPTY,
 * above every expired cookie and, the check bits never being zero, below
 * every live one.
 */
#define CP_RANK_EMPTY	((u32)(CP_TS_RANGE / 2 - CP_TS_FUTURE - 1) << CP_TS_SHIFT)

static inline u32 cp_rank_base(u32 now_ts)
{
	return (now_ts + CP_TS_FUTURE + 1) << CP_TS_SHIFT;
}

static inline u32 cp_rank(u32 cookie, u32 base)
{
	return cookie ? cookie - base : CP_RANK_EMPTY;
}

/*
 * Lookup compares the check values of two cookies at a time, as the two
 * 32-bit lanes of a 64-bit word: bit 20 of a lane of
 * ((word ^ check in both lanes) & CP_LANE_CHECK) + CP_LANE_CHECK is set
 * iff that lane's check differs (a carry out of a non-zero check field).
 */
#define CP_LANE_CHECK	((u64)CP_CHECK_MASK << 32 | CP_CHECK_MASK)
#define CP_LANE_CARRY	((u64)BIT(CP_CHECK_BITS) << 32 | BIT(CP_CHECK_BITS))
#define CP_WORDS	(CP_BUCKET_SLOTS / 2)

/* Slot of the low 32 bits of a bucket word: 2 * word + CP_LO. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CP_LO		1
#else
#define CP_LO		0
#endif

/**
 * cp_table_buckets - number of buckets for a table of about @entries pages
 * @entries: pages to remember
 *
 * Return: the bucket count, at least one, at most 2^32 - 1.
 */
u32 cp_table_buckets(u64 entries)
{
	u64 n = entries / CP_BUCKET_SLOTS + !!(entries % CP_BUCKET_SLOTS);

	return (u32)clamp(n, (u64)1, (u64)0xffffffffULL);
}

/**
 * cp_table_bytes - memory needed for @nbuckets buckets
 * @nbuckets: bucket count from cp_table_buckets()
 *
 * Return: bytes to allocate, zeroed, for cp_table_init().
 */
size_t cp_table_bytes(u32 nbuckets)
{
	return (size_t)nbuckets * CP_BUCKET_BYTES;
}

/**
 * cp_table_init - set up a table over zeroed memory
 * @t: the table
 * @slots: cp_table_bytes(@nbuckets) bytes of zeroed, 64-byte aligned memory
 * @nbuckets: bucket count
 *
 * Chooses the timestamp granularity so that the capacity spans 256 to 512
 * steps, and starts the eviction clock at zero.
 */
void cp_table_init(struct cp_table *t, u32 *slots, u32 nbuckets)
{
	u64 cap = (u64)nbuckets * CP_BUCKET_SLOTS;
	u32 shift = 0;

	while ((cap >> shift) >= (1ULL << (CP_STEPS_SHIFT + 1)))
		shift++;

	t->slots = slots;
	t->nbuckets = nbuckets;
	t->shift = shift;
	t->capacity = cap;
	t->max_age = (u64)(CP_TS_RANGE / 2) << shift;
	cp_atomic64_set(&t->clock, 0);
}

/**
 * cp_table_clock_advance - count evicted pages
 * @t: the table
 * @nr: pages evicted (folio_nr_pages())
 *
 * Return: the clock value before the advance: the eviction time to store
 * for those pages.
 */
u64 cp_table_clock_advance(struct cp_table *t, u32 nr)
{
	return (u64)cp_atomic64_add_return(nr, &t->clock) - nr;
}

/*
 * Clear every expired entry of a bucket but the one in slot @keep, which
 * the caller replaces.  Return: how many this call cleared.
 */
static u32 cp_sweep(u32 *b, u32 base, u32 keep)
{
	u32 i, n = 0;

	for (i = 0; i < CP_BUCKET_SLOTS; i++) {
		u32 c = READ_ONCE(b[i]);

		if (i != keep && cp_rank(c, base) < CP_RANK_EMPTY &&
		    cp_cmpxchg32(&b[i], c, 0) == c)
			n++;
	}
	return n;
}

static __always_inline void cp_pick(u32 *best, u32 *victim, u32 rank, u32 i)
{
	if (rank < *best) {
		*best = rank;
		*victim = i;
	}
}

/*
 * The lowest cp_rank() of a bucket, and its slot in *@victim.  The bucket
 * is read as 8 words of two cookies: 8 loads, and no addresses to keep.
 */
static __always_inline u32 cp_victim(const u32 *b, u32 base, u32 *victim)
{
	const u64 *w = (const u64 *)b;
	u32 best = ~0U, j;

	*victim = 0;
#pragma GCC unroll 8
	for (j = 0; j < CP_WORDS; j++) {
		u64 v = READ_ONCE(w[j]);

		cp_pick(&best, victim, cp_rank((u32)v, base), 2 * j + CP_LO);
		cp_pick(&best, victim, cp_rank((u32)(v >> 32), base),
			2 * j + 1 - CP_LO);
	}
	return best;
}

/*
 * cp_table_remember() when the bucket holds an expired entry or another
 * CPU changed the chosen slot: up to @attempts scans, each followed by a
 * sweep of the other expired entries when the victim is expired.
 */
static noinline enum cp_remember_result
cp_remember_slow(u32 *b, u32 base, u32 cookie, int attempts, u32 *expired)
{
	enum cp_remember_result res = CP_REMEMBER_RACED;
	u32 cleared = 0;

	while (attempts--) {
		u32 victim, old, best = cp_victim(b, base, &victim);

		if (unlikely(best < CP_RANK_EMPTY))
			cleared += cp_sweep(b, base, victim);
		old = best == CP_RANK_EMPTY ? 0 : best + base;
		if (cp_cmpxchg32(&b[victim], old, cookie) == old) {
			if (best < CP_RANK_EMPTY)
				cleared++;
			res = best > CP_RANK_EMPTY ? CP_REMEMBER_DISPLACED :
			      cleared ? CP_REMEMBER_EXPIRED :
			      CP_REMEMBER_EMPTY;
			break;
		}
	}
	if (expired)
		*expired = cleared;
	return res;
}

/**
 * cp_table_remember - remember an evicted page
 * @t: the table
 * @hash: cp_key_hash() of the page
 * @when: eviction time from cp_table_clock_advance()
 * @flags: CP_FLAG_* to keep with the entry
 * @expired: if not NULL, set to the number of expired entries this call
 *	     removed from the bucket, the replaced one included
 *
 * One pass over the bucket ranks its 16 cookies (cp_rank()) and takes the
 * lowest: the oldest expired entry, else an empty slot, else the oldest
 * live entry.  Only when that is an expired entry does a second pass clear
 * the other expired entries, so none can linger until its timestamp wraps;
 * each is counted once.  Never sleeps or allocates; bounded work (at most
 * three attempts of two passes over one bucket, and the first scan).
 *
 * Return: what the new entry replaced.
 */
enum cp_remember_result cp_table_remember(struct cp_table *t, u64 hash,
					  u64 when, u32 flags, u32 *expired)
{
	u32 *b = cp_bucket(t, hash);
	u32 now_ts = cp_ts(t, when);
	u32 cookie = now_ts << CP_TS_SHIFT | (flags & CP_FLAG_ACTIVE) |
		     cp_check(hash);
	u32 base = cp_rank_base(now_ts);
	u32 victim, old, best = cp_victim(b, base, &victim);

	/* the common case: an empty slot, or the oldest of a full bucket */
	if (unlikely(best < CP_RANK_EMPTY))
		return cp_remember_slow(b, base, cookie, 3, expired);
	old = best == CP_RANK_EMPTY ? 0 : best + base;
	if (unlikely(cp_cmpxchg32(&b[victim], old, cookie) != old))
		return cp_remember_slow(b, base, cookie, 2, expired);
	if (expired)
		*expired = 0;
	return old ? CP_REMEMBER_DISPLACED : CP_REMEMBER_EMPTY;
}

/* Slot of match bit @bit of cp_match()'s mask. */
static inline u32 cp_match_slot(u32 bit)
{
	u32 lane = bit >> 5;

	return 2 * ((bit & 31) - CP_CHECK_BITS) + (lane ^ CP_LO);
}

/*
 * Mask of the slots of a bucket whose check value is @check, compared two
 * at a time without branches: word j's lanes give bits 20 + j and 52 + j.
 * Return: 0 for none (nearly always, on a miss).
 */
static __always_inline u64 cp_match(const u32 *b, u32 check)
{
	const u64 *w = (const u64 *)b;
	u64 check2 = (u64)check << 32 | check, differ = 0;
	int j;

#pragma GCC unroll 8
	for (j = CP_WORDS - 1; j >= 0; j--) {
		u64 x = ((READ_ONCE(w[j]) ^ check2) & CP_LANE_CHECK) +
			CP_LANE_CHECK;

		differ = differ * 2 + (x & CP_LANE_CARRY);
	}
	return ~differ & (CP_LANE_CARRY * ((1U << CP_WORDS) - 1));
}

/*
 * One attempt of a lookup at the slots of @match: the youngest live entry
 * with the page's check value is claimed with cmpxchg to zero.  Return:
 * 1 if claimed, 0 if none is live, -1 if another CPU changed it first.
 */
static __always_inline int cp_claim(const struct cp_table *t, u32 *b,
				    u32 check, u64 match, u32 now_ts,
				    struct cp_refault *r)
{
	u32 best = 0, best_age = CP_TS_RANGE, slot = 0;

	for (; match; match &= match - 1) {
		u32 i = cp_match_slot(__builtin_ctzll(match));
		u32 c = READ_ONCE(b[i]);
		u32 age;

		/* changed since cp_match()?  (the check is never 0) */
		if ((c & CP_CHECK_MASK) != check)
			continue;
		age = cp_age(c, now_ts);
		if (cp_expired(age) || age >= best_age)
			continue;
		best = c;
		best_age = age;
		slot = i;
	}
	if (!best)
		return 0;
	if (cp_cmpxchg32(&b[slot], best, 0) != best)
		return -1;
	r->distance = (u64)best_age << t->shift;
	r->flags = best & CP_FLAG_ACTIVE;
	return 1;
}

/* A lookup whose first claim lost a race: two more attempts. */
static noinline bool cp_lookup_retry(const struct cp_table *t, u32 *b,
				     u32 check, u32 now_ts,
				     struct cp_refault *r)
{
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		int ret = cp_claim(t, b, check, cp_match(b, check), now_ts, r);

		if (ret >= 0)
			return ret;
	}
	return false;
}

/* cp_table_lookup() once some check values matched. */
static noinline bool cp_lookup_claim(const struct cp_table *t, u32 *b,
				     u32 check, u64 match, u64 now,
				     struct cp_refault *r)
{
	u32 now_ts = cp_ts(t, now);
	int ret = cp_claim(t, b, check, match, now_ts, r);

	if (likely(ret >= 0))
		return ret;
	return cp_lookup_retry(t, b, check, now_ts, r);
}

/**
 * cp_table_lookup - find and consume the entry of a page coming back
 * @t: the table
 * @hash: cp_key_hash() of the page
 * @now: current eviction clock, cp_table_clock()
 * @r: filled with the refault distance and the entry's flags on a hit
 *
 * The check values of the 16 cookies are compared two at a time, without
 * branches, into a mask of the matching slots (cp_match()); ages are
 * computed for those alone.  If several live entries match, the youngest
 * is taken.  Never sleeps or allocates; bounded work.
 *
 * Return: true if the page was found (it is a refault).
 */
bool cp_table_lookup(struct cp_table *t, u64 hash, u64 now,
		     struct cp_refault *r)
{
	u32 *b = cp_bucket(t, hash);
	u32 check = cp_check(hash);
	u64 match = cp_match(b, check);

	if (likely(!match))
		return false;
	return cp_lookup_claim(t, b, check, match, now, r);
}

/**
 * cp_lclock_advance - count evictions of the clock's lruvec
 * @lc: the local clock
 * @shift: log2 of the global interval between samples (cp_lclock_shift())
 * @global: the global clock at these evictions (cp_table_clock_advance())
 * @nr: pages evicted
 *
 * Records, for every sample point the global clock passed since the last
 * call, the local clock as it stood there: unchanged since that call,
 * which counted the lruvec's previous eviction.  Bounded: at most
 * CP_LCLOCK_SAMPLES writes.
 */
void cp_lclock_advance(struct cp_lclock *lc, u32 shift, u64 global, u32 nr)
{
	u64 idx = global >> shift, i;

	if (!lc->next) {
		lc->first = idx;
		lc->next = idx;
	}
	if (idx >= lc->next) {
		i = lc->next;
		if (idx - i >= CP_LCLOCK_SAMPLES)
			i = idx - CP_LCLOCK_SAMPLES + 1;
		for (; i <= idx; i++)
			lc->at[i % CP_LCLOCK_SAMPLES] = (u32)lc->now;
		lc->next = idx + 1;
	}
	lc->now += nr;
}

/**
 * cp_lclock_distance - a global refault distance in local evictions
 * @lc: the local clock of the lruvec the page refaults into
 * @shift: as given to cp_lclock_advance()
 * @global: the global clock now
 * @distance: the refault distance on the global clock
 *
 * Interpolates the local clock between the two samples around the page's
 * eviction (the last sample and the local clock now when it was evicted
 * after the last sample): the error is below the local evictions of one
 * sample interval.
 *
 * Return: the local distance; @distance itself when the eviction predates
 * the samples kept (no local distance is larger than the global one).
 */
u64 cp_lclock_distance(const struct cp_lclock *lc, u32 shift, u64 global,
		       u64 distance)
{
	u64 when, idx, lo, hi, span, frac;
	u32 a, b, now = (u32)lc->now;

	if (!lc->next || distance > global)
		return distance;
	when = global - distance;
	idx = when >> shift;
	if (idx < lc->first || idx >= lc->next ||
	    lc->next - idx > CP_LCLOCK_SAMPLES)
		return distance;
	a = lc->at[idx % CP_LCLOCK_SAMPLES];
	b = idx + 1 < lc->next ? lc->at[(idx + 1) % CP_LCLOCK_SAMPLES] : now;
	lo = idx << shift;
	hi = idx + 1 < lc->next ? lo + (1ULL << shift) : global;
	span = hi > lo ? hi - lo : 1;
	frac = when - lo < span ? when - lo : span;
	/* local clock at @when: from a to b, evenly over the interval */
	a += (u32)((u64)(u32)(b - a) * frac / span);
	return min_t(u64, (u32)(now - a), distance);
}

/**
 * cp_table_count_range - live entries among cookies [@from, @to)
 * @t: the table
 * @now: current eviction clock
 * @from: first cookie index
 * @to: one past the last; clamped to the capacity
 *
 * For statistics files, not for hot paths: a caller walking a large table
 * does it a slice at a time and reschedules in between.
 *
 * Return: the number of non-empty, non-expired cookies in the range.
 */
u64 cp_table_count_range(const struct cp_table *t, u64 now, u64 from, u64 to)
{
	u32 now_ts = cp_ts(t, now);
	u64 n = 0, i;

	to = min_t(u64, to, t->capacity);
	for (i = from; i < to; i++) {
		u32 c = READ_ONCE(t->slots[i]);

		if (c && !cp_expired(cp_age(c, now_ts)))
			n++;
	}
	return n;
}

/**
 * cp_table_count - live entries in the table
 * @t: the table
 * @now: current eviction clock
 *
 * Walks the whole table at once (user-space tools and tests).
 *
 * Return: the number of non-empty, non-expired cookies.
 */
u64 cp_table_count(const struct cp_table *t, u64 now)
{
	return cp_table_count_range(t, now, 0, t->capacity);
}
