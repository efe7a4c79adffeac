package mcp

import (
	"context"
	"testing"

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
