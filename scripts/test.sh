#!/usr/bin/env bash
# Runs every test of mcpkit: what CI runs (.ci/run) and what the README's
# set-up asks a newcomer to run: go vet, gofmt, staticcheck, go vet and a
# build for Windows and macOS, the Go tests with -race on the installed Go
# (1.26) and again, with go vet, on the next release (Go 1.27, which the go
# command fetches from the module proxy), the README's commands
# (scripts/readme-check.sh), the browser tests of mcpkit inspect
# (scripts/browsertest.sh), then the official conformance suite
# (conformance/run.sh) and the interop tests with the TypeScript SDK
# (interop/run.sh). Those two need Node >= 20 and npm; without them (or
# with an older node) they are skipped with a notice, unless
# MCPKIT_REQUIRE_NODE=1 (CI sets it), which makes that an error before
# anything runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# no_node says why the conformance and interop suites cannot run here, or
# is empty when node >= 20 and npm are installed.
min_node=20
no_node=""
if ! command -v node >/dev/null; then
	no_node="node is not installed"
elif ! command -v npm >/dev/null; then
	no_node="npm is not installed"
else
	node_version=$(node --version 2>/dev/null || true) # v20.20.2
	node_major=${node_version#v}
	node_major=${node_major%%.*}
	if ! [[ "$node_major" =~ ^[0-9]+$ ]]; then
		no_node="node --version printed \"$node_version\", not vMAJOR.MINOR.PATCH"
	elif [ "$node_major" -lt "$min_node" ]; then
		no_node="node is $node_version, older than $min_node"
	fi
fi
if [ -n "$no_node" ] && [ "${MCPKIT_REQUIRE_NODE:-}" = 1 ]; then
	echo "scripts/test.sh: the conformance and interop suites need Node >= $min_node and npm, and MCPKIT_REQUIRE_NODE=1 requires them: $no_node" >&2
	exit 1
fi

# The repository is a Go workspace (go.work): the core module, the
# OpenTelemetry module and the CLI's module. A ./... pattern stops at a module's
# edge even in a workspace, so the Go steps name the module path's
# pattern, which matches the packages of every workspace module. bench/
# and interop/gopeers are modules outside the workspace, each with a
# go.work of its own: interop/run.sh runs the latter, the former is run
# by hand.
pkgs=github.com/mcpkit/mcpkit/...

# The Go releases the Go steps run on: the installed one (go.mod says 1.26)
# and the next, which the go command downloads from the module proxy
# (GOTOOLCHAIN; golang.org/toolchain) the first time. Go libraries support
# the two newest releases; Go 1.27's encoding/json is its v2
# implementation, whose output and error texts differ from 1.26's.
go_next=${MCPKIT_GO_NEXT:-go1.27.3}
# staticcheck's release for Go 1.26 (2026.1), fetched and built by go run.
staticcheck=honnef.co/go/tools/cmd/staticcheck@v0.7.0

echo "== go vet $pkgs ($(go env GOVERSION))"
go vet "$pkgs"

echo "== gofmt"
# Every Go file of the repository except dependencies fetched by npm and
# test inputs that are meant to be malformed.
unformatted=$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -not -path '*/testdata/*' -print0 | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt would change these files (run gofmt -w on them):" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== staticcheck $pkgs ($staticcheck; checks: staticcheck.conf)"
go run "$staticcheck" "$pkgs"

# Every package, the CLI and the tests compile for the desktops MCP servers
# run on: go vet type-checks the tests too. What runs there is not tested
# here (no Windows or macOS machine): the README says what is tested where.
for goos in windows darwin; do
	echo "== GOOS=$goos go build and go vet $pkgs"
	GOOS=$goos go build "$pkgs"
	GOOS=$goos go vet "$pkgs"
done

# A private redis-server and a 3-node Redis Cluster (installed from Debian's
# packages when missing) for the Redis tests (redisstore, cmd/mcpkit),
# stopped when this script exits: one for all the packages. Without
# MCPKIT_REDIS_ADDR and MCPKIT_REDIS_CLUSTER_ADDRS each test binary would
# start its own (internal/redistest); the Redis tests skip only with -short.
echo "== redis-server (scripts/redis.sh)"
. scripts/redis.sh
mcpkit_redis_start
mcpkit_redis_cluster_start
echo "MCPKIT_REDIS_ADDR=$MCPKIT_REDIS_ADDR MCPKIT_REDIS_CLUSTER_ADDRS=$MCPKIT_REDIS_CLUSTER_ADDRS"

echo "== go test -race -count=1 $pkgs ($(go env GOVERSION))"
go test -race -count=1 "$pkgs"

echo "== GOTOOLCHAIN=$go_next go vet and go test -race -count=1 $pkgs"
GOTOOLCHAIN=$go_next go version
GOTOOLCHAIN=$go_next go vet "$pkgs"
GOTOOLCHAIN=$go_next go test -race -count=1 "$pkgs"

echo "== scripts/readme-check.sh"
scripts/readme-check.sh

# The browser tests of mcpkit inspect, in headless Chromium (installed from
# Debian's packages when missing, like redis-server); a module of their own,
# outside the workspace. No browser is a failure, never a skip.
echo "== scripts/browsertest.sh"
scripts/browsertest.sh

if [ -n "$no_node" ]; then
	echo "== SKIPPED conformance/run.sh and interop/run.sh: they need Node >= $min_node and npm ($no_node); MCPKIT_REQUIRE_NODE=1 makes this an error" >&2
	echo "scripts/test.sh: 8 passed, 0 failed, 2 skipped"
	exit 0
fi

echo "== conformance/run.sh"
conformance/run.sh

echo "== interop/run.sh"
interop/run.sh

# One plain closing line for whoever reads the end of the log: every step
# above (vet, gofmt, staticcheck, Windows and macOS, go test on Go 1.26 and
# on Go 1.27, the README's commands, browser tests, conformance, interop)
# passed, or the script would have stopped at the failing one (set -e).
echo "scripts/test.sh: 10 passed, 0 failed"
