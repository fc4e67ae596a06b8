#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Register this tree with DKMS and build/install clockpro for the running
# kernel (and, through AUTOINSTALL, for every kernel installed later).
set -eu
cd "$(dirname "$0")/.."
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
src=/usr/src/clockpro-$ver
rm -rf "$src"
mkdir -p "$src"
cp -r Kbuild Makefile dkms.conf module include "$src/"
dkms remove -m clockpro -v "$ver" --all >/dev/null 2>&1 || true
dkms add -m clockpro -v "$ver"
dkms install -m clockpro -v "$ver"
