package otel

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestInjectMeta checks what the sender writes into params: its members
// first in _meta, then _meta's own (minus those it replaces), then the
// other members, for each shape params can have.
func TestInjectMeta(t *testing.T) {
	c := &injectCarrier{}
	c.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	c.Set("baggage", "k=v")
	tests := []struct{ in, want string }{
		{``, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"}}`},
		{`null`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"}}`},
		{`{}`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"}}`},
		{`{"name":"x","arguments":{"a":[1,{"b":"}"}]}}`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"},"name":"x","arguments":{"a":[1,{"b":"}"}]}}`},
		{` { "_meta" : { "progressToken" : "p1", "traceparent":"old" } , "name" : "x" } `, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v","progressToken":"p1"},"name":"x"}`},
		{`{"a":1}`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"},"a":1}`},
		{`{"name":"a\"b","_meta":{}}`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"},"name":"a\"b"}`},
	}
	for _, tt := range tests {
		got, err := injectMeta(json.RawMessage(tt.in), c)
		if err != nil || string(got) != tt.want {
			t.Errorf("injectMeta(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("injectMeta(%s) = %s: not valid JSON", tt.in, got)
		}
	}
	for _, bad := range []string{`[]`, `{"_meta":3}`, `{"a":`, `"s"`} {
		if got, err := injectMeta(json.RawMessage(bad), c); err == nil || string(got) != bad {
			t.Errorf("injectMeta(%s) = %s, %v; want it unchanged and an error", bad, got, err)
		}
	}
}

// TestReadParams checks the members the middleware reads.
func TestReadParams(t *testing.T) {
	params := []byte(`{"arguments":{"name":"inner","_meta":{}},"name":"t\u0031","uri":"test://x","_meta":{"traceparent":"tp","x":{"y":"z"}}}`)
	p, meta := readParams(params), readMeta(params).raw
	p.decode()
	if p.name != "t1" || p.uri != "test://x" || string(meta) != `{"traceparent":"tp","x":{"y":"z"}}` {
		t.Errorf("readParams = %+v, readMeta = %s", p, meta)
	}
	m := &metaCarrier{raw: meta}
	if m.Get("traceparent") != "tp" || m.Get("x") != "" || m.Get("missing") != "" {
		t.Errorf("metaCarrier.Get: traceparent %q, x %q", m.Get("traceparent"), m.Get("x"))
	}
	if keys := m.Keys(); len(keys) != 2 || keys[0] != "traceparent" || keys[1] != "x" {
		t.Errorf("metaCarrier.Keys = %v", keys)
	}
	for _, bad := range []string{``, `[1]`, `{"name":`, `{"name":1}`, `{"_meta":"s"}`} {
		p, meta := readParams([]byte(bad)), readMeta([]byte(bad)).raw
		if p.decode(); p.name != "" || meta != nil {
			t.Errorf("readParams(%s) = %+v, readMeta = %s, want nothing", bad, p, meta)
		}
	}
}

// TestReadMeta checks that readMeta finds the top-level _meta object
// wherever it is, never a nested one, reads no further than it, and finds
// the W3C keys in it.
func TestReadMeta(t *testing.T) {
	tests := []struct{ params, want string }{
		{`{"_meta":{"progressToken":"tp"},"name":"echo","arguments":{}}`, `{"progressToken":"tp"}`},
		{`{"arguments":{"name":"inner","_meta":{"a":"\"}"}},"name":"t","_meta":{"b":[1,{"c":"]"}]}}`, `{"b":[1,{"c":"]"}]}`},
		{` { "\u005fmeta" : {} } `, `{}`},
		// Nothing after _meta is read: a truncated tail does not matter.
		{`{"_meta":{"x":1},"arguments":{"text":`, `{"x":1}`},
		{`{"_meta":"s","name":"x"}`, ``},
		{`{"name":"x"}`, ``},
		{`{"arguments":{"_meta":{}}}`, ``},
		{``, ``},
		{`null`, ``},
		{`[{"_meta":{}}]`, ``},
		{`{"name":"x","_meta":`, ``},
	}
	for _, tt := range tests {
		if got := readMeta([]byte(tt.params)); string(got.raw) != tt.want || got.w3c[0] != nil || got.w3c[1] != nil || got.w3c[2] != nil {
			t.Errorf("readMeta(%s) = %s %q, want %s", tt.params, got.raw, got.w3c, tt.want)
		}
	}
	// The form an instrumented client writes is read without the scan;
	// what only looks like it at its fixed places is read by the scan.
	const tp = `00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01`
	for _, params := range []string{
		`{"_meta":{"traceparent":"` + tp + `"},"name":"echo"}`,
		`{"_meta":{"traceparent":"` + tp + `"}}`,
		`{"_meta":{"traceparent":"` + tp[:50] + `","a":"`,
		`{"_meta":{"traceparent":"` + tp[:20] + `","baggage":"k=v,k2=vvvvvv"},"x":"y"}`,
		`{"_meta":{"traceparent":"` + tp[:20] + `\",` + tp[:31] + `"},"x":"y"}`,
		`{"_meta":{"traceparent":"` + tp + `","tracestate":"a=b"},"name":"echo"}`,
		`{"_meta":{"traceparent":"` + tp + `"`,
	} {
		got, want := readMeta([]byte(params)), readMeta([]byte(" "+params))
		if string(got.raw) != string(want.raw) || fmt.Sprintf("%q", got.w3c) != fmt.Sprintf("%q", want.w3c) {
			t.Errorf("readMeta(%s) = %s %q, want %s %q", params, got.raw, got.w3c, want.raw, want.w3c)
		}
	}
	if m := readMeta([]byte(`{"_meta":{"traceparent":"` + tp + `"},"name":"echo"}`)); string(m.w3c[0]) != `"`+tp+`"` || string(m.raw) != `{"traceparent":"`+tp+`"}` {
		t.Errorf("readMeta of the common form = %s %q", m.raw, m.w3c)
	}
	m := readMeta([]byte(`{"name":"x","_meta":{"baggage":"b=1","traceparent":"old","x":{"traceparent":"inner"},"\u0074raceparent":"tp","tracestate":"ts"},"arguments":{}}`))
	if string(m.w3c[0]) != `"tp"` || string(m.w3c[1]) != `"ts"` || string(m.w3c[2]) != `"b=1"` {
		t.Errorf("W3C values %q, want the last traceparent (its key escaped), tracestate and baggage", m.w3c)
	}
}
