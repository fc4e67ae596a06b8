/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clockpro trace events: /sys/kernel/tracing/events/clockpro/
 *
 * Numeric fields only, so that perf, bpftrace and tracefs filters read
 * them on any kernel (no __string(), whose __assign_str() changed in 6.10).
 * Emitted by module/hooks.c, the one file that defines CREATE_TRACE_POINTS;
 * each costs a static branch while disabled.  memcg is mem_cgroup_id() of
 * the folio's memcg (the root's for an uncharged folio; 0 without memcg),
 * the id the lruvecs file shows.  Pages of the swap cache have dev and ino
 * 0 and the swap entry as index.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM clockpro

#if !defined(_CLOCKPRO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CLOCKPRO_TRACE_H

#include <linux/tracepoint.h>

/* flags of clockpro_evict, clockpro_refault and clockpro_cold_hit */
#define CP_TRACE_ACTIVE		0x1	/* hot (PG_workingset) when evicted */
#define CP_TRACE_SWAP		0x2	/* a swap-cache page */
#define CP_TRACE_META		0x4	/* a block device's page */

#define CP_TRACE_FLAGS					\
	{ CP_TRACE_ACTIVE,	"active" },		\
	{ CP_TRACE_SWAP,	"swap" },		\
	{ CP_TRACE_META,	"meta" }

/* verdict of clockpro_refault */
#define CP_TRACE_OBSERVED	0	/* observe mode, or a swap-in */
#define CP_TRACE_KEPT_COLD	1
#define CP_TRACE_PROMOTED	2
#define CP_TRACE_NO_SLOT	3	/* enforce, no state: the kernel's */

/* action of clockpro_hand */
#define CP_TRACE_DEMOTE		0
#define CP_TRACE_ROTATE		1

/* reason of clockpro_target: the policy operation (enum cp_op, hooks.c) */
#define CP_TRACE_REASONS				\
	{ 0,	"expired" },				\
	{ 1,	"refault" },				\
	{ 2,	"cold_hit" },				\
	{ 3,	"hand" },				\
	{ 4,	"deactivate" },				\
	{ 5,	"new_page" },				\
	{ 6,	"reused" }

TRACE_EVENT(clockpro_evict,
	TP_PROTO(u32 dev, u64 ino, u64 index, u32 memcg, u32 nr, u32 flags),
	TP_ARGS(dev, ino, index, memcg, nr, flags),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, memcg)
		__field(u64, ino)
		__field(u64, index)
		__field(u32, nr)
		__field(u32, flags)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->memcg = memcg;
		__entry->ino = ino;
		__entry->index = index;
		__entry->nr = nr;
		__entry->flags = flags;
	),
	TP_printk("dev=%u:%u ino=%llu index=%llu memcg=%u nr=%u flags=%s",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->index, __entry->memcg, __entry->nr,
		  __print_flags(__entry->flags, "|", CP_TRACE_FLAGS))
);

TRACE_EVENT(clockpro_refault,
	TP_PROTO(u32 dev, u64 ino, u64 index, u32 memcg, u64 distance,
		 u32 nr, u32 hits, u32 verdict, u32 flags),
	TP_ARGS(dev, ino, index, memcg, distance, nr, hits, verdict, flags),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, memcg)
		__field(u64, ino)
		__field(u64, index)
		__field(u64, distance)
		__field(u32, nr)
		__field(u32, hits)
		__field(u32, verdict)
		__field(u32, flags)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->memcg = memcg;
		__entry->ino = ino;
		__entry->index = index;
		__entry->distance = distance;
		__entry->nr = nr;
		__entry->hits = hits;
		__entry->verdict = verdict;
		__entry->flags = flags;
	),
	TP_printk("dev=%u:%u ino=%llu index=%llu memcg=%u distance=%llu nr=%u hits=%u verdict=%s flags=%s",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->index, __entry->memcg, __entry->distance,
		  __entry->nr, __entry->hits,
		  __print_symbolic(__entry->verdict,
				   { CP_TRACE_OBSERVED, "observed" },
				   { CP_TRACE_KEPT_COLD, "kept_cold" },
				   { CP_TRACE_PROMOTED, "promoted" },
				   { CP_TRACE_NO_SLOT, "no_slot" }),
		  __print_flags(__entry->flags, "|", CP_TRACE_FLAGS))
);

TRACE_EVENT(clockpro_cold_hit,
	TP_PROTO(u32 memcg, u32 nid, u32 flags),
	TP_ARGS(memcg, nid, flags),
	TP_STRUCT__entry(
		__field(u32, memcg)
		__field(u32, nid)
		__field(u32, flags)
	),
	TP_fast_assign(
		__entry->memcg = memcg;
		__entry->nid = nid;
		__entry->flags = flags;
	),
	TP_printk("memcg=%u nid=%u flags=%s", __entry->memcg, __entry->nid,
		  __print_flags(__entry->flags, "|", CP_TRACE_FLAGS))
);

TRACE_EVENT(clockpro_target,
	TP_PROTO(u32 memcg, u32 nid, s64 old_target, s64 new_target,
		 u32 reason),
	TP_ARGS(memcg, nid, old_target, new_target, reason),
	TP_STRUCT__entry(
		__field(u32, memcg)
		__field(u32, nid)
		__field(s64, old_target)
		__field(s64, new_target)
		__field(u32, reason)
	),
	TP_fast_assign(
		__entry->memcg = memcg;
		__entry->nid = nid;
		__entry->old_target = old_target;
		__entry->new_target = new_target;
		__entry->reason = reason;
	),
	TP_printk("memcg=%u nid=%u old=%lld new=%lld reason=%s",
		  __entry->memcg, __entry->nid, __entry->old_target,
		  __entry->new_target,
		  __print_symbolic(__entry->reason, CP_TRACE_REASONS))
);

TRACE_EVENT(clockpro_hand,
	TP_PROTO(u32 memcg, u32 nid, u32 nr, u32 action, u32 seen),
	TP_ARGS(memcg, nid, nr, action, seen),
	TP_STRUCT__entry(
		__field(u32, memcg)
		__field(u32, nid)
		__field(u32, nr)
		__field(u32, action)
		__field(u32, seen)
	),
	TP_fast_assign(
		__entry->memcg = memcg;
		__entry->nid = nid;
		__entry->nr = nr;
		__entry->action = action;
		__entry->seen = seen;
	),
	TP_printk("memcg=%u nid=%u nr=%u action=%s seen=%s",
		  __entry->memcg, __entry->nid, __entry->nr,
		  __print_symbolic(__entry->action,
				   { CP_TRACE_DEMOTE, "demote" },
				   { CP_TRACE_ROTATE, "rotate" }),
		  __print_flags(__entry->seen, "|",
				{ 0x1, "referenced" }, { 0x2, "young" },
				{ 0x4, "age_only" }))
);

#endif /* _CLOCKPRO_TRACE_H */

/* Out of tree: Kbuild puts module/ on hooks.o's include path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE clockpro_trace
#include <trace/define_trace.h>
