package inspect

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// MCP Apps (ext/apps, issue 27): the page asks for a tool's app with
// POST /api/app; the Inspector fetches and verifies it (apps.FetchForTool)
// and keeps it under a random id. The page is a web host, so it renders
// the app through a sandbox proxy of another origin (the spec's "Sandbox
// proxy"): the Inspector's second loopback port (Listen) serves only the
// proxy, /proxy/ID, which the page frames with allow-scripts and
// allow-same-origin. The proxy says ui/notifications/sandbox-proxy-ready,
// gets ui/notifications/sandbox-resource-ready, and loads the View in an
// inner iframe sandboxed with allow-scripts alone (an opaque origin) from
// /view/ID on its own origin, served under the View's CSP as a header (a
// srcdoc document would inherit the proxy's policy instead); then it
// forwards every message between page and View but the sandbox ones
// (apps.SandboxForwards). Neither the proxy nor the View can reach the
// Inspector's API (another origin, no token). The page is the host side
// of the postMessage bridge; an app's tools/call comes back through POST
// /api/app-call, which forwards only tools the app may call
// (apps.CheckAppCall), its resources/read through POST /api/app-read,
// which forwards only ui:// resources.

// proxyPath and viewPath are where the sandbox origin serves the proxy
// and the View's HTML: proxyPath + ID, viewPath + ID; proxyScript is the
// proxy's script.
const (
	proxyPath   = "/proxy/"
	viewPath    = "/view/"
	proxyScript = "/proxy.js"
)

// maxToolPages bounds the tools/list pages walked to find a tool.
const maxToolPages = 100

// appView is an app fetched for the page.
type appView struct {
	id   string
	view *apps.View
}

// AppView is the answer of POST /api/app: what the page needs to frame
// the app through the sandbox proxy and to answer its ui/initialize.
type AppView struct {
	// ID names the view in /api/app-call; Src is the proxy's URL (the
	// outer iframe's src) and Origin its origin, the only one the page
	// reads messages from.
	ID     string `json:"id"`
	Src    string `json:"src"`
	Origin string `json:"origin"`
	URI    string `json:"uri"`
	// CSP is the policy the View is served under; Allow the iframes'
	// allow attribute (the permissions it asks for).
	CSP   string `json:"csp"`
	Allow string `json:"allow,omitempty"`
	// Resource is the params of the ui/notifications/sandbox-resource-ready
	// the page sends the proxy.
	Resource *apps.SandboxResourceReadyParams `json:"resource"`
	// Initialize is the result of the app's ui/initialize.
	Initialize *apps.InitializeResult `json:"initialize"`
}

// findTool walks tools/list for the tool called name; nil if the server
// lists none.
func findTool(ctx context.Context, cs *mcp.ClientSession, name string) (*mcp.Tool, error) {
	cursor := ""
	for range maxToolPages {
		res, err := cs.ListTools(ctx, &mcp.PaginatedParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			if t != nil && t.Name == name {
				return t, nil
			}
		}
		if res.NextCursor == "" {
			return nil, nil
		}
		cursor = res.NextCursor
	}
	return nil, nil
}

// apiApp is POST /api/app {"tool"}: fetch the tool's app and keep it for
// /proxy/ID and /view/ID. Only the newest Options.MaxApps views are kept.
func (in *Inspector) apiApp(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Tool string `json:"tool"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	c := in.current(w)
	if c == nil {
		return
	}
	t, err := findTool(r.Context(), c.cs, body.Tool)
	if err != nil {
		httpError(w, http.StatusBadGateway, "listing the tools: "+err.Error())
		return
	}
	if t == nil {
		httpError(w, http.StatusNotFound, "the server lists no tool "+quote(body.Tool))
		return
	}
	v, err := apps.FetchForTool(r.Context(), c.cs, t, nil)
	if err != nil {
		httpError(w, http.StatusBadGateway, err.Error())
		return
	}
	b := make([]byte, 16)
	rand.Read(b)
	av := &appView{id: hex.EncodeToString(b), view: v}
	c.mu.Lock()
	if len(c.views) >= in.opts.MaxApps {
		c.views = slices.Delete(c.views, 0, len(c.views)-in.opts.MaxApps+1)
	}
	c.views = append(c.views, av)
	c.mu.Unlock()
	writeJSON(w, http.StatusOK, AppView{
		ID: av.id, Src: in.sandboxOrigin() + proxyPath + av.id, Origin: in.sandboxOrigin(), URI: v.URI,
		CSP: in.viewCSP(v), Allow: v.Allow(), Resource: v.SandboxResourceReady(),
		Initialize: &apps.InitializeResult{
			ProtocolVersion: apps.UIProtocolVersion,
			HostInfo:        in.opts.ClientInfo,
			HostCapabilities: apps.HostCapabilities{
				OpenLinks:       &struct{}{},
				DownloadFile:    &struct{}{},
				ServerTools:     &apps.ListChanged{},
				ServerResources: &apps.ListChanged{},
				Logging:         &struct{}{},
				Sandbox:         &apps.SandboxCapability{},
				Message:         json.RawMessage(`{"text":{}}`),
				// Shown in the page's log of the app, never sent to a model.
				UpdateModelContext: json.RawMessage(`{"text":{},"structuredContent":{}}`),
			},
			HostContext: &apps.HostContext{
				// The id of the call is the client's, not known here.
				ToolInfo:              &apps.ToolInfo{Tool: t},
				Theme:                 "light",
				DisplayMode:           apps.DisplayInline,
				AvailableDisplayModes: []string{apps.DisplayInline},
				Platform:              "web",
			},
		},
	})
}

// sandboxOrigin is the origin of the sandbox proxy.
func (in *Inspector) sandboxOrigin() string { return "http://" + in.sandboxAddr }

// pageOrigins are the origins the page may be loaded from, as a CSP
// source list.
func (in *Inspector) pageOrigins() string {
	_, port, _ := strings.Cut(in.addr, ":")
	return "http://127.0.0.1:" + port + " http://localhost:" + port
}

// viewCSP is the Content-Security-Policy /view/ID is served with: the
// View's (apps.View.CSP), sandboxed with scripts alone (so the document
// is in an opaque origin even if the inner iframe's sandbox were lost),
// and framed only by the proxy within the page (frame-ancestors checks
// every ancestor).
func (in *Inspector) viewCSP(v *apps.View) string {
	return v.CSP() + "; sandbox allow-scripts; frame-ancestors " + in.sandboxOrigin() + " " + in.pageOrigins()
}

// proxyCSP is the sandbox proxy's Content-Security-Policy: its own
// script, frames from its own origin (the View), framed by the page only.
func (in *Inspector) proxyCSP() string {
	return "default-src 'none'; script-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; " +
		"frame-ancestors " + in.pageOrigins()
}

// sandboxHostAllowed reports whether host (a Host header) names the
// sandbox origin: 127.0.0.1 or localhost with its port.
func (in *Inspector) sandboxHostAllowed(host string) bool {
	_, port, ok := strings.Cut(in.sandboxAddr, ":")
	return ok && (host == "127.0.0.1:"+port || host == "localhost:"+port)
}

// SandboxHandler is the HTTP handler of the sandbox origin
// (SandboxListener): the proxy (/proxy/ID and its script) and the View
// (/view/ID), nothing else. Neither carries the token (the proxy and the
// View could read their own URL): the Host must be the sandbox origin's,
// the load an iframe's, and the id, 128 random bits, a view the page
// asked for.
func (in *Inspector) SandboxHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		refuse := func(status int, msg string) {
			h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
			httpError(w, status, msg)
		}
		if !in.sandboxHostAllowed(r.Host) {
			refuse(http.StatusForbidden, "Host "+quote(r.Host)+" is not the sandbox proxy's address")
			return
		}
		if r.Method != http.MethodGet {
			refuse(http.StatusMethodNotAllowed, "the sandbox origin serves GET only")
			return
		}
		dest := r.Header.Get("Sec-Fetch-Dest")
		if r.URL.Path == proxyScript {
			if dest != "" && dest != "script" {
				refuse(http.StatusForbidden, "the proxy's script is only loaded as a script, not as "+quote(dest))
				return
			}
			b, _ := fs.ReadFile(web, "proxy.js")
			h.Set("Content-Type", "text/javascript; charset=utf-8")
			w.Write(b)
			return
		}
		id, isProxy := strings.CutPrefix(r.URL.Path, proxyPath)
		if !isProxy {
			var ok bool
			if id, ok = strings.CutPrefix(r.URL.Path, viewPath); !ok {
				refuse(http.StatusNotFound, "the sandbox origin serves only the proxy and the apps' views")
				return
			}
		}
		if dest != "" && dest != "iframe" {
			refuse(http.StatusForbidden, "an app is only loaded in the page's iframe, not as "+quote(dest))
			return
		}
		_, v := in.view(id)
		if v == nil {
			refuse(http.StatusNotFound, "no such app view (it belongs to an ended connection, or newer views replaced it)")
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		if isProxy {
			h.Set("Content-Security-Policy", in.proxyCSP())
			var b bytes.Buffer
			proxyTemplate.Execute(&b, struct{ Hosts, View string }{in.pageOrigins(), viewPath + v.id})
			w.Write(b.Bytes())
			return
		}
		h.Set("Content-Security-Policy", in.viewCSP(v.view))
		w.Write([]byte(v.view.HTML))
	})
}

// proxyTemplate is the proxy's page: its script reads the page's origins
// and the View's path from the root element.
var proxyTemplate = template.Must(template.New("proxy").Parse(`<!DOCTYPE html>
<html lang="en" data-hosts="{{.Hosts}}" data-view="{{.View}}"><head><meta charset="utf-8"><title>mcpkit inspect: MCP Apps sandbox proxy</title>
<script src="/proxy.js" defer></script></head><body></body></html>
`))

// view is the current connection's view id, or nil.
func (in *Inspector) view(id string) (*connection, *appView) {
	in.mu.Lock()
	c := in.conn
	in.mu.Unlock()
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range c.views {
		if v.id == id {
			return c, v
		}
	}
	return c, nil
}

// appRequest starts an app's request of the view named view: the
// connection and true, or false once it answered 409 (not connected),
// 404 (no such view) or 429 (past Options.MaxInFlight requests of apps
// in flight on the connection). done ends the request.
func (in *Inspector) appRequest(w http.ResponseWriter, view string) (c *connection, done func(), ok bool) {
	c, v := in.view(view)
	if c == nil {
		httpError(w, http.StatusConflict, "not connected to a server")
		return nil, nil, false
	}
	if v == nil {
		httpError(w, http.StatusNotFound, "no such app view")
		return nil, nil, false
	}
	c.mu.Lock()
	if c.appCalls >= in.opts.MaxInFlight {
		c.mu.Unlock()
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("mcpkit inspect: %d requests of apps in flight already (the most there may be)", in.opts.MaxInFlight)}})
		return nil, nil, false
	}
	c.appCalls++
	c.mu.Unlock()
	return c, func() {
		c.mu.Lock()
		c.appCalls--
		c.mu.Unlock()
	}, true
}

// appForward sends an app's request to the server and writes the answer:
// {"result"} or 502 with {"error": JSON-RPC error}.
func appForward(w http.ResponseWriter, r *http.Request, c *connection, method string, params any) {
	var raw json.RawMessage
	if err := c.cs.Call(r.Context(), method, params, &raw); err != nil {
		rpcErr, ok := errors.AsType[*jsonrpc.Error](err)
		if !ok {
			rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		writeJSON(w, http.StatusBadGateway, map[string]any{"error": rpcErr})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": raw})
}

// apiAppCall is POST /api/app-call {"view","name","arguments"}: an app's
// tools/call, forwarded to the server only when the tool, as the server
// lists it now, may be called by apps (apps.CheckAppCall). The answer is
// the call's result, or {"error": JSON-RPC error}: 403 with code -32600
// for a tool the app may not call, 429 past Options.MaxInFlight requests
// of apps in flight on the connection.
func (in *Inspector) apiAppCall(w http.ResponseWriter, r *http.Request) {
	var body struct {
		View      string          `json:"view"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	c, done, ok := in.appRequest(w, body.View)
	if !ok {
		return
	}
	defer done()
	refuse := func(msg string) {
		writeJSON(w, http.StatusForbidden, map[string]any{"error": &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}})
	}
	t, err := findTool(r.Context(), c.cs, body.Name)
	if err != nil {
		httpError(w, http.StatusBadGateway, "listing the tools: "+err.Error())
		return
	}
	if t == nil {
		refuse("mcpkit inspect: the server lists no tool " + quote(body.Name))
		return
	}
	if err := apps.CheckAppCall(t); err != nil {
		refuse("mcpkit inspect: refused: " + err.Error())
		return
	}
	params := map[string]any{"name": body.Name}
	if len(body.Arguments) > 0 {
		params["arguments"] = body.Arguments
	}
	appForward(w, r, c, "tools/call", params)
}

// codeDenied is the error code the MCP Apps spec gives a host's refusals
// (ui/open-link, ui/message, ui/download-file: -32000, "Implementation-
// defined error", with "Policy violation" among the messages).
const codeDenied = -32000

// apiAppRead is POST /api/app-read {"view","uri"}: an app's
// resources/read, forwarded to the view's server (the connection the app
// came from: the spec's Standard MCP Messages) only for a ui:// resource
// (apps.Scheme): other resources of the server are the user's, not the
// app's. A refusal is 403 with {"error": {"code": -32000, "message":
// "mcpkit inspect: Policy violation: ..."}}; 429 past
// Options.MaxInFlight requests of apps in flight.
func (in *Inspector) apiAppRead(w http.ResponseWriter, r *http.Request) {
	var body struct {
		View string `json:"view"`
		URI  string `json:"uri"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	c, done, ok := in.appRequest(w, body.View)
	if !ok {
		return
	}
	defer done()
	if !strings.HasPrefix(body.URI, apps.Scheme) {
		writeJSON(w, http.StatusForbidden, map[string]any{"error": &jsonrpc.Error{Code: codeDenied,
			Message: "mcpkit inspect: Policy violation: an app reads only the ui:// resources of its server, not " + quote(body.URI)}})
		return
	}
	appForward(w, r, c, "resources/read", map[string]any{"uri": body.URI})
}
