package jsonrpc

import (
	"testing"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
)

// BenchmarkDecodeStatelessToolsCall decodes the tools/call frame a
// 2026-07-28 client sends: its params carry the stateless era's _meta.
func BenchmarkDecodeStatelessToolsCall(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}},"name":"echo","arguments":{"text":"hello, world"}}}`)
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		if _, _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
}
