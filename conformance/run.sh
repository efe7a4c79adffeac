#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json) against mcpkit:
#
#   server  0.1.16          --suite all                               against `mcpkit serve --http`
#   server  0.2.0-alpha.12  --suite active --spec-version 2025-11-25  against `mcpkit serve --http`
#   server  0.2.0-alpha.12  --suite all    --spec-version 2026-07-28  against the same `mcpkit serve --http`
#   server  0.2.0-alpha.12  --scenario sep-2640-skills-{directory,enumeration,manifest}  against the same
#   the same three server runs against 3 replicas of `mcpkit serve --http --redis` on one
#                           Redis (MCPKIT_REDIS_ADDR, or one scripts/redis.sh starts) behind
#                           internal/cmd/rrproxy, which sends every request to the next replica
#   server  0.2.0-alpha.12  every tasks-* scenario (SEP-2663, extension scenarios that neither
#                           --suite nor --spec-version selects), one by one, against the same
#                           `mcpkit serve --http` and against the replicas
#   authorization 0.2.0-alpha.12  both authorization-server scenarios against `mcpkit
#                           dev-auth-server`, with a public client registered there first (RFC 7591)
#                           so that authorization-code-grant runs; this script approves the
#                           authorization request the suite prints, as a browser would
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
# url=http://..., rrproxy's "listening on http://...", dev-auth-server's
# "issuer http://...") and answers HTTP;
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
		started_url=$(grep -o -e 'url=http://[^ ]*' -e 'listening on http://[^ ]*' -e 'issuer http://[^ ,]*' "$log" | head -n 1 | sed 's/^url=//; s/^listening on //; s/^issuer //' || true)
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

# conformance RELEASE ARGS...: the suite's CLI of RELEASE. It imports
# fs.globSync, which Node 20 lacks; the shim supplies a stub (a no-op on
# Node >= 22). Only the suite's own process gets it.
conformance() {
	local release=$1
	shift
	NODE_OPTIONS="--import $here/node20-shim/register.mjs" node "$here/node_modules/$release/dist/index.js" "$@"
}

# scenarios NAME RELEASE REGEX ARGS...: runs, one at a time, every server
# scenario of the suite's own list (`conformance list`) whose name matches
# REGEX, with ARGS, all into one results directory and log; prints a line
# per scenario and the checks that did not pass. For the extension
# scenarios, which neither --suite nor --spec-version selects; they run at
# the version they are written for (2026-07-28).
scenarios() {
	local name=$1 release=$2 regex=$3 rc=0 start=$SECONDS sc one n=0
	shift 3
	echo "== conformance: $name"
	local list
	list=$(conformance "$release" list | sed -n '/^Server scenarios/,/^$/s/^  - \([^ ]*\).*/\1/p' | grep -E "$regex" || true)
	: >"$results/$name.log"
	for sc in $list; do
		n=$((n + 1))
		one=0
		timeout 120 env NODE_OPTIONS="--import $here/node20-shim/register.mjs" node "$here/node_modules/$release/dist/index.js" \
			server "$@" --scenario "$sc" -o "$results/$name" --expected-failures "$here/baseline.yml" \
			>"$results/$name.one.log" 2>&1 || one=$?
		cat "$results/$name.one.log" >>"$results/$name.log"
		echo "   $sc: $(sed 's/\x1b\[[0-9;]*m//g' "$results/$name.one.log" | grep -E '^Passed: ' | tail -n 1)$([ $one -ne 0 ] && echo " (exit $one)")"
		if [ $one -ne 0 ]; then
			rc=$one
		fi
	done
	rm -f "$results/$name.one.log"
	if [ "$n" -eq 0 ]; then
		echo "   no scenario of $release matches $regex"
		rc=1
	fi
	echo "   checks that did not pass:"
	local sum_rc=0
	node "$here/summarize.mjs" "$results/$name" || sum_rc=$?
	echo "-- $name: $n scenarios, $((SECONDS - start)) s, exit $rc"
	if [ $rc -ne 0 ] || [ $sum_rc -ne 0 ]; then
		failed+=("$name")
		echo "   full log: $results/$name.log"
	fi
}

suite server-0.1.16 conformance-016 server --url "$url" --suite all
suite server-0.2.0-alpha.12 conformance-02 server --url "$url" --suite active --spec-version 2025-11-25
suite server-0.2.0-alpha.12-2026-07-28 conformance-02 server --url "$url" --suite all --spec-version 2026-07-28
# The Skills extension's server scenarios (SEP-2640): extension scenarios
# match no --spec-version, so each is run by name (at 2026-07-28, the
# stateless era) against the reference server's embedded skills.
skills_scenarios=(sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest)
for sc in "${skills_scenarios[@]}"; do
	suite "server-0.2.0-alpha.12-$sc" conformance-02 server --url "$url" --scenario "$sc"
done
scenarios server-0.2.0-alpha.12-tasks conformance-02 '^tasks-' --url "$url"

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
for sc in "${skills_scenarios[@]}"; do
	suite "server-0.2.0-alpha.12-$sc-replicated" conformance-02 server --url "$proxy_url" --scenario "$sc"
done
scenarios server-0.2.0-alpha.12-tasks-replicated conformance-02 '^tasks-' --url "$proxy_url"
echo "-- replicated server runs (3 replicas on Redis behind rrproxy): $((SECONDS - replicated_start)) s"

# The authorization-server scenarios against `mcpkit dev-auth-server`.
# authorization-code-grant needs a registered client (--client-id) and
# someone to approve the authorization request it prints ("access the
# following URL in your browser") so that the server redirects to the
# suite's callback: the client is registered by dynamic client
# registration, public (token_endpoint_auth_method none, PKCE), with the
# loopback redirect URI http://127.0.0.1/callback, whose port may vary
# (RFC 8252 section 7.3); a background curl follows the printed URL as a
# browser would (dev-auth-server approves at once). The token's resource
# (RFC 8707, which dev-auth-server requires) is the MCP server's URL.
echo "== conformance: mcpkit dev-auth-server --addr 127.0.0.1:0"
start_server "$work/dev-auth-server.log" "$work/mcpkit" dev-auth-server --addr 127.0.0.1:0
issuer=$started_url
auth_pid=$started_pid
echo "   issuer $issuer (pid $auth_pid)"
auth_start=$SECONDS
auth_name=authorization-0.2.0-alpha.12
echo "== conformance: $auth_name"
registration=$(curl -s --max-time 10 -X POST "$issuer/register" -H 'Content-Type: application/json' \
	-d '{"client_name":"mcpkit conformance","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none"}')
client_id=$(printf '%s' "$registration" | sed -n 's/.*"client_id":"\([^"]*\)".*/\1/p')
# A free port for the suite's callback server.
callback_port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
auth_rc=0
if [ -z "$client_id" ] || [ -z "$callback_port" ]; then
	echo "   could not register a client at $issuer/register: $registration"
	auth_rc=1
else
	echo "   client $client_id, callback port $callback_port"
	: >"$results/$auth_name.log"
	# The approver: once the suite has printed the authorization URL and
	# its callback server listens, GET the URL and follow the redirect.
	(
		for _ in $(seq 1 1200); do
			if grep -q 'Callback server started' "$results/$auth_name.log" 2>/dev/null; then
				grep -m 1 "^$issuer/authorize?" "$results/$auth_name.log" | xargs -r curl -s -L -o /dev/null --max-time 10
				exit 0
			fi
			sleep 0.05
		done
	) &
	approver_pid=$!
	pids+=("$approver_pid")
	timeout 120 env NODE_OPTIONS="--import $here/node20-shim/register.mjs" node "$here/node_modules/conformance-02/dist/index.js" \
		authorization --url "$issuer" --client-id "$client_id" --resource "$url" -p "$callback_port" -o "$results/$auth_name" \
		>>"$results/$auth_name.log" 2>&1 || auth_rc=$?
	wait "$approver_pid" 2>/dev/null || true
	sed 's/\x1b\[[0-9;]*m//g' "$results/$auth_name.log" | sed -n '/=== SUMMARY ===/,$p' | grep -v '^[[:space:]]*$' || true
fi
echo "   checks that did not pass:"
# The authorization command takes no baseline and passes WARNINGs: any
# check that is not SUCCESS fails the run.
auth_sum=$(node "$here/summarize.mjs" "$results/$auth_name") || auth_rc=1
echo "$auth_sum"
echo "$auth_sum" | grep -q 'checks: 0 FAILURE, 0 WARNING, 0 SKIPPED' || auth_rc=1
echo "-- $auth_name: $((SECONDS - auth_start)) s, exit $auth_rc"
if [ $auth_rc -ne 0 ]; then
	failed+=("$auth_name")
	echo "   full log: $results/$auth_name.log"
fi

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
if ! kill -0 "$auth_pid" 2>/dev/null; then
	echo "mcpkit dev-auth-server died during the run:" >&2
	failed+=("dev-auth-server")
fi
if ! kill -0 "$proxy_pid" 2>/dev/null; then
	echo "rrproxy died during the run:" >&2
	failed+=("rrproxy")
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "== conformance: FAILED: ${failed[*]} (baseline: conformance/baseline.yml)" >&2
	for log in server replica1 replica2 replica3 rrproxy dev-auth-server; do
		echo "--- $log log (last 50 lines):" >&2
		tail -n 50 "$work/$log.log" >&2
	done
	exit 1
fi
echo "== conformance: passed (every failure is in conformance/baseline.yml)"
