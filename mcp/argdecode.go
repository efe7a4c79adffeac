package mcp

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// argDecoder decodes the arguments of a typed tool whose input is a plain
// struct of scalar fields (strings, booleans, numbers), the usual shape,
// without encoding/json: tool arguments are decoded on every tools/call.
// It handles only what it can decode exactly as encoding/json would, and
// declines (decode reports false) anything else: a key that is not exactly
// a field's JSON name, a value of another type, a number out of range. The
// caller then uses encoding/json, so results and errors never differ.
type argDecoder struct {
	fields []argField
}

type argField struct {
	name  string // the JSON name
	index int
	kind  reflect.Kind
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newArgDecoder returns a decoder for t, or nil when t is not a struct of
// fields it can decode exactly: no embedded fields, no ",string" option, no
// field type with its own unmarshalling, no two fields of one name.
func newArgDecoder(t reflect.Type) *argDecoder {
	if t.Kind() != reflect.Struct || hasUnmarshaler(t) {
		return nil
	}
	d := &argDecoder{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			n, opts, _ := strings.Cut(tag, ",")
			for o := range strings.SplitSeq(opts, ",") {
				if o == "string" {
					return nil
				}
			}
			if n != "" {
				if !plainName(n) {
					return nil
				}
				name = n
			}
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		default:
			return nil
		}
		if hasUnmarshaler(f.Type) || seen[strings.ToLower(name)] {
			return nil
		}
		seen[strings.ToLower(name)] = true
		d.fields = append(d.fields, argField{name: name, index: i, kind: f.Type.Kind()})
	}
	return d
}

func hasUnmarshaler(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || p.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// plainName reports whether a tag's name is made of letters, digits, '_'
// and '-', which encoding/json accepts as they are.
func plainName(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// decode decodes the JSON object data (already validated) into dst, a
// pointer to the zero value of the decoder's struct type. On false dst may
// be partly set; the caller decodes it again with encoding/json.
func (d *argDecoder) decode(data []byte, dst any) bool {
	if jsonscan.KindOf(data) != jsonscan.Object {
		return false
	}
	rv := reflect.ValueOf(dst).Elem()
	ok := true
	jsonscan.Members(data, func(key, value []byte) bool {
		f := d.field(key)
		if f == nil {
			ok = false
			return false
		}
		ok = f.set(rv.Field(f.index), value)
		return ok
	})
	return ok
}

func (d *argDecoder) field(key []byte) *argField {
	for i := range d.fields {
		if d.fields[i].name == string(key) {
			return &d.fields[i]
		}
	}
	return nil
}

// set stores value in v as encoding/json would, or reports false.
func (f *argField) set(v reflect.Value, value []byte) bool {
	k := jsonscan.KindOf(value)
	if k == jsonscan.Null {
		return true // null leaves a non-pointer field as it is
	}
	switch f.kind {
	case reflect.String:
		if k != jsonscan.String {
			return false
		}
		s, ok := jsonscan.StringValue(value)
		if ok {
			v.SetString(s)
		}
		return ok
	case reflect.Bool:
		if k != jsonscan.Bool {
			return false
		}
		v.SetBool(value[0] == 't')
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if k != jsonscan.Number {
			return false
		}
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if k != jsonscan.Number {
			return false
		}
		n, err := strconv.ParseUint(string(value), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
		return true
	case reflect.Float32, reflect.Float64:
		if k != jsonscan.Number {
			return false
		}
		n, err := strconv.ParseFloat(string(value), v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return false
		}
		v.SetFloat(n)
		return true
	}
	return false
}
