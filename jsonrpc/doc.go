// Package jsonrpc implements the JSON-RPC 2.0 wire format that the Model
// Context Protocol is framed in, and nothing about MCP itself.
//
// A message is decoded exactly once: [Decode] reads the envelope
// (jsonrpc, id, method) and keeps params, result and error data as raw JSON,
// so that a later layer can decode them straight into the Go type its handler
// expects. [Encode] writes compact JSON with no trailing newline; framing
// (newline-delimited stdio, HTTP bodies, SSE events) belongs to transports.
//
// See https://www.jsonrpc.org/specification and
// https://modelcontextprotocol.io/specification/2025-11-25/basic#messages.
package jsonrpc
