package jsonrpc_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// invalidParams is the -32602 error whose data is "Invalid params: "+reason.
func invalidParams(reason string) *wantError {
	b, _ := json.Marshal("Invalid params: " + reason)
	return &wantError{jsonrpc.CodeInvalidParams, "Invalid params", string(b)}
}

// TestDecodeRepeatedNames: a member name may appear once in any object of a
// message. In the envelope a repeat is -32600 and no message; inside
// params it is -32602 and inside a response's result or error -32600, each
// naming the member and the object, with the message beside the error.
// Names are compared decoded, and exactly: "Name" is not "name".
func TestDecodeRepeatedNames(t *testing.T) {
	id := jsonrpc.Int64ID(7)
	for _, tc := range []struct {
		name string
		in   string
		want jsonrpc.Message // returned beside the error
		id   jsonrpc.ID
		err  *wantError
	}{
		{name: "method twice", in: `{"jsonrpc":"2.0","id":7,"method":"ping","method":"tools/call"}`, id: id, err: invalidReq(`duplicate member "method"`)},
		{name: "id twice", in: `{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}`, err: invalidReq(`duplicate member "id"`)},
		{name: "jsonrpc twice", in: `{"jsonrpc":"2.0","jsonrpc":"1.0","id":7,"method":"ping"}`, id: id, err: invalidReq(`duplicate member "jsonrpc"`)},
		{name: "params twice", in: `{"jsonrpc":"2.0","id":7,"method":"m","params":{},"params":{}}`, id: id, err: invalidReq(`duplicate member "params"`)},
		{name: "unknown member twice", in: `{"jsonrpc":"2.0","id":7,"method":"m","x":1,"x":2}`, id: id, err: invalidReq(`duplicate member "x"`)},
		{name: "method spelled with an escape", in: `{"jsonrpc":"2.0","id":7,"method":"ping","\u006dethod":"tools/call"}`, id: id, err: invalidReq(`duplicate member "method"`)},
		{name: "envelope repeat outranks one in params", in: `{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1,"a":2},"method":"n"}`, id: id, err: invalidReq(`duplicate member "method"`)},
		{
			name: "params.name twice",
			in:   `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","name":"test_simple_text"}}`,
			want: req(id, "tools/call", `{"name":"echo","name":"test_simple_text"}`), id: id,
			err: invalidParams(`duplicate member "name" in /params`),
		},
		{
			name: "argument twice",
			in:   `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"}}}`,
			want: req(id, "tools/call", `{"name":"echo","arguments":{"text":"a","text":"b"}}`), id: id,
			err: invalidParams(`duplicate member "text" in /params/arguments`),
		},
		{
			name: "_meta member twice",
			in:   `{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{"progressToken":1,"progressToken":2}}}`,
			want: req(id, "m", `{"_meta":{"progressToken":1,"progressToken":2}}`), id: id,
			err: invalidParams(`duplicate member "progressToken" in /params/_meta`),
		},
		{
			name: "deep in an array",
			in:   `{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":[0,{"b":{"c":1,"\u0063":2}}]}}`,
			want: req(id, "m", `{"a":[0,{"b":{"c":1,"\u0063":2}}]}`), id: id,
			err: invalidParams(`duplicate member "c" in /params/a/1/b`),
		},
		{
			name: "notification",
			in:   `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`,
			want: notif("notifications/cancelled", `{"requestId":1,"requestId":2}`),
			err:  invalidParams(`duplicate member "requestId" in /params`),
		},
		{
			name: "result",
			in:   `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a","text":"b"}]}}`,
			want: result(id, `{"content":[{"type":"text","text":"a","text":"b"}]}`), id: id,
			err: invalidReq(`duplicate member "text" in /result/content/0`),
		},
		{
			name: "error code twice",
			in:   `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m","code":2}}`,
			want: errResp(id, 2, "m", ""), id: id,
			err: invalidReq(`duplicate member "code" in /error`),
		},
		{
			name: "a syntax error outranks a repeat",
			in:   `{"jsonrpc":"2.0","id":7,"method":"m","method":"n","params":{]}`,
			err:  parseErr,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, gotID, err := jsonrpc.Decode([]byte(tc.in))
			if gotID != tc.id {
				t.Errorf("id = %v, want %v", gotID, tc.id)
			}
			checkError(t, err, tc.err)
			if tc.want == nil && msg != nil || tc.want != nil && !reflect.DeepEqual(msg, tc.want) {
				t.Errorf("message = %s, want %s", dump(msg), dump(tc.want))
			}
		})
	}
}

// TestDecodeNamesAreExact: members whose names differ from the protocol's
// only in case, or by a Unicode character that folds to an ASCII one, are
// unknown members, never the protocol's.
func TestDecodeNamesAreExact(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":7,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"METHOD":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\u017f\":\"ping\"}",
		`{"jsonrpc":"2.0","ID":7,"error":{"code":1,"message":"m"}}`,
	} {
		msg, _, err := jsonrpc.Decode([]byte(in))
		if err == nil {
			t.Errorf("Decode(%s) = %s, want a refusal", in, dump(msg))
		}
	}
	msg, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping","Method":"tools/call","Params":{"name":"x"}}`))
	if err != nil || !reflect.DeepEqual(msg, req(jsonrpc.Int64ID(7), "ping", "")) {
		t.Errorf("Decode = %s, %v; want ping without params", dump(msg), err)
	}
}
