package jsonscan

import "testing"

// BenchmarkValid measures validating a tools/call frame of each protocol
// era: strings (long _meta keys above all) are most of the bytes.
func BenchmarkValid(b *testing.B) {
	for _, tc := range []struct{ name, frame string }{
		{"session", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`},
		{"modern", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}},"name":"echo","arguments":{"text":"hello, world"}}}`},
	} {
		frame := []byte(tc.frame)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if !Valid(frame) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkSkipUnique is BenchmarkValid's 2026-07-28 frame checked for
// repeated member names as well, as jsonrpc.Decode checks every frame.
func BenchmarkSkipUnique(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}},"name":"echo","arguments":{"text":"hello, world"}}}`)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, _, err := SkipUniqueAt(frame, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}
