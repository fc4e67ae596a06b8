#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# programs: real programs from Debian's packages, unmodified, on real data
# (the programs disk, vm/mkprogs.sh), on the stock kernel (classic LRU and
# MGLRU) and with clockpro enforcing, side by side in one boot, page cache
# dropped before each configuration:
#   search  GNU grep -r for a string that is nowhere, over part of a Linux
#           source tree 1.3 times the page cache, 5 times in a row (a code
#           search repeated over a tree larger than memory);
#   db      sqlite3 answering 200 000 point lookups, keys Zipf(0.8), over a
#           280 MiB table (1.6 times the page cache; the lookups touch
#           204 MiB of it, 1.17 times); run twice, the second measured;
#   db+copy the db run again while md5sum reads a 1.2 GiB file once (a
#           checksum or backup stream beside a database).
# Measured: bytes read from the programs disk (/proc/diskstats), guest
# seconds (wall time under TCG: reported, not asserted), queries/s; every
# answer checked (a row of 1000 bytes each).  With MGLRU on at boot,
# clockpro runs with classic_lru=1 and stock is MGLRU as booted.
# Asserted: search, passes 3-5: clockpro reads at least 40 % less than the
# best stock; db and db+copy: clockpro reads at most 2 % more than the best
# stock (and 2 MiB: the run is short).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
DEV=$(cp_param cp_progs "")
[ -n "$DEV" ] || tap_skip_all "no programs disk (vmtest.sh attaches it to a run of 'programs')"
P=/opt/progs/bin
for p in grep sqlite3 md5sum; do
	[ -x $P/$p ] || tap_skip_all "no $P/$p (install grep, sqlite3, coreutils on the host)"
done
mkdir -p /progs
mount -o ro "$DEV" /progs
NQ=$(awk '$1 == "queries" { print $2 }' /progs/MANIFEST)
dev=${DEV#/dev/}

sectors() { awk -v d="$dev" '$3 == d { print $6 }' /proc/diskstats; }
now() { awk '{ print $1 }' /proc/uptime; }
MiB() { fcalc "$1 * 512 / 1048576"; }

LRU_GEN=/sys/kernel/mm/lru_gen/enabled
BOOT_LRU=$(cat $LRU_GEN 2>/dev/null || echo none)
ENFORCE_ARGS=
cfgs="stock clockpro"
[ -e $LRU_GEN ] && cfgs="stock mglru clockpro"
if [ "$(cp_lru_gen)" = 1 ]; then
	ENFORCE_ARGS=classic_lru=1
	cfgs="mglru clockpro"
fi
# Experiments, not make check: cp_progs_cfgs=clockpro runs these
# configurations only; cp_progs_args=a=1,b=2 gives the clockpro one more
# module parameters.  The asserts compare with the best stock run of
# this boot, and are skipped when there is none; cp_progs_works=search
# runs the search only (its assert alone).
cfgs=$(cp_param cp_progs_cfgs "$cfgs" | tr , ' ')
EXTRA_ARGS=$(cp_param cp_progs_args "" | tr , ' ')
WORKS=$(cp_param cp_progs_works "search,db" | tr , ' ')
has_work() { case " $WORKS " in *" $1 "*) return 0 ;; esac; return 1; }
C=$(cp_cache_size)
tap_diag "kernel $(uname -r), page cache C = $((C / 1048576)) MiB; $(tr '\n' ';' </progs/MANIFEST)"

: >/tmp/prog.res
res() { awk -v n="$1" -v c="$2" '$1 == n && $2 == c { print $3 }' /tmp/prog.res; }
best() { awk -v n="$1" '$1 == n && $2 != "clockpro" && (b == "" || $3 < b) { b = $3 } END { print b }' /tmp/prog.res; }

# counters NAME...: their values on one line, from the module's stats when
# loaded, else from /proc/vmstat (0 if in neither)
counters() {
	cat "$CP_DFS/stats" /proc/vmstat 2>/dev/null | awk -v keys="$*" '
		!($1 in v) { v[$1] = $2 }
		END { n = split(keys, k, " "); for (i = 1; i <= n; i++) printf "%s ", (k[i] in v) ? v[k[i]] : 0 }'
}
# What a pass of the search did, beside its reads: refaults the kernel saw
# and activated, page cache pages freed with their inodes (their shadows go
# with them), reclaimable slab, the lists; with clockpro, what it saw.
PASS_KEYS="workingset_refault_file workingset_activate_file pginodesteal kswapd_inodesteal slabs_scanned"
CP_KEYS="refaults new beyond promoted kept_cold cold_hits demoted_hits hand_demoted hand_rotated kernel_activations_undone idle_inserted_hot deactivate_held deactivate_sized deactivate_escalated escalated_forced escalated_priority escalated_zones promoted_on_credit hand_demoted_uncredited hand_trim_credited hand_aged hand_age_kept kept_cold_far adapt_grow adapt_shrink"
pass_diag() {
	awk -v a="$1" -v b="$2" -v k="$3" -v l="$4" 'BEGIN {
		n = split(a, x, " "); split(b, y, " "); split(k, z, " "); o = ""
		for (i = 1; i <= n; i++) o = o sprintf("%s +%d ", z[i], y[i] - x[i])
		print o l }'
}

# db NAME: one sqlite3 run over the queries; its reads, time, answers
db() {
	s0=$(sectors)
	t0=$(now)
	$P/sqlite3 'file:/progs/kv.sqlite?immutable=1' </progs/queries.sql >/tmp/db.out
	t1=$(now)
	s1=$(sectors)
	good=$(grep -c '^1000$' /tmp/db.out || true)
	[ "$good" = "$NQ" ] || tap_fail "$cfg $1: $NQ answers of 1000 bytes" "$good"
	secs=$(fcalc "$t1 - $t0")
	tap_diag "$cfg $1: read $(MiB $((s1 - s0))) MiB in $secs s, $(fcalc "$NQ / ($secs > 0 ? $secs : 1)") queries/s"
	echo "$1 $cfg $((s1 - s0))" >>/tmp/prog.res
}

for cfg in $cfgs; do
	# shellcheck disable=SC2086 # ENFORCE_ARGS, EXTRA_ARGS: words
	cp_config_begin "$cfg" $ENFORCE_ARGS $EXTRA_ARGS
	cp_drop_caches
	steady=0
	floor=0
	keys=$PASS_KEYS
	[ "$cfg" != clockpro ] || keys="$keys $CP_KEYS"
	for pass in 1 2 3 4 5; do
		# shellcheck disable=SC2086 # the keys: words
		c0=$(counters $keys)
		lru=$(($(vmstat nr_active_file) + $(vmstat nr_inactive_file)))
		s0=$(sectors)
		t0=$(now)
		rc=0
		$P/grep -r -c clockpro_no_such_string_anywhere /progs/tree >/dev/null || rc=$?
		t1=$(now)
		s1=$(sectors)
		[ $rc -le 1 ] || tap_fail "$cfg: grep -r pass $pass" "exit $rc"
		tap_diag "$cfg search pass $pass: read $(MiB $((s1 - s0))) MiB in $(fcalc "$t1 - $t0") s"
		# shellcheck disable=SC2086 # the keys: words
		tap_diag "  $(pass_diag "$c0" "$(counters $keys)" "$keys" "$(cat /proc/vmstat "$CP_DFS/stats" 2>/dev/null | awk '/^(nr_slab_reclaimable|nr_active_file|nr_inactive_file|active_target) / { printf "%s %s ", $1, $2 }')")"
		# The floor of a pass: it reads every page pass 1 read (which
		# began with an empty cache), and a page it finds cached was
		# cached when it began, among the file LRU's pages then: any
		# policy reads the rest.
		[ $pass -gt 1 ] || n1=$(((s1 - s0) / 8))
		[ $pass -lt 3 ] || {
			steady=$((steady + s1 - s0))
			floor=$((floor + (n1 > lru ? n1 - lru : 0) * 8))
		}
	done
	echo "search $cfg $steady" >>/tmp/prog.res
	tap_diag "$cfg search passes 3-5: read $(MiB "$steady") MiB; floor $(MiB "$floor") MiB (pass 1's $n1 pages less the file LRU's at each pass's start)"
	if has_work db; then
		db fill
		db db
		$P/md5sum "$CP_DATA" >/dev/null 2>&1 &
		copy=$!
		db db+copy
		kill $copy 2>/dev/null || true
		wait $copy 2>/dev/null || true
	fi
	if [ "$cfg" = clockpro ]; then
		tap_diag "clockpro: $(awk '/^(active_target|active_pages|inactive_pages|promoted|kept_cold|cold_hits|hand_demoted|idle_inserted_hot|refaults|beyond) / { printf "%s %s ", $1, $2 }' "$CP_DFS/stats")"
		cp_module_unload
	fi
	[ "$BOOT_LRU" = none ] || echo "$BOOT_LRU" >$LRU_GEN
done

tap_diag "MiB read   $(echo "$cfgs" | awk '{ for (i = 1; i <= NF; i++) printf "%10s", $i }')"
for w in search db db+copy; do
	[ -n "$(res "$w" "${cfgs%% *}")" ] || continue
	line=$(printf '%-10s' "$w")
	for cfg in $cfgs; do
		line="$line$(printf '%10s' "$(MiB "$(res "$w" "$cfg")")")"
	done
	tap_diag "$line"
done

if [ -z "$(best search)" ] || [ -z "$(res search clockpro)" ]; then
	tap_skip "no stock run or no clockpro run to compare (cp_progs_cfgs)"
	umount /progs
	tap_dmesg_clean
	tap_done
fi
b=$(best search)
cpr=$(res search clockpro)
tap_cmp "search: clockpro reads $(MiB "$cpr") MiB in passes 3-5, at least 40 % less than the best stock's $(MiB "$b")" \
	"$cpr" "<=" "$(fcalc "$b * 0.6")"
for w in db db+copy; do
	has_work db || break
	b=$(best $w)
	cpr=$(res $w clockpro)
	tap_cmp "$w: clockpro reads $(MiB "$cpr") MiB, at most 2 % (+2 MiB) more than the best stock's $(MiB "$b")" \
		"$cpr" "<=" "$(fcalc "$b * 1.02 + 4096")"
done
umount /progs
tap_dmesg_clean
tap_done
