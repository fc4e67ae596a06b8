#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The newer kernels of the test matrix, kept out of the host: Debian
# trixie's current 6.12 (trixie or trixie-security, the newer) and sid's
# newest kernel, each an image (vmlinuz + modules) and its headers, unpacked
# with dpkg -x into the sid chroot of scripts/mkchroot.sh, which has the
# compilers their headers need.  Nothing is installed on the host; the
# host's apt configuration is not changed (a private apt state under
# .build/apt, with the mirror URIs read from the host's).
#
#   scripts/matrix-kernels.sh fetch   download and unpack (cached), then
#                                     print the kernel releases
#   scripts/matrix-kernels.sh list    the kernel releases unpacked
#   scripts/matrix-kernels.sh build OUT
#                                     build clockpro.ko W=1 C=1 for each, into
#                                     OUT/<kver>/clockpro.ko
#   scripts/matrix-kernels.sh root    the directory holding boot/ and
#                                     lib/modules/ (vmtest.sh --kernel-root)
#
# SUITES (default "trixie sid") picks the suites.  Needs root (chroot).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${CP_BUILD_DIR:-$TOP/.build}
ROOT=${CP_MATRIX_ROOT:-$BUILD/chroot/sid}
APTD=$BUILD/apt
DEBS=$BUILD/kernel-debs
SUITES=${SUITES:-trixie sid}

# shellcheck source=scripts/apt-mirror.sh
. "$TOP/scripts/apt-mirror.sh"

die() {
	echo "matrix-kernels: $*" >&2
	exit 1
}

apt_opts() {
	echo "-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$APTD/sources" \
	     "-o Dir::State::Lists=$APTD/lists -o Dir::Cache=$APTD/cache" \
	     "-o Dir::State::status=/dev/null -o APT::Architectures::=amd64" \
	     "-o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}

# shellcheck disable=SC2046 # the options are words
xapt_get() { apt-get $(apt_opts) "$@"; }
# shellcheck disable=SC2046
xapt_cache() { apt-cache $(apt_opts) "$@"; }

apt_setup() {
	main=$(cp_mirror_uri main)
	sec=$(cp_mirror_uri security)
	[ -n "$main" ] || die "no Debian mirror in the apt configuration"
	mkdir -p "$APTD/sources" "$APTD/lists/partial" "$APTD/cache/archives/partial"
	{
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$main" "$SUITES"
		case " $SUITES " in
		*" trixie "*)
			[ -z "$sec" ] ||
			printf '\nTypes: deb\nURIs: %s\nSuites: trixie-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
				"$sec" ;;
		esac
	} >"$APTD/sources/clockpro-matrix.sources"
	xapt_get -q update >"$APTD/update.log" 2>&1 ||
		{ cat "$APTD/update.log" >&2; die "apt-get update failed"; }
}

# The newest version of package $1 in suite $2 (or $2-security).
suite_version() {
	xapt_cache madison "$1" |
		awk -F'|' -v s="$2" '{ split($3, w, " "); split(w[2], d, "/");
			if (d[1] == s || d[1] == s "-security") print $2 }' |
		tr -d ' ' | sort -V | tail -n1
}

# The packages of kernel ABI $2 that $1 needs, $1 included.
kernel_pkgs() {
	todo=$1
	done_=
	while [ -n "$todo" ]; do
		# shellcheck disable=SC2086 # a list of package names
		set -- $todo
		p=$1
		shift
		todo=$*
		case " $done_ " in *" $p "*) continue ;; esac
		done_="$done_ $p"
		for d in $(xapt_cache depends "$p" 2>/dev/null |
			   awk -v abi="$ABI" '/^ *\|?Depends:/ && index($2, abi) { print $2 }' |
			   sed 's/:.*//'); do
			case $d in *-unsigned) continue ;; esac
			todo="$todo $d"
		done
	done
	echo "$done_"
}

fetch() {
	apt_setup
	mkdir -p "$DEBS"
	[ -d "$ROOT" ] || die "no chroot $ROOT: scripts/mkchroot.sh first"
	for suite in $SUITES; do
		v=$(suite_version linux-image-amd64 "$suite")
		[ -n "$v" ] || die "no linux-image-amd64 in $suite"
		img=$(xapt_cache depends "linux-image-amd64=$v" |
		      awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
		kver=${img#linux-image-}
		ABI=${kver%-amd64}
		pkgs=$(kernel_pkgs "$img linux-headers-$kver")
		if [ -e "$ROOT/boot/config-$kver" ] &&
		   [ -e "$ROOT/lib/modules/$kver/modules.dep" ] &&
		   [ -e "$ROOT/usr/src/linux-headers-$kver/Makefile" ]; then
			echo "$kver"
			continue
		fi
		echo "matrix-kernels: $suite $v: $kver:$pkgs" >&2
		# shellcheck disable=SC2086 # a list of package names
		(cd "$DEBS" && xapt_get -q download $pkgs >/dev/null) ||
			die "cannot download$pkgs"
		for p in $pkgs; do
			f=$(find "$DEBS" -name "${p}_*.deb" | sort -V | tail -n1)
			dpkg -x "$f" "$ROOT"
		done
		# 7.x keeps vmlinuz and config in the modules directory
		for f in vmlinuz config System.map; do
			[ -e "$ROOT/boot/$f-$kver" ] ||
			[ ! -e "$ROOT/usr/lib/modules/$kver/$f" ] ||
				ln -s "../usr/lib/modules/$kver/$f" "$ROOT/boot/$f-$kver"
		done
		# modules.dep is made by the image's postinst
		chroot "$ROOT" depmod -a "$kver" ||
			die "depmod $kver failed"
		echo "$kver"
	done >"$BUILD/matrix-kvers.new"
	mv "$BUILD/matrix-kvers.new" "$BUILD/matrix-kvers"
	cat "$BUILD/matrix-kvers"
}

list() {
	[ -f "$BUILD/matrix-kvers" ] && cat "$BUILD/matrix-kvers"
}

# The compiler kernel $1 was built with (gcc-N, from its headers' config).
kernel_cc() {
	sed -n 's/^CONFIG_CC_VERSION_TEXT="[^ ]*gcc[^ ]* ([^)]*) \([0-9]*\)\..*/gcc-\1/p' \
		"$ROOT/usr/src/linux-headers-$1/.config"
}

# 7.x's Makefile asks scripts/checker-valid.sh whether sparse knows
# __typeof_unqual__ before C=1 runs it, and Debian's headers package does
# not ship that script: without it sparse is skipped with a mere notice.
# Put an equivalent check there (prints 1 if the checker parses it).
sparse_gate() {
	# the arch headers' Makefile includes the common tree's
	common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' \
		"$ROOT/lib/modules/$1/build/Makefile" 2>/dev/null || :)
	[ -n "$common" ] || return 0
	gate=$ROOT$common/scripts/checker-valid.sh
	grep -q checker-valid.sh "$ROOT$common/Makefile" 2>/dev/null || return 0
	[ -f "$gate" ] && return 0
	cat >"$gate" <<-'EOF'
	#!/bin/sh
	# written by clockpro's scripts/matrix-kernels.sh: the headers
	# package lacks it.  Prints 1 if the checker "$@" parses
	# __typeof_unqual__ without an error, else 0.
	command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
	t=$(mktemp --suffix=.c)
	printf 'static int u(const int *q) { __typeof_unqual__(*q) v = *q; return v; }\n' >"$t"
	if "$@" "$t" 2>&1 | grep -q error; then echo 0; else echo 1; fi
	rm -f "$t"
	EOF
	chmod +x "$gate"
}

build() {
	out=${1:?build OUT}
	[ -f "$BUILD/matrix-kvers" ] || die "no kernels: scripts/matrix-kernels.sh fetch"
	# objtool (7.x) reads /proc/self/limits
	if ! mountpoint -q "$ROOT/proc"; then
		mount -t proc proc "$ROOT/proc"
		trap 'umount "$ROOT/proc"' EXIT
	fi
	while read -r v; do
		cc=$(kernel_cc "$v")
		[ -n "$cc" ] || die "cannot tell the compiler of $v"
		d=$ROOT/build/clockpro-$v
		rm -rf "$d"
		mkdir -p "$d" "$out/$v"
		cp -r "$TOP/Kbuild" "$TOP/module" "$TOP/include" "$d/"
		sparse_gate "$v"
		echo "  BUILD   $v ($cc, chroot)"
		# W=1 as modules-matrix, and sparse (C=1: every file, the
		# directory is new); a warning of either fails the build here
		chroot "$ROOT" make -s -C "/lib/modules/$v/build" \
			M="/build/clockpro-$v" CC="$cc" W=1 C=1 modules \
			</dev/null >"$d.log" 2>&1 || { cat "$d.log" >&2; die "build for $v failed"; }
		# sid's perl 5.42 finds fault with 6.12's scripts/kernel-doc itself
		grep -v "^Possible precedence problem .*/scripts/kernel-doc line" "$d.log" >&2 || true
		if grep -q -E "warning:|error:" "$d.log"; then
			die "build for $v: warnings (W=1, sparse)"
		fi
		cp "$d/clockpro.ko" "$out/$v/clockpro.ko"
	done <"$BUILD/matrix-kvers"
}

case ${1:-} in
fetch) fetch ;;
list) list ;;
build) build "${2:-}" ;;
root) echo "$ROOT" ;;
*) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d' >&2; exit 2 ;;
esac
