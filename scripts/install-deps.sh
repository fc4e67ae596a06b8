#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install everything clockpro needs to build, test and demo, from Debian's
# own packages (debhelper, dh-dkms: "make deb"; openssl: "make sign").
# Idempotent: re-running it installs only what is missing.
#
#   scripts/install-deps.sh            build + tests + demo
#   NO_KERNELS=1 scripts/install-deps.sh   skip the test-matrix kernels
#
# The test matrix needs bookworm (6.1) and bookworm-backports (6.12).  If the
# backports suite is not configured, it is added with the mirror URI taken
# from the existing apt configuration: no host name is written here.
set -eu

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

PKGS="build-essential make gcc libc6-dev bc kmod cpio xz-utils zstd
      qemu-system-x86 busybox-static e2fsprogs
      sparse clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
      valgrind gnuplot-nox dkms perl linux-source-6.1 libclang-rt-14-dev
      shellcheck debhelper dh-dkms openssl sqlite3 grep coreutils"

need_update=0
backports_list=/etc/apt/sources.list.d/clockpro-backports.sources

have_suite() {
	grep -rqs -- "$1" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

# shellcheck source=scripts/apt-mirror.sh
. "$(dirname "$0")/apt-mirror.sh"

if [ -z "${NO_KERNELS:-}" ] && ! have_suite bookworm-backports; then
	uri=$(cp_mirror_uri main)
	if [ -z "$uri" ]; then
		echo "install-deps: no Debian mirror found in apt configuration" >&2
		exit 1
	fi
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uri" | $SUDO tee "$backports_list" >/dev/null
	need_update=1
fi

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done

if [ -n "${NO_KERNELS:-}" ]; then
	kpkgs=
else
	kpkgs="linux-image-amd64 linux-headers-amd64"
	for p in $kpkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing="$missing $p"
	done
fi

if [ -n "$missing" ] || [ $need_update = 1 ]; then
	$SUDO apt-get update -q
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	# The container has no bootloader: skip initramfs/grub hooks noise.
	# shellcheck disable=SC2086 # a list of package names
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi

if [ -z "${NO_KERNELS:-}" ]; then
	# 6.12 from backports: newest image + headers of the 6.12 series.
	if ! ls /boot/vmlinuz-6.12.* >/dev/null 2>&1 ||
	   ! ls -d /usr/src/linux-headers-6.12.*-amd64 >/dev/null 2>&1; then
		$SUDO apt-get install -y -q --no-install-recommends \
			-t bookworm-backports linux-image-amd64 linux-headers-amd64 ||
		{ echo "install-deps: cannot install 6.12 from bookworm-backports" >&2; exit 1; }
	fi
	# Both kernels' images must stay installed side by side.
	ls /boot/vmlinuz-6.1.* >/dev/null 2>&1 || {
		v=$(apt-cache depends linux-image-amd64/bookworm 2>/dev/null |
		    awk '/Depends: linux-image-6/{print $2; exit}')
		[ -n "$v" ] && $SUDO apt-get install -y -q --no-install-recommends \
			"$v" "$(echo "$v" | sed 's/image/headers/')"
	}
fi

# checkpatch.pl ships only inside the kernel source tarball.
if [ ! -x /usr/local/share/clockpro/checkpatch/checkpatch.pl ] &&
   ls /usr/src/linux-source-6.1.tar.xz >/dev/null 2>&1; then
	d=/usr/local/share/clockpro/checkpatch
	$SUDO mkdir -p "$d"
	top=$(tar -tJf /usr/src/linux-source-6.1.tar.xz | head -n1 | cut -d/ -f1)
	$SUDO tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$d" --strip-components=2 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi
echo "install-deps: done"
