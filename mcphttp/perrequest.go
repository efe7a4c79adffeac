package mcphttp

import (
	"net/http"
	"runtime/debug"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file chooses the mcp.Server that serves a request, for a Handler
// made with NewHandlerFunc: one server per tenant or per user behind one
// endpoint.

// NewHandlerFunc returns a Handler that serves each request with the
// server getServer chooses for it, so that one endpoint can offer each
// tenant, or each user, its own tools, prompts and resources (a
// multi-tenant deployment), choosing by a header, the path or the
// authenticated user (VerifiedToken: Options.Authenticate has run by
// then).
//
// getServer is asked when a session is created, by initialize, and the
// session keeps that server for its life: its later requests, its GET
// stream and its DELETE never ask again
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// It is also asked for a request naming a session this Handler does not
// hold, to learn whether that server's SessionStore is shared: if so the
// session is rebuilt from the store on that server (see Handler), and if
// not, or if getServer returns nil, the request is answered 404 "Session
// not found" as before. Shared sessions are served across replicas as
// with NewHandler: the Handler subscribes to the Bus of each server whose
// shared sessions it holds (once per Bus, when it first creates or
// rebuilds one), so that a client's response or cancellation POSTed to
// any replica reaches the one where the request waits
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#multiple-connections).
// Every replica's getServer must then choose, for a request, a server
// with the same SessionStore, TaskStore and Bus.
// It is asked for every request of the 2026-07-28 era that names no live
// session, since that era has none
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http),
// and for every request in Options.Stateless mode. The handler's bounds
// (MaxSessions, IdleTimeout and the other Options), Authenticate, Close
// and Shutdown cover the sessions of every server alike.
//
// A nil server from getServer means that no server serves the request: it
// is answered 404 Not Found with the JSON-RPC error -32000 "Not Found: no
// MCP server for this request", and nothing is created. A panic in
// getServer is logged with its stack on Options.Logger and answered 500
// with -32603 "Internal error". A nil getServer answers every such request
// 404.
func NewHandlerFunc(getServer func(*http.Request) *mcp.Server, opts *Options) *Handler {
	h := NewHandler(nil, opts)
	h.getServer = getServer
	return h
}

// VerifiedToken returns the token Options.Authenticate verified for r,
// for a getServer (NewHandlerFunc) that gives each user a server of their
// own; nil when the Handler authenticates nothing or r carries no token
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#access-token-usage).
// Only a request the Handler is serving carries it.
func VerifiedToken(r *http.Request) *mcp.TokenInfo {
	if res, ok := r.Context().Value(authKey{}).(*authResult); ok {
		return res.info
	}
	return nil
}

// errNoServer answers a request for which no server was chosen.
var errNoServer = serverError("Not Found: no MCP server for this request")

// serverFor returns the server that serves r, which names no live
// session; on failure, the status and error to refuse r with.
func (h *Handler) serverFor(r *http.Request) (srv *mcp.Server, status int, e *jsonrpc.Error) {
	if h.getServer == nil {
		if h.server == nil {
			return nil, http.StatusNotFound, errNoServer
		}
		return h.server, 0, nil
	}
	defer func() {
		if p := recover(); p != nil {
			h.logger.Error("mcphttp: getServer panicked", "panic", p, "stack", string(debug.Stack()))
			srv, status, e = nil, http.StatusInternalServerError, errInternal
		}
	}()
	if srv = h.getServer(r); srv == nil {
		return nil, http.StatusNotFound, errNoServer
	}
	return srv, 0, nil
}

// modernServer returns the server of a 2026-07-28 request: that of the
// live session it names, which keeps its server, or else the one chosen
// for it.
func (h *Handler) modernServer(r *http.Request) (*mcp.Server, int, *jsonrpc.Error) {
	if !h.opts.Stateless && h.getServer != nil {
		if sid := headerValue(r.Header, headerSessionID); sid != "" {
			_, owner := h.authOf(r)
			if srv := h.reg.serverOf(sid, owner); srv != nil {
				return srv, 0, nil
			}
		}
	}
	return h.serverFor(r)
}

// serverOf returns the server of the live session id of owner, or nil.
func (g *registry) serverOf(id, owner string) *mcp.Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.entries[id]
	if e == nil || e.owner != owner || g.expired(e, g.nowNanos()) {
		return nil
	}
	return e.ss.Server()
}
