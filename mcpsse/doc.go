// Package mcpsse implements the HTTP+SSE transport of MCP protocol
// version 2024-11-05
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse),
// which Streamable HTTP replaced: a GET opens an SSE stream whose
// "endpoint" event names the URL to POST messages to. Handler is the server
// side, ClientTransport the client side; mcphttp's client falls back to it
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
package mcpsse
