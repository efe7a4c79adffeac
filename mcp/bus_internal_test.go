package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Two copies of one session on a shared store (two replicas) number
// their server-to-client requests from different random points; a
// session on an unshared store numbers them from 1.
func TestSharedSessionRequestIDs(t *testing.T) {
	shared := &memorySessionStore{MemorySessionStoreOptions: MemorySessionStoreOptions{Share: true}}
	a := NewServer(Implementation{Name: "a", Version: "1"}, &ServerOptions{SessionStore: shared})
	b := NewServer(Implementation{Name: "b", Version: "1"}, &ServerOptions{SessionStore: shared})
	sa := a.newSession(SessionOptions{ID: "s1", TransportStores: true})
	sb := b.newSession(SessionOptions{ID: "s1", TransportStores: true})
	defer sa.Close()
	defer sb.Close()
	ida, _, err := sa.calls.start()
	if err != nil {
		t.Fatal(err)
	}
	idb, _, err := sb.calls.start()
	if err != nil {
		t.Fatal(err)
	}
	if ida == idb {
		t.Fatalf("both copies sent request id %v", ida)
	}
	for _, id := range []jsonrpc.ID{ida, idb} {
		n, ok := id.Int64()
		if !ok || n <= 1<<20 || n > 1<<52+1<<20 {
			t.Errorf("id %v outside (2^20, 2^52+2^20]", id)
		}
	}
	local := NewServer(Implementation{Name: "l", Version: "1"}, nil)
	sl := local.newSession(SessionOptions{ID: "s2"})
	defer sl.Close()
	if id, _, _ := sl.calls.start(); id != jsonrpc.Int64ID(1) {
		t.Errorf("unshared session's first id = %v, want 1", id)
	}
}

// A memory bus delivers to every subscriber of the channel, the
// publisher's too, and nothing after stop or Close; a panicking
// subscriber does not stop the others.
func TestMemoryBus(t *testing.T) {
	var b memoryBus
	ctx := context.Background()
	var got1, got2, other []string
	stop1, err := b.Subscribe(ctx, "c", func(m []byte) { got1 = append(got1, string(m)) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(ctx, "c", func(m []byte) { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(ctx, "c", func(m []byte) { got2 = append(got2, string(m)) }); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(ctx, "d", func(m []byte) { other = append(other, string(m)) }); err != nil {
		t.Fatal(err)
	}
	msg := []byte("one")
	if err := b.Publish(ctx, "c", msg); err != nil {
		t.Fatal(err)
	}
	msg[0] = 'X' // the subscribers got copies
	stop1()
	stop1()
	if err := b.Publish(ctx, "c", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if len(got1) != 1 || got1[0] != "one" || len(got2) != 2 || got2[0] != "one" || got2[1] != "two" || len(other) != 0 {
		t.Fatalf("got1 %q, got2 %q, other %q", got1, got2, other)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(ctx, "c", nil); !errors.Is(err, errBusClosed) {
		t.Errorf("Publish after Close = %v, want errBusClosed", err)
	}
	if _, err := b.Subscribe(ctx, "c", func([]byte) {}); !errors.Is(err, errBusClosed) {
		t.Errorf("Subscribe after Close = %v, want errBusClosed", err)
	}
	if len(got2) != 2 {
		t.Errorf("got2 %q after Close", got2)
	}
}

// keylessStore is a shared store without a requestState key.
type keylessStore struct{ SessionStore }

// The requestState key: the configured one wins; a shared store's is
// fetched once and shared by its servers; a shared store without one
// makes signing fail with errNoStateKey, never a per-process key.
func TestRequestStateKeySources(t *testing.T) {
	shared := &memorySessionStore{MemorySessionStoreOptions: MemorySessionStoreOptions{Share: true}}
	a := NewServer(Implementation{Name: "a", Version: "1"}, &ServerOptions{SessionStore: shared})
	b := NewServer(Implementation{Name: "b", Version: "1"}, &ServerOptions{SessionStore: shared})
	ka, err := a.stateKey.get()
	if err != nil {
		t.Fatal(err)
	}
	kb, err := b.stateKey.get()
	if err != nil {
		t.Fatal(err)
	}
	if len(ka) != 32 || string(ka) != string(kb) {
		t.Fatalf("keys %x and %x, want one 32-byte key", ka, kb)
	}
	conf := NewServer(Implementation{Name: "c", Version: "1"}, &ServerOptions{SessionStore: shared, RequestStateKey: []byte("configured")})
	if k, err := conf.stateKey.get(); err != nil || string(k) != "configured" {
		t.Fatalf("configured key = %q, %v", k, err)
	}
	none := NewServer(Implementation{Name: "n", Version: "1"}, &ServerOptions{SessionStore: keylessStore{shared}})
	req := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: []byte(`{"name":"x"}`)}
	if _, err := none.signState(req, nil); !errors.Is(err, errNoStateKey) ||
		err.Error() != "mcp: no requestState key shared by the replicas: the SessionStore is shared and has no RequestStateKey method; set ServerOptions.RequestStateKey on every replica" {
		t.Fatalf("signState without a shared key = %v", err)
	}
	if _, err := none.verifyState(req, "e30.AA"); !errors.Is(err, errNoStateKey) {
		t.Fatalf("verifyState without a shared key = %v", err)
	}
	local := NewServer(Implementation{Name: "l", Version: "1"}, nil)
	if k, err := local.stateKey.get(); err != nil || len(k) != 32 {
		t.Fatalf("unshared server's key = %x, %v; want 32 random bytes", k, err)
	}
}

type panickyBus struct{}

func (panickyBus) Publish(context.Context, string, []byte) error { panic("publish") }
func (panickyBus) Subscribe(context.Context, string, func([]byte)) (func(), error) {
	panic("subscribe")
}

// A Bus that panics is recovered where the server publishes changes and
// task operations, and where it subscribes.
func TestPanickingBusInServer(t *testing.T) {
	s := NewServer(Implementation{Name: "p", Version: "1"}, &ServerOptions{Bus: panickyBus{}})
	leave := s.joinListenBus(context.Background())
	if err := s.AddTool(&Tool{Name: "t"}, func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) {
		return &CallToolResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(context.Background(), "test://x"); err != nil {
		t.Fatal(err)
	}
	s.publishTaskOp(context.Background(), taskOp{Op: "cancel", Task: "x"})
	leave()
	leave()
}
