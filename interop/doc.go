// Package interop tests mcpkit against the TypeScript MCP SDK, both ways
// and in both protocol eras (the 2025-11-25 session era and the 2026-07-28
// stateless era), and mcpkit's client against mcpkit's server as separate
// processes.
//
// The TypeScript clients (v1 and v2 of the SDK; v2 also in the 2026-07-28
// era) against mcpkit's server are scripts in ts/, run by run.sh. The Go
// tests in this package drive servers with mcp.Client:
// @modelcontextprotocol/server-everything (built on the v1 SDK) and a
// small server written with the v2 SDK (ts/server-v2.mjs, both eras), each
// over stdio and Streamable HTTP; they need Node and the packages pinned in
// package-lock.json (`npm ci` in this directory), and skip without
// node_modules, so `go test ./...` passes on a machine without npm (run.sh
// sets INTEROP_REQUIRE_NODE=1, which makes that a failure). A check whose
// server feature is missing fails; INTEROP_ALLOW_SKIP=1 makes it skip,
// except in CI (CI=true or MCPKIT_REQUIRE_NODE=1). The
// test of mcpkit against itself builds interop/server and needs only Go.
// See README.md.
package interop
