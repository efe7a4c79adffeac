package mcp

// How each side sends requests and notifications: through the sending
// middleware, if any, to the stream (client timeouts: client_timeout.go).

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// sendingChain returns the server's sending handler wrapped in its
// SendingMiddleware, or nil when there is none (the fast path).
func (s *Server) sendingChain() SendHandler {
	if len(s.opts.SendingMiddleware) == 0 {
		return nil
	}
	return guardSending(s.logger, chainSending(s.opts.SendingMiddleware, sendFromServer)) // recover.go
}

// sendFromServer is the innermost sending handler of a server: it writes
// the message on its stream and, for a request, waits for the answer.
func sendFromServer(ctx context.Context, m *SentMessage) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // nothing is sent on an ended context
	}
	ss := m.Session
	w := m.w
	if w == nil {
		ss.mu.Lock()
		w = ss.standalone
		ss.mu.Unlock()
	}
	if !m.ID.IsValid() {
		if w == nil {
			return nil, nil // no stream: dropped, like any unrelated message
		}
		return nil, w.WriteMessage(ctx, &jsonrpc.Notification{Method: m.Method, Params: m.Params})
	}
	if w == nil {
		return nil, fmt.Errorf("mcp: %s: no stream to the client is open", m.Method)
	}
	if m.resp == nil {
		return nil, errLostRequest(m.Method)
	}
	if err := w.WriteMessage(ctx, &jsonrpc.Request{ID: m.ID, Method: m.Method, Params: m.Params}); err != nil {
		return nil, fmt.Errorf("mcp: sending %s: %w", m.Method, err)
	}
	select {
	case resp, ok := <-m.resp:
		if !ok {
			if err := ss.calls.failure(m.ID); err != nil {
				// The client's answer was refused (serve.go).
				return nil, fmt.Errorf("mcp: %s: %w", m.Method, err)
			}
			return nil, ErrSessionClosed
		}
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		// Cancelled on the stream the request went on
		// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).
		ss.calls.forget(m.ID)
		_ = ss.notifyRelated(context.WithoutCancel(ctx), w, "notifications/cancelled",
			&cancelledParams{RequestID: m.ID, Reason: context.Cause(ctx).Error()})
		return nil, ctx.Err()
	case <-ss.done:
		return nil, ErrSessionClosed
	}
}

// errLostRequest is what a request gets when a sending middleware passed
// on a new SentMessage instead of a copy of the one it was given.
func errLostRequest(method string) error {
	return fmt.Errorf("mcp: %s: a sending middleware passed on a new SentMessage for a request; pass on a copy of the one it was given", method)
}

// call sends a request to the client on w and returns its raw result.
func (ss *ServerSession) call(ctx context.Context, w messageWriter, method string, params json.RawMessage) (json.RawMessage, error) {
	id, ch, err := ss.calls.start()
	if err != nil {
		return nil, err
	}
	defer ss.calls.forget(id)
	m := &SentMessage{Method: method, ID: id, Params: params, Session: ss, w: w, resp: ch}
	if h := ss.server.send; h != nil {
		return h(ctx, m)
	}
	return sendFromServer(ctx, m)
}

// sendNotification sends a notification to the client on w, which is
// not nil.
func (ss *ServerSession) sendNotification(ctx context.Context, w messageWriter, method string, params json.RawMessage) error {
	if h := ss.server.send; h != nil {
		_, err := h(ctx, &SentMessage{Method: method, Params: params, Session: ss, w: w})
		return err
	}
	return w.WriteMessage(ctx, &jsonrpc.Notification{Method: method, Params: params})
}

// sendingChain returns the client's sending handler wrapped in its
// SendingMiddleware, or nil when there is none (the fast path).
func (c *Client) sendingChain() SendHandler {
	if len(c.opts.SendingMiddleware) == 0 {
		return nil
	}
	return guardSending(c.logger, chainSending(c.opts.SendingMiddleware, sendFromClient)) // recover.go
}

// sendFromClient is the innermost sending handler of a client.
func sendFromClient(ctx context.Context, m *SentMessage) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // nothing is sent on an ended context
	}
	cs := m.ClientSession
	if !m.ID.IsValid() {
		return nil, cs.w.WriteMessage(ctx, &jsonrpc.Notification{Method: m.Method, Params: m.Params})
	}
	if m.resp == nil {
		return nil, errLostRequest(m.Method)
	}
	return cs.roundTrip(ctx, m) // client_timeout.go
}

// call sends a request to the server and returns its raw result.
func (cs *ClientSession) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	id, ch, err := cs.calls.start()
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: %w", method, cs.endedErr())
	}
	defer cs.calls.forget(id)
	return cs.send(ctx, &SentMessage{Method: method, ID: id, Params: params, ClientSession: cs, resp: ch})
}

// sendNotification sends a notification to the server.
func (cs *ClientSession) sendNotification(ctx context.Context, method string, params json.RawMessage) error {
	_, err := cs.send(ctx, &SentMessage{Method: method, Params: params, ClientSession: cs})
	return err
}
