package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"go.uber.org/goleak"
)

// sharedTaskReplicas is two replicas (servers) sharing a SessionStore, a
// TaskStore and a Bus, each with a task tool "quick", which returns at
// once, and "block", which reports on started and waits for its context,
// then reports on cancelled.
type sharedTaskReplicas struct {
	store              *memorySessionStore
	tasks              *memoryTaskStore
	a, b               *Server
	started, cancelled chan string
}

func newSharedTaskReplicas(t *testing.T) *sharedTaskReplicas {
	t.Helper()
	r := &sharedTaskReplicas{
		store: &memorySessionStore{MemorySessionStoreOptions: MemorySessionStoreOptions{Share: true}}, tasks: &memoryTaskStore{},
		started: make(chan string, 4), cancelled: make(chan string, 4),
	}
	bus := &memoryBus{}
	optional := &ToolExecution{TaskSupport: TaskSupportOptional}
	mk := func(name string) *Server {
		s := NewServer(Implementation{Name: name, Version: "1"}, &ServerOptions{
			SessionStore: r.store, Bus: bus,
			// A's watch of the session, once its copy closes, checks the
			// store every 10 ms.
			Tasks: TaskOptions{Store: r.tasks, PollInterval: 10 * time.Millisecond},
		})
		if err := AddTool(s, &Tool{Name: "quick", Description: "quick", Execution: optional}, func(context.Context, *Request, struct{}) (string, error) {
			return "done on " + name, nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := AddTool(s, &Tool{Name: "block", Description: "block", Execution: optional}, func(ctx context.Context, _ *Request, _ struct{}) (string, error) {
			r.started <- name
			<-ctx.Done()
			r.cancelled <- name
			return "", ctx.Err()
		}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	r.a, r.b = mk("A"), mk("B")
	return r
}

// open makes server s's copy of session id, creating the session in the
// store first if create.
func (r *sharedTaskReplicas) open(t *testing.T, s *Server, id string, create bool) *ServerSession {
	t.Helper()
	if create {
		if err := r.store.Create(context.Background(), &SessionState{ID: id, Lifecycle: stateReady, ProtocolVersion: LatestVersion}); err != nil {
			t.Fatal(err)
		}
	}
	ss := s.newSession(SessionOptions{ID: id, Preinitialized: true, TransportStores: true})
	t.Cleanup(func() { _ = ss.Close() })
	return ss
}

// callOn sends a request on ss and returns its response's JSON.
func callOn(t *testing.T, ss *ServerSession, id int64, method, params string) string {
	t.Helper()
	resp, err := ss.handleRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(id), Method: method, Params: json.RawMessage(params)}, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	b, err := jsonrpc.Encode(resp)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// createTasks runs "quick" (to its end) and "block" (left running) as
// tasks on ss, and returns their ids.
func (r *sharedTaskReplicas) createTasks(t *testing.T, ss *ServerSession) (finished, running string) {
	t.Helper()
	taskOf := func(got string) string {
		t.Helper()
		var c struct {
			Result struct {
				Task struct {
					TaskID string `json:"taskId"`
					Status string `json:"status"`
				} `json:"task"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(got), &c); err != nil || c.Result.Task.TaskID == "" || c.Result.Task.Status != "working" {
			t.Fatalf("tools/call as a task: %s", got)
		}
		return c.Result.Task.TaskID
	}
	finished = taskOf(callOn(t, ss, 1, "tools/call", `{"name":"quick","arguments":{},"task":{}}`))
	// tasks/result waits for the task's end.
	if got, want := callOn(t, ss, 2, "tasks/result", `{"taskId":`+strconv.Quote(finished)+`}`),
		`{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":`+strconv.Quote(finished)+`}},"content":[{"type":"text","text":"done on A"}]}}`; got != want {
		t.Fatalf("tasks/result of quick: %s\nwant %s", got, want)
	}
	running = taskOf(callOn(t, ss, 3, "tools/call", `{"name":"block","arguments":{},"task":{}}`))
	if got := recvWithin(t, "block started", r.started); got != "A" {
		t.Fatalf("block started on %s", got)
	}
	return finished, running
}

// statusOn returns the status tasks/get on ss answers for task id.
func statusOn(t *testing.T, ss *ServerSession, id string) string {
	t.Helper()
	got := callOn(t, ss, 9, "tasks/get", `{"taskId":`+strconv.Quote(id)+`}`)
	var r struct {
		Result struct {
			Status string `json:"status"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.Result.Status == "" {
		t.Fatalf("tasks/get %s: %s", id, got)
	}
	return r.Result.Status
}

// A replica's copy of a shared session closing leaves the session's
// tasks, finished and running, reachable from the other replica's copy
// and in the TaskStore: the session lives on in the SessionStore.
func TestSharedSessionTasksOutliveAReplicaLocalClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := newSharedTaskReplicas(t)
	sa := r.open(t, r.a, "s1", true)
	finished, running := r.createTasks(t, sa)
	if err := sa.Close(); err != nil {
		t.Fatal(err)
	}
	sb := r.open(t, r.b, "s1", false)
	if got := statusOn(t, sb, finished); got != "completed" {
		t.Errorf("the finished task is %s on B after A's copy closed, want completed", got)
	}
	if got := statusOn(t, sb, running); got != "working" {
		t.Errorf("the running task is %s on B after A's copy closed, want working", got)
	}
	if list, _, err := r.tasks.List(context.Background(), "session:s1", "", 10); err != nil || len(list) != 2 {
		t.Errorf("List after A's copy closed: %d tasks, %v; want 2", len(list), err)
	}
	select {
	case got := <-r.cancelled:
		t.Fatalf("block was cancelled on %s when A's copy of the session closed", got)
	default:
	}
	// The session's end, later, ends the task A still runs: its watch of
	// the store finds the session gone.
	if err := r.store.Delete(context.Background(), "", "s1"); err != nil {
		t.Fatal(err)
	}
	if got := recvWithin(t, "block cancelled", r.cancelled); got != "A" {
		t.Fatalf("block cancelled on %s", got)
	}
	waitForgotten(t, r.a, running)
	waitForgotten(t, r.a, finished)
	rt := r.a.taskRT()
	rt.mu.Lock()
	n := rt.ledger.count
	rt.mu.Unlock()
	if n != 0 {
		t.Errorf("A's ledger holds %d tasks after the session ended, want 0", n)
	}
	if _, err := r.tasks.Get(context.Background(), "session:s1", finished); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("Get of the finished task after the session ended = %v, want ErrTaskNotFound", err)
	}
}

// waitForgotten waits until server s has recorded the end of task id's
// work (finishTask has returned).
func waitForgotten(t *testing.T, s *Server, id string) {
	t.Helper()
	rt := s.taskRT()
	rt.mu.Lock()
	run := rt.runs[id]
	rt.mu.Unlock()
	if run != nil {
		select {
		case <-run.released:
		case <-time.After(sessionEndTestTimeout):
			t.Fatalf("task %s still running after %v", id, sessionEndTestTimeout)
		}
	}
}

// sessionEndTestTimeout fails a test whose awaited event never comes,
// instead of hanging it.
const sessionEndTestTimeout = 10 * time.Second

// recvWithin receives from ch, or fails the test after
// sessionEndTestTimeout.
func recvWithin(t *testing.T, what string, ch <-chan string) string {
	t.Helper()
	select {
	case got := <-ch:
		return got
	case <-time.After(sessionEndTestTimeout):
		t.Fatalf("%s: nothing within %v", what, sessionEndTestTimeout)
		return ""
	}
}

// A shared session's DELETE served by replica B (the SessionStore
// deletes it, then the transport calls Host.EndSession) deletes
// the tasks it owned, finished and running, from the TaskStore, and
// ends the one running on A, which still holds its copy of the session,
// through the Bus; a new session is told the tasks do not exist.
func TestSharedSessionDeleteEndsItsTasks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := newSharedTaskReplicas(t)
	sa := r.open(t, r.a, "s1", true)
	finished, running := r.createTasks(t, sa)
	ctx := context.Background()

	// What Streamable HTTP does for DELETE on B.
	if err := r.store.Delete(ctx, "", "s1"); err != nil {
		t.Fatal(err)
	}
	r.b.Host().EndSession(ctx, "s1")

	for _, id := range []string{finished, running} {
		if st, err := r.tasks.Get(ctx, "session:s1", id); !errors.Is(err, ErrTaskNotFound) {
			t.Errorf("Get(%s) after the DELETE = %+v, %v; want ErrTaskNotFound", id, st, err)
		}
	}
	if list, next, err := r.tasks.List(ctx, "session:s1", "", 10); err != nil || len(list) != 0 || next != "" {
		t.Errorf("List after the DELETE = %d tasks, %q, %v; want none", len(list), next, err)
	}
	if got := recvWithin(t, "block cancelled", r.cancelled); got != "A" {
		t.Fatalf("block cancelled on %s", got)
	}
	waitForgotten(t, r.a, running)
	waitForgotten(t, r.a, finished)
	rt := r.a.taskRT()
	rt.mu.Lock()
	count, owners := rt.ledger.count, len(rt.ledger.owners)
	rt.mu.Unlock()
	if count != 0 || owners != 0 {
		t.Errorf("A's ledger holds %d tasks of %d owners after the DELETE, want none", count, owners)
	}
	// The running task's end did not bring it back.
	if _, err := r.tasks.Get(ctx, "session:s1", running); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("Get of the running task after its work ended = %v, want ErrTaskNotFound", err)
	}

	s2 := r.open(t, r.b, "s2", true)
	for i, id := range []string{finished, running} {
		want := `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params","data":"Failed to retrieve task: Task not found"}}`
		if got := callOn(t, s2, 9, "tasks/get", `{"taskId":`+strconv.Quote(id)+`}`); got != want {
			t.Errorf("tasks/get of task %d from a new session: %s\nwant %s", i, got, want)
		}
	}
	_ = sa
}

// endStore is a TaskStore whose List and Delete misbehave as told.
type endStore struct {
	*memoryTaskStore
	list, del string // "block" (until the context ends), "panic", "fail", or "" for the store's own
}

func (s *endStore) List(ctx context.Context, owner, cursor string, limit int) ([]*TaskState, string, error) {
	switch s.list {
	case "block":
		<-ctx.Done()
		return nil, "", ctx.Err()
	case "panic":
		panic("list boom")
	case "fail":
		return nil, "", errors.New("list boom")
	}
	return s.memoryTaskStore.List(ctx, owner, cursor, limit)
}

func (s *endStore) Delete(ctx context.Context, owner, id string) error {
	switch s.del {
	case "block":
		<-ctx.Done()
		return ctx.Err()
	case "panic":
		panic("delete boom")
	case "fail":
		return errors.New("delete boom")
	}
	return s.memoryTaskStore.Delete(ctx, owner, id)
}

// The cleanup at a shared session's end deletes all of the session's
// tasks, page after page, and no other owner's; it does nothing when
// TaskOptions.Owner decides who owns tasks; a store that fails, panics
// or hangs is logged and ends the cleanup, within SessionEndTimeout.
func TestSessionEndTaskCleanupBounds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	fill := func(t *testing.T, m *memoryTaskStore, owner string, n int) {
		t.Helper()
		for i := range n {
			if err := m.Create(ctx, &TaskState{Task: Task{TaskID: owner + "#" + strconv.Itoa(i), Status: TaskCompleted}, Owner: owner}); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func(t *testing.T, m *memoryTaskStore, owner string) int {
		t.Helper()
		n := 0
		for cursor := ""; ; {
			page, next, err := m.List(ctx, owner, cursor, 100)
			if err != nil {
				t.Fatal(err)
			}
			n += len(page)
			if next == "" {
				return n
			}
			cursor = next
		}
	}

	t.Run("every page, one owner", func(t *testing.T) {
		m := &memoryTaskStore{}
		fill(t, m, "session:s9", 2*sessionEndPage+50)
		fill(t, m, "session:s10", 3)
		fill(t, m, "user:x", 3)
		s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{Tasks: TaskOptions{Store: m}})
		s.endSharedSession(ctx, "s9")
		if n := count(t, m, "session:s9"); n != 0 {
			t.Errorf("%d tasks of the ended session left, want 0", n)
		}
		if n, k := count(t, m, "session:s10"), count(t, m, "user:x"); n != 3 || k != 3 {
			t.Errorf("other owners keep %d and %d tasks, want 3 and 3", n, k)
		}
	})

	t.Run("an Owner function keeps them", func(t *testing.T) {
		m := &memoryTaskStore{}
		fill(t, m, "session:s9", 3)
		s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{Tasks: TaskOptions{Store: m, Owner: func(*Request) string { return "session:s9" }}})
		s.endSharedSession(ctx, "s9")
		if n := count(t, m, "session:s9"); n != 3 {
			t.Errorf("%d tasks left, want 3: with an Owner function tasks do not belong to sessions", n)
		}
	})

	for _, tc := range []struct {
		name, list, del string
		left            int
		log             string
	}{
		{"List hangs", "block", "", 3, `err="deleted 0 of the 0 tasks listed when TaskOptions.SessionEndTimeout (20ms) ran out: context deadline exceeded"`},
		{"Delete hangs", "", "block", 3, `err="deleted 0 of the 3 tasks listed when TaskOptions.SessionEndTimeout (20ms) ran out: context deadline exceeded"`},
		{"List fails", "fail", "", 3, `err="listing them: list boom"`},
		{"Delete fails", "", "fail", 3, `err="deleting task session:s9#0: delete boom"`},
		{"List panics", "panic", "", 3, `err="listing them: mcp: the store panicked"`},
		{"Delete panics", "", "panic", 3, `err="deleting task session:s9#0: mcp: the store panicked"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memoryTaskStore{}
			fill(t, m, "session:s9", 3)
			logger, logs := lcPanicLogger()
			s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{
				Logger: logger,
				Tasks:  TaskOptions{Store: &endStore{memoryTaskStore: m, list: tc.list, del: tc.del}, SessionEndTimeout: 20 * time.Millisecond},
			})
			s.endSharedSession(ctx, "s9")
			if n := count(t, m, "session:s9"); n != tc.left {
				t.Errorf("%d tasks left, want %d", n, tc.left)
			}
			l := logs.String()
			if !strings.Contains(l, `level=ERROR msg="mcp: deleting the tasks of an ended session" owner=session:s9 `+tc.log) {
				t.Errorf("logs:\n%s\nwant the error %s", l, tc.log)
			}
		})
	}
}
