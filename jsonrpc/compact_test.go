package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// appendCompact must give what json.Compact gives, and refuse what it
// refuses, whether or not the input holds white space.
func checkCompact(t *testing.T, raw []byte) {
	t.Helper()
	var want bytes.Buffer
	wantErr := json.Compact(&want, raw)
	got, err := appendCompact([]byte("x"), raw)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Errorf("%q: error %v, json.Compact says %v", raw, err, wantErr)
	case err == nil && string(got) != "x"+want.String():
		t.Errorf("%q: got %s, want %s", raw, got[1:], want.String())
	}
}

func TestAppendCompact(t *testing.T) {
	for _, s := range []string{
		`{"text":"hello, world"}`, `{"a": 1}`, `[1, 2]`, `"a b"`, `"a\" b"`, `"a\\" , 1`,
		`{"a":"x\\"}`, `{"a":"\" "}`, " {}", "{}\n", `{"a":"b` + "\t" + `"}`, `{"a" :"b c"}`, `"`, `{"a":"b c}`,
	} {
		checkCompact(t, []byte(s))
	}
}

func FuzzAppendCompact(f *testing.F) {
	f.Add([]byte(`{"text":"hello, world"}`))
	f.Add([]byte(`{"a": "b\" c", "d" : [1, 2]}`))
	f.Fuzz(checkCompact)
}
