#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# knobs: every tunable refuses bad input with an error, and the value stays
# what it was; good input is taken, through debugfs and through the module
# parameters alike; a bad load-time parameter fails the load with one clear
# dmesg line; enforce is refused under MGLRU.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"

PAR=/sys/module/clockpro/parameters

# bad_write FILE VALUE: the write must fail and leave FILE unchanged.
bad_write() {
	before=$(cat "$1")
	if printf '%s' "$2" >"$1" 2>/dev/null; then
		tap_fail "$1 refuses '$2'" "write succeeded, now $(cat "$1")"
		return
	fi
	after=$(cat "$1")
	if [ "$before" = "$after" ]; then
		tap_ok "$1 refuses '$2', stays $after"
	else
		tap_fail "$1 refuses '$2'" "value changed: $before -> $after"
	fi
}

good_write() {
	if printf '%s' "$2" >"$1" && [ "$(cat "$1")" = "$2" ]; then
		tap_ok "$1 takes $2"
	else
		tap_fail "$1 takes $2" "reads $(cat "$1")"
	fi
}

LRU_GEN=/sys/kernel/mm/lru_gen/enabled
cp_module_load
for dir in "$CP_DFS" "$PAR"; do
	for k in target_min_pct target_max_pct target_init_pct fixed_pct \
		 hyst_pct floor_pct; do
		bad_write "$dir/$k" -1
		bad_write "$dir/$k" abc
		bad_write "$dir/$k" 1000
	done
	bad_write "$dir/step" 0
	bad_write "$dir/hand_batch" 0
	bad_write "$dir/hand_batch" 100000
	bad_write "$dir/age_pct" 1001
	bad_write "$dir/age_pct" -1
	bad_write "$dir/idle_pct" 101
	bad_write "$dir/idle_pct" -1
	bad_write "$dir/hist_rows" 0
	bad_write "$dir/hist_rows" 257
	# Inconsistent with the others: min above max, max leaving no floor.
	bad_write "$dir/target_min_pct" 96
	bad_write "$dir/target_max_pct" 97
	bad_write "$dir/target_max_pct" 5
	bad_write "$dir/mode" bogus
	good_write "$dir/step" 4
	good_write "$dir/step" 1
	good_write "$dir/hist_rows" 64
	good_write "$dir/age_pct" 0
	good_write "$dir/age_pct" 100
	good_write "$dir/idle_pct" 0
	good_write "$dir/idle_pct" 2
done
if printf 0 >"$CP_DFS/refaults" 2>/dev/null; then
	tap_fail "refaults is read-only"
else
	tap_ok "refaults is read-only"
fi
for v in 2 0 refault "$(printf '%0200d' 1)"; do
	if printf '%s' "$v" >"$CP_DFS/reset" 2>/dev/null; then
		tap_fail "reset refuses '$(echo "$v" | cut -c1-20)'"
	else
		tap_ok "reset refuses '$(echo "$v" | cut -c1-20)'"
	fi
done
ev=$(cp_stat evictions)
if printf refaults >"$CP_DFS/reset"; then
	tap_ok "reset takes 'refaults' (the histogram alone)"
else
	tap_fail "reset takes 'refaults' (the histogram alone)"
fi
tap_cmp "reset refaults leaves the statistics ($ev -> $(cp_stat evictions))" "$(cp_stat evictions)" ">=" "$ev"
tap_check "dmesg names the refused knob" sh -c "dmesg | grep -q 'clockpro: hand_batch: 100000 out of range'"

if [ "$(cp_lru_gen)" = 1 ]; then
	bad_write "$CP_DFS/mode" enforce
	bad_write "$PAR/mode" enforce
	tap_check "dmesg explains the enforce refusal" sh -c "dmesg | grep -q 'enforce refused: the multi-gen LRU is on (classic_lru=1'"
	# classic_lru: enforce switches MGLRU off while it runs, and back
	boot=$(cat $LRU_GEN)
	bad_write "$PAR/classic_lru" maybe
	good_write "$PAR/classic_lru" Y
	good_write "$CP_DFS/mode" enforce
	tap_check "classic_lru: MGLRU off while enforcing ($(cat $LRU_GEN))" test "$(cat $LRU_GEN)" = 0x0000
	tap_check "stats: lru_gen_held_off $boot" grep -qx "lru_gen_held_off $boot" "$CP_DFS/stats"
	good_write "$PAR/mode" observe
	# MGLRU comes back 30 s after enforce stopped (not at each flip)
	good_write "$CP_DFS/mode" enforce
	good_write "$CP_DFS/mode" observe
	tap_check "classic_lru: MGLRU still off right after observe ($(cat $LRU_GEN))" test "$(cat $LRU_GEN)" = 0x0000
	sleep 32
	tap_check "classic_lru: MGLRU back at $boot 30 s after enforce stopped ($(cat $LRU_GEN))" test "$(cat $LRU_GEN)" = "$boot"
	tap_check "stats: lru_gen_held_off 0x0000" grep -qx "lru_gen_held_off 0x0000" "$CP_DFS/stats"
	tap_check "dmesg says MGLRU went off and came back" sh -c "dmesg | grep -q 'classic_lru: the multi-gen LRU is off while enforcing (lru_gen/enabled was $boot)' && dmesg | grep -q 'classic_lru: the multi-gen LRU is back (lru_gen/enabled $boot): enforce stopped'"
	tap_cmp "MGLRU switched off once for three enforce starts" "$(dmesg | grep -c 'classic_lru: the multi-gen LRU is off while enforcing')" "==" 1
else
	good_write "$CP_DFS/mode" enforce
	good_write "$PAR/mode" observe
	good_write "$PAR/mode" enforce
	good_write "$CP_DFS/mode" observe
fi

# Hooks follow the mode: observing arms only insertion, eviction, refault
# and the memcg's end; a cached read (folio_mark_accessed) then reaches no
# handler.  hooks_in KEY SYMBOL: SYMBOL is listed on the stats line KEY.
hooks_in() {
	awk -v k="$1" -v s="$2" '$1 == k { n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == s) f = 1 } END { exit !f }' "$CP_DFS/stats"
}
observe_hooks="workingset_eviction folio_add_lru workingset_refault mem_cgroup_css_free"
enforce_hooks="folio_mark_accessed shrink_active_list folio_referenced"
hooks_follow() {	# MODE
	bad=
	for h in $observe_hooks; do
		hooks_in hooks "$h" || bad="$bad $h(not armed)"
	done
	for h in $enforce_hooks; do
		if [ "$1" = enforce ]; then
			hooks_in hooks "$h" || bad="$bad $h(not armed)"
		else
			hooks_in hooks_disarmed "$h" || bad="$bad $h(armed)"
		fi
	done
	if [ -z "$bad" ]; then
		tap_ok "$1: the hooks of the mode armed, the others not"
	else
		tap_fail "$1: the hooks of the mode armed, the others not" "$bad; $(grep '^hooks' "$CP_DFS/stats" | tr '\n' ';')"
	fi
}
hooks_follow observe
if [ "$(cp_lru_gen)" != 1 ] && [ -e /sys/kernel/mm/lru_gen/enabled ]; then
	echo enforce >"$CP_DFS/mode"
	hooks_follow enforce
	# MGLRU switched on under enforce: the first MGLRU reclaim drops
	# the module to observe, and its enforce hooks are disarmed.
	echo y >/sys/kernel/mm/lru_gen/enabled
	cp_drop_caches
	cpwork loop "$CP_DATA" "$(($(cp_cache_size) * 3 / 2 / 1048576 * 1048576))" 1 >/dev/null 2>&1 || true
	sleep 1
	tap_check "MGLRU reclaim under enforce: back to observe ($(cat "$CP_DFS/mode"))" test "$(cat "$CP_DFS/mode")" = observe
	hooks_follow observe
	echo n >/sys/kernel/mm/lru_gen/enabled
elif [ "$(cp_lru_gen)" = 1 ]; then
	# classic_lru (set above), and someone switches MGLRU on while
	# enforce holds it off: the first MGLRU reclaim drops the module to
	# observe; MGLRU stays as they set it.
	echo enforce >"$CP_DFS/mode"
	hooks_follow enforce
	echo y >$LRU_GEN
	on=$(cat $LRU_GEN)
	cp_drop_caches
	cpwork loop "$CP_DATA" "$(($(cp_cache_size) * 3 / 2 / 1048576 * 1048576))" 1 >/dev/null 2>&1 || true
	sleep 1
	tap_check "MGLRU switched on under classic_lru enforce: back to observe ($(cat "$CP_DFS/mode"))" test "$(cat "$CP_DFS/mode")" = observe
	hooks_follow observe
	tap_check "MGLRU left as it was switched ($(cat $LRU_GEN))" test "$(cat $LRU_GEN)" = "$on"
	tap_check "dmesg: MGLRU switched on meanwhile, left so" sh -c "dmesg | grep -q 'classic_lru: the multi-gen LRU was switched on meanwhile'"
	echo "$boot" >$LRU_GEN
fi
cp_module_unload

# Bad load-time parameters: the load fails, nothing stays behind.
for p in table_pct=0 table_pct=5000 hist_rows=0 target_min_pct=90 step=0 mode=fast; do
	if cp_module_load "$p" 2>/dev/null; then
		tap_fail "insmod $p refused"
		cp_module_unload
	elif cp_module_loaded || [ -d "$CP_DFS" ]; then
		tap_fail "insmod $p refused" "module or debugfs left behind"
	else
		tap_ok "insmod $p refused, nothing left behind"
	fi
done
tap_check "dmesg explains table_pct=5000" sh -c "dmesg | grep -q 'table_pct=5000 out of range'"
if [ "$(cp_lru_gen)" = 1 ]; then
	if cp_module_load mode=enforce 2>/dev/null; then
		tap_fail "insmod mode=enforce refused under MGLRU"
		cp_module_unload
	else
		tap_ok "insmod mode=enforce refused under MGLRU"
	fi
	if cp_module_load mode=enforce classic_lru=1; then
		tap_check "insmod mode=enforce classic_lru=1: enforcing, MGLRU off" sh -c "grep -qx enforce $CP_DFS/mode && grep -qx 0x0000 $LRU_GEN"
		cp_module_unload
		tap_check "rmmod puts MGLRU back at $boot ($(cat $LRU_GEN))" test "$(cat $LRU_GEN)" = "$boot"
		tap_check "dmesg: back at unload" sh -c "dmesg | grep -q 'classic_lru: the multi-gen LRU is back (lru_gen/enabled $boot): module unloaded'"
	else
		tap_fail "insmod mode=enforce classic_lru=1 under MGLRU"
	fi
fi

tap_dmesg_clean
tap_done
