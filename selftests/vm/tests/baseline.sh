#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# baseline: the stock kernel's behaviour on a looping read, with no clockpro
# module loaded.  Reads the first 1.25 x C bytes of the data file
# sequentially, page by page with readahead off (POSIX_FADV_RANDOM), for 4
# passes, and reports the hit ratio of every pass.  C is the guest's
# page-cache size (cp_cache_size in lib.sh).  An LRU-like policy misses
# (nearly) every page of such a loop; this is the number clockpro has to
# beat.
#
# Asserted: the workload runs, pass 1 starts from an empty cache (hit ratio
# < 5 %), the disk-stat and mincore measures agree within 5 %, every ratio
# is in [0, 1], and the data read back is correct.  The hit ratios of later
# passes are reported, not asserted (6.12 is erratic here).
#
# Kernel command line: cp_baseline_passes=N (default 4),
# cp_baseline_factor=F (default 1.25).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

passes=$(cp_param cp_baseline_passes 4)
factor=$(cp_param cp_baseline_factor 1.25)

tap_diag "kernel $(uname -r), lru_gen $(cp_lru_gen), MemTotal $(meminfo MemTotal) kB"
if cp_module_loaded; then
	tap_fail "clockpro must not be loaded for the baseline"
	tap_done
fi
tap_ok "no clockpro module loaded"

est=$(cp_cache_estimate)
if C=$(cp_cache_size); then
	tap_ok "page-cache size C measured"
else
	tap_fail "page-cache size C measured"
	tap_done
fi
tap_diag "C $C bytes ($((C >> 20)) MiB); upper bound MemFree+file LRU after drop_caches $((est >> 20)) MiB"
[ ! -f /tmp/cp_cachesize.out ] || sed 's/^/  /' /tmp/cp_cachesize.out | while IFS= read -r l; do tap_diag "$l"; done

bytes=$(fint "$C * $factor / 4096")
bytes=$((bytes * 4096))
tap_diag "loop bytes $bytes ($((bytes >> 20)) MiB) = $factor x C, passes $passes, readahead off"

cp_drop_caches
rf0=$(vmstat workingset_refault_file)
act0=$(vmstat workingset_activate_file)
st0=$(vmstat pgsteal_kswapd)
sd0=$(vmstat pgsteal_direct)
if cp_workload /tmp/baseline.out loop "$CP_DATA" "$bytes" "$passes" --no-readahead \
	--verify "$(cp_data_seed)"; then
	tap_ok "loop workload ran"
else
	tap_fail "loop workload ran"
fi
tap_diag "vmstat deltas: workingset_refault_file $(($(vmstat workingset_refault_file) - rf0))" \
	"workingset_activate_file $(($(vmstat workingset_activate_file) - act0))" \
	"pgsteal_kswapd $(($(vmstat pgsteal_kswapd) - st0))" \
	"pgsteal_direct $(($(vmstat pgsteal_direct) - sd0))"
tap_diag "after: Active(file) $(meminfo 'Active(file)') kB, Inactive(file) $(meminfo 'Inactive(file)') kB"

tap_cmp "data verified" "$(kv verify_errors /tmp/baseline.out || echo 1)" == 0

p=1
while [ "$p" -le "$passes" ]; do
	hr=$(kv_line "pass $p" hit_ratio /tmp/baseline.out || echo -1)
	mc=$(kv_line "pass $p" mincore_hit_ratio /tmp/baseline.out || echo -1)
	if [ "$p" -eq 1 ]; then
		tap_cmp "pass 1 hit_ratio $hr starts cold (< 0.05)" "$hr" "<" 0.05
	fi
	if awk -v a="$hr" -v b="$mc" 'BEGIN { d = a - b; if (d < 0) d = -d
		exit !(a >= 0 && a <= 1 && b >= 0 && b <= 1 && d <= 0.05) }'; then
		tap_ok "pass $p hit_ratio $hr mincore_hit_ratio $mc"
	else
		tap_fail "pass $p hit_ratio $hr mincore_hit_ratio $mc" \
			"ratios must be in [0,1] and agree within 0.05"
	fi
	p=$((p + 1))
done
tap_diag "baseline: kernel $(uname -r) lru_gen $(cp_lru_gen) C_MiB $((C >> 20))" \
	"hit_ratios $(awk '$1 == "pass" { printf "%s ", $8 }' /tmp/baseline.out)"

tap_done
