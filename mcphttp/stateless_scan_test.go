package mcphttp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// FuzzScanStateless: scanStateless finds the version mcp.StatelessVersionOf
// finds, and the tools/call name and arguments a plain scan of valid
// params finds.
func FuzzScanStateless(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `{"_meta":{}}`,
		`{"_meta":` + statelessMeta + `,"name":"echo","arguments":{"a":1}}`,
		`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":7},"name":"b","arguments":null}`,
		`{"_meta":"io.modelcontextprotocol/protocolVersion","name":"x"}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"_meta":{}} `,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}} x`,
		`{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"n\u0061me":"t"}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		req := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: params}
		v := scanStateless(req)
		version, present := mcp.StatelessVersionOf(req)
		if v.version != version || v.present != present {
			t.Fatalf("scanStateless(%q) = %q, %v; StatelessProtocolVersion %q, %v", params, v.version, v.present, version, present)
		}
		// The same params in a request jsonrpc.Decode made, which notes
		// their members, give the same answers.
		frame := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`), params...), '}')
		if msg, _, err := jsonrpc.Decode(frame); err == nil {
			if decoded, ok := msg.(*jsonrpc.Request); ok && bytes.Equal(decoded.Params, params) {
				got := scanStateless(decoded)
				dv, dp := mcp.StatelessVersionOf(decoded)
				if got.version != v.version || got.present != v.present || dv != version || dp != present ||
					!bytes.Equal(got.call.name, v.call.name) || !bytes.Equal(got.call.args, v.call.args) {
					t.Fatalf("decoded %q: scanStateless = %+v, StatelessProtocolVersion %q, %v; want %+v, %q, %v", params, got, dv, dp, v, version, present)
				}
			}
		}
		var want toolCall
		if present && jsonscan.Valid(params) && bytes.HasPrefix(params, []byte("{")) {
			jsonscan.Members(params, func(key, value []byte) bool {
				switch {
				case jsonscan.KeyEquals(key, "name"):
					want.name = value
				case jsonscan.KeyEquals(key, "arguments"):
					want.args = value
				}
				return true
			})
		}
		if !bytes.Equal(v.call.name, want.name) || !bytes.Equal(v.call.args, want.args) {
			t.Fatalf("scanStateless(%q) call = %s, %s; want %s, %s", params, v.call.name, v.call.args, want.name, want.args)
		}
	})
}

// TestScanStatelessSessionEra: a request without the era's _meta key costs
// no allocation, and names no version.
func TestScanStatelessSessionEra(t *testing.T) {
	msg, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"},"_meta":{"progressToken":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	byHand := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: json.RawMessage(`{"name":"echo","arguments":{"text":"hello, world"}}`)}
	for _, req := range []*jsonrpc.Request{msg.(*jsonrpc.Request), byHand} {
		if n := testing.AllocsPerRun(100, func() { scanStateless(req) }); n != 0 {
			t.Errorf("%s: %v allocations", req.Params, n)
		}
		if v := scanStateless(req); v.present || v.call.name != nil {
			t.Errorf("%s: scanStateless = %+v", req.Params, v)
		}
	}
}

// TestContainsSplit: containsSplit is bytes.Contains of head and tail.
func TestContainsSplit(t *testing.T) {
	tail := []byte(`/b"`)
	for _, data := range []string{
		``, `"a/b"`, `"a/b`, `a/b"`, `/b"`, `"a"a/b"`, `"a/b/b"`, `x/b" "a/b"`, `"a/b" x`, `/b"/b""a/b"`, `"a/c" "a/b"`, `"a/b"a/b"`,
	} {
		if got, want := containsSplit([]byte(data), `"a`, tail), bytes.Contains([]byte(data), []byte(`"a/b"`)); got != want {
			t.Errorf("containsSplit(%q) = %v, want %v", data, got, want)
		}
	}
}
