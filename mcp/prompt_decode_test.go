package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The hand-written prompts/get decoder knows every field it sets.
func TestPromptDecoderFieldsKnown(t *testing.T) {
	var got []string
	for f := range reflect.TypeFor[GetPromptParams]().Fields() {
		got = append(got, f.Name)
	}
	if want := []string{"Meta", "Name", "Arguments"}; !reflect.DeepEqual(got, want) {
		t.Errorf("GetPromptParams fields %v, want %v: update decodeGetPromptParams", got, want)
	}
}

// getPromptParamsCases are prompts/get params; decodeGetPromptParams must
// decode those it takes exactly as encoding/json does, and decline the
// others (ok false).
var getPromptParamsCases = []struct {
	params string
	ok     bool
}{
	{`{"name":"code_review","arguments":{"code":"func f() {\n\t\"x\" — ünïcode \u2028 \ud83d\ude00\n}","language":"go"}}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},"name":"p","arguments":{"a":"1"}}`, true},
	{`{"_meta":{"progressToken":7},"name":"p"}`, true},
	{`{"_meta":{"ProgressToken":"t"},"name":"p"}`, false}, // refused by exactjson: names are case-sensitive
	{`{"_meta":null,"name":"p","arguments":null}`, true},
	{`{ "name" : "p" , "arguments" : { } } `, true},
	{` {"name":"p"}`, false},
	{`{"name":"p","arguments":{"a":"1","a":"2","k\u00e9y":"v","\ud800":"lone"}}`, true},
	{"{\"name\":\"bad \xff utf8\",\"arguments\":{\"x\xfe\":\"\xfd\"}}", true},
	{`{}`, true},
	{`{"name":"p","arguments":{"n":1}}`, false},
	{`{"name":"p","arguments":{"n":null}}`, false},
	{`{"name":"p","arguments":["a"]}`, false},
	{`{"name":7}`, false},
	{`{"name":null}`, false},
	{`{"Name":"p"}`, false},
	{`{"name":"p","extra":1}`, false},
	{`{"name":"p","name":"q"}`, false},
	{`{"name":"p","arguments":{"a":"1"},"arguments":{"b":"2"}}`, false},
	{`{"_meta":5,"name":"p"}`, false},
	{`{"name":"p"} x`, false},
	{`{"name":"p"`, false},
	{`[]`, false},
	{`null`, false},
	{``, false},
}

func TestDecodeGetPromptParams(t *testing.T) {
	for _, c := range getPromptParamsCases {
		checkGetPromptParams(t, []byte(c.params), &c.ok)
	}
}

func FuzzDecodeGetPromptParams(f *testing.F) {
	for _, c := range getPromptParamsCases {
		f.Add([]byte(c.params))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkGetPromptParams(t, params, nil) })
}

// checkGetPromptParams compares decodeGetPromptParams with encoding/json
// on params; wantOK, if not nil, is whether it must take them.
func checkGetPromptParams(t *testing.T, params []byte, wantOK *bool) {
	t.Helper()
	var got GetPromptParams
	ok := decodeGetPromptParams(params, &got)
	if wantOK != nil && ok != *wantOK {
		t.Errorf("decodeGetPromptParams(%s) ok = %v, want %v", params, ok, *wantOK)
	}
	if !ok {
		if !reflect.DeepEqual(got, GetPromptParams{}) {
			t.Errorf("decodeGetPromptParams(%s) declined but set %+v", params, got)
		}
		return
	}
	var want GetPromptParams
	if err := json.Unmarshal(params, &want); err != nil {
		t.Fatalf("decodeGetPromptParams(%s) took params encoding/json refuses: %v", params, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decodeGetPromptParams(%s) = %+v (meta %+v), encoding/json %+v (meta %+v)", params, got, got.Meta, want, want.Meta)
	}
}
