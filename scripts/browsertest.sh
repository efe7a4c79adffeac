#!/usr/bin/env bash
# The browser tests of `mcpkit inspect`: headless Chromium (installed by
# scripts/chromium.sh when missing) driven with chromedp from the Go tests
# of cmd/mcpkit/internal/inspect/browsertest, a module of its own (its own
# go.work) so that neither the core module nor the CLI's requires
# chromedp. A missing browser fails them (MCPKIT_REQUIRE_CHROMIUM=1): they
# never skip here. MCPKIT_INSPECTOR_SCREENSHOTS=DIR keeps the screenshots
# (docs/inspector/ holds the ones docs/inspector.md shows).
set -euo pipefail
if [ -n "${MCPKIT_INSPECTOR_SCREENSHOTS:-}" ]; then
	# The tests run in their module's directory.
	MCPKIT_INSPECTOR_SCREENSHOTS=$(realpath -m "$MCPKIT_INSPECTOR_SCREENSHOTS")
	export MCPKIT_INSPECTOR_SCREENSHOTS
fi
cd "$(dirname "$0")/.."
. scripts/chromium.sh
mcpkit_chromium_install
echo "MCPKIT_CHROMIUM=$MCPKIT_CHROMIUM ($("$MCPKIT_CHROMIUM" --version 2>/dev/null || echo "version unknown"))"
cd cmd/mcpkit/internal/inspect/browsertest
go vet ./...
MCPKIT_REQUIRE_CHROMIUM=1 go test -race -count=1 "$@" ./...
