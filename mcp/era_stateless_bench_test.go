package mcp

import (
	"context"
	"testing"
	"unsafe"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// BenchmarkStatelessResult is the encoding of a stateless-era tools/call
// result, the echo tool's, head included, and of its JSON-RPC response:
// statelessResponse and jsonrpc.Encode.
func BenchmarkStatelessResult(b *testing.B) {
	s := newBenchServer(b)
	id := jsonrpc.Int64ID(7)
	b.ReportAllocs()
	for b.Loop() {
		resp := s.statelessResponse(id, "tools/call", newTextResult("hello, world"))
		if _, err := jsonrpc.Encode(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatelessRoute is Server.dispatch of a decoded stateless-era
// tools/call to the typed echo tool: routing, the params decode, the
// arguments check and the tool's result.
func BenchmarkStatelessRoute(b *testing.B) {
	s := newBenchServer(b)
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	msg, _, _ := jsonrpc.Decode(frame)
	req := msg.(*jsonrpc.Request)
	c := &soloCall{}
	c.ss.server = s
	c.ss.state.Lifecycle = stateReady
	m := &c.call.meta
	if _, e := m.parse(req.Params, req); e != nil {
		b.Fatal(e)
	}
	st := &c.call.st
	st.logLevel, st.meta = m.logLevel, m
	c.call.ctx = statelessCtx{Context: context.Background()}
	b.ReportAllocs()
	for b.Loop() {
		c.req = Request{Method: req.Method, ID: req.ID, Params: req.Params, Session: &c.ss, ProtocolVersion: m.version, ClientInfo: &m.info, ClientCapabilities: &m.caps, era: st}
		if _, err := s.dispatch(&c.call.ctx, &c.req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatelessMetaParse is requestMeta.parse of a decoded
// 2026-07-28 tools/call: its _meta read from the members jsonrpc.Decode
// noted.
func BenchmarkStatelessMetaParse(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	msg, _, _ := jsonrpc.Decode(frame)
	req := msg.(*jsonrpc.Request)
	b.ReportAllocs()
	for b.Loop() {
		var m requestMeta
		if _, e := m.parse(req.Params, req); e != nil {
			b.Fatal(e)
		}
	}
}

// A 2026-07-28 tools/call served on a session (stdio) allocates what
// BenchmarkModernToolsCallSession reports: no func value for the request's
// cancel, and sessionStatelessCall, with the 8-byte header of a pointerful
// object above 512 bytes, within the 704-byte size class.
func TestStatelessSessionCallAllocs(t *testing.T) {
	if size := unsafe.Sizeof(sessionStatelessCall{}) + 8; size > 704 {
		t.Errorf("sessionStatelessCall takes %d bytes with its header: past the 704-byte size class", size)
	}
	s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
	if err := AddTool(s, &Tool{Name: "echo"}, func(_ context.Context, _ *Request, in benchEchoIn) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	ss := s.newSession(SessionOptions{Preinitialized: true})
	defer ss.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	req := msg.(*jsonrpc.Request)
	// 8 with the cancel func value.
	const want = 7
	if n := testing.AllocsPerRun(100, func() {
		if resp, err := ss.handleRequest(ctx, req, nil, nil); err != nil || resp.Error != nil {
			t.Fatal(err, resp.Error)
		}
	}); n != want {
		t.Errorf("%v allocations per call, want %d", n, want)
	}
}
