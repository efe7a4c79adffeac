package mcp

import (
	"context"
	"encoding/json"
	"slices"
)

// DiscoverResult is the answer to server/discover: what a client needs to
// pick a version and know the server's features without a handshake
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
// ttlMs, cacheScope, resultType and the server's identity in _meta are
// added when the result is sent.
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
}

// discover implements server/discover.
func (s *Server) discover(context.Context, *Request) (any, error) {
	return &DiscoverResult{
		SupportedVersions: slices.Clone(servedVersions),
		Capabilities:      s.statelessCapabilities(),
		Instructions:      s.opts.Instructions,
	}, nil
}

// statelessCapabilities are the capabilities as the stateless era declares
// them: tasks are no longer a core capability but the
// io.modelcontextprotocol/tasks extension
// (https://modelcontextprotocol.io/specification/2026-07-28/schema#servercapabilities).
func (s *Server) statelessCapabilities() ServerCapabilities {
	c := s.capabilities()
	c.Tasks = nil
	if s.tasksExtensionEnabled() {
		ext := make(map[string]json.RawMessage, len(c.Extensions)+1)
		for k, v := range c.Extensions {
			ext[k] = v
		}
		ext[TasksExtensionID] = emptyObject
		c.Extensions = ext
	}
	return c
}
