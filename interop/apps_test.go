package interop

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// TestApps checks MCP Apps (ext/apps) against @modelcontextprotocol/ext-apps
// (pinned in package.json), in both eras:
//
//   - mcpkit serves the app written with the package (ts/apps-app.mjs)
//     over Streamable HTTP, and mcpkit's client, as a host, fetches and
//     verifies it; a client without apps is served the degraded view;
//   - a TypeScript server using the package's registerAppResource and
//     registerAppTool (ts/apps-server.mjs, over stdio) is read by mcpkit's
//     client: tool visibility, the app, its CSP (the content item's over
//     the listing's) and a call.
func TestApps(t *testing.T) {
	node := requireNode(t)
	out, err := exec.Command(node, "ts/apps-app.mjs").Output()
	if err != nil {
		t.Fatalf("building the ext-apps app: %v", err)
	}
	html := string(out)
	tl := tallyFor("TestApps")
	check := func(t *testing.T, name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() || t.Skipped() {
					tl.failed.Add(1)
				} else {
					tl.passed.Add(1)
				}
			})
			f(t)
		})
	}
	eras := []struct {
		name    string
		era     mcp.ProtocolEra
		version string
	}{{"2025-11-25", mcp.EraSession, mcp.LatestVersion}, {"2026-07-28", mcp.EraAuto, mcp.Version20260728}}

	for _, e := range eras {
		t.Run("mcpkit serves the ext-apps app/"+e.name, func(t *testing.T) {
			s := mcp.NewServer(mcp.Implementation{Name: "mcpkit-apps", Version: "1.0.0"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Degrade}})
			a, err := apps.New(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.AddApp(&apps.App{URI: "ui://mcpkit/weather", Name: "weather", HTML: html, Meta: &apps.ResourceMeta{CSP: &apps.CSP{ConnectDomains: []string{"https://api.example"}}}}); err != nil {
				t.Fatal(err)
			}
			weather := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return apps.Result("Sunny, 22 C", map[string]int{"temperature": 22})
			}
			for _, tool := range []struct {
				name string
				vis  []string
			}{{"get_weather", nil}, {"refresh", []string{apps.VisibilityApp}}} {
				if err := a.AddTool(&mcp.Tool{Name: tool.name}, apps.ToolMeta{ResourceURI: "ui://mcpkit/weather", Visibility: tool.vis}, weather); err != nil {
					t.Fatal(err)
				}
			}
			h := mcphttp.NewHandler(s, nil)
			srv := httptest.NewServer(h)
			t.Cleanup(func() {
				h.Close()
				srv.Close()
			})
			host := connectApps(t, &mcphttp.ClientTransport{URL: srv.URL}, e.era, apps.DeclareHost(nil))
			check(t, "era", func(t *testing.T) {
				if v := host.ProtocolVersion(); v != e.version {
					t.Errorf("version %s, want %s", v, e.version)
				}
			})
			tools := listTools(t, host)
			check(t, "tools: model sees get_weather only, apps may call both", func(t *testing.T) {
				if got := appToolNames(apps.ModelTools(tools)); got != "get_weather" {
					t.Errorf("ModelTools: %s", got)
				}
				for _, tool := range tools {
					if err := apps.CheckAppCall(tool); err != nil {
						t.Errorf("CheckAppCall(%s): %v", tool.Name, err)
					}
				}
			})
			check(t, "fetch and verify the ext-apps app", func(t *testing.T) {
				v, err := apps.FetchForTool(ctxApps(t), host, findTool(t, tools, "get_weather"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if v.HTML != html || !strings.Contains(v.HTML, "globalThis.McpApps") || !strings.Contains(v.HTML, "new PostMessageTransport(window.parent, window.parent)") {
					t.Errorf("the app's HTML differs from ts/apps-app.mjs's (%d bytes, want %d)", len(v.HTML), len(html))
				}
				if want := "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self' https://api.example; img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self'"; v.CSP() != want {
					t.Errorf("CSP %s", v.CSP())
				}
			})
			check(t, "call get_weather", func(t *testing.T) { callWeather(t, host) })
			check(t, "a client without apps: no app-only tool, no _meta.ui", func(t *testing.T) {
				bare := connectApps(t, &mcphttp.ClientTransport{URL: srv.URL}, e.era, nil)
				bt := listTools(t, bare)
				if len(bt) != 1 || bt[0].Name != "get_weather" || bt[0].Meta != nil {
					b, _ := json.Marshal(bt)
					t.Errorf("tools %s", b)
				}
			})
		})

		t.Run("TypeScript ext-apps server/"+e.name, func(t *testing.T) {
			cmd := exec.Command(node, "ts/apps-server.mjs")
			host := connectApps(t, &mcp.CommandTransport{Command: cmd, ShutdownGrace: 500 * time.Millisecond}, e.era, apps.DeclareHost(nil))
			check(t, "era", func(t *testing.T) {
				if v := host.ProtocolVersion(); v != e.version {
					t.Errorf("version %s, want %s", v, e.version)
				}
			})
			tools := listTools(t, host)
			check(t, "tools: _meta.ui read, visibility applied", func(t *testing.T) {
				if got := appToolNames(apps.ModelTools(tools)); got != "get_weather,summary" {
					t.Errorf("ModelTools: %s", got)
				}
				for name, want := range map[string]bool{"get_weather": true, "refresh": true, "summary": false} {
					if err := apps.CheckAppCall(findTool(t, tools, name)); (err == nil) != want {
						t.Errorf("CheckAppCall(%s) = %v", name, err)
					}
				}
				for _, tool := range tools {
					m, err := apps.ToolUI(tool)
					if err != nil || m == nil || m.ResourceURI != "ui://interop/weather" {
						t.Errorf("ToolUI(%s) = %+v, %v", tool.Name, m, err)
					}
				}
			})
			check(t, "fetch and verify the app (content _meta.ui over the listing's)", func(t *testing.T) {
				v, err := apps.FetchForTool(ctxApps(t), host, findTool(t, tools, "get_weather"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if v.HTML != html {
					t.Errorf("the app's HTML differs from ts/apps-app.mjs's (%d bytes, want %d)", len(v.HTML), len(html))
				}
				if want := "default-src 'none'; script-src 'self' 'unsafe-inline' https://*.cdn.example; style-src 'self' 'unsafe-inline' https://*.cdn.example; connect-src 'self' https://api.example; img-src 'self' data: https://*.cdn.example; font-src 'self' https://*.cdn.example; media-src 'self' data: https://*.cdn.example; frame-src 'none'; object-src 'none'; base-uri 'self'"; v.CSP() != want {
					t.Errorf("CSP %s", v.CSP())
				}
				if v.Allow() != "clipboard-write" || v.Meta.PrefersBorder == nil || !*v.Meta.PrefersBorder {
					t.Errorf("Allow %q, meta %+v", v.Allow(), v.Meta)
				}
			})
			check(t, "the listing entry: the app mime type and its own _meta.ui", func(t *testing.T) {
				lr, err := host.ListResources(ctxApps(t), nil)
				if err != nil || len(lr.Resources) != 1 {
					t.Fatalf("resources/list: %v %v", lr, err)
				}
				if got := string(lr.Resources[0].Meta["ui"]); got != `{"csp":{"connectDomains":["https://listing.example"]}}` || lr.Resources[0].MIMEType != apps.MIMEType {
					t.Errorf("listing entry: mime %q, _meta.ui %s", lr.Resources[0].MIMEType, got)
				}
			})
			check(t, "call get_weather", func(t *testing.T) { callWeather(t, host) })
		})
	}
}

func ctxApps(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func connectApps(t *testing.T, tr mcp.Transport, era mcp.ProtocolEra, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ProtocolEra = era
	c := mcp.NewClient(mcp.Implementation{Name: "mcpkit-apps-host", Version: "1.0.0"}, opts)
	cs, err := c.Connect(ctxApps(t), tr)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(ctxApps(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

func appToolNames(tools []*mcp.Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

func findTool(t *testing.T, tools []*mcp.Tool, name string) *mcp.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func callWeather(t *testing.T, cs *mcp.ClientSession) {
	res, err := cs.CallTool(ctxApps(t), &mcp.CallToolParams{Name: "get_weather", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Sunny, 22 C" || string(res.StructuredContent) != `{"temperature":22}` {
		b, _ := json.Marshal(res)
		t.Errorf("result %s", b)
	}
}
