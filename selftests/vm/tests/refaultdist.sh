#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# refaultdist: clockpro-refaultdist against the kernel's own counters, in a
# VM guest of the selftests/vm rig (guest side; the rig ships
# tools/clockpro-refaultdist, when built, as
# /bin/clockpro-refaultdist).
#
# 1. Fails loudly: a cgroup path that does not exist is refused (exit != 0).
# 2. Loop: with two tool instances running (text with a linear table, and
#    --json every 5 s), loop-read the first FACTOR x C bytes of the data
#    file PASSES times (C = the guest's page-cache size, lib.sh
#    cp_cache_size), readahead on.  Asserted:
#    - insertions = refaults + new + beyond (every insertion classified);
#    - the tool's evictions are within 5 % of vmstat pgsteal_file;
#    - the tool's kernel-shadow count equals vmstat workingset_refault_file
#      within 2 %, and its refaults are >= 95 % of it (the tool remembers
#      every page the kernel still had a shadow for);
#    - the text and JSON instances report the same totals (within 0.5 %
#      or 64 pages: they start one after the other, and kswapd may still
#      be evicting when they are stopped);
#    - the log2 histogram peaks within one bucket of FACTOR*C - C pages,
#      the reuse distance of a loop under LRU (asserted on 6.1's classic
#      LRU only: 6.12's reclaim order is erratic on this loop, see
#      kernel-hook-sites.md P19, and MGLRU is not FIFO; reported otherwise).
# 3. cgroup: the same loop, smaller, inside cgroup "rdcg" (memory.max
#    = CG_MB); -c rdcg sees evictions and refaults, -c on an idle sibling
#    sees none.
# 4. swap (only when the guest has swap, vmtest.sh --swap MB): 1.25 x
#    MemTotal of anonymous memory written 3 times; the tool's swap-cache
#    evictions and refaults are within 5 % of vmstat pgsteal_anon and
#    workingset_refault_anon.
#
# Kernel command line: cp_rd_passes=N (default 4), cp_rd_factor=F
# (default 1.25), cp_rd_entries=N (default 65536), cp_rd_cg_mb=M
# (default 48).
set -eu
# shellcheck source-path=SCRIPTDIR source=../../../selftests/vm/guest/lib.sh
. /lib/cp/lib.sh

RD=/bin/clockpro-refaultdist
passes=$(cp_param cp_rd_passes 4)
factor=$(cp_param cp_rd_factor 1.25)
entries=$(cp_param cp_rd_entries 65536)
cg_mb=$(cp_param cp_rd_cg_mb 48)

[ -x "$RD" ] || tap_skip_all "no $RD in the initramfs"
tap_diag "kernel $(uname -r), lru_gen $(cp_lru_gen), MemTotal $(meminfo MemTotal) kB, cpus $(nproc)"

# rd_start OUT ARGS...: start the tool in the background, wait for its
# banner; sets RD_PID.  Returns 1 if it died or never got ready.
rd_start() {
	_o=$1
	shift
	"$RD" "$@" >"$_o" 2>"$_o.err" &
	RD_PID=$!
	_i=0
	while [ $_i -lt 600 ]; do
		grep -q '^Tracing' "$_o" "$_o.err" 2>/dev/null && return 0
		kill -0 $RD_PID 2>/dev/null || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# rd_stop PID: SIGINT, wait; returns the tool's exit status
rd_stop() {
	kill -INT "$1"
	_rc=0
	wait "$1" || _rc=$?
	return $_rc
}

# total KEY FILE: sum of "KEY":N over the JSON objects in FILE
total() {
	awk -v k="\"$1\":" '{
		i = index($0, k)
		if (i) { s = substr($0, i + length(k)); sub(/[^0-9].*/, "", s); t += s }
	} END { printf "%.0f\n", t }' "$2"
}

# counter NAME FILE: from the text output's summary line(s), summed
counter() {
	awk -v k="$1" '$1 == "evicted" {
		for (i = 1; i < NF; i++) {
			w = $i; v = $(i + 1); gsub(/[^0-9]/, "", v)
			if (k == "shadow" && w == "refaults" && $(i - 1) == "shadow") t += v
			else if (w == k && $(i - 1) != "shadow") t += v
		}
	} END { printf "%.0f\n", t }' "$2"
}

# peak FILE: "LOW HIGH COUNT" of the fullest log2 bucket
peak() {
	awk '$2 == "->" && $4 == ":" { if ($5 + 0 > m) { m = $5 + 0; l = $1; h = $3 } }
		END { print l + 0, h + 0, m + 0 }' "$1"
}

# relerr A B: |A - B| / B
relerr() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / (b > 0 ? b : 1); if (d < 0) d = -d; printf "%.4f\n", d }'
}

vmdelta() {
	echo $(($(vmstat "$1") - $2))
}

# --- 1. failing loudly -----------------------------------------------------

if "$RD" -c /sys/fs/cgroup/no-such-cgroup 1 1 >/tmp/rd-bad.out 2>&1; then
	tap_fail "nonexistent cgroup refused" "$(cat /tmp/rd-bad.out)"
else
	tap_ok "nonexistent cgroup refused: $(tail -n1 /tmp/rd-bad.out)"
fi

# --- 2. loop -------------------------------------------------------------------

# Measure C with an instance loaded, so its table's memory is accounted.
if rd_start /tmp/rd-warm.out -n "$entries"; then
	C=$(cp_cache_size)
	rd_stop $RD_PID || true
else
	tap_fail "tool starts" "$(cat /tmp/rd-warm.out.err)"
	tap_done
fi
C_pages=$((C / 4096))
bytes=$(fint "$C * $factor / 4096")
L_pages=$bytes
bytes=$((bytes * 4096))
expect=$((L_pages - C_pages))
width=$(((C_pages / 16 + 255) / 256 * 256))
tap_diag "C $C_pages pages ($((C >> 20)) MiB); loop $L_pages pages = $factor x C, $passes passes; expected LRU reuse distance L-C = $expect pages"

cp_drop_caches
if rd_start /tmp/rd-text.out -n "$entries" -w "$width" -b 32 &&
   TEXT_PID=$RD_PID && rd_start /tmp/rd-json.out -n "$entries" -j 5; then
	JSON_PID=$RD_PID
	tap_ok "two instances attached (text -w $width -b 32, json every 5 s)"
else
	tap_fail "two instances attached" "$(cat /tmp/rd-text.out.err /tmp/rd-json.out.err 2>/dev/null)"
	tap_done
fi

rf0=$(vmstat workingset_refault_file)
act0=$(vmstat workingset_activate_file)
ps0=$(vmstat pgsteal_file)
ra0=$(vmstat workingset_refault_anon)
if cp_workload /tmp/rd-loop.out loop "$CP_DATA" "$bytes" "$passes" >/dev/null; then
	tap_ok "loop workload ran"
else
	tap_fail "loop workload ran"
fi
d_rf=$(vmdelta workingset_refault_file "$rf0")
d_act=$(vmdelta workingset_activate_file "$act0")
d_ps=$(vmdelta pgsteal_file "$ps0")
d_ra=$(vmdelta workingset_refault_anon "$ra0")
sleep 1
# Stop both at once: reclaim can go on after the workload (kswapd).
kill -INT "$TEXT_PID" "$JSON_PID"
rc_t=0
wait "$TEXT_PID" || rc_t=$?
rc_j=0
wait "$JSON_PID" || rc_j=$?
tap_cmp "text instance exits 0 on SIGINT" "$rc_t" == 0
tap_cmp "json instance exits 0 on SIGINT" "$rc_j" == 0

tap_diag "loop hit ratios: $(awk '$1 == "pass" { printf "%s ", $8 }' /tmp/rd-loop.out)"
tap_diag "vmstat deltas: workingset_refault_file $d_rf workingset_activate_file $d_act pgsteal_file $d_ps workingset_refault_anon $d_ra"
while IFS= read -r l; do tap_diag "  $l"; done </tmp/rd-text.out
tap_diag "json: $(wc -l </tmp/rd-json.out) objects; the first:"
tap_diag "  $(head -n1 /tmp/rd-json.out)"

E=$(counter evicted /tmp/rd-text.out)
I=$(counter inserted /tmp/rd-text.out)
R=$(counter refaults /tmp/rd-text.out)
N=$(counter new /tmp/rd-text.out)
B=$(counter beyond /tmp/rd-text.out)
S=$(counter shadow /tmp/rd-text.out)
tap_diag "tool: evicted $E inserted $I refaults $R new $N beyond $B shadow $S"
tap_diag "refaultdist: kernel $(uname -r) lru_gen $(cp_lru_gen) C_pages $C_pages L_pages $L_pages tool_refaults $R kernel_refault_file $d_rf tool_evictions $E pgsteal_file $d_ps peak $(peak /tmp/rd-text.out)"

tap_cmp "evictions seen ($E > 0)" "$E" ">" 0
tap_cmp "insertions = refaults + new + beyond ($I)" "$I" == $((R + N + B))
tap_cmp "evictions $E within 5 % of pgsteal_file $d_ps" \
	"$(relerr "$E" "$d_ps")" "<=" 0.05
tap_cmp "kernel shadow refaults $S = workingset_refault_file $d_rf within 2 %" \
	"$(relerr "$S" "$d_rf")" "<=" 0.02
tap_cmp "refaults $R >= 95 % of workingset_refault_file $d_rf" \
	"$R" ">=" "$(fint "$d_rf * 0.95")"
for k in evictions insertions refaults new beyond; do
	case $k in
	evictions) tv=$E ;; insertions) tv=$I ;; refaults) tv=$R ;;
	new) tv=$N ;; beyond) tv=$B ;;
	esac
	jv=$(total "$k" /tmp/rd-json.out)
	tap_cmp "json $k $jv = text $k $tv (within 0.5 % or 64 pages)" \
		"$(awk -v a="$jv" -v b="$tv" 'BEGIN { d = a - b; if (d < 0) d = -d
			print (d <= 64 || d <= b / 200) ? 1 : 0 }')" == 1
done

read -r lo hi cnt <<EOF
$(peak /tmp/rd-text.out)
EOF
if [ "$(cp_lru_gen)" != 1 ] && [ "$(uname -r | cut -d. -f1-2)" = 6.1 ]; then
	tap_cmp "log2 peak [$lo, $hi] ($cnt pages) within one bucket of L-C = $expect" \
		"$(fcalc "($lo <= 2 * $expect && 2 * $hi + 1 >= $expect) ? 1 : 0")" == 1
else
	tap_diag "log2 peak [$lo, $hi] ($cnt pages), L-C = $expect (not asserted: not 6.1 classic LRU)"
fi

# --- 3. cgroup filter --------------------------------------------------------------

cp_cgroup_new rdcg "$((cg_mb << 20))"
cp_cgroup_new rdidle
cg_bytes=$(((cg_mb * 5 / 4) << 20))
cp_drop_caches
if rd_start /tmp/rd-cg.out -n "$entries" -c /sys/fs/cgroup/rdcg &&
   CG_PID=$RD_PID && rd_start /tmp/rd-idle.out -n "$entries" -c /sys/fs/cgroup/rdidle; then
	IDLE_PID=$RD_PID
	tap_ok "cgroup instances attached (-c rdcg, -c rdidle)"
	cp_cgroup_exec rdcg cpwork loop "$CP_DATA" "$cg_bytes" 3 >/tmp/rd-cgloop.out 2>&1 ||
		tap_diag "cgroup loop failed: $(tail -n3 /tmp/rd-cgloop.out)"
	sleep 1
	rd_stop "$CG_PID" || true
	rd_stop "$IDLE_PID" || true
	while IFS= read -r l; do tap_diag "  $l"; done </tmp/rd-cg.out
	cE=$(counter evicted /tmp/rd-cg.out)
	cR=$(counter refaults /tmp/rd-cg.out)
	iE=$(counter evicted /tmp/rd-idle.out)
	iI=$(counter inserted /tmp/rd-idle.out)
	tap_diag "rdcg: memory.events $(tr '\n' ' ' </sys/fs/cgroup/rdcg/memory.events)"
	tap_cmp "-c rdcg sees evictions ($cE)" "$cE" ">" 0
	tap_cmp "-c rdcg sees refaults ($cR)" "$cR" ">" 0
	tap_cmp "-c rdidle sees no eviction ($iE) and no insertion ($iI)" "$((iE + iI))" == 0
	if grep -q "no eviction and no insertion" /tmp/rd-idle.out.err; then
		tap_ok "-c rdidle says it saw nothing (no silent zeros)"
	else
		tap_fail "-c rdidle says it saw nothing" "$(cat /tmp/rd-idle.out.err)"
	fi
else
	tap_fail "cgroup instances attached" "$(cat /tmp/rd-cg.out.err /tmp/rd-idle.out.err 2>/dev/null)"
fi
cp_cgroup_rm rdcg 2>/dev/null || true
cp_cgroup_rm rdidle 2>/dev/null || true

# --- 4. swap cache (only with vmtest.sh --swap MB) ---------------------------------

if ! grep -q '^/dev/' /proc/swaps; then
	tap_skip "swap-cache refaults" "no swap (vmtest.sh --swap MB)"
	tap_done
fi
anon_mb=$(($(meminfo MemTotal) * 5 / 4 / 1024))
cp_drop_caches
if rd_start /tmp/rd-swap.out -n $((entries * 2)); then
	SW_PID=$RD_PID
	ra0=$(vmstat workingset_refault_anon)
	pa0=$(vmstat pgsteal_anon)
	cp_workload /tmp/rd-anon.out anon "$anon_mb" 3 >/dev/null ||
		tap_diag "anon workload failed"
	d_ra=$(vmdelta workingset_refault_anon "$ra0")
	d_pa=$(vmdelta pgsteal_anon "$pa0")
	sleep 1
	rd_stop "$SW_PID" || true
	while IFS= read -r l; do tap_diag "  $l"; done </tmp/rd-swap.out
	awk '$1 == "pass" { print "# anon " $0 }' /tmp/rd-anon.out
	sE=$(awk '$1 == "evicted" { v = $4; gsub(/[^0-9]/, "", v); print v }' /tmp/rd-swap.out)
	sR=$(awk '$1 == "evicted" { v = $10; gsub(/[^0-9]/, "", v); print v }' /tmp/rd-swap.out)
	tap_diag "refaultdist-swap: kernel $(uname -r) lru_gen $(cp_lru_gen) anon_mb $anon_mb tool_swap_evictions $sE pgsteal_anon $d_pa tool_swap_refaults $sR kernel_refault_anon $d_ra peak $(peak /tmp/rd-swap.out)"
	tap_cmp "swap-cache evictions $sE within 5 % of pgsteal_anon $d_pa" \
		"$(relerr "$sE" "$d_pa")" "<=" 0.05
	tap_cmp "swap-cache refaults $sR within 5 % of workingset_refault_anon $d_ra" \
		"$(relerr "$sR" "$d_ra")" "<=" 0.05
else
	tap_fail "swap instance attached" "$(cat /tmp/rd-swap.out.err)"
fi

tap_done
