package mcp

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// benchModernMeta is the _meta a 2026-07-28 client sends on every request:
// its version, capabilities and identity.
const benchModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}}`

// BenchmarkModernToolsCall is BenchmarkToolsCallRoundTrip for a
// 2026-07-28 request served outside any session
// (Host.ServeStateless): decode the frame, check its _meta, run the
// typed echo tool, stamp and encode the reply.
func BenchmarkModernToolsCall(b *testing.B) {
	s := newBenchServer(b)
	ctx := context.Background()
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		msg, _, err := jsonrpc.Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		resp, refused := s.serveStateless(ctx, msg.(*jsonrpc.Request), nil, nil)
		if refused || resp.Error != nil {
			b.Fatal(resp.Error)
		}
		if _, err := jsonrpc.Encode(resp); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, n)
}

// BenchmarkModernToolsCallSession is BenchmarkModernToolsCall for a
// 2026-07-28 request arriving on a live session
// (ServerSession.HandleRequest routes it to the stateless path), as on
// stdio.
func BenchmarkModernToolsCallSession(b *testing.B) {
	s := newBenchServer(b)
	ss := s.newSession(SessionOptions{Preinitialized: true})
	defer ss.Close()
	// A session's requests are served under a context that ends with it,
	// as Server.Connect's does.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pre := []byte(`{"jsonrpc":"2.0","id":`)
	post := []byte(`,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		buf = append(strconv.AppendInt(append(buf[:0], pre...), int64(n), 10), post...)
		msg, _, err := jsonrpc.Decode(buf)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := ss.handleRequest(ctx, msg.(*jsonrpc.Request), nil, nil)
		if err != nil || resp.Error != nil {
			b.Fatal(err, resp.Error)
		}
		if _, err := jsonrpc.Encode(resp); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, n)
}

// BenchmarkModernToolsCallStdioPipelined is scenario 7 of the bench
// harness in process: the server on OS pipes (Server.Run on a
// StdioTransport) with 64 pipelined 2026-07-28 tools/call requests in
// flight, each with the stateless era's _meta and no handshake. The
// client is a bare writer and reader of frames; cpu-ns/op is the
// process's CPU per call, mostly the server's.
func BenchmarkModernToolsCallStdioPipelined(b *testing.B) {
	benchStdioPipelined(b, false, `{`+benchModernMeta+`,"name":"echo","arguments":{"text":"hello, world"}}`)
}

// BenchmarkModernDecodeMeta is the envelope decode and the stateless
// era's _meta parse of a 2026-07-28 tools/call: the part of the request
// path that reads the frame, before the tool runs.
func BenchmarkModernDecodeMeta(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + benchModernMeta + `,"name":"echo","arguments":{"text":"hello, world"}}}`)
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		msg, _, err := jsonrpc.Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		req := msg.(*jsonrpc.Request)
		var m requestMeta
		if _, err := m.parse(req.Params, req); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, n)
}
