package mcp

// The fast decoders of tools/call params, prompts/get params and typed
// tool arguments against the reference decoder, exactjson (issue 25): on
// every input jsonrpc.Decode lets through (valid JSON, no name repeated in
// any object), whatever a fast path accepts exactjson accepts with the
// same value, and whatever exactjson refuses the fast path declines, so
// that the fallback answers it.

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsontest"
)

// exactAdmissible reports whether data is something a decoder behind
// jsonrpc.Decode can be given: valid JSON without a repeated name.
func exactAdmissible(data []byte) bool {
	return json.Valid(data) && !jsontest.RepeatsName(data)
}

// exactFastCases are params and arguments of issue 25's probes, and their
// neighbours, as seeds of the fuzzers below.
var exactFastCases = []string{
	`{"name":"echo","arguments":{"text":"x"}}`,
	`{"Name":"echo","arguments":{"text":"x"}}`,
	`{"name":"echo","Name":"test_simple_text","arguments":{"text":"x"}}`,
	`{"URI":"test://static-text"}`,
	`{"\u006eame":"echo","arguments":{"\u0074ext":"x"}}`,
	`{"name":"echo","argument\u017f":{"text":"x"}}`,
	"{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},\"argumentſ\":{\"text\":\"y\"}}",
	`{"name":"echo","arguments":{"text":"x"},"tas\u212a":{"ttl":1000}}`,
	`{"name":"echo","arguments":{"text":"x"},"_meta":{"progre\u017fsToken":"a"}}`,
	`{"name":"echo","arguments":{"text":"x"},"_meta":{"ProgressToken":"a"}}`,
	`{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":"a"}}`,
	`{"name":"echo","arguments":{"Text":"x"}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},"arguments":{"text":"x"}}`,
	`{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}}`,
	`{"name":"test_prompt_with_arguments","argument\u017f":{"arg1":"a"}}`,
	`{"name":"p","arguments":{"Arg1":"a","arg1":"b"}}`,
	`{"text":"x","n":1,"i8":-1,"u":2,"f":1.5,"f32":2.5,"b":true,"Bare":"y"}`,
	`{"TEXT":"x"}`, `{"bare":"x"}`, `{"\u017f":1}`, `{"kind":"k","s":"s","sk":{"a":1}}`,
	`{"\u212aind":"k"}`, `{"\u017f":"s"}`, `{"\u017fk":{}}`, `{"s\u212a":{}}`, `{"KIND":"k"}`,
	`{"order":{"id":"o","items":[{"sku":"a","qty":2,"attrs":{"c":"r"}}],"ptr":{"sku":"p"},"pptr":7}}`,
	`{"order":{"items":[{"\u017fku":"a"}]}}`, `{"order":{"items":[{"SKU":"a"}]}}`,
	`{"order":{"named":{"fast":1,"Fast":2}}}`, `{"note":"n","Note":"m"}`,
}

// checkExactCallToolParams compares decodeCallToolParams with exactjson
// up to the difference decodeCallToolParams documents (a _meta without a
// progressToken may be left nil).
func checkExactCallToolParams(t *testing.T, params []byte) {
	t.Helper()
	if !exactAdmissible(params) {
		return
	}
	var fast, want CallToolParams
	ok := decodeCallToolParams(params, &fast)
	err := exactjson.Unmarshal(params, &want)
	if !ok {
		return // exactjson answers it
	}
	if err != nil {
		t.Fatalf("decodeCallToolParams took %s, which exactjson refuses: %v", params, err)
	}
	for _, q := range []*CallToolParams{&fast, &want} {
		if q.Meta != nil && reflect.DeepEqual(*q.Meta, RequestMeta{}) {
			q.Meta = nil
		}
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("decodeCallToolParams(%s):\nfast      %+v\nexactjson %+v", params, fast, want)
	}
}

// checkExactGetPromptParams compares decodeGetPromptParams with exactjson.
func checkExactGetPromptParams(t *testing.T, params []byte) {
	t.Helper()
	if !exactAdmissible(params) {
		return
	}
	var fast, want GetPromptParams
	ok := decodeGetPromptParams(params, &fast)
	err := exactjson.Unmarshal(params, &want)
	if !ok {
		return
	}
	if err != nil {
		t.Fatalf("decodeGetPromptParams took %s, which exactjson refuses: %v", params, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("decodeGetPromptParams(%s):\nfast      %+v (meta %+v)\nexactjson %+v (meta %+v)", params, fast, fast.Meta, want, want.Meta)
	}
}

// adFold has JSON names holding the letters Unicode folds onto from
// outside ASCII: s (U+017F) and k (U+212A).
type adFold struct {
	Kind string         `json:"kind"`
	S    string         `json:"s"`
	SK   map[string]int `json:"sk"`
	Keys []string       `json:"keys"`
}

// checkExactArgs compares the argument decoder of T with exactjson.
func checkExactArgs[T any](t *testing.T, data []byte) {
	t.Helper()
	d := newArgDecoder(reflect.TypeFor[T]())
	if d == nil {
		t.Fatalf("%T: no fast decoder", *new(T))
	}
	var fast, want T
	ok := d.decode(data, &fast)
	err := exactjson.Unmarshal(data, &want)
	if !ok {
		return
	}
	if err != nil {
		t.Fatalf("the %T decoder took %s, which exactjson refuses: %v", fast, data, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("%T from %s:\nfast      %+v\nexactjson %+v", fast, data, fast, want)
	}
}

func checkExactArgDecoders(t *testing.T, data []byte) {
	t.Helper()
	if !exactAdmissible(data) {
		return
	}
	checkExactArgs[adPlain](t, data)
	checkExactArgs[adNested](t, data)
	checkExactArgs[adFold](t, data)
	checkExactArgs[adNamed](t, data)
}

func TestFastDecodersMatchExactJSON(t *testing.T) {
	for _, c := range exactFastCases {
		checkExactCallToolParams(t, []byte(c))
		checkExactGetPromptParams(t, []byte(c))
		checkExactArgDecoders(t, []byte(c))
	}
	for _, c := range getPromptParamsCases {
		checkExactGetPromptParams(t, []byte(c.params))
	}
	// Each probe of issue 25 is declined by the fast path it reaches.
	for _, c := range []string{
		`{"Name":"echo","arguments":{"text":"x"}}`,
		`{"name":"echo","Name":"test_simple_text","arguments":{"text":"x"}}`,
		`{"name":"echo","argument\u017f":{"text":"x"}}`,
		`{"name":"echo","arguments":{"text":"x"},"tas\u212a":{"ttl":1000}}`,
		`{"name":"echo","arguments":{"text":"x"},"_meta":{"progre\u017fsToken":"a"}}`,
	} {
		var p CallToolParams
		if decodeCallToolParams([]byte(c), &p) {
			t.Errorf("decodeCallToolParams took %s", c)
		}
		var q GetPromptParams
		if decodeGetPromptParams([]byte(c), &q) {
			t.Errorf("decodeGetPromptParams took %s", c)
		}
	}
	for _, c := range []string{`{"\u212aind":"k"}`, `{"\u017f":"s"}`, `{"\u017fk":{}}`, `{"KIND":"k"}`, `{"Keys":[]}`} {
		var v adFold
		if newArgDecoder(reflect.TypeFor[adFold]()).decode([]byte(c), &v) {
			t.Errorf("the argument decoder took %s", c)
		}
	}
}

func FuzzExactCallToolParams(f *testing.F) {
	for _, c := range exactFastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkExactCallToolParams)
}

func FuzzExactGetPromptParams(f *testing.F) {
	for _, c := range exactFastCases {
		f.Add([]byte(c))
	}
	for _, c := range getPromptParamsCases {
		f.Add([]byte(c.params))
	}
	f.Fuzz(checkExactGetPromptParams)
}

func FuzzExactArgDecoder(f *testing.F) {
	for _, c := range exactFastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkExactArgDecoders)
}
