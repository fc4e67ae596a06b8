#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# modsig: what a stock Debian kernel does with clockpro.ko when module
# signatures matter.  Shipped by selftests/dkms/vm-modsig.sh, which boots
# each kernel three times and says which case this is (cp_modsig=):
#
#   enforce     module.sig_enforce=1: the unsigned /clockpro.ko and the
#               self-signed /sig/clockpro-signed.ko are both refused with
#               EKEYREJECTED ("Key was rejected by service"), dmesg tells
#               which ("unsigned module" / "module with unavailable key")
#   lockdown    lockdown=integrity (what Secure Boot sets): both refused
#               with EPERM, dmesg names lockdown
#   permissive  neither: the self-signed module loads (the kernel taints
#               itself, flag E): the refusals above are about the key, not
#               a broken module
#
# In every case a module signed by Debian's own key (crc7, shipped with
# --kmod) loads: the kernel does accept signatures it can verify.
set -eu
# shellcheck source-path=SCRIPTDIR source=../../vm/guest/lib.sh
. /lib/cp/lib.sh

SIGNED=/sig/clockpro-signed.ko
cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
[ -f "$SIGNED" ] || tap_skip_all "no $SIGNED in the initramfs"
case=$(cp_param cp_modsig "")
tap_diag "kernel $(uname -r), case $case, sig_enforce $(cat /sys/module/module/parameters/sig_enforce)"

# refused DESC MODULE ERRNO-TEXT DMESG-TEXT
refused() {
	n0=$(dmesg | wc -l)
	if out=$(insmod "$2" 2>&1); then
		tap_fail "$1 refused" "insmod succeeded"
		rmmod clockpro
		return 0
	fi
	tap_diag "insmod: $out"
	if printf '%s\n' "$out" | grep -q "$3"; then
		tap_ok "$1 refused: $3"
	else
		tap_fail "$1 refused: $3"
	fi
	if dmesg | tail -n +$((n0 + 1)) | grep -q "$4"; then
		tap_ok "$1: dmesg says \"$4\""
	else
		tap_fail "$1: dmesg says \"$4\"" "$(dmesg | tail -n 5)"
	fi
	if cp_module_loaded; then
		tap_fail "$1: not in /proc/modules"
	else
		tap_ok "$1: not in /proc/modules"
	fi
}

case $case in
enforce)
	tap_check "sig_enforce is on" grep -qx Y /sys/module/module/parameters/sig_enforce
	refused "unsigned clockpro.ko" "$CP_MODULE" "Key was rejected by service" \
		"Loading of unsigned module is rejected"
	refused "self-signed clockpro.ko" "$SIGNED" "Key was rejected by service" \
		"Loading of module with unavailable key is rejected"
	;;
lockdown)
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null || true
	tap_check "lockdown is integrity" grep -q '\[integrity\]' /sys/kernel/security/lockdown
	refused "unsigned clockpro.ko" "$CP_MODULE" "Operation not permitted" \
		"Lockdown: insmod: unsigned module loading is restricted"
	refused "self-signed clockpro.ko" "$SIGNED" "Operation not permitted" \
		"Lockdown: insmod: unsigned module loading is restricted"
	;;
permissive)
	tap_check "sig_enforce is off" grep -qx N /sys/module/module/parameters/sig_enforce
	t0=$(cat /proc/sys/kernel/tainted)
	tap_cmp "kernel not tainted E before" "$((t0 & 8192))" "==" 0
	tap_check "self-signed clockpro.ko loads" insmod "$SIGNED"
	tap_check "clockpro in /proc/modules" cp_module_loaded
	t1=$(cat /proc/sys/kernel/tainted)
	tap_cmp "kernel tainted E (unverified module)" "$((t1 & 8192))" "==" 8192
	tap_check "rmmod clockpro" cp_module_unload
	;;
*)
	tap_fail "cp_modsig=enforce|lockdown|permissive on the command line" "got '$case'"
	;;
esac

if out=$(cp_kmod_load crc7 2>&1) && grep -q '^crc7 ' /proc/modules; then
	tap_ok "Debian-signed crc7 loads"
else
	tap_fail "Debian-signed crc7 loads" "$out"
fi
tap_dmesg_clean
tap_done
