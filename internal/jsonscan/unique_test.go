package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsontest"
)

func TestSkipUniqueAt(t *testing.T) {
	many := func(names ...string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		for _, n := range names {
			fmt.Fprintf(&b, `"%s":0,`, n)
		}
		return strings.TrimSuffix(b.String(), ",") + "}"
	}
	for _, tc := range []struct {
		in, dup, where string
	}{
		{in: `{"a":1,"b":2}`},
		{in: `{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}`},
		{in: `{"a":1,"a":2}`, dup: "a", where: ""},
		{in: `{"a":1,"\u0061":2}`, dup: "a", where: ""},
		{in: `{"x":[1,{"y":{"z":0,"z":1}}]}`, dup: "z", where: "/x/1/y"},
		{in: "{\"a\xff\":1,\"a\xfe\":2}", dup: "a\ufffd", where: ""},
		{in: `{"a\ud800":1,"a\ufffd":2}`, dup: "a\ufffd", where: ""},
		{in: `{"Name":1,"name":2}`},
		{in: `{"a/b":{"c~d":{"e":1,"e":2}}}`, dup: "e", where: "/a~1b/c~0d"},
		{in: many()},
		{in: many("k7"), dup: "k7", where: ""},
		{in: many("z", "z"), dup: "z", where: ""},
		{in: `[{"a":1},{"a":1,"b":2,"a":3}]`, dup: "a", where: "/1"},
	} {
		end, kind, err := SkipUniqueAt([]byte(tc.in), 0, 0)
		wantEnd, wantKind, _ := Skip([]byte(tc.in), 0)
		if end != wantEnd || kind != wantKind {
			t.Errorf("%s: end, kind = %d, %v; want %d, %v", tc.in, end, kind, wantEnd, wantKind)
		}
		var d *DuplicateError
		if tc.dup == "" {
			if err != nil {
				t.Errorf("%s: err = %v, want nil", tc.in, err)
			}
			continue
		}
		if !errors.As(err, &d) || d.Name != tc.dup {
			t.Errorf("%s: err = %v, want duplicate member %q", tc.in, err, tc.dup)
			continue
		}
		if got := PointerTo([]byte(tc.in), 0, d.Offset); got != tc.where {
			t.Errorf("%s: PointerTo = %q, want %q", tc.in, got, tc.where)
		}
	}
	// A syntax error after a repeat outranks it.
	if _, _, err := SkipUniqueAt([]byte(`{"a":1,"a":2,}`), 0, 0); err != ErrSyntax {
		t.Errorf("err = %v, want ErrSyntax", err)
	}
}

// TestNames checks Names against the same cases, past the linear limit too.
func TestNames(t *testing.T) {
	var n Names
	doc := []byte(`"k5" "\u006b99" "K5"`)
	var many []byte
	var spans [][2]int
	for i := 0; i < 100; i++ {
		many = append(many, '"')
		spans = append(spans, [2]int{len(many), len(many) + len(fmt.Sprint("k", i))})
		many = append(many, fmt.Sprint("k", i, `" `)...)
	}
	many = append(many, `"k5"`...)
	for i, sp := range spans {
		if !n.Add(many, many[sp[0]:sp[1]]) {
			t.Fatalf("k%d refused the first time", i)
		}
	}
	if n.Add(many, many[len(many)-3:len(many)-1]) {
		t.Error("k5 accepted twice")
	}
	n = Names{}
	if !n.Add(doc, doc[1:3]) || n.Add(doc, doc[1:3]) || !n.Add(doc, doc[15:17]) || !n.Add(doc, doc[6:13]) || n.Add(doc, doc[6:13]) {
		t.Error("after Reset: wrong answers")
	}
}

// FuzzSkipUniqueAt: SkipUniqueAt agrees with Skip on validity, end and
// kind, and with the reference reader on repeated names.
func FuzzSkipUniqueAt(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[{"c":1,"\u0063":2}]}}`, "{\"\xff\":1,\"\xfe\":1}", `[1,{"a":[]}]`, `"x"`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		end, kind, err := SkipUniqueAt(data, 0, 0)
		wantEnd, wantKind, wantErr := Skip(data, 0)
		if !bytes.Equal(data, orig) {
			t.Fatal("SkipUniqueAt modified its input")
		}
		if (wantErr != nil) != (err == ErrSyntax) {
			t.Fatalf("%q: err = %v, Skip's = %v", data, err, wantErr)
		}
		if wantErr != nil {
			return
		}
		if end != wantEnd || kind != wantKind {
			t.Fatalf("%q: end, kind = %d, %v; Skip's %d, %v", data, end, kind, wantEnd, wantKind)
		}
		var d *DuplicateError
		if got, want := errors.As(err, &d), jsontest.RepeatsName(data[:end]); got != want {
			t.Fatalf("%q: repeated name found = %v (%v), reference says %v", data, got, err, want)
		}
	})
}

// TestScanStringASCII checks the flag scanString gives Names: set only for
// a string of ASCII bytes without a backslash, wherever in the string, or
// in its last eight bytes, the byte that clears it is.
func TestScanStringASCII(t *testing.T) {
	for _, tc := range []struct {
		s     string
		ascii bool
	}{
		{`""`, true},
		{`"abc"`, true},
		{`"io.modelcontextprotocol/protocolVersion"`, true},
		{`"a\"b"`, false},
		{`"\u0061"`, false},
		{`"abcdefgh\n"`, false},
		{`"abcdefghijklmno\\"`, false},
		{"\"\u00e9\"", false},
		{"\"abcdefgh\u00e9\"", false},
		{"\"abcdef\u00e9ghijklmnop\"", false},
		{"\"abcdefghijklmn\u00e9\"", false},
	} {
		end, ascii, err := scanString([]byte(tc.s), 0)
		if err != nil || end != len(tc.s) || ascii != tc.ascii {
			t.Errorf("scanString(%s) = %d, %v, %v; want %d, %v, nil", tc.s, end, ascii, err, len(tc.s), tc.ascii)
		}
	}
}

// FuzzScanString: scanString agrees with skipString and its flag with a
// byte-by-byte reading; plainKey agrees with plainKeySlow.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"bcdefghijk"`, "\"abcdefg\xffh\"", `"\u00e9"`, "\"\u00e9abcdefghij\"", `"x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			return
		}
		end, ascii, err := scanString(data, 0)
		wantEnd, wantErr := skipString(data, 0)
		if end != wantEnd || (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: scanString = %d, %v; skipString = %d, %v", data, end, err, wantEnd, wantErr)
		}
		if err == nil {
			raw := data[1 : end-1]
			want := bytes.IndexByte(raw, '\\') < 0
			for _, c := range raw {
				want = want && c < 0x80
			}
			if ascii != want {
				t.Fatalf("%q: ascii = %v, want %v", data, ascii, want)
			}
		}
		if got, want := plainKey(data), plainKeySlow(data); got != want {
			t.Fatalf("%q: plainKey = %v, want %v", data, got, want)
		}
	})
}
