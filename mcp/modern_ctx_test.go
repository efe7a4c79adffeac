package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/ctxscope"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// scoped is a transport's context that ends once the request is answered
// (ctxscope).
type scoped struct{ context.Context }

func (c scoped) Value(key any) any {
	if _, ok := key.(ctxscope.Key); ok {
		return true
	}
	return c.Context.Value(key)
}

// TestModernHandlerContext: a stateless-era handler's context is cancelled
// when it returns, unless the request is served on no session with a
// context its transport ends itself (ctxscope); it carries the request's
// values and the stateless mark either way.
func TestModernHandlerContext(t *testing.T) {
	type valueKey struct{}
	var got context.Context
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	if err := s.AddTool(&Tool{Name: "grab"}, func(ctx context.Context, _ *Request, _ json.RawMessage) (*CallToolResult, error) {
		got = ctx
		return &CallToolResult{Content: []Content{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	call := func() *jsonrpc.Request {
		msg, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + benchModernMeta + `,"name":"grab"}}`))
		if err != nil {
			t.Fatal(err)
		}
		return msg.(*jsonrpc.Request)
	}
	check := func(name string, wantCancelled bool) {
		t.Helper()
		if got.Value(valueKey{}) != "v" || mayCallClient(got, "x") == nil {
			t.Errorf("%s: the handler's context lost the request's value or the stateless mark", name)
		}
		if cancelled := got.Err() != nil; cancelled != wantCancelled {
			t.Errorf("%s: handler's context cancelled on return: %v, want %v", name, cancelled, wantCancelled)
		}
	}
	base := context.WithValue(context.Background(), valueKey{}, "v")

	if resp, refused := s.serveStateless(base, call(), nil, nil); refused || resp.Error != nil {
		t.Fatal(resp.Error)
	}
	check("no session", true)

	parent, cancel := context.WithCancel(base)
	if resp, refused := s.serveStateless(scoped{parent}, call(), nil, nil); refused || resp.Error != nil {
		t.Fatal(resp.Error)
	}
	check("no session, scoped", false)
	cancel()
	if got.Err() == nil {
		t.Error("no session, scoped: the transport's cancellation does not reach the handler's context")
	}

	ss := s.newSession(SessionOptions{Preinitialized: true})
	defer ss.Close()
	if resp, _, err := ss.handleStateless(scoped{base}, call(), nil, nil); err != nil || resp.Error != nil {
		t.Fatal(err, resp.Error)
	}
	check("on a session, scoped", true)
}
