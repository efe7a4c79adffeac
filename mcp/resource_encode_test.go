package mcp

import (
	"encoding/json"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// The hand-written resources/read encoder knows every field it writes.
func TestReadResourceEncoderFieldsKnown(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[ReadResourceResult](), []string{"Meta", "Contents"}},
		{reflect.TypeFor[ResourceContents](), []string{"URI", "MIMEType", "Text", "Blob", "BlobData", "Meta"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			got = append(got, f.Name)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v fields %v, want %v: update appendFast", c.typ, got, c.want)
		}
	}
}

// appendFast writes exactly what encoding/json writes, into a buffer of
// exactly its size, and declines the shapes it does not know.
func TestReadResourceAppendFast(t *testing.T) {
	big := strings.Repeat("line <1> & \"two\"\n\t\u2028 é \xff", 5000)
	for _, c := range []struct {
		name string
		r    *ReadResourceResult
		ok   bool
	}{
		{"text", &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///a.txt", MIMEType: "text/plain", Text: big}}}, true},
		{"empty text", &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///a"}}}, true},
		{"blob wins", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", Text: "t", Blob: "AAEC"}}}, true},
		{"several", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:1", Text: "a"}, {URI: "x:2<>", MIMEType: "a/b", Blob: "QQ=="}}}, true},
		{"no contents", &ReadResourceResult{Contents: []*ResourceContents{}}, true},
		{"blob bytes", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", MIMEType: "image/png", BlobData: []byte("\x00\x01\xfe\xff+/ any bytes")}}}, true},
		{"blob bytes win", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", Text: "t", Blob: "QQ==", BlobData: []byte{0xfb, 0xff}}}}, true},
		{"empty blob bytes", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", BlobData: []byte{}}}}, true},
		{"long blob string wins", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", Text: big, Blob: strings.Repeat("QUJD+/==", 4000)}}}, true},
		{"long blob bytes win", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", Text: big, Blob: big, BlobData: []byte(big)}}}, true},
		{"long texts in several", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:1", Text: big}, {URI: "x:2", Text: big[1:]}}}, true},
		{"text just long", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:1", Text: big[:bigText]}}}, true},
		{"text just short", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:1", Text: big[:bigText-1]}}}, true},
		{"nil contents", &ReadResourceResult{}, false},
		{"result _meta", &ReadResourceResult{Meta: Meta{"k": json.RawMessage(`1`)}, Contents: []*ResourceContents{{URI: "x:1"}}}, false},
		{"contents _meta", &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:1", Meta: Meta{"k": json.RawMessage(`1`)}}}}, false},
		{"nil element", &ReadResourceResult{Contents: []*ResourceContents{nil}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.r.appendFast(nil, nil)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			want, err := jsonenc.Marshal(c.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("appendFast:\n%.300s\nencoding/json:\n%.300s", got, want)
			}
			if cap(got) != len(got) {
				t.Errorf("buffer cap %d for %d bytes: not sized exactly", cap(got), len(got))
			}
		})
	}
}

// A long text is escaped into a pooled buffer and copied out: a result
// never shares bytes with the pool, so the next read leaves it as it was.
func TestReadResourceAppendFastPoolNotShared(t *testing.T) {
	a := &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:a", Text: strings.Repeat("a\"<", 10_000)}}}
	b := &ReadResourceResult{Contents: []*ResourceContents{{URI: "x:b", Text: strings.Repeat("b\n&", 10_000)}}}
	want, _ := json.Marshal(a)
	got, _ := a.appendFast(nil, nil)
	for range 3 {
		b.appendFast(nil, nil)
	}
	if string(got) != string(want) {
		t.Fatalf("a read's bytes changed after the next reads: %.100s", got)
	}
}

// A 1 MB text read costs one allocation of its encoded size in the
// result encoder, once the pooled buffer its text is escaped into is there
// (a garbage collection may empty the pool: it is kept off here; the race
// detector drops some of what is put back, each drop costing one
// allocation more: at most one per read then).
func TestReadResourceAppendFastAllocs(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	r := &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///big", MIMEType: "text/plain", Text: strings.Repeat("abc\"\n", 200_000)}}}
	n := testing.AllocsPerRun(10, func() { r.appendFast(nil, nil) })
	if n != 1 && !(raceEnabled && n <= 2) {
		t.Errorf("%v allocations, want 1", n)
	}
}

// A 1 MiB blob held as bytes costs one allocation, of its encoded size:
// the base64 is written straight into the result.
func TestReadResourceBlobDataAllocs(t *testing.T) {
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	r := &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///big.bin", MIMEType: "application/octet-stream", BlobData: data}}}
	var raw []byte
	if n := testing.AllocsPerRun(10, func() { raw, _ = r.appendFast(nil, nil) }); n != 1 {
		t.Errorf("%v allocations, want 1", n)
	}
	var back struct {
		Contents []struct {
			Blob []byte `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Contents) != 1 || string(back.Contents[0].Blob) != string(data) {
		t.Fatalf("the blob does not decode to the bytes: %v", err)
	}
}

// In the stateless era the head is written as the result opens: the hand
// encoder gives what the encoding/json path (appendTyped) gives, cache
// hint included.
func TestReadResultHeadMatchesTyped(t *testing.T) {
	for _, hint := range []*CacheHint{nil, {TTL: 90 * time.Second, Scope: CachePublic}} {
		opts := &ServerOptions{}
		if hint != nil {
			h := *hint
			opts.CacheHint = func(string) CacheHint { return h }
		}
		s := NewServer(Implementation{Name: "srv \"q\"", Version: "1.0"}, opts)
		for _, r := range []*ReadResourceResult{
			{Contents: []*ResourceContents{{URI: "file:///a", MIMEType: "text/plain", Text: "a <b> \u2028 \xff"}}},
			{Contents: []*ResourceContents{{URI: "file:///long", MIMEType: "text/plain", Text: strings.Repeat("a <b> \u2028 \xff\n", 2000)}}},
			{Contents: []*ResourceContents{{URI: "x:b", Blob: "AAEC"}, {URI: "x:c"}}},
			{Contents: []*ResourceContents{{URI: "x:d", BlobData: []byte{0, 1, 2, 0xff}}}},
			{Contents: []*ResourceContents{}},
		} {
			got, ok := r.appendFast(&s.texts, headOf(s, "resources/read"))
			if !ok {
				t.Fatal("appendFast declined a result of the usual shape")
			}
			want, err := headOf(s, "resources/read").appendTyped(nil, r)
			if err != nil || string(got) != string(want) {
				t.Errorf("appendFast\n%s\nappendTyped\n%s (%v)", got, want, err)
			}
		}
	}
}
