package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// replayed collects what Replay hands fn, as "id=data" strings.
func replayed(t *testing.T, s mcphttp.EventStore, session, stream, after string) ([]string, error) {
	t.Helper()
	var got []string
	err := s.Replay(context.Background(), session, stream, after, func(id string, data []byte) error {
		got = append(got, id+"="+string(data))
		return nil
	})
	return got, err
}

// testEventStoreContract checks the rules of mcphttp.EventStore, run
// unchanged against the in-memory store and the Redis one. newStore makes
// a store holding at most sessionBytes for one session and totalBytes in
// all.
func testEventStoreContract(t *testing.T, newStore func(t *testing.T, sessionBytes, totalBytes int64) mcphttp.EventStore) {
	ctx := context.Background()
	appendAll := func(t *testing.T, s mcphttp.EventStore, session string, evs ...string) {
		t.Helper()
		for _, ev := range evs { // "stream/id=data"
			stream, rest, _ := strings.Cut(ev, "/")
			id, data, _ := strings.Cut(rest, "=")
			if err := s.Append(ctx, session, stream, id, []byte(data)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		// capBytes is the session's byte cap and totalBytes the store's;
		// 0 for 1 MiB.
		capBytes, totalBytes int64
		run                  func(t *testing.T, s mcphttp.EventStore)
	}{
		{"replay gives exactly the events after the id, of that stream, in order", 0, 0, func(t *testing.T, s mcphttp.EventStore) {
			appendAll(t, s, "s1", "A/a0=", "A/a1=one", "B/b0=", "A/a2=two", "B/b1=x", "A/a3=three")
			appendAll(t, s, "s2", "A/z0=", "A/z1=other session")
			for after, want := range map[string][]string{
				"a0": {"a1=one", "a2=two", "a3=three"},
				"a2": {"a3=three"},
				"a3": nil,
			} {
				got, err := replayed(t, s, "s1", "A", after)
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("Replay after %s = %q, %v; want %q", after, got, err, want)
				}
			}
			got, err := replayed(t, s, "s1", "B", "b0")
			if err != nil || !slices.Equal(got, []string{"b1=x"}) {
				t.Errorf("Replay of B = %q, %v", got, err)
			}
		}},
		{"an unknown id, or one of another stream or session, is ErrEventNotFound", 0, 0, func(t *testing.T, s mcphttp.EventStore) {
			appendAll(t, s, "s1", "A/a0=", "B/b0=")
			for _, c := range [][3]string{{"s1", "A", "nope"}, {"s1", "A", "b0"}, {"s2", "A", "a0"}, {"s1", "C", "a0"}} {
				called := false
				err := s.Replay(ctx, c[0], c[1], c[2], func(string, []byte) error { called = true; return nil })
				if !errors.Is(err, mcphttp.ErrEventNotFound) || called {
					t.Errorf("Replay(%q) = %v (fn called: %v), want ErrEventNotFound before fn", c, err, called)
				}
			}
		}},
		{"fn's error stops the replay and is returned", 0, 0, func(t *testing.T, s mcphttp.EventStore) {
			appendAll(t, s, "s1", "A/a0=", "A/a1=one", "A/a2=two")
			boom := errors.New("boom")
			n := 0
			err := s.Replay(ctx, "s1", "A", "a0", func(string, []byte) error { n++; return boom })
			if err != boom || n != 1 {
				t.Fatalf("Replay = %v after %d calls, want boom after 1", err, n)
			}
		}},
		{"delete session forgets its events only", 0, 0, func(t *testing.T, s mcphttp.EventStore) {
			appendAll(t, s, "s1", "A/a0=", "A/a1=one")
			appendAll(t, s, "s2", "A/z0=", "A/z1=two")
			if err := s.DeleteSession(ctx, "s1"); err != nil {
				t.Fatal(err)
			}
			if _, err := replayed(t, s, "s1", "A", "a0"); !errors.Is(err, mcphttp.ErrEventNotFound) {
				t.Errorf("Replay after DeleteSession = %v", err)
			}
			if got, err := replayed(t, s, "s2", "A", "z0"); err != nil || !slices.Equal(got, []string{"z1=two"}) {
				t.Errorf("other session = %q, %v", got, err)
			}
			if err := s.DeleteSession(ctx, "never"); err != nil {
				t.Errorf("DeleteSession of an unknown session = %v", err)
			}
		}},
		{"past the total cap the biggest session loses its oldest events, and only it", 0, 6 * 76, func(t *testing.T, s mcphttp.EventStore) {
			for i := range 5 {
				appendAll(t, s, "big", fmt.Sprintf("A/e%d=0123456789", i))
			}
			appendAll(t, s, "small", "A/q0=0123456789", "A/q1=0123456789")
			if _, err := replayed(t, s, "big", "A", "e0"); !errors.Is(err, mcphttp.ErrEventNotFound) {
				t.Errorf("Replay after an evicted event = %v, want ErrEventNotFound", err)
			}
			got, err := replayed(t, s, "big", "A", "e1")
			if err != nil || len(got) != 3 {
				t.Errorf("the big session after e1 = %q, %v; want e2..e4", got, err)
			}
			got, err = replayed(t, s, "small", "A", "q0")
			if err != nil || !slices.Equal(got, []string{"q1=0123456789"}) {
				t.Errorf("the small session = %q, %v; want it whole", got, err)
			}
		}},
		{"past the session's cap the oldest events go, and cannot be resumed from", 3 * 76, 0, func(t *testing.T, s mcphttp.EventStore) {
			// Each event costs 2 + 10 + 64 = 76 bytes; the cap holds
			// three.
			for i := range 6 {
				appendAll(t, s, "s1", fmt.Sprintf("A/e%d=0123456789", i))
			}
			if _, err := replayed(t, s, "s1", "A", "e2"); !errors.Is(err, mcphttp.ErrEventNotFound) {
				t.Errorf("Replay after an evicted event = %v, want ErrEventNotFound", err)
			}
			got, err := replayed(t, s, "s1", "A", "e3")
			if err != nil || !slices.Equal(got, []string{"e4=0123456789", "e5=0123456789"}) {
				t.Errorf("Replay after the oldest kept = %q, %v", got, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, total := tt.capBytes, tt.totalBytes
			if n == 0 {
				n = 1 << 20
			}
			if total == 0 {
				total = 1 << 20
			}
			tt.run(t, newStore(t, n, total))
		})
	}
}

func newEventStore(t *testing.T, rdb redis.UniversalClient, opts redisstore.EventOptions) *redisstore.EventStore {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = testPrefix(t)
	}
	s, err := redisstore.NewEventStore(rdb, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEventStoreContract(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("memory", func(t *testing.T) {
		testEventStoreContract(t, func(_ *testing.T, n, total int64) mcphttp.EventStore {
			return &mcphttp.MemoryEventStore{MaxSessionBytes: n, MaxBytes: total}
		})
	})
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		testEventStoreContract(t, func(t *testing.T, n, total int64) mcphttp.EventStore {
			return newEventStore(t, rdb, redisstore.EventOptions{MaxSessionBytes: n, MaxBytes: total})
		})
	})
}

func TestEventStoreReplicas(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, testEventStoreReplicas)
}

func testEventStoreReplicas(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()

	t.Run("a stream cut on one replica resumes on the other, without duplicates", func(t *testing.T) {
		a := newEventStore(t, rdb, redisstore.EventOptions{})
		b := newEventStore(t, rdb, redisstore.EventOptions{Prefix: a.Prefix()})
		var want []string
		if err := a.Append(ctx, "s1", "A", "p", nil); err != nil {
			t.Fatal(err)
		}
		for i := range 200 {
			id, data := fmt.Sprint("e", i), fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":{"i":%d}}`, i)
			if err := a.Append(ctx, "s1", "A", id, []byte(data)); err != nil {
				t.Fatal(err)
			}
			want = append(want, id+"="+data)
		}
		got, err := replayed(t, b, "s1", "A", "p")
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Replay on the other replica: %d events, %v; want %d", len(got), err, len(want))
		}
		got, err = replayed(t, b, "s1", "A", "e150")
		if err != nil || !slices.Equal(got, want[151:]) {
			t.Fatalf("Replay after e150: %d events, %v", len(got), err)
		}
	})

	t.Run("the event cap drops the oldest events", func(t *testing.T) {
		a := newEventStore(t, rdb, redisstore.EventOptions{MaxSessionEvents: 3})
		for i := range 5 {
			if err := a.Append(ctx, "s1", fmt.Sprint("st", i%2), fmt.Sprint("e", i), []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		if n := rdb.XLen(ctx, a.Prefix()+"ev:{s1}").Val(); n != 3 {
			t.Fatalf("XLEN = %d, want 3", n)
		}
		if size, err := a.SessionSize(ctx, "s1"); err != nil || size != 3*(2+1+64) {
			t.Fatalf("SessionSize = %d, %v; want %d", size, err, 3*(2+1+64))
		}
		if _, err := replayed(t, a, "s1", "st1", "e1"); !errors.Is(err, mcphttp.ErrEventNotFound) {
			t.Errorf("Replay after a dropped event = %v", err)
		}
	})

	t.Run("the total cap holds across replicas, and forgets deleted sessions", func(t *testing.T) {
		a := newEventStore(t, rdb, redisstore.EventOptions{MaxBytes: 4 * 67})
		b := newEventStore(t, rdb, redisstore.EventOptions{Prefix: a.Prefix(), MaxBytes: 4 * 67})
		for i, s := range []*redisstore.EventStore{a, b, a, b} {
			if err := s.Append(ctx, fmt.Sprint("s", i%2), "A", fmt.Sprint("e", i), []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := a.TotalSize(ctx); err != nil || n != 4*67 {
			t.Fatalf("TotalSize = %d, %v; want %d", n, err, 4*67)
		}
		if err := b.Append(ctx, "s2", "A", "e4", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if n, err := b.TotalSize(ctx); err != nil || n != 4*67 {
			t.Fatalf("TotalSize past the cap = %d, %v; want %d", n, err, 4*67)
		}
		if err := a.DeleteSession(ctx, "s2"); err != nil {
			t.Fatal(err)
		}
		if n, err := b.TotalSize(ctx); err != nil || n != 3*67 {
			t.Fatalf("TotalSize after DeleteSession = %d, %v; want %d", n, err, 3*67)
		}
	})

	t.Run("an event bigger than the cap leaves nothing behind", func(t *testing.T) {
		a := newEventStore(t, rdb, redisstore.EventOptions{MaxSessionBytes: 100})
		if err := a.Append(ctx, "s1", "A", "e0", []byte(strings.Repeat("x", 200))); err != nil {
			t.Fatal(err)
		}
		if n := rdb.Exists(ctx, a.Prefix()+"ev:{s1}", a.Prefix()+"evb:{s1}").Val(); n != 0 {
			t.Fatalf("%d keys left", n)
		}
	})

	t.Run("events expire with their session", func(t *testing.T) {
		prefix := testPrefix(t)
		ev := newEventStore(t, rdb, redisstore.EventOptions{Prefix: prefix, TTL: time.Hour})
		ss, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix, IdleTimeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.Create(ctx, sessionState("s1", "alice")); err != nil {
			t.Fatal(err)
		}
		if err := ev.Append(ctx, "s1", "A", "e0", []byte("x")); err != nil {
			t.Fatal(err)
		}
		keys := []string{prefix + "ev:{s1}", prefix + "evb:{s1}"}
		for _, k := range keys {
			if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 59*time.Minute || ttl > time.Hour {
				t.Fatalf("TTL of %s = %v, want the TTL", k, ttl)
			}
			rdb.PExpire(ctx, k, time.Minute)
		}
		if _, err := ss.Touch(ctx, "alice", "s1"); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 59*time.Minute {
				t.Fatalf("TTL of %s after the session's Touch = %v, want the IdleTimeout", k, ttl)
			}
		}
		if err := ss.Delete(ctx, "alice", "s1"); err != nil {
			t.Fatal(err)
		}
		if n := rdb.Exists(ctx, keys...).Val(); n != 0 {
			t.Fatalf("%d event keys left after the session's Delete", n)
		}
	})

	t.Run("watch hears of events appended on another replica", func(t *testing.T) {
		a := newEventStore(t, rdb, redisstore.EventOptions{})
		// A poll interval no test waits for: only pub/sub can ring.
		b := newEventStore(t, rdb, redisstore.EventOptions{Prefix: a.Prefix(), PollInterval: time.Hour})
		wctx, cancel := context.WithCancel(ctx)
		ch, err := b.Watch(wctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		other, err := b.Watch(wctx, "s2")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Append(ctx, "s1", "A", "e0", []byte("x")); err != nil {
			t.Fatal(err)
		}
		<-ch
		select {
		case <-other:
			t.Error("the watcher of another session was rung")
		default:
		}
		cancel()
		for range ch { // closed when ctx ends
		}
		for range other {
		}
	})

	t.Run("watchers come and go concurrently, and leave nothing running", func(t *testing.T) {
		e := newEventStore(t, rdb, redisstore.EventOptions{PollInterval: time.Millisecond})
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				for range 5 {
					wctx, cancel := context.WithCancel(ctx)
					ch, err := e.Watch(wctx, fmt.Sprint("s", i%3))
					if err != nil {
						cancel()
						t.Error(err)
						return
					}
					if err := e.Append(ctx, fmt.Sprint("s", i%3), "A", fmt.Sprint("e", i), nil); err != nil {
						t.Error(err)
					}
					<-ch
					cancel()
					for range ch {
					}
				}
			})
		}
		wg.Wait()
	})

	t.Run("a lost publish costs latency, not the event", func(t *testing.T) {
		b := newEventStore(t, rdb, redisstore.EventOptions{PollInterval: 10 * time.Millisecond})
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch, err := b.Watch(wctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		// An entry written without its publish, as if the message were
		// lost.
		if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: b.Prefix() + "ev:{s1}", Values: []string{"s", "A", "e", "e0", "d", "x", "n", "67"}}).Err(); err != nil {
			t.Fatal(err)
		}
		<-ch
		cancel()
		for range ch {
		}
	})
}

// AppendOnce stores one event per key and session, whichever replica
// asks; the key expires after OnceTTL.
func TestEventStoreAppendOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		a := newEventStore(t, rdb, redisstore.EventOptions{OnceTTL: 30 * time.Second})
		b := newEventStore(t, rdb, redisstore.EventOptions{Prefix: a.Prefix(), OnceTTL: 30 * time.Second})
		if err := a.Append(ctx, "s", "0", "p", nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			store            *redisstore.EventStore
			session, id, key string
			want             bool
		}{{a, "s", "e1", "k1", true}, {b, "s", "e2", "k1", false}, {b, "t", "e1", "k1", true}, {b, "s", "e3", "k2", true}} {
			got, err := c.store.AppendOnce(ctx, c.session, "0", c.id, c.key, []byte(`{"id":"`+c.id+`"}`))
			if err != nil || got != c.want {
				t.Fatalf("AppendOnce(%s, %s, %s) = %v, %v; want %v, nil", c.session, c.id, c.key, got, err, c.want)
			}
		}
		got, err := replayed(t, b, "s", "0", "p")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{`e1={"id":"e1"}`, `e3={"id":"e3"}`}; !slices.Equal(got, want) {
			t.Fatalf("stored %q, want %q", got, want)
		}
		ttl, err := rdb.PTTL(ctx, a.Prefix()+"evo:{s}:k1").Result()
		if err != nil || ttl <= 0 || ttl > 30*time.Second {
			t.Fatalf("PTTL of the once key = %v, %v; want within (0, 30s]", ttl, err)
		}
	})
}

// roundTrips counts the calls a client waits for Redis on: each command
// or pipeline.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// With the total cap on (the default), an Append is one round trip on one
// Redis, where the session's keys and the total's share the server, and
// two on a Cluster, where they live in different slots; the count is
// right either way.
func TestEventStoreAppendRoundTrips(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			rdb := be.dial(t)
			defer rdb.Close()
			var rt roundTrips
			rdb.AddHook(&rt)
			s := newEventStore(t, rdb, redisstore.EventOptions{})
			// The first run of a script may load it (NOSCRIPT, then EVAL).
			if err := s.Append(ctx, "s1", "A", "e0", []byte("x")); err != nil {
				t.Fatal(err)
			}
			before := rt.n.Load()
			for i := 1; i <= 10; i++ {
				if err := s.Append(ctx, fmt.Sprint("s", i%2), "A", fmt.Sprint("e", i), []byte("x")); err != nil {
					t.Fatal(err)
				}
			}
			want := int64(10)
			if be.name == "redis-cluster" {
				want = 20
			}
			if got := rt.n.Load() - before; got != want {
				t.Fatalf("10 Appends made %d round trips, want %d", got, want)
			}
			// s1 holds e0 e1 e3 e5 e7 e9, s0 e2 e4 e6 e8 e10: an event
			// costs its id, its data and 64 bytes.
			if n, err := s.TotalSize(ctx); err != nil || n != 10*67+68 {
				t.Fatalf("TotalSize = %d, %v; want %d", n, err, 10*67+68)
			}
			if n, err := s.SessionSize(ctx, "s1"); err != nil || n != 6*67 {
				t.Fatalf("SessionSize(s1) = %d, %v; want %d", n, err, 6*67)
			}
		})
	}
}
