package inspect

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// MCP Apps (ext/apps, issue 27): the page asks for a tool's app with
// POST /api/app; the Inspector fetches and verifies it (apps.FetchForTool)
// and keeps it under a random id, and the page frames /app/ID in an
// iframe sandboxed with allow-scripts alone: the app runs in an opaque
// origin, under the View's CSP sent as a header, and cannot reach the
// Inspector's API (no token, and its Origin is "null"). The page is the
// host side of the postMessage bridge; an app's tools/call comes back
// through POST /api/app-call, which forwards only tools the app may call
// (apps.CheckAppCall), its resources/read through POST /api/app-read,
// which forwards only ui:// resources.

// appPath is where a view's HTML is served: appPath + ID.
const appPath = "/app/"

// maxToolPages bounds the tools/list pages walked to find a tool.
const maxToolPages = 100

// appView is an app fetched for the page.
type appView struct {
	id   string
	view *apps.View
}

// AppView is the answer of POST /api/app: what the page needs to frame
// the app and to answer its ui/initialize.
type AppView struct {
	// ID names the view in /api/app-call; Src is the iframe's src.
	ID  string `json:"id"`
	Src string `json:"src"`
	URI string `json:"uri"`
	// CSP is the policy the app is served under; Allow the iframe's
	// allow attribute (the permissions it asks for).
	CSP   string `json:"csp"`
	Allow string `json:"allow,omitempty"`
	// Initialize is the result of the app's ui/initialize.
	Initialize *apps.InitializeResult `json:"initialize"`
}

// findTool walks tools/list for the tool called name; nil if the server
// lists none.
func findTool(ctx context.Context, cs *mcp.ClientSession, name string) (*mcp.Tool, error) {
	cursor := ""
	for range maxToolPages {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
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
// /app/ID. Only the newest Options.MaxApps views are kept.
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
		ID: av.id, Src: appPath + av.id, URI: v.URI, CSP: appCSP(v), Allow: v.Allow(),
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

// appCSP is the Content-Security-Policy /app/ID is served with: the
// View's (apps.View.CSP), sandboxed with scripts alone (so the document
// is in an opaque origin even if the iframe's own sandbox were lost),
// and framed by the Inspector's page only.
func appCSP(v *apps.View) string {
	return v.CSP() + "; sandbox allow-scripts; frame-ancestors 'self'"
}

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

// serveApp is GET /app/ID: the view's HTML under its CSP. It carries no
// token (the app could read its own URL); the id, 128 random bits, names
// a view the page asked for, and only the Host is checked.
func (in *Inspector) serveApp(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !in.hostAllowed(r.Host) {
		in.securityHeaders(w)
		httpError(w, http.StatusForbidden, "Host "+quote(r.Host)+" is not the inspector's address")
		return
	}
	if d := r.Header.Get("Sec-Fetch-Dest"); d != "" && d != "iframe" {
		in.securityHeaders(w)
		httpError(w, http.StatusForbidden, "an app is only loaded in the page's iframe, not as "+quote(d))
		return
	}
	_, v := in.view(r.PathValue("id"))
	if v == nil {
		in.securityHeaders(w)
		httpError(w, http.StatusNotFound, "no such app view (it belongs to an ended connection, or newer views replaced it)")
		return
	}
	h.Set("Content-Security-Policy", appCSP(v.view))
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(v.view.HTML))
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
