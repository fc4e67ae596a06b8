#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One file for every figure `make bench` measured: results.json, made from
# the CSV files of a bench directory (results.csv: hit ratios of bench.sh;
# programs.csv: MiB read by real programs, bench-programs.sh; cost.csv:
# instructions per operation, bench-cost.sh; safety.csv: NUMA, memcgs, OOM
# and PSI, bench-safety.sh).  Each part carries the
# commit its modules were built from (FILE.rev) and the file's date; a
# part whose CSV is missing is null.  Numbers stay numbers, empty cells
# and "n/a" are null.  Also draws cost.png (observe and enforce, % over
# stock per path and kernel) when gnuplot is there.
#
#   bench-json.sh [BENCH_DIR]      (default .build/bench)
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${1:-$TOP/.build/bench}
[ -d "$BENCH" ] || { echo "bench-json: no directory $BENCH" >&2; exit 2; }
OUT=$BENCH/results.json

# part NAME FILE: "NAME": {commit, date, rows: [...]} or null
part() {
	printf '  "%s": ' "$1"
	if [ ! -s "$2" ]; then
		printf 'null'
		return
	fi
	rev=null
	[ -s "$2.rev" ] && rev="\"$(tr -cd '0-9a-f' <"$2.rev")\""
	printf '{\n    "source": "%s",\n    "commit": %s,\n    "date": "%s",\n    "rows": [\n' \
		"$(basename "$2")" "$rev" "$(date -u -r "$2" '+%Y-%m-%dT%H:%M:%SZ')"
	awk -F, '
	function val(x) {
		if (x == "" || x == "n/a")
			return "null"
		if (x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/)
			return x + 0 == int(x + 0) && x !~ /\./ ? x : sprintf("%.6g", x)
		gsub(/\\/, "\\\\", x)
		gsub(/"/, "\\\"", x)
		return "\"" x "\""
	}
	NR == 1 { n = NF; for (i = 1; i <= NF; i++) h[i] = $i; next }
	NF != n { printf("bench-json: %s line %d: %d fields, header has %d\n", FILENAME, NR, NF, n) > "/dev/stderr"; bad = 1; exit }
	{
		printf "%s      {", (rows++ ? ",\n" : "")
		for (i = 1; i <= n; i++)
			printf "%s\"%s\": %s", (i > 1 ? ", " : ""), h[i], val($i)
		printf "}"
	}
	END { if (bad) exit 1; if (rows) printf "\n" }' "$2"
	printf '    ]\n  }'
}

tmp=$OUT.tmp
trap 'rm -f "$tmp"' EXIT
{
	printf '{\n  "generator": "scripts/bench-json.sh",\n'
	part enforce "$BENCH/results.csv"
	printf ',\n'
	part programs "$BENCH/programs.csv"
	printf ',\n'
	part cost "$BENCH/cost.csv"
	printf ',\n'
	part safety "$BENCH/safety.csv"
	printf '\n}\n'
} >"$tmp"
mv "$tmp" "$OUT"
echo "bench-json: $OUT"

# cost.png: % over stock, observe and enforce, per path and kernel
if [ -s "$BENCH/cost.csv" ] && command -v gnuplot >/dev/null; then
	dat=$BENCH/cost.dat
	awk -F, 'NR > 1 && ($3 == "cached" || $3 == "stream" || $3 == "refault") {
		k = $1; sub(/-amd64/, "", k); sub(/\+deb[0-9]+/, "", k)
		key = $3 " " k " " $2
		if (!(key in seen)) { seen[key] = 1; keys[n++] = key }
		p[key, $4] = $6 }
	END { for (i = 0; i < n; i++) {
		k = keys[i]; gsub(/ /, "_", k)
		o = ((keys[i], "observe") in p) ? p[keys[i], "observe"] : "NaN"
		e = ((keys[i], "enforce") in p) ? p[keys[i], "enforce"] : "NaN"
		printf "%s %s %s\n", k, o, e } }' \
		"$BENCH/cost.csv" >"$dat"
	gnuplot <<EOF
set terminal pngcairo size 1000,480 noenhanced
set output "$BENCH/cost.png"
set title "CPU cost over the stock kernel, instructions per operation (qemu -icount)"
set ylabel "% over stock"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -30
set grid ytics
set key top left
plot "$dat" using 2:xtic(1) title "observe", "" using 3 title "enforce"
EOF
	rm -f "$dat"
	echo "bench-json: $BENCH/cost.png"
fi
