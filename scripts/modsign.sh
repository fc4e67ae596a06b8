#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module signing: make a key pair, sign a module with the kernel's own
# scripts/sign-file, check a signature with openssl.
#
#   scripts/modsign.sh genkey DIR
#       DIR/signing_key.pem (private key, RSA 4096, mode 600),
#       DIR/signing_key.x509 (its self-signed certificate, DER: what
#       "mokutil --import" takes); kept if both exist already
#   scripts/modsign.sh sign KVER KEY CERT MODULE [DEST]
#       sign MODULE (in place, or into DEST) with
#       /lib/modules/KVER/build/scripts/sign-file, sha256
#   scripts/modsign.sh sign-all KEY CERT BUILD OUT KVER...
#       "make sign": sign BUILD/<kver>/clockpro.ko into OUT/<kver>/clockpro.ko
#       for each KVER and verify it; KEY and CERT both empty: use (or make)
#       the key pair in BUILD/signing
#   scripts/modsign.sh verify CERT MODULE
#       exit 0 only if MODULE (.ko, .ko.xz, .ko.zst or .ko.gz) ends in a
#       PKCS#7 module signature that verifies against CERT (PEM or DER)
#       over the module's contents, and modinfo's sig_key is CERT's serial;
#       prints signer and key, or why not
#
# verify checks the cryptography only: whether a kernel accepts the module
# depends on CERT being in its keyrings (built in, or MOK through shim).
set -eu

die() {
	echo "modsign: $*" >&2
	exit 2
}

genkey() {
	dir=$1
	if [ -f "$dir/signing_key.pem" ] && [ -f "$dir/signing_key.x509" ]; then
		echo "modsign: using the existing key pair in $dir"
		return 0
	fi
	mkdir -p "$dir"
	cat >"$dir/x509.genkey" <<-'EOF'
	[ req ]
	default_bits = 4096
	distinguished_name = req_distinguished_name
	prompt = no
	string_mask = utf8only
	x509_extensions = v3
	[ req_distinguished_name ]
	CN = clockpro local module signing key
	[ v3 ]
	basicConstraints = critical,CA:FALSE
	keyUsage = digitalSignature
	extendedKeyUsage = codeSigning
	subjectKeyIdentifier = hash
	authorityKeyIdentifier = keyid
	EOF
	(umask 077 && openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-config "$dir/x509.genkey" -outform DER -out "$dir/signing_key.x509" \
		-keyout "$dir/signing_key.pem" 2>"$dir/genkey.log") ||
		die "openssl req failed: $(cat "$dir/genkey.log")"
	echo "modsign: new key pair $dir/signing_key.pem, certificate $dir/signing_key.x509"
}

sign() {
	kver=$1 key=$2 cert=$3 mod=$4 dest=${5:-}
	sf=/lib/modules/$kver/build/scripts/sign-file
	[ -x "$sf" ] || die "no $sf: install linux-headers-$kver"
	[ -r "$key" ] || die "no key $key"
	[ -r "$cert" ] || die "no certificate $cert"
	[ -f "$mod" ] || die "no module $mod"
	# sign-file appends a second signature to a signed module: start bare
	[ -z "$dest" ] || cp "$mod" "$dest"
	signed=${dest:-$mod}
	strip_sig "$signed"
	"$sf" sha256 "$key" "$cert" "$signed"
}

MAGIC='~Module signature appended~'

# Size of FILE without its appended signature, or nothing if none.
body_len() {
	size=$(stat -c %s "$1")
	[ "$size" -gt 40 ] || return 0
	[ "$(tail -c 28 "$1" | head -c 27)" = "$MAGIC" ] || return 0
	# struct module_signature (12 bytes) before the marker; sig_len is its
	# last field, big endian
	siglen=$(tail -c 40 "$1" | head -c 12 | od -An -tu1 |
		awk '{ print (($9 * 256 + $10) * 256 + $11) * 256 + $12 }')
	echo $((size - 40 - siglen))
}

strip_sig() {
	n=$(body_len "$1")
	[ -z "$n" ] || truncate -s "$n" "$1"
}

verify() {
	cert=$1 mod=$2
	[ -r "$cert" ] || die "no certificate $cert"
	[ -f "$mod" ] || die "no module $mod"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	case $mod in
	*.xz) xz -dc "$mod" >"$tmp/m.ko" ;;
	*.zst) zstd -qdc "$mod" >"$tmp/m.ko" ;;
	*.gz) gzip -dc "$mod" >"$tmp/m.ko" ;;
	*) cp "$mod" "$tmp/m.ko" ;;
	esac
	n=$(body_len "$tmp/m.ko")
	[ -n "$n" ] || { echo "modsign: $mod: no module signature"; return 1; }
	size=$(stat -c %s "$tmp/m.ko")
	head -c "$n" "$tmp/m.ko" >"$tmp/body"
	tail -c $((size - n)) "$tmp/m.ko" | head -c $((size - n - 40)) >"$tmp/sig.p7"
	if head -c 2 "$cert" | od -An -tx1 | grep -q '30 82'; then
		openssl x509 -inform DER -in "$cert" -out "$tmp/cert.pem"
	else
		openssl x509 -in "$cert" -out "$tmp/cert.pem"
	fi
	# -noverify: the certificate is trusted as given (no CA chain); the
	# signature itself is checked over the module's contents
	if ! openssl cms -verify -binary -inform DER -in "$tmp/sig.p7" \
		-content "$tmp/body" -certfile "$tmp/cert.pem" -nointern \
		-noverify -out /dev/null 2>"$tmp/err"; then
		echo "modsign: $mod: signature does not verify against $cert: $(head -n 1 "$tmp/err")"
		return 1
	fi
	serial=$(openssl x509 -in "$tmp/cert.pem" -noout -serial | sed 's/^serial=//')
	key=$(modinfo -F sig_key "$tmp/m.ko" | tr -d ':')
	if [ "$key" != "$serial" ]; then
		echo "modsign: $mod: modinfo sig_key $key is not the certificate's serial $serial"
		return 1
	fi
	echo "modsign: $mod: valid signature by \"$(modinfo -F signer "$tmp/m.ko")\", key $serial"
}

# Variables are global (sh): sign_all's names differ from sign's.
sign_all() {
	akey=$1 acert=$2 build=$3 outdir=$4
	shift 4
	if [ -z "$akey$acert" ]; then
		genkey "$build/signing"
		akey=$build/signing/signing_key.pem
		acert=$build/signing/signing_key.x509
	elif [ -z "$akey" ] || [ -z "$acert" ]; then
		die "give KEY= and CERT= together (or neither)"
	fi
	[ $# -gt 0 ] || die "no kernel to sign for"
	for k in "$@"; do
		mkdir -p "$outdir/$k"
		sign "$k" "$akey" "$acert" "$build/$k/clockpro.ko" "$outdir/$k/clockpro.ko"
		(verify "$acert" "$outdir/$k/clockpro.ko") || exit 1
	done
}

case ${1:-} in
genkey) [ $# = 2 ] || die "usage: $0 genkey DIR"; genkey "$2" ;;
sign)
	if [ $# -lt 5 ] || [ $# -gt 6 ]; then
		die "usage: $0 sign KVER KEY CERT MODULE [DEST]"
	fi
	shift
	sign "$@"
	;;
sign-all)
	[ $# -ge 6 ] || die "usage: $0 sign-all KEY CERT BUILD OUT KVER..."
	shift
	sign_all "$@"
	;;
verify) [ $# = 3 ] || die "usage: $0 verify CERT MODULE"; verify "$2" "$3" ;;
*) die "usage: $0 genkey DIR | sign KVER KEY CERT MODULE [DEST] | verify CERT MODULE" ;;
esac
