package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeCallToolParams must agree with encoding/json on every input it
// accepts, up to the one difference it documents: a _meta from which
// encoding/json takes no progressToken (an empty RequestMeta) may be
// reported as no _meta at all.
func checkCallToolParams(t *testing.T, params string) {
	t.Helper()
	var fast CallToolParams
	if !decodeCallToolParams(json.RawMessage(params), &fast) {
		if !reflect.DeepEqual(fast, CallToolParams{}) {
			t.Errorf("%s: declined but changed p: %+v", params, fast)
		}
		return
	}
	var slow CallToolParams
	if err := json.Unmarshal([]byte(params), &slow); err != nil {
		t.Errorf("%s: accepted, but encoding/json says %v", params, err)
		return
	}
	for _, q := range []*CallToolParams{&fast, &slow} {
		if q.Meta != nil && reflect.DeepEqual(*q.Meta, RequestMeta{}) {
			q.Meta = nil
		}
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s:\nfast %+v\njson %+v", params, fast, slow)
	}
}

func TestDecodeCallToolParams(t *testing.T) {
	accepted := []string{
		`{"name":"echo","arguments":{"text":"hi"}}`,
		`{ "name" : "echo" , "arguments" : { "text" : "a b" } }`,
		`{"arguments":{"text":"hi"},"name":"echo"}`,
		`{"name":"echo"}`,
		`{"name":"echo","arguments":null}`,
		`{"name":"echo","arguments":[1,2]}`,
		`{"name":"echo","arguments":"str"}`,
		`{"name":"a","name":"b"}`,
		`{"name":"é","arguments":{}}`,
		`{"name":"echo","_meta":{"progressToken":"p"}}`,
		`{"name":"echo","_meta":{"progressToken":7,"other":1}}`,
		`{"name":"echo","_meta":null}`,
		`{"name":""}`,
		// A _meta without progressToken is as good as none (plainMeta).
		`{"name":"","_meta":{}}`,
		`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	}
	for _, p := range accepted {
		var q CallToolParams
		if !decodeCallToolParams(json.RawMessage(p), &q) {
			t.Errorf("%s: declined", p)
		}
		checkCallToolParams(t, p)
	}
	declined := []string{
		``, `null`, `[]`, `[1]`, `{}`, `"x"`,
		`{"name":1}`, `{"name":null}`, `{"Name":"echo"}`, `{"n\u0061me":"echo"}`,
		`{"name":"a\"b"}`, "{\"name\":\"\xff\"}", `{"name":"echo","task":{}}`,
		`{"name":"echo","extra":1}`, `{"name":"echo","_meta":"x"}`,
		`{"name":"echo","_meta":{"progressToken":true}}`, `{"name":"echo"`,
	}
	for _, p := range declined {
		var q CallToolParams
		if decodeCallToolParams(json.RawMessage(p), &q) {
			t.Errorf("%s: accepted as %+v", p, q)
		}
		checkCallToolParams(t, p)
	}
}

func FuzzDecodeCallToolParams(f *testing.F) {
	for _, s := range []string{
		`{"name":"echo","arguments":{"text":"hi"}}`,
		`{"name":"echo","_meta":{"progressToken":"p"}}`,
		`{"name":"x","arguments":null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCallToolParams(t, s)
	})
}
