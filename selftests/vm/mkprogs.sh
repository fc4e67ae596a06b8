#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the ext4 disk of real data for the programs test (tests/programs.sh).
#
#   mkprogs.sh OUT
#
# Contents (made with "mkfs.ext4 -d", no root or loop device needed):
#   /tree          part of a Linux source tree, from Debian's linux-source
#                  tarball (TARBALL, default /usr/src/linux-source-6.1.tar.xz):
#                  drivers/net, drivers/media, drivers/scsi, arch/x86: about
#                  10 000 files, 230 MiB on disk: 1.3 times the page cache
#                  of a 256 MiB guest
#   /kv.sqlite     an SQLite table kv(k INTEGER PRIMARY KEY, v BLOB) of ROWS
#                  (default 280 000) rows of 1000 random bytes: 280 MiB
#   /queries.sql   QUERIES (default 200 000) point lookups "SELECT length(v)
#                  FROM kv WHERE k = K;", K drawn from a Zipf distribution
#                  (s = 0.8) over the rows, ranks scattered over the keys by
#                  a fixed permutation, seed 1
#   /MANIFEST      what was built, from which tarball
#
# Written to OUT.tmp.PID and renamed.  Guests attach it read-only.
set -eu

[ $# -eq 1 ] || { awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0" >&2; exit 2; }
OUT=$1
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
ROWS=${ROWS:-280000}
QUERIES=${QUERIES:-200000}
MKFS=$(command -v mkfs.ext4 || echo /sbin/mkfs.ext4)

die() { echo "mkprogs: $*" >&2; exit 1; }
[ -x "$MKFS" ] || die "mkfs.ext4 not found (install e2fsprogs)"
[ -f "$TARBALL" ] || die "no $TARBALL (install linux-source-6.1)"
command -v sqlite3 >/dev/null || die "sqlite3 not found (install sqlite3)"

mkdir -p "$(dirname "$OUT")"
STAGE=$(mktemp -d "$(dirname "$OUT")/progs-stage.XXXXXX")
# a private name: two guests started at once may both build the image
TMP=$OUT.tmp.$$
trap 'rm -rf "$STAGE" "$TMP"' EXIT

top=$(tar -tJf "$TARBALL" | head -n 1 | cut -d/ -f1)
mkdir -p "$STAGE/tree"
tar -xJf "$TARBALL" -C "$STAGE/tree" --strip-components=1 \
	"$top/drivers/net" "$top/drivers/media" "$top/drivers/scsi" \
	"$top/arch/x86"

sqlite3 "$STAGE/kv.sqlite" >/dev/null <<EOF
PRAGMA page_size = 4096;
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $ROWS)
INSERT INTO kv SELECT x, randomblob(1000) FROM c;
EOF

# Zipf(0.8) by inverse CDF; rank r (1 = hottest) is key
# (r * 7919) mod ROWS + 1, a permutation when 7919 does not divide ROWS.
[ $((ROWS % 7919)) -ne 0 ] || die "ROWS must not be a multiple of 7919"
awk -v n="$ROWS" -v q="$QUERIES" 'BEGIN {
	srand(1)
	for (i = 1; i <= n; i++) { t += 1 / i ^ 0.8; c[i] = t }
	for (j = 0; j < q; j++) {
		u = rand() * t; lo = 1; hi = n
		while (lo < hi) { m = int((lo + hi) / 2); if (c[m] < u) lo = m + 1; else hi = m }
		printf "SELECT length(v) FROM kv WHERE k = %d;\n", (lo * 7919) % n + 1
	}
}' >"$STAGE/queries.sql"

files=$(find "$STAGE/tree" -type f | wc -l)
tree_kb=$(du -sk "$STAGE/tree" | cut -f1)
db_kb=$(du -sk "$STAGE/kv.sqlite" | cut -f1)
{
	echo "tree $(basename "$TARBALL") files $files kib $tree_kb"
	echo "kv rows $ROWS kib $db_kb"
	echo "queries $QUERIES zipf 0.8 seed 1"
} >"$STAGE/MANIFEST"

size_mb=$(((tree_kb + db_kb) * 5 / 4096 + 64))
rm -f "$TMP"
truncate -s "${size_mb}M" "$TMP"
"$MKFS" -q -F -L cpprogs -N $((files + 4096)) \
	-E lazy_itable_init=0,lazy_journal_init=0 -d "$STAGE" "$TMP"
mv "$TMP" "$OUT"
echo "mkprogs: wrote $OUT ($size_mb MiB: $files files, $tree_kb KiB of tree, $db_kb KiB of SQLite)" >&2
