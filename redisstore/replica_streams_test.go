package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// Two mcphttp Handlers, each with its own Redis clients, SessionStore and
// EventStore on one Redis, serve each other's SSE streams: the streams
// scenario of package replicatest (issue 14, step 2). The single server
// is reached through a proxy the scenario cuts; on the Cluster the
// scenario fails the session store's calls instead.
func TestReplicaStreamsOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("redis", func(t *testing.T) {
		addr := redisAddr(t)
		replicatest.RunStreams(t, func(t *testing.T) replicatest.Streams {
			p := newCutProxy(t, addr)
			s := streamStores(t, p.client(t), p.client(t))
			s.Down = func(t *testing.T, down bool) { p.setDown(down) }
			return s
		})
	})
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		replicatest.RunStreams(t, func(t *testing.T) replicatest.Streams {
			a, b := newClusterClient(t), newClusterClient(t)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			return streamStores(t, a, b)
		})
	})
}

// streamEvents is the per-session event cap of the scenario's stores:
// fewer than the scenario sends, so that trimming is seen.
const streamEvents = 16

// streamTTL is the stores' idle timeout, and so the events' TTL.
const streamTTL = 10 * time.Minute

// streamStores makes the two replicas' stores on one Redis and Prefix,
// and the check of what Redis holds for a session.
func streamStores(t *testing.T, rdbA, rdbB redis.UniversalClient) replicatest.Streams {
	prefix := testPrefix(t)
	sopts := redisstore.SessionOptions{Prefix: prefix, IdleTimeout: streamTTL, Timeout: 500 * time.Millisecond}
	eopts := redisstore.EventOptions{Prefix: prefix, TTL: streamTTL, Timeout: 500 * time.Millisecond,
		MaxSessionEvents: streamEvents, MaxBytes: -1, PollInterval: 100 * time.Millisecond}
	var s replicatest.Streams
	for i, rdb := range []redis.UniversalClient{rdbA, rdbB} {
		ss, err := redisstore.NewSessionStore(rdb, &sopts)
		if err != nil {
			t.Fatal(err)
		}
		es, err := redisstore.NewEventStore(rdb, &eopts)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			s.Store.Store, s.Events = ss, es
		} else {
			s.StoreB, s.EventsB = ss, es
		}
	}
	s.Bounded = func(t *testing.T, sid string, deleted bool) {
		t.Helper()
		ctx := context.Background()
		keys := []string{prefix + "ev:{" + sid + "}", prefix + "evb:{" + sid + "}", prefix + "s:{" + sid + "}"}
		if deleted {
			for _, k := range keys[:2] {
				if n, err := rdbA.Exists(ctx, k).Result(); err != nil || n != 0 {
					t.Fatalf("after DELETE, EXISTS %s = %d, %v; want 0", k, n, err)
				}
			}
			// The session's key is a tombstone (its id stays refused),
			// expiring within IdleTimeout.
			if ttl, err := rdbA.PTTL(ctx, keys[2]).Result(); err != nil || ttl <= 0 || ttl > streamTTL {
				t.Fatalf("after DELETE, PTTL %s = %v, %v; want within (0, %v]", keys[2], ttl, err, streamTTL)
			}
			return
		}
		n, err := rdbA.XLen(ctx, keys[0]).Result()
		if err != nil || n == 0 || n > streamEvents {
			t.Fatalf("XLEN %s = %d, %v; want 1 to %d (trimmed)", keys[0], n, err, streamEvents)
		}
		for _, k := range keys {
			ttl, err := rdbA.PTTL(ctx, k).Result()
			if err != nil || ttl <= 0 || ttl > streamTTL {
				t.Fatalf("PTTL %s = %v, %v; want within (0, %v]", k, ttl, err, streamTTL)
			}
		}
	}
	return s
}

// A broadcast made on one replica reaches the GET streams of the
// sessions another holds, each once, through Redis: the broadcasts
// scenario of package replicatest, on one Redis and on a Cluster.
func TestReplicaBroadcastsOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	withBus := func(t *testing.T, s replicatest.Streams, rdbA, rdbB redis.UniversalClient) replicatest.Streams {
		prefix := testPrefix(t)
		for i, rdb := range []redis.UniversalClient{rdbA, rdbB} {
			b, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				s.Bus = b
			} else {
				s.BusB = b
			}
		}
		return s
	}
	onRedisPair(t, replicatest.RunBroadcasts, func(t *testing.T, a, b redis.UniversalClient) replicatest.Streams {
		return withBus(t, streamStores(t, a, b), a, b)
	})
}

// A replica killed mid-request, through Redis: the lost-request scenario
// of package replicatest, on one Redis and on a Cluster.
func TestReplicaLostRequestOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	onRedisPair(t, replicatest.RunLostRequest, streamStores)
}

// onRedisPair runs scenario on one Redis and on a Cluster, its two
// replicas' stores made by stores on a client each.
func onRedisPair(t *testing.T, scenario func(*testing.T, replicatest.NewStreams), stores func(t *testing.T, a, b redis.UniversalClient) replicatest.Streams) {
	t.Helper()
	t.Run("redis", func(t *testing.T) {
		addr := redisAddr(t)
		scenario(t, func(t *testing.T) replicatest.Streams {
			dial := func() redis.UniversalClient {
				rdb := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, ContextTimeoutEnabled: true})
				t.Cleanup(func() { _ = rdb.Close() })
				return rdb
			}
			return stores(t, dial(), dial())
		})
	})
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		scenario(t, func(t *testing.T) replicatest.Streams {
			a, b := newClusterClient(t), newClusterClient(t)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			return stores(t, a, b)
		})
	})
}
