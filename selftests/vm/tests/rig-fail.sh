#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rig-fail: one passing and one failing subtest, to check that a "not ok"
# makes vmtest.sh exit non-zero.  Not part of any suite.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. /lib/cp/lib.sh
tap_ok "this passes"
tap_fail "this fails on purpose" "rig self-check"
tap_done
