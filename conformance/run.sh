#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json) against mcpkit:
#
#   server  0.1.16          --suite all                               against `mcpkit serve --http`
#   server  0.2.0-alpha.12  --suite active --spec-version 2025-11-25  against `mcpkit serve --http`
#   server  0.2.0-alpha.12  --suite all    --spec-version 2026-07-28  against the same `mcpkit serve --http`
#   client  0.2.0-alpha.12  --suite all    --spec-version 2025-11-25  running conformance/client
#   client  0.2.0-alpha.12  --suite all    --spec-version 2026-07-28  running the same conformance/client
#   client  0.2.0-alpha.12  --suite extensions (the auth extensions: client
#                           credentials, enterprise-managed, WIF, DPoP)  running the same conformance/client
#   client  0.2.0-alpha.12  --suite backcompat (2025-03-26 auth fallbacks)  running the same conformance/client
#   client  0.1.16          --suite all (auth, backcompat and extensions included)  running the same conformance/client
#
# The three server runs share one server process: the 2026-07-28 era
# (stateless requests, no initialize) is served on the same stateful
# endpoint as the session era, after it has served the 2025 suites. The
# client runs start mock servers of their own; the suite passes the
# version to the client in MCP_CONFORMANCE_PROTOCOL_VERSION, and the
# client speaks that era.
# Every run is made with --expected-failures baseline.yml. It fails on any failure
# that is not in the baseline and on any baseline entry that now passes, and
# (summarize.mjs) on a SKIPPED check not listed there as expected and on a
# scenario that recorded no check.
# Needs Go, Node >= 20 and npm; see README.md.
#
# Environment:
#   CONFORMANCE_RESULTS  keep logs and checks.json files here (default: a temp dir, removed at exit)
#   CONFORMANCE_NO_NPM_CI=1  skip `npm ci` (node_modules already installed from the lock)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$here"

work=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
results=${CONFORMANCE_RESULTS:-$work/results}
mkdir -p "$results"

# timed NAME CMD...: runs CMD, then prints how long it took.
timed() {
	local name=$1 start=$SECONDS rc=0
	shift
	"$@" || rc=$?
	echo "-- $name: $((SECONDS - start)) s"
	return $rc
}

if [ "${CONFORMANCE_NO_NPM_CI:-}" != 1 ]; then
	echo "== conformance: npm ci"
	timed "npm ci" npm ci --no-audit --no-fund --loglevel=error
fi

echo "== conformance: go build"
timed "go build" bash -c 'cd "$1" && go build -o "$2/mcpkit" ./cmd/mcpkit && go build -o "$2/client" ./conformance/client' _ "$root" "$work"

# Port 0: the kernel picks a free port, and serve logs the URL it got.
echo "== conformance: mcpkit serve --http 127.0.0.1:0"
"$work/mcpkit" serve --http 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 1 600); do
	url=$(grep -o 'url=http://[^ ]*' "$work/server.log" | head -n 1 | cut -d= -f2- || true)
	[ -n "$url" ] && break
	if ! kill -0 "$server_pid" 2>/dev/null; then
		echo "mcpkit serve exited:" >&2
		cat "$work/server.log" >&2
		exit 1
	fi
	sleep 0.05
done
if [ -z "$url" ]; then
	echo "mcpkit serve did not report its URL:" >&2
	cat "$work/server.log" >&2
	exit 1
fi
# Wait until it answers HTTP (any status: a bare GET is refused with 400).
for _ in $(seq 1 100); do
	curl -s -o /dev/null --max-time 2 "$url" && break
	sleep 0.05
done
echo "   serving $url (pid $server_pid)"

failed=()
# suite NAME RELEASE ARGS...: one conformance run; prints its summary.
suite() {
	local name=$1 release=$2 rc=0 start=$SECONDS
	shift 2
	echo "== conformance: $name"
	# The suite imports fs.globSync, which Node 20 lacks; the shim supplies
	# a stub (a no-op on Node >= 22). Only the suite's own process gets it.
	timeout 600 bash -c 'NODE_OPTIONS="--import $1/node20-shim/register.mjs" node "$1/node_modules/$2/dist/index.js" "${@:3}"' _ \
		"$here" "$release" "$@" -o "$results/$name" --expected-failures "$here/baseline.yml" \
		>"$results/$name.log" 2>&1 || rc=$?
	# The summary: per-scenario lines, "Total: ...", the baseline verdict.
	sed 's/\x1b\[[0-9;]*m//g' "$results/$name.log" | sed -n '/=== \(SUITE \)\{0,1\}SUMMARY ===/,$p' | grep -v '^[[:space:]]*$' || true
	echo "   checks that did not pass:"
	# Exits 1 on an unexpected SKIPPED check or a scenario without checks,
	# which the suite itself would pass.
	local sum_rc=0
	node "$here/summarize.mjs" "$results/$name" || sum_rc=$?
	echo "-- $name: $((SECONDS - start)) s, exit $rc"
	if [ $rc -ne 0 ] || [ $sum_rc -ne 0 ]; then
		failed+=("$name")
		echo "   full log: $results/$name.log"
	fi
}

suite server-0.1.16 conformance-016 server --url "$url" --suite all
suite server-0.2.0-alpha.12 conformance-02 server --url "$url" --suite active --spec-version 2025-11-25
suite server-0.2.0-alpha.12-2026-07-28 conformance-02 server --url "$url" --suite all --spec-version 2026-07-28
suite client-0.2.0-alpha.12 conformance-02 client --command "$work/client" --suite all --spec-version 2025-11-25
suite client-0.2.0-alpha.12-2026-07-28 conformance-02 client --command "$work/client" --suite all --spec-version 2026-07-28
suite client-0.2.0-alpha.12-extensions conformance-02 client --command "$work/client" --suite extensions
suite client-0.2.0-alpha.12-backcompat conformance-02 client --command "$work/client" --suite backcompat
suite client-0.1.16 conformance-016 client --command "$work/client" --suite all

if ! kill -0 "$server_pid" 2>/dev/null; then
	echo "mcpkit serve died during the run:" >&2
	failed+=("server")
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "== conformance: FAILED: ${failed[*]} (baseline: conformance/baseline.yml)" >&2
	echo "--- mcpkit serve log (last 50 lines):" >&2
	tail -n 50 "$work/server.log" >&2
	exit 1
fi
echo "== conformance: passed (every failure is in conformance/baseline.yml)"
