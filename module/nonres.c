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
 * age order is recovered from the timestamps, a subtraction and an
 * unsigned compare per cookie (cp_rank()).  A new entry replaces the
 * oldest expired entry, else an empty slot, else the oldest live entry;
 * an insert that meets an expired entry clears every other expired entry
 * of its bucket too, and counts them.
 *
 *		Pairs
 *
 * The bucket is read and written as eight 64-bit words of two cookies,
 * and each word (by value, whatever the byte order) keeps one of three
 * forms:
 *
 *	0		both slots empty
 *	c << 32		one entry, in the high half
 *	a << 32 | b	two entries, a the older
 *
 * so the oldest entry of a full bucket is the oldest of the eight high
 * halves, and a bucket is full when no low half is zero.  An insert into
 * a full bucket, the common case, makes one pass that ranks both halves
 * of each word with one 64-bit subtraction, multiplies the low halves
 * (a zero product: a free slot), keeps the lowest word and the lowest
 * low half, and writes the chosen word back as its younger entry and
 * the new one, in their order.  A lookup compares the check values two
 * cookies at a time, without branches, computes an age only for a match,
 * and writes the matched word back as the other entry alone.  A bucket
 * with a free slot, an oldest entry that has expired, or a low half
 * ranked before the chosen high half goes to the exact path,
 * cp_remember_slow(), which ranks all 16.  The last happens only when
 * the older entry of a word has been expired so long (past 1791 steps,
 * its bucket seeing no insert for 767 steps) that its timestamp wrapped
 * and it reads as young: the order within the word is then stale, and
 * the pass notices it instead of displacing the wrong entry.
 *
 * Per order-0 page, with the key hash (two 64x64->128-bit multiplies,
 * 17 instructions) and the caller's loop (callgrind,
 * tools/testing/bench.sh): remember about 145 instructions, lookup hit
 * 152, miss 111; the pass over a full bucket is 7 per word.
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
 * No locks.  Inserting picks a victim word and replaces it with 64-bit
 * cmpxchg, retrying the scan twice if another CPU changed the word; a
 * lookup claims a matching cookie with 64-bit cmpxchg of its word,
 * rescanning three times at most, so two CPUs can never both consume the
 * same entry, nor an insert and a lookup undo each other's write.  A
 * word read torn on a 32-bit machine fails its cmpxchg.  The probe
 * handlers that call this run with preemption or interrupts disabled and
 * never sleep or allocate.
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
 * other; their folded product is folded again with a constant, so that
 * consecutive indices give no arithmetic sequence.  The constants keep
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

	/*
	 * A run of indices makes the first product a near arithmetic
	 * sequence: a second one, by a constant, breaks it.
	 */
	return cp_mum(cp_mum(a, b), 0xbf58476d1ce4e5b9ULL);
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

static inline bool cp_live(u32 cookie, u32 base)
{
	return cp_rank(cookie, base) > CP_RANK_EMPTY;
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

/*
 * Pairs.  The bucket is eight 64-bit words of two cookies, and each word
 * (by value, whatever the byte order) has one of three forms:
 *
 *	0		both slots empty
 *	c << 32		one entry, in the high half: the low half is free
 *	a << 32 | b	two entries, a ranked no later than b (a older)
 *
 * Every write keeps them: an insert or a claim replaces the whole word
 * with cmpxchg.  So a word whose low half is zero has a free slot, and
 * the oldest entry of a word is its high half: an insert into a full
 * bucket ranks 8 cookies, not 16.
 */
#define CP_PAIR_HI	((u64)1 << 32)

static inline u32 cp_hi(u64 w)
{
	return (u32)(w >> 32);
}

static inline u32 cp_lo(u64 w)
{
	return (u32)w;
}

/* The word holding cookies @a and @b (either may be 0) in its form. */
static inline u64 cp_pair(u32 a, u32 b, u32 base)
{
	if (!a || !b)
		return (u64)(a | b) << 32;
	if (cp_rank(a, base) > cp_rank(b, base))
		return (u64)b << 32 | a;
	return (u64)a << 32 | b;
}

/*
 * The live entries of word @w as a word, and in *@gone how many of its
 * entries have expired.
 */
static inline u64 cp_pair_live(u64 w, u32 base, u32 *gone)
{
	u32 hi = cp_hi(w), lo = cp_lo(w);
	bool live_hi = cp_live(hi, base), live_lo = cp_live(lo, base);

	*gone = (hi && !live_hi) + (lo && !live_lo);
	return cp_pair(live_hi ? hi : 0, live_lo ? lo : 0, base);
}

/*
 * Replacement rank of a word: that of its oldest entry, and at most
 * CP_RANK_EMPTY when it has a free slot (cp_rank() of a zero half).
 */
static inline u32 cp_pair_rank(u64 w, u32 base)
{
	return min(cp_rank(cp_hi(w), base), cp_rank(cp_lo(w), base));
}

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
 * Clear every expired entry of a bucket but those of word @keep, which
 * the caller rewrites.  Return: how many this call cleared.
 */
static u32 cp_sweep(u64 *w, u32 base, u32 keep)
{
	u32 j, n = 0;

	for (j = 0; j < CP_WORDS; j++) {
		u64 v = READ_ONCE(w[j]), live;
		u32 gone;

		if (j == keep)
			continue;
		live = cp_pair_live(v, base, &gone);
		if (gone && cp_cmpxchg64(&w[j], v, live) == v)
			n += gone;
	}
	return n;
}

/*
 * cp_table_remember() when the bucket has a free slot or an expired
 * entry, or another CPU changed the chosen word: up to @attempts scans
 * ranking every cookie (cp_pair_rank()), each followed by a sweep of the
 * other expired entries when the oldest is expired.  The chosen word keeps
 * its live entries, less the older of two, and takes the new one.
 */
static noinline enum cp_remember_result
cp_remember_slow(u64 *w, u32 base, u32 cookie, int attempts, u32 *expired)
{
	enum cp_remember_result res = CP_REMEMBER_RACED;
	u32 cleared = 0;

	while (attempts--) {
		u32 j, victim = 0, best = ~0U, gone;
		u64 old = 0, live, pair;

		for (j = 0; j < CP_WORDS; j++) {
			u64 v = READ_ONCE(w[j]);
			u32 rank = cp_pair_rank(v, base);

			if (rank < best) {
				best = rank;
				victim = j;
				old = v;
			}
		}
		if (unlikely(best < CP_RANK_EMPTY))
			cleared += cp_sweep(w, base, victim);
		live = cp_pair_live(old, base, &gone);
		/* of two live entries, the younger (low) one stays */
		pair = cp_pair(cp_lo(live) ? cp_lo(live) : cp_hi(live), cookie,
			       base);
		if (cp_cmpxchg64(&w[victim], old, pair) == old) {
			cleared += gone;
			res = cp_lo(live) ? CP_REMEMBER_DISPLACED :
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
 * Replaces the oldest expired entry, else takes an empty slot, else
 * displaces the oldest live entry.  A full bucket of live entries, the
 * common case, is settled by one pass over its 8 words: the lowest
 * cp_rank() of their high halves (the older entry of each) is the oldest
 * entry, as long as no low half ranks lower, and its word becomes the
 * younger one and the new entry.  Any other bucket goes to
 * cp_remember_slow(), which ranks every cookie and,
 * when the oldest entry is expired, clears every other expired entry of
 * the bucket, so none can linger until its timestamp wraps; each is
 * counted once.  Never sleeps or allocates; bounded work (at most three
 * attempts of two passes over one bucket, and the first pass).
 *
 * Return: what the new entry replaced.
 */
enum cp_remember_result cp_table_remember(struct cp_table *t, u64 hash,
					  u64 when, u32 flags, u32 *expired)
{
	u64 *w = (u64 *)cp_bucket(t, hash);
	u32 stamp = cp_ts(t, when) << CP_TS_SHIFT;
	u32 cookie = stamp | (flags & CP_FLAG_ACTIVE) | cp_check(hash);
	/* cp_rank_base() of the timestamp, from its shifted value */
	u32 base = stamp + cp_rank_base(0), victim = 0, lo = ~0U, full = 1, j;
	/*
	 * Adding @nbase subtracts @base from both halves of a word: the low
	 * half is the rank of the low entry, the high half that of the high
	 * entry, less a borrow that only its check bits see.
	 */
	u64 nbase = (u64)base * -(CP_PAIR_HI + 1), best = ~0ULL, old, pair;

	/* an opaque addend: one lea per word, not a copy and a subtract */
	OPTIMIZER_HIDE_VAR(nbase);
#pragma GCC unroll 8
	for (j = 0; j < CP_WORDS; j++) {
		u64 v = READ_ONCE(w[j]), rank = v + nbase;

		/*
		 * A free slot is a zero low half: the product of the low
		 * halves is zero (or, about once in 30 000 full buckets, its
		 * factors of two overflow: the exact path then decides).
		 */
		full *= cp_lo(v);
		lo = min(lo, cp_lo(rank));
		if (rank < best) {
			best = rank;
			victim = j;
		}
	}
	/*
	 * A free slot, the oldest entry expired (clear them all), or a low
	 * half ranked before its high half: the older one has been expired
	 * so long that its timestamp wrapped, the bucket unvisited all that
	 * time.
	 */
	if (unlikely(!full || cp_hi(best) < CP_RANK_EMPTY ||
		     lo < cp_hi(best)))
		return cp_remember_slow(w, -(u32)nbase, cookie, 3, expired);
	old = best - nbase;
	/*
	 * The younger entry of the word stays, with the new one: the low
	 * half of @best is its rank.
	 */
	if (unlikely(cp_lo(best) > cookie + (u32)nbase))
		pair = (u64)cookie << 32 | cp_lo(old);
	else
		pair = (u64)cp_lo(old) << 32 | cookie;
	if (unlikely(cp_cmpxchg64(&w[victim], old, pair) != old))
		return cp_remember_slow(w, -(u32)nbase, cookie, 2, expired);
	if (expired)
		*expired = 0;
	return CP_REMEMBER_DISPLACED;
}

/*
 * Mask of the cookies of a bucket whose check value is @check, compared
 * two at a time without branches: word j's low and high halves give bits
 * 20 + j and 52 + j.  Return: 0 for none (nearly always, on a miss).
 */
static __always_inline u64 cp_match(const u64 *w, u32 check)
{
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

/* Word of match bit @bit of cp_match()'s mask. */
static inline unsigned long cp_match_word(u32 bit)
{
	return (unsigned long)(bit & 31) - CP_CHECK_BITS;
}

/* Its cookie in word value @v: bit 5 of @bit says the high half. */
static inline u32 cp_match_cookie(u64 v, u32 bit)
{
	return (u32)(v >> (bit & 32));
}

/*
 * Age of cookie @c if it is a live entry with check value @check (it may
 * have changed since cp_match(); the check is never 0), else CP_TS_RANGE.
 */
static __always_inline u32 cp_match_age(u32 c, u32 check, u32 now_ts)
{
	u32 age = (now_ts - (c >> CP_TS_SHIFT)) & CP_TS_MASK;

	/* cp_expired(cp_age()), with the usual ages tested first */
	if (unlikely(cp_expired(age))) {
		if (cp_expired(cp_age(c, now_ts)))
			return CP_TS_RANGE;
		age = 0;
	}
	if ((c & CP_CHECK_MASK) != check)
		return CP_TS_RANGE;
	return age;
}

/*
 * Claim the entry of match bit @bit, @age steps old, in word value @v:
 * the word becomes the other entry alone, in the high half.
 * Return: false if another CPU changed the word first.
 */
static __always_inline bool cp_take(const struct cp_table *t, u64 *w,
				    u32 bit, u64 v, u32 age,
				    struct cp_refault *r)
{
	u32 half = bit & 32;
	/* the claimed half cleared; the low entry, if it is left, moves up */
	u64 rest = (v ^ (u64)cp_match_cookie(v, bit) << half) << half;

	if (cp_cmpxchg64(&w[cp_match_word(bit)], v, rest) != v)
		return false;
	r->distance = (u64)age << t->shift;
	r->flags = cp_match_cookie(v, bit) & CP_FLAG_ACTIVE;
	return true;
}

/*
 * One attempt of a lookup at the cookies of @match: the youngest live
 * entry with the page's check value is claimed.  Return: 1 if claimed,
 * 0 if none is live, -1 if another CPU changed its word first.
 */
static int cp_claim(const struct cp_table *t, u64 *w, u32 check, u64 match,
		    u32 now_ts, struct cp_refault *r)
{
	u32 best_age = CP_TS_RANGE, found = 0;
	u64 old = 0;

	for (; match; match &= match - 1) {
		u32 bit = __builtin_ctzll(match), age;
		u64 v = READ_ONCE(w[cp_match_word(bit)]);

		age = cp_match_age(cp_match_cookie(v, bit), check, now_ts);
		if (age < best_age) {
			best_age = age;
			found = bit;
			old = v;
		}
	}
	if (best_age == CP_TS_RANGE)
		return 0;
	return cp_take(t, w, found, old, best_age, r) ? 1 : -1;
}

/*
 * cp_table_lookup() when several check values matched, or the first
 * claim failed: up to three attempts.
 */
static noinline bool cp_lookup_claim(const struct cp_table *t, u64 *w,
				     u32 check, u64 match, u32 now_ts,
				     struct cp_refault *r)
{
	int attempt;

	for (attempt = 0; attempt < 3; attempt++) {
		int ret = cp_claim(t, w, check, match, now_ts, r);

		if (ret >= 0)
			return ret;
		match = cp_match(w, check);
	}
	return false;
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
 * is taken (cp_lookup_claim()); a single match, the common hit, is
 * claimed here.  Never sleeps or allocates; bounded work.
 *
 * Return: true if the page was found (it is a refault).
 */
bool cp_table_lookup(struct cp_table *t, u64 hash, u64 now,
		     struct cp_refault *r)
{
	u64 *w = (u64 *)cp_bucket(t, hash);
	u32 check = cp_check(hash), now_ts, bit, age;
	u64 match = cp_match(w, check), v;

	if (likely(!match))
		return false;
	/* unmasked: every use masks the difference (cp_age()) */
	now_ts = (u32)(now >> t->shift);
	bit = __builtin_ctzll(match);
	v = READ_ONCE(w[cp_match_word(bit)]);
	age = cp_match_age(cp_match_cookie(v, bit), check, now_ts);
	if (likely(!(match & (match - 1)) && age < CP_TS_RANGE &&
		   cp_take(t, w, bit, v, age, r)))
		return true;
	return cp_lookup_claim(t, w, check, match, now_ts, r);
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
