#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest-refaultdist.sh - run clockpro-refaultdist in a qemu guest of the
# selftests/vm rig and check it against the kernel's own counters.
#
#   tools/refaultdist/vmtest-refaultdist.sh --kernel KVER [vmtest.sh options]
#
# e.g.
#   tools/refaultdist/vmtest-refaultdist.sh --kernel 6.1.0-57-amd64
#   tools/refaultdist/vmtest-refaultdist.sh --kernel 6.12.95+deb12-amd64
#   tools/refaultdist/vmtest-refaultdist.sh --kernel 6.12.95+deb12-amd64 --lru-gen 0
#   ... --append "cp_rd_passes=6 cp_rd_factor=1.5"
#
# Builds the tool (make -C tools/refaultdist), stages it as
# /bin/clockpro-refaultdist and the guest test tools/refaultdist/vm/
# refaultdist.sh as /tests/refaultdist.sh (vmtest.sh --extra), and boots
# one guest (default 256 MiB, 1 CPU) under the machine-wide qemu lock
# /tmp/clockpro-qemu.lock.  The guest test is described in its header;
# its TAP output is forwarded here and kept in the run directory that
# vmtest.sh prints.
#
# To wire it into the rig proper, copy vm/refaultdist.sh to
# selftests/vm/tests/refaultdist.sh and have vmtest.sh (or its caller)
# ship tools/clockpro-refaultdist as /bin/clockpro-refaultdist.
set -eu

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SELF_DIR/../.." && pwd)
VMTEST=$TOP/selftests/vm/vmtest.sh

[ -x "$VMTEST" ] || { echo "vmtest-refaultdist: no $VMTEST (the VM rig)" >&2; exit 2; }
case " $* " in
*" --kernel "*) ;;
*) echo "usage: $0 --kernel KVER [vmtest.sh options]" >&2; exit 2 ;;
esac

make -s -C "$SELF_DIR"

# The rig ships tools/clockpro-refaultdist and the guest test itself.
exec "$VMTEST" "$@" refaultdist
