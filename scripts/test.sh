#!/usr/bin/env bash
# Runs every test of mcpkit: what CI runs (.ci/run) and what the README's
# set-up asks a newcomer to run. The conformance and interop suites will
# join here.
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
