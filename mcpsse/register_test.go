package mcpsse

import (
	"errors"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// At the cap or a quota, register closes the idle-expired streams first
// and takes the place of one; while none has expired, it refuses with
// the time until the soonest may.
func TestRegisterReclaimsIdle(t *testing.T) {
	const idle = time.Hour
	h := NewHandler(mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil),
		&Options{MaxSessions: 2, IdleTimeout: idle, ReapInterval: -1})
	register := func(qkey string, qmax int) (*stream, time.Duration, bool, bool) {
		t.Helper()
		s, retry, quota, ok := h.register(qkey, qmax)
		if ok {
			t.Cleanup(h.streams.Done)
		}
		return s, retry, quota, ok
	}
	a, _, _, okA := register("k", 1)
	b, _, _, okB := register("", 0)
	if !okA || !okB {
		t.Fatalf("first two streams refused: %v %v", okA, okB)
	}
	// b has been idle for half the timeout, a for all of it.
	b.active.Store(time.Now().Add(-idle / 2).UnixNano())
	a.active.Store(time.Now().Add(-idle - time.Second).UnixNano())

	// The quota of "k" is full with a, which has expired: a is closed.
	if _, _, _, ok := register("k", 1); !ok {
		t.Fatal("a stream under the quota of an expired one was refused")
	}
	select {
	case <-a.done:
	default:
		t.Fatal("the expired stream under the quota was not closed")
	}
	if !errors.Is(a.why, errIdle) {
		t.Fatalf("expired stream ended with %v, want errIdle", a.why)
	}
	if n := h.SessionCount(); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}

	// At the cap with b and c, neither expired: refused, the wait being
	// b's time left (at most half the timeout).
	_, retry, quota, ok := register("", 0)
	if ok || quota {
		t.Fatalf("at the cap: ok %v quota %v, want a refusal of the cap", ok, quota)
	}
	if retry <= 0 || retry > idle/2 {
		t.Fatalf("Retry-After wait %s, want in (0, %s]", retry, idle/2)
	}
	// At the quota of "k" with c: refused as the quota.
	if _, _, quota, ok := register("k", 1); ok || !quota {
		t.Fatalf("at the quota: ok %v quota %v, want a refusal of the quota", ok, quota)
	}

	// b expires: the cap has room again.
	b.active.Store(time.Now().Add(-idle - time.Second).UnixNano())
	if _, _, _, ok := register("", 0); !ok {
		t.Fatal("a stream at the cap with an expired one was refused")
	}
	select {
	case <-b.done:
	default:
		t.Fatal("the expired stream at the cap was not closed")
	}
}
