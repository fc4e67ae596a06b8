#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian package clockpro-dkms (binary only, unsigned) from this
# tree: .build/deb/clockpro-dkms_<version>-1_all.deb.
#
#   scripts/mkdeb.sh [OUTDIR]         (default OUTDIR: .build/deb)
#
# The version is dkms.conf's PACKAGE_VERSION, the only place it is written;
# the Debian revision is 1.  packaging/debian/ holds the debian/ directory,
# with control.in's @MAINTAINER@ (DEBFULLNAME/DEBEMAIL, else the author of
# the last commit) and the postinst's @VERSION@ filled in here.  Needs
# debhelper and dh-dkms (scripts/install-deps.sh).  Prints the .deb's path.
set -eu
cd "$(dirname "$0")/.."
TOP=$(pwd)
OUT=${1:-$TOP/.build/deb}

die() {
	echo "mkdeb: $*" >&2
	exit 2
}

for t in dpkg-buildpackage dh dh_dkms; do
	command -v $t >/dev/null || die "$t not found: apt install debhelper dh-dkms (or scripts/install-deps.sh)"
done
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ -n "$ver" ] || die "no PACKAGE_VERSION in dkms.conf"

name=${DEBFULLNAME:-$(git log -1 --format=%an 2>/dev/null || true)}
mail=${DEBEMAIL:-$(git log -1 --format=%ae 2>/dev/null || true)}
maint="${name:-clockpro} <${mail:-root@localhost}>"
date=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

stage=$OUT/clockpro-$ver
rm -rf "$stage"
mkdir -p "$stage"
cp -r Kbuild dkms.conf module include "$stage/"
cp -r packaging/debian "$stage/debian"
sed "s|@MAINTAINER@|$maint|" packaging/debian/control.in >"$stage/debian/control"
rm "$stage/debian/control.in"
sed -i "s|@VERSION@|$ver|" "$stage/debian/clockpro-dkms.postinst"
cat >"$stage/debian/changelog" <<EOF
clockpro ($ver-1) unstable; urgency=medium

  * Built from git $rev by scripts/mkdeb.sh.

 -- $maint  $date
EOF

rm -f "$OUT"/clockpro-dkms_"$ver"-1_all.deb
(cd "$stage" && dpkg-buildpackage -b -us -uc -tc >"$OUT/build.log" 2>&1) ||
	{ tail -n 30 "$OUT/build.log" >&2; die "dpkg-buildpackage failed (log: $OUT/build.log)"; }
deb=$OUT/clockpro-dkms_$ver-1_all.deb
[ -f "$deb" ] || die "no $deb after the build (log: $OUT/build.log)"
echo "$deb"
