package jsonenc

import (
	"encoding/base64"
	"testing"
)

// checkString: AppendString writes what encoding/json writes, with every
// U+FFFD written \ufffd (the package's rule: json.Marshal of Go 1.26 and
// earlier writes a valid U+FFFD raw and invalid UTF-8 as \ufffd; of Go
// 1.27, both raw), and StringLen is its length.
func checkString(t *testing.T, s string) {
	t.Helper()
	want, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
		t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
	}
	if got := StringLen(s); got != len(want) {
		t.Errorf("StringLen(%q) = %d, want %d", s, got, len(want))
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "hello", `a"b\c`, "<script>&", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
		"é ü 日本", "\u2028\u2029", "\xff", "a\xc3", "\xed\xa0\x80", "\U0001F600",
		"\xe0\x80\x80", "\xe0\xa0\x80", "\xc0\x80", "\xc2", "\xe2\x82", "\xe2\x80\xa8x", "\xe2\x80\xaa", "\xed\x9f\xbf",
		"\xef\xbf\xbf", "\xf0\x9f\x98", "«naïve» café — 東京 ☕", "\uFFFD", "a\xef\xbf\xbdb\xef\xbf", "\xef\xbf\xbc",
	} {
		checkString(t, s)
	}
}

// The rule's bytes, spelt out: they do not depend on encoding/json, so
// this fails on any Go release if AppendString or Marshal strays from it.
func TestAppendStringBytes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\xffb", `"a\ufffdb"`},                         // invalid UTF-8
		{"a\uFFFDb", `"a\ufffdb"`},                       // U+FFFD itself
		{"\xef\xbf\xbd\xef\xbf", `"\ufffd\ufffd\ufffd"`}, // U+FFFD, then two bytes of a cut one
		{"\xef\xbf\xbc é", "\"\xef\xbf\xbc é\""},         // U+FFFC and é as they are
		{"<&>\u2028\u2029\x01", `"\u003c\u0026\u003e\u2028\u2029\u0001"`},
	} {
		if got := AppendString(nil, c.in); string(got) != c.want {
			t.Errorf("AppendString(%q) = %s, want %s", c.in, got, c.want)
		}
		if got := StringLen(c.in); got != len(c.want) {
			t.Errorf("StringLen(%q) = %d, want %d", c.in, got, len(c.want))
		}
		if got, err := Marshal(c.in); err != nil || string(got) != c.want {
			t.Errorf("Marshal(%q) = %s, %v, want %s", c.in, got, err, c.want)
		}
		if got, err := Marshal(map[string][]string{c.in: {c.in}}); err != nil || string(got) != "{"+c.want+":["+c.want+"]}" {
			t.Errorf("Marshal(a map of %q) = %s, %v", c.in, got, err)
		}
	}
}

func TestEscapeReplacement(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, ``},
		{`{"a":"b"}`, `{"a":"b"}`},
		{"[\"\uFFFD\",\"x\uFFFDy\uFFFD\"]", `["\ufffd","x\ufffdy\ufffd"]`},
		{`"\ufffd"`, `"\ufffd"`},
	} {
		if got := EscapeReplacement([]byte(c.in)); string(got) != c.want {
			t.Errorf("EscapeReplacement(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// Without a U+FFFD, the same slice comes back.
	b := []byte(`{"a":"é"}`)
	if got := EscapeReplacement(b); &got[0] != &b[0] {
		t.Error("EscapeReplacement copied text without U+FFFD")
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("hello")
	f.Add("<\u2028\xff\n")
	f.Fuzz(checkString)
}

// benchText is 1 MiB of source-like text: mostly ASCII, some quotes,
// backslashes, tabs, newlines, < and &, and non-ASCII letters.
var benchText = func() string {
	line := "\tif err := s.check(req); err != nil { return fmt.Errorf(\"check: %w\", err) } // Größe «naïve» café — 東京 <a&b> C:\\x\n"
	b := make([]byte, 0, 1<<20+len(line))
	for len(b) < 1<<20 {
		b = append(b, line...)
	}
	return string(b[:1<<20])
}()

func BenchmarkAppendStringText(b *testing.B) {
	dst := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		dst = AppendString(dst[:0], benchText)
	}
}

func BenchmarkStringLenText(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		StringLen(benchText)
	}
}

func checkBase64(t *testing.T, src []byte) {
	t.Helper()
	want := base64.StdEncoding.AppendEncode([]byte("x"), src)
	if got := AppendBase64([]byte("x"), src); string(got) != string(want) {
		t.Errorf("AppendBase64(%x) = %s, want %s", src, got, want)
	}
}

func TestAppendBase64MatchesStdEncoding(t *testing.T) {
	src := make([]byte, 200)
	for i := range src {
		src[i] = byte(i*151 + 7)
	}
	for n := range len(src) {
		checkBase64(t, src[:n])
		checkBase64(t, src[len(src)-n:])
	}
	checkBase64(t, nil)
	all := make([]byte, 3*4096) // every 12-bit value in both halves
	for i := 0; i < len(all); i += 3 {
		v := i / 3
		all[i], all[i+1], all[i+2] = byte(v>>4), byte(v<<4|v>>8), byte(v)
	}
	checkBase64(t, all)
}

func FuzzAppendBase64(f *testing.F) {
	f.Add([]byte("hello, world"))
	f.Add([]byte{0xff, 0xfe, 0, 1, 2, 3, 4, 5, 6})
	f.Fuzz(checkBase64)
}

func BenchmarkAppendBase64(b *testing.B) {
	src := []byte(benchText)
	dst := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		dst = AppendBase64(dst[:0], src)
	}
}

func BenchmarkStdBase64(b *testing.B) {
	src := []byte(benchText)
	dst := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		dst = base64.StdEncoding.AppendEncode(dst[:0], src)
	}
}

// checkEncoded: AppendEncoded of Marshal's output for v equals
// AppendString of it.
func checkEncoded(t *testing.T, v any) {
	t.Helper()
	enc, err := Marshal(v)
	if err != nil {
		return
	}
	want := AppendString([]byte("x"), string(enc))
	if got := AppendEncoded([]byte("x"), string(enc)); string(got) != string(want) {
		t.Errorf("AppendEncoded(%s) = %s, want %s", enc, got[1:], want[1:])
	}
}

func TestAppendEncodedMatchesAppendString(t *testing.T) {
	for _, s := range []string{
		"", "hello", `a"b\c`, "<script>&", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
		"é ü 日本", "\u2028\u2029", "\xff", "a\xc3", "\xed\xa0\x80", "\U0001F600", `\"\\"`, "\uFFFD",
	} {
		checkEncoded(t, s)
		checkEncoded(t, map[string]any{s: []any{s, 1.5, true, nil, map[string]string{"k": s}}})
	}
}

func FuzzAppendEncoded(f *testing.F) {
	f.Add("hello", "<\u2028\xff\n", 1.5)
	f.Add(`"\`, "\\\"", -1e-9)
	f.Fuzz(func(t *testing.T, a, b string, n float64) {
		checkEncoded(t, a)
		checkEncoded(t, struct {
			A string
			M map[string]string
			N float64
			L []string
		}{a, map[string]string{a: b, b: a}, n, []string{b, a}})
	})
}
