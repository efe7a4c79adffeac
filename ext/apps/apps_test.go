package apps_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

const page = "<!DOCTYPE html><html><body>weather</body></html>"

var eras = []struct {
	name    string
	era     mcp.ProtocolEra
	version string
}{
	{"session", mcp.EraSession, "2025-11-25"},
	{"stateless", mcp.EraAuto, "2026-07-28"},
}

// connect serves s to a client over the in-memory transport in era, with
// opts (nil: none), and closes both at the end of the test.
func connect(t *testing.T, s *mcp.Server, era mcp.ProtocolEra, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ProtocolEra = era
	c := mcp.NewClient(mcp.Implementation{Name: "host", Version: "1.0.0"}, opts)
	cs, err := c.Connect(ctx, clientT)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		cancel()
	})
	return cs
}

// enc encodes v as JSON without escaping HTML, as mcp writes it.
func enc(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return err.Error()
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// weatherServer is a server with one app, a tool rendered by it, an
// app-only tool, a plain tool and a plain resource; reads counts its
// resources/read requests.
func weatherServer(t *testing.T, reads *atomic.Int32) *mcp.Server {
	t.Helper()
	count := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == "resources/read" && reads != nil {
				reads.Add(1)
			}
			return next(ctx, r)
		}
	}
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{count, apps.Degrade}})
	a, err := apps.New(s)
	if err != nil {
		t.Fatal(err)
	}
	border := true
	err = a.AddApp(&apps.App{
		URI: "ui://weather/dashboard", Name: "dashboard", Description: "Weather dashboard", HTML: page,
		Meta: &apps.ResourceMeta{
			CSP:           &apps.CSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://*.cdn.example"}},
			Permissions:   &apps.Permissions{Camera: apps.Granted},
			PrefersBorder: &border,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	weather := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return apps.Result("Sunny, 22 C", map[string]any{"temperature": 22})
	}
	if err := a.AddTool(&mcp.Tool{Name: "get_weather", Description: "Weather"}, apps.ToolMeta{ResourceURI: "ui://weather/dashboard"}, weather); err != nil {
		t.Fatal(err)
	}
	if err := a.AddTool(&mcp.Tool{Name: "refresh", Description: "Refresh"}, apps.ToolMeta{ResourceURI: "ui://weather/dashboard", Visibility: []string{apps.VisibilityApp}}, weather); err != nil {
		t.Fatal(err)
	}
	if err := a.AddTool(&mcp.Tool{Name: "plain"}, apps.ToolMeta{}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme"}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://readme", Text: "hi"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func toolsJSON(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, tool := range res.Tools {
		b, _ := json.Marshal(struct {
			Name string   `json:"name"`
			Meta mcp.Meta `json:"_meta,omitempty"`
		}{tool.Name, tool.Meta})
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ",")
}

// TestServeApp: a host with apps sees the extension declared, the tools
// with their _meta.ui, the app as a ui:// resource of mime type
// text/html;profile=mcp-app with its _meta.ui, and fetches, verifies and
// renders it, in both eras.
func TestServeApp(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			noLeaks(t)
			var reads atomic.Int32
			cs := connect(t, weatherServer(t, &reads), e.era, apps.DeclareHost(nil))
			if got := cs.ProtocolVersion(); got != e.version {
				t.Fatalf("version %s, want %s", got, e.version)
			}
			if got := string(cs.ServerCapabilities().Extensions[apps.ID]); got != `{}` {
				t.Errorf("capabilities.extensions[%s] = %s, want {}", apps.ID, got)
			}
			want := `{"name":"get_weather","_meta":{"ui":{"resourceUri":"ui://weather/dashboard"}}},` +
				`{"name":"plain"},` +
				`{"name":"refresh","_meta":{"ui":{"resourceUri":"ui://weather/dashboard","visibility":["app"]}}}`
			if got := toolsJSON(t, cs); got != want {
				t.Errorf("tools:\n got %s\nwant %s", got, want)
			}
			lr, err := cs.ListResources(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(lr.Resources)
			if want := `[{"uri":"test://readme","name":"readme"},{"uri":"ui://weather/dashboard","name":"dashboard","description":"Weather dashboard","mimeType":"text/html;profile=mcp-app"}]`; string(b) != want {
				t.Errorf("resources:\n got %s\nwant %s", b, want)
			}
			rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "ui://weather/dashboard"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rr.Contents) != 1 || rr.Contents[0].Text != page {
				t.Fatalf("contents %+v", rr.Contents)
			}
			rr.Contents[0].Text = "HTML"
			if want := `[{"uri":"ui://weather/dashboard","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example"]},"permissions":{"camera":{}},"prefersBorder":true}},"text":"HTML"}]`; enc(rr.Contents) != want {
				t.Errorf("contents:\n got %s\nwant %s", enc(rr.Contents), want)
			}
			reads.Store(0)
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var r fakeRenderer
			v, err := apps.Open(t.Context(), cs, tools.Tools[0], &r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := reads.Load(); n != 1 {
				t.Errorf("Open made %d resources/read requests, want 1", n)
			}
			if r.got != v || v.URI != "ui://weather/dashboard" || v.HTML != page || v.Tool != tools.Tools[0] || v.ToolMeta.ResourceURI != v.URI {
				t.Errorf("rendered %+v (view %+v)", r.got, v)
			}
			if want := "default-src 'none'; script-src 'self' 'unsafe-inline' https://*.cdn.example; style-src 'self' 'unsafe-inline' https://*.cdn.example; connect-src 'self' https://api.example.com; img-src 'self' data: https://*.cdn.example; font-src 'self' https://*.cdn.example; media-src 'self' data: https://*.cdn.example; frame-src 'none'; object-src 'none'; base-uri 'self'"; v.CSP() != want {
				t.Errorf("CSP:\n got %s\nwant %s", v.CSP(), want)
			}
			if v.Allow() != "camera" {
				t.Errorf("Allow = %q", v.Allow())
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_weather"})
			if err != nil {
				t.Fatal(err)
			}
			res.Meta = nil // the stateless era's serverInfo
			b, _ = json.Marshal(res)
			if want := `{"content":[{"type":"text","text":"Sunny, 22 C"}],"structuredContent":{"temperature":22}}`; string(b) != want {
				t.Errorf("call: %s", b)
			}
			// The app-only tool is callable (the host, not the server,
			// keeps it from the model).
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refresh"}); err != nil {
				t.Errorf("refresh: %v", err)
			}
		})
	}
}

type fakeRenderer struct{ got *apps.View }

func (r *fakeRenderer) Render(_ context.Context, v *apps.View) error { r.got = v; return nil }

// TestDegrade: a host without apps (no extension, or settings without
// the app mime type) sees no app-only tool, no _meta.ui, no ui://
// resource, and is refused a call of the app-only tool as unknown, in
// both eras.
func TestDegrade(t *testing.T) {
	for _, e := range eras {
		for _, c := range []struct {
			name string
			caps *mcp.ClientCapabilities
		}{
			{"none", nil},
			{"no mimeTypes", &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{apps.ID: json.RawMessage(`{}`)}}},
			{"other mimeType", &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{apps.ID: json.RawMessage(`{"mimeTypes":["text/uri-list"]}`)}}},
		} {
			t.Run(e.name+"/"+c.name, func(t *testing.T) {
				noLeaks(t)
				cs := connect(t, weatherServer(t, nil), e.era, &mcp.ClientOptions{Capabilities: c.caps})
				if got, want := toolsJSON(t, cs), `{"name":"get_weather"},{"name":"plain"}`; got != want {
					t.Errorf("tools: got %s, want %s", got, want)
				}
				lr, err := cs.ListResources(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(lr.Resources) != 1 || lr.Resources[0].URI != "test://readme" {
					b, _ := json.Marshal(lr.Resources)
					t.Errorf("resources: %s", b)
				}
				_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refresh"})
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != -32602 || je.Message != "Invalid params" || string(je.Data) != `"Unknown tool: refresh"` {
					t.Errorf("calling the app-only tool: %v", err)
				}
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_weather"})
				if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Sunny, 22 C" {
					t.Errorf("get_weather: %v %+v", err, res)
				}
			})
		}
	}
}

// TestHostSupports: only settings listing the app mime type count; the
// comparison is that of media types.
func TestHostSupports(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"mimeTypes":["text/html;profile=mcp-app"]}`:                  true,
		`{"mimeTypes":["text/uri-list","TEXT/HTML; profile=mcp-app"]}`: true,
		`{"mimeTypes":["text/html"]}`:                                  false,
		`{"mimeTypes":["text/html;profile=other"]}`:                    false,
		`{}`: false,
		`{"mimeTypes":"text/html;profile=mcp-app"}`: false,
	} {
		caps := &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{apps.ID: json.RawMessage(raw)}}
		if got := apps.HostSupports(caps); got != want {
			t.Errorf("HostSupports(%s) = %v, want %v", raw, got, want)
		}
	}
	if apps.HostSupports(nil) || apps.HostSupports(&mcp.ClientCapabilities{}) {
		t.Error("HostSupports without the extension is true")
	}
}

// TestDeclareHost: DeclareHost adds the extension to ClientOptions.Extensions,
// so that the client declares it beside the capabilities it infers from
// its handlers and the other extensions, in both eras (the server sees
// them in Request.ClientCapabilities); the caller's map is not changed.
func TestDeclareHost(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			noLeaks(t)
			s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
			err := s.AddTool(&mcp.Tool{Name: "caps"}, func(_ context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
				b, err := json.Marshal(r.ClientCapabilities)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, err
			})
			if err != nil {
				t.Fatal(err)
			}
			mine := map[string]any{"x.y/z": nil}
			opts := apps.DeclareHost(&mcp.ClientOptions{
				Extensions: mine,
				CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
					return nil, errors.New("unused")
				},
			})
			if len(mine) != 1 {
				t.Errorf("the caller's Extensions changed: %v", mine)
			}
			cs := connect(t, s, e.era, opts)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "caps"})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"sampling":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]},"x.y/z":{}}}`
			if got := res.Content[0].(*mcp.TextContent).Text; got != want {
				t.Errorf("the server sees\n %s\nwant %s", got, want)
			}
		})
	}
	if opts := apps.DeclareHost(nil); len(opts.Extensions) != 1 || opts.Extensions[apps.ID] == nil {
		t.Errorf("DeclareHost(nil): %+v", opts)
	}
}

// TestAddAppRefuses: a URI that is not ui://, no name, HTML that is not
// an HTML5 document, and CSP entries that are not origins are refused,
// with nothing added.
func TestAddAppRefuses(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	a, err := apps.New(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apps.New(s); err == nil || err.Error() != "apps: mcp: extension io.modelcontextprotocol/ui was added already" {
		t.Errorf("New twice: %v", err)
	}
	for _, c := range []struct {
		app  apps.App
		want string
	}{
		{apps.App{URI: "https://x/app", Name: "a", HTML: page}, `apps: UI resource URI "https://x/app" does not start with ui://`},
		{apps.App{URI: "ui://", Name: "a", HTML: page}, `apps: UI resource URI "ui://" does not start with ui://`},
		{apps.App{URI: "ui://x", HTML: page}, `apps: app ui://x has no name`},
		{apps.App{URI: "ui://x", Name: "a", HTML: "<html></html>"}, `apps: app ui://x: the HTML is not an HTML5 document: it does not start with <!DOCTYPE html>`},
		{apps.App{URI: "ui://x", Name: "a", HTML: "<!DOCTYPE htmlx>"}, `apps: app ui://x: the HTML is not an HTML5 document: its doctype is not <!DOCTYPE html>`},
		{apps.App{URI: "ui://x", Name: "a", HTML: "<!DOCTYPE html>\xff"}, `apps: app ui://x: the HTML is not valid UTF-8`},
		{apps.App{URI: "ui://x", Name: "a", HTML: page, Meta: &apps.ResourceMeta{CSP: &apps.CSP{ConnectDomains: []string{"https://a.example; script-src *"}}}}, `apps: app ui://x: csp.connectDomains: origin "https://a.example; script-src *" is empty or has white space, a quote, a semicolon, a comma or a control character`},
		{apps.App{URI: "ui://x", Name: "a", HTML: page, Meta: &apps.ResourceMeta{CSP: &apps.CSP{FrameDomains: []string{"'unsafe-eval'"}}}}, `apps: app ui://x: csp.frameDomains: origin "'unsafe-eval'" is empty or has white space, a quote, a semicolon, a comma or a control character`},
		{apps.App{URI: "ui://x", Name: "a", HTML: page, Meta: &apps.ResourceMeta{CSP: &apps.CSP{ResourceDomains: []string{"javascript:alert(1)"}}}}, `apps: app ui://x: csp.resourceDomains: origin "javascript:alert(1)": scheme "javascript" is not http, https, ws or wss`},
		{apps.App{URI: "ui://x", Name: "a", HTML: page, Meta: &apps.ResourceMeta{CSP: &apps.CSP{BaseURIDomains: []string{"*"}}}}, `apps: app ui://x: csp.baseUriDomains: origin "*": scheme "" is not http, https, ws or wss`},
		{apps.App{URI: "ui://x", Name: "a", HTML: page, Meta: &apps.ResourceMeta{CSP: &apps.CSP{ConnectDomains: []string{"https://a.*.example"}}}}, `apps: app ui://x: csp.connectDomains: origin "https://a.*.example" is not scheme://host[:port][/path]`},
		{apps.App{URI: "ui://x", Name: "a", HTML: page, Meta: &apps.ResourceMeta{Domain: "a.example; x"}}, `apps: app ui://x: domain "a.example; x" has white space, a quote, a semicolon, a comma or a control character`},
	} {
		if err := a.AddApp(&c.app); err == nil || err.Error() != c.want {
			t.Errorf("AddApp(%+v):\n got %v\nwant %s", c.app, err, c.want)
		}
	}
	for _, ok := range []string{"<!doctype HTML>", "\uFEFF \n<!DOCTYPE html >x", "<!DOCTYPE\thtml>"} {
		if err := a.AddApp(&apps.App{URI: "ui://ok" + string(rune('a'+len(ok))), Name: "ok", HTML: ok}); err != nil {
			t.Errorf("AddApp(%q): %v", ok, err)
		}
	}
	// A tool may only point at an app of this server, with known
	// visibility values.
	if err := a.Link(&mcp.Tool{Name: "t"}, apps.ToolMeta{ResourceURI: "ui://missing"}); err == nil || err.Error() != "apps: tool t: its UI resource ui://missing is not an app of this server (add it with AddApp first)" {
		t.Errorf("Link to a missing app: %v", err)
	}
	if err := a.Link(&mcp.Tool{Name: "t"}, apps.ToolMeta{Visibility: []string{"user"}}); err == nil || err.Error() != `apps: tool t: apps: visibility "user" is neither "model" nor "app"` {
		t.Errorf("Link with bad visibility: %v", err)
	}
	if err := a.Link(&mcp.Tool{Name: "t"}, apps.ToolMeta{ResourceURI: "https://x"}); err == nil || err.Error() != `apps: tool t: apps: UI resource URI "https://x" does not start with ui://` {
		t.Errorf("Link with a non-ui URI: %v", err)
	}
	tool := &mcp.Tool{Name: "t", Meta: mcp.Meta{"ui/resourceUri": json.RawMessage(`"ui://old"`), "k": json.RawMessage(`1`)}}
	if err := a.AddApp(&apps.App{URI: "ui://linked", Name: "linked", HTML: page}); err != nil {
		t.Fatal(err)
	}
	if err := a.Link(tool, apps.ToolMeta{ResourceURI: "ui://linked"}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tool.Meta)
	if want := `{"k":1,"ui":{"resourceUri":"ui://linked"}}`; string(b) != want {
		t.Errorf("Link: meta %s, want %s", b, want)
	}
}

// TestToolWithoutContent: a UI tool's result without content becomes a
// tool error, in both eras; Result refuses empty text and non-object
// structured content.
func TestToolWithoutContent(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			noLeaks(t)
			s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
			a, _ := apps.New(s)
			if err := a.AddApp(&apps.App{URI: "ui://a", Name: "a", HTML: page}); err != nil {
				t.Fatal(err)
			}
			err := a.AddTool(&mcp.Tool{Name: "empty"}, apps.ToolMeta{ResourceURI: "ui://a"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"a":1}`)}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			cs := connect(t, s, e.era, apps.DeclareHost(nil))
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "empty"})
			if err != nil {
				t.Fatal(err)
			}
			res.Meta = nil // the stateless era's serverInfo
			b, _ := json.Marshal(res)
			if want := `{"content":[{"type":"text","text":"tool empty returned no content: a tool with a UI must also return content for the model and for hosts without apps"}],"isError":true}`; string(b) != want {
				t.Errorf("got %s", b)
			}
		})
	}
	if _, err := apps.Result("", nil); err == nil {
		t.Error("Result with no text succeeded")
	}
	if _, err := apps.Result("x", []int{1}); err == nil || err.Error() != "apps: Result: structured content encodes to [1], not a JSON object" {
		t.Errorf("Result with an array: %v", err)
	}
}
