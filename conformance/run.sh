#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json) against mcpkit:
#
#   server  0.1.16          --suite all                               against `mcpkit serve --http`
#   server  0.2.0-alpha.12  --suite active --spec-version 2025-11-25  against `mcpkit serve --http`
#   server  0.2.0-alpha.12  --suite all    --spec-version 2026-07-28  against the same `mcpkit serve --http`
#   the same three server runs against 3 replicas of `mcpkit serve --http --redis` on one
#                           Redis (MCPKIT_REDIS_ADDR, or one scripts/redis.sh starts) behind
#                           internal/cmd/rrproxy, which sends every request to the next replica
#   client  0.2.0-alpha.12  --suite all    --spec-version 2025-11-25  running conformance/client
#   client  0.2.0-alpha.12  --suite all    --spec-version 2026-07-28  running the same conformance/client
#   client  0.2.0-alpha.12  --suite extensions (the auth extensions: client
#                           credentials, enterprise-managed, WIF, DPoP)  running the same conformance/client
#   client  0.2.0-alpha.12  --suite backcompat (2025-03-26 auth fallbacks)  running the same conformance/client
#   client  0.1.16          --suite all (auth, backcompat and extensions included)  running the same conformance/client
#   client  0.2.0-alpha.12  --scenario sep-2640-client-{no-prefetch,verify-digest,verify-size,verify-frontmatter}
#                           (the Skills extension), each in both eras, running the same conformance/client
#
# The three server runs share one server process: the 2026-07-28 era
# (stateless requests, no initialize) is served on the same stateful
# endpoint as the session era, after it has served the 2025 suites. The
# replicated runs are the same three against the replicas, through the
# proxy, with the same baseline: a session lives in Redis, and every
# request of it lands on another replica than the one before. The
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
# Every process this script starts in the background (servers, replicas,
# the proxy), killed at exit.
pids=()
cleanup() {
	local pid
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
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
timed "go build" bash -c 'cd "$1" && go build -o "$2/mcpkit" ./cmd/mcpkit && go build -o "$2/client" ./conformance/client && go build -o "$2/rrproxy" ./internal/cmd/rrproxy' _ "$root" "$work"

# start_server LOG CMD...: starts CMD in the background, its stderr and
# stdout to LOG, and waits until it logs the URL it serves (serve's
# url=http://..., rrproxy's "listening on http://...") and answers HTTP;
# sets started_url and started_pid.
started_url=""
started_pid=""
start_server() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	started_pid=$!
	pids+=("$started_pid")
	started_url=""
	for _ in $(seq 1 600); do
		started_url=$(grep -o -e 'url=http://[^ ]*' -e 'listening on http://[^ ]*' "$log" | head -n 1 | sed 's/^url=//; s/^listening on //' || true)
		[ -n "$started_url" ] && break
		if ! kill -0 "$started_pid" 2>/dev/null; then
			echo "$1 exited:" >&2
			cat "$log" >&2
			exit 1
		fi
		sleep 0.05
	done
	if [ -z "$started_url" ]; then
		echo "$1 did not report its URL:" >&2
		cat "$log" >&2
		exit 1
	fi
	# Wait until it answers HTTP (any status: a bare GET is refused with 400).
	for _ in $(seq 1 100); do
		curl -s -o /dev/null --max-time 2 "$started_url" && break
		sleep 0.05
	done
}

# Port 0: the kernel picks a free port, and serve logs the URL it got.
echo "== conformance: mcpkit serve --http 127.0.0.1:0"
start_server "$work/server.log" "$work/mcpkit" serve --http 127.0.0.1:0
url=$started_url
server_pid=$started_pid
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

# The same three server runs against 3 replicas of `mcpkit serve --http
# --redis` on one Redis, behind a round-robin proxy that sends every
# request to the next replica (no stickiness): each session is served by
# all three. The baseline is the same.
replicated_start=$SECONDS
if [ -z "${MCPKIT_REDIS_ADDR:-}" ]; then
	echo "== conformance: redis-server (scripts/redis.sh)"
	. "$root/scripts/redis.sh"
	mcpkit_redis_start
	# The replicas are stopped before their Redis.
	trap 'cleanup; mcpkit_redis_stop' EXIT
fi
prefix="mcpkit-conformance-$$:"
replica_pids=()
backends=()
for i in 1 2 3; do
	echo "== conformance: mcpkit serve --http 127.0.0.1:0 --redis redis://$MCPKIT_REDIS_ADDR/0 (replica $i)"
	start_server "$work/replica$i.log" "$work/mcpkit" serve --http 127.0.0.1:0 --redis "redis://$MCPKIT_REDIS_ADDR/0" --redis-prefix "$prefix"
	replica_pids+=("$started_pid")
	backends+=("${started_url%/mcp}")
	echo "   serving $started_url (pid $started_pid)"
done
echo "== conformance: rrproxy ${backends[*]}"
start_server "$work/rrproxy.log" "$work/rrproxy" -listen 127.0.0.1:0 "${backends[@]}"
proxy_pid=$started_pid
proxy_url=$started_url/mcp
echo "   proxying $proxy_url (pid $proxy_pid)"

suite server-0.1.16-replicated conformance-016 server --url "$proxy_url" --suite all
suite server-0.2.0-alpha.12-replicated conformance-02 server --url "$proxy_url" --suite active --spec-version 2025-11-25
suite server-0.2.0-alpha.12-2026-07-28-replicated conformance-02 server --url "$proxy_url" --suite all --spec-version 2026-07-28
echo "-- replicated server runs (3 replicas on Redis behind rrproxy): $((SECONDS - replicated_start)) s"

suite client-0.2.0-alpha.12 conformance-02 client --command "$work/client" --suite all --spec-version 2025-11-25
suite client-0.2.0-alpha.12-2026-07-28 conformance-02 client --command "$work/client" --suite all --spec-version 2026-07-28
suite client-0.2.0-alpha.12-extensions conformance-02 client --command "$work/client" --suite extensions
suite client-0.2.0-alpha.12-backcompat conformance-02 client --command "$work/client" --suite backcompat
suite client-0.1.16 conformance-016 client --command "$work/client" --suite all
# The Skills extension's client scenarios (SEP-2640): no --spec-version
# selects an extension scenario, so each is run by name, once in each era
# (the client speaks the era MCP_CONFORMANCE_PROTOCOL_VERSION names).
for scenario in sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter; do
	suite "client-0.2.0-alpha.12-$scenario" conformance-02 client --command "$work/client" --scenario "$scenario"
	MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28 suite "client-0.2.0-alpha.12-$scenario-2026-07-28" conformance-02 client --command "$work/client" --scenario "$scenario"
done

if ! kill -0 "$server_pid" 2>/dev/null; then
	echo "mcpkit serve died during the run:" >&2
	failed+=("server")
fi
for i in 1 2 3; do
	if ! kill -0 "${replica_pids[$((i - 1))]}" 2>/dev/null; then
		echo "mcpkit serve --redis (replica $i) died during the run:" >&2
		failed+=("replica$i")
	fi
done
if ! kill -0 "$proxy_pid" 2>/dev/null; then
	echo "rrproxy died during the run:" >&2
	failed+=("rrproxy")
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "== conformance: FAILED: ${failed[*]} (baseline: conformance/baseline.yml)" >&2
	for log in server replica1 replica2 replica3 rrproxy; do
		echo "--- $log log (last 50 lines):" >&2
		tail -n 50 "$work/$log.log" >&2
	done
	exit 1
fi
echo "== conformance: passed (every failure is in conformance/baseline.yml)"
