package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// The bodies FuzzHandlerAuth seeds its corpus with, as mcphttp's tests
// write them.
const (
	fuzzInitBody     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	fuzzInitializedN = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	fuzzPingBody     = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fuzzProgressCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`
	fuzzModernMeta   = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`
)

// fuzzModernBody is a 2026-07-28 request with params (an object, "" for
// {}) and fuzzModernMeta as params._meta.
func fuzzModernBody(id, method, params string) string {
	p := `{"_meta":` + fuzzModernMeta + `}`
	if params != "" && params != "{}" {
		p = `{"_meta":` + fuzzModernMeta + `,` + strings.TrimPrefix(params, "{")
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + p + `}`
}

// FuzzHandlerAuth is mcphttp's FuzzHandler with authentication on
// (Protect's hooks, tokens "alice-token" and "bob-token"): whatever arrives, no
// handler runs for a request without a valid token, no session of
// alice's serves a request of bob's, and every refusal is a JSON-RPC
// error body.
func FuzzHandlerAuth(f *testing.F) {
	seeds := []string{
		fuzzInitBody, fuzzPingBody, fuzzInitializedN, fuzzProgressCall, `[` + fuzzPingBody + `]`, `{}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		fuzzModernBody("3", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`), fuzzModernBody("5", "ping", ""),
	}
	for i, s := range seeds {
		for a := range 6 {
			f.Add(uint8(i), uint8(i*7), uint8(a), "Bearer alice-token", "", []byte(s))
		}
	}
	f.Add(uint8(0), uint8(0), uint8(5), "Bearer  alice-token", "access_token=alice-token", []byte(fuzzPingBody))
	f.Add(uint8(0), uint8(0), uint8(5), "bearer alice-token", "", []byte(fuzzPingBody))

	const resource = "http://127.0.0.1/mcp"
	v := auth.VerifierFunc(func(_ context.Context, token string, _ *http.Request) (*mcp.TokenInfo, error) {
		switch token {
		case "alice-token", "bob-token":
			return &mcp.TokenInfo{Issuer: "https://as.example", Subject: strings.TrimSuffix(token, "-token"), Audience: []string{resource}, Scopes: []string{"mcp"}}, nil
		}
		return nil, auth.ErrInvalidToken
	})
	rs, err := auth.NewResourceServer(auth.ResourceServerConfig{Resource: resource, AuthorizationServers: []string{"https://as.example"}, Verifier: v, Scopes: []string{"mcp"}})
	if err != nil {
		f.Fatal(err)
	}
	var violation atomic.Pointer[string]
	var aliceSessions sync.Map
	guard := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			var who string
			if r.Extra != nil && r.Extra.Auth != nil {
				who = r.Extra.Auth.Subject
			}
			if who != "alice" && who != "bob" {
				msg := r.Method + " ran without a valid token"
				violation.CompareAndSwap(nil, &msg)
			}
			if _, ok := aliceSessions.Load(r.Session.ID()); ok && who != "alice" {
				msg := r.Method + " ran on alice's session for " + who
				violation.CompareAndSwap(nil, &msg)
			}
			return next(ctx, r)
		}
	}
	s := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{guard}})
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v in) (string, error) {
		return v.Text, nil
	})
	const maxSessions = 16
	opts := &mcphttp.Options{MaxSessions: maxSessions, KeepAlive: -1, EventStore: &mcphttp.MemoryEventStore{MaxBytes: 4096}, MaxBodyBytes: 1 << 16}
	auth.Protect(opts, rs)
	h := mcphttp.NewHandler(s, opts)
	f.Cleanup(func() { h.Close() })
	var live []string
	for range 2 {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(fuzzInitBody))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer alice-token")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		sid := w.Header().Get("Mcp-Session-Id")
		if w.Code != 200 || sid == "" {
			f.Fatalf("initialize: %d %s", w.Code, w.Body)
		}
		aliceSessions.Store(sid, true)
		live = append(live, sid)
	}
	methods := []string{http.MethodPost, http.MethodPost, http.MethodPost, http.MethodGet, http.MethodDelete}

	f.Fuzz(func(t *testing.T, sel, sess, authSel uint8, authz, query string, body []byte) {
		method := methods[int(sel)%len(methods)]
		target := "http://127.0.0.1/mcp"
		if query != "" {
			target += "?" + url.PathEscape(query)
		}
		req := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(string(body)))
		if u, err := url.Parse(target); err == nil {
			req.URL = u
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		switch authSel % 6 {
		case 1:
			req.Header["Authorization"] = []string{"Bearer alice-token"}
		case 2:
			req.Header["Authorization"] = []string{"Bearer bob-token"}
		case 3:
			req.Header["Authorization"] = []string{"Bearer alice-token", authz}
		case 4, 5:
			req.Header["Authorization"] = []string{authz}
		}
		if sid := int(sess) % 4; sid < len(live) {
			req.Header.Set("Mcp-Session-Id", live[sid])
		}
		if sess&8 != 0 {
			req.Header["Mcp-Protocol-Version"] = []string{"2026-07-28"}
			req.Header["Mcp-Method"] = []string{"tools/call"}
			req.Header["Mcp-Name"] = []string{"echo"}
		} else if sess&16 != 0 {
			req.Header["Mcp-Protocol-Version"] = []string{"2025-11-25"}
		}
		if method == http.MethodGet || method == http.MethodPost {
			ctx, cancel := context.WithCancel(req.Context())
			cancel()
			req = req.WithContext(ctx)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if p := violation.Load(); p != nil {
			t.Fatalf("%s (%s, Authorization %q, query %q): %s", *p, method, req.Header["Authorization"], query, body)
		}
		if w.Code >= 500 && !(w.Code == 503 && strings.Contains(w.Body.String(), "maximum concurrent sessions")) {
			t.Fatalf("%s: status %d: %s", method, w.Code, w.Body)
		}
		if w.Code >= 400 && (w.Header().Get("Content-Type") != "application/json" || !strings.HasPrefix(w.Body.String(), `{"jsonrpc":"2.0","id":`)) {
			t.Fatalf("%s: refusal %d without a JSON-RPC body: %q", method, w.Code, w.Body)
		}
		if (w.Code == 401 || w.Code == 400 && strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_request")) && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer ") {
			t.Fatalf("%d without a Bearer challenge", w.Code)
		}
	})
}
