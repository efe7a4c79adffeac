package redisstore_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// forBuses runs test once for each backend (forBackends) with a Bus of
// its own prefix, and then checks that no goroutine started since is left.
func forBuses(t *testing.T, test func(t *testing.T, b *redisstore.Bus)) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		b, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: testPrefix(t)})
		if err != nil {
			t.Fatal(err)
		}
		test(t, b)
	})
}

// A Bus delivers what any client publishes to every subscription of the
// channel, and nothing after stop; a panicking subscriber is recovered
// and the subscription goes on.
func TestBus(t *testing.T) {
	forBuses(t, func(t *testing.T, b *redisstore.Bus) {
		ctx := context.Background()
		got1, got2 := make(chan string, 4), make(chan string, 4)
		stop1, err := b.Subscribe(ctx, "c", func(m []byte) {
			if string(m) == "panic" {
				panic("boom")
			}
			got1 <- string(m)
		})
		if err != nil {
			t.Fatal(err)
		}
		defer stop1()
		stop2, err := b.Subscribe(ctx, "c", func(m []byte) { got2 <- string(m) })
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"panic", "one"} {
			if err := b.Publish(ctx, "c", []byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		if m := <-got1; m != "one" {
			t.Fatalf("subscriber 1 got %q, want one", m)
		}
		if a, b := <-got2, <-got2; a != "panic" || b != "one" {
			t.Fatalf("subscriber 2 got %q %q, want panic one", a, b)
		}
		stop2()
		stop2()
		if err := b.Publish(ctx, "c", []byte("two")); err != nil {
			t.Fatal(err)
		}
		if m := <-got1; m != "two" {
			t.Fatalf("subscriber 1 got %q, want two", m)
		}
		select {
		case m := <-got2:
			t.Fatalf("stopped subscriber 2 got %q", m)
		default:
		}
	})
}

// A Bus whose Redis cannot be reached fails Publish and Subscribe with
// ErrUnavailable, within its Timeout.
func TestBusUnavailable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DisableIdentity: true, ContextTimeoutEnabled: true, MaxRetries: -1})
	defer rdb.Close()
	b, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := b.Publish(ctx, "c", []byte("x")); !errors.Is(err, redisstore.ErrUnavailable) || !errors.Is(err, mcp.ErrStoreUnavailable) {
		t.Errorf("Publish = %v, want ErrUnavailable", err)
	}
	if stop, err := b.Subscribe(ctx, "c", func([]byte) {}); !errors.Is(err, redisstore.ErrUnavailable) || stop != nil {
		t.Errorf("Subscribe = %v, want ErrUnavailable", err)
	}
	if _, err := redisstore.NewBus(nil, nil); !errors.Is(err, redisstore.ErrNilClient) {
		t.Errorf("NewBus(nil) = %v, want ErrNilClient", err)
	}
}

// Two replicas, each with its own Redis client, SessionStore, TaskStore
// and Bus, route the client's answers and cancellations to the replica
// where the request waits, share listen notifications, requestState and
// tasks: the routing scenario of package replicatest.
func TestReplicasRoutingOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	run := func(t *testing.T, dial func(t *testing.T) redis.UniversalClient) {
		replicatest.RunRouting(t, func(t *testing.T) replicatest.Routing { return routingStores(t, dial) })
	}
	t.Run("redis", func(t *testing.T) { run(t, newClient) })
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		run(t, newClusterClient)
	})
}

// Two SessionStores on one prefix hand out the same 32-byte requestState
// key, made by the first call; another prefix has its own.
func TestSessionStoreRequestStateKey(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forBackends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		prefix := testPrefix(t)
		a, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		b, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		other, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: testPrefix(t)})
		if err != nil {
			t.Fatal(err)
		}
		ka, err := a.RequestStateKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := b.RequestStateKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ka2, err := a.RequestStateKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ko, err := other.RequestStateKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ka) != 32 || string(ka) != string(kb) || string(ka) != string(ka2) || string(ka) == string(ko) {
			t.Fatalf("keys %x %x %x, other prefix %x: want one 32-byte key per prefix", ka, kb, ka2, ko)
		}
		if v, err := rdb.Get(ctx, a.StateKeyName()).Bytes(); err != nil || string(v) != string(ka) {
			t.Fatalf("stored key %x (%v), want %x", v, err, ka)
		}
		rdb.Del(ctx, a.StateKeyName(), other.StateKeyName())
	})
}

// A subscription whose connection breaks comes back by itself (go-redis
// reconnects and subscribes again): what is published after that is
// received. What was published while it was down is lost (at most once).
func TestBusSubscriptionSurvivesACut(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	addr := redisAddr(t)
	p := newCutProxy(t, addr)
	defer p.close() // before goleak looks (its Cleanup would run after)
	viaProxy := redis.NewClient(&redis.Options{Addr: p.addr(), DisableIdentity: true, ContextTimeoutEnabled: true, MaxRetries: -1})
	defer viaProxy.Close()
	direct := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, ContextTimeoutEnabled: true})
	defer direct.Close()
	prefix := testPrefix(t)
	sub, err := redisstore.NewBus(viaProxy, &redisstore.BusOptions{Prefix: prefix, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := redisstore.NewBus(direct, &redisstore.BusOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got := make(chan string, 64)
	stop, err := sub.Subscribe(ctx, "c", func(m []byte) { got <- string(m) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := pub.Publish(ctx, "c", []byte("before")); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m != "before" {
		t.Fatalf("got %q, want before", m)
	}
	p.setDown(true)
	p.setDown(false)
	waitFor(t, func() bool {
		if err := pub.Publish(ctx, "c", []byte("after")); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m != "after" {
				t.Fatalf("got %q, want after", m)
			}
			return true
		default:
			return false
		}
	})
}

// What one client publishes on a channel reaches a subscriber in the order
// it was published, on a Cluster too, where a PUBLISH sent to another node
// each time could arrive out of order.
func TestBusOrder(t *testing.T) {
	forBuses(t, func(t *testing.T, b *redisstore.Bus) {
		ctx := context.Background()
		const n = 50
		got := make(chan string, n)
		stop, err := b.Subscribe(ctx, "ordered", func(m []byte) { got <- string(m) })
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		for i := range n {
			if err := b.Publish(ctx, "ordered", []byte(strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			if m := <-got; m != strconv.Itoa(i) {
				t.Fatalf("message %d is %q, want %d", i, m, i)
			}
		}
	})
}
