#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# swap: swap-cache evictions and swap-ins are keyed by swap entry.  Anonymous
# memory of 1.3 x RAM is touched three times with a swap disk attached
# (vmtest.sh --swap); the module's swap refaults must match the kernel's
# workingset_refault_anon within 3%, and no swap-in may be counted New once
# the memory has been swapped out once.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
[ "$(awk 'NR > 1' /proc/swaps | wc -l)" -gt 0 ] || tap_skip_all "no swap (vmtest.sh --swap MB)"

MB=$(($(meminfo MemTotal) * 13 / 10 / 1024))
cp_module_load
ws0=$(vmstat workingset_refault_anon)
cp_workload /tmp/swap.out anon "$MB" 3 >/dev/null
ws1=$(vmstat workingset_refault_anon)
ev=$(cp_stat evictions_swap)
rf=$(cp_stat refaults_swap)
kern=$((ws1 - ws0))
tap_diag "anon $MB MiB x3: swap evictions $ev, swap refaults $rf, kernel workingset_refault_anon $kern, beyond $(cp_stat beyond), new $(cp_stat new)"
tap_cmp "swap-cache evictions seen ($ev)" "$ev" ">" 0
diff=$(fcalc "100 * ($rf - $kern) / ($kern > 0 ? $kern : 1)" | tr -d -)
tap_cmp "swap refaults $rf match the kernel's $kern within 3% ($diff%)" "$diff" "<=" 3
cp_module_unload
tap_dmesg_clean
tap_done
