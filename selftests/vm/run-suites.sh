#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the VM selftests on a matrix of kernels, several guests at a time,
# and report one TAP line per suite.
#
#   run-suites.sh [--jobs N] [--build DIR] SPEC...
#
#   SPEC    KVER:LRU_GEN:TEST[,TEST...][:VMTEST_OPTION...]
#           e.g. 6.12.95+deb12-amd64:0:observe,enforce
#                6.1.0-57-amd64:default:swap:--swap=256
#           (vmtest.sh options are given as --opt=value)
#   --jobs  guests at once (default: number of CPUs, at most 2); each
#           guest is single-CPU TCG, so this is what the machine can take
#   --build the out-of-tree build directory with <kver>/clockpro.ko
#           (default .build)
#
# Guests take the lock .build/vm/qemu.lock.<slot>; with CP_VM_LOCK set in
# the environment, every guest takes that one (a machine shared with other
# runs: the guests then run one at a time).
#
# Every suite's full output is kept in .build/vm/suite-<n>.log; a suite
# that fails has its not-ok lines and the tail of its log printed.
set -u

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=$TOP/.build
JOBS=$(nproc 2>/dev/null || echo 1)
[ "$JOBS" -le 2 ] || JOBS=2

while [ $# -gt 0 ]; do
	case $1 in
	--jobs) JOBS=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

SHARED_LOCK=${CP_VM_LOCK:-}
mkdir -p "$BUILD/vm"
n=0
declare -a SPECS LOGS
for spec in "$@"; do
	n=$((n + 1))
	SPECS[n]=$spec
	LOGS[n]=$BUILD/vm/suite-$n.log
done

run_one() {	# index slot
	local spec=${SPECS[$1]} kver lru tests rest args=() o
	IFS=: read -r kver lru tests rest <<<"$spec"
	for o in ${rest//:/ }; do
		args+=("${o%%=*}" "${o#*=}")
	done
	CP_VM_LOCK=${SHARED_LOCK:-$BUILD/vm/qemu.lock.$2} \
		"$SELF_DIR/vmtest.sh" --kernel "$kver" --lru-gen "$lru" --timeout 3000 \
		--module "$BUILD/$kver/clockpro.ko" "${args[@]}" "$tests" \
		>"${LOGS[$1]}" 2>&1
}

echo "TAP version 13"
echo "1..$n"
T0=$(date +%s)
next=1
declare -A SLOT_PID SLOT_IDX
for ((s = 0; s < JOBS; s++)); do SLOT_PID[$s]=; done
fails=0
done_count=0
report() {	# index rc
	local i=$1 rc=$2 log=${LOGS[$1]}
	if [ "$rc" = 0 ]; then
		echo "ok $i - ${SPECS[$i]}"
	else
		fails=$((fails + 1))
		echo "not ok $i - ${SPECS[$i]} (exit $rc)"
		grep -E '^ *not ok|expected|vmtest:' "$log" | head -n 40 | sed 's/^/# /'
	fi
	grep -E '^ *# (Totals|.*hit ratio|workload|loop |two pools)' "$log" | head -n 60 | sed 's/^/# /'
}
while [ $done_count -lt $n ]; do
	for ((s = 0; s < JOBS; s++)); do
		pid=${SLOT_PID[$s]}
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			report "${SLOT_IDX[$s]}" $?
			SLOT_PID[$s]=
			done_count=$((done_count + 1))
		fi
		if [ -z "${SLOT_PID[$s]}" ] && [ $next -le $n ]; then
			run_one $next $s &
			SLOT_PID[$s]=$!
			SLOT_IDX[$s]=$next
			echo "# started ${SPECS[$next]} (log ${LOGS[$next]})"
			next=$((next + 1))
		fi
	done
	sleep 2
done
echo "# $((n - fails)) passed, $fails failed, in $(($(date +%s) - T0)) s"
[ $fails = 0 ]
