#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# clockprostat: tools/clockprostat against the debugfs files it reads.
#
#  - its errors: module not loaded, debugfs not mounted, no such cgroup,
#    a bad interval (exit 1, 1, 1, 2, each with its message);
#  - enforcing, after a loop read in a memcg of a third of the page cache:
#    on an idle guest (the stats, refaults and lruvecs files the same just
#    before and just after the tool ran; up to three tries), every number
#    of `clockprostat -j -c CG` equals the files': each numeric stats line
#    (under counters or state), each histogram row (lo, hi or null for
#    "max", count), New, Beyond, and every column of the memcg's lruvecs
#    rows (at least one); the text table's rows and counters too, and its
#    largest row has the full 40-character bar;
#  - `-j 1 3` while a loop runs: three lines, each valid JSON, interval 1,
#    and the evictions of the three deltas sum to more than 0 and at most
#    the counter's change over the whole run.
#
# JSON is checked in the guest by /lib/cp/json.awk (busybox has no JSON
# parser): a strict RFC 8259 checker that also flattens the object to
# "path value" lines; it is itself made to reject broken JSON here.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
command -v clockprostat >/dev/null || tap_skip_all "no clockprostat in the initramfs"
JSON=/lib/cp/json.awk

# expect_err DESC STATUS PATTERN CMD...: CMD exits STATUS, stderr matches
expect_err() {
	_d=$1 _st=$2 _pat=$3
	shift 3
	_rc=0
	"$@" >/tmp/cps.out 2>/tmp/cps.err || _rc=$?
	if [ "$_rc" = "$_st" ] && grep -q "$_pat" /tmp/cps.err; then
		tap_ok "$_d (exit $_rc: $(head -n 1 /tmp/cps.err))"
	else
		tap_fail "$_d" "exit $_rc, expected $_st and /$_pat/" "$(cat /tmp/cps.err)"
	fi
}

cp_module_loaded && cp_module_unload
expect_err "module not loaded" 1 "not loaded" clockprostat

# The checker must be able to fail.
bad=0
for j in '{"a":1,}' '{a:1}' '[1,2' '{"a":01}' '{"a":1}}' '"x\q"' ''; do
	if printf '%s\n' "$j" | awk -f $JSON >/dev/null 2>&1; then
		bad=$((bad + 1))
		tap_diag "json.awk accepted: $j"
	fi
done
tap_cmp "json.awk rejects 7 broken inputs ($bad accepted)" "$bad" "==" 0
tap_check "json.awk accepts a valid one" sh -c \
	"echo '{\"a\":[1,-2.5e3,true,null,{}],\"b\":\"\\\\u00e9\"}' | awk -f $JSON"

ENFORCE_ARGS=
[ "$(cp_lru_gen)" != 1 ] || ENFORCE_ARGS=classic_lru=1
cp_drop_caches
# shellcheck disable=SC2086 # no arguments or one
cp_config_begin clockpro $ENFORCE_ARGS

expect_err "no such cgroup" 1 "no cgroup directory" clockprostat -c nosuchgroup
expect_err "bad interval" 2 "invalid interval" clockprostat 0
if umount /sys/kernel/debug 2>/dev/null; then
	expect_err "debugfs not mounted" 1 "debugfs is not mounted" clockprostat
	mount -t debugfs debugfs /sys/kernel/debug
else
	tap_skip "debugfs not mounted" "cannot unmount it"
fi

PG=4096
C=$(cp_cache_size)
MAX=$(fint "$C / 3 / $PG * $PG")
F=$(fint "$MAX * 5 / 4 / $PG * $PG")
CG=cpstat
cp_cgroup_new $CG "$MAX"
cp_cgroup_exec $CG cpwork loop "$CP_DATA" "$F" 3 --no-readahead >/tmp/cps.loop
tap_diag "loop of $((F / PG)) pages in a memcg of $((MAX / PG)): $(grep -m 1 hit_ratio_steady /tmp/cps.loop || :)"

# Each file is kept as it was read after the tool ran: the comparisons
# below read these copies, never the live files, which background page
# cache activity may change at any moment.
snapall() {
	cat "$CP_DFS/stats" >"$1.stats"
	cat "$CP_DFS/refaults" >"$1.refaults"
	cat "$CP_DFS/lruvecs" >"$1.lruvecs"
	cat "$1.stats" "$1.refaults" "$1.lruvecs" >"$1"
}
same=0
for try in 1 2 3; do
	snapall /tmp/cps.a
	clockprostat -j -c $CG >/tmp/cps.json
	clockprostat -c $CG >/tmp/cps.txt
	snapall /tmp/cps.b
	if cmp -s /tmp/cps.a /tmp/cps.b; then
		same=1
		break
	fi
	tap_diag "try $try: the files changed while the tool ran"
	sleep 2
done
if [ $same = 0 ]; then
	tap_fail "an idle moment to compare in" "the files changed in three tries"
	tap_done
fi
tap_ok "the files unchanged while the tool ran (try $try)"

if awk -f $JSON /tmp/cps.json >/tmp/cps.flat 2>/tmp/cps.err; then
	tap_ok "-j output is valid JSON ($(wc -l </tmp/cps.json) line)"
else
	tap_fail "-j output is valid JSON" "$(cat /tmp/cps.err)" "$(head -c 400 /tmp/cps.json)"
fi
tap_cmp "-j output is one line" "$(wc -l </tmp/cps.json)" "==" 1

ino=$(stat -c %i /sys/fs/cgroup/$CG)
# Every number of the files against the flattened JSON; prints
# "checked N mismatches M rows R first-mismatch".
awk -v ino="$ino" '
	FILENAME ~ /flat$/ { v[$1] = $2; next }
	FILENAME ~ /stats$/ {
		if (NF != 2 || $2 !~ /^[0-9-]+$/) next
		c++
		if (!has("1.counters." $1, $2) && !has("1.state." $1, $2))
			miss(sprintf("%s %s vs %s/%s", $1, $2, v["1.counters." $1], v["1.state." $1]))
		next
	}
	FILENAME ~ /refaults$/ {
		if ($2 == "-") {
			k = "1.hist." (r + 0) "."
			r++
			c += 3
			hi = $3 == "max" ? "null" : $3
			if (!has(k "lo", $1) || !has(k "hi", hi) || !has(k "count", $4))
				miss(sprintf("row %d %s %s %s vs %s %s %s", r - 1, $1, hi, $4, v[k "lo"], v[k "hi"], v[k "count"]))
		} else if ($1 == "New" || $1 == "Beyond") {
			c++
			if (!has("1." tolower($1), $2))
				miss($1 " " $2 " vs " v["1." tolower($1)])
		}
		next
	}
	FILENAME ~ /lruvecs$/ {
		if (FNR == 1) { for (i = 1; i <= NF; i++) col[i] = $i; next }
		for (i = 1; i <= NF; i++) if (col[i] == "cgroup_ino" && $i == ino) break
		if (i > NF) next
		k = "1.cgroup.lruvecs." (l + 0) "."
		l++
		for (i = 1; i <= NF; i++) {
			c++
			if (!has(k col[i], $i))
				miss(sprintf("lruvec %d %s %s vs %s", l - 1, col[i], $i, v[k col[i]]))
		}
	}
	function miss(s) { m++; if (!first) first = s }
	# the flattened key is there and holds the same string
	function has(key, want) { return (key in v) && v[key] "" == want "" }
	END {
		if (("1.hist." (r + 0) ".count") in v || ("1.cgroup.lruvecs." (l + 0) ".memcg") in v) { m++; first = first " extra rows" }
		printf "checked %d mismatches %d rows %d lruvecs %d %s\n", c, m, r, l, first
	}' /tmp/cps.flat /tmp/cps.b.stats /tmp/cps.b.refaults /tmp/cps.b.lruvecs >/tmp/cps.cmp
read -r _ checked _ mism _ rows _ nlru first </tmp/cps.cmp || :
tap_diag "$(cat /tmp/cps.cmp)"
tap_cmp "-j: all $checked numbers equal the files' ($mism differ${first:+: $first})" "$mism" "==" 0
tap_cmp "-j: the histogram has its $rows rows" "$rows" ">" 0
tap_cmp "-j -c: the memcg's lruvecs rows are there ($nlru)" "$nlru" ">=" 1
tap_cmp "-j: refaults counted ($(awk '$1 == "1.counters.refaults" { print $2 }' /tmp/cps.flat))" \
	"$(awk '$1 == "1.counters.refaults" { print $2 }' /tmp/cps.flat)" ">" 0

# The text table: rows, counters and bars.
sed 's/^/#   /' /tmp/cps.txt
awk '
	FILENAME ~ /txt$/ {
		# the global histogram ends at New (the cgroup one follows)
		if ($1 == "New")
			global_done = 1
		if ($2 == "->" && !global_done) {
			t++
			cnt[t] = $5
			bar = $0
			sub(/^[^|]*\|/, "", bar)
			sub(/\|$/, "", bar)
			gsub(/ /, "", bar)
			if (length(bar) == 40) full++
			lo[t] = $1
		} else {
			for (i = 1; i < NF; i++) if ($(i + 1) ~ /^[0-9]+$/) tv[$i] = $(i + 1)
		}
		next
	}
	FILENAME ~ /stats$/ { if (NF == 2) sv[$1] = $2; next }
	$2 == "-" { r++; if (lo[r] != $1 || cnt[r] != $4) m++; if ($4 + 0 > 0) any = 1 }
	END {
		for (k in tv) if (k in sv) { c++; if (tv[k] != sv[k]) m++ }
		if (t != r) m++
		print m + 0, c + 0, (any ? (full >= 1) : 1)
	}' /tmp/cps.txt /tmp/cps.b.stats /tmp/cps.b.refaults >/tmp/cps.tcmp
read -r tm tc tbar </tmp/cps.tcmp
tap_cmp "text: histogram rows and $tc counters equal the files' ($tm differ)" "$tm" "==" 0
tap_cmp "text: key counters shown ($tc)" "$tc" ">=" 10
tap_cmp "text: the largest row has the full bar" "$tbar" "==" 1

# Interval mode while a loop runs.
ev0=$(cp_stat evictions)
cp_cgroup_exec $CG cpwork loop "$CP_DATA" "$F" 2 --no-readahead >/dev/null &
load=$!
clockprostat -j -c $CG 1 3 >/tmp/cps.int
wait $load || :
ev1=$(cp_stat evictions)
if awk -f $JSON /tmp/cps.int >/tmp/cps.iflat 2>/tmp/cps.err; then
	tap_ok "-j 1 3: every line is valid JSON"
else
	tap_fail "-j 1 3: every line is valid JSON" "$(cat /tmp/cps.err)"
fi
tap_cmp "-j 1 3: three lines" "$(wc -l </tmp/cps.int)" "==" 3
tap_cmp "-j 1 3: interval 1 in each" \
	"$(awk '$1 ~ /^[0-9]+\.interval$/ && $2 == 1' /tmp/cps.iflat | wc -l)" "==" 3
sum=$(awk '$1 ~ /^[0-9]+\.counters\.evictions$/ { s += $2 } END { printf "%.0f\n", s }' /tmp/cps.iflat)
tap_cmp "-j 1 3: evictions of the intervals $sum, > 0" "$sum" ">" 0
tap_cmp "-j 1 3: evictions of the intervals $sum, <= the change over the run $((ev1 - ev0))" \
	"$sum" "<=" "$((ev1 - ev0))"
rows_ok=$(awk '$2 == "->"' /tmp/cps.txt | wc -l)
tap_check "text interval mode runs (1 2)" sh -c \
	"clockprostat 1 2 >/tmp/cps.t2 2>/dev/null && [ \$(grep -c 'distance (pages)' /tmp/cps.t2) = 2 ] && [ $rows_ok -gt 0 ]"

cp_cgroup_rm $CG
cp_module_unload
tap_dmesg_clean
tap_done
