// Package inspect is the server side of `mcpkit inspect`: an MCP client
// (mcp.Client, over whatever transport the CLI builds) driven from a page
// in the browser, which this package serves from files embedded in the
// binary (the embed directive).
//
// The page speaks to the Inspector over two channels on 127.0.0.1: an
// EventSource stream (GET /api/events) for everything that happens (the
// connection's state, every JSON-RPC frame both ways, the answers to the
// page's requests, the server's stderr) and JSON POSTs (/api/connect,
// /api/request, /api/cancel, ...) for what the user does. Every request
// must carry the Inspector's random token (the X-Mcpkit-Token header, or
// the token query parameter where a header cannot be set), a Host and an
// Origin of the Inspector itself; the token never goes to the MCP
// server. The one exception is GET /app/ID, an MCP App's HTML for the
// page's sandboxed iframe (apps.go), which the app itself could read the
// URL of. See docs/inspector.md.
package inspect
