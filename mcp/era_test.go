package mcp

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// TestNewMethodBothEras adds a method as the built-ins are added: a
// handler, and an entry in each era's method table (NewServer). Nothing
// else is needed for either era to serve it, over the in-memory transport.
func TestNewMethodBothEras(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

	s := NewServer(Implementation{Name: "toy", Version: "1.0.0"}, nil)
	echo := func(_ context.Context, r *Request) (any, error) {
		return map[string]any{"version": r.ProtocolVersion, "client": r.ClientInfo.Name, "stateless": r.Stateless()}, nil
	}
	tables := s.tables.Load()
	tables.session["toy/echo"] = echo
	tables.stateless["toy/echo"] = echo
	tables.stateless["toy/statelessOnly"] = echo

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clientT, serverT := NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn, err := clientT.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call := func(frame string) string {
		t.Helper()
		if err := conn.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		got, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"new","version":"1"}}`

	for _, tc := range []struct{ name, frame, want string }{
		{
			"stateless era",
			`{"jsonrpc":"2.0","id":1,"method":"toy/echo","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"toy","version":"1.0.0"}},"client":"new","stateless":true,"version":"2026-07-28"}}`,
		},
		{
			"session era before initialize",
			`{"jsonrpc":"2.0","id":2,"method":"toy/echo"}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server not initialized"}}`,
		},
		{
			"initialize",
			`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"toy","version":"1.0.0"}}}`,
		},
		{
			"session era",
			`{"jsonrpc":"2.0","id":4,"method":"toy/echo"}`,
			`{"jsonrpc":"2.0","id":4,"result":{"client":"old","stateless":false,"version":"2025-11-25"}}`,
		},
		{
			"absent from the session era's table",
			`{"jsonrpc":"2.0","id":5,"method":"toy/statelessOnly"}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found","data":"toy/statelessOnly"}}`,
		},
		{
			"absent from the stateless era's table",
			`{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{` + meta + `,"level":"info"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found","data":"logging/setLevel"}}`,
		},
	} {
		if got := call(tc.frame); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if tc.name == "initialize" {
			if err := conn.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
