#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke: load /clockpro.ko, check its debugfs directory and read every file
# in it, unload it, check the directory is gone.  Skipped when the initramfs
# carries no module (vmtest.sh without --module).
#
# Kernel command line: cp_smoke_params="a=1 b=2" is passed to insmod
# (spaces are not possible on the command line: use commas, they become
# spaces).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"

tap_diag "kernel $(uname -r), lru_gen $(cp_lru_gen)"
tap_diag "module $(sed -n 's/^module //p' /etc/cp-build-info)"

if cp_module_loaded; then
	tap_fail "clockpro not loaded before the test"
	tap_done
fi

params=$(cp_param cp_smoke_params "" | tr ',' ' ')
# shellcheck disable=SC2086 # params are words
if out=$(cp_module_load $params 2>&1); then
	tap_ok "insmod clockpro.ko${params:+ $params}"
else
	tap_fail "insmod clockpro.ko${params:+ $params}" "$out"
	dmesg | tail -n 20 | sed 's/^/dmesg: /' | while IFS= read -r l; do tap_diag "$l"; done
	tap_done
fi

tap_check "clockpro listed in /proc/modules" cp_module_loaded
tap_check "debugfs directory $CP_DFS exists" test -d "$CP_DFS"

if [ -d "$CP_DFS" ]; then
	files=$(find "$CP_DFS" -type f | sort)
	if [ -n "$files" ]; then
		tap_ok "debugfs has $(echo "$files" | wc -l) files"
	else
		tap_fail "debugfs has files"
	fi
	for f in $files; do
		if [ ! -r "$f" ] || [ "$(stat -c %a "$f")" = 200 ]; then
			tap_skip "read $f" "not readable"
			continue
		fi
		if cat "$f" >/tmp/smoke.cat 2>&1; then
			tap_ok "read $f ($(wc -l </tmp/smoke.cat) lines)"
			head -n 40 /tmp/smoke.cat | while IFS= read -r l; do tap_diag "  $l"; done
		else
			tap_fail "read $f" "$(cat /tmp/smoke.cat)"
		fi
	done
fi

# The module must not have warned while loading or being read.
if dmesg | grep -E 'WARNING:|BUG:|Call Trace' >/dev/null; then
	tap_fail "no kernel warnings after load"
else
	tap_ok "no kernel warnings after load"
fi
dmesg | grep -i clockpro | tail -n 10 | while IFS= read -r l; do tap_diag "dmesg: $l"; done

if out=$(cp_module_unload 2>&1); then
	tap_ok "rmmod clockpro"
else
	tap_fail "rmmod clockpro" "$out"
fi
if cp_module_loaded; then
	tap_fail "clockpro gone from /proc/modules"
else
	tap_ok "clockpro gone from /proc/modules"
fi
if [ -e "$CP_DFS" ]; then
	tap_fail "debugfs directory removed"
else
	tap_ok "debugfs directory removed"
fi

tap_done
