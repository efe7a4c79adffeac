package mcp

// HasTool reports whether s has a tool called name: whether tools/call
// naming it would run a tool
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools).
// Middleware uses it to tell a name the server serves from one a client
// made up, for instance to keep the latter out of telemetry.
func (s *Server) HasTool(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.tools.get(name)
	return ok
}

// HasPrompt reports whether s has a prompt called name: whether
// prompts/get naming it would find one
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
func (s *Server) HasPrompt(name string) bool {
	_, ok := s.promptByName(name)
	return ok
}

// HasResource reports whether s has a resource at uri, or a resource
// template that matches it: whether resources/read of uri would find a
// handler
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).
func (s *Server) HasResource(uri string) bool {
	_, _, _, ok := s.findResource(uri)
	return ok
}
