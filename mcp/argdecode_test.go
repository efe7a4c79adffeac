package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type adPlain struct {
	Text  string  `json:"text"`
	N     int     `json:"n,omitempty"`
	I8    int8    `json:"i8"`
	U     uint16  `json:"u"`
	F     float64 `json:"f"`
	F32   float32 `json:"f32"`
	B     bool    `json:"b"`
	Bare  string
	Skip  string `json:"-"`
	Dash  string `json:"-,"`
	inner string
}

type adMode string

type adNamed struct {
	Mode adMode `json:"mode"`
}

// checkArgDecode: when the fast decoder accepts data, encoding/json must
// accept it too and give the same value.
func checkArgDecode[T any](t *testing.T, data string) (accepted bool) {
	t.Helper()
	d := newArgDecoder(reflect.TypeFor[T]())
	if d == nil {
		t.Fatalf("%T: no fast decoder", *new(T))
	}
	if !json.Valid([]byte(data)) {
		return false
	}
	var fast, slow T
	if !d.decode([]byte(data), &fast) {
		return false
	}
	if err := json.Unmarshal([]byte(data), &slow); err != nil {
		t.Errorf("%s: accepted, but encoding/json says %v", data, err)
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s:\nfast %+v\njson %+v", data, fast, slow)
	}
	return true
}

func TestArgDecoderMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `{"text":"hello, world"}`, `{"text":"a\"b\u00e9\ud83d\ude00"}`, "{\"text\":\"\xff\"}",
		`{"n":-12,"i8":127,"u":65535,"f":1.5e3,"f32":3.25,"b":true,"Bare":"x","-":"d"}`,
		`{"text":null,"n":null,"b":null}`, `{"text":"a","text":"b"}`, `{"f":-0,"n":0}`,
	} {
		if !checkArgDecode[adPlain](t, s) {
			t.Errorf("%s: declined", s)
		}
	}
	for _, s := range []string{
		`{"TEXT":"x"}`, `{"bare":"x"}`, `{"Skip":"x"}`, `{"other":1}`, `{"t\u0065xt":"x"}`,
		`{"text":1}`, `{"n":1.5}`, `{"n":1e2}`, `{"i8":128}`, `{"u":-1}`, `{"f32":1e39}`,
		`{"f":1e400}`, `{"b":"true"}`, `{"text":{}}`, `[]`, `"x"`, `null`,
	} {
		if checkArgDecode[adPlain](t, s) {
			t.Errorf("%s: accepted", s)
		}
	}
	if !checkArgDecode[adNamed](t, `{"mode":"fast"}`) {
		t.Error("named string type declined")
	}
}

func TestArgDecoderDeclinesTypes(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[map[string]any](),
		reflect.TypeFor[*adPlain](),
		reflect.TypeFor[struct{ adPlain }](),
		reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		reflect.TypeFor[struct{ T time.Time }](),
		reflect.TypeFor[struct{ S []string }](),
		reflect.TypeFor[struct{ P *string }](),
		reflect.TypeFor[struct {
			A string `json:"x"`
			B string `json:"X"`
		}](),
		reflect.TypeFor[struct {
			A string `json:"a b"`
		}](),
		reflect.TypeFor[struct{ R json.RawMessage }](),
	} {
		if newArgDecoder(typ) != nil {
			t.Errorf("%v: got a fast decoder", typ)
		}
	}
}

func FuzzArgDecoder(f *testing.F) {
	for _, s := range []string{
		`{"text":"hello","n":3,"b":false}`, `{"f":1.5,"f32":2,"u":7,"i8":-8}`, `{"Bare":"\u0041"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkArgDecode[adPlain](t, s)
	})
}
