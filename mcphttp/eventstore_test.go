package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func replayAll(t *testing.T, m *MemoryEventStore, session, stream, after string) ([]string, error) {
	t.Helper()
	var got []string
	err := m.Replay(context.Background(), session, stream, after, func(id string, data []byte) error {
		got = append(got, id+"="+string(data))
		return nil
	})
	return got, err
}

func TestMemoryEventStoreReplay(t *testing.T) {
	ctx := context.Background()
	m := &MemoryEventStore{}
	m.Append(ctx, "s", "1", "1-1", nil)
	m.Append(ctx, "s", "1", "1-2", []byte("a"))
	m.Append(ctx, "s", "2", "2-1", []byte("other stream"))
	m.Append(ctx, "t", "1", "1-1", []byte("other session"))
	m.Append(ctx, "s", "1", "1-3", []byte("b"))

	got, err := replayAll(t, m, "s", "1", "1-1")
	if err != nil || strings.Join(got, ",") != "1-2=a,1-3=b" {
		t.Errorf("after 1-1: %v %v", got, err)
	}
	got, err = replayAll(t, m, "s", "1", "1-3")
	if err != nil || len(got) != 0 {
		t.Errorf("after the last event: %v %v", got, err)
	}
	for _, c := range [][3]string{{"s", "1", "1-9"}, {"s", "3", "3-1"}, {"u", "1", "1-1"}, {"s", "2", "1-1"}} {
		if _, err := replayAll(t, m, c[0], c[1], c[2]); !errors.Is(err, ErrEventNotFound) {
			t.Errorf("%v: %v, want ErrEventNotFound", c, err)
		}
	}
	stop := errors.New("stop")
	n := 0
	err = m.Replay(ctx, "s", "1", "1-1", func(string, []byte) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn's error: %v after %d calls", err, n)
	}

	if err := m.DeleteSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := replayAll(t, m, "s", "1", "1-1"); !errors.Is(err, ErrEventNotFound) {
		t.Errorf("after DeleteSession: %v", err)
	}
	if got, _ := replayAll(t, m, "t", "1", "1-1"); len(got) != 0 {
		t.Errorf("the other session's stream: %v", got)
	}
	if want := eventCost("1-1", []byte("other session")); m.Size() != want {
		t.Errorf("size %d, want %d", m.Size(), want)
	}
}

// A session over MaxSessionBytes loses its own oldest events, across its
// streams; a client whose last event was evicted cannot resume.
func TestMemoryEventStoreSessionCap(t *testing.T) {
	ctx := context.Background()
	data := []byte(strings.Repeat("x", 32)) // 100 bytes per event with id and overhead
	m := &MemoryEventStore{MaxSessionBytes: 300}
	m.Append(ctx, "b", "1", "1-01", data)
	for i := 1; i <= 5; i++ {
		m.Append(ctx, "a", fmt.Sprint(i%2), fmt.Sprintf("%d-%02d", i%2, i), data)
	}
	if m.Size() != 400 || m.SessionSize("a") != 300 || m.SessionSize("b") != 100 {
		t.Errorf("size %d, a %d, b %d; want 400, 300, 100", m.Size(), m.SessionSize("a"), m.SessionSize("b"))
	}
	// a keeps events 3, 4 and 5: 1-03 and 1-05 on stream 1, 0-04 on 0.
	for _, c := range [][2]string{{"1", "1-01"}, {"0", "0-02"}} {
		if _, err := replayAll(t, m, "a", c[0], c[1]); !errors.Is(err, ErrEventNotFound) {
			t.Errorf("evicted event %s: %v, want ErrEventNotFound", c[1], err)
		}
	}
	if got, err := replayAll(t, m, "a", "1", "1-03"); err != nil || strings.Join(got, ",") != "1-05="+string(data) {
		t.Errorf("after 1-03: %v %v", got, err)
	}
	if got, err := replayAll(t, m, "b", "1", "1-01"); err != nil || len(got) != 0 {
		t.Errorf("the other session: %v %v", got, err)
	}
	// An event larger than the cap is not kept at all, nor anything of
	// its session before it.
	m.Append(ctx, "a", "1", "1-06", []byte(strings.Repeat("y", 400)))
	if _, err := replayAll(t, m, "a", "1", "1-05"); !errors.Is(err, ErrEventNotFound) || m.Size() != 100 || m.SessionSize("a") != 0 {
		t.Errorf("after an oversized event: %v, size %d, a %d", err, m.Size(), m.SessionSize("a"))
	}
}

// Session A floods the store; session B's undelivered events (a priming
// event and a result) stay replayable: eviction takes from the session
// holding the most, never from one within its fair share.
func TestMemoryEventStoreFloodSparesOthers(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		store   *MemoryEventStore
		flood   int // events A sends
		payload int
		aMax    int64 // what A may hold at most
	}{
		// The case: ~21 MB of echo results against the defaults.
		{"defaults", &MemoryEventStore{}, 21, 1 << 20, DefaultEventStoreSessionBytes},
		// Without a per-session cap, the total cap alone.
		{"total cap only", &MemoryEventStore{MaxBytes: 10_000, MaxSessionBytes: -1}, 1000, 100, 10_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.store
			result := []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)
			m.Append(ctx, "B", "1", "1-1", nil)
			m.Append(ctx, "B", "1", "1-2", result)
			bSize := eventCost("1-1", nil) + eventCost("1-2", result)
			data := []byte(strings.Repeat("e", c.payload))
			for i := 1; i <= c.flood; i++ {
				m.Append(ctx, "A", "1", fmt.Sprintf("1-%d", i), data)
			}
			got, err := replayAll(t, m, "B", "1", "1-1")
			if err != nil || len(got) != 1 || got[0] != "1-2="+string(result) {
				t.Fatalf("B's replay: %v, %v; want its result", got, err)
			}
			if m.SessionSize("B") != bSize {
				t.Errorf("B holds %d bytes, want %d", m.SessionSize("B"), bSize)
			}
			limit := m.MaxBytes
			if limit == 0 {
				limit = DefaultEventStoreBytes
			}
			a := m.SessionSize("A")
			if a > c.aMax || a > limit-bSize || m.Size() != a+bSize {
				t.Errorf("A holds %d bytes (at most %d), store %d (want %d)", a, min(c.aMax, limit-bSize), m.Size(), a+bSize)
			}
			// A's first events are gone, its last is kept.
			if _, err := replayAll(t, m, "A", "1", "1-1"); !errors.Is(err, ErrEventNotFound) {
				t.Errorf("A's first event: %v, want ErrEventNotFound", err)
			}
			if got, err := replayAll(t, m, "A", "1", fmt.Sprintf("1-%d", c.flood)); err != nil || len(got) != 0 {
				t.Errorf("A's last event: %v %v", got, err)
			}
		})
	}
}

// When the store as a whole is full, the session holding the most loses
// its oldest events first.
func TestMemoryEventStoreEvictsLargest(t *testing.T) {
	ctx := context.Background()
	data := []byte(strings.Repeat("x", 32)) // 100 bytes per event
	m := &MemoryEventStore{MaxBytes: 1000, MaxSessionBytes: -1}
	for i := 1; i <= 3; i++ {
		m.Append(ctx, "small", "1", fmt.Sprintf("1-%02d", i), data)
	}
	for i := 1; i <= 9; i++ {
		m.Append(ctx, "big", "1", fmt.Sprintf("1-%02d", i), data)
	}
	if m.Size() != 1000 || m.SessionSize("small") != 300 || m.SessionSize("big") != 700 {
		t.Errorf("size %d, small %d, big %d; want 1000, 300, 700", m.Size(), m.SessionSize("small"), m.SessionSize("big"))
	}
	if got, err := replayAll(t, m, "small", "1", "1-01"); err != nil || len(got) != 2 {
		t.Errorf("small: %v %v", got, err)
	}
	if _, err := replayAll(t, m, "big", "1", "1-02"); !errors.Is(err, ErrEventNotFound) {
		t.Errorf("big's evicted event: %v", err)
	}
	if got, err := replayAll(t, m, "big", "1", "1-03"); err != nil || len(got) != 6 {
		t.Errorf("big after 1-03: %d events, %v", len(got), err)
	}
}

// Deleted sessions and evicted events do not pile up in the index or the
// eviction queues.
func TestMemoryEventStoreStaysBounded(t *testing.T) {
	ctx := context.Background()
	m := &MemoryEventStore{MaxBytes: 10_000}
	for s := range 10_000 {
		session := fmt.Sprint(s)
		for e := range 3 {
			m.Append(ctx, session, "1", fmt.Sprintf("1-%d", e), []byte("{}"))
		}
		if s%2 == 0 {
			m.DeleteSession(ctx, session)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sessions) > 10_000/eventOverhead || len(m.bySize) != len(m.sessions) {
		t.Errorf("%d sessions indexed, %d in the heap", len(m.sessions), len(m.bySize))
	}
	var size int64
	for _, s := range m.sessions {
		if live := len(s.fifo) - s.head; live > 3 {
			t.Errorf("session %s queues %d events", s.id, live)
		}
		size += s.size
	}
	if size != m.size || m.size > 10_000 {
		t.Errorf("sessions hold %d bytes, store counts %d", size, m.size)
	}
}

// AppendOnce stores one event per key and session; the oldest key past
// MaxOnceKeys, and every key of a deleted session, are forgotten.
func TestMemoryEventStoreAppendOnce(t *testing.T) {
	ctx := context.Background()
	m := &MemoryEventStore{MaxOnceKeys: 2}
	once := func(session, id, key string, want bool) {
		t.Helper()
		got, err := m.AppendOnce(ctx, session, "0", id, key, []byte(`{"n":"`+id+`"}`))
		if err != nil || got != want {
			t.Fatalf("AppendOnce(%s, %s, %s) = %v, %v; want %v, nil", session, id, key, got, err, want)
		}
	}
	if err := m.Append(ctx, "s", "0", "0_0", nil); err != nil {
		t.Fatal(err)
	}
	once("s", "0_1", "k1", true)
	once("s", "0_2", "k1", false) // another replica, same broadcast
	once("t", "0_1", "k1", true)  // another session
	once("s", "0_3", "k2", true)
	once("s", "0_4", "k3", true) // k1 forgotten for s: MaxOnceKeys is 2
	once("s", "0_5", "k1", true)
	var ids []string
	if err := m.Replay(ctx, "s", "0", "0_0", func(id string, _ []byte) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids, ","); got != "0_1,0_3,0_4,0_5" {
		t.Fatalf("stored %s, want 0_1,0_3,0_4,0_5", got)
	}
	if err := m.DeleteSession(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	once("t", "0_2", "k1", true)
}
