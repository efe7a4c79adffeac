package bridge_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/internal/bridge"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// TestPortComplete: package mcp registers a Port with every operation set,
// so no transport of the module can call a nil function.
func TestPortComplete(t *testing.T) {
	p := bridge.Get[*mcp.Server, *mcp.ServerSession, *mcp.RequestExtra]()
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		if v.Field(i).IsNil() {
			t.Errorf("Port.%s is nil", v.Type().Field(i).Name)
		}
	}
}

// TestGetWrongTypes: asking for a Port over other types is a programming
// error inside the module, reported at once with what was asked for.
func TestGetWrongTypes(t *testing.T) {
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if want := "bridge: no Port of type *bridge.Port[int,string,bool] registered (is package mcp linked?)"; msg != want {
			t.Errorf("panic = %#v, want %q", r, want)
		}
	}()
	bridge.Get[int, string, bool]()
	t.Error("Get over the wrong types returned")
}

// TestCloseStream: what a transport sets with SetCloseStream is what a
// handler's fixture reads with CloseStream; a nil or fresh RequestExtra has
// none.
func TestCloseStream(t *testing.T) {
	p := bridge.Get[*mcp.Server, *mcp.ServerSession, *mcp.RequestExtra]()
	if p.CloseStream(nil) != nil {
		t.Error("CloseStream(nil) is not nil")
	}
	extra := &mcp.RequestExtra{}
	if p.CloseStream(extra) != nil {
		t.Error("CloseStream of a new RequestExtra is not nil")
	}
	called := 0
	p.SetCloseStream(extra, func() { called++ })
	p.CloseStream(extra)()
	if called != 1 {
		t.Errorf("the function set was called %d times, want 1", called)
	}
}

// A Shared is found only on the context WithShared made and only for its
// own message, and each kind of encoding is made once.
func TestShared(t *testing.T) {
	n := &jsonrpc.Notification{Method: "notifications/tools/list_changed"}
	s := &bridge.Shared{Msg: n}
	ctx := bridge.WithShared(context.Background(), s)
	if bridge.SharedOf(ctx, n) != s || bridge.SharedIn(ctx) != s {
		t.Fatal("the Shared was not found on its context")
	}
	if bridge.SharedOf(ctx, &jsonrpc.Notification{Method: n.Method}) != nil {
		t.Error("found for another message")
	}
	if bridge.SharedIn(context.Background()) != nil {
		t.Error("found on a context without one")
	}
	if bridge.SharedIn(context.WithValue(ctx, otherKey{}, 1)) != nil {
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
