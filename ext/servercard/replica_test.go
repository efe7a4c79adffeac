package servercard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/ext/servercard"
	"github.com/mcpkit/mcpkit/internal/redistest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
)

// Two replicas sharing Redis (sessions, events, the bus), each with the
// same registrations made in its own order, serve the same card byte for
// byte with the same ETag, so a tag from one is 304 on the other.
func TestReplicasSameCard(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Addr(t), DisableIdentity: true, ContextTimeoutEnabled: true})
	defer rdb.Close()
	prefix := "servercard-test:" + t.Name() + ":"
	ctx := context.Background()
	sessions, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	events, err := redisstore.NewEventStore(rdb, &redisstore.EventOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	bus, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://mcp.example.com/mcp"
	var replicas []*httptest.Server
	for i := range 2 {
		s := mcp.NewServer(weather, &mcp.ServerOptions{SessionStore: sessions, Bus: bus})
		if i == 1 {
			// The second replica registers in another order.
			if err := s.AddResource(&mcp.Resource{URI: "weather://stations", Name: "stations", MIMEType: "application/json"}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		register(t, s)
		mh := mcphttp.NewHandler(s, &mcphttp.Options{EventStore: events})
		h, err := servercard.Handler(mh, servercard.FromServer(s, servercard.Info{URL: url, Primitives: true}), nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		defer ts.Close()
		defer mh.Close()
		replicas = append(replicas, ts)
	}
	fetch := func(ts *httptest.Server, path, inm string) (int, string, string) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("ETag"), string(b)
	}
	for _, path := range []string{"/mcp/server-card", servercard.CatalogPath} {
		code0, tag0, body0 := fetch(replicas[0], path, "")
		code1, tag1, body1 := fetch(replicas[1], path, "")
		if code0 != 200 || code1 != 200 || tag0 != tag1 || body0 != body1 {
			t.Errorf("%s differs between replicas:\n%d %s %s\n%d %s %s", path, code0, tag0, body0, code1, tag1, body1)
		}
		if code, _, body := fetch(replicas[1], path, tag0); code != http.StatusNotModified || body != "" {
			t.Errorf("%s: replica 0's tag on replica 1: %d %q", path, code, body)
		}
	}
	if _, _, body := fetch(replicas[0], "/mcp/server-card", ""); body != strings.Replace(wantPrimitives, "https://example.com/mcp", url, 1) {
		t.Errorf("replicated card: %s", body)
	}

	// The wrapper passes the protocol through to a replicated handler.
	c := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession})
	cs, err := c.Connect(ctx, &mcphttp.ClientTransport{URL: replicas[0].URL + "/mcp", NoStandaloneStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != 2 {
		t.Errorf("tools/list: %v", err)
	}
}
