#!/usr/bin/env bash
# Runs the commands of README.md in order, as a newcomer would from the
# root of a clone, and fails loudly when one fails or prints something else
# than the README shows. It reads the README's ```sh blocks; it knows no
# command by name. The conventions it relies on:
#
#   - Every line of a ```sh block is a command, run from the clone's root
#     (each block starts there; a cd lasts to the end of its block), with
#     stdin from /dev/null. It must exit 0.
#   - `cmd   # prints TEXT`: cmd's stdout must be TEXT exactly (one line).
#   - Comment-only lines right after a command (`# TEXT`) are more lines of
#     what it prints: on stdout, or on stderr if the line ends with
#     `  on stderr` (`  on stdout` may end a stdout line). With them, that
#     stream must be exactly those lines.
#   - `cmd   # serves URL ...`: cmd is a server; it runs in the background
#     until the next `# serves` line or the end, and the commands after it
#     wait until URL's host:port accepts connections.
#   - `cmd   # ... exit N`: cmd must exit N instead of 0.
#   - Any other comment is for the reader only.
#   - A block right after a line `<!-- readme-check: skip ... -->` is not
#     run (say why in the marker), and a line that runs scripts/test.sh is
#     never run (test.sh runs this script).
#
# The mcpkit binary, if the README installs it (go install ./cmd/mcpkit),
# goes to a temporary GOBIN that is first on PATH. Runs of this script on
# one machine take turns (flock), as the README's servers listen on fixed
# ports; a port already taken by something else is an error.
set -uo pipefail
cd "$(dirname "$0")/.."
rc_root=$PWD
rc_readme=${1:-README.md}

rc_tmp=$(mktemp -d)
export GOBIN="$rc_tmp/bin"
export PATH="$GOBIN:$PATH"
mkdir -p "$GOBIN"

exec 9>"${TMPDIR:-/tmp}/mcpkit-readme-check.lock"
if ! flock -w 900 9; then
	echo "scripts/readme-check.sh: another run held the lock for 15 minutes" >&2
	exit 1
fi

rc_server_pid=""
rc_server_log=""
rc_server_line=""
rc_commands=0
rc_checked=0
rc_servers=0

# stop_server stops the background server, if any: SIGINT to its process
# group (go run and the program it built), then SIGKILL after 15 s.
stop_server() {
	[ -n "$rc_server_pid" ] || return 0
	kill -INT -- "-$rc_server_pid" 2>/dev/null
	for _ in $(seq 150); do
		kill -0 -- "-$rc_server_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL -- "-$rc_server_pid" 2>/dev/null
	wait "$rc_server_pid" 2>/dev/null
	rc_server_pid=""
}

cleanup() {
	stop_server
	rm -rf "$rc_tmp"
}
trap cleanup EXIT

# fail reports what went wrong at README line $1 and exits.
fail() {
	local line=$1
	shift
	{
		echo
		echo "scripts/readme-check.sh: $rc_readme:$line: $*"
		if [ -n "$rc_server_pid" ]; then
			echo "--- the server started at $rc_readme:$rc_server_line logged:"
			tail -n 40 "$rc_server_log"
		fi
	} >&2
	exit 1
}

# port_open HOST PORT tells whether something accepts connections there.
port_open() {
	(exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# run_command LINE CMD COMMENT OUT ERR: runs one command of the README and
# checks it. OUT and ERR are the expected stdout and stderr lines from the
# comment lines that followed it ("" and "-" for none given).
run_command() {
	local line=$1 cmd=$2 comment=$3 want_out=$4 want_err=$5
	rc_commands=$((rc_commands + 1))
	echo "== $rc_readme:$line: $cmd"
	case "$cmd" in
	*scripts/test.sh*)
		echo "   (not run: scripts/test.sh is what runs this script)"
		return
		;;
	esac

	if [[ "$comment" =~ ^serves[[:space:]]+(https?://([^/:[:space:]]+):([0-9]+)[^[:space:]]*) ]]; then
		local url=${BASH_REMATCH[1]} host=${BASH_REMATCH[2]} port=${BASH_REMATCH[3]}
		stop_server
		if port_open "$host" "$port"; then
			fail "$line" "something already listens on $host:$port, which this server needs"
		fi
		rc_server_log="$rc_tmp/server-$line.log"
		rc_server_line=$line
		setsid bash -c "$cmd" </dev/null >"$rc_server_log" 2>&1 &
		rc_server_pid=$!
		rc_servers=$((rc_servers + 1))
		for _ in $(seq 3000); do # 5 minutes: go run may build first
			port_open "$host" "$port" && break
			kill -0 "$rc_server_pid" 2>/dev/null || fail "$line" "the server exited before it served $url"
			sleep 0.1
		done
		port_open "$host" "$port" || fail "$line" "the server did not listen on $host:$port within 5 minutes"
		echo "   serving $url"
		return
	fi

	local want_code=0
	if [[ "$comment" =~ (^|[^[:alnum:]])exit[[:space:]]+([0-9]+) ]]; then
		want_code=${BASH_REMATCH[2]}
	fi
	if [[ "$comment" =~ ^prints[[:space:]](.*)$ ]]; then
		want_out=${BASH_REMATCH[1]}${want_out:+$'\n'$want_out}
	fi

	local out="$rc_tmp/stdout" err="$rc_tmp/stderr" code
	# The command runs in this shell, so that a cd or a variable lasts to
	# the end of the block; timeout cannot run a shell line, so a command
	# that hangs is stopped by CI's own limit.
	eval "$cmd" </dev/null >"$out" 2>"$err"
	code=$?
	if [ "$code" != "$want_code" ]; then
		fail "$line" "exited $code, want $want_code
--- stdout:
$(cat "$out")
--- stderr:
$(cat "$err")"
	fi
	if [ -n "$want_out" ]; then
		rc_checked=$((rc_checked + 1))
		if [ "$(cat "$out")" != "$want_out" ]; then
			fail "$line" "stdout differs from what the README shows
--- the README shows:
$want_out
--- it printed:
$(cat "$out")
--- diff:
$(diff <(printf '%s\n' "$want_out") "$out")"
		fi
	fi
	if [ "$want_err" != "-" ]; then
		rc_checked=$((rc_checked + 1))
		if [ "$(cat "$err")" != "$want_err" ]; then
			fail "$line" "stderr differs from what the README shows
--- the README shows:
$want_err
--- it printed:
$(cat "$err")"
		fi
	fi
}

# The README, block by block: pending_* is the command read last, run once
# the comment lines after it (its output) have been read.
in_block=0
skip_block=0
skip_re='^<!-- readme-check: skip'
prev=""
lineno=0
pending_line=""
pending_cmd=""
pending_comment=""
pending_out=""
pending_err="-"

flush() {
	if [ -n "$pending_cmd" ]; then
		run_command "$pending_line" "$pending_cmd" "$pending_comment" "$pending_out" "$pending_err"
	fi
	pending_cmd=""
	pending_comment=""
	pending_out=""
	pending_err="-"
}

while IFS= read -r text || [ -n "$text" ]; do
	lineno=$((lineno + 1))
	if [ "$in_block" = 0 ]; then
		if [ "$text" = '```sh' ]; then
			in_block=1
			skip_block=0
			[[ "$prev" =~ $skip_re ]] && skip_block=1
			cd "$rc_root" || exit 1
			[ "$skip_block" = 1 ] && echo "== $rc_readme:$lineno: block skipped: $prev"
		fi
		[ -n "$text" ] && prev=$text
		continue
	fi
	if [ "$text" = '```' ]; then
		[ "$skip_block" = 1 ] || flush
		in_block=0
		prev=""
		continue
	fi
	[ "$skip_block" = 1 ] && continue
	[[ "$text" =~ ^[[:space:]]*$ ]] && continue
	if [[ "$text" =~ ^#[[:space:]]?(.*)$ ]]; then
		# A line of what the command above prints.
		shown=${BASH_REMATCH[1]}
		[ -n "$pending_cmd" ] || fail "$lineno" "an output line with no command above it: $text"
		if [[ "$shown" =~ ^(.*[^[:space:]])[[:space:]]{2,}on\ stderr$ ]]; then
			[ "$pending_err" = "-" ] && pending_err="" || pending_err+=$'\n'
			pending_err+=${BASH_REMATCH[1]}
		else
			[[ "$shown" =~ ^(.*[^[:space:]])[[:space:]]{2,}on\ stdout$ ]] && shown=${BASH_REMATCH[1]}
			pending_out+=${pending_out:+$'\n'}$shown
		fi
		continue
	fi
	flush
	pending_line=$lineno
	if [[ "$text" =~ ^(.*[^[:space:]])[[:space:]]+#[[:space:]]+(.*)$ ]]; then
		pending_cmd=${BASH_REMATCH[1]}
		pending_comment=${BASH_REMATCH[2]}
	else
		pending_cmd=$text
	fi
done <"$rc_readme"
[ "$in_block" = 0 ] || fail "$lineno" "a \`\`\`sh block is not closed"

stop_server
echo "scripts/readme-check.sh: $rc_commands commands of $rc_readme run, $rc_checked outputs as shown, $rc_servers servers started and stopped"
