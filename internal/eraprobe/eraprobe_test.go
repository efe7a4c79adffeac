package eraprobe

import (
	"bytes"
	"testing"
)

func TestMentionsProtocolVersion(t *testing.T) {
	for _, in := range []string{
		``,
		`{}`,
		`{"name":"echo","arguments":{"text":"a/b"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		`"io.modelcontextprotocol/protocolVersion"`,
		`"io.modelcontextprotocol/protocolVersion`,
		`io.modelcontextprotocol/protocolVersion"`,
		`{"u":"https://x/y","_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`,
		`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}`,
		`//////"io.modelcontextprotocol/protocolVersion"`,
	} {
		if got, want := MentionsProtocolVersion([]byte(in)), bytes.Contains([]byte(in), []byte(ProtocolVersionKey)); got != want {
			t.Errorf("MentionsProtocolVersion(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzMentionsProtocolVersion(f *testing.F) {
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	f.Add([]byte(`{"name":"echo","arguments":{"text":"a/b"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := MentionsProtocolVersion(data), bytes.Contains(data, []byte(ProtocolVersionKey)); got != want {
			t.Fatalf("MentionsProtocolVersion(%q) = %v, want %v", data, got, want)
		}
	})
}

// tailSearch is the search this package replaced: bytes.Index for the
// key's tail, then a look at its head.
func tailSearch(data []byte) bool {
	const head = `"io.modelcontextprotocol`
	tail := []byte(`/protocolVersion"`)
	for off := 0; ; {
		i := bytes.Index(data[off:], tail)
		if i < 0 {
			return false
		}
		i += off
		if i >= len(head) && string(data[i-len(head):i]) == head {
			return true
		}
		off = i + 1
	}
}

// A session-era tools/call's params, which never hold the key.
var sessionParams = []byte(`{"name":"echo","arguments":{"text":"hello, world"},"_meta":{"progressToken":7}}`)

func BenchmarkMentionsProtocolVersion(b *testing.B) {
	b.Run("indexbyte", func(b *testing.B) {
		for b.Loop() {
			MentionsProtocolVersion(sessionParams)
		}
	})
	b.Run("tail-index", func(b *testing.B) {
		for b.Loop() {
			tailSearch(sessionParams)
		}
	})
}
