#!/usr/bin/env bash
# Headless Chromium for the browser tests of `mcpkit inspect`
# (cmd/mcpkit/internal/inspect/browsertest): installed from Debian's
# chromium package when no chromium is on PATH, quietly; running this again
# changes nothing. MCPKIT_CHROMIUM, when set, names the browser to use
# instead and nothing is installed.
#
# Two ways to use it:
#   scripts/chromium.sh
#       installs chromium if needed and prints its path.
#   . scripts/chromium.sh; mcpkit_chromium_install
#       (from another bash script) the same, exporting MCPKIT_CHROMIUM.

# mcpkit_chromium_install installs chromium when it is missing and
# exports MCPKIT_CHROMIUM, its path.
mcpkit_chromium_install() {
	if [ -n "${MCPKIT_CHROMIUM:-}" ]; then
		if [ ! -x "$MCPKIT_CHROMIUM" ]; then
			echo "scripts/chromium.sh: MCPKIT_CHROMIUM=$MCPKIT_CHROMIUM is not an executable file" >&2
			return 1
		fi
		export MCPKIT_CHROMIUM
		return 0
	fi
	local name
	for name in chromium chromium-browser; do
		if command -v "$name" >/dev/null; then
			MCPKIT_CHROMIUM=$(command -v "$name")
			export MCPKIT_CHROMIUM
			return 0
		fi
	done
	if ! command -v apt-get >/dev/null; then
		echo "scripts/chromium.sh: chromium is not installed and there is no apt-get to install it (or set MCPKIT_CHROMIUM)" >&2
		return 1
	fi
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		sudo="sudo"
	fi
	local log rc=0
	log=$(mktemp)
	if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >"$log" 2>&1; then
		DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >>"$log" 2>&1 || true
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >>"$log" 2>&1 || rc=$?
	fi
	if [ "$rc" != 0 ] || ! command -v chromium >/dev/null; then
		echo "scripts/chromium.sh: apt-get install chromium failed:" >&2
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
	MCPKIT_CHROMIUM=$(command -v chromium)
	export MCPKIT_CHROMIUM
}

# Executed rather than sourced: install and print the path.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	mcpkit_chromium_install
	echo "$MCPKIT_CHROMIUM"
fi
