package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

func TestMemoryTaskStore(t *testing.T) {
	testTaskStore(t, func() mcp.TaskStore { return mcp.NewMemoryTaskStore() })
}

// testTaskStore checks the rules of the TaskStore interface. It is written
// to run unchanged against any implementation (a Redis store later).
func testTaskStore(t *testing.T, newStore func() mcp.TaskStore) {
	ctx := context.Background()
	state := func(id, owner string, ttl time.Duration) *mcp.TaskState {
		now := time.Now().UTC()
		ms := ttl.Milliseconds()
		return &mcp.TaskState{
			Task:      mcp.Task{TaskID: id, Status: mcp.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: &ms},
			Owner:     owner,
			Method:    "tools/call",
			ExpiresAt: now.Add(ttl),
		}
	}

	t.Run("create, get, update, delete", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newStore()
			in := state("t1", "alice", time.Hour)
			if err := s.Create(ctx, in); err != nil {
				t.Fatal(err)
			}
			in.Task.Status = mcp.TaskFailed // the store kept a copy
			got, err := s.Get(ctx, "alice", "t1")
			if err != nil {
				t.Fatal(err)
			}
			if got.Task.Status != mcp.TaskWorking || got.Method != "tools/call" || *got.Task.TTL != 3600000 {
				t.Errorf("Get = %+v", got)
			}
			got.Task.Status = mcp.TaskFailed // and gave a copy
			if again, _ := s.Get(ctx, "alice", "t1"); again.Task.Status != mcp.TaskWorking {
				t.Error("the caller's change reached the store")
			}
			if err := s.Create(ctx, state("t1", "alice", time.Hour)); err == nil {
				t.Error("Create with an id in use succeeded")
			}

			upd, err := s.Update(ctx, "alice", "t1", func(st *mcp.TaskState) error {
				st.Task.Status = mcp.TaskCompleted
				st.Result = json.RawMessage(`{"content":[]}`)
				st.Task.TaskID, st.Owner = "changed", "mallory" // ignored
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if upd.Task.Status != mcp.TaskCompleted || upd.Task.TaskID != "t1" || upd.Owner != "alice" || string(upd.Result) != `{"content":[]}` {
				t.Errorf("Update = %+v", upd)
			}
			refused := errors.New("refused")
			if _, err := s.Update(ctx, "alice", "t1", func(st *mcp.TaskState) error {
				st.Task.Status = mcp.TaskWorking
				return refused
			}); !errors.Is(err, refused) {
				t.Errorf("Update with fn's error = %v", err)
			}
			if got, _ := s.Get(ctx, "alice", "t1"); got.Task.Status != mcp.TaskCompleted {
				t.Error("a refused update was stored")
			}

			if err := s.Create(ctx, &mcp.TaskState{Task: mcp.Task{TaskID: "t2", Status: mcp.TaskFailed}, Owner: "alice",
				Error: jsonrpc.NewError(-32050, "x", "y")}); err != nil {
				t.Fatal(err)
			}
			got, err = s.Get(ctx, "alice", "t2")
			if err != nil || got.Error == nil || got.Error.Code != -32050 || string(got.Error.Data) != `"y"` || !got.ExpiresAt.IsZero() {
				t.Errorf("task without ttl: %+v, %v", got, err)
			}

			if err := s.Delete(ctx, "alice", "t1"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "alice", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get after Delete = %v", err)
			}
			if err := s.Delete(ctx, "alice", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("second Delete = %v", err)
			}
		})
	})

	t.Run("owners", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newStore()
			if err := s.Create(ctx, state("t1", "alice", time.Hour)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "bob", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get by another owner = %v", err)
			}
			if _, err := s.Update(ctx, "bob", "t1", func(*mcp.TaskState) error { return nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Update by another owner = %v", err)
			}
			if err := s.Delete(ctx, "bob", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Delete by another owner = %v", err)
			}
			list, next, err := s.List(ctx, "bob", "", 10)
			if err != nil || len(list) != 0 || next != "" {
				t.Errorf("List by another owner = %v, %q, %v", list, next, err)
			}
			if _, err := s.Get(ctx, "alice", "t1"); err != nil {
				t.Errorf("the owner lost its task: %v", err)
			}
		})
	})

	t.Run("expiry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newStore()
			for _, st := range []*mcp.TaskState{state("short", "alice", time.Second), state("long", "alice", time.Hour)} {
				if err := s.Create(ctx, st); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(999 * time.Millisecond)
			if _, err := s.Get(ctx, "alice", "short"); err != nil {
				t.Fatalf("before expiry: %v", err)
			}
			time.Sleep(time.Millisecond)
			if _, err := s.Get(ctx, "alice", "short"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get at expiry = %v", err)
			}
			if _, err := s.Update(ctx, "alice", "short", func(*mcp.TaskState) error { return nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Update at expiry = %v", err)
			}
			list, _, err := s.List(ctx, "alice", "", 10)
			if err != nil || len(list) != 1 || list[0].Task.TaskID != "long" {
				t.Errorf("List = %v, %v", list, err)
			}
		})
	})

	t.Run("list pages", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newStore()
			ids := []string{"e", "a", "d", "b", "c"} // creation order, not id order
			for _, id := range ids {
				if err := s.Create(ctx, state(id, "alice", time.Hour)); err != nil {
					t.Fatal(err)
				}
				if err := s.Create(ctx, state(id+"-bob", "bob", time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 3 {
					t.Fatal("more pages than tasks")
				}
				list, next, err := s.List(ctx, "alice", cursor, 2)
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range list {
					got = append(got, st.Task.TaskID)
				}
				if next == "" {
					if pages != 2 {
						t.Errorf("%d pages, want 3", pages+1)
					}
					break
				}
				cursor = next
			}
			if want := "eadbc"; joinIDs(got) != want {
				t.Errorf("listed %v, want %s", got, want)
			}
			// A page that ends on the last task has no next cursor.
			_, next, err := s.List(ctx, "alice", "", 5)
			if err != nil || next != "" {
				t.Errorf("full page: next %q, %v", next, err)
			}
			// A cursor stays valid when the task it points after is deleted.
			list, next, err := s.List(ctx, "alice", "", 1)
			if err != nil || next == "" {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "alice", list[0].Task.TaskID); err != nil {
				t.Fatal(err)
			}
			list, _, err = s.List(ctx, "alice", next, 10)
			if err != nil || joinIDs(taskIDs(list)) != "adbc" {
				t.Errorf("after a deleted task: %v, %v", list, err)
			}
			for _, bad := range []string{"%%%", "bWNwa2l0OmVjaG8", "bWNwa2l0LXRhc2s6eA"} {
				if _, _, err := s.List(ctx, "alice", bad, 10); !errors.Is(err, mcp.ErrInvalidTaskCursor) {
					t.Errorf("List(%q) = %v, want ErrInvalidTaskCursor", bad, err)
				}
			}
		})
	})
}

func taskIDs(list []*mcp.TaskState) []string {
	var out []string
	for _, st := range list {
		out = append(out, st.Task.TaskID)
	}
	return out
}

func joinIDs(s []string) string {
	out := ""
	for _, x := range s {
		out += x
	}
	return out
}

// TestMemoryTaskStoreSweep checks that expired tasks are freed in bulk,
// without being looked at.
func TestMemoryTaskStoreSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := mcp.NewMemoryTaskStore()
		// Len is the store's documented extra method.
		lener, ok := s.(interface{ Len() int })
		if !ok {
			t.Fatalf("NewMemoryTaskStore's %T has no Len method", s)
		}
		now := time.Now()
		for _, id := range []string{"a", "b", "c"} {
			if err := s.Create(ctx, &mcp.TaskState{Task: mcp.Task{TaskID: id}, Owner: "o", ExpiresAt: now.Add(time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
		if lener.Len() != 3 {
			t.Fatalf("Len = %d", lener.Len())
		}
		time.Sleep(2 * time.Minute)
		if err := s.Create(ctx, &mcp.TaskState{Task: mcp.Task{TaskID: "d"}, Owner: "o"}); err != nil {
			t.Fatal(err)
		}
		if lener.Len() != 1 {
			t.Errorf("Len after the sweep = %d, want 1", lener.Len())
		}
	})
}

// TestTaskStateJSON checks that TaskState survives JSON, as a store
// outside the process (Redis) will keep it.
func TestTaskStateJSON(t *testing.T) {
	ttl := int64(60000)
	created := time.Date(2025, 11, 25, 10, 30, 0, 0, time.UTC)
	for _, st := range []*mcp.TaskState{
		{
			Task: mcp.Task{TaskID: "t1", Status: mcp.TaskCompleted, StatusMessage: "done", CreatedAt: created,
				LastUpdatedAt: created.Add(time.Second), TTL: &ttl, PollInterval: 1000},
			Owner: "session:abc", Method: "tools/call", ExpiresAt: created.Add(time.Minute),
			Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`),
		},
		{
			Task:  mcp.Task{TaskID: "t2", Status: mcp.TaskFailed, CreatedAt: created, LastUpdatedAt: created},
			Owner: "conn:xyz", Method: "tools/call",
			Error: jsonrpc.NewError(-32050, "Backend unavailable", "rate limit"),
		},
	} {
		raw, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var back mcp.TaskState
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(&back)
		if string(again) != string(raw) {
			t.Errorf("round trip:\n\t%s\n\t%s", raw, again)
		}
		if !back.Task.CreatedAt.Equal(st.Task.CreatedAt) || !back.ExpiresAt.Equal(st.ExpiresAt) {
			t.Errorf("times changed: %+v", back)
		}
	}
}
