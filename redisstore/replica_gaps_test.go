package redisstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/redisstore"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// One GET stream per session across replicas, with the EventStore's
// stream lease in Redis: the GET lease scenario of package replicatest,
// on one Redis and on a Cluster.
func TestReplicaGETLeaseOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	onRedisPair(t, replicatest.RunGETLease, streamStores)
}

// routingStores makes two replicas' SessionStore, TaskStore and Bus, each
// on its own client made by dial, on one prefix.
func routingStores(t *testing.T, dial func(t *testing.T) redis.UniversalClient) replicatest.Routing {
	prefix := testPrefix(t)
	var r replicatest.Routing
	for i := range 2 {
		rdb := dial(t)
		t.Cleanup(func() { _ = rdb.Close() })
		st, err := redisstore.NewSessionStore(rdb, &redisstore.SessionOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := redisstore.NewTaskStore(rdb, &redisstore.TaskOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		bus, err := redisstore.NewBus(rdb, &redisstore.BusOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			r.Store, r.Tasks, r.Bus = st, tasks, bus
			r.TaskKeys = func(t *testing.T, owner string, ids []string) []string {
				return heldTaskKeys(t, rdb, prefix, owner, ids)
			}
		} else {
			r.StoreB, r.TasksB, r.BusB = st, tasks, bus
		}
	}
	return r
}

// heldTaskKeys returns what Redis still holds of owner's tasks ids under
// prefix: the keys of their records, and their index (sorted set) key
// with the id for each entry there.
func heldTaskKeys(t *testing.T, rdb redis.UniversalClient, prefix, owner string, ids []string) []string {
	t.Helper()
	ctx := context.Background()
	tag := "{" + redisstore.OwnerTag(owner) + "}"
	var held []string
	for _, id := range ids {
		k := prefix + "t:" + tag + ":" + id
		n, err := rdb.Exists(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			held = append(held, k)
		}
	}
	index := prefix + "tl:" + tag
	members, err := rdb.ZRange(ctx, index, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if slices.Contains(ids, m) {
			held = append(held, index+" "+m)
		}
	}
	return held
}

// A stateless-era request naming a session is served on it on any
// replica, and a session-owned task lives as long as the session in
// Redis: the session gaps scenario of package replicatest.
func TestReplicaSessionGapsOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("redis", func(t *testing.T) {
		replicatest.RunSessionGaps(t, func(t *testing.T) replicatest.Routing { return routingStores(t, newClient) })
	})
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		replicatest.RunSessionGaps(t, func(t *testing.T) replicatest.Routing { return routingStores(t, newClusterClient) })
	})
}

// The routing and session gaps scenarios with Handlers made by
// NewHandlerFunc, through Redis.
func TestReplicasRoutingPerRequestOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	run := func(t *testing.T, dial func(t *testing.T) redis.UniversalClient) {
		newRouting := func(t *testing.T) replicatest.Routing {
			r := routingStores(t, dial)
			r.PerRequest = true
			return r
		}
		replicatest.RunRouting(t, newRouting)
		replicatest.RunSessionGaps(t, newRouting)
	}
	t.Run("redis", func(t *testing.T) { run(t, newClient) })
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		run(t, newClusterClient)
	})
}
