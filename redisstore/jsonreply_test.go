package redisstore_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// Two replicas on Redis with mcphttp.Options.JSONReplyWithin: a quick
// session-era tools/call, on either replica, is answered with one JSON
// body and costs one Redis round trip (the session's touch), and the
// session keeps no event stream in Redis (issue 14's targets: at most 2
// round trips per call, at most 1 KiB per idle session).
func TestJSONReplyWithinOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			var rt roundTrips
			prefix := testPrefix(t)
			var urls []string
			var closers []func()
			defer func() {
				for _, c := range closers {
					c()
				}
			}()
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			var rdb0 redis.UniversalClient
			for range 2 {
				rdb := be.dial(t)
				closers = append(closers, func() { _ = rdb.Close() })
				if rdb0 == nil {
					rdb0 = rdb
				}
				rdb.AddHook(&rt)
				ss, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
				if err != nil {
					t.Fatal(err)
				}
				es, err := redisstore.NewEventStore(rdb, &redisstore.EventOptions{Prefix: prefix})
				if err != nil {
					t.Fatal(err)
				}
				srv := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{SessionStore: ss})
				type in struct {
					Text string `json:"text"`
				}
				if err := mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in in) (string, error) {
					return in.Text, nil
				}); err != nil {
					t.Fatal(err)
				}
				h := mcphttp.NewHandler(srv, &mcphttp.Options{EventStore: es, JSONReplyWithin: time.Hour})
				hs := httptest.NewServer(h)
				closers = append([]func(){func() {
					_ = h.Close()
					hs.Close()
					hs.Client().CloseIdleConnections()
				}}, closers...)
				urls = append(urls, hs.URL+"/mcp")
			}
			post := func(i int, sid, body string) (int, http.Header, string) {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, urls[i], strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if sid != "" {
					req.Header.Set("Mcp-Session-Id", sid)
					req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, resp.Header, string(b)
			}
			code, hdr, body := post(0, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			sid := hdr.Get("Mcp-Session-Id")
			if code != 200 || hdr.Get("Content-Type") != "application/json" || sid == "" {
				t.Fatalf("initialize: %d %q %s", code, hdr.Get("Content-Type"), body)
			}
			if code, _, body := post(1, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
				t.Fatalf("notifications/initialized: %d %s", code, body)
			}
			call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
			want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`
			for i := range 2 { // warm: scripts loaded, the session held by both
				if code, hdr, body := post(i, sid, call); code != 200 || hdr.Get("Content-Type") != "application/json" || body != want {
					t.Fatalf("tools/call on replica %d: %d %q %s", i, code, hdr.Get("Content-Type"), body)
				}
			}
			before := rt.n.Load()
			for i := range 4 {
				if code, hdr, body := post(i%2, sid, call); code != 200 || hdr.Get("Content-Type") != "application/json" || body != want {
					t.Fatalf("tools/call on replica %d: %d %q %s", i%2, code, hdr.Get("Content-Type"), body)
				}
			}
			if got := rt.n.Load() - before; got != 4 {
				t.Fatalf("4 tools/call made %d Redis round trips, want 4", got)
			}
			n, err := rdb0.Exists(ctx, prefix+"ev:{"+sid+"}", prefix+"evb:{"+sid+"}").Result()
			if err != nil || n != 0 {
				t.Fatalf("the session's event keys: %d exist, %v; want none", n, err)
			}
		})
	}
}
