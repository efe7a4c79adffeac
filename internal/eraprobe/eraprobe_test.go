package eraprobe

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMentionsProtocolVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{``, false},
		{`{}`, false},
		{`{"name":"echo","arguments":{"text":"a/b"}}`, false},
		{`{"name":"echo","arguments":{"text":"line\nbreak \"quoted\" back\\slash"}}`, false},
		{`{"text":"\\u0041"}`, false}, // an escaped backslash, then a plain u
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, true},
		{`"io.modelcontextprotocol/protocolVersion"`, true},
		{`"io.modelcontextprotocol/protocolVersion`, false},
		{`io.modelcontextprotocol/protocolVersion"`, false},
		{`{"u":"https://x/y","_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`, true},
		{`//////"io.modelcontextprotocol/protocolVersion"`, true},
		// Escaped spellings of the key: the probe cannot rule them out.
		{`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}`, true},
		{`{"_meta":{"io.modelcontextprotocol\u002fprotocolVersion":"2026-07-28"}}`, true},
		{`{"text":"caf\u00e9"}`, true},
	} {
		if got := MentionsProtocolVersion([]byte(c.in)); got != c.want {
			t.Errorf("MentionsProtocolVersion(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// namesKey is the oracle: whether data, decoded, is an object whose _meta
// object has the key.
func namesKey(data []byte) bool {
	var v struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	_, ok := v.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

func FuzzMentionsProtocolVersion(f *testing.F) {
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}`))
	f.Add([]byte(`{"_meta":{"\u0069o.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	f.Add([]byte(`{"name":"echo","arguments":{"text":"a/b"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := MentionsProtocolVersion(data)
		if !got && (namesKey(data) || bytes.Contains(data, []byte(ProtocolVersionKey))) {
			t.Fatalf("MentionsProtocolVersion(%q) = false, but it names the key", data)
		}
		if got && !bytes.Contains(data, []byte(ProtocolVersionKey)) && !mayEscapeKey(data) {
			t.Fatalf("MentionsProtocolVersion(%q) = true without the key or an escape", data)
		}
	})
}

// A session-era tools/call's params, which never hold the key.
var sessionParams = []byte(`{"name":"echo","arguments":{"text":"hello, world"},"_meta":{"progressToken":7}}`)

func BenchmarkMentionsProtocolVersion(b *testing.B) {
	for b.Loop() {
		MentionsProtocolVersion(sessionParams)
	}
}
