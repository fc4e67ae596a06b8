#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A Debian sid chroot with the compilers the newer kernels of the matrix
# were built with (gcc-14: trixie's 6.12, gcc-16: sid's), for
# scripts/matrix-kernels.sh.  Made once by debootstrap, cached.
#
#   scripts/mkchroot.sh [DIR]     default .build/chroot/sid
#
# The mirror is the first Debian archive URI of the host's apt
# configuration, as scripts/install-deps.sh finds it: no host name is
# written here.  Needs root (debootstrap, chroot).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-${CP_BUILD_DIR:-$TOP/.build}/chroot/sid}
SUITE=sid
# What the kernels' headers packages depend on to build a module; perl
# and python3 run kernel-doc (W=1: 6.12's is perl, 7.x's python); sparse
# checks the module against each kernel's headers (C=1); dkms and openssl
# install it there as a trixie or sid user would (check-dkms-new.sh).
PKGS=make,gcc-14,gcc-16,libc6-dev,bc,bison,flex,pahole,libelf-dev,libssl-dev,zlib1g-dev,kmod,xz-utils,perl,python3,sparse,dkms,openssl

# shellcheck source=scripts/apt-mirror.sh
. "$TOP/scripts/apt-mirror.sh"

if [ -e "$DIR/.clockpro-chroot-ok" ]; then
	[ "$(cat "$DIR/.clockpro-chroot-ok")" = "$PKGS" ] && exit 0
	# made with fewer packages: add the others
	echo "mkchroot: installing $PKGS in $DIR" >&2
	# shellcheck disable=SC2046 # a list of package names
	chroot "$DIR" apt-get install -y -q --no-install-recommends \
		$(echo "$PKGS" | tr , ' ') >"$DIR.log" 2>&1 ||
		{ tail -n 20 "$DIR.log" >&2; exit 1; }
	echo "$PKGS" >"$DIR/.clockpro-chroot-ok"
	exit 0
fi
command -v debootstrap >/dev/null 2>&1 || {
	echo "mkchroot: installing debootstrap" >&2
	apt-get install -y -q --no-install-recommends debootstrap >&2
}
uri=$(cp_mirror_uri main)
[ -n "$uri" ] || { echo "mkchroot: no Debian mirror in the apt configuration" >&2; exit 1; }

rm -rf "$DIR"
mkdir -p "$(dirname "$DIR")"
echo "mkchroot: debootstrap $SUITE into $DIR" >&2
debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$DIR" "$uri" \
	>"$DIR.log" 2>&1 || {
	echo "mkchroot: debootstrap failed, see $DIR.log" >&2
	tail -n 20 "$DIR.log" >&2
	exit 1
}
# the chroot's apt caches are not needed
rm -rf "$DIR/var/cache/apt/archives/"*.deb
echo "$PKGS" >"$DIR/.clockpro-chroot-ok"
echo "mkchroot: done ($DIR)" >&2
