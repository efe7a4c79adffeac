package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// Two Handlers sharing one in-memory SessionStore and one
// MemoryEventStore hold one GET stream per session between them, with
// the store's stream lease: the GET lease scenario of package
// replicatest.
func TestReplicaGETLeaseSharingMemoryStores(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunGETLease(t, func(t *testing.T) replicatest.Streams {
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, IdleTimeout: time.Hour})
		return replicatest.Streams{Store: replicatest.Store{Store: st}, Events: &mcphttp.MemoryEventStore{}}
	})
}

// A stateless-era request naming a session is served on it on any
// replica, and a session-owned task lives as long as the session in the
// shared store: the session gaps scenario of package replicatest.
func TestReplicaSessionGapsOnAMemoryBus(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunSessionGaps(t, func(t *testing.T) replicatest.Routing {
		return replicatest.Routing{Store: mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true}), Tasks: mcp.NewMemoryTaskStore(), Bus: mcp.NewMemoryBus()}
	})
}

// The routing and session gaps scenarios with Handlers made by
// NewHandlerFunc: a server chosen per request routes client messages
// across replicas as one server does.
func TestReplicasRoutingPerRequestOnAMemoryBus(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	newRouting := func(t *testing.T) replicatest.Routing {
		return replicatest.Routing{Store: mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true}), Tasks: mcp.NewMemoryTaskStore(), Bus: mcp.NewMemoryBus(), PerRequest: true}
	}
	replicatest.RunRouting(t, newRouting)
	replicatest.RunSessionGaps(t, newRouting)
}

// downShared is a shared store that cannot be reached.
type downShared struct{ mcp.SessionStore }

func (downShared) Touch(context.Context, string, string) (*mcp.SessionState, error) {
	return nil, fmt.Errorf("down: %w", mcp.ErrStoreUnavailable)
}

// A stateless-era request naming a session, when the shared store cannot
// answer, is 503 with Retry-After, as in the session era: never served as
// though the session did not exist.
func TestStatelessRequestNamingASessionWithTheStoreDown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{SessionStore: downShared{mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true})}})
	h := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
	defer h.Close()
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/list")
	r.Header.Set("Mcp-Session-Id", "some-session")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Service unavailable: the session store cannot be reached; retry later"}}`
	if got := strings.TrimSpace(w.Body.String()); w.Code != http.StatusServiceUnavailable || got != want || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("tools/list naming a session, store down: %d Retry-After %q %s\nwant 503, 1, %s", w.Code, w.Header().Get("Retry-After"), got, want)
	}
}

// failingBus is a memory Bus whose Publish cannot reach its backend.
type failingBus struct{ mcp.Bus }

func (failingBus) Publish(context.Context, string, []byte) error {
	return fmt.Errorf("bus down: %w", mcp.ErrStoreUnavailable)
}

// A batch (2025-03-26) of only client responses and notifications, one
// of which the bus cannot publish, is 503 with Retry-After, as a single
// such message is.
func TestBatchTheBusCannotPublishIs503(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{
		SessionStore: mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true}),
		Bus:          failingBus{mcp.NewMemoryBus()},
	})
	h := mcphttp.NewHandler(srv, &mcphttp.Options{JSONResponse: true})
	defer h.Close()
	post := func(sid, body string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
			r.Header.Set("MCP-Protocol-Version", "2025-03-26")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	if w = post(sid, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`); w.Code != http.StatusAccepted {
		t.Fatalf("a batch of notifications/initialized: %d %s, want 202", w.Code, w.Body)
	}
	w = post(sid, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":99,"result":{}}]`)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Service unavailable: the message bus cannot be reached; retry later"}}`
	if got := strings.TrimSpace(w.Body.String()); w.Code != http.StatusServiceUnavailable || got != want || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("a batch with a response the bus cannot publish: %d Retry-After %q %s\nwant 503, 1, %s", w.Code, w.Header().Get("Retry-After"), got, want)
	}
}

// A session-owned task whose replica's copy of a shared session closed
// runs on, reachable from another replica, until the session idles out
// in the store; then it is cancelled where it runs.
func TestSessionTaskEndsWithTheSharedSessionsExpiry(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	const idle = time.Hour
	store := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, IdleTimeout: idle, Now: clock.Now})
	tasks := mcp.NewMemoryTaskStore()
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	newServer := func() *mcp.Server {
		s := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{
			SessionStore: store,
			Tasks:        mcp.TaskOptions{Store: tasks, PollInterval: 10 * time.Millisecond},
		})
		_ = mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "block", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
				started <- struct{}{}
				<-ctx.Done()
				cancelled <- struct{}{}
				return "", ctx.Err()
			})
		return s
	}
	a := mcphttp.NewHandler(newServer(), &mcphttp.Options{JSONResponse: true})
	defer a.Close()
	b := mcphttp.NewHandler(newServer(), &mcphttp.Options{JSONResponse: true})
	defer b.Close()
	post := func(h http.Handler, sid, body string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
			r.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := post(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	post(a, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w = post(a, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{},"task":{}}}`)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &created); err != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("tools/call as a task: %d %s", w.Code, w.Body)
	}
	<-started
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	get := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":%q}}`, created.Result.Task.TaskID)
	if w = post(b, sid, get); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"working"`) {
		t.Fatalf("tasks/get on B after A closed: %d %s, want the task working", w.Code, w.Body)
	}
	clock.advance(idle + time.Second)
	select {
	case <-cancelled:
	case <-time.After(20 * time.Second):
		t.Fatal("the task was not cancelled once its session expired in the store")
	}
}
