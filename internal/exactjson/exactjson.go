// Package exactjson decodes JSON into Go values as encoding/json does, but
// reads member names exactly: the reference decoder of mcpkit's wire, and
// what its fast decoders are fuzzed against.
//
// Unmarshal refuses a member whose name folds to a field's name without
// being it and a name repeated in any object (docs/security.md, go-sdk's
// CVE-2026-27896), and checks that each value fits its Go type, so that
// every error text is mcpkit's own, before encoding/json fills in v.
package exactjson

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// Error is a refusal of Unmarshal: the JSON Pointer (RFC 6901) of the
// value at fault, relative to the decoded document ("" for the document
// itself), and what is wrong with it.
type Error struct {
	Pointer string
	Problem string
}

func (e *Error) Error() string {
	if e.Pointer == "" {
		return e.Problem
	}
	return e.Problem + " at " + e.Pointer
}

// Unmarshal decodes the JSON value data into v, a non-nil pointer, as
// encoding/json.Unmarshal does, after checking that:
//   - data is one valid JSON value ("invalid JSON" otherwise);
//   - no object in it repeats a member name (`duplicate member "x"`);
//   - no member of an object decoded into a struct has a name that differs
//     from a field's JSON name only by case or Unicode folding
//     (`unknown member "Name" (member names are case-sensitive; the field
//     is "name")`); other unknown members are ignored, as encoding/json
//     ignores them;
//   - each value has a JSON type that fits the Go type it goes into
//     (`want a string, got a number`), numbers in range.
//
// Values decoded by a json.Unmarshaler are checked only for repeated names;
// an error they return is returned as it is.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("exactjson: Unmarshal needs a non-nil pointer, not " + typeName(reflect.TypeOf(v)))
	}
	if err := Check(data, rv.Type().Elem()); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var own *Error
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &own):
			return own
		case errors.As(err, &typeErr), errors.As(err, &syntaxErr):
			return &Error{Problem: "cannot decode into " + typeName(rv.Type().Elem())}
		}
		return err
	}
	return nil
}

// Check is Unmarshal without the decoding: the error Unmarshal would
// return for data and a value of type t, or nil.
func Check(data []byte, t reflect.Type) error {
	i := jsonscan.SkipSpace(data, 0)
	end, _, err := jsonscan.SkipUniqueAt(data, i, 0)
	if err == nil && jsonscan.SkipSpace(data, end) != len(data) {
		err = jsonscan.ErrSyntax
	}
	var dup *jsonscan.DuplicateError
	switch {
	case errors.As(err, &dup):
		return &Error{Pointer: jsonscan.PointerTo(data, i, dup.Offset), Problem: dup.Error()}
	case err != nil:
		return &Error{Problem: "invalid JSON"}
	}
	var c checker
	if e := c.check(t, data[i:end]); e != nil {
		return e
	}
	return nil
}

// checker walks a valid, repeat-free value beside a Go type; path is the
// JSON Pointer tokens of the value being checked.
type checker struct {
	path []string
}

func (c *checker) fail(problem string) *Error {
	var b strings.Builder
	for _, tok := range c.path {
		b.WriteByte('/')
		b.WriteString(jsonscan.PointerToken(tok))
	}
	return &Error{Pointer: b.String(), Problem: problem}
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// decodes reports whether t (or *t) decodes itself from JSON.
func decodes(t reflect.Type, iface reflect.Type) bool {
	return t.Implements(iface) || t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface)
}

// kindNames are the JSON types as the error texts name them.
var kindNames = [...]string{
	jsonscan.Null:   "null",
	jsonscan.Bool:   "a boolean",
	jsonscan.Number: "a number",
	jsonscan.String: "a string",
	jsonscan.Object: "an object",
	jsonscan.Array:  "an array",
}

func (c *checker) want(what string, kind jsonscan.Kind) *Error {
	return c.fail("want " + what + ", got " + kindNames[kind])
}

// check checks the valid value raw against t.
func (c *checker) check(t reflect.Type, raw []byte) *Error {
	kind := jsonscan.KindOf(raw)
	if kind == jsonscan.Null {
		return nil // encoding/json leaves the Go value as it is
	}
	for t.Kind() == reflect.Pointer {
		if decodes(t, unmarshalerType) {
			return nil
		}
		t = t.Elem()
	}
	if decodes(t, unmarshalerType) {
		return nil
	}
	if decodes(t, textUnmarshalerType) && kind == jsonscan.String {
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return nil
		}
		return c.want("null", kind)
	case reflect.Struct:
		if kind != jsonscan.Object {
			return c.want("an object", kind)
		}
		return c.object(fieldsOf(t), raw)
	case reflect.Map:
		if kind != jsonscan.Object {
			return c.want("an object", kind)
		}
		return c.mapMembers(t, raw)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !decodes(t.Elem(), unmarshalerType) && !decodes(t.Elem(), textUnmarshalerType) && kind == jsonscan.String {
			s, _ := jsonscan.StringValue(raw)
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				return c.fail("want base64 (RFC 4648 §4) in a string")
			}
			return nil
		}
		if kind != jsonscan.Array {
			return c.want("an array", kind)
		}
		return c.elements(t.Elem(), raw, -1)
	case reflect.Array:
		if kind != jsonscan.Array {
			return c.want("an array", kind)
		}
		return c.elements(t.Elem(), raw, t.Len())
	case reflect.Bool:
		if kind != jsonscan.Bool {
			return c.want("a boolean", kind)
		}
	case reflect.String:
		if t == numberType {
			return c.number(raw, kind)
		}
		if kind != jsonscan.String {
			return c.want("a string", kind)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if kind != jsonscan.Number {
			return c.want("an integer", kind)
		}
		if _, err := strconv.ParseInt(string(raw), 10, t.Bits()); err != nil {
			return c.fail("want an integer of " + strconv.Itoa(t.Bits()) + " bits, got " + clip(raw))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if kind != jsonscan.Number {
			return c.want("an integer", kind)
		}
		if _, err := strconv.ParseUint(string(raw), 10, t.Bits()); err != nil {
			return c.fail("want an unsigned integer of " + strconv.Itoa(t.Bits()) + " bits, got " + clip(raw))
		}
	case reflect.Float32, reflect.Float64:
		if kind != jsonscan.Number {
			return c.want("a number", kind)
		}
		if _, err := strconv.ParseFloat(string(raw), t.Bits()); err != nil {
			return c.fail("number " + clip(raw) + " is out of range")
		}
	default:
		return c.fail("cannot decode into " + typeName(t))
	}
	return nil
}

// number checks a json.Number: a number, or a string holding one.
func (c *checker) number(raw []byte, kind jsonscan.Kind) *Error {
	switch kind {
	case jsonscan.Number:
		return nil
	case jsonscan.String:
		s, _ := jsonscan.StringValue(raw)
		if end, k, err := jsonscan.Skip([]byte(s), 0); err == nil && k == jsonscan.Number && end == len(s) {
			return nil
		}
	}
	return c.want("a number", kind)
}

// clip quotes a number for an error text, at most 32 bytes of it.
func clip(raw []byte) string {
	if len(raw) > 32 {
		return string(raw[:32]) + "..."
	}
	return string(raw)
}

func (c *checker) object(fs *fields, raw []byte) *Error {
	var err *Error
	jsonscan.Members(raw, func(key, value []byte) bool {
		name := memberName(key)
		if f, ok := fs.exact[name]; ok {
			c.path = append(c.path, name)
			if !f.quoted {
				err = c.check(f.typ, value)
			} else if k := jsonscan.KindOf(value); k != jsonscan.String && k != jsonscan.Null {
				err = c.want("a string", k)
			}
			c.path = c.path[:len(c.path)-1]
			return err == nil
		}
		if field, ok := fs.folded(name); ok {
			err = c.fail("unknown member " + strconv.Quote(name) + " (member names are case-sensitive; the field is " + strconv.Quote(field) + ")")
			return false
		}
		return true
	})
	return err
}

func (c *checker) mapMembers(t reflect.Type, raw []byte) *Error {
	key := t.Key()
	var err *Error
	jsonscan.Members(raw, func(k, value []byte) bool {
		name := memberName(k)
		c.path = append(c.path, name)
		defer func() { c.path = c.path[:len(c.path)-1] }()
		switch {
		case key.Kind() == reflect.String && !decodes(key, textUnmarshalerType):
		case decodes(key, textUnmarshalerType):
		case key.Kind() >= reflect.Int && key.Kind() <= reflect.Int64:
			if _, e := strconv.ParseInt(name, 10, key.Bits()); e != nil {
				err = c.fail("member name " + strconv.Quote(name) + " is not an integer of " + strconv.Itoa(key.Bits()) + " bits")
				return false
			}
		case key.Kind() >= reflect.Uint && key.Kind() <= reflect.Uintptr:
			if _, e := strconv.ParseUint(name, 10, key.Bits()); e != nil {
				err = c.fail("member name " + strconv.Quote(name) + " is not an unsigned integer of " + strconv.Itoa(key.Bits()) + " bits")
				return false
			}
		default:
			err = c.fail("cannot decode into " + typeName(t))
			return false
		}
		err = c.check(t.Elem(), value)
		return err == nil
	})
	return err
}

// elements checks an array's elements against elem, the first n of them
// when n >= 0 (encoding/json drops the rest of an array too long for a Go
// array).
func (c *checker) elements(elem reflect.Type, raw []byte, n int) *Error {
	var err *Error
	i := 0
	jsonscan.Elements(raw, func(value []byte) bool {
		if n >= 0 && i >= n {
			return false
		}
		c.path = append(c.path, strconv.Itoa(i))
		err = c.check(elem, value)
		c.path = c.path[:len(c.path)-1]
		i++
		return err == nil
	})
	return err
}

// memberName decodes a raw member name.
func memberName(key []byte) string {
	s, _ := jsonscan.StringValue(append(append([]byte{'"'}, key...), '"'))
	return s
}

// typeName names a Go type for an error text.
func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	return t.String()
}

// field is a struct field as encoding/json decodes it.
type field struct {
	typ    reflect.Type
	quoted bool // the ",string" option
}

// fields are the members a struct type takes: by exact name, and by the
// folded form of their names, in which encoding/json matches them
// (bytes.EqualFold's Unicode simple folding).
type fields struct {
	exact  map[string]field
	simple map[string]string
}

// folded returns the field name that name folds to, if any.
func (fs *fields) folded(name string) (string, bool) {
	f, ok := fs.simple[foldSimple(name)]
	return f, ok
}

var fieldCache sync.Map // reflect.Type -> *fields

func fieldsOf(t reflect.Type) *fields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fields)
	}
	fs := &fields{exact: map[string]field{}, simple: map[string]string{}}
	type candidate struct {
		field
		depth  int
		tagged bool
		count  int
	}
	best := map[string]*candidate{}
	var walk func(t reflect.Type, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, depth+1, seen)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = sf.Name
			}
			quoted := false
			for opt := range strings.SplitSeq(opts, ",") {
				if opt == "string" {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
			}
			c := best[name]
			switch {
			case c == nil || depth < c.depth || depth == c.depth && tagged && !c.tagged:
				best[name] = &candidate{field: field{typ: ft, quoted: quoted}, depth: depth, tagged: tagged, count: 1}
			case depth == c.depth && tagged == c.tagged:
				c.count++ // ambiguous: encoding/json takes neither
			}
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	for name, c := range best {
		if c.count > 1 {
			continue
		}
		fs.exact[name] = c.field
		fs.simple[foldSimple(name)] = name
	}
	actual, _ := fieldCache.LoadOrStore(t, fs)
	return actual.(*fields)
}

// foldSimple folds a name by Unicode simple case folding, as
// strings.EqualFold compares: each rune to the least of its folding orbit.
func foldSimple(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}
