#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench-json.sh on a fixture: valid JSON, numbers as numbers,
# empty cells and n/a as null, the commit of the modules, a missing CSV
# (programs) as null, a malformed row refused.  TAP.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/bench-fixture/* "$work"/
echo "1..2"
"$top/scripts/bench-json.sh" "$work" >/dev/null
python3 - "$work/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e, c = d["enforce"], d["cost"]
assert d["programs"] is None, "missing programs.csv is null"
assert e["commit"] == "0123abc" and c["commit"] is None, (e["commit"], c["commit"])
r = e["rows"]
assert len(r) == 2 and r[0]["workload"] == "loop", r
assert r[0]["clockpro_mean"] == 0.7649 and r[0]["runs"] == 1, r[0]
assert r[1]["mglru_mean"] is None and r[1]["opt_sim"] is None, r[1]
assert [x["pct_over_stock"] for x in c["rows"]] == [0, 0, 4.98], c["rows"]
PY
echo "ok 1 - bench-json: fixture converted, values checked"
echo "6.1.0-57-amd64,loop,0.1" >>"$work/results.csv"
if "$top/scripts/bench-json.sh" "$work" >/dev/null 2>"$work/err"; then
	echo "not ok 2 - bench-json: a short row is refused"
	exit 1
fi
grep -q "3 fields, header has 10" "$work/err"
echo "ok 2 - bench-json: a short row is refused ($(cat "$work/err"))"
