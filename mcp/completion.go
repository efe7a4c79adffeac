package mcp

import "context"

// Completion: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion
// (stub: implemented by the completion work).

func (s *Server) complete(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

// completionsCapability is called with s.mu read-locked.
func (s *Server) completionsCapability() *struct{} { return nil }
