#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The table cost benchmark: throughput from bench_nonres, instructions per
# operation from callgrind (repeatable, unlike the clock).
#
#   bench.sh BENCH_BINARY
#
# SIZES (1M,16M,256M), OPS (2M per measurement), REPEAT (3, best kept),
# THREADS (2) and CG_OPS (200k operations per callgrind run) may be set in
# the environment.
set -eu
bin=$1
sizes=${SIZES:-1M,16M,256M}
cg_ops=${CG_OPS:-200000}
out=$(dirname "$bin")/callgrind
rm -rf "$out"
mkdir -p "$out"

echo "== throughput ($(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1); load average $(cut -d' ' -f1 /proc/loadavg) before the run)"
"$bin" -s "$sizes" -n "${OPS:-2M}" -r "${REPEAT:-3}" -t "${THREADS:-2}"

echo
echo "== instructions per operation (callgrind, $cg_ops operations each)"
printf '%-8s %10s %10s %12s %12s\n' entries hash remember lookup-hit lookup-miss
for s in $(echo "$sizes" | tr , ' '); do
	if ! command -v valgrind >/dev/null; then
		echo "valgrind not installed"
		break
	fi
	valgrind -q --tool=callgrind --collect-atstart=no \
		--callgrind-out-file="$out/cg.$s" \
		"$bin" -c "$s" -n "$cg_ops" >/dev/null 2>"$out/log.$s" || {
		echo "$s: callgrind failed, see $out/log.$s"
		continue
	}
	line=$s
	for what in hash remember lookup-hit lookup-miss; do
		f=$(grep -l "Client Request: $what\$" "$out"/cg.$s* | head -n 1)
		ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
		line="$line $(awk -v ir="$ir" -v n="$cg_ops" 'BEGIN { printf "%.1f", ir / n }')"
	done
	echo "$line" | awk '{ printf "%-8s %10s %10s %12s %12s\n", $1, $2, $3, $4, $5 }'
done
echo "# each operation includes cp_key_hash() (the hash column) and, for"
echo "# remember, cp_table_clock_advance(); lookups consume their entry"
