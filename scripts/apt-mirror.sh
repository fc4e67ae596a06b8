# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Sourced: the Debian mirror URIs of the host's apt configuration, so that
# no host name is written in the tree.

# cp_mirror_uri [security]: first URI of a deb822 source, or of a one-line
# source, naming the main Debian archive (with "security": the security
# archive's).
cp_mirror_uri() {
	if [ "${1:-}" = security ]; then
		sel='grep security'
	else
		sel='grep -v security'
	fi
	uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	      awk '{print $2}' | $sel | head -n1)
	[ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list \
	      /etc/apt/sources.list.d/*.list 2>/dev/null |
	      awk '{print $2}' | $sel | head -n1)
	echo "$uri"
}
