package mcp

// This file is the one place a panic in user code is dealt with: request
// handlers, middleware, notification callbacks, hooks and stores, on the
// server and on the client. A panic is logged at error level with its
// stack, and never reaches the wire; a request whose handler panicked is
// answered -32603 "Internal error", a notification callback's panic only
// ends that callback, and the session lives on (DESIGN.md, Conventions).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// recovered deals with v, what recover returned in a deferred function:
// a panic in what (a handler, a callback, a hook) while handling method is
// logged at error level with its stack. It reports whether there was a
// panic. Call it as recovered(recover(), ...) from the deferred function
// itself, since recover works only there.
func recovered(v any, logger *slog.Logger, what, method string) bool {
	if v == nil {
		return false
	}
	logger.Error("mcp: "+what+" panicked", "method", method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	return true
}

// recoverCallback, deferred directly, recovers and logs a panic in a
// callback whose caller needs no result.
func recoverCallback(logger *slog.Logger, what, method string) {
	recovered(recover(), logger, what, method)
}

// recoverHandler, deferred directly, turns a handler panic into -32603.
func (s *Server) recoverHandler(method string, errp *error) {
	if recovered(recover(), s.logger, "handler", method) {
		*errp = errInternal()
	}
}

// callback runs f, a user callback of the server for a notification, so
// that a panic in it is logged and ends only f.
func (s *Server) callback(what, method string, f func()) {
	defer recoverCallback(s.logger, what, method)
	f()
}

// errSendingPanicked is what a message gets when a SendingMiddleware
// panicked while sending it.
var errSendingPanicked = errors.New("a sending middleware panicked")

// guardSending wraps a sending chain so that a panic in a
// SendingMiddleware becomes an error of that send: messages are sent from
// read loops and other places where a panic would end the process.
func guardSending(logger *slog.Logger, h SendHandler) SendHandler {
	return func(ctx context.Context, m *SentMessage) (res json.RawMessage, err error) {
		defer func() {
			if recovered(recover(), logger, "sending middleware", m.Method) {
				res, err = nil, fmt.Errorf("mcp: %s: %w", m.Method, errSendingPanicked)
			}
		}()
		return h(ctx, m)
	}
}
