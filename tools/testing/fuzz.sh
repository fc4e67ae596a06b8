#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the libFuzzer target for a bounded time and report it as TAP.
#
#   fuzz.sh BINARY SECONDS WORKDIR SEEDDIR
#
# New inputs go to WORKDIR/corpus (the seed directory stays as committed),
# crash reproducers to WORKDIR/artifacts/.  Replay one with
#   BINARY WORKDIR/artifacts/crash-...
set -u
bin=$1 secs=$2 work=$3 seeds=$4

echo "TAP version 13"
echo "1..1"
if [ ! -x "$bin" ]; then
	echo "ok 1 - fuzz_nonres ${secs}s # SKIP no fuzzer binary (clang-14 and libclang-rt-14-dev are needed)"
	exit 0
fi
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/fuzz.log"
"$bin" -max_total_time="$secs" -max_len=512 -timeout=20 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$work/corpus" "$seeds" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
echo "# ${execs:-0} inputs in ${secs}s (${speed:-0}/s), coverage ${cov:-?} edges, corpus $(ls "$work/corpus" | wc -l) + $(ls "$seeds" | wc -l) seeds"
if [ $rc -ne 0 ]; then
	grep -E 'fuzz_nonres:|ERROR|SUMMARY|Test unit written' "$log" | head -n 20 | sed 's/^/# /'
	echo "not ok 1 - fuzz_nonres ${secs}s"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
echo "ok 1 - fuzz_nonres ${secs}s"
echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
