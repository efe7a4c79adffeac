package mcphttp_test

import (
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/replicatest"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// fakeClock is a MemorySessionStore's clock that a test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Two Handlers sharing one in-memory store (Share set) serve each
// other's sessions: the scenario of package replicatest.
func TestReplicasSharingAMemoryStore(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	replicatest.Run(t, func(t *testing.T, maxSessions int) replicatest.Store {
		clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		const idle = time.Hour
		st := &mcp.MemorySessionStore{Share: true, MaxSessions: maxSessions, IdleTimeout: idle, Now: clock.Now}
		return replicatest.Store{
			Store: st,
			Expire: func(t *testing.T, id string) {
				clock.advance(idle + time.Second)
			},
			Count: func(t *testing.T) int { return st.Len() },
		}
	})
}
