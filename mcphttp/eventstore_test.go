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

// The byte cap evicts the oldest events first, across sessions; a client
// whose last event was evicted cannot resume.
func TestMemoryEventStoreCap(t *testing.T) {
	ctx := context.Background()
	data := []byte(strings.Repeat("x", 32)) // 100 bytes per event with id and overhead
	m := &MemoryEventStore{MaxBytes: 1000}
	for i := 1; i <= 15; i++ {
		session := []string{"a", "b"}[i%2]
		m.Append(ctx, session, "1", fmt.Sprintf("1-%02d", i), data)
	}
	if m.Size() != 1000 {
		t.Errorf("size %d, want 1000", m.Size())
	}
	// Events 6 to 15 remain: a holds 6, 8, ..., 14.
	if _, err := replayAll(t, m, "a", "1", "1-04"); !errors.Is(err, ErrEventNotFound) {
		t.Errorf("an evicted event: %v", err)
	}
	got, err := replayAll(t, m, "a", "1", "1-06")
	if err != nil || len(got) != 4 {
		t.Errorf("after 1-06: %d events, %v", len(got), err)
	}
}

// Deleted sessions and evicted events do not pile up in the eviction
// queue.
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
	if live := len(m.fifo) - m.head; live > 2*10_000/eventOverhead+2048 {
		t.Errorf("eviction queue holds %d entries", live)
	}
	if len(m.sessions) > 10_000/eventOverhead {
		t.Errorf("%d sessions indexed", len(m.sessions))
	}
}
