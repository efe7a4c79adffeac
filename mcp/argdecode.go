package mcp

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// argDecoder decodes the arguments of a typed tool without encoding/json:
// tool arguments are decoded on every tools/call. The work of walking the
// argument type is done once, when the tool is added. It takes structs of
// plainly named fields holding strings, booleans, numbers, further such
// structs, slices, maps with string keys and pointers, and handles only
// what it can decode exactly as encoding/json would: it declines (decode
// reports false) anything else, such as a key that matches a field only
// case-insensitively, a value of another type, a number out of range or a
// repeated key holding an object or array. The caller then uses
// encoding/json, so results and errors never differ.
type argDecoder struct {
	root decodeFn
}

// decodeFn decodes the raw JSON value (valid: the schema check has read
// it) into v, or reports false.
type decodeFn func(v reflect.Value, value []byte) bool

// structDecoder decodes into one struct type.
type structDecoder struct {
	fields []argField
	// ascii: every field name is ASCII, so that an ASCII key matching no
	// name even case-insensitively is one encoding/json ignores.
	ascii bool
}

type argField struct {
	name  string // the JSON name
	index int
	dec   decodeFn
	// merges: a second value for the field would be merged into the
	// first by encoding/json (struct, slice, map, pointer), which decode
	// leaves to it.
	merges bool
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newArgDecoder returns a decoder for t, or nil when t is not a struct it
// can decode exactly.
func newArgDecoder(t reflect.Type) *argDecoder {
	if t.Kind() != reflect.Struct {
		return nil
	}
	fn := compileDecoder(t, map[reflect.Type]bool{})
	if fn == nil {
		return nil
	}
	return &argDecoder{root: fn}
}

// compileDecoder returns the decodeFn of t, or nil. inProgress holds the
// struct types being compiled: a recursive type is declined.
func compileDecoder(t reflect.Type, inProgress map[reflect.Type]bool) decodeFn {
	if hasUnmarshaler(t) || t == jsonNumberType {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return decodeString
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return decodeUint
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	case reflect.Struct:
		if inProgress[t] {
			return nil
		}
		inProgress[t] = true
		defer delete(inProgress, t)
		d := compileStructDecoder(t, inProgress)
		if d == nil {
			return nil
		}
		return d.decode
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64
		}
		elem := compileDecoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, value []byte) bool { return decodeSlice(v, value, elem) }
	case reflect.Map:
		if t.Key().Kind() != reflect.String || hasUnmarshaler(t.Key()) {
			return nil
		}
		elem := compileDecoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, value []byte) bool { return decodeMap(v, value, elem) }
	case reflect.Pointer:
		elem := compileDecoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, value []byte) bool {
			if jsonscan.KindOf(value) == jsonscan.Null {
				v.SetZero()
				return true
			}
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			return elem(v.Elem(), value)
		}
	}
	return nil
}

// compileStructDecoder returns the decoder of t's exported fields, or nil
// for an embedded field, a ",string" option, a name that is not plain or
// two names equal but for case.
func compileStructDecoder(t reflect.Type, inProgress map[reflect.Type]bool) *structDecoder {
	d := &structDecoder{ascii: true}
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
		if seen[strings.ToLower(name)] {
			return nil
		}
		seen[strings.ToLower(name)] = true
		dec := compileDecoder(f.Type, inProgress)
		if dec == nil {
			return nil
		}
		switch f.Type.Kind() {
		case reflect.Struct, reflect.Slice, reflect.Map, reflect.Pointer:
			d.fields = append(d.fields, argField{name: name, index: i, dec: dec, merges: true})
		default:
			d.fields = append(d.fields, argField{name: name, index: i, dec: dec})
		}
		d.ascii = d.ascii && plainName(name)
	}
	if len(d.fields) > 64 {
		return nil // more than decode's record of merging fields seen holds
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
	return d.root(reflect.ValueOf(dst).Elem(), data)
}

// decode decodes an object into the struct v. A key naming no field is
// skipped, as encoding/json skips it, when it is plain ASCII and matches
// no name case-insensitively either (encoding/json would use such a
// field); other keys are declined.
func (d *structDecoder) decode(v reflect.Value, value []byte) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		return true // null leaves a struct as it is
	case jsonscan.Object:
	default:
		return false
	}
	ok := true
	var seen uint64
	jsonscan.Members(value, func(key, value []byte) bool {
		i := d.field(key)
		if i < 0 {
			ok = d.ascii && d.unknown(key)
			return ok
		}
		f := &d.fields[i]
		if f.merges {
			if seen&(1<<i) != 0 {
				ok = false
				return false
			}
			seen |= 1 << i
		}
		ok = f.dec(v.Field(f.index), value)
		return ok
	})
	return ok
}

func (d *structDecoder) field(key []byte) int {
	for i := range d.fields {
		if d.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

// unknown reports whether key (raw, as in the JSON) is plain ASCII and
// equals no field's name case-insensitively: a key encoding/json ignores.
func (d *structDecoder) unknown(key []byte) bool {
	if !plainName(string(key)) {
		return false
	}
	for i := range d.fields {
		if strings.EqualFold(d.fields[i].name, string(key)) {
			return false
		}
	}
	return true
}

// decodeSlice decodes an array into a new slice in v, as encoding/json
// does into a nil one ([] gives an empty slice, null nil).
func decodeSlice(v reflect.Value, value []byte, elem decodeFn) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		v.SetZero()
		return true
	case jsonscan.Array:
	default:
		return false
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	n := 0
	ok := true
	jsonscan.Elements(value, func(e []byte) bool {
		if n == v.Cap() {
			v.Grow(1)
		}
		v.SetLen(n + 1)
		ok = elem(v.Index(n), e)
		n++
		return ok
	})
	return ok
}

// decodeMap decodes an object into the map v (made if nil); a key is
// declined when it holds an escape or bytes that are not UTF-8, which
// encoding/json would unquote.
func decodeMap(v reflect.Value, value []byte, elem decodeFn) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		v.SetZero()
		return true
	case jsonscan.Object:
	default:
		return false
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	t := v.Type()
	if m, isPlain := reflect.TypeAssert[map[string]string](v); isPlain {
		// The usual map of a tool's arguments, without reflection.
		ok := true
		jsonscan.Members(value, func(key, value []byte) bool {
			if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
				ok = false
				return false
			}
			switch jsonscan.KindOf(value) {
			case jsonscan.String:
				var s string
				if s, ok = jsonscan.StringValue(value); ok {
					m[string(key)] = s
				}
			case jsonscan.Null:
				m[string(key)] = "" // a fresh element, left as it is by null
			default:
				ok = false
			}
			return ok
		})
		return ok
	}
	ok := true
	e := reflect.New(t.Elem()).Elem()
	k := reflect.New(t.Key()).Elem()
	jsonscan.Members(value, func(key, value []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			ok = false
			return false
		}
		e.SetZero()
		if ok = elem(e, value); ok {
			k.SetString(string(key))
			v.SetMapIndex(k, e)
		}
		return ok
	})
	return ok
}

func decodeString(v reflect.Value, value []byte) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		return true // null leaves a non-pointer field as it is
	case jsonscan.String:
		s, ok := jsonscan.StringValue(value)
		if ok {
			v.SetString(s)
		}
		return ok
	}
	return false
}

func decodeBool(v reflect.Value, value []byte) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		return true
	case jsonscan.Bool:
		v.SetBool(value[0] == 't')
		return true
	}
	return false
}

func decodeInt(v reflect.Value, value []byte) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		return true
	case jsonscan.Number:
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
		return true
	}
	return false
}

func decodeUint(v reflect.Value, value []byte) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		return true
	case jsonscan.Number:
		n, err := strconv.ParseUint(string(value), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
		return true
	}
	return false
}

func decodeFloat(v reflect.Value, value []byte) bool {
	switch jsonscan.KindOf(value) {
	case jsonscan.Null:
		return true
	case jsonscan.Number:
		n, err := strconv.ParseFloat(string(value), v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return false
		}
		v.SetFloat(n)
		return true
	}
	return false
}
