// Package interop tests mcpkit against the TypeScript MCP SDK, both ways.
//
// The TypeScript clients (v1 and v2 of the SDK) against mcpkit's server are
// scripts in ts/, run by run.sh. mcpkit's client against TypeScript
// servers is the Go test in this package: it starts
// @modelcontextprotocol/server-everything (built on the v1 SDK) over stdio
// and over Streamable HTTP, and a small server written with the v2 SDK
// (ts/server-v2.mjs) the same two ways, and exercises them with
// mcp.Client. It needs Node and the packages pinned in package-lock.json
// (`npm ci` in this directory); without node_modules it skips, so
// `go test ./...` passes on a machine without npm. See README.md.
package interop
