package mcp

import (
	"context"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// The API for transport authors that decode messages themselves (mcphttp);
// a transport of frames implements Transport and is served with
// Server.Connect instead.

// A Host is the side of a Server that a transport drives: it creates
// sessions, feeds them the client's messages and serves stateless-era
// requests (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports).
// Obtain it with Server.Host.
type Host struct {
	// Store is the server's SessionStore (ServerOptions.SessionStore, or
	// the default, NewMemorySessionStore(nil)).
	Store SessionStore
	// Bus is ServerOptions.Bus, or nil.
	Bus Bus

	s *Server
}

// Host returns the transport side of s, and records that a transport
// serves s: from then on list_changed notifications are sent
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification).
func (s *Server) Host() Host {
	s.markServing()
	return Host{Store: s.store, Bus: s.opts.Bus, s: s}
}

// SessionOptions configures a session made with Host.NewSession.
type SessionOptions struct {
	// ID is the session id
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
	// Stream transports may leave it empty.
	ID string
	// Standalone receives the messages sent outside any request. If nil,
	// they are dropped until Host.SetStandalone is called.
	Standalone jsonrpc.Writer
	// Preinitialized starts the session ready, with ProtocolVersion (if
	// empty, LatestVersion), for a transport where no initialize arrives.
	Preinitialized  bool
	ProtocolVersion string
	// Ephemeral marks a session that serves one request and is closed
	// after it: the server offers no session-owned tasks on it.
	Ephemeral bool
	// Owner is the user the session belongs to (TokenInfo.OwnerKey), ""
	// if unauthenticated; it is kept in the session's state
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#session-hijacking).
	Owner string
	// TransportStores marks a session whose transport creates its record
	// in the SessionStore itself, once initialize succeeds, and deletes it
	// when the session ends for good; the session still records its state
	// changes with Update.
	TransportStores bool
	// Restore, when not nil, is the state the session starts from: one
	// another replica created, loaded from a shared SessionStore. Its ID
	// and Owner must be ID and Owner.
	Restore *SessionState
}

// NewSession creates a session for the transport to drive
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
// It receives the server's list_changed notifications until it is
// closed.
func (h Host) NewSession(opts SessionOptions) *ServerSession { return h.s.newSession(opts) }

// HandleRequest serves one request on ss and returns its response
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#requests).
// Messages sent meanwhile go to related in order (nil: the standalone
// writer); extra (may be nil) is Request.Extra. The response is nil for a
// cancelled request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).
// The error is ErrSessionClosed. Safe for concurrent use.
func (h Host) HandleRequest(ctx context.Context, ss *ServerSession, req *jsonrpc.Request, related jsonrpc.Writer, extra *RequestExtra) (*jsonrpc.Response, error) {
	return ss.handleRequest(ctx, req, related, extra)
}

// Deliver hands ss a notification or a response from the client
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#notifications).
// It reports whether a request of ss was waiting for a response, true for
// a notification and false for anything else. Before initialize is
// answered, notifications other than notifications/cancelled are ignored.
func (h Host) Deliver(ctx context.Context, ss *ServerSession, msg jsonrpc.Message, extra *RequestExtra) bool {
	switch m := msg.(type) {
	case *jsonrpc.Notification:
		ss.handleNotification(ctx, m, extra)
		return true
	case *jsonrpc.Response:
		return ss.handleResponse(ctx, m)
	}
	return false
}

// ServeStateless serves one stateless-era request
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning),
// in flight on ss if not nil (ss's end cancels it). refused reports -32602,
// -32022, -32601 or -32021 from before or by the handler, which Streamable
// HTTP answers with 400 or 404
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
// err is as for HandleRequest, and nil without ss.
func (h Host) ServeStateless(ctx context.Context, ss *ServerSession, req *jsonrpc.Request, related jsonrpc.Writer, extra *RequestExtra) (resp *jsonrpc.Response, refused bool, err error) {
	if ss == nil {
		resp, refused = h.s.serveStateless(ctx, req, related, extra)
		return resp, refused, nil
	}
	return ss.handleStateless(ctx, req, related, extra)
}

// SetStandalone sets where ss sends the messages unrelated to any request
// (for Streamable HTTP, the GET stream
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server)).
// A nil w drops them.
func (h Host) SetStandalone(ss *ServerSession, w jsonrpc.Writer) { ss.setStandalone(w) }

// SyncState brings ss's protocol state (version, client info and
// capabilities, lifecycle, log level, subscriptions) to st, loaded from a
// shared SessionStore, so that what another replica changed holds here
// too (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// A closed session stays closed.
func (h Host) SyncState(ss *ServerSession, st *SessionState) { ss.syncState(st) }

// EndSession tells the server that session sessionID of a shared
// SessionStore has ended for good, not merely this replica's copy: the
// tasks it owned are cancelled wherever they run and deleted from the
// TaskStore
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).
// It returns within TaskOptions.SessionEndTimeout.
func (h Host) EndSession(ctx context.Context, sessionID string) { h.s.endSharedSession(ctx, sessionID) }

// Tool returns the registered tool named name, for a transport's checks
// before tools/call (Mcp-Param-{Name} headers, RequiredScopes)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).
// Callers must not modify it.
func (h Host) Tool(name string) (*Tool, bool) {
	h.s.mu.RLock()
	t, ok := h.s.tools.get(name)
	h.s.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return t.tool, true
}

// StatelessVersionOf returns the protocol version the params._meta of
// msg (a request or a notification) names, and whether the key is there
// (with any value): a message that has it belongs to the stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
// Streamable HTTP compares it with the MCP-Protocol-Version header.
func StatelessVersionOf(msg jsonrpc.Message) (string, bool) {
	var version []byte
	found := false
	switch m := msg.(type) {
	case *jsonrpc.Request:
		version, found = requestProtocolVersion(m)
	case *jsonrpc.Notification:
		version, found = rawProtocolVersion(m.Params)
	}
	if !found {
		return "", false
	}
	v, _ := jsonscan.StringValue(version)
	return v, true
}
