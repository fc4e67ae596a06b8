#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Working sets that move, and the cases a fix for them must not give back,
# in the simulator: one row per workload, the hit ratio of the measured
# part (as the enforce test measures it) under the stock model (kernel),
# the module's policy (kernel-clockpro), LRU and OPT, and kernel-clockpro
# minus kernel in points.
#
#   tools/sim/moving-bench.sh [--check]
#
# --check (make check-sim): fail unless kernel-clockpro is no more than 1
# point below the stock model on the moving rows in order and the phase
# case, 1.5 on the random ones (0.9 C: -1.23 since aaf5288; before 9f9b00c
# -3.22 and -5.22 at 0.8 and 0.9 C), and no worse than it on the loop,
# zigzag, two pools, Zipf and the hot set (the loop: at least 70 points
# better).
#
# Environment:
#   SIM        simulator binary (default: <repo>/tools/clockpro-sim)
#   C          cache size in pages (default 5000)
#   SEEDS      seeds of the random workloads, averaged (default "1 2 3")
#   PARAMS     extra simulator options, e.g. "--param age_pct=50"
#
# Workloads (C = cache pages; "measured" = what --warmup leaves counted):
#   mov-rNN  uniform random reads, 4 C over NN % of C, then 4 C over
#            another region of the same size; the last 2 C measured
#   mov-sNN  the same regions read in order, 5 passes each; likewise
#   phase    0.8 C read in order 4 times, then another 0.8 C 4 times; the
#            second region's 4 passes measured (the enforce test's phase)
#   loop     1.25 C, 8 passes; passes 3-8
#   zzNNN    zigzag over NNN % of C, 6 passes; passes 3-6
#   pools    half the reads over 0.5 C, half over 5 C, 8 C reads; last 2 C
#   zipf     Zipf 0.9 over 3 C, 8 C reads; the last 2 C
#   hotstr   a hot set of 0.5 C read during a stream of 4 C; after 1 C
#   X+mov    the loop, zigzag 1.25 C, Zipf or two pools as above, then
#            mov-r80 (seed 1): the moving set's last 2 C.  Reported, not
#            checked: a target left at 85 % or more by the first workload
#            locks the old set in (docs/results.md).
set -eu

SIM_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SIM_DIR/../.." && pwd)
SIM=${SIM:-$TOP/tools/clockpro-sim}
C=${C:-5000}
SEEDS=${SEEDS:-1 2 3}
PARAMS=${PARAMS:-}
POLICIES=kernel,kernel-clockpro,lru,opt

# one NAME WARMUP SPEC: the hit ratios of the four policies, one line
# (SPEC: a generator's, or @FILE for a trace file)
one() {
	t="gen:$3"
	case $3 in @*) t=${3#@} ;; esac
	# shellcheck disable=SC2086 # PARAMS: words
	"$SIM" -p "$POLICIES" -c "$C" --warmup "$2" --csv $PARAMS "$t" |
		awk -F, 'NR > 1 && NF > 5 { printf "%s ", $(NF - 2) } END { print "" }'
}

# after NAME SPEC: another workload (SPEC), then the moving set at 0.8 C
# (mov-r80, its pages apart): the moving set's last 2 C measured
after() {
	f=$(mktemp)
	"$SIM" --gen "$2" >"$f"
	w=$(wc -l <"$f")
	n=$(pct 80)
	"$SIM" --gen "phase:n=$n,refs=$((4 * C)),phases=2,seed=1,base=$((1000 * C))" >>"$f"
	one "$1" $((w + 6 * C)) "@$f"
	rm -f "$f"
}

# row NAME WARMUP SPEC: averaged over SEEDS when SPEC has a seed
row() {
	case $3 in
	*seed=*)
		for s in $SEEDS; do
			one "$1" "$2" "$(echo "$3" | sed "s/seed=[0-9]*/seed=$s/")"
		done
		;;
	*)
		one "$1" "$2" "$3"
		;;
	esac | avg "$1"
}

# avg NAME: lines of four hit ratios in, their mean as NAME's row out
avg() {
	awk -v n="$1" '
		{ for (i = 1; i <= 4; i++) s[i] += $i; k++ }
		END { printf "%-9s %8.4f %8.4f %8.4f %8.4f %+7.2f\n", n,
			s[1] / k, s[2] / k, s[3] / k, s[4] / k,
			100 * (s[2] - s[1]) / k }'
}

pct() {
	echo $(($1 * C / 100))
}

CHECK=0
case ${1:-} in
--check) CHECK=1 ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# the rows, then (--check) each row's least diff in points
table() {
for p in 50 80 90; do
	n=$(pct "$p")
	row "mov-r$p" $((6 * C)) "phase:n=$n,refs=$((4 * C)),phases=2,seed=1"
	row "mov-s$p" $((15 * n / 2)) "seqphase:n=$n,passes=5,phases=2"
done
n=$(pct 80)
row phase $((4 * n)) "seqphase:n=$n,passes=4,phases=2"
n=$(pct 125)
row loop $((2 * n)) "loop:n=$n,passes=8"
for p in 125 150 200; do
	n=$(pct "$p")
	row "zz$p" $((2 * n)) "zigzag:n=$n,passes=6"
done
row pools $((6 * C)) "twopools:a=$(pct 50),b=$((5 * C)),refs=$((8 * C)),p=0.5,seed=1"
row zipf $((6 * C)) "zipf:n=$((3 * C)),refs=$((8 * C)),alpha=0.9,seed=1"
row hotstr "$C" "hotstream:hot=$(pct 50),refs=$((8 * C)),p=0.5,seed=1"
n=$(pct 125)
after loop+mov "loop:n=$n,passes=8" | avg loop+mov
after zz+mov "zigzag:n=$n,passes=6" | avg zz+mov
after zipf+mov "zipf:n=$((3 * C)),refs=$((8 * C)),alpha=0.9,seed=1" | avg zipf+mov
after pools+mov "twopools:a=$(pct 50),b=$((5 * C)),refs=$((8 * C)),p=0.5,seed=1" |
	avg pools+mov
}

printf '%-9s %8s %8s %8s %8s %7s\n' workload kernel kclockpro lru opt diff
if [ "$CHECK" = 0 ]; then
	table
	exit 0
fi
table | awk '
	{ print }
	$1 ~ /\+mov$/ { next }	# a known limit: reported, not asserted
	$1 ~ /^(mov-s|phase)/ { min = -1 }
	$1 ~ /^mov-r/ { min = -1.5 }
	$1 == "loop" { min = 70 }
	$1 ~ /^(zz|pools|zipf|hotstr)/ { min = 0 }
	$6 + 0 < min { printf "moving-bench: FAIL %s: %+.2f points < %+.1f\n", $1, $6, min; bad++ }
	END { if (bad) exit 1; print "moving-bench: PASS" }'
