package redisstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// AppendBatch stores its events in order, as that many Appends would
// (ids, data, byte counts, caps), in one round trip on one Redis and two
// on a Cluster (the total cap's count has a slot of its own), exactly as
// one Append does.
func TestEventStoreAppendBatch(t *testing.T) {
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
			if err := s.AppendBatch(ctx, "warm", "A", []mcphttp.StoredEvent{{ID: "w0"}, {ID: "w1"}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Append(ctx, "warm", "A", "w2", nil); err != nil {
				t.Fatal(err)
			}
			before := rt.n.Load()
			if err := s.AppendBatch(ctx, "s1", "A", []mcphttp.StoredEvent{{ID: "a1"}, {ID: "a2", Data: []byte("req:2")}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Append(ctx, "s1", "A", "a3", []byte(`{"n":3}`)); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendBatch(ctx, "s1", "A", []mcphttp.StoredEvent{{ID: "a4", Data: []byte(`{"id":2}`)}, {ID: "a5", Data: []byte("end")}}); err != nil {
				t.Fatal(err)
			}
			want := int64(3)
			if be.name == "redis-cluster" {
				want = 6
			}
			if got := rt.n.Load() - before; got != want {
				t.Fatalf("two AppendBatch and one Append made %d round trips, want %d", got, want)
			}
			got, err := replayed(t, s, "s1", "A", "a1")
			if want := []string{"a2=req:2", `a3={"n":3}`, `a4={"id":2}`, "a5=end"}; err != nil || !slices.Equal(got, want) {
				t.Fatalf("Replay after a1 = %q, %v; want %q", got, err, want)
			}
			// Each event costs its id, its data and 64 bytes.
			size := int64(2+64) + (2 + 5 + 64) + (2 + 7 + 64) + (2 + 8 + 64) + (2 + 3 + 64)
			if n, err := s.SessionSize(ctx, "s1"); err != nil || n != size {
				t.Fatalf("SessionSize = %d, %v; want %d", n, err, size)
			}
			if n, err := s.TotalSize(ctx); err != nil || n != size+3*(2+64) {
				t.Fatalf("TotalSize = %d, %v; want %d", n, err, size+3*(2+64))
			}
			before = rt.n.Load()
			if err := s.AppendBatch(ctx, "s1", "A", nil); err != nil || rt.n.Load() != before {
				t.Fatalf("an empty AppendBatch: %v, %d round trips; want none", err, rt.n.Load()-before)
			}
		})
	}
}

// A batch past the session's byte cap drops the session's oldest events,
// as Append does: the stream can no longer be resumed from before them.
func TestEventStoreAppendBatchCap(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s := newEventStore(t, rdb, redisstore.EventOptions{MaxSessionBytes: 3 * 66})
		batch := []mcphttp.StoredEvent{{ID: "b1"}, {ID: "b2"}, {ID: "b3"}, {ID: "b4"}}
		if err := s.AppendBatch(ctx, "s1", "A", batch); err != nil {
			t.Fatal(err)
		}
		if _, err := replayed(t, s, "s1", "A", "b1"); !errors.Is(err, mcphttp.ErrEventNotFound) {
			t.Fatalf("Replay after the dropped b1: %v, want ErrEventNotFound", err)
		}
		got, err := replayed(t, s, "s1", "A", "b2")
		if want := []string{"b3=", "b4="}; err != nil || !slices.Equal(got, want) {
			t.Fatalf("Replay after b2 = %q, %v; want %q", got, err, want)
		}
		if n, err := s.SessionSize(ctx, "s1"); err != nil || n != 3*66 {
			t.Fatalf("SessionSize = %d, %v; want %d", n, err, 3*66)
		}
	})
}
