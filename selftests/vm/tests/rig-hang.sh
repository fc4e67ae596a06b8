#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rig-hang: a test that never finishes, to check that vmtest.sh reports a
# hung guest as a failure (run it with a short --timeout).  Not part of any
# suite.
set -eu
echo "# rig-hang: sleeping forever"
while :; do
	sleep 3600
done
