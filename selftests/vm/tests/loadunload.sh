#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# loadunload: load and unload the module 100 times while a loop workload
# keeps reclaim busy (every probe firing), then switch observe <-> enforce
# 10 times under the same load (with MGLRU on at boot: enforce through
# classic_lru=1, which switches MGLRU off while enforcing and back 30 s
# after enforce stops or at once on unload; lru_gen/enabled must be back at
# its boot value after every unload).  Any WARN, oops or lockup panics the guest
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
LRU_GEN=/sys/kernel/mm/lru_gen/enabled
BOOT_LRU=$(cat $LRU_GEN 2>/dev/null || echo none)
EXTRA=
[ "$MGLRU" = 1 ] && EXTRA=classic_lru=1
lru_back() {	# count a cycle that did not put lru_gen/enabled back
	[ "$(cat $LRU_GEN 2>/dev/null || echo none)" = "$BOOT_LRU" ] || lru_bad=$((lru_bad + 1))
}
lru_bad=0

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
	[ $((i % 2)) = 0 ] && mode=enforce
	# shellcheck disable=SC2086 # EXTRA: empty or one word
	if ! cp_module_load mode=$mode $EXTRA; then
		fails=$((fails + 1))
	else
		sleep 0.5
		ev=$(cp_stat evictions)
		[ "${ev:-0}" -gt 0 ] || tap_diag "cycle $i: no evictions seen yet"
		if [ "$(cat "$CP_DFS/mode")" != $mode ]; then
			tap_diag "cycle $i: mode $(cat "$CP_DFS/mode"), loaded as $mode"
			fails=$((fails + 1))
		fi
		cp_module_unload || fails=$((fails + 1))
	fi
	lru_back
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

# shellcheck disable=SC2086 # EXTRA: empty or one word
cp_module_load $EXTRA
fails=0
i=1
while [ $i -le 10 ]; do
	echo enforce >"$CP_DFS/mode" || fails=$((fails + 1))
	sleep 1
	[ "$(cat "$CP_DFS/mode")" = enforce ] || fails=$((fails + 1))
	echo observe >"$CP_DFS/mode" || fails=$((fails + 1))
	sleep 1
	i=$((i + 1))
done
tap_diag "after switching: promoted $(cp_stat promoted) held $(cp_stat deactivate_held) rotated $(cp_stat hand_rotated) mglru_tail_calls $(cp_stat mglru_tail_calls)"
tap_cmp "10 observe <-> enforce switches under load${EXTRA:+ ($EXTRA)}, $fails failures" "$fails" "==" 0
tap_cmp "enforce never dropped for MGLRU ($(cp_stat enforce_dropped_mglru))" "$(cp_stat enforce_dropped_mglru)" "==" 0
cp_module_unload
lru_back
tap_cmp "lru_gen/enabled back at $BOOT_LRU after each of 101 unloads ($lru_bad not)" "$lru_bad" "==" 0

kill "$load" 2>/dev/null || true
wait "$load" 2>/dev/null || true
tap_check "module gone" sh -c "! grep -q '^clockpro ' /proc/modules"
tap_check "debugfs directory gone" test ! -e "$CP_DFS"
tap_dmesg_clean
tap_done
