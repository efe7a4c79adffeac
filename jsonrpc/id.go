package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ID identifies a request and the response that answers it. MCP allows a
// string or an integer and forbids null on a request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#requests).
// The zero ID is "no id": it is what a notification has, and what a response
// to an unidentifiable request carries (encoded as null).
//
// ID is a comparable value type, so it can key a map of pending requests.
type ID struct {
	kind idKind
	num  int64
	str  string
}

type idKind uint8

const (
	idNone idKind = iota
	idInt
	idString
)

// Int64ID returns an integer ID.
func Int64ID(n int64) ID { return ID{kind: idInt, num: n} }

// StringID returns a string ID. The empty string is a valid ID.
func StringID(s string) ID { return ID{kind: idString, str: s} }

// IsValid reports whether the ID is a string or an integer rather than absent.
func (id ID) IsValid() bool { return id.kind != idNone }

// IsString reports whether the ID is a string.
func (id ID) IsString() bool { return id.kind == idString }

// Int64 returns the integer value and whether the ID is an integer.
func (id ID) Int64() (int64, bool) { return id.num, id.kind == idInt }

// Str returns the string value and whether the ID is a string.
func (id ID) Str() (string, bool) { return id.str, id.kind == idString }

// Raw returns the ID as the Go value it encodes from: int64, string, or nil.
func (id ID) Raw() any {
	switch id.kind {
	case idInt:
		return id.num
	case idString:
		return id.str
	}
	return nil
}

// String formats the ID for logs: integers plainly, strings quoted, and
// "null" for the zero ID.
func (id ID) String() string {
	switch id.kind {
	case idInt:
		return strconv.FormatInt(id.num, 10)
	case idString:
		return strconv.Quote(id.str)
	}
	return "null"
}

// AppendJSON appends the JSON encoding of the ID to dst.
func (id ID) AppendJSON(dst []byte) []byte {
	switch id.kind {
	case idInt:
		return strconv.AppendInt(dst, id.num, 10)
	case idString:
		return appendString(dst, id.str)
	}
	return append(dst, "null"...)
}

// MarshalJSON implements [json.Marshaler].
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// UnmarshalJSON implements [json.Unmarshaler]. It accepts a string, an
// integer that fits in int64, or null (the zero ID); anything else is an error.
func (id *ID) UnmarshalJSON(data []byte) error {
	v, err := parseID(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// errBadID is returned for an id that is neither string, integer nor null.
var errBadID = fmt.Errorf("id must be a string or an integer")

// parseID reads a raw JSON id. Null yields the zero ID.
func parseID(raw []byte) (ID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, errBadID
	}
	switch raw[0] {
	case 'n':
		if string(raw) == "null" {
			return ID{}, nil
		}
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return ID{}, errBadID
		}
		return StringID(s), nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if n, ok := smallInt(raw); ok {
			return Int64ID(n), nil
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			// Fractions, exponents and integers beyond int64 are not
			// integers MCP peers can echo faithfully.
			return ID{}, errBadID
		}
		return Int64ID(n), nil
	}
	return ID{}, errBadID
}

// smallInt reads raw, when it is a non-negative integer of at most 18
// digits (which cannot overflow int64), as strconv.ParseInt would: the ids
// clients send, without the string ParseInt needs.
func smallInt(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
