package mcp

// This file holds resource templates
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates):
// parameterised resources whose URIs follow an RFC 6570 URI template.

import (
	"context"
	"fmt"

	"github.com/yosida95/uritemplate/v3"
)

// ResourceTemplate describes a family of resources whose URIs follow an
// RFC 6570 URI template, such as file:///{path} or test://template/{id}/data
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates).
type ResourceTemplate struct {
	Meta        Meta   `json:"_meta,omitempty"`
	URITemplate string `json:"uriTemplate"`
	// Name is the template's programmatic name, shown when Title is empty.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// MIMEType, when every resource of the template has the same type.
	MIMEType    string       `json:"mimeType,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// ListResourceTemplatesResult is one page of resource templates; NextCursor,
// when set, asks for the next
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
type ListResourceTemplatesResult struct {
	Meta              Meta                `json:"_meta,omitempty"`
	ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string              `json:"nextCursor,omitempty"`

	page *listPage[*ResourceTemplate] // the cached page it was made from
}

type serverTemplate struct {
	template *ResourceTemplate
	compiled *uritemplate.Template
	matcher  *uriMatcher
	handler  ResourceHandler
}

// match reports whether uri is an expansion of the template, and the
// values of its variables (resource_template_match.go), in time linear in
// len(uri).
func (st *serverTemplate) match(uri string) (map[string]string, bool) {
	return st.matcher.match(uri)
}

// AddResourceTemplate adds a resource template
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates),
// replacing any template with the same URI template. resources/read of a
// URI that no static resource has and that the template matches calls h,
// with the values of the template's variables in params.Variables;
// templates are tried in the order of their URI templates, and the first
// that matches serves the read. Live sessions are sent
// notifications/resources/list_changed.
//
// It returns an error when t.URITemplate is not a valid RFC 6570 template
// or t.Name is empty or h is nil.
func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceHandler) error {
	compiled, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp: resource template %q: %w", t.URITemplate, err)
	}
	matcher, err := newURIMatcher(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp: resource template %q: %w", t.URITemplate, err)
	}
	if t.Name == "" {
		return fmt.Errorf("mcp: resource template %q: a name is required", t.URITemplate)
	}
	if h == nil {
		return fmt.Errorf("mcp: resource template %q: nil handler", t.URITemplate)
	}
	s.mu.Lock()
	s.res.templates.put(t.URITemplate, &serverTemplate{template: t, compiled: compiled, matcher: matcher, handler: h})
	s.res.offered = true
	s.mu.Unlock()
	s.broadcast("notifications/resources/list_changed", emptyObject)
	return nil
}

// RemoveResourceTemplates removes the templates with the given URI
// templates; live sessions are sent notifications/resources/list_changed
// if any existed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#list-changed-notification).
func (s *Server) RemoveResourceTemplates(uriTemplates ...string) {
	s.mu.Lock()
	removed := s.res.templates.remove(uriTemplates...)
	s.mu.Unlock()
	if removed {
		s.broadcast("notifications/resources/list_changed", emptyObject)
	}
}

// listResourceTemplates implements resources/templates/list.
func (s *Server) listResourceTemplates(_ context.Context, r *Request) (any, error) {
	if !s.resourcesOffered() {
		return nil, errMethodNotFound(r.Method)
	}
	return serveFeatures(s, r, &s.res.templates, func(st *serverTemplate) *ResourceTemplate { return st.template }, templatesResult)
}

// templateByURI returns the template whose URI template is exactly
// uriTemplate, for completion/complete's ref/resource.
func (s *Server) templateByURI(uriTemplate string) (*serverTemplate, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.res.templates.get(uriTemplate)
}
