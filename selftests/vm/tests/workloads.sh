#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# workloads: every cpwork subcommand runs in the guest on small inputs,
# prints its result lines and reads back correct data.  A quick check of the
# rig itself, not of any policy (hit ratios are reported, not asserted,
# except where the answer is forced: a region much smaller than the cache
# must hit after its first pass).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

seed=$(cp_data_seed)
M=1048576
out=/tmp/wl.out

run() {
	# run DESC KEY-TO-REPORT ARGS...
	_desc=$1
	_key=$2
	shift 2
	if cp_workload "$out" "$@" --verify "$seed" >/dev/null; then
		tap_ok "$_desc: $_key $(kv "$_key" "$out" || echo '?')"
	else
		tap_fail "$_desc" "cpwork $*" "$(tail -n 5 "$out")"
	fi
}

cp_drop_caches
run "loop readahead" hit_ratio_steady loop "$CP_DATA" $((16 * M)) 2
tap_cmp "loop: 16 MiB fits, pass 2 hits" "$(kv_line "pass 2" mincore_hit_ratio "$out")" ">=" 0.99
run "loop --mmap --no-readahead" hit_ratio_steady loop "$CP_DATA" $((8 * M)) 2 \
	--mmap --no-readahead --offset $((64 * M))
run "zigzag" hit_ratio_steady zigzag "$CP_DATA" $((8 * M)) 3 --offset $((96 * M))
tap_cmp "zigzag: pass 3 hits" "$(kv_line "pass 3" hit_ratio "$out")" ">=" 0.99
run "zipf" hit_ratio zipf "$CP_DATA" $((64 * M)) 0.9 20000 7 --offset $((128 * M))
run "twopools" hit_ratio twopools "$CP_DATA" $((4 * M)) $((256 * M)) $((64 * M)) 20000
run "phase --random" hit_ratio phase "$CP_DATA" $((8 * M)) $((400 * M)) $((420 * M)) 2 --random
run "hotstream" hot_hit_ratio hotstream "$CP_DATA" $((8 * M)) $((512 * M)) $((64 * M)) \
	--offset $((440 * M))
if cp_workload "$out" anon 32 3 >/dev/null; then
	tap_ok "anon: verify_errors $(kv verify_errors "$out")"
else
	tap_fail "anon" "$(tail -n 5 "$out")"
fi
if cp_workload "$out" verify "$CP_DATA" $((1200 * M - 4 * M)) $((4 * M)) "$seed" >/dev/null; then
	tap_ok "verify: end of the data file"
else
	tap_fail "verify: end of the data file" "$(tail -n 3 "$out")"
fi
# Wrong seed must be detected.
if cpwork verify "$CP_DATA" 0 65536 $((seed + 1)) >/dev/null 2>&1; then
	tap_fail "verify detects wrong data"
else
	tap_ok "verify detects wrong data"
fi

tap_done
