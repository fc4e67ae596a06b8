#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hooks: the hook-site health check at load (module/hooks.c).  The stats
# file has one line per hook, "hook_<function> <state> <mechanism>
# <feature>[:off] proto:<where> [error:<errno>]": every hook of this kernel
# must be there, observe's armed, enforce's ready (observing).  Then the
# refusal paths, with the test-only parameter test_missing_hook, which
# makes one hook resolve a symbol no kernel has:
#  - a required (observe) hook: insmod fails with ENOENT, a dmesg line names
#    the function and the kernel release, nothing is left behind;
#  - an enforce hook: the module loads and observes, the hook's line says
#    missing and enforce:off, a dmesg line says so, enforce is refused
#    (written, and at load) with a line naming the hook;
#  - the MGLRU guard: loads, the line says mglru_guard:off.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"

rel=$(uname -r)
tap_diag "kernel $rel, lru_gen $(cp_lru_gen)"

observe_hooks="workingset_eviction folio_add_lru workingset_refault"
enforce_hooks="mem_cgroup_css_free folio_mark_accessed shrink_active_list folio_referenced"
all_hooks="$observe_hooks $enforce_hooks evict_folios"

# hook_state FUNCTION: the state word of its stats line
hook_state() {
	awk -v k="hook_$1" '$1 == k { print $2; exit }' "$CP_DFS/stats"
}

hook_line() {
	grep "^hook_$1 " "$CP_DFS/stats"
}

# --- a normal load: every hook present ---------------------------------------

if out=$(cp_module_load 2>&1); then
	tap_ok "insmod clockpro.ko"
else
	tap_fail "insmod clockpro.ko" "$out"
	tap_done
fi
grep '^hook_' "$CP_DFS/stats" | while IFS= read -r l; do tap_diag "  $l"; done

n=$(grep -c '^hook_' "$CP_DFS/stats" || true)
tap_cmp "stats has a line per hook" "$n" == 8
bad=
for h in $observe_hooks mem_cgroup_css_free; do
	[ "$(hook_state "$h")" = armed ] || bad="$bad $h($(hook_state "$h"))"
done
for h in folio_mark_accessed shrink_active_list folio_referenced evict_folios; do
	[ "$(hook_state "$h")" = ready ] || bad="$bad $h($(hook_state "$h"))"
done
if [ -z "$bad" ]; then
	tap_ok "every hook site present: observe's armed, enforce's ready"
else
	tap_fail "every hook site present: observe's armed, enforce's ready" "$bad"
fi
bad=
for h in $all_hooks; do
	hook_line "$h" | grep -q ':off\|error:' && bad="$bad $h"
done
tap_check "no feature off, no hook error${bad:+:$bad}" test -z "$bad"
bad=
for h in workingset_eviction folio_add_lru workingset_refault mem_cgroup_css_free \
	 folio_mark_accessed folio_referenced; do
	hook_line "$h" | grep -q ' proto:header$' || bad="$bad $h"
done
tap_check "prototypes checked against the kernel's headers${bad:+ (not:$bad)}" test -z "$bad"
cp_module_unload

# --- a required hook missing: the load fails ----------------------------------

dmesg -c >/dev/null
if out=$(cp_module_load test_missing_hook=workingset_eviction 2>&1); then
	tap_fail "insmod with workingset_eviction missing refused" "it loaded"
	cp_module_unload
else
	tap_ok "insmod with workingset_eviction missing refused"
	tap_diag "$out"
fi
# busybox insmod words ENOENT as "unknown symbol in module, or unknown
# parameter" (modutils.c moderror())
case $out in
*"No such file"*|*"unknown symbol in module, or unknown parameter"*)
	tap_ok "the errno is ENOENT" ;;
*) tap_fail "the errno is ENOENT" "$out" ;;
esac
dmesg | grep clockpro | while IFS= read -r l; do tap_diag "dmesg: $l"; done
tap_check "dmesg names the function and the kernel release" sh -c \
	"dmesg | grep -q 'clockpro: cannot hook workingset_eviction on $rel: not in kallsyms.*error -2.*not supported'"
if cp_module_loaded || [ -e "$CP_DFS" ]; then
	tap_fail "nothing left behind"
else
	tap_ok "nothing left behind"
fi

# --- an enforce hook missing: observe works, enforce is refused ---------------

dmesg -c >/dev/null
if out=$(cp_module_load test_missing_hook=shrink_active_list 2>&1); then
	tap_ok "insmod with shrink_active_list missing loads"
	hook_line shrink_active_list | while IFS= read -r l; do tap_diag "  $l"; done
	tap_check "its line says missing, enforce off, ENOENT" sh -c \
		"grep -q '^hook_shrink_active_list missing kprobe enforce:off proto:[^ ]* error:-2$' $CP_DFS/stats"
	tap_check "dmesg says enforce is off" sh -c \
		"dmesg | grep -q 'clockpro: cannot hook shrink_active_list on $rel: not in kallsyms.*enforce is off'"
	bad=
	for h in $observe_hooks; do
		[ "$(hook_state "$h")" = armed ] || bad="$bad $h"
	done
	tap_check "observe's hooks armed${bad:+ (not:$bad)}" test -z "$bad"
	if echo enforce >"$CP_DFS/mode" 2>/dev/null; then
		tap_fail "enforce refused"
	else
		tap_ok "enforce refused"
	fi
	tap_check "still observing" sh -c "[ \"\$(cat $CP_DFS/mode)\" = observe ]"
	tap_check "dmesg names the missing hook" sh -c \
		"dmesg | grep -q 'clockpro: enforce refused: no hook on shrink_active_list in this kernel ($rel)'"
	head -c 8388608 "$CP_DATA" >/dev/null
	tap_cmp "observing counts insertions" "$(cp_stat insertions)" ">" 0
	cp_module_unload
else
	tap_fail "insmod with shrink_active_list missing loads" "$out"
fi

dmesg -c >/dev/null
if out=$(cp_module_load mode=enforce test_missing_hook=folio_referenced 2>&1); then
	tap_fail "insmod mode=enforce with folio_referenced missing refused" "it loaded"
	cp_module_unload
else
	tap_ok "insmod mode=enforce with folio_referenced missing refused"
fi
tap_check "dmesg names it" sh -c \
	"dmesg | grep -q 'clockpro: mode=enforce refused: no hook on folio_referenced in this kernel ($rel)'"

# --- the MGLRU guard missing: only it is off ----------------------------------

if out=$(cp_module_load test_missing_hook=evict_folios 2>&1); then
	tap_ok "insmod with evict_folios missing loads"
	tap_check "its line says mglru_guard:off" sh -c \
		"grep -q '^hook_evict_folios missing kprobe mglru_guard:off .*error:-2$' $CP_DFS/stats"
	bad=
	for h in $enforce_hooks; do
		hook_line "$h" | grep -q ':off' && bad="$bad $h"
	done
	tap_check "enforce's own hooks still there${bad:+ (off:$bad)}" test -z "$bad"
	cp_module_unload
else
	tap_fail "insmod with evict_folios missing loads" "$out"
fi

tap_dmesg_clean
tap_done
