package httpmeta

import (
	"encoding/json"
	"testing"
)

var benchSink string

func BenchmarkEncodeValue(b *testing.B) {
	for _, c := range []struct{ name, in string }{{"plain", "us-west1"}, {"base64", "Hello, 世界"}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink = EncodeValue(c.in)
			}
		})
	}
}

func BenchmarkDecodeValue(b *testing.B) {
	for _, c := range []struct{ name, in string }{{"plain", "us-west1"}, {"base64", "=?base64?SGVsbG8sIOS4lueVjA==?="}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink, _ = DecodeValue(c.in)
			}
		})
	}
}

// BenchmarkServerCheck is the per-request work of a server for a tools/call
// with one annotated argument: Mcp-Method, Mcp-Name and one Mcp-Param.
func BenchmarkServerCheck(b *testing.B) {
	params := json.RawMessage(`{"name":"execute_sql","arguments":{"region":"us-west1","query":"SELECT * FROM users"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	args := json.RawMessage(`{"region":"us-west1","query":"SELECT * FROM users"}`)
	path := []string{"region"}
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckMethod("tools/call", true, "tools/call"); err != nil {
			b.Fatal(err)
		}
		if err := CheckName("tools/call", "execute_sql", true, params); err != nil {
			b.Fatal(err)
		}
		raw, present, err := ArgumentAt(args, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := MatchArgument("Mcp-Param-Region", "us-west1", present, raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeArgument(b *testing.B) {
	for _, c := range []struct{ name, raw string }{{"string", `"us-west1"`}, {"integer", `12345`}, {"boolean", `true`}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink, _ = EncodeArgument(json.RawMessage(c.raw))
			}
		})
	}
}

func BenchmarkHeaderParams(b *testing.B) {
	schema := json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"The region to execute the query in","x-mcp-header":"Region"},"query":{"type":"string","description":"The SQL query to execute"}},"required":["region","query"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HeaderParams(schema); err != nil {
			b.Fatal(err)
		}
	}
}
