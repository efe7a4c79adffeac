package schemacheck

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

const agreementSchema = `{
	"type": "object",
	"properties": {
		"text": {"type": "string", "minLength": 1, "maxLength": 5},
		"n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
		"x": {"type": ["number", "null"]},
		"ok": {"type": "boolean"},
		"color": {"type": "string", "enum": ["red", "green"]},
		"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
		"inner": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}
	},
	"required": ["text"],
	"additionalProperties": false
}`

var agreementInstances = []string{
	`{"text":"hi"}`, `{}`, `{"text":""}`, `{"text":"toolong"}`, `{"text":5}`, `{"text":"é"}`,
	`{"text":"a","n":3}`, `{"text":"a","n":3.0}`, `{"text":"a","n":3.5}`, `{"text":"a","n":-1}`, `{"text":"a","n":10}`, `{"text":"a","n":1e1}`,
	`{"text":"a","x":null}`, `{"text":"a","x":"1"}`, `{"text":"a","ok":true}`, `{"text":"a","ok":1}`,
	`{"text":"a","color":"red"}`, `{"text":"a","color":"blue"}`, `{"text":"a","tags":[]}`, `{"text":"a","tags":["x"]}`,
	`{"text":"a","tags":["x","y","z"]}`, `{"text":"a","tags":[1]}`, `{"text":"a","inner":{"a":"b"}}`, `{"text":"a","inner":{}}`,
	`{"text":"a","inner":{"a":"b","c":1}}`, `{"text":"a","extra":1}`, `[]`, `"text"`, `null`, `{"te\u0078t":"hi"}`,
}

func compileBoth(t testing.TB, schemaJSON string) (*Checker, *jsonschema.Resolved) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := Compile(&s)
	if !ok {
		t.Fatal("schema not compiled for the fast path")
	}
	return c, rs
}

// TestAgreesWithJSONSchemaGo checks that the fast path accepts exactly
// what jsonschema-go accepts.
func TestAgreesWithJSONSchemaGo(t *testing.T) {
	c, rs := compileBoth(t, agreementSchema)
	for _, inst := range agreementInstances {
		var v any
		if err := json.Unmarshal([]byte(inst), &v); err != nil {
			t.Fatal(err)
		}
		slowErr := rs.Validate(v)
		fastErr := c.Check([]byte(inst))
		if (slowErr == nil) != (fastErr == nil) {
			t.Errorf("%s: fast path says %v, jsonschema-go says %v", inst, fastErr, slowErr)
		}
	}
}

func TestErrorsNameTheProblem(t *testing.T) {
	c, _ := compileBoth(t, agreementSchema)
	for inst, want := range map[string]string{
		`{}`:                                   `arguments: missing required property "text"`,
		`{"text":5}`:                           `arguments/text: type: got integer, want string`,
		`{"text":"a","extra":1}`:               `arguments: unexpected property "extra"`,
		`{"text":"a","tags":["x",2]}`:          `arguments/tags/1: type: got integer, want string`,
		`{"text":"a","color":"blue"}`:          `arguments/color: "blue" is not one of the allowed values`,
		`{"text":"a","n":10}`:                  `arguments/n: 10 is not less than 10`,
		`{"text":"a","inner":{"a":"b","c":1}}`: `arguments/inner: unexpected property "c"`,
	} {
		err := c.Check([]byte(inst))
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", inst, err, want)
		}
	}
}

func TestCompileRefusesWhatItDoesNotImplement(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"anyOf":[{"type":"string"}]}`,
		`{"type":"string","pattern":"^a"}`,
		`{"type":"object","patternProperties":{"^a":{}}}`,
		`{"enum":[{"a":1}]}`,
	} {
		var sc jsonschema.Schema
		if err := json.Unmarshal([]byte(s), &sc); err != nil {
			t.Fatal(err)
		}
		if _, ok := Compile(&sc); ok {
			t.Errorf("Compile(%s) took the fast path", s)
		}
	}
}

func TestCheckDoesNotAllocate(t *testing.T) {
	c, _ := compileBoth(t, agreementSchema)
	inst := []byte(`{"text":"hi","n":3,"tags":["a"],"inner":{"a":"b"},"color":"red"}`)
	if n := testing.AllocsPerRun(100, func() { _ = c.Check(inst) }); n != 0 {
		t.Errorf("allocations = %v, want 0", n)
	}
}

func FuzzAgreesWithJSONSchemaGo(f *testing.F) {
	for _, inst := range agreementInstances {
		f.Add([]byte(inst))
	}
	c, rs := compileBoth(f, agreementSchema)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		slowErr := rs.Validate(v)
		fastErr := c.Check(data)
		if (slowErr == nil) != (fastErr == nil) {
			t.Fatalf("%s: fast path says %v, jsonschema-go says %v", data, fastErr, slowErr)
		}
	})
}

// CheckValid says what jsonscan.Valid and then Check say, error text
// included, on any input.
func checkValidAgrees(t *testing.T, c *Checker, data []byte) {
	t.Helper()
	valid, err := c.CheckValid(data)
	wantValid := json.Valid(data)
	var want error
	if wantValid {
		want = c.Check(bytes.TrimSpace(data)) // Check takes the value without surrounding space
	}
	if valid != wantValid || (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
		t.Fatalf("CheckValid(%q) = %v, %v; Valid then Check say %v, %v", data, valid, err, wantValid, want)
	}
}

func TestCheckValid(t *testing.T) {
	c, _ := compileBoth(t, agreementSchema)
	for _, inst := range append(agreementInstances, `{"text":"a"`, `{"text":"a"} x`, ` {"text":"a"} `, `{"text":5,`, `{"extra":1,"text":`, ``, `{`, `{"inner":{"a":"b","c":1},"text":"a"}`) {
		checkValidAgrees(t, c, []byte(inst))
	}
	inst := []byte(`{"text":"hi","n":3,"tags":["a"],"inner":{"a":"b"}}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = c.CheckValid(inst) }); n != 0 {
		t.Errorf("allocations = %v, want 0", n)
	}
}

func FuzzCheckValid(f *testing.F) {
	for _, inst := range agreementInstances {
		f.Add([]byte(inst))
	}
	c, _ := compileBoth(f, agreementSchema)
	f.Fuzz(func(t *testing.T, data []byte) { checkValidAgrees(t, c, data) })
}

// nestedSchema has containers at several levels, for CheckValid's
// one-pass walk: arrays of objects, a map (additionalProperties), arrays
// of arrays, an object compared whole (enum), a forbidden property.
const nestedSchema = `{
	"type": "object",
	"properties": {
		"order": {"type": "object", "properties": {
			"id": {"type": "string"},
			"items": {"type": "array", "maxItems": 3, "items": {"type": "object", "properties": {
				"sku": {"type": "string", "minLength": 2},
				"attrs": {"type": "object", "additionalProperties": {"type": "string"}},
				"grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}, "minItems": 1}}
			}, "required": ["sku"]}},
			"mode": {"enum": ["x", 3, null]},
			"no": false
		}, "required": ["id", "items"]},
		"any": {},
		"str": {"type": "string"}
	},
	"required": ["order"]
}`

var nestedInstances = []string{
	`{"order":{"id":"o","items":[]}}`, `{"order":{"id":"o","items":[{"sku":"ab","attrs":{"k":"v"},"grid":[[1],[2,3]]}]}}`,
	`{"order":{"id":"o","items":[{"sku":"a"}]}}`, `{"order":{"id":"o","items":[{}]}}`, `{"order":{"id":"o","items":[{"sku":"ab","attrs":{"k":1}}]}}`,
	`{"order":{"id":"o","items":[{"sku":"ab","grid":[[]]}]}}`, `{"order":{"id":"o","items":[{"sku":"ab","grid":[["x"]]}]}}`,
	`{"order":{"id":"o","items":[{"sku":"ab"},{"sku":"ab"},{"sku":"ab"},{"sku":"ab"}]}}`, `{"order":{"id":"o","items":{}}}`,
	`{"order":{"id":"o","items":[],"mode":{"a":1}}}`, `{"order":{"id":"o","items":[],"mode":{"a":2}}}`, `{"order":{"id":"o","items":[],"mode":[1,2]}}`,
	`{"order":{"id":"o","items":[],"no":1}}`, `{"order":{"items":[]}}`, `{"order":{"id":"o"}}`, `{"order":[]}`, `{"order":"x"}`,
	`{"order":{"id":"o","items":[{"sku":"a"}]},"str":1}`, `{"order":{"id":"o","items":[{"sku":"a"}]},"any":[{"deep":[1,{"x":null}]}]}`,
	` { "order" : { "id" : "o" , "items" : [ { "sku" : "ab" , "grid" : [ [ 1 ] ] } ] } } `,
	`{"order":{"id":"o","items":[{"sku":"a"},]}}`, `{"order":{"id":"o","items":[{"sku":"a"}}}`, `{"order":{"id":"o","items":[{"sku":"a" "x":1}]}}`,
	`{"order":{"id":"o","items":[{"sku":"a"}]},"any":[1,}`, `{"order":{"id":"o","items":[{"sku":"a"}]},"any":[1 2]}`,
	`{"order":{"id":"o","items":[{"sku":"a"}]}} x`, `{"order":{"id":1,"items":[[` + "\x01" + `]]}}`, `{"o\u0072der":{"id":"o","items":[]}}`,
}

func TestCheckValidNested(t *testing.T) {
	c, _ := compileBoth(t, nestedSchema)
	for _, inst := range nestedInstances {
		checkValidAgrees(t, c, []byte(inst))
	}
	// Nesting at the limit, inside members the schema describes and
	// inside one it does not: Valid's verdict either way.
	for _, depth := range []int{9996, 9997, 9998, 9999, 10000, 10001} {
		for _, prefix := range []string{`{"order":{"id":"o","items":[{"sku":"ab","grid":[`, `{"order":{"id":"o","items":[]},"any":[`} {
			inner := strings.Repeat("[", depth) + strings.Repeat("]", depth)
			inst := prefix + inner + strings.Repeat("]", strings.Count(prefix, "[")-strings.Count(prefix, "]"))
			if strings.HasPrefix(prefix, `{"order":{"id":"o","items":[{`) {
				inst += "}]}}"
			} else {
				inst += "}"
			}
			checkValidAgrees(t, c, []byte(inst))
		}
	}
	inst := []byte(nestedInstances[1])
	if n := testing.AllocsPerRun(100, func() { _, _ = c.CheckValid(inst) }); n != 0 {
		t.Errorf("allocations = %v, want 0", n)
	}
}

func FuzzCheckValidNested(f *testing.F) {
	for _, inst := range nestedInstances {
		f.Add([]byte(inst))
	}
	c, _ := compileBoth(f, nestedSchema)
	f.Fuzz(func(t *testing.T, data []byte) { checkValidAgrees(t, c, data) })
}

// BenchmarkCheckValidNested checks about 1.5 KB of nested arguments.
func BenchmarkCheckValidNested(b *testing.B) {
	c, _ := compileBoth(b, nestedSchema)
	item := `{"sku":"SKU-0001-ß","attrs":{"colour":"rouge/红","size":"XL","path":"C:\\data\\items"},"grid":[[1,2,3],[4,5,6]]}`
	inst := []byte(`{"order":{"id":"order-1","items":[` + item + `,` + item + `,` + item + `]},"any":{"deep":[` + item + `,` + item + `]},"str":"s"}`)
	for b.Loop() {
		if ok, err := c.CheckValid(inst); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
