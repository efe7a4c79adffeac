// Package mcphttp serves an [mcp.Server] over the Streamable HTTP transport
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http)
// and connects an [mcp.Client] to one ([ClientTransport]).
//
// A [Handler] answers POST, GET and DELETE at the path it is mounted on. In
// the session era it keeps sessions (created by initialize, named by
// Mcp-Session-Id, capped, expired when idle, ended by DELETE) and answers
// each request with an SSE stream or, with Options.JSONResponse, a JSON
// body; with an [EventStore] every stream is resumable with Last-Event-ID.
// Options.Stateless serves each POST with a fresh session instead. The same
// endpoint serves the 2026-07-28 era, which has no sessions and whose
// Mcp-* headers must agree with the body
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// docs/eras.md says what differs; docs/http-walkthrough.md shows both on
// the wire; docs/scaling.md covers replicas sharing a SessionStore.
//
// With Options.Authenticate (set by auth.Protect) the Handler is an OAuth 2.1
// resource server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization);
// see docs/auth.md.
//
// Every refusal is an HTTP status plus a JSON-RPC error body with the
// refused request's id (null when unknown):
//
//	{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Session not found"}}
//
// -32600 errors carry "Invalid Request" as message and the explanation in
// data; transport refusals with -32000 carry it in message.
//
// # Mounting the handler, with its limits
//
// Every bound a client can reach has an Options field with a safe default
// (docs/limits.md). Set the http.Server's ReadHeaderTimeout, IdleTimeout
// and MaxHeaderBytes, but not ReadTimeout or WriteTimeout, which would cut
// long-lived SSE streams. Call Handler.Shutdown before (or with)
// http.Server.Shutdown.
//
//	h := mcphttp.NewHandler(server, &mcphttp.Options{MaxSessions: 1000, MaxBodyBytes: 1 << 20})
//	mux.Handle("/mcp", h)
//	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
//	go srv.ListenAndServe()
//	// ... on SIGTERM:
//	err := errors.Join(h.Shutdown(ctx), srv.Shutdown(ctx))
//
// The example of NewHandler runs this whole.
package mcphttp
