// Package bridge is the boundary between package mcp and the transports
// and layers of this module that drive its sessions from another package
// (mcphttp, auth, the reference server). What crosses it is plumbing: how
// a transport creates a session, feeds it messages and tells it where its
// messages go. Keeping it here, under internal/, keeps it out of mcp's
// exported API, so users see only what they need and mcpkit stays free to
// change the plumbing. A transport outside this module implements
// mcp.Transport and mcp.Connection and serves them with Server.Connect or
// Server.Run.
//
// Package mcp cannot be imported from here (it imports this package), so
// the types this package defines are the ones that need no mcp type
// (Writer, SessionOptions), and the operations on mcp's types travel in a
// Port whose type parameters are mcp's types. Package mcp registers its
// Port in an init function; a consumer fetches it once with Get, with the
// same type arguments, and from then on every call is checked by the
// compiler.
package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A Writer receives the messages a server session sends: the
// notifications and requests related to one incoming request (sent on that
// request's stream), or those it starts on its own (the standalone
// stream). Transports implement it. WriteMessage must be safe for
// concurrent use.
type Writer interface {
	WriteMessage(ctx context.Context, msg jsonrpc.Message) error
}

// SessionOptions configures a session a transport creates with
// Port.NewSession.
type SessionOptions struct {
	// ID is the session id. Stream transports may leave it empty.
	ID string
	// Standalone receives the messages the server sends outside any
	// request. If nil, such messages are dropped until Port.SetStandalone
	// is called.
	Standalone Writer
	// Preinitialized starts the session in the ready state with the given
	// protocol version, for stateless transports where every request
	// stands alone and no initialize arrives.
	Preinitialized bool
	// ProtocolVersion is the version of a preinitialized session; if
	// empty, the latest session-era version.
	ProtocolVersion string
	// Ephemeral marks a session that serves one request and is closed
	// after it (Streamable HTTP in stateless mode): nothing it owns can be
	// reached by a later request, so the server offers no session-owned
	// tasks on it.
	Ephemeral bool
	// Owner is the user the session belongs to (TokenInfo.OwnerKey), ""
	// if unauthenticated. It is kept in the session's state, so that a
	// session store shared by replicas keeps the binding of the session to
	// its user
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#session-hijacking).
	Owner string
	// TransportStores marks a session whose transport keeps its record
	// in the server's SessionStore itself: it calls Create once
	// initialize succeeds (to answer a full or unreachable store its own
	// way) and Delete when the session ends for good. The session then
	// neither creates nor deletes it; it still records its state changes
	// with Update.
	TransportStores bool
	// Restore, when not nil, is the *mcp.SessionState the session starts
	// from: a session another replica created, rebuilt from a shared
	// SessionStore. Its ID and Owner must be ID and Owner.
	Restore any
}

// ErrDuplicateRequestID is what Port.HandleRequest returns for a request
// that arrives with the id of one still being handled on the same
// session; the first is unaffected, and the transport refuses the second
// in its own way (Streamable HTTP: a -32600 error naming the id).
var ErrDuplicateRequestID = errors.New("mcp: a request with this id is already in flight")

// Port holds the operations package mcp lends to the transports of this
// module. Server, Session and Extra are mcp's *Server, *ServerSession and
// *RequestExtra. Every field is set by package mcp.
type Port[Server, Session, Extra any] struct {
	// NewSession creates a session for a transport to drive. The session
	// is registered with the server (it receives list_changed
	// notifications) until it is closed.
	NewSession func(s Server, opts SessionOptions) Session

	// Serve tells s that a transport now serves it: from then on its
	// list_changed notifications are sent (and published on its Bus).
	// Those of features registered before, while the server was being
	// set up, are not.
	Serve func(s Server)

	// HandleRequest serves one request on ss and returns its response.
	// Messages the handler sends on the way (progress, logs,
	// server-to-client requests) go to related, in order, before it
	// returns; a nil related sends them to the standalone writer. extra
	// (may be nil) is what the handler sees as Request.Extra.
	//
	// The response is nil when the request was cancelled by
	// notifications/cancelled: the spec forbids answering it. The error
	// is ErrDuplicateRequestID when a request with the same id is
	// still in flight on the session (the first is unaffected), or
	// mcp.ErrSessionClosed; the transport then refuses the request in its
	// own way. It is safe for concurrent use.
	HandleRequest func(ss Session, ctx context.Context, req *jsonrpc.Request, related Writer, extra Extra) (*jsonrpc.Response, error)

	// HandleNotification processes one notification from the client.
	// Before initialize is answered notifications are ignored (except
	// notifications/cancelled), as are unknown ones.
	HandleNotification func(ss Session, ctx context.Context, n *jsonrpc.Notification, extra Extra)

	// HandleResponse delivers the client's answer to a server-to-client
	// request and reports whether a request was waiting for it.
	HandleResponse func(ss Session, ctx context.Context, resp *jsonrpc.Response) bool

	// HandleStatelessRequest serves a stateless-era request that arrived
	// on session ss (a Streamable HTTP POST carrying both a live
	// Mcp-Session-Id and the 2026-07-28 _meta): it is served on its own,
	// with the version and capabilities its _meta carries, but in flight
	// on ss, so that ss's end cancels it
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility).
	// refused reports that the request was turned away before any
	// handler ran, or by its handler for a method or capability not
	// offered; err is as for HandleRequest.
	HandleStatelessRequest func(ss Session, ctx context.Context, req *jsonrpc.Request, related Writer, extra Extra) (resp *jsonrpc.Response, refused bool, err error)

	// ServeStatelessRequest serves one stateless-era request outside any
	// session (a Streamable HTTP POST without Mcp-Session-Id): its
	// messages go to related, cancellation is ctx's. refused means as for
	// HandleStatelessRequest; Streamable HTTP answers it with 400, or 404
	// for -32601
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata).
	ServeStatelessRequest func(s Server, ctx context.Context, req *jsonrpc.Request, related Writer, extra Extra) (resp *jsonrpc.Response, refused bool)

	// SyncState brings ss's protocol state (version, client info and
	// capabilities, lifecycle, log level, subscriptions) to st, a
	// *mcp.SessionState a shared SessionStore returned, so that what
	// another replica changed holds here too. A closed session stays
	// closed.
	SyncState func(ss Session, st any)

	// EndSession tells s that the session sessionID of a shared
	// SessionStore has ended for good (its DELETE was served here, or the
	// store no longer has it), not merely this replica's copy of it: the
	// tasks the session owned are cancelled wherever they run and deleted
	// from the TaskStore
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#resource-management).
	// It returns within TaskOptions.SessionEndTimeout.
	EndSession func(s Server, ctx context.Context, sessionID string)

	// SetStandalone sets where messages unrelated to any request go (for
	// Streamable HTTP, the GET stream). A nil w drops them.
	SetStandalone func(ss Session, w Writer)

	// ToolInputSchema returns the inputSchema of the tool named name, and
	// whether there is such a tool, for the check of the Mcp-Param-{Name}
	// headers
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).
	// The schema is the tool's own: callers must not modify it.
	ToolInputSchema func(s Server, name string) (json.RawMessage, bool)

	// ToolRequiredScopes returns the scopes the tool named name declared
	// in Tool.RequiredScopes, and whether there is such a tool, for an
	// authorization layer to answer a tools/call lacking them with 403
	// insufficient_scope
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-challenge-handling).
	// The slice is the tool's own: callers must not modify it.
	ToolRequiredScopes func(s Server, name string) ([]string, bool)

	// StatelessProtocolVersion returns the version in the request's
	// params._meta, and whether the key is there (with any value), for a
	// transport to compare with the MCP-Protocol-Version header.
	StatelessProtocolVersion func(req *jsonrpc.Request) (string, bool)

	// SetCloseStream gives the handler of a request a way to close the
	// HTTP connection carrying the request's SSE stream without ending
	// the stream: the client reconnects with GET and Last-Event-ID and
	// receives the rest
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	// Streamable HTTP sets it only when streams are resumable.
	SetCloseStream func(extra Extra, closeStream func())

	// CloseStream returns what SetCloseStream set on extra, or nil (also
	// for a nil extra).
	CloseStream func(extra Extra) func()
}

// port is the registered *Port; its type arguments are known only to
// package mcp and to the consumers.
var port any

// Register installs p. Package mcp calls it once, in an init function, so
// that it has run before any importer of mcp is initialized.
func Register[Server, Session, Extra any](p *Port[Server, Session, Extra]) { port = p }

// Get returns the Port package mcp registered. The type arguments must be
// mcp's *Server, *ServerSession and *RequestExtra; anything else is a
// programming error inside this module, reported by a panic at package
// initialization, never at run time.
func Get[Server, Session, Extra any]() *Port[Server, Session, Extra] {
	p, ok := port.(*Port[Server, Session, Extra])
	if !ok {
		panic(fmt.Sprintf("bridge: no Port of type %T registered (is package mcp linked?)", p))
	}
	return p
}

// broadcastKey is the context key of BroadcastKey.
type broadcastKey struct{}

// WithBroadcastKey returns ctx carrying key, the id of one server
// broadcast (list_changed, resources/updated) that several replicas may
// each deliver to the same session. A transport that stores the session's
// events where every replica appends them keeps the event once per key.
func WithBroadcastKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, broadcastKey{}, key)
}

// BroadcastKey returns the key WithBroadcastKey put in ctx, or "".
func BroadcastKey(ctx context.Context) string {
	k, _ := ctx.Value(broadcastKey{}).(string)
	return k
}

// Shared is one notification a server sends to many writers at once (a
// broadcast of list_changed or resources/updated to every session): the
// same *jsonrpc.Notification goes to each, and a transport may encode it
// once for all of them with Encoded instead of once per writer.
type Shared struct {
	Msg *jsonrpc.Notification
	enc [2]sharedEncoding
}

type sharedEncoding struct {
	once sync.Once
	b    []byte
	err  error
}

// Encoded returns the encoding of s.Msg that encode makes, made by the
// first caller with the same kind (0 or 1: a transport's two forms). The
// bytes are shared by every caller and must not be modified.
func (s *Shared) Encoded(kind int, encode func(*jsonrpc.Notification) ([]byte, error)) ([]byte, error) {
	e := &s.enc[kind]
	e.once.Do(func() { e.b, e.err = encode(s.Msg) })
	return e.b, e.err
}

// sharedCtx is a context carrying a Shared. It is a type of its own, not
// a context.WithValue, so that SharedIn finds it without walking the
// chain of a context that has none (every notification a stream sends
// asks).
type sharedCtx struct {
	context.Context
	s *Shared
}

func (c *sharedCtx) Value(key any) any {
	if key == (sharedKey{}) {
		return c.s
	}
	return c.Context.Value(key)
}

// sharedKey is the context key of a Shared.
type sharedKey struct{}

// WithShared returns ctx carrying s, for the writers s.Msg is sent to.
func WithShared(ctx context.Context, s *Shared) context.Context {
	return &sharedCtx{ctx, s}
}

// SharedIn returns the Shared that WithShared put in ctx, or nil; only
// the Shared of ctx itself counts, not that of a context ctx derives
// from.
func SharedIn(ctx context.Context) *Shared {
	if c, ok := ctx.(*sharedCtx); ok {
		return c.s
	}
	return nil
}

// SharedOf returns the Shared that WithShared put in ctx if msg is its
// message, else nil.
func SharedOf(ctx context.Context, msg jsonrpc.Message) *Shared {
	if s := SharedIn(ctx); s != nil && jsonrpc.Message(s.Msg) == msg {
		return s
	}
	return nil
}
