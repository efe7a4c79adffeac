// Package schemacheck validates JSON text against the simple JSON Schemas
// that tool arguments almost always have (objects of typed properties,
// required members, enums, bounds) without decoding the text into Go values
// first. It is the fast path in front of github.com/google/jsonschema-go:
// Compile refuses any schema that uses a keyword it does not implement, and
// the caller then validates with jsonschema-go as usual, so behaviour never
// depends on which path ran.
package schemacheck

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// Checker validates JSON values against one compiled schema. It is
// immutable and safe for concurrent use.
type Checker struct {
	root *node
}

type node struct {
	types      uint8 // bit per jsonscan.Kind; 0 = any; integer is its own bit
	props      map[string]*node
	required   []string
	reqIndex   map[string]int
	additional *node // nil = allowed, falseNode = forbidden
	forbidden  bool  // the false schema
	items      *node
	enum       []enumValue
	min, max   *float64
	exMin      *float64
	exMax      *float64
	minLen     *int
	maxLen     *int
	minItems   *int
	maxItems   *int
}

type enumValue struct {
	kind jsonscan.Kind
	str  string
	num  float64
	b    bool
}

const integerBit = 1 << 7

// Compile returns a Checker for s, or ok == false when s uses anything the
// fast path does not implement ($ref, combinators, patterns, formats that
// assert, and so on).
func Compile(s *jsonschema.Schema) (c *Checker, ok bool) {
	n, ok := compile(s)
	if !ok {
		return nil, false
	}
	return &Checker{root: n}, true
}

func isFalseSchema(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.DeepEqual(*s.Not, jsonschema.Schema{}) && reflect.DeepEqual(*s, jsonschema.Schema{Not: s.Not})
}

func compile(s *jsonschema.Schema) (*node, bool) {
	if s == nil {
		return &node{}, true
	}
	if isFalseSchema(s) {
		return &node{forbidden: true}, true
	}
	// Everything the fast path understands is cleared from a copy; if
	// anything remains, the schema is not for the fast path.
	rest := *s
	rest.Schema, rest.ID, rest.Comment = "", "", ""
	rest.Title, rest.Description, rest.Default, rest.Examples = "", "", nil, nil
	rest.Deprecated, rest.ReadOnly, rest.WriteOnly = false, false, false
	rest.Type, rest.Types, rest.Enum = "", nil, nil
	rest.Minimum, rest.Maximum, rest.ExclusiveMinimum, rest.ExclusiveMaximum = nil, nil, nil, nil
	rest.MinLength, rest.MaxLength, rest.MinItems, rest.MaxItems = nil, nil, nil, nil
	rest.Properties, rest.Required, rest.AdditionalProperties, rest.Items = nil, nil, nil, nil
	rest.PropertyOrder = nil
	if !reflect.DeepEqual(rest, jsonschema.Schema{}) {
		return nil, false
	}
	n := &node{
		min: s.Minimum, max: s.Maximum, exMin: s.ExclusiveMinimum, exMax: s.ExclusiveMaximum,
		minLen: s.MinLength, maxLen: s.MaxLength, minItems: s.MinItems, maxItems: s.MaxItems,
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		switch t {
		case "null":
			n.types |= 1 << jsonscan.Null
		case "boolean":
			n.types |= 1 << jsonscan.Bool
		case "number":
			n.types |= 1 << jsonscan.Number
		case "integer":
			n.types |= integerBit
		case "string":
			n.types |= 1 << jsonscan.String
		case "object":
			n.types |= 1 << jsonscan.Object
		case "array":
			n.types |= 1 << jsonscan.Array
		default:
			return nil, false
		}
	}
	for _, e := range s.Enum {
		switch v := e.(type) {
		case nil:
			n.enum = append(n.enum, enumValue{kind: jsonscan.Null})
		case bool:
			n.enum = append(n.enum, enumValue{kind: jsonscan.Bool, b: v})
		case float64:
			n.enum = append(n.enum, enumValue{kind: jsonscan.Number, num: v})
		case string:
			n.enum = append(n.enum, enumValue{kind: jsonscan.String, str: v})
		default:
			return nil, false
		}
	}
	if s.Enum != nil && len(s.Enum) == 0 {
		return nil, false
	}
	if len(s.Properties) > 0 {
		n.props = make(map[string]*node, len(s.Properties))
		for name, ps := range s.Properties {
			pn, ok := compile(ps)
			if !ok {
				return nil, false
			}
			n.props[name] = pn
		}
	}
	if len(s.Required) > 64 {
		return nil, false
	}
	n.required = slices.Clone(s.Required)
	if len(n.required) > 0 {
		n.reqIndex = make(map[string]int, len(n.required))
		for i, r := range n.required {
			n.reqIndex[r] = i
		}
	}
	if s.AdditionalProperties != nil {
		an, ok := compile(s.AdditionalProperties)
		if !ok {
			return nil, false
		}
		n.additional = an
	}
	if s.Items != nil {
		in, ok := compile(s.Items)
		if !ok {
			return nil, false
		}
		n.items = in
	}
	return n, true
}

// Check validates the JSON value v (which must be valid JSON, as from
// jsonscan.Skip) and returns an error naming the first problem and where it
// is, as a JSON Pointer.
func (c *Checker) Check(v []byte) error {
	if err := c.root.check(v); err != nil {
		return err
	}
	return nil
}

// CheckValid is jsonscan.Valid(v) and then Check(v), reading an object
// (what tool arguments are) once: the members are checked as the object is
// validated. valid is false, with a nil error, when v is not exactly one
// JSON value; a schema failure is reported only for valid JSON, as with
// Valid then Check.
func (c *Checker) CheckValid(v []byte) (valid bool, err error) {
	n := c.root
	i := jsonscan.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '{' || n.forbidden || n.enum != nil || (n.types != 0 && n.types&(1<<jsonscan.Object) == 0) {
		if !jsonscan.Valid(v) {
			return false, nil
		}
		return true, c.Check(bytes.TrimSpace(v)) // Check wants the value alone
	}
	end, first, ok := n.walkObject(v, i, 0)
	if !ok || jsonscan.SkipSpace(v, end) != len(v) {
		return false, nil
	}
	if first != nil {
		return true, first
	}
	return true, nil
}

// walk checks the value at v[i] (no leading space), nested depth levels
// deep, against n as it validates it, and returns the index after it:
// the document is read once, where Members and Elements at each level
// skip a value before check reads it again. err is the first schema
// failure, in the order check finds them; ok is false for malformed JSON
// (or nesting deeper than jsonscan.MaxDepth), which outranks any failure.
// The rest of a container after a failure is only validated.
func (n *node) walk(v []byte, i, depth int) (end int, err *Error, ok bool) {
	if i < len(v) && !n.forbidden && n.enum == nil {
		switch {
		case v[i] == '{' && n.allows(jsonscan.Object):
			return n.walkObject(v, i, depth)
		case v[i] == '[' && n.allows(jsonscan.Array):
			return n.walkArray(v, i, depth)
		}
	}
	// A scalar, or a container that fails before its members are read
	// (the false schema, its type) or is compared whole (enum).
	end, _, serr := jsonscan.SkipAt(v, i, depth)
	if serr != nil {
		return end, nil, false
	}
	return end, n.check(v[i:end]), true
}

func (n *node) allows(k jsonscan.Kind) bool { return n.types == 0 || n.types&(1<<k) != 0 }

// skipValid skips the value at v[i], validating it.
func skipValid(v []byte, i, depth int) (int, bool) {
	end, _, err := jsonscan.SkipAt(v, i, depth)
	return end, err == nil
}

// walkObject is walk for an object (v[i] == '{'): checkObject in one pass.
func (n *node) walkObject(v []byte, i, depth int) (end int, err *Error, ok bool) {
	var seen uint64
	var first *Error
	end, serr := jsonscan.WalkObjectAt(v, i, depth, func(rawKey []byte, i int) (int, error) {
		var ok bool
		if first == nil {
			i, first, ok = n.walkRawMember(rawKey, v, i, depth+1, &seen)
		} else {
			i, ok = skipValid(v, i, depth+1)
		}
		if !ok {
			return i, jsonscan.ErrSyntax
		}
		return i, nil
	})
	if serr != nil {
		return end, nil, false
	}
	if first == nil {
		first = n.checkRequired(seen)
	}
	return end, first, true
}

// walkRawMember is checkRawMember, reading the member's value at v[i].
func (n *node) walkRawMember(rawKey, v []byte, i, depth int, seen *uint64) (end int, err *Error, ok bool) {
	key := rawKey
	if bytes.IndexByte(rawKey, '\\') >= 0 {
		k, _ := jsonscan.StringValue(append(append([]byte{'"'}, rawKey...), '"'))
		key = []byte(k)
	}
	if i, ok := n.reqIndex[string(key)]; ok {
		*seen |= 1 << i
	}
	sub := n.additional
	if pn, ok := n.props[string(key)]; ok {
		sub = pn
	} else if sub == nil {
		end, ok = skipValid(v, i, depth)
		return end, nil, ok
	} else if sub.forbidden {
		end, ok = skipValid(v, i, depth)
		return end, fail("unexpected property %q", key), ok
	}
	end, err, ok = sub.walk(v, i, depth)
	if err != nil {
		err = within(err, string(key))
	}
	return end, err, ok
}

// walkArray is walk for an array (v[i] == '['): checkArray in one pass.
func (n *node) walkArray(v []byte, i, depth int) (end int, err *Error, ok bool) {
	if depth >= jsonscan.MaxDepth {
		return i, nil, false
	}
	count := 0
	var first *Error
	i = jsonscan.SkipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		i++
	} else {
		for {
			if first == nil && n.items != nil {
				var e *Error
				if i, e, ok = n.items.walk(v, i, depth+1); e != nil {
					first = within(e, strconv.Itoa(count))
				}
			} else {
				i, ok = skipValid(v, i, depth+1)
			}
			if !ok {
				return i, nil, false
			}
			count++
			i = jsonscan.SkipSpace(v, i)
			if i >= len(v) {
				return i, nil, false
			}
			if v[i] == ']' {
				i++
				break
			}
			if v[i] != ',' {
				return i, nil, false
			}
			i = jsonscan.SkipSpace(v, i+1)
		}
	}
	if first == nil && n.minItems != nil && count < *n.minItems {
		first = fail("fewer than %d items", *n.minItems)
	}
	if first == nil && n.maxItems != nil && count > *n.maxItems {
		first = fail("more than %d items", *n.maxItems)
	}
	return i, first, true
}

// Error is a validation failure: what is wrong, and where.
type Error struct {
	// Path is the JSON Pointer of the offending value, "" for the root.
	Path string
	// Problem says what is wrong with it.
	Problem string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return "arguments: " + e.Problem
	}
	return "arguments" + e.Path + ": " + e.Problem
}

func fail(format string, args ...any) *Error {
	return &Error{Problem: fmt.Sprintf(format, args...)}
}

// within prefixes the location of a failure inside a member or element.
func within(err *Error, segment string) *Error {
	err.Path = "/" + jsonscan.PointerToken(segment) + err.Path
	return err
}

func (n *node) check(v []byte) *Error {
	if n.forbidden {
		return fail("not allowed")
	}
	kind := jsonscan.KindOf(v)
	if n.types != 0 {
		ok := n.types&(1<<kind) != 0
		if !ok && kind == jsonscan.Number && n.types&integerBit != 0 {
			ok = isInteger(v)
		}
		if !ok {
			return fail("type: got %s, want %s", describe(v, kind), n.typeNames())
		}
	}
	if n.enum != nil && !n.inEnum(v, kind) {
		return fail("%s is not one of the allowed values", v)
	}
	switch kind {
	case jsonscan.Number:
		return n.checkNumber(v)
	case jsonscan.String:
		if n.minLen != nil || n.maxLen != nil {
			l := jsonscan.StringLen(v)
			if n.minLen != nil && l < *n.minLen {
				return fail("string shorter than %d characters", *n.minLen)
			}
			if n.maxLen != nil && l > *n.maxLen {
				return fail("string longer than %d characters", *n.maxLen)
			}
		}
	case jsonscan.Object:
		return n.checkObject(v)
	case jsonscan.Array:
		return n.checkArray(v)
	}
	return nil
}

func (n *node) checkObject(v []byte) *Error {
	var seen uint64
	var err *Error
	jsonscan.Members(v, func(rawKey, val []byte) bool {
		err = n.checkRawMember(rawKey, val, &seen)
		return err == nil
	})
	if err != nil {
		return err
	}
	return n.checkRequired(seen)
}

// checkRawMember is checkMember for a key as it is in the JSON text,
// possibly holding escapes.
func (n *node) checkRawMember(rawKey, val []byte, seen *uint64) *Error {
	key := rawKey
	if bytes.IndexByte(rawKey, '\\') >= 0 {
		k, _ := jsonscan.StringValue(append(append([]byte{'"'}, rawKey...), '"'))
		key = []byte(k)
	}
	return n.checkMember(key, val, seen)
}

// checkRequired reports the first required property not in seen.
func (n *node) checkRequired(seen uint64) *Error {
	for i, r := range n.required {
		if seen&(1<<i) == 0 {
			return fail("missing required property %q", r)
		}
	}
	return nil
}

// checkMember checks one member. Map lookups with string(key) do not
// allocate; the key becomes a string only to report a failure.
func (n *node) checkMember(key, val []byte, seen *uint64) *Error {
	if i, ok := n.reqIndex[string(key)]; ok {
		*seen |= 1 << i
	}
	if pn, ok := n.props[string(key)]; ok {
		if err := pn.check(val); err != nil {
			return within(err, string(key))
		}
		return nil
	}
	if n.additional == nil {
		return nil
	}
	if n.additional.forbidden {
		return fail("unexpected property %q", key)
	}
	if err := n.additional.check(val); err != nil {
		return within(err, string(key))
	}
	return nil
}

func (n *node) checkArray(v []byte) *Error {
	count := 0
	var err *Error
	jsonscan.Elements(v, func(el []byte) bool {
		if n.items != nil {
			if err = n.items.check(el); err != nil {
				err = within(err, strconv.Itoa(count))
			}
		}
		count++
		return err == nil
	})
	if err != nil {
		return err
	}
	if n.minItems != nil && count < *n.minItems {
		return fail("fewer than %d items", *n.minItems)
	}
	if n.maxItems != nil && count > *n.maxItems {
		return fail("more than %d items", *n.maxItems)
	}
	return nil
}

func (n *node) checkNumber(v []byte) *Error {
	if n.min == nil && n.max == nil && n.exMin == nil && n.exMax == nil {
		return nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return fail("number out of range")
	}
	switch {
	case n.min != nil && f < *n.min:
		return fail("%s is less than the minimum %v", v, *n.min)
	case n.max != nil && f > *n.max:
		return fail("%s is greater than the maximum %v", v, *n.max)
	case n.exMin != nil && f <= *n.exMin:
		return fail("%s is not greater than %v", v, *n.exMin)
	case n.exMax != nil && f >= *n.exMax:
		return fail("%s is not less than %v", v, *n.exMax)
	}
	return nil
}

func (n *node) inEnum(v []byte, kind jsonscan.Kind) bool {
	for _, e := range n.enum {
		if e.kind != kind {
			continue
		}
		switch kind {
		case jsonscan.Null:
			return true
		case jsonscan.Bool:
			if (v[0] == 't') == e.b {
				return true
			}
		case jsonscan.String:
			if jsonscan.StringEquals(v, e.str) {
				return true
			}
		case jsonscan.Number:
			if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == e.num {
				return true
			}
		}
	}
	return false
}

// isInteger reports whether a JSON number has no fractional part, as JSON
// Schema defines "integer" (1.0 is an integer).
func isInteger(v []byte) bool {
	if !strings.ContainsAny(string(v), ".eE") {
		return true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

func (n *node) typeNames() string {
	var names []string
	for k := jsonscan.Null; k <= jsonscan.Array; k++ {
		if n.types&(1<<k) != 0 {
			names = append(names, k.String())
		}
	}
	if n.types&integerBit != 0 {
		names = append(names, "integer")
	}
	return strings.Join(names, " or ")
}

func describe(v []byte, k jsonscan.Kind) string {
	if k == jsonscan.Number && isInteger(v) {
		return "integer"
	}
	return k.String()
}
