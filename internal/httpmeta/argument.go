package httpmeta

import (
	"encoding/json"
	"errors"
	"unicode"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// EncodeArgument returns the Mcp-Param-{Name} header value for one tool
// argument, given its raw JSON value, after the spec's type conversion: a
// string goes through EncodeValue, an integer (42, -7, also 42.0 or 4.2e1)
// is written in plain decimal, a boolean as "true" or "false". ok is false
// when the client MUST omit the header (the value is null or absent, that
// is raw is empty) and also when the value cannot be mirrored: a number
// with a fraction, an integer beyond ±(2^53-1), an object or an array.
// MatchArgument rejects those values with a precise error, so a server
// reports the problem rather than a bare missing header.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
func EncodeArgument(raw json.RawMessage) (value string, ok bool) {
	raw = trimJSON(raw)
	if !jsonscan.Valid(raw) {
		return "", false
	}
	switch jsonscan.KindOf(raw) {
	case jsonscan.String:
		s, ok := jsonscan.StringValue(raw)
		if !ok {
			return "", false
		}
		return EncodeValue(s), true
	case jsonscan.Bool:
		switch string(raw) {
		case "true":
			return "true", true
		case "false":
			return "false", true
		}
	case jsonscan.Number:
		d, ok := parseDecimal(string(raw))
		if !ok {
			return "", false
		}
		if v, ok := d.safeInt(); ok {
			return formatInt(v), true
		}
	}
	return "", false
}

// MatchArgument is the server's check that an Mcp-Param-{Name} header
// agrees with the tool argument it mirrors. field is the header name used
// in the error ("Mcp-Param-Region"), value and present what the request
// carried (see FieldValue), raw the argument's JSON value in the body
// (empty when absent; see ArgumentAt). It returns nil when
//   - the body has no value (absent or null) and the header is absent;
//   - the body has a string and the decoded header equals it exactly
//     (case-sensitive);
//   - the body has an integer within ±(2^53-1) and the decoded header is a
//     JSON number equal to it (42 equals 42.0 and 4.2e1; "042", "+42" and
//     "0x2a" are not numbers);
//   - the body has a boolean and the decoded header is "true" or "false"
//     accordingly.
//
// Otherwise it returns an *Error, for HTTP 400 and JSON-RPC -32020: the
// header is missing while the body has a value, present while the body has
// none, malformed (ErrInvalidCharacter, ErrInvalidBase64), different from
// the body, or the body value is one a header cannot carry (a fraction, an
// integer out of range, an object, an array).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers
func MatchArgument(field, value string, present bool, raw json.RawMessage) error {
	raw = trimJSON(raw)
	kind := jsonscan.KindOf(raw)
	if kind != jsonscan.Invalid && !jsonscan.Valid(raw) {
		return &Error{Field: field, Reason: "cannot be checked: the body value is not valid JSON"}
	}
	var num decimal
	switch kind {
	case jsonscan.Invalid, jsonscan.Null:
		if present {
			return &Error{Field: field, Reason: "is present but the request body has no value for it"}
		}
		return nil
	case jsonscan.Object, jsonscan.Array:
		return &Error{Field: field, Reason: "cannot carry the body value: it is an " + kind.String() +
			"; only strings, integers and booleans are mirrored into headers"}
	case jsonscan.Number:
		var ok bool
		if num, ok = parseDecimal(string(raw)); !ok {
			return &Error{Field: field, Reason: "cannot carry body value " + clip(string(raw)) + ": it is not a JSON number"}
		}
		if !num.isInteger() {
			return &Error{Field: field, Reason: "cannot carry body value " + clip(string(raw)) +
				": only strings, integers and booleans are mirrored into headers"}
		}
		if _, ok := num.safeInt(); !ok {
			return &Error{Field: field, Reason: "cannot carry body value " + clip(string(raw)) +
				": integers must lie within -(2^53-1) and 2^53-1"}
		}
	}
	if !present {
		return &Error{Field: field, Reason: "is missing but the request body has a value for it"}
	}
	got, err := DecodeValue(value)
	if err != nil {
		return &Error{Field: field, Reason: err.Error(), Err: err}
	}
	switch kind {
	case jsonscan.String:
		if jsonscan.StringEquals(raw, got) {
			return nil
		}
		body, _ := jsonscan.StringValue(raw)
		return mismatch(field, got, quote(body))
	case jsonscan.Bool:
		if got == string(raw) {
			return nil
		}
	case jsonscan.Number:
		if h, ok := parseDecimal(got); ok && h.equal(&num) {
			return nil
		}
	}
	return mismatch(field, got, clip(string(raw)))
}

// mismatch words a header/body disagreement as the spec's example does.
func mismatch(field, header, body string) *Error {
	return &Error{Field: field, Reason: "value " + quote(header) + " does not match body value " + body}
}

// ErrAmbiguousArgument reports arguments holding a member whose name
// differs from an annotated property only in case. encoding/json matches
// struct fields case-insensitively, so a typed tool handler could act on
// that member while the header was checked against the other one: the
// mismatch the header validation exists to prevent.
var ErrAmbiguousArgument = errors.New("httpmeta: arguments hold a member that differs from an annotated property only in case")

// ArgumentAt returns the value at path (a chain of property names, as in
// Param.Path) inside the tool call arguments object args. present is false
// when args is empty or null, when a step is missing or not an object, and
// when the value is null: in every such case the client omits the header
// and the server expects none. A member named twice counts as its last
// occurrence, as encoding/json reads it. err is set when args is not valid
// JSON or when a member name equals a path step ignoring case but not
// exactly (ErrAmbiguousArgument).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension
func ArgumentAt(args json.RawMessage, path []string) (raw json.RawMessage, present bool, err error) {
	cur := trimJSON(args)
	if len(cur) == 0 {
		return nil, false, nil
	}
	if jsonscan.KindOf(cur) != jsonscan.Object {
		if !jsonscan.Valid(cur) {
			return nil, false, jsonscan.ErrSyntax
		}
		return nil, false, nil
	}
	for step, name := range path {
		if jsonscan.KindOf(cur) != jsonscan.Object {
			return nil, false, nil
		}
		var found []byte
		ambiguous := false
		visit := func(key, value []byte) {
			if jsonscan.KeyEquals(key, name) {
				found = value
			} else if keyFoldEquals(key, name) {
				ambiguous = true
			}
		}
		// The first scan validates args as it reads it; inner objects
		// are part of what it validated.
		end, err := jsonscan.ScanObject(cur, 0, visit)
		if err != nil || (step == 0 && end != len(cur)) {
			return nil, false, jsonscan.ErrSyntax
		}
		if ambiguous {
			return nil, false, ErrAmbiguousArgument
		}
		if found == nil {
			return nil, false, nil
		}
		cur = found
	}
	if jsonscan.KindOf(cur) == jsonscan.Null {
		return nil, false, nil
	}
	return cur, true, nil
}

// keyFoldEquals reports whether the raw object key equals name under
// Unicode simple case folding, the rule encoding/json uses to match keys
// to struct fields.
func keyFoldEquals(rawKey []byte, name string) bool {
	for _, c := range rawKey {
		if c == '\\' {
			k, ok := jsonscan.StringValue(append(append([]byte{'"'}, rawKey...), '"'))
			return ok && foldEquals(k, name)
		}
	}
	// Compare without converting rawKey to a string.
	i, j := 0, 0
	for i < len(rawKey) && j < len(name) {
		r1, n1 := utf8.DecodeRune(rawKey[i:])
		r2, n2 := utf8.DecodeRuneInString(name[j:])
		i, j = i+n1, j+n2
		if !runeFoldEquals(r1, r2) {
			return false
		}
	}
	return i == len(rawKey) && j == len(name)
}

func foldEquals(a, b string) bool {
	for a != "" && b != "" {
		r1, n1 := utf8.DecodeRuneInString(a)
		r2, n2 := utf8.DecodeRuneInString(b)
		a, b = a[n1:], b[n2:]
		if !runeFoldEquals(r1, r2) {
			return false
		}
	}
	return a == "" && b == ""
}

// runeFoldEquals reports whether r1 and r2 are in the same Unicode simple
// case folding orbit.
func runeFoldEquals(r1, r2 rune) bool {
	if r1 == r2 {
		return true
	}
	if r1 < utf8.RuneSelf && r2 < utf8.RuneSelf {
		if 'A' <= r1 && r1 <= 'Z' {
			r1 += 'a' - 'A'
		}
		if 'A' <= r2 && r2 <= 'Z' {
			r2 += 'a' - 'A'
		}
		return r1 == r2
	}
	for r := unicode.SimpleFold(r1); r != r1; r = unicode.SimpleFold(r) {
		if r == r2 {
			return true
		}
	}
	return false
}

// trimJSON removes JSON white space around a raw value.
func trimJSON(raw []byte) []byte {
	i := jsonscan.SkipSpace(raw, 0)
	j := len(raw)
	for j > i {
		switch raw[j-1] {
		case ' ', '\t', '\r', '\n':
			j--
			continue
		}
		break
	}
	return raw[i:j]
}
