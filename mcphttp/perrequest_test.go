package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// A server per request (NewHandlerFunc): two tenants chosen by the
// X-Tenant header, each with its own tools, behind one endpoint.

// tenant is one tenant's server and what its "block" tool reports.
type tenant struct {
	srv     *mcp.Server
	gate    chan struct{}
	started chan struct{}
}

// newTenant returns a server called name with the tools name+"_hello"
// and "block" (which waits for gate).
func newTenant(t *testing.T, name string) *tenant {
	t.Helper()
	tn := &tenant{srv: mcp.NewServer(mcp.Implementation{Name: name, Version: "1"}, nil), gate: make(chan struct{}), started: make(chan struct{}, 1)}
	must(t, tn.srv.AddTool(&mcp.Tool{Name: name + "_hello"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello from " + name}}}, nil
	}))
	must(t, tn.srv.AddTool(&mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		tn.started <- struct{}{}
		select {
		case <-tn.gate:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "unblocked"}}}, nil
	}))
	return tn
}

// tenantFixture serves tenants "a" and "b" by X-Tenant; any other value
// gets no server, and "panic" panics. asked counts getServer's calls;
// stop closes the handler and its HTTP server.
func tenantFixture(t *testing.T, opts *Options) (f *fixture, a, b *tenant, asked *atomic.Int32, stop func()) {
	t.Helper()
	a, b, asked = newTenant(t, "a"), newTenant(t, "b"), new(atomic.Int32)
	h := NewHandlerFunc(func(r *http.Request) *mcp.Server {
		asked.Add(1)
		switch r.Header.Get("X-Tenant") {
		case "a":
			return a.srv
		case "b":
			return b.srv
		case "panic":
			panic("no tenant table")
		}
		return nil
	}, opts)
	srv := httptest.NewServer(h)
	f = &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp"}
	stop = func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	}
	return f, a, b, asked, stop
}

const listBody = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// tenantTools is the tools/list reply of tenant name's server.

func tenantTools(name string) string {
	return `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"` + name + `_hello","inputSchema":{"type":"object"}},{"name":"block","inputSchema":{"type":"object"}}]}}`
}

// tenantToolsStateless is tenantTools stamped as the 2026-07-28 era
// stamps it, with the tenant's identity.
func tenantToolsStateless(name string) string {
	return `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"` + name +
		`","version":"1"}},"tools":[{"name":"` + name + `_hello","inputSchema":{"type":"object"}},{"name":"block","inputSchema":{"type":"object"}}]}}`
}

// wantReply checks a reply's status and exact body.
func wantReply(t *testing.T, what string, r *reply, status int, body string) {
	t.Helper()
	if r.status != status || r.body != body {
		t.Errorf("%s: %d %s\nwant %d %s", what, r.status, r.body, status, body)
	}
}

// initTenant opens a session of tenant and returns its id.
func initTenant(t *testing.T, f *fixture, tenant string) string {
	t.Helper()
	r := f.do(http.MethodPost, hdrs{"X-Tenant": tenant}, initBody)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		t.Fatalf("initialize for %q: status %d, session %q, body %s", tenant, r.status, sid, r.body)
	}
	if r := f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sid}, initializedN); r.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", r.status)
	}
	return sid
}

// Two tenants chosen by a header see their own tools in the session era;
// a session stays on the server it was created on (getServer is not asked
// again, whatever the header says), and the session cap counts the
// sessions of every server.
func TestServerPerRequestSessionEra(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, a, b, asked, stop := tenantFixture(t, &Options{JSONResponse: true, MaxSessions: 2})
	defer stop()
	sa := initTenant(t, f, "a")
	sb := initTenant(t, f, "b")
	if n := asked.Load(); n != 2 {
		t.Errorf("getServer asked %d times for two initializes, want 2", n)
	}
	wantReply(t, "tools/list of a", f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sa}, listBody), 200, tenantTools("a"))
	wantReply(t, "tools/list of b", f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sb}, listBody), 200, tenantTools("b"))
	// The header no longer matters: the session keeps its server.
	wantReply(t, "tools/list of a, asking for b", f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sa, "X-Tenant": "b"}, listBody), 200, tenantTools("a"))
	wantReply(t, "tools/list of b, no tenant", f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sb, "X-Tenant": "nobody"}, listBody), 200, tenantTools("b"))
	// A 2026-07-28 request on a live session is served by its server too.
	listStateless := mbody("2", "tools/list", "")
	h := statelessHeaders(listStateless)
	h["Mcp-Session-Id"], h["X-Tenant"] = sa, "b"
	wantReply(t, "2026-07-28 tools/list on a's session, asking for b", f.do(http.MethodPost, h, listStateless), 200, tenantToolsStateless("a"))
	wantReply(t, "b's tool on a", f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sa}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b_hello"}}`),
		200, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"Unknown tool: b_hello"}}`)
	if na, nb := len(a.srv.Sessions()), len(b.srv.Sessions()); na != 1 || nb != 1 {
		t.Errorf("%d sessions on a and %d on b, want 1 and 1", na, nb)
	}
	// The cap counts both servers' sessions.
	r := f.do(http.MethodPost, hdrs{"X-Tenant": "a"}, initBody)
	checkRefusal(t, r, http.StatusServiceUnavailable, -32603, "Service unavailable: maximum concurrent sessions (2) reached")
	// GET and DELETE use the session's server without asking.
	ctx, cancel := context.WithCancel(context.Background())
	get, _ := f.getStream(ctx, sa, hdrs{"X-Tenant": "nobody"})
	cancel()
	get.Body.Close()
	if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sb, "X-Tenant": "nobody"}, ""); r.status != http.StatusNoContent {
		t.Errorf("DELETE: status %d, body %s, want 204", r.status, r.body)
	}
	if n := len(b.srv.Sessions()); n != 0 {
		t.Errorf("%d sessions on b after DELETE, want 0", n)
	}
	if n := asked.Load(); n != 3 {
		t.Errorf("getServer asked %d times, want 3 (the initializes)", n)
	}
}

// Two tenants see their own tools in the 2026-07-28 era, where getServer
// is asked for each request, and in Options.Stateless mode.
func TestServerPerRequestStateless(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	listStateless := mbody("2", "tools/list", "")
	for _, stateless := range []bool{false, true} {
		f, _, _, asked, stop := tenantFixture(t, &Options{JSONResponse: true, Stateless: stateless})
		for _, name := range []string{"a", "b", "a"} {
			h := statelessHeaders(listStateless)
			h["X-Tenant"] = name
			wantReply(t, "2026-07-28 tools/list of "+name, f.do(http.MethodPost, h, listStateless), 200, tenantToolsStateless(name))
		}
		h := statelessHeaders(mbody("3", "tools/call", `{"name":"b_hello"}`))
		h["X-Tenant"] = "a"
		wantReply(t, "b's tool on a", f.do(http.MethodPost, h, mbody("3", "tools/call", `{"name":"b_hello"}`)),
			200, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"Unknown tool: b_hello"}}`)
		if stateless {
			for _, name := range []string{"b", "a"} {
				wantReply(t, "stateless mode tools/list of "+name, f.do(http.MethodPost, hdrs{"X-Tenant": name}, listBody), 200, tenantTools(name))
			}
		}
		want := int32(4)
		if stateless {
			want = 6
		}
		if n := asked.Load(); n != want {
			t.Errorf("stateless %v: getServer asked %d times, want %d", stateless, n, want)
		}
		if n := f.h.SessionCount(); n != 0 {
			t.Errorf("stateless %v: %d sessions, want 0", stateless, n)
		}
		stop()
	}
}

// A nil server is 404 with a JSON-RPC error and creates nothing, in both
// eras and in stateless mode; a panicking getServer is 500; a nil
// getServer answers 404.
func TestServerPerRequestNone(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const noServer = "Not Found: no MCP server for this request"
	listStateless := mbody("2", "tools/list", "")
	for _, stateless := range []bool{false, true} {
		f, a, b, _, stop := tenantFixture(t, &Options{JSONResponse: true, Stateless: stateless})
		wantReply(t, "initialize for nobody", f.do(http.MethodPost, hdrs{"X-Tenant": "nobody"}, initBody),
			404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"`+noServer+`"}}`)
		h := statelessHeaders(listStateless)
		h["X-Tenant"] = "nobody"
		wantReply(t, "2026-07-28 tools/list for nobody", f.do(http.MethodPost, h, listStateless),
			404, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"`+noServer+`"}}`)
		h["X-Tenant"] = "panic"
		wantReply(t, "2026-07-28 tools/list, getServer panics", f.do(http.MethodPost, h, listStateless),
			500, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}`)
		wantReply(t, "initialize, getServer panics", f.do(http.MethodPost, hdrs{"X-Tenant": "panic"}, initBody),
			500, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`)
		if n := f.h.SessionCount() + len(a.srv.Sessions()) + len(b.srv.Sessions()); n != 0 {
			t.Errorf("stateless %v: %d sessions after refusals, want 0", stateless, n)
		}
		stop()
	}
	h := NewHandlerFunc(nil, nil)
	srv := httptest.NewServer(h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL}
	wantReply(t, "nil getServer", f.do(http.MethodPost, nil, initBody), 404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"`+noServer+`"}}`)
	h.Close()
	srv.Close()
	srv.Client().CloseIdleConnections()
}

// Shutdown drains the sessions of every server: a call in flight on each
// tenant finishes, new work is refused, and no session or goroutine is
// left.
func TestServerPerRequestShutdown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, a, b, _, stop := tenantFixture(t, &Options{KeepAlive: -1})
	defer stop()
	sa := initTenant(t, f, "a")
	sb := initTenant(t, f, "b")
	calls := make(chan *reply, 2)
	for _, sid := range []string{sa, sb} {
		resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, blockCall)
		go func() { calls <- f.read(resp) }()
	}
	<-a.started
	<-b.started
	// What Shutdown does first, done here so that the test knows it has
	// begun: new work is refused from then on.
	f.h.beginShutdown()
	done := make(chan error, 1)
	go func() { done <- f.h.Shutdown(context.Background()) }()
	checkRefusal(t, f.do(http.MethodPost, hdrs{"X-Tenant": "a"}, initBody), http.StatusServiceUnavailable, -32603, "Service unavailable: the handler is closed")
	close(a.gate)
	close(b.gate)
	for range 2 {
		r := <-calls
		if got := string(r.message(t)["result"]); r.status != 200 || got != `{"content":[{"type":"text","text":"unblocked"}]}` {
			t.Errorf("the call in flight: %d %s", r.status, r.body)
		}
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown = %v, want nil", err)
	}
	if n := f.h.SessionCount() + len(a.srv.Sessions()) + len(b.srv.Sessions()); n != 0 {
		t.Errorf("%d sessions after Shutdown, want 0", n)
	}
}

// Authenticate runs before getServer, which can choose by the verified
// user (VerifiedToken); a refused request never reaches getServer, and a
// session stays its user's.
func TestServerPerRequestByUser(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	a, b := newTenant(t, "a"), newTenant(t, "b")
	var asked atomic.Int32
	h := NewHandlerFunc(func(r *http.Request) *mcp.Server {
		asked.Add(1)
		switch VerifiedToken(r).Subject {
		case "alice":
			return a.srv
		case "bob":
			return b.srv
		}
		return nil
	}, &Options{JSONResponse: true, Authenticate: func(r *http.Request) (*mcp.TokenInfo, error) {
		switch tok := r.Header.Get("Authorization"); tok {
		case "Bearer alice", "Bearer bob", "Bearer carol":
			return &mcp.TokenInfo{Issuer: "test", Subject: tok[len("Bearer "):]}, nil
		}
		return nil, errors.New("unknown token")
	}})
	srv := httptest.NewServer(h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL}
	defer func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	}()
	checkRefusal(t, f.do(http.MethodPost, hdrs{"Authorization": "Bearer mallory"}, initBody), http.StatusUnauthorized, -32000, "Unauthorized")
	if n := asked.Load(); n != 0 {
		t.Errorf("getServer asked %d times for a refused request, want 0", n)
	}
	wantReply(t, "initialize for carol", f.do(http.MethodPost, hdrs{"Authorization": "Bearer carol"}, initBody),
		404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Not Found: no MCP server for this request"}}`)
	sids := map[string]string{}
	for _, user := range []string{"alice", "bob"} {
		r := f.do(http.MethodPost, hdrs{"Authorization": "Bearer " + user}, initBody)
		if sids[user] = r.header.Get("Mcp-Session-Id"); r.status != 200 || sids[user] == "" {
			t.Fatalf("initialize for %s: %d %s", user, r.status, r.body)
		}
	}
	wantReply(t, "tools/list of alice", f.do(http.MethodPost, hdrs{"Authorization": "Bearer alice", "Mcp-Session-Id": sids["alice"]}, listBody), 200, tenantTools("a"))
	wantReply(t, "tools/list of bob", f.do(http.MethodPost, hdrs{"Authorization": "Bearer bob", "Mcp-Session-Id": sids["bob"]}, listBody), 200, tenantTools("b"))
	// Bob cannot use alice's session.
	checkRefusal(t, f.do(http.MethodPost, hdrs{"Authorization": "Bearer bob", "Mcp-Session-Id": sids["alice"]}, listBody), http.StatusNotFound, -32001, "Session not found")
	listStateless := mbody("2", "tools/list", "")
	hd := statelessHeaders(listStateless)
	hd["Authorization"] = "Bearer bob"
	wantReply(t, "2026-07-28 tools/list of bob", f.do(http.MethodPost, hd, listStateless), 200, tenantToolsStateless("b"))
}
