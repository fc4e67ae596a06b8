# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Guest-side library for the clockpro VM tests (busybox ash).
# Source it from a test:   . /lib/cp/lib.sh
#
# TAP output (numbering is automatic; call these from the test's main shell,
# not from a subshell or pipeline, or the counters are lost):
#   tap_ok DESC                 "ok N - DESC"
#   tap_fail DESC [DIAG...]     "not ok N - DESC", each DIAG as a "# " line
#   tap_skip DESC [REASON]      "ok N - DESC # SKIP REASON"
#   tap_todo DESC REASON        "not ok N - DESC # TODO REASON", a known
#                               failure, not counted as one (xfail)
#   tap_check DESC CMD [ARG...] run CMD; ok if it exits 0, else not ok
#   tap_cmp DESC A OP B         numeric (float) compare, OP: < <= > >= == !=
#   tap_diag MSG...             "# MSG"
#   tap_skip_all REASON         "1..0 # SKIP REASON", exit 4 (whole test skipped)
#   tap_done                    print the plan and "# Totals: ...", then exit:
#                               1 if anything failed, 4 if everything was
#                               skipped, 0 otherwise
#
# Reading the system:
#   vmstat NAME                 value of NAME in /proc/vmstat (empty, status 1 if absent)
#   meminfo NAME                value of NAME in /proc/meminfo, in kB (NAME
#                               without the colon, e.g. "Active(file)")
#   file_lru_kb                 Active(file) + Inactive(file), kB
#   cp_param NAME [DEFAULT]     NAME=VALUE from the kernel command line
#   cp_lru_gen                  1 if MGLRU is enabled, 0 if not, "na" if
#                               /sys/kernel/mm/lru_gen/enabled does not exist
#   cp_drop_caches              sync, then drop page cache, dentries and inodes
#   tap_dmesg_clean             TAP line: no WARNING:/BUG:/Call Trace in dmesg
#
# The clockpro module (shipped as /clockpro.ko when vmtest.sh got --module):
#   cp_module_present           /clockpro.ko exists
#   cp_module_loaded            clockpro is in /proc/modules
#   cp_module_load [PARAM=V...] insmod /clockpro.ko
#   cp_module_unload            rmmod clockpro
#   cp_config_begin CFG [ARG..] stock | mglru (switched on) | clockpro
#                               (insmod mode=enforce ARG...) | observe
#                               (insmod mode=observe)
#   CP_DFS                      its debugfs directory, /sys/kernel/debug/clockpro
#   cp_dfs FILE                 cat $CP_DFS/FILE
#   cp_stat NAME                value of the "NAME VALUE" line in $CP_DFS/stats
#                               (empty, status 1 if absent)
#
# Other kernel modules shipped with mkinitramfs.sh --kmod:
#   cp_kmod_load NAME           insmod NAME and its dependencies (modules.dep)
#
# Page-cache size and data disk:
#   CP_DATA                     the data file, /mnt/data/big (~1200 MiB, random)
#   cp_data_seed                generator seed of $CP_DATA (from /mnt/data/MANIFEST)
#   cp_cache_size               C, in bytes, see below
#   cp_cache_estimate           MemFree + file LRU right after drop_caches, bytes
#
#   C is the steady-state size of the file LRU (Active(file) +
#   Inactive(file)) while the kernel reclaims page cache: the data file's
#   last 1.5 x MemTotal bytes are streamed with readahead, and the file LRU is
#   sampled every 4 MiB during the second half of the stream ("cpwork
#   cachesize"); C is the average.  That is the amount of file data the
#   guest actually keeps cached under pressure, so a loop of 1.25 x C does
#   not fit.  It is measured once per boot (about 1.5 x MemTotal of I/O) and
#   cached in /tmp/cp_cache_bytes; "cp_cache=BYTES" on the kernel command
#   line (vmtest.sh --append) overrides it.  cp_cache_estimate is the cheap
#   upper bound (free memory + clean file pages, ignoring watermarks and
#   anon/slab growth) and is reported for comparison only.
#
# Workloads (cpwork, see selftests/workloads/cpwork.c):
#   cp_workload OUT ARGS...     run "cpwork ARGS...", save its output in OUT,
#                               echo it as "# " lines; returns cpwork's status
#   kv KEY FILE                 value of the last "KEY VALUE" line in FILE
#   kv_line PREFIX KEY FILE     in the first line starting with "PREFIX ",
#                               the value after KEY, e.g.
#                               kv_line "pass 3" hit_ratio out -> 0.7213
#   fcalc EXPR                  awk arithmetic, e.g. fcalc "$a * 5 / 4"
#   fint EXPR                   same, truncated to an integer
#
# cgroup v2 (mounted at /sys/fs/cgroup, memory controller enabled):
#   cp_cgroup_new NAME [MAX]    create /sys/fs/cgroup/NAME, memory.max=MAX
#   cp_cgroup_exec NAME CMD...  run CMD inside the cgroup
#   cp_cgroup_kill NAME         kill every task in it
#   cp_cgroup_rm NAME           remove it (waits up to 10 s for its tasks to go)

CP_DFS=/sys/kernel/debug/clockpro
CP_DATA=${CP_DATA:-/mnt/data/big}
CP_MODULE=/clockpro.ko

_TAP_N=0
_TAP_PASS=0
_TAP_FAIL=0
_TAP_XFAIL=0
_TAP_SKIP=0

tap_diag() {
	echo "# $*"
}

tap_ok() {
	_TAP_N=$((_TAP_N + 1))
	_TAP_PASS=$((_TAP_PASS + 1))
	echo "ok $_TAP_N - $1"
}

tap_fail() {
	_TAP_N=$((_TAP_N + 1))
	_TAP_FAIL=$((_TAP_FAIL + 1))
	echo "not ok $_TAP_N - $1"
	shift
	for _l in "$@"; do
		echo "# $_l"
	done
}

# A known failure: reported "not ok ... # TODO REASON", not counted as a
# failure (TAP's xfail).
tap_todo() {
	_TAP_N=$((_TAP_N + 1))
	_TAP_XFAIL=$((_TAP_XFAIL + 1))
	echo "not ok $_TAP_N - $1 # TODO $2"
}

tap_skip() {
	_TAP_N=$((_TAP_N + 1))
	_TAP_SKIP=$((_TAP_SKIP + 1))
	echo "ok $_TAP_N - $1 # SKIP${2:+ $2}"
}

tap_check() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		tap_ok "$_d"
	else
		tap_fail "$_d" "command failed ($?): $*" "$_out"
	fi
}

# tap_cmp DESC A OP B
tap_cmp() {
	if awk -v a="$2" -v b="$4" -v op="$3" 'BEGIN {
		if (a !~ /^-?[0-9.eE+-]+$/ || b !~ /^-?[0-9.eE+-]+$/) exit 2
		a += 0; b += 0
		if (op == "<") r = a < b; else if (op == "<=") r = a <= b
		else if (op == ">") r = a > b; else if (op == ">=") r = a >= b
		else if (op == "==") r = a == b; else if (op == "!=") r = a != b
		else exit 2
		exit !r }'; then
		tap_ok "$1"
	else
		tap_fail "$1" "expected $2 $3 $4"
	fi
}

tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit 4
}

tap_done() {
	echo "1..$_TAP_N"
	echo "# Totals: pass:$_TAP_PASS fail:$_TAP_FAIL xfail:${_TAP_XFAIL:-0} xpass:0 skip:$_TAP_SKIP error:0"
	if [ "$_TAP_FAIL" -gt 0 ]; then
		exit 1
	elif [ "$_TAP_PASS" -eq 0 ] && [ "$_TAP_SKIP" -gt 0 ]; then
		exit 4
	fi
	exit 0
}

# --- system state -----------------------------------------------------------

vmstat() {
	awk -v k="$1" '$1 == k { print $2; f = 1; exit } END { exit !f }' /proc/vmstat
}

meminfo() {
	awk -v k="$1:" '$1 == k { print $2; f = 1; exit } END { exit !f }' /proc/meminfo
}

file_lru_kb() {
	echo $(($(meminfo "Active(file)") + $(meminfo "Inactive(file)")))
}

cp_param() {
	_v=${2-}
	read -r _cmdline </proc/cmdline
	for _w in $_cmdline; do
		case $_w in "$1="*) _v=${_w#*=} ;; esac
	done
	echo "$_v"
}

cp_lru_gen() {
	if [ ! -r /sys/kernel/mm/lru_gen/enabled ]; then
		echo na
	elif [ "$(cat /sys/kernel/mm/lru_gen/enabled)" = 0x0000 ]; then
		echo 0
	else
		echo 1
	fi
}

# TAP line: the kernel log shows no WARN, BUG or call trace.
tap_dmesg_clean() {
	if dmesg | grep -E 'WARNING:|BUG:|Call Trace' >/dev/null; then
		tap_fail "no kernel warnings" "$(dmesg | grep -E -B3 -A5 'WARNING:|BUG:|Call Trace' | head -n 24)"
	else
		tap_ok "no kernel warnings"
	fi
}

cp_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# cp_reclaim_quiesce: no reclaim running, before the module's hooks are
# patched in or out in a guest of several vCPUs on several host threads.
# There a vCPU inside a function whose ftrace site another vCPU rewrites
# can hang in the int3 handler (kswapd in workingset_eviction(), 6.1, a
# NUMA guest unloading after its loop): qemu's multi-threaded TCG, which
# the module cannot help (docs/safety.md).  A dropped cache lets kswapd
# sleep.  Tests of reloading under load (stress.sh) use one host thread.
cp_reclaim_quiesce() {
	cp_drop_caches
	sleep 1
}

# --- clockpro module ---------------------------------------------------------

cp_module_present() {
	[ -f "$CP_MODULE" ]
}

cp_module_loaded() {
	grep -q '^clockpro ' /proc/modules
}

# shellcheck disable=SC2120 # parameters are optional
cp_module_load() {
	insmod "$CP_MODULE" "$@"
}

# cp_config_begin CFG [ARG...]: the LRU or the module of a side-by-side
# configuration: stock (as booted), mglru (MGLRU switched on), clockpro
# (loaded with mode=enforce ARG...).  The caller puts lru_gen/enabled back.
cp_config_begin() {
	case $1 in
	mglru) echo y >/sys/kernel/mm/lru_gen/enabled ;;
	clockpro) shift; cp_module_load mode=enforce "$@" ;;
	observe) cp_module_load mode=observe ;;
	esac
}

cp_module_unload() {
	rmmod clockpro
}

cp_dfs() {
	cat "$CP_DFS/$1"
}

cp_stat() {
	awk -v k="$1" '$1 == k { print $2; f = 1; exit } END { exit !f }' "$CP_DFS/stats"
}

# --- other kernel modules ------------------------------------------------------

cp_kmod_load() {
	_dep=/lib/modules/$(uname -r)/modules.dep
	_n=$(echo "$1" | tr - _)
	_line=$(awk -F: -v want="$_n" '{
		n = $1; sub(/.*\//, "", n); sub(/\.ko$/, "", n); gsub(/-/, "_", n)
		if (n == want) { print; exit } }' "$_dep")
	[ -n "$_line" ] || { echo "cp_kmod_load: $1 not shipped" >&2; return 1; }
	_mods=
	for _d in ${_line#*:}; do
		_mods="$_d $_mods"	# dependencies load last-to-first
	done
	for _m in $_mods ${_line%%:*}; do
		_mn=$(basename "$_m" .ko | tr - _)
		grep -q "^$_mn " /proc/modules && continue
		insmod "/lib/modules/$(uname -r)/$_m" || return 1
	done
}

# --- page cache size and data ------------------------------------------------

cp_data_seed() {
	awk '$1 == "big" { for (i = 2; i < NF; i++) if ($i == "seed") print $(i + 1) }' \
		/mnt/data/MANIFEST
}

cp_cache_estimate() {
	cp_drop_caches
	echo $((($(meminfo MemFree) + $(file_lru_kb)) * 1024))
}

cp_cache_size() {
	_c=$(cp_param cp_cache "")
	if [ -n "$_c" ]; then
		echo "$_c"
		return 0
	fi
	if [ ! -s /tmp/cp_cache_bytes ]; then
		_fsize=$(stat -c %s "$CP_DATA")
		_len=$(($(meminfo MemTotal) * 1024 * 3 / 2))
		[ "$_len" -le "$_fsize" ] || _len=$_fsize
		_len=$((_len / 1048576 * 1048576))
		_off=$(((_fsize - _len) / 1048576 * 1048576))
		cp_drop_caches
		cpwork cachesize "$CP_DATA" "$_off" "$_len" >/tmp/cp_cachesize.out || return 1
		cp_drop_caches
		echo $(($(kv file_lru_kb_avg /tmp/cp_cachesize.out) * 1024)) >/tmp/cp_cache_bytes
	fi
	cat /tmp/cp_cache_bytes
}

# --- workloads ------------------------------------------------------------------

cp_workload() {
	_o=$1
	shift
	_rc=0
	cpwork "$@" >"$_o" 2>&1 || _rc=$?
	sed 's/^/# /' "$_o"
	return $_rc
}

kv() {
	awk -v k="$1" '$1 == k && NF == 2 { v = $2; f = 1 } END { if (f) print v; exit !f }' "$2"
}

kv_line() {
	awk -v p="$1 " -v k="$2" 'index($0, p) == 1 {
		for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); f = 1; exit }
	} END { exit !f }' "$3"
}

fcalc() {
	# parenthesised: in "print a > b" awk reads ">" as a redirection
	awk "BEGIN { print ($1) }"
}

fint() {
	# print int(), not printf %d: busybox awk's %d is 32-bit
	awk "BEGIN { printf \"%.0f\n\", int($1) }"
}

# --- cgroup v2 -------------------------------------------------------------------

cp_cgroup_new() {
	mkdir -p "/sys/fs/cgroup/$1"
	[ -z "${2-}" ] || echo "$2" >"/sys/fs/cgroup/$1/memory.max"
}

cp_cgroup_exec() {
	_g=$1
	shift
	sh -c 'echo $$ >"$0" && exec "$@"' "/sys/fs/cgroup/$_g/cgroup.procs" "$@"
}

cp_cgroup_kill() {
	# every task of the cgroup (a job started with cp_cgroup_exec & is a
	# subshell: its $! is not the workload's pid)
	if [ -w "/sys/fs/cgroup/$1/cgroup.kill" ]; then
		echo 1 >"/sys/fs/cgroup/$1/cgroup.kill"
	else
		# shellcheck disable=SC2046 # pids are words
		kill $(cat "/sys/fs/cgroup/$1/cgroup.procs") 2>/dev/null || :
	fi
}

cp_cgroup_rm() {
	# a task just killed may not have left yet: retry for 10 s
	_i=0
	until rmdir "/sys/fs/cgroup/$1" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -ge 50 ]; then
			rmdir "/sys/fs/cgroup/$1"
			return
		fi
		sleep 0.2
	done
}
