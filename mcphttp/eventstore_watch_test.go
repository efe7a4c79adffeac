package mcphttp_test

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// Watch rings after an Append of its session only, coalesces, and closes
// its channel when its context ends.
func TestMemoryEventStoreWatch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var m mcphttp.MemoryEventStore
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := m.Watch(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	if err := m.Append(bg, "s2", "0", "0-1", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Fatal("rang for another session's event")
	default:
	}
	for _, id := range []string{"0-1", "0-2"} {
		if err := m.Append(bg, "s1", "0", id, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := <-ch; !ok {
		t.Fatal("closed, want a ring")
	}
	select {
	case <-ch:
		t.Fatal("two rings for two appends not read in between, want one")
	default:
	}
	cancel()
	if _, ok := <-ch; ok {
		t.Fatal("rang after its context ended, want closed")
	}
	// Appending after the watch ended rings nothing and keeps nothing.
	if err := m.Append(bg, "s1", "0", "0-3", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
}
