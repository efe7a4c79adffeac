package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// panickyBus panics in every method.
type panickyBus struct{}

func (panickyBus) Publish(context.Context, string, []byte) error { panic("publish") }
func (panickyBus) Subscribe(context.Context, string, func([]byte)) (func(), error) {
	panic("subscribe")
}

// A Bus that panics does not stop a Handler from being made: the panics
// are recovered, a message the bus would route (a response no local
// request waits for, notifications/cancelled) is answered 500 Internal
// error as for a store that panics, other messages are accepted (202),
// and the session goes on.
func TestPanickingBusIsRecovered(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{
		SessionStore: mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true}),
		Bus:          panickyBus{},
	})
	h := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
	ts := httptest.NewServer(h)
	defer h.Close()
	defer ts.Close()
	post := func(sid, body string) (int, string, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), strings.TrimSpace(string(b))
	}
	status, sid, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q %s", status, sid, body)
	}
	if status, _, got := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted || got != "" {
		t.Fatalf("POST notifications/initialized: %d %s, want 202 and no body", status, got)
	}
	for _, b := range []string{
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
	} {
		if status, _, got := post(sid, b); status != http.StatusInternalServerError || got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}` {
			t.Fatalf("POST %s: %d %s, want 500 Internal error", b, status, got)
		}
	}
	if status, _, got := post(sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); status != http.StatusOK || got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping: %d %s", status, got)
	}
}
