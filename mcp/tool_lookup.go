package mcp

import "encoding/json"

// toolInputSchema returns the inputSchema of the tool named name, and
// whether there is such a tool. Streamable HTTP reads it to check the
// Mcp-Param-{Name} headers a 2026-07-28 client mirrors from the arguments
// of properties marked x-mcp-header
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).
// The schema is the tool's own: callers must not modify it.
func (s *Server) toolInputSchema(name string) (json.RawMessage, bool) {
	s.mu.RLock()
	t, ok := s.tools.get(name)
	s.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return t.tool.InputSchema, true
}
