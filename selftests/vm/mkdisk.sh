#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the ext4 data disk image for the clockpro VM tests.
#
#   mkdisk.sh OUT SIZE_MB
#
# Contents (made with "mkfs.ext4 -d", no root or loop device needed):
#   /data/big       BIG_MB (default 1200) MiB of pseudo-random, incompressible,
#                   non-sparse data from "cpwork gen" with seed SEED (default 1):
#                   8-byte word i is splitmix64 output i, so any range can be
#                   checked with "cpwork verify" or the readers' --verify
#   /data/MANIFEST  "big size BYTES seed SEED"
#
# The image is written to OUT.tmp.PID and renamed, so an interrupted build never
# leaves a half-made OUT.  Guests must attach it read-only or with
# snapshot=on (vmtest.sh does) so it is never modified.
set -eu

[ $# -eq 2 ] || { awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0" >&2; exit 2; }
OUT=$1
SIZE_MB=$2
BIG_MB=${BIG_MB:-1200}
SEED=${SEED:-1}

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
CPWORK=${CPWORK:-$TOP/.build/workloads/cpwork}
MKFS=$(command -v mkfs.ext4 || echo /sbin/mkfs.ext4)

[ -x "$MKFS" ] || { echo "mkdisk: mkfs.ext4 not found (install e2fsprogs)" >&2; exit 1; }
if [ "$SIZE_MB" -lt $((BIG_MB + BIG_MB / 16 + 64)) ]; then
	echo "mkdisk: $SIZE_MB MiB is too small for a $BIG_MB MiB file" >&2
	exit 1
fi
if [ ! -x "$CPWORK" ] || [ "$TOP/selftests/workloads/cpwork.c" -nt "$CPWORK" ]; then
	make -s -C "$TOP/selftests/workloads" O="$(dirname "$CPWORK")" >&2
fi

mkdir -p "$(dirname "$OUT")"
STAGE=$(mktemp -d "$(dirname "$OUT")/disk-stage.XXXXXX")
# a private name: two guests started at once may both build the image
TMP=$OUT.tmp.$$
trap 'rm -rf "$STAGE" "$TMP"' EXIT

mkdir -p "$STAGE/data"
"$CPWORK" gen "$STAGE/data/big" "$((BIG_MB << 20))" "$SEED" >/dev/null
echo "big size $((BIG_MB << 20)) seed $SEED" >"$STAGE/data/MANIFEST"

rm -f "$TMP"
truncate -s "${SIZE_MB}M" "$TMP"
# Initialise inode tables and journal now, so the guest's ext4lazyinit
# thread does not write to the disk during a test.
"$MKFS" -q -F -L cpdata -E lazy_itable_init=0,lazy_journal_init=0 \
	-d "$STAGE" "$TMP"
mv "$TMP" "$OUT"
echo "mkdisk: wrote $OUT ($SIZE_MB MiB, /data/big $BIG_MB MiB, seed $SEED)" >&2
