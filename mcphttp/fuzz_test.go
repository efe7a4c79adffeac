package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler sends random bodies and headers to a live handler that
// holds sessions at two protocol versions: whatever arrives, nothing
// panics, the only 5xx is the session cap's 503, every refusal is a
// JSON-RPC error body, and the registry stays within its cap.
func FuzzHandler(f *testing.F) {
	seeds := []string{
		initBody, pingBody, initializedN, progressCall, `[` + pingBody + `]`, `[]`, `[1,2]`, `{"jsonrpc":`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `null`, `"x"`, `{}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), uint8(i*7), "2025-11-25", "", []byte(s))
	}
	// The 2026-07-28 era: headers set (sess&8, sess&128) or not.
	stateless := []string{
		mbody("1", "server/discover", ""), mbody("2", "tools/list", ""),
		mbody("3", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`),
		mbody("4", "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`),
		mbody("5", "ping", ""), `{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{}}`,
	}
	for i, s := range stateless {
		var m struct {
			Method string `json:"method"`
		}
		json.Unmarshal([]byte(s), &m)
		f.Add(uint8(i), uint8(8|128), "2026-07-28", m.Method, []byte(s))
		f.Add(uint8(i), uint8(8|1), "v999", m.Method, []byte(s))
	}
	const maxSessions = 16
	s := echoServer()
	h := NewHandler(s, &Options{MaxSessions: maxSessions, KeepAlive: -1, EventStore: &MemoryEventStore{MaxBytes: 4096}, MaxBodyBytes: 1 << 16})
	f.Cleanup(func() { h.Close() })
	live := []string{initDirect(f, h), initDirect(f, h)}
	w := serveDirect(h, http.MethodPost, "", initBodyVersion("2025-03-26"))
	live = append(live, w.Header().Get("Mcp-Session-Id"))
	methods := []string{http.MethodPost, http.MethodPost, http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodPut}
	accepts := []string{"application/json, text/event-stream", "*/*", "", "text/event-stream", "application/json;q=0"}
	types := []string{"application/json", "application/json; charset=utf-8", "", "text/plain"}

	f.Fuzz(func(t *testing.T, sel, sess uint8, version, lastEvent string, body []byte) {
		method := methods[int(sel)%len(methods)]
		req := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(string(body)))
		req.Header.Set("Accept", accepts[int(sel/8)%len(accepts)])
		req.Header.Set("Content-Type", types[int(sel/64)%len(types)])
		switch sid := int(sess) % 5; {
		case sid < len(live):
			req.Header.Set("Mcp-Session-Id", live[sid])
		case sid == 3:
			req.Header.Set("Mcp-Session-Id", version)
		}
		if sess&8 != 0 {
			req.Header["Mcp-Protocol-Version"] = []string{version}
		}
		if sess&16 != 0 {
			req.Header["Last-Event-Id"] = []string{lastEvent}
		}
		if sess&32 != 0 {
			req.Header["Origin"] = []string{lastEvent}
		}
		if sess&64 != 0 {
			req.Host = version
		}
		if sess&128 != 0 {
			req.Header["Mcp-Method"] = []string{lastEvent}
			req.Header["Mcp-Name"] = []string{lastEvent}
		}
		if method == http.MethodGet || method == http.MethodPost {
			// A GET stream, and a subscriptions/listen one, lasts until
			// its client leaves: this one has left.
			ctx, cancel := context.WithCancel(req.Context())
			cancel()
			req = req.WithContext(ctx)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 && !(w.Code == 503 && strings.Contains(w.Body.String(), "maximum concurrent sessions")) {
			t.Fatalf("%s: status %d: %s", method, w.Code, w.Body)
		}
		if w.Code >= 400 && (w.Header().Get("Content-Type") != "application/json" || !strings.HasPrefix(w.Body.String(), `{"jsonrpc":"2.0","id":`)) {
			t.Fatalf("%s: refusal %d without a JSON-RPC body: %q", method, w.Code, w.Body)
		}
		if n := h.SessionCount(); n > maxSessions {
			t.Fatalf("%d sessions, cap %d", n, maxSessions)
		}
	})
}
