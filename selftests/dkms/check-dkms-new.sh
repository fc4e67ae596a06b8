#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS on the newer kernels (TAP), run by "make check-new" as root: in the
# sid chroot that holds trixie's and sid's kernels and their headers
# (scripts/mkchroot.sh, scripts/matrix-kernels.sh), the way a user of
# those releases installs the module:
#
#   1. dkms.conf's BUILD_EXCLUSIVE_KERNEL admits 6.1 and later, 7.x
#      included, and refuses what the module cannot build for (5.x, 6.0);
#   2. scripts/dkms-install.sh builds and installs clockpro for each
#      kernel (modinfo -k: in updates/dkms, vermagic of that kernel, not a
#      DKMS skip), and --remove leaves no trace;
#   3. the clockpro-dkms .deb (scripts/mkdeb.sh, on the host): apt install
#      in the chroot builds it for each kernel with headers; a kernel whose
#      headers come later gets it from the hook its headers package runs
#      (/etc/kernel/header_postinst.d/dkms); apt remove removes it.
#
#   selftests/dkms/check-dkms-new.sh ROOT BUILD KVER...
#
# The chroot's headers choose the compiler they were built with (gcc-14,
# gcc-16).  Skipped (1..0) when not root.  Logs: BUILD/dkms-new.log.
set -u
SELF=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF/../.." && pwd)
ROOT=${1:?usage: check-dkms-new.sh ROOT BUILD KVER...}
BUILD=${2:?usage: check-dkms-new.sh ROOT BUILD KVER...}
shift 2
cd "$TOP" || exit 2

# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. "$TOP/selftests/vm/guest/lib.sh"

[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (chroot)"; exit 0; }
[ $# -gt 0 ] || { echo "check-dkms-new: no kernels" >&2; exit 2; }
ROOT=$(cd "$ROOT" && pwd)
BUILD=$(cd "$BUILD" && pwd)
in_root() {
	chroot "$ROOT" "$@"
}
for t in dkms modinfo apt-get; do
	in_root sh -c "command -v $t" >/dev/null ||
		{ tap_fail "$t in the chroot (scripts/mkchroot.sh)"; tap_done; }
done
if ! mountpoint -q "$ROOT/proc"; then
	mount -t proc proc "$ROOT/proc"
	trap 'umount "$ROOT/proc"' EXIT
fi

# 1. the kernels dkms.conf admits
pat=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' dkms.conf)
for k in 6.1.0-57-amd64 6.12.95+deb12-amd64 6.12.118+deb13-amd64 \
	7.2.13+deb14-amd64 7.10.1-amd64 10.1.0-amd64 "$@"; do
	if echo "$k" | grep -qE "$pat"; then
		tap_ok "dkms.conf admits $k"
	else
		tap_fail "dkms.conf admits $k" "BUILD_EXCLUSIVE_KERNEL=\"$pat\""
	fi
done
for k in 5.10.0-30-amd64 6.0.12-amd64 4.19.0-1-amd64; do
	if echo "$k" | grep -qE "$pat"; then
		tap_fail "dkms.conf refuses $k" "BUILD_EXCLUSIVE_KERNEL=\"$pat\""
	else
		tap_ok "dkms.conf refuses $k"
	fi
done

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
# installed HOW: clockpro.ko of each kernel in updates/dkms, built for it
installed() {
	for k in "$@"; do
		f=$(in_root modinfo -k "$k" -F filename clockpro 2>&1)
		case $f in
		/lib/modules/"$k"/updates/dkms/clockpro.ko*) tap_ok "$how: modinfo -k $k: $f" ;;
		*) tap_fail "$how: modinfo -k $k finds clockpro in updates/dkms" "$f" ;;
		esac
		vm=$(in_root modinfo -k "$k" -F vermagic clockpro 2>/dev/null)
		case $vm in
		"$k "*) tap_ok "$how: $k: vermagic $vm" ;;
		*) tap_fail "$how: $k: vermagic is $k" "vermagic: $vm" ;;
		esac
	done
}
# gone HOW: no clockpro.ko, no DKMS state, no source tree left
gone() {
	left=$(find "$ROOT/lib/modules" "$ROOT/var/lib/dkms" -name 'clockpro*' 2>/dev/null)
	[ -e "$ROOT/usr/src/clockpro-$ver" ] && left="$left /usr/src/clockpro-$ver"
	tap_cmp "$how: nothing left${left:+ ($left)}" "$(echo "$left" | wc -w)" "==" 0
}

if [ -e "$ROOT/var/lib/dkms/clockpro" ]; then
	in_root dkms remove -m clockpro -v "$ver" --all >/dev/null 2>&1 || :
	rm -rf "$ROOT/usr/src/clockpro-$ver"
fi

# 2. scripts/dkms-install.sh, as a user with this tree would run it
src=/tmp/clockpro-src
rm -rf "$ROOT$src"
mkdir -p "$ROOT$src/scripts"
cp -r dkms.conf Kbuild module include "$ROOT$src/"
cp scripts/dkms-install.sh "$ROOT$src/scripts/"
how="dkms-install.sh"
if in_root env KVERS="$*" sh "$src/scripts/dkms-install.sh" >"$BUILD/dkms-new.log" 2>&1; then
	tap_ok "$how: builds for $*"
else
	tap_fail "$how: builds for $*" "$(tail -n 5 "$BUILD/dkms-new.log")"
fi
installed "$@"
if in_root sh "$src/scripts/dkms-install.sh" --remove >>"$BUILD/dkms-new.log" 2>&1; then
	tap_ok "$how --remove"
else
	tap_fail "$how --remove" "$(tail -n 5 "$BUILD/dkms-new.log")"
fi
gone
rm -rf "$ROOT$src"

# 3. the package
rm -rf "$BUILD/dkms-new-deb"
if ! deb=$(scripts/mkdeb.sh "$BUILD/dkms-new-deb" 2>>"$BUILD/dkms-new.log") || [ ! -f "$deb" ]; then
	tap_fail "mkdeb.sh builds the package" "$(tail -n 5 "$BUILD/dkms-new.log")"
else
	# The last kernel arrives after the package: its headers hidden
	# while apt installs it, then the hook its headers package runs.
	late=$(echo "$@" | awk '{ print $NF }')
	early=$(echo "$@" | sed 's/ *[^ ]*$//')
	how="apt install ./$(basename "$deb")"
	cp "$deb" "$ROOT/tmp/"
	mv "$ROOT/lib/modules/$late/build" "$ROOT/lib/modules/$late/build.hidden"
	if in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" \
		>>"$BUILD/dkms-new.log" 2>&1; then
		tap_ok "$how (headers of $early)"
	else
		tap_fail "$how (headers of $early)" "$(tail -n 5 "$BUILD/dkms-new.log")"
	fi
	mv "$ROOT/lib/modules/$late/build.hidden" "$ROOT/lib/modules/$late/build"
	# shellcheck disable=SC2086 # kernel releases: no spaces
	installed $early
	f=$(in_root modinfo -k "$late" -F filename clockpro 2>&1)
	case $f in
	/lib/modules/"$late"/updates/dkms/*) tap_fail "$how: nothing for $late yet (no headers)" "$f" ;;
	*) tap_ok "$how: nothing for $late yet (no headers)" ;;
	esac
	how="headers of $late installed (/etc/kernel/header_postinst.d/dkms $late)"
	if in_root /etc/kernel/header_postinst.d/dkms "$late" >>"$BUILD/dkms-new.log" 2>&1; then
		tap_ok "$how"
	else
		tap_fail "$how" "$(tail -n 5 "$BUILD/dkms-new.log")"
	fi
	installed "$late"
	how="apt remove clockpro-dkms"
	if in_root apt-get remove -y -q --purge clockpro-dkms >>"$BUILD/dkms-new.log" 2>&1; then
		tap_ok "$how"
	else
		tap_fail "$how" "$(tail -n 5 "$BUILD/dkms-new.log")"
	fi
	gone
	rm -f "$ROOT/tmp/$(basename "$deb")"
fi
tap_done
