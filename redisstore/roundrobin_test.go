package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// Three mcphttp Handlers, each with its own Redis client and its own
// SessionStore, EventStore, TaskStore and Bus on it, behind a round-robin
// proxy, serve one client as one server: the round-robin scenario of
// package replicatest (issue 14's first acceptance line), on one Redis
// and on a 3-node Cluster. The single server is reached through a TCP
// proxy the scenario cuts to take Redis down for real; on the Cluster the
// scenario fails the session stores' calls instead.
func TestRoundRobinReplicasOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("redis", func(t *testing.T) {
		addr := redisAddr(t)
		replicatest.RunRoundRobin(t, func(t *testing.T, maxSessions int) replicatest.Deployment {
			p := newCutProxy(t, addr)
			var clients [3]redis.UniversalClient
			for i := range clients {
				clients[i] = p.client(t)
			}
			d := roundRobinStores(t, clients, maxSessions, 500*time.Millisecond)
			d.Down = func(t *testing.T, down bool) { p.setDown(down) }
			return d
		})
	})
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		replicatest.RunRoundRobin(t, func(t *testing.T, maxSessions int) replicatest.Deployment {
			var clients [3]redis.UniversalClient
			for i := range clients {
				rdb := newClusterClient(t)
				t.Cleanup(func() { _ = rdb.Close() })
				clients[i] = rdb
			}
			// The stores' default Timeout: Down is nil, so no call waits
			// for Redis to answer while it is down; and under CI load the
			// Cluster's own nodes answered in up to 0.95 s (SLOWLOG:
			// COMMAND 0.93 s, EVALSHA 0.66 s), past 500 ms.
			return roundRobinStores(t, clients, maxSessions, 0)
		})
	})
}

// roundRobinStores makes each replica's stores and bus on its own client,
// all on one Prefix, the session and event stores with timeout (0: their
// default).
func roundRobinStores(t *testing.T, clients [3]redis.UniversalClient, maxSessions int, timeout time.Duration) replicatest.Deployment {
	t.Helper()
	prefix := testPrefix(t)
	sopts := redisstore.SessionOptions{Prefix: prefix, MaxSessions: maxSessions, IdleTimeout: streamTTL, Timeout: timeout}
	eopts := redisstore.EventOptions{Prefix: prefix, TTL: streamTTL, Timeout: timeout, PollInterval: 100 * time.Millisecond}
	var d replicatest.Deployment
	var first *redisstore.SessionStore
	for i, rdb := range clients {
		ss, err := redisstore.NewSessionStore(rdb, &sopts)
		if err != nil {
			t.Fatal(err)
		}
		es, err := redisstore.NewEventStore(rdb, &eopts)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		bus, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		d.Replicas[i] = replicatest.ReplicaStores{Sessions: ss, Events: es, Tasks: ts, Bus: bus}
		if i == 0 {
			first = ss
		}
	}
	rdb := clients[0]
	d.Expire = func(t *testing.T, id string) {
		ctx := context.Background()
		// Redis's clock ends it: the key's TTL, shortened.
		rdb.PExpire(ctx, first.SessionKey(id), time.Millisecond)
		waitFor(t, func() bool {
			_, err := first.Load(ctx, "", id)
			return errors.Is(err, mcp.ErrSessionNotFound)
		})
	}
	d.Count = func(t *testing.T) int {
		n, err := first.Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	return d
}
