#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the busybox initramfs used by the clockpro VM tests.
#
#   mkinitramfs.sh KVER OUTFILE [--module PATH.ko] [--extra DIR]...
#                  [--kmod NAME]... [--boot-kmod NAME]...
#
#   KVER          kernel release; modules come from /lib/modules/KVER
#                 (override the directory with MODDIR=...)
#   OUTFILE       the gzip-compressed newc cpio archive to write
#   --module P    clockpro.ko to ship as /clockpro.ko (optional: without it
#                 the tests run against the stock kernel)
#   --extra DIR   copy DIR's contents over the initramfs root (repeatable),
#                 e.g. DIR/tests/foo.sh becomes /tests/foo.sh
#   --kmod N      also ship kernel module N (and its dependencies), not
#                 loaded at boot; tests load it with cp_kmod_load N
#   --boot-kmod N ship kernel module N and load it at boot, after the
#                 block/filesystem modules
#
# Layout of the archive:
#   /init                     selftests/vm/guest/init.sh
#   /bin/busybox + applets    busybox-static; /sbin, /usr/bin, /usr/sbin link to /bin
#   /bin/cpwork               static workload binary (built if missing)
#   /bin/clockpro-refaultdist the libbpf tool, when tools/ has built it
#   /bin/clockprostat         tools/clockprostat (POSIX sh + awk)
#   /opt/progs/bin/           GNU grep, sqlite3, md5sum from the host's
#                             Debian packages, with their shared libraries;
#                             with CP_PERF=1 in the environment perf too
#                             (tests/trace.sh; 48 MiB: boot 512 MiB)
#   /lib/cp/lib.sh            guest test library
#   /lib/cp/json.awk          JSON checker for the tests (busybox has none)
#   /tests/*.sh               selftests/vm/tests/*.sh
#   /lib/modules/KVER/...     decompressed .ko files + a matching modules.dep
#   /lib/modules/cp-boot.list modules /init loads, in dependency order
#   /clockpro.ko              only with --module
#   /etc/cp-build-info        kernel release, module checksum, git revision
set -eu

usage() {
	awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0" >&2
	exit 2
}

[ $# -ge 2 ] || usage
KVER=$1
OUT=$2
shift 2

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
MODDIR=${MODDIR:-/lib/modules/$KVER}
BUSYBOX=${BUSYBOX:-/bin/busybox}
CPWORK=${CPWORK:-$TOP/.build/workloads/cpwork}

MODULE=
EXTRAS=()
KMODS=()
# Block device + filesystem stack for the data disk.  crc32c is requested
# by ext4/jbd2 through the crypto API, not modules.dep, so list it here;
# since 6.14 ext4 calls the crc32c library (a modules.dep dependency, or
# built in) and crc32c_generic is gone: optional.
BOOT_KMODS=(virtio_pci virtio_blk crc32c_generic ext4)
OPTIONAL_KMODS=" crc32c_generic "

while [ $# -gt 0 ]; do
	case $1 in
	--module) MODULE=${2:?--module needs a path}; shift 2 ;;
	--extra) EXTRAS+=("${2:?--extra needs a directory}"); shift 2 ;;
	--kmod) KMODS+=("${2:?--kmod needs a name}"); shift 2 ;;
	--boot-kmod) BOOT_KMODS+=("${2:?--boot-kmod needs a name}"); shift 2 ;;
	-h|--help) usage ;;
	*) echo "mkinitramfs: unknown argument '$1'" >&2; usage ;;
	esac
done

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

[ -d "$MODDIR" ] || die "no module directory $MODDIR"
[ -f "$MODDIR/modules.dep" ] || die "no $MODDIR/modules.dep"
[ -x "$BUSYBOX" ] || die "no busybox at $BUSYBOX (install busybox-static)"
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	die "$BUSYBOX is not statically linked (install busybox-static)"
[ -z "$MODULE" ] || [ -f "$MODULE" ] || die "module $MODULE not found"
for d in ${EXTRAS[@]+"${EXTRAS[@]}"}; do
	[ -d "$d" ] || die "extra directory $d not found"
done

if [ ! -x "$CPWORK" ] || [ "$TOP/selftests/workloads/cpwork.c" -nt "$CPWORK" ]; then
	make -s -C "$TOP/selftests/workloads" O="$(dirname "$CPWORK")" >&2
fi

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/cp-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# --- kernel modules ---------------------------------------------------------

# Print the modules.dep path of module NAME ("-" and "_" are equivalent),
# or nothing.
dep_path() {
	local want=${1//-/_}
	awk -F: -v want="$want" '{
		n = $1; sub(/.*\//, "", n); sub(/\.ko(\.(xz|zst|gz))?$/, "", n)
		gsub(/-/, "_", n)
		if (n == want) { print $1; exit }
	}' "$MODDIR/modules.dep"
}

is_builtin() {
	local want=${1//-/_}
	[ -f "$MODDIR/modules.builtin" ] &&
		awk -v want="$want" '{
			n = $1; sub(/.*\//, "", n); sub(/\.ko$/, "", n); gsub(/-/, "_", n)
			if (n == want) { found = 1; exit }
		} END { exit !found }' "$MODDIR/modules.builtin"
}

declare -A SHIPPED=()
SHIP_ORDER=()

# Add PATH (as listed in modules.dep) and, first, its dependencies.
ship_path() {
	local p=$1 deps d i
	local -a darr
	[ -z "${SHIPPED[$p]:-}" ] || return 0
	SHIPPED[$p]=1
	deps=$(awk -F: -v p="$p" '$1 == p { print $2; exit }' "$MODDIR/modules.dep")
	# modules.dep lists dependencies so that loading them last-to-first works
	read -r -a darr <<<"$deps"
	for ((i = ${#darr[@]} - 1; i >= 0; i--)); do
		d=${darr[$i]}
		ship_path "$d"
	done
	SHIP_ORDER+=("$p")
}

# Resolve NAME to a path and ship it; print the path ("" for built-ins).
resolve() {
	local name=$1 p
	p=$(dep_path "$name")
	if [ -z "$p" ]; then
		if is_builtin "$name"; then
			echo "mkinitramfs: $name is built into $KVER" >&2
			return 0
		fi
		if [[ $OPTIONAL_KMODS == *" $name "* ]]; then
			echo "mkinitramfs: $name is not in $KVER (not needed there)" >&2
			return 0
		fi
		die "module $name not found in $MODDIR"
	fi
	echo "$p"
}

BOOT_PATHS=()
for m in "${BOOT_KMODS[@]}"; do
	p=$(resolve "$m") || exit 1
	[ -n "$p" ] || continue
	ship_path "$p"
done
# Boot list = everything shipped so far, in dependency order.
BOOT_PATHS=("${SHIP_ORDER[@]}")
for m in ${KMODS[@]+"${KMODS[@]}"}; do
	p=$(resolve "$m") || exit 1
	[ -n "$p" ] || continue
	ship_path "$p"
done

strip_ext() {
	local p=$1
	p=${p%.xz}; p=${p%.zst}; p=${p%.gz}
	echo "$p"
}

mkdir -p "$STAGE/lib/modules/$KVER"
for p in "${SHIP_ORDER[@]}"; do
	dst="$STAGE/lib/modules/$KVER/$(strip_ext "$p")"
	mkdir -p "$(dirname "$dst")"
	case $p in
	*.xz) xz -dc "$MODDIR/$p" >"$dst" ;;
	*.zst) zstd -qdc "$MODDIR/$p" >"$dst" ;;
	*.gz) gzip -dc "$MODDIR/$p" >"$dst" ;;
	*) cp "$MODDIR/$p" "$dst" ;;
	esac
done
# modules.dep restricted to what is shipped, with decompressed names
for p in "${SHIP_ORDER[@]}"; do
	deps=$(awk -F: -v p="$p" '$1 == p { print $2; exit }' "$MODDIR/modules.dep")
	line="$(strip_ext "$p"):"
	for d in $deps; do
		line="$line $(strip_ext "$d")"
	done
	echo "$line"
done >"$STAGE/lib/modules/$KVER/modules.dep"
: >"$STAGE/lib/modules/cp-boot.list"
for p in "${BOOT_PATHS[@]}"; do
	echo "/lib/modules/$KVER/$(strip_ext "$p")"
done >"$STAGE/lib/modules/cp-boot.list"

# --- busybox, programs, scripts -----------------------------------------------

mkdir -p "$STAGE"/{bin,dev,proc,sys,tmp,run,mnt,etc,root,lib/cp,tests,usr}
ln -s bin "$STAGE/sbin"
ln -s ../bin "$STAGE/usr/bin"
ln -s ../bin "$STAGE/usr/sbin"
cp "$BUSYBOX" "$STAGE/bin/busybox"
for applet in $("$BUSYBOX" --list); do
	[ "$applet" = busybox ] || ln -sf busybox "$STAGE/bin/$applet"
done
cp "$CPWORK" "$STAGE/bin/cpwork"
[ ! -x "$TOP/tools/clockpro-refaultdist" ] ||
	cp "$TOP/tools/clockpro-refaultdist" "$STAGE/bin/clockpro-refaultdist"
# Real programs from Debian's packages for tests/programs.sh, with the
# shared libraries they need, under /opt/progs/bin (busybox keeps /bin).
PROGS="/usr/bin/grep /usr/bin/sqlite3 /usr/bin/md5sum"
[ "${CP_PERF:-0}" != 1 ] || PROGS="$PROGS $(command -v perf || echo /usr/bin/perf)"
for prog in $PROGS; do
	[ -x "$prog" ] || continue
	mkdir -p "$STAGE/opt/progs/bin"
	cp "$prog" "$STAGE/opt/progs/bin/"
	for lib in $(ldd "$prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'); do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
done
cp "$SELF_DIR/guest/init.sh" "$STAGE/init"
cp "$SELF_DIR/guest/lib.sh" "$STAGE/lib/cp/lib.sh"
cp "$SELF_DIR/guest/json.awk" "$STAGE/lib/cp/json.awk"
cp "$TOP/tools/clockprostat" "$STAGE/bin/clockprostat"
chmod 0755 "$STAGE/init"
for t in "$SELF_DIR"/tests/*.sh; do
	[ -e "$t" ] && cp "$t" "$STAGE/tests/"
done
if [ -n "$MODULE" ]; then
	cp "$MODULE" "$STAGE/clockpro.ko"
fi
for d in ${EXTRAS[@]+"${EXTRAS[@]}"}; do
	cp -a "$d/." "$STAGE/"
done
# Early console before /init mounts devtmpfs (needs root; harmless without).
mknod -m 600 "$STAGE/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$STAGE/dev/null" c 1 3 2>/dev/null || true

{
	echo "kver $KVER"
	if [ -n "$MODULE" ]; then
		echo "module $(basename "$MODULE") sha256 $(sha256sum <"$MODULE" | cut -d' ' -f1)"
	else
		echo "module none"
	fi
	echo "git $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$STAGE/etc/cp-build-info"

mkdir -p "$(dirname "$OUT")"
(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | gzip -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
