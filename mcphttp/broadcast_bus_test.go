package mcphttp

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/mcp"
)

// countingBus counts the subscriptions made on it.
type countingBus struct {
	mcp.Bus
	subs atomic.Int32
}

func (b *countingBus) Subscribe(ctx context.Context, channel string, fn func([]byte)) (func(), error) {
	b.subs.Add(1)
	return b.Bus.Subscribe(ctx, channel, fn)
}

// A stateless Handler's per-request session takes no Bus subscription for
// broadcasts: it ends with its request, and a subscription per request
// would cost a Redis round trip each.
func TestSessionlessRequestTakesNoBroadcastSubscription(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bus := &countingBus{Bus: mcp.NewMemoryBus()}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Bus: bus})
	h := NewHandler(srv, &Options{Stateless: true, JSONResponse: true})
	defer h.Close()
	ts := newLoopbackServer(t, h)
	defer ts.Close()
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("ping: %d %s", resp.StatusCode, b)
	}
	if n := bus.subs.Load(); n != 0 {
		t.Fatalf("%d Bus subscriptions, want 0", n)
	}
}
