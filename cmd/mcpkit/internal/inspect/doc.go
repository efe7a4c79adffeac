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
// server. The exceptions are the GET /oauth/callback of a login and
// the second port's (SandboxHandler): the MCP Apps sandbox proxy and the
// app's HTML, which the proxy and the app could read the URL of
// (apps.go). See docs/inspector.md.
package inspect
