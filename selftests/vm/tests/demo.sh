#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo: what `make demo` shows.  A file of 1.25 x the guest's page cache is
# read in a loop (readahead off: every page read is one page-cache lookup);
# first on the stock kernel with clockpro observing, which prints the
# refault histogram and statistics, then with clockpro enforcing.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"

PG=4096
C=$(cp_cache_size)
F=$(($(fint "$C * 5 / 4 / 1048576") * 1048576))
show() {
	while IFS= read -r l; do tap_diag "  $l"; done <"$1"
}

tap_diag "kernel $(uname -r); page cache C = $((C / 1048576)) MiB; loop over $((F / 1048576)) MiB"
cp_drop_caches
cp_module_load hist_rows=16 hist_width=$(((F - C) / PG / 8))
cp_workload /tmp/demo.stock loop "$CP_DATA" "$F" 4 --no-readahead >/dev/null
tap_diag "stock kernel, clockpro observing: hit ratio per pass"
awk '$1 == "pass" { print "pass " $2 ": " $10 }' /tmp/demo.stock >/tmp/demo.p
show /tmp/demo.p
tap_diag "/sys/kernel/debug/clockpro/refaults:"
show "$CP_DFS/refaults"
tap_diag "/sys/kernel/debug/clockpro/stats:"
show "$CP_DFS/stats"
tap_ok "observe: loop refaults at distance ~F - C = $(((F - C) / PG)) pages"

echo enforce >"$CP_DFS/mode"
cp_drop_caches
cp_workload /tmp/demo.enf loop "$CP_DATA" "$F" 6 --no-readahead >/dev/null
tap_diag "clockpro enforcing: hit ratio per pass"
awk '$1 == "pass" { print "pass " $2 ": " $10 }' /tmp/demo.enf >/tmp/demo.p
show /tmp/demo.p
tap_diag "/sys/kernel/debug/clockpro/lruvecs:"
show "$CP_DFS/lruvecs"
cp_module_unload
tap_ok "enforce: steady hit ratio $(awk '$1 == "pass" && $2 >= 3 { s += $10; n++ } END { printf "%.3f", s / n }' /tmp/demo.enf) (stock $(awk '$1 == "pass" && $2 >= 2 { s += $10; n++ } END { printf "%.3f", s / n }' /tmp/demo.stock))"
tap_done
