package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

func taskState(id, owner string, ttl time.Duration) *mcp.TaskState {
	now := time.Now().UTC().Truncate(time.Millisecond)
	ms := ttl.Milliseconds()
	return &mcp.TaskState{
		Task:      mcp.Task{TaskID: id, Status: mcp.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: &ms},
		Owner:     owner,
		Method:    "tools/call",
		ExpiresAt: now.Add(ttl),
	}
}

// listAll pages through an owner's tasks with page size n.
func listAll(t *testing.T, s mcp.TaskStore, owner string, n int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 100 {
		page, next, err := s.List(context.Background(), owner, cursor, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > n {
			t.Fatalf("page of %d for a limit of %d", len(page), n)
		}
		for _, st := range page {
			ids = append(ids, st.Task.TaskID)
		}
		if next == "" {
			return ids
		}
		cursor = next
	}
	t.Fatal("List never ended")
	return nil
}

// testTaskStoreContract checks the rules of mcp.TaskStore, run unchanged
// against the in-memory store and the Redis one.
func testTaskStoreContract(t *testing.T, newStore func(t *testing.T) mcp.TaskStore) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(t *testing.T, s mcp.TaskStore)
	}{
		{"create, get, update, delete, with copies both ways", func(t *testing.T, s mcp.TaskStore) {
			in := taskState("t1", "alice", time.Hour)
			if err := s.Create(ctx, in); err != nil {
				t.Fatal(err)
			}
			in.Task.Status = mcp.TaskFailed
			got, err := s.Get(ctx, "alice", "t1")
			if err != nil {
				t.Fatal(err)
			}
			if got.Task.Status != mcp.TaskWorking || got.Method != "tools/call" || *got.Task.TTL != 3600000 || got.Owner != "alice" {
				t.Errorf("Get = %+v", got)
			}
			got.Task.Status = mcp.TaskFailed
			if again, _ := s.Get(ctx, "alice", "t1"); again.Task.Status != mcp.TaskWorking {
				t.Error("the caller's change reached the store")
			}
			if err := s.Create(ctx, taskState("t1", "alice", time.Hour)); err == nil {
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
			if upd.Task.Status != mcp.TaskCompleted || upd.Task.TaskID != "t1" || upd.Owner != "alice" {
				t.Errorf("Update = %+v", upd)
			}
			got, err = s.Get(ctx, "alice", "t1")
			if err != nil || got.Task.Status != mcp.TaskCompleted || string(got.Result) != `{"content":[]}` {
				t.Errorf("Get after Update = %+v, %v", got, err)
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
		}},
		{"another owner finds nothing", func(t *testing.T, s mcp.TaskStore) {
			if err := s.Create(ctx, taskState("t1", "alice", time.Hour)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "mallory", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get = %v", err)
			}
			if _, err := s.Update(ctx, "mallory", "t1", func(*mcp.TaskState) error { return nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Update = %v", err)
			}
			if err := s.Delete(ctx, "mallory", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Delete = %v", err)
			}
			if ids := listAll(t, s, "mallory", 10); len(ids) != 0 {
				t.Errorf("List = %q", ids)
			}
			if _, err := s.Get(ctx, "alice", "t1"); err != nil {
				t.Errorf("the owner's Get = %v", err)
			}
		}},
		{"update returns fn's error and stores nothing", func(t *testing.T, s mcp.TaskStore) {
			if err := s.Create(ctx, taskState("t1", "alice", time.Hour)); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			if _, err := s.Update(ctx, "alice", "t1", func(st *mcp.TaskState) error {
				st.Task.Status = mcp.TaskFailed
				return boom
			}); err != boom {
				t.Fatalf("Update = %v, want fn's error", err)
			}
			if got, _ := s.Get(ctx, "alice", "t1"); got.Task.Status != mcp.TaskWorking {
				t.Errorf("status %q after a failed update", got.Task.Status)
			}
		}},
		{"list pages through the owner's tasks in creation order", func(t *testing.T, s mcp.TaskStore) {
			var want []string
			for i := range 7 {
				id := fmt.Sprint("t", i)
				if err := s.Create(ctx, taskState(id, "alice", time.Hour)); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
				if err := s.Create(ctx, taskState(fmt.Sprint("b", i), "bob", time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Delete(ctx, "alice", "t3"); err != nil {
				t.Fatal(err)
			}
			want = append(want[:3], want[4:]...)
			for _, n := range []int{1, 2, 5, 6, 100} {
				if got := listAll(t, s, "alice", n); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("pages of %d: %q, want %q", n, got, want)
				}
			}
		}},
		{"a cursor the store did not make is ErrInvalidTaskCursor", func(t *testing.T, s mcp.TaskStore) {
			for _, c := range []string{"%%%", "bm90IGEgY3Vyc29y", "bWNwa2l0LXRhc2s6eA"} {
				if _, _, err := s.List(ctx, "alice", c, 10); !errors.Is(err, mcp.ErrInvalidTaskCursor) {
					t.Errorf("List(%q) = %v, want ErrInvalidTaskCursor", c, err)
				}
			}
		}},
		{"an expired task is gone", func(t *testing.T, s mcp.TaskStore) {
			st := taskState("t1", "alice", time.Hour)
			st.ExpiresAt = time.Now().Add(-time.Second)
			if err := s.Create(ctx, st); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "alice", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get = %v", err)
			}
			if _, err := s.Update(ctx, "alice", "t1", func(*mcp.TaskState) error { return nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Update = %v", err)
			}
			if ids := listAll(t, s, "alice", 10); len(ids) != 0 {
				t.Errorf("List = %q", ids)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newStore(t))
		})
	}
}

func newTaskStore(t *testing.T, rdb redis.UniversalClient, opts redisstore.TaskOptions) *redisstore.TaskStore {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = testPrefix(t)
	}
	s, err := redisstore.NewTaskStore(rdb, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTaskStoreContract(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("memory", func(t *testing.T) {
		testTaskStoreContract(t, func(*testing.T) mcp.TaskStore { return mcp.NewMemoryTaskStore() })
	})
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		testTaskStoreContract(t, func(t *testing.T) mcp.TaskStore {
			return newTaskStore(t, rdb, redisstore.TaskOptions{})
		})
	})
}

func TestTaskStoreReplicas(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, testTaskStoreReplicas)
}

func testTaskStoreReplicas(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()

	t.Run("a task created on one replica is read, updated and deleted through the other", func(t *testing.T) {
		a := newTaskStore(t, rdb, redisstore.TaskOptions{})
		b := newTaskStore(t, rdb, redisstore.TaskOptions{Prefix: a.Prefix()})
		if err := a.Create(ctx, taskState("t1", "alice", time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Update(ctx, "alice", "t1", func(st *mcp.TaskState) error {
			st.Task.Status = mcp.TaskCancelled
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got, err := a.Get(ctx, "alice", "t1"); err != nil || got.Task.Status != mcp.TaskCancelled {
			t.Fatalf("Get on the first replica = %+v, %v", got, err)
		}
		if ids := listAll(t, b, "alice", 10); fmt.Sprint(ids) != "[t1]" {
			t.Fatalf("List on the other replica = %q", ids)
		}
		if err := b.Delete(ctx, "alice", "t1"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Get(ctx, "alice", "t1"); !errors.Is(err, mcp.ErrTaskNotFound) {
			t.Fatalf("Get after Delete elsewhere = %v", err)
		}
	})

	t.Run("concurrent updates from two replicas lose nothing", func(t *testing.T) {
		a := newTaskStore(t, rdb, redisstore.TaskOptions{UpdateRetries: 1000})
		b := newTaskStore(t, rdb, redisstore.TaskOptions{Prefix: a.Prefix(), UpdateRetries: 1000})
		if err := a.Create(ctx, taskState("t1", "alice", time.Hour)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 20 {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Go(func() {
				_, err := s.Update(ctx, "alice", "t1", func(st *mcp.TaskState) error {
					st.Task.StatusMessage += "x"
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, err := a.Get(ctx, "alice", "t1")
		if err != nil || len(got.Task.StatusMessage) != 20 {
			t.Fatalf("StatusMessage %q, %v after 20 concurrent updates", got.Task.StatusMessage, err)
		}
	})

	t.Run("the per-owner cap holds across replicas and frees expired places", func(t *testing.T) {
		a := newTaskStore(t, rdb, redisstore.TaskOptions{MaxTasksPerOwner: 2})
		b := newTaskStore(t, rdb, redisstore.TaskOptions{Prefix: a.Prefix(), MaxTasksPerOwner: 2})
		if err := a.Create(ctx, taskState("t1", "alice", time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := b.Create(ctx, taskState("t2", "alice", time.Hour)); err != nil {
			t.Fatal(err)
		}
		err := a.Create(ctx, taskState("t3", "alice", time.Hour))
		if !errors.Is(err, redisstore.ErrTaskLimit) || err.Error() != "redisstore: task limit reached (MaxTasksPerOwner 2)" {
			t.Fatalf("Create past the cap = %v", err)
		}
		if err := b.Create(ctx, taskState("t3", "bob", time.Hour)); err != nil {
			t.Fatalf("another owner's Create = %v", err)
		}
		// t1 expires (its key is gone, as Redis does at ExpiresAt).
		rdb.Del(ctx, a.Prefix()+"t:{"+redisstore.OwnerTag("alice")+"}:t1")
		if err := b.Create(ctx, taskState("t3", "alice", time.Hour)); err != nil {
			t.Fatalf("Create after a task expired = %v", err)
		}
	})

	t.Run("a task expires by Redis's clock at ExpiresAt, MaxTTL at most", func(t *testing.T) {
		a := newTaskStore(t, rdb, redisstore.TaskOptions{MaxTTL: 2 * time.Hour})
		if err := a.Create(ctx, taskState("t1", "alice", time.Hour)); err != nil {
			t.Fatal(err)
		}
		st := taskState("t2", "alice", time.Hour)
		st.ExpiresAt, st.Task.TTL = time.Time{}, nil
		if err := a.Create(ctx, st); err != nil {
			t.Fatal(err)
		}
		tag := redisstore.OwnerTag("alice")
		if ttl := rdb.PTTL(ctx, a.Prefix()+"t:{"+tag+"}:t1").Val(); ttl <= 59*time.Minute || ttl > time.Hour {
			t.Errorf("TTL of t1 = %v, want its ExpiresAt", ttl)
		}
		if ttl := rdb.PTTL(ctx, a.Prefix()+"t:{"+tag+"}:t2").Val(); ttl <= 119*time.Minute || ttl > 2*time.Hour {
			t.Errorf("TTL of t2 = %v, want MaxTTL", ttl)
		}
		for _, k := range []string{"tl:{" + tag + "}", "tn:{" + tag + "}"} {
			if ttl := rdb.PTTL(ctx, a.Prefix()+k).Val(); ttl <= 119*time.Minute || ttl > 2*time.Hour {
				t.Errorf("TTL of %s = %v, want the longest task's", k, ttl)
			}
		}
	})
}
