#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cost: the module's CPU cost, in instructions per operation, on three
# paths, stock kernel (module not loaded) against clockpro observe and
# clockpro enforce (classic LRU only), all in one boot.
#
# Method.  Run it under vmtest.sh --icount (qemu -icount shift=0,sleep=off):
# the guest's clock then advances exactly 1 ns per instruction executed and
# skips idle time instead of sleeping through it, so a task's on-CPU time
# (the scheduler's sum_exec_runtime, in ns) is the number of instructions
# it ran, whatever the host's load; wall time under TCG means nothing.
# The time counted for a path is:
#   - the reader's, over its read loop alone: "cpwork pread" reads
#     CLOCK_THREAD_CPUTIME_ID (sum_exec_runtime brought up to date) before
#     and after a loop that does nothing but pread(); direct reclaim and the
#     interrupts that land in the loop are in it;
#   - plus kswapd0's, for the paths that reclaim: the first field of
#     /proc/<kswapd>/schedstat (sum_exec_runtime) before and after, read
#     once kswapd has gone back to sleep (the field is exact then).
# The module does all its work in those two tasks (ftrace callbacks and
# kprobes on the page cache insertion, mark-accessed, refault, eviction
# and reclaim paths; no workqueue, no timer).  The whole machine's
# non-idle time (rq_cpu_time, summed over /proc/schedstat's cpu lines) is
# reported alongside as a cross-check.
#
# Paths (256 MiB guest, readahead 128 KiB on the data disk; page cache
# dropped before each measurement so that each starts the same):
#   cached  cp_cost_reads (512 Ki) preads of 4 KiB, in order and wrapping,
#           over the first cp_cost_cached_mb (64) MiB of the data file,
#           read once beforehand to bring it in: instructions per read
#           (the reader only: nothing is reclaimed);
#   hit     the same cached data read in 1 MiB reads, cp_cost_hit_mb (1024)
#           MiB in all: instructions per 4 KiB page (the reader only), the
#           cost of a loop page that is a hit;
#   stream  cp_cost_stream_mb (1024) MiB read once in 1 MiB reads, a file
#           4 x memory: every page a miss and an eviction; instructions per
#           4 KiB page, reader + kswapd;
#   loop    a file of 1.25 x C (C: the guest's page cache, cp_cache_size)
#           read in 1 MiB reads cp_cost_loop_passes (3) times after one
#           unmeasured pass: the refault path (nearly every page a
#           refault on the stock kernel; enforce keeps part of the loop
#           cached and so does different work); instructions per 4 KiB
#           page read, reader + kswapd;
#   refault derived from loop and hit: (the loop's instructions - its hits
#           x hit's instructions per page) / pages read from disk, the
#           cost of a page of the loop that misses, whatever the share of
#           hits (which the kernel varies from run to run on 6.12).
# One unmeasured stream first; then each configuration runs cp_cost_reps
# (3) times, interleaved (stock, observe, enforce, stock, ...); the figure is the mean, the spread is
# (max - min) / mean.  cp_cost_paths=cached,hit,stream,loop and
# cp_cost_configs=stock,observe,enforce choose a subset (observe_h and
# enforce_h: the same with memcg_hist=1); stage1..stage3
# are the partial builds of cost-breakdown.sh, in /cost/ (--extra), and
# stage1e..stage3e the same enforcing.
#
# Output, one line per (path, configuration), for bench scripts:
#   # cost PATH CONFIG INSTR_PER_OP PCT_OVER_STOCK SPREAD_PCT RUNS
# (PCT_OVER_STOCK is 0 for stock, "na" without a stock figure), and
#   # cost-run PATH CONFIG REP INSTR_PER_OP reader NS kswapd NS all NS ops N misses M
# for every run.
#
# The pages read from the disk are counted too (the data disk's sectors),
# per operation (4 KiB read or page: 0 cached, 1 streaming, the miss ratio
# of the loop):
#   # cost-misses PATH CONFIG MISSES_PER_OP SPREAD_PCT RUNS
# The loop's figure depends on how much of the loop the kernel keeps: on
# 6.12's classic LRU that varies from run to run (the loop is not reclaimed
# in FIFO order, see observe.sh), and so does its cost per page read.
#
# Asserted: every figure positive, and the stock runs within 2 % of each
# other on cached data, 5 % where kswapd reclaims (its share moved the
# stock stream by up to 2.8 % between runs of 6.12), a TAP TODO instead
# where the stock kernel itself did different work in each run (misses
# more than 1 % apart); the cost over stock within today's bounds
# (bounds()).  The targets of issue 12 are reported, as TAP TODO items
# when missed, not failures: observe <= 1 % over stock on cached reads and
# <= 3 % on the stream, enforce <= 2 % and <= 5 %.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

PG=4096
MB=1048576
REPS=$(cp_param cp_cost_reps 3)
PATHS=$(cp_param cp_cost_paths cached,hit,stream,loop | tr ',' ' ')
CONFIGS=$(cp_param cp_cost_configs stock,observe,enforce | tr ',' ' ')
READS=$(cp_param cp_cost_reads 524288)
CACHED_MB=$(cp_param cp_cost_cached_mb 64)
STREAM_MB=$(cp_param cp_cost_stream_mb 1024)
HIT_MB=$(cp_param cp_cost_hit_mb 1024)
LOOP_PASSES=$(cp_param cp_cost_loop_passes 3)
RES=/tmp/cost.res
OUT=/tmp/cost.out
: >"$RES"

unit=instructions
if [ "$(cp_param cp_icount 0)" != 1 ]; then
	unit=ns
	tap_diag "not under qemu -icount (vmtest.sh --icount): the figures are ns of CPU time, not instructions"
fi

# readahead 128 KiB on the data disk
dev=$(awk '$2 == "/mnt" { print $1; exit }' /proc/mounts)
dev=${dev#/dev/}
if [ -w "/sys/block/$dev/queue/read_ahead_kb" ]; then
	echo 128 >"/sys/block/$dev/queue/read_ahead_kb"
fi
tap_diag "kernel $(uname -r), lru_gen $(cp_lru_gen), MemTotal $(meminfo MemTotal) kB," \
	"readahead $(cat "/sys/block/$dev/queue/read_ahead_kb" 2>/dev/null || echo '?') kB on $dev"

KSWAPD=
for d in /proc/[0-9]*; do
	if [ "$(cat "$d/comm" 2>/dev/null)" = kswapd0 ]; then
		KSWAPD=${d#/proc/}
		break
	fi
done
[ -n "$KSWAPD" ] || tap_skip_all "no kswapd0"

# on-CPU ns of a task (sum_exec_runtime)
task_ns() {
	cut -d' ' -f1 "/proc/$1/schedstat"
}

# non-idle ns of the whole machine: rq_cpu_time of every CPU
all_ns() {
	awk '$1 ~ /^cpu[0-9]/ { s += $8 } END { printf "%.0f\n", s }' /proc/schedstat
}

# sectors read from the data disk so far
sectors() {
	awk '{ print $3 }' "/sys/block/$dev/stat"
}

# Wait until kswapd sleeps and its runtime stops moving (20 s at most).
kswapd_settle() {
	_prev=-1
	_i=0
	while [ $_i -lt 100 ]; do
		_st=$(cut -d' ' -f3 "/proc/$KSWAPD/stat")
		_ns=$(task_ns "$KSWAPD")
		[ "$_st" = S ] && [ "$_ns" = "$_prev" ] && return 0
		_prev=$_ns
		_i=$((_i + 1))
		sleep 0.2
	done
	tap_diag "kswapd did not settle (state $_st)"
}

C=
if echo " $PATHS " | grep -q ' loop '; then
	C=$(cp_cache_size)
	F=$(($(fint "$C * 5 / 4 / $MB") * MB))
	tap_diag "C = $((C / PG)) pages, loop file $((F / MB)) MiB"
fi

# The hot hand's and deactivation's counters, when the module is loaded.
HAND_STATS="hand_rotated hand_demoted hand_age_kept deactivate_held deactivate_pages cold_hits promoted idle_inserted_hot"
hand_stats() {
	cp_module_loaded || return 0
	for n in $HAND_STATS; do
		printf '%s ' "$(cp_stat "$n" 2>/dev/null || echo 0)"
	done
}

hand_stats_delta() {	# BEFORE AFTER
	awk -v a="$1" -v b="$2" -v n="$HAND_STATS" 'BEGIN {
		split(a, x, " "); split(b, y, " "); k = split(n, name, " ")
		for (i = 1; i <= k; i++) printf "%s %d ", name[i], y[i] - x[i] }'
}

# measure PATH CONFIG REP: one run, appended to $RES
measure() {
	path=$1
	cfg=$2
	rep=$3
	cp_drop_caches
	case $path in
	cached)
		cpwork pread "$CP_DATA" "${CACHED_MB}M" "$CACHED_MB" --bs 1M >/dev/null
		ops=$READS
		set -- pread "$CP_DATA" "${CACHED_MB}M" "$READS"
		;;
	hit)
		cpwork pread "$CP_DATA" "${CACHED_MB}M" "$CACHED_MB" --bs 1M >/dev/null
		ops=$((HIT_MB * MB / PG))
		set -- pread "$CP_DATA" "${CACHED_MB}M" "$HIT_MB" --bs 1M
		;;
	stream)
		ops=$((STREAM_MB * MB / PG))
		set -- pread "$CP_DATA" "${STREAM_MB}M" "$STREAM_MB" --bs 1M
		;;
	loop)
		cpwork pread "$CP_DATA" "$F" "$((F / MB))" --bs 1M >/dev/null
		ops=$((F * LOOP_PASSES / PG))
		set -- pread "$CP_DATA" "$F" "$((F * LOOP_PASSES / MB))" --bs 1M
		;;
	esac
	kswapd_settle
	st0=$(hand_stats)
	k0=$(task_ns "$KSWAPD")
	a0=$(all_ns)
	s0=$(sectors)
	if ! cpwork "$@" >"$OUT" 2>&1; then
		sed 's/^/# /' "$OUT"
		tap_fail "$path $cfg run $rep: cpwork $*"
		return 0
	fi
	kswapd_settle
	k1=$(task_ns "$KSWAPD")
	a1=$(all_ns)
	misses=$((($(sectors) - s0) * 512 / PG))
	r=$(kv cpu_ns "$OUT")
	k=$((k1 - k0))
	case $path in cached|hit) k=0 ;; esac	# nothing to reclaim: the reader alone
	v=$(awk -v n="$((r + k))" -v o="$ops" 'BEGIN { printf "%.1f\n", n / o }')
	mr=$(awk -v m="$misses" -v o="$ops" 'BEGIN { printf "%.4f\n", m / o }')
	echo "$path $cfg $rep $v $mr" >>"$RES"
	# the refault path alone: the loop's instructions less its hits
	# at the cost of a hit, per page read from disk
	h=$(awk -v c="$cfg" -v r="$rep" '$1 == "hit" && $2 == c && $3 == r { print $4 }' "$RES")
	if [ "$path" = loop ] && [ -n "$h" ] && [ "$misses" -gt 0 ]; then
		awk -v p="$cfg $rep" -v n="$((r + k))" -v o="$ops" -v m="$misses" -v h="$h" 'BEGIN {
			hits = o > m ? o - m : 0
			printf "refault %s %.1f %.4f\n", p, (n - hits * h) / m, m / o }' >>"$RES"
	fi
	tap_diag "cost-run $path $cfg $rep $v reader $r kswapd $((k1 - k0)) all $((a1 - a0))" \
		"ops $ops misses $misses"
	# what enforce made the kernel do besides: active pages it scanned
	[ -z "$st0" ] || tap_diag "cost-stats $path $cfg $rep $(hand_stats_delta "$st0" "$(hand_stats)")"
}

# config CONFIG: set the configuration up; fails when it cannot be had.
# stageN: the partial build /cost/stageN.ko (cost-breakdown.sh), observing;
# stageNe: the same, enforcing.
loaded=
config() {
	want=$CP_MODULE
	case $1 in
	stage[0-9]) want=/cost/$1.ko ;;
	stage[0-9]e) want=/cost/${1%e}.ko ;;
	esac
	if cp_module_loaded && [ "$loaded" != "$want" ]; then
		cp_module_unload
	fi
	case $1 in
	stock)
		! cp_module_loaded || cp_module_unload
		;;
	observe | observe_h | stage[0-9])
		[ -e "$want" ] || return 1
		cp_module_loaded || insmod "$want" || return 1
		echo observe >"$CP_DFS/mode"
		;;
	enforce | enforce_h | stage[0-9]e)
		[ -e "$want" ] || return 1
		cp_module_loaded || insmod "$want" || return 1
		echo enforce >"$CP_DFS/mode" 2>/dev/null || return 1
		;;
	*)
		return 1
		;;
	esac
	# observe_h, enforce_h: with the per-memcg histograms (memcg_hist)
	case $1 in
	*_h) echo 1 >"$CP_DFS/memcg_hist" || return 1 ;;
	stock) ;;
	*) [ ! -e "$CP_DFS/memcg_hist" ] || echo 0 >"$CP_DFS/memcg_hist" ;;
	esac
	loaded=$want
}

# Warm-up, unmeasured: the first stream of a boot costs the stock kernel
# a few % more than the next ones (seen on 6.12: kswapd's share).
if echo " $PATHS " | grep -Eq ' (stream|loop) '; then
	cp_drop_caches
	cpwork pread "$CP_DATA" "${STREAM_MB}M" "$STREAM_MB" --bs 1M >/dev/null
fi

skipped=
rep=1
while [ $rep -le "$REPS" ]; do
	for cfg in $CONFIGS; do
		case " $skipped " in *" $cfg "*) continue ;; esac
		if [ "$cfg" != stock ] && ! cp_module_present; then
			skipped="$skipped $cfg"
			tap_skip "$cfg" "no /clockpro.ko in the initramfs"
			continue
		fi
		if ! config "$cfg"; then
			skipped="$skipped $cfg"
			tap_skip "$cfg" "cannot set it up (lru_gen $(cp_lru_gen))"
			continue
		fi
		for path in $PATHS; do
			measure "$path" "$cfg" "$rep"
		done
	done
	rep=$((rep + 1))
done
! cp_module_loaded || cp_module_unload

# summary PATH CONFIG [COLUMN]: "mean spread_pct min n" of column COLUMN
# (default 4, the cost; 5: the misses per op)
summary() {
	awk -v p="$1" -v c="$2" -v col="${3:-4}" '$1 == p && $2 == c {
		v = $col + 0; s += v; n++
		if (n == 1 || v < lo) lo = v
		if (n == 1 || v > hi) hi = v
	} END {
		f = col == 4 ? "%.1f" : "%.4f"
		if (n) printf f " %.3f " f " %d\n", s / n, s ? 100 * (hi - lo) / (s / n) : 0, lo, n
	}' "$RES"
}

# bounds PATH CONFIG: "GUARD TARGET", bounds on % over stock, or nothing.
# GUARD: what the module meets today, asserted, so that a change that costs
# more fails (the module of 2026-12-05 measured cached 0.00 / 5.0-5.1 %,
# stream 9.6-10.4 / 22.2-23.3 % on 6.1 and 6.12; observe's cached reads
# are not hooked at all).  TARGET: issue 12's bound, reported (TODO).
bounds() {
	case $1:$2 in
	cached:observe) echo 1 1 ;;
	cached:enforce) echo 6 2 ;;
	stream:observe) echo 15 3 ;;
	stream:enforce) echo 32 5 ;;
	esac
}

SUMMARY=$PATHS
case " $PATHS " in *" loop "*" hit "* | *" hit "*" loop "*) SUMMARY="$PATHS refault" ;; esac
for path in $SUMMARY; do
	stock=$(summary "$path" stock | cut -d' ' -f1)
	for cfg in $CONFIGS; do
		s=$(summary "$path" "$cfg")
		[ -n "$s" ] || continue
		# shellcheck disable=SC2086 # four words
		set -- $s
		mean=$1
		spread=$2
		pct=na
		if [ -n "$stock" ]; then
			pct=$(awk -v a="$mean" -v b="$stock" 'BEGIN { printf "%.2f\n", 100 * (a - b) / b }')
		fi
		n=$4
		tap_diag "cost $path $cfg $mean $pct $spread $n"
		# shellcheck disable=SC2046 # four words
		set -- $(summary "$path" "$cfg" 5)
		tap_diag "cost-misses $path $cfg $1 $2 $n"
		mspread=$2
		tap_cmp "$path $cfg: $mean $unit per op, all $n runs positive" \
			"$(summary "$path" "$cfg" | cut -d' ' -f3)" ">" 0
		if [ "$cfg" = stock ] && [ "$n" -ge 2 ]; then
			lim=2
			case $path in stream | loop | refault) lim=5 ;; esac
			d="$path stock: runs within $lim % of each other ($spread %)"
			if [ "$(fcalc "$spread <= $lim")" = 1 ]; then
				tap_ok "$d"
			elif [ "$(fcalc "$mspread > 1")" = 1 ]; then
				# the kernel did not do the same work twice (6.12
				# classic keeps a varying part of the loop cached):
				# not the measurement's fault
				tap_todo "$d" "the stock kernel's misses differ by $mspread % between runs"
			else
				tap_fail "$d" "expected $spread <= $lim, with misses within $mspread %"
			fi
		fi
		b=$(bounds "$path" "$cfg")
		if [ -n "$b" ] && [ "$pct" != na ]; then
			tap_cmp "$path $cfg: $pct % over stock, no more than today's ${b% *} %" \
				"$pct" "<=" "${b% *}"
			bound=${b#* }
			d="$path $cfg: $pct % over stock (target <= $bound %)"
			if [ "$(fcalc "$pct <= $bound")" = 1 ]; then
				tap_ok "$d"
			else
				tap_todo "$d" "issue 12 target not met yet"
			fi
		fi
	done
done

tap_done
