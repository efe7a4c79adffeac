package jsonscan

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DuplicateError reports an object member whose name repeats a member of
// the same object. Names are compared as decoded strings, so "a" and
// "\u0061" are the same name, as every JSON decoder reads them.
type DuplicateError struct {
	// Name is the decoded member name.
	Name string
	// Offset is the index in the scanned data of the opening quote of the
	// second member with that name.
	Offset int
}

func (e *DuplicateError) Error() string {
	return "duplicate member " + strconv.Quote(e.Name)
}

// Names notes the member names of one object and tells which repeats. Its
// zero value is ready, and small enough to live on the stack: the first
// eight plain names (no escape, valid UTF-8) are kept as offsets in the
// value itself; more, or one that needs decoding, move them all to a list
// allocated then.
type Names struct {
	small [smallNames]keyRef
	n     int
	spill *keyList
}

// smallNames is how many plain names a Names keeps without allocating.
const smallNames = 8

// Add notes the raw (still escaped) key, a sub-slice of data, and reports
// false when an earlier key of the same object decodes to the same name.
// Every key of one object must come from the same data.
func (n *Names) Add(data, rawKey []byte) bool {
	start := cap(data) - cap(rawKey)
	return n.add(data, start, start+len(rawKey), false)
}

// add is Add for the key data[start:end]; ascii, when set, says it is
// ASCII without escapes, as scanString found.
func (n *Names) add(data []byte, start, end int, ascii bool) bool {
	if n.spill == nil {
		raw := data[start:end]
		if n.n < smallNames && (ascii || plainKey(raw)) {
			for _, r := range n.small[:n.n] {
				if int(r.end-r.start) == len(raw) && string(data[r.start:r.end]) == string(raw) {
					return false
				}
			}
			n.small[n.n] = keyRef{start: int32(start), end: int32(end)}
			n.n++
			return true
		}
		n.spill = new(keyList)
		n.spill.refs = append(n.spill.refs, n.small[:n.n]...)
	}
	return n.spill.add(data, start, end)
}

// linearNames is how many names of one object are compared one by one
// before they are indexed in a map, so that an object of many members
// costs linear time.
const linearNames = 32

// keyRef is a member name: data[start:end] as it stands in the document,
// or arena[start:end] once decoded when it holds escapes or invalid
// UTF-8. Offsets rather than slices keep the list free of pointers.
type keyRef struct {
	start, end int32
	decoded    bool
}

// keyList is the names of one object past what Names keeps in itself;
// past linearNames of them, set indexes them for the lookups.
type keyList struct {
	refs  []keyRef
	arena []byte
	set   map[string]struct{}
}

func (l *keyList) name(data []byte, r keyRef) []byte {
	if r.decoded {
		return l.arena[r.start:r.end]
	}
	return data[r.start:r.end]
}

// add notes the key data[start:end] (without quotes), and reports false
// when it repeats one noted before.
func (l *keyList) add(data []byte, start, end int) bool {
	raw := data[start:end]
	r := keyRef{start: int32(start), end: int32(end)}
	if !plainKey(raw) {
		s, _ := unquoteSlow(raw)
		r = keyRef{start: int32(len(l.arena)), end: int32(len(l.arena) + len(s)), decoded: true}
		l.arena = append(l.arena, s...)
	}
	key := l.name(data, r)
	if l.set != nil {
		if _, dup := l.set[string(key)]; dup {
			return false
		}
		l.set[string(key)] = struct{}{}
		return true
	}
	for _, k := range l.refs {
		if string(l.name(data, k)) == string(key) {
			return false
		}
	}
	l.refs = append(l.refs, r)
	if len(l.refs) >= linearNames {
		l.set = make(map[string]struct{}, 2*linearNames)
		for _, k := range l.refs {
			l.set[string(l.name(data, k))] = struct{}{}
		}
	}
	return true
}

// plainKey reports whether a raw key is its own decoding: no escape, and
// valid UTF-8. ASCII without a backslash, what keys nearly always are, is
// found in one pass of eight bytes at a time.
func plainKey(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		if x := v ^ (ones * '\\'); (v|(x-ones)&^x)&highs != 0 {
			return plainKeySlow(b)
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf || b[i] == '\\' {
			return plainKeySlow(b)
		}
	}
	return true
}

// plainKeySlow is plainKey for a key that may hold a backslash or a byte
// past ASCII.
func plainKeySlow(b []byte) bool {
	return bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b)
}

// UniqueSkipper skips values as SkipAt does while refusing repeated
// member names. Its zero value is ready; each object's names are noted in
// the stack frame that reads it.
type UniqueSkipper struct {
	dup *DuplicateError // the first repeated name found
}

// SkipUniqueAt is SkipAt that also refuses an object, at any depth of the
// value, whose member names repeat. A syntax error anywhere in the value
// outranks a repeated name: err is ErrSyntax for invalid JSON, else a
// *DuplicateError for the first repeated name, with end just after the
// value as SkipAt gives it.
func SkipUniqueAt(data []byte, i, depth int) (end int, kind Kind, err error) {
	var u UniqueSkipper
	return u.SkipAt(data, i, depth)
}

// SkipAt is SkipUniqueAt; u keeps nothing between calls.
func (u *UniqueSkipper) SkipAt(data []byte, i, depth int) (end int, kind Kind, err error) {
	if i < len(data) && data[i] != '{' && data[i] != '[' {
		return skip(data, i, depth, false) // a scalar has no names
	}
	end, kind, err = u.skip(data, i, depth)
	if err == nil && u.dup != nil {
		err = u.dup
	}
	u.dup = nil
	return end, kind, err
}

// skip is the skip function of scan.go, noting each object's member
// names while the object is read; a scalar is left to skip itself.
func (u *UniqueSkipper) skip(data []byte, i, depth int) (int, Kind, error) {
	if i >= len(data) {
		return i, Invalid, ErrSyntax
	}
	switch data[i] {
	case '{':
		if depth >= maxDepth {
			return i, Invalid, ErrSyntax
		}
		return u.object(data, i, depth)
	case '[':
		if depth >= maxDepth {
			return i, Invalid, ErrSyntax
		}
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, Array, nil
		}
		for {
			var err error
			if i, _, err = u.skip(data, i, depth+1); err != nil {
				return i, Invalid, err
			}
			i = SkipSpace(data, i)
			if i >= len(data) {
				return i, Invalid, ErrSyntax
			}
			if data[i] == ']' {
				return i + 1, Array, nil
			}
			if data[i] != ',' {
				return i, Invalid, ErrSyntax
			}
			i = SkipSpace(data, i+1)
		}
	}
	return skip(data, i, depth, false)
}

// object is skip for the object at data[i].
func (u *UniqueSkipper) object(data []byte, i, depth int) (int, Kind, error) {
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, Object, nil
	}
	var names Names
	for {
		if i >= len(data) || data[i] != '"' {
			return i, Invalid, ErrSyntax
		}
		kstart := i
		kend, ascii, err := scanString(data, i)
		if err != nil {
			return kend, Invalid, err
		}
		if u.dup == nil && !names.add(data, kstart+1, kend-1, ascii) {
			name, _ := StringValue(data[kstart:kend])
			u.dup = &DuplicateError{Name: name, Offset: kstart}
		}
		i = SkipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return i, Invalid, ErrSyntax
		}
		i = SkipSpace(data, i+1)
		if i, _, err = u.skip(data, i, depth+1); err != nil {
			return i, Invalid, err
		}
		i = SkipSpace(data, i)
		if i >= len(data) {
			return i, Invalid, ErrSyntax
		}
		if data[i] == '}' {
			return i + 1, Object, nil
		}
		if data[i] != ',' {
			return i, Invalid, ErrSyntax
		}
		i = SkipSpace(data, i+1)
	}
}

// pointerEscaper escapes a reference token of a JSON Pointer.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// PointerToken returns name as a JSON Pointer reference token, with "~"
// and "/" escaped (RFC 6901 §3).
func PointerToken(name string) string { return pointerEscaper.Replace(name) }

// PointerTo returns the JSON Pointer (RFC 6901) of the innermost object
// or array of the valid value at data[i:] that holds the byte at offset,
// relative to that value: "" for the value itself, "/params/arguments"
// for a member of params' member arguments. It is for error messages,
// such as naming the object of a DuplicateError.
func PointerTo(data []byte, i, offset int) string {
	var b strings.Builder
	for {
		if i >= len(data) {
			return b.String()
		}
		switch data[i] {
		case '{':
			found := false
			ScanObjectAt(data, i, 0, func(key, value []byte) {
				if found {
					return
				}
				start := cap(data) - cap(value)
				if offset >= start && offset < start+len(value) && (value[0] == '{' || value[0] == '[') {
					name, _ := unquoteSlow(key)
					b.WriteByte('/')
					b.WriteString(PointerToken(name))
					i, found = start, true
				}
			})
			if !found {
				return b.String()
			}
		case '[':
			found, n := false, 0
			end, _, _ := Skip(data, i)
			Elements(data[i:end], func(value []byte) bool {
				start := cap(data) - cap(value)
				if offset >= start && offset < start+len(value) && (value[0] == '{' || value[0] == '[') {
					b.WriteByte('/')
					b.WriteString(strconv.Itoa(n))
					i, found = start, true
					return false
				}
				n++
				return true
			})
			if !found {
				return b.String()
			}
		default:
			return b.String()
		}
	}
}
