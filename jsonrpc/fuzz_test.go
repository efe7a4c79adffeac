package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsontest"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// FuzzDecode checks Decode on arbitrary bytes:
//   - it never panics and never modifies its input;
//   - a refusal is an *Error: -32700 exactly when the input is not JSON
//     (as encoding/json.Valid decides), otherwise -32600, and the error
//     response built from it encodes;
//   - every accepted message re-encodes to compact JSON on one line that
//     decodes again to the same message (same kind, id, method, error
//     code/message, and raw members equal once compacted), and encoding
//     that message again gives the same bytes.
//
// Run it with: go test -run=^$ -fuzz=FuzzDecode -fuzztime=60s ./jsonrpc
func FuzzDecode(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","reason":"user"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"\u2028<&>"}],"isError":false}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[]}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","method":"m\ud800","params":["\udc00",1e400,-0.0,1E-7]}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"\xc3\x28\"}",
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":{"c":[[[[{}]]]]}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","id":"2"}`,
		`{"jsonrpc":"2.0","id":-0,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","code":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","Name":"x","name":"y"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":1,"c":{"d":1,"\u0064":2}}]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"k":1,"k":2}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"content":[]}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\xff\":1,\"a\xfe\":2}}",
		`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m"}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"a\\\\\\\"b\"}}",
		`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id":1,"method":"m"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}}`,
		"\t\n\r {\"jsonrpc\":\"2.0\",\"method\":\"m\"} \n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		msg, id, err := jsonrpc.Decode(data)
		if !bytes.Equal(data, orig) {
			t.Fatalf("Decode modified its input")
		}
		if err != nil {
			checkRefusal(t, data, msg, id, err)
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Decode accepted invalid JSON %q as %s", data, dump(msg))
		}
		if jsontest.RepeatsName(data) {
			t.Fatalf("Decode accepted %q, in which an object repeats a member name", data)
		}
		checkReturnedID(t, msg, id)

		enc, err := jsonrpc.Encode(msg)
		if err != nil {
			t.Fatalf("Encode(%s): %v", dump(msg), err)
		}
		if !json.Valid(enc) || bytes.ContainsAny(enc, "\r\n") || !bytes.Equal(compact(enc), enc) {
			t.Fatalf("Encode(%s) = %q: not compact JSON on one line", dump(msg), enc)
		}
		back, id2, err := jsonrpc.Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(%s)) = %v; encoded %q", dump(msg), err, enc)
		}
		if id2 != id {
			t.Fatalf("id after the round trip = %v, want %v", id2, id)
		}
		if !sameMessage(msg, back) {
			t.Fatalf("round trip changed the message:\n in:  %s\n out: %s\n via: %s", dump(msg), dump(back), enc)
		}
		again, err := jsonrpc.Encode(back)
		if err != nil || !bytes.Equal(again, enc) {
			t.Fatalf("Encode is not a fixed point: %q then %q (%v)", enc, again, err)
		}
	})
}

// checkRefusal checks an error from Decode.
func checkRefusal(t *testing.T, data []byte, msg jsonrpc.Message, id jsonrpc.ID, err error) {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("Decode error %v is a %T, not an *jsonrpc.Error", err, err)
	}
	if msg != nil {
		// Only a name repeated inside params, result or error comes with
		// the message.
		want := `"Invalid params: duplicate member `
		if _, ok := msg.(*jsonrpc.Response); ok {
			want = `"Invalid Request: duplicate member `
		}
		if !strings.HasPrefix(string(e.Data), want) {
			t.Fatalf("Decode returned both a message and an error: %s, %v", dump(msg), err)
		}
	}
	// A repeated name may be refused for another fault found first, but
	// a refusal for one is never wrong.
	if strings.Contains(string(e.Data), ": duplicate member ") && !jsontest.RepeatsName(data) {
		t.Fatalf("%q: refused with %s; the reference reader finds a repeated name: %v", data, e.Data, jsontest.RepeatsName(data))
	}
	switch {
	case !json.Valid(data):
		if e.Code != jsonrpc.CodeParseError || e.Message != "Parse error" || e.Data != nil || id.IsValid() {
			t.Fatalf("invalid JSON %q: got {%d %q %s} id %v, want a bare -32700 and no id", data, e.Code, e.Message, e.Data, id)
		}
	case e.Code == jsonrpc.CodeInvalidParams && e.Message == "Invalid params" && msg != nil:
	case e.Code != jsonrpc.CodeInvalidRequest || e.Message != "Invalid Request":
		t.Fatalf("valid JSON %q refused with {%d %q}, want -32600", data, e.Code, e.Message)
	case !strings.HasPrefix(string(e.Data), `"Invalid Request: `):
		t.Fatalf("-32600 data = %s, want a reason", e.Data)
	}
	if _, err := jsonrpc.Encode(jsonrpc.NewErrorResponse(id, e)); err != nil {
		t.Fatalf("the error response for %q does not encode: %v", data, err)
	}
}

// checkReturnedID checks the id Decode returns beside an accepted message.
func checkReturnedID(t *testing.T, msg jsonrpc.Message, id jsonrpc.ID) {
	t.Helper()
	var want jsonrpc.ID
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			t.Fatalf("accepted a request without an id: %s", dump(msg))
		}
		want = m.ID
	case *jsonrpc.Response:
		if (m.Error == nil) == (m.Result == nil) {
			t.Fatalf("accepted a response without exactly one of result and error: %s", dump(msg))
		}
		if m.Error == nil && !m.ID.IsValid() {
			t.Fatalf("accepted a result without an id: %s", dump(msg))
		}
		want = m.ID
	case *jsonrpc.Notification:
	default:
		t.Fatalf("Decode returned %T", msg)
	}
	if id != want {
		t.Fatalf("returned id %v, message id %v", id, want)
	}
}

// sameMessage compares two messages semantically: raw members compacted.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameRaw(a.Params, b.Params)
	case *jsonrpc.Notification:
		b, ok := b.(*jsonrpc.Notification)
		return ok && a.Method == b.Method && sameRaw(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		if a.Error != nil {
			return a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && sameRaw(a.Error.Data, b.Error.Data)
		}
		return sameRaw(a.Result, b.Result)
	}
	return false
}

// sameRaw reports whether two raw members are both absent or equal once
// compacted.
func sameRaw(a, b json.RawMessage) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return bytes.Equal(compact(a), compact(b))
}

func compact(raw []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append([]byte("invalid:"), raw...)
	}
	return buf.Bytes()
}
