package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// An App is a UI resource a server serves: an HTML5 document at a ui://
// URI with the policy it asks the host for (the spec's "UI Resource
// Format").
type App struct {
	// URI is the resource's ui:// URI, such as "ui://weather/dashboard".
	URI string
	// Name, Title and Description describe it in resources/list.
	Name        string
	Title       string
	Description string
	// HTML is the app: an HTML5 document, starting with <!DOCTYPE html>.
	HTML string
	// Meta is the CSP, permissions, domain and border preference, sent as
	// _meta.ui of the resources/read content (and of the resources/list
	// entry when ListMeta is set). Nil sends none: the host then applies
	// the spec's restrictive defaults.
	Meta *ResourceMeta
	// ListMeta also puts Meta on the resources/list entry, so that a host
	// can review the app's policy at connection time without reading it
	// (the draft's "Metadata Location").
	ListMeta bool
}

// A Server adds MCP Apps to an mcp.Server: it declares the extension,
// serves apps as ui:// resources and links tools to them. Make one with
// New.
type Server struct {
	s    *mcp.Server
	mu   sync.Mutex
	apps map[string]*App
}

// New declares the extension on s (capabilities.extensions[ID] = {}, in
// both eras) and returns the Server that adds apps and their tools to s.
// To degrade for hosts without apps, s must also run Degrade in its
// ServerOptions.Middleware.
func New(s *mcp.Server) (*Server, error) {
	if err := s.AddExtension(mcp.Extension{ID: ID}); err != nil {
		return nil, fmt.Errorf("apps: %w", err)
	}
	return &Server{s: s, apps: map[string]*App{}}, nil
}

// AddApp serves app as a resource, read with resources/read as one
// content item of mime type MIMEType. It fails, adding nothing, when the
// URI is not a ui:// URI, the name is empty, the HTML is not an HTML5
// document (UTF-8 starting with <!DOCTYPE html>), or Meta has a CSP entry
// that is not an origin.
func (a *Server) AddApp(app *App) error {
	if app == nil {
		return errors.New("apps: AddApp: nil app")
	}
	if err := checkUIURI(app.URI); err != nil {
		return err
	}
	if app.Name == "" {
		return fmt.Errorf("apps: app %s has no name", app.URI)
	}
	if err := checkHTML(app.HTML); err != nil {
		return fmt.Errorf("apps: app %s: %w", app.URI, err)
	}
	var meta mcp.Meta
	if app.Meta != nil {
		if err := app.Meta.Check(); err != nil {
			return fmt.Errorf("apps: app %s: %w", app.URI, err)
		}
		b, err := json.Marshal(app.Meta)
		if err != nil {
			return fmt.Errorf("apps: app %s: encoding its meta: %w", app.URI, err)
		}
		meta = mcp.Meta{"ui": b}
	}
	r := &mcp.Resource{URI: app.URI, Name: app.Name, Title: app.Title, Description: app.Description, MIMEType: MIMEType}
	if app.ListMeta {
		r.Meta = meta
	}
	uri, html := app.URI, app.HTML
	err := a.s.AddResource(r, func(_ context.Context, _ *mcp.Request, _ *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: MIMEType, Text: html, Meta: meta}}}, nil
	})
	if err != nil {
		return fmt.Errorf("apps: app %s: %w", app.URI, err)
	}
	a.mu.Lock()
	a.apps[app.URI] = app
	a.mu.Unlock()
	return nil
}

// Link sets t's _meta.ui to meta (a zero meta sets nothing), after checking that meta.ResourceURI
// names an app added with AddApp and that Visibility holds only
// VisibilityModel and VisibilityApp. Use it before mcp.AddTool for a
// typed tool; AddTool does both for a ToolHandler.
func (a *Server) Link(t *mcp.Tool, meta ToolMeta) error {
	if err := meta.Check(); err != nil {
		return fmt.Errorf("apps: tool %s: %w", t.Name, err)
	}
	if meta.ResourceURI != "" {
		a.mu.Lock()
		_, ok := a.apps[meta.ResourceURI]
		a.mu.Unlock()
		if !ok {
			return fmt.Errorf("apps: tool %s: its UI resource %s is not an app of this server (add it with AddApp first)", t.Name, meta.ResourceURI)
		}
	}
	if meta.ResourceURI == "" && meta.Visibility == nil {
		return nil // no UI: the tool is left as it is
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("apps: tool %s: %w", t.Name, err)
	}
	m := maps.Clone(t.Meta)
	if m == nil {
		m = mcp.Meta{}
	}
	m["ui"] = b
	delete(m, DeprecatedResourceURIKey)
	t.Meta = m
	return nil
}

// AddTool links t to its app (Link) and adds it to the server with h. A
// result h returns with no content is replaced by a tool error naming the
// tool: a tool with a UI still owes text-only hosts and the model a
// meaningful content array (the spec's "Graceful Degradation").
func (a *Server) AddTool(t *mcp.Tool, meta ToolMeta, h mcp.ToolHandler) error {
	if err := a.Link(t, meta); err != nil {
		return err
	}
	name := t.Name
	return a.s.AddTool(t, func(ctx context.Context, req *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req, args)
		if err == nil && res != nil && len(res.Content) == 0 {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "tool " + name + " returned no content: a tool with a UI must also return content for the model and for hosts without apps"}}}, nil
		}
		return res, err
	})
}

// HostSupports reports whether caps declare the extension with MIMEType
// among its mimeTypes (the spec's "Client (Host) Capabilities"): whether
// the host renders HTML apps. Settings without mimeTypes, which the spec
// requires, do not count. A handler reads it from req.ClientCapabilities,
// in either era.
func HostSupports(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	raw, ok := caps.Extensions[ID]
	if !ok {
		return false
	}
	var st Settings
	if json.Unmarshal(raw, &st) != nil {
		return false
	}
	return slices.ContainsFunc(st.MIMETypes, isAppMIMEType)
}

// Degrade is a server middleware that serves hosts without apps (see
// HostSupports) as if the server had none: tools/list drops the tools
// only apps may call (visibility without "model") and the _meta.ui of
// the others, resources/list drops the ui:// resources, and tools/call of
// an app-only tool is refused as an unknown tool (-32602). Hosts with
// apps see everything. Put it in ServerOptions.Middleware.
func Degrade(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, req *mcp.Request) (any, error) {
		if HostSupports(req.ClientCapabilities) {
			return next(ctx, req)
		}
		switch req.Method {
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(req.Params, &p) == nil && p.Name != "" && appOnlyTool(ctx, req, next, p.Name) {
				return nil, unknownTool(p.Name)
			}
			return next(ctx, req)
		case "tools/list":
			res, err := next(ctx, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return degradeTools(r), nil
			}
			return res, err
		case "resources/list":
			res, err := next(ctx, req)
			if r, ok := res.(*mcp.ListResourcesResult); ok && err == nil {
				return degradeResources(r), nil
			}
			return res, err
		}
		return next(ctx, req)
	}
}

// appOnlyTool reports whether the tool named name is listed with a
// visibility that excludes the model, by walking tools/list through next
// (the server's own handler, so the walk costs no round trip).
func appOnlyTool(ctx context.Context, req *mcp.Request, next mcp.MethodHandler, name string) bool {
	cursor := ""
	for range maxListPages {
		r2 := *req
		r2.Method = "tools/list"
		r2.Params, _ = json.Marshal(map[string]string{"cursor": cursor})
		if cursor == "" {
			r2.Params = json.RawMessage(`{}`)
		}
		res, err := next(ctx, &r2)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok {
			return false
		}
		for _, t := range lr.Tools {
			if t.Name == name {
				m, err := ToolUI(t)
				return err == nil && m != nil && !slices.Contains(m.visibility(), VisibilityModel)
			}
		}
		if lr.NextCursor == "" {
			return false
		}
		cursor = lr.NextCursor
	}
	return false
}

// maxListPages bounds the pages Degrade reads to find one tool.
const maxListPages = 1000

func unknownTool(name string) error {
	// As mcp answers a tools/call of a tool it does not have.
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", "Unknown tool: "+name)
}

func degradeTools(r *mcp.ListToolsResult) *mcp.ListToolsResult {
	out := &mcp.ListToolsResult{Meta: r.Meta, NextCursor: r.NextCursor, Tools: make([]*mcp.Tool, 0, len(r.Tools))}
	for _, t := range r.Tools {
		_, has := t.Meta["ui"]
		_, old := t.Meta[DeprecatedResourceURIKey]
		if !has && !old {
			out.Tools = append(out.Tools, t)
			continue
		}
		if m, err := ToolUI(t); err == nil && m != nil && !slices.Contains(m.visibility(), VisibilityModel) {
			continue
		}
		t2 := *t
		t2.Meta = maps.Clone(t.Meta)
		delete(t2.Meta, "ui")
		delete(t2.Meta, DeprecatedResourceURIKey)
		if len(t2.Meta) == 0 {
			t2.Meta = nil
		}
		out.Tools = append(out.Tools, &t2)
	}
	return out
}

func degradeResources(r *mcp.ListResourcesResult) *mcp.ListResourcesResult {
	out := &mcp.ListResourcesResult{Meta: r.Meta, NextCursor: r.NextCursor, Resources: make([]*mcp.Resource, 0, len(r.Resources))}
	for _, res := range r.Resources {
		if !strings.HasPrefix(res.URI, Scheme) {
			out.Resources = append(out.Resources, res)
		}
	}
	return out
}

// Result is a tool result for a tool with a UI: text for the model and
// for hosts without apps, and structured for the app (sent as
// structuredContent when it encodes to an object). text must not be
// empty: the content array must be meaningful even when the UI is
// available (the spec's "Graceful Degradation").
func Result(text string, structured any) (*mcp.CallToolResult, error) {
	if text == "" {
		return nil, errors.New("apps: Result: a tool with a UI needs text content for the model and for hosts without apps")
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if structured != nil {
		b, err := json.Marshal(structured)
		if err != nil {
			return nil, fmt.Errorf("apps: Result: encoding structured content: %w", err)
		}
		if len(b) == 0 || b[0] != '{' {
			return nil, fmt.Errorf("apps: Result: structured content encodes to %.40s, not a JSON object", b)
		}
		res.StructuredContent = b
	}
	return res, nil
}

// isAppMIMEType reports whether s is MIMEType: text/html with the
// parameter profile=mcp-app, compared as media types (case-insensitive
// type and parameter name, optional spaces).
func isAppMIMEType(s string) bool {
	mt, params, err := mime.ParseMediaType(s)
	return err == nil && mt == "text/html" && len(params) == 1 && params["profile"] == "mcp-app"
}

// checkUIURI checks that uri is a ui:// URI with something after the
// scheme.
func checkUIURI(uri string) error {
	if !strings.HasPrefix(uri, Scheme) || len(uri) == len(Scheme) {
		return fmt.Errorf("apps: UI resource URI %q does not start with %s", uri, Scheme)
	}
	return nil
}

// checkHTML checks that s is an HTML5 document: valid UTF-8 whose first
// markup, after an optional byte order mark and white space, is the
// <!DOCTYPE html> doctype (ASCII case-insensitive).
func checkHTML(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("the HTML is not valid UTF-8")
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.TrimLeft(s, " \t\r\n\f")
	const doctype = "<!doctype"
	if len(s) < len(doctype) || !strings.EqualFold(s[:len(doctype)], doctype) {
		return errors.New("the HTML is not an HTML5 document: it does not start with <!DOCTYPE html>")
	}
	rest := strings.TrimLeft(s[len(doctype):], " \t\r\n\f")
	if len(rest) < 4 || !strings.EqualFold(rest[:4], "html") || len(rest) > 4 && !strings.ContainsRune(" \t\r\n\f>", rune(rest[4])) {
		return errors.New("the HTML is not an HTML5 document: its doctype is not <!DOCTYPE html>")
	}
	return nil
}
