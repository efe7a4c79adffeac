package jsonscan

import (
	"slices"
	"testing"
)

// ScanObject must accept exactly the objects Skip accepts, end where Skip
// ends, and report the members Members reports.
func checkScanObject(t *testing.T, data []byte) {
	t.Helper()
	i := SkipSpace(data, 0)
	end, err := ScanObject(data, i, func(key, value []byte) {})
	wantEnd, kind, wantErr := Skip(data, i)
	isObject := wantErr == nil && kind == Object
	if (err == nil) != isObject {
		t.Fatalf("%q: ScanObject error %v, Skip says kind %v error %v", data, err, kind, wantErr)
	}
	if err != nil {
		return
	}
	if end != wantEnd {
		t.Errorf("%q: end %d, Skip says %d", data, end, wantEnd)
	}
	var got, want [][]byte
	ScanObject(data, i, func(key, value []byte) { got = append(got, key, value) })
	Members(data[i:end], func(key, value []byte) bool { want = append(want, key, value); return true })
	if !slices.EqualFunc(got, want, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("%q: members %q, Members says %q", data, got, want)
	}
}

func TestScanObject(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : [1, {"b":"c"}] , "d\"e" : null}`, `{"a":1,}`, `{"a"}`,
		`{"a":}`, `{"a":1 "b":2}`, `{`, `{"a":1`, `[]`, `"x"`, `{"a":tru}`, `{1:2}`, `{"a":"\x"}`,
	} {
		checkScanObject(t, []byte(s))
	}
}

func FuzzScanObject(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,2]}}`))
	f.Add([]byte(`{"a" : { "b" : "c\u0041" } }`))
	f.Fuzz(checkScanObject)
}
