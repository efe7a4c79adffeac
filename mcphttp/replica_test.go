package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// fakeClock is a memory session store's clock that a test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Two Handlers sharing one in-memory store (Share set) serve each
// other's sessions: the scenario of package replicatest.
func TestReplicasSharingAMemoryStore(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.Run(t, func(t *testing.T, maxSessions int) replicatest.Store {
		clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		const idle = time.Hour
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, MaxSessions: maxSessions, IdleTimeout: idle, Now: clock.Now})
		return replicatest.Store{
			Store: st,
			Expire: func(t *testing.T, id string) {
				clock.advance(idle + time.Second)
			},
			Count: func(t *testing.T) int { return storeLen(st) },
		}
	})
}

// The per-principal quota across two Handlers sharing one in-memory
// store: the scenario of package replicatest.
func TestReplicasQuotaOnAMemoryStore(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunQuotas(t, func(t *testing.T, maxPerOwner int) replicatest.Store {
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, MaxSessionsPerOwner: maxPerOwner, IdleTimeout: time.Hour})
		return replicatest.Store{Store: st, Count: func(t *testing.T) int { return storeLen(st) }}
	}, "1")
}

// countingStore counts the calls that serve requests.
type countingStore struct {
	mcp.SessionStore
	touches, loads atomic.Int32
}

func (c *countingStore) Touch(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	c.touches.Add(1)
	return c.SessionStore.Touch(ctx, owner, id)
}

func (c *countingStore) Load(ctx context.Context, owner, id string) (*mcp.SessionState, error) {
	c.loads.Add(1)
	return c.SessionStore.Load(ctx, owner, id)
}

// Without a shared store (the default), a Handler serves its own sessions
// from memory: an unknown session id is 404 without a store call, even
// one another Handler on the same store created, and the store holds a
// record created with the session and deleted with it.
func TestUnsharedStoreIsARecord(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	store := &countingStore{SessionStore: mcp.NewMemorySessionStore(nil)}
	srv := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{SessionStore: store})
	a := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
	defer a.Close()
	b := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
	defer b.Close()
	do := func(h http.Handler, method, sid, body string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := do(a, http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	if n := storeLen(store.SessionStore); n != 1 {
		t.Fatalf("the store holds %d sessions after initialize, want 1", n)
	}
	for _, id := range []string{sid, "unknown"} {
		w = do(b, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if got, want := w.Body.String(), `{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Session not found"}}`; w.Code != http.StatusNotFound || got != want {
			t.Fatalf("ping of %q on the other Handler: %d %s, want 404 %s", id, w.Code, got, want)
		}
	}
	if n, m := store.touches.Load(), store.loads.Load(); n != 0 || m != 0 {
		t.Fatalf("%d Touch and %d Load calls, want none", n, m)
	}
	if w = do(a, http.MethodDelete, sid, ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", w.Code, w.Body)
	}
	if n := storeLen(store.SessionStore); n != 0 {
		t.Fatalf("the store holds %d sessions after DELETE, want 0", n)
	}
}

// panickyShared is a shared store whose Touch panics.
type panickyShared struct{ mcp.SessionStore }

func (panickyShared) Touch(context.Context, string, string) (*mcp.SessionState, error) {
	panic("touch boom")
}

// A shared store that panics answers 500, never 404, and the Handler
// goes on.
func TestSharedStorePanicIsInternalError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	store := panickyShared{mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true})}
	srv := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{SessionStore: store})
	h := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
	defer h.Close()
	for range 2 {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Session-Id", "some-session")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got, want := w.Body.String(), `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}`; w.Code != http.StatusInternalServerError || got != want {
			t.Fatalf("ping: %d %s, want 500 %s", w.Code, got, want)
		}
	}
}

// Two Handlers sharing one in-memory SessionStore (Share set) and one
// MemoryEventStore serve each other's streams: the streams scenario of
// package replicatest.
func TestReplicaStreamsSharingMemoryStores(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunStreams(t, func(t *testing.T) replicatest.Streams {
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, IdleTimeout: time.Hour})
		ev := &mcphttp.MemoryEventStore{}
		return replicatest.Streams{
			Store:  replicatest.Store{Store: st, Count: func(t *testing.T) int { return storeLen(st) }},
			Events: ev,
			Bounded: func(t *testing.T, sid string, deleted bool) {
				if n := ev.SessionSize(sid); deleted && n != 0 || !deleted && n == 0 {
					t.Fatalf("the event store holds %d bytes for the session (deleted %v)", n, deleted)
				}
			},
		}
	})
}

// eventsOnly hides a MemoryEventStore's Watch: the Handlers then poll it
// every EventPollInterval, and no event is lost for want of a wake-up.
type eventsOnly struct{ ev *mcphttp.MemoryEventStore }

func (s eventsOnly) Append(ctx context.Context, session, stream, id string, data []byte) error {
	return s.ev.Append(ctx, session, stream, id, data)
}

func (s eventsOnly) Replay(ctx context.Context, session, stream, after string, fn func(string, []byte) error) error {
	return s.ev.Replay(ctx, session, stream, after, fn)
}

func (s eventsOnly) DeleteSession(ctx context.Context, session string) error {
	return s.ev.DeleteSession(ctx, session)
}

// The streams scenario with an EventStore that cannot Watch: polling
// alone carries every event across.
func TestReplicaStreamsPollingAStoreWithoutWatch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunStreams(t, func(t *testing.T) replicatest.Streams {
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, IdleTimeout: time.Hour})
		return replicatest.Streams{
			Store:  replicatest.Store{Store: st},
			Events: eventsOnly{&mcphttp.MemoryEventStore{}},
		}
	})
}

// Two Handlers sharing one in-memory store and one memory Bus route the
// client's answers and cancellations to the replica where the request
// waits: the routing scenario of package replicatest.
func TestReplicasRoutingOnAMemoryBus(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunRouting(t, func(t *testing.T) replicatest.Routing {
		return replicatest.Routing{Store: mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true}), Tasks: mcp.NewMemoryTaskStore(), Bus: mcp.NewMemoryBus()}
	})
}

// A broadcast made on one replica reaches the GET streams of the
// sessions another holds, each once, on shared memory stores and a
// memory Bus: the broadcasts scenario of package replicatest.
func TestReplicaBroadcastsSharingMemoryStores(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunBroadcasts(t, func(t *testing.T) replicatest.Streams {
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, IdleTimeout: time.Hour})
		return replicatest.Streams{
			Store:  replicatest.Store{Store: st},
			Events: &mcphttp.MemoryEventStore{},
			Bus:    mcp.NewMemoryBus(),
		}
	})
}

// A replica killed mid-request: the client's POST stream resumed on
// another replica gets a JSON-RPC error once the lease lapses, and the
// session lives on: the lost-request scenario of package replicatest.
func TestReplicaLostRequestSharingMemoryStores(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunLostRequest(t, func(t *testing.T) replicatest.Streams {
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, IdleTimeout: time.Hour})
		return replicatest.Streams{Store: replicatest.Store{Store: st}, Events: &mcphttp.MemoryEventStore{}}
	})
}

// storeLen is how many sessions a store of mcp.NewMemorySessionStore
// holds.
func storeLen(s mcp.SessionStore) int { return s.(interface{ Len() int }).Len() }
