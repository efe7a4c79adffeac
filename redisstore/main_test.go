package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// redisAddr is the address of the redis-server the tests run against:
// MCPKIT_REDIS_ADDR, which scripts/redis.sh (and so scripts/test.sh)
// sets. Without it the tests that need a server skip when run by hand,
// and fail under CI=true: a check skipped in CI is worse than none.
func redisAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("MCPKIT_REDIS_ADDR")
	if addr != "" {
		return addr
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("MCPKIT_REDIS_ADDR is unset and CI=true: run the tests through scripts/test.sh or scripts/redis.sh")
	}
	t.Skip("MCPKIT_REDIS_ADDR is unset: run `scripts/redis.sh go test ./redisstore/` for the Redis tests")
	return ""
}

// newClient connects to the test server. The caller closes it (with a
// defer after goleak's, so the check sees it closed).
func newClient(t *testing.T) redis.UniversalClient {
	t.Helper()
	return redis.NewClient(&redis.Options{Addr: redisAddr(t), DisableIdentity: true, ContextTimeoutEnabled: true})
}

// newClusterClient connects to the test Redis Cluster, whose seed
// addresses are MCPKIT_REDIS_CLUSTER_ADDRS (scripts/redis.sh --cluster,
// and scripts/test.sh, set it); skipped or failed without it as
// redisAddr is.
func newClusterClient(t *testing.T) redis.UniversalClient {
	t.Helper()
	return redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterAddrs(t), DisableIdentity: true, ContextTimeoutEnabled: true})
}

// clusterAddrs returns the test Redis Cluster's seed addresses; without
// MCPKIT_REDIS_CLUSTER_ADDRS the test is skipped, or failed when CI=true,
// as redisAddr does. Scenarios call it before their setup, so that a
// local run without a Cluster skips before it starts anything.
func clusterAddrs(t *testing.T) []string {
	t.Helper()
	addrs := os.Getenv("MCPKIT_REDIS_CLUSTER_ADDRS")
	if addrs == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("MCPKIT_REDIS_CLUSTER_ADDRS is unset and CI=true: run the tests through scripts/test.sh or scripts/redis.sh --cluster")
		}
		t.Skip("MCPKIT_REDIS_CLUSTER_ADDRS is unset: run `scripts/redis.sh --cluster go test ./redisstore/` for the Redis Cluster tests")
	}
	return strings.Split(addrs, ",")
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
