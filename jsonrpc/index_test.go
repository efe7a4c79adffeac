package jsonrpc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/rpcindex"
)

// member is one member of an object, raw.
type member struct{ key, value string }

// referenceIndex walks params as package mcp did before Decode noted
// them: its members, and those of its first _meta (escapes decoded) when
// that is an object. ok says Decode should index them: a first _meta
// object, and at most rpcindex.MaxMembers members in each.
func referenceIndex(t *testing.T, params []byte) (members, metas []member, metaAt int, ok bool) {
	t.Helper()
	metaAt = -1
	if _, err := jsonscan.ScanObject(params, 0, func(k, v []byte) {
		if metaAt < 0 && jsonscan.KeyEquals(k, "_meta") {
			metaAt = len(members)
		}
		members = append(members, member{string(k), string(v)})
	}); err != nil {
		t.Fatalf("params %q accepted by Decode are not an object: %v", params, err)
	}
	if metaAt < 0 || members[metaAt].value[0] != '{' {
		return members, nil, metaAt, false
	}
	meta := []byte(members[metaAt].value)
	jsonscan.Members(meta, func(k, v []byte) bool {
		metas = append(metas, member{string(k), string(v)})
		return true
	})
	return members, metas, metaAt, len(members) <= rpcindex.MaxMembers && len(metas) <= rpcindex.MaxMembers
}

// checkIndex: Decode indexes the params of a request exactly when they
// are an object with a first _meta object and few enough members, and
// the index notes what a walk of params finds.
func checkIndex(t *testing.T, frame []byte) {
	msg, _, err := Decode(frame)
	req, isReq := msg.(*Request)
	if err != nil || !isReq {
		if r, ok := msg.(*Request); ok && r.index != nil {
			t.Fatalf("Decode(%q) refused, yet indexed", frame)
		}
		return
	}
	ix := rpcindex.Of(req)
	if len(req.Params) == 0 || req.Params[0] != '{' {
		if ix != nil {
			t.Fatalf("Decode(%q): params %q indexed", frame, req.Params)
		}
		return
	}
	members, metas, metaAt, want := referenceIndex(t, req.Params)
	if (ix != nil) != want {
		t.Fatalf("Decode(%q): indexed %t, want %t", frame, ix != nil, want)
	}
	if ix == nil {
		return
	}
	if ix.Len() != len(members) || ix.MetaLen() != len(metas) {
		t.Fatalf("Decode(%q): index of %d and %d members, want %d and %d", frame, ix.Len(), ix.MetaLen(), len(members), len(metas))
	}
	for i, m := range members {
		k, v, first := ix.At(i)
		if string(k) != m.key || string(v) != m.value || first != (i == metaAt) {
			t.Fatalf("Decode(%q): member %d is %q: %q (first _meta %t), want %q: %q (%t)", frame, i, k, v, first, m.key, m.value, i == metaAt)
		}
	}
	for i, m := range metas {
		if k, v := ix.MetaAt(i); string(k) != m.key || string(v) != m.value {
			t.Fatalf("Decode(%q): _meta member %d is %q: %q, want %q: %q", frame, i, k, v, m.key, m.value)
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
	// Params past 64 KiB are not indexed.
	long := []byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":{"_meta":{},"x":"` + strings.Repeat("a", 1<<16) + `"}}`)
	msg, _, err := Decode(long)
	if err != nil || rpcindex.Of(msg) != nil {
		t.Fatalf("long params: %v, indexed %t", err, rpcindex.Of(msg) != nil)
	}
}

// TestIndexOfReleased: the index describes the params Decode gave the
// request, until released: not a copy, not replaced params.
func TestIndexOfReleased(t *testing.T) {
	frame := []byte(indexCases[0])
	msg, _, _ := Decode(frame)
	req := msg.(*Request)
	if rpcindex.Of(req) == nil {
		t.Fatal("not indexed")
	}
	params := req.Params
	req.Params = bytes.Clone(params)
	if rpcindex.Of(req) != nil {
		t.Fatal("replaced params still indexed")
	}
	req.Params = params
	if rpcindex.Of(req) == nil {
		t.Fatal("params given back not indexed")
	}
	rpcindex.Release(req)
	if rpcindex.Of(req) != nil || req.index != nil {
		t.Fatal("released index still there")
	}
	rpcindex.Release(req) // twice is harmless
	if rpcindex.Of(&Notification{}) != nil || rpcindex.Of(nil) != nil {
		t.Fatal("index of a message that is no request")
	}
	rpcindex.Release(nil)
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
