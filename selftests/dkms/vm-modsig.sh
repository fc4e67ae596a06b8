#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module signatures on stock kernels, in qemu guests (selftests/vm/vmtest.sh):
# for each kernel, clockpro.ko unsigned (BUILD/<kver>/clockpro.ko, from
# "make modules-matrix") and signed with a local key ("make sign", checked
# here with openssl first) go into three boots, run by guest/modsig.sh:
# module.sig_enforce=1, lockdown=integrity, and neither.  TAP, one line per
# boot; the guest's TAP lines follow as "#" lines.
#
#   selftests/dkms/vm-modsig.sh [KVER...]      (default: every BUILD/<kver>/)
#
# Environment: CP_BUILD_DIR (default <repo>/.build), CP_VM_LOCK (vmtest's),
# KEYDIR (default BUILD/signing: scripts/modsign.sh genkey).
#
# Not proven here: that a module signed with an enrolled key loads under
# enforcement.  Debian kernels trust their built-in key and, through shim,
# MOK keys (the .machine keyring, UEFI only); these guests boot without
# UEFI, so no key of ours can be made trusted (docs/install.md).
set -eu
SELF=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF/../.." && pwd)
BUILD=${CP_BUILD_DIR:-$TOP/.build}
KEYDIR=${KEYDIR:-$BUILD/signing}
export CP_BUILD_DIR="$BUILD"

kvers=$*
if [ -z "$kvers" ]; then
	for d in "$BUILD"/6.*-amd64; do
		[ -f "$d/clockpro.ko" ] && kvers="$kvers ${d##*/}"
	done
fi
[ -n "$kvers" ] || { echo "1..0 # SKIP no $BUILD/<kver>/clockpro.ko: make modules-matrix"; exit 0; }

"$TOP/scripts/modsign.sh" genkey "$KEYDIR" >&2
# the rig's TAP helpers (plain sh): tap_ok, tap_fail, tap_done
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. "$TOP/selftests/vm/guest/lib.sh"
for k in $kvers; do
	ko=$BUILD/$k/clockpro.ko
	extra=$BUILD/modsig/$k
	rm -rf "$extra"
	mkdir -p "$extra/tests" "$extra/sig"
	cp "$SELF/guest/modsig.sh" "$extra/tests/"
	if modinfo -F signer "$ko" | grep -q .; then
		tap_fail "$k: $ko is unsigned"
		continue
	fi
	tap_ok "$k: $ko is unsigned"
	"$TOP/scripts/modsign.sh" sign "$k" "$KEYDIR/signing_key.pem" \
		"$KEYDIR/signing_key.x509" "$ko" "$extra/sig/clockpro-signed.ko"
	if out=$("$TOP/scripts/modsign.sh" verify "$KEYDIR/signing_key.x509" "$extra/sig/clockpro-signed.ko"); then
		tap_ok "$k: signed copy verifies against the certificate"
	else
		tap_fail "$k: signed copy verifies against the certificate"
	fi
	echo "# $out"
	for c in enforce:module.sig_enforce=1 lockdown:lockdown=integrity permissive:; do
		name=${c%%:*}
		if "$TOP/selftests/vm/vmtest.sh" --kernel "$k" --module "$ko" \
			--extra "$extra" --kmod crc7 --timeout 300 -q \
			--out "$BUILD/modsig/runs/$k-$name" \
			--append "cp_modsig=$name ${c#*:}" modsig 2>"$extra/$name.log"; then
			tap_ok "$k: $name boot"
		else
			tap_fail "$k: $name boot"
			sed 's/^/# /' "$extra/$name.log"
		fi
		sed 's/^/#   /' "$BUILD/modsig/runs/$k-$name/tap.log"
	done
done
tap_done
