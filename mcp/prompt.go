package mcp

import "context"

// Prompts: https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
// (stub: implemented by the prompts work).

func (s *Server) listPrompts(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) getPrompt(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

// promptsCapability is called with s.mu read-locked.
func (s *Server) promptsCapability() *ListChangedCapability { return nil }
