package broadcast_test

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/internal/broadcast"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A Shared is found only on the context WithShared made and only for its
// own message, and each kind of encoding is made once.
func TestShared(t *testing.T) {
	n := &jsonrpc.Notification{Method: "notifications/tools/list_changed"}
	s := &broadcast.Shared{Msg: n}
	ctx := broadcast.WithShared(context.Background(), s)
	if broadcast.SharedOf(ctx, n) != s || broadcast.SharedIn(ctx) != s {
		t.Fatal("the Shared was not found on its context")
	}
	if broadcast.SharedOf(ctx, &jsonrpc.Notification{Method: n.Method}) != nil {
		t.Error("found for another message")
	}
	if broadcast.SharedIn(context.Background()) != nil {
		t.Error("found on a context without one")
	}
	if broadcast.SharedIn(context.WithValue(ctx, otherKey{}, 1)) != nil {
		t.Error("found on a derived context")
	}
	calls := 0
	enc := func(m *jsonrpc.Notification) ([]byte, error) { calls++; return []byte(m.Method), nil }
	for range 3 {
		if b, err := s.Encoded(0, enc); err != nil || string(b) != n.Method {
			t.Fatalf("Encoded(0) = %q, %v", b, err)
		}
	}
	if b, _ := s.Encoded(1, func(*jsonrpc.Notification) ([]byte, error) { calls++; return []byte("x"), nil }); string(b) != "x" {
		t.Errorf("Encoded(1) = %q", b)
	}
	if calls != 2 {
		t.Errorf("%d encodings; want one per kind", calls)
	}
}

// otherKey is a context key of the test's own.
type otherKey struct{}

// The key WithKey puts on a context is what Key returns, also from a
// derived context; a context without one has "".
func TestKey(t *testing.T) {
	ctx := broadcast.WithKey(context.Background(), "k1")
	if got := broadcast.Key(context.WithValue(ctx, otherKey{}, 1)); got != "k1" {
		t.Errorf("Key = %q, want k1", got)
	}
	if got := broadcast.Key(context.Background()); got != "" {
		t.Errorf("Key of a bare context = %q", got)
	}
}
