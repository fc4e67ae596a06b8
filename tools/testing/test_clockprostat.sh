#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of tools/clockprostat (on made-up debugfs files, -D) and
# of the guest's JSON checker selftests/vm/guest/json.awk, under every awk
# found (the system's and busybox's): the checker must agree with
# python3's json module on valid and broken inputs, and clockprostat's -j
# output must parse with both and carry the files' numbers.  The VM test
# selftests/vm/tests/clockprostat.sh checks it against the live module.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=$TOP/tools/clockprostat
JSON=$TOP/selftests/vm/guest/json.awk
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { d=$1; shift; if "$@" >/dev/null 2>&1; then ok "$d"; else no "$d"; fi; }

mkdir -p "$T/dfs" "$T/cg/bin"
cat >"$T/dfs/stats" <<'EOF'
mode enforce
lru_gen_held_off 0x0000
evictions 123456789012
insertions 2000
refaults 500
new 1500
beyond 7
promoted 100
kept_cold 400
cold_hits 7
demoted_hits 3
hand_rotated 20
hand_demoted 30
idle_inserted_hot 0
table_entries 900
lruvecs 1
active_target -5
active_pages 3900
inactive_pages 1000
hooks a,b
hooks_disarmed
EOF
cat >"$T/dfs/refaults" <<'EOF'
     Refault distance          Hits
        0 -      1024             12
     1024 -      2048            300
     2048 -       max            188
      New                     1500
   Beyond                        7
EOF
touch "$T/cg/cgroup.procs"
# shellcheck disable=SC2012 # as the tool does: POSIX
INO=$(ls -di "$T/cg" | awk '{ print $1 }')
{
	echo "memcg node    active  inactive    target cgroup_ino evictions"
	echo "    5    0      3900      1000      4000 $INO 77"
	echo "    6    0         1         2         3 1 5"
} >"$T/dfs/lruvecs"
{
	echo "memcg_hist 1"
	echo "clock lruvec"
	echo "width 1024"
	echo "rows 4"
	echo "memcg cgroup_ino nodes evictions refaults new beyond hist"
	echo "6 1 1 5 9 9 9 1 2 3 3"
	echo "5 $INO 2 7000 410 40 2 10 100 200 100"
} >"$T/dfs/memcgs"
# table_max_age 8192 > 4 rows of 1024: the cgroup's last row is open
echo "table_max_age 8192" >>"$T/dfs/stats"

AWKS="awk"
if command -v busybox >/dev/null && busybox awk 'BEGIN {}' 2>/dev/null; then
	ln -s "$(command -v busybox)" "$T/cg/bin/awk"
	AWKS="awk busybox"
fi
HAVE_PY=0
command -v python3 >/dev/null && HAVE_PY=1

for a in $AWKS; do
	if [ "$a" = busybox ]; then P=$T/cg/bin:$PATH; else P=$PATH; fi
	for j in '{}' '[]' '{"a":1,}' '{a:1}' '[1,2' '{"a":01}' '"x\q"' \
		 '{"a":"\u00e9"}' '[1 2]' 'nul' '{"a":-1.5e3,"b":[true,false,null]}' \
		 ' {"a" : [ ] } ' '{"a":1}}' '-' '1.' '"abc' '{"a":[{"b":{}}],"c":"d\"e"}'; do
		mine=0
		printf '%s\n' "$j" | PATH=$P awk -f "$JSON" >/dev/null 2>&1 && mine=1
		if [ $HAVE_PY = 1 ]; then
			py=0
			printf '%s\n' "$j" | python3 -c 'import json, sys; json.loads(sys.stdin.read())' 2>/dev/null && py=1
			if [ $mine = $py ]; then ok "$a json.awk agrees with python3 on $j ($mine)"
			else no "$a json.awk agrees with python3 on $j (awk $mine python $py)"; fi
		fi
	done

	PATH=$P "$TOOL" -D "$T/dfs" -j -c "$T/cg" >"$T/out.json" 2>"$T/err"
	check "$a clockprostat -j exits 0" test -s "$T/out.json"
	PATH=$P awk -f "$JSON" "$T/out.json" >"$T/flat" 2>/dev/null
	check "$a -j output passes json.awk" test -s "$T/flat"
	[ $HAVE_PY = 0 ] || check "$a -j output parses with python3" \
		python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out.json"
	for kv in "1.counters.evictions 123456789012" "1.counters.beyond 7" \
		  "1.state.active_target -5" "1.hist.2.hi null" "1.hist.1.count 300" \
		  "1.new 1500" "1.beyond 7" "1.cgroup.lruvecs.0.memcg 5" \
		  "1.cgroup.lruvecs.0.evictions 77" "1.mode enforce"; do
		check "$a -j: $kv" grep -qx -- "$kv" "$T/flat"
	done
	check "$a -j -c: only the cgroup's row" sh -c "! grep -q '^1.cgroup.lruvecs.1' '$T/flat'"
	# the global curve: rows 0-1024 (12) and 1024-2048 (300) closed
	for kv in "1.curve.0.pages 1024" "1.curve.0.hits 12" "1.curve.1.mib 8.00" \
		  "1.curve.1.hits 312" "1.cgroup.memcg 5" "1.cgroup.nodes 2" \
		  "1.cgroup.refaults 410" "1.cgroup.new 40" "1.cgroup.beyond 2" \
		  "1.cgroup.hist.2.count 200" "1.cgroup.hist.3.hi null" \
		  "1.cgroup.curve.2.hits 310" "1.cgroup.curve.2.pages 3072" \
		  "1.cgroup.memcg_hist 1"; do
		check "$a -j: $kv" grep -qx -- "$kv" "$T/flat"
	done
	check "$a -j: the curve ends at the last closed row" sh -c "! grep -q '^1.cgroup.curve.3' '$T/flat'"
	# -m 6: 1536 pages, half of the 1024-2048 rows
	PATH=$P "$TOOL" -D "$T/dfs" -j -m 6 -c "$T/cg" | PATH=$P awk -f "$JSON" >"$T/flat6" 2>/dev/null
	for kv in "1.predict.pages 1536" "1.predict.hits 162" "1.cgroup.predict.hits 60"; do
		check "$a -j -m 6: $kv" grep -qx -- "$kv" "$T/flat6"
	done
	PATH=$P "$TOOL" -D "$T/dfs" -c "$T/cg" >"$T/out.txt" 2>&1
	check "$a text: full bar on the largest row" grep -q -e '-> 2048 *: 300 *|\*\{40\}|' "$T/out.txt"
	check "$a text: counters" grep -q 'evictions 123456789012' "$T/out.txt"
	check "$a text: the cgroup's histogram, full bar on its largest row" \
		grep -q -e '2048 -> 3072 *: 200 *|\*\{40\}|' "$T/out.txt"
	check "$a text: the cgroup's curve" grep -Eq '^ +12\.00 +3072 +310 +68\.6$' "$T/out.txt"
	rm -rf "$T/plot"
	PATH=$P "$TOOL" -D "$T/dfs" -c "$T/cg" --plot-data "$T/plot" >/dev/null 2>&1
	check "$a --plot-data: the cgroup's histogram" grep -qx '8.00 12.00 200' "$T/plot/hist.dat"
	check "$a --plot-data: the open row drawn one row wide" grep -qx '12.00 16.00 100' "$T/plot/hist.dat"
	check "$a --plot-data: the curve" grep -qx '12.00 310' "$T/plot/curve.dat"
	check "$a --plot-data: the script" grep -q "^plot '$T/plot/curve.dat'" "$T/plot/plot.gp"
	PATH=$P "$TOOL" -D "$T/dfs" -j 1 2 >"$T/int.json" 2>/dev/null
	check "$a -j 1 2: two lines of zero deltas" sh -c \
		"[ \$(grep -c '\"evictions\":0,' '$T/int.json') = 2 ]"
	rc=0
	PATH=$P "$TOOL" -D "$T/none" >/dev/null 2>&1 || rc=$?
	check "$a a missing directory: exit 1" test "$rc" = 1
	rc=0
	PATH=$P "$TOOL" -D "$T/dfs" x >/dev/null 2>&1 || rc=$?
	check "$a a bad interval: exit 2" test "$rc" = 2
done

# The plot itself, where gnuplot is installed (it is not in the guest).
if command -v gnuplot >/dev/null; then
	rm -f "$T/out.png"
	"$TOOL" -D "$T/dfs" -c "$T/cg" --plot "$T/out.png" >/dev/null 2>"$T/err"
	check "--plot writes a PNG with gnuplot" sh -c "head -c 8 '$T/out.png' | od -An -c | grep -q 'P   N   G'"
	rm -f "$T/out.png"
	(cd "$T" && "$TOOL" -D "$T/dfs" --plot out.png >/dev/null 2>&1)
	check "--plot: a relative FILE, the global histogram" test -s "$T/out.png"
else
	n=$((n + 1))
	echo "ok $n - --plot # SKIP no gnuplot on this host"
fi
rc=0
"$TOOL" -D "$T/dfs" --plot "$T/x.png" 1 >/dev/null 2>&1 || rc=$?
check "--plot with an interval: exit 2" test "$rc" = 2
rc=0
"$TOOL" -D "$T/dfs" -m x >/dev/null 2>&1 || rc=$?
check "-m x: exit 2" test "$rc" = 2

echo "1..$n"
echo "# Totals: pass:$((n - fails)) fail:$fails xfail:0 xpass:0 skip:0 error:0"
[ $fails = 0 ]
