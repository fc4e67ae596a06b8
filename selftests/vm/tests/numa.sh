#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# numa: the loop of 1.25 C on a guest with two NUMA nodes (vmtest.sh
# --numa 2): each node has its own lruvec, its own lists and its own
# eviction clock, and the module holds each at its own target.  Stock and
# clockpro enforce in one boot.  Asserted: the guest has two nodes with
# memory; state for both nodes; clockpro's passes 3-8 no more than 5
# points below stock.  The goal, >= 0.7, is reported (TODO when missed):
# how the loop's pages spread over the nodes changes from boot to boot,
# and so do both figures (clockpro/stock 0.58/0.53, 0.66/0.67 on 6.12,
# 0.55/0.39 on 6.1; 0.81 in a boot without the stock run).
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

cp_module_load mode=enforce
cp_drop_caches
cpwork loop "$CP_DATA" "$F" 8 --no-readahead >/tmp/numa.cp 2>&1 || true
cp=$(loop_ratio /tmp/numa.cp)
tap_diag "lruvecs: $(tr '\n' ';' <"$CP_DFS/lruvecs")"
tap_diag "stats: $(awk 'NF == 2 && $2 ~ /^[0-9]+$/ && $2 > 0 { printf "%s %s ", $1, $2 }' "$CP_DFS/stats")"
used=$(awk 'NR > 1 && $3 + $4 > 0 { print $2 }' "$CP_DFS/lruvecs" | sort -u | wc -l)
cp_module_unload

tap_diag "loop on two nodes: stock ${stock:-none} clockpro ${cp:-none}"
tap_cmp "state for the lruvecs of both nodes ($used)" "$used" "==" 2
tap_cmp "loop on two nodes: clockpro ${cp:-none} no more than 5 points below stock ${stock:-none}" \
	"${cp:-0}" ">=" "$(fcalc "${stock:-0} - 0.05")"
if [ "$(fcalc "${cp:-0} >= 0.7")" = 1 ]; then
	tap_ok "loop on two nodes: clockpro $cp >= 0.7"
else
	tap_todo "loop on two nodes: clockpro ${cp:-none} >= 0.7" "varies from boot to boot with the nodes' shares (0.55-0.81 seen)"
fi
tap_dmesg_clean
tap_done
