package mcphttp

import (
	"net/http"
	"runtime/debug"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// NewHandlerFunc returns a Handler that serves each request with the server
// getServer chooses for it (one server per tenant or user). A session keeps
// the server chosen at its initialize
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management);
// other requests choose each time. A nil server is answered 404, a panic
// 500 (docs/design.md, "One endpoint, a server per request").
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
var errNoServer = httpguard.ServerError("Not Found: no MCP server for this request")

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

// statelessServer returns the server of a 2026-07-28 request: that of the
// live session it names, which keeps its server, or else the one chosen
// for it.
func (h *Handler) statelessServer(r *http.Request) (*mcp.Server, int, *jsonrpc.Error) {
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
