package mcp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Request is what every server-side handler receives, whatever the
// transport and whatever the protocol era. Handlers read the negotiated
// version, the client's identity and capabilities from it, and send
// progress and log notifications through it; they never reach into a
// transport or a session's internals, so one handler serves stdio,
// Streamable HTTP and in-memory connections unchanged.
//
// A Request is valid only until its handler returns.
type Request struct {
	// Method is the JSON-RPC method, such as "tools/call".
	Method string
	// ID is the JSON-RPC id; the zero ID for notifications.
	ID jsonrpc.ID
	// Params is the raw params member, decoded by the method's handler into
	// its own type.
	Params json.RawMessage
	// Session is the session the request arrived on.
	Session *ServerSession
	// ProtocolVersion is the version in force for this request.
	ProtocolVersion string
	// ClientInfo and ClientCapabilities are what the client declared; never
	// nil after initialization.
	ClientInfo         *Implementation
	ClientCapabilities *ClientCapabilities
	// Extra carries what the transport knows about the request, such as
	// HTTP headers; nil on stdio and in-memory connections.
	Extra *RequestExtra

	progressToken ProgressToken
	// progress is set with the token (progress.go); copies of the Request
	// share it.
	progress *progressState
	related  messageWriter
	// era serves what differs by protocol era (era.go).
	era era
}

// RequestExtra is what a transport adds to a request: for Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http),
// the request's headers and verified token.
type RequestExtra struct {
	// Header holds the headers of the HTTP request that carried the
	// message, as net/http parsed them (read them with Header.Get); nil on
	// stdio and in-memory connections. Handlers must not modify it.
	Header http.Header
	// Auth is the verified access token of the request, or nil when the
	// transport authenticates nothing (stdio, in-memory, Streamable HTTP
	// without mcphttp.Options.Authenticate). A server on HTTP is an OAuth
	// 2.1 resource server and validates every request's token
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#access-token-usage).
	Auth *TokenInfo

	// CloseStream, when not nil, closes the HTTP connection carrying the
	// request's SSE stream without ending the stream: the client
	// reconnects with GET and Last-Event-ID and receives the rest,
	// response included
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	// Streamable HTTP sets it when its streams are resumable.
	CloseStream func()
}

// ProgressToken returns the token the client sent in _meta.progressToken,
// and whether it sent one.
func (r *Request) ProgressToken() (ProgressToken, bool) {
	return r.progressToken, r.progressToken.IsValid()
}

// setMeta records what the params' _meta carries for the request.
func (r *Request) setMeta(m *RequestMeta) {
	if m != nil && m.ProgressToken.IsValid() {
		r.progressToken = m.ProgressToken
		r.progress = &progressState{}
	}
}

// messageWriter is jsonrpc.Writer, under the name the session code uses.
type messageWriter = jsonrpc.Writer

// A MethodHandler serves one method. The result is encoded as JSON; a nil
// result encodes as {}. An error that is (or wraps) a *jsonrpc.Error is sent
// as that error; any other error is sent as -32603 with its text.
type MethodHandler func(ctx context.Context, req *Request) (result any, err error)

// Middleware wraps the method dispatcher, to add metrics, tracing, logging
// or policy without touching handlers. It sees every request and
// notification a server receives (notifications/cancelled included, after
// it has cancelled its request), with raw params. SendingMiddleware sees
// what the server sends; ClientMiddleware is the client's counterpart.
type Middleware func(next MethodHandler) MethodHandler
