package httpmeta

import (
	"strconv"
	"unicode/utf8"
)

// Error reports a request metadata header that is missing, malformed or
// disagrees with the request body. The spec requires the server to answer
// such a request with HTTP 400 and JSON-RPC error -32020 (HeaderMismatch);
// Error's text is meant to be that error's message, in the form of the
// spec's example ("Header mismatch: Mcp-Name header value 'foo' does not
// match body value 'bar'").
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
type Error struct {
	// Field is the header field name as the spec spells it, such as
	// "Mcp-Method", "Mcp-Name" or "Mcp-Param-Region".
	Field string
	// Reason says what is wrong, phrased to follow "<Field> header ".
	Reason string
	// Err is the underlying cause (ErrInvalidCharacter, ErrInvalidBase64,
	// ErrDuplicate), or nil.
	Err error
}

// Error returns "Header mismatch: <Field> header <Reason>".
func (e *Error) Error() string {
	return "Header mismatch: " + e.Field + " header " + e.Reason
}

// Unwrap returns the underlying cause, so that errors.Is finds the
// sentinels of this package.
func (e *Error) Unwrap() error { return e.Err }

// maxQuoted bounds how much of a value an error message repeats: header and
// body values are attacker controlled and may be long.
const maxQuoted = 128

// quote renders a header or body value for an error message: in single
// quotes as the spec's example does when it is printable ASCII, otherwise
// as a Go-quoted string so that control characters stay visible. Long
// values are cut at a rune boundary and marked with "...".
func quote(s string) string {
	cut := false
	if len(s) > maxQuoted {
		n := maxQuoted
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			q := strconv.Quote(s)
			if cut {
				q += "..."
			}
			return q
		}
	}
	if cut {
		return "'" + s + "...'"
	}
	return "'" + s + "'"
}

// clip shortens raw JSON text (a number, true, an object) for an error
// message, which repeats it unquoted.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
