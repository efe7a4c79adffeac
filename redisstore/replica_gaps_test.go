package redisstore_test

import (
	"testing"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// One GET stream per session across replicas, with the EventStore's
// stream lease in Redis: the GET lease scenario of package replicatest,
// on one Redis and on a Cluster.
func TestReplicaGETLeaseOnRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("redis", func(t *testing.T) {
		addr := redisAddr(t)
		replicatest.RunGETLease(t, func(t *testing.T) replicatest.Streams {
			dial := func() redis.UniversalClient {
				rdb := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, ContextTimeoutEnabled: true})
				t.Cleanup(func() { _ = rdb.Close() })
				return rdb
			}
			return streamStores(t, dial(), dial())
		})
	})
	t.Run("redis-cluster", func(t *testing.T) {
		clusterAddrs(t)
		replicatest.RunGETLease(t, func(t *testing.T) replicatest.Streams {
			a, b := newClusterClient(t), newClusterClient(t)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			return streamStores(t, a, b)
		})
	})
}
