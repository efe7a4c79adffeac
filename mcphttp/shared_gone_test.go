package mcphttp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// touchUntilGone is a shared store whose Touch, once blocked, waits for
// its request's end and fails with it, as a networked store's call does
// when the client goes away.
type touchUntilGone struct {
	mcp.SessionStore
	blocked atomic.Bool
	entered chan struct{}
}

func (s *touchUntilGone) Touch(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	if !s.blocked.Load() {
		return s.SessionStore.Touch(ctx, owner, id)
	}
	s.entered <- struct{}{}
	<-ctx.Done()
	return nil, fmt.Errorf("touching: %w", ctx.Err())
}

// A store call that ends because the client went away is no store
// failure: it is logged at debug level, not as an error.
func TestStoreCallEndedByTheClientIsNoError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	store := &touchUntilGone{SessionStore: mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true}), entered: make(chan struct{}, 1)}
	srv := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{SessionStore: store})
	logs := &signalHandler{prefix: "mcphttp: session store", ch: make(chan string, 4)}
	h := NewHandler(srv, &Options{Logger: slog.New(logs)})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	post := func(ctx context.Context, sid, body string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		return ts.Client().Do(req)
	}
	resp, err := post(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}

	store.blocked.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		resp, err := post(ctx, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-store.entered
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled POST got a response")
	}
	if got, want := <-logs.ch, "mcphttp: session store call ended with its request"; got != want {
		t.Fatalf("logged %q, want %q", got, want)
	}
}
