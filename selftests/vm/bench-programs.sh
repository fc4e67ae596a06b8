#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real-program part of `make bench`: selftests/vm/tests/programs.sh
# (GNU grep -r over a source tree 1.3 x memory, 5 times; sqlite3 answering
# Zipf point lookups over a table 1.6 x memory; the same beside an md5sum
# stream) on every kernel given, as it boots and, where the kernel boots
# the classic LRU but has MGLRU, also with MGLRU on (clockpro then runs
# with classic_lru=1), REPS boots each.  Writes .build/bench/programs.csv
# (kernel, boot LRU, rep, workload, configuration, MiB read) and
# programs.md (the README's table: means over boots).
#
#   bench-programs.sh [--build DIR] [--reps N] KVER...
set -u

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=$TOP/.build
REPS=1
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: bench-programs.sh [--build DIR] [--reps N] KVER..." >&2; exit 2; }
OUT=$BUILD/bench
mkdir -p "$OUT"
CSV=$OUT/programs.csv
echo "kernel,lru,rep,workload,config,mib_read" >"$CSV"
git -C "$TOP" describe --always --dirty >"$CSV.rev" 2>/dev/null || true

specs=()
for k in "$@"; do
	if grep -qx 'CONFIG_LRU_GEN_ENABLED=y' "/boot/config-$k" 2>/dev/null; then
		lrus="0 1"
	else
		lrus="default 1"
	fi
	for l in $lrus; do
		for ((r = 1; r <= REPS; r++)); do
			specs+=("$k:$l:programs")
		done
	done
done
"$SELF_DIR/run-suites.sh" --build "$BUILD" "${specs[@]}"
rc=$?

# The logs of run-suites.sh are suite-<n>.log in the order of the specs.
n=0
declare -A rep
for s in "${specs[@]}"; do
	n=$((n + 1))
	IFS=: read -r k l _ <<<"$s"
	rep[$k:$l]=$((${rep[$k:$l]:-0} + 1))
	awk -v k="$k" -v l="$l" -v r="${rep[$k:$l]}" '
		/# MiB read/ { n = split($0, h, " "); for (i = 4; i <= n; i++) cfg[i - 3] = h[i]; nc = n - 3; on = 1; next }
		/# clockpro search passes 3-5: read .* MiB; floor / {
			for (i = 1; i <= NF; i++) if ($i == "floor") f = $(i + 1)
		}
		on && /# (search|db|db\+copy) / {
			for (i = 1; i <= NF; i++) if ($i == "#") break
			w = $(i + 1)
			for (c = 1; c <= nc; c++) printf "%s,%s,%s,%s,%s,%s\n", k, l, r, w, cfg[c], $(i + 1 + c)
			if (w == "search" && f != "") printf "%s,%s,%s,search,floor,%s\n", k, l, r, f
		}' "$BUILD/vm/suite-$n.log" >>"$CSV"
done

"$TOP/scripts/readme-tables.sh" --bench "$OUT" --print programs >"$OUT/programs.md"
cat "$OUT/programs.md"
exit $rc
