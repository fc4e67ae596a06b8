#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# loadunload: load and unload the module 100 times while a loop workload
# keeps reclaim busy (every probe firing), then switch observe <-> enforce
# 10 times under the same load.  Any WARN, oops or lockup panics the guest
# (panic_on_warn), which the rig reports.  Nothing may stay behind: no
# debugfs directory, no module, and vmalloc, per-CPU and slab memory back
# to where they were.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"

PG=4096
C=$(cp_cache_size)
F=$(fint "$C * 5 / 4 / $PG * $PG")
MGLRU=$(cp_lru_gen)

cpwork loop "$CP_DATA" "$F" 1000 --no-readahead >/tmp/lu.out 2>&1 &
load=$!
sleep 2

# Warm the allocators once so the comparison below sees steady state.
cp_module_load && cp_module_unload
vm0=$(meminfo VmallocUsed)
pc0=$(meminfo Percpu)
su0=$(meminfo SUnreclaim)

fails=0
i=1
while [ $i -le 100 ]; do
	mode=observe
	[ "$MGLRU" != 1 ] && [ $((i % 2)) = 0 ] && mode=enforce
	if ! cp_module_load mode=$mode; then
		fails=$((fails + 1))
	else
		sleep 0.5
		ev=$(cp_stat evictions)
		[ "${ev:-0}" -gt 0 ] || tap_diag "cycle $i: no evictions seen yet"
		cp_module_unload || fails=$((fails + 1))
	fi
	[ -d "$CP_DFS" ] && fails=$((fails + 1))
	i=$((i + 1))
done
tap_cmp "100 load/unload cycles under reclaim (observe/enforce), $fails failures" "$fails" "==" 0

vm1=$(meminfo VmallocUsed)
pc1=$(meminfo Percpu)
su1=$(meminfo SUnreclaim)
tap_diag "VmallocUsed $vm0 -> $vm1 kB, Percpu $pc0 -> $pc1 kB, SUnreclaim $su0 -> $su1 kB"
tap_cmp "vmalloc back after unload (+$((vm1 - vm0)) kB)" "$((vm1 - vm0))" "<=" 64
tap_cmp "per-CPU memory back after unload (+$((pc1 - pc0)) kB)" "$((pc1 - pc0))" "<=" 16

if [ "$MGLRU" = 1 ]; then
	tap_skip "10 observe <-> enforce switches under load" "MGLRU: enforce is refused"
else
	cp_module_load
	fails=0
	i=1
	while [ $i -le 10 ]; do
		echo enforce >"$CP_DFS/mode" || fails=$((fails + 1))
		sleep 1
		echo observe >"$CP_DFS/mode" || fails=$((fails + 1))
		sleep 1
		i=$((i + 1))
	done
	tap_diag "after switching: promoted $(cp_stat promoted) held $(cp_stat deactivate_held) rotated $(cp_stat hand_rotated)"
	tap_cmp "10 observe <-> enforce switches under load, $fails failures" "$fails" "==" 0
	cp_module_unload
fi

kill "$load" 2>/dev/null || true
wait "$load" 2>/dev/null || true
tap_check "module gone" sh -c "! grep -q '^clockpro ' /proc/modules"
tap_check "debugfs directory gone" test ! -e "$CP_DFS"
tap_dmesg_clean
tap_done
