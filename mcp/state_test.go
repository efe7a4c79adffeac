package mcp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The memory session store's bounds: MaxSessions (ErrSessionLimit, counting
// only live sessions), IdleTimeout by its own clock, an id in use, and
// Share.
func TestMemorySessionStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	m := &memorySessionStore{MemorySessionStoreOptions: MemorySessionStoreOptions{MaxSessions: 2, IdleTimeout: time.Minute, Now: func() time.Time { return now }}}
	if m.Shared() {
		t.Fatal("Shared = true without Share")
	}
	for _, id := range []string{"a", "b"} {
		if err := m.Create(ctx, &SessionState{ID: id, Owner: "o"}); err != nil {
			t.Fatal(err)
		}
	}
	err := m.Create(ctx, &SessionState{ID: "c"})
	if !errors.Is(err, ErrSessionLimit) || err.Error() != "mcp: session limit reached (MaxSessions 2)" {
		t.Fatalf("Create past the cap = %v", err)
	}
	if err := m.Create(ctx, &SessionState{ID: "a", Owner: "x"}); err == nil || err.Error() != `mcp: session id already in use: "a"` {
		t.Fatalf("Create of an id in use = %v", err)
	}
	now = now.Add(50 * time.Second)
	st, err := m.Touch(ctx, "o", "a")
	if err != nil || !st.LastActive.Equal(now) {
		t.Fatalf("Touch = %+v, %v; want LastActive now", st, err)
	}
	now = now.Add(20 * time.Second) // b idled out; a was touched
	if _, err := m.Load(ctx, "o", "b"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("Load of an idle session = %v, want ErrSessionNotFound", err)
	}
	if err := m.Create(ctx, &SessionState{ID: "c"}); err != nil {
		t.Fatalf("Create once a session idled out = %v", err)
	}
	if _, err := m.Load(ctx, "o", "a"); err != nil {
		t.Fatalf("the touched session is gone: %v", err)
	}
	m.Share = true
	if !m.Shared() {
		t.Fatal("Shared = false with Share")
	}
}
