package httpmeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// ParamPrefix starts the name of every header that mirrors a tool
// argument: Mcp-Param-{Name}, where {Name} is the property's x-mcp-header
// value.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
const ParamPrefix = "Mcp-Param-"

// annotationKey is the JSON Schema extension keyword that designates a
// property for mirroring.
const annotationKey = "x-mcp-header"

// Param is one tool argument that the Streamable HTTP transport mirrors
// into a header, as an x-mcp-header annotation in the tool's inputSchema
// declares it.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
type Param struct {
	// Name is the x-mcp-header value as declared, such as "Region".
	Name string
	// Header is the header field name, ParamPrefix + Name
	// ("Mcp-Param-Region"), for requests and error messages.
	Header string
	// Key is Header in canonical MIME form ("Mcp-Param-Region",
	// "Mcp-Param-Tenantid"), the key of an http.Header map, so that a
	// server can index the map without canonicalizing per request.
	Key string
	// Path is the chain of property names from the schema root to the
	// annotated property: ["region"] for a top-level property,
	// ["target", "region"] for properties.target.properties.region.
	Path []string
	// Type is the property's JSON Schema type: "string", "integer" or
	// "boolean".
	Type string
}

// ErrInvalidAnnotation reports an inputSchema whose x-mcp-header
// annotations break the spec's constraints. Over Streamable HTTP a client
// MUST leave such a tool out of tools/list, and a server should refuse to
// register it.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension
var ErrInvalidAnnotation = errors.New("invalid x-mcp-header annotation")

// HeaderParams returns the arguments a tool's inputSchema designates for
// mirroring, in schema order, after checking every x-mcp-header annotation
// against the spec's constraints:
//   - the value is a non-empty RFC 9110 token (1*tchar: no space, colon,
//     control or non-ASCII character);
//   - values are unique ignoring case;
//   - the annotated property declares "type" as "string", "integer" or
//     "boolean" (or an array of one of these and "null"); "number",
//     "object", "array", "null" and an absent type are refused;
//   - the property is statically reachable: the path from the root passes
//     through "properties" keys only. An annotation under items,
//     prefixItems, additionalProperties, allOf/anyOf/oneOf/not,
//     if/then/else, $defs or any other subschema keyword, or on the root
//     itself, is refused.
//
// The error wraps ErrInvalidAnnotation and describes the first violation
// with the JSON Pointer of the offending schema. A schema without
// annotations (or an empty one) gives no params and no error. Only the
// keywords whose values are subschemas are searched: const, default, enum,
// examples and unknown keywords hold data, not annotations.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension
func HeaderParams(inputSchema json.RawMessage) ([]Param, error) {
	raw := trimJSON(inputSchema)
	if len(raw) == 0 {
		return nil, nil
	}
	if !jsonscan.Valid(raw) {
		return nil, fmt.Errorf("%w: inputSchema is not valid JSON", ErrInvalidAnnotation)
	}
	w := walker{}
	if err := w.schema(raw, "", nil, true); err != nil {
		return nil, err
	}
	return w.params, nil
}

type walker struct {
	params []Param
}

// schema checks the subschema s found at JSON Pointer ptr. reachable says
// whether it is the root or reached from it through "properties" only, in
// which case path is its property chain.
func (w *walker) schema(s []byte, ptr string, path []string, reachable bool) error {
	if jsonscan.KindOf(s) != jsonscan.Object {
		return nil // true, false: nothing to annotate
	}
	var err error
	jsonscan.Members(s, func(key, value []byte) bool {
		k, ok := unquoteKey(key)
		if !ok {
			return true
		}
		switch k {
		case annotationKey:
			err = w.annotation(s, value, ptr, path, reachable)
		case "properties":
			err = w.members(value, ptr+"/properties", path, reachable)
		case "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			err = w.members(value, ptr+"/"+jsonscan.PointerToken(k), nil, false)
		case "items", "prefixItems", "additionalItems", "additionalProperties",
			"unevaluatedItems", "unevaluatedProperties", "contains", "propertyNames",
			"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "contentSchema":
			err = w.subschemas(value, ptr+"/"+jsonscan.PointerToken(k))
		}
		return err == nil
	})
	return err
}

// members checks the schemas in a map of schemas (properties, $defs...).
func (w *walker) members(m []byte, ptr string, path []string, reachable bool) error {
	if jsonscan.KindOf(m) != jsonscan.Object {
		return nil
	}
	var err error
	jsonscan.Members(m, func(key, value []byte) bool {
		name, ok := unquoteKey(key)
		if !ok {
			return true
		}
		var sub []string
		if reachable {
			sub = append(path[:len(path):len(path)], name)
		}
		err = w.schema(value, ptr+"/"+jsonscan.PointerToken(name), sub, reachable)
		return err == nil
	})
	return err
}

// subschemas checks a keyword value that is a schema or an array of
// schemas; none of them is statically reachable.
func (w *walker) subschemas(v []byte, ptr string) error {
	if jsonscan.KindOf(v) != jsonscan.Array {
		return w.schema(v, ptr, nil, false)
	}
	var err error
	i := 0
	jsonscan.Elements(v, func(e []byte) bool {
		err = w.schema(e, fmt.Sprintf("%s/%d", ptr, i), nil, false)
		i++
		return err == nil
	})
	return err
}

// annotation checks one x-mcp-header value found in schema s at ptr.
func (w *walker) annotation(s, value []byte, ptr string, path []string, reachable bool) error {
	at := "#" + ptr
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s at %s", ErrInvalidAnnotation, fmt.Sprintf(format, args...), at)
	}
	if !reachable {
		return fail("x-mcp-header is only allowed on properties reached through \"properties\" keys alone")
	}
	if len(path) == 0 {
		return fail("x-mcp-header is not allowed on the schema root")
	}
	name, ok := jsonscan.StringValue(value)
	if !ok {
		return fail("x-mcp-header must be a string, not %s", jsonscan.KindOf(value))
	}
	if name == "" {
		return fail("x-mcp-header must not be empty")
	}
	if i := nonToken(name); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fail("x-mcp-header %q is not an HTTP token: character %q is not allowed", name, r)
	}
	for _, p := range w.params {
		if strings.EqualFold(p.Name, name) {
			return fail("x-mcp-header %q duplicates %q on property %s (header names are case-insensitive)",
				name, p.Name, pathString(p.Path))
		}
	}
	typ, err := primitiveType(s)
	if err != nil {
		return fail("x-mcp-header %q: %v", name, err)
	}
	header := ParamPrefix + name
	w.params = append(w.params, Param{
		Name:   name,
		Header: header,
		Key:    textproto.CanonicalMIMEHeaderKey(header),
		Path:   path,
		Type:   typ,
	})
	return nil
}

// primitiveType returns the type of an annotated property schema, which
// must be one the spec allows to mirror.
func primitiveType(s []byte) (string, error) {
	var t []byte
	jsonscan.Members(s, func(key, value []byte) bool {
		if jsonscan.KeyEquals(key, "type") {
			t = value
		}
		return true
	})
	allowed := func(name string) bool {
		return name == "string" || name == "integer" || name == "boolean"
	}
	switch jsonscan.KindOf(t) {
	case jsonscan.String:
		name, _ := jsonscan.StringValue(t)
		if allowed(name) {
			return name, nil
		}
		return "", fmt.Errorf("the property's type is %q; only string, integer and boolean are allowed", name)
	case jsonscan.Array:
		var found string
		var err error
		jsonscan.Elements(t, func(e []byte) bool {
			name, _ := jsonscan.StringValue(e)
			switch {
			case name == "null":
			case allowed(name) && found == "":
				found = name
			default:
				err = fmt.Errorf("the property's type is %s; only one of string, integer and boolean (optionally with null) is allowed", t)
			}
			return err == nil
		})
		if err == nil && found == "" {
			err = fmt.Errorf("the property's type is %s; only string, integer and boolean are allowed", t)
		}
		return found, err
	case jsonscan.Invalid:
		return "", errors.New("the property declares no type; it must be string, integer or boolean")
	}
	return "", fmt.Errorf("the property's type is %s; only string, integer and boolean are allowed", t)
}

// nonToken returns the index of the first byte of s that is not an RFC
// 9110 tchar, or -1.
//
// Spec: https://datatracker.ietf.org/doc/html/rfc9110#section-5.6.2
func nonToken(s string) int {
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return i
		}
	}
	return -1
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// unquoteKey returns a raw object key as a Go string.
func unquoteKey(key []byte) (string, bool) {
	for _, c := range key {
		if c == '\\' {
			return jsonscan.StringValue(append(append([]byte{'"'}, key...), '"'))
		}
	}
	return string(key), true
}

// pathString renders a property chain for messages: region, target.region.
func pathString(path []string) string {
	return fmt.Sprintf("%q", strings.Join(path, "."))
}
