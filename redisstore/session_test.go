package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

func sessionState(id, owner string) *mcp.SessionState {
	return &mcp.SessionState{
		ID:              id,
		ProtocolVersion: "2025-11-25",
		ClientInfo:      mcp.Implementation{Name: "client", Version: "1.0"},
		Lifecycle:       "ready",
		LogLevel:        "info",
		Subscriptions:   []string{"file:///a"},
		Owner:           owner,
	}
}

// sameSession compares what a store must keep exactly; the times are
// the store's (Redis's clock for redisstore).
func sameSession(t *testing.T, got, want *mcp.SessionState) {
	t.Helper()
	g, w := *got, *want
	g.CreatedAt, g.LastActive, w.CreatedAt, w.LastActive = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", w) {
		t.Errorf("state = %+v, want %+v", g, w)
	}
}

// testSessionStoreContract checks the rules of mcp.SessionStore, run
// unchanged against the in-memory store and the Redis one.
func testSessionStoreContract(t *testing.T, newStore func(t *testing.T) mcp.SessionStore) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(t *testing.T, s mcp.SessionStore)
	}{
		{"create then load returns the state", func(t *testing.T, s mcp.SessionStore) {
			in := sessionState("s1", "alice")
			if err := s.Create(ctx, in); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(ctx, "alice", "s1")
			if err != nil {
				t.Fatal(err)
			}
			sameSession(t, got, in)
			if got, err = s.Touch(ctx, "alice", "s1"); err != nil {
				t.Fatal(err)
			}
			sameSession(t, got, in)
		}},
		{"load of an unknown id is ErrSessionNotFound", func(t *testing.T, s mcp.SessionStore) {
			_, err := s.Load(ctx, "alice", "nope")
			if !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Fatalf("Load = %v, want ErrSessionNotFound", err)
			}
		}},
		{"another owner finds nothing and changes nothing", func(t *testing.T, s mcp.SessionStore) {
			if err := s.Create(ctx, sessionState("s1", "alice")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Load(ctx, "mallory", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Errorf("Load = %v, want ErrSessionNotFound", err)
			}
			if _, err := s.Touch(ctx, "", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Errorf("Touch = %v, want ErrSessionNotFound", err)
			}
			if _, err := s.Update(ctx, "mallory", "s1", func(st *mcp.SessionState) error { st.LogLevel = "debug"; return nil }); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Errorf("Update = %v, want ErrSessionNotFound", err)
			}
			if err := s.Delete(ctx, "mallory", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Errorf("Delete = %v, want ErrSessionNotFound", err)
			}
			got, err := s.Load(ctx, "alice", "s1")
			if err != nil {
				t.Fatal(err)
			}
			sameSession(t, got, sessionState("s1", "alice"))
		}},
		{"delete of an unknown id is ErrSessionNotFound", func(t *testing.T, s mcp.SessionStore) {
			if err := s.Delete(ctx, "", "nope"); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Fatalf("Delete = %v, want ErrSessionNotFound", err)
			}
		}},
		{"delete makes load and update fail", func(t *testing.T, s mcp.SessionStore) {
			if err := s.Create(ctx, sessionState("s1", "")); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "", "s1"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Load(ctx, "", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Fatalf("Load after Delete = %v, want ErrSessionNotFound", err)
			}
			if _, err := s.Update(ctx, "", "s1", func(*mcp.SessionState) error { return nil }); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Fatalf("Update after Delete = %v, want ErrSessionNotFound", err)
			}
		}},
		{"update changes the state and returns it", func(t *testing.T, s mcp.SessionStore) {
			in := sessionState("s1", "alice")
			if err := s.Create(ctx, in); err != nil {
				t.Fatal(err)
			}
			got, err := s.Update(ctx, "alice", "s1", func(st *mcp.SessionState) error {
				st.LogLevel = "error"
				st.Subscriptions = append(st.Subscriptions, "file:///b")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			in.LogLevel = "error"
			in.Subscriptions = append(in.Subscriptions, "file:///b")
			sameSession(t, got, in)
			if got, err = s.Load(ctx, "alice", "s1"); err != nil {
				t.Fatal(err)
			}
			sameSession(t, got, in)
		}},
		{"values passed and returned are copies", func(t *testing.T, s mcp.SessionStore) {
			in := sessionState("s1", "alice")
			if err := s.Create(ctx, in); err != nil {
				t.Fatal(err)
			}
			in.Subscriptions[0] = "changed"
			got, _ := s.Load(ctx, "alice", "s1")
			got.Subscriptions[0] = "changed too"
			again, err := s.Load(ctx, "alice", "s1")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(again.Subscriptions, []string{"file:///a"}) {
				t.Errorf("Subscriptions = %q, want the created ones", again.Subscriptions)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newStore(t))
		})
	}
}

func TestSessionStoreContract(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("memory", func(t *testing.T) {
		testSessionStoreContract(t, func(*testing.T) mcp.SessionStore { return mcp.NewMemorySessionStore(nil) })
	})
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		testSessionStoreContract(t, func(t *testing.T) mcp.SessionStore {
			s, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: testPrefix(t)})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
}

// twoSessionReplicas returns two stores on one Redis and prefix: two
// replicas of a server.
func twoSessionReplicas(t *testing.T, rdb redis.UniversalClient, opts redisstore.SessionOptions) (a, b *redisstore.SessionStore) {
	t.Helper()
	opts.Prefix = testPrefix(t)
	var err error
	if a, err = redisstore.NewSessionStore(rdb, &opts); err != nil {
		t.Fatal(err)
	}
	if b, err = redisstore.NewSessionStore(rdb, &opts); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestSessionStoreReplicas(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, testSessionStoreReplicas)
}

func testSessionStoreReplicas(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()

	t.Run("a session created on one replica is served by the other", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{})
		in := sessionState("s1", "alice")
		if err := a.Create(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, err := b.Touch(ctx, "alice", "s1")
		if err != nil {
			t.Fatal(err)
		}
		sameSession(t, got, in)
		if got.CreatedAt.IsZero() || got.LastActive.Before(got.CreatedAt) {
			t.Errorf("CreatedAt %v, LastActive %v: want Redis's clock", got.CreatedAt, got.LastActive)
		}
	})

	t.Run("delete on one replica ends the session on the other", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		if err := a.Delete(ctx, "alice", "s1"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Touch(ctx, "alice", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Fatalf("Touch on the other replica = %v, want ErrSessionNotFound", err)
		}
		// A replica that was finishing a request cannot update it back.
		if _, err := b.Update(ctx, "alice", "s1", func(*mcp.SessionState) error { return nil }); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Fatalf("Update after Delete = %v, want ErrSessionNotFound", err)
		}
		if err := b.Create(ctx, sessionState("s1", "alice")); !errors.Is(err, redisstore.ErrSessionExists) {
			t.Fatalf("Create of a deleted id = %v, want ErrSessionExists", err)
		}
		if _, err := a.Load(ctx, "alice", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Fatalf("Load after Delete = %v, want ErrSessionNotFound", err)
		}
		if n, err := a.Count(ctx); err != nil || n != 0 {
			t.Fatalf("Count = %d, %v; want 0", n, err)
		}
	})

	t.Run("a session id under another owner finds nothing", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Touch(ctx, "mallory", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Errorf("Touch as another owner = %v, want ErrSessionNotFound", err)
		}
		if _, err := b.Touch(ctx, "", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Errorf("Touch unauthenticated = %v, want ErrSessionNotFound", err)
		}
		if err := b.Delete(ctx, "mallory", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Errorf("Delete as another owner = %v, want ErrSessionNotFound", err)
		}
		if _, err := b.Update(ctx, "mallory", "s1", func(*mcp.SessionState) error { return nil }); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Errorf("Update as another owner = %v, want ErrSessionNotFound", err)
		}
		got, err := a.Touch(ctx, "alice", "s1")
		if err != nil {
			t.Fatalf("the owner's Touch after the attempts = %v", err)
		}
		sameSession(t, got, sessionState("s1", "alice"))
	})

	t.Run("the session cap holds across replicas", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{MaxSessions: 3, MaxSessionsPerOwner: -1})
		for i, s := range []*redisstore.SessionStore{a, b, a} {
			if err := s.Create(ctx, sessionState(fmt.Sprint("s", i), "alice")); err != nil {
				t.Fatal(err)
			}
		}
		err := b.Create(ctx, sessionState("s3", "alice"))
		if !errors.Is(err, redisstore.ErrSessionLimit) {
			t.Fatalf("Create past the cap = %v, want ErrSessionLimit", err)
		}
		if err.Error() != "redisstore: session limit reached (MaxSessions 3)" {
			t.Errorf("error text = %q", err)
		}
		if !errors.Is(err, mcp.ErrSessionLimit) {
			t.Fatalf("Create past the cap = %v, want a match for mcp.ErrSessionLimit", err)
		}
		if _, err := b.Load(ctx, "alice", "s3"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Fatalf("the refused session exists: %v", err)
		}
		if err := a.Delete(ctx, "alice", "s1"); err != nil {
			t.Fatal(err)
		}
		if err := b.Create(ctx, sessionState("s3", "alice")); err != nil {
			t.Fatalf("Create after a Delete freed a place = %v", err)
		}
		if n, err := a.Count(ctx); err != nil || n != 3 {
			t.Fatalf("Count = %d, %v; want 3", n, err)
		}
	})

	t.Run("concurrent creates never pass the cap", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{MaxSessions: 5})
		ok := concurrentCreates(t, a, b, "", redisstore.ErrSessionLimit)
		if ok != 5 {
			t.Fatalf("%d creates succeeded, want 5", ok)
		}
	})

	t.Run("touch restarts the idle expiry on Redis's clock", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{IdleTimeout: time.Hour})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		key := a.SessionKey("s1")
		if ttl := rdb.PTTL(ctx, key).Val(); ttl <= 59*time.Minute || ttl > time.Hour {
			t.Fatalf("TTL after Create = %v, want the IdleTimeout", ttl)
		}
		rdb.PExpire(ctx, key, 10*time.Minute)
		first, err := b.Touch(ctx, "alice", "s1")
		if err != nil {
			t.Fatal(err)
		}
		if ttl := rdb.PTTL(ctx, key).Val(); ttl <= 59*time.Minute {
			t.Fatalf("TTL after Touch = %v, want the IdleTimeout again", ttl)
		}
		rdb.PExpire(ctx, key, 10*time.Minute)
		if _, err := b.Load(ctx, "alice", "s1"); err != nil {
			t.Fatal(err)
		}
		if ttl := rdb.PTTL(ctx, key).Val(); ttl > 10*time.Minute {
			t.Fatalf("TTL after Load = %v: Load must not touch", ttl)
		}
		second, err := a.Touch(ctx, "alice", "s1")
		if err != nil {
			t.Fatal(err)
		}
		if second.LastActive.Before(first.LastActive) {
			t.Errorf("LastActive went back: %v then %v", first.LastActive, second.LastActive)
		}
	})

	t.Run("an idle session expires everywhere", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{IdleTimeout: 50 * time.Millisecond, MaxSessions: 1})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		// Wait for Redis to expire the key (its clock, not ours).
		// Load does not touch.
		waitFor(t, func() bool {
			_, err := b.Load(ctx, "alice", "s1")
			return errors.Is(err, mcp.ErrSessionNotFound)
		})
		if _, err := a.Touch(ctx, "alice", "s1"); !errors.Is(err, mcp.ErrSessionNotFound) {
			t.Fatalf("Touch on the other replica = %v, want ErrSessionNotFound", err)
		}
	})

	t.Run("update loses no concurrent change", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{UpdateRetries: 1000})
		st := sessionState("s1", "alice")
		st.Subscriptions = nil
		if err := a.Create(ctx, st); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 20 {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Go(func() {
				_, err := s.Update(ctx, "alice", "s1", func(st *mcp.SessionState) error {
					st.Subscriptions = append(st.Subscriptions, fmt.Sprint("r", i))
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, err := a.Load(ctx, "alice", "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Subscriptions) != 20 {
			t.Fatalf("%d subscriptions after 20 concurrent updates: %q", len(got.Subscriptions), got.Subscriptions)
		}
	})

	t.Run("update returns fn's error and stores nothing", func(t *testing.T) {
		a, _ := twoSessionReplicas(t, rdb, redisstore.SessionOptions{})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		_, err := a.Update(ctx, "alice", "s1", func(st *mcp.SessionState) error {
			st.LogLevel = "debug"
			return boom
		})
		if err != boom {
			t.Fatalf("Update = %v, want fn's error", err)
		}
		got, _ := a.Load(ctx, "alice", "s1")
		if got.LogLevel != "info" {
			t.Fatalf("LogLevel = %q after a failed update", got.LogLevel)
		}
	})

	t.Run("create refuses an id in use", func(t *testing.T) {
		a, b := twoSessionReplicas(t, rdb, redisstore.SessionOptions{MaxSessions: 1})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		if err := b.Create(ctx, sessionState("s1", "mallory")); !errors.Is(err, redisstore.ErrSessionExists) {
			t.Fatalf("Create of an id in use = %v, want ErrSessionExists", err)
		}
		got, err := b.Load(ctx, "alice", "s1")
		if err != nil || got.Owner != "alice" {
			t.Fatalf("Load = %+v, %v; want alice's session", got, err)
		}
	})

	t.Run("the cap's place is renewed before the session outlives it", func(t *testing.T) {
		a, _ := twoSessionReplicas(t, rdb, redisstore.SessionOptions{IdleTimeout: time.Hour, MaxSessions: 2})
		if err := a.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		// Make the place look about to lapse, as after two idle periods
		// of touches.
		rdb.HSet(ctx, a.SessionKey("s1"), "cd", 1)
		if _, err := a.Touch(ctx, "alice", "s1"); err != nil {
			t.Fatal(err)
		}
		if cd, _ := rdb.HGet(ctx, a.SessionKey("s1"), "cd").Int64(); cd < time.Now().Add(time.Hour).UnixMilli() {
			t.Fatalf("cap deadline %d was not renewed", cd)
		}
		if n, err := a.Count(ctx); err != nil || n != 1 {
			t.Fatalf("Count = %d, %v; want 1", n, err)
		}
	})
}

// waitFor polls cond until it holds, for something that happens on
// another clock (Redis's key expiry); it fails the test after a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	limit := time.NewTimer(time.Minute)
	defer limit.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-limit.C:
			t.Fatal("condition not met within a minute")
		}
	}
}

// concurrentCreates creates 20 sessions of owner at once, alternating
// between two replicas' stores, and returns how many were created; a
// refusal other than limit fails the test.
func concurrentCreates(t *testing.T, a, b *redisstore.SessionStore, owner string, limit error) int {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() { errs[i] = s.Create(ctx, sessionState(fmt.Sprint("c", i), owner)) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, limit):
			t.Errorf("Create = %v", err)
		}
	}
	return ok
}
