#!/usr/bin/env bash
# Runs every test of mcpkit: what CI runs (.ci/run) and what the README's
# set-up asks a newcomer to run: go vet, gofmt, the Go tests with -race,
# then the official conformance suite (conformance/run.sh) and the interop
# tests with the TypeScript SDK (interop/run.sh). Those two need Node >= 20
# and npm; without node they are skipped with a notice, unless
# MCPKIT_REQUIRE_NODE=1 (CI sets it), which makes a missing node an error.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go vet ./..."
go vet ./...

echo "== gofmt"
# Every Go file of the repository except dependencies fetched by npm and
# test inputs that are meant to be malformed.
unformatted=$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -not -path '*/testdata/*' -print0 | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt would change these files (run gofmt -w on them):" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go test -race -count=1 ./..."
go test -race -count=1 ./...

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	if [ "${MCPKIT_REQUIRE_NODE:-}" = 1 ]; then
		echo "node and npm are required for the conformance and interop suites" >&2
		exit 1
	fi
	echo "== SKIPPED conformance/run.sh and interop/run.sh: they need Node >= 20 and npm" >&2
	echo "scripts/test.sh: 3 passed, 0 failed, 2 skipped"
	exit 0
fi

echo "== conformance/run.sh"
conformance/run.sh

echo "== interop/run.sh"
interop/run.sh

# One plain closing line for whoever reads the end of the log: every step
# above (vet, gofmt, go test, conformance, interop) passed, or the script
# would have stopped at the failing one (set -e).
echo "scripts/test.sh: 5 passed, 0 failed"
