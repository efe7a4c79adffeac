package apps

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
)

// DeclareHost makes opts (nil: new options) declare a host that renders
// apps (the spec's "Client (Host) Capabilities"): it sets
// opts.Extensions[ID] to Settings with mimeTypes [MIMEType], which
// mcp.Client adds to the capabilities it declares in both eras, keeping
// those it infers from opts's handlers or takes from opts.Capabilities.
// opts.Extensions is copied, not changed in place. It returns opts.
func DeclareHost(opts *mcp.ClientOptions) *mcp.ClientOptions {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	ext := maps.Clone(opts.Extensions)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[ID] = Settings{MIMETypes: []string{MIMEType}}
	opts.Extensions = ext
	return opts
}

// ToolUI returns t's _meta.ui, or nil when t has no UI. A tool without
// _meta.ui.resourceUri but with the deprecated flat _meta["ui/resourceUri"]
// gets that URI. It fails when _meta.ui is not a ToolMeta, the URI is not
// a ui:// URI, or visibility holds anything but "model" and "app".
func ToolUI(t *mcp.Tool) (*ToolMeta, error) {
	raw, has := t.Meta["ui"]
	old, hasOld := t.Meta[DeprecatedResourceURIKey]
	if !has && !hasOld {
		return nil, nil
	}
	var m ToolMeta
	if has {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("apps: tool %s: _meta.ui: %w", t.Name, err)
		}
	}
	if m.ResourceURI == "" && hasOld {
		if err := json.Unmarshal(old, &m.ResourceURI); err != nil {
			return nil, fmt.Errorf("apps: tool %s: _meta[%q]: %w", t.Name, DeprecatedResourceURIKey, err)
		}
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("apps: tool %s: %w", t.Name, err)
	}
	return &m, nil
}

// Check checks m: ResourceURI, if set, is a ui:// URI and Visibility
// holds only VisibilityModel and VisibilityApp.
func (m *ToolMeta) Check() error {
	if m.ResourceURI != "" {
		if err := checkUIURI(m.ResourceURI); err != nil {
			return err
		}
	}
	for _, v := range m.Visibility {
		if v != VisibilityModel && v != VisibilityApp {
			return fmt.Errorf("apps: visibility %q is neither %q nor %q", v, VisibilityModel, VisibilityApp)
		}
	}
	return nil
}

// visibility is m's visibility with the default, both, when unset.
func (m *ToolMeta) visibility() []string {
	if m == nil || m.Visibility == nil {
		return []string{VisibilityModel, VisibilityApp}
	}
	return m.Visibility
}

// ModelTools returns the tools a host may show its model: those whose
// visibility includes "model" (the default). A tool whose _meta.ui is
// malformed is left out too (the spec's "Visibility": a host must not
// list for the agent a tool its visibility keeps from the model).
func ModelTools(tools []*mcp.Tool) []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range tools {
		m, err := ToolUI(t)
		if err == nil && slices.Contains(m.visibility(), VisibilityModel) {
			out = append(out, t)
		}
	}
	return out
}

// ErrNotForApps is the error CheckAppCall wraps when an app may not call
// a tool.
var ErrNotForApps = errors.New("apps: the tool is not callable by apps")

// CheckAppCall is the check a host makes before forwarding an app's
// tools/call to the server: the tool, as the app's own server listed it,
// must include "app" in its visibility (the default includes it). The
// error wraps ErrNotForApps; the host answers the app with it rather than
// calling the server (the spec's "Visibility"). A tool of another server
// must never be passed here.
func CheckAppCall(t *mcp.Tool) error {
	m, err := ToolUI(t)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotForApps, t.Name, err)
	}
	if !slices.Contains(m.visibility(), VisibilityApp) {
		return fmt.Errorf("%w: %s has visibility %q", ErrNotForApps, t.Name, m.Visibility)
	}
	return nil
}

// Check checks m's CSP entries (see CheckOrigin) and Domain (no white
// space, quotes, semicolons or control characters).
func (m *ResourceMeta) Check() error {
	if m.CSP != nil {
		for _, l := range []struct {
			name string
			list []string
		}{
			{"connectDomains", m.CSP.ConnectDomains},
			{"resourceDomains", m.CSP.ResourceDomains},
			{"frameDomains", m.CSP.FrameDomains},
			{"baseUriDomains", m.CSP.BaseURIDomains},
		} {
			for _, o := range l.list {
				if err := CheckOrigin(o); err != nil {
					return fmt.Errorf("csp.%s: %w", l.name, err)
				}
			}
		}
	}
	if strings.ContainsFunc(m.Domain, badCSPRune) {
		return fmt.Errorf("domain %q has white space, a quote, a semicolon, a comma or a control character", m.Domain)
	}
	return nil
}

// CheckOrigin checks one entry of a CSP domain list: an http, https, ws
// or wss URL with a host, whose host may start with the "*." wildcard,
// with an optional port and path, and no user, query or fragment. White
// space, quotes, semicolons and commas, which would add CSP directives or
// sources, are refused.
func CheckOrigin(o string) error {
	if o == "" || strings.ContainsFunc(o, badCSPRune) {
		return fmt.Errorf("origin %q is empty or has white space, a quote, a semicolon, a comma or a control character", o)
	}
	u, err := url.Parse(strings.Replace(o, "://*.", "://wildcard.", 1))
	if err != nil {
		return fmt.Errorf("origin %q: %w", o, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("origin %q: scheme %q is not http, https, ws or wss", o, u.Scheme)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.Contains(u.Host, "*") {
		return fmt.Errorf("origin %q is not scheme://host[:port][/path]", o)
	}
	return nil
}

func badCSPRune(r rune) bool {
	return r <= ' ' || r == 0x7f || r == ';' || r == ',' || r == '\'' || r == '"' || r == '`'
}

// DefaultMaxHTMLBytes is FetchOptions.MaxHTMLBytes when zero: 5 MiB.
const DefaultMaxHTMLBytes = 5 << 20

// FetchOptions configures Fetch. The zero value is useful.
type FetchOptions struct {
	// MaxHTMLBytes bounds the app's HTML, after base64 decoding; a larger
	// app is refused. If zero, DefaultMaxHTMLBytes.
	MaxHTMLBytes int
	// Listing is the resource's resources/list entry, if the host has it:
	// its _meta.ui applies when the content item has none. If nil, Fetch
	// walks resources/list for it when the content item has no _meta.ui.
	Listing *mcp.Resource
	// MaxListPages bounds that walk. If zero, 100.
	MaxListPages int
}

// A View is an app fetched and verified by a host, ready for a renderer:
// its HTML and the policy that applies to it.
type View struct {
	// URI is the app's ui:// URI.
	URI string
	// HTML is the app's document, decoded from text or base64 blob.
	HTML string
	// Meta is the _meta.ui that applies: the content item's, else the
	// listing entry's, else nil (the restrictive defaults).
	Meta *ResourceMeta
	// Tool and ToolMeta are the tool the view renders results of, when
	// fetched with FetchForTool.
	Tool     *mcp.Tool
	ToolMeta *ToolMeta
}

// A Renderer displays a View: in a sandboxed iframe behind a sandbox
// proxy, speaking the View-host protocol (ui/initialize, the tool-input
// and tool-result notifications). mcpkit's inspector provides one; this
// package only fetches and verifies what it renders.
type Renderer interface {
	Render(ctx context.Context, v *View) error
}

// Fetch reads the app at uri with resources/read (the spec's "Resource
// Discovery": a host must fetch with resources/read) and verifies it: a
// content item for uri with mime type MIMEType, its text or base64 blob
// an HTML5 document of at most MaxHTMLBytes, and its _meta.ui (else the
// listing entry's) a ResourceMeta whose CSP lists only origins.
func Fetch(ctx context.Context, cs *mcp.ClientSession, uri string, opts *FetchOptions) (*View, error) {
	var o FetchOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxHTMLBytes == 0 {
		o.MaxHTMLBytes = DefaultMaxHTMLBytes
	}
	if o.MaxListPages == 0 {
		o.MaxListPages = 100
	}
	if err := checkUIURI(uri); err != nil {
		return nil, err
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("apps: reading %s: %w", uri, err)
	}
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && rc.URI == uri {
			c = rc
			break
		}
	}
	if c == nil {
		return nil, fmt.Errorf("apps: %s: resources/read returned no content for the URI", uri)
	}
	if !isAppMIMEType(c.MIMEType) {
		return nil, fmt.Errorf("apps: %s: mime type %q is not %s", uri, c.MIMEType, MIMEType)
	}
	html := c.Text
	if c.Blob != "" {
		if base64.StdEncoding.DecodedLen(len(c.Blob)) > o.MaxHTMLBytes+2 {
			return nil, fmt.Errorf("apps: %s: the app is larger than %d bytes", uri, o.MaxHTMLBytes)
		}
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			return nil, fmt.Errorf("apps: %s: the blob is not base64: %w", uri, err)
		}
		html = string(b)
	}
	if len(html) > o.MaxHTMLBytes {
		return nil, fmt.Errorf("apps: %s: the app is larger than %d bytes", uri, o.MaxHTMLBytes)
	}
	if err := checkHTML(html); err != nil {
		return nil, fmt.Errorf("apps: %s: %w", uri, err)
	}
	v := &View{URI: uri, HTML: html}
	raw, ok := c.Meta["ui"]
	if !ok {
		listing := o.Listing
		if listing == nil {
			if listing, err = findListing(ctx, cs, uri, o.MaxListPages); err != nil {
				return nil, err
			}
		}
		if listing != nil {
			raw, ok = listing.Meta["ui"]
		}
	}
	if ok {
		var m ResourceMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("apps: %s: _meta.ui: %w", uri, err)
		}
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("apps: %s: _meta.ui: %w", uri, err)
		}
		v.Meta = &m
	}
	return v, nil
}

// findListing walks resources/list, at most maxPages pages, for uri's
// entry; nil when the server does not list it (it may omit UI-only
// resources).
func findListing(ctx context.Context, cs *mcp.ClientSession, uri string, maxPages int) (*mcp.Resource, error) {
	cursor := ""
	for range maxPages {
		res, err := cs.ListResources(ctx, &mcp.PaginatedParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("apps: %s: listing resources for its _meta.ui: %w", uri, err)
		}
		for _, r := range res.Resources {
			if r != nil && r.URI == uri {
				return r, nil
			}
		}
		if res.NextCursor == "" {
			return nil, nil
		}
		cursor = res.NextCursor
	}
	return nil, nil
}

// FetchForTool fetches (Fetch) the app that renders t's results. It
// fails when t has no UI.
func FetchForTool(ctx context.Context, cs *mcp.ClientSession, t *mcp.Tool, opts *FetchOptions) (*View, error) {
	m, err := ToolUI(t)
	if err != nil {
		return nil, err
	}
	if m == nil || m.ResourceURI == "" {
		return nil, fmt.Errorf("apps: tool %s has no UI resource", t.Name)
	}
	v, err := Fetch(ctx, cs, m.ResourceURI, opts)
	if err != nil {
		return nil, err
	}
	v.Tool, v.ToolMeta = t, m
	return v, nil
}

// Open fetches t's app (FetchForTool) and hands it to r.
func Open(ctx context.Context, cs *mcp.ClientSession, t *mcp.Tool, r Renderer, opts *FetchOptions) (*View, error) {
	v, err := FetchForTool(ctx, cs, t, opts)
	if err != nil {
		return nil, err
	}
	if err := r.Render(ctx, v); err != nil {
		return v, fmt.Errorf("apps: rendering %s: %w", v.URI, err)
	}
	return v, nil
}

// DefaultCSP is the policy for an app that declares no csp (the spec's
// "Restrictive Default", with the draft's object-src 'none').
const DefaultCSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; object-src 'none'; connect-src 'none'"

// CSP returns the Content-Security-Policy the view must be loaded with:
// DefaultCSP when it declares no csp, otherwise the spec's construction
// from the declared origins alone ("Content Security Policy
// Enforcement"): nothing undeclared is allowed.
func (v *View) CSP() string {
	if v.Meta == nil || v.Meta.CSP == nil {
		return DefaultCSP
	}
	c := v.Meta.CSP
	src := func(fixed string, list []string, empty string) string {
		parts := []string{}
		if fixed != "" {
			parts = append(parts, fixed)
		}
		parts = append(parts, list...)
		if len(parts) == 0 {
			return empty
		}
		return strings.Join(parts, " ")
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + src("'self' 'unsafe-inline'", c.ResourceDomains, ""),
		"style-src " + src("'self' 'unsafe-inline'", c.ResourceDomains, ""),
		"connect-src " + src("'self'", c.ConnectDomains, ""),
		"img-src " + src("'self' data:", c.ResourceDomains, ""),
		"font-src " + src("'self'", c.ResourceDomains, ""),
		"media-src " + src("'self' data:", c.ResourceDomains, ""),
		"frame-src " + src("", c.FrameDomains, "'none'"),
		"object-src 'none'",
		"base-uri " + src("", c.BaseURIDomains, "'self'"),
	}, "; ")
}

// Allow returns the iframe allow attribute for the permissions the view
// asks for: camera, microphone, geolocation, clipboard-write, separated
// by "; ". A host may grant fewer.
func (v *View) Allow() string {
	if v.Meta == nil || v.Meta.Permissions == nil {
		return ""
	}
	p := v.Meta.Permissions
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera != nil, "camera"}, {p.Microphone != nil, "microphone"}, {p.Geolocation != nil, "geolocation"}, {p.ClipboardWrite != nil, "clipboard-write"}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return strings.Join(out, "; ")
}

// SandboxResourceReady returns the params of
// ui/notifications/sandbox-resource-ready that hand the view to a
// sandbox proxy.
func (v *View) SandboxResourceReady() *SandboxResourceReadyParams {
	p := &SandboxResourceReadyParams{HTML: v.HTML}
	if v.Meta != nil {
		p.CSP, p.Permissions = v.Meta.CSP, v.Meta.Permissions
	}
	return p
}

// SandboxForwards reports whether a sandbox proxy forwards a message of
// method between host and view: every method but those starting with
// SandboxMethodPrefix (the spec's "Sandbox proxy", item 6).
func SandboxForwards(method string) bool { return !strings.HasPrefix(method, SandboxMethodPrefix) }

// ServerMethod reports whether a host may forward a view's message of
// method to the MCP server: none starting with "ui/", which are the
// host's own (the spec's "Sandbox proxy", item 8).
func ServerMethod(method string) bool { return !strings.HasPrefix(method, "ui/") }

// DisplayMode answers ui/request-display-mode: requested when the host
// offers it (hostModes) and the view declared it (appModes, when the view
// declared any), current otherwise (the spec's "Display Modes": a host
// must not switch a view to a mode it did not declare, and returns the
// resulting mode).
func DisplayMode(requested, current string, hostModes, appModes []string) string {
	if !slices.Contains(hostModes, requested) || appModes != nil && !slices.Contains(appModes, requested) {
		return current
	}
	return requested
}
