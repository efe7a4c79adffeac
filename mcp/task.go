package mcp

import (
	"context"
	"encoding/json"
)

// Tasks: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
// (stub: implemented by the tasks work).

func (s *Server) getTask(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) getTaskResult(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) listTasks(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

func (s *Server) cancelTask(_ context.Context, r *Request) (any, error) {
	return nil, errMethodNotFound(r.Method)
}

// tasksCapability is called with s.mu read-locked.
func (s *Server) tasksCapability() json.RawMessage { return nil }
