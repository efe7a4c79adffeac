package mcp

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// outEncoder encodes a typed tool's output
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#structured-content)
// from an encoder compiled once per type, byte for byte as json.Marshal
// does. It is nil for a type it does not write exactly as encoding/json,
// and encode declines a value json.Marshal refuses; the caller then uses
// encoding/json.
type outEncoder struct {
	fn   encodeFn
	size atomic.Int64 // the last output's length; the next gets an eighth more
}

// encodeFn appends v's JSON to b, or reports false.
type encodeFn func(b []byte, v reflect.Value) ([]byte, bool)

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
)

// newOutEncoder returns an encoder for t, or nil when t holds anything it
// does not write exactly as encoding/json.
func newOutEncoder(t reflect.Type) *outEncoder {
	fn := compileEncoder(t, map[reflect.Type]bool{})
	if fn == nil {
		return nil
	}
	return &outEncoder{fn: fn}
}

// encode returns out's JSON as json.Marshal would write it, or false: then
// the caller calls json.Marshal.
func (e *outEncoder) encode(out any) ([]byte, bool) {
	last := e.size.Load()
	b, ok := e.fn(make([]byte, 0, max(last+last/8, 64)), reflect.ValueOf(out))
	if !ok {
		return nil, false
	}
	e.size.Store(int64(len(b)))
	return b, true
}

func hasMarshaler(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || p.Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || p.Implements(textMarshalerType)
}

// compileEncoder returns the encodeFn of t, or nil. inProgress holds the
// struct types being compiled: a recursive type is declined.
func compileEncoder(t reflect.Type, inProgress map[reflect.Type]bool) encodeFn {
	if hasMarshaler(t) || t == jsonNumberType {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return jsonenc.AppendString(b, v.String()), true
		}
	case reflect.Bool:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return strconv.AppendBool(b, v.Bool()), true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return strconv.AppendInt(b, v.Int(), 10), true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return strconv.AppendUint(b, v.Uint(), 10), true
		}
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return appendFloat(b, v.Float(), bits)
		}
	case reflect.Struct:
		if inProgress[t] {
			return nil
		}
		inProgress[t] = true
		defer delete(inProgress, t)
		return compileStructEncoder(t, inProgress)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64
		}
		elem := compileEncoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			if v.IsNil() {
				return append(b, "null"...), true
			}
			b = append(b, '[')
			for i := range v.Len() {
				if i > 0 {
					b = append(b, ',')
				}
				var ok bool
				if b, ok = elem(b, v.Index(i)); !ok {
					return b, false
				}
			}
			return append(b, ']'), true
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || hasMarshaler(t.Key()) {
			return nil
		}
		elem := compileEncoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return appendMap(b, v, elem)
		}
	case reflect.Pointer:
		elem := compileEncoder(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			if v.IsNil() {
				return append(b, "null"...), true
			}
			return elem(b, v.Elem())
		}
	}
	return nil
}

// encField is one member of a struct's JSON.
type encField struct {
	key       []byte // `"name":`
	index     int
	omitEmpty bool
	fn        encodeFn
}

// compileStructEncoder encodes the exported fields of t in their order, as
// encoding/json does when no field is embedded and no two share a name.
func compileStructEncoder(t reflect.Type, inProgress map[reflect.Type]bool) encodeFn {
	var fields []encField
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, skip, ok := jsonField(f)
		if !ok {
			return nil
		} else if skip {
			continue
		}
		omitEmpty := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				omitEmpty = true
			case "string", "omitzero":
				return nil
			}
		}
		if seen[name] {
			return nil
		}
		seen[name] = true
		fn := compileEncoder(f.Type, inProgress)
		if fn == nil {
			return nil
		}
		key := append(jsonenc.AppendString(nil, name), ':')
		fields = append(fields, encField{key: key, index: i, omitEmpty: omitEmpty, fn: fn})
	}
	return func(b []byte, v reflect.Value) ([]byte, bool) {
		b = append(b, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && isEmptyValue(fv) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, f.key...)
			var ok bool
			if b, ok = f.fn(b, fv); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
}

// isEmptyValue is omitempty's test, as encoding/json applies it.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}

// appendMap writes a map with string keys, its members sorted by key. A
// map[string]string, the usual map of a tool's output, is read without
// reflection.
func appendMap(b []byte, v reflect.Value, elem encodeFn) ([]byte, bool) {
	if v.IsNil() {
		return append(b, "null"...), true
	}
	if m, ok := reflect.TypeAssert[map[string]string](v); ok {
		var small [8]string // the usual small map's keys, on the stack
		keys := small[:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonenc.AppendString(b, k), ':')
			b = jsonenc.AppendString(b, m[k])
		}
		return append(b, '}'), true
	}
	// The members are copied out once (SetIterKey and SetIterValue, which
	// do not allocate per member as MapIter.Key and Value do) and
	// written in the order of their keys.
	n := v.Len()
	keys := make([]string, n)
	vals := reflect.MakeSlice(reflect.SliceOf(v.Type().Elem()), n, n)
	order := make([]int, n)
	k := reflect.New(v.Type().Key()).Elem()
	i := 0
	for it := v.MapRange(); it.Next() && i < n; i++ {
		k.SetIterKey(it)
		keys[i] = k.String()
		vals.Index(i).SetIterValue(it)
		order[i] = i
	}
	order = order[:i]
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(keys[x], keys[y]) })
	b = append(b, '{')
	for j, o := range order {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(jsonenc.AppendString(b, keys[o]), ':')
		var ok bool
		if b, ok = elem(b, vals.Index(o)); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendFloat writes f as encoding/json does (the shortest representation
// that reads back as f, in exponent form below 1e-6 and from 1e21, with
// no zero padding of the exponent), and reports false for NaN and the
// infinities, which it refuses.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-07 becomes e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
