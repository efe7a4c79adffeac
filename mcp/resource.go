package mcp

import "context"

// Resources: https://modelcontextprotocol.io/specification/2025-11-25/server/resources
// (stub: implemented by the resources work).

func (s *Server) listResources(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) listResourceTemplates(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) readResource(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) subscribeResource(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) unsubscribeResource(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

// resourcesCapability is called with s.mu read-locked.
func (s *Server) resourcesCapability() *ResourcesCapability { return nil }
