#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run test suites and report them as one TAP 13 stream, kselftest style:
# each suite is one top-level test, its own output indented as "# " lines.
#
#   run-tap.sh NAME 'COMMAND' [NAME 'COMMAND']...
#
# The counts of the suites' own "# Totals:" lines are added up; a suite
# without one counts as one test.  The last line is the plain summary
# ("check: N passed, N failed, N skipped"; skipped includes known bugs,
# TODO in TAP).  Exit status: 1 if any suite failed.
set -u

[ $(($# % 2)) -eq 0 ] && [ $# -gt 0 ] || {
	echo "usage: $0 NAME 'COMMAND' [NAME 'COMMAND']..." >&2
	exit 2
}

n=$(($# / 2))
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "TAP version 13"
echo "1..$n"
i=0 suites_failed=0
pass=0 fail=0 xfail=0 xpass=0 skip=0
start_all=$(date +%s)
while [ $# -gt 0 ]; do
	name=$1 cmd=$2
	shift 2
	i=$((i + 1))
	echo "# $name: $cmd"
	start=$(date +%s)
	sh -c "$cmd" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	sed 's/^/# /' "$log"
	totals=$(grep '^# Totals: pass:' "$log" | tail -n 1)
	if [ -n "$totals" ]; then
		for kv in $(echo "$totals" | sed 's/^# Totals: //'); do
			k=${kv%%:*} v=${kv#*:}
			case $k in
			pass) pass=$((pass + v)) ;;
			fail) fail=$((fail + v)) ;;
			xfail) xfail=$((xfail + v)) ;;
			xpass) xpass=$((xpass + v)) ;;
			skip) skip=$((skip + v)) ;;
			esac
		done
	fi
	if [ $rc -ne 0 ]; then
		echo "not ok $i $name # exit $rc, ${secs}s"
		suites_failed=$((suites_failed + 1))
		# A suite that died before its totals still counts as failed.
		if [ -z "$totals" ] || ! echo "$totals" | grep -q 'fail:[1-9]'; then
			fail=$((fail + 1))
		fi
	elif grep -q '^ok 1 .*# SKIP' "$log" && [ -z "$totals" ]; then
		echo "ok $i $name # SKIP $(sed -n 's/^ok 1 .*# SKIP //p' "$log" | head -n 1)"
		skip=$((skip + 1))
	else
		echo "ok $i $name # ${secs}s"
		[ -n "$totals" ] || pass=$((pass + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:$xfail xpass:$xpass skip:$skip error:0"
echo "# $n suites in $(($(date +%s) - start_all))s; $xfail known bugs (TODO), $xpass fixed (TODO passing: drop the mark)"
echo "check: $((pass + xpass)) passed, $fail failed, $((skip + xfail)) skipped"
[ $suites_failed -eq 0 ]
