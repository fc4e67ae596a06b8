// SPDX-License-Identifier: GPL-2.0
/*
 * refaultdist.bpf.c - refault distances of page-cache and swap-cache pages
 *
 * An independent, module-free version of the clockpro module's observe
 * path (module/hooks.c), with the same three hooks:
 *
 *   workingset_eviction(folio, memcg)  reclaim evicts a page-cache or
 *	swap-cache folio: remember its key with the eviction clock, then
 *	advance the clock by the folio's pages.  Runs under the mapping's
 *	i_pages lock with IRQs off (kernel-hook-sites.md 5.1).
 *   workingset_refault(folio, shadow)  the kernel still had a shadow entry
 *	for the folio about to be inserted: note the folio.
 *   folio_add_lru(folio)  a folio joins an LRU.  New cache folios are
 *	locked and not uptodate (their read has not completed); putbacks,
 *	migration and anon faults are not, and are skipped, as in the
 *	module's cp_add_lru_pre().  Look the key up and delete it: a hit is
 *	a refault at distance clock_now - clock_evicted; a miss is Beyond
 *	if the kernel had a shadow, New otherwise.
 *
 * Kernel drift is handled with CO-RE alone: page flag bit numbers are
 * enum relocations (PG_uptodate is 2 on 6.1 and 3 on 6.12, PG_head 16 and
 * 6), the swap entry is folio->swap where it exists (6.6+) and
 * folio->private before, and struct offsets come from the running
 * kernel's BTF.
 *
 * Copyright 2026 The clockpro authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "refaultdist.h"

/* Set by user space before load. */
const volatile bool filter_cg = false;
const volatile __u64 targ_cgid = 0;
const volatile __u64 lin_width = 0;	/* 0: no linear histogram */
const volatile __u32 lin_buckets = 0;

/* Read by user space through the mmapped .bss; all monotonic. */
__u64 counters[RD_NR_COUNTERS] = {};
__u64 hist_log2[MAX_SLOTS] = {};
__u64 hist_lin[MAX_LINEAR] = {};
__u64 evict_clock = 0;

/* Evicted pages; max_entries is set from -n before load. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1 << 20);
	__type(key, struct rd_key);
	__type(value, struct rd_val);
} evicted SEC(".maps");

/*
 * Folios for which workingset_refault() ran, until their folio_add_lru():
 * the two calls are back to back in filemap_add_folio() and the swap-in
 * paths, so few are ever in flight; LRU so that a stray one ages out.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} shadowed SEC(".maps");

/* 6.6+ keeps the swap entry in folio->swap, unioned with ->private. */
struct folio___swap {
	swp_entry_t swap;
} __attribute__((preserve_access_index));

/*
 * Newer kernels, not targets but handled for free: 6.17+ wraps the flags
 * in memdesc_flags_t and calls the first tail page's count _nr_pages.
 */
struct folio___memdesc {
	struct {
		unsigned long f;
	} flags;
	unsigned int _nr_pages;
} __attribute__((preserve_access_index));

/* 6.15+ renamed kernfs_node->parent to an RCU __parent. */
struct kernfs_node___rcu {
	struct kernfs_node *__parent;
} __attribute__((preserve_access_index));

#define MEMCG_DATA_FLAGS_MASK	3UL	/* OBJCGS|OBJEXTS, KMEM: 6.1..6.12 */
#define MEMCG_DATA_KMEM		2UL
#define PAGE_MAPPING_FLAGS	3UL	/* anon, movable */
#define MAX_CGROUP_DEPTH	32

static __always_inline void count(enum rd_counter c, __u64 n)
{
	__sync_fetch_and_add(&counters[c], n);
}

static __always_inline bool test_flag(unsigned long flags, __u64 bit)
{
	return (flags >> bit) & 1;
}

#define FLAG(flags, name) \
	test_flag(flags, bpf_core_enum_value(enum pageflags, name))

static __always_inline unsigned long folio_flags(struct folio *folio)
{
	struct folio___memdesc *fm = (void *)folio;

	if (bpf_core_field_exists(fm->flags.f))
		return BPF_CORE_READ(fm, flags.f);
	return BPF_CORE_READ(folio, flags);
}

/*
 * folio_nr_pages() on 64-bit: 1 unless PG_head, else the count kept in the
 * first tail page, _folio_nr_pages in 6.1 and 6.12.
 */
static __always_inline __u64 folio_nr(struct folio *folio, unsigned long flags)
{
	struct folio___memdesc *fm = (void *)folio;

	if (!FLAG(flags, PG_head))
		return 1;
	if (bpf_core_field_exists(folio->_folio_nr_pages))
		return BPF_CORE_READ(folio, _folio_nr_pages);
	if (bpf_core_field_exists(fm->_nr_pages))
		return BPF_CORE_READ(fm, _nr_pages);
	return 1;	/* unreachable on supported kernels */
}

static __always_inline bool folio_swapcache(unsigned long flags)
{
	return FLAG(flags, PG_swapbacked) && FLAG(flags, PG_swapcache);
}

/*
 * A folio that is being inserted into the page cache or swap cache:
 * locked, no data yet, and file-backed unless it is in the swap cache.
 */
static __always_inline bool folio_new_cache(unsigned long flags)
{
	if (!FLAG(flags, PG_locked) || FLAG(flags, PG_uptodate))
		return false;
	return folio_swapcache(flags) || !FLAG(flags, PG_swapbacked);
}

static __always_inline bool folio_key(struct folio *folio, unsigned long flags,
				      struct rd_key *k)
{
	struct address_space *mapping;
	struct inode *host;

	k->pad = 0;
	if (folio_swapcache(flags)) {
		struct folio___swap *fs = (void *)folio;

		k->mapping = RD_SWAP_MAPPING;
		k->ino = 0;
		k->gen = 0;
		if (bpf_core_field_exists(fs->swap))
			k->index = BPF_CORE_READ(fs, swap.val);
		else	/* 6.1: folio_swap_entry() is page_private() */
			k->index = (__u64)BPF_CORE_READ(folio, private);
		return true;
	}
	mapping = BPF_CORE_READ(folio, mapping);
	if (!mapping || ((unsigned long)mapping & PAGE_MAPPING_FLAGS))
		return false;
	host = BPF_CORE_READ(mapping, host);
	if (!host)
		return false;
	k->mapping = (__u64)mapping;
	k->ino = BPF_CORE_READ(host, i_ino);
	k->gen = BPF_CORE_READ(host, i_generation);
	k->index = BPF_CORE_READ(folio, index);
	return true;
}

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	struct kernfs_node___rcu *kr = (void *)kn;

	if (bpf_core_field_exists(kr->__parent))
		return BPF_CORE_READ(kr, __parent);
	return BPF_CORE_READ(kn, parent);
}

/*
 * Is the folio charged to the -c cgroup or one of its descendants?
 * folio_memcg() by hand: memcg_data without its flag bits, unless the
 * folio is kmem (then it points to an obj_cgroup; page cache never is).
 * The cgroup id is its kernfs node id, which is the cgroup2 directory's
 * inode number that user space read; the walk up kn->parent gives
 * descendant semantics, like bpf_current_task_under_cgroup().
 */
static __always_inline bool folio_in_cgroup(struct folio *folio)
{
	unsigned long memcg_data = BPF_CORE_READ(folio, memcg_data);
	struct mem_cgroup *memcg;
	struct kernfs_node *kn;
	int i;

	if (!memcg_data || (memcg_data & MEMCG_DATA_KMEM))
		return false;
	memcg = (void *)(memcg_data & ~MEMCG_DATA_FLAGS_MASK);
	kn = BPF_CORE_READ(memcg, css.cgroup, kn);
	for (i = 0; i < MAX_CGROUP_DEPTH && kn; i++) {
		if (BPF_CORE_READ(kn, id) == targ_cgid)
			return true;
		kn = kn_parent(kn);
	}
	return false;
}

/* bits.bpf.h's log2l(): floor(log2(v)), 0 for 0. */
static __always_inline __u64 log2_u32(__u32 v)
{
	__u32 shift, r;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u64 log2l(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? log2_u32(hi) + 32 : log2_u32(v);
}

static __always_inline void hist_add(__u64 distance, __u64 nr)
{
	__u64 slot = log2l(distance);

	/*
	 * Make the compiler compare all 64 bits: the 6.1 verifier loses the
	 * bound after a 32-bit compare of a register with unknown upper bits.
	 */
	barrier_var(slot);
	if (slot >= MAX_SLOTS)
		slot = MAX_SLOTS - 1;
	__sync_fetch_and_add(&hist_log2[slot], nr);

	if (lin_width && lin_buckets) {
		__u64 row = distance / lin_width;

		if (row >= lin_buckets)
			row = lin_buckets - 1;	/* last row: overflow */
		barrier_var(row);
		if (row >= MAX_LINEAR)
			row = MAX_LINEAR - 1;
		__sync_fetch_and_add(&hist_lin[row], nr);
	}
}

SEC("kprobe/workingset_eviction")
int BPF_KPROBE(rd_eviction, struct folio *folio)
{
	unsigned long flags = folio_flags(folio);
	struct rd_val val;
	struct rd_key key;
	__u64 nr;

	if (!folio_key(folio, flags, &key))
		return 0;
	if (filter_cg && !folio_in_cgroup(folio))
		return 0;
	nr = folio_nr(folio, flags);
	/* As the module: store the clock before this eviction advances it. */
	val.clock = __sync_fetch_and_add(&evict_clock, nr);
	if (bpf_map_update_elem(&evicted, &key, &val, BPF_ANY))
		count(RD_UPDATE_ERR, 1);
	count(RD_EVICTIONS, nr);
	if (key.mapping == RD_SWAP_MAPPING)
		count(RD_EVICT_SWAP, nr);
	if (nr > 1)
		count(RD_LARGE_EVICT, nr);
	return 0;
}

SEC("kprobe/workingset_refault")
int BPF_KPROBE(rd_refault, struct folio *folio)
{
	unsigned long flags = folio_flags(folio);
	__u64 key = (__u64)folio;
	__u8 one = 1;

	if (!folio_new_cache(flags))
		return 0;
	bpf_map_update_elem(&shadowed, &key, &one, BPF_ANY);
	count(RD_SHADOW, folio_nr(folio, flags));
	return 0;
}

SEC("kprobe/folio_add_lru")
int BPF_KPROBE(rd_add_lru, struct folio *folio)
{
	unsigned long flags = folio_flags(folio);
	__u64 fkey = (__u64)folio;
	struct rd_val *v;
	struct rd_key key;
	__u64 nr, now, when = 0;
	bool shadow, hit = false;

	if (!folio_new_cache(flags))
		return 0;
	/* Always consume the shadow mark, so it cannot outlive the folio. */
	shadow = bpf_map_delete_elem(&shadowed, &fkey) == 0;
	if (!folio_key(folio, flags, &key))
		return 0;
	if (filter_cg && !folio_in_cgroup(folio))
		return 0;

	nr = folio_nr(folio, flags);
	now = evict_clock;
	v = bpf_map_lookup_elem(&evicted, &key);
	if (v) {
		when = v->clock;
		/* Only the CPU whose delete succeeds owns the refault. */
		hit = bpf_map_delete_elem(&evicted, &key) == 0;
	}

	count(RD_INSERTIONS, nr);
	if (hit) {
		count(RD_REFAULTS, nr);
		if (key.mapping == RD_SWAP_MAPPING)
			count(RD_REFAULT_SWAP, nr);
		hist_add(now > when ? now - when : 0, nr);
	} else {
		count(shadow ? RD_BEYOND : RD_NEW, nr);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
