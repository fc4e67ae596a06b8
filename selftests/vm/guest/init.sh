#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the clockpro test initramfs (busybox only).
#
# Mounts the pseudo filesystems, loads the block/filesystem modules listed in
# /lib/modules/cp-boot.list, mounts the data disk /dev/vda (ext4) at /mnt,
# applies the kernel command line settings below, runs the requested tests
# and powers off.
#
# Kernel command line parameters read here:
#   cptests=a,b,...   tests to run: /tests/a.sh, /tests/b.sh, ...
#                     ("shell" or nothing: start a shell on the console)
#   cptap=DEV         write the TAP stream to DEV as well (vmtest.sh passes
#                     /dev/ttyS1, a serial port that only carries TAP)
#   cp_lru_gen=0|1    write n|y to /sys/kernel/mm/lru_gen/enabled first
#   cp_swap=DEV       mkswap + swapon DEV
#   cp_test_timeout=S kill a test after S seconds (busybox timeout)
#
# Output: a TAP 13 stream.  Line 1 of the plan is the setup, then one line
# per test (each test's own TAP lines are nested, indented by 4 spaces; any
# non-TAP output of a test becomes a "# " comment), then a "dmesg clean"
# check, a "# Totals:" line and "# cptest: done" (vmtest.sh treats a missing
# "done" as a failure).  A test script exiting 4 is reported as SKIP.
export PATH=/bin
umask 022

mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
hostname cptest

param() {
	# param NAME [DEFAULT]: value of NAME=... on the kernel command line
	v=$2
	read -r cmdline </proc/cmdline
	for w in $cmdline; do
		case $w in "$1="*) v=${w#*=} ;; esac
	done
	echo "$v"
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

TAPDEV=$(param cptap "")
if [ -n "$TAPDEV" ] && [ -c "$TAPDEV" ]; then
	stty -F "$TAPDEV" raw -echo 2>/dev/null
	exec 3>"$TAPDEV"
else
	TAPDEV=
	exec 3>/dev/null
fi

# out LINE: one TAP line to the console and to the TAP port
out() {
	echo "$1"
	[ -z "$TAPDEV" ] || echo "$1" >&3
}

INIT_UPTIME=$(uptime_s)
TESTS=$(param cptests "" | tr ',' ' ')
# shellcheck disable=SC2086 # split the list
set -- $TESTS
NTESTS=$#

out "TAP version 13"
out "1..$((NTESTS + 2))"
out "# cptest: kernel $(uname -r), init started at uptime ${INIT_UPTIME}s"
out "# cmdline: $(cat /proc/cmdline)"

PASS=0
FAIL=0
SKIP=0
N=0

result() {
	# result ok|fail|skip NAME [REASON]
	N=$((N + 1))
	case $1 in
	ok) PASS=$((PASS + 1)); out "ok $N - $2" ;;
	skip) SKIP=$((SKIP + 1)); out "ok $N - $2 # SKIP${3:+ $3}" ;;
	*) FAIL=$((FAIL + 1)); out "not ok $N - $2${3:+ # $3}" ;;
	esac
}

# --- setup ------------------------------------------------------------------

SETUP_ERR=
setup_fail() {
	out "# setup: $*"
	SETUP_ERR="${SETUP_ERR:+$SETUP_ERR; }$*"
}

if [ -f /lib/modules/cp-boot.list ]; then
	while read -r ko; do
		name=$(basename "$ko" .ko | tr - _)
		grep -q "^$name " /proc/modules && continue
		msg=$(insmod "$ko" 2>&1) || setup_fail "insmod $ko: $msg"
	done </lib/modules/cp-boot.list
fi

i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -b /dev/vda ]; then
	msg=$(mount -t ext4 -o rw,noatime /dev/vda /mnt 2>&1) || setup_fail "mount /dev/vda: $msg"
else
	setup_fail "no /dev/vda (is the data disk attached?)"
fi

LRU_GEN=$(param cp_lru_gen default)
LG=/sys/kernel/mm/lru_gen/enabled
case $LRU_GEN in
0|n|N) if [ -w $LG ]; then echo n >$LG; else setup_fail "cannot write $LG"; fi ;;
1|y|Y) if [ -w $LG ]; then echo y >$LG; else setup_fail "cannot write $LG"; fi ;;
default|"") ;;
*) setup_fail "bad cp_lru_gen=$LRU_GEN" ;;
esac

SWAPDEV=$(param cp_swap "")
if [ -n "$SWAPDEV" ]; then
	{ mkswap "$SWAPDEV" >/dev/null && swapon "$SWAPDEV"; } 2>/dev/null ||
		setup_fail "swap on $SWAPDEV failed"
fi

if [ -f /sys/fs/cgroup/cgroup.subtree_control ]; then
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
		setup_fail "cannot enable the memory controller"
fi

out "# cptest: build: $(tr '\n' ' ' </etc/cp-build-info 2>/dev/null)"
out "# cptest: MemTotal $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) kB, lru_gen $(cat $LG 2>/dev/null || echo na), cpus $(nproc)"
out "# cptest: setup done at uptime $(uptime_s)s"
if [ -z "$SETUP_ERR" ]; then
	result ok setup
else
	result fail setup "$SETUP_ERR"
fi

# --- tests --------------------------------------------------------------------

if [ "$NTESTS" -eq 0 ] || [ "$TESTS" = shell ]; then
	echo "cptest: no tests requested (cptests=...); starting a shell"
	setsid cttyhack sh
	sync
	poweroff -f
fi

TEST_TIMEOUT=$(param cp_test_timeout "")

for t in $TESTS; do
	script=/tests/$t.sh
	out "# cptest: begin $t at uptime $(uptime_s)s"
	if [ ! -f "$script" ]; then
		result fail "$t" "no such test $script"
		continue
	fi
	rm -f /tmp/cp-rc /tmp/cp-notok
	: >/tmp/cp-notok
	{
		cd /tmp || exit 1
		if [ -n "$TEST_TIMEOUT" ]; then
			CP_TEST=$t timeout -s KILL "$TEST_TIMEOUT" sh "$script"
		else
			CP_TEST=$t sh "$script"
		fi
		echo $? >/tmp/cp-rc
	} 2>&1 </dev/null | while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "* | "#"* | "1.."* | "TAP version"* | "") l=$line ;;
		*) l="# $line" ;;
		esac
		case $line in
		"not ok "*"# TODO"*) ;;	# a known failure (xfail), not counted
		"not ok "*) echo x >>/tmp/cp-notok ;;
		esac
		echo "$line"
		[ -z "$TAPDEV" ] || echo "    $l" >&3
	done
	rc=$(cat /tmp/cp-rc 2>/dev/null || echo 255)
	nnot=$(wc -l </tmp/cp-notok)
	if [ "$rc" = 4 ] && [ "$nnot" -eq 0 ]; then
		result skip "$t"
	elif [ "$rc" = 0 ] && [ "$nnot" -eq 0 ]; then
		result ok "$t"
	elif [ "$rc" = 137 ] && [ -n "$TEST_TIMEOUT" ]; then
		result fail "$t" "killed after ${TEST_TIMEOUT}s"
	else
		result fail "$t" "exit $rc, $nnot failed subtests"
	fi
	out "# cptest: end $t at uptime $(uptime_s)s"
done

# --- dmesg check and shutdown -----------------------------------------------

BAD=$(dmesg | grep -E -B3 'WARNING:|BUG:|Oops|soft lockup|Call Trace|Kernel panic|blocked for more than' | head -n 24)
if [ -z "$BAD" ]; then
	result ok "dmesg clean"
else
	echo "$BAD" | while IFS= read -r l; do out "# dmesg: $l"; done
	result fail "dmesg clean"
fi

out "# Totals: pass:$PASS fail:$FAIL xfail:0 xpass:0 skip:$SKIP error:0"
out "# $PASS passed, $FAIL failed, $SKIP skipped"
out "# cptest: done at uptime $(uptime_s)s"
exec 3>&-
cd /
sync
umount /mnt 2>/dev/null
poweroff -f
echo o >/proc/sysrq-trigger
