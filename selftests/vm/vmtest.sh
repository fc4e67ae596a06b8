#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a stock kernel under qemu (TCG) with the clockpro test initramfs and
# run guest tests.
#
#   vmtest.sh --kernel KVER [options] TEST[,TEST...]
#
#   --kernel KVER     boot /boot/vmlinuz-KVER with modules from /lib/modules/KVER
#   --kernel-root DIR take both from DIR/boot and DIR/lib/modules instead (a
#                     kernel unpacked outside the host: scripts/matrix-kernels.sh;
#                     default $CP_KERNEL_ROOT, else /)
#   --module PATH     ship PATH (clockpro.ko) as /clockpro.ko; without it the
#                     tests that need the module skip
#   --mem MB          guest memory (default 256)
#   --smp N           guest CPUs (default 1)
#   --tcg-thread single|multi
#                     one host thread for all vCPUs, or one each (default
#                     multi).  Under multi-threaded TCG a vCPU can run code
#                     another vCPU has just rewritten (kprobe registration):
#                     module reload stress needs single (docs/safety.md)
#   --icount          deterministic instruction counting: qemu -icount
#                     shift=0,sleep=off, guest time advances 1 ns per guest
#                     instruction (idle time is skipped, not slept), so the
#                     guest's CPU-time clocks count instructions, whatever
#                     the host's load; implies --tcg-thread single (icount
#                     needs single-threaded TCG)
#   --numa N          N NUMA nodes, one socket each (memory and CPUs split
#                     evenly: --smp and --mem must be multiples of N)
#   --lru-gen 0|1|default
#                     write n|y to /sys/kernel/mm/lru_gen/enabled before the
#                     tests (default: leave the kernel's default)
#   --timeout SEC     kill the guest after SEC seconds: a failure (default 900)
#                     (guests queue on one lock; CP_VM_LOCK=FILE picks another,
#                     to run guests side by side)
#   --append STR      extra kernel command line (e.g. "cp_cache=167772160");
#                     repeatable, the strings are joined with spaces
#   --swap MB         attach a fresh MB MiB swap disk (/dev/vdb), swapon'ed
#   --kmod NAME       ship kernel module NAME too (cp_kmod_load NAME); repeatable
#   --extra DIR       copy DIR over the initramfs root; repeatable
#   --disk PATH       data disk image (default .build/vm/data.img, built once)
#   --out DIR         run directory (default .build/vm/runs/<time>-<kver>)
#   -q, --quiet       do not forward the guest's TAP lines while running
#   --keep            keep RUNDIR/initramfs.cpio.gz after a passing run
#
# Tests are selftests/vm/tests/TEST.sh (or provided by --extra).  Guest TAP
# lines arrive on a second serial port (ttyS1) and are forwarded to stdout;
# the whole serial console (ttyS0: kernel + test output) goes to
# RUNDIR/console.log, the TAP stream to RUNDIR/tap.log.
#
# Result: exit 0 only if the guest finished ("# cptest: done"), no TAP line
# at the top level is "not ok", and the console shows none of: Kernel panic,
# WARNING:, BUG:, Oops, soft lockup, Call Trace.  A guest that outlives
# --timeout is killed and reported as a failure.  Only one guest runs at a
# time: concurrent invocations wait on .build/vm/qemu.lock.
#
# The console runs at loglevel=5: KERN_WARNING (WARN(), the stack dumps at
# the default level) and above still print, notices and info do not.
# panic_on_warn=1, oops=panic, softlockup_panic=1 and panic=-1 with
# -no-reboot turn any of those into an immediate guest exit; /init also
# greps dmesg at the end (test "dmesg clean").  An OOM kill prints a Call
# Trace too and therefore fails the run.
set -eu

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
BUILD=${CP_BUILD_DIR:-$TOP/.build}/vm
export CPWORK=${CPWORK:-${CP_BUILD_DIR:-$TOP/.build}/workloads/cpwork}

KVER=
KROOT=${CP_KERNEL_ROOT:-}
MODULE=
MEM=256
SMP=1
NUMA=
TCG_THREAD=multi
ICOUNT=0
LRU_GEN=default
TIMEOUT=900
APPEND=
SWAP_MB=
DISK=
RUNDIR=
QUIET=0
KEEP=0
DISK_MB=${DISK_MB:-1400}
MKINIT_ARGS=()
TESTS=

usage() {
	awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0" >&2
	exit 2
}

die() {
	echo "vmtest: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KVER=${2:?}; shift 2 ;;
	--kernel-root) KROOT=${2:?}; shift 2 ;;
	--module) MODULE=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--numa) NUMA=${2:?}; shift 2 ;;
	--tcg-thread) TCG_THREAD=${2:?}; shift 2 ;;
	--icount) ICOUNT=1; shift ;;
	--lru-gen) LRU_GEN=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--append) APPEND=${APPEND:+$APPEND }${2?}; shift 2 ;;
	--swap) SWAP_MB=${2:?}; shift 2 ;;
	--kmod) MKINIT_ARGS+=(--kmod "${2:?}"); shift 2 ;;
	--extra) MKINIT_ARGS+=(--extra "${2:?}"); shift 2 ;;
	--disk) DISK=${2:?}; shift 2 ;;
	--out) RUNDIR=${2:?}; shift 2 ;;
	-q|--quiet) QUIET=1; shift ;;
	--keep) KEEP=1; shift ;;
	-h|--help) usage ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$TESTS" ] || die "give tests as one comma-separated list"; TESTS=$1; shift ;;
	esac
done

installed_kernels() {
	local k
	for k in "$KROOT"/boot/vmlinuz-*; do
		[ -e "$k" ] && printf '%s ' "${k#"$KROOT"/boot/vmlinuz-}"
	done
}
[ -n "$KVER" ] || die "--kernel KVER is required (installed: $(installed_kernels))"
[ -n "$TESTS" ] || die "no tests given"
KROOT=${KROOT%/}
KERNEL=$KROOT/boot/vmlinuz-$KVER
[ -r "$KERNEL" ] || die "no readable kernel $KERNEL"
[ -d "$KROOT/lib/modules/$KVER" ] || die "no $KROOT/lib/modules/$KVER"
# mkinitramfs.sh takes the kernel's modules from there
[ -z "$KROOT" ] || export MODDIR=$KROOT/lib/modules/$KVER
case $LRU_GEN in 0|1|default) ;; *) die "--lru-gen must be 0, 1 or default" ;; esac
case $TCG_THREAD in single|multi) ;; *) die "--tcg-thread must be single or multi" ;; esac
# icount is only supported by single-threaded TCG
[ "$ICOUNT" = 0 ] || TCG_THREAD=single
case $MEM$SMP$TIMEOUT${SWAP_MB:-0}${NUMA:-0} in *[!0-9]*) die "--mem/--smp/--timeout/--swap/--numa take numbers" ;; esac
if [ -n "$NUMA" ] && { [ "$NUMA" -lt 1 ] || [ $((SMP % NUMA)) != 0 ] || [ $((MEM % NUMA)) != 0 ]; }; then
	die "--numa N needs --smp and --mem divisible by N"
fi
if [ -n "$MODULE" ]; then
	[ -f "$MODULE" ] || die "module $MODULE not found"
	MODULE=$(cd "$(dirname "$MODULE")" && pwd)/$(basename "$MODULE")
	MKINIT_ARGS+=(--module "$MODULE")
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (install qemu-system-x86)"

mkdir -p "$BUILD"
exec 9>"${CP_VM_LOCK:-$BUILD/qemu.lock}"

# --- data disk (built once, shared) --------------------------------------------
if [ -z "$DISK" ]; then
	DISK=$BUILD/data.img
	if [ ! -f "$DISK" ]; then
		echo "vmtest: building data disk $DISK (once)" >&2
		flock 9
		[ -f "$DISK" ] || "$SELF_DIR/mkdisk.sh" "$DISK" "$DISK_MB"
		flock -u 9
	fi
fi
[ -f "$DISK" ] || die "no data disk $DISK"
# The programs test reads real data from a disk of its own (mkprogs.sh).
PROGS=
case ",$TESTS," in
*,programs,*)
	# named after its recipe: a changed mkprogs.sh builds a new disk
	PROGS=$BUILD/progs-$(sha256sum <"$SELF_DIR/mkprogs.sh" | cut -c1-12).img
	if [ ! -f "$PROGS" ]; then
		echo "vmtest: building the programs disk $PROGS (once)" >&2
		flock 9
		[ -f "$PROGS" ] || "$SELF_DIR/mkprogs.sh" "$PROGS"
		flock -u 9
	fi
	;;
esac

# --- run directory, initramfs ----------------------------------------------------
if [ -z "$RUNDIR" ]; then
	RUNDIR=$BUILD/runs/$(date +%Y%m%d-%H%M%S)-$KVER-lru$LRU_GEN-$$
fi
mkdir -p "$RUNDIR"
CONSOLE=$RUNDIR/console.log
TAPLOG=$RUNDIR/tap.log
INITRD=$RUNDIR/initramfs.cpio.gz
rm -f "$CONSOLE" "$TAPLOG"

"$SELF_DIR/mkinitramfs.sh" "$KVER" "$INITRD" ${MKINIT_ARGS[@]+"${MKINIT_ARGS[@]}"}

CMDLINE="console=ttyS0 loglevel=5 panic_on_warn=1 oops=panic softlockup_panic=1 panic=-1"
CMDLINE="$CMDLINE cptap=/dev/ttyS1 cptests=$TESTS cp_lru_gen=$LRU_GEN"
[ "$ICOUNT" = 0 ] || CMDLINE="$CMDLINE cp_icount=1"

QEMU=(qemu-system-x86_64 -accel "tcg,thread=$TCG_THREAD" -m "$MEM" -smp "$SMP"
	-nographic -no-reboot -nic none -monitor none
	-kernel "$KERNEL" -initrd "$INITRD"
	-drive "file=$DISK,if=virtio,format=raw,snapshot=on"
	-serial "file:$CONSOLE" -serial stdio)
[ "$ICOUNT" = 0 ] || QEMU+=(-icount "shift=0,sleep=off")
if [ -n "$NUMA" ]; then
	# a socket per node: CPUs of one cache domain on two nodes make the
	# kernel WARN (topology_sane())
	per=$((SMP / NUMA))
	QEMU+=(-smp "$SMP,sockets=$NUMA,cores=$per,threads=1")
	for ((n = 0; n < NUMA; n++)); do
		QEMU+=(-object "memory-backend-ram,id=mem$n,size=$((MEM / NUMA))M"
			-numa "node,nodeid=$n,memdev=mem$n,cpus=$((n * per))-$(((n + 1) * per - 1))")
	done
fi
if [ -n "$SWAP_MB" ]; then
	truncate -s 0 "$RUNDIR/swap.img"
	truncate -s "${SWAP_MB}M" "$RUNDIR/swap.img"
	QEMU+=(-drive "file=$RUNDIR/swap.img,if=virtio,format=raw")
	CMDLINE="$CMDLINE cp_swap=/dev/vdb"
fi
if [ -n "$PROGS" ]; then
	QEMU+=(-drive "file=$PROGS,if=virtio,format=raw,readonly=on")
	# the next virtio disk after the data disk (and the swap disk)
	CMDLINE="$CMDLINE cp_progs=/dev/vd$([ -n "$SWAP_MB" ] && echo c || echo b)"
fi
CMDLINE="$CMDLINE${APPEND:+ $APPEND}"
QEMU+=(-append "$CMDLINE")
printf '%q ' "${QEMU[@]}" >"$RUNDIR/qemu.cmd"
echo >>"$RUNDIR/qemu.cmd"

# --- boot ----------------------------------------------------------------------------
if ! flock -n 9; then
	echo "vmtest: waiting for another guest to finish (one at a time)" >&2
	flock 9
fi
echo "vmtest: kernel $KVER, mem ${MEM}M, smp $SMP, lru_gen $LRU_GEN," \
	"tcg $TCG_THREAD$([ "$ICOUNT" = 0 ] || echo ", icount"), module ${MODULE:-none}, timeout ${TIMEOUT}s, tests $TESTS" >&2
echo "vmtest: logs in $RUNDIR" >&2

T0=$(date +%s.%N)
set +e
# Forward the TAP port line by line; stamp the first line (= /init is up).
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>"$RUNDIR/qemu.stderr" |
	{
		first=1
		while IFS= read -r line; do
			line=${line%$'\r'}
			if [ $first = 1 ]; then
				date +%s.%N >"$RUNDIR/first-line.ts"
				first=0
			fi
			printf '%s\n' "$line" >>"$TAPLOG"
			[ "$QUIET" = 1 ] || printf '%s\n' "$line"
		done
	}
QRC=${PIPESTATUS[0]}
set -e
T1=$(date +%s.%N)
flock -u 9
touch "$TAPLOG" "$CONSOLE"

# --- verdict ---------------------------------------------------------------------------
FAIL=()
PATTERN='Kernel panic|WARNING:|BUG:|Oops|soft lockup|Call Trace'

if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
	FAIL+=("timeout: guest killed after ${TIMEOUT}s")
elif [ "$QRC" != 0 ]; then
	FAIL+=("qemu exited with status $QRC: $(head -c 500 "$RUNDIR/qemu.stderr")")
fi
if grep -aqE "$PATTERN" "$CONSOLE"; then
	# The line before a bare "Call Trace:" says why (an allocation
	# failure, an RCU stall, the OOM killer): show it too.
	FAIL+=("console: $(grep -aE -m1 -B3 "$PATTERN" "$CONSOLE" | tr -d '\r' | tr '\n' '|')")
fi
if ! grep -q '^# cptest: done' "$TAPLOG"; then
	FAIL+=("guest did not finish its tests")
fi
NOTOK=$(grep -c '^not ok ' "$TAPLOG" || true)
[ "$NOTOK" = 0 ] || FAIL+=("$NOTOK test(s) not ok: $(grep '^not ok ' "$TAPLOG" | tr '\n' ';')")

BOOT=na
if [ -f "$RUNDIR/first-line.ts" ]; then
	BOOT=$(awk -v a="$T0" -v b="$(cat "$RUNDIR/first-line.ts")" 'BEGIN { printf "%.1f", b - a }')
fi
GUEST_INIT=$(sed -n 's/^# cptest: kernel .*init started at uptime \([0-9.]*\)s.*/\1/p' "$TAPLOG" | head -n1)
WALL=$(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')

if [ ${#FAIL[@]} -gt 0 ]; then
	echo "vmtest: FAIL kernel=$KVER lru_gen=$LRU_GEN tests=$TESTS" >&2
	for f in "${FAIL[@]}"; do
		echo "vmtest:   $f" >&2
	done
	line=$(grep -anE "$PATTERN" "$CONSOLE" | head -n1 | cut -d: -f1)
	if [ -n "$line" ]; then
		start=$((line > 10 ? line - 10 : 1))
		echo "vmtest: ---- console lines $start-$((line + 30)) ($CONSOLE) ----" >&2
		sed -n "${start},$((line + 30))p" "$CONSOLE" | tr -d '\r' >&2
	else
		echo "vmtest: ---- last 30 console lines ($CONSOLE) ----" >&2
		tail -n 30 "$CONSOLE" | tr -d '\r' >&2
	fi
	echo "vmtest: ----" >&2
	RESULT=FAIL
else
	RESULT=PASS
	[ "$KEEP" = 1 ] || rm -f "$INITRD"
fi
echo "vmtest: $RESULT kernel=$KVER lru_gen=$LRU_GEN mem=$MEM smp=$SMP" \
	"boot_to_init=${BOOT}s guest_uptime_at_init=${GUEST_INIT:-na}s wall=${WALL}s log=$RUNDIR" >&2
[ "$RESULT" = PASS ]
