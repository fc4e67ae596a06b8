#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where clockpro's instructions go on the page-cache paths: one boot per
# kernel (classic LRU) of tests/cost.sh under qemu -icount, with the stock
# kernel, three partial builds of the module (CP_COST_STAGE in
# module/hooks.c: 1 the attachment of the per-page hooks alone, 2 and the
# page's identity and hash, 3 and the nonresident table), the whole module
# observing, the first partial build enforcing (every handler cut short:
# the attachment of enforce's hooks, against the same build observing), a
# fourth partial build enforcing (enforce's policy operations return at
# once: against observe), a fifth (they find and lock their slot, then
# stop) and the whole module enforcing, interleaved in one boot.
# Prints, per path, the instructions per operation of each and the step
# from the one before: a breakdown measured, not estimated.
#
#   cost-breakdown.sh [--build DIR] [--paths LIST] [--reps N] KVER...
#
#   --build DIR     out-of-tree build directory (default .build), which
#                   holds DIR/<kver>/clockpro.ko (make modules-matrix);
#                   partial builds and logs in DIR/cost-breakdown/<kver>
#   --paths LIST    tests/cost.sh paths (default stream,cached)
#   --reps N        runs per configuration (default 2)
set -u

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=$TOP/.build
PATHS=stream,cached
REPS=2
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--paths) PATHS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

CONFIGS=stock,stage1,stage2,stage3,observe,stage1e,stage4e,stage5e,enforce
rc=0
for k in "$@"; do
	x=$BUILD/cost-breakdown/$k
	rm -rf "$x"
	mkdir -p "$x/extra/cost"
	for st in 1 2 3 4 5; do
		d=$x/stage$st
		mkdir -p "$d"
		cp -r "$TOP/Kbuild" "$TOP/module" "$TOP/include" "$d/"
		make -s -C "/lib/modules/$k/build" M="$d" CP_COST_STAGE=$st \
			modules >"$d/build.log" 2>&1 || {
			echo "cost-breakdown: stage $st does not build for $k (see $d/build.log)" >&2
			exit 1
		}
		cp "$d/clockpro.ko" "$x/extra/cost/stage$st.ko"
	done
	CP_BUILD_DIR=$BUILD "$SELF_DIR/vmtest.sh" --kernel "$k" --lru-gen 0 \
		--module "$BUILD/$k/clockpro.ko" --icount --extra "$x/extra" \
		--append "cp_cost_paths=$PATHS cp_cost_configs=$CONFIGS cp_cost_reps=$REPS" \
		cost >"$x/log" 2>&1 || rc=1
	echo "== $k (instructions per operation; log $x/log)"
	awk '$2 == "cost" && NF >= 8 { v[$3, $4] = $5; p[$3] = 1 }
	END {
		n = split("stock stage1 stage2 stage3 observe stage1e stage4e stage5e enforce", c, " ")
		split("stock kernel|attachment|identity + hash|table|counters, rest|enforce: attachment|enforce: no policy|enforce: slots|enforce: policy", what, "|")
		for (path in p) {
			printf "%-8s %-16s %10s %10s\n", path, "", "instr/op", "step"
			prev = ""
			for (i = 1; i <= n; i++) {
				if (!((path, c[i]) in v)) continue
				cur = v[path, c[i]]
				base = c[i] == "stage1e" ? v[path, "stage1"] : \
				       c[i] == "stage4e" ? v[path, "observe"] : prev
				step = base == "" ? "" : sprintf("%+.1f", cur - base)
				printf "%-8s %-16s %10.1f %10s\n", "", what[i], cur, step
				if (c[i] != "stage1e") prev = cur
			}
		}
	}' "$x/log"
done
exit $rc
