#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rig-panic: crash the kernel through /proc/sysrq-trigger, to check that
# vmtest.sh detects a panic/Oops on the console and fails.  Not part of any
# suite.
set -eu
echo "# rig-panic: echo c > /proc/sysrq-trigger"
sync
echo c >/proc/sysrq-trigger
