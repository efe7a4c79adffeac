package replicatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// This part runs what a shared session owns beyond its requests: a
// stateless-era request that names it, served on it on any replica
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility),
// and its tasks, which live as long as the session in the store, not as
// long as one replica's copy of it
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-lifecycle).

// downBus is a Bus whose Publish fails, as a bus that cannot reach its
// backend does, while down is set.
type downBus struct {
	mcp.Bus
	down *atomic.Bool
}

var errBusDown = fmt.Errorf("replicatest: bus taken down: %w", mcp.ErrStoreUnavailable)

func (b downBus) Publish(ctx context.Context, channel string, msg []byte) error {
	if b.down.Load() {
		return errBusDown
	}
	return b.Bus.Publish(ctx, channel, msg)
}

// busUnavailable is the refusal of a message the bus could not carry.
const busUnavailable = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Service unavailable: the message bus cannot be reached; retry later"}}`

// within receives from ch, or fails the test after streamTimeout.
func within(t *testing.T, what string, ch <-chan string) string {
	t.Helper()
	select {
	case got := <-ch:
		return got
	case <-time.After(streamTimeout):
		t.Fatalf("%s: nothing within %v", what, streamTimeout)
		return ""
	}
}

// initRouting opens a session on rep, declaring elicitation, and sends
// notifications/initialized to other.
func initRouting(t *testing.T, rep, other *routingReplica) string {
	t.Helper()
	r := rep.do(t, http.MethodPost, "", "", initElicit)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		t.Fatalf("initialize on %s: %d %q %s", rep.name, r.status, sid, r.body)
	}
	other.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on "+other.name, http.StatusAccepted, "")
	return sid
}

// RunSessionGaps runs the scenario of what a shared session owns beyond
// one request, on stores and a bus made by newRouting.
func RunSessionGaps(t *testing.T, newRouting NewRouting) {
	t.Run("a stateless-era request naming A's session runs on it on B: a cancel sent to A stops it", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		sid := initRouting(t, a, a)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := b.postModernSession(t, ctx, sid, 7, "tools/call", "block", `"name":"block","arguments":{}`)
		if got := within(t, "block started", b.rs.started); got != "B" {
			t.Fatalf("block started on %s", got)
		}
		if n := b.h.SessionCount(); n != 1 {
			t.Fatalf("B holds %d sessions while serving the request naming A's, want 1", n)
		}
		// Sent where the session was made; it reaches the request on B
		// only if B serves it on the session.
		a.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}`).want(t, "notifications/cancelled on A", http.StatusAccepted, "")
		if got := within(t, "block cancelled", b.rs.cancelled); got != "B" {
			t.Fatalf("block cancelled on %s", got)
		}
		// A cancelled request is never answered: the stream ends empty.
		if got := s.next(t); got != "" {
			t.Fatalf("B's stream after the cancel: %s, want its end", got)
		}
		// Once the session is deleted anywhere, a request naming it is
		// served on no session, as an unknown one always was.
		a.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on A", http.StatusNoContent, "")
		if got, want := b.postModernSession(t, ctx, sid, 8, "tools/call", "ask", `"name":"ask","arguments":{}`).one(t), `"resultType":"input_required"`; !strings.Contains(got, want) {
			t.Fatalf("ask naming the deleted session on B: %s, want %s", got, want)
		}
		if n := b.h.SessionCount(); n != 0 {
			t.Fatalf("B holds %d sessions after the DELETE, want 0", n)
		}
	})

	t.Run("a session-owned task outlives its replica's copy of the session and ends with its DELETE", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		sid := initRouting(t, a, a)
		created := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task-block","arguments":{},"task":{}}}`).next(t)
		id := sessionTaskID(t, created, "tools/call as a task on A")
		if got := within(t, "task-block started", a.rs.started); got != "A" {
			t.Fatalf("task-block started on %s", got)
		}
		// A's copy of the session closes (as on Handler.Close or when it
		// idles out there); the session lives on in the store.
		if err := a.h.Close(); err != nil {
			t.Fatal(err)
		}
		status := func(n int) string {
			t.Helper()
			got := b.postSSE(t, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%s}}`, n, strconv.Quote(id))).next(t)
			var r struct {
				Result struct {
					Status string `json:"status"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(got), &r); err != nil || r.Result.Status == "" {
				t.Fatalf("tasks/get on B: %s", got)
			}
			return r.Result.Status
		}
		if st := status(3); st != "working" {
			t.Fatalf("the task is %s on B after A's copy of the session closed, want working", st)
		}
		select {
		case got := <-a.rs.cancelled:
			t.Fatalf("task-block was cancelled on %s when A's copy of the session closed", got)
		default:
		}
		// The session's DELETE, on B, ends the task where it runs.
		b.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on B", http.StatusNoContent, "")
		if got := within(t, "task-block cancelled", a.rs.cancelled); got != "A" {
			t.Fatalf("task-block cancelled on %s", got)
		}
	})

	t.Run("a session's DELETE on B deletes its tasks, finished and running, from the store and ends the one running on A", func(t *testing.T) {
		a, b, r := newRoutingClusterOf(t, newRouting)
		sid := initRouting(t, a, a)
		done := sessionTaskID(t, a.postSSE(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task-done","arguments":{},"task":{}}}`).next(t), "task-done as a task on A")
		// tasks/result answers once the task has finished.
		if got, want := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":`+strconv.Quote(done)+`}}`).one(t),
			`{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":`+strconv.Quote(done)+`}},"content":[{"type":"text","text":"done on A"}]}}`; got != want {
			t.Fatalf("tasks/result of task-done on A: %s\nwant %s", got, want)
		}
		running := sessionTaskID(t, a.postSSE(t, sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"task-block","arguments":{},"task":{}}}`).next(t), "task-block as a task on A")
		if got := within(t, "task-block started", a.rs.started); got != "A" {
			t.Fatalf("task-block started on %s", got)
		}
		owner, ids := "session:"+sid, []string{done, running}
		if r.TaskKeys != nil {
			if got := r.TaskKeys(t, owner, ids); len(got) != 4 {
				t.Fatalf("the store holds %q of the tasks before the DELETE, want their 2 records and 2 index entries", got)
			}
		}
		ctx := context.Background()
		if list, _, err := b.srv.TaskStore().List(ctx, owner, "", 10); err != nil || len(list) != 2 {
			t.Fatalf("List on B before the DELETE: %d tasks, %v; want 2", len(list), err)
		}

		// A still holds its copy of the session: the DELETE reaches the
		// task running there through the bus.
		b.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on B", http.StatusNoContent, "")
		for _, id := range ids {
			for _, rep := range []*routingReplica{a, b} {
				if st, err := rep.srv.TaskStore().Get(ctx, owner, id); !errors.Is(err, mcp.ErrTaskNotFound) {
					t.Errorf("Get(%s) on %s after the DELETE = %+v, %v; want ErrTaskNotFound", id, rep.name, st, err)
				}
			}
		}
		if list, next, err := b.srv.TaskStore().List(ctx, owner, "", 10); err != nil || len(list) != 0 || next != "" {
			t.Errorf("List on B after the DELETE = %d tasks, %q, %v; want none", len(list), next, err)
		}
		if r.TaskKeys != nil {
			if got := r.TaskKeys(t, owner, ids); len(got) != 0 {
				t.Errorf("the store still holds %q of the tasks after the DELETE", got)
			}
		}
		if got := within(t, "task-block cancelled", a.rs.cancelled); got != "A" {
			t.Fatalf("task-block cancelled on %s", got)
		}
		// Another session is told the tasks do not exist.
		other := initRouting(t, b, b)
		for i, id := range ids {
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"Invalid params","data":"Failed to retrieve task: Task not found"}}`, 5+i)
			if got := b.postSSE(t, other, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%s}}`, 5+i, strconv.Quote(id))).next(t); got != want {
				t.Errorf("tasks/get of %s from another session: %s\nwant %s", id, got, want)
			}
		}
	})

	t.Run("a replica that finds the session gone from the store deletes its tasks", func(t *testing.T) {
		a, _, r := newRoutingClusterOf(t, newRouting)
		sid := initRouting(t, a, a)
		done := sessionTaskID(t, a.postSSE(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task-done","arguments":{},"task":{}}}`).next(t), "task-done as a task on A")
		if got := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":`+strconv.Quote(done)+`}}`).one(t); !strings.Contains(got, `"text":"done on A"`) {
			t.Fatalf("tasks/result of task-done on A: %s", got)
		}
		// The session leaves the store (as when it idles out there, or
		// its DELETE is served by a replica of an older version).
		ctx := context.Background()
		if err := r.Store.Delete(ctx, "", sid); err != nil {
			t.Fatal(err)
		}
		if got := a.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","id":4,"method":"ping"}`); got.status != http.StatusNotFound {
			t.Fatalf("ping on A after the session left the store: %d %s, want 404", got.status, got.body)
		}
		owner := "session:" + sid
		if st, err := a.srv.TaskStore().Get(ctx, owner, done); !errors.Is(err, mcp.ErrTaskNotFound) {
			t.Errorf("Get after A found the session gone = %+v, %v; want ErrTaskNotFound", st, err)
		}
		if r.TaskKeys != nil {
			if got := r.TaskKeys(t, owner, []string{done}); len(got) != 0 {
				t.Errorf("the store still holds %q of the task after A found the session gone", got)
			}
		}
	})

	t.Run("a response or cancel the bus cannot carry is 503 with Retry-After; sent again, it arrives", func(t *testing.T) {
		down := &atomic.Bool{}
		a, b := newRoutingCluster(t, func(t *testing.T) Routing {
			r := newRouting(t)
			r.Bus = downBus{Bus: r.Bus, down: down}
			if r.BusB != nil {
				r.BusB = downBus{Bus: r.BusB, down: down}
			}
			return r
		})
		sid := initRouting(t, a, a)
		s := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if ask := s.next(t); json.Unmarshal([]byte(ask), &m) != nil || m.Method != "elicitation/create" || len(m.ID) == 0 {
			t.Fatalf("A's stream: %s, want elicitation/create", ask)
		}
		answer := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"accept","content":{"name":"Gopher"}}}`
		down.Store(true)
		for _, x := range []struct{ what, body string }{
			{"the answer on B", answer},
			{"a cancel on B", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,"reason":"none such"}}`},
		} {
			r := b.do(t, http.MethodPost, sid, "", x.body)
			r.want(t, x.what+" with the bus down", http.StatusServiceUnavailable, busUnavailable)
			if got := r.header.Get("Retry-After"); got != "1" {
				t.Errorf("%s with the bus down: Retry-After %q, want 1", x.what, got)
			}
		}
		down.Store(false)
		b.do(t, http.MethodPost, sid, "", answer).want(t, "the answer on B, sent again", http.StatusAccepted, "")
		if got, want := s.next(t), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"accept on A: {\"name\":\"Gopher\"}"}]}}`; got != want {
			t.Fatalf("A's result: %s\nwant %s", got, want)
		}
	})
}
