package exactjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsontest"
)

type inner struct {
	Text  string            `json:"text"`
	Count int8              `json:"count,omitempty"`
	Tags  []string          `json:"tags"`
	Extra map[string]any    `json:"extra"`
	Raw   json.RawMessage   `json:"raw"`
	Quote int               `json:"quoted,string"`
	Keyed map[int]bool      `json:"keyed"`
	Blob  []byte            `json:"blob"`
	Num   json.Number       `json:"num"`
	Meta  map[string]string `json:"_meta"`
}

type Embedded struct {
	Shared string `json:"shared"`
}

type outer struct {
	Embedded
	Name      string  `json:"name"`
	Arguments *inner  `json:"arguments"`
	Float     float32 `json:"f"`
	List      [2]uint8
	Any       any `json:"any"`
	Skip      int `json:"-"`
}

func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{in: `{"name":"echo","arguments":{"text":"x","count":3,"tags":["a"],"extra":{"k":[1]},"raw":{"r":1},"quoted":"7","keyed":{"1":true},"blob":"aGk=","num":"12"},"f":1.5,"List":[1,2,3],"any":{"z":null},"shared":"s"}`},
		{in: `null`},
		{in: `{"Name":"echo"}`, err: `unknown member "Name" (member names are case-sensitive; the field is "name")`},
		{in: `{"NAME":"echo","name":"x"}`, err: `unknown member "NAME" (member names are case-sensitive; the field is "name")`},
		{in: "{\"\u017fhared\":\"x\"}", err: "unknown member \"\u017fhared\" (member names are case-sensitive; the field is \"shared\")"},
		{in: "{\"arguments\":{\"\u212aeyed\":{}}}", err: "unknown member \"\u212aeyed\" (member names are case-sensitive; the field is \"keyed\") at /arguments"},
		{in: "{\"n\u0131me\":\"x\"}"},
		{in: "{\"arguments\":{\"coun\u0130\":1}}"},
		{in: "{\"\u0130\":1,\"L\u0131st\":[1]}"}, // encoding/json does not fold ı to i either
		{in: `{"list":[1]}`, err: `unknown member "list" (member names are case-sensitive; the field is "List")`},
		{in: `{"name":"a","name":"b"}`, err: `duplicate member "name"`},
		{in: `{"arguments":{"extra":{"a":1,"\u0061":2}}}`, err: `duplicate member "a" at /arguments/extra`},
		{in: `{"any":[{"x":1,"x":1}]}`, err: `duplicate member "x" at /any/0`},
		{in: `{"name":1}`, err: `want a string, got a number at /name`},
		{in: `{"arguments":[]}`, err: `want an object, got an array at /arguments`},
		{in: `{"arguments":{"count":300}}`, err: `want an integer of 8 bits, got 300 at /arguments/count`},
		{in: `{"arguments":{"count":1.5}}`, err: `want an integer of 8 bits, got 1.5 at /arguments/count`},
		{in: `{"arguments":{"count":"1"}}`, err: `want an integer, got a string at /arguments/count`},
		{in: `{"arguments":{"tags":["a",2]}}`, err: `want a string, got a number at /arguments/tags/1`},
		{in: `{"arguments":{"quoted":7}}`, err: `want a string, got a number at /arguments/quoted`},
		{in: `{"arguments":{"keyed":{"x":true}}}`, err: `member name "x" is not an integer of 64 bits at /arguments/keyed/x`},
		{in: `{"arguments":{"blob":"!!"}}`, err: `want base64 (RFC 4648 §4) in a string at /arguments/blob`},
		{in: `{"arguments":{"num":"x"}}`, err: `want a number, got a string at /arguments/num`},
		{in: `{"f":1e39}`, err: `number 1e39 is out of range at /f`},
		{in: `{"List":[1,-1]}`, err: `want an unsigned integer of 8 bits, got -1 at /List/1`},
		{in: `{"a/b~":{"x":1,"x":2}}`, err: `duplicate member "x" at /a~1b~0`},
		{in: `{"name":"x"`, err: `invalid JSON`},
		{in: `{"name":"x"} {}`, err: `invalid JSON`},
		{in: `[]`, err: `want an object, got an array`},
	} {
		var got, ref outer
		err := Unmarshal([]byte(tc.in), &got)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: err = %v, want nil", tc.in, err)
				continue
			}
			if json.Unmarshal([]byte(tc.in), &ref) != nil || !reflect.DeepEqual(got, ref) {
				t.Errorf("%s: decoded %+v, encoding/json %+v", tc.in, got, ref)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || err.Error() != tc.err {
			t.Errorf("%s: err = %v, want %s", tc.in, err, tc.err)
		}
	}
}

// selfDecoding decodes itself; Unmarshal checks only its names' repeats.
type selfDecoding struct{ got string }

func (s *selfDecoding) UnmarshalJSON(data []byte) error {
	if string(data) == `"fail"` {
		return errors.New("mine")
	}
	s.got = string(data)
	return nil
}

func TestUnmarshalUnmarshaler(t *testing.T) {
	var v struct {
		S selfDecoding `json:"s"`
	}
	if err := Unmarshal([]byte(`{"s":{"Any":1,"any":2}}`), &v); err != nil || v.S.got != `{"Any":1,"any":2}` {
		t.Errorf("got %q, %v", v.S.got, err)
	}
	if err := Unmarshal([]byte(`{"s":{"a":1,"a":2}}`), &v); err == nil || err.Error() != `duplicate member "a" at /s` {
		t.Errorf("err = %v", err)
	}
	if err := Unmarshal([]byte(`{"s":"fail"}`), &v); err == nil || err.Error() != "mine" {
		t.Errorf("err = %v, want the Unmarshaler's own", err)
	}
	if err := Unmarshal([]byte(`{}`), v); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("err = %v", err)
	}
}

// FuzzUnmarshal: what Unmarshal accepts, encoding/json decodes to the same
// value; what encoding/json refuses, Unmarshal refuses; and Unmarshal
// refuses what encoding/json accepts only for a repeated name or a name
// that folds to a field's.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"name":"echo","arguments":{"text":"x","count":3}}`, `{"Name":"x"}`, `{"name":"a","name":"b"}`,
		`{"arguments":{"tags":["a"],"extra":{"k":1}},"List":[1,2]}`, `{"f":1e39}`, "{\"\u017fhared\":1}",
		`{"arguments":{"quoted":"12","blob":"aGk=","keyed":{"-1":true},"num":"1.5e3"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, ref outer
		err := Unmarshal(data, &got)
		refErr := json.Unmarshal(data, &ref)
		switch {
		case err == nil && refErr != nil:
			t.Fatalf("%q: accepted, encoding/json: %v", data, refErr)
		case err == nil && !reflect.DeepEqual(got, ref):
			t.Fatalf("%q: decoded %+v, encoding/json %+v", data, got, ref)
		case err != nil && refErr == nil:
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "duplicate member "):
				if !jsontest.RepeatsName(data) {
					t.Fatalf("%q: %v, but the reference finds no repeated name", data, err)
				}
			case strings.HasPrefix(msg, "unknown member "):
			default:
				t.Fatalf("%q: refused (%v), encoding/json accepts", data, err)
			}
		}
	})
}
