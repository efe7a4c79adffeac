// Package mcphttp serves an [mcp.Server] over the Streamable HTTP transport
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
//
// A [Handler] answers POST, GET and DELETE at whatever path it is mounted
// on. It owns the session registry: sessions are created by initialize,
// named by a crypto-random Mcp-Session-Id, capped (Options.MaxSessions),
// expired after Options.IdleTimeout by one reaper goroutine and lazily on
// access, and ended by DELETE. Replies go out as an SSE stream (or a single
// JSON body with Options.JSONResponse); messages a handler sends while it
// runs travel on its request's stream before the response, and messages
// the server starts on its own travel on the session's GET stream. With an
// [EventStore] every stream is resumable with Last-Event-ID, and
// Options.JSONReplyWithin answers a request that is quick and sends
// nothing before its response with a JSON body, which stores nothing.
// In stateless
// mode (Options.Stateless) each POST is served by a fresh session and
// nothing is kept. With a shared mcp.SessionStore (redisstore's, say) any
// replica serves any session's requests (docs/scaling.md says what that
// covers).
//
// The same endpoint, in either mode, serves the 2026-07-28 era, which has
// no sessions
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http):
// a POST whose request carries that era's _meta (or that asks for
// server/discover or subscriptions/listen, or that names a 2026-07-28
// MCP-Protocol-Version without Mcp-Session-Id) is served on its own,
// without creating, minting or echoing a session. Its MCP-Protocol-Version,
// Mcp-Method, Mcp-Name and Mcp-Param-* headers must agree with its body
// (400 and -32020 otherwise); a request refused before its handler ran is
// answered 400 (404 for an unknown or removed method); closing the
// response cancels it; its stream carries notifications but never a
// server-to-client request; and subscriptions/listen always answers with
// an SSE stream that lasts until the client leaves or the Handler is
// closed. Everything else keeps the session era's behaviour.
//
// With Options.Authenticate (set by [Protect] from an auth.ResourceServer)
// the handler is an OAuth 2.1 resource server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization):
// every request is authenticated before anything else is read, the
// verified token reaches handlers as mcp.RequestExtra.Auth, scopes are
// checked per method and per tool (Options.RequiredScopes: 403
// insufficient_scope), and a session belongs to the user who created it:
// another user's request finds it no more than an unknown session (404),
// whatever it asks (POST, GET, resumption with Last-Event-ID, DELETE).
//
// Every refusal is an HTTP status plus a JSON-RPC error body, with the id
// of the refused request (null when it is unknown):
//
//	{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Session not found"}}
//
// Errors with code -32600 (Invalid Request) carry the generic message
// "Invalid Request" and the explanation in data, as the lifecycle errors of
// package mcp do, for example data "Invalid Request: JSON-RPC body must be
// a single request object". Transport refusals with code -32000 carry the
// explanation in message, for example "Bad Request: Mcp-Session-Id header
// is required".
//
// # Mounting the handler, with its limits
//
// A Handler is an http.Handler: mount it on any path of any mux. Every
// bound a client can reach has an Options field whose zero value is a safe
// default (the session cap, idle expiry, body size and body read time,
// per-stream queue and write deadline, batch size), and a precise refusal
// past it. What only the http.Server can bound is the connection: set its
// ReadHeaderTimeout, IdleTimeout and MaxHeaderBytes, but not ReadTimeout or
// WriteTimeout, which would cut the long-lived SSE streams the Handler
// bounds itself. To stop, call Handler.Shutdown before (or with)
// http.Server.Shutdown: the Handler refuses new work with 503, ends its
// GET and listen streams, and gives requests in flight until the context
// ends.
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
