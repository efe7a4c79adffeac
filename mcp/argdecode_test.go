package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

//lint:file-ignore SA5008 adPlain's field named "-" (json:"-,", as encoding/json documents) is a case under test
//lint:file-ignore U1000 adPlain's unexported field, which decoding skips, is a case under test

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
		var v T
		d.decode([]byte(data), &v) // never called on invalid JSON, but must not panic
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
		`{"other":1}`, `{"other":{"text":1},"x_y-z":[]}`,
	} {
		if !checkArgDecode[adPlain](t, s) {
			t.Errorf("%s: declined", s)
		}
	}
	for _, s := range []string{
		`{"TEXT":"x"}`, `{"bare":"x"}`, `{"t\u0065xt":"x"}`, `{"\u0074":"x"}`, `{"ſ":1}`,
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

type adRecursive struct {
	Kids []adRecursive `json:"kids"`
}

type adItem struct {
	SKU   string            `json:"sku"`
	Qty   int               `json:"qty"`
	Attrs map[string]string `json:"attrs"`
	Tags  []string          `json:"tags,omitempty"`
}

type adNested struct {
	Order struct {
		ID    string             `json:"id"`
		Items []adItem           `json:"items"`
		Ptr   *adItem            `json:"ptr"`
		PPtr  **int              `json:"pptr"`
		Named map[adMode]float64 `json:"named"`
		ByKey map[string]*adItem `json:"byKey"`
		Lists [][]int            `json:"lists"`
	} `json:"order"`
	Note string `json:"note"`
}

func TestArgDecoderNestedMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `{"order":null}`, `{"order":{}}`, `{"order":{"items":[]}}`, `{"order":{"items":null,"ptr":null,"named":null}}`,
		`{"order":{"id":"o-1","items":[{"sku":"a","qty":2,"attrs":{"colour":"rouge/红","size":null}},{"sku":"b","tags":["x","y"]}],` +
			`"ptr":{"sku":"p"},"pptr":7,"named":{"fast":1.5,"slow":-2e3},"byKey":{"k":{"qty":1},"n":null},"lists":[[1,2],[],null]},"note":"n"}`,
		`{"order":{"items":[{"attrs":{"a":"1","a":"2"}}]}}`, `{"note":"a","note":"b"}`,
		`{"order":{"items":[{"unknown":{"deep":[1,2]},"sku":"s"}]}}`,
		" \t{ \"order\" :\n{ \"items\" : [ { \"sku\" : \"a\" , \"attrs\" : { \"k\" : \"v\" } } , { } ] , \"lists\" : [ [ 1 , 2 ] , [ ] ] } }\r\n",
	} {
		if !checkArgDecode[adNested](t, s) {
			t.Errorf("%s: declined", s)
		}
	}
	for _, s := range []string{
		`{"order":{"items":[{"SKU":"a"}]}}`, `{"order":{"items":{}}}`, `{"order":[]}`, `{"order":{"named":{"a":"1"}}}`,
		`{"order":{"byKey":{"k\u0041":{}}}}`, `{"order":{"items":[],"items":[]}}`, `{"order":{},"order":{}}`,
		`{"order":{"pptr":1.5}}`, `{"order":{"lists":[[1],["x"]]}}`, `{"order":{"items":[{"attrs":{"a":1}}]}}`,
		"{\"order\":{\"byKey\":{\"\xff\":{}}}}",
	} {
		if checkArgDecode[adNested](t, s) {
			t.Errorf("%s: accepted", s)
		}
	}
}

func FuzzArgDecoderNested(f *testing.F) {
	for _, s := range []string{
		`{"order":{"id":"o","items":[{"sku":"a","qty":2,"attrs":{"c":"r"}}],"ptr":{"sku":"p"},"pptr":7,"named":{"f":1.5},"byKey":{"k":null},"lists":[[1]]}}`,
		`{"order":{"items":[{"Sku":"a"}]},"other":true}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkArgDecode[adNested](t, s)
	})
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
		reflect.TypeFor[struct{ B []byte }](),
		reflect.TypeFor[struct{ A [2]string }](),
		reflect.TypeFor[struct{ I any }](),
		reflect.TypeFor[struct{ M map[int]string }](),
		reflect.TypeFor[struct{ N json.Number }](),
		reflect.TypeFor[struct{ R []adRecursive }](),
		reflect.TypeFor[struct{ P *struct{ T time.Time } }](),
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

var adNestedArgs = func() []byte {
	var b []byte
	b = append(b, `{"order":{"id":"order-1","items":[`...)
	for i := range 6 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"sku":"SKU-000`+string(rune('0'+i))+`-ß","qty":`+string(rune('1'+i))+
			`,"attrs":{"colour":"rouge/红","size":"XL","path":"C:\\data\\items"},"tags":["a \"b\"","c"]}`...)
	}
	return append(b, `],"ptr":{"sku":"p"},"named":{"fast":1.5},"lists":[[1,2],[3]]},"note":"Bitte \"vorsichtig\" liefern.\r\n\u2028 end"}`...)
}()

// BenchmarkArgDecoderNested compares the decoder with encoding/json on
// nested arguments of about 1 KB.
func BenchmarkArgDecoderNested(b *testing.B) {
	d := newArgDecoder(reflect.TypeFor[adNested]())
	b.Run("argDecoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v adNested
			if !d.decode(adNestedArgs, &v) {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v adNested
			if err := json.Unmarshal(adNestedArgs, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
