package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{"request", req(id1, "tools/list", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"request with string id", req(jsonrpc.StringID("a-1"), "ping", ""), `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`},
		{"request with empty string id", req(jsonrpc.StringID(""), "ping", ""), `{"jsonrpc":"2.0","id":"","method":"ping"}`},
		{"request with zero integer id", req(jsonrpc.Int64ID(0), "ping", ""), `{"jsonrpc":"2.0","id":0,"method":"ping"}`},
		{"request with negative id", req(jsonrpc.Int64ID(-1<<63), "ping", ""), `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`},
		{"request with params", req(id1, "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`},
		{"request with array params", req(id1, "m", `[1,2]`), `{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}`},
		{"params compacted", req(id1, "m", "{ \"a\" : [ 1 , 2 ] ,\n\t\"b\" : \"x y\" }"), `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2],"b":"x y"}}`},
		{"params with spaces only compacted", req(id1, "m", `{ "a" : [1, 2] }`), `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2]}}`},
		{"trailing space compacted", notif("m", "[1] "), `{"jsonrpc":"2.0","method":"m","params":[1]}`},
		{"params with CRLF compacted", req(id1, "m", "{\r\n\"a\":1\r\n}"), `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`},
		{"params escapes kept", req(id1, "m", `{"s":"\u00e9\n\u2028"}`), `{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\u00e9\n\u2028"}}`},
		{"notification", notif("notifications/initialized", ""), `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"notification with params", notif("notifications/progress", `{"progressToken":"t","progress":1}`), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`},
		{"result", result(id1, `{"tools":[]}`), `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		{"nil result is {}", &jsonrpc.Response{ID: jsonrpc.StringID("x")}, `{"jsonrpc":"2.0","id":"x","result":{}}`},
		{"empty result is {}", &jsonrpc.Response{ID: id1, Result: json.RawMessage{}}, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"null result", result(id1, `null`), `{"jsonrpc":"2.0","id":1,"result":null}`},
		{"result compacted", result(id1, "{\n  \"a\": 1\n}\n"), `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`},
		{"error", errResp(id1, -32601, "Method not found", `"tools/nope"`), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"tools/nope"}}`},
		{"error without data", errResp(id1, -32603, "Internal error", ""), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"error with object data compacted", errResp(id1, -32602, "Invalid params", "{ \"field\" :\n \"name\" }"), `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field":"name"}}}`},
		{"error with null data", errResp(id1, 1, "m", `null`), `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}`},
		{"zero id encodes as null", errResp(noID, -32700, "Parse error", ""), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"error wins over result", &jsonrpc.Response{ID: id1, Result: json.RawMessage(`{}`), Error: &jsonrpc.Error{Code: 1, Message: "m"}}, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`},
		{"MCP error code", errResp(id1, jsonrpc.CodeURLElicitationRequired, "URL elicitation required", ""), `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"URL elicitation required"}}`},
		{"strings escaped", req(jsonrpc.StringID("q\"\\\n"), "a\tb\r<&>\u2028\u2029\x01\x7f", ""), `{"jsonrpc":"2.0","id":"q\"\\\n","method":"a\tb\r\u003c\u0026\u003e\u2028\u2029\u0001` + "\x7f" + `"}`},
		{"invalid UTF-8 replaced", notif("a\xffb", ""), `{"jsonrpc":"2.0","method":"a\ufffdb"}`},
		{"U+FFFD escaped", notif("a\uFFFDb", ""), `{"jsonrpc":"2.0","method":"a\ufffdb"}`},
		{"non-ASCII kept", notif("héllo/世界", ""), `{"jsonrpc":"2.0","method":"héllo/世界"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonrpc.Encode(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Encode =\n%s\nwant\n%s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("output is not valid JSON")
			}
			var compact bytes.Buffer
			_ = json.Compact(&compact, got)
			if !bytes.Equal(compact.Bytes(), got) {
				t.Errorf("output is not compact")
			}
			if bytes.ContainsAny(got, "\r\n") {
				t.Errorf("output contains a line break")
			}
			// AppendEncode appends the same bytes after a prefix.
			prefix := []byte("data: ")
			app, err := jsonrpc.AppendEncode(prefix, tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(app) != "data: "+tc.want {
				t.Errorf("AppendEncode = %s", app)
			}
		})
	}
}

// TestEncodeMatchesEncodingJSON checks that the hand-written string
// encoder produces what encoding/json produces, for every byte value, in
// mcpkit's form (jsonenc.Marshal: U+FFFD, which stands for invalid UTF-8,
// written \ufffd on every Go release).
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	var sb strings.Builder
	for b := 0; b < 256; b++ {
		sb.WriteByte(byte(b))
	}
	sb.WriteString("\u2028\u2029\U0001F600é")
	s := sb.String()
	got, err := jsonrpc.Encode(&jsonrpc.Notification{Method: s})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := jsonenc.Marshal(map[string]string{"jsonrpc": "2.0", "method": s})
	// json.Marshal sorts keys: {"jsonrpc":"2.0","method":...}.
	if string(got) != string(want) {
		t.Errorf("Encode =\n%s\nencoding/json =\n%s", got, want)
	}
}

func TestEncodeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{"nil message", nil, "jsonrpc: nil message"},
		{"request without id", &jsonrpc.Request{Method: "ping"}, "jsonrpc: request has no id"},
		{"result without id", &jsonrpc.Response{Result: json.RawMessage(`{}`)}, "jsonrpc: a response with a result must have an id"},
		{"invalid params", req(id1, "m", `{"a":`), "jsonrpc: raw member is not valid JSON"},
		{"invalid params with newline", notif("m", "{\n"), "jsonrpc: raw member is not valid JSON"},
		{"two values in params", notif("m", `{} {}`), "jsonrpc: raw member is not valid JSON"},
		{"invalid result", result(id1, `nope`), "jsonrpc: raw member is not valid JSON"},
		{"invalid error data", errResp(id1, 1, "m", `{`), "jsonrpc: raw member is not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonrpc.Encode(tc.msg)
			if err == nil {
				t.Fatalf("Encode = %s, want error %q", got, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %q, want %q", err, tc.want)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, msg := range []jsonrpc.Message{
		req(jsonrpc.StringID("id-\u2028"), "tools/call", `{"name":"echo","arguments":{"text":"<hi>"}}`),
		req(jsonrpc.Int64ID(0), "ping", ""),
		notif("notifications/message", `{"level":"info","data":[1,"two",{"three":3}]}`),
		result(jsonrpc.Int64ID(42), `{"content":[{"type":"text","text":"x"}]}`),
		errResp(noID, -32700, "Parse error", ""),
		errResp(jsonrpc.StringID("e"), -32602, "Invalid params", `{"why":"because"}`),
	} {
		enc, err := jsonrpc.Encode(msg)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := jsonrpc.Decode(enc)
		if err != nil {
			t.Fatalf("Decode(%s): %v", enc, err)
		}
		if dump(got) != dump(msg) {
			t.Errorf("round trip of %s = %s", dump(msg), dump(got))
		}
	}
}

func TestAppendEncodeReusesBuffer(t *testing.T) {
	buf := make([]byte, 0, 256)
	first, err := jsonrpc.AppendEncode(buf, req(id1, "ping", ""))
	if err != nil {
		t.Fatal(err)
	}
	second, err := jsonrpc.AppendEncode(first[:0], notif("n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if &first[0] != &second[0] || &buf[:1][0] != &first[0] {
		t.Error("AppendEncode did not reuse the buffer's storage")
	}
	if string(second) != `{"jsonrpc":"2.0","method":"n"}` {
		t.Errorf("second = %s", second)
	}
}

func TestEncodeAllocations(t *testing.T) {
	msg := result(jsonrpc.Int64ID(7), `{"content":[{"type":"text","text":"hello"}]}`)
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = jsonrpc.AppendEncode(buf[:0], msg); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AppendEncode into a large enough buffer allocates %v times, want 0", allocs)
	}
}

// A result given to NewCompactResult is copied as it is; once Result is
// replaced, it is checked (and compacted) as any other.
func TestNewCompactResult(t *testing.T) {
	r := jsonrpc.NewCompactResult(jsonrpc.Int64ID(1), json.RawMessage(`{"a":1}`))
	if !r.KnownCompact() {
		t.Fatal("KnownCompact = false for the result given")
	}
	got, err := jsonrpc.Encode(r)
	if want := `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`; err != nil || string(got) != want {
		t.Fatalf("Encode = %s, %v; want %s", got, err, want)
	}
	r.Result = json.RawMessage("{\"a\":\n 2}")
	if r.KnownCompact() {
		t.Fatal("KnownCompact = true after Result was replaced")
	}
	got, err = jsonrpc.Encode(r)
	if want := `{"jsonrpc":"2.0","id":1,"result":{"a":2}}`; err != nil || string(got) != want {
		t.Fatalf("Encode after replacing Result = %s, %v; want %s", got, err, want)
	}
	r.Result = json.RawMessage(`{"a":`)
	if _, err := jsonrpc.Encode(r); err == nil {
		t.Fatal("Encode of an invalid replaced Result succeeded")
	}
	if (&jsonrpc.Response{ID: jsonrpc.Int64ID(2), Result: json.RawMessage(`{}`)}).KnownCompact() {
		t.Fatal("KnownCompact = true for a Response not made by NewCompactResult")
	}
}
