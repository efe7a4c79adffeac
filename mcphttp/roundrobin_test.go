package mcphttp_test

import (
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// Three Handlers on shared in-memory stores and one memory Bus, behind a
// round-robin proxy, serve one client as one server: the round-robin
// scenario of package replicatest (issue 14's first acceptance line).
func TestRoundRobinReplicas(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunRoundRobin(t, func(t *testing.T, maxSessions int) replicatest.Deployment {
		clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		const idle = time.Hour
		st := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: true, MaxSessions: maxSessions, IdleTimeout: idle, Now: clock.Now})
		rs := replicatest.ReplicaStores{Sessions: st, Events: &mcphttp.MemoryEventStore{}, Tasks: mcp.NewMemoryTaskStore(), Bus: mcp.NewMemoryBus()}
		return replicatest.Deployment{
			Replicas: [3]replicatest.ReplicaStores{rs, rs, rs},
			Expire:   func(t *testing.T, id string) { clock.advance(idle + time.Second) },
			Count:    func(t *testing.T) int { return storeLen(st) },
		}
	})
}
