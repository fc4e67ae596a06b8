// SPDX-License-Identifier: GPL-2.0
/*
 * A model of the stock Linux 6.1 page cache LRU (classic two lists, MGLRU
 * off), per page, and the same model driven by the clockpro module's
 * policy and nonresident table.
 *
 *		kernel: what is modelled (6.1.192, mm/swap.c, mm/vmscan.c,
 *		mm/workingset.c, mm/filemap.c)
 *
 * Every page is unmapped, clean, file-backed page cache, read with read():
 *
 *  - access to a resident page: folio_mark_accessed().  Inactive and not
 *    PG_referenced: set PG_referenced.  Inactive and referenced: move to
 *    the active head, clear PG_referenced, workingset_activation() (the
 *    nonresident age advances).  Active: set PG_referenced.
 *  - miss: the page is inserted at the inactive head, or at the active
 *    head if workingset_refault() activates it (below), and then, as
 *    filemap_read() does for every folio it copies from, marked accessed
 *    once (param miss_mark=1; miss_mark=0 leaves a new page unreferenced).
 *    A consecutive repeat of the same page is a hit that never reaches the
 *    model, like filemap_read()'s "only mark it as accessed the first
 *    time" for reads within one folio.
 *  - reclaim: when a miss finds the cache full (cache = inactive + active
 *    pages), one reclaim cycle frees `batch` (SWAP_CLUSTER_MAX = 32)
 *    pages.  As in shrink_lruvec() for a file-only lruvec (no swap, so
 *    SCAN_FILE; after the first 32-page step nr_to_reclaim is met and the
 *    loop ends because there is no anon to balance): first up to 32 pages
 *    from the inactive tail, then up to 32 from the active tail if
 *    deactivation is allowed.
 *    Inactive list: FIFO.  folio_check_references() on an unmapped page
 *    returns RECLAIM_CLEAN whether PG_referenced was set or not (it is
 *    just cleared), so every scanned inactive page is evicted.
 *    Active list: shrink_active_list() deactivates every scanned unmapped
 *    page (only VM_EXEC mapped pages rotate), to the inactive head, clears
 *    PG_active, sets PG_workingset; PG_referenced is left as it is.
 *    Deactivation is allowed (prepare_scan_count) iff inactive_is_low()
 *    (inactive * inactive_ratio < active, ratio 1 below 1 GiB) or
 *    WORKINGSET_ACTIVATE_FILE moved since the last reclaim cycle
 *    (snapshot_refaults() at the end of each cycle).
 *    If a step evicts nothing and deactivates nothing, the next step
 *    deactivates regardless (the kernel's escalation: lower priority,
 *    force_deactivate); counted as "forced".
 *  - eviction: workingset_eviction() stores a shadow holding the
 *    nonresident age (before it advances by one) and PG_workingset.
 *  - refault (miss with a shadow): refault_distance = age - eviction;
 *    activate iff refault_distance <= NR_ACTIVE_FILE (file page, no swap).
 *    Activation advances the age, counts WORKINGSET_ACTIVATE_FILE and
 *    restores PG_workingset if the shadow had it.
 *
 * Simplifications: one lruvec (one memcg, one node), order-0 folios only,
 * no readahead (only referenced pages are inserted), no dirty pages or
 * writeback, no mapped pages (so no PTE referenced bits), shadow entries
 * never reclaimed (the kernel's shadow-node shrinker caps them at about
 * 1/8 of memory in nodes; unlimited here), exact 64-bit timestamps (the
 * kernel's are 36 bits on x86-64), no per-CPU LRU batches (a page is on its
 * list immediately), reclaim is synchronous and starts exactly when the
 * cache is full, and each cycle reclaims exactly `batch` pages.
 *
 *		kernel-clockpro
 *
 * The same model with the module's hooks (module/hooks.c as of this
 * writing), calling module/policy.c and module/nonres.c compiled in
 * unchanged (include/clockpro/policy.h: refault, expired, cold_hit,
 * hot_scanned, deactivate):
 *
 *  - eviction: cp_table_clock_advance(1) and cp_table_remember() with
 *    CP_FLAG_ACTIVE iff the page has PG_workingset; cp_policy_expired(1)
 *    if the new entry replaced an EXPIRED or DISPLACED one.  The kernel's
 *    own shadow is still stored (the module leaves workingset_eviction()
 *    alone).
 *  - miss: cp_table_lookup(); on a hit cp_policy_refault() decides:
 *    PROMOTE inserts at the active head, KEEP_COLD at the inactive head;
 *    on a table miss cp_policy_new_page() decides the same way.  This
 *    replaces the kernel's activation decision, but workingset_refault() still runs
 *    before it: it advances the age, counts WORKINGSET_ACTIVATE_FILE and
 *    sets PG_workingset when it would have activated a page whose shadow
 *    had the bit, even if the module then keeps the page cold (stat
 *    "ws_kept_cold"), exactly as in the kernel.
 *  - folio_mark_accessed() on a referenced inactive page (the kernel is
 *    about to activate it): cp_policy_cold_hit() first, with
 *    CP_FLAG_ACTIVE iff the page has PG_workingset; with idle_pct set
 *    the page is then marked PG_workingset.  An access to an active page
 *    with PG_referenced or PG_workingset set, or (idle_pct set) to an
 *    inactive page with PG_workingset, is a hot page's reuse:
 *    cp_policy_reused().
 *  - deactivation: each reclaim cycle, cp_policy_deactivate() with the
 *    kernel's nr_to_scan (min(batch, active)) and escalated = false
 *    returns how many active pages to scan (more or fewer than
 *    nr_to_scan).  Each scanned page is a HAND_hot step:
 *    cp_policy_hot_scanned(referenced = PG_referenced) says rotate (the
 *    bit is cleared, PG_workingset set, and the page goes back to the
 *    active head, as the module's folio_referenced() kretprobe makes
 *    shrink_active_list() do)
 *    or demote (deactivated as above).  With param cp_gate=1 it is only
 *    called when stock 6.1 would have called shrink_active_list() (see
 *    above), which is where the module's kprobe sits.
 *    The sizes passed with each call are those at that moment (a page
 *    being scanned counts as active).
 *  - param beyond=1 (not what hooks.c does today): a miss that the table
 *    does not know but the kernel has a shadow for (Beyond) is reported
 *    to cp_policy_refault() with distance U64_MAX and CP_FLAG_ACTIVE (its
 *    test period already ended, counted when its entry left the table).
 *  - table: cp_table_buckets(cache * table_pct / 100) buckets; keys are
 *    cp_key_hash() of a fixed mapping/inode and the trace's page number.
 *
 *		nonres
 *
 * Exact LRU, with the nonresident table attached as an observer: every
 * eviction is remembered and every miss looked up.  Only useful with
 * --distance-error.
 *
 *		Distance error (--distance-error)
 *
 * For every table lookup the exact eviction clock of the page is known
 * from a side map (the value cp_table_clock_advance() returned at its last
 * eviction).  A table hit whose timestamp matches that eviction is scored
 * by the relative error |estimate - exact| / exact, binned by the exact
 * distance in % of the table capacity, unless the exact distance exceeds
 * the table's max_age: the entry should have expired and only matched
 * because its 11-bit timestamp wrapped ("stale", counted apart).  Other
 * hits are false positives: the page was never evicted, or the matched
 * entry is not its last eviction.  A table miss is New if the page was
 * never evicted, Beyond otherwise ("early" if the exact distance was
 * within the capacity).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clockpro/nonres.h"
#include "clockpro/policy.h"
#include "list.h"
#include "sim.h"

enum { K_NONE, K_INACTIVE, K_ACTIVE };

#define KP_REF		0x01	/* PG_referenced */
#define KP_WS		0x02	/* PG_workingset */
#define KP_SHADOW	0x04	/* the kernel holds a shadow entry */
#define KP_SHADOW_WS	0x08	/* ... with the workingset bit */

#define K_NEVER		UINT64_MAX
#define K_MAPPING	0xffff888012345000UL
#define K_INO		4242UL

struct kmodel {
	const struct sim_opts *o;
	struct run *r;
	bool cp;
	u64 cap;
	struct ilinks k;
	struct ilist lru[3];
	u8 *where;
	u8 *fl;
	/* stock workingset */
	u64 age;		/* lruvec->nonresident_age */
	u64 *shadow;		/* eviction age per page */
	u32 *isolated;		/* shrink_active_list()'s batch */
	u64 activations;	/* WORKINGSET_ACTIVATE_FILE */
	u64 act_snapshot;	/* lruvec->refaults[WORKINGSET_FILE] */
	/* clockpro */
	struct cp_table table;
	u32 *slots;
	struct cp_lru_state st;
	u64 *hash;
	u64 *last_evict;	/* table clock at the last eviction */
	struct dist_err *de;
	/* statistics */
	u64 evictions, cycles, deactivated, forced;
	u64 ws_activations, ws_refaults, mark_activations;
	u64 table_lookups, table_hits, promotions, kept_cold;
	u64 expired, displaced, ws_kept_cold, deact_calls, deact_asked;
	u64 rotated;
	u64 deact_gated;
	double active_sum, target_sum;
	u64 samples;
	u64 win_hits, win_refs;
};

static inline u64 k_resident(const struct kmodel *m)
{
	return m->lru[K_ACTIVE].count + m->lru[K_INACTIVE].count;
}

static inline struct cp_lru_sizes k_sizes(const struct kmodel *m)
{
	struct cp_lru_sizes sz = {
		.active = m->lru[K_ACTIVE].count,
		.inactive = m->lru[K_INACTIVE].count,
		.clock = cp_table_clock(&m->table),
		.free = m->cap - k_resident(m),	/* the cache's unused room */
	};
	return sz;
}

static void k_add(struct kmodel *m, u32 p, int list)
{
	m->where[p] = (u8)list;
	il_add_head(&m->k, &m->lru[list], p);
}

static void k_del(struct kmodel *m, u32 p)
{
	il_del(&m->k, &m->lru[m->where[p]], p);
	m->where[p] = K_NONE;
}

/* === Distance error bookkeeping === */

const char *const de_range_names[DE_NR_RANGES] = {
	"0-5%", "5-25%", "25-50%", "50-100%", ">100%",
};

void de_init(struct dist_err *de, u64 capacity)
{
	memset(de, 0, sizeof(*de));
	de->capacity = capacity;
}

void de_free(struct dist_err *de)
{
	int i;

	for (i = 0; i < DE_NR_RANGES; i++)
		free(de->r[i].err);
}

static int de_range(const struct dist_err *de, u64 exact)
{
	double pct = 100.0 * (double)exact / (double)de->capacity;

	if (pct < 5)
		return 0;
	if (pct < 25)
		return 1;
	if (pct < 50)
		return 2;
	if (pct <= 100)
		return 3;
	return 4;
}

static void de_add(struct dist_err *de, u64 exact, u64 est)
{
	struct de_range *r = &de->r[de_range(de, exact)];
	double rel = ((double)est - (double)exact) / (double)exact;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->err = realloc(r->err, r->cap * sizeof(double));
		if (!r->err)
			die("out of memory");
	}
	r->err[r->n++] = fabs(rel);
	r->bias_sum += rel;
}

static int de_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void de_finish(struct dist_err *de)
{
	int i;

	for (i = 0; i < DE_NR_RANGES; i++)
		if (de->r[i].n)
			qsort(de->r[i].err, de->r[i].n, sizeof(double),
			      de_cmp);
}

/* Nearest-rank quantile of the sorted errors, in the unit of err[]. */
double de_quantile(const struct de_range *r, double q)
{
	u64 i;

	if (!r->n)
		return 0;
	i = (u64)ceil(q * (double)r->n);
	if (i < 1)
		i = 1;
	if (i > r->n)
		i = r->n;
	return r->err[i - 1];
}

/* === The nonresident table, shared by kernel-clockpro and nonres === */

static void k_table_init(struct kmodel *m, bool want_de)
{
	const struct trace *t = m->r->tr;
	u64 entries = m->cap * m->o->table_pct / 100;
	u32 nb = cp_table_buckets(entries ? entries : 1);
	size_t bytes = cp_table_bytes(nb);
	u32 i;

	m->slots = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	if (!m->slots)
		die("out of memory");
	memset(m->slots, 0, bytes);
	cp_table_init(&m->table, m->slots, nb);
	m->hash = xmalloc((size_t)(t->npages ? t->npages : 1) * sizeof(u64));
	for (i = 0; i < t->npages; i++)
		m->hash[i] = cp_key_hash(K_MAPPING, K_INO, 0,
					 (unsigned long)t->keys[i]);
	m->last_evict = xmalloc((size_t)(t->npages ? t->npages : 1) *
				sizeof(u64));
	memset(m->last_evict, 0xff, (size_t)t->npages * sizeof(u64));
	if (want_de) {
		m->de = xcalloc(1, sizeof(*m->de));
		de_init(m->de, m->table.capacity);
	}
}

/*
 * Remember an evicted page; returns how many entries left the table
 * unused (expired ones cleared, or one displaced).
 */
static u32 k_table_remember(struct kmodel *m, u32 p, u32 flags)
{
	u64 when = cp_table_clock_advance(&m->table, 1);
	enum cp_remember_result res;
	u32 gone;

	res = cp_table_remember(&m->table, m->hash[p], when, flags, &gone);
	m->last_evict[p] = when;
	m->expired += gone;
	if (res == CP_REMEMBER_DISPLACED)
		m->displaced++;
	if (m->de) {
		if (res == CP_REMEMBER_EXPIRED)
			m->de->expired += gone;
		else if (res == CP_REMEMBER_DISPLACED)
			m->de->displaced++;
		else if (res == CP_REMEMBER_EMPTY)
			m->de->empty++;
	}
	return gone + (res == CP_REMEMBER_DISPLACED);
}

/* Look a missing page up; scores the estimate when asked to. */
static bool k_table_lookup(struct kmodel *m, u32 p, struct cp_refault *rf)
{
	u64 now = cp_table_clock(&m->table);
	u64 last = m->last_evict[p];
	bool hit = cp_table_lookup(&m->table, m->hash[p], now, rf);
	struct dist_err *de = m->de;

	m->table_lookups++;
	if (hit)
		m->table_hits++;
	if (!de)
		return hit;
	de->lookups++;
	if (hit) {
		u32 sh = m->table.shift;
		u32 now_ts = (u32)(now >> sh) & CP_TS_MASK;
		u32 got_ts = (now_ts - (u32)(rf->distance >> sh)) &
			     CP_TS_MASK;

		if (last == K_NEVER) {
			de->false_pos++;
			de->fp_never++;
		} else if (got_ts != ((u32)(last >> sh) & CP_TS_MASK)) {
			de->false_pos++;
		} else if (now - last > m->table.max_age) {
			de->stale++;
			if (now - last > de->stale_max)
				de->stale_max = now - last;
		} else {
			de->hits++;
			de_add(de, now - last, rf->distance);
		}
	} else if (last == K_NEVER) {
		de->new_miss++;
	} else {
		de->beyond++;
		if (now - last <= de->capacity)
			de->beyond_early++;
	}
	return hit;
}

/* === The kernel model === */

static void k_mark_accessed(struct kmodel *m, u32 p)
{
	/*
	 * a hot page used again (not a new page's first read), or a
	 * demoted one read on the inactive list
	 */
	if (m->cp && m->where[p] == K_ACTIVE && (m->fl[p] & (KP_REF | KP_WS)))
		cp_policy_reused(&m->st);
	else if (m->cp && m->o->cp.idle_pct && m->where[p] == K_INACTIVE &&
		 (m->fl[p] & KP_WS))
		cp_policy_reused(&m->st);
	if (!(m->fl[p] & KP_REF)) {
		m->fl[p] |= KP_REF;
	} else if (m->where[p] == K_INACTIVE) {
		if (m->cp) {
			struct cp_lru_sizes sz = k_sizes(m);

			cp_policy_cold_hit(&m->o->cp, &m->st, &sz,
					   (m->fl[p] & KP_WS) ?
					   CP_FLAG_ACTIVE : 0);
			/* the hooks mark it: its next read is a reuse */
			if (m->o->cp.idle_pct)
				m->fl[p] |= KP_WS;
		}
		k_del(m, p);
		k_add(m, p, K_ACTIVE);
		m->fl[p] &= ~KP_REF;
		m->age++;		/* workingset_activation() */
		m->mark_activations++;
	}
}

static void k_evict(struct kmodel *m, u32 p)
{
	k_del(m, p);
	m->evictions++;
	/* workingset_eviction(): shadow = age before it advances */
	m->shadow[p] = m->age++;
	m->fl[p] = (u8)((m->fl[p] & KP_WS) ? KP_SHADOW | KP_SHADOW_WS :
		   KP_SHADOW);
	if (m->cp) {
		struct cp_lru_sizes sz = k_sizes(m);
		u32 gone;

		gone = k_table_remember(m, p, (m->fl[p] & KP_SHADOW_WS) ?
					      CP_FLAG_ACTIVE : 0);
		if (gone)
			cp_policy_expired(&m->o->cp, &m->st, &sz, gone);
	}
}

/*
 * shrink_active_list() over @n pages from the active tail.  Stock: every
 * unmapped page is deactivated.  With @hand (kernel-clockpro) each page is
 * a HAND_hot step: cp_policy_hot_scanned() with PG_referenced decides
 * between rotation (bit cleared, back to the active head) and demotion.
 * As in the kernel, the whole batch is isolated first and put back after
 * the last verdict: the policy reads the list without it.
 */
#define K_ROTATE	0x80000000u	/* in the isolated batch: keep hot */

static void k_deactivate(struct kmodel *m, u64 n, bool hand)
{
	u64 i, nr = 0;

	while (nr < n && m->lru[K_ACTIVE].count) {
		u32 p = m->lru[K_ACTIVE].tail;

		k_del(m, p);
		m->isolated[nr++] = p;
	}
	for (i = 0; hand && i < nr; i++) {
		u32 p = m->isolated[i];
		struct cp_lru_sizes sz = k_sizes(m);
		u32 seen = (m->fl[p] & KP_REF) ? CP_SCAN_REFERENCED : 0;

		if (m->st.age_only)
			seen |= CP_SCAN_AGE_ONLY;
		if (m->st.trim)
			seen |= CP_SCAN_TRIM;
		if (cp_policy_hot_scanned(&m->o->cp, &m->st, &sz, seen))
			m->isolated[i] |= K_ROTATE;
	}
	for (i = 0; i < nr; i++) {
		u32 p = m->isolated[i] & ~K_ROTATE;

		if (m->isolated[i] & K_ROTATE) {
			m->fl[p] &= ~KP_REF;
			m->fl[p] |= KP_WS;	/* proven hot */
			k_add(m, p, K_ACTIVE);
			m->rotated++;
			continue;
		}
		m->fl[p] |= KP_WS;
		k_add(m, p, K_INACTIVE);
		m->deactivated++;
	}
}

static void k_reclaim(struct kmodel *m)
{
	u64 batch = m->o->batch, reclaimed = 0;
	bool may_deact, force = false;

	/* prepare_scan_count() */
	may_deact = m->activations != m->act_snapshot ||
		    m->lru[K_INACTIVE].count < m->lru[K_ACTIVE].count;
	m->cycles++;
	while (reclaimed < batch && k_resident(m)) {
		u64 evicted = 0, deact = 0, nr;

		/* shrink_list(LRU_INACTIVE_FILE) */
		while (evicted < batch - reclaimed &&
		       m->lru[K_INACTIVE].count) {
			k_evict(m, m->lru[K_INACTIVE].tail);
			evicted++;
		}
		reclaimed += evicted;

		/* shrink_list(LRU_ACTIVE_FILE) */
		nr = min(batch, m->lru[K_ACTIVE].count);
		if (!nr) {
			if (!evicted)
				break;
			continue;
		}
		if (force) {
			deact = nr;
			m->forced++;
		} else if (!m->cp) {
			deact = may_deact ? nr : 0;
		} else if (m->o->cp_gate && !may_deact) {
			m->deact_gated++;
		} else {
			struct cp_lru_sizes sz = k_sizes(m);

			deact = cp_policy_deactivate(&m->o->cp, &m->st, &sz,
						     nr, false);
			m->deact_calls++;
			m->deact_asked += deact;
		}
		k_deactivate(m, deact, m->cp && !force);
		force = !evicted && !deact;
	}
	m->act_snapshot = m->activations;	/* snapshot_refaults() */
}

static void k_insert(struct kmodel *m, u32 p)
{
	bool activate = false;
	u8 f = m->fl[p];

	m->fl[p] = 0;
	if (f & KP_SHADOW) {
		/* workingset_refault() */
		u64 dist = m->age - m->shadow[p];

		m->ws_refaults++;
		if (dist <= m->lru[K_ACTIVE].count) {
			activate = true;
			m->age++;
			m->activations++;
			m->ws_activations++;
			if (f & KP_SHADOW_WS)
				m->fl[p] |= KP_WS;
		}
	}
	if (m->cp) {
		struct cp_refault rf;
		enum cp_verdict v = CP_KEEP_COLD;

		bool hit = k_table_lookup(m, p, &rf);

		if (!hit && m->o->beyond && (f & KP_SHADOW)) {
			/* Beyond: evicted, but no longer in the table */
			rf.distance = UINT64_MAX;
			/* its test already ended: do not adapt again */
			rf.flags = CP_FLAG_ACTIVE;
			hit = true;
		}
		if (hit) {
			struct cp_lru_sizes sz = k_sizes(m);

			v = cp_policy_refault(&m->o->cp, &m->st, &sz,
					      rf.distance, rf.flags);
			if (v == CP_PROMOTE)
				m->promotions++;
			else
				m->kept_cold++;
		} else {
			struct cp_lru_sizes sz = k_sizes(m);

			v = cp_policy_new_page(&m->o->cp, &m->st, &sz);
		}
		if (v != CP_PROMOTE && (m->fl[p] & KP_WS))
			m->ws_kept_cold++;
		activate = v == CP_PROMOTE;
	}
	k_add(m, p, activate ? K_ACTIVE : K_INACTIVE);
}

static void k_sample(struct kmodel *m, u64 i)
{
	const struct trace *t = m->r->tr;
	struct cp_lru_sizes sz = k_sizes(m);
	double win = m->win_refs ? 100.0 * (double)m->win_hits /
				   (double)m->win_refs : 0;

	fprintf(stderr, "%s %s %llu ref %llu: hit %.1f%% active %llu "
		"inactive %llu",
		t->name, m->r->policy, (unsigned long long)m->cap,
		(unsigned long long)i, win, (unsigned long long)sz.active,
		(unsigned long long)sz.inactive);
	if (m->cp) {
		fprintf(stderr,
			" target %lld credits %llu pending %llu promo %llu"
			" cold %llu grow %llu shrink %llu rotated %llu"
			" demoted %llu",
			(long long)cp_policy_target(&m->o->cp, &m->st, &sz),
			(unsigned long long)m->st.credits,
			(unsigned long long)m->st.pending,
			(unsigned long long)m->st.promotions,
			(unsigned long long)m->st.kept_cold,
			(unsigned long long)m->st.grow,
			(unsigned long long)m->st.shrink,
			(unsigned long long)m->st.rotated,
			(unsigned long long)m->st.demoted);
	}
	fputc('\n', stderr);
	m->win_hits = 0;
	m->win_refs = 0;
}

static int k_run(struct run *r, bool cp)
{
	const struct trace *t = r->tr;
	u32 n = t->npages ? t->npages : 1;
	struct kmodel m;
	u64 i;

	if (n & K_ROTATE)	/* k_deactivate() marks page numbers with it */
		die("%s: too many pages (%u)", r->policy, n);
	if (r->cache < 2 * (u64)r->o->batch)
		die("%s: cache must be at least 2 * batch (%u) pages",
		    r->policy, r->o->batch);
	memset(&m, 0, sizeof(m));
	m.o = r->o;
	m.r = r;
	m.cp = cp;
	m.cap = r->cache;
	il_links_alloc(&m.k, n);
	il_init(&m.lru[K_INACTIVE]);
	il_init(&m.lru[K_ACTIVE]);
	m.where = xcalloc(n, 1);
	m.fl = xcalloc(n, 1);
	m.shadow = xcalloc(n, sizeof(u64));
	m.isolated = xcalloc(n, sizeof(u32));
	if (cp)
		k_table_init(&m, r->o->distance_error);

	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];

		m.win_refs++;
		if (m.where[p]) {
			run_hit(r, i);
			m.win_hits++;
			k_mark_accessed(&m, p);
		} else {
			if (k_resident(&m) >= m.cap) {
				struct cp_lru_sizes sz;

				k_reclaim(&m);
				sz = k_sizes(&m);
				m.active_sum += (double)sz.active;
				if (cp)
					m.target_sum += (double)
						cp_policy_target(&r->o->cp,
								 &m.st, &sz);
				m.samples++;
			}
			k_insert(&m, p);
			if (r->o->miss_mark)
				k_mark_accessed(&m, p);
		}
		if (r->o->sample && (i + 1) % r->o->sample == 0)
			k_sample(&m, i + 1);
	}

	run_stat(r, "evictions", (double)m.evictions);
	run_stat(r, "cycles", (double)m.cycles);
	run_stat(r, "deactivated", (double)m.deactivated);
	run_stat(r, "forced", (double)m.forced);
	run_stat(r, "active_avg", m.samples ? m.active_sum / (double)m.samples
					    : 0);
	run_stat(r, "active_final", (double)m.lru[K_ACTIVE].count);
	run_stat(r, "mark_activations", (double)m.mark_activations);
	run_stat(r, "ws_refaults", (double)m.ws_refaults);
	run_stat(r, "ws_activations", (double)m.ws_activations);
	if (cp) {
		struct cp_lru_sizes sz = k_sizes(&m);

		run_stat(r, "target_avg", m.samples ?
			 m.target_sum / (double)m.samples : 0);
		run_stat(r, "target_final",
			 (double)cp_policy_target(&r->o->cp, &m.st, &sz));
		run_stat(r, "table_hits", (double)m.table_hits);
		run_stat(r, "promotions", (double)m.st.promotions);
		run_stat(r, "kept_cold", (double)m.st.kept_cold);
		run_stat(r, "grow", (double)m.st.grow);
		run_stat(r, "shrink", (double)m.st.shrink);
		run_stat(r, "rotated", (double)m.st.rotated);
		run_stat(r, "demoted", (double)m.st.demoted);
		run_stat(r, "idle_hot", (double)m.st.idle_hot);
		run_stat(r, "idle_demoted", (double)m.st.idle_demoted);
		run_stat(r, "deact_skips", (double)m.st.skips);
		run_stat(r, "deact_trims", (double)m.st.trims);
		run_stat(r, "deact_gated", (double)m.deact_gated);
		run_stat(r, "expired", (double)m.expired);
		run_stat(r, "displaced", (double)m.displaced);
		run_stat(r, "ws_kept_cold", (double)m.ws_kept_cold);
		run_stat(r, "scanned", (double)m.deact_asked);
	}
	if (m.de) {
		de_finish(m.de);
		r->de = m.de;
	}
	il_links_free(&m.k);
	free(m.where);
	free(m.fl);
	free(m.shadow);
	free(m.isolated);
	free(m.slots);
	free(m.hash);
	free(m.last_evict);
	return 0;
}

int run_kernel(struct run *r)
{
	return k_run(r, false);
}

int run_kernel_clockpro(struct run *r)
{
	return k_run(r, true);
}

/* === nonres: exact LRU with the table as an observer === */

int run_nonres(struct run *r)
{
	const struct trace *t = r->tr;
	u32 n = t->npages ? t->npages : 1;
	struct kmodel m;
	struct ilist l;
	u8 *res = xcalloc(n, 1);
	u64 i;

	memset(&m, 0, sizeof(m));
	m.o = r->o;
	m.r = r;
	m.cap = r->cache;
	il_links_alloc(&m.k, n);
	il_init(&l);
	k_table_init(&m, true);
	for (i = 0; i < t->nseq; i++) {
		u32 p = t->seq[i];
		struct cp_refault rf;

		if (res[p]) {
			run_hit(r, i);
			il_del(&m.k, &l, p);
		} else {
			if (l.count == m.cap) {
				u32 v = il_pop_tail(&m.k, &l);

				res[v] = 0;
				k_table_remember(&m, v, 0);
			}
			k_table_lookup(&m, p, &rf);
			res[p] = 1;
		}
		il_add_head(&m.k, &l, p);
	}
	run_stat(r, "table_capacity", (double)m.table.capacity);
	run_stat(r, "table_hits", (double)m.table_hits);
	run_stat(r, "expired", (double)m.expired);
	run_stat(r, "displaced", (double)m.displaced);
	de_finish(m.de);
	r->de = m.de;
	il_links_free(&m.k);
	free(res);
	free(m.slots);
	free(m.hash);
	free(m.last_evict);
	return 0;
}
