package mcp

// This file holds the bounds a session puts on what one client can make the
// server hold (DESIGN.md, Bounds): requests in flight and the client state
// kept from initialize or a stateless-era request's _meta. Each is a
// ServerOptions field; the errors here are what a client gets at the bound.

import (
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// defaultMaxInFlightRequests is ServerOptions.MaxInFlightRequests when
// zero (unless MaxConcurrentRequests is larger).
const defaultMaxInFlightRequests = 64

// errTooManyInFlight is the answer to a request that would take a session
// past ServerOptions.MaxInFlightRequests: -32000 (the implementation-defined
// server error), with the bound in data.
func errTooManyInFlight(limit int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeServerError, "Too many requests in flight", struct {
		MaxInFlightRequests int `json:"maxInFlightRequests"`
	}{limit})
}

// admitRefusal turns admitLocked's refusal into handleRequest's results: a
// bound reached or a duplicate id is answered with its JSON-RPC error;
// ErrSessionClosed is left to the transport.
func admitRefusal(id jsonrpc.ID, err error) (*jsonrpc.Response, error) {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return jsonrpc.NewErrorResponse(id, rpcErr), nil
	}
	return nil, err
}

// defaultMaxClientStateBytes is ServerOptions.MaxClientStateBytes when
// zero.
const defaultMaxClientStateBytes = 64 << 10

// checkClientState refuses client state of n bytes (the raw JSON of
// clientInfo plus capabilities) past ServerOptions.MaxClientStateBytes
// with -32602, naming what is too large; what names the members.
func (s *Server) checkClientState(what string, n int) *jsonrpc.Error {
	if limit := s.opts.MaxClientStateBytes; limit > 0 && n > limit {
		return errClientStateTooLarge(what, n, limit)
	}
	return nil
}

// errClientStateTooLarge is -32602 for client state of n bytes past limit.
func errClientStateTooLarge(what string, n, limit int) *jsonrpc.Error {
	return errInvalidParams(fmt.Sprintf("%s are too large: %d bytes, more than the %d this server accepts", what, n, limit))
}
