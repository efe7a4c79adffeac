package frameid

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// scanFrame runs a Scanner over data cut into pieces at cuts.
func scanFrame(data []byte, cuts ...int) (jsonrpc.ID, bool) {
	var s Scanner
	s.Reset()
	prev := 0
	for _, c := range cuts {
		s.Write(data[prev:c])
		prev = c
	}
	s.Write(data[prev:])
	return s.Result()
}

var ScannerCases = []struct {
	frame  string
	id     jsonrpc.ID
	method bool
}{
	{`{"jsonrpc":"2.0","id":7,"result":{}}`, jsonrpc.Int64ID(7), false},
	{`{"result":{"id":1,"a":[{"id":2}],"s":"\"id\":3"},"id":-4}`, jsonrpc.Int64ID(-4), false},
	{`{"id":"a\"b\\c\u00e9\/","method":"x"}`, jsonrpc.StringID("a\"b\\cé/"), true},
	{` { "method" : 1 , "id" : "" } ` + "\r\n", jsonrpc.StringID(""), true},
	{`{"method":"x"}`, jsonrpc.ID{}, true},
	{`{}`, jsonrpc.ID{}, false},
	{`{"id":null,"method":"x"}`, jsonrpc.ID{}, true},
	{`{"id":1,"id":1}`, jsonrpc.ID{}, false},
	{`{"id":1e3}`, jsonrpc.ID{}, false},
	{`{"id":9223372036854775808}`, jsonrpc.ID{}, false},
	{`{"id":true}`, jsonrpc.ID{}, false},
	{`{"id":[1]}`, jsonrpc.ID{}, false},
	{`{"\u0069d":1,"Id":2,"ID":3,"idx":4,"i":5}`, jsonrpc.ID{}, false},
	{`{"method\"":1,"methods":2}`, jsonrpc.ID{}, false},
	{`{"id":1`, jsonrpc.ID{}, false},
	{`{"id":1}}`, jsonrpc.ID{}, false},
	{`{"id":1,}`, jsonrpc.ID{}, false},
	{`{"id" 1}`, jsonrpc.ID{}, false},
	{`{"a":[}],"id":1}`, jsonrpc.ID{}, false},
	{`{"a":{],"id":1}`, jsonrpc.ID{}, false},
	{`[{"id":1}]`, jsonrpc.ID{}, false},
	{`{"id":"` + strings.Repeat("x", 254) + `"}`, jsonrpc.StringID(strings.Repeat("x", 254)), false},
	{`{"id":"` + strings.Repeat("x", 255) + `"}`, jsonrpc.ID{}, false},
	{`{"id":"a` + "\n" + `b"}`, jsonrpc.ID{}, false},
	{`{"id":1,"a":"` + strings.Repeat("[", 20000) + `"}`, jsonrpc.Int64ID(1), false},
	{`{"id":1,"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, jsonrpc.ID{}, false},
}

// TestScanner: the id and method found, whole and cut at every byte.
func TestScanner(t *testing.T) {
	for _, tc := range ScannerCases {
		data := []byte(tc.frame)
		id, method := scanFrame(data)
		if id != tc.id || method != tc.method {
			t.Errorf("%.80s: got %s, %v; want %s, %v", tc.frame, id, method, tc.id, tc.method)
		}
		if len(data) > 300 {
			continue
		}
		for i := range data {
			if id, method := scanFrame(data, i); id != tc.id || method != tc.method {
				t.Errorf("%s cut at %d: got %s, %v; want %s, %v", tc.frame, i, id, method, tc.id, tc.method)
			}
		}
	}
}

// oracleFrame finds with encoding/json what Scanner must find in a
// valid JSON text.
func oracleFrame(t *testing.T, data []byte) (jsonrpc.ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return jsonrpc.ID{}, false
	}
	var rawID json.RawMessage
	ids, method := 0, false
	for dec.More() {
		start := dec.InputOffset()
		if _, err := dec.Token(); err != nil {
			t.Fatalf("%q: reading a name: %v", data, err)
		}
		name := bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n,")
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("%q: reading a value: %v", data, err)
		}
		switch string(name) {
		case `"id"`:
			ids++
			rawID = raw
		case `"method"`:
			method = true
		}
	}
	var id jsonrpc.ID
	if ids != 1 || len(rawID) > MaxIDBytes || id.UnmarshalJSON(rawID) != nil {
		id = jsonrpc.ID{}
	}
	return id, method
}

// FuzzScanner checks Scanner against encoding/json on valid
// JSON, cut anywhere, and the stdio transport with a limit of one byte
// (so that every line is discarded) against Scanner.
func FuzzScanner(f *testing.F) {
	for _, tc := range ScannerCases {
		if len(tc.frame) < 300 {
			f.Add([]byte(tc.frame), uint16(len(tc.frame)/2))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole, wholeMethod := scanFrame(data)
		c := 0
		if len(data) > 0 {
			c = int(cut) % len(data)
		}
		if id, method := scanFrame(data, c); id != whole || method != wholeMethod {
			t.Fatalf("%q cut at %d: %s, %v; whole: %s, %v", data, c, id, method, whole, wholeMethod)
		}
		if json.Valid(data) {
			if id, method := oracleFrame(t, data); id != whole || method != wholeMethod {
				t.Fatalf("%q: scanner %s, %v; encoding/json %s, %v", data, whole, wholeMethod, id, method)
			}
		}
	})
}

// BenchmarkScanner scans a 5 MiB response, a tool's text with
// characters JSON escapes, in the transport's 64 KiB chunks.
func BenchmarkScanner(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat(`abc\"de{[\\`, 5<<20/11) + `"}]}}`)
	b.SetBytes(int64(len(data)))
	var s Scanner
	for b.Loop() {
		s.Reset()
		for p := data; len(p) > 0; {
			n := min(len(p), 64<<10)
			s.Write(p[:n])
			p = p[n:]
		}
		if id, _ := s.Result(); id != jsonrpc.Int64ID(7) {
			b.Fatalf("id %s", id)
		}
	}
}
