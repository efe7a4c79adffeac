package mcp

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

type oeAddr struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty"`
}

type oeLevel string

//lint:file-ignore SA5008 oeAll's field named "-" (json:"-,", as encoding/json documents) is a case under test
//lint:file-ignore U1000 oeAll's unexported field, which encoding skips, is a case under test

type oeAll struct {
	S     string            `json:"s"`
	Named oeLevel           `json:"named"`
	B     bool              `json:"b,omitempty"`
	I     int               `json:"i"`
	I8    int8              `json:"i8,omitempty"`
	I64   int64             `json:"i64"`
	U     uint              `json:"u"`
	U16   uint16            `json:"u16,omitempty"`
	F     float64           `json:"f"`
	F32   float32           `json:"f32"`
	FE    float64           `json:"fe,omitempty"`
	Bare  string            //
	Skip  string            `json:"-"`
	Dash  string            `json:"-,"`
	Addr  oeAddr            `json:"addr"`
	PAddr *oeAddr           `json:"paddr"`
	POmit *oeAddr           `json:"pomit,omitempty"`
	L     []string          `json:"l"`
	LOmit []int             `json:"lomit,omitempty"`
	LS    []oeAddr          `json:"ls"`
	M     map[string]string `json:"m"`
	MOmit map[string]int    `json:"momit,omitempty"`
	MS    map[oeLevel]*oeAddr
	PP    **int  `json:"pp"`
	Ünï   string // a field name that needs no escape but is not ASCII
	inner string
}

// checkOutEncode: the encoder's output for v is exactly json.Marshal's in
// mcpkit's form (jsonenc.Marshal: every U+FFFD written \ufffd, whichever
// Go release), and it declines exactly the values json.Marshal refuses.
func checkOutEncode[T any](t *testing.T, v T) {
	t.Helper()
	e := newOutEncoder(reflect.TypeFor[T]())
	if e == nil {
		t.Fatalf("%T: no encoder", v)
	}
	want, err := jsonenc.Marshal(v)
	got, ok := e.encode(v)
	if err != nil {
		if ok {
			t.Errorf("%+v: encoded %s, json.Marshal says %v", v, got, err)
		}
		return
	}
	if !ok {
		t.Errorf("%+v: declined, json.Marshal wrote %s", v, want)
		return
	}
	if string(got) != string(want) {
		t.Errorf("%+v:\n got %s\nwant %s", v, got, want)
	}
}

func TestOutEncoderMatchesEncodingJSON(t *testing.T) {
	n := 7
	pn := &n
	negZero := math.Copysign(0, -1)
	checkOutEncode(t, oeAll{})
	checkOutEncode(t, oeAll{
		S: "a\"b\\c<d>&e\u2028\xff\x01 é 日本 😀", Named: "warn", B: true, I: -42, I8: -8, I64: math.MinInt64,
		U: math.MaxUint64 >> 1, U16: 65535, F: 0.1, F32: 3.4e38, FE: negZero, Bare: "bare", Skip: "skip", Dash: "dash",
		Addr: oeAddr{"1 <Main> St", "8001"}, PAddr: &oeAddr{Street: "x"}, POmit: &oeAddr{},
		L: []string{}, LOmit: []int{1, 2}, LS: []oeAddr{{"a", ""}, {"b", "c"}},
		M:  map[string]string{"z": "1", "a": "2", "é": "3", "<": "4", "": "5", "\u2028": "6"},
		MS: map[oeLevel]*oeAddr{"k": nil, "j": {Street: "s"}}, PP: &pn, Ünï: "ü",
	})
	for _, f := range []float64{0, negZero, 1, -1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, 5e-324, math.MaxFloat64, 1.5e-9, -2.5e300} {
		checkOutEncode(t, oeAll{F: f, F32: float32(f), FE: f})
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkOutEncode(t, oeAll{F: f})
		checkOutEncode(t, oeAll{LS: []oeAddr{{}}, M: map[string]string{"a": "b"}, F32: float32(f)})
	}
	checkOutEncode(t, &oeAll{I: 1})
	checkOutEncode[*oeAll](t, nil)
	checkOutEncode(t, map[string]oeAddr{"b": {"x", "y"}, "a": {}})
	checkOutEncode[map[string]int](t, nil)
	checkOutEncode(t, []oeAddr{{Street: "s"}})
	checkOutEncode(t, "just a string <&>")
	checkOutEncode(t, 12.5)
}

func FuzzOutEncoder(f *testing.F) {
	f.Add("hello", "<\u2028\xff\n", int64(-3), 1.5, true)
	f.Add("", "\"\\", int64(math.MaxInt64), 1e21, false)
	f.Fuzz(func(t *testing.T, a, b string, i int64, x float64, ok bool) {
		checkOutEncode(t, oeAll{S: a, Named: oeLevel(b), B: ok, I: int(i), I64: i, U: uint(i), F: x, F32: float32(x), FE: x,
			Bare: b, Addr: oeAddr{a, b}, L: []string{a, b}, M: map[string]string{a: b, b: a}, MS: map[oeLevel]*oeAddr{oeLevel(a): {b, a}}})
	})
}

type oeMarshals struct{ N int }

func (oeMarshals) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type oeEmbeds struct {
	oeAddr
	N int
}

type oeRecursive struct {
	Kids []oeRecursive
}

func TestOutEncoderDeclinesTypes(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[map[string]any](),
		reflect.TypeFor[any](),
		reflect.TypeFor[oeMarshals](),
		reflect.TypeFor[struct{ M oeMarshals }](),
		reflect.TypeFor[struct{ T time.Time }](),
		reflect.TypeFor[oeEmbeds](),
		reflect.TypeFor[oeRecursive](),
		reflect.TypeFor[struct{ B []byte }](),
		reflect.TypeFor[struct{ A [2]int }](),
		reflect.TypeFor[struct{ R json.RawMessage }](),
		reflect.TypeFor[struct{ N json.Number }](),
		reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		reflect.TypeFor[struct {
			N int `json:"n,omitzero"`
		}](),
		reflect.TypeFor[struct {
			A string `json:"X"`
			X string
		}](),
		reflect.TypeFor[struct {
			A string `json:"a b"`
		}](),
		reflect.TypeFor[map[int]string](),
		reflect.TypeFor[struct{ C chan int }](),
		reflect.TypeFor[struct{ P uintptr }](),
	} {
		if newOutEncoder(typ) != nil {
			t.Errorf("%v: got an encoder", typ)
		}
	}
}

// TestTypedResultOwnEncoding: a typed tool's result encoded from
// outEncoder's JSON is byte for byte what the general path writes, and a
// result that middleware changed afterwards is written as changed.
func TestTypedResultOwnEncoding(t *testing.T) {
	out := oeAll{S: `quote " backslash \ <tag> & ` + "\u2028 é", M: map[string]string{"k": `"v"`}, L: []string{`\`}}
	enc := newOutEncoder(reflect.TypeFor[oeAll]())
	general := func(r *CallToolResult) string {
		c := *r
		c.encoded = ""
		b, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		change func(r *CallToolResult)
		own    bool
	}{
		{"unchanged", func(*CallToolResult) {}, true},
		{"structured replaced", func(r *CallToolResult) { r.StructuredContent = json.RawMessage(`{"a":"<b>"}`) }, false},
		{"structured edited in place", func(r *CallToolResult) { r.StructuredContent[2] = 't' }, false},
		{"structured dropped", func(r *CallToolResult) { r.StructuredContent = nil }, true},
		{"text replaced", func(r *CallToolResult) { r.Content[0].(*TextContent).Text = "<changed>" }, false},
		{"content added", func(r *CallToolResult) { r.Content = append(r.Content, &TextContent{Text: "more"}) }, false},
		{"annotated", func(r *CallToolResult) { r.Content[0].(*TextContent).Annotations = &Annotations{LastModified: "now"} }, false},
		{"error set", func(r *CallToolResult) { r.IsError = true }, true},
	} {
		r, err := typedResult(out, enc)
		if err != nil {
			t.Fatal(err)
		}
		if r.encoded == "" {
			t.Fatalf("%s: typedResult did not use the encoder", tc.name)
		}
		tc.change(r)
		if got := r.ownEncoding(); got != tc.own {
			t.Errorf("%s: ownEncoding() = %v, want %v", tc.name, got, tc.own)
		}
		b, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := general(r); string(b) != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, b, want)
		}
	}
	// Unchanged, it is written into one buffer of the size it needs.
	r, _ := typedResult(out, enc)
	if n := testing.AllocsPerRun(10, func() { r.MarshalJSON() }); n != 1 {
		t.Errorf("MarshalJSON of a typed result: %v allocations, want 1", n)
	}
	// Without the encoder (or with NaN, which it declines), json.Marshal's
	// output is used and not marked.
	if r, err := typedResult(out, nil); err != nil || r.encoded != "" {
		t.Errorf("typedResult without encoder: %v, encoded %q", err, r.encoded)
	}
	if _, err := typedResult(oeAll{F: math.NaN()}, enc); err == nil || err.Error() != "encoding tool output: json: unsupported value: NaN" {
		t.Errorf("NaN output: %v", err)
	}
}

// BenchmarkOutEncoder compares the encoder with json.Marshal on an output
// of about 6 KB (structs, strings with escapes and non-ASCII, maps,
// floats).
func BenchmarkOutEncoder(b *testing.B) {
	out := make([]oeAll, 12)
	for i := range out {
		out[i] = oeAll{S: "Größe \"deluxe\" édition\tcafé ☕ <b>", I: i, F: 9.5 * float64(i), L: []string{"vip", "früh", "日本"},
			M: map[string]string{"colour": "rouge/红", "size": "XL", "path": `C:\data`}, Addr: oeAddr{"12 rue de l'Église", "8001"}}
	}
	e := newOutEncoder(reflect.TypeFor[[]oeAll]())
	b.Run("outEncoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := e.encode(out); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
