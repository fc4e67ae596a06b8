#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# numa: the loop of 1.25 C on a guest with two NUMA nodes (vmtest.sh
# --numa 2): each node has its own lruvec, its own lists and its own
# eviction clock, and the module holds each at its own target.  Stock and
# clockpro enforce in one boot.  Asserted: the guest has two nodes with
# memory; state for both nodes; refaults that land on the other node than
# the one that evicted them are judged on the evicting node's clock;
# clockpro's passes 3-8 no more than 5 points below stock (or >= 0.7).
# The goal, >= 0.7, is reported (TODO when missed): how the loop's pages
# spread over the nodes changes from boot to boot, and so do both figures
# (docs/results.md: clockpro 0.53-0.80, stock 0.32-0.76 in 2026-12-06's
# boots).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
[ "$(cp_lru_gen)" != 1 ] || tap_skip_all "MGLRU on: enforce is refused"

nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
tap_cmp "two NUMA nodes online ($nodes)" "$nodes" "==" 2
for n in 0 1; do
	tap_diag "node $n: $(awk '/MemTotal|Active\(file\)|Inactive\(file\)/ { printf "%s %s kB ", $3, $4 }' /sys/devices/system/node/node$n/meminfo)"
done

PG=4096
C=$(cp_cache_size)
F=$(($(fint "$C * 5 / 4 / 1048576") * 1048576))
tap_diag "C = $((C / PG)) pages, loop $((F / 1048576)) MiB"

loop_ratio() {
	awk '$1 == "pass" && $2 >= 3 { s += $10; n++ } END { if (n) printf "%.4f", s / n }' "$1"
}

cp_drop_caches
cpwork loop "$CP_DATA" "$F" 8 --no-readahead >/tmp/numa.stock 2>&1 || true
stock=$(loop_ratio /tmp/numa.stock)

cp_reclaim_quiesce
cp_module_load mode=enforce
cp_drop_caches
cpwork loop "$CP_DATA" "$F" 8 --no-readahead >/tmp/numa.cp 2>&1 || true
cp=$(loop_ratio /tmp/numa.cp)
tap_diag "lruvecs: $(tr '\n' ';' <"$CP_DFS/lruvecs")"
tap_diag "stats: $(awk 'NF == 2 && $2 ~ /^[0-9]+$/ && $2 > 0 { printf "%s %s ", $1, $2 }' "$CP_DFS/stats")"
used=$(awk 'NR > 1 && $3 + $4 > 0 { print $2 }' "$CP_DFS/lruvecs" | sort -u | wc -l)
remote=$(cp_stat remote_refaults || echo 0)
refaults=$(cp_stat refaults)
cp_reclaim_quiesce
cp_module_unload

tap_diag "loop on two nodes: stock ${stock:-none} clockpro ${cp:-none}"
tap_cmp "state for the lruvecs of both nodes ($used)" "$used" "==" 2
# A loop larger than one node spills its refaults to the other: those are
# judged on the clock of the node that evicted them (the shadow's node).
tap_cmp "refaults judged on the evicting node's clock: ${remote:-none} of ${refaults:-none}" \
	"${remote:-0}" ">" 0
# Both figures move by up to 0.1 from boot to boot (the pages' spread over
# the nodes); clockpro fell 5.2 points below a stock run of 0.759 (one
# boot in fourteen, 6.12): within 5 points of stock, or at the goal.
floor=$(fcalc "${stock:-0} - 0.05")
[ "$(fcalc "$floor > 0.7")" = 1 ] && floor=0.7
tap_cmp "loop on two nodes: clockpro ${cp:-none} no more than 5 points below stock ${stock:-none}, or >= 0.7" \
	"${cp:-0}" ">=" "$floor"
if [ "$(fcalc "${cp:-0} >= 0.7")" = 1 ]; then
	tap_ok "loop on two nodes: clockpro $cp >= 0.7"
else
	tap_todo "loop on two nodes: clockpro ${cp:-none} >= 0.7" "varies from boot to boot with the nodes' shares (0.53-0.80 seen)"
fi
tap_dmesg_clean
tap_done
