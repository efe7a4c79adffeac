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
	store := srv.TaskStore().(*mcp.MemoryTaskStore)
	if got, _ := store.Held(); got != states {
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
		s := &mcp.MemoryTaskStore{}
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
		if states, owners := s.Held(); states != 2 || owners != 1 {
			t.Errorf("after deleting 2 of 4: %d states, %d owners held; want 2, 1", states, owners)
		}
		time.Sleep(2 * time.Second)
		if _, err := s.Get(ctx, "o", "d"); !errors.Is(err, mcp.ErrTaskNotFound) {
			t.Errorf("Get of an expired task = %v", err)
		}
		if states, _ := s.Held(); states != 1 {
			t.Errorf("after an expired task was looked at: %d states held, want 1", states)
		}
		if err := s.Delete(ctx, "o", "b"); err != nil {
			t.Fatal(err)
		}
		if states, owners := s.Held(); states != 0 || owners != 0 {
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
		if states, _ := s.Held(); states != 2 {
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
					if err := cs.GetTaskResult(context.Background(), &mcp.GetTaskPayloadParams{TaskID: created.Task.TaskID}, nil); err != nil {
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
