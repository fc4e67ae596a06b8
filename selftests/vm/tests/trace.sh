#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace: the clockpro trace events (module/clockpro_trace.h) against the
# stats counters they mirror, through stock tracefs.
#
# A file of 1.25 x its memory.max is read in a loop in a memcg of a third
# of the page cache, once observing and once enforcing, with every event of the
# clockpro system enabled (reclaim is the memcg's, in the reader); an awk
# reader drains trace_pipe as it fills and sums the events' fields.  The
# counters are read just before and just after the events are switched on
# (S0a, S0b), and just before and just after they are switched off (S1a,
# S1b): every counted page evicted while the events were on has its event
# and no other does, so the events' sum lies in [S1a - S0b, S1b - S0a].
# On this single-CPU guest a handler counts and emits with preemption off,
# so nothing falls between the two; the guest is idle around the switches,
# and the bracket is reported (usually it is one number: exact equality).
# The ring buffer's overrun and dropped counts must be 0 (a reader drains
# it while the loop runs; 8 MiB holds some 100 000 events besides).
#
# Asserted, each in [inner, outer] of its counter:
#  - observe: sum(evict nr) = evictions, sum(refault hits) = refaults, and
#    every refault's verdict is "observed";
#  - enforce: the same, and sum(refault nr) by verdict = promoted and
#    kept_cold, cold_hit events = cold_hits (flags without "active") and
#    demoted_hits (with), sum(hand nr) = hand_rotated (rotate) and
#    hand_demoted (demote);
#  - clockpro_target: per (memcg, node), each event's old target is the
#    previous event's new one (no change is missed: a changed target
#    always emits, on one CPU in order), and the last new target is the
#    lruvecs file's target for that row if no decision came after;
#  - the memcg field: every eviction event of the enforce run carries the
#    memcg id the lruvecs file gives the cgroup (its cgroup_ino row).
#
# With perf in the initramfs (CP_PERF=1 mkinitramfs.sh, a guest of 512 MiB
# for its 48 MiB), `perf record -e 'clockpro:*'` of a loop observing: no
# event lost, and its evict nr and refault hits sum to the counters'
# changes around it (the memcg's reclaim runs in the loop's task alone).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
T=/sys/kernel/tracing
[ -w "$T/trace_pipe" ] || [ -r "$T/trace_pipe" ] || tap_skip_all "no tracefs at $T"
[ "$(grep -c '^processor' /proc/cpuinfo)" = 1 ] ||
	tap_skip_all "the exact bracket needs a single-CPU guest"

ENFORCE_ARGS=
[ "$(cp_lru_gen)" != 1 ] || ENFORCE_ARGS=classic_lru=1

# The ring buffer's size and clock as found, put back at the end: the
# tests after this one in the boot get their memory back.
read -r BUF0 _ <"$T/buffer_size_kb"
CLOCK0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$T/trace_clock")

PG=4096
# A third of the cheap upper bound of the page cache: the counts, not a
# hit ratio, are what is tested (runtime: under 2 minutes), and the loop
# of 1.25 x the memcg's limit surely does not fit.
MAX=$(fint "$(cp_cache_estimate) / 3 / $PG * $PG")
F=$(fint "$MAX * 5 / 4 / $PG * $PG")
CG=cptrace
cp_cgroup_new $CG "$MAX"
tap_diag "kernel $(uname -r) lru_gen $(cp_lru_gen) loop of $((F / PG)) pages in a memcg of $((MAX / PG))"

cat >/tmp/trace.awk <<'EOF'
# Sums of the clockpro events' fields from trace_pipe, printed as
# "name value" lines when the marker CPEND arrives.
{
	ev = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^clockpro_[a-z_]+:$/) {
			ev = substr($i, 1, length($i) - 1)
			break
		}
		if ($i == "tracing_mark_write:" && $(i + 1) == "CPEND") {
			report()
			exit
		}
	}
	if (ev == "")
		next
	delete f
	for (i++; i <= NF; i++) {
		eq = index($i, "=")
		if (eq)
			f[substr($i, 1, eq - 1)] = substr($i, eq + 1)
	}
	n[ev]++
	if (ev == "clockpro_evict") {
		evict_nr += f["nr"]
		evict_memcg[f["memcg"]] += f["nr"]
	} else if (ev == "clockpro_refault") {
		refault_hits += f["hits"]
		verdict[f["verdict"]] += f["nr"]
	} else if (ev == "clockpro_cold_hit") {
		if (f["flags"] ~ /active/)
			demoted_hits++
		else
			cold_hits++
	} else if (ev == "clockpro_hand") {
		hand[f["action"]] += f["nr"]
	} else if (ev == "clockpro_target") {
		k = f["memcg"] "/" f["nid"]
		if (k in last && last[k] != f["old"])
			breaks++
		last[k] = f["new"]
	}
}
function report(k) {
	printf "events_evict %d\nevents_refault %d\nevents_cold_hit %d\n",
		n["clockpro_evict"], n["clockpro_refault"], n["clockpro_cold_hit"]
	printf "events_hand %d\nevents_target %d\n", n["clockpro_hand"],
		n["clockpro_target"]
	printf "evictions %d\nrefaults %d\n", evict_nr, refault_hits
	printf "observed %d\npromoted %d\nkept_cold %d\nno_slot %d\n",
		verdict["observed"], verdict["promoted"], verdict["kept_cold"],
		verdict["no_slot"]
	printf "cold_hits %d\ndemoted_hits %d\n", cold_hits, demoted_hits
	printf "hand_rotated %d\nhand_demoted %d\n", hand["rotate"], hand["demote"]
	printf "target_breaks %d\n", breaks
	for (k in last)
		printf "target %s %s\n", k, last[k]
	for (k in evict_memcg)
		printf "evict_memcg %s %d\n", k, evict_memcg[k]
	print "done 1"
}
EOF

# The counters of the enforce decisions (a reuse has none)
DECISIONS="evictions insertions refaults cold_hits demoted_hits hand_rotated
hand_demoted deactivate_held deactivate_sized deactivate_escalated"

# Counters of the stats file, "name value", into $1.
snap() {
	awk 'NF == 2 && $2 ~ /^[0-9]+$/' "$CP_DFS/stats" >"$1"
}

# Overrun and dropped events of the ring buffer, all CPUs.
ring_lost() {
	cat "$T"/per_cpu/cpu*/stats |
		awk '$1 == "overrun:" || ($1 == "dropped" && $2 == "events:") { s += $NF }
			END { print s + 0 }'
}

trace_phase() {	# $1: label, $2: passes of the loop
	label=$1
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	echo >"$T/set_event"
	echo 8192 >"$T/buffer_size_kb"
	echo global >"$T/trace_clock" 2>/dev/null || :
	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	rm -f /tmp/trace.sums
	awk -f /tmp/trace.awk "$T/trace_pipe" >/tmp/trace.sums &
	reader=$!

	snap /tmp/s0a
	echo 1 >"$T/events/clockpro/enable"
	snap /tmp/s0b
	cp_cgroup_exec $CG cpwork loop "$CP_DATA" "$F" "$2" --no-readahead >/tmp/trace.loop
	snap /tmp/s1a
	echo 0 >"$T/events/clockpro/enable"
	snap /tmp/s1b
	echo CPEND >"$T/trace_marker"
	i=0
	while ! grep -q '^done' /tmp/trace.sums 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "$reader" 2>/dev/null || :
	wait "$reader" 2>/dev/null || :
	lost=$(ring_lost)
	echo 0 >"$T/tracing_on"
	if ! grep -q '^done' /tmp/trace.sums 2>/dev/null; then
		tap_fail "$label: the trace reader saw the end marker"
		return 1
	fi
	tap_ok "$label: the trace reader saw the end marker"
	tap_cmp "$label: ring buffer overrun and dropped events ($lost)" "$lost" "==" 0
	tap_diag "$label events: $(grep '^events_' /tmp/trace.sums | tr '\n' ' ')"
}

# bracket LABEL EVENTS_KEY STAT: events' sum within the counter's deltas
bracket() {
	ev=$(kv "$2" /tmp/trace.sums)
	inner=$(($(kv "$3" /tmp/s1a) - $(kv "$3" /tmp/s0b)))
	outer=$(($(kv "$3" /tmp/s1b) - $(kv "$3" /tmp/s0a)))
	if [ "$ev" -ge "$inner" ] && [ "$ev" -le "$outer" ]; then
		tap_ok "$1: events $ev, $3 delta [$inner, $outer]"
	else
		tap_fail "$1: events $ev, $3 delta [$inner, $outer]" \
			"expected the events' sum within the counter's deltas"
	fi
}

# --- observe ---
cp_drop_caches
cp_module_load
for e in evict refault cold_hit target hand; do
	[ -d "$T/events/clockpro/clockpro_$e" ] ||
		tap_fail "event clockpro:clockpro_$e in tracefs"
done
tap_cmp "five events in $T/events/clockpro" \
	"$(find "$T/events/clockpro" -mindepth 1 -maxdepth 1 -type d | wc -l)" "==" 5
# two passes each: the second refaults (the first only fills)
if trace_phase observe 2; then
	bracket "observe evict nr" evictions evictions
	bracket "observe refault hits" refaults refaults
	tap_cmp "observe: every refault verdict observed ($(kv promoted /tmp/trace.sums) promoted, $(kv kept_cold /tmp/trace.sums) kept cold)" \
		"$(kv observed /tmp/trace.sums)" "==" "$(kv refaults /tmp/trace.sums)"
	tap_cmp "observe: evictions traced ($(kv evictions /tmp/trace.sums))" \
		"$(kv evictions /tmp/trace.sums)" ">" 0
	tap_cmp "observe: no enforce events" \
		"$(($(kv events_cold_hit /tmp/trace.sums) + $(kv events_hand /tmp/trace.sums) + $(kv events_target /tmp/trace.sums)))" "==" 0
fi
cp_module_unload

# --- enforce ---
cp_drop_caches
# shellcheck disable=SC2086 # no arguments or one
cp_config_begin clockpro $ENFORCE_ARGS
if trace_phase enforce 2; then
	bracket "enforce evict nr" evictions evictions
	bracket "enforce refault hits" refaults refaults
	bracket "enforce refault nr, verdict promoted" promoted promoted
	bracket "enforce refault nr, verdict kept_cold" kept_cold kept_cold
	bracket "enforce cold_hit, not active" cold_hits cold_hits
	bracket "enforce cold_hit, active" demoted_hits demoted_hits
	bracket "enforce hand nr, rotate" hand_rotated hand_rotated
	bracket "enforce hand nr, demote" hand_demoted hand_demoted
	tap_cmp "enforce: refaults promoted or kept cold, verdicts traced ($(kv promoted /tmp/trace.sums) + $(kv kept_cold /tmp/trace.sums))" \
		"$(($(kv promoted /tmp/trace.sums) + $(kv kept_cold /tmp/trace.sums)))" ">" 0
	tap_cmp "enforce: target changes traced ($(kv events_target /tmp/trace.sums))" \
		"$(kv events_target /tmp/trace.sums)" ">" 0
	tap_cmp "enforce: every target event starts where the last one ended" \
		"$(kv target_breaks /tmp/trace.sums)" "==" 0
	# the last target per lruvec against the lruvecs file, if the guest
	# made no decision since the events went off (a reuse has no counter,
	# but needs a read: the guest is idle)
	awk 'NR > 1 { print "target " $1 "/" $2 " " $5 }' "$CP_DFS/lruvecs" >/tmp/lruvecs.t
	snap /tmp/s2b
	tap_diag "lruvecs: $(tr '\n' ';' </tmp/lruvecs.t)"
	tap_diag "last traced: $(grep '^target ' /tmp/trace.sums | tr '\n' ';')"
	moved=
	for c in $DECISIONS; do
		[ "$(kv "$c" /tmp/s1b)" = "$(kv "$c" /tmp/s2b)" ] || moved="$moved $c"
	done
	if [ -z "$moved" ]; then
		miss=$(grep '^target ' /tmp/trace.sums | while read -r _ k v; do
			grep -qx "target $k $v" /tmp/lruvecs.t || echo "$k"
		done | wc -l)
		tap_cmp "enforce: each lruvec's last traced target is the lruvecs file's ($miss differ)" \
			"$miss" "==" 0
	else
		tap_skip "enforce: last traced target against the lruvecs file" \
			"decisions after the events went off:$moved"
	fi
	# the memcg of the evictions: the cgroup's id, from its lruvecs row
	ino=$(stat -c %i /sys/fs/cgroup/$CG)
	id=$(awk -v ino="$ino" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cgroup_ino") c = i; next }
		$c == ino { print $1; exit }' "$CP_DFS/lruvecs")
	tap_diag "evictions by memcg: $(grep '^evict_memcg ' /tmp/trace.sums | tr '\n' ';') (cgroup $CG: inode $ino, memcg ${id:-none})"
	in_cg=$(awk -v id="${id:--1}" '$1 == "evict_memcg" && $2 == id { print $3 }' /tmp/trace.sums)
	tap_cmp "enforce: every evict event carries the cgroup's memcg id ${id:-none}" \
		"${in_cg:-0}" "==" "$(kv evictions /tmp/trace.sums)"
fi
cp_module_unload

# --- perf record -e 'clockpro:*' (an initramfs made with CP_PERF=1) ---
PERF=/opt/progs/bin/perf
if [ -x $PERF ]; then
	cp_drop_caches
	cp_module_load
	snap /tmp/p0
	# perf enables the events, then starts the loop; the memcg's reclaim
	# runs in the loop's task alone, so its window holds every eviction
	# of the loop and the guest, idle, makes no other
	$PERF record -q -N -B -m 1024 -e 'clockpro:*' -a -o /tmp/perf.data -- \
		sh -c "echo \$\$ >/sys/fs/cgroup/$CG/cgroup.procs && exec cpwork loop $CP_DATA $F 2 --no-readahead" \
		>/tmp/perf.out 2>&1 || tap_diag "perf record: $(tail -n 3 /tmp/perf.out)"
	snap /tmp/p1
	$PERF script -i /tmp/perf.data 2>/tmp/perf.err | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^clockpro:clockpro_[a-z_]+:$/) break
		  ev = $i
		  for (; i <= NF; i++) {
			if ($i ~ /^nr=/ && ev ~ /evict/) e += substr($i, 4)
			if ($i ~ /^hits=/) r += substr($i, 6)
		  } }
		END { printf "%.0f %.0f\n", e, r }' >/tmp/perf.sums
	read -r pe pr </tmp/perf.sums
	lost=$($PERF report -i /tmp/perf.data --stats 2>/dev/null |
		awk '/LOST/ { for (i = 1; i < NF; i++) if ($i == "events:") s += $(i + 1) }
			END { print s + 0 }')
	de=$(($(kv evictions /tmp/p1) - $(kv evictions /tmp/p0)))
	dr=$(($(kv refaults /tmp/p1) - $(kv refaults /tmp/p0)))
	tap_cmp "perf record -e 'clockpro:*': no events lost ($lost)" "$lost" "==" 0
	tap_cmp "perf: sum of clockpro_evict nr $pe = evictions delta $de" "$pe" "==" "$de"
	tap_cmp "perf: sum of clockpro_refault hits $pr = refaults delta $dr" "$pr" "==" "$dr"
	cp_module_unload
else
	tap_skip "perf record -e 'clockpro:*'" "no perf in the initramfs (CP_PERF=1 makes one)"
fi
cp_cgroup_rm $CG
echo >"$T/trace"
echo "$BUF0" >"$T/buffer_size_kb"
[ -z "$CLOCK0" ] || echo "$CLOCK0" >"$T/trace_clock"
echo 1 >"$T/tracing_on"
# (rounded up to whole pages)
tap_cmp "ring buffer back at $BUF0 kB" "$(awk '{ print $1; exit }' "$T/buffer_size_kb")" "<=" "$((BUF0 + 4))"

tap_dmesg_clean
tap_done
