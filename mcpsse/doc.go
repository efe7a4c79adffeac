// Package mcpsse implements the HTTP+SSE transport of MCP protocol
// version 2024-11-05
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse),
// which Streamable HTTP replaced in 2025-03-26 but which many deployed
// clients and servers still speak: a GET opens a Server-Sent Events stream
// whose first event, "endpoint", names the URL the client POSTs its
// messages to; each POST is answered 202 Accepted and every message from
// the server travels on the stream.
//
// Handler is the server side, ClientTransport the client side. The
// Streamable HTTP client of package mcphttp falls back to ClientTransport
// by itself when a server refuses its initialize POST with 400, 404 or
// 405, as the spec's backwards-compatibility section asks
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
package mcpsse
