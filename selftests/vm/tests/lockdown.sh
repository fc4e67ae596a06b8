#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lockdown: under kernel lockdown (integrity, as Secure Boot sets it) the
# debugfs tunables refuse writes, the module parameters still take them,
# and the statistics stay readable.  Lockdown is one-way: the module is
# loaded first (an unsigned module could not be loaded afterwards), then
# /sys/kernel/security/lockdown is raised; run this test last in a boot.
# Then the module is loaded again: it says at load that the tunables are
# in /sys/module/clockpro/parameters.  (Loading an unsigned module under
# lockdown is refused with module.sig_enforce; Debian's kernels without
# Secure Boot only taint.)
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null || true
LD=/sys/kernel/security/lockdown
[ -w "$LD" ] || tap_skip_all "no $LD (lockdown LSM not built in)"

PAR=/sys/module/clockpro/parameters
# a loop larger than memory: reclaim runs throughout
cpwork loop "$CP_DATA" "$(($(meminfo MemTotal) * 3 / 2048))M" 1000 >/dev/null 2>&1 &
load=$!
cp_module_load
echo integrity >"$LD"
tap_check "lockdown is integrity: $(cat "$LD")" grep -q '\[integrity\]' "$LD"

# debugfs does not even open a writable file under lockdown
if (printf 7 >"$CP_DFS/step") 2>/dev/null; then
	tap_fail "debugfs tunable refuses a write under lockdown" "step now $(cat "$PAR/step")"
else
	tap_ok "debugfs tunable refuses a write under lockdown, step stays $(cat "$PAR/step")"
fi
tap_cmp "the refused write changed nothing" "$(cat "$PAR/step")" "==" 1
tap_check "dmesg says why (lockdown, debugfs)" sh -c "dmesg | grep -qiE 'lockdown.*debugfs|debugfs.*lockdown'"
printf 7 >"$PAR/step"
tap_cmp "module parameter takes step 7 under lockdown" "$(cat "$PAR/step")" "==" 7
printf 1 >"$PAR/step"
if [ "$(cp_lru_gen)" != 1 ]; then
	printf enforce >"$PAR/mode"
	tap_check "mode enforce through the module parameter" grep -qx enforce "$PAR/mode"
	printf observe >"$PAR/mode"
fi
sleep 2
tap_check "stats readable under lockdown" sh -c "grep -q '^evictions [0-9]' $CP_DFS/stats"
tap_check "refaults readable under lockdown" sh -c "grep -q 'Refault distance' $CP_DFS/refaults"
# tools/clockprostat reads only those 0444 files: it still works
tap_check "clockprostat -j works under lockdown" sh -c \
	"clockprostat -j | awk -f /lib/cp/json.awk | grep -q '^1.counters.evictions [0-9]'"
ev=$(cp_stat evictions)
tap_cmp "evictions counted under lockdown ($ev)" "$ev" ">" 0
kill "$load" 2>/dev/null || true
wait "$load" 2>/dev/null || true
tap_check "rmmod under lockdown" cp_module_unload
if cp_module_load 2>/dev/null; then
	tap_check "a load under lockdown names the module parameters" sh -c "dmesg | grep -q 'clockpro: kernel lockdown: .*parameters'"
	cp_module_unload
else
	tap_skip "a load under lockdown names the module parameters" "insmod refused under lockdown (unsigned)"
fi
tap_dmesg_clean
tap_done
