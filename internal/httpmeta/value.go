package httpmeta

import (
	"encoding/base64"
	"errors"
	"strings"
	"unicode/utf8"
)

// The Base64 sentinel that wraps a header value which cannot travel as
// plain ASCII. Both markers are case-sensitive.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

var (
	// ErrInvalidCharacter reports a header value holding a byte outside
	// visible ASCII, space and horizontal tab (RFC 9110 field values
	// without obs-text). Servers MUST reject such a value.
	//
	// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers
	ErrInvalidCharacter = errors.New("value contains invalid characters (only visible ASCII, space and tab are allowed)")

	// ErrInvalidBase64 reports a value in the =?base64?...?= sentinel whose
	// payload is not canonical padded standard Base64 of UTF-8 text.
	// Servers reject it rather than compare it literally.
	//
	// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
	ErrInvalidBase64 = errors.New("value is not valid Base64 inside the =?base64?...?= sentinel")
)

// EncodeValue returns the header value that carries the string s. The value
// is s itself when s is printable ASCII (0x20-0x7E) without leading or
// trailing space and does not look like the sentinel (starts with
// "=?base64?" and ends with "?="); otherwise it is "=?base64?" + the
// standard padded Base64 of s's UTF-8 bytes + "?=". The empty string stays
// empty. Clients use it for Mcp-Name and Mcp-Param-{Name}; it allocates
// only in the Base64 case.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
func EncodeValue(s string) string {
	if isPlain(s) {
		return s
	}
	n := len(sentinelPrefix) + base64.StdEncoding.EncodedLen(len(s)) + len(sentinelSuffix)
	var stack [256]byte
	buf := stack[:0]
	if n > len(stack) {
		buf = make([]byte, 0, n)
	}
	buf = append(buf, sentinelPrefix...)
	buf = base64.StdEncoding.AppendEncode(buf, []byte(s))
	buf = append(buf, sentinelSuffix...)
	return string(buf)
}

// isPlain reports whether s may travel as a header value unchanged.
func isPlain(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return !(strings.HasPrefix(s, sentinelPrefix) && strings.HasSuffix(s, sentinelSuffix))
}

// DecodeValue returns the string a received Mcp-Name or Mcp-Param-{Name}
// header value carries, the inverse of EncodeValue. It trims optional
// white space (spaces and tabs) at both ends, rejects any other byte
// outside visible ASCII (ErrInvalidCharacter), and decodes a value that
// starts with "=?base64?" and ends with "?=" strictly: the payload must be
// canonical padded standard Base64 of valid UTF-8 (ErrInvalidBase64
// otherwise). A value with only one of the two markers, or with markers in
// another case, is a literal: "=?base64?SGVsbG8=" and "SGVsbG8=" mean
// themselves. Servers MUST decode before comparing with the body.
//
// DecodeValue allocates only when it decodes Base64.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
func DecodeValue(h string) (string, error) {
	h = TrimOWS(h)
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", ErrInvalidCharacter
		}
	}
	if !strings.HasPrefix(h, sentinelPrefix) || !strings.HasSuffix(h, sentinelSuffix) {
		return h, nil
	}
	if len(h) < len(sentinelPrefix)+len(sentinelSuffix) {
		// "=?base64?=": the markers overlap. No encoder produces it
		// and it is no more a literal than an encoding; refuse it.
		return "", ErrInvalidBase64
	}
	payload := h[len(sentinelPrefix) : len(h)-len(sentinelSuffix)]
	enc := base64.StdEncoding.Strict()
	var stack [192]byte
	buf := stack[:0]
	if n := enc.DecodedLen(len(payload)); n > len(stack) {
		buf = make([]byte, 0, n)
	}
	// The base64 package skips CR and LF; they were rejected above.
	buf, err := enc.AppendDecode(buf, []byte(payload))
	if err != nil || !utf8.Valid(buf) {
		return "", ErrInvalidBase64
	}
	return string(buf), nil
}

// TrimOWS removes RFC 9110 optional white space (SP and HTAB) from both
// ends of a field value.
func TrimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
