package mcp

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkClientCallTool measures ClientSession.CallTool in each era,
// through the in-memory transport to an mcpkit server.
func BenchmarkClientCallTool(b *testing.B) {
	for _, era := range []ProtocolEra{EraSession, EraStateless} {
		b.Run(era.String(), func(b *testing.B) {
			s := newBenchServer(b)
			ct, st := NewInMemoryTransports()
			ctx := context.Background()
			ss, err := s.Connect(ctx, st)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			c := NewClient(Implementation{Name: "bench-client", Version: "1"}, &ClientOptions{ProtocolEra: era})
			cs, err := c.Connect(ctx, ct)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello, world"}`)}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
