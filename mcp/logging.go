package mcp

import "context"

// Logging: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
// (stub: implemented by the logging work).

func (s *Server) setLogLevel(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

// loggingCapability is called with s.mu read-locked.
func (s *Server) loggingCapability() *struct{} { return nil }
