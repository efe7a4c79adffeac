package schemacheck

import (
	"bytes"
	"encoding/json"
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
