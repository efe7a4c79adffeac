package jsonenc

import (
	"encoding/json"
	"testing"
)

func checkString(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
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
	} {
		checkString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("hello")
	f.Add("<\u2028\xff\n")
	f.Fuzz(checkString)
}
