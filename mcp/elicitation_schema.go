package mcp

// This file holds the requested schema of form-mode elicitation: Go types
// that build it, its validation (the flat shapes the spec allows), and the
// check of the content a user submits against it
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#requested-schema).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// The kinds of ErrInvalidElicitation, each with its text: a requested
// schema outside the flat shapes the spec allows, and form content that
// does not match the requested schema (what the client sent, or on the
// client what its ElicitationHandler returned).
var (
	errInvalidElicitSchema  = &kindError{"mcp: invalid elicitation schema", ErrInvalidElicitation}
	errInvalidElicitContent = &kindError{"mcp: elicitation content does not match the requested schema", ErrInvalidElicitation}
)

// Types of the properties of an ElicitSchema.
const (
	schemaTypeString  = "string"
	schemaTypeNumber  = "number"
	schemaTypeInteger = "integer"
	schemaTypeBoolean = "boolean"
	// schemaTypeArray is for multi-select enums only.
	schemaTypeArray = "array"
)

// Formats a string property may declare.
const (
	formatEmail    = "email"
	formatURI      = "uri"
	formatDate     = "date"
	formatDateTime = "date-time"
)

// ElicitSchema is the requestedSchema of a form-mode elicitation: a flat
// object whose properties are strings, numbers, booleans or enums
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#requested-schema).
// It encodes as {"type":"object","properties":{...},"required":[...]},
// with the properties in the order given, which is the order a client
// shows the fields in.
//
// Elicit calls Validate before sending; a client reads any schema a server
// sends, keeping members it does not know in Unknown.
type ElicitSchema struct {
	// Schema is the optional "$schema" member.
	Schema     string
	Properties []ElicitProperty
	// Required names the properties the user must fill in. If nil, the
	// member is omitted; an empty non-nil list is sent as [].
	Required []string
	// Unknown lists the members of a decoded schema that the spec does not
	// allow, such as a nested "additionalProperties". Validate refuses
	// them.
	Unknown []string
}

// ElicitProperty is one named field of an ElicitSchema.
type ElicitProperty struct {
	Name   string
	Schema *PrimitiveSchema
}

// PrimitiveSchema is the schema of one field of a form
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#primitiveschemadefinition).
// Which members apply depends on Type:
//
//   - "string": Format (email, uri, date, date-time), MinLength, MaxLength
//     and a string Default; or, for a single-select enum, Enum (untitled),
//     OneOf (titled) or Enum with EnumNames (legacy titled), and a Default
//     among the values.
//   - "number" and "integer": Minimum, Maximum and a numeric Default.
//   - "boolean": a bool Default.
//   - "array": a multi-select enum: Items with Enum (untitled, Items.Type
//     "string") or AnyOf (titled), MinItems, MaxItems and a []string
//     Default among the values.
//
// Title and Description apply to all. Validate refuses members that do
// not apply to the type.
type PrimitiveSchema struct {
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`

	Format    string `json:"format,omitempty"`
	MinLength *int   `json:"minLength,omitempty"`
	MaxLength *int   `json:"maxLength,omitempty"`

	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`

	Enum []string `json:"enum,omitempty"`
	// EnumNames are display names for Enum, one each: the legacy way to
	// title a single-select enum. Prefer OneOf.
	EnumNames []string     `json:"enumNames,omitempty"`
	OneOf     []EnumOption `json:"oneOf,omitempty"`

	Items    *EnumItems `json:"items,omitempty"`
	MinItems *int       `json:"minItems,omitempty"`
	MaxItems *int       `json:"maxItems,omitempty"`

	// Default is the value a client may pre-fill: a string, a number, a
	// bool or a []string, as the type requires. Nil omits it.
	Default any `json:"default,omitempty"`

	// Unknown lists the members of a decoded property that the spec does
	// not allow for any field, such as "pattern" or "properties".
	// Validate refuses them.
	Unknown []string `json:"-"`
}

// EnumOption is one value of a titled enum, with the text shown for it.
type EnumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// EnumItems are the choices of a multi-select enum: Enum (with Type
// "string") for untitled values, or AnyOf for titled ones.
type EnumItems struct {
	Type  string       `json:"type,omitempty"`
	Enum  []string     `json:"enum,omitempty"`
	AnyOf []EnumOption `json:"anyOf,omitempty"`
}

// MarshalJSON writes the schema with its properties in order.
func (s *ElicitSchema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if s.Schema != "" {
		b.WriteString(`"$schema":`)
		b.Write(jsonenc.AppendString(nil, s.Schema))
		b.WriteByte(',')
	}
	b.WriteString(`"type":"object","properties":{`)
	for i, p := range s.Properties {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonenc.AppendString(nil, p.Name))
		b.WriteByte(':')
		if p.Schema == nil {
			b.WriteString("null")
			continue
		}
		raw, err := jsonenc.Marshal(p.Schema)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", p.Name, err)
		}
		b.Write(raw)
	}
	b.WriteByte('}')
	if s.Required != nil {
		raw, err := jsonenc.Marshal(s.Required)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"required":`)
		b.Write(raw)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a schema, keeping the order of its properties and
// the names of members the spec does not allow (in Unknown).
func (s *ElicitSchema) UnmarshalJSON(data []byte) error {
	*s = ElicitSchema{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("requestedSchema must be an object: %w", err)
	}
	for dec.More() {
		key, err := readKey(dec)
		if err != nil {
			return err
		}
		switch key {
		case "$schema":
			if err := dec.Decode(&s.Schema); err != nil {
				return fmt.Errorf("requestedSchema.$schema: %w", err)
			}
		case "type":
			var t string
			if err := dec.Decode(&t); err != nil || t != "object" {
				return errors.New(`requestedSchema.type must be "object"`)
			}
		case "required":
			if err := dec.Decode(&s.Required); err != nil {
				return fmt.Errorf("requestedSchema.required: %w", err)
			}
			if s.Required == nil {
				s.Required = []string{}
			}
		case "properties":
			if err := expectDelim(dec, '{'); err != nil {
				return fmt.Errorf("requestedSchema.properties must be an object: %w", err)
			}
			for dec.More() {
				name, err := readKey(dec)
				if err != nil {
					return err
				}
				var ps *PrimitiveSchema
				if err := dec.Decode(&ps); err != nil {
					return fmt.Errorf("requestedSchema.properties.%s: %w", name, err)
				}
				s.Properties = append(s.Properties, ElicitProperty{Name: name, Schema: ps})
			}
			if _, err := dec.Token(); err != nil { // '}'
				return err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			s.Unknown = append(s.Unknown, key)
		}
	}
	_, err := dec.Token() // '}'
	return err
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("found %v", tok)
	}
	return nil
}

func readKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("unexpected %v", tok)
	}
	return key, nil
}

// primitiveKeys are the members any PrimitiveSchema may have.
var primitiveKeys = []string{
	"type", "title", "description", "format", "minLength", "maxLength",
	"minimum", "maximum", "enum", "enumNames", "oneOf", "items",
	"minItems", "maxItems", "default",
}

// UnmarshalJSON reads a property schema and notes the members it does not
// know in Unknown.
func (p *PrimitiveSchema) UnmarshalJSON(data []byte) error {
	type plain PrimitiveSchema
	if err := exactjson.Unmarshal(data, (*plain)(p)); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := exactjson.Unmarshal(data, &members); err != nil {
		return err
	}
	p.Unknown = nil
	for k := range members {
		if !slices.Contains(primitiveKeys, k) {
			p.Unknown = append(p.Unknown, k)
		}
	}
	slices.Sort(p.Unknown)
	return nil
}

// Validate reports whether the schema is one the spec allows for form
// mode: a flat object of primitive properties, each in one of the shapes
// PrimitiveSchema lists, with defaults of the right type and within the
// property's bounds, and required names that are properties. The error
// matches ErrInvalidElicitation and names the property at fault.
func (s *ElicitSchema) Validate() error {
	if err := s.validate(); err != nil {
		return fmt.Errorf("%w: %s", errInvalidElicitSchema, err)
	}
	return nil
}

func (s *ElicitSchema) validate() error {
	if len(s.Unknown) > 0 {
		return fmt.Errorf("member %q is not allowed in requestedSchema (only $schema, type, properties and required)", s.Unknown[0])
	}
	seen := make(map[string]bool, len(s.Properties))
	for _, p := range s.Properties {
		if p.Name == "" {
			return errors.New("a property has no name")
		}
		if seen[p.Name] {
			return fmt.Errorf("property %q appears twice", p.Name)
		}
		seen[p.Name] = true
		if p.Schema == nil {
			return fmt.Errorf("property %q has no schema", p.Name)
		}
		if err := p.Schema.validate(); err != nil {
			return fmt.Errorf("property %q: %s", p.Name, err)
		}
	}
	for i, name := range s.Required {
		if !seen[name] {
			return fmt.Errorf("required names %q, which is not a property", name)
		}
		if slices.Contains(s.Required[:i], name) {
			return fmt.Errorf("required names %q twice", name)
		}
	}
	return nil
}

// validate checks one property.
func (p *PrimitiveSchema) validate() error {
	if len(p.Unknown) > 0 {
		return fmt.Errorf("member %q is not allowed", p.Unknown[0])
	}
	// set lists the members given, to refuse those that do not apply.
	set := map[string]bool{
		"format": p.Format != "", "minLength": p.MinLength != nil, "maxLength": p.MaxLength != nil,
		"minimum": p.Minimum != nil, "maximum": p.Maximum != nil,
		"enum": p.Enum != nil, "enumNames": p.EnumNames != nil, "oneOf": p.OneOf != nil,
		"items": p.Items != nil, "minItems": p.MinItems != nil, "maxItems": p.MaxItems != nil,
	}
	only := func(shape string, allowed ...string) error {
		for _, k := range []string{"format", "minLength", "maxLength", "minimum", "maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems"} {
			if set[k] && !slices.Contains(allowed, k) {
				return fmt.Errorf("%s is not allowed on %s", k, shape)
			}
		}
		return nil
	}
	def, hasDefault, err := p.defaultJSON()
	if err != nil {
		return err
	}
	switch p.Type {
	case schemaTypeString:
		switch {
		case p.OneOf != nil:
			if err := only("a titled single-select enum (oneOf)", "oneOf"); err != nil {
				return err
			}
			if err := validOptions("oneOf", p.OneOf); err != nil {
				return err
			}
		case p.Enum != nil:
			if err := only("a single-select enum", "enum", "enumNames"); err != nil {
				return err
			}
			if err := validValues("enum", p.Enum); err != nil {
				return err
			}
			if p.EnumNames != nil && len(p.EnumNames) != len(p.Enum) {
				return fmt.Errorf("enumNames has %d names for %d enum values", len(p.EnumNames), len(p.Enum))
			}
		default:
			if err := only("a string", "format", "minLength", "maxLength"); err != nil {
				return err
			}
			switch p.Format {
			case "", formatEmail, formatURI, formatDate, formatDateTime:
			default:
				return fmt.Errorf("format %q is not one of email, uri, date and date-time", p.Format)
			}
			if err := validBounds("minLength", "maxLength", p.MinLength, p.MaxLength); err != nil {
				return err
			}
		}
	case schemaTypeNumber, schemaTypeInteger:
		if err := only("a "+p.Type, "minimum", "maximum"); err != nil {
			return err
		}
		if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
			return fmt.Errorf("minimum %v is greater than maximum %v", *p.Minimum, *p.Maximum)
		}
	case schemaTypeBoolean:
		if err := only("a boolean"); err != nil {
			return err
		}
	case schemaTypeArray:
		if err := only("a multi-select enum", "items", "minItems", "maxItems"); err != nil {
			return err
		}
		it := p.Items
		switch {
		case it == nil:
			return errors.New("a multi-select enum needs items")
		case it.AnyOf != nil && it.Enum != nil:
			return errors.New("items has both enum and anyOf")
		case it.AnyOf != nil:
			if it.Type != "" && it.Type != schemaTypeString {
				return fmt.Errorf(`items.type must be "string", not %q`, it.Type)
			}
			if err := validOptions("items.anyOf", it.AnyOf); err != nil {
				return err
			}
		case it.Enum != nil:
			if it.Type != schemaTypeString {
				return fmt.Errorf(`items.type must be "string", not %q`, it.Type)
			}
			if err := validValues("items.enum", it.Enum); err != nil {
				return err
			}
		default:
			return errors.New("items needs enum or anyOf")
		}
		if err := validBounds("minItems", "maxItems", p.MinItems, p.MaxItems); err != nil {
			return err
		}
	case "":
		return errors.New("type is missing")
	case "object":
		return errors.New("nested objects are not allowed: a form is flat")
	default:
		return fmt.Errorf("type %q is not one of string, number, integer, boolean and array", p.Type)
	}
	if hasDefault {
		if err := p.checkValue(def); err != nil {
			return fmt.Errorf("default: %s", err)
		}
	}
	return nil
}

// defaultJSON returns the default as JSON, whatever Go type holds it.
func (p *PrimitiveSchema) defaultJSON() (json.RawMessage, bool, error) {
	if p.Default == nil {
		return nil, false, nil
	}
	raw, err := jsonenc.Marshal(p.Default)
	if err != nil {
		return nil, false, fmt.Errorf("default: %w", err)
	}
	return raw, true, nil
}

func validValues(member string, values []string) error {
	if len(values) == 0 {
		return fmt.Errorf("%s is empty", member)
	}
	for i, v := range values {
		if slices.Contains(values[:i], v) {
			return fmt.Errorf("%s lists %q twice", member, v)
		}
	}
	return nil
}

func validOptions(member string, opts []EnumOption) error {
	return validValues(member, optionValues(opts))
}

func validBounds(minName, maxName string, lo, hi *int) error {
	if lo != nil && *lo < 0 {
		return fmt.Errorf("%s must not be negative", minName)
	}
	if hi != nil && *hi < 0 {
		return fmt.Errorf("%s must not be negative", maxName)
	}
	if lo != nil && hi != nil && *lo > *hi {
		return fmt.Errorf("%s %d is greater than %s %d", minName, *lo, maxName, *hi)
	}
	return nil
}

// values returns the allowed values of an enum property, or nil.
func (p *PrimitiveSchema) values() []string {
	switch {
	case p.Enum != nil:
		return p.Enum
	case p.OneOf != nil:
		return optionValues(p.OneOf)
	case p.Items != nil && p.Items.Enum != nil:
		return p.Items.Enum
	case p.Items != nil:
		return optionValues(p.Items.AnyOf)
	}
	return nil
}

func optionValues(opts []EnumOption) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Const
	}
	return out
}

// checkValue checks one JSON value (a default, or a submitted value)
// against the property.
func (p *PrimitiveSchema) checkValue(raw json.RawMessage) error {
	switch p.Type {
	case schemaTypeString:
		var s string
		if !isJSONString(trimJSONSpace(raw)) || exactjson.Unmarshal(raw, &s) != nil {
			return fmt.Errorf("want a string, got %s", string(raw))
		}
		if vals := p.values(); vals != nil {
			if !slices.Contains(vals, s) {
				return fmt.Errorf("%q is not one of %q", s, vals)
			}
			return nil
		}
		n := utf8.RuneCountInString(s)
		if p.MinLength != nil && n < *p.MinLength {
			return fmt.Errorf("%q is shorter than %d characters", s, *p.MinLength)
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			return fmt.Errorf("%q is longer than %d characters", s, *p.MaxLength)
		}
		return checkFormat(p.Format, s)
	case schemaTypeNumber, schemaTypeInteger:
		var f float64
		t := trimJSONSpace(raw)
		if len(t) == 0 || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) || exactjson.Unmarshal(raw, &f) != nil {
			return fmt.Errorf("want a number, got %s", string(raw))
		}
		if p.Type == schemaTypeInteger && f != math.Trunc(f) {
			return fmt.Errorf("want an integer, got %s", string(raw))
		}
		if p.Minimum != nil && f < *p.Minimum {
			return fmt.Errorf("%v is less than the minimum %v", f, *p.Minimum)
		}
		if p.Maximum != nil && f > *p.Maximum {
			return fmt.Errorf("%v is greater than the maximum %v", f, *p.Maximum)
		}
		return nil
	case schemaTypeBoolean:
		if t := string(trimJSONSpace(raw)); t != "true" && t != "false" {
			return fmt.Errorf("want a boolean, got %s", string(raw))
		}
		return nil
	case schemaTypeArray:
		var list []string
		if t := trimJSONSpace(raw); len(t) == 0 || t[0] != '[' || exactjson.Unmarshal(raw, &list) != nil {
			return fmt.Errorf("want a list of strings, got %s", string(raw))
		}
		vals := p.values()
		for i, s := range list {
			if !slices.Contains(vals, s) {
				return fmt.Errorf("%q is not one of %q", s, vals)
			}
			if slices.Contains(list[:i], s) {
				return fmt.Errorf("%q is chosen twice", s)
			}
		}
		if p.MinItems != nil && len(list) < *p.MinItems {
			return fmt.Errorf("%d chosen, at least %d needed", len(list), *p.MinItems)
		}
		if p.MaxItems != nil && len(list) > *p.MaxItems {
			return fmt.Errorf("%d chosen, at most %d allowed", len(list), *p.MaxItems)
		}
		return nil
	}
	return fmt.Errorf("type %q has no values", p.Type)
}

// checkFormat checks a string against the format its property declares,
// as far as the standard library can tell.
func checkFormat(format, s string) error {
	switch format {
	case formatEmail:
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return fmt.Errorf("%q is not an email address", s)
		}
	case formatURI:
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return fmt.Errorf("%q is not an absolute URI", s)
		}
	case formatDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
	case formatDateTime:
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("%q is not an RFC 3339 date-time", s)
		}
	}
	return nil
}

// checkContent checks the content a user submitted against the schema:
// a JSON object whose members are properties of the schema, each with a
// value the property allows, and every required property present. The
// error wraps errInvalidElicitContent (an ErrInvalidElicitation).
func (s *ElicitSchema) checkContent(content json.RawMessage) error {
	if err := s.checkContentMembers(content); err != nil {
		return fmt.Errorf("%w: %s", errInvalidElicitContent, err)
	}
	return nil
}

func (s *ElicitSchema) checkContentMembers(content json.RawMessage) error {
	var members map[string]json.RawMessage
	if t := trimJSONSpace(content); len(t) == 0 || t[0] != '{' || exactjson.Unmarshal(content, &members) != nil {
		return errors.New("content must be a JSON object")
	}
	for name, raw := range members {
		p := s.property(name)
		if p == nil {
			return fmt.Errorf("%q is not a property of the requested schema", name)
		}
		if err := p.checkValue(raw); err != nil {
			return fmt.Errorf("%s: %s", name, err)
		}
	}
	for _, name := range s.Required {
		if _, ok := members[name]; !ok {
			return fmt.Errorf("required %q is missing", name)
		}
	}
	return nil
}

func (s *ElicitSchema) property(name string) *PrimitiveSchema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// applyDefaults returns content with the default of every property that
// has one and is absent from content.
func (s *ElicitSchema) applyDefaults(content json.RawMessage) (json.RawMessage, error) {
	members := map[string]json.RawMessage{}
	if len(trimJSONSpace(content)) > 0 && string(trimJSONSpace(content)) != "null" {
		if err := exactjson.Unmarshal(content, &members); err != nil {
			return nil, err
		}
	}
	added := false
	for _, p := range s.Properties {
		if _, ok := members[p.Name]; ok || p.Schema == nil {
			continue
		}
		def, has, err := p.Schema.defaultJSON()
		if err != nil {
			return nil, err
		}
		if has {
			members[p.Name] = def
			added = true
		}
	}
	if !added {
		return content, nil
	}
	return jsonenc.Marshal(members)
}
