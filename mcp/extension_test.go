package mcp_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// TestAddExtension declares an extension and serves its method in both
// eras, over the in-memory transport, with the exact frames.
func TestAddExtension(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

	s := mcp.NewServer(mcp.Implementation{Name: "ext", Version: "1.0.0"}, nil)
	err := s.AddExtension(mcp.Extension{
		ID:       "com.example/notes",
		Settings: map[string]bool{"search": true},
		Methods: map[string]mcp.MethodHandler{
			"notes/count": func(_ context.Context, r *mcp.Request) (any, error) {
				return map[string]any{"count": 3, "stateless": r.Stateless()}, nil
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	call := frameConn(t, s)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`
	info := `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ext","version":"1.0.0"}}`
	for _, tc := range []struct{ name, frame, want string }{
		{
			"discover declares it",
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + info + `,"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"extensions":{"com.example/notes":{"search":true}}}}}`,
		},
		{
			"stateless era",
			`{"jsonrpc":"2.0","id":2,"method":"notes/count","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + info + `,"count":3,"stateless":true}}`,
		},
		{
			"initialize declares it",
			`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"com.example/notes":{"search":true}}},"serverInfo":{"name":"ext","version":"1.0.0"}}}`,
		},
		{
			"session era",
			`{"jsonrpc":"2.0","id":4,"method":"notes/count"}`,
			`{"jsonrpc":"2.0","id":4,"result":{"count":3,"stateless":false}}`,
		},
	} {
		if got := call(tc.frame); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestAddExtensionRefuses checks each refusal's text, and that a refused
// extension changes nothing.
func TestAddExtensionRefuses(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "ext", Version: "1.0.0"}, nil)
	ok := func(context.Context, *mcp.Request) (any, error) { return nil, nil }
	if err := s.AddExtension(mcp.Extension{ID: "com.example/a", Methods: map[string]mcp.MethodHandler{"a/x": ok}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ext  mcp.Extension
		want string
	}{
		{mcp.Extension{ID: "notes"}, `mcp: extension identifier "notes" is not {vendor-prefix}/{name}`},
		{mcp.Extension{ID: "com.example/a/b"}, `mcp: extension identifier "com.example/a/b" is not {vendor-prefix}/{name}`},
		{mcp.Extension{ID: "com..example/a"}, `mcp: extension identifier "com..example/a": the vendor prefix "com..example" is not dot-separated labels`},
		{mcp.Extension{ID: "1com/a"}, `mcp: extension identifier "1com/a": the vendor prefix "1com" is not dot-separated labels`},
		{mcp.Extension{ID: "com/a b"}, `mcp: extension identifier "com/a b": the name "a b" is not letters, digits, '-', '_' and '.'`},
		{mcp.Extension{ID: "com/-a"}, `mcp: extension identifier "com/-a": the name "-a" is not letters, digits, '-', '_' and '.'`},
		{mcp.Extension{ID: "com.example/a"}, `mcp: extension com.example/a was added already`},
		{mcp.Extension{ID: "com.example/b", Settings: []int{1}}, `mcp: extension com.example/b: its settings encode to [1], not a JSON object`},
		{mcp.Extension{ID: "com.example/b", Settings: func() {}}, `mcp: extension com.example/b: its settings (func()) cannot be encoded as JSON`},
		{mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.MethodHandler{"tools/list": ok}}, `mcp: extension com.example/b: method tools/list is served already`},
		{mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.MethodHandler{"server/discover": ok}}, `mcp: extension com.example/b: method server/discover is served already`},
		{mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.MethodHandler{"a/x": ok}}, `mcp: extension com.example/b: method a/x is served already`},
		{mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.MethodHandler{"b/x": nil}}, `mcp: extension com.example/b: method "b/x" has no name or no handler`},
		{mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.MethodHandler{"b/x": ok}, Cacheable: []string{"b/y"}}, `mcp: extension com.example/b: cacheable method b/y is not one of its methods`},
	} {
		err := s.AddExtension(tc.ext)
		if err == nil || err.Error() != tc.want {
			t.Errorf("AddExtension(%q) = %v, want %s", tc.ext.ID, err, tc.want)
		}
	}
	// com.example/b was refused every time: adding it now works.
	if err := s.AddExtension(mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.MethodHandler{"b/x": ok}}); err != nil {
		t.Fatalf("after the refusals: %v", err)
	}
}

// TestAddExtensionWhileServing adds extensions while requests are routed:
// the race detector checks the method tables' swap.
func TestAddExtensionWhileServing(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

	s := mcp.NewServer(mcp.Implementation{Name: "ext", Version: "1.0.0"}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession}).Connect(ctx, clientT)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20 {
			id := "com.example/e" + string(rune('a'+i))
			method := "e/" + string(rune('a'+i))
			h := func(context.Context, *mcp.Request) (any, error) { return map[string]string{"m": method}, nil }
			if err := s.AddExtension(mcp.Extension{ID: id, Methods: map[string]mcp.MethodHandler{method: h}}); err != nil {
				t.Error(err)
			}
		}
	}()
	for range 20 {
		if err := cs.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	var got json.RawMessage
	if err := cs.Call(ctx, "e/t", nil, &got); err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"m":"e/t"}` {
		t.Errorf("e/t = %s", got)
	}
}

// TestAddExtensionCacheable checks that an extension's Cacheable methods
// carry ttlMs and cacheScope from ServerOptions.CacheHint in the
// stateless era, its other methods and the session era none.
func TestAddExtensionCacheable(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

	s := mcp.NewServer(mcp.Implementation{Name: "ext", Version: "1.0.0"}, &mcp.ServerOptions{
		CacheHint: func(method string) mcp.CacheHint {
			if method == "notes/list" {
				return mcp.CacheHint{TTL: 5 * time.Second, Scope: mcp.CachePublic}
			}
			return mcp.CacheHint{TTL: time.Second}
		},
	})
	h := func(context.Context, *mcp.Request) (any, error) { return map[string]int{"n": 1}, nil }
	err := s.AddExtension(mcp.Extension{
		ID:        "com.example/notes",
		Methods:   map[string]mcp.MethodHandler{"notes/list": h, "notes/count": h},
		Cacheable: []string{"notes/list"},
	})
	if err != nil {
		t.Fatal(err)
	}
	call := frameConn(t, s)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`
	info := `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ext","version":"1.0.0"}}`
	for _, tc := range []struct{ frame, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"notes/list","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":5000,"cacheScope":"public",` + info + `,"n":1}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"notes/count","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + info + `,"n":1}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"com.example/notes":{}}},"serverInfo":{"name":"ext","version":"1.0.0"}}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"notes/list"}`, `{"jsonrpc":"2.0","id":4,"result":{"n":1}}`},
	} {
		if got := call(tc.frame); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.frame, got, tc.want)
		}
	}
}

// frameConn connects s to an in-memory transport for the test's life and
// returns a function that writes one frame and returns the one answer.
func frameConn(t *testing.T, s *mcp.Server) func(frame string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clientT.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); ss.Close(); cancel() })
	return func(frame string) string {
		t.Helper()
		if err := conn.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		got, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
}
