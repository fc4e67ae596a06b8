#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The safety part of `make bench`: selftests/vm/tests/numa.sh and
# memcgs.sh (a loop over two NUMA nodes; two memcgs looping at once; OOM
# kills with anonymous memory and a file loop near memory.max; PSI stall
# per page read while thrashing) on every kernel given, on its classic LRU,
# in a guest of two NUMA nodes and two vCPUs, REPS boots each, stock
# against clockpro in every boot (PSI: observe against enforce).  Writes
# .build/bench/safety.csv (kernel, boot, metric, stock, clockpro) for the
# README's table.
#
#   bench-safety.sh [--build DIR] [--reps N] [--jobs N] KVER...
set -u

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=$TOP/.build
REPS=1
JOBS=2
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: bench-safety.sh [--build DIR] [--reps N] KVER..." >&2; exit 2; }
OUT=$BUILD/bench
mkdir -p "$OUT"
CSV=$OUT/safety.csv

specs=()
for k in "$@"; do
	l=default
	grep -qx 'CONFIG_LRU_GEN_ENABLED=y' "/boot/config-$k" 2>/dev/null && l=0
	for ((r = 1; r <= REPS; r++)); do
		specs+=("$k:$l:numa,memcgs:--smp=2:--numa=2")
	done
done
# the tree the modules come from, as the runs begin (not as they end)
git -C "$TOP" describe --always --dirty >"$CSV.rev.new" 2>/dev/null || true
"$SELF_DIR/run-suites.sh" --build "$BUILD" --jobs "$JOBS" "${specs[@]}" >"$OUT/safety-suites.log" 2>&1
rc=$?

echo "kernel,boot,metric,stock,clockpro" >"$CSV.new"
n=0
for spec in "${specs[@]}"; do
	n=$((n + 1))
	k=${spec%%:*}
	# the test's diagnostics: "# NAME stock ... clockpro ..." lines
	awk -v k="$k" -v rep="$n" '
	function out(m, s, c) { if (s != "" && c != "") printf "%s,%s,%s,%s,%s\n", k, rep, m, s, c }
	/# loop on two nodes: stock/ { out("numa_loop", $7, $9) }
	/# two memcgs stock: a/ { sa = $6; sb = $8 }
	/# two memcgs clockpro: a/ { out("memcg_a", sa, $6); out("memcg_b", sb, $8) }
	/# oom (stock|clockpro): anon/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "oom_kill") kill[$3] = $(i + 1)
			if ($i == "3-4") loop[$3] = $(i + 1)
		}
	}
	/# pressure (observe|enforce): some total/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^\(/ && $(i + 1) == "us/page),") psi[$3] = substr($i, 2)
	}
	END {
		sub(/,$/, "", kill["stock:"]); sub(/,$/, "", kill["clockpro:"])
		out("oom_kills", kill["stock:"], kill["clockpro:"])
		out("oom_loop", loop["stock:"], loop["clockpro:"])
		out("psi_us_per_page", psi["observe:"], psi["enforce:"])
	}' "$BUILD/vm/suite-$n.log"
done >>"$CSV.new"
mv "$CSV.new" "$CSV"
mv "$CSV.rev.new" "$CSV.rev"
column -t -s, "$CSV"
echo "results: $CSV"
exit $rc
