package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// Tests that what tasks hold is freed, and bounded (issue 25, item 2).

// wantHeld checks what the store keeps reachable and what the server's
// ledger counts.
func wantHeld(t *testing.T, what string, srv *mcp.Server, states, tasks int) {
	t.Helper()
	if got, _ := mcp.MemoryTaskStoreHeld(srv.TaskStore()); got != states {
		t.Errorf("%s: the store keeps %d task states reachable, want %d", what, got, states)
	}
	if got, _, _, _, _ := mcp.TaskLedger(srv); got != tasks {
		t.Errorf("%s: the ledger counts %d tasks, want %d", what, got, tasks)
	}
}

// TestMemoryTaskStoreDeleteFrees: a deleted or expired task's state is
// no longer reachable from the store at once, not after the next sweep.
func TestMemoryTaskStoreDeleteFrees(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := mcp.NewMemoryTaskStore()
		now := time.Now()
		big := json.RawMessage(`"` + strings.Repeat("r", 1<<20) + `"`)
		for i, id := range []string{"a", "b", "c", "d"} {
			ttl := time.Hour
			if id == "d" {
				ttl = time.Second
			}
			if err := s.Create(ctx, &mcp.TaskState{Task: mcp.Task{TaskID: id}, Owner: "o", ExpiresAt: now.Add(ttl)}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Update(ctx, "o", id, func(st *mcp.TaskState) error { st.Result = big; return nil }); err != nil {
				t.Fatal(i, err)
			}
		}
		for _, id := range []string{"a", "c"} {
			if err := s.Delete(ctx, "o", id); err != nil {
				t.Fatal(err)
			}
		}
		if states, owners := mcp.MemoryTaskStoreHeld(s); states != 2 || owners != 1 {
			t.Errorf("after deleting 2 of 4: %d states, %d owners held; want 2, 1", states, owners)
		}
		time.Sleep(2 * time.Second)
		if _, err := s.Get(ctx, "o", "d"); !errors.Is(err, mcp.ErrTaskNotFound) {
			t.Errorf("Get of an expired task = %v", err)
		}
		if states, _ := mcp.MemoryTaskStoreHeld(s); states != 1 {
			t.Errorf("after an expired task was looked at: %d states held, want 1", states)
		}
		if err := s.Delete(ctx, "o", "b"); err != nil {
			t.Fatal(err)
		}
		if states, owners := mcp.MemoryTaskStoreHeld(s); states != 0 || owners != 0 {
			t.Errorf("after deleting all: %d states, %d owners held; want 0, 0", states, owners)
		}
		// List skips and frees expired tasks while it pages.
		for _, id := range []string{"e", "f", "g"} {
			ttl := time.Hour
			if id == "f" {
				ttl = time.Second
			}
			if err := s.Create(ctx, &mcp.TaskState{Task: mcp.Task{TaskID: id}, Owner: "o", ExpiresAt: time.Now().Add(ttl)}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Second)
		page, next, err := s.List(ctx, "o", "", 1)
		if err != nil || len(page) != 1 || page[0].Task.TaskID != "e" || next == "" {
			t.Fatalf("List page 1 = %v, %q, %v", page, next, err)
		}
		page, next, err = s.List(ctx, "o", next, 1)
		if err != nil || len(page) != 1 || page[0].Task.TaskID != "g" || next != "" {
			t.Fatalf("List page 2 = %v, %q, %v", page, next, err)
		}
		if states, _ := mcp.MemoryTaskStoreHeld(s); states != 2 {
			t.Errorf("after List met an expired task: %d states held, want 2", states)
		}
	})
}

// TestTaskSessionsEndHoldNothing is the report's rounds in small: each
// round two sessions run 40 tasks with large arguments and results (past
// the owner's byte bound, so that older results are evicted), then end;
// after every round the store and the ledger hold nothing. Before the fix
// the store kept every deleted task's result reachable until a sweep
// (issue 25, item 2).
func TestTaskSessionsEndHoldNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size = 8 << 10
		srv, _ := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{
			MaxStoredBytesPerOwner: 8 * size, MaxTTL: 48 * time.Hour,
		}})
		args := fmt.Sprintf(`{"n":%d,"label":%q}`, size, strings.Repeat("l", size))
		ttl := int64(86400000)
		for round := 1; round <= 3; round++ {
			for range 2 {
				cs, ss := taskConnect(t, srv, nil)
				for range 40 {
					created, err := cs.CallToolAsTask(context.Background(), &mcp.CallToolParams{
						Name: "sized", Arguments: json.RawMessage(args), Task: &mcp.TaskMetadata{TTL: &ttl},
					})
					if err != nil {
						t.Fatal(err)
					}
					if err := cs.GetTaskResult(context.Background(), &mcp.TaskParams{TaskID: created.Task.TaskID}, nil); err != nil {
						t.Fatal(err)
					}
				}
				synctest.Wait()
				if _, bytes, _, _, _ := mcp.TaskLedger(srv); bytes > 8*size {
					t.Errorf("round %d: a session's tasks hold %d bytes, over its bound %d", round, bytes, 8*size)
				}
				cs.Close()
				ss.Wait()
				synctest.Wait()
			}
			wantHeld(t, fmt.Sprintf("round %d", round), srv, 0, 0)
			if tasks, bytes, accounts, sessions, runs := mcp.TaskLedger(srv); tasks+int(bytes)+accounts+sessions+runs != 0 {
				t.Errorf("round %d: ledger = %d tasks, %d bytes, %d accounts, %d sessions, %d runs; want nothing", round, tasks, bytes, accounts, sessions, runs)
			}
		}
	})
}

// TestTasksExtHoldBounded: a stateless-era task has no session to end
// with. Its bytes count against the bounds of its owner (TaskOptions.Owner)
// or, without one, the server's; evicted tasks leave the store at once,
// and expired ones when the ledger next finds them, so the store never
// keeps more than the ledger counts.
func TestTasksExtHoldBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owner func(*mcp.Request) string
		bound string
	}{
		{"ownerless", nil, "the server's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytes)"},
		{"owned", func(*mcp.Request) string { return "alice" }, "the requestor's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytesPerOwner)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const size = 8 << 10
				srv, _ := txServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{
					Owner: tc.owner, MaxStoredBytesPerOwner: 4 * size, MaxStoredBytes: 4 * size,
				}})
				if err := srv.AddTool(&mcp.Tool{Name: "sized", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
					func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
						var in struct{ N int }
						if err := json.Unmarshal(args, &in); err != nil {
							return nil, err
						}
						return sizedResult(in.N), nil
					}); err != nil {
					t.Fatal(err)
				}
				rest := fmt.Sprintf(`,"name":"sized","arguments":{"n":%d,"label":%q}`, size, strings.Repeat("l", size/2))
				for i := range 40 {
					txStart(t, srv, i+1, "sized", txExt) // a small one in between
					if got := txCall(t, srv, 100+i, "tools/call", txExt, rest); !strings.Contains(got, `"resultType":"task"`) {
						t.Fatalf("task %d: %s", i, got)
					}
					synctest.Wait()
				}
				tasks, bytes, _, _, _ := mcp.TaskLedger(srv)
				if bytes > 4*size {
					t.Errorf("the tasks hold %d bytes, over the bound %d", bytes, 4*size)
				}
				wantHeld(t, "after 80 tasks", srv, tasks, tasks)

				// A request larger than the whole bound is refused, and
				// names it.
				huge := fmt.Sprintf(`,"name":"sized","arguments":{"n":1,"label":%q}`, strings.Repeat("h", 4*size))
				hugeArgs := huge[len(`,"name":"sized","arguments":`):]
				n := len(txParams(txExt, huge)) + len(hugeArgs)
				frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":500,"method":"tools/call","params":%s}`, txParams(txExt, huge))
				resp, _, _ := txServe(t, srv, frame, nil)
				txWant(t, "a request over the bound", resp, txErr(500, -32600, "Invalid Request",
					strconvQuote(fmt.Sprintf("Invalid Request: the task's request is %d bytes, and "+tc.bound, n, bytes, 4*size))))

				// Past their ttl, the next task's creation frees them.
				time.Sleep(time.Hour)
				txStart(t, srv, 600, "sized", txExt)
				synctest.Wait()
				wantHeld(t, "after the ttl", srv, 1, 1)
			})
		})
	}
}

// TestTaskStatusMessageBound: a status message counts against the byte
// bounds; one that cannot be held is refused with ErrTaskTooLarge and the
// bound named, and the task goes on.
func TestTaskStatusMessageBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 4096
		srv, _ := newBoundsServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxStoredBytesPerOwner: limit}})
		errs := make(chan error, 2)
		if err := srv.AddTool(&mcp.Tool{Name: "chatty", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
				task := mcp.TaskFromContext(ctx)
				errs <- task.SetStatus(ctx, mcp.TaskWorking, strings.Repeat("m", limit))
				errs <- task.SetStatus(ctx, mcp.TaskWorking, "fits")
				return sizedResult(1), nil
			}); err != nil {
			t.Fatal(err)
		}
		cs, _ := taskConnect(t, srv, nil)
		finishedTask(t, cs, "chatty", "{}")
		err := <-errs
		want := fmt.Sprintf("mcp: the task cannot hold more bytes: the task's status message is %d bytes, and the requestor's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytesPerOwner)",
			limit, taskRequestBytes(t, "chatty", "{}"), limit)
		if !errors.Is(err, mcp.ErrTaskTooLarge) || err.Error() != want {
			t.Errorf("SetStatus of a long message = %v\nwant %s", err, want)
		}
		if err := <-errs; err != nil {
			t.Errorf("SetStatus of a short message = %v", err)
		}
		if _, bytes, _, _, _ := mcp.TaskLedger(srv); bytes != int64(sizedBytes(t, 1)) {
			t.Errorf("the finished task holds %d bytes, want its result's %d", bytes, sizedBytes(t, 1))
		}
	})
}

// TestTasksExtInputBound: a stateless-era task's outstanding input
// requests count against the byte bounds; Request.Input that cannot have
// them held fails with ErrTaskTooLarge, and the task shows none.
func TestTasksExtInputBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 4096
		srv, _ := txServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxStoredBytes: limit}})
		req := mcp.ElicitationInput(&mcp.ElicitParams{
			Message:         strings.Repeat("q", limit),
			RequestedSchema: &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{{Name: "ok", Schema: &mcp.PrimitiveSchema{Type: "boolean"}}}},
		})
		errs := make(chan error, 1)
		if err := srv.AddTool(&mcp.Tool{Name: "asker", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
				_, err := r.Input(ctx, map[string]*mcp.InputRequest{"ask": req})
				errs <- err
				return sizedResult(1), nil
			}); err != nil {
			t.Fatal(err)
		}
		obj, err := json.Marshal(map[string]*mcp.InputRequest{"ask": req})
		if err != nil {
			t.Fatal(err)
		}
		rest := `,"name":"asker","arguments":{}`
		id, _ := txStart(t, srv, 1, "asker", txExtAll)
		synctest.Wait()
		err = <-errs
		want := fmt.Sprintf("mcp: the task cannot hold more bytes: the task's inputRequests object is %d bytes, and the server's tasks already hold %d of at most %d (TaskOptions.MaxStoredBytes)",
			len(obj), len(txParams(txExtAll, rest))+len(`{}`), limit)
		if !errors.Is(err, mcp.ErrTaskTooLarge) || err.Error() != want {
			t.Errorf("Input of a long request = %v\nwant %s", err, want)
		}
		got := txCall(t, srv, 2, "tasks/get", txExt, `,"taskId":"`+id+`"`)
		if !strings.Contains(got, `"status":"completed"`) || strings.Contains(got, "inputRequests") {
			t.Errorf("tasks/get = %s, want completed without input requests", got)
		}
	})
}
