// Package jsonenc appends JSON text as mcpkit writes it on the wire, for
// the hand-written encoders on mcpkit's hot paths (the JSON-RPC envelope,
// common tool results), and makes encoding/json's output follow the same
// rule ([Marshal]), so that a value's bytes are the same whichever encoder
// wrote them and whichever Go release built the program.
//
// The rule is encoding/json's (Go 1.26) but for one character: U+FFFD,
// whether it stands for invalid UTF-8 or was in the string, is written as
// the ASCII escape \ufffd (docs/design.md, "Wire bytes on every Go
// release", says why).
package jsonenc

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Marshal returns json.Marshal(v) with every U+FFFD written as \ufffd
// ([EscapeReplacement]): the bytes mcpkit sends for v on every Go release.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return EscapeReplacement(b), nil
}

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// EscapeReplacement returns the JSON text b with every U+FFFD written as
// the escape \ufffd, the same JSON value: encoding/json's output (valid
// UTF-8, which outside strings is ASCII) in mcpkit's form. b itself is
// returned, unchanged, when it holds no U+FFFD, the usual case: one
// vectorised search.
func EscapeReplacement(b []byte) []byte {
	if !bytes.Contains(b, []byte(replacement)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(replacement), []byte(`\ufffd`))
}

// AppendString appends s as a JSON string, escaping what JSON requires plus
// the HTML-sensitive characters and line separators encoding/json escapes,
// with invalid UTF-8 and U+FFFD written as \ufffd (the package's rule).
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if safeASCII[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		if size := plainMultibyte(s, i); size > 0 {
			i += size
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError { // invalid (size 1) or U+FFFD itself (size 3)
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// StringLen returns len(AppendString(nil, s)) without building it, so that
// a large string's encoding can go into a buffer of the exact size.
func StringLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		b := s[i]
		if safeASCII[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			switch b {
			case '"', '\\', '\n', '\r', '\t', '\b', '\f':
				n++
			default:
				n += 5
			}
			i++
			continue
		}
		if size := plainMultibyte(s, i); size > 0 {
			i += size
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // one byte becomes \ufffd
		case r == utf8.RuneError:
			n += 3 // U+FFFD's three bytes become \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 3 // three bytes become \u202X
		}
		i += size
	}
	return n
}

// safeASCII holds the bytes written as they are: ASCII from 0x20 but the
// quote, the backslash and the HTML-sensitive <, > and &. One table load
// per byte is what keeps megabytes of text cheap to encode.
var safeASCII = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		switch b {
		case '"', '\\', '<', '>', '&':
		default:
			t[b] = true
		}
	}
	return t
}()

// plainMultibyte returns the length of the two- or three-byte UTF-8
// sequence at s[i] when it is valid and written as it is (not U+2028 or
// U+2029 or U+FFFD), and 0 for anything else, which the caller decodes the
// slow way: the common non-ASCII letters without a function call.
func plainMultibyte(s string, i int) int {
	b := s[i]
	switch {
	case b >= 0xC2 && b <= 0xDF:
		if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return 2
		}
	case b >= 0xE0 && b <= 0xEF:
		if i+2 >= len(s) {
			return 0
		}
		c1, c2 := s[i+1], s[i+2]
		lo, hi := byte(0x80), byte(0xBF)
		switch b {
		case 0xE0:
			lo = 0xA0 // no overlong forms
		case 0xED:
			hi = 0x9F // no surrogates
		case 0xE2:
			if c1 == 0x80 && (c2 == 0xA8 || c2 == 0xA9) {
				return 0 // U+2028, U+2029
			}
		case 0xEF:
			if c1 == 0xBF && c2 == 0xBD {
				return 0 // U+FFFD
			}
		}
		if c1 >= lo && c1 <= hi && c2&0xC0 == 0x80 {
			return 3
		}
	}
	return 0
}

// AppendBase64 appends the standard base64 of src (padded, as
// encoding/json writes a []byte and base64.StdEncoding.AppendEncode
// appends it), six bytes at a time: one 8-byte load, four lookups of two
// characters each and one 8-byte store, where the standard encoder does
// four lookups and four stores of one character per three bytes. A 1 MiB
// blob's encoding is most of a resources/read of it.
func AppendBase64(dst, src []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(src))
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	si, di := 0, 0
	for ; si+8 <= len(src); si, di = si+6, di+8 {
		x := binary.BigEndian.Uint64(src[si:])
		w := uint64(base64Pairs[x>>52]) | uint64(base64Pairs[x>>40&0xfff])<<16 |
			uint64(base64Pairs[x>>28&0xfff])<<32 | uint64(base64Pairs[x>>16&0xfff])<<48
		binary.LittleEndian.PutUint64(out[di:], w)
	}
	base64.StdEncoding.Encode(out[di:], src[si:])
	return dst[:len(dst)+n]
}

// base64Pairs holds, for each 12-bit value, its two base64 characters
// (the first in the low byte).
var base64Pairs = func() (t [4096]uint16) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for v := range t {
		t[v] = uint16(alphabet[v>>6]) | uint16(alphabet[v&0x3f])<<8
	}
	return t
}()

// AppendEncoded appends, as a JSON string, JSON text that AppendString
// and this package's other functions (or [Marshal], for values without
// json.RawMessage or MarshalJSON methods of their own) wrote: valid UTF-8
// with no control character, no <, >, & and no U+2028, U+2029, U+FFFD,
// where only the quote and the backslash need an escape. The result is
// AppendString(dst, enc), for such input, without its UTF-8 checks: a
// typed tool's output is sent both as JSON and as this string.
//
// JSON text holds a quote every few bytes, so rather than append the
// runs between escapes it counts them first (strings.Count is vectorised)
// and writes every byte by index, a backslash before each that needs one
// without a branch: an escaped byte and a plain one cost the same.
func AppendEncoded(dst []byte, enc string) []byte {
	n := len(enc) + strings.Count(enc, `"`) + strings.Count(enc, `\`) + 2
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	out[0] = '"'
	j := 1
	for i := range len(enc) {
		b := enc[i]
		out[j] = '\\'
		j += int(quoteOrBackslash[b])
		out[j] = b
		j++
	}
	out[j] = '"'
	return dst[:len(dst)+n]
}

// quoteOrBackslash is 1 for the two bytes AppendEncoded escapes.
var quoteOrBackslash = [256]uint8{'"': 1, '\\': 1}
