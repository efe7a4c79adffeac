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

// Features is what a Server offers at one moment, as Server.Features
// returns it: the capabilities initialize declares
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation)
// and the features tools/list, prompts/list, resources/list and
// resources/templates/list would return, whole and in their list order
// (by name, URI or URI template). The Tools, Prompts, Resources and
// ResourceTemplates are the server's own and must not be modified.
type Features struct {
	// Implementation is what the server says about itself (NewServer's).
	Implementation    Implementation
	Capabilities      ServerCapabilities
	Tools             []*Tool
	Prompts           []*Prompt
	Resources         []*Resource
	ResourceTemplates []*ResourceTemplate
	// Version changes whenever a feature or an extension is added or
	// removed, so that equal Versions of one Server mean equal Features.
	Version uint64
}

// Features returns a snapshot of what s offers now, for code that
// describes the server outside a session, such as a document served
// before any client connects.
func (s *Server) Features() Features {
	for {
		// The capabilities are read under their own lock: they are kept
		// only if no feature changed meanwhile.
		v := s.featuresVersion()
		c := s.capabilities()
		if f, ok := s.featuresAt(v, c); ok {
			f.Implementation = s.impl
			return f
		}
	}
}

// featuresVersion is Features.Version now.
func (s *Server) featuresVersion() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.featuresVersionLocked()
}

func (s *Server) featuresVersionLocked() uint64 {
	return s.tools.version + s.prm.prompts.version + s.res.resources.version + s.res.templates.version + uint64(len(s.extensions))
}

// featuresAt returns the features with c if they are still at version v.
func (s *Server) featuresAt(v uint64, c ServerCapabilities) (Features, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.featuresVersionLocked() != v {
		return Features{}, false
	}
	f := Features{
		Capabilities:      c,
		Tools:             make([]*Tool, 0, s.tools.len()),
		Prompts:           make([]*Prompt, 0, s.prm.prompts.len()),
		Resources:         make([]*Resource, 0, s.res.resources.len()),
		ResourceTemplates: make([]*ResourceTemplate, 0, s.res.templates.len()),
		Version:           v,
	}
	for _, k := range s.tools.keys {
		f.Tools = append(f.Tools, s.tools.byKey[k].tool)
	}
	for _, k := range s.prm.prompts.keys {
		f.Prompts = append(f.Prompts, s.prm.prompts.byKey[k].prompt)
	}
	for _, k := range s.res.resources.keys {
		f.Resources = append(f.Resources, s.res.resources.byKey[k].resource)
	}
	for _, k := range s.res.templates.keys {
		f.ResourceTemplates = append(f.ResourceTemplates, s.res.templates.byKey[k].template)
	}
	return f, true
}
