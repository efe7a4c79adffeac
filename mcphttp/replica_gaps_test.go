package mcphttp_test

import (
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// Two Handlers sharing one in-memory SessionStore and one
// MemoryEventStore hold one GET stream per session between them, with
// the store's stream lease: the GET lease scenario of package
// replicatest.
func TestReplicaGETLeaseSharingMemoryStores(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunGETLease(t, func(t *testing.T) replicatest.Streams {
		st := &mcp.MemorySessionStore{Share: true, IdleTimeout: time.Hour}
		return replicatest.Streams{Store: replicatest.Store{Store: st}, Events: &mcphttp.MemoryEventStore{}}
	})
}

// A stateless-era request naming a session is served on it on any
// replica, and a session-owned task lives as long as the session in the
// shared store: the session gaps scenario of package replicatest.
func TestReplicaSessionGapsOnAMemoryBus(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.RunSessionGaps(t, func(t *testing.T) replicatest.Routing {
		return replicatest.Routing{Store: &mcp.MemorySessionStore{Share: true}, Tasks: &mcp.MemoryTaskStore{}, Bus: &mcp.MemoryBus{}}
	})
}

// The routing and session gaps scenarios with Handlers made by
// NewHandlerFunc: a server chosen per request routes client messages
// across replicas as one server does.
func TestReplicasRoutingPerRequestOnAMemoryBus(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	newRouting := func(t *testing.T) replicatest.Routing {
		return replicatest.Routing{Store: &mcp.MemorySessionStore{Share: true}, Tasks: &mcp.MemoryTaskStore{}, Bus: &mcp.MemoryBus{}, PerRequest: true}
	}
	replicatest.RunRouting(t, newRouting)
	replicatest.RunSessionGaps(t, newRouting)
}
