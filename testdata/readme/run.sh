#!/usr/bin/env bash
# run.sh: the README's curl session, run top to bottom as a new user would,
# against a fresh local server (make readme-check; make test runs it).
#
# The ```sh blocks of README.md are extracted in order (extract.awk; a
# block after <!-- readme-test: skip --> is left out) into one script,
# unchanged but for calls to the checks between commands, and run with
# set -euo pipefail in a temporary directory, as if it were the clone's:
# the server's data dir is that directory's .data, so the session reads
# the verification mail in .data/outbox/ as the README says. The README's
# first line, B=${B:-http://127.0.0.1:8080}, takes this server's address
# from B.
#
# curl is wrapped in a shell function that adds -D (the response headers
# to a side file) and copies the answer aside, so each command whose
# comment gives a status ("# 200: ...") or quotes the answer ("ok":true)
# is checked against what the server answered, without changing the
# README's text. A command that fails (a non-zero exit) fails the run too.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
GO=${GO:-go}
started=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme-check.XXXXXX")
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	if [ "${keep:-0}" = 1 ]; then
		echo "readme-check: files kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

echo "readme-check: building the local server"
"$GO" build -o "$tmp/local" ./functions/local

# The server runs with make run's environment: its invitation code and
# admin email (the Makefile's defaults), nothing else of the caller's SVC_*
# variables (a map provider or quota set in the shell would change the
# answers).
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^SVC_' || true)
export SVC_INVITATION_CODES=bienvenue SVC_ADMIN_EMAILS=admin@example.org
mkdir -p "$tmp/work"
export SVC_DATA_DIR="$tmp/work/.data"

# A free port: one nothing answers on; if another process takes it before
# the server listens, the server exits and another port is tried.
for attempt in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 40000))
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
	SVC_ADDR=127.0.0.1:$port "$tmp/local" >"$tmp/server.log" 2>&1 &
	server_pid=$!
	for _ in $(seq 100); do
		if curl -s -o /dev/null "http://127.0.0.1:$port/"; then break 2; fi
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
done
if [ -z "$server_pid" ]; then
	echo "readme-check: the local server did not start:" >&2
	cat "$tmp/server.log" >&2
	exit 1
fi
echo "readme-check: local server on 127.0.0.1:$port, data in $SVC_DATA_DIR"

mkdir -p "$tmp/rt"
{
	cat <<'PRELUDE'
set -euo pipefail
__rt=$RT
__readme=$README
__checks=0
__commands=0
# curl as the README calls it, plus -D (headers, so the status) and a copy
# of the answer; the -o file when the answer went to one.
curl() {
	local i j out=""
	for ((i = 1; i <= $#; i++)); do
		if [ "${!i}" = -o ]; then j=$((i + 1)); out=${!j}; fi
	done
	printf '%s' "$out" >"$__rt/out"
	command curl -D "$__rt/hdr" "$@" | tee "$__rt/body"
}
__at() {
	printf '%s\n' "$1" >"$__rt/at"
	: >"$__rt/hdr"; : >"$__rt/body"; : >"$__rt/out"
}
__done() { __commands=$((__commands + 1)); }
__check() {
	local first=$1 last=$2 want=$3 got answer out bad="" f
	shift 3
	__commands=$((__commands + 1))
	got=$(awk '/^HTTP\//{s=$2} END{print s}' "$__rt/hdr")
	answer=$__rt/body
	out=$(cat "$__rt/out")
	if [ ! -s "$answer" ] && [ -n "$out" ] && [ -f "$out" ]; then answer=$out; fi
	if [ "$want" != - ] && [ "$got" != "$want" ]; then bad="status ${got:-none}, the comment says $want"; fi
	for f in "$@"; do
		grep -qF -- "$f" "$answer" || bad="$bad${bad:+; }the answer lacks $f"
	done
	__checks=$((__checks + 1))
	if [ -z "$bad" ]; then
		printf 'ok    README.md:%-4s %-4s %s\n' "$first" "${got:--}" "$(sed -n "${first}p" "$__readme" | cut -c1-100)" >&3
		return 0
	fi
	{
		printf 'FAIL  README.md:%s-%s: %s\n--- the command:\n' "$first" "$last" "$bad"
		sed -n "${first},${last}p" "$__readme"
		printf -- '--- the answer (status %s):\n' "${got:-none}"
		head -c 2000 "$answer"; echo
	} >&3
	exit 1
}
PRELUDE
	awk -f testdata/readme/extract.awk README.md
	echo 'printf "readme-check: %d commands run, %d answers checked\n" "$__commands" "$__checks" >&3'
} >"$tmp/readme.sh"

rc=0
(
	cd "$tmp/work"
	RT="$tmp/rt" README="$root/README.md" B="http://127.0.0.1:$port" \
		timeout 170 bash "$tmp/readme.sh" 3>&1 >"$tmp/session.log" 2>&1
) || rc=$?
if [ "$rc" != 0 ]; then
	at=$(cat "$tmp/rt/at" 2>/dev/null || echo 1)
	if [ "$rc" = 124 ]; then
		echo "readme-check: timed out (170 s) in the command at README.md:$at:"
	else
		echo "readme-check: the session stopped (exit $rc) in the command at README.md:$at:"
	fi
	sed -n "${at}p" README.md
	echo "--- the session's last output:"
	tail -c 1500 "$tmp/session.log"
	echo "--- the server's last log lines:"
	tail -n 20 "$tmp/server.log"
	keep=1
	exit 1
fi
echo "readme-check: passed in $(($(date +%s) - started)) s"
