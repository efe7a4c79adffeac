package mcp

// This file holds roots, server side: the types of roots/list and the
// server's typed method to send it
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots).

import (
	"context"
	"fmt"
)

// Root is a directory or file the client lets the server work on
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots#root).
type Root struct {
	Meta Meta `json:"_meta,omitempty"`
	// URI identifies the root; in 2025-11-25 it must be a file:// URI.
	URI string `json:"uri"`
	// Name is an optional name to show.
	Name string `json:"name,omitempty"`
}

// ListRootsParams is the params of roots/list.
type ListRootsParams struct {
	Meta *RequestMeta `json:"_meta,omitempty"`
}

// ListRootsResult is the client's answer to roots/list.
type ListRootsResult struct {
	Meta  Meta    `json:"_meta,omitempty"`
	Roots []*Root `json:"roots"`
}

// ListRoots asks the client for its roots
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots#listing-roots).
// Called with the ctx of a request handler, the request travels on that
// request's stream.
//
// Nothing is sent, and the error matches ErrCapabilityNotDeclared, when the client did
// not declare roots. A nil params sends none.
//
// To follow changes, set ServerOptions.RootsListChangedHandler; it runs on
// the session's read loop, so call ListRoots from a goroutine there.
func (ss *ServerSession) ListRoots(ctx context.Context, params *ListRootsParams) (*ListRootsResult, error) {
	const method = "roots/list"
	if err := mayCallClient(ctx, method); err != nil { // era_stateless.go
		return nil, err
	}
	caps := ss.clientCapabilities()
	if caps.Roots == nil {
		return nil, &capabilityError{Method: method, Capability: "roots"}
	}
	var p any
	if params != nil {
		p = params
	}
	var res ListRootsResult
	if err := ss.Call(ctx, method, p, &res); err != nil {
		return nil, err
	}
	if res.Roots == nil {
		return nil, fmt.Errorf("mcp: %s: the client's result has no roots member", method)
	}
	for i, r := range res.Roots {
		if r == nil || r.URI == "" {
			return nil, fmt.Errorf("mcp: %s: root %d in the client's result has no uri", method, i)
		}
	}
	return &res, nil
}

// ListRoots is ServerSession.ListRoots on the request's session, sent on
// the request's stream.
//
// In the stateless era there is no session to send it on: it is one
// Request.Input under a key of its own, so the handler is run again with
// the client's answer, and until then it returns ErrInputRequired, which
// the handler must return as it is (or wrapped)
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func (r *Request) ListRoots(ctx context.Context, params *ListRootsParams) (*ListRootsResult, error) {
	return ask[ListRootsResult](ctx, r, &InputRequest{Method: "roots/list", roots: params})
}
