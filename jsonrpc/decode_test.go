package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file tests Decode: one row per classification rule of
// https://www.jsonrpc.org/specification and
// https://modelcontextprotocol.io/specification/2025-11-25/basic#messages.

// wantError is the exact error object Decode must return: code, message and
// the raw JSON of data ("" for none).
type wantError struct {
	code    int64
	message string
	data    string
}

var parseErr = &wantError{jsonrpc.CodeParseError, "Parse error", ""}

// invalidReq is the -32600 error whose data is "Invalid Request: "+reason.
func invalidReq(reason string) *wantError {
	b, _ := json.Marshal("Invalid Request: " + reason)
	return &wantError{jsonrpc.CodeInvalidRequest, "Invalid Request", string(b)}
}

type decodeCase struct {
	name string
	in   string
	want jsonrpc.Message // nil when an error is expected
	id   jsonrpc.ID      // the id Decode returns alongside
	err  *wantError
}

func req(id jsonrpc.ID, method, params string) *jsonrpc.Request {
	r := &jsonrpc.Request{ID: id, Method: method}
	if params != "" {
		r.Params = json.RawMessage(params)
	}
	return r
}

func notif(method, params string) *jsonrpc.Notification {
	n := &jsonrpc.Notification{Method: method}
	if params != "" {
		n.Params = json.RawMessage(params)
	}
	return n
}

func result(id jsonrpc.ID, raw string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Result: json.RawMessage(raw)}
}

func errResp(id jsonrpc.ID, code int64, message, data string) *jsonrpc.Response {
	e := &jsonrpc.Error{Code: code, Message: message}
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	return &jsonrpc.Response{ID: id, Error: e}
}

var (
	id1   = jsonrpc.Int64ID(1)
	noID  = jsonrpc.ID{}
	badID = invalidReq("id must be a string or an integer")
	badV  = invalidReq(`jsonrpc must be "2.0"`)
	badM  = invalidReq("method must be a string")
	badE  = invalidReq("error must be an object with an integer code and a string message")
	badP  = invalidReq("params must be an object or an array")
)

var decodeCases = []decodeCase{
	// Well-formed messages of each kind.
	{name: "request with integer id", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want: req(id1, "tools/list", ""), id: id1},
	{name: "request with string id", in: `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, want: req(jsonrpc.StringID("abc"), "ping", ""), id: jsonrpc.StringID("abc")},
	{name: "request with empty string id", in: `{"jsonrpc":"2.0","id":"","method":"ping"}`, want: req(jsonrpc.StringID(""), "ping", ""), id: jsonrpc.StringID("")},
	{name: "request with zero id", in: `{"jsonrpc":"2.0","id":0,"method":"ping"}`, want: req(jsonrpc.Int64ID(0), "ping", ""), id: jsonrpc.Int64ID(0)},
	{name: "request with negative id", in: `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, want: req(jsonrpc.Int64ID(-7), "ping", ""), id: jsonrpc.Int64ID(-7)},
	{name: "request with max int64 id", in: `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, want: req(jsonrpc.Int64ID(1<<63-1), "ping", ""), id: jsonrpc.Int64ID(1<<63 - 1)},
	{name: "request with min int64 id", in: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`, want: req(jsonrpc.Int64ID(-1<<63), "ping", ""), id: jsonrpc.Int64ID(-1 << 63)},
	{name: "request with escaped string id", in: `{"jsonrpc":"2.0","id":"a\u00e9\"b","method":"ping"}`, want: req(jsonrpc.StringID("aé\"b"), "ping", ""), id: jsonrpc.StringID("aé\"b")},
	{name: "request with empty method", in: `{"jsonrpc":"2.0","id":1,"method":""}`, want: req(id1, "", ""), id: id1},
	{name: "request with escaped method", in: `{"jsonrpc":"2.0","id":1,"method":"tools\/call\u0021"}`, want: req(id1, "tools/call!", ""), id: id1},
	{name: "members in any order", in: `{"method":"ping","id":1,"jsonrpc":"2.0"}`, want: req(id1, "ping", ""), id: id1},
	{name: "escaped member names", in: `{"\u006Asonrpc":"2.0","\u0069d":1,"meth\u006fd":"ping"}`, want: req(id1, "ping", ""), id: id1},
	{name: "escaped version", in: `{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`, want: req(id1, "ping", ""), id: id1},
	{name: "JSON white space around and inside", in: " \t\r\n{ \"jsonrpc\" : \"2.0\" ,\n\"id\" : 1 , \"method\" : \"ping\" }\r\n ", want: req(id1, "ping", ""), id: id1},
	{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, want: notif("notifications/initialized", ""), id: noID},
	{name: "notification with params", in: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, want: notif("notifications/cancelled", `{"requestId":3}`), id: noID},
	{name: "result response", in: `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, want: result(id1, `{"a":1}`), id: id1},
	{name: "result response with string id", in: `{"jsonrpc":"2.0","id":"x","result":{}}`, want: result(jsonrpc.StringID("x"), `{}`), id: jsonrpc.StringID("x")},
	{name: "null result is a value", in: `{"jsonrpc":"2.0","id":1,"result":null}`, want: result(id1, `null`), id: id1},
	{name: "result kept byte-exact", in: `{"jsonrpc":"2.0","id":1,"result":{ "a" : [1, 2.50, "\u00e9"] }}`, want: result(id1, `{ "a" : [1, 2.50, "\u00e9"] }`), id: id1},
	{name: "error response", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, want: errResp(id1, -32601, "Method not found", ""), id: id1},
	{name: "error response with data", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field": "x"}}}`, want: errResp(id1, -32602, "Invalid params", `{"field": "x"}`), id: id1},
	{name: "error response with null data", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}`, want: errResp(id1, 1, "m", `null`), id: id1},
	{name: "error response with null id", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, want: errResp(noID, -32700, "Parse error", ""), id: noID},
	{name: "error with unknown members", in: `{"jsonrpc":"2.0","id":1,"error":{"code":5,"message":"m","extra":true}}`, want: errResp(id1, 5, "m", ""), id: id1},

	// Params: raw, byte-exact, explicit null is absent.
	{name: "params object kept byte-exact", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":{ "b" : [1, 2] , "a":"\u00e9\n"}}`, want: req(id1, "m", `{ "b" : [1, 2] , "a":"\u00e9\n"}`), id: id1},
	{name: "params array", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":[1,"two",null]}`, want: req(id1, "m", `[1,"two",null]`), id: id1},
	{name: "empty params object", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, want: req(id1, "m", `{}`), id: id1},
	{name: "null params are absent", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, want: req(id1, "m", ""), id: id1},
	{name: "null params on a notification are absent", in: `{"jsonrpc":"2.0","method":"m","params":null}`, want: notif("m", ""), id: noID},
	{name: "string params", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, id: id1, err: badP},
	{name: "number params", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":3}`, id: id1, err: badP},
	{name: "boolean params", in: `{"jsonrpc":"2.0","method":"m","params":true}`, id: noID, err: badP},

	// Unknown members are tolerated; names are case-sensitive.
	{name: "unknown members ignored", in: `{"jsonrpc":"2.0","id":1,"method":"m","extra":{"nested":[1,{"id":2}]},"_meta":null,"Method":"other"}`, want: req(id1, "m", ""), id: id1},
	{name: "unknown members on a response", in: `{"jsonrpc":"2.0","id":1,"result":{},"params":{"x":1}}`, want: result(id1, `{}`), id: id1},

	// -32700: not JSON.
	{name: "empty input", in: ``, err: parseErr},
	{name: "only white space", in: " \t\r\n", err: parseErr},
	{name: "truncated object", in: `{"jsonrpc":"2.0","id":1`, err: parseErr},
	{name: "lone brace", in: `{`, err: parseErr},
	{name: "bare word", in: `hello`, err: parseErr},
	{name: "trailing garbage", in: `{"jsonrpc":"2.0","method":"m"} x`, err: parseErr},
	{name: "two objects", in: `{"jsonrpc":"2.0","method":"m"}{"jsonrpc":"2.0","method":"m"}`, err: parseErr},
	{name: "trailing comma", in: `{"jsonrpc":"2.0","method":"m",}`, err: parseErr},
	{name: "single quotes", in: `{'jsonrpc':'2.0','method':'m'}`, err: parseErr},
	{name: "unquoted key", in: `{jsonrpc:"2.0"}`, err: parseErr},
	{name: "bad escape", in: `{"jsonrpc":"2.0","method":"\x"}`, err: parseErr},
	{name: "raw control character in string", in: "{\"jsonrpc\":\"2.0\",\"method\":\"a\tb\"}", err: parseErr},
	{name: "leading zero", in: `{"jsonrpc":"2.0","id":01,"method":"m"}`, err: parseErr},
	{name: "NaN", in: `{"jsonrpc":"2.0","id":NaN,"method":"m"}`, err: parseErr},
	{name: "form feed is not JSON white space", in: "\f{\"jsonrpc\":\"2.0\",\"method\":\"m\"}", err: parseErr},
	{name: "no-break space is not JSON white space", in: "\u00a0{\"jsonrpc\":\"2.0\",\"method\":\"m\"}", err: parseErr},
	{name: "byte order mark", in: "\ufeff{\"jsonrpc\":\"2.0\",\"method\":\"m\"}", err: parseErr},
	{name: "nested too deep", in: `{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, err: parseErr},

	// -32600: JSON, but not a single object.
	{name: "array", in: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, err: invalidReq("JSON-RPC message must be a single object")},
	{name: "empty array", in: `[]`, err: invalidReq("JSON-RPC message must be a single object")},
	{name: "string", in: `"ping"`, err: invalidReq("JSON-RPC message must be a single object")},
	{name: "number", in: `42`, err: invalidReq("JSON-RPC message must be a single object")},
	{name: "null", in: `null`, err: invalidReq("JSON-RPC message must be a single object")},
	{name: "boolean", in: ` true `, err: invalidReq("JSON-RPC message must be a single object")},

	// -32600: jsonrpc missing or not "2.0". A readable id is returned.
	{name: "empty object", in: `{}`, err: badV},
	{name: "jsonrpc missing", in: `{"id":1,"method":"ping"}`, id: id1, err: badV},
	{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, id: id1, err: badV},
	{name: "jsonrpc as a number", in: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, id: id1, err: badV},
	{name: "jsonrpc null", in: `{"jsonrpc":null,"id":1,"method":"ping"}`, id: id1, err: badV},
	{name: "jsonrpc with a space", in: `{"jsonrpc":"2.0 ","id":1,"method":"ping"}`, id: id1, err: badV},
	{name: "jsonrpc in capitals", in: `{"JSONRPC":"2.0","id":1,"method":"ping"}`, id: id1, err: badV},
	{name: "jsonrpc wrong on a notification", in: `{"jsonrpc":"2","method":"m"}`, err: badV},
	{name: "jsonrpc wrong on a response", in: `{"jsonrpc":"3.0","id":1,"result":{}}`, id: id1, err: badV},

	// -32600: id of the wrong type. No id is returned.
	{name: "boolean id", in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, err: badID},
	{name: "false id", in: `{"jsonrpc":"2.0","id":false,"method":"ping"}`, err: badID},
	{name: "object id", in: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, err: badID},
	{name: "array id", in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, err: badID},
	{name: "fractional id", in: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, err: badID},
	{name: "integral float id", in: `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, err: badID},
	{name: "exponent id", in: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, err: badID},
	{name: "id beyond int64", in: `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, err: badID},
	{name: "id below int64", in: `{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}`, err: badID},
	{name: "wrong id type on a response", in: `{"jsonrpc":"2.0","id":true,"result":{}}`, err: badID},
	{name: "wrong id type beats wrong version", in: `{"jsonrpc":"1.0","id":[],"method":"ping"}`, err: badID},

	// -32600: null id on a request.
	{name: "null id on a request", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, err: invalidReq("a request id must not be null")},
	{name: "null id with params", in: `{"jsonrpc":"2.0","id":null,"method":"m","params":{}}`, err: invalidReq("a request id must not be null")},

	// -32600: a request or notification without a string method.
	{name: "numeric method", in: `{"jsonrpc":"2.0","id":1,"method":5}`, id: id1, err: badM},
	{name: "null method", in: `{"jsonrpc":"2.0","id":1,"method":null}`, id: id1, err: badM},
	{name: "boolean method", in: `{"jsonrpc":"2.0","method":true}`, err: badM},
	{name: "object method", in: `{"jsonrpc":"2.0","id":"a","method":{"name":"ping"}}`, id: jsonrpc.StringID("a"), err: badM},
	{name: "array method", in: `{"jsonrpc":"2.0","method":["ping"]}`, err: badM},
	{name: "no method and nothing else", in: `{"jsonrpc":"2.0","id":1}`, id: id1, err: invalidReq("method is required")},
	{name: "no method, params only", in: `{"jsonrpc":"2.0","params":{}}`, err: invalidReq("method is required")},
	{name: "method in capitals", in: `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, id: id1, err: invalidReq("method is required")},
	{name: "request carrying result", in: `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, id: id1, err: invalidReq("a request must not carry result or error")},
	{name: "notification carrying error", in: `{"jsonrpc":"2.0","method":"m","error":{"code":1,"message":"x"}}`, err: invalidReq("a request must not carry result or error")},

	// -32600: a response with both or neither of result and error, or no id.
	{name: "both result and error", in: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, id: id1, err: invalidReq("a response must carry result or error, not both")},
	{name: "both, error null", in: `{"jsonrpc":"2.0","id":1,"result":{},"error":null}`, id: id1, err: invalidReq("a response must carry result or error, not both")},
	{name: "result without id", in: `{"jsonrpc":"2.0","result":{}}`, err: invalidReq("a response must carry an id")},
	{name: "error without id", in: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, err: invalidReq("a response must carry an id")},
	{name: "result with null id", in: `{"jsonrpc":"2.0","id":null,"result":{}}`, err: invalidReq("a response with a result must carry a string or integer id")},

	// -32600: malformed error objects.
	{name: "null error", in: `{"jsonrpc":"2.0","id":1,"error":null}`, id: id1, err: badE},
	{name: "string error", in: `{"jsonrpc":"2.0","id":1,"error":"boom"}`, id: id1, err: badE},
	{name: "array error", in: `{"jsonrpc":"2.0","id":1,"error":[-32600,"x"]}`, id: id1, err: badE},
	{name: "empty error object", in: `{"jsonrpc":"2.0","id":1,"error":{}}`, id: id1, err: badE},
	{name: "error without message", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`, id: id1, err: badE},
	{name: "error without code", in: `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, id: id1, err: badE},
	{name: "error with fractional code", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, id: id1, err: badE},
	{name: "error with string code", in: `{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"m"}}`, id: id1, err: badE},
	{name: "error with numeric message", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, id: id1, err: badE},
	{name: "error with null message", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":null}}`, id: id1, err: badE},
	{name: "error members in capitals", in: `{"jsonrpc":"2.0","id":1,"error":{"Code":1,"Message":"m"}}`, id: id1, err: badE},
}

func TestDecode(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			msg, id, err := jsonrpc.Decode([]byte(tc.in))
			if id != tc.id {
				t.Errorf("id = %v, want %v", id, tc.id)
			}
			if tc.err != nil {
				if msg != nil {
					t.Errorf("message = %#v, want nil", msg)
				}
				checkError(t, err, tc.err)
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if !reflect.DeepEqual(withoutNotes(msg), tc.want) {
				t.Errorf("message = %s, want %s", dump(msg), dump(tc.want))
			}
		})
	}
}

// checkError asserts that err is an *jsonrpc.Error equal to want.
func checkError(t *testing.T, err error, want *wantError) {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *jsonrpc.Error", err, err)
	}
	if e.Code != want.code || e.Message != want.message || string(e.Data) != want.data {
		t.Errorf("error = {%d %q %s}, want {%d %q %s}", e.Code, e.Message, e.Data, want.code, want.message, want.data)
	}
}

// dump renders a message for failure output, raw members as text.
func dump(m jsonrpc.Message) string {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return "Request{ID:" + m.ID.String() + " Method:" + m.Method + " Params:" + rawString(m.Params) + "}"
	case *jsonrpc.Notification:
		return "Notification{Method:" + m.Method + " Params:" + rawString(m.Params) + "}"
	case *jsonrpc.Response:
		s := "Response{ID:" + m.ID.String() + " Result:" + rawString(m.Result)
		if m.Error != nil {
			s += " Error:" + m.Error.Error() + " Data:" + rawString(m.Error.Data)
		}
		return s + "}"
	case nil:
		return "nil"
	}
	return "?"
}

func rawString(raw json.RawMessage) string {
	if raw == nil {
		return "<nil>"
	}
	return "`" + string(raw) + "`"
}

func TestDecodeErrorsAreSentinels(t *testing.T) {
	_, _, err := jsonrpc.Decode([]byte(`{`))
	if !errors.Is(err, jsonrpc.ParseError(nil)) {
		t.Errorf("errors.Is(%v, ParseError(nil)) = false", err)
	}
	_, _, err = jsonrpc.Decode([]byte(`[]`))
	if !errors.Is(err, jsonrpc.InvalidRequestError(nil)) {
		t.Errorf("errors.Is(%v, InvalidRequestError(nil)) = false", err)
	}
}

func TestDecodeBatch(t *testing.T) {
	in := ` [ {"jsonrpc":"2.0","id":1,"method":"a","params":{ "x" : 1 }},
		{"jsonrpc":"2.0","method":"n"},
		7,
		{"jsonrpc":"2.0","id":"r","result":{}},
		{"jsonrpc":"1.0","id":2,"method":"b"},
		{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}} ] `
	msgs, errs, err := jsonrpc.DecodeBatch([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []jsonrpc.Message{
		req(id1, "a", `{ "x" : 1 }`),
		notif("n", ""),
		nil,
		result(jsonrpc.StringID("r"), `{}`),
		nil,
		errResp(jsonrpc.Int64ID(3), -32601, "Method not found", ""),
	}
	wantErrs := []*wantError{nil, nil, invalidReq("JSON-RPC message must be a single object"), nil, badV, nil}
	if len(msgs) != len(want) || len(errs) != len(want) {
		t.Fatalf("got %d messages and %d errors, want %d", len(msgs), len(errs), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(withoutNotes(msgs[i]), want[i]) {
			t.Errorf("msgs[%d] = %s, want %s", i, dump(msgs[i]), dump(want[i]))
		}
		if wantErrs[i] == nil {
			if errs[i] != nil {
				t.Errorf("errs[%d] = %v, want nil", i, errs[i])
			}
			continue
		}
		checkError(t, errs[i], wantErrs[i])
	}
}

func TestDecodeBatchRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		err  *wantError
	}{
		{"empty input", ``, parseErr},
		{"truncated", `[{"jsonrpc":"2.0","method":"m"}`, parseErr},
		{"trailing comma", `[1,]`, parseErr},
		{"garbage after", `[] x`, parseErr},
		{"empty array", `[]`, invalidReq("batch must not be empty")},
		{"empty array with space", " [ \n ] ", invalidReq("batch must not be empty")},
		{"object", `{"jsonrpc":"2.0","method":"m"}`, invalidReq("batch must be an array")},
		{"null", `null`, invalidReq("batch must be an array")},
		{"string", `"[]"`, invalidReq("batch must be an array")},
		{"number", `1`, invalidReq("batch must be an array")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, errs, err := jsonrpc.DecodeBatch([]byte(tc.in))
			if msgs != nil || errs != nil {
				t.Errorf("got %d messages, %d errors; want none", len(msgs), len(errs))
			}
			checkError(t, err, tc.err)
		})
	}
}

func TestIsBatch(t *testing.T) {
	for in, want := range map[string]bool{
		`[]`:                      true,
		` [{"jsonrpc":"2.0"}]`:    true,
		"\r\n\t [":                true,
		`{"jsonrpc":"2.0"}`:       false,
		` {"params":[1]}`:         false,
		``:                        false,
		"  \n":                    false,
		`"["`:                     false,
		"\f[":                     false,
		`null`:                    false,
		`x[`:                      false,
		"\n\n\n\n[1,2]\n\n\n\n\n": true,
	} {
		if got := jsonrpc.IsBatch([]byte(in)); got != want {
			t.Errorf("IsBatch(%q) = %v, want %v", in, got, want)
		}
	}
}

// withoutNotes returns msg, a request as a copy without what Decode noted
// of its params (Request.ParamsMembers), for comparison with a request
// built by hand.
func withoutNotes(msg jsonrpc.Message) jsonrpc.Message {
	if r, ok := msg.(*jsonrpc.Request); ok {
		return &jsonrpc.Request{ID: r.ID, Method: r.Method, Params: r.Params}
	}
	return msg
}
