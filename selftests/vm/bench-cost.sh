#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CPU-cost benchmark of `make bench` (alone: `make bench-cost`): one
# boot of the guest test selftests/vm/tests/cost.sh per kernel and LRU
# (the classic LRU, and MGLRU too where the kernel enables it by default),
# under qemu -icount (vmtest.sh --icount), where the guest's CPU time
# counts instructions.  Each boot measures cached 4 KiB reads, cached
# 1 MiB reads, a 1 GiB streaming miss and a loop of 1.25 x the page cache
# (the refault path) on the stock kernel, with clockpro observe and with
# clockpro enforce (classic LRU only); see tests/cost.sh for the method.
#
# Writes .build/bench/cost.csv (one row per kernel, LRU, path and
# configuration) and .build/bench/cost.md (a markdown table: path, kernel,
# stock instructions per operation, observe and enforce in % over stock,
# the largest spread between runs of one configuration), and prints the
# table.  Exit status 1 if a boot failed.
#
#   bench-cost.sh [--build DIR] [--modules DIR] [--append STR] KVER...
#
#   --build DIR     out-of-tree build directory (default .build); results
#                   in DIR/bench, guest logs in DIR/bench/cost-<kver>-lru<L>
#   --modules DIR   take DIR/<kver>/clockpro.ko (default: the build
#                   directory's, from `make modules-matrix`)
#   --append STR    extra kernel command line for the guests, e.g.
#                   "cp_cost_reps=5" (see tests/cost.sh)
#   --report        boot nothing: rebuild cost.md from cost.csv
set -u

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=$TOP/.build
MODS=
APPEND=
REPORT=0
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--modules) MODS=$2; shift 2 ;;
	--append) APPEND=${APPEND:+$APPEND }$2; shift 2 ;;
	--report) REPORT=1; shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || [ $REPORT = 1 ] || { sed -n '4,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
MODS=${MODS:-$BUILD}
OUT=$BUILD/bench
mkdir -p "$OUT"
CSV=$OUT/cost.csv
MD=$OUT/cost.md
rc=0
[ $REPORT = 1 ] || echo "kernel,lru,path,config,instr_per_op,pct_over_stock,spread_pct,runs,misses_per_op" >"$CSV"
# the tree the modules were built from, for the README's tables
[ $REPORT = 1 ] || git -C "$TOP" describe --always --dirty >"$CSV.rev" 2>/dev/null || true
[ $REPORT = 1 ] || for k in "$@"; do
	lrus=default
	grep -qx 'CONFIG_LRU_GEN_ENABLED=y' "/boot/config-$k" 2>/dev/null && lrus="0 1"
	for l in $lrus; do
		case $l in 1) name=mglru ;; *) name=classic ;; esac
		dir=$OUT/cost-$k-lru$l
		rm -rf "$dir"
		echo "bench-cost: $k $name (log in $dir)" >&2
		CP_BUILD_DIR=$BUILD "$SELF_DIR/vmtest.sh" --kernel "$k" --lru-gen "$l" \
			--module "$MODS/$k/clockpro.ko" --icount --timeout 3600 --out "$dir" \
			-q ${APPEND:+--append "$APPEND"} cost >"$dir.log" 2>&1 || {
			rc=1
			echo "bench-cost: $k $name failed:" >&2
			tail -n 20 "$dir.log" >&2
		}
		# "    # cost PATH CONFIG INSTR_PER_OP PCT SPREAD RUNS" and
		# "    # cost-misses PATH CONFIG MISSES_PER_OP SPREAD RUNS" in the TAP log
		awk -v k="$k" -v l="$name" '$1 == "#" && $2 == "cost-misses" && NF == 7 {
			m[$3 " " $4] = $5 }
		$1 == "#" && $2 == "cost" && NF == 8 {
			row[n++] = k "," l "," $3 "," $4 "," $5 "," $6 "," $7 "," $8; key[n - 1] = $3 " " $4 }
		END { for (i = 0; i < n; i++) print row[i] "," m[key[i]] }' \
			"$dir/tap.log" >>"$CSV" 2>/dev/null
	done
done

# Markdown table: one row per path and kernel/LRU.
awk -F, 'NR > 1 {
	key = $3 SUBSEP $1 " " $2
	if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	if ($4 == "stock") stock[key] = $5
	else if ($4 == "observe") obs[key] = $6
	else if ($4 == "enforce") enf[key] = $6
	if (!(key in spread) || $7 + 0 > spread[key]) spread[key] = $7 + 0
	# hit ratio: 1 - pages read from disk per page read (metadata and
	# readahead past the end make that a little over 1 without hits)
	if ($3 == "loop") hr[key, $4] = sprintf("%.2f", $9 < 1 ? 1 - $9 : 0)
}
function pct(v) { return v == "" ? "n/a" : v == "na" ? "n/a" : sprintf("%+.2f %%", v) }
END {
	print "| path | kernel | stock instr/op | observe | enforce | max spread |"
	print "|---|---|--:|--:|--:|--:|"
	# paths in a fixed order, kernels as they came
	np = split("cached hit stream loop refault", paths, " ")
	for (p = 1; p <= np; p++)
		for (i = 0; i < n; i++) {
			split(order[i], f, SUBSEP)
			if (f[1] != paths[p]) continue
			printf "| %s | %s | %s | %s | %s | %.2f %% |\n", f[1], f[2],
				order[i] in stock ? stock[order[i]] : "n/a",
				pct(obs[order[i]]), pct(enf[order[i]]), spread[order[i]]
		}
	print ""
	print "| loop hit ratio | stock / observe / enforce |"
	print "|---|---|"
	for (i = 0; i < n; i++) {
		split(order[i], f, SUBSEP)
		if (f[1] != "loop") continue
		printf "| %s | %s / %s / %s |\n", f[2],
			(order[i], "stock") in hr ? hr[order[i], "stock"] : "n/a",
			(order[i], "observe") in hr ? hr[order[i], "observe"] : "n/a",
			(order[i], "enforce") in hr ? hr[order[i], "enforce"] : "n/a"
	}
}' "$CSV" >"$MD"
{
	echo
	echo "Instructions per operation (qemu -icount, 256 MiB guest, readahead 128 KiB):"
	echo "cached = one 4 KiB pread of a cached page; hit = one cached 4 KiB page"
	echo "read in 1 MiB reads; stream = one 4 KiB page of a 1 GiB read once;"
	echo "loop = one 4 KiB page of a loop over 1.25 x the page cache (its share"
	echo "of hits below: on 6.12 the kernel varies it from run to run); refault ="
	echo "one page of the loop read from disk (the loop less its hits at the hit"
	echo "cost).  observe/enforce in % over stock; spread = (max - min) / mean of"
	echo "the runs of one configuration."
	echo
} >>"$MD"
cat "$MD"
echo "results: $CSV, $MD"
exit $rc
