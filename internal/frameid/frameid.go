// Package frameid finds the top-level "id" of a JSON-RPC message too large
// to keep, and whether it has a top-level "method", while the message is
// discarded piece by piece: the stdio transports (a line) and the SSE
// reader (an event's data) use it to answer an oversized request at its id
// or fail the call an oversized response answers
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#responses).
package frameid

import (
	"bytes"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// MaxIDBytes bounds the raw bytes of an id the frame scanner keeps:
// a longer id is not reported.
const MaxIDBytes = 256

// maxScanDepth bounds the nesting the frame scanner follows, as
// encoding/json and internal/jsonscan do.
const maxScanDepth = 10000

// States of Scanner.
const (
	fsStart        uint8 = iota // before the top-level '{'
	fsFirstKey                  // after '{': a key or '}'
	fsKey                       // after ',': a key
	fsInKey                     // inside a top-level key
	fsColon                     // after a key
	fsValue                     // after ':'
	fsString                    // inside a top-level string value
	fsScalar                    // inside a top-level number or literal
	fsAfterValue                // after a top-level value: ',' or '}'
	fsNested                    // inside a nested object or array
	fsNestedString              // inside a string within one
	fsDone                      // after the top-level '}'
	fsBad                       // not an object this scanner accepts
)

// Which top-level member a value belongs to.
const (
	fmOther uint8 = iota
	fmID
	fmMethod
)

// Scanner reads a frame too large to keep, piece by piece, in
// constant memory (but for a bit per nesting level), and finds its
// top-level "id" member and whether it has a top-level "method" member,
// so that the message can be answered or its call failed. Member names
// are matched byte for byte (an escaped name is another name). Nested
// values are followed only to find where they end; scalars other than the
// id are not checked. The id is reported only when the frame is one
// object, with exactly one "id", a string or an integer of at most
// MaxIDBytes raw bytes.
type Scanner struct {
	state  uint8
	member uint8 // the member whose value is being read
	esc    bool  // inside a string, after a backslash
	keyBad bool  // the key holds an escape or is longer than key
	keyLen int
	key    [len("method")]byte
	depth  int
	arrays []uint64 // bit d-1 set: nesting level d is an array
	id     []byte   // the raw id, up to MaxIDBytes (+1 to tell)
	ids    int
	method bool
}

// Reset makes s ready for the next frame, keeping its buffers; the zero
// Scanner is ready for its first.
func (s *Scanner) Reset() {
	arrays, id := s.arrays[:0], s.id[:0]
	*s = Scanner{arrays: arrays, id: id}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// keepID appends b to the raw id, up to one byte past the bound.
func (s *Scanner) keepID(b []byte) {
	if s.member != fmID {
		return
	}
	if room := MaxIDBytes + 1 - len(s.id); len(b) > room {
		b = b[:room]
	}
	s.id = append(s.id, b...)
}

// Write feeds the next piece of the frame.
func (s *Scanner) Write(p []byte) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch s.state {
		case fsStart, fsDone:
			switch {
			case isSpace(c):
			case c == '{' && s.state == fsStart:
				s.state = fsFirstKey
			default:
				s.state = fsBad
			}
		case fsFirstKey, fsKey:
			switch {
			case isSpace(c):
			case c == '"':
				s.state, s.keyLen, s.keyBad, s.esc = fsInKey, 0, false, false
			case c == '}' && s.state == fsFirstKey:
				s.state = fsDone
			default:
				s.state = fsBad
			}
		case fsInKey:
			switch {
			case s.esc:
				s.esc = false
			case c == '"':
				s.state = fsColon
				s.member = fmOther
				if !s.keyBad {
					switch string(s.key[:s.keyLen]) {
					case "id":
						s.member = fmID
						s.ids++
					case "method":
						s.member = fmMethod
						s.method = true
					}
				}
			case c == '\\':
				// An escaped name is not "id" nor "method"; the escaped
				// byte (a quote, say) is skipped.
				s.keyBad, s.esc = true, true
			case c < 0x20:
				s.state = fsBad
			case s.keyLen < len(s.key):
				s.key[s.keyLen] = c
				s.keyLen++
			default:
				s.keyBad = true
			}
		case fsColon:
			switch {
			case isSpace(c):
			case c == ':':
				s.state = fsValue
			default:
				s.state = fsBad
			}
		case fsValue:
			switch {
			case isSpace(c):
			case c == '"':
				s.state, s.esc = fsString, false
				s.keepID(p[i : i+1])
			case c == '{' || c == '[':
				s.state, s.depth = fsNested, 0
				if !s.push(c) {
					s.state = fsBad
				}
			case c == '}' || c == ']' || c == ',' || c == ':':
				s.state = fsBad
			default:
				s.state = fsScalar
				s.keepID(p[i : i+1])
			}
		case fsString:
			// Up to the closing quote, escapes skipped.
			j := i
			for ; j < len(p); j++ {
				b := p[j]
				if s.esc {
					s.esc = false
					continue
				}
				if b == '\\' {
					s.esc = true
				} else if b == '"' {
					break
				} else if b < 0x20 {
					s.state = fsBad
					break
				}
			}
			if s.state == fsBad {
				return
			}
			if j == len(p) {
				s.keepID(p[i:])
				return
			}
			s.keepID(p[i : j+1])
			s.state = fsAfterValue
			i = j
		case fsScalar:
			switch {
			case isSpace(c) || c == ',' || c == '}':
				s.state = fsAfterValue
				i-- // read c again as what follows the value
			case c == '{' || c == '[' || c == ']' || c == '"' || c == ':':
				s.state = fsBad
			default:
				s.keepID(p[i : i+1])
			}
		case fsAfterValue:
			switch {
			case isSpace(c):
			case c == ',':
				s.state = fsKey
			case c == '}':
				s.state = fsDone
			default:
				s.state = fsBad
			}
		case fsNested:
			switch c {
			case '"':
				s.state, s.esc = fsNestedString, false
			case '{', '[':
				if !s.push(c) {
					s.state = fsBad
				}
			case '}', ']':
				if !s.pop(c) {
					s.state = fsBad
				} else if s.depth == 0 {
					s.state = fsAfterValue
				}
			}
		case fsNestedString:
			if s.esc {
				s.esc = false
				continue
			}
			// Jump to the next quote or backslash.
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
			if p[i] == '\\' {
				s.esc = true
			} else {
				s.state = fsNested
			}
		case fsBad:
			return
		}
	}
}

// push enters a nested object or array; false past maxScanDepth.
func (s *Scanner) push(c byte) bool {
	if s.depth >= maxScanDepth {
		return false
	}
	w, bit := s.depth/64, uint64(1)<<(s.depth%64)
	for len(s.arrays) <= w {
		s.arrays = append(s.arrays, 0)
	}
	if c == '[' {
		s.arrays[w] |= bit
	} else {
		s.arrays[w] &^= bit
	}
	s.depth++
	return true
}

// pop leaves a nested object or array; false if c does not close it.
func (s *Scanner) pop(c byte) bool {
	if s.depth == 0 {
		return false
	}
	s.depth--
	isArray := s.arrays[s.depth/64]&(uint64(1)<<(s.depth%64)) != 0
	return isArray == (c == ']')
}

// Result returns the id found (the zero ID if none, more than one, or one
// that is not a string or integer within the bound) and whether a "method"
// member was found, once the whole frame has been written. Both are zero
// unless the frame was a well-formed object.
func (s *Scanner) Result() (id jsonrpc.ID, method bool) {
	if s.state != fsDone {
		return jsonrpc.ID{}, false
	}
	if s.ids == 1 && len(s.id) <= MaxIDBytes && id.UnmarshalJSON(s.id) != nil {
		id = jsonrpc.ID{}
	}
	return id, s.method
}
