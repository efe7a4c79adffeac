package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// TestMain stops the redis-servers the tests started, if any.
func TestMain(m *testing.M) { redistest.Main(m) }

// redisAddr is the address of the redis-server the tests run against:
// MCPKIT_REDIS_ADDR when set (scripts/redis.sh, and so scripts/test.sh,
// sets it), else a private redis-server this test binary starts on first
// use. The tests that need it skip only with -short; without redis-server
// installed they fail.
func redisAddr(t *testing.T) string {
	t.Helper()
	return redistest.Addr(t)
}

// newClient connects to the test server. The caller closes it (with a
// defer after goleak's, so the check sees it closed).
func newClient(t *testing.T) redis.UniversalClient {
	t.Helper()
	return redis.NewClient(&redis.Options{Addr: redisAddr(t), DisableIdentity: true, ContextTimeoutEnabled: true})
}

// newClusterClient connects to the test Redis Cluster, whose seed
// addresses clusterAddrs gives, and warms the client up: go-redis loads
// the slot map and the command table (COMMAND, a large reply) on a
// client's first keyed command, and dials each node on first use, all
// within that command's deadline. A cold client's first store call took
// about 100 times a warm one's (5 ms against 50 µs, -race), and under
// load past the 500 ms Timeout the round-robin tests give their stores:
// a replica's first request then failed as if Redis were down.
func newClusterClient(t *testing.T) redis.UniversalClient {
	t.Helper()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterAddrs(t), DisableIdentity: true, ContextTimeoutEnabled: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := rdb.Exists(ctx, "mcpkit-test:warm-up").Err()
	if err == nil {
		err = rdb.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return node.Ping(ctx).Err() })
	}
	if err != nil {
		_ = rdb.Close()
		t.Fatalf("warming up the Cluster client: %v", err)
	}
	return rdb
}

// clusterAddrs returns the test Redis Cluster's seed addresses:
// MCPKIT_REDIS_CLUSTER_ADDRS when set (scripts/redis.sh --cluster, and
// scripts/test.sh, set it), else those of a private 3-node Cluster this
// test binary starts on first use; skipped with -short, as redisAddr is.
// Scenarios call it before their setup, so that a -short run skips before
// it starts anything.
func clusterAddrs(t *testing.T) []string {
	t.Helper()
	return redistest.ClusterAddrs(t)
}

// backends are the Redis deployments every store test runs against.
var backends = []struct {
	name string
	dial func(t *testing.T) redis.UniversalClient
}{
	{"redis", newClient},
	{"redis-cluster", newClusterClient},
}

// forBackends runs test once for each backend, as a subtest.
func forBackends(t *testing.T, test func(t *testing.T, rdb redis.UniversalClient)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			rdb := be.dial(t)
			defer rdb.Close()
			test(t, rdb)
		})
	}
}

// go-redis logs failed dials on its own; the error tests cause many.
func init() { redis.SetLogger(quiet{}) }

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// testPrefix is a key prefix no other test uses, so tests share one
// server without seeing each other's keys.
func testPrefix(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("{", "_", "}", "_", " ", "_").Replace(t.Name())
	return "mcpkit-test:" + name + ":" + hex.EncodeToString(b[:]) + ":"
}
