# SPDX-License-Identifier: GPL-2.0
#
# A JSON checker for busybox awk, which the guest has (no jq, no python):
# every input line must be one JSON value (RFC 8259 grammar: objects,
# arrays, strings with the standard escapes, numbers, true, false, null;
# whitespace between tokens).  Prints each scalar as "PATH VALUE", PATH
# the keys and array indices joined by dots ("hist.0.lo 0"), strings
# without their quotes; exits 1 with "json: line N: ..." on stderr at the
# first line that is not valid JSON, or when there is no line at all.
# Control characters inside strings are not looked for.
{
	s = $0
	p = 1
	L = length(s)
	err = ""
	ws()
	value(NR)
	ws()
	if (err == "" && p <= L)
		err = "trailing characters at " p
	if (err != "") {
		print "json: line " NR ": " err > "/dev/stderr"
		bad = 1
		exit 1
	}
	lines++
}

END {
	if (!bad && !lines) {
		print "json: no input" > "/dev/stderr"
		exit 1
	}
	if (bad)
		exit 1
}

function ws() {
	while (p <= L && index(" \t\r\n", substr(s, p, 1)))
		p++
}

function emit(path, v) {
	print path " " v
}

function value(path,    c, t) {
	if (err != "")
		return
	if (p > L) {
		err = "value expected at end"
		return
	}
	c = substr(s, p, 1)
	t = substr(s, p)
	if (c == "{") {
		object(path)
	} else if (c == "[") {
		array(path)
	} else if (c == "\"") {
		string()
		if (err == "")
			emit(path, sv)
	} else if (match(t, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
		emit(path, substr(t, 1, RLENGTH))
		p += RLENGTH
	} else if (substr(t, 1, 4) == "true" || substr(t, 1, 4) == "null") {
		emit(path, substr(t, 1, 4))
		p += 4
	} else if (substr(t, 1, 5) == "false") {
		emit(path, "false")
		p += 5
	} else {
		err = "unexpected '" c "' at " p
	}
}

function object(path,    k) {
	p++
	ws()
	if (substr(s, p, 1) == "}") {
		p++
		return
	}
	for (;;) {
		ws()
		if (substr(s, p, 1) != "\"") {
			err = "key expected at " p
			return
		}
		string()
		if (err != "")
			return
		k = sv
		ws()
		if (substr(s, p, 1) != ":") {
			err = "':' expected at " p
			return
		}
		p++
		ws()
		value(path "." k)
		if (closed("}"))
			return
	}
}

# After a member or element: 1 at the closing @end (or an error), 0 at ",".
function closed(end,    c) {
	if (err != "")
		return 1
	ws()
	c = substr(s, p, 1)
	p++
	if (c == end)
		return 1
	if (c != ",")
		err = "',' or '" end "' expected at " p - 1
	return err != ""
}

function array(path,    i) {
	p++
	ws()
	if (substr(s, p, 1) == "]") {
		p++
		return
	}
	for (i = 0; ; i++) {
		ws()
		value(path "." i)
		if (closed("]"))
			return
	}
}

# A string at p, its content (escapes kept as written) in sv.
function string(    c, e) {
	p++
	sv = ""
	while (p <= L) {
		c = substr(s, p, 1)
		if (c == "\"") {
			p++
			return
		}
		if (c == "\\") {
			e = substr(s, p + 1, 1)
			if (index("\"\\/bfnrt", e) && e != "") {
				sv = sv c e
				p += 2
				continue
			}
			if (e == "u" && substr(s, p + 2, 4) ~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/) {
				sv = sv substr(s, p, 6)
				p += 6
				continue
			}
			err = "bad escape at " p
			return
		}
		sv = sv c
		p++
	}
	err = "unterminated string"
}
