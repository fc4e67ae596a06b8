/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version drift, in one place.  Nothing else in the module tests
 * LINUX_VERSION_CODE.
 */
#ifndef _CLOCKPRO_COMPAT_H
#define _CLOCKPRO_COMPAT_H

#include <linux/cgroup-defs.h>
#include <linux/ftrace.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/ptrace.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/version.h>
#include <linux/xarray.h>

/*
 * The prototypes of the hooked functions, as the handlers (hooks.c) read
 * their arguments: checked against the kernel's own declarations, so that
 * a kernel that changed one fails the build here rather than a handler at
 * run time.  mem_cgroup_css_free() is static: it is the memory
 * controller's css_free callback, whose type is checked.  The static
 * reclaim functions (shrink_active_list(), evict_folios()) have no
 * declaration: their prototypes come with the scan_control mirror below,
 * from the same mm/vmscan.c (CP_VMSCAN_PROTO).
 */
static_assert(__same_type(&workingset_eviction,
			  void *(*)(struct folio *, struct mem_cgroup *)));
static_assert(__same_type(&workingset_refault,
			  void (*)(struct folio *, void *)));
static_assert(__same_type(&folio_add_lru, void (*)(struct folio *)));
static_assert(__same_type(&folio_mark_accessed, void (*)(struct folio *)));
static_assert(__same_type(&folio_referenced,
			  int (*)(struct folio *, int, struct mem_cgroup *,
				  unsigned long *)));
static_assert(__same_type(((struct cgroup_subsys *)NULL)->css_free,
			  void (*)(struct cgroup_subsys_state *)));

/* The low bits of folio->mapping (anon, movable): renamed in 6.17. */
#ifdef FOLIO_MAPPING_FLAGS
#define CP_FOLIO_MAPPING_FLAGS	FOLIO_MAPPING_FLAGS
#else
#define CP_FOLIO_MAPPING_FLAGS	PAGE_MAPPING_FLAGS
#endif

/* 6.6 replaced folio_swap_entry() with folio->swap. */
static inline unsigned long cp_folio_swap_val(struct folio *folio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return folio->swap.val;
#else
	return folio_swap_entry(folio).val;
#endif
}

/*
 * A folio's flags word, read once (PG_* bits).  6.18 wrapped it in
 * memdesc_flags_t.
 */
static inline unsigned long cp_folio_flags(struct folio *folio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
	return READ_ONCE(folio->flags.f);
#else
	return READ_ONCE(folio->flags);
#endif
}

/*
 * Does the multi-gen LRU run this lruvec?  lru_gen_change_state() sets
 * lrugen.enabled of every lruvec, under its lru_lock, when the switch in
 * /sys/kernel/mm/lru_gen/enabled flips; a reclaimer that entered MGLRU
 * code before may still call into it on a drained lruvec.
 */
static inline bool cp_lruvec_mglru(struct lruvec *lruvec)
{
#ifdef CONFIG_LRU_GEN
	return READ_ONCE(lruvec->lrugen.enabled);
#else
	return false;
#endif
}

/*
 * The node a shadow entry says its page was evicted from, or NUMA_NO_NODE.
 * mm/workingset.c's pack_shadow() (the same from 5.x to 7.x, classic LRU
 * and MGLRU alike) stores, above the xarray value tag: one workingset bit,
 * then NODES_SHIFT bits of node id, then the memcg id and the timestamp.
 * An id that names no online node is not trusted.
 */
static inline int cp_shadow_nid(const void *shadow)
{
	unsigned long v;
	int nid;

	if (!shadow || !xa_is_value(shadow))
		return NUMA_NO_NODE;
	v = xa_to_value(shadow) >> 1;
	nid = v & ((1UL << NODES_SHIFT) - 1);
	return nid < nr_node_ids && node_online(nid) ? nid : NUMA_NO_NODE;
}

/*
 * Argument @n of the function an ftrace callback was called for.  6.1's
 * struct ftrace_regs is a struct pt_regs; later kernels hide it behind
 * accessors.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define cp_fregs_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define cp_fregs_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * The head of mm/vmscan.c's private struct scan_control, up to the fields
 * the module reads: reclaim's escape hatches (force_deactivate, priority,
 * reclaim_idx) and skipped_deactivate, which it sets when it holds the
 * active list so that the kernel's last retry before OOM forces
 * deactivation as it would have.  Copied field for field from Debian's
 * 6.1.192, 6.12.95 and 7.2.13 sources (6.12.118's, trixie's, is the same
 * as 6.12.95's): the compiler lays the bitfields out as the kernel's build
 * did.  Other kernels have no layout here: enforce refuses to start there
 * (cp_scan_control_known()).  The same sources give the prototypes the
 * handlers assume: shrink_active_list(nr_to_scan, lruvec, sc, lru) on all
 * three; evict_folios(lruvec, sc, swappiness, ...) on 6.1 and 6.12,
 * evict_folios(nr_to_scan, lruvec, sc, swappiness) on 7.2: the lruvec is
 * argument CP_EVICT_FOLIOS_LRUVEC.  CP_VMSCAN_PROTO names the source, for
 * the stats file.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
struct cp_scan_control {
	unsigned long nr_to_reclaim;
	nodemask_t *nodemask;
	struct mem_cgroup *target_mem_cgroup;
	unsigned long anon_cost;
	unsigned long file_cost;
	unsigned int may_deactivate:2;
	unsigned int force_deactivate:1;
	unsigned int skipped_deactivate:1;
	unsigned int may_writepage:1;
	unsigned int may_unmap:1;
	unsigned int may_swap:1;
	unsigned int proactive:1;
	unsigned int memcg_low_reclaim:1;
	unsigned int memcg_low_skipped:1;
	unsigned int hibernation_mode:1;
	unsigned int compaction_ready:1;
	unsigned int cache_trim_mode:1;
	unsigned int file_is_tiny:1;
	unsigned int no_demotion:1;
#ifdef CONFIG_LRU_GEN
	unsigned int memcgs_need_aging:1;
	unsigned long last_reclaimed;
#endif
	s8 order;
	s8 priority;
	s8 reclaim_idx;
};

#define CP_SCAN_CONTROL_KNOWN	1
#define CP_VMSCAN_PROTO		"vmscan-6.1"
#define CP_EVICT_FOLIOS_LRUVEC	0
#elif (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)) || \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0) && \
	 LINUX_VERSION_CODE < KERNEL_VERSION(7, 3, 0))
/* 7.2's: the same (its proactive_swappiness is there without CONFIG_MEMCG) */
struct cp_scan_control {
	unsigned long nr_to_reclaim;
	nodemask_t *nodemask;
	struct mem_cgroup *target_mem_cgroup;
	unsigned long anon_cost;
	unsigned long file_cost;
#ifdef CONFIG_MEMCG
	int *proactive_swappiness;
#endif
	unsigned int may_deactivate:2;
	unsigned int force_deactivate:1;
	unsigned int skipped_deactivate:1;
	unsigned int may_writepage:1;
	unsigned int may_unmap:1;
	unsigned int may_swap:1;
	unsigned int no_cache_trim_mode:1;
	unsigned int cache_trim_mode_failed:1;
	unsigned int proactive:1;
	unsigned int memcg_low_reclaim:1;
	unsigned int memcg_low_skipped:1;
	unsigned int memcg_full_walk:1;
	unsigned int hibernation_mode:1;
	unsigned int compaction_ready:1;
	unsigned int cache_trim_mode:1;
	unsigned int file_is_tiny:1;
	unsigned int no_demotion:1;
	s8 order;
	s8 priority;
	s8 reclaim_idx;
};

#define CP_SCAN_CONTROL_KNOWN	1
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#define CP_VMSCAN_PROTO		"vmscan-7.2"
#define CP_EVICT_FOLIOS_LRUVEC	1
#else
#define CP_VMSCAN_PROTO		"vmscan-6.12"
#define CP_EVICT_FOLIOS_LRUVEC	0
#endif
#else
struct cp_scan_control {
	s8 priority;
	s8 reclaim_idx;
	unsigned int force_deactivate:1;
	unsigned int skipped_deactivate:1;
};

#define CP_SCAN_CONTROL_KNOWN	0
#define CP_VMSCAN_PROTO		"unknown"
#define CP_EVICT_FOLIOS_LRUVEC	0	/* never armed: enforce is refused */
#endif

/* Does this build know the kernel's struct scan_control? */
static inline bool cp_scan_control_known(void)
{
	return CP_SCAN_CONTROL_KNOWN;
}

/*
 * Override-return from a kprobe pre-handler at function entry: the
 * return address is still at *sp, so running @stub (an empty notrace
 * function) instead returns straight to the caller.  Argument registers
 * written in the pre-handler are honoured.
 */
#ifdef CONFIG_X86_64
static inline void cp_regs_skip_call(struct pt_regs *regs, unsigned long stub)
{
	instruction_pointer_set(regs, stub);
}

static inline void cp_regs_set_arg0(struct pt_regs *regs, unsigned long v)
{
	regs->di = v;
}
#else
#error "clockpro needs x86-64 (argument registers, override-return)"
#endif

#endif /* _CLOCKPRO_COMPAT_H */
