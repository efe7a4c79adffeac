package mcp

// This file holds the resources feature on the server side
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources):
// its types, static resources, resources/list, resources/read and the
// subscriptions. Resource templates are in resource_template.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Resource describes a resource the server can read
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource).
type Resource struct {
	Meta Meta `json:"_meta,omitempty"`
	// URI identifies the resource; it must be an absolute URI
	// (RFC 3986), such as file:///project/README.md or test://static-text.
	URI string `json:"uri"`
	// Name is the resource's programmatic name, shown when Title is empty.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Size is the size of the raw content in bytes, if known.
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// ListResourcesResult is one page of resources; NextCursor, when set, asks
// for the next
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
type ListResourcesResult struct {
	Meta       Meta        `json:"_meta,omitempty"`
	Resources  []*Resource `json:"resources"`
	NextCursor string      `json:"nextCursor,omitempty"`

	page *listPage[*Resource] // the cached page it was made from
}

// ReadResourceParams is the params of resources/read
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).
type ReadResourceParams struct {
	Meta *RequestMeta `json:"_meta,omitempty"`
	URI  string       `json:"uri"`
	// Variables holds, for a read served by a resource template, the
	// values of the template's variables taken from URI (a list value is
	// joined with commas). It is filled in by the server for the
	// template's handler and never sent.
	Variables map[string]string `json:"-"`
}

// ReadResourceResult is what resources/read returns: one or more contents,
// each text or a base64 blob
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-contents).
type ReadResourceResult struct {
	Meta     Meta                `json:"_meta,omitempty"`
	Contents []*ResourceContents `json:"contents"`
}

// SubscribeParams is the params of resources/subscribe and of
// resources/unsubscribe, which ends a subscription made with
// resources/subscribe
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions,
// https://modelcontextprotocol.io/specification/2025-11-25/schema#unsubscriberequest).
type SubscribeParams struct {
	Meta *RequestMeta `json:"_meta,omitempty"`
	URI  string       `json:"uri"`
}

// ResourceUpdatedParams is the params of notifications/resources/updated,
// sent to the sessions subscribed to URI when it changes
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions).
type ResourceUpdatedParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// A ResourceHandler reads a resource for resources/read
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).
// Contents without a URI get params.URI, without a MIME type the
// resource's or template's. Return ResourceNotFoundError(params.URI) for a
// URI that names nothing; other non-jsonrpc errors become -32603.
type ResourceHandler func(ctx context.Context, req *Request, params *ReadResourceParams) (*ReadResourceResult, error)

// ResourceNotFoundError is the error for a URI that names no resource:
// -32002 "Resource not found" with data {"uri": uri} in the session era
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling);
// the 2026-07-28 era sends it as -32602 with the same data
// (https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling).
func ResourceNotFoundError(uri string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeResourceNotFound, "Resource not found", struct {
		URI string `json:"uri"`
	}{uri})
}

// resourceFeatures is the Server's part for resources and templates,
// guarded by Server.mu.
type resourceFeatures struct {
	resources featureSet[*serverResource] // by URI
	templates featureSet[*serverTemplate] // by URI template
	// offered is set once a resource or template has been added; before,
	// the resources methods are -32601.
	offered bool
}

type serverResource struct {
	resource *Resource
	handler  ResourceHandler
}

// AddResource adds a static resource, replacing any with the same URI,
// and sends notifications/resources/list_changed; the server then
// declares resources with subscribe and listChanged. It fails when r.URI
// is not absolute
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#security-considerations),
// r.Name is empty or h is nil.
func (s *Server) AddResource(r *Resource, h ResourceHandler) error {
	if err := validResourceURI(r.URI); err != nil {
		return err
	}
	if r.Name == "" {
		return fmt.Errorf("mcp: resource %q: a name is required", r.URI)
	}
	if h == nil {
		return fmt.Errorf("mcp: resource %q: nil handler", r.URI)
	}
	s.mu.Lock()
	s.res.resources.put(r.URI, &serverResource{resource: r, handler: h})
	s.res.offered = true
	s.mu.Unlock()
	s.broadcast("notifications/resources/list_changed", emptyObject)
	return nil
}

// RemoveResources removes the resources with the given URIs; live
// sessions are sent notifications/resources/list_changed if any existed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#list-changed-notification).
// Subscriptions to them are kept: a client unsubscribes on its own.
func (s *Server) RemoveResources(uris ...string) {
	s.mu.Lock()
	removed := s.res.resources.remove(uris...)
	s.mu.Unlock()
	if removed {
		s.broadcast("notifications/resources/list_changed", emptyObject)
	}
}

// validResourceURI checks that uri is an absolute URI (RFC 3986).
func validResourceURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("mcp: invalid resource URI %q: %w", uri, err)
	}
	if u.Scheme == "" {
		return fmt.Errorf("mcp: invalid resource URI %q: not absolute (no scheme)", uri)
	}
	return nil
}

// resourcesOffered reports whether the server serves the resources
// methods: once it has had a resource or template, or when its configured
// capabilities declare resources.
func (s *Server) resourcesOffered() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.res.offered || (s.opts.Capabilities != nil && s.opts.Capabilities.Resources != nil)
}

// listResources implements resources/list.
func (s *Server) listResources(_ context.Context, r *Request) (any, error) {
	if !s.resourcesOffered() {
		return nil, errMethodNotFound(r.Method)
	}
	return serveFeatures(s, r, &s.res.resources, func(sr *serverResource) *Resource { return sr.resource }, resourcesResult)
}

// readResource implements resources/read: a static resource with that
// exact URI, else the first template (in template order) that matches it,
// else -32002.
func (s *Server) readResource(ctx context.Context, r *Request) (any, error) {
	if !s.resourcesOffered() {
		return nil, errMethodNotFound(r.Method)
	}
	var p ReadResourceParams
	if err := unmarshalParams(r.Params, &p); err != nil {
		return nil, err
	}
	r.setMeta(p.Meta)
	if err := s.checkParamURI(p.URI); err != nil {
		return nil, err
	}
	h, mimeType, vars, ok := s.findResource(p.URI)
	if !ok {
		return nil, ResourceNotFoundError(p.URI)
	}
	p.Variables = vars
	res, err := h(ctx, r, &p)
	if err != nil {
		return nil, handlerError(err)
	}
	return completeContents(res, p.URI, mimeType), nil
}

// defaultMaxResourceURIBytes is ServerOptions.MaxResourceURIBytes when
// zero.
const defaultMaxResourceURIBytes = 8 << 10

// checkParamURI refuses a missing, overlong or malformed uri param with
// -32602. The length is checked first, so that no more work than reading
// it is spent on an overlong one.
func (s *Server) checkParamURI(uri string) *jsonrpc.Error {
	if uri == "" {
		return errInvalidParams("missing uri")
	}
	limit := s.opts.MaxResourceURIBytes
	if limit == 0 {
		limit = defaultMaxResourceURIBytes
	}
	if limit > 0 && len(uri) > limit {
		return errInvalidParams(fmt.Sprintf("uri is %d bytes, over the limit of %d (ServerOptions.MaxResourceURIBytes)", len(uri), limit))
	}
	if _, err := url.Parse(uri); err != nil {
		return errInvalidParams("invalid uri: " + err.Error())
	}
	return nil
}

// findResource finds what serves uri: its handler, the MIME type declared
// for it and, for a template, the variables.
func (s *Server) findResource(uri string) (ResourceHandler, string, map[string]string, bool) {
	s.mu.RLock()
	sr, ok := s.res.resources.get(uri)
	var templates []*serverTemplate
	if !ok {
		templates = make([]*serverTemplate, 0, s.res.templates.len())
		for _, k := range s.res.templates.keys {
			templates = append(templates, s.res.templates.byKey[k])
		}
	}
	s.mu.RUnlock()
	if ok {
		return sr.handler, sr.resource.MIMEType, nil, true
	}
	// Matching runs outside the lock: templates are immutable once added.
	for _, st := range templates {
		if vars, ok := st.match(uri); ok {
			return st.handler, st.template.MIMEType, vars, true
		}
	}
	return nil, "", nil, false
}

// completeContents fills in, on copies, the URI and MIME type that a
// handler left out of its contents, and makes a nil result an empty one.
func completeContents(res *ReadResourceResult, uri, mimeType string) *ReadResourceResult {
	if res == nil {
		return &ReadResourceResult{Contents: []*ResourceContents{}}
	}
	if res.Contents == nil {
		out := *res
		out.Contents = []*ResourceContents{}
		return &out
	}
	var out *ReadResourceResult
	for i, c := range res.Contents {
		if c == nil || (c.URI != "" && (c.MIMEType != "" || mimeType == "")) {
			continue
		}
		if out == nil {
			// The handler's values may be shared between calls: never
			// write to them.
			out = &ReadResourceResult{Meta: res.Meta, Contents: slices.Clone(res.Contents)}
		}
		cp := *c
		if cp.URI == "" {
			cp.URI = uri
		}
		if cp.MIMEType == "" {
			cp.MIMEType = mimeType
		}
		out.Contents[i] = &cp
	}
	if out == nil {
		return res
	}
	return out
}

// subscription implements resources/subscribe (on) and
// resources/unsubscribe. A subscribed session is sent
// notifications/resources/updated for the URI until it unsubscribes; the
// URI must name a resource (or match a template), otherwise -32002.
// Unsubscribing from a URI the session is not subscribed to succeeds and
// changes nothing, so that a client may unsubscribe from a resource that
// is gone.
func (s *Server) subscription(on bool) MethodHandler {
	return func(ctx context.Context, r *Request) (any, error) {
		if !s.resourcesOffered() {
			return nil, errMethodNotFound(r.Method)
		}
		var p SubscribeParams
		if err := unmarshalParams(r.Params, &p); err != nil {
			return nil, err
		}
		if err := s.checkParamURI(p.URI); err != nil {
			return nil, err
		}
		if on {
			if _, _, _, ok := s.findResource(p.URI); !ok {
				return nil, ResourceNotFoundError(p.URI)
			}
		}
		ss := r.Session
		ss.mu.Lock()
		changed := editSubscriptions(&ss.state.Subscriptions, p.URI, on)
		ss.mu.Unlock()
		if changed {
			ss.update(ctx, func(st *SessionState) {
				editSubscriptions(&st.Subscriptions, p.URI, on)
			})
		}
		return emptyObject, nil
	}
}

// editSubscriptions adds uri to the sorted list *subs (on) or removes it
// from it, and reports whether the list changed.
func editSubscriptions(subs *[]string, uri string, on bool) bool {
	i, found := slices.BinarySearch(*subs, uri)
	switch {
	case on && !found:
		*subs = slices.Insert(*subs, i, uri)
	case !on && found:
		*subs = slices.Delete(*subs, i, i+1)
	default:
		return false
	}
	return true
}

// ResourceUpdated sends notifications/resources/updated to the sessions
// subscribed to uri, on their standalone streams
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions).
// With a shared SessionStore, subscriptions made on other replicas count
// (one Load per session). The error joins the sessions' send errors.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	params := &ResourceUpdatedParams{URI: uri}
	s.notifyListeners(ctx, "notifications/resources/updated", uri, params) // listen.go
	raw, err := jsonenc.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding notifications/resources/updated params: %w", err)
	}
	key := s.publishBroadcast(ctx, "notifications/resources/updated", uri, raw) // broadcast_bus.go
	return s.deliverResourceUpdated(ctx, key, uri, raw)
}

// deliverResourceUpdated sends notifications/resources/updated for uri,
// encoded as raw, to the sessions held here that subscribed to it; key is
// the broadcast's (broadcast_bus.go), "" without a Bus.
func (s *Server) deliverResourceUpdated(ctx context.Context, key, uri string, raw json.RawMessage) error {
	wctx := withSharedNotification(broadcastContext(ctx, key), "notifications/resources/updated", raw) // notify_async.go
	var errs []error
	for _, ss := range s.Sessions() {
		// With a shared store, subscriptions made through another
		// replica count too (shared_state.go).
		if ok, err := ss.refreshShared(ctx); err != nil {
			errs = append(errs, fmt.Errorf("session %q: %w", ss.ID(), err))
		} else if !ok {
			continue
		}
		ss.mu.Lock()
		_, subscribed := slices.BinarySearch(ss.state.Subscriptions, uri)
		live := ss.state.Lifecycle == stateInitialized || ss.state.Lifecycle == stateReady
		ss.mu.Unlock()
		if !subscribed || !live {
			continue
		}
		if err := ss.notifyUnrelated(wctx, "notifications/resources/updated", raw); err != nil {
			errs = append(errs, fmt.Errorf("session %q: %w", ss.ID(), err))
		}
	}
	return errors.Join(errs...)
}

// resourcesCapability is called with s.mu read-locked.
func (s *Server) resourcesCapability() *ResourcesCapability {
	if s.res.resources.len() == 0 && s.res.templates.len() == 0 {
		return nil
	}
	return &ResourcesCapability{Subscribe: true, ListChanged: true}
}
