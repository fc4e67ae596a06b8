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
	PATH=$P "$TOOL" -D "$T/dfs" -c "$T/cg" >"$T/out.txt" 2>&1
	check "$a text: full bar on the largest row" grep -q -e '-> 2048 *: 300 *|\*\{40\}|' "$T/out.txt"
	check "$a text: counters" grep -q 'evictions 123456789012' "$T/out.txt"
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

echo "1..$n"
echo "# Totals: pass:$((n - fails)) fail:$fails xfail:0 xpass:0 skip:0 error:0"
[ $fails = 0 ]
