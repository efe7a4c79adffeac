// Package httpmeta holds the pure functions behind the request metadata
// headers of the 2026-07-28 Streamable HTTP transport (SEP-2243): the
// client mirrors the JSON-RPC method, the target name and annotated tool
// arguments into Mcp-Method, Mcp-Name and Mcp-Param-{Name} headers so that
// intermediaries can route without parsing the body, and any server that
// parses the body rejects a request whose headers disagree with it
// (HTTP 400, JSON-RPC -32020 HeaderMismatch).
//
// It has no state and does not touch net/http; it works on raw JSON with
// internal/jsonscan and allocates only the strings it returns.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
package httpmeta
