package jsonrpc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// member is one member of an object, raw.
type member struct{ key, value string }

// checkIndex: Decode notes the members of a request's params exactly
// when they are an object of at most MaxParamsMembers members, and notes
// what a walk of params finds.
func checkIndex(t *testing.T, frame []byte) {
	msg, _, err := Decode(frame)
	req, isReq := msg.(*Request)
	if err != nil || !isReq {
		if r, ok := msg.(*Request); ok {
			if _, noted := r.ParamsMembers(); noted {
				t.Fatalf("Decode(%q) refused, yet noted params", frame)
			}
		}
		return
	}
	n, noted := req.ParamsMembers()
	if len(req.Params) == 0 || req.Params[0] != '{' {
		if noted {
			t.Fatalf("Decode(%q): params %q noted", frame, req.Params)
		}
		return
	}
	var members []member
	if _, err := jsonscan.ScanObject(req.Params, 0, func(k, v []byte) {
		members = append(members, member{string(k), string(v)})
	}); err != nil {
		t.Fatalf("params %q accepted by Decode are not an object: %v", req.Params, err)
	}
	if want := len(members) <= MaxParamsMembers; noted != want {
		t.Fatalf("Decode(%q): noted %t, want %t", frame, noted, want)
	}
	if !noted {
		return
	}
	if n != len(members) {
		t.Fatalf("Decode(%q): %d members noted, want %d", frame, n, len(members))
	}
	for i, m := range members {
		if k, v := req.ParamsMember(i); string(k) != m.key || string(v) != m.value {
			t.Fatalf("Decode(%q): member %d is %q: %q, want %q: %q", frame, i, k, v, m.key, m.value)
		}
	}
}

var indexCases = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{ "a" : 1 , "_meta" : { "b" : [ 2 ] } } }`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":[{"_meta":{}}]}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":"x","_meta":{}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{},"_meta":"x"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"\u005fmeta":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{"a":1}},"params":{"b":2}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"b":2},"params":{"_meta":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{"a":1}},"params":null}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","par\u0061ms":{"_meta":{"a":1}}}`,
	`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":7,"result":{"_meta":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{"a":1},"x":[}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{},"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}`,
	`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{},"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}}`,
}

func TestDecodeIndex(t *testing.T) {
	for _, c := range indexCases {
		checkIndex(t, []byte(c))
	}
	// Long params are noted too.
	long := []byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{},"x":"` + strings.Repeat("a", 1<<16) + `"}}`)
	msg, _, err := Decode(long)
	if n, ok := msg.(*Request).ParamsMembers(); err != nil || !ok || n != 2 {
		t.Fatalf("long params: %v, %d members noted (%t), want 2", err, n, ok)
	}
	checkIndex(t, long)
}

// TestParamsMembersReplaced: the members noted describe the params Decode
// gave the request, not a copy, not replaced params.
func TestParamsMembersReplaced(t *testing.T) {
	frame := []byte(indexCases[0])
	msg, _, _ := Decode(frame)
	req := msg.(*Request)
	if n, ok := req.ParamsMembers(); !ok || n != 3 {
		t.Fatalf("%d members noted (%t), want 3", n, ok)
	}
	params := req.Params
	req.Params = bytes.Clone(params)
	if _, ok := req.ParamsMembers(); ok {
		t.Fatal("replaced params still noted")
	}
	req.Params = params[:len(params)-1]
	if _, ok := req.ParamsMembers(); ok {
		t.Fatal("shortened params still noted")
	}
	req.Params = nil
	if _, ok := req.ParamsMembers(); ok {
		t.Fatal("absent params noted")
	}
	req.Params = params
	if _, ok := req.ParamsMembers(); !ok {
		t.Fatal("params given back not noted")
	}
	if _, ok := (&Request{ID: Int64ID(1), Method: "m", Params: params}).ParamsMembers(); ok {
		t.Fatal("a request Decode did not make has its params noted")
	}
}

// FuzzDecodeIndex checks checkIndex on arbitrary params of a request.
func FuzzDecodeIndex(f *testing.F) {
	for _, c := range indexCases {
		i := strings.Index(c, `"params":`)
		if i < 0 {
			continue
		}
		f.Add([]byte(c[i+len(`"params":`) : len(c)-1]))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		frame := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":`), params...), '}')
		checkIndex(t, frame)
	})
}
