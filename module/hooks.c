// SPDX-License-Identifier: GPL-2.0
/*
 * clockpro probe handlers: where the kernel evicts and inserts pages
 *
 * Eviction:  workingset_eviction(folio, target_memcg), called by reclaim
 *	      (kswapd, direct, memcg limit) for every page-cache and
 *	      swap-cache folio it frees, classic LRU and MGLRU alike, under
 *	      the mapping's i_pages lock with interrupts off.
 * Insertion: folio_add_lru(folio), which every new page-cache folio
 *	      (readahead included) and every swap-in passes right after
 *	      filemap_add_folio()/add_to_swap_cache(), locked, before any
 *	      I/O completes.  It is the first place PG_active may be set.
 * Shadow:    workingset_refault(folio, shadow), called just before that
 *	      insertion when the kernel still had a shadow entry: it tells
 *	      Beyond (evicted long ago) from New (never evicted), and names
 *	      the node that evicted the page, whose clock judges the refault.
 * Enforce:   shrink_active_list() for LRU_ACTIVE_FILE is skipped,
 *	      sized or extended to hold the active target and to move the
 *	      hot hand; a kretprobe on folio_referenced() turns its scan
 *	      into CLOCK steps (rotate referenced, demote the rest);
 *	      folio_mark_accessed() on a referenced inactive file folio is
 *	      a cold hit, on a used active one a hot page's reuse.
 *	      evict_folios() only runs under MGLRU: seeing it drops
 *	      enforce mode, which has no lever there.  Reclaim that
 *	      escalated (scan_control's force_deactivate, a low priority,
 *	      a zone restriction) is never held, and a held call sets
 *	      skipped_deactivate, so the kernel's last retry before OOM
 *	      forces deactivation as it would without the module.
 * Lifetime:  mem_cgroup_css_free(css) releases the state of the memcg's
 *	      lruvecs before they are freed; nothing outside the probes
 *	      follows a lruvec pointer (the probes get theirs from the
 *	      kernel, alive for the call).
 *
 * Attachment (see "Attachment" below): the four hooks every page passes
 * (eviction, insertion, refault, folio_mark_accessed()) are ftrace
 * callbacks; the others kprobes.  Observe mode arms only eviction,
 * insertion, refault and the memcg's end; the rest are armed while
 * enforcing.  Kprobe handlers live in .kprobes.text (__kprobes), where no
 * probe can land; ftrace callbacks are notrace and take the recursion lock.
 * All handlers run with preemption disabled (the eviction one with IRQs
 * off); none sleeps or allocates, and each does bounded work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/swap.h>
#include <linux/utsname.h>
#include <linux/workqueue.h>

#include "clockpro.h"
#include "clockpro/compat.h"

#define CREATE_TRACE_POINTS
#include "clockpro_trace.h"

/*
 * The cost breakdown (docs/cost.md, selftests/vm/cost-breakdown.sh): a
 * build with CP_COST_STAGE=N cuts the per-page handlers short after stage
 * N, 1: the attachment alone; 2: and the page's identity and hash; 3: and
 * the table; 4: all that observing does, and enforce's policy operations
 * return at once; 5: they find and lock their slot, then stop.  0, the
 * default: the whole module.
 */
#ifndef CP_COST_STAGE
#define CP_COST_STAGE		0
#endif
#define cp_cost_stop(n)		(CP_COST_STAGE && CP_COST_STAGE <= (n))

/* === Page identity and lruvecs === */

/* A block device's page: filesystem metadata (CP_FLAG_META). */
static bool cp_folio_meta(struct folio *folio)
{
	struct address_space *mapping = READ_ONCE(folio->mapping);
	struct inode *host;

	if (!mapping || ((unsigned long)mapping & CP_FOLIO_MAPPING_FLAGS))
		return false;
	host = READ_ONCE(mapping->host);
	return host && S_ISBLK(host->i_mode);
}

struct cp_key {
	unsigned long mapping;
	unsigned long ino;
	u32 gen;
	unsigned long index;
	bool swap;
};

static bool cp_folio_key(struct folio *folio, struct cp_key *k)
{
	struct address_space *mapping;
	struct inode *host;

	if (folio_test_swapcache(folio)) {
		k->mapping = CP_SWAP_MAPPING;
		k->ino = 0;
		k->gen = 0;
		k->index = cp_folio_swap_val(folio);
		k->swap = true;
		return true;
	}
	mapping = READ_ONCE(folio->mapping);
	if (!mapping || ((unsigned long)mapping & CP_FOLIO_MAPPING_FLAGS))
		return false;
	host = READ_ONCE(mapping->host);
	if (!host)
		return false;
	k->mapping = (unsigned long)mapping;
	k->ino = host->i_ino;
	k->gen = host->i_generation;
	k->index = folio->index;
	k->swap = false;
	return true;
}

static inline u64 cp_key_page(const struct cp_key *k, unsigned long i)
{
	return cp_key_hash(k->mapping, k->ino, k->gen, k->index + i);
}

/*
 * The memcg a folio is charged to; NULL with the memory controller off.
 * mem_cgroup_lruvec() would reference root_mem_cgroup, which is not
 * exported: uncharged folios get the root memcg found at load time.
 */
static struct mem_cgroup *cp_folio_memcg(struct folio *folio)
{
	struct mem_cgroup *memcg;

	if (mem_cgroup_disabled())
		return NULL;
	memcg = folio_memcg(folio);
	return memcg ? memcg : cp.root_memcg;
}

/* The lruvec a folio is charged to (NULL if the root is not known). */
static struct lruvec *cp_folio_lruvec(struct folio *folio)
{
	struct mem_cgroup *memcg;

	if (mem_cgroup_disabled())
		return &folio_pgdat(folio)->__lruvec;
	memcg = cp_folio_memcg(folio);
	if (!memcg)
		return NULL;
	return &memcg->nodeinfo[folio_nid(folio)]->lruvec;
}

/* === Trace events (clockpro_trace.h): only when enabled === */

static u32 cp_trace_memcg(struct folio *folio)
{
	struct mem_cgroup *memcg = cp_folio_memcg(folio);

	return memcg ? mem_cgroup_id(memcg) : 0;
}

/* The device of a page-cache page's inode; 0 for the swap cache. */
static u32 cp_trace_dev(const struct cp_key *k)
{
	const struct address_space *mapping = (void *)k->mapping;

	return k->swap ? 0 : mapping->host->i_sb->s_dev;
}

/* CP_TRACE_* flags of a page: from the table's and the policy's flags. */
static u32 cp_trace_flags(struct folio *folio, u32 flags, bool swap)
{
	u32 t = swap ? CP_TRACE_SWAP : 0;

	if (flags & CP_FLAG_ACTIVE)
		t |= CP_TRACE_ACTIVE;
	if ((flags & CP_FLAG_META) || cp_folio_meta(folio))
		t |= CP_TRACE_META;
	return t;
}

/* The file LRU pages of @lruvec in zone @z. */
static void cp_zone_file_sizes(struct lruvec *lruvec, int z,
			       unsigned long *active, unsigned long *inactive)
{
	if (mem_cgroup_disabled()) {
		struct zone *zone = &lruvec_pgdat(lruvec)->node_zones[z];

		*active = zone_page_state(zone, NR_ZONE_ACTIVE_FILE);
		*inactive = zone_page_state(zone, NR_ZONE_INACTIVE_FILE);
	} else {
		*active = mem_cgroup_get_zone_lru_size(lruvec,
						       LRU_ACTIVE_FILE, z);
		*inactive = mem_cgroup_get_zone_lru_size(lruvec,
							 LRU_INACTIVE_FILE, z);
	}
}

static void cp_lruvec_sizes(struct lruvec *lruvec, struct cp_lru_sizes *sz)
{
	unsigned long a, i;
	int z;

	sz->active = 0;
	sz->inactive = 0;
	sz->free = 0;		/* cp_lruvec_free() when the policy needs it */
	sz->clock = 0;		/* the slot's local clock: cp_policy_op() */
	for (z = 0; z < MAX_NR_ZONES; z++) {
		cp_zone_file_sizes(lruvec, z, &a, &i);
		sz->active += a;
		sz->inactive += i;
	}
}

/*
 * Pages @lruvec can still grow into before reclaim runs: its node's free
 * pages above the high watermarks, and for a memcg with a limit no more
 * than its headroom (limits of its ancestors are not looked at).
 */
static u64 cp_lruvec_free(struct lruvec *lruvec)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	long free = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (managed_zone(zone))
			free += (long)zone_page_state(zone, NR_FREE_PAGES) -
				(long)high_wmark_pages(zone);
	}
	if (free < 0)
		free = 0;
	if (!mem_cgroup_disabled()) {
		struct mem_cgroup *memcg = lruvec_memcg(lruvec);

		if (memcg && memcg != cp.root_memcg) {
			unsigned long max = READ_ONCE(memcg->memory.max);
			unsigned long used = page_counter_read(&memcg->memory);

			if (max != PAGE_COUNTER_MAX)
				free = min_t(long, free,
					     max > used ? max - used : 0);
		}
	}
	return free;
}

/* === Adaptive state per lruvec === */

#define CP_SLOT_PROBES		8
#define CP_GONE_BATCH		16	/* expiries applied together */
#define CP_QUICK_RUN		32	/* new pages judged on old sizes */
#define CP_SLOT_STALE		(60 * HZ)

/*
 * Slots whose lruvec counts pages inserted since its last reuse (the idle
 * rule's quiet run, cp_policy_new_page()).  Changed under the slot's lock
 * with the count itself.  While it is zero no read can end a quiet run,
 * and folio_mark_accessed() on a hot page returns at once: the price of
 * enforce mode on a cached read.
 */
static atomic_t cp_quiet_slots = ATOMIC_INIT(0);

/* @s's quiet run ends (or the slot goes), slot lock held. */
static void cp_slot_unquiet(struct cp_lruvec_slot *s)
{
	if (s->st.quiet) {
		s->st.quiet = 0;
		atomic_dec(&cp_quiet_slots);
	}
}

static inline struct cp_lruvec_slot *cp_slot_at(struct lruvec *lruvec, int i)
{
	u32 h = hash_ptr(lruvec, ilog2(CP_LRUVEC_SLOTS));

	return &cp.lruvecs[(h + i) & (CP_LRUVEC_SLOTS - 1)];
}

/*
 * Claim @s for @lruvec, slot lock held.  The caller holds @lruvec alive
 * (a folio charged to its memcg, or reclaim's reference): the memcg's
 * identity is read now, once, for the readers, who never follow the key.
 */
static void cp_slot_claim(struct cp_lruvec_slot *s, struct lruvec *lruvec)
{
	struct mem_cgroup *memcg = mem_cgroup_disabled() ? NULL :
				   lruvec_memcg(lruvec);

	cp_slot_unquiet(s);	/* a stale slot taken over */
	memset(&s->st, 0, sizeof(s->st));
	memset(&s->sz, 0, sizeof(s->sz));
	memset(&s->lc, 0, sizeof(s->lc));
	memset(&s->h, 0, sizeof(s->h));	/* epoch 0: restarts when used */
	s->gone = 0;
	s->quick = 0;
	s->memcg_id = memcg ? mem_cgroup_id(memcg) : 0;
	s->cgroup_ino = memcg ? cgroup_ino(memcg->css.cgroup) : 0;
	s->nid = lruvec_pgdat(lruvec)->node_id;
	s->last_used = jiffies;
	WRITE_ONCE(s->lruvec, lruvec);
}

/*
 * The slot of @lruvec, claimed if it has none: a free slot of its probe
 * window, else one unused for a minute.  NULL if all are taken.
 */
static struct cp_lruvec_slot *cp_slot_find(struct lruvec *lruvec)
{
	struct cp_lruvec_slot *s, *free = NULL, *stale = NULL;
	unsigned long flags;
	int i;

	for (i = 0; i < CP_SLOT_PROBES; i++) {
		void *key;

		s = cp_slot_at(lruvec, i);
		key = READ_ONCE(s->lruvec);
		if (key == lruvec)
			return s;
		if (!key && !free)
			free = s;
		else if (key && !stale &&
			 time_after(jiffies, READ_ONCE(s->last_used) +
				    CP_SLOT_STALE))
			stale = s;
	}
	s = free ? free : stale;
	if (!s)
		return NULL;
	raw_spin_lock_irqsave(&s->lock, flags);
	if (!s->lruvec ||
	    (s == stale && time_after(jiffies, s->last_used + CP_SLOT_STALE)))
		cp_slot_claim(s, lruvec);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return READ_ONCE(s->lruvec) == lruvec ? s : NULL;
}

/*
 * A memcg is being freed: release the slots of its lruvecs, so that no
 * slot keeps a key that a new memcg, allocated at the same address, would
 * inherit the state of.
 */
/* Free @s if it holds @key (any key if NULL).  Return: it did. */
static bool cp_slot_release(struct cp_lruvec_slot *s, void *key)
{
	unsigned long flags;
	bool released;

	raw_spin_lock_irqsave(&s->lock, flags);
	released = s->lruvec && (!key || s->lruvec == key);
	if (released) {
		cp_slot_unquiet(s);
		WRITE_ONCE(s->lruvec, NULL);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return released;
}

static void cp_slots_release(struct lruvec *lruvec)
{
	int i;

	for (i = 0; i < CP_SLOT_PROBES; i++) {
		struct cp_lruvec_slot *s = cp_slot_at(lruvec, i);

		if (READ_ONCE(s->lruvec) == lruvec &&
		    cp_slot_release(s, lruvec))
			cp_count(CP_STAT_SLOTS_FREED, 1);
	}
}

/**
 * cp_slots_reset - release every slot: enforce starts afresh
 *
 * The local clocks stood still while the module only observed, and the
 * state measured on them would read the pause as no evictions at all.
 * Process context.
 */
void cp_slots_reset(void)
{
	int i;

	for (i = 0; i < CP_LRUVEC_SLOTS; i++) {
		cp_slot_release(&cp.lruvecs[i], NULL);
		cond_resched();
	}
}

/* mem_cgroup_css_free(css): the memcg's last reference is gone. */
static int __kprobes cp_memcg_free_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct cgroup_subsys_state *css =
		(void *)regs_get_kernel_argument(regs, 0);
	struct mem_cgroup *memcg = mem_cgroup_from_css(css);
	int nid;

	if (!memcg)
		return 0;
	for_each_node(nid)
		cp_slots_release(&memcg->nodeinfo[nid]->lruvec);
	return 0;
}

/*
 * EVICTED: arg pages left at global time now; gone: table entries that
 * expired unused (file pages).  REFAULT: r at global time now, arg
 * CP_FLAG_META; result: the verdict.
 */
enum cp_op {
	CP_OP_EVICTED,
	CP_OP_REFAULT,
	CP_OP_COLD_HIT,		/* arg: flags (CP_FLAG_ACTIVE: was hot) */
	CP_OP_HOT_SCANNED,	/* arg: CP_SCAN_*; result: rotate it */
	CP_OP_DEACTIVATE,	/* arg: nr_to_scan; result: pages to scan */
	CP_OP_NEW_PAGE,		/* result: enum cp_verdict */
	CP_OP_REUSED,		/* a hot page was used again */
};

/* clockpro_target's reason is the operation: CP_TRACE_REASONS */
static_assert(CP_OP_REUSED == 6);

/* How the hot hand treats the folios of one shrink_active_list() call. */
enum cp_call_mode {
	CP_CALL_PASS,		/* the kernel decides: forced, or no slot */
	CP_CALL_HAND,		/* CLOCK steps */
	CP_CALL_AGE,		/* CLOCK steps granted for aging alone */
	CP_CALL_TRIM,		/* CLOCK steps granted as a trim */
	CP_CALL_LOST,		/* cp_call_get(): current holds no way */
};

/* cp_call_set(): the mode shares a word with a task pointer */
static_assert(CP_CALL_TRIM <= 3);

/* An insertion, for the lruvec's histogram (memcg_hist). */
struct cp_hist_ins {
	unsigned long nr;	/* pages inserted */
	unsigned long hits;	/* of them, refaults */
	u64 distance;		/* the nearest one's, global clock */
	bool shadow;		/* the others: Beyond (else New) */
};

struct cp_op_args {
	u64 arg;
	u64 now;		/* the global clock, EVICTED, REFAULT, NEW_PAGE */
	u32 gone;
	bool escalated;		/* CP_OP_DEACTIVATE: reclaim escalated */
	const struct cp_refault *r;
	/*
	 * REFAULT of a page evicted from another node: its distance in
	 * that node's evictions, and that node's LRU (0: not known).
	 */
	u64 edist, elru;
	/* REFAULT, NEW_PAGE: also count it in the histogram, same lock */
	const struct cp_hist_ins *hist;
	u64 result;
	enum cp_call_mode call;	/* CP_OP_DEACTIVATE: for the hot hand */
};

static void cp_slot_hist_insert(struct cp_lruvec_slot *s,
				const struct cp_hist_ins *in, u64 now);

/* One policy operation on the state in @s, its lock held. */
static __always_inline void cp_slot_op(struct lruvec *lruvec,
				       struct cp_lruvec_slot *s,
				       enum cp_op op, struct cp_op_args *a)
{
	const struct cp_policy_params *p = &cp.params;
	struct cp_lru_sizes sz;
	bool quiet;
	u64 dist;

	quiet = s->st.quiet;
	if (a->hist)
		cp_slot_hist_insert(s, a->hist, a->now);
	switch (op) {
	case CP_OP_EVICTED:
		cp_lclock_advance(&s->lc, cp_lclock_shift(&cp.table), a->now,
				  a->arg);
		/*
		 * Expired test periods grow the target by their number: a
		 * batch of them at a time costs one read of the sizes.
		 */
		s->gone += a->gone;
		if (s->gone < CP_GONE_BATCH)
			return;	/* the clock alone: no sizes needed */
		a->gone = s->gone;
		s->gone = 0;
		break;
	case CP_OP_NEW_PAGE:
		/* on the last sizes, read afresh every CP_QUICK_RUN pages */
		if (++s->quick < CP_QUICK_RUN &&
		    cp_policy_new_page_quick(p, &s->st, &s->sz)) {
			a->result = CP_KEEP_COLD;
			goto out_quiet;
		}
		break;
	default:
		break;
	}
	cp_lruvec_sizes(lruvec, &sz);
	sz.clock = s->lc.now;
	s->quick = 0;
	switch (op) {
	case CP_OP_EVICTED:
		cp_policy_expired(p, &s->st, &sz, a->gone);
		break;
	case CP_OP_REFAULT:
		/*
		 * Distances in the evicting lruvec's own evictions, as its
		 * sizes; from another node's, scaled to this LRU's size.
		 */
		if (a->elru)
			dist = div64_u64(min(a->edist, 2 * a->elru) *
					 (sz.active + sz.inactive), a->elru);
		else
			dist = cp_lclock_distance(&s->lc,
						  cp_lclock_shift(&cp.table),
						  a->now, a->r->distance);
		a->result = cp_policy_refault(p, &s->st, &sz, dist,
					      a->r->flags | (u32)a->arg);
		break;
	case CP_OP_COLD_HIT:
		cp_policy_cold_hit(p, &s->st, &sz, a->arg);
		break;
	case CP_OP_HOT_SCANNED:
		a->result = cp_policy_hot_scanned(p, &s->st, &sz, a->arg);
		break;
	case CP_OP_DEACTIVATE:
		a->result = cp_policy_deactivate(p, &s->st, &sz, a->arg,
						 a->escalated);
		a->call = s->st.pass ? CP_CALL_PASS :
			  s->st.age_only ? CP_CALL_AGE :
			  s->st.trim ? CP_CALL_TRIM : CP_CALL_HAND;
		break;
	case CP_OP_NEW_PAGE:
		if (cp_policy_new_page_needs_free(p, &s->st, &sz))
			sz.free = cp_lruvec_free(lruvec);
		a->result = cp_policy_new_page(p, &s->st, &sz);
		break;
	case CP_OP_REUSED:
		cp_policy_reused(&s->st);
		break;
	}
	s->sz = sz;	/* for the readers; the target is theirs to work out */
out_quiet:
	if (quiet != !!s->st.quiet)
		atomic_add(quiet ? -1 : 1, &cp_quiet_slots);
}

/*
 * cp_slot_op() with the clockpro_target event on: the hot target as the
 * readers work it out, before and after.  Out of line, so that the
 * operation without the event is what it was before the event existed.
 */
static noinline void __kprobes cp_slot_op_traced(struct lruvec *lruvec,
						 struct cp_lruvec_slot *s,
						 enum cp_op op,
						 struct cp_op_args *a)
{
	s64 old = cp_slot_target(s), new;

	cp_slot_op(lruvec, s, op, a);
	new = cp_slot_target(s);
	if (new != old)
		trace_clockpro_target(s->memcg_id, s->nid, old, new, op);
}

/*
 * Run one policy operation on the state of @lruvec, under its slot lock.
 * Return: false if the lruvec has no state slot (the kernel decides).
 */
static bool __kprobes cp_policy_op(struct lruvec *lruvec, enum cp_op op,
				   struct cp_op_args *a)
{
	struct cp_lruvec_slot *s;
	unsigned long flags;
	bool done = false;

	if (cp_cost_stop(4))
		return false;
	s = lruvec ? cp_slot_find(lruvec) : NULL;
	if (!s) {
		cp_count(CP_STAT_NO_LRUVEC, 1);
		return false;
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->lruvec != lruvec)
		goto out_unlock;	/* the slot was taken over */
	s->last_used = jiffies;
	if (cp_cost_stop(5))
		goto out_unlock;
	if (trace_clockpro_target_enabled())
		cp_slot_op_traced(lruvec, s, op, a);
	else
		cp_slot_op(lruvec, s, op, a);
	done = true;
out_unlock:
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return done;
}

/**
 * cp_lruvec_stats - call @fn for every lruvec with adaptive state
 * @fn: callback, given a copy of the slot taken under its lock; the key
 *	is for comparison only, never to follow
 * @arg: passed to @fn
 *
 * Process context: may sleep between slots.  The copy (over a KiB) is
 * allocated, not kept on the stack.
 *
 * Return: 0, or -ENOMEM if the copy could not be allocated (@fn not called).
 */
int cp_lruvec_stats(void (*fn)(void *arg, const struct cp_lruvec_slot *s),
		    void *arg)
{
	struct cp_lruvec_slot *copy;
	unsigned long flags;
	int i;

	copy = kmalloc(sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < CP_LRUVEC_SLOTS; i++) {
		struct cp_lruvec_slot *s = &cp.lruvecs[i];

		if (!READ_ONCE(s->lruvec))
			continue;
		raw_spin_lock_irqsave(&s->lock, flags);
		*copy = *s;
		raw_spin_unlock_irqrestore(&s->lock, flags);
		if (copy->lruvec)
			fn(arg, copy);
		cond_resched();
	}
	kfree(copy);
	return 0;
}

static inline bool cp_enforcing(void)
{
	return READ_ONCE(cp.mode) == CP_MODE_ENFORCE;
}

/* === Shadow hand-off: workingset_refault() -> folio_add_lru() === */

/*
 * The hand-off carries the folio and the node its shadow says it was
 * evicted from (node + 1 in the low bits of the pointer, which are free
 * when struct page's size is a multiple of 64; 0: not known).  Nodes past
 * what the bits hold, and every node where they are not free, are not
 * known: the refault is judged on its own node, as before.
 */
#define CP_SHADOW_BITS		6
#define CP_SHADOW_TAG		(sizeof(struct page) % 64 ? 0UL : 63UL)
#define CP_NO_SHADOW		(-2)
static unsigned long cp_shadow[1 << CP_SHADOW_BITS];

/* Return: CP_NO_SHADOW, or the evicting node (NUMA_NO_NODE: unknown). */
static int cp_shadow_take(struct folio *folio)
{
	unsigned long *slot = &cp_shadow[hash_ptr(folio, CP_SHADOW_BITS)];
	unsigned long v = READ_ONCE(*slot), tag = v & CP_SHADOW_TAG;

	if ((v & ~CP_SHADOW_TAG) != (unsigned long)folio ||
	    cmpxchg(slot, v, 0) != v)
		return CP_NO_SHADOW;
	return tag ? (int)tag - 1 : NUMA_NO_NODE;
}

/* workingset_refault(folio, shadow) */
static void cp_refault(struct folio *folio, void *shadow)
{
	unsigned long tag = 0;
	int nid;

	if (cp_cost_stop(1))
		return;
	/* only enforce judges a refault, on the evicting node's clock */
	if (cp_enforcing()) {
		nid = cp_shadow_nid(shadow);
		if (nid != NUMA_NO_NODE && nid < CP_SHADOW_TAG)
			tag = nid + 1;
	}
	WRITE_ONCE(cp_shadow[hash_ptr(folio, CP_SHADOW_BITS)],
		   (unsigned long)folio | tag);
	cp_count(CP_STAT_SHADOW, folio_nr_pages(folio));
}

/*
 * PG_workingset the module disowns.  workingset_refault() marks a refault
 * of a page that was in the working set PG_workingset, and the kernel's
 * pressure accounting (PSI: readahead's read_pages(), a wait for the lock
 * of a folio being read) counts the read as thrashing by it.  A refault
 * the module keeps cold is no part of the hot set, and its next eviction
 * must not pass for a demoted hot page; nor may the first read of a new
 * page inserted hot pass for a hot page's reuse.  So the bit must go, but
 * only once the read is done: the folio is noted here at insertion, and
 * its bit cleared at its first folio_mark_accessed() (or disregarded at
 * its eviction, if it is evicted unread).
 *
 * A folio that keeps a disowned bit by mistake is worse than a policy
 * detail: the first read of an inactive PG_workingset folio is a demoted
 * hot page's reuse, which ends an idle episode.  After a workload whose
 * evictions left shadows of the next one's pages, most of those pages are
 * inserted PG_workingset, and with one entry per hash an entry lost for
 * one page in a few dozen can end a phase change's episode every few
 * hundred pages (the likely cause of the enforce test's phase at 0.32
 * instead of 0.74 in one boot of four, which counted 14 057 refaults
 * kept cold and 5 384 pages inserted hot instead of 33 103).  So each
 * folio hashes to a bucket of eight entries and takes a free one: only
 * more than eight folios of one bucket between insertion and first read
 * (hundreds are in flight at most) lose one.  Pointers are compared,
 * never followed; an entry of a folio freed unread is reused when its
 * bucket fills.
 */
#define CP_DISOWN_BITS		10
#define CP_DISOWN_WAYS		8
static struct folio *cp_disowned[1 << CP_DISOWN_BITS][CP_DISOWN_WAYS];

static void cp_disown_workingset(struct folio *folio)
{
	struct folio **b = cp_disowned[hash_ptr(folio, CP_DISOWN_BITS)];
	int i;

	for (i = 0; i < CP_DISOWN_WAYS; i++)
		if (READ_ONCE(b[i]) == folio)
			return;
	for (i = 0; i < CP_DISOWN_WAYS; i++)
		if (!READ_ONCE(b[i]) && !cmpxchg(&b[i], NULL, folio))
			return;
	/* full: a stale entry, most likely, gives way */
	WRITE_ONCE(b[hash_ptr(folio, 3) % CP_DISOWN_WAYS], folio);
}

/* Was @folio's PG_workingset disowned?  Forgets it. */
static bool cp_disowned_take(struct folio *folio)
{
	struct folio **b = cp_disowned[hash_ptr(folio, CP_DISOWN_BITS)];
	int i;

	for (i = 0; i < CP_DISOWN_WAYS; i++)
		if (READ_ONCE(b[i]) == folio &&
		    cmpxchg(&b[i], folio, NULL) == folio)
			return true;
	return false;
}

/* === Distance verification (debug) === */

static void cp_verify_evicted(const struct cp_key *k, unsigned long nr,
			      u64 when)
{
	struct cp_verify *v = rcu_dereference_sched(cp.verify);
	unsigned long i;

	if (!v || k->swap || k->ino != v->ino)
		return;
	for (i = 0; i < nr && k->index + i < v->pages; i++)
		WRITE_ONCE(v->clock[k->index + i], when + 1);
}

/*
 * The refaults histogram's row of @distance, as the knobs are now.  The
 * geometry is one word, valid from the module's first instruction on
 * (width >= 1, rows >= 1): see cp_hist_refit().
 */
static u32 cp_hist_row(u64 distance)
{
	u64 geom = READ_ONCE(cp.hist_geom);
	u32 rows = CP_HIST_GEOM_ROWS(geom);
	u64 row = distance / CP_HIST_GEOM_WIDTH(geom);

	return row < rows ? row : rows - 1;
}

static void cp_verify_refault(const struct cp_key *k, unsigned long i,
			      u64 now, u64 estimate)
{
	struct cp_verify *v = rcu_dereference_sched(cp.verify);
	unsigned long idx = k->index + i;
	u64 exact, err;
	int item;

	if (!v || k->swap || k->ino != v->ino || idx >= v->pages)
		return;
	exact = READ_ONCE(v->clock[idx]);
	if (!exact) {
		item = CP_VERIFY_UNRECORDED;
		goto count;
	}
	exact = now - (exact - 1);
	err = estimate > exact ? estimate - exact : exact - estimate;
	if (err * 100 <= exact)
		item = CP_VERIFY_WITHIN_1;
	else if (err * 20 <= exact)
		item = CP_VERIFY_WITHIN_5;
	else if (err * 10 <= exact)
		item = CP_VERIFY_WITHIN_10;
	else
		item = CP_VERIFY_OUTSIDE_10;
	/* The timestamp's quantisation bounds the error below one step. */
	if (err < 1ULL << cp.table.shift)
		atomic64_inc(&v->counts[CP_VERIFY_WITHIN_STEP]);
	atomic64_inc(&v->counts[CP_VERIFY_REFAULTS]);
	atomic64_inc(&v->rows[cp_hist_row(exact)]);
count:
	atomic64_inc(&v->counts[item]);
}

/* === Eviction === */

/* Enforce: the lruvec's own clock counts every eviction, as the table's. */
static noinline void cp_enforce_evicted(struct folio *folio, unsigned long nr,
					u64 when, u32 gone)
{
	struct cp_op_args a = { .arg = nr, .now = when, .gone = gone };

	cp_policy_op(cp_folio_lruvec(folio), CP_OP_EVICTED, &a);
}

/*
 * The lruvec's histogram, restarted (bounded: one slot's) if the global
 * one was reset since it started; slot lock held.
 */
static void cp_slot_hist_sync(struct cp_lruvec_slot *s)
{
	u64 epoch = atomic64_read(&cp.hist_epoch);

	if (s->h.epoch == epoch)
		return;
	memset(&s->h, 0, sizeof(s->h));
	s->h.epoch = epoch;
	s->h.geom = READ_ONCE(cp.hist_geom);
}

/*
 * The row of a local distance in an lruvec's histogram: the rows are the
 * global histogram's first CP_SLOT_HIST_ROWS; the last is open.
 */
static u32 cp_slot_hist_row(u64 geom, u64 distance)
{
	u32 rows = min_t(u32, CP_HIST_GEOM_ROWS(geom), CP_SLOT_HIST_ROWS);
	u64 row = div_u64(distance, CP_HIST_GEOM_WIDTH(geom));

	return row < rows ? row : rows - 1;
}

/*
 * Observe: the evictions of an lruvec advance its own clock, on which its
 * refault distances are measured (enforce does it in CP_OP_EVICTED).
 */
static void cp_slot_evicted(struct folio *folio, unsigned long nr, u64 when)
{
	struct lruvec *lruvec = cp_folio_lruvec(folio);
	struct cp_lruvec_slot *s = lruvec ? cp_slot_find(lruvec) : NULL;
	unsigned long flags;

	if (!s)
		return;
	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->lruvec == lruvec) {
		s->last_used = jiffies;
		cp_lclock_advance(&s->lc, cp_lclock_shift(&cp.table), when,
				  nr);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * An insertion into the lruvec of slot @s (its lock held), in its
 * histogram: @in->hits refaults at the global distance @in->distance (the
 * folio's nearest page: its pages were evicted together), the other pages
 * New or Beyond.
 */
static void cp_slot_hist_insert(struct cp_lruvec_slot *s,
				const struct cp_hist_ins *in, u64 now)
{
	u64 local;

	cp_slot_hist_sync(s);
	if (in->hits) {
		local = cp_lclock_distance(&s->lc, cp_lclock_shift(&cp.table),
					   now, in->distance);
		s->h.rows[cp_slot_hist_row(s->h.geom, local)] += in->hits;
		s->h.refaults += in->hits;
	}
	if (in->hits < in->nr) {
		if (in->shadow)
			s->h.beyond += in->nr - in->hits;
		else
			s->h.new_pages += in->nr - in->hits;
	}
}

/*
 * An insertion into @folio's lruvec, in its histogram, where no policy
 * operation on the slot carries it (observe; enforce's metadata and
 * swap-cache pages, and new pages with the idle rule off).
 */
static void cp_slot_inserted(struct folio *folio, const struct cp_hist_ins *in,
			     u64 now)
{
	struct lruvec *lruvec = cp_folio_lruvec(folio);
	struct cp_lruvec_slot *s = lruvec ? cp_slot_find(lruvec) : NULL;
	unsigned long flags;

	if (!s) {
		/* enforce counts it in its own operations */
		if (lruvec && !cp_enforcing())
			cp_count(CP_STAT_NO_LRUVEC, 1);
		return;
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->lruvec == lruvec) {	/* else the slot was taken over */
		s->last_used = jiffies;
		cp_slot_hist_insert(s, in, now);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

/* workingset_eviction(folio, target_memcg) */
static void cp_eviction(struct folio *folio)
{
	u32 eflags, gone, expired = 0, displaced = 0, raced = 0;
	unsigned long i, nr;
	struct cp_key k;
	u64 when;

	if (cp_cost_stop(1))
		return;
	if (!cp_folio_key(folio, &k))
		return;
	if (cp_cost_stop(2)) {
		when = cp_key_page(&k, 0);
		OPTIMIZER_HIDE_VAR(when);
		return;
	}
	nr = folio_nr_pages(folio);
	/* only enforce disowns (an entry left from before reads as the bit) */
	eflags = folio_test_workingset(folio) &&
		 !(cp_enforcing() && cp_disowned_take(folio)) ?
		 CP_FLAG_ACTIVE : 0;
	when = cp_table_clock_advance(&cp.table, nr);
	for (i = 0; i < nr; i++) {
		switch (cp_table_remember(&cp.table, cp_key_page(&k, i), when,
					  eflags, &gone)) {
		case CP_REMEMBER_DISPLACED:
			displaced++;
			break;
		case CP_REMEMBER_RACED:
			raced++;
			break;
		default:
			break;
		}
		expired += gone;
	}
	if (cp_cost_stop(3))
		return;
	cp_verify_evicted(&k, nr, when);

	cp_count(CP_STAT_EVICTIONS, nr);
	if (nr > 1)
		cp_count(CP_STAT_EVICT_LARGE, nr);
	if (k.swap)
		cp_count(CP_STAT_SWAP_EVICTIONS, nr);
	if (expired)
		cp_count(CP_STAT_EXPIRED, expired);
	if (displaced)
		cp_count(CP_STAT_DISPLACED, displaced);
	if (raced)
		cp_count(CP_STAT_RACED, raced);
	if (trace_clockpro_evict_enabled())
		trace_clockpro_evict(cp_trace_dev(&k), k.ino, k.index,
				     cp_trace_memcg(folio), nr,
				     cp_trace_flags(folio, eflags, k.swap));

	if (cp_enforcing())
		cp_enforce_evicted(folio, nr, when,
				   k.swap ? 0 : expired + displaced);
	else if (READ_ONCE(cp.memcg_hist))
		cp_slot_evicted(folio, nr, when);
}

/* === Insertion === */

/* The slot of @lruvec if it has one; never claims a slot. */
static struct cp_lruvec_slot *cp_slot_lookup(struct lruvec *lruvec)
{
	struct cp_lruvec_slot *s;
	int i;

	for (i = 0; i < CP_SLOT_PROBES; i++) {
		s = cp_slot_at(lruvec, i);
		if (READ_ONCE(s->lruvec) == lruvec)
			return s;
	}
	return NULL;
}

/*
 * A refault lands on the node it is allocated on, which need not be the
 * node that evicted the page: a reader on a full node spills over to the
 * next.  Its distance means something only on the clock of the lruvec
 * that evicted it, against that lruvec's size (workingset.c compares on
 * the eviction lruvec too).  Fill @a with both, for cp_slot_op(): the
 * evicting lruvec of @folio's memcg on node @nid.  Its slot is locked
 * alone, before the refault's own; the memcg is pinned by the folio's
 * charge, so its other nodes' lruvecs are alive.
 */
static void cp_evict_distance(struct folio *folio, int nid,
			      struct cp_op_args *a)
{
	struct mem_cgroup *memcg = cp_folio_memcg(folio);
	struct cp_lruvec_slot *s;
	struct cp_lru_sizes sz;
	struct lruvec *lruvec;
	unsigned long flags;
	u64 dist;

	if (mem_cgroup_disabled())
		lruvec = &NODE_DATA(nid)->__lruvec;
	else if (memcg)
		lruvec = &memcg->nodeinfo[nid]->lruvec;
	else
		return;
	s = cp_slot_lookup(lruvec);
	if (!s)
		return;
	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->lruvec != lruvec) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		return;
	}
	dist = cp_lclock_distance(&s->lc, cp_lclock_shift(&cp.table),
				  a->now, a->r->distance);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	cp_lruvec_sizes(lruvec, &sz);
	a->edist = dist;
	a->elru = sz.active + sz.inactive;
	if (a->elru)
		cp_count(CP_STAT_REMOTE_REFAULTS, 1);
}

/*
 * Enforce: the table's verdict replaces the kernel's workingset decision.
 * PG_active is set or cleared before the folio reaches its LRU list.
 * Return: the verdict on a refault, CP_TRACE_*, for its trace event.
 */
static u32 cp_enforce_insert(struct folio *folio, bool hit, int enid,
			     const struct cp_refault *r, u64 now,
			     const struct cp_hist_ins *hist)
{
	struct cp_op_args a = { .r = r, .now = now, .hist = hist,
				.result = CP_KEEP_COLD };
	bool meta = cp_folio_meta(folio);

	/* the histogram rides on the operation: one slot lock, not two */
	if (hit) {
		a.arg = meta ? CP_FLAG_META : 0;
		if (enid >= 0 && enid != folio_nid(folio))
			cp_evict_distance(folio, enid, &a);
		if (!cp_policy_op(cp_folio_lruvec(folio), CP_OP_REFAULT, &a))
			return CP_TRACE_NO_SLOT; /* leave it to the kernel */
	} else if (!meta && READ_ONCE(cp.params.idle_pct)) {
		/* metadata stays out of the idle rule: never inserted hot */
		if (!cp_policy_op(cp_folio_lruvec(folio), CP_OP_NEW_PAGE, &a))
			return CP_TRACE_NO_SLOT;
	} else if (hist) {
		cp_slot_inserted(folio, hist, now);
	}

	if (a.result == CP_PROMOTE) {
		cp_count(hit ? CP_STAT_PROMOTED : CP_STAT_IDLE_HOT,
			 folio_nr_pages(folio));
		if (!folio_test_active(folio))
			folio_set_active(folio);
		/*
		 * A new page inserted hot while the hot set is idle: its
		 * first read must not pass for the reuse of a hot page
		 * (cp_accessed_pre()).
		 */
		if (!hit && folio_test_workingset(folio))
			cp_disown_workingset(folio);
		return CP_TRACE_PROMOTED;
	}
	if (hit)
		cp_count(CP_STAT_KEPT_COLD, folio_nr_pages(folio));
	if (folio_test_active(folio)) {
		folio_clear_active(folio);
		cp_count(CP_STAT_OVERRIDDEN, folio_nr_pages(folio));
	}
	/* kept cold, it is not in the working set (for PSI, until read) */
	if (folio_test_workingset(folio))
		cp_disown_workingset(folio);
	return CP_TRACE_KEPT_COLD;
}

static void cp_hist_add(u64 distance)
{
	this_cpu_inc(cp.hist->rows[cp_hist_row(distance)]);
}

/* folio_add_lru(folio) */
static void cp_add_lru(struct folio *folio)
{
	struct cp_refault r, best = { .distance = U64_MAX };
	const struct cp_hist_ins *hist = NULL;
	unsigned long i, nr, hits = 0;
	u32 verdict = CP_TRACE_OBSERVED;
	struct cp_hist_ins in;
	struct cp_key k;
	unsigned long f;
	bool shadow;
	int enid;
	u64 now;

	if (cp_cost_stop(1))
		return;
	f = cp_folio_flags(folio);
	/* New cache folios are locked and not yet read; putbacks are not. */
	if ((f & (BIT(PG_locked) | BIT(PG_uptodate))) != BIT(PG_locked))
		return;
	/* anonymous or shmem, not in swap cache (which is swap-backed too) */
	if ((f & (BIT(PG_swapbacked) | BIT(PG_swapcache))) == BIT(PG_swapbacked))
		return;
	if (!cp_folio_key(folio, &k))
		return;
	if (cp_cost_stop(2)) {
		now = cp_key_page(&k, 0);
		OPTIMIZER_HIDE_VAR(now);
		return;
	}

	enid = cp_shadow_take(folio);
	shadow = enid != CP_NO_SHADOW;
	nr = folio_nr_pages(folio);
	now = cp_table_clock(&cp.table);
	for (i = 0; i < nr; i++) {
		if (!cp_table_lookup(&cp.table, cp_key_page(&k, i), now, &r) ||
		    cp_cost_stop(3))
			continue;
		hits++;
		cp_hist_add(r.distance);
		cp_verify_refault(&k, i, now, r.distance);
		if (r.distance < best.distance)
			best = r;
	}

	if (cp_cost_stop(3))
		return;
	cp_count(CP_STAT_INSERTIONS, nr);
	if (hits) {
		cp_count(CP_STAT_REFAULTS, hits);
		if (k.swap)
			cp_count(CP_STAT_SWAP_REFAULTS, hits);
	}
	if (hits < nr)
		cp_count(shadow ? CP_STAT_BEYOND : CP_STAT_NEW, nr - hits);
	if (READ_ONCE(cp.memcg_hist)) {
		in = (struct cp_hist_ins){ .nr = nr, .hits = hits,
					   .distance = best.distance,
					   .shadow = shadow };
		hist = &in;
	}

	if (!k.swap && cp_enforcing())
		verdict = cp_enforce_insert(folio, hits, enid, &best, now,
					    hist);
	else if (hist)
		cp_slot_inserted(folio, hist, now);
	if (hits && trace_clockpro_refault_enabled())
		trace_clockpro_refault(cp_trace_dev(&k), k.ino, k.index,
				       cp_trace_memcg(folio), best.distance,
				       nr, hits, verdict,
				       cp_trace_flags(folio, best.flags,
						      k.swap));
}

/* === Enforce: hot references and the active target === */

static void cp_rearm_work_fn(struct work_struct *work);
static DECLARE_WORK(cp_rearm_work, cp_rearm_work_fn);

/*
 * Any reuse ends the hot set's idleness (cp_policy_reused()); the slot lock
 * is taken only while the lruvec counts pages inserted without one.
 */
static void cp_reused(struct lruvec *lruvec)
{
	struct cp_lruvec_slot *s = lruvec ? cp_slot_find(lruvec) : NULL;
	struct cp_op_args a = { 0 };

	if (s && READ_ONCE(s->st.quiet))
		cp_policy_op(lruvec, CP_OP_REUSED, &a);
}

/* A cold page's second reference: the kernel activates it now. */
static noinline void cp_cold_hit(struct folio *folio)
{
	struct cp_op_args a = { 0 };

	a.arg = folio_test_workingset(folio) ? CP_FLAG_ACTIVE : 0;
	if (cp_folio_meta(folio))
		a.arg |= CP_FLAG_META;
	else if (READ_ONCE(cp.params.idle_pct))
		folio_set_workingset(folio);	/* the kernel activates it */
	if (!cp_policy_op(cp_folio_lruvec(folio), CP_OP_COLD_HIT, &a))
		return;
	cp_count(a.arg & CP_FLAG_ACTIVE ? CP_STAT_DEMOTED_HITS :
		 CP_STAT_COLD_HITS, 1);
	if (trace_clockpro_cold_hit_enabled())
		trace_clockpro_cold_hit(cp_trace_memcg(folio), folio_nid(folio),
					cp_trace_flags(folio, a.arg, false));
}

/*
 * The idle rule wants these: a hot page read again, or the first read of
 * a demoted one (inactive, so not PG_referenced here: PG_workingset alone
 * counts).
 */
static noinline void cp_maybe_reused(struct folio *folio)
{
	if (READ_ONCE(cp.params.idle_pct) && !cp_folio_meta(folio) &&
	    (folio_test_referenced(folio) || folio_test_workingset(folio)))
		cp_reused(cp_folio_lruvec(folio));
}

/*
 * folio_mark_accessed() activates an inactive folio on its second
 * reference: a cold page reused within its test period, or a demoted hot
 * page (shrink_active_list() marks those PG_workingset; a refault kept
 * cold has the bit cleared by cp_enforce_insert()).  On an active folio
 * it is the reuse of a hot page when PG_referenced is already set or the
 * folio has PG_workingset: the hot hand rotated it (cp_referenced_ret()),
 * or the kernel activated it here, which clears PG_referenced and would
 * leave its next read unseen.  Neither is true of the first read of a new
 * page inserted hot.  Deactivation sets PG_workingset anyway: eviction
 * and refault see nothing they would not have.  The first read of an
 * inactive PG_workingset folio, a demoted hot page, is a reuse too: were
 * it not, an idle episode that demoted part of a hot set in use would
 * hide the reads of that part, and go on to demote the rest.  A block
 * device's pages (filesystem metadata, which the filesystem touches on
 * every read of a file) prove nothing about the hot set: they never end
 * its idleness.
 *
 * The flags are read once: this runs on every buffered read of a cached
 * page while enforcing, and its common case, a hot page read again while
 * no lruvec counts a quiet run, is a handful of instructions.
 */
static void cp_accessed(struct folio *folio)
{
	unsigned long f;

	if (cp_cost_stop(1) || !cp_enforcing())
		return;
	f = cp_folio_flags(folio);
	/*
	 * Read at last: the bit the module disowned at insertion goes.  Its
	 * first read finds it without PG_referenced.
	 */
	if ((f & (BIT(PG_referenced) | BIT(PG_workingset))) ==
	    BIT(PG_workingset) && cp_disowned_take(folio))
		folio_clear_workingset(folio);
	if ((f & (BIT(PG_lru) | BIT(PG_swapbacked) | BIT(PG_unevictable))) !=
	    BIT(PG_lru))
		return;
	if ((f & (BIT(PG_active) | BIT(PG_referenced))) ==
	    BIT(PG_referenced)) {
		cp_cold_hit(folio);
		return;
	}
	/* only while some lruvec counts a quiet run can a read end it */
	if (atomic_read(&cp_quiet_slots))
		cp_maybe_reused(folio);
}

/*
 * The hot hand.  shrink_active_list() asks folio_referenced() about every
 * folio it scans and rotates the referenced ones only if they are mapped
 * executable.  For isolated active file folios, the return handler turns
 * that into a CLOCK step: referenced since the hand last passed (young
 * PTEs or PG_referenced, which is cleared) means rotate, reported to the
 * kernel as an executable reference; otherwise the folio is demoted.
 *
 * Whether a call is the hand's at all, and whether it was granted for
 * aging alone, is decided once per shrink_active_list() call, by its
 * pre-handler, and kept per task: concurrent reclaimers of one lruvec
 * each see their own call's grant.  A call the kernel escalated, or one
 * below the inactive floor, is the kernel's alone: nothing rotates.
 */
#ifndef CP_CALL_BITS
#define CP_CALL_BITS		7
#endif
#ifndef CP_CALL_WAYS
#define CP_CALL_WAYS		4
#endif
/*
 * Per task, the mode of its last shrink_active_list() call: a bucket of
 * ways by task, each way a task pointer with the mode in its low bits and
 * the jiffies it was set.  A task claims the way set longest ago (entries
 * are never cleared: a task whose call ended leaves its way to be taken);
 * with one way per bucket, two reclaimers that hashed alike (kswapd and a
 * reader in direct reclaim) took each other's mode for whole calls, and
 * the kernel demoted the folios of those calls unjudged.
 * A task whose way was taken (more live reclaimers in one bucket than it
 * has ways) or never claimed (a race lost twice) is the kernel's for the
 * rest of its call, which is safe; hand_call_lost counts its folios.
 */
struct cp_call_way {
	unsigned long v;	/* task | mode */
	unsigned long when;	/* jiffies at the claim */
};

/* a bucket of 4 ways is one cache line */
static struct cp_call_way cp_calls[1 << CP_CALL_BITS][CP_CALL_WAYS]
	____cacheline_aligned;

static struct cp_call_way *cp_call_bucket(struct task_struct *task)
{
	/* CP_CALL_BITS=0 (a test build): every task in one bucket */
	return cp_calls[CP_CALL_BITS ? hash_ptr(task, CP_CALL_BITS) : 0];
}

static void cp_call_set(enum cp_call_mode mode)
{
	struct cp_call_way *b = cp_call_bucket(current);
	/* task_struct is cache-line aligned: the low bits carry the mode */
	unsigned long me = (unsigned long)current, v;
	int i, old, tries;

	for (i = 0; i < CP_CALL_WAYS; i++) {
		v = READ_ONCE(b[i].v);
		if ((v & ~3UL) != me)
			continue;
		/* ours, unless another task takes the way meanwhile */
		if (cmpxchg(&b[i].v, v, me | mode) == v) {
			WRITE_ONCE(b[i].when, jiffies);
			return;
		}
		break;
	}
	/* only current stores its own pointer: it cannot appear meanwhile */
	old = 0;
	for (i = 1; i < CP_CALL_WAYS; i++)
		if (time_before(READ_ONCE(b[i].when), READ_ONCE(b[old].when)))
			old = i;
	/* a race lost: the next way; lost again, PASS (hand_call_lost) */
	for (tries = 0; tries < 2; tries++, old = (old + 1) % CP_CALL_WAYS) {
		v = READ_ONCE(b[old].v);
		if (cmpxchg(&b[old].v, v, me | mode) == v) {
			WRITE_ONCE(b[old].when, jiffies);
			return;
		}
	}
}

/* The mode of current's shrink_active_list() call, or LOST. */
static enum cp_call_mode cp_call_get(void)
{
	struct cp_call_way *b = cp_call_bucket(current);
	unsigned long me = (unsigned long)current, v;
	int i;

	for (i = 0; i < CP_CALL_WAYS; i++) {
		v = READ_ONCE(b[i].v);
		if ((v & ~3UL) == me)
			return v & 3UL;
	}
	return CP_CALL_LOST;
}

struct cp_referenced_data {
	struct folio *folio;
	unsigned long *vm_flags;
	u32 seen;		/* CP_SCAN_AGE_ONLY, from the call's grant */
};

static int __kprobes cp_referenced_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	struct cp_referenced_data *d = (void *)ri->data;
	struct folio *folio = (void *)regs_get_kernel_argument(regs, 0);
	enum cp_call_mode mode;

	if (!cp_enforcing() || !folio_test_active(folio) ||
	    folio_test_lru(folio) || folio_test_swapbacked(folio))
		return 1;	/* not the hot hand: skip the return handler */
	mode = cp_call_get();
	if (mode == CP_CALL_LOST)
		cp_count(CP_STAT_HAND_LOST, folio_nr_pages(folio));
	if (mode == CP_CALL_PASS || mode == CP_CALL_LOST)
		return 1;
	d->folio = folio;
	d->vm_flags = (void *)regs_get_kernel_argument(regs, 3);
	d->seen = mode == CP_CALL_AGE ? CP_SCAN_AGE_ONLY :
		  mode == CP_CALL_TRIM ? CP_SCAN_TRIM : 0;
	return 0;
}

static int __kprobes cp_referenced_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct cp_referenced_data *d = (void *)ri->data;
	/* int: -1 (the rmap walk could not lock) is no young PTE */
	bool young = (int)regs_return_value(regs) > 0;
	struct cp_op_args a = { .arg = d->seen };

	if (folio_test_clear_referenced(d->folio))
		a.arg |= CP_SCAN_REFERENCED;
	if (young)
		a.arg |= CP_SCAN_YOUNG;
	if (!cp_policy_op(cp_folio_lruvec(d->folio), CP_OP_HOT_SCANNED, &a))
		return 0;
	if (trace_clockpro_hand_enabled())
		trace_clockpro_hand(cp_trace_memcg(d->folio),
				    folio_nid(d->folio),
				    folio_nr_pages(d->folio),
				    a.result ? CP_TRACE_ROTATE : CP_TRACE_DEMOTE,
				    (u32)a.arg);
	if (a.result) {
		cp_count(CP_STAT_HAND_ROTATED, folio_nr_pages(d->folio));
		/*
		 * Proven hot: for the idle rule, its next read is a reuse
		 * even with the bit clear.  Deactivation would set
		 * PG_workingset anyway, so eviction and refault see nothing
		 * they would not have.
		 */
		if (READ_ONCE(cp.params.idle_pct))
			folio_set_workingset(d->folio);
		*d->vm_flags |= VM_EXEC;
		regs_set_return_value(regs, 1);
	} else {
		cp_count(CP_STAT_HAND_DEMOTED, folio_nr_pages(d->folio));
	}
	return 0;
}

static struct kretprobe cp_referenced_probe = {
	.entry_handler = cp_referenced_entry,
	.handler = cp_referenced_ret,
	.data_size = sizeof(struct cp_referenced_data),
};

/*
 * Target of the override-return in cp_shrink_active_pre(): the probed
 * function's frame was never built, so returning from here returns to its
 * caller.  shrink_active_list() returns void.
 */
static noinline notrace void __kprobes cp_skip_stub(void)
{
}

/*
 * A reclaim that may not touch some zones holding file pages of @lruvec
 * (a DMA allocation) isolates only from the others, while the module's
 * sizes count all zones: it is short when the eligible zones' own
 * inactive pages are below the inactive floor of their own LRU.
 */
static bool cp_zones_short(struct lruvec *lruvec, int reclaim_idx)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	struct cp_lru_sizes sz = { 0 };
	bool restricted = false;
	unsigned long a, i;
	int z;

	for (z = reclaim_idx + 1; z < MAX_NR_ZONES && !restricted; z++) {
		if (!managed_zone(&pgdat->node_zones[z]))
			continue;
		cp_zone_file_sizes(lruvec, z, &a, &i);
		restricted = a > 0;
	}
	if (!restricted)
		return false;	/* the common case: no zone is out of reach */
	for (z = 0; z <= reclaim_idx; z++) {
		cp_zone_file_sizes(lruvec, z, &a, &i);
		sz.active += a;
		sz.inactive += i;
	}
	return sz.inactive < cp_policy_floor(&cp.params, &sz);
}

/*
 * How far reclaim has escalated.  PASS: the kernel's forced deactivation
 * (its retry before giving up and OOM-killing): the call is the kernel's
 * own, the hot hand rotates nothing.  SCAN: zones it may not reclaim from
 * holding file pages (a DMA allocation: the module's sizes count pages
 * this reclaim cannot reach) while the eligible zones' inactive pages are
 * below their floor, or the last scan priority: the call is
 * neither held nor trimmed, and the pages it isolates, all eligible, are
 * scanned as CLOCK steps, as below the inactive floor: unreferenced hot
 * pages go, referenced ones stay, and if that is not enough, the
 * kernel's forced deactivation follows.  (Every zone-restricted call as
 * PASS cost 3.5 points of the loop with readahead on 6.12, 583 calls, and
 * as SCAN about as much: the eligible zones' own floor decides.)  A scan_control that
 * does not look like one is taken as PASS.
 *
 * SCAN is priority 0, the round that scans whole lists, and not
 * DEF_PRIORITY - 2, vmscan's own mark of a struggle: a held active list
 * leaves reclaim the inactive list alone, at least floor_pct of the LRU,
 * and reclaim reaches it by lowering the priority until size >> priority
 * is a batch, priority 5 or so in a 256 MiB guest in routine reclaim;
 * readahead, whose pages are locked under I/O at the inactive head, goes
 * lower still.  Measured on a loop of 1.25 C: at DEF_PRIORITY - 2 as
 * PASS, 0.79 -> 0.30 (6.1); at priority <= 2 as PASS, 0.79 -> 0.58 with
 * readahead on 6.12 (2 825 calls), and as SCAN 0.62 (6 236 calls): a
 * hand driven over a quarter of the hot set per call clears the bits
 * before the loop comes back.  The retry before OOM is force_deactivate.
 */
#define CP_PRIO_ESCALATED	0
enum cp_escalation {
	CP_ESC_NONE,
	CP_ESC_SCAN,		/* all it asked for, as CLOCK steps */
	CP_ESC_PASS,		/* the kernel's own scan */
};

static enum cp_escalation cp_reclaim_escalated(const struct cp_scan_control *sc,
					       struct lruvec *lruvec)
{
	if (unlikely(sc->priority < 0 || sc->priority > DEF_PRIORITY ||
		     sc->reclaim_idx < 0 || sc->reclaim_idx >= MAX_NR_ZONES)) {
		pr_warn_once("scan_control looks wrong (priority %d, reclaim_idx %d): never holding the active list\n",
			     sc->priority, sc->reclaim_idx);
		return CP_ESC_PASS;
	}
	if (sc->force_deactivate) {
		cp_count(CP_STAT_ESC_FORCED, 1);
		return CP_ESC_PASS;
	}
	if (cp_zones_short(lruvec, sc->reclaim_idx)) {
		cp_count(CP_STAT_ESC_ZONES, 1);
		return CP_ESC_SCAN;
	}
	if (sc->priority <= CP_PRIO_ESCALATED) {
		cp_count(CP_STAT_ESC_PRIORITY, 1);
		return CP_ESC_SCAN;
	}
	return CP_ESC_NONE;
}

static int __kprobes cp_shrink_active_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long nr = regs_get_kernel_argument(regs, 0);
	struct lruvec *lruvec = (void *)regs_get_kernel_argument(regs, 1);
	struct cp_scan_control *sc = (void *)regs_get_kernel_argument(regs, 2);
	/* an enum: the upper half of the register is undefined */
	enum lru_list lru = (u32)regs_get_kernel_argument(regs, 3);
	struct cp_op_args a = { .arg = nr };
	enum cp_escalation esc;
	u64 n;

	if (lru != LRU_ACTIVE_FILE || !cp_enforcing())
		return 0;
	esc = cp_reclaim_escalated(sc, lruvec);
	a.escalated = esc != CP_ESC_NONE;
	if (a.escalated)
		cp_count(CP_STAT_ESCALATED, 1);
	if (!cp_policy_op(lruvec, CP_OP_DEACTIVATE, &a)) {
		cp_call_set(CP_CALL_PASS);
		return 0;
	}
	n = a.result;
	if (esc == CP_ESC_SCAN)
		a.call = CP_CALL_HAND;	/* all of it, as CLOCK steps */

	if (!n) {
		/*
		 * Held.  Tell reclaim that deactivation was skipped, as
		 * shrink_list() does when it declines to call us: if this
		 * reclaim fails, the kernel retries with force_deactivate,
		 * which the module never holds.
		 */
		sc->skipped_deactivate = 1;
		cp_count(CP_STAT_DEACT_SKIPPED, 1);
		cp_regs_skip_call(regs, (unsigned long)cp_skip_stub);
		return 1;
	}
	cp_call_set(a.call);
	cp_count(CP_STAT_DEACT_PAGES, n);
	if (n != nr) {
		cp_count(CP_STAT_DEACT_TRIMMED, 1);
		cp_regs_set_arg0(regs, n);
	}
	return 0;
}

/*
 * evict_folios() under enforce: MGLRU runs reclaim, the classic lists the
 * module steers are empty.  Unless the lruvec is one MGLRU has already
 * left (a reclaimer that entered MGLRU code before the switch was turned
 * off, as classic_lru does when enforce starts): it finds nothing there.
 */
static int __kprobes cp_mglru_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct lruvec *lruvec =
		(void *)regs_get_kernel_argument(regs, CP_EVICT_FOLIOS_LRUVEC);

	if (!cp_enforcing())
		return 0;
	if (!cp_lruvec_mglru(lruvec)) {
		cp_count(CP_STAT_MGLRU_TAIL, 1);
		return 0;
	}
	WRITE_ONCE(cp.mode, CP_MODE_OBSERVE);
	schedule_work(&cp_rearm_work);	/* disarm its hooks */
	cp_count(CP_STAT_MGLRU_SEEN, 1);
	pr_warn_ratelimited("MGLRU reclaim is running: enforce mode has no lever there, back to observe\n");
	return 0;
}

/* === Attachment === */

/*
 * The four hooks every page passes through (insertion, eviction, refault,
 * and each read while enforcing) are ftrace callbacks: the function's
 * fentry call reaches the handler through a trampoline of its own, which
 * saves only the argument registers.  A kprobe at the same place costs
 * three times that (all registers saved, the kprobe looked up in a hash
 * table, the kprobe state switched around the handler).  The hooks that
 * need what only a kprobe gives stay kprobes: the override-return of
 * shrink_active_list(), the return value of folio_referenced(); they run
 * once per reclaim batch, or once per scanned active page.
 *
 * An ftrace callback may run with preemption on and may nest in an
 * interrupt: the recursion lock, taken first, disables preemption and
 * refuses to nest in the same context, as a kprobe would.
 */
static __always_inline void cp_ftrace_call(void (*handler)(struct folio *),
					   unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	handler((struct folio *)cp_fregs_arg(fregs, 0));
	ftrace_test_recursion_unlock(bit);
}

/* One callback per hook: ftrace passes the function's arguments. */
#define CP_DEFINE_FTRACE_CALLBACK(name, handler)			\
static void notrace name(unsigned long ip, unsigned long parent_ip,	\
			 struct ftrace_ops *ops, struct ftrace_regs *fregs) \
{									\
	cp_ftrace_call(handler, ip, parent_ip, fregs);			\
}

CP_DEFINE_FTRACE_CALLBACK(cp_eviction_fn, cp_eviction)
CP_DEFINE_FTRACE_CALLBACK(cp_add_lru_fn, cp_add_lru)
CP_DEFINE_FTRACE_CALLBACK(cp_accessed_fn, cp_accessed)

/* workingset_refault() has a second argument: the shadow entry. */
static void notrace cp_refault_fn(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	cp_refault((struct folio *)cp_fregs_arg(fregs, 0),
		   (void *)cp_fregs_arg(fregs, 1));
	ftrace_test_recursion_unlock(bit);
}

/*
 * Which hooks are armed depends on the mode: observing needs insertion,
 * eviction, refault and the memcg's end; the others act only while
 * enforcing, and are disarmed while observing, so that a cached read
 * pays nothing at all then.  Every hook is resolved at load, armed or
 * not, and its health checked there (cp_hooks_register()):
 *
 *  - the prototype the handler assumes is checked at build time against
 *    the kernel's own declaration where the kernel has one
 *    (include/clockpro/compat.h, "header"), or comes from the kernel
 *    versions whose mm/vmscan.c compat.h mirrors ("vmscan", the static
 *    reclaim functions: on another version enforce is refused anyway);
 *  - the symbol must resolve (kallsyms) and take the probe (ftrace or
 *    kprobes): a failure names the function, the kernel release and why.
 *
 * What a missing site costs depends on its feature.  Observe's three
 * (eviction, insertion, refault) are required: the load fails.  Enforce's
 * four (folio_mark_accessed(), shrink_active_list(), folio_referenced()
 * and mem_cgroup_css_free(), without which a freed memcg's slot could be
 * inherited by a new one at the same address) are not: observe works,
 * and enforce is refused with a dmesg line naming the hook.  The MGLRU
 * guard on evict_folios() is optional within enforce: without it, MGLRU
 * switched back on by hand while enforcing goes unnoticed (enforce still
 * checks the switch when it starts).  The stats file has one line per
 * hook with its state.
 */
enum cp_feature {
	CP_FEAT_OBSERVE,	/* required: the load fails without it */
	CP_FEAT_ENFORCE,	/* enforce is refused without it */
	CP_FEAT_MGLRU_GUARD,	/* enforce does without it */
};

static const char * const cp_feature_names[] = {
	[CP_FEAT_OBSERVE] = "observe",
	[CP_FEAT_ENFORCE] = "enforce",
	[CP_FEAT_MGLRU_GUARD] = "mglru_guard",
};

struct cp_hook {
	const char *symbol;
	enum cp_feature feature;
	bool enforce;		/* armed only while enforcing */
	const char *proto;	/* where its prototype was checked */
	struct kprobe *kp;	/* a kprobe ... */
	struct kretprobe *rp;	/* ... a kretprobe ... */
	struct ftrace_ops *ops;	/* ... or an ftrace callback */
	bool resolved;		/* registered (disabled) or filter set */
	bool armed;
	int err;		/* why it could not be resolved, or 0 */
};

static struct kprobe cp_shrink_active_kp = {
	.pre_handler = cp_shrink_active_pre,
};

static struct kprobe cp_mglru_kp = {
	.pre_handler = cp_mglru_pre,
};

static struct kprobe cp_memcg_free_kp = {
	.pre_handler = cp_memcg_free_pre,
};

static struct ftrace_ops cp_eviction_ops = { .func = cp_eviction_fn };
static struct ftrace_ops cp_add_lru_ops = { .func = cp_add_lru_fn };
static struct ftrace_ops cp_refault_ops = { .func = cp_refault_fn };
static struct ftrace_ops cp_accessed_ops = { .func = cp_accessed_fn };

static struct cp_hook cp_hooks[] = {
	{ .symbol = "workingset_eviction", .ops = &cp_eviction_ops,
	  .feature = CP_FEAT_OBSERVE, .proto = "header" },
	{ .symbol = "folio_add_lru", .ops = &cp_add_lru_ops,
	  .feature = CP_FEAT_OBSERVE, .proto = "header" },
	{ .symbol = "workingset_refault", .ops = &cp_refault_ops,
	  .feature = CP_FEAT_OBSERVE, .proto = "header" },
	{ .symbol = "mem_cgroup_css_free", .kp = &cp_memcg_free_kp,
	  .feature = CP_FEAT_ENFORCE, .proto = "header" },
	{ .symbol = "folio_mark_accessed", .ops = &cp_accessed_ops,
	  .feature = CP_FEAT_ENFORCE, .enforce = true, .proto = "header" },
	{ .symbol = "shrink_active_list", .kp = &cp_shrink_active_kp,
	  .feature = CP_FEAT_ENFORCE, .enforce = true, .proto = CP_VMSCAN_PROTO },
	{ .symbol = "folio_referenced", .rp = &cp_referenced_probe,
	  .feature = CP_FEAT_ENFORCE, .enforce = true, .proto = "header" },
	{ .symbol = "evict_folios", .kp = &cp_mglru_kp,
	  .feature = CP_FEAT_MGLRU_GUARD, .enforce = true,
	  .proto = CP_VMSCAN_PROTO },
};

/*
 * For the refusal path's test (selftests/vm/tests/hooks.sh) alone: the
 * hook named here resolves a symbol no kernel has, as on a kernel where
 * the function was inlined or renamed.
 */
static char *test_missing_hook;
module_param(test_missing_hook, charp, 0444);
MODULE_PARM_DESC(test_missing_hook,
		 "For tests only: the hook of this function resolves a bogus symbol instead [DEFAULT: none]");

#define CP_TEST_BOGUS_SYMBOL	"clockpro_test_no_such_function"

static const char *cp_hook_target(const struct cp_hook *h)
{
	if (test_missing_hook && !strcmp(test_missing_hook, h->symbol))
		return CP_TEST_BOGUS_SYMBOL;
	return h->symbol;
}

static const char *cp_hook_mechanism(const struct cp_hook *h)
{
	return h->ops ? "ftrace" : h->rp ? "kretprobe" : "kprobe";
}

/**
 * cp_hooks_show - one line per hook, for the stats file
 * @m: the seq_file
 *
 * "hook_<function> <state> <mechanism> <feature>[:off] proto:<checked>
 * [error:<errno>]"; state: armed, ready (resolved, armed in the other
 * mode) or missing (its feature is off).
 */
void cp_hooks_show(struct seq_file *m)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++) {
		const struct cp_hook *h = &cp_hooks[i];
		bool armed = READ_ONCE(h->armed);

		seq_printf(m, "hook_%s %s %s %s%s proto:%s", h->symbol,
			   armed ? "armed" : h->resolved ? "ready" : "missing",
			   cp_hook_mechanism(h), cp_feature_names[h->feature],
			   h->resolved ? "" : ":off", h->proto);
		if (h->err)
			seq_printf(m, " error:%d", h->err);
		seq_putc(m, '\n');
	}
}

/**
 * cp_hooks_enforce_missing - the first enforce hook this kernel lacks
 *
 * Return: its function's name, or NULL if enforce has all its hooks.
 */
const char *cp_hooks_enforce_missing(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++)
		if (cp_hooks[i].feature == CP_FEAT_ENFORCE &&
		    !cp_hooks[i].resolved)
			return cp_hooks[i].symbol;
	return NULL;
}

/**
 * cp_hooks_describe - name and state of hook @i, for the stats file
 * @i: hook index
 * @armed: set to whether the hook is armed now
 *
 * Return: the probed symbol, or NULL past the last hook.  A hook this
 * kernel lacks is never armed.
 */
const char *cp_hooks_describe(unsigned int i, bool *armed)
{
	if (i >= ARRAY_SIZE(cp_hooks))
		return NULL;
	*armed = READ_ONCE(cp_hooks[i].armed);
	return cp_hooks[i].symbol;
}

static struct kprobe *cp_hook_kprobe(struct cp_hook *h)
{
	return h->rp ? &h->rp->kp : h->kp;
}

static int cp_hook_arm(struct cp_hook *h)
{
	int ret;

	if (h->armed || !h->resolved)
		return 0;
	if (h->ops)
		ret = register_ftrace_function(h->ops);
	else
		ret = enable_kprobe(cp_hook_kprobe(h));
	if (ret) {
		pr_err("cannot arm the hook on %s: error %d\n", h->symbol, ret);
		return ret;
	}
	WRITE_ONCE(h->armed, true);
	return 0;
}

static void cp_hook_disarm(struct cp_hook *h)
{
	int ret;

	if (!h->armed)
		return;
	if (h->ops)
		ret = unregister_ftrace_function(h->ops);
	else
		ret = disable_kprobe(cp_hook_kprobe(h));
	if (ret)	/* the hook stays, and its handler checks the mode */
		pr_warn("cannot disarm the hook on %s: error %d\n",
			h->symbol, ret);
	else
		WRITE_ONCE(h->armed, false);
}

/**
 * cp_hooks_arm - arm the hooks of a mode, disarm the others
 * @enforce: arm the enforce mode's hooks too
 *
 * Called with knob_lock held, before the mode is published when it
 * becomes enforce and after when it becomes observe: a handler always
 * checks the mode, so one armed a little early or disarmed a little late
 * does nothing.  Process context.
 *
 * Return: 0, or the errno of a hook that could not be armed (after one
 * dmesg line naming it); the enforce hooks are then all disarmed.
 */
int cp_hooks_arm(bool enforce)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++) {
		struct cp_hook *h = &cp_hooks[i];

		if (h->enforce && !enforce) {
			cp_hook_disarm(h);
			continue;
		}
		ret = cp_hook_arm(h);
		if (ret)
			goto err_disarm;
	}
	return 0;

err_disarm:
	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++)
		if (cp_hooks[i].enforce)
			cp_hook_disarm(&cp_hooks[i]);
	return ret;
}

/* MGLRU seen while enforcing (cp_mglru_pre()): disarm, in process context. */
static void cp_rearm_work_fn(struct work_struct *work)
{
	cp_hooks_follow_mode();
}

/*
 * Remove every hook; wait for running handlers and cp_skip_stub() users.
 * The kprobes go in one batch: one round of text patching, one grace
 * period.
 */
static void cp_hooks_release(void)
{
	struct kprobe *kps[ARRAY_SIZE(cp_hooks)];
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++) {
		struct cp_hook *h = &cp_hooks[i];

		if (!h->resolved)
			continue;
		if (h->ops) {
			if (h->armed)
				unregister_ftrace_function(h->ops);
			ftrace_free_filter(h->ops);
		} else if (h->rp) {
			unregister_kretprobe(h->rp);
			if (h->rp->nmissed)
				pr_info("%s: %d returns missed\n", h->symbol,
					h->rp->nmissed);
		} else {
			kps[n++] = h->kp;
		}
	}
	if (n)
		unregister_kprobes(kps, n);
	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++) {
		struct cp_hook *h = &cp_hooks[i];

		if (h->resolved && h->kp && h->kp->nmissed)
			pr_info("%s: %lu hits missed\n", h->symbol,
				h->kp->nmissed);
		WRITE_ONCE(h->armed, false);
		h->resolved = false;
	}
	synchronize_rcu_tasks();
}

/**
 * cp_hooks_unregister - remove every hook
 *
 * Waits for running handlers, for tasks that may still be on their way
 * out through cp_skip_stub(), and for the work that disarms hooks, so the
 * module text can be freed.  Process context, knob_lock not held.
 */
void cp_hooks_unregister(void)
{
	cp_hooks_release();
	/* no hook left to queue it; it finds the module no longer live */
	cancel_work_sync(&cp_rearm_work);
}

/* Resolve @h: registered disabled, or its ftrace filter set. */
static int cp_hook_resolve(struct cp_hook *h)
{
	struct kprobe *kp;
	char buf[KSYM_NAME_LEN];

	if (h->ops) {
		int ret;

		strscpy(buf, cp_hook_target(h), sizeof(buf));
		ret = ftrace_set_filter(h->ops, buf, strlen(buf), 1);
		if (ret)
			ftrace_free_filter(h->ops);
		return ret;
	}
	/* A struct kprobe cannot be registered twice unless reset. */
	kp = cp_hook_kprobe(h);
	kp->addr = NULL;
	kp->flags = KPROBE_FLAG_DISABLED;
	kp->nmissed = 0;
	kp->symbol_name = cp_hook_target(h);
	if (h->rp) {
		h->rp->nmissed = 0;
		return register_kretprobe(h->rp);
	}
	return register_kprobe(kp);
}

/*
 * Why @h did not resolve, in words.  ftrace says -EINVAL both for a name
 * kallsyms lacks and for a function it cannot trace: a kprobe, registered
 * disabled and removed at once, tells the two apart (-ENOENT: no symbol).
 */
static const char *cp_hook_why(struct cp_hook *h)
{
	int err = h->err;

	if (h->ops) {
		struct kprobe kp = {
			.symbol_name = cp_hook_target(h),
			.flags = KPROBE_FLAG_DISABLED,
		};

		err = register_kprobe(&kp);
		if (!err) {
			unregister_kprobe(&kp);
			return "in kallsyms, but ftrace cannot attach to it";
		}
	}
	switch (err) {
	case -ENOENT:
		h->err = -ENOENT;
		return "not in kallsyms (inlined, renamed or removed)";
	case -EINVAL:
	case -EILSEQ:
		return "in kallsyms, but not probe-able (blacklisted or not text)";
	case -EBUSY:
		return "probed by someone else already";
	default:
		return "cannot be probed";
	}
}

/**
 * cp_hooks_register - resolve and check every hook, arm observe's
 *
 * A required (observe) hook that cannot be resolved fails the load; an
 * optional one is recorded as missing, its feature off, with a dmesg line.
 * Called with knob_lock held; on failure the caller, once it has dropped
 * the lock, calls cp_hooks_unregister() for the work a hook may have
 * queued.
 *
 * Return: 0, or the errno of the first required hook that failed (after
 * one dmesg line naming it and the kernel release); nothing stays
 * registered on failure.
 */
int cp_hooks_register(void)
{
	const char *release = init_utsname()->release;
	int i, ret;

	if (test_missing_hook)
		pr_warn("test_missing_hook: the hook on %s resolves %s instead\n",
			test_missing_hook, CP_TEST_BOGUS_SYMBOL);
	for (i = 0; i < ARRAY_SIZE(cp_hooks); i++) {
		struct cp_hook *h = &cp_hooks[i];
		const char *why;

		h->err = cp_hook_resolve(h);
		if (!h->err) {
			h->resolved = true;
			continue;
		}
		why = cp_hook_why(h);
		ret = h->err;
		if (h->feature == CP_FEAT_OBSERVE) {
			pr_err("cannot hook %s on %s: %s (error %d); this kernel is not supported\n",
			       h->symbol, release, why, ret);
			goto err_unregister;
		}
		pr_warn("cannot hook %s on %s: %s (error %d); %s is off\n",
			h->symbol, release, why, ret,
			h->feature == CP_FEAT_ENFORCE ? "enforce" :
			"the MGLRU guard of enforce");
	}
	ret = cp_hooks_arm(false);
	if (ret)
		goto err_unregister;
	return 0;

err_unregister:
	cp_hooks_release();
	return ret;
}
