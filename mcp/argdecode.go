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

// argDecoder decodes a typed tool's arguments without encoding/json, from
// a plan compiled once when the tool is added, for structs of plainly named
// fields of strings, booleans, numbers, structs, slices, string-keyed maps
// and pointers. decode reports false for anything it could not decode
// exactly as encoding/json would (docs/design.md, "Fast decoders").
type argDecoder struct {
	root decodeFn
}

// decodeFn decodes the JSON value that starts at data[i] (no leading
// space; data is valid JSON, which the schema check has read) into v and
// returns the index just after it, or reports false. The decoders of
// objects and arrays read their members themselves, so that the
// arguments are read once, not once per level of nesting.
type decodeFn func(v reflect.Value, data []byte, i int) (end int, ok bool)

// scalar returns a decodeFn for a string, boolean or number: set decodes
// the value's raw JSON.
func scalar(set func(v reflect.Value, value []byte) bool) decodeFn {
	return func(v reflect.Value, data []byte, i int) (int, bool) {
		end, _, err := jsonscan.Skip(data, i)
		if err != nil {
			return i, false
		}
		return end, set(v, data[i:end])
	}
}

var (
	decodeStringFn = scalar(decodeString)
	decodeBoolFn   = scalar(decodeBool)
	decodeIntFn    = scalar(decodeInt)
	decodeUintFn   = scalar(decodeUint)
	decodeFloatFn  = scalar(decodeFloat)
)

// isNull reports whether data[i] starts null, which decoders of
// containers turn into their zero value (or leave a struct as it is).
func isNull(data []byte, i int) bool { return i < len(data) && data[i] == 'n' }

// skipNull returns the index after the null at data[i].
func skipNull(data []byte, i int) (int, bool) {
	end, k, err := jsonscan.Skip(data, i)
	return end, err == nil && k == jsonscan.Null
}

// nextMember moves past the space and comma after a member or element at
// data[i]: more reports whether another follows (then i is its start),
// ok false is malformed JSON.
func nextMember(data []byte, i int, closing byte) (next int, more, ok bool) {
	i = jsonscan.SkipSpace(data, i)
	if i >= len(data) {
		return i, false, false
	}
	switch data[i] {
	case closing:
		return i + 1, false, true
	case ',':
		return jsonscan.SkipSpace(data, i+1), true, true
	}
	return i, false, false
}

// memberKey reads the key at data[i] (its quote) and the colon after it:
// it returns the raw key and the index of the member's value.
func memberKey(data []byte, i int) (key []byte, value int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, i, false
	}
	end, _, err := jsonscan.Skip(data, i)
	if err != nil {
		return nil, i, false
	}
	key = data[i+1 : end-1]
	i = jsonscan.SkipSpace(data, end)
	if i >= len(data) || data[i] != ':' {
		return nil, i, false
	}
	return key, jsonscan.SkipSpace(data, i+1), true
}

// openContainer checks that data[i] opens an object or array (open) and
// returns the index of its first member, or done with the index after it
// when it is empty.
func openContainer(data []byte, i int, open, closing byte) (next int, empty, ok bool) {
	if i >= len(data) || data[i] != open {
		return i, false, false
	}
	i = jsonscan.SkipSpace(data, i+1)
	if i < len(data) && data[i] == closing {
		return i + 1, true, true
	}
	return i, false, true
}

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
		return decodeStringFn
	case reflect.Bool:
		return decodeBoolFn
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeIntFn
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return decodeUintFn
	case reflect.Float32, reflect.Float64:
		return decodeFloatFn
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
		return func(v reflect.Value, data []byte, i int) (int, bool) { return decodeSlice(v, data, i, elem) }
	case reflect.Map:
		if t.Key().Kind() != reflect.String || hasUnmarshaler(t.Key()) {
			return nil
		}
		elem := compileDecoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, data []byte, i int) (int, bool) { return decodeMap(v, data, i, elem) }
	case reflect.Pointer:
		elem := compileDecoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, data []byte, i int) (int, bool) {
			if isNull(data, i) {
				v.SetZero()
				return skipNull(data, i)
			}
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			return elem(v.Elem(), data, i)
		}
	}
	return nil
}

// jsonField reads how encoding/json names struct field f, and the options
// of its json tag: skip for a field encoding/json leaves out (unexported,
// or tagged "-"); not ok for one the hand-written codecs leave to
// encoding/json (an embedded field, whose fields are promoted, or a name
// that is not plain).
func jsonField(f reflect.StructField) (name, opts string, skip, ok bool) {
	switch {
	case f.Anonymous:
		return "", "", false, false
	case !f.IsExported():
		return "", "", true, true
	}
	name = f.Name
	if tag, tagged := f.Tag.Lookup("json"); tagged {
		if tag == "-" {
			return "", "", true, true
		}
		n, o, _ := strings.Cut(tag, ",")
		if n != "" {
			if !plainName(n) {
				return "", "", false, false
			}
			name = n
		}
		opts = o
	}
	return name, opts, false, true
}

// compileStructDecoder returns the decoder of t's exported fields, or nil
// for an embedded field, a ",string" option, a name that is not plain or
// two names equal but for case.
func compileStructDecoder(t reflect.Type, inProgress map[reflect.Type]bool) *structDecoder {
	d := &structDecoder{ascii: true}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, skip, ok := jsonField(f)
		if !ok {
			return nil
		} else if skip {
			continue
		}
		for o := range strings.SplitSeq(opts, ",") {
			if o == "string" {
				return nil
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
	i := jsonscan.SkipSpace(data, 0)
	if jsonscan.KindOf(data[i:]) != jsonscan.Object {
		return false
	}
	end, ok := d.root(reflect.ValueOf(dst).Elem(), data, i)
	return ok && jsonscan.SkipSpace(data, end) == len(data)
}

// decode decodes an object into the struct v. A key naming no field is
// skipped, as encoding/json skips it, when it is plain ASCII and matches
// no name case-insensitively either (encoding/json would use such a
// field); other keys are declined.
func (d *structDecoder) decode(v reflect.Value, data []byte, i int) (int, bool) {
	if isNull(data, i) {
		return skipNull(data, i) // null leaves a struct as it is
	}
	i, empty, ok := openContainer(data, i, '{', '}')
	if empty || !ok {
		return i, ok
	}
	var seen uint64
	for more := true; more; {
		var key []byte
		if key, i, ok = memberKey(data, i); !ok {
			return i, false
		}
		if f := d.field(key); f < 0 {
			if !d.ascii || !d.unknown(key) {
				return i, false
			}
			var err error
			if i, _, err = jsonscan.Skip(data, i); err != nil {
				return i, false
			}
		} else {
			fd := &d.fields[f]
			if fd.merges {
				if seen&(1<<f) != 0 {
					return i, false
				}
				seen |= 1 << f
			}
			if i, ok = fd.dec(v.Field(fd.index), data, i); !ok {
				return i, false
			}
		}
		if i, more, ok = nextMember(data, i, '}'); !ok {
			return i, false
		}
	}
	return i, true
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
func decodeSlice(v reflect.Value, data []byte, i int, elem decodeFn) (int, bool) {
	if isNull(data, i) {
		v.SetZero()
		return skipNull(data, i)
	}
	i, empty, ok := openContainer(data, i, '[', ']')
	if !ok {
		return i, false
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	for n, more := 0, !empty; more; n++ {
		if n == v.Cap() {
			v.Grow(1)
		}
		v.SetLen(n + 1)
		if i, ok = elem(v.Index(n), data, i); !ok {
			return i, false
		}
		if i, more, ok = nextMember(data, i, ']'); !ok {
			return i, false
		}
	}
	return i, true
}

// decodeMap decodes an object into the map v (made if nil); a key is
// declined when it holds an escape or bytes that are not UTF-8, which
// encoding/json would unquote.
func decodeMap(v reflect.Value, data []byte, i int, elem decodeFn) (int, bool) {
	if isNull(data, i) {
		v.SetZero()
		return skipNull(data, i)
	}
	i, empty, ok := openContainer(data, i, '{', '}')
	if !ok {
		return i, false
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	if empty {
		return i, true
	}
	plain, isPlain := reflect.TypeAssert[map[string]string](v)
	var e, k reflect.Value
	if !isPlain {
		e = reflect.New(v.Type().Elem()).Elem()
		k = reflect.New(v.Type().Key()).Elem()
	}
	for more := true; more; {
		var key []byte
		if key, i, ok = memberKey(data, i); !ok || bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return i, false
		}
		if isPlain {
			// The usual map of a tool's arguments, without reflection.
			end, kind, err := jsonscan.Skip(data, i)
			if err != nil {
				return i, false
			}
			switch kind {
			case jsonscan.String:
				s, ok := jsonscan.StringValue(data[i:end])
				if !ok {
					return i, false
				}
				plain[string(key)] = s
			case jsonscan.Null:
				plain[string(key)] = "" // a fresh element, left as it is by null
			default:
				return i, false
			}
			i = end
		} else {
			e.SetZero()
			if i, ok = elem(e, data, i); !ok {
				return i, false
			}
			k.SetString(string(key))
			v.SetMapIndex(k, e)
		}
		if i, more, ok = nextMember(data, i, '}'); !ok {
			return i, false
		}
	}
	return i, true
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
