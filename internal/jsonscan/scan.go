// Package jsonscan is a small allocation-free JSON scanner. It validates and
// skips JSON values in place and walks the members of an object, handing out
// sub-slices of the input rather than decoding them. mcpkit uses it where
// encoding/json would allocate on every message: reading the JSON-RPC
// envelope, and checking tool arguments against simple schemas.
//
// It accepts exactly what encoding/json.Valid accepts.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a JSON value.
type Kind uint8

const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Object
	Array
)

// String returns the JSON Schema name of the kind.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Object:
		return "object"
	case Array:
		return "array"
	}
	return "invalid"
}

// ErrSyntax reports input that is not valid JSON.
var ErrSyntax = errors.New("jsonscan: invalid JSON")

// maxDepth matches encoding/json's nesting limit.
const maxDepth = 10000

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// Valid reports whether data is exactly one JSON value, surrounded by
// optional white space.
func Valid(data []byte) bool {
	end, _, err := Skip(data, SkipSpace(data, 0))
	return err == nil && SkipSpace(data, end) == len(data)
}

// Skip validates the value that starts at data[i] (no leading space) and
// returns the index just after it and its kind.
func Skip(data []byte, i int) (end int, kind Kind, err error) {
	return skip(data, i, 0, false)
}

// SkipAt is Skip for a value nested depth levels deep in the document
// (the top level is 0), so that a reader that walks the levels above
// itself keeps the document's nesting limit as Skip from the top would.
func SkipAt(data []byte, i, depth int) (end int, kind Kind, err error) {
	return skip(data, i, depth, false)
}

// MaxDepth is the deepest nesting Skip accepts, as encoding/json's.
const MaxDepth = maxDepth

// ValidCompact reports whether data is exactly one JSON value with no
// white space outside its strings: what an encoder may copy as it is into
// a frame that a line break would split. It is one pass, where Valid and
// then a search for white space would be two.
func ValidCompact(data []byte) bool {
	end, _, err := skip(data, 0, 0, true)
	return err == nil && end == len(data)
}

// space skips white space at data[i], unless compact is set: then white
// space stays where it is, to fail as a syntax error.
func space(data []byte, i int, compact bool) int {
	if compact {
		return i
	}
	return SkipSpace(data, i)
}

func skip(data []byte, i, depth int, compact bool) (int, Kind, error) {
	if i >= len(data) {
		return i, Invalid, ErrSyntax
	}
	switch c := data[i]; {
	case c == '{':
		if depth >= maxDepth {
			return i, Invalid, ErrSyntax
		}
		i = space(data, i+1, compact)
		if i < len(data) && data[i] == '}' {
			return i + 1, Object, nil
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return i, Invalid, ErrSyntax
			}
			var err error
			if i, err = skipString(data, i); err != nil {
				return i, Invalid, err
			}
			i = space(data, i, compact)
			if i >= len(data) || data[i] != ':' {
				return i, Invalid, ErrSyntax
			}
			i = space(data, i+1, compact)
			if i, _, err = skip(data, i, depth+1, compact); err != nil {
				return i, Invalid, err
			}
			i = space(data, i, compact)
			if i >= len(data) {
				return i, Invalid, ErrSyntax
			}
			if data[i] == '}' {
				return i + 1, Object, nil
			}
			if data[i] != ',' {
				return i, Invalid, ErrSyntax
			}
			i = space(data, i+1, compact)
		}
	case c == '[':
		if depth >= maxDepth {
			return i, Invalid, ErrSyntax
		}
		i = space(data, i+1, compact)
		if i < len(data) && data[i] == ']' {
			return i + 1, Array, nil
		}
		for {
			var err error
			if i, _, err = skip(data, i, depth+1, compact); err != nil {
				return i, Invalid, err
			}
			i = space(data, i, compact)
			if i >= len(data) {
				return i, Invalid, ErrSyntax
			}
			if data[i] == ']' {
				return i + 1, Array, nil
			}
			if data[i] != ',' {
				return i, Invalid, ErrSyntax
			}
			i = space(data, i+1, compact)
		}
	case c == '"':
		end, err := skipString(data, i)
		return end, String, err
	case c == 't':
		return literal(data, i, "true", Bool)
	case c == 'f':
		return literal(data, i, "false", Bool)
	case c == 'n':
		return literal(data, i, "null", Null)
	case c == '-' || (c >= '0' && c <= '9'):
		end, err := skipNumber(data, i)
		return end, Number, err
	}
	return i, Invalid, ErrSyntax
}

func literal(data []byte, i int, lit string, k Kind) (int, Kind, error) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), k, nil
	}
	return i, Invalid, ErrSyntax
}

// skipString validates the string starting at data[i] == '"'. Runs of
// plain bytes (neither '"', '\\' nor a control character) are skipped
// eight at a time: object keys and string values are most of what
// mcpkit scans.
func skipString(data []byte, i int) (int, error) {
	i++
	for {
		for len(data)-i >= 8 {
			if m := specialBytes(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3 // the first special byte
				break
			}
			i += 8
		}
		// data[i] is special, or fewer than eight bytes are left.
		for {
			if i >= len(data) {
				return i, ErrSyntax
			}
			c := data[i]
			if c == '"' {
				return i + 1, nil
			}
			if c < 0x20 {
				return i, ErrSyntax
			}
			i++
			if c != '\\' {
				continue
			}
			if i >= len(data) {
				return i, ErrSyntax
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(data)-i < 5 {
					return i, ErrSyntax
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return i, ErrSyntax
					}
				}
				i += 5
			default:
				return i, ErrSyntax
			}
			break
		}
	}
}

// scanString is skipString for a key, that also reports whether the key
// is ASCII without escapes: its raw bytes are then its decoding
// (plainKey), found on the way. It is kept apart from skipString, which
// reads string values too, so that they do not pay for the flag.
func scanString(data []byte, i int) (end int, ascii bool, err error) {
	const highs = 0x8080808080808080
	var seen uint64 // the bytes passed, ORed: a top bit set is a byte past ASCII
	i++
	for {
		for len(data)-i >= 8 {
			v := binary.LittleEndian.Uint64(data[i:])
			if m := specialBytes(v); m != 0 {
				seen |= v & (m&-m - 1)            // the bytes before the special one
				i += bits.TrailingZeros64(m) >> 3 // the first special byte
				break
			}
			seen |= v
			i += 8
		}
		// data[i] is special, or fewer than eight bytes are left.
		for {
			if i >= len(data) {
				return i, false, ErrSyntax
			}
			c := data[i]
			if c == '"' {
				return i + 1, seen&highs == 0, nil
			}
			if c < 0x20 {
				return i, false, ErrSyntax
			}
			i++
			if c != '\\' {
				seen |= uint64(c)
				continue
			}
			seen |= 0x80 // an escape
			if i >= len(data) {
				return i, false, ErrSyntax
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(data)-i < 5 {
					return i, false, ErrSyntax
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return i, false, ErrSyntax
					}
				}
				i += 5
			default:
				return i, false, ErrSyntax
			}
			break
		}
	}
}

// specialBytes sets the top bit of each byte of v (read little-endian)
// that is '"', '\\' or below 0x20, and perhaps of bytes after the first
// such one (the bit tricks of "Bit Twiddling Hacks": a byte is zero, or
// less than n, when subtracting borrows into its top bit; a borrow
// may flag the byte above). Its lowest set bit is exact: zero means no
// special byte.
func specialBytes(v uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := v ^ (ones * '"')
	b := v ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (v-ones*0x20)&^v) & highs
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber validates a number per RFC 8259.
func skipNumber(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, ErrSyntax
	}
	if data[i] == '0' {
		i++
	} else if data[i] >= '1' && data[i] <= '9' {
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	} else {
		return i, ErrSyntax
	}
	if i < len(data) && data[i] == '.' {
		i++
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			return i, ErrSyntax
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			return i, ErrSyntax
		}
	}
	return i, nil
}

// Members calls fn for each member of the object value (already validated
// with Skip) in order. key is the raw key without quotes, possibly holding
// escapes (use KeyEquals or Unquote); value is the raw member value. fn
// returns false to stop.
func Members(obj []byte, fn func(key, value []byte) bool) {
	i := SkipSpace(obj, 1) // past '{'
	for i < len(obj) && obj[i] == '"' {
		kend, _ := skipString(obj, i)
		key := obj[i+1 : kend-1]
		i = SkipSpace(obj, kend)
		i = SkipSpace(obj, i+1) // past ':'
		vend, _, _ := Skip(obj, i)
		if !fn(key, obj[i:vend]) {
			return
		}
		i = SkipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = SkipSpace(obj, i+1)
		}
	}
}

// Elements calls fn for each element of the array value (already
// validated) in order; fn returns false to stop.
func Elements(arr []byte, fn func(value []byte) bool) {
	i := SkipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		end, _, _ := Skip(arr, i)
		if !fn(arr[i:end]) {
			return
		}
		i = SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = SkipSpace(arr, i+1)
		}
	}
}

// KindOf returns the kind of a raw value by its first byte.
func KindOf(v []byte) Kind {
	if len(v) == 0 {
		return Invalid
	}
	switch v[0] {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// KeyEquals reports whether the raw (still escaped) key equals name.
func KeyEquals(rawKey []byte, name string) bool {
	if bytes.IndexByte(rawKey, '\\') < 0 {
		return string(rawKey) == name
	}
	s, ok := unquoteSlow(rawKey)
	return ok && s == name
}

// StringValue returns the Go string of a raw JSON string value (with its
// quotes). It allocates only the result.
func StringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquoteSlow(inner)
}

// StringEquals reports whether the raw JSON string value v equals s,
// without allocating in the common case.
func StringEquals(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner) == s
	}
	got, ok := unquoteSlow(inner)
	return ok && got == s
}

// StringLen returns the length in Unicode code points of a raw JSON string
// value, as JSON Schema's minLength and maxLength count.
func StringLen(v []byte) int {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return utf8.RuneCount(inner)
	}
	s, _ := unquoteSlow(inner)
	return utf8.RuneCountInString(s)
}

// unquoteSlow decodes the inside of a JSON string holding escapes or
// bytes that are not valid UTF-8, exactly as encoding/json does (invalid
// UTF-8 and unpaired surrogates become U+FFFD), in one pass and with one
// allocation beside the result. ok is false for what encoding/json
// refuses: a control character, an unescaped quote, a bad escape.
func unquoteSlow(inner []byte) (string, bool) {
	buf := make([]byte, 0, len(inner))
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\':
			if i+1 >= len(inner) {
				return "", false
			}
			switch e := inner[i+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r := hex4(inner[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A valid pair is one rune; anything else is U+FFFD,
					// and what follows is read on its own.
					if r2 := hex4(inner[i:]); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							buf = utf8.AppendRune(buf, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(inner[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, inner[i:i+size]...)
			}
			i += size
		}
	}
	return string(buf), true
}

// hex4 returns the code unit of the escape \uXXXX at the start of s, or -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
