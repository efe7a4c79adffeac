// Package otel traces and measures MCP traffic with OpenTelemetry, by the
// OpenTelemetry semantic conventions for the Model Context Protocol
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/), and carries
// the W3C trace context across the wire in params._meta as SEP-414
// specifies (https://modelcontextprotocol.io/community/seps/414-request-meta).
//
// It is a module of its own (github.com/mcpkit/mcpkit/otel) so that a
// program that does not want OpenTelemetry pulls none of it: the core
// module knows nothing of it. It plugs into the middleware both sides
// already have:
//
//	ins, err := otel.New(&otel.Options{TracerProvider: tp, MeterProvider: mp})
//	sopts := &mcp.ServerOptions{}
//	ins.InstrumentServer(sopts) // Middleware and SendingMiddleware
//	server := mcp.NewServer(impl, sopts)
//
//	copts := &mcp.ClientOptions{}
//	ins.InstrumentClient(copts, otel.ClientConfig{URL: "http://127.0.0.1:8080/mcp"})
//	client := mcp.NewClient(impl, copts)
//
// What it records:
//
//   - A span of kind SERVER for every request and notification a side
//     handles (a server's requests from the client; a client's
//     server-to-client requests such as sampling/createMessage), and a span
//     of kind CLIENT for every request and notification a side sends. The
//     span is named "{mcp.method.name} {target}", the target being the
//     tool's or prompt's name where there is one, and carries
//     mcp.method.name, jsonrpc.request.id, mcp.protocol.version,
//     mcp.session.id (session era only), gen_ai.tool.name,
//     gen_ai.operation.name, gen_ai.prompt.name, mcp.resource.uri,
//     network.transport, network.protocol.name, server.address and
//     server.port (client side). A JSON-RPC error sets error.type and
//     rpc.response.status_code to its code and the span's status to Error
//     with its message; a tool result with isError sets error.type to
//     tool_error.
//   - The histograms mcp.server.operation.duration and
//     mcp.client.operation.duration (by span kind), and
//     mcp.server.session.duration and mcp.client.session.duration for
//     session-era sessions; ObserveHandler adds gauges of an HTTP
//     handler's live sessions and open streams.
//   - The trace context: a sender injects it into params._meta, a
//     receiver continues the trace from it, so one trace runs from a
//     client's application through the server's tool and back into a
//     sampling request the tool makes.
//
// NewSlogHandler adds the active span's trace and span ids to every slog
// record, so that logs and traces meet.
//
// Both protocol eras are covered: the session era (2025-11-25 and
// earlier) and the stateless era (2026-07-28), over every transport.
//
// # Experimental
//
// The MCP semantic conventions are in Development status; names follow
// go.opentelemetry.io/otel/semconv/v1.41.0 and may change with them.
package otel
