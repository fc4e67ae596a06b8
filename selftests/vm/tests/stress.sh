#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stress: SMP stress of the module's lifetime rules, meant for a guest with
# several CPUs and slab poisoning (vmtest.sh --smp 4 --append slub_debug=P,
# as `make check` runs it), where a use-after-free reads poison and crashes.
#
# Under load all along (a loop of 1.25 C, a Zipf reader over 2 C, an mmap
# loop, a loop inside a cgroup limited to C/3, and a reader that checks the
# data it reads against the generator, --verify):
#
#   phase 1  two loops create cgroups (memory.max C/4), run a reader inside,
#            write memory.reclaim, kill the reader, reclaim the rest and
#            remove the cgroup, over and over, so that memcgs die and are
#            freed while the module tracks their lruvecs (loaded with
#            memcg_hist=1: per-memcg histograms on); one loop reads
#            every file of the debugfs directory and every module
#            parameter, another reads stats and lruvecs as fast as it can;
#            the mode flips observe <-> enforce (refused under MGLRU:
#            classic_lru is left off here, and out of the hostile writes:
#            with it, switching MGLRU under this load ended in global OOM
#            kills, 5 in 155 s flipping at every mode flip, 1 with the
#            switch back held for 30 s; docs/mglru.md)
#   phase 2  the same, plus two concurrent writers of hostile values to
#            every debugfs file and module parameter (0, -1, 2^32 - 1,
#            2^64 - 1, 10^23, "abc", "", 4 KiB of digits, "12 1000", ...),
#            with a change of the histogram geometry after each file, and a
#            third loop changing the geometry (hist_width 0 = auto,
#            hist_rows 1/256) as fast as it can
#   phase 3  the same, plus rmmod/insmod in a loop (writes and reads of an
#            unloaded module's files fail: ignored)
#
# Errors of the writes are expected and ignored: the point is that nothing
# crashes, warns or reads freed memory.  Afterwards: stats shows evictions
# and sane sizes (a read of freed memory shows numbers like
# 7740398493674204011), the module unloads, nothing stays behind, dmesg is
# clean, and every phase did a minimum of work (so that the test cannot
# pass by doing nothing).
#
# Kernel command line:
#   cp_stress_secs=S     seconds per phase (default 60)
#   cp_stress_reload=0|1 run phase 3 (default 1)
#   cp_test_timeout=S    (/init's) the phases are shortened to fit in it
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
[ -f /sys/fs/cgroup/cgroup.subtree_control ] || tap_skip_all "no cgroup v2 at /sys/fs/cgroup"

now_s() {
	cut -d. -f1 /proc/uptime
}
T_START=$(now_s)

S=/tmp/stress
CG=/sys/fs/cgroup
PAR=/sys/module/clockpro/parameters
MB=1048576
rm -rf "$S"
mkdir -p "$S"

SECS=$(cp_param cp_stress_secs 60)
RELOAD=$(cp_param cp_stress_reload 1)
TT=$(cp_param cp_test_timeout "")
MGLRU=$(cp_lru_gen)
BOOT_LRU=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo none)
case $SECS in '' | *[!0-9]*) SECS=60 ;; esac
[ "$SECS" -ge 5 ] || SECS=5
NPHASES=2
[ "$RELOAD" = 0 ] || NPHASES=3

# PID is a live child of this shell (not a zombie, not a reused pid).
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	read -r _a _b _st _pp _rest <"/proc/$1/stat" 2>/dev/null || return 1
	[ "$_st" != Z ] && [ "$_pp" = $$ ]
}

# cnt FILE KEY: a counter written by a loop (0 if not yet; the loop may
# be rewriting the file: try twice)
cnt() {
	[ -e "$S/$1" ] || { echo 0 && return; }
	kv "$2" "$S/$1" 2>/dev/null || { sleep 0.1 && kv "$2" "$S/$1" 2>/dev/null; } || echo 0
}

tap_diag "kernel $(uname -r), lru_gen $MGLRU, $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"

C=$(cp_cache_size)
MEMTOTAL_KB=$(meminfo MemTotal)
FSIZE=$(stat -c %s "$CP_DATA")
INO=$(stat -c %i "$CP_DATA")
SEED=$(cp_data_seed)
mb() {	# bytes, rounded down to MiB, at least 4 MiB
	_v=$(($(fint "($1) / $MB") * MB))
	[ "$_v" -ge $((4 * MB)) ] || _v=$((4 * MB))
	echo "$_v"
}
LOOP_BYTES=$(mb "$C * 5 / 4")
ZIPF_BYTES=$(mb "$C * 2")
HALF=$(mb "$C / 2")
KEEP_MAX=$(mb "$C / 3")
CHURN_MAX=$(mb "$C / 4")
[ "$CHURN_MAX" -ge $((16 * MB)) ] || CHURN_MAX=$((16 * MB))
CHURN_BYTES=$HALF
# Sizes from the stats file beyond this are garbage (freed memory).
LIMIT=$((MEMTOTAL_KB * 10 / 4))
tap_diag "C $C bytes, MemTotal $MEMTOTAL_KB kB, loop $LOOP_BYTES, zipf $ZIPF_BYTES, memcg max $CHURN_MAX (churn) $KEEP_MAX (kept), size limit $LIMIT pages"

# Fit the phases into /init's per-test timeout, keeping 150 s for the rest.
if [ -n "$TT" ]; then
	_left=$((TT - ($(now_s) - T_START) - 150))
	if [ $((SECS * NPHASES)) -gt "$_left" ]; then
		SECS=$((_left / NPHASES))
		[ "$SECS" -ge 5 ] || SECS=5
		tap_diag "cp_test_timeout=$TT: phases shortened to $SECS s"
	fi
fi
tap_diag "$SECS s per phase, $NPHASES phases, reload $RELOAD"

# --- cleanup: every background process we start is listed in $S/pids ------

: >"$S/pids"
bg_add() {
	echo "$1" >>"$S/pids"
}

# shellcheck disable=SC2317 # called by the trap
kill_all() {
	cat "$S/pids" "$S"/*.pid "$CG"/stress-*/cgroup.procs 2>/dev/null |
		while read -r _p; do
			kill -9 "$_p" 2>/dev/null || true
		done
}
trap 'touch "$S/stop" "$S/stop.reload"; kill_all' EXIT

# --- background loops (each in its own subshell, errors ignored) -------------

# cg_spawn DIR CMD...: run CMD inside cgroup DIR in the background, its
# pid in CG_PID.
cg_spawn() {
	_dir=$1
	shift
	# shellcheck disable=SC2016 # $$ and $@ are the inner shell's
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$_dir" "$@" >/dev/null 2>&1 &
	CG_PID=$!
}

rmdir_retry() {
	_i=0
	while [ $_i -lt 50 ]; do
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# churn_loop ID: create, use, reclaim, remove cgroups until $S/stop.
churn_loop() {
	set +e
	_id=$1 _k=0 _made=0 _gone=0 _rec=0 _recok=0 _mkfail=0 _rmfail=0
	_span=$(((FSIZE - CHURN_BYTES) / MB))
	while [ ! -e "$S/stop" ]; do
		_k=$((_k + 1))
		_g=$CG/stress-$_id-$_k
		if ! mkdir "$_g" 2>/dev/null; then
			_mkfail=$((_mkfail + 1))
			sleep 1
			continue
		fi
		_made=$((_made + 1))
		echo "$CHURN_MAX" >"$_g/memory.max" 2>/dev/null
		# A different part of the file each time, so that the reader
		# misses and its page cache is charged to this memcg.
		_off=$((((_k * 97 + _id * 389) % _span) * MB))
		cg_spawn "$_g" cpwork loop "$CP_DATA" "$CHURN_BYTES" 1000000 \
			--offset "$_off" --no-readahead
		_p=$CG_PID
		echo "$_p" >"$S/churn$_id.pid"
		sleep $((1 + _k % 2))
		# (EAGAIN when global reclaim keeps the memcg small: fine)
		if [ -e "$_g/memory.reclaim" ]; then
			_rec=$((_rec + 1))
			echo $((4 + _k % 13))M >"$_g/memory.reclaim" 2>/dev/null &&
				_recok=$((_recok + 1))
		fi
		sleep 0.$((_k % 10))
		kill "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
		rm -f "$S/churn$_id.pid"
		# Empty it, so that the dead memcg is freed soon.
		[ -e "$_g/memory.reclaim" ] && echo "$CHURN_MAX" >"$_g/memory.reclaim" 2>/dev/null
		if rmdir_retry "$_g"; then
			_gone=$((_gone + 1))
		else
			_rmfail=$((_rmfail + 1))
			echo "$_g" >>"$S/leftover"
		fi
		printf 'created %d\ndeleted %d\nreclaims %d\nreclaims_ok %d\nmkdir_fail %d\nrmdir_fail %d\n' \
			"$_made" "$_gone" "$_rec" "$_recok" "$_mkfail" "$_rmfail" >"$S/churn$_id"
	done
}

# sizes FILE stats|lruvecs: print the lines of FILE (a copy of stats or
# lruvecs) with sizes no guest can have (the active/inactive/target columns
# of lruvecs, found by their header); status 1 if there are any.
sizes() {
	awk -v lim="$LIMIT" -v what="$2" '
		function bad(v) { return v !~ /^-?[0-9]+$/ || v + 0 > lim || v + 0 < -lim }
		what == "stats" && ($1 == "active_target" || $1 == "active_pages" ||
				    $1 == "inactive_pages") && bad($2) { print what ": " $0; f = 1 }
		what == "lruvecs" && NR == 1 {
			for (i = 1; i <= NF; i++)
				if ($i == "active" || $i == "inactive" || $i == "target")
					col[i] = 1
			next
		}
		what == "lruvecs" { for (i in col) if (bad($i)) { print what ": " $0; f = 1; break } }
		END { exit f }' "$1"
}

# dfs_loop ID all|fast: read every debugfs file and module parameter, or
# only stats and lruvecs, until $S/stop.
dfs_loop() {
	set +e
	_id=$1 _ok=0 _err=0 _rounds=0
	while [ ! -e "$S/stop" ]; do
		if [ "$2" = all ]; then
			_files=$(echo "$CP_DFS"/* "$PAR"/*)
		else
			_files="$CP_DFS/stats $CP_DFS/lruvecs"
		fi
		for _f in $_files; do
			[ -f "$_f" ] || continue
			if cat "$_f" >"$S/dfs$_id.cat" 2>/dev/null; then
				_ok=$((_ok + 1))
				case $_f in
				*/stats) sizes "$S/dfs$_id.cat" stats >>"$S/bad" ;;
				*/lruvecs) sizes "$S/dfs$_id.cat" lruvecs >>"$S/bad" ;;
				esac
			else
				_err=$((_err + 1))
			fi
		done
		_rounds=$((_rounds + 1))
		printf 'reads %d\nerrors %d\nrounds %d\n' "$_ok" "$_err" "$_rounds" >"$S/dfs$_id"
		# nothing loaded: do not spin
		[ -d "$CP_DFS" ] || sleep 0.2
	done
}

# mode_loop: observe <-> enforce through debugfs and the parameter (with
# MGLRU on, enforce is refused: classic_lru stays off in this suite, see
# the header).
mode_loop() {
	set +e
	_n=0 _ok=0
	while [ ! -e "$S/stop" ]; do
		_n=$((_n + 1))
		_f=$CP_DFS/mode
		[ $((_n % 2)) = 0 ] && _f=$PAR/mode
		echo enforce 2>/dev/null >"$_f" && _ok=$((_ok + 1))
		sleep 0.3
		echo observe 2>/dev/null >"$_f" && _ok=$((_ok + 1))
		sleep 0.2
		printf 'flips %d\naccepted %d\n' "$_n" "$_ok" >"$S/mode"
	done
}

# geometry ID I: change the histogram geometry (hist_width 0 is auto),
# through debugfs and the parameters; 4 writes.
geometry() {
	printf 0 2>/dev/null >"$CP_DFS/hist_width"
	printf %d $(($2 % 7 + $1)) 2>/dev/null >"$PAR/hist_width"
	printf %d $(($2 % 2 * 255 + 1)) 2>/dev/null >"$CP_DFS/hist_rows"
	printf %d $((256 - $2 % 256)) 2>/dev/null >"$PAR/hist_rows"
}

# knob_loop ID: write every value of $S/values to every file of
# $S/kfiles.ID, with a change of the histogram geometry after each file,
# until $S/stop; writer 1 writes without a newline, writer 2 with one.
knob_loop() {
	set +e
	_id=$1 _n=0 _ok=0 _rounds=0 _i=0
	while [ ! -e "$S/stop" ]; do
		while IFS= read -r _f; do
			while IFS= read -r _v; do
				if [ "$_id" = 1 ]; then
					printf '%s' "$_v" 2>/dev/null >"$_f" && _ok=$((_ok + 1))
				else
					printf '%s\n' "$_v" 2>/dev/null >"$_f" && _ok=$((_ok + 1))
				fi
				_n=$((_n + 1))
			done <"$S/values"
			_i=$((_i + 1))
			geometry "$_id" "$_i"
			_n=$((_n + 4))
			printf 'writes %d\naccepted %d\nrounds %d\n' "$_n" "$_ok" "$_rounds" >"$S/knob$_id"
			[ ! -e "$S/stop" ] || break
		done <"$S/kfiles.$_id"
		_rounds=$((_rounds + 1))
		[ -d "$CP_DFS" ] || sleep 0.2
	done
}

# geometry_loop: change the histogram geometry as fast as it goes, with
# valid values only (no dmesg line each, unlike the hostile writers).
geometry_loop() {
	set +e
	_n=0
	while [ ! -e "$S/stop" ]; do
		_i=0
		while [ "$_i" -lt 25 ]; do
			_n=$((_n + 1))
			geometry 0 "$_n"
			_i=$((_i + 1))
		done
		printf 'writes %d\n' $((_n * 4)) >"$S/geometry"
		[ -d "$CP_DFS" ] || sleep 0.2
	done
}

# reload_loop: rmmod/insmod until $S/stop.reload, then leave it loaded.
reload_loop() {
	set +e
	_n=0 _cycles=0 _lfail=0 _ufail=0
	while [ ! -e "$S/stop.reload" ]; do
		_n=$((_n + 1))
		if cp_module_loaded; then
			if rmmod clockpro 2>/dev/null; then
				_cycles=$((_cycles + 1))
				sleep 0.$((_n % 5))
			else
				_ufail=$((_ufail + 1))	# busy: a file is open
				sleep 0.1
			fi
		else
			case $((_n % 4)) in
			0) _par= ;;
			1) _par="hist_rows=256" ;;
			2) _par="hist_width=3 hist_rows=1" ;;
			*) _par="mode=enforce" ;;
			esac
			# shellcheck disable=SC2086 # words
			insmod "$CP_MODULE" $_par 2>/dev/null || _lfail=$((_lfail + 1))
			sleep 0.$((_n % 7 + 2))
		fi
		printf 'cycles %d\nload_fail %d\nunload_busy %d\n' \
			"$_cycles" "$_lfail" "$_ufail" >"$S/reload"
	done
	_i=0
	while ! cp_module_loaded && [ "$_i" -lt 20 ]; do
		insmod "$CP_MODULE" 2>/dev/null || sleep 0.5
		_i=$((_i + 1))
	done
}

# verify_loop: read 8 MiB at a time with --verify; count bad data.
verify_loop() {
	set +e
	_n=0 _bad=0
	_span=$(((FSIZE - 8 * MB) / MB))
	while [ ! -e "$S/stop" ]; do
		_n=$((_n + 1))
		if ! cpwork loop "$CP_DATA" 8M 1 --offset $((((_n * 131) % _span) * MB)) \
			--verify "$SEED" >"$S/verify.out" 2>&1; then
			_bad=$((_bad + 1))
			cp "$S/verify.out" "$S/verify.bad"
		fi
		printf 'runs %d\nfailed %d\n' "$_n" "$_bad" >"$S/verify"
	done
}

LOOPS=
loop_add() {	# NAME PID
	bg_add "$2"
	LOOPS="$LOOPS $1:$2"
}

# stop_loops NAME...: wait up to 60 s for the named loops (they were told
# to stop), kill what is left.
stop_loops() {
	_dl=$(($(now_s) + 60))
	for _l in $LOOPS; do
		for _want in "$@"; do
			[ "${_l%%:*}" = "$_want" ] || continue
			_p=${_l#*:}
			while alive "$_p" && [ "$(now_s)" -lt "$_dl" ]; do
				sleep 0.5
			done
			if alive "$_p"; then
				tap_diag "loop $_want (pid $_p) did not stop in time: killed"
				echo "$_want" >>"$S/hung"
				kill -9 "$_p" 2>/dev/null || true
				sleep 1
			fi
			# (not a process stuck in the kernel: that would hang here)
			alive "$_p" || wait "$_p" 2>/dev/null || true
		done
	done
}

progress() {
	tap_diag "uptime $(now_s)s: memcgs $(($(cnt churn1 created) + $(cnt churn2 created))) created" \
		"$(($(cnt churn1 deleted) + $(cnt churn2 deleted))) removed," \
		"debugfs reads $(($(cnt dfs1 reads) + $(cnt dfs2 reads))), mode flips $(cnt mode flips)," \
		"knob writes $(($(cnt knob1 writes) + $(cnt knob2 writes))) + geometry $(cnt geometry writes)," \
		"reloads $(cnt reload cycles), verified reads $(cnt verify runs)"
}

# run_phase N SECS: let it run, with a progress line every 15 s.
run_phase() {
	_end=$(($(now_s) + $2))
	while [ "$(now_s)" -lt "$_end" ]; do
		_r=$((_end - $(now_s)))
		[ "$_r" -le 15 ] || _r=15
		[ "$_r" -le 0 ] || sleep "$_r"
		progress
	done
}

# --- load, readers -----------------------------------------------------------

# per-memcg histograms on from the start: their slots live and die with
# the churned memcgs (the hostile writers turn them off and on later)
if out=$(cp_module_load memcg_hist=1 2>&1); then
	tap_ok "insmod clockpro.ko memcg_hist=1"
else
	tap_fail "insmod clockpro.ko" "$out"
	tap_done
fi

READERS=
reader() {	# NAME PID
	bg_add "$2"
	READERS="$READERS $1:$2"
}
cpwork loop "$CP_DATA" "$LOOP_BYTES" 1000000 --no-readahead >"$S/r-loop.out" 2>&1 &
reader loop $!
cpwork zipf "$CP_DATA" "$ZIPF_BYTES" 0.8 1000000000 7 --offset $((256 * MB)) \
	>"$S/r-zipf.out" 2>&1 &
reader zipf $!
cpwork loop "$CP_DATA" "$HALF" 1000000 --mmap --offset $((FSIZE - HALF)) \
	>"$S/r-mmap.out" 2>&1 &
reader mmap $!
cp_cgroup_new stress-keep "$KEEP_MAX"
cg_spawn "$CG/stress-keep" cpwork loop "$CP_DATA" "$HALF" 1000000 \
	--offset $((FSIZE - 2 * HALF)) --no-readahead
reader memcg "$CG_PID"
verify_loop &
loop_add verify $!
sleep 3

# --- phase 1 -------------------------------------------------------------------

tap_diag "phase 1 (memcg churn, debugfs reads, mode flips) from uptime $(now_s)s"
churn_loop 1 &
loop_add churn $!
churn_loop 2 &
loop_add churn $!
dfs_loop 1 all &
loop_add dfs $!
dfs_loop 2 fast &
loop_add dfs $!
mode_loop &
loop_add mode $!
run_phase 1 "$SECS"
tap_check "phase 1: module still loaded" cp_module_loaded

# --- phase 2 -------------------------------------------------------------------

# the values of the hostile writers, one a line ("" is the empty string)
{
	for v in 0 -1 1 2 255 256 4294967295 18446744073709551615 \
		99999999999999999999999 abc "" enforce observe 1 "12 1000" \
		"$INO 4096" "$INO 99999999999" 0x10 " 7" "1 2 3" 0; do
		echo "$v"
	done
	head -c 4096 /dev/zero | tr '\0' 9
	echo
} >"$S/values"
{ find "$CP_DFS" "$PAR" -type f || true; } | grep -v /classic_lru | sort >"$S/kfiles.1"
sort -r "$S/kfiles.1" >"$S/kfiles.2"
tap_diag "phase 2 (+ hostile writes to $(wc -l <"$S/kfiles.1") files, $(wc -l <"$S/values") values) from uptime $(now_s)s"
knob_loop 1 &
loop_add knob $!
knob_loop 2 &
loop_add knob $!
geometry_loop &
loop_add knob $!
run_phase 2 "$SECS"
tap_check "phase 2: module still loaded" cp_module_loaded

# --- phase 3 -------------------------------------------------------------------

if [ "$RELOAD" = 0 ]; then
	tap_skip "phase 3: reload under load" "cp_stress_reload=0"
else
	tap_diag "phase 3 (+ rmmod/insmod loop) from uptime $(now_s)s"
	reload_loop &
	loop_add reload $!
	run_phase 3 "$SECS"
	touch "$S/stop.reload"
	stop_loops reload
	tap_diag "reload cycles: $(cnt reload cycles) (insmod failed $(cnt reload load_fail)," \
		"rmmod busy $(cnt reload unload_busy))"
	tap_check "phase 3: module loaded again after the reload loop" cp_module_loaded
fi

# --- stop -----------------------------------------------------------------------

touch "$S/stop"
stop_loops knob mode dfs churn verify
tap_diag "loops stopped at uptime $(now_s)s"
progress

# The readers are still running: the module must see evictions, and sane
# sizes.  (The hostile writers may have left enforce, or reset the stats.)
cp_module_loaded || cp_module_load || true
if cp_module_loaded; then
	echo observe >"$CP_DFS/mode" || true
	sleep 5
	cp_dfs stats >"$S/stats.final" 2>&1 || true
	sed 's/^/  /' "$S/stats.final" | head -n 60 | while IFS= read -r l; do tap_diag "$l"; done
	ev=$(kv evictions "$S/stats.final" || echo 0)
	tap_cmp "stats: evictions $ev > 0 under load" "$ev" ">" 0
	for k in active_target active_pages inactive_pages; do
		v=$(kv "$k" "$S/stats.final" || echo missing)
		tap_cmp "stats: $k $v below 10x MemTotal ($LIMIT pages)" "$v" "<" "$LIMIT"
	done
	cp_dfs lruvecs >"$S/lruvecs.final" 2>&1 || true
	if ! sizes "$S/lruvecs.final" lruvecs >"$S/bad.final"; then
		tap_fail "lruvecs: sizes below 10x MemTotal" "$(head -n 5 "$S/bad.final")"
	else
		tap_ok "lruvecs: $(($(wc -l <"$S/lruvecs.final") - 1)) rows, sizes below 10x MemTotal"
	fi
else
	tap_fail "module loaded for the final checks"
fi

# The readers must have lived through it all (a reader that dies saw an
# error: EIO, a crash of its own, bad data).
for r in $READERS; do
	p=${r#*:}
	if alive "$p"; then
		tap_ok "reader ${r%%:*} ran until the end"
	else
		tap_fail "reader ${r%%:*} ran until the end" "$(tail -n 3 "$S/r-${r%%:*}.out" 2>/dev/null)"
	fi
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
done
rmdir_retry "$CG/stress-keep" || tap_diag "cannot remove $CG/stress-keep"
# All ours are gone: the exit trap must not kill pids reused since.
: >"$S/pids"

# --- unload, nothing left ------------------------------------------------------

if cp_module_loaded; then
	if out=$(cp_module_unload 2>&1); then
		tap_ok "rmmod clockpro after the stress"
	else
		tap_fail "rmmod clockpro after the stress" "$out"
	fi
else
	tap_ok "rmmod clockpro after the stress (was not loaded)"
fi
tap_check "module gone" sh -c "! grep -q '^clockpro ' /proc/modules"
tap_check "debugfs directory gone" test ! -e "$CP_DFS"
tap_check "lru_gen/enabled as booted ($BOOT_LRU)" test "$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo none)" = "$BOOT_LRU"
tap_diag "classic_lru: MGLRU switched off $(dmesg | grep -c 'classic_lru: the multi-gen LRU is off'), back $(dmesg | grep -c 'classic_lru: the multi-gen LRU is back') times"
left=$(find "$CG" -maxdepth 1 -name 'stress-*' 2>/dev/null | wc -l)
tap_cmp "no stress cgroups left ($left)" "$left" "==" 0
if [ -s "$S/hung" ]; then
	tap_fail "every loop stopped when asked" "$(tr '\n' ' ' <"$S/hung")"
else
	tap_ok "every loop stopped when asked"
fi

# --- the work done -------------------------------------------------------------

made=$(($(cnt churn1 created) + $(cnt churn2 created)))
gone=$(($(cnt churn1 deleted) + $(cnt churn2 deleted)))
reads=$(($(cnt dfs1 reads) + $(cnt dfs2 reads)))
flips=$(cnt mode flips)
w1=$(cnt knob1 writes)
w2=$(cnt knob2 writes)
geo=$(cnt geometry writes)
cycles=$(cnt reload cycles)
vruns=$(cnt verify runs)
vbad=$(cnt verify failed)
tap_diag "memcgs created $made, deleted $gone (mkdir failed" \
	"$(($(cnt churn1 mkdir_fail) + $(cnt churn2 mkdir_fail))), rmdir failed" \
	"$(($(cnt churn1 rmdir_fail) + $(cnt churn2 rmdir_fail))), memory.reclaim writes" \
	"$(($(cnt churn1 reclaims) + $(cnt churn2 reclaims))), of which fully done" \
	"$(($(cnt churn1 reclaims_ok) + $(cnt churn2 reclaims_ok))))"
tap_diag "debugfs reads $reads (failed $(($(cnt dfs1 errors) + $(cnt dfs2 errors))), rounds over all files $(cnt dfs1 rounds))"
tap_diag "mode flips $flips ($(cnt mode accepted) writes accepted)"
tap_diag "knob writes $w1 + $w2 (accepted $(cnt knob1 accepted) + $(cnt knob2 accepted), rounds $(cnt knob1 rounds) + $(cnt knob2 rounds))"
tap_diag "histogram geometry writes $geo"
tap_diag "reload cycles $cycles"
tap_diag "verified reads of 8 MiB: $vruns, bad $vbad"

# Minimum work: scaled to the phase length (the figures are for 60 s).
min() {	# PER_60S SECONDS_RUN
	_m=$(($1 * $2 / 60))
	[ "$_m" -ge 1 ] || _m=1
	echo "$_m"
}
ALL=$((SECS * NPHASES))
tap_cmp "memcgs churned: $made >= $(min 7 "$ALL")" "$made" ">=" "$(min 7 "$ALL")"
tap_cmp "every memcg removed: $gone of $made" "$gone" "==" "$made"
tap_cmp "debugfs reads: $reads >= $(min 200 "$ALL")" "$reads" ">=" "$(min 200 "$ALL")"
tap_cmp "mode flips: $flips >= $(min 20 "$ALL")" "$flips" ">=" "$(min 20 "$ALL")"
ALL=$((SECS * (NPHASES - 1)))
tap_cmp "knob writes of writer 1: $w1 >= $(min 200 "$ALL")" "$w1" ">=" "$(min 200 "$ALL")"
tap_cmp "knob writes of writer 2: $w2 >= $(min 200 "$ALL")" "$w2" ">=" "$(min 200 "$ALL")"
tap_cmp "histogram geometry writes: $geo >= $(min 1000 "$ALL")" "$geo" ">=" "$(min 1000 "$ALL")"
if [ "$RELOAD" != 0 ]; then
	tap_cmp "reload cycles: $cycles >= $(min 5 "$SECS")" "$cycles" ">=" "$(min 5 "$SECS")"
fi
tap_cmp "verified reads: $vruns >= 3" "$vruns" ">=" 3
if [ "$vbad" = 0 ]; then
	tap_ok "no bad data read"
else
	tap_fail "no bad data read" "$(cat "$S/verify.bad")"
fi
if [ -s "$S/bad" ]; then
	tap_fail "no garbage sizes read from stats/lruvecs during the stress" "$(head -n 8 "$S/bad")"
else
	tap_ok "no garbage sizes read from stats/lruvecs during the stress"
fi

tap_dmesg_clean
tap_diag "stress took $(($(now_s) - T_START)) s"
tap_done
