#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# memcgs: enforce where several memcgs reclaim at once, and where reclaim
# gets hard.  Stock (the module not loaded) against clockpro, same boot:
#
#   two memcgs: two cgroups, each limited to C/3 and each looping over
#     its own region of 1.25 times that (readahead off, 8 passes), at the
#     same time.  Each lruvec's refault distances are counted in its own
#     evictions: on one global clock both would look twice as long.
#     Asserted: passes 3-8 >= 0.6 in each cgroup under clockpro.
#   no earlier OOM: one cgroup limited to C/2 holding anonymous memory
#     (40 % of the limit, no swap) while a file loop of 1.25 times the
#     rest runs in it.  Asserted: memory.events oom_kill is 0 under
#     stock and clockpro alike.  (An OOM kill also prints a call trace,
#     which fails the run.)
#   pressure: uniform random reads over 2 C (no policy can do better than
#     about half), observe against enforce.  The kernel counts a read of a
#     refault of the working set as a memory stall (PSI): enforce keeps
#     the page's PG_workingset until the read is done.  Asserted: stall
#     time per page read from disk under enforce >= 0.25 of observe's.
#     Stall time is wall time, noisy under TCG beside other guests: the
#     ratio was 0.76 (6.1) and 3.2 (6.12) in one CI run, 0.99 (6.1) in
#     another, 0.36 (6.1) in a clean-clone run sharing two cores with two
#     more guests (observe 32.0, enforce 11.5 us per page), 0.42 (6.12)
#     with both vCPUs on one host thread; 0.5 failed on those two.  The
#     module that cleared the bit at insertion was not measured this way:
#     how low it would go (direct reclaim stalls remain) is not known.
#
# Needs the classic LRU for enforce: with MGLRU on, the test skips.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
[ "$(cp_lru_gen)" != 1 ] || tap_skip_all "MGLRU on: enforce is refused"
[ -f /sys/fs/cgroup/cgroup.subtree_control ] || tap_skip_all "no cgroup v2"

PG=4096
MB=1048576
C=$(cp_cache_size)
CPG=$((C / PG))
mb() {	# bytes, rounded down to MiB
	echo $(($(fint "($1) / $MB") * MB))
}
tap_diag "kernel $(uname -r), C = $CPG pages"

# Hit ratio of loop passes 3..8 (mincore, readahead off).
loop_ratio() {
	awk '$1 == "pass" && $2 >= 3 { s += $10; n++ } END { if (n) printf "%.4f", s / n }' "$1"
}

# --- two memcgs, each looping 1.25 x its limit, at once ----------------------

MAX2=$(mb "$C / 3")
F2=$(mb "$MAX2 * 5 / 4")
OFF2=$(mb "$C * 2")

rows_ab() {	# rows of cgroups a and b in lruvecs
	awk -v a="$ino_a" -v b="$ino_b" 'NR > 1 && ($18 == a || $18 == b) { n++ } END { print n + 0 }' "$CP_DFS/lruvecs"
}

dying() {	# memcgs removed but not yet freed
	awk '$1 == "nr_dying_descendants" { print $2 }' /sys/fs/cgroup/cgroup.stat
}

two_memcgs() {	# CONFIG: stock | clockpro
	cp_reclaim_quiesce
	[ "$1" = clockpro ] && cp_module_load mode=enforce
	cp_drop_caches
	cp_cgroup_new cpa "$MAX2"
	cp_cgroup_new cpb "$MAX2"
	cp_cgroup_exec cpa cpwork loop "$CP_DATA" "$F2" 8 --no-readahead \
		>/tmp/m2.a."$1" 2>&1 &
	pa=$!
	cp_cgroup_exec cpb cpwork loop "$CP_DATA" "$F2" 8 --no-readahead \
		--offset "$OFF2" >/tmp/m2.b."$1" 2>&1 &
	pb=$!
	wait "$pa" || tap_diag "cgroup a: cpwork failed: $(tail -n 2 /tmp/m2.a."$1")"
	wait "$pb" || tap_diag "cgroup b: cpwork failed: $(tail -n 2 /tmp/m2.b."$1")"
	if [ "$1" = clockpro ]; then
		tap_diag "lruvecs: $(tr '\n' ';' <"$CP_DFS/lruvecs")"
		ids=$(awk 'NR > 1 { print $1 }' "$CP_DFS/lruvecs" | sort -u | tr '\n' ' ')
		ino_a=$(stat -c %i /sys/fs/cgroup/cpa)
		ino_b=$(stat -c %i /sys/fs/cgroup/cpb)
		tap_cmp "both memcgs have state (cgroup inodes $ino_a $ino_b; memcg ids $ids)" \
			"$(rows_ab)" ">=" 2
		freed0=$(cp_stat lruvec_slots_freed)
	fi
	# Reclaim what they hold, or their page cache keeps them alive
	# (dying) long after they are removed.
	for g in cpa cpb; do
		if [ -w /sys/fs/cgroup/$g/memory.reclaim ]; then
			{ echo 1G >/sys/fs/cgroup/$g/memory.reclaim; } 2>/dev/null || :
		fi
	done
	cp_cgroup_rm cpa
	cp_cgroup_rm cpb
	if [ "$1" = clockpro ]; then
		# The page cache pins a removed memcg (a dying descendant of
		# the root): dropped, the memcg is freed after an RCU grace
		# period, and its state slots with it.
		i=0
		while [ $i -lt 60 ] && [ "$(rows_ab)" -gt 0 ]; do
			cp_drop_caches
			sleep 1
			i=$((i + 1))
		done
		if [ "$(rows_ab)" -gt 0 ] && [ "$(dying)" -gt 0 ]; then
			tap_skip "freed memcgs lose their state" "the kernel did not free them in 60 s ($(dying) memcgs dying)"
		else
			tap_cmp "freed memcgs lose their state: slots freed +$(($(cp_stat lruvec_slots_freed) - freed0))" \
				"$(($(cp_stat lruvec_slots_freed) - freed0))" ">=" 2
			tap_cmp "no row of a freed memcg in lruvecs" "$(rows_ab)" "==" 0
		fi
		cp_reclaim_quiesce
		cp_module_unload
	fi
	ha=$(loop_ratio /tmp/m2.a."$1")
	hb=$(loop_ratio /tmp/m2.b."$1")
	tap_diag "two memcgs $1: a ${ha:-none} b ${hb:-none}"
}

two_memcgs stock
sa=${ha:-0} sb=${hb:-0}
two_memcgs clockpro
tap_cmp "two memcgs at once, cgroup a: clockpro ${ha:-none} >= 0.6 (stock $sa)" "${ha:-0}" ">=" 0.6
tap_cmp "two memcgs at once, cgroup b: clockpro ${hb:-none} >= 0.6 (stock $sb)" "${hb:-0}" ">=" 0.6

# --- no earlier OOM: anonymous memory near the limit, a file loop beside ------

MAXO=$(mb "$C / 2")
ANON_MB=$(($(fint "$MAXO * 2 / 5") / MB))
FO=$(mb "($MAXO - $ANON_MB * $MB) * 5 / 4")

oom_case() {	# CONFIG
	cp_reclaim_quiesce
	[ "$1" = clockpro ] && cp_module_load mode=enforce
	cp_drop_caches
	cp_cgroup_new cpo "$MAXO"
	cp_cgroup_exec cpo cpwork anon "$ANON_MB" 100000 >/tmp/oom.anon."$1" 2>&1 &
	pan=$!
	sleep 2
	cp_cgroup_exec cpo cpwork loop "$CP_DATA" "$FO" 4 --no-readahead \
		>/tmp/oom.loop."$1" 2>&1 || tap_diag "oom $1: loop failed: $(tail -n 2 /tmp/oom.loop."$1")"
	cp_cgroup_kill cpo
	wait "$pan" 2>/dev/null || true
	kills=$(awk '$1 == "oom_kill" { print $2 }' /sys/fs/cgroup/cpo/memory.events)
	if [ "$1" = clockpro ]; then
		tap_diag "oom clockpro: $(awk '/^(deactivate_escalated|deactivate_held|deactivate_sized|promoted|kept_cold) / { printf "%s %s ", $1, $2 }' "$CP_DFS/stats")"
		cp_reclaim_quiesce
		cp_module_unload
	fi
	cp_cgroup_rm cpo
	tap_diag "oom $1: anon $ANON_MB MiB + loop $((FO / MB)) MiB in $((MAXO / MB)) MiB: oom_kill ${kills:-?}, loop passes 3-4 $(awk '$1 == "pass" && $2 >= 3 { s += $10; n++ } END { if (n) printf "%.4f", s / n }' /tmp/oom.loop."$1")"
}

oom_case stock
stock_kills=${kills:-x}
oom_case clockpro
tap_cmp "no OOM kill under stock (anon + file loop near memory.max): $stock_kills" "$stock_kills" "==" 0
tap_cmp "no OOM kill under clockpro either: ${kills:-x}" "${kills:-x}" "==" 0

# --- pressure stall accounting: observe against enforce ------------------------

psi_some_us() {
	awk '$1 == "some" { for (i = 2; i <= NF; i++) if ($i ~ /^total=/) { sub(/total=/, "", $i); print $i } }' /proc/pressure/memory
}
read_sectors() {
	awk '$3 == "vda" { print $6 }' /proc/diskstats
}

if [ ! -r /proc/pressure/memory ]; then
	tap_skip "stall time per page read, enforce against observe" "no /proc/pressure/memory (psi=0?)"
else
	U=$(mb "$C * 2")
	NR=$((CPG * 3))
	for mode in observe enforce; do
		cp_reclaim_quiesce
		cp_module_load mode=$mode
		cp_drop_caches
		# fill memory once, so the measured reads refault
		cpwork zipf "$CP_DATA" "$U" 0 "$NR" 3 >/dev/null 2>&1 || true
		p0=$(psi_some_us)
		r0=$(read_sectors)
		cpwork zipf "$CP_DATA" "$U" 0 "$NR" 4 >/tmp/psi.$mode 2>&1 || true
		p1=$(psi_some_us)
		r1=$(read_sectors)
		ws=$(vmstat workingset_refault_file || echo 0)
		cp_reclaim_quiesce
		cp_module_unload
		pages=$(((r1 - r0) / 8))
		per=$(fcalc "($p1 - $p0) / ($pages > 0 ? $pages : 1)")
		eval "per_$mode=\$per"
		tap_diag "pressure $mode: some total +$((p1 - p0)) us over $pages pages read ($per us/page), workingset_refault_file $ws, hit ratio $(awk '$1 == "phase" && $3 == "reads" { h = $8 } END { print h }' /tmp/psi.$mode)"
	done
	# shellcheck disable=SC2154 # set by eval above
	ratio=$(fcalc "$per_enforce / ($per_observe > 0 ? $per_observe : 1)")
	tap_cmp "stall time per page read, enforce/observe $ratio >= 0.25" "$ratio" ">=" 0.25
fi

tap_dmesg_clean
tap_done
