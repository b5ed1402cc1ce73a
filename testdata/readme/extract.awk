# extract.awk: the README's ```sh blocks, in order, as one bash script for
# testdata/readme/run.sh. Every line is kept as it is; between commands it
# adds calls to the harness's functions:
#   __at FIRST LAST             before each command (its README lines)
#   __check FIRST LAST STATUS FRAGMENT...   after a command whose trailing
#                               comment says what the answer is
# A comment saying an answer starts with an HTTP status ("# 200: ...",
# "# 403: keys never ...") and/or quotes pieces of it as JSON ("ok":true,
# "message":"Done:); those are what __check compares with the last curl
# call's answer. A block preceded by the line <!-- readme-test: skip -->
# is left out (the Set-up commands).
# POSIX awk only (mawk on a fresh Debian).

function sq(s) { gsub(/'/, "'\\''", s); return "'" s "'" }

# comment_of returns the text after the first unquoted "#" that starts a
# word in line, "" when there is none. It follows bash's quoting: '...',
# "..." (with $(...) inside), $(...) and (...) nested, backslash escapes.
function comment_of(line,    n, i, c, prev, stack, depth, top) {
	n = length(line); depth = 0; prev = " "
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		top = depth > 0 ? stack[depth] : ""
		if (c == "\\") { i++; prev = "x"; continue }
		if (top == "\"") {
			if (c == "\"") depth--
			else if (c == "$" && substr(line, i + 1, 1) == "(") { stack[++depth] = "("; i++ }
			prev = c; continue
		}
		if (c == "'") {
			i++
			while (i <= n && substr(line, i, 1) != "'") i++
			prev = "'"; continue
		}
		if (c == "\"") { stack[++depth] = "\""; prev = c; continue }
		if (c == "(") { stack[++depth] = "("; prev = c; continue }
		if (c == ")" && top == "(") { depth--; prev = c; continue }
		if (c == "#" && depth == 0 && (prev == " " || prev == "\t" || i == 1))
			return substr(line, i + 1)
		prev = c
	}
	return ""
}

# expectations turns an answer's comment into __check's arguments: the
# status ("-" when the comment gives none), then the JSON fragments.
function expectations(comment,    status, rest, frag, args) {
	sub(/^[ \t]+/, "", comment)
	status = "-"
	if (comment ~ /^[1-5][0-9][0-9]([^0-9]|$)/) status = substr(comment, 1, 3)
	args = ""
	rest = comment
	while (match(rest, /"[A-Za-z_]+":("[^" ]*"?|[A-Za-z0-9][A-Za-z0-9_.+-]*)/)) {
		frag = substr(rest, RSTART, RLENGTH)
		rest = substr(rest, RSTART + RLENGTH)
		sub(/[.]+$/, "", frag)
		args = args " " sq(frag)
	}
	if (status == "-" && args == "") return ""
	return sq(status) args
}

BEGIN { inblock = 0; skip = 0; marker = 0; cont = 0; heredoc = "" }

!inblock && /^```sh[ \t]*$/ { inblock = 1; skip = marker; marker = 0; next }
!inblock {
	if ($0 ~ /^<!-- readme-test: skip -->[ \t]*$/) marker = 1
	else if ($0 !~ /^[ \t]*$/) marker = 0
	next
}
inblock && /^```[ \t]*$/ { inblock = 0; next }
skip { next }

{
	if (heredoc != "") {
		print
		if ($0 == heredoc) heredoc = ""
		if (heredoc == "" && !cont) print "__done " first " " NR
		next
	}
	if (!cont) {
		if ($0 ~ /^[ \t]*(#.*)?$/) { print; next } # blank or a comment line
		first = NR
		print "__at " first " " NR
	}
	print
	if (match($0, /<<-?['"]?[A-Za-z_]+['"]?/)) {
		heredoc = substr($0, RSTART, RLENGTH)
		sub(/^<<-?['"]?/, "", heredoc); sub(/['"]$/, "", heredoc)
		cont = 0
		next
	}
	if ($0 ~ /\\$/) { cont = 1; next }
	cont = 0
	e = expectations(comment_of($0))
	if (e != "") print "__check " first " " NR " " e
	else print "__done " first " " NR
}
