#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hit-ratio benchmark behind `make bench`: the enforce workloads
# (selftests/vm/tests/enforce.sh: loop, loop with readahead, hot set +
# stream, two pools, Zipf, phase change, moving working set, zigzag, loop
# in a memcg) on every kernel given,
# REPS boots each, stock classic LRU / stock MGLRU / clockpro enforce in
# every boot.  Prints mean and standard deviation per cell, with Belady's
# OPT from the simulator for the same access pattern at 5000 pages (the
# guest's exact sequence is not replayed: OPT is for scale; none for the
# hot set, whose figure counts only the hot reads), writes
# .build/bench/results.csv and one PNG per kernel.  The CPU-cost part of
# `make bench` is bench-cost.sh.
#
#   bench.sh [--build DIR] [--reps N] [--jobs N] KVER...
set -u

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=$TOP/.build
REPS=3
JOBS=2
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: bench.sh [--reps N] KVER..." >&2; exit 2; }
OUT=$BUILD/bench
mkdir -p "$OUT"
RAW=$OUT/raw.txt
: >"$RAW"

# One boot per (kernel, LRU, repetition); the enforce test itself runs every
# workload under the three configurations.  Assertion failures are
# expected to be rare and do not stop the benchmark.
# A kernel that boots MGLRU runs twice: booted classic, and as it boots
# (stock MGLRU against clockpro with classic_lru=1), listed as KVER/mglru.
specs=()
for k in "$@"; do
	lrus=default
	grep -qx 'CONFIG_LRU_GEN_ENABLED=y' "/boot/config-$k" 2>/dev/null && lrus="0 1"
	for l in $lrus; do
		for ((r = 1; r <= REPS; r++)); do
			specs+=("$k:$l:enforce")
		done
	done
done
# the tree the modules come from, as the runs begin (not as they end);
# the modules are built from it here, not taken as left in $BUILD
git -C "$TOP" describe --always --dirty >"$OUT/results.csv.rev.new" 2>/dev/null || true
make -s -C "$TOP" modules-matrix MATRIX_KVERS="$*" BUILD="$BUILD" >"$OUT/build.log" 2>&1 ||
	{ echo "bench.sh: module build failed: $OUT/build.log" >&2; exit 1; }
"$SELF_DIR/run-suites.sh" --build "$BUILD" --jobs "$JOBS" "${specs[@]}" >"$OUT/suites.log" 2>&1
n=0
for spec in "${specs[@]}"; do
	n=$((n + 1))
	k=${spec%%:*}
	case $spec in *:1:*) k=$k/mglru ;; esac
	awk -v k="$k" '$1 == "#" && $4 == "hit" && $5 == "ratio" {
		print k, $2, $3, $6 }' "$BUILD/vm/suite-$n.log" >>"$RAW"
done

# OPT at 5000 pages (C = 5000) for the same shapes, counted over the same
# part of the run as the guest's figure (--warmup skips the rest).
SIM=$TOP/tools/clockpro-sim
[ -x "$SIM" ] || make -C "$TOP/tools/sim" >/dev/null
opt() {	# warmup trace
	"$SIM" -p opt -c 5000 --warmup "$1" --json "$2" |
		grep -o '"hit_ratio": *[0-9.]*' | head -n 1 | sed 's/.*: *//'
}
PH=$OUT/phase.trace
"$SIM" --gen loop:n=4000,passes=4,base=0 >"$PH"
"$SIM" --gen loop:n=4000,passes=4,base=100000 >>"$PH"
{
	echo "loop $(opt 12500 gen:loop:n=6250,passes=8)"
	echo "loop_ra $(opt 12500 gen:loop:n=6250,passes=8)"
	echo "memcg $(opt 12500 gen:loop:n=6250,passes=8)"
	echo "hotstream n/a"
	echo "twopools $(opt 300000 gen:twopools:a=2500,b=25000,refs=400000,p=0.5)"
	echo "zipf $(opt 300000 gen:zipf:n=15000,refs=400000,alpha=0.9)"
	echo "phase $(opt 16000 "$PH")"
	# moving: 4 C uniform reads over 0.8 C, then over another 0.8 C;
	# counted over the second half of the second region's reads
	echo "moving $(opt 30000 gen:phase:n=4000,refs=20000,phases=2)"
	echo "zigzag $(opt 12500 gen:zigzag:n=6250,passes=6)"
} >"$OUT/opt.txt"

awk 'NR == FNR { opt[$1] = $2; next }
{
	key = $1 " " $2; v[key, $3] += $4; v2[key, $3] += $4 * $4
	c[key, $3]++; rows[key] = 1
}
END {
	for (key in rows) {
		split(key, f, " ")
		line = f[1] "," f[2]
		n = 0
		for (i = 1; i <= 3; i++) {
			cfg = i == 1 ? "stock" : i == 2 ? "mglru" : "clockpro"
			k2 = key SUBSEP cfg
			if (c[k2]) {
				m = v[k2] / c[k2]; s = v2[k2] / c[k2] - m * m
				line = line sprintf(",%.4f,%.4f", m, s > 0 ? sqrt(s) : 0)
				n = c[k2]
			} else {
				line = line ",,"
			}
		}
		print line "," opt[f[2]] "," n
	}
}' "$OUT/opt.txt" "$RAW" | sort -t, -k1,1 -k2,2 >"$OUT/results.csv"

sed -i '1i kernel,workload,stock_mean,stock_sd,mglru_mean,mglru_sd,clockpro_mean,clockpro_sd,opt_sim,runs' "$OUT/results.csv"
printf '%-22s %-10s %15s %15s %15s %8s\n' kernel workload "stock classic" "stock MGLRU" clockpro "OPT*"
awk -F, 'NR > 1 { printf "%-22s %-10s %8.3f+-%5.3f %8.3f+-%5.3f %8.3f+-%5.3f %8s\n",
	$1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$OUT/results.csv"
echo "(hit ratios, mean +- sd over $REPS boots; OPT* simulated at 5000 pages, same shape)"
echo "results: $OUT/results.csv"
mv "$OUT/results.csv.rev.new" "$OUT/results.csv.rev"

if command -v gnuplot >/dev/null; then
	for k in "$@"; do
		grep "^$k," "$OUT/results.csv" | tr ',' ' ' >"$OUT/$k.dat"
		gnuplot <<EOF
set terminal pngcairo size 1000,480 noenhanced
set output "$OUT/$k.png"
set title "Hit ratio by workload, $k (mean of $REPS boots)"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set yrange [0:1.05]
set ylabel "hit ratio"
set key outside right top
set xtics rotate by -30
plot "$OUT/$k.dat" using 3:4:xtic(2) title "stock classic", \
     "" using 5:6 title "stock MGLRU", \
     "" using 7:8 title "clockpro", \
     "" using 9:(0) title "OPT (sim)"
EOF
		echo "plot: $OUT/$k.png"
	done
fi
