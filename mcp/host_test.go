package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// TestHostTool: Host.Tool returns the tool as registered, with its
// inputSchema and RequiredScopes, and nothing for an unknown or removed
// name.
func TestHostTool(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object"}`)
	if err := s.AddTool(&mcp.Tool{Name: "t", InputSchema: schema, RequiredScopes: []string{"a", "b"}}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := s.Host()
	tool, ok := h.Tool("t")
	if !ok || tool.Name != "t" || string(tool.InputSchema) != `{"type":"object"}` || len(tool.RequiredScopes) != 2 || tool.RequiredScopes[1] != "b" {
		t.Fatalf("Tool(t) = %+v, %t", tool, ok)
	}
	if tool, ok := h.Tool("u"); ok || tool != nil {
		t.Errorf("Tool(u) = %+v, %t; want nil, false", tool, ok)
	}
	s.RemoveTools("t")
	if _, ok := h.Tool("t"); ok {
		t.Error("Tool(t) found after RemoveTools")
	}
}

// TestHostDeliver: a response nobody waits for is reported as such, a
// notification is taken, and a request is not Deliver's.
func TestHostDeliver(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := s.Host()
	ss := h.NewSession(mcp.SessionOptions{Preinitialized: true})
	defer ss.Close()
	ctx := context.Background()
	if h.Deliver(ctx, ss, &jsonrpc.Response{ID: jsonrpc.Int64ID(9), Result: json.RawMessage(`{}`)}, nil) {
		t.Error("Deliver of an unexpected response = true")
	}
	if !h.Deliver(ctx, ss, &jsonrpc.Notification{Method: "notifications/initialized"}, nil) {
		t.Error("Deliver of a notification = false")
	}
	if h.Deliver(ctx, ss, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}, nil) {
		t.Error("Deliver of a request = true")
	}
	resp, err := h.HandleRequest(ctx, ss, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}, nil, nil)
	if err != nil || resp == nil || string(resp.Result) != "{}" {
		t.Errorf("HandleRequest(ping) = %+v, %v", resp, err)
	}
}

// TestStatelessVersionOf: the version a request's or a notification's
// _meta names, present even when it is not a string; absent otherwise.
func TestStatelessVersionOf(t *testing.T) {
	for _, tc := range []struct {
		msg     jsonrpc.Message
		version string
		ok      bool
	}{
		{&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/list", Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)}, "2026-07-28", true},
		{&jsonrpc.Notification{Method: "notifications/cancelled", Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)}, "2026-07-28", true},
		{&jsonrpc.Notification{Method: "notifications/cancelled", Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`)}, "", true},
		{&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/list", Params: json.RawMessage(`{}`)}, "", false},
		{&jsonrpc.Notification{Method: "notifications/initialized"}, "", false},
		{&jsonrpc.Response{ID: jsonrpc.Int64ID(1)}, "", false},
	} {
		if v, ok := mcp.StatelessVersionOf(tc.msg); v != tc.version || ok != tc.ok {
			t.Errorf("StatelessVersionOf(%+v) = %q, %t; want %q, %t", tc.msg, v, ok, tc.version, tc.ok)
		}
	}
}
