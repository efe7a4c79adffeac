// Package replicatest runs the scale-out behaviour of Streamable HTTP
// against any shared mcp.SessionStore: two Handlers ("replicas"), each
// with its own mcp.Server and listener on 127.0.0.1, share one store, and
// a client's session-era requests land on either
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// Package mcphttp's tests run it on a shared in-memory store, redisstore's
// on Redis; neither package may import the other, so the scenario lives
// here.
package replicatest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Store is a shared store under test and what the scenario needs to
// reach around it.
type Store struct {
	// Store must report Shared true. Replica A uses it.
	Store mcp.SessionStore
	// StoreB, if not nil, is replica B's store: another client of the
	// same backend, as a real replica has. If nil, B uses Store.
	StoreB mcp.SessionStore
	// Down, if not nil, takes the store's backend down (true) or brings
	// it back (false) for real; if nil, the scenario makes every call of
	// the store fail with mcp.ErrStoreUnavailable instead.
	Down func(t *testing.T, down bool)
	// Expire makes session id idle out by the store's own clock, and
	// returns once the store no longer has it.
	Expire func(t *testing.T, id string)
	// Count reports how many sessions the store holds.
	Count func(t *testing.T) int
}

// NewStore returns a fresh, empty store whose cap is maxSessions (0: the
// store's default).
type NewStore func(t *testing.T, maxSessions int) Store

// flaky wraps a store so that the scenario can take it down: every call
// then fails with an error matching mcp.ErrStoreUnavailable, as a store
// that cannot reach its backend does.
type flaky struct {
	mcp.SessionStore
	down *atomic.Bool // shared by the stores of one deployment, or its own
}

// newFlaky wraps store, down when *down is true (a switch of its own if
// down is nil).
func newFlaky(store mcp.SessionStore, down *atomic.Bool) *flaky {
	if down == nil {
		down = new(atomic.Bool)
	}
	return &flaky{SessionStore: store, down: down}
}

var errDown = fmt.Errorf("replicatest: store taken down: %w", mcp.ErrStoreUnavailable)

func (f *flaky) Create(ctx context.Context, st *mcp.SessionState) error {
	if f.down.Load() {
		return errDown
	}
	return f.SessionStore.Create(ctx, st)
}

func (f *flaky) Load(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.SessionStore.Load(ctx, owner, id)
}

func (f *flaky) Touch(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.SessionStore.Touch(ctx, owner, id)
}

func (f *flaky) Update(ctx context.Context, owner, id string, fn func(*mcp.SessionState) error) (*mcp.SessionState, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.SessionStore.Update(ctx, owner, id, fn)
}

func (f *flaky) Delete(ctx context.Context, owner, id string) error {
	if f.down.Load() {
		return errDown
	}
	return f.SessionStore.Delete(ctx, owner, id)
}

// replica is one Handler on its own listener.
type replica struct {
	name string
	srv  *mcp.Server
	h    *mcphttp.Handler
	ts   *httptest.Server
}

// cluster is two replicas sharing one store.
type cluster struct {
	stores []*flaky
	s      Store
	a, b   *replica
}

// down takes the store down (true) or brings it back.
func (c *cluster) down(t *testing.T, down bool) {
	t.Helper()
	if c.s.Down != nil {
		c.s.Down(t, down)
		return
	}
	for _, f := range c.stores {
		f.down.Store(down)
	}
}

func newServer(store mcp.SessionStore) *mcp.Server { return newServerBus(store, nil) }

// newServerBus is newServer with a Bus (nil for none).
func newServerBus(store mcp.SessionStore, bus mcp.Bus) *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{
		SessionStore: store,
		Logging:      &mcp.LoggingOptions{},
		Bus:          bus,
	})
	type in struct {
		Text string `json:"text"`
	}
	_ = mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v in) (string, error) {
		return v.Text, nil
	})
	_ = s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: "r"}}}, nil
	})
	return s
}

// authenticate is a fake verifier: "Bearer NAME" is user NAME.
func authenticate(r *http.Request) (*mcp.TokenInfo, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || name == "" {
		return nil, errors.New("no token")
	}
	return &mcp.TokenInfo{Issuer: "test", Subject: name}, nil
}

func ownerOf(user string) string {
	if user == "" {
		return ""
	}
	return (&mcp.TokenInfo{Issuer: "test", Subject: user}).OwnerKey()
}

func newCluster(t *testing.T, newStore NewStore, maxSessions int, auth bool) *cluster {
	t.Helper()
	return newClusterOpts(t, newStore, maxSessions, auth, nil)
}

// newClusterOpts is newCluster with the replicas' Options changed by set
// (if not nil).
func newClusterOpts(t *testing.T, newStore NewStore, maxSessions int, auth bool, set func(*mcphttp.Options)) *cluster {
	t.Helper()
	s := newStore(t, maxSessions)
	if !s.Store.Shared() {
		t.Fatal("the store does not report Shared")
	}
	c := &cluster{s: s}
	mk := func(name string, store mcp.SessionStore) *replica {
		opts := &mcphttp.Options{JSONResponse: true}
		if auth {
			opts.Authenticate = authenticate
		}
		if set != nil {
			set(opts)
		}
		f := newFlaky(store, nil)
		c.stores = append(c.stores, f)
		srv := newServer(f)
		h := mcphttp.NewHandler(srv, opts)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			_ = h.Close()
		})
		return &replica{name: name, srv: srv, h: h, ts: ts}
	}
	storeB := s.StoreB
	if storeB == nil {
		storeB = s.Store
	}
	c.a, c.b = mk("A", s.Store), mk("B", storeB)
	return c
}

type reply struct {
	status int
	header http.Header
	body   string
}

// do sends one raw HTTP request to rep as user ("" for none).
func (rep *replica) do(t *testing.T, method, sid, user, body string) reply {
	t.Helper()
	return send(t, rep.ts, method, sid, user, body)
}

// send sends one raw HTTP request to ts as user ("" for none), with the
// headers of a session-era request on session sid ("" for none).
func send(t *testing.T, ts *httptest.Server, method, sid, user, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+user)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func (r reply) want(t *testing.T, what string, status int, body string) {
	t.Helper()
	if r.status != status || strings.TrimSpace(r.body) != body {
		t.Fatalf("%s: %d %s\nwant %d %s", what, r.status, r.body, status, body)
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"first","version":"1"}}}`

const initResult = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"replica","version":"1"}}}`

// initialize opens a session on rep as user, and sends
// notifications/initialized to other.
func (c *cluster) initialize(t *testing.T, rep, other *replica, user string) string {
	t.Helper()
	r := rep.do(t, http.MethodPost, "", user, initBody)
	r.want(t, "initialize on "+rep.name, http.StatusOK, initResult)
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	other.do(t, http.MethodPost, sid, user, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on "+other.name, http.StatusAccepted, "")
	return sid
}

func (c *cluster) load(t *testing.T, user, sid string) *mcp.SessionState {
	t.Helper()
	st, err := c.s.Store.Load(context.Background(), ownerOf(user), sid)
	if err != nil {
		t.Fatalf("the store's Load(%q) = %v", sid, err)
	}
	return st
}

func (c *cluster) gone(t *testing.T, user, sid string) {
	t.Helper()
	if _, err := c.s.Store.Load(context.Background(), ownerOf(user), sid); !errors.Is(err, mcp.ErrSessionNotFound) {
		t.Fatalf("the store's Load(%q) = %v, want ErrSessionNotFound", sid, err)
	}
}

func echo(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
}

func echoed(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}

const notFound = `{"jsonrpc":"2.0","id":%d,"error":{"code":-32001,"message":"Session not found"}}`

const unavailable = `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"Service unavailable: the session store cannot be reached; retry later"}}`

// Run runs the scenario on stores made by newStore.
func Run(t *testing.T, newStore NewStore) {
	t.Run("a session made on A is served on B", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		if st := c.load(t, "", sid); st.Lifecycle != "ready" || st.ClientInfo.Name != "first" || st.ProtocolVersion != "2025-11-25" {
			t.Fatalf("stored state %+v, want ready, client first, 2025-11-25", st)
		}
		c.b.do(t, http.MethodPost, sid, "", echo(2, "hi")).want(t, "tools/call on B", http.StatusOK, echoed(2, "hi"))
		c.b.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}`).want(t, "logging/setLevel on B", http.StatusOK, `{"jsonrpc":"2.0","id":3,"result":{}}`)
		c.b.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"test://r"}}`).want(t, "resources/subscribe on B", http.StatusOK, `{"jsonrpc":"2.0","id":4,"result":{}}`)
		st := c.load(t, "", sid)
		if st.LogLevel != "warning" || !slices.Equal(st.Subscriptions, []string{"test://r"}) {
			t.Fatalf("stored log level %q, subscriptions %q; want warning, [test://r]", st.LogLevel, st.Subscriptions)
		}
		// A serves its next request with what B changed.
		c.a.do(t, http.MethodPost, sid, "", echo(5, "back")).want(t, "tools/call on A", http.StatusOK, echoed(5, "back"))
		for _, rep := range []*replica{c.a, c.b} {
			if n := rep.h.SessionCount(); n != 1 {
				t.Fatalf("%s holds %d sessions, want 1", rep.name, n)
			}
			local := rep.srv.Sessions()[0].State()
			if local.LogLevel != "warning" || !slices.Equal(local.Subscriptions, []string{"test://r"}) || local.Lifecycle != "ready" {
				t.Errorf("%s's session: level %q, subscriptions %q, lifecycle %q", rep.name, local.LogLevel, local.Subscriptions, local.Lifecycle)
			}
		}
	})

	t.Run("concurrent first requests on B rebuild the session once", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.a, "")
		const n = 8
		var wg sync.WaitGroup
		replies := make([]reply, n)
		for i := range n {
			wg.Go(func() { replies[i] = c.b.do(t, http.MethodPost, sid, "", echo(10+i, "x")) })
		}
		wg.Wait()
		for i, r := range replies {
			r.want(t, "concurrent tools/call on B", http.StatusOK, echoed(10+i, "x"))
		}
		if got, live := c.b.h.SessionCount(), len(c.b.srv.Sessions()); got != 1 || live != 1 {
			t.Fatalf("B holds %d sessions, its server %d; want 1 and 1", got, live)
		}
	})

	t.Run("a GET on B opens the stream of A's session", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.b.ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := c.b.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET on B: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		cancel()
	})

	t.Run("DELETE on B ends the session on A", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		c.b.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on B", http.StatusNoContent, "")
		c.gone(t, "", sid)
		c.a.do(t, http.MethodPost, sid, "", echo(2, "x")).want(t, "tools/call on A", http.StatusNotFound, fmt.Sprintf(notFound, 2))
		c.b.do(t, http.MethodPost, sid, "", echo(3, "x")).want(t, "tools/call on B", http.StatusNotFound, fmt.Sprintf(notFound, 3))
		for _, rep := range []*replica{c.a, c.b} {
			if n := rep.h.SessionCount(); n != 0 {
				t.Errorf("%s holds %d sessions after the DELETE, want 0", rep.name, n)
			}
		}
		c.a.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE again on A", http.StatusNotFound, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`)
	})

	t.Run("the session cap holds across replicas", func(t *testing.T) {
		c := newCluster(t, newStore, 2, false)
		c.initialize(t, c.a, c.b, "")
		c.initialize(t, c.b, c.a, "")
		r := c.a.do(t, http.MethodPost, "", "", initBody)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" || r.header.Get("Mcp-Session-Id") != "" ||
			!strings.HasPrefix(r.body, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Service unavailable: maximum concurrent sessions reached: `) {
			t.Fatalf("initialize past the cap: %d, Retry-After %q, %s", r.status, r.header.Get("Retry-After"), r.body)
		}
		if n := c.s.Count(t); n != 2 {
			t.Fatalf("the store holds %d sessions, want 2", n)
		}
	})

	t.Run("a replica that shuts down leaves its sessions to the other", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		if err := c.a.h.Close(); err != nil {
			t.Fatal(err)
		}
		if n := c.a.h.SessionCount(); n != 0 {
			t.Fatalf("A holds %d sessions after Close", n)
		}
		c.load(t, "", sid)
		c.b.do(t, http.MethodPost, sid, "", echo(2, "on")).want(t, "tools/call on B", http.StatusOK, echoed(2, "on"))
	})

	t.Run("an idle session expires on both", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		c.s.Expire(t, sid)
		c.a.do(t, http.MethodPost, sid, "", echo(2, "x")).want(t, "tools/call on A", http.StatusNotFound, fmt.Sprintf(notFound, 2))
		c.b.do(t, http.MethodPost, sid, "", echo(3, "x")).want(t, "tools/call on B", http.StatusNotFound, fmt.Sprintf(notFound, 3))
		for _, rep := range []*replica{c.a, c.b} {
			if n := rep.h.SessionCount(); n != 0 {
				t.Errorf("%s holds %d sessions after the expiry, want 0", rep.name, n)
			}
		}
	})

	t.Run("another user's token finds nothing", func(t *testing.T) {
		c := newCluster(t, newStore, 0, true)
		sid := c.initialize(t, c.a, c.b, "alice")
		c.b.do(t, http.MethodPost, sid, "bob", echo(2, "x")).want(t, "tools/call as bob on B", http.StatusNotFound, fmt.Sprintf(notFound, 2))
		c.a.do(t, http.MethodPost, sid, "bob", echo(3, "x")).want(t, "tools/call as bob on A", http.StatusNotFound, fmt.Sprintf(notFound, 3))
		c.b.do(t, http.MethodDelete, sid, "bob", "").want(t, "DELETE as bob on B", http.StatusNotFound, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`)
		if st := c.load(t, "alice", sid); st.Owner != ownerOf("alice") {
			t.Fatalf("stored owner %q", st.Owner)
		}
		c.b.do(t, http.MethodPost, sid, "alice", echo(4, "mine")).want(t, "tools/call as alice on B", http.StatusOK, echoed(4, "mine"))
	})

	t.Run("a second initialize on B is refused and changes nothing", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		before := c.load(t, "", sid)
		second := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"second","version":"2"}}}`
		c.b.do(t, http.MethodPost, sid, "", second).want(t, "initialize again on B", http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}`)
		after := c.load(t, "", sid)
		if after.ClientInfo.Name != before.ClientInfo.Name || after.ClientInfo.Version != before.ClientInfo.Version || after.ProtocolVersion != before.ProtocolVersion || after.Lifecycle != before.Lifecycle ||
			after.ClientCapabilities.Roots != nil {
			t.Fatalf("stored state changed: %+v, was %+v", after, before)
		}
		c.b.do(t, http.MethodPost, sid, "", echo(3, "still")).want(t, "tools/call on B", http.StatusOK, echoed(3, "still"))
	})

	t.Run("a failed initialize leaves nothing in the store", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		r := c.a.do(t, http.MethodPost, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		if r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") != "" || !strings.Contains(r.body, `"code":-32602`) {
			t.Fatalf("bad initialize: %d %q %s", r.status, r.header.Get("Mcp-Session-Id"), r.body)
		}
		if n := c.s.Count(t); n != 0 {
			t.Fatalf("the store holds %d sessions, want 0", n)
		}
	})

	t.Run("a store that is down is 503 until it is back", func(t *testing.T) {
		c := newCluster(t, newStore, 0, false)
		sid := c.initialize(t, c.a, c.b, "")
		c.down(t, true)
		for _, x := range []struct {
			rep    *replica
			method string
			sid    string
			body   string
			id     string
		}{
			{c.a, http.MethodPost, sid, echo(2, "x"), "2"},
			{c.b, http.MethodPost, sid, echo(3, "x"), "3"},
			{c.b, http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, "null"},
			{c.a, http.MethodDelete, sid, "", "null"},
			{c.b, http.MethodPost, "", initBody, "1"},
		} {
			r := x.rep.do(t, x.method, x.sid, "", x.body)
			r.want(t, x.method+" on "+x.rep.name+" with the store down", http.StatusServiceUnavailable, fmt.Sprintf(unavailable, x.id))
			if got := r.header.Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After = %q, want 1", got)
			}
		}
		c.down(t, false)
		if n := c.s.Count(t); n != 1 {
			t.Fatalf("the store holds %d sessions, want 1 (the initialize while down left nothing)", n)
		}
		c.a.do(t, http.MethodPost, sid, "", echo(4, "back")).want(t, "tools/call on A after", http.StatusOK, echoed(4, "back"))
		c.b.do(t, http.MethodPost, sid, "", echo(5, "back")).want(t, "tools/call on B after", http.StatusOK, echoed(5, "back"))
		c.b.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on B after", http.StatusNoContent, "")
		c.gone(t, "", sid)
	})
}
