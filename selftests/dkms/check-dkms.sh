#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host test of the installation paths (TAP), run by "make check-dkms" as root:
#
#   1. scripts/dkms-install.sh: the module is built, installed and signed by
#      DKMS for every kernel with headers (modinfo -k), kernels without
#      headers are skipped with a message; a second run succeeds and
#      changes nothing; --remove leaves no trace
#   2. the clockpro-dkms .deb (scripts/mkdeb.sh): apt install, and again
#      as an upgrade, builds it for every kernel with headers,
#      scripts/dkms-install.sh refuses to take over the package's tree,
#      apt remove leaves no trace
#   3. signing ("make sign", scripts/modsign.sh): the modules it signed
#      (BUILD/signed/<kver>/) verify against its certificate; the unsigned
#      module, a signed module with one byte changed and the wrong
#      certificate do not; KEY=/CERT= are used when given
#
#   selftests/dkms/check-dkms.sh [BUILD]     (default BUILD: <repo>/.build)
#
# Needs root, dkms, debhelper, dh-dkms and the headers of at least one
# kernel (scripts/install-deps.sh).  Skipped (1..0) when not root, or when
# clockpro is installed through DKMS already: the test would remove it.
# What the kernel does with a signed module is selftests/dkms/vm-modsig.sh.
set -u
SELF=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF/../.." && pwd)
BUILD=${1:-$TOP/.build}
cd "$TOP" || exit 2
WORK=$BUILD/check-dkms
rm -rf "$WORK"
mkdir -p "$WORK"

# the rig's TAP helpers (plain sh): tap_ok, tap_fail, tap_diag, tap_done
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. "$TOP/selftests/vm/guest/lib.sh"
ok() {
	tap_ok "$1"
}
notok() {
	tap_fail "$@"
}
# check DESC CMD...: ok if CMD exits 0; its output is kept in $WORK/last
check() {
	d=$1
	shift
	if "$@" >"$WORK/last" 2>&1; then
		ok "$d"
	else
		notok "$d" "command failed ($?): $*"
		tail -n 15 "$WORK/last" | sed 's/^/# /'
	fi
}
# refute DESC TEXT CMD...: ok if CMD fails and its output has TEXT (the
# reason: a failure for another reason is not the one tested)
refute() {
	d=$1 why=$2
	shift 2
	if "$@" >"$WORK/last" 2>&1; then
		notok "$d" "command succeeded: $*"
	elif grep -q -- "$why" "$WORK/last"; then
		ok "$d"
	else
		notok "$d" "failed, but without \"$why\": $*"
		tail -n 5 "$WORK/last" | sed 's/^/# /'
	fi
}
# not root, or clockpro installed: not a failure of the installation paths
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}
done_() {
	tap_diag "time: $(($(date +%s) - T0))s"
	tap_done
}
T0=$(date +%s)

[ "$(id -u)" = 0 ] || skip_all "needs root (DKMS and apt write system directories)"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
if [ -e /var/lib/dkms/clockpro ] ||
   dpkg-query -W -f='${Status}' clockpro-dkms 2>/dev/null | grep -qv 'not-installed$'; then
	skip_all "clockpro is installed already (make dkms-uninstall, or apt remove clockpro-dkms, first)"
fi
for t in dkms dh_dkms openssl; do
	command -v $t >/dev/null || { notok "$t is installed (scripts/install-deps.sh)"; done_; }
done

with=
without=
for d in /lib/modules/*/; do
	k=$(basename "$d")
	if [ -f "$d/build/Makefile" ]; then
		with="$with $k"
	else
		without="$without $k"
	fi
done
r=$(uname -r)
[ -f "/lib/modules/$r/build/Makefile" ] || [ -d "/lib/modules/$r" ] || without="$without $r"
echo "# kernels with headers:${with:- none}; without:${without:- none} (running: $r)"
[ -n "$with" ] || { notok "a kernel with headers is installed"; done_; }

# installed_everywhere HOW: clockpro.ko in updates/dkms of every kernel with
# headers, built for it, signed by DKMS's key if DKMS signs
installed_everywhere() {
	for k in $with; do
		f=$(modinfo -k "$k" -F filename clockpro 2>&1)
		case $f in
		/lib/modules/"$k"/updates/dkms/clockpro.ko*) ok "$1: modinfo -k $k: $f" ;;
		*) notok "$1: modinfo -k $k finds clockpro in updates/dkms" "$f" ;;
		esac
		vm=$(modinfo -k "$k" -F vermagic clockpro 2>/dev/null)
		case $vm in
		"$k "*) ok "$1: $k: vermagic $vm" ;;
		*) notok "$1: $k: vermagic is $k" "vermagic: $vm" ;;
		esac
		if [ -f /var/lib/dkms/mok.pub ]; then
			check "$1: $k: signed by DKMS's key /var/lib/dkms/mok.pub" \
				scripts/modsign.sh verify /var/lib/dkms/mok.pub "$f"
		else
			notok "$1: $k: DKMS made its signing key /var/lib/dkms/mok.pub"
		fi
	done
}

# gone_everywhere HOW: no clockpro for any kernel, nothing left in DKMS
gone_everywhere() {
	for k in $with; do
		refute "$1: modinfo -k $k finds no clockpro" "not found" modinfo -k "$k" clockpro
	done
	left=$(ls -d /var/lib/dkms/clockpro /usr/src/clockpro-* /lib/modules/*/updates/dkms/clockpro.ko* 2>/dev/null)
	if [ -z "$left" ]; then
		ok "$1: nothing left in /var/lib/dkms, /usr/src, /lib/modules"
	else
		notok "$1: nothing left in /var/lib/dkms, /usr/src, /lib/modules" "$left"
	fi
}

# --- 1. make dkms-install ------------------------------------------------------
t=$(date +%s)
check "dkms-install.sh installs" scripts/dkms-install.sh
cp "$WORK/last" "$WORK/dkms-install.log"
for k in $without; do
	if grep -q "skip $k: no kernel headers" "$WORK/dkms-install.log"; then
		ok "dkms-install.sh skips $k: no kernel headers"
	else
		notok "dkms-install.sh says it skips $k (no headers)"
	fi
done
installed_everywhere dkms-install
refute "dkms-install.sh with no kernel that has headers fails, says why" \
	"skip 0.0.0-none: no kernel headers" env KVERS=0.0.0-none scripts/dkms-install.sh
echo "# dkms-install: $(($(date +%s) - t))s"
check "dkms-install.sh again succeeds" scripts/dkms-install.sh
if grep -q "up to date" "$WORK/last" && ! grep -q "Building module" "$WORK/last"; then
	ok "dkms-install.sh again builds nothing (tree unchanged)"
else
	notok "dkms-install.sh again builds nothing (tree unchanged)"
fi
installed_everywhere "dkms-install twice"
check "dkms-install.sh --remove" scripts/dkms-install.sh --remove
gone_everywhere dkms-uninstall
check "dkms-install.sh --remove again succeeds" scripts/dkms-install.sh --remove

# --- 2. the .deb -------------------------------------------------------------------
t=$(date +%s)
if deb=$(scripts/mkdeb.sh "$WORK/deb" 2>"$WORK/mkdeb.err") && [ -f "$deb" ]; then
	ok "mkdeb.sh builds $(basename "$deb")"
	check "package version is $ver-1" sh -c "dpkg-deb -f '$deb' Version | grep -qx '$ver-1'"
	check "package ships /usr/src/clockpro-$ver/dkms.conf" \
		sh -c "dpkg-deb -c '$deb' | grep -q ' ./usr/src/clockpro-$ver/dkms.conf$'"
	export DEBIAN_FRONTEND=noninteractive
	check "apt install ./$(basename "$deb")" apt-get install -y -q "$deb"
	check "clockpro-dkms is installed" sh -c "dpkg-query -W -f='\${Status}' clockpro-dkms | grep -q 'ok installed'"
	installed_everywhere "deb"
	# As an upgrade, DKMS's common postinst builds for the running and the
	# newest kernel only (the newest alone when the running one is not
	# installed): the package's postinst must add the others.  (Where the
	# running kernel is newer than every installed one, as in a container,
	# DKMS finds no "newest" and builds them all itself.)
	check "apt install --reinstall (an upgrade)" apt-get install -y -q --reinstall "$deb"
	grep '^Building for\|^clockpro-dkms' "$WORK/last" | sed 's/^/# /'
	installed_everywhere "deb upgrade"
	refute "dkms-install.sh refuses the package's tree" "belongs to the package clockpro-dkms" \
		scripts/dkms-install.sh
	check "apt remove clockpro-dkms" apt-get remove -y -q clockpro-dkms
	gone_everywhere "apt remove"
else
	notok "mkdeb.sh builds the package" "$(cat "$WORK/mkdeb.err")"
fi
echo "# deb: $(($(date +%s) - t))s"

# --- 3. signing ("make check-dkms" runs "make sign" first) ---------------------------
CERT=$BUILD/signing/signing_key.x509
for k in $with; do
	refute "$k: the unsigned module does not verify" "no module signature" \
		scripts/modsign.sh verify "$CERT" "$BUILD/$k/clockpro.ko"
	check "$k: make sign's module verifies against $CERT" \
		scripts/modsign.sh verify "$CERT" "$BUILD/signed/$k/clockpro.ko"
	check "$k: modinfo signer is the certificate's CN" sh -c \
		"modinfo -F signer '$BUILD/signed/$k/clockpro.ko' | grep -qx 'clockpro local module signing key'"
done
O=$WORK/other
# shellcheck disable=SC2086 # a list of kernels
check "sign-all with KEY= CERT= given (make sign KEY=... CERT=...)" \
	sh -c "scripts/modsign.sh genkey '$O' && scripts/modsign.sh sign-all \
		'$O/signing_key.pem' '$O/signing_key.x509' '$BUILD' '$O/signed' $with"
k=${with# }
k=${k%% *}
refute "$k: it does not verify against make sign's default certificate" \
	"does not verify against" scripts/modsign.sh verify "$CERT" "$O/signed/$k/clockpro.ko"
check "$k: signing a signed module again gives the same module (one signature)" sh -c \
	"scripts/modsign.sh sign '$k' '$O/signing_key.pem' '$O/signing_key.x509' '$O/signed/$k/clockpro.ko' '$WORK/resigned.ko' &&
	 cmp '$O/signed/$k/clockpro.ko' '$WORK/resigned.ko'"
cp "$O/signed/$k/clockpro.ko" "$WORK/tampered.ko"
printf 'X' | dd of="$WORK/tampered.ko" bs=1 seek=4096 conv=notrunc 2>/dev/null
if cmp -s "$O/signed/$k/clockpro.ko" "$WORK/tampered.ko"; then
	notok "$k: tampered copy differs from the signed one"
else
	refute "$k: one byte changed in the module: does not verify" \
		"does not verify against" scripts/modsign.sh verify "$O/signing_key.x509" "$WORK/tampered.ko"
fi
done_
