#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cghist: the per-memcg refault histograms (debugfs memcgs), the memory
# curve, and clockprostat -c against them; observe mode, module loaded
# with hist_width=256 hist_rows=64 (rows of 1 MiB, 64 MiB of reach).
#
# 0. memcg_hist is off at load: a loop in a cgroup leaves no memcgs line,
#    and clockprostat -c says how to turn it on; the knob turns it on.
# 1. Two cgroups at once: P (memory.max 16 MiB) loops over 20 MiB, Q
#    (48 MiB) over 60 MiB, 4 passes each, readahead off, concurrently.
#    Under LRU a loop of L pages in M refaults at distance L - M, in the
#    evictions of its own memcg: 4 MiB for P, 12 MiB for Q, plus what of
#    the limit is not page cache.  On one global clock, with both
#    evicting at once, each would read about twice that, and a global
#    histogram shown per cgroup would peak at the same row for both.
#    Asserted: each peak row lies in [0.75 d, 1.6 d] of its own
#    d = L - M, and Q's peak is 2 to 4.5 times P's (MGLRU too: a loop
#    read once per pass ages through its generations in order; the rows
#    were the same as the classic LRU's on 6.12).  Also: each memcg's
#    rows sum to its refaults; each memcg's refaults are within 10 % of
#    its memory.stat workingset_refault_file (the kernel's shadow hits);
#    the memcgs' refaults sum to no more than the global counter.
# 2. clockprostat -j -c P on the idle guest (files unchanged across it,
#    up to three tries): valid JSON; cgroup.refaults, new, beyond and
#    every hist row equal P's memcgs line; the text shows the same rows.
# 3. The memory curve, on every LRU.  One cgroup of M = 24 MiB reads
#    region A (32 MiB) 4 times, then region B (96 MiB) twice: A refaults
#    at about 8 MiB, B at about 72; the curve has two steps.
#    clockprostat -m 16 predicts the refaults that 16 MiB more would have
#    made hits (A's, not B's: B still thrashes at 40 MiB, its distance
#    there, 56, beyond the memcg's working set, so that the kernel does
#    not activate and keep any of it).  The same run in a new cgroup of
#    M + 16 MiB: the pages it reads from disk fewer (cpwork's
#    read_sectors, the data disk's, / 8) are the hits gained.  Asserted:
#    within 10 % of the prediction; the prediction is at least 1/4 of the
#    refaults (not a trivial curve) and below all of them.  X lies on the
#    curve's plateau between the steps: what is checked is that the
#    curve puts each region's refaults on the right side of X, not a
#    point on a slope (a loop under LRU gains nothing until it fits).
#    The module is reloaded before each run: a table still holding the
#    last run's evictions counts pages dropped since (drop_caches counts
#    no eviction) as refaults at short distances; seen as 4045 extra
#    predicted hits (16 %) in a second run without the reload.
# 4. Enforce, memcg_hist=1, idle rule on and off: a loop of 20 MiB in a
#    16 MiB cgroup is counted as in observe (rows sum to the refaults,
#    within 10 % of memory.stat's, at least one pass of insertions): the
#    histogram then rides on the policy's own operation, one slot lock.
#
# Kernel command line: cp_cg_runs=N repeats part 3 N times (default 1).
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh

cp_module_present || tap_skip_all "no /clockpro.ko in the initramfs"
[ -f /sys/fs/cgroup/cgroup.subtree_control ] || tap_skip_all "no cgroup v2"
command -v clockprostat >/dev/null || tap_skip_all "no clockprostat in the initramfs"
JSON=/lib/cp/json.awk
MB=1048576
W=256	# pages per row
LRU=$(cp_lru_gen)
runs=$(cp_param cp_cg_runs 1)
tap_diag "kernel $(uname -r), lru_gen $LRU"

cp_module_loaded && cp_module_unload
cp_module_load hist_width=$W hist_rows=64

# --- 0. off by default: no memcg recorded; on from the knob -------------------

cp_drop_caches
cp_cgroup_new cgz $((16 * MB))
# (a region of its own: the table remembers what reclaim evicts here, and
# pages dropped since would count as P's refaults)
cp_cgroup_exec cgz cpwork loop "$CP_DATA" $((20 * MB)) 2 --no-readahead \
	--offset $((900 * MB)) >/dev/null 2>&1
tap_cmp "memcg_hist off by default: no memcg line after a loop in a cgroup" \
	"$(awk 'NF >= 8 && $1 ~ /^[0-9]+$/' "$CP_DFS/memcgs" | wc -l)" "==" 0
tap_check "memcg_hist off: clockprostat -c says how to turn it on" sh -c \
	"clockprostat -c cgz | grep -q 'memcg_hist=1 turns them on'"
cp_cgroup_rm cgz
echo 1 >"$CP_DFS/memcg_hist"
tap_cmp "memcg_hist on from its knob" "$(awk '$1 == "memcg_hist" { print $2 }' "$CP_DFS/memcgs")" "==" 1

# lru_assert DESC OK WHY: passes if OK is 1, else fails with WHY.
lru_assert() {
	if [ "$2" = 1 ]; then
		tap_ok "$1"
	else
		tap_fail "$1" "$3 (lru_gen $LRU)"
	fi
}
in_range() {	# V LO HI: 1 if LO <= V <= HI
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ] && echo 1 || echo 0
}

# memcg_line INO: the memcgs line of the cgroup with inode INO
memcg_line() {
	awk -v ino="$1" 'NF >= 8 && $2 == ino' "$CP_DFS/memcgs"
}
# peak LINE: the row with the most refaults (0-based)
peak() {
	echo "$1" | awk '{ b = 8; for (i = 9; i <= NF; i++) if ($i > $b) b = i; print b - 8 }'
}
rowsum() {
	echo "$1" | awk '{ s = 0; for (i = 8; i <= NF; i++) s += $i; printf "%.0f\n", s }'
}
ws_refault() {	# the cgroup's workingset_refault_file
	awk '$1 == "workingset_refault_file" || $1 == "workingset_refault" { print $2; exit }' \
		"/sys/fs/cgroup/$1/memory.stat"
}

# --- 1. two cgroups at once -------------------------------------------------

cp_drop_caches
cp_cgroup_new cgp $((16 * MB))
cp_cgroup_new cgq $((48 * MB))
cp_cgroup_exec cgp cpwork loop "$CP_DATA" $((20 * MB)) 4 --no-readahead \
	--offset $((200 * MB)) >/tmp/cgh.p 2>&1 &
pp=$!
cp_cgroup_exec cgq cpwork loop "$CP_DATA" $((60 * MB)) 4 --no-readahead \
	--offset $((300 * MB)) >/tmp/cgh.q 2>&1 &
pq=$!
wait $pp || tap_diag "cgroup P: cpwork failed: $(tail -n 2 /tmp/cgh.p)"
wait $pq || tap_diag "cgroup Q: cpwork failed: $(tail -n 2 /tmp/cgh.q)"
ino_p=$(stat -c %i /sys/fs/cgroup/cgp)
ino_q=$(stat -c %i /sys/fs/cgroup/cgq)
lp=$(memcg_line "$ino_p")
lq=$(memcg_line "$ino_q")
sed 's/^/#   /' "$CP_DFS/memcgs"
tap_cmp "P has a memcgs line" "$(echo "$lp" | awk 'NF >= 8' | wc -l)" "==" 1
tap_cmp "Q has a memcgs line" "$(echo "$lq" | awk 'NF >= 8' | wc -l)" "==" 1
for g in p q; do
	if [ $g = p ]; then l=$lp; d=$((4 * 256)); else l=$lq; d=$((12 * 256)); fi
	ref=$(echo "$l" | awk '{ print $5 }')
	ws=$(ws_refault cg$g)
	tap_cmp "$g: rows sum to its refaults ($ref)" "$(rowsum "$l")" "==" "$ref"
	tap_cmp "$g: refaults $ref >= 0.9 x memory.stat's $ws" "$ref" ">=" "$(fint "$ws * 0.9")"
	tap_cmp "$g: refaults $ref <= 1.1 x memory.stat's $ws" "$ref" "<=" "$(fint "$ws * 1.1 + 16")"
	pk=$(peak "$l")
	lo=$((pk * W))
	if [ $g = p ]; then pk_p=$pk; else pk_q=$pk; fi
	desc="$g: peak row $lo-$((lo + W)) pages in [0.75, 1.6] x its L - M = $d"
	if [ "$ref" -eq 0 ]; then
		tap_fail "$desc" "no refaults"
	else
		lru_assert "$desc" "$(in_range "$lo" $(($(fint "$d * 0.75") - W + 1)) "$(fint "$d * 1.6")")" \
			"peak at $lo"
	fi
done
lru_assert "Q's peak row $pk_q is 2 to 4.5 x P's $pk_p" \
	"$(in_range $((pk_q * 2)) $((pk_p * 4)) $((pk_p * 9)))" "ratio out of range"
sumref=$(awk 'NF >= 8 && $1 ~ /^[0-9]+$/ { s += $5 } END { printf "%.0f\n", s }' "$CP_DFS/memcgs")
tap_cmp "memcgs' refaults $sumref <= the global $(cp_stat refaults)" "$sumref" "<=" "$(cp_stat refaults)"

# --- 2. clockprostat -c against the memcgs file ------------------------------

same=0
for try in 1 2 3; do
	cat "$CP_DFS/memcgs" >/tmp/cgh.m1
	clockprostat -j -c cgp >/tmp/cgh.json
	clockprostat -c cgp >/tmp/cgh.txt
	cat "$CP_DFS/memcgs" >/tmp/cgh.m2
	if cmp -s /tmp/cgh.m1 /tmp/cgh.m2; then
		same=1
		break
	fi
	sleep 2
done
if [ $same = 1 ]; then
	tap_ok "memcgs unchanged while the tool ran (try $try)"
	if awk -f $JSON /tmp/cgh.json >/tmp/cgh.flat 2>/tmp/cgh.err; then
		tap_ok "-j -c output is valid JSON"
	else
		tap_fail "-j -c output is valid JSON" "$(cat /tmp/cgh.err)"
	fi
	awk -v ino="$ino_p" '
		FILENAME ~ /flat$/ { v[$1] = $2; next }
		$1 == "width" { w = $2 }
		NF >= 8 && $2 == ino {
			chk("1.cgroup.memcg", $1); chk("1.cgroup.nodes", $3)
			chk("1.cgroup.evictions", $4); chk("1.cgroup.refaults", $5)
			chk("1.cgroup.new", $6); chk("1.cgroup.beyond", $7)
			for (i = 8; i <= NF; i++) {
				chk("1.cgroup.hist." (i - 8) ".count", $i)
				chk("1.cgroup.hist." (i - 8) ".lo", (i - 8) * w)
			}
			if (("1.cgroup.hist." (NF - 7) ".count") in v) { m++; f = f " extra rows" }
		}
		function chk(k, want) { c++; if (!(k in v) || v[k] "" != want "") { m++; if (!f) f = k " " v[k] " vs " want } }
		END { printf "%d %d %s\n", c, m, f }' /tmp/cgh.flat /tmp/cgh.m2 >/tmp/cgh.cmp
	read -r checked mism first </tmp/cgh.cmp || :
	tap_cmp "-j -c: $checked numbers equal P's memcgs line ($mism differ${first:+: $first})" "$mism" "==" 0
	tap_cmp "-j -c: numbers checked ($checked)" "$checked" ">" 10
	txt=$(awk '/^cgroup .*memcg/ { on = 1; next } on && $2 == "->" { printf "%s ", $5 } on && $1 == "Refaults" { exit }' /tmp/cgh.txt)
	want=$(echo "$lp" | awk '{ for (i = 8; i <= NF; i++) printf "%s ", $i }')
	tap_cmp "text -c: the cgroup's rows equal the file's" "$([ "$txt" = "$want" ] && echo 1 || echo 0)" "==" 1
else
	tap_fail "memcgs unchanged while the tool ran" "changed in three tries"
fi
# the cgroup's non-empty rows, its curve where it changes
sed -n '/^cgroup .*memcg/,/^mode/p' /tmp/cgh.txt | awk '
	$2 == "->" && $5 == 0 { next }
	NF == 4 && $1 ~ /\./ { if ($3 == h) next; h = $3 }
	{ print "#   " $0 }'
for g in cgp cgq; do
	echo 1G >/sys/fs/cgroup/$g/memory.reclaim 2>/dev/null || :
	cp_cgroup_rm $g
done

# --- 3. the memory curve against a run with more memory ----------------------

M=$((24 * MB))
X=16
curve_run() {	# NAME MAX: A then B in cgroup NAME; prints disk pages read
	cp_drop_caches
	cp_cgroup_new "$1" "$2"
	cp_cgroup_exec "$1" cpwork loop "$CP_DATA" $((32 * MB)) 4 --no-readahead \
		--offset $((400 * MB)) >"/tmp/cgh.$1.a" 2>&1
	cp_cgroup_exec "$1" cpwork loop "$CP_DATA" $((96 * MB)) 2 --no-readahead \
		--offset $((500 * MB)) >"/tmp/cgh.$1.b" 2>&1
	echo $((($(kv read_sectors "/tmp/cgh.$1.a") + $(kv read_sectors "/tmp/cgh.$1.b")) / 8))
}
r=0
while [ $r -lt "$runs" ]; do
	r=$((r + 1))
	# A fresh table for each run: the last run's evictions are in it,
	# and drop_caches, which counts no eviction, would make its pages
	# refaults at short distances (the module's, not the kernel's)
	cp_module_unload
	cp_module_load hist_width=$W hist_rows=64 memcg_hist=1
	d1=$(curve_run cgc1 $M)
	ino=$(stat -c %i /sys/fs/cgroup/cgc1)
	l1=$(memcg_line "$ino")
	ws1=$(ws_refault cgc1)
	clockprostat -j -m $X -c cgc1 >/tmp/cgh.cj
	clockprostat -m $X -c cgc1 >/tmp/cgh.ct
	# the cgroup's curve where it changes, and the prediction
	sed -n '/memory curve of the cgroup/,/^predict/p' /tmp/cgh.ct |
		awk 'NF != 4 || $3 != h { print "#   " $0 } NF == 4 { h = $3 }'
	awk -f $JSON /tmp/cgh.cj >/tmp/cgh.cflat
	pred=$(awk '$1 == "1.cgroup.predict.hits" { print $2 }' /tmp/cgh.cflat)
	ref1=$(echo "$l1" | awk '{ print $5 }')
	echo 1G >/sys/fs/cgroup/cgc1/memory.reclaim 2>/dev/null || :
	cp_cgroup_rm cgc1
	d2=$(curve_run cgc2 $((M + X * MB)))
	ws2=$(ws_refault cgc2)
	l2=$(memcg_line "$(stat -c %i /sys/fs/cgroup/cgc2)")
	echo 1G >/sys/fs/cgroup/cgc2/memory.reclaim 2>/dev/null || :
	cp_cgroup_rm cgc2
	gain=$((d1 - d2))
	tap_diag "curve run $r: M $((M / MB)) MiB: read $d1 pages, refaults $ref1 (memory.stat $ws1); +$X MiB: read $d2, memory.stat refaults $ws2, module refaults $(echo "$l2" | awk '{ print $5 }')"
	tap_diag "curve run $r: predicted hits ${pred:-none}, measured $gain (disk), $((ws1 - ws2)) (memory.stat); A steady hit ratio $(kv hit_ratio_steady /tmp/cgh.cgc1.a) -> $(kv hit_ratio_steady /tmp/cgh.cgc2.a), B $(kv hit_ratio_steady /tmp/cgh.cgc1.b) -> $(kv hit_ratio_steady /tmp/cgh.cgc2.b)"
	pred=${pred:-0}
	tap_cmp "run $r: prediction $pred >= 1/4 of the refaults $ref1" "$((pred * 4))" ">=" "$ref1"
	tap_cmp "run $r: prediction $pred < the refaults $ref1 (two steps)" "$pred" "<" "$ref1"
	lru_assert "run $r: +$X MiB: hits gained $gain within 10 % of the predicted $pred" \
		"$(in_range $((gain * 10)) $((pred * 9)) $((pred * 11)))" "measured $gain"
done

# --- 4. enforce: the histogram carried by the policy's operations -----------

# Enforce counts an insertion in the histogram inside its own policy
# operation (refault or new page), under the one slot lock it takes
# anyway; metadata and, with the idle rule off, new pages take the
# observe path.  Both must count every insertion as observe does.
cp_module_unload
boot_lru=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo none)
# under MGLRU enforce needs the classic LRU (classic_lru=1 switches it)
if [ "$LRU" = 1 ]; then
	cp_module_load hist_width=$W hist_rows=64 memcg_hist=1 mode=enforce classic_lru=1
else
	cp_module_load hist_width=$W hist_rows=64 memcg_hist=1 mode=enforce
fi
mode=$(cat "$CP_DFS/mode")
tap_cmp "enforce with memcg_hist=1: mode $mode" "$([ "$mode" = enforce ] && echo 1 || echo 0)" "==" 1
for idle in 2 0; do
	echo $idle >"$CP_DFS/idle_pct"
	cp_drop_caches
	cp_cgroup_new cge $((16 * MB))
	cp_cgroup_exec cge cpwork loop "$CP_DATA" $((20 * MB)) 4 --no-readahead \
		--offset $((600 * MB)) >/tmp/cgh.e 2>&1 ||
		tap_diag "enforce: cpwork failed: $(tail -n 2 /tmp/cgh.e)"
	le=$(memcg_line "$(stat -c %i /sys/fs/cgroup/cge)")
	ref=$(echo "$le" | awk '{ print $5 }')
	ins=$(echo "$le" | awk '{ print $5 + $6 + $7 }')
	ws=$(ws_refault cge)
	tap_diag "enforce, idle_pct $idle: $le; memory.stat refaults $ws; loop $(kv hit_ratio_steady /tmp/cgh.e)"
	tap_cmp "enforce, idle_pct $idle: a memcgs line for the cgroup" "$(echo "$le" | awk 'NF >= 8' | wc -l)" "==" 1
	tap_cmp "enforce, idle_pct $idle: rows sum to its refaults (${ref:-0})" "$(rowsum "$le")" "==" "${ref:-x}"
	tap_cmp "enforce, idle_pct $idle: refaults ${ref:-0} >= 0.9 x memory.stat's $ws" "${ref:-0}" ">=" "$(fint "$ws * 0.9")"
	tap_cmp "enforce, idle_pct $idle: refaults ${ref:-0} <= 1.1 x memory.stat's $ws" "${ref:-0}" "<=" "$(fint "$ws * 1.1 + 16")"
	# 4 passes of 5120 pages: every read of a page not in memory inserts it
	tap_cmp "enforce, idle_pct $idle: insertions counted ${ins:-0} >= one pass (5120)" "${ins:-0}" ">=" 5120
	echo 1G >/sys/fs/cgroup/cge/memory.reclaim 2>/dev/null || :
	cp_cgroup_rm cge
done

cp_module_unload
[ "$boot_lru" = none ] || echo "$boot_lru" >/sys/kernel/mm/lru_gen/enabled
tap_dmesg_clean
tap_done
