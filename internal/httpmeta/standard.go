package httpmeta

import (
	"encoding/json"
	"errors"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// The standard request metadata headers a 2026-07-28 client sends on every
// POST, mirrored from the JSON-RPC body. Header names are case-insensitive;
// these are the spellings the spec uses, which are also the canonical MIME
// keys of an http.Header.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#standard-request-headers
const (
	// HeaderMethod mirrors the JSON-RPC method, on every request and
	// notification.
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors the target's name, URI or task id on the methods
	// NameSource lists.
	HeaderName = "Mcp-Name"
)

// ErrDuplicate reports a metadata header sent more than once: a request
// cannot be routed on one copy and served on another.
var ErrDuplicate = errors.New("httpmeta: header appears more than once")

// FieldValue returns the single value of a header from its list of field
// lines (an http.Header entry): present is false when there is none, and
// err is an *Error wrapping ErrDuplicate when there are several, since
// intermediaries may pick either one.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
func FieldValue(field string, lines []string) (value string, present bool, err error) {
	switch len(lines) {
	case 0:
		return "", false, nil
	case 1:
		return lines[0], true, nil
	}
	return "", true, &Error{Field: field, Reason: "appears more than once", Err: ErrDuplicate}
}

// NameSource tells which member of a request's params the Mcp-Name header
// mirrors: "name" for tools/call and prompts/get, "uri" for resources/read
// (required, so a server rejects a request without the header), and
// "taskId" for the Tasks extension's tasks/get, tasks/update and
// tasks/cancel (not required by the core spec: a server checks it when
// present). member is empty for every other method, which carries no
// Mcp-Name.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#standard-request-headers
func NameSource(method string) (member string, required bool) {
	switch method {
	case "tools/call", "prompts/get":
		return "name", true
	case "resources/read":
		return "uri", true
	case "tasks/get", "tasks/update", "tasks/cancel":
		return "taskId", false
	}
	return "", false
}

// CheckMethod is the server's check of the Mcp-Method header against the
// body's method: the header must be present and, after trimming optional
// white space, equal the method exactly (values are case-sensitive, so
// "TOOLS/LIST" is not "tools/list"). Mcp-Method does not use the Base64
// sentinel. The error is an *Error for HTTP 400 and JSON-RPC -32020.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
func CheckMethod(value string, present bool, method string) error {
	if !present {
		return &Error{Field: HeaderMethod, Reason: "is missing"}
	}
	v := TrimOWS(value)
	if v == method {
		return nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return &Error{Field: HeaderMethod, Reason: ErrInvalidCharacter.Error(), Err: ErrInvalidCharacter}
		}
	}
	return mismatch(HeaderMethod, v, quote(method))
}

// CheckName is the server's check of the Mcp-Name header against the
// request's params (raw JSON): for the methods NameSource lists, the header
// decoded with DecodeValue must equal the params member exactly. A missing
// header is an error when NameSource says it is required or when present
// is true while params lacks the member. For other methods CheckName
// accepts anything, since there is no body value to compare with. The
// error is an *Error for HTTP 400 and JSON-RPC -32020.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
func CheckName(method, value string, present bool, params json.RawMessage) error {
	member, _ := NameSource(method)
	if member == "" {
		return nil
	}
	var body []byte
	if p := trimJSON(params); jsonscan.KindOf(p) == jsonscan.Object {
		end, err := jsonscan.ScanObject(p, 0, func(key, value []byte) {
			if jsonscan.KeyEquals(key, member) {
				body = value
			}
		})
		if err != nil || end != len(p) {
			body = nil // not JSON: no value to compare with
		}
	}
	return CheckNameMember(method, value, present, body)
}

// CheckNameMember is CheckName for a caller that has already read params:
// body is the raw value of the params member NameSource names (the last
// one, as CheckName takes it), or nil when params have none or are not a
// JSON object.
func CheckNameMember(method, value string, present bool, body []byte) error {
	member, required := NameSource(method)
	if member == "" {
		return nil
	}
	if !present {
		if required {
			return &Error{Field: HeaderName, Reason: "is missing"}
		}
		return nil
	}
	got, err := DecodeValue(value)
	if err != nil {
		return &Error{Field: HeaderName, Reason: err.Error(), Err: err}
	}
	switch jsonscan.KindOf(body) {
	case jsonscan.String:
		if jsonscan.StringEquals(body, got) {
			return nil
		}
		s, _ := jsonscan.StringValue(body)
		return mismatch(HeaderName, got, quote(s))
	case jsonscan.Invalid:
		return &Error{Field: HeaderName, Reason: "is present but the request body has no params." + member}
	}
	return mismatch(HeaderName, got, clip(string(body)))
}
