#!/usr/bin/env bash
# A private redis-server for the tests of redisstore: on 127.0.0.1, on a
# free port, with persistence off and eviction off (an evicted key would be
# a session silently lost), in a directory of its own under a temp dir.
#
# With --cluster first, it also starts a 3-node Redis Cluster and sets
# MCPKIT_REDIS_CLUSTER_ADDRS (comma-separated seed addresses).
#
# Three ways to use it:
#   scripts/redis.sh go test -race ./redisstore/
#       runs the command with MCPKIT_REDIS_ADDR set, then stops the server;
#       the exit status is the command's.
#   scripts/redis.sh
#       starts the server, prints MCPKIT_REDIS_ADDR=host:port and
#       MCPKIT_REDIS_URL=redis://host:port (for mcpkit serve --redis), and keeps it
#       running until interrupted (Ctrl-C) or until standard input closes.
#   . scripts/redis.sh; mcpkit_redis_start
#       (from another bash script) starts the server, exports
#       MCPKIT_REDIS_ADDR and stops the server when that script exits (an
#       EXIT trap; a trap the script already had runs after it).
#
# When redis-server is missing it is installed from Debian's packages
# (apt-get, as root), quietly; running this again changes nothing.

# mcpkit_redis_install installs redis-server when it is not on PATH.
mcpkit_redis_install() {
	if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
		return 0
	fi
	if ! command -v apt-get >/dev/null; then
		echo "scripts/redis.sh: redis-server is not installed and there is no apt-get to install it" >&2
		return 1
	fi
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		sudo="sudo"
	fi
	# Debian's package starts a system-wide server unless policy-rc.d says
	# no; we want only our private one.
	local policy_made=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
		$sudo chmod +x /usr/sbin/policy-rc.d
		policy_made=1
	fi
	local log rc=0
	log=$(mktemp)
	if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >"$log" 2>&1; then
		DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >>"$log" 2>&1 || true
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >>"$log" 2>&1 || rc=$?
	fi
	if [ -n "$policy_made" ]; then
		$sudo rm -f /usr/sbin/policy-rc.d
	fi
	if [ "$rc" != 0 ] || ! command -v redis-server >/dev/null; then
		echo "scripts/redis.sh: apt-get install redis-server failed:" >&2
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}

# mcpkit_redis_start installs redis-server if needed, starts a private
# instance and exports MCPKIT_REDIS_ADDR, MCPKIT_REDIS_PID and
# MCPKIT_REDIS_DIR. It tries a few random ports until one binds.
mcpkit_redis_start() {
	mcpkit_redis_install || return 1
	MCPKIT_REDIS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mcpkit-redis.XXXXXX")
	local try port pid
	for try in 1 2 3 4 5 6 7 8 9 10; do
		port=$((20000 + RANDOM % 40000))
		redis-server --bind 127.0.0.1 --port "$port" --protected-mode yes \
			--save '' --appendonly no --dir "$MCPKIT_REDIS_DIR" \
			--maxmemory 512mb --maxmemory-policy noeviction \
			--daemonize no --logfile "$MCPKIT_REDIS_DIR/redis.log" &
		pid=$!
		# Up to 5 s for the server to answer, or to die (port taken).
		local i
		for i in $(seq 1 50); do
			if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
				export MCPKIT_REDIS_ADDR="127.0.0.1:$port" MCPKIT_REDIS_PID="$pid" MCPKIT_REDIS_DIR
				# Keep a trap the caller already had, and run it after ours.
				MCPKIT_REDIS_PREV_TRAP=""
				local prev
				prev=$(trap -p EXIT)
				if [ -n "$prev" ]; then
					eval "set -- $prev"
					MCPKIT_REDIS_PREV_TRAP=$3
				fi
				trap 'mcpkit_redis_stop; eval "$MCPKIT_REDIS_PREV_TRAP"' EXIT
				return 0
			fi
			if ! kill -0 "$pid" 2>/dev/null; then
				break
			fi
			sleep 0.1
		done
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	echo "scripts/redis.sh: redis-server did not start on 127.0.0.1 after $try tries; its log:" >&2
	cat "$MCPKIT_REDIS_DIR/redis.log" >&2 || true
	rm -rf "$MCPKIT_REDIS_DIR"
	return 1
}

# mcpkit_redis_cluster_start starts a private 3-node Redis Cluster (no
# replicas) beside the single server, in the same directory, and exports
# MCPKIT_REDIS_CLUSTER_ADDRS (host:port,host:port,host:port); call it after
# mcpkit_redis_start, whose EXIT trap stops it too.
mcpkit_redis_cluster_start() {
	local try port pid i ports=() addrs=()
	MCPKIT_REDIS_CLUSTER_PIDS=""
	for i in 1 2 3; do
		for try in 1 2 3 4 5 6 7 8 9 10; do
			# The cluster bus listens on port + 10000.
			port=$((20000 + RANDOM % 35000))
			redis-server --bind 127.0.0.1 --port "$port" --protected-mode yes \
				--save '' --appendonly no --dir "$MCPKIT_REDIS_DIR" \
				--cluster-enabled yes --cluster-config-file "nodes-$port.conf" \
				--maxmemory 256mb --maxmemory-policy noeviction \
				--daemonize no --logfile "$MCPKIT_REDIS_DIR/cluster-$port.log" &
			pid=$!
			local up=""
			for _ in $(seq 1 50); do
				if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
					up=1
					break
				fi
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			if [ -n "$up" ]; then
				MCPKIT_REDIS_CLUSTER_PIDS="$MCPKIT_REDIS_CLUSTER_PIDS $pid"
				ports+=("$port")
				addrs+=("127.0.0.1:$port")
				break
			fi
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		done
	done
	if [ "${#ports[@]}" != 3 ]; then
		echo "scripts/redis.sh: could not start three cluster nodes" >&2
		return 1
	fi
	if ! redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >"$MCPKIT_REDIS_DIR/cluster-create.log" 2>&1; then
		echo "scripts/redis.sh: redis-cli --cluster create failed:" >&2
		cat "$MCPKIT_REDIS_DIR/cluster-create.log" >&2
		return 1
	fi
	# Up to 10 s for every node to agree that the cluster is up.
	for _ in $(seq 1 100); do
		local ok=0
		for port in "${ports[@]}"; do
			if redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
				ok=$((ok + 1))
			fi
		done
		if [ "$ok" = 3 ]; then
			MCPKIT_REDIS_CLUSTER_ADDRS=$(IFS=,; echo "${addrs[*]}")
			export MCPKIT_REDIS_CLUSTER_ADDRS MCPKIT_REDIS_CLUSTER_PIDS
			return 0
		fi
		sleep 0.1
	done
	echo "scripts/redis.sh: the cluster did not reach cluster_state:ok" >&2
	return 1
}

# mcpkit_redis_stop stops the servers mcpkit_redis_start and
# mcpkit_redis_cluster_start started and removes their directory. Calling
# it again does nothing.
mcpkit_redis_stop() {
	local pid
	for pid in ${MCPKIT_REDIS_CLUSTER_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	MCPKIT_REDIS_CLUSTER_PIDS=""
	if [ -n "${MCPKIT_REDIS_PID:-}" ]; then
		kill "$MCPKIT_REDIS_PID" 2>/dev/null || true
		wait "$MCPKIT_REDIS_PID" 2>/dev/null || true
		MCPKIT_REDIS_PID=""
	fi
	if [ -n "${MCPKIT_REDIS_DIR:-}" ]; then
		rm -rf "$MCPKIT_REDIS_DIR"
		MCPKIT_REDIS_DIR=""
	fi
}

# Sourced: only the functions above. Executed: run a command under a
# server, or keep one running in the foreground.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	mcpkit_redis_start
	if [ "${1:-}" = --cluster ]; then
		shift
		mcpkit_redis_cluster_start
		echo "MCPKIT_REDIS_CLUSTER_ADDRS=$MCPKIT_REDIS_CLUSTER_ADDRS"
	fi
	if [ "$#" -gt 0 ]; then
		rc=0
		"$@" || rc=$?
		exit "$rc"
	fi
	echo "MCPKIT_REDIS_ADDR=$MCPKIT_REDIS_ADDR"
	echo "MCPKIT_REDIS_URL=redis://$MCPKIT_REDIS_ADDR"
	echo "scripts/redis.sh: serving until interrupted or until standard input closes" >&2
	trap 'exit 0' INT TERM
	cat >/dev/null || true
fi
