package mcp

// This file holds the middleware of both sides, so that metrics, tracing,
// logging or policy can be added without touching handlers. Every message
// a side receives or sends passes through one kind of middleware, a
// function from handler to handler:
//
//	server, received requests and notifications: Middleware (request.go)
//	server, sent requests and notifications:     SendingMiddleware
//	client, received requests and notifications: ClientMiddleware
//	client, sent requests and notifications:     SendingMiddleware
//
// Responses are not messages of their own here: a received request's
// middleware sees its result or error, and a sent request's middleware
// sees the peer's answer.

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A SentMessage is a request or notification a server or client is about
// to send, as SendingMiddleware sees it; Params are already encoded. A
// middleware that changes a message must pass on a changed copy
// (m2 := *m) keeping ID: a new SentMessage for a request fails.
type SentMessage struct {
	// Method is the JSON-RPC method, such as "notifications/progress" or
	// "sampling/createMessage".
	Method string
	// ID is a request's id, already allocated; the zero ID for a
	// notification.
	ID jsonrpc.ID
	// Params is the encoded params member; nil when there is none.
	Params json.RawMessage
	// Session is the server session sending the message; nil on a client.
	Session *ServerSession
	// ClientSession is the client session sending the message; nil on a
	// server.
	ClientSession *ClientSession

	// w is the stream a server message goes on (nil: the standalone
	// stream).
	w messageWriter
	// resp receives the answer to a request.
	resp chan *jsonrpc.Response
}

// A SendHandler sends one message to the peer. For a request it waits for
// the answer and returns its raw result, or its error: a *jsonrpc.Error
// from the peer, the context's error when ctx ended first (the request is
// then cancelled with notifications/cancelled), ErrRequestTimeout on a
// client whose timeout expired, or an error wrapping ErrSessionClosed. For
// a notification the result is nil and the error is that of writing it.
type SendHandler func(ctx context.Context, m *SentMessage) (result json.RawMessage, err error)

// SendingMiddleware wraps the sending of every request and notification a
// server (ServerOptions.SendingMiddleware) or client
// (ClientOptions.SendingMiddleware) sends. It may observe, change (see
// SentMessage), delay or refuse a message; one that does not call next
// sends nothing. It runs on the sender's goroutine; for a request, next
// returns when the answer arrives.
type SendingMiddleware func(next SendHandler) SendHandler

// ClientRequest is a request or notification a client receives from a
// server, as ClientMiddleware sees it.
type ClientRequest struct {
	// Method is the JSON-RPC method, such as "sampling/createMessage" or
	// "notifications/progress".
	Method string
	// ID is the request's id; the zero ID for a notification.
	ID jsonrpc.ID
	// Params is the raw params member.
	Params json.RawMessage
	// Session is the session the message arrived on.
	Session *ClientSession

	// h is the method's handler, nil for an unknown method.
	h clientMethodHandler
}

// A ClientMethodHandler handles what a client receives: for a request, the
// result is encoded as the response (nil encodes as {}) and an error that
// is (or wraps) a *jsonrpc.Error is sent as that error, any other as
// -32603 with its text; for a notification, the result and error are
// ignored.
type ClientMethodHandler func(ctx context.Context, r *ClientRequest) (result any, err error)

// ClientMiddleware wraps the handling of every request and notification a
// client receives (ClientOptions.Middleware). It may answer or refuse a
// request, or drop a notification. Notifications are handled in order on
// the read loop, so it must not block on them; requests other than ping
// run on their own goroutines.
type ClientMiddleware func(next ClientMethodHandler) ClientMethodHandler

// chainSending wraps h in mw, the first outermost.
func chainSending(mw []SendingMiddleware, h SendHandler) SendHandler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// clientReceiveChain returns the client's receiving handler wrapped in its
// middleware, or nil when there is none (the fast path).
func (c *Client) clientReceiveChain() ClientMethodHandler {
	if len(c.opts.Middleware) == 0 {
		return nil
	}
	h := ClientMethodHandler(clientRoute)
	for i := len(c.opts.Middleware) - 1; i >= 0; i-- {
		h = c.opts.Middleware[i](h)
	}
	return h
}

// clientRoute is the innermost receiving handler of a client: the method
// table for requests, the callbacks for notifications.
func clientRoute(ctx context.Context, r *ClientRequest) (any, error) {
	if !r.ID.IsValid() {
		r.Session.deliverNotification(&jsonrpc.Notification{Method: r.Method, Params: r.Params})
		return nil, nil
	}
	if r.h == nil {
		return nil, errMethodNotFound(r.Method)
	}
	return r.h(ctx, r.Session, r.Params)
}

// handle runs the handler h of a request the server sent, through the
// client's middleware if it has any.
func (c *Client) handle(ctx context.Context, cs *ClientSession, req *jsonrpc.Request, h clientMethodHandler) (any, error) {
	if c.receive == nil {
		return h(ctx, cs, req.Params)
	}
	return c.receive(ctx, &ClientRequest{Method: req.Method, ID: req.ID, Params: req.Params, Session: cs, h: h})
}

// handleNotification passes a notification from the server through the
// client's middleware, if any, to the callbacks (deliverNotification), on
// the read loop, in order. A panic in middleware is logged and the
// notification dropped.
func (cs *ClientSession) handleNotification(n *jsonrpc.Notification) {
	c := cs.client
	if c.receive == nil {
		cs.deliverNotification(n)
		return
	}
	defer recoverCallback(c.logger, "client: middleware", n.Method) // recover.go
	_, _ = c.receive(cs.ctx, &ClientRequest{Method: n.Method, Params: n.Params, Session: cs})
}
