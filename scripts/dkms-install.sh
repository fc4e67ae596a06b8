#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Register this tree with DKMS and build + install clockpro for every
# installed kernel that has headers (/lib/modules/<kver>/build/Makefile).
# A kernel without headers (e.g. a container's running kernel) is skipped
# with a message, not a failure.  Kernels installed later get the module
# through DKMS's AUTOINSTALL (the kernel package's postinst hook).
#
#   scripts/dkms-install.sh            install; again: rebuilds only if the
#                                      tree changed (idempotent)
#   scripts/dkms-install.sh --remove   remove it from every kernel, unregister
#                                      it, delete /usr/src/clockpro-<version>
#
# Environment: KVERS="<kver>..." installs for these kernels only (default:
# every /lib/modules/<kver>, and the running kernel).
#
# The source goes to /usr/src/clockpro-<version>: Kbuild, dkms.conf, module/,
# include/ (the version is dkms.conf's PACKAGE_VERSION).  On Debian DKMS signs
# the module with /var/lib/dkms/mok.key (docs/install.md).
#
# Exit status: 0 if every kernel with headers got the module (or DKMS
# skipped it by dkms.conf's BUILD_EXCLUSIVE_*), 1 if any build failed,
# 2 on a usage or setup error.
set -eu
cd "$(dirname "$0")/.."

die() {
	echo "dkms-install: $*" >&2
	exit 2
}

command -v dkms >/dev/null || die "dkms not found: apt install dkms (or scripts/install-deps.sh)"
[ "$(id -u)" = 0 ] || die "must run as root (DKMS writes /usr/src, /var/lib/dkms, /lib/modules)"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ -n "$ver" ] || die "no PACKAGE_VERSION in dkms.conf"
src=/usr/src/clockpro-$ver

# A tree installed by the clockpro-dkms package belongs to dpkg.
if owner=$(dpkg-query -S "$src" 2>/dev/null); then
	die "$src belongs to the package ${owner%%:*}: apt remove ${owner%%:*} first"
fi

unregister() {
	if [ -e "/var/lib/dkms/clockpro/$ver" ]; then
		dkms remove -m clockpro -v "$ver" --all
	fi
}

case ${1:-} in
--remove)
	unregister
	rm -rf "$src"
	echo "dkms-install: clockpro $ver removed"
	exit 0
	;;
"") ;;
*) die "usage: $0 [--remove]" ;;
esac

FILES="Kbuild dkms.conf module include"

# The tree DKMS has is this one (and it is registered).
unchanged() {
	[ -e "/var/lib/dkms/clockpro/$ver/source" ] || return 1
	for f in $FILES; do
		diff -rq "$f" "$src/$f" >/dev/null 2>&1 || return 1
	done
}

if unchanged; then
	echo "dkms-install: $src is up to date"
else
	# A changed tree must not keep old builds: register it afresh.
	unregister
	rm -rf "$src"
	mkdir -p "$src"
	# shellcheck disable=SC2086 # a list of names
	cp -r $FILES "$src/"
	dkms add -m clockpro -v "$ver"
fi

kvers=${KVERS:-}
if [ -z "$kvers" ]; then
	for d in /lib/modules/*/; do
		[ -d "$d" ] && kvers="$kvers $(basename "$d")"
	done
	# the running kernel too, to say so if it has no headers
	case " $kvers " in
	*" $(uname -r) "*) ;;
	*) kvers="$(uname -r) $kvers" ;;
	esac
fi
fail=0
built=0
for k in $kvers; do
	if [ ! -f "/lib/modules/$k/build/Makefile" ]; then
		echo "dkms-install: skip $k: no kernel headers (install linux-headers-$k)"
		continue
	fi
	if dkms status -m clockpro -v "$ver" -k "$k" | grep -q ': installed'; then
		echo "dkms-install: $k: installed already, up to date"
		built=$((built + 1))
		continue
	fi
	rc=0
	dkms install -m clockpro -v "$ver" -k "$k" || rc=$?
	case $rc in
	0) built=$((built + 1)) ;;
	77) echo "dkms-install: skip $k: excluded by dkms.conf BUILD_EXCLUSIVE_*" ;;
	*) echo "dkms-install: FAIL $k: dkms install exited $rc" \
		"(log: /var/lib/dkms/clockpro/$ver/build/make.log)" >&2
	   fail=1 ;;
	esac
done
echo "dkms-install: clockpro $ver installed for $built kernel(s)"
if [ "$built" = 0 ] && [ "$fail" = 0 ]; then
	echo "dkms-install: no kernel with headers got the module" >&2
	fail=1
fi
exit $fail
