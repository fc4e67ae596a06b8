#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the README's result tables from the output of `make bench`:
# each block between "<!-- bench:NAME -->" and "<!-- /bench:NAME -->" is
# replaced by the table made from .build/bench (NAME: enforce, from
# results.csv of bench.sh; programs, from programs.csv of
# bench-programs.sh; cost, from cost.md of bench-cost.sh; safety, from
# safety.csv of bench-safety.sh), with a line
# naming the commit and date of the files.  A block whose source is missing
# is left as it is, and said so.
#
#   readme-tables.sh [--bench DIR] [--print NAME] [README]
#
# --print NAME writes NAME's table to standard output instead (the bench
# scripts' own summaries).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$TOP/.build/bench
PRINT=
while [ $# -gt 0 ]; do
	case $1 in
	--bench) BENCH=$2; shift 2 ;;
	--print) PRINT=$2; shift 2 ;;
	*) break ;;
	esac
done
README=${1:-$TOP/README.md}

stamp() {	# FILE: its date, and the tree its modules came from (FILE.rev)
	rev="commit not recorded"
	[ -s "$1.rev" ] && rev="modules built from $(cat "$1.rev")"
	echo "<sub>\`make bench\` output $(basename "$1"), $(date -u -r "$1" '+%Y-%m-%d %H:%M UTC'), $rev</sub>"
}

enforce_table() {
	f=$BENCH/results.csv
	[ -s "$f" ] || return 1
	awk -F, 'NR > 1 { k = $1; sub(/-amd64/, "", k); sub(/\/mglru$/, " MGLRU boot", k)
		if (!(k in seen)) { seen[k] = 1; ks[nk++] = k; boots[k] = $10 }
		if (!($2 in wseen)) { wseen[$2] = 1; ws[nw++] = $2 }
		c[k, $2] = sprintf("%s / %s / %s", v($3), v($5), v($7)); opt[$2] = $9 ~ /^[0-9.]+$/ ? sprintf("%.2f", $9) : $9 }
	function v(x) { return x == "" ? "-" : sprintf("%.2f", x) }
	END {
		printf "| workload |"; for (i = 0; i < nk; i++) printf " %s (%s) |", ks[i], boots[ks[i]] == 1 ? "1 boot" : boots[ks[i]] " boots"; print " OPT (sim) |"
		printf "|---|"; for (i = 0; i < nk; i++) printf "--:|"; print "--:|"
		for (j = 0; j < nw; j++) {
			printf "| %s |", ws[j]
			for (i = 0; i < nk; i++) printf " %s |", c[ks[i], ws[j]]
			printf " %s |\n", opt[ws[j]]
		}
		print "\nHit ratio, stock classic / stock MGLRU / clockpro (mean over boots)."
	}' "$f"
	stamp "$f"
}

programs_table() {
	f=$BENCH/programs.csv
	[ -s "$f" ] || return 1
	echo "| kernel, boot LRU | grep -r, passes 3-5 | sqlite3 | sqlite3 beside md5sum |"
	echo "|---|--:|--:|--:|"
	awk -F, 'NR > 1 { row = $1 "|" $2; rows[row] = 1
		c = row "|" $4 "|" ($5 == "clockpro" ? "c" : $5 == "floor" ? "f" : "s" $5)
		s[c] += $6; n[c]++ }
	END {
		split("search db db+copy", ws, " ")
		for (row in rows) {
			split(row, f, "|"); k = f[1]; sub(/-amd64$/, "", k)
			line = sprintf("| %s %s |", k, f[2] == "1" ? "MGLRU" : "classic")
			for (j = 1; j <= 3; j++) {
				key = row "|" ws[j]; b = ""
				for (cfg in n) if (index(cfg, key "|s") == 1) { m = s[cfg] / n[cfg]; if (b == "" || m < b) b = m }
				if (!((key "|c") in n) || b == "") { line = line " |"; continue }
				cp = s[key "|c"] / n[key "|c"]
				fl = (key "|f") in n ? sprintf("; floor %.0f", s[key "|f"] / n[key "|f"]) : ""
				line = line sprintf(" %.0f -> **%.0f** (%+.0f %%%s) |", b, cp, (cp - b) * 100 / b, fl)
			}
			print line
		}
	}' "$f" | sort
	echo
	boots=$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m }' "$f")
	echo "MiB read from disk, best stock -> clockpro, means over $boots boot(s) each; floor: the least any policy could read (the pages pass 1 read, less the file LRU's at each pass's start); MGLRU boots: \`classic_lru=1\`."
	stamp "$f"
}

cost_table() {
	f=$BENCH/cost.md
	[ -s "$f" ] || return 1
	awk '/^\| path/ { on = 1 } on && /^$/ { exit }
		on && ($2 ~ /^(path|---|cached|stream|refault)$/ || /^\|---/) { print }' "$f"
	echo
	echo "Instructions per operation under \`qemu -icount\`, % over stock ([docs/cost.md](docs/cost.md))."
	stamp "$BENCH/cost.csv"
}

safety_table() {
	f=$BENCH/safety.csv
	[ -s "$f" ] || return 1
	awk -F, 'NR > 1 { k = $1; sub(/-amd64/, "", k)
		if (!(k in seen)) { seen[k] = 1; ks[nk++] = k }
		s[k, $3] += $4; c[k, $3] += $5; n[k, $3]++; b[k, $2] = 1 }
	function cell(k, m, fmt) {
		if (!n[k, m]) return "-"
		return sprintf(fmt " / **" fmt "**", s[k, m] / n[k, m], c[k, m] / n[k, m])
	}
	END {
		split("numa_loop memcg_a memcg_b oom_kills oom_loop psi_us_per_page", ms, " ")
		lab["numa_loop"] = "loop 1.25 C over two NUMA nodes, passes 3-8"
		lab["memcg_a"] = "two memcgs at once, each looping 1.25 x its `memory.max`: cgroup a"
		lab["memcg_b"] = "the same, cgroup b"
		lab["oom_kills"] = "OOM kills: anonymous memory and a file loop near `memory.max`"
		lab["oom_loop"] = "that file loop, passes 3-4"
		lab["psi_us_per_page"] = "PSI memory stall per page read while thrashing, us (observe / enforce)"
		printf "| |"; for (i = 0; i < nk; i++) printf " %s |", ks[i]; print ""
		printf "|---|"; for (i = 0; i < nk; i++) printf "--:|"; print ""
		for (j = 1; j <= 6; j++) {
			m = ms[j]; fmt = m == "oom_kills" ? "%.0f" : m == "psi_us_per_page" ? "%.1f" : "%.2f"
			printf "| %s |", lab[m]
			for (i = 0; i < nk; i++) printf " %s |", cell(ks[i], m, fmt)
			print ""
		}
		nb = 0; for (x in b) nb++; nb = nk ? nb / nk : 0
		printf "\nStock / clockpro enforce (hit ratios unless said), mean over %d boot(s); guests of two NUMA nodes and two vCPUs, classic LRU.\n", nb
	}' "$f"
	stamp "$f"
}

if [ -n "$PRINT" ]; then
	case $PRINT in
	enforce | programs | cost | safety) "${PRINT}_table" ;;
	*) echo "readme-tables: no table $PRINT (enforce, programs, cost, safety)" >&2; exit 2 ;;
	esac
	exit
fi

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.t"' EXIT
cp "$README" "$tmp"
for name in enforce programs cost safety; do
	grep -q "<!-- bench:$name -->" "$tmp" || continue
	if ! "${name}_table" >"$tmp.t"; then
		echo "readme-tables: no $name results in $BENCH: its table left as it is" >&2
		continue
	fi
	awk -v name="$name" -v tf="$tmp.t" '
		$0 == "<!-- bench:" name " -->" { print; while ((getline l < tf) > 0) print l; skip = 1; next }
		$0 == "<!-- /bench:" name " -->" { skip = 0 }
		!skip { print }' "$tmp" >"$tmp.n"
	mv "$tmp.n" "$tmp"
done
cp "$tmp" "$README"
echo "readme-tables: $README updated from $BENCH"
