package apps_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
)

// rawServer serves one resource at uri whose listing entry carries
// listMeta and whose contents are contents, as any server might: the
// host-side checks must not rely on mcpkit's own server helpers.
func rawServer(t *testing.T, uri string, listMeta mcp.Meta, contents ...*mcp.ResourceContents) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "raw", Version: "1"}, nil)
	err := s.AddResource(&mcp.Resource{URI: uri, Name: "app", Meta: listMeta}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: contents}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func uiMeta(s string) mcp.Meta { return mcp.Meta{"ui": json.RawMessage(s)} }

// TestFetchRefuses: the host refuses an app whose content is not for the
// URI, whose mime type is not the app's, whose HTML is not an HTML5
// document or too large, whose blob is not base64, and whose CSP lists
// something that is not an origin, in both eras.
func TestFetchRefuses(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct {
				name     string
				contents []*mcp.ResourceContents
				opts     *apps.FetchOptions
				want     string
			}{
				{"other uri", []*mcp.ResourceContents{{URI: "ui://b", MIMEType: apps.MIMEType, Text: page}}, nil, "apps: ui://a: resources/read returned no content for the URI"},
				{"plain html", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: "text/html", Text: page}}, nil, `apps: ui://a: mime type "text/html" is not text/html;profile=mcp-app`},
				{"no mime type", []*mcp.ResourceContents{{URI: "ui://a", Text: page}}, nil, `apps: ui://a: mime type "" is not text/html;profile=mcp-app`},
				{"not html5", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: apps.MIMEType, Text: "hello"}}, nil, "apps: ui://a: the HTML is not an HTML5 document: it does not start with <!DOCTYPE html>"},
				{"too large", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: apps.MIMEType, Text: page}}, &apps.FetchOptions{MaxHTMLBytes: 10}, "apps: ui://a: the app is larger than 10 bytes"},
				{"blob too large", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: apps.MIMEType, BlobData: []byte(page)}}, &apps.FetchOptions{MaxHTMLBytes: 10}, "apps: ui://a: the app is larger than 10 bytes"},
				{"bad blob", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: apps.MIMEType, Blob: "!!!!"}}, nil, "apps: ui://a: the blob is not base64: illegal base64 data at input byte 0"},
				{"csp injection", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: apps.MIMEType, Text: page, Meta: uiMeta(`{"csp":{"connectDomains":["https://a.example *"]}}`)}}, nil, `apps: ui://a: _meta.ui: csp.connectDomains: origin "https://a.example *" is empty or has white space, a quote, a semicolon, a comma or a control character`},
				{"meta not an object", []*mcp.ResourceContents{{URI: "ui://a", MIMEType: apps.MIMEType, Text: page, Meta: uiMeta(`[]`)}}, nil, "apps: ui://a: _meta.ui: json: cannot unmarshal array into Go value of type apps.ResourceMeta"},
			} {
				t.Run(c.name, func(t *testing.T) {
					noLeaks(t)
					cs := connect(t, rawServer(t, "ui://a", nil, c.contents...), e.era, apps.DeclareHost(nil))
					v, err := apps.Fetch(t.Context(), cs, "ui://a", c.opts)
					if err == nil || err.Error() != c.want {
						t.Errorf("Fetch: %+v, %v\nwant error %s", v, err, c.want)
					}
				})
			}
		})
	}
}

// TestFetchMeta: a blob app is decoded; the content item's _meta.ui wins
// over the listing entry's, which applies when the content has none
// (found by listing, or given); with neither, the restrictive default
// CSP applies, in both eras.
func TestFetchMeta(t *testing.T) {
	listing := uiMeta(`{"csp":{"connectDomains":["https://list.example"]}}`)
	content := uiMeta(`{"csp":{"connectDomains":["wss://content.example:8443"],"frameDomains":["https://frames.example"],"baseUriDomains":["https://base.example"]},"permissions":{"microphone":{},"geolocation":{},"clipboardWrite":{}},"domain":"abc.example"}`)
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct {
				name     string
				list     mcp.Meta
				contents *mcp.ResourceContents
				opts     *apps.FetchOptions
				csp      string
				allow    string
			}{
				{"content wins", listing, &mcp.ResourceContents{URI: "ui://a", MIMEType: apps.MIMEType, BlobData: []byte(page), Meta: content}, nil,
					"default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self' wss://content.example:8443; img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src https://frames.example; object-src 'none'; base-uri https://base.example",
					"microphone; geolocation; clipboard-write"},
				{"listing", listing, &mcp.ResourceContents{URI: "ui://a", MIMEType: apps.MIMEType, Text: page}, nil,
					"default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self' https://list.example; img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self'", ""},
				{"listing given", nil, &mcp.ResourceContents{URI: "ui://a", MIMEType: apps.MIMEType, Text: page}, &apps.FetchOptions{Listing: &mcp.Resource{URI: "ui://a", Meta: listing}},
					"default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self' https://list.example; img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self'", ""},
				{"none", nil, &mcp.ResourceContents{URI: "ui://a", MIMEType: apps.MIMEType, Text: page}, nil, apps.DefaultCSP, ""},
			} {
				t.Run(c.name, func(t *testing.T) {
					noLeaks(t)
					cs := connect(t, rawServer(t, "ui://a", c.list, c.contents), e.era, apps.DeclareHost(nil))
					v, err := apps.Fetch(t.Context(), cs, "ui://a", c.opts)
					if err != nil {
						t.Fatal(err)
					}
					if v.HTML != page {
						t.Errorf("HTML %q", v.HTML)
					}
					if v.CSP() != c.csp {
						t.Errorf("CSP:\n got %s\nwant %s", v.CSP(), c.csp)
					}
					if v.Allow() != c.allow {
						t.Errorf("Allow %q, want %q", v.Allow(), c.allow)
					}
					p, _ := json.Marshal(v.SandboxResourceReady())
					if !strings.HasPrefix(string(p), `{"html":"\u003c!DOCTYPE html\u003e`) {
						t.Errorf("sandbox-resource-ready params %s", p)
					}
				})
			}
		})
	}
	if apps.DefaultCSP != "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; object-src 'none'; connect-src 'none'" {
		t.Errorf("DefaultCSP %s", apps.DefaultCSP)
	}
}

func tool(name, meta string) *mcp.Tool {
	t := &mcp.Tool{Name: name}
	if meta != "" {
		t.Meta = uiMeta(meta)
	}
	return t
}

// TestVisibility: the model's tool list leaves out app-only tools and
// tools with malformed _meta.ui; an app may call only tools whose
// visibility includes "app"; the deprecated flat key is read.
func TestVisibility(t *testing.T) {
	tools := []*mcp.Tool{
		tool("plain", ""),
		tool("both", `{"resourceUri":"ui://a"}`),
		tool("model", `{"resourceUri":"ui://a","visibility":["model"]}`),
		tool("app", `{"resourceUri":"ui://a","visibility":["app"]}`),
		tool("nobody", `{"resourceUri":"ui://a","visibility":[]}`),
		tool("bad", `{"resourceUri":"https://a"}`),
	}
	var names []string
	for _, t := range apps.ModelTools(tools) {
		names = append(names, t.Name)
	}
	if got := strings.Join(names, ","); got != "plain,both,model" {
		t.Errorf("ModelTools: %s", got)
	}
	for _, c := range []struct {
		tool *mcp.Tool
		want string
	}{
		{tools[0], ""}, {tools[1], ""}, {tools[3], ""},
		{tools[2], `apps: the tool is not callable by apps: model has visibility ["model"]`},
		{tools[4], `apps: the tool is not callable by apps: nobody has visibility []`},
		{tools[5], `apps: the tool is not callable by apps: bad: apps: tool bad: apps: UI resource URI "https://a" does not start with ui://`},
	} {
		err := apps.CheckAppCall(c.tool)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, apps.ErrNotForApps)) {
			t.Errorf("CheckAppCall(%s) = %v, want %q", c.tool.Name, err, c.want)
		}
	}
	old := &mcp.Tool{Name: "old", Meta: mcp.Meta{apps.DeprecatedResourceURIKey: json.RawMessage(`"ui://old"`)}}
	if m, err := apps.ToolUI(old); err != nil || m.ResourceURI != "ui://old" {
		t.Errorf("ToolUI(deprecated) = %+v, %v", m, err)
	}
	if m, err := apps.ToolUI(tools[0]); m != nil || err != nil {
		t.Errorf("ToolUI(plain) = %+v, %v", m, err)
	}
	if _, err := apps.FetchForTool(t.Context(), nil, tools[0], nil); err == nil || err.Error() != "apps: tool plain has no UI resource" {
		t.Errorf("FetchForTool(plain): %v", err)
	}
}

// TestViewHelpers: the sandbox forwards all but its own methods, the
// host forwards to the server no ui/ method, and a display mode change is
// granted only to modes both sides declared.
func TestViewHelpers(t *testing.T) {
	for m, want := range map[string]bool{"ui/initialize": true, "tools/call": true, "ui/notifications/sandbox-proxy-ready": false, "ui/notifications/sandbox-resource-ready": false} {
		if apps.SandboxForwards(m) != want {
			t.Errorf("SandboxForwards(%s) != %v", m, want)
		}
	}
	for m, want := range map[string]bool{"tools/call": true, "resources/read": true, "ui/message": false, "ui/notifications/size-changed": false} {
		if apps.ServerMethod(m) != want {
			t.Errorf("ServerMethod(%s) != %v", m, want)
		}
	}
	host := []string{apps.DisplayInline, apps.DisplayFullscreen}
	for _, c := range []struct {
		req  string
		app  []string
		want string
	}{
		{"fullscreen", []string{"inline", "fullscreen"}, "fullscreen"},
		{"fullscreen", []string{"inline"}, "inline"},
		{"fullscreen", nil, "fullscreen"},
		{"pip", []string{"pip"}, "inline"},
	} {
		if got := apps.DisplayMode(c.req, "inline", host, c.app); got != c.want {
			t.Errorf("DisplayMode(%s, app %v) = %s, want %s", c.req, c.app, got, c.want)
		}
	}
}

// TestPayloads: the View-host payloads encode with the spec's member
// names.
func TestPayloads(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{apps.ToolInputParams{Arguments: json.RawMessage(`{"location":"Paris"}`)}, `{"arguments":{"location":"Paris"}}`},
		{apps.ToolCancelledParams{Reason: "user"}, `{"reason":"user"}`},
		{apps.SizeChangedParams{Width: 400, Height: 300.5}, `{"width":400,"height":300.5}`},
		{apps.InitializeParams{AppInfo: mcp.Implementation{Name: "v", Version: "1"}, AppCapabilities: apps.AppCapabilities{AvailableDisplayModes: []string{"inline"}}, ProtocolVersion: apps.UIProtocolVersion}, `{"appInfo":{"name":"v","version":"1"},"appCapabilities":{"availableDisplayModes":["inline"]},"protocolVersion":"2026-01-26"}`},
		{apps.InitializeResult{ProtocolVersion: apps.UIProtocolVersion, HostInfo: mcp.Implementation{Name: "h", Version: "1"}, HostCapabilities: apps.HostCapabilities{OpenLinks: &struct{}{}, ServerTools: &apps.ListChanged{ListChanged: true}}, HostContext: &apps.HostContext{Theme: "dark", DisplayMode: "inline"}}, `{"protocolVersion":"2026-01-26","hostCapabilities":{"openLinks":{},"serverTools":{"listChanged":true}},"hostInfo":{"name":"h","version":"1"},"hostContext":{"theme":"dark","displayMode":"inline"}}`},
		{apps.SandboxResourceReadyParams{HTML: "x", CSP: &apps.CSP{FrameDomains: []string{"https://f"}}, Permissions: &apps.Permissions{Camera: apps.Granted}}, `{"html":"x","csp":{"frameDomains":["https://f"]},"permissions":{"camera":{}}}`},
		{apps.MessageParams{Role: "user", Content: &mcp.TextContent{Text: "hi"}}, `{"role":"user","content":{"type":"text","text":"hi"}}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T: %s %v\nwant %s", c.v, b, err, c.want)
		}
	}
}
