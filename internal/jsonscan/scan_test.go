package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"testing"
)

var validityCases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":}`, `{1:2}`,
	`"abc"`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"a\x01b\"", `"unterminated`,
	`0`, `-0`, `01`, `1.`, `.5`, `1.5e10`, `1e`, `1E+`, `-`, `-1.5E-3`, `1e5x`,
	`true`, `tru`, `false`, `null`, `nul`, `nullx`, `{"a":[1,{"b":null}],"c":"d"}`,
	`  {"a" : [ 1 , 2 ] }  `, `{}{}`, `[[[[]]]]`, `[`, `]`, `{"a":1}}`, "\xff", `"\xff"`,
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range validityCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestMembersAndElements(t *testing.T) {
	obj := []byte(`{ "a" : 1 , "b\u0031":"x", "c":{"d":[1,2]} }`)
	var keys, vals []string
	Members(obj, func(k, v []byte) bool {
		keys = append(keys, string(k))
		vals = append(vals, string(v))
		return true
	})
	if want := []string{"a", `b\u0031`, "c"}; !equal(keys, want) {
		t.Errorf("keys = %q, want %q", keys, want)
	}
	if want := []string{"1", `"x"`, `{"d":[1,2]}`}; !equal(vals, want) {
		t.Errorf("values = %q, want %q", vals, want)
	}
	if !KeyEquals([]byte(`b\u0031`), "b1") || KeyEquals([]byte("a"), "b") {
		t.Error("KeyEquals is wrong")
	}
	var els []string
	Elements([]byte(`[ 1, "two" ,[3] ]`), func(v []byte) bool { els = append(els, string(v)); return true })
	if want := []string{"1", `"two"`, "[3]"}; !equal(els, want) {
		t.Errorf("elements = %q, want %q", els, want)
	}
}

func TestStringHelpers(t *testing.T) {
	if s, ok := StringValue([]byte(`"a\nb"`)); !ok || s != "a\nb" {
		t.Errorf("StringValue = %q, %v", s, ok)
	}
	if !StringEquals([]byte(`"2.0"`), "2.0") || !StringEquals([]byte(`"\u0032.0"`), "2.0") || StringEquals([]byte(`2.0`), "2.0") {
		t.Error("StringEquals is wrong")
	}
	if n := StringLen([]byte(`"héllo"`)); n != 5 {
		t.Errorf("StringLen = %d, want 5", n)
	}
}

func TestMembersDoesNotAllocate(t *testing.T) {
	obj := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)
	n := testing.AllocsPerRun(100, func() {
		Valid(obj)
		Members(obj, func(k, v []byte) bool { return KeyEquals(k, "id") || true })
	})
	if n != 0 {
		t.Errorf("allocations = %v, want 0", n)
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		if got, want := ValidCompact(data), isCompact(data); got != want {
			t.Fatalf("ValidCompact(%q) = %v, want %v", data, got, want)
		}
	})
}

// isCompact is ValidCompact's oracle: valid JSON that json.Compact leaves
// as it is.
func isCompact(data []byte) bool {
	var buf bytes.Buffer
	return json.Valid(data) && json.Compact(&buf, data) == nil && bytes.Equal(buf.Bytes(), data)
}

func TestValidCompact(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"a":[1,"x y",{"b":null}]}`, true},
		{`"line\nbreak"`, true},
		{`{"a": 1}`, false},
		{`{"a":1} `, false},
		{` 1`, false},
		{"[1,\n2]", false},
		{`{"a":1`, false},
		{``, false},
	} {
		if got := ValidCompact([]byte(c.in)); got != c.want {
			t.Errorf("ValidCompact(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	for _, c := range validityCases {
		if got, want := ValidCompact([]byte(c)), isCompact([]byte(c)); got != want {
			t.Errorf("ValidCompact(%q) = %v, want %v", c, got, want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// specialBytes must find the first '"', '\\' or control byte at any
// position, whatever the bytes around it, and report no plain word.
func TestSpecialBytes(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for _, fill := range []byte{'a', ' ', 0x7f, 0x80, 0xff, '!', '#', '[', ']', '"', '\\', 0x1f, 0} {
		for c := 0; c < 256; c++ {
			for pos := range 8 {
				var w [8]byte
				for k := range w {
					w[k] = fill
				}
				w[pos] = byte(c)
				v := uint64(0)
				for k := 7; k >= 0; k-- {
					v = v<<8 | uint64(w[k])
				}
				first := 8
				for k := range w {
					if special(w[k]) {
						first = k
						break
					}
				}
				m := specialBytes(v)
				if got := bits.TrailingZeros64(m) >> 3; got != first {
					t.Fatalf("specialBytes(% x) = %x: first special byte %d, want %d", w, m, got, first)
				}
			}
		}
	}
}

// Strings of every length around the eight-byte stride, with a special
// byte at every position, agree with encoding/json.
func TestLongStringsMatchEncodingJSON(t *testing.T) {
	for n := range 24 {
		for pos := -1; pos < n; pos++ {
			for _, c := range []string{`"`, `\`, `\n`, `\u00e9`, `\x`, "\x01", "\xff", "é", `\"`, `\\`} {
				b := []byte(`"`)
				for k := range n {
					if k == pos {
						b = append(b, c...)
					} else {
						b = append(b, 'a'+byte(k%26))
					}
				}
				b = append(b, '"')
				for _, tail := range []string{"", " ", "        x"} {
					d := append(append([]byte(nil), b...), tail...)
					if got, want := Valid(d), json.Valid(d); got != want {
						t.Fatalf("Valid(%q) = %v, encoding/json says %v", d, got, want)
					}
				}
			}
		}
	}
}

// stringValueCases are JSON string values whose decoding StringValue must
// share with encoding/json: escapes, surrogate pairs and lone surrogates,
// invalid UTF-8, and what encoding/json refuses.
var stringValueCases = []string{
	`""`, `"plain"`, `"a\nb\tc\rd\be\ff\/g\\h\"i"`, `"\u0041\u00e9\u6771"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"\uDBFF\uDFFF"`,
	"\"caf\xc3\xa9 \xff \xe2\x80\"", "\"\xed\xa0\x80\"", `"\u12"`, `"\u12G4"`, `"\x"`, `"a\"`, `"a"b"`,
	"\"a\x01b\"", "\"tab\there\"", `"ünïcode — \"sum\"\n\t"`, "\"\u2028\"",
}

func TestStringValueMatchesEncodingJSON(t *testing.T) {
	for _, c := range stringValueCases {
		checkStringValue(t, []byte(c))
	}
}

func FuzzStringValue(f *testing.F) {
	for _, c := range stringValueCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			checkStringValue(t, v)
		}
	})
}

// checkStringValue checks StringValue on v against encoding/json. Callers
// hand StringValue validated values; of invalid ones only those that take
// the decoding path (with a backslash) must be refused.
func checkStringValue(t *testing.T, v []byte) {
	t.Helper()
	if !Valid(v) && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
		return
	}
	var want string
	wantErr := json.Unmarshal(v, &want)
	got, ok := StringValue(v)
	if ok != (wantErr == nil) || got != want {
		t.Errorf("StringValue(%q) = %q, %v; encoding/json: %q, %v", v, got, ok, want, wantErr)
	}
}
