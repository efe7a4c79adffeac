// Package gopeers holds the interop tests of mcpkit with the two other Go
// SDKs, both ways: the official github.com/modelcontextprotocol/go-sdk and
// github.com/mark3labs/mcp-go, at the versions bench/ pins. Their clients
// drive `mcpkit serve` (stdio, and Streamable HTTP stateful, stateless and
// with JSON replies) at every protocol version they can ask for; mcpkit's
// client and CLI drive small servers written on each of them (package
// peers, and cmd/peerserver for stdio).
//
// This is a module of its own, so that the main module never depends on
// the other SDKs. interop/run.sh runs it; every check prints "ok  NAME" or
// "FAIL NAME: why", and the tests end with the line
// "interop go-peers: N passed, M failed, 0 skipped". Nothing is skipped:
// a check that cannot run fails.
package gopeers
