package jsonscan

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
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
// zero value is ready; Reset makes it ready for another object and keeps
// its memory, so that a reader that keeps one (in a sync.Pool) notes the
// names of small objects without allocating.
type Names struct {
	keys [][]byte
	set  map[string]struct{}
}

// linearNames is how many names Names compares one by one before it
// indexes them in a map, so that an object of many members costs linear
// time.
const linearNames = 32

// Add notes the raw (still escaped) key and reports false when an earlier
// key of the same object decodes to the same name.
func (n *Names) Add(rawKey []byte) bool {
	key := normalKey(rawKey)
	if n.set != nil {
		if _, dup := n.set[string(key)]; dup {
			return false
		}
		n.set[string(key)] = struct{}{}
		return true
	}
	for _, k := range n.keys {
		if string(k) == string(key) {
			return false
		}
	}
	n.keys = append(n.keys, key)
	if len(n.keys) >= linearNames {
		n.set = make(map[string]struct{}, 2*linearNames)
		for _, k := range n.keys {
			n.set[string(k)] = struct{}{}
		}
	}
	return true
}

// Reset forgets the names noted so far.
func (n *Names) Reset() {
	clear(n.keys)
	n.keys = n.keys[:0]
	n.set = nil
}

// normalKey returns the decoded name of a raw key: the key itself when it
// holds no escape and is valid UTF-8 (the usual case), else its decoding,
// in which invalid UTF-8 is U+FFFD as every decoder reads it.
func normalKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 && (ascii(raw) || utf8.Valid(raw)) {
		return raw
	}
	s, _ := unquoteSlow(raw)
	return []byte(s)
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// UniqueSkipper skips values as SkipAt does while refusing repeated
// member names. Its zero value is ready; it keeps its memory between
// calls, so a reader that keeps one skips without allocating.
type UniqueSkipper struct {
	// keys is a stack of the names of the objects being read, dup the
	// first repeated name found.
	keys [][]byte
	dup  *DuplicateError
}

var uniqueSkippers = sync.Pool{New: func() any { return new(UniqueSkipper) }}

// SkipUniqueAt is SkipAt that also refuses an object, at any depth of the
// value, whose member names repeat. A syntax error anywhere in the value
// outranks a repeated name: err is ErrSyntax for invalid JSON, else a
// *DuplicateError for the first repeated name, with end just after the
// value as SkipAt gives it.
func SkipUniqueAt(data []byte, i, depth int) (end int, kind Kind, err error) {
	if i < len(data) && data[i] != '{' && data[i] != '[' {
		return skip(data, i, depth, false) // a scalar has no names
	}
	u := uniqueSkippers.Get().(*UniqueSkipper)
	end, kind, err = u.SkipAt(data, i, depth)
	uniqueSkippers.Put(u)
	return end, kind, err
}

// SkipAt is SkipUniqueAt with u's memory.
func (u *UniqueSkipper) SkipAt(data []byte, i, depth int) (end int, kind Kind, err error) {
	if i < len(data) && data[i] != '{' && data[i] != '[' {
		return skip(data, i, depth, false)
	}
	end, kind, err = u.skip(data, i, depth)
	if err == nil && u.dup != nil {
		err = u.dup
	}
	clear(u.keys)
	u.keys, u.dup = u.keys[:0], nil
	return end, kind, err
}

// skip is the skip function of scan.go, noting each object's member
// names on u.keys while the object is read.
func (u *UniqueSkipper) skip(data []byte, i, depth int) (int, Kind, error) {
	if i >= len(data) {
		return i, Invalid, ErrSyntax
	}
	switch data[i] {
	case '{':
		if depth >= maxDepth {
			return i, Invalid, ErrSyntax
		}
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, Object, nil
		}
		base := len(u.keys)
		var set map[string]struct{}
		defer func() { clear(u.keys[base:]); u.keys = u.keys[:base] }()
		for {
			if i >= len(data) || data[i] != '"' {
				return i, Invalid, ErrSyntax
			}
			kstart := i
			kend, err := skipString(data, i)
			if err != nil {
				return kend, Invalid, err
			}
			if u.dup == nil {
				set = u.note(data, kstart, kend, base, set)
			}
			i = SkipSpace(data, kend)
			if i >= len(data) || data[i] != ':' {
				return i, Invalid, ErrSyntax
			}
			i = SkipSpace(data, i+1)
			if i < len(data) && (data[i] == '{' || data[i] == '[') {
				if i, _, err = u.skip(data, i, depth+1); err != nil {
					return i, Invalid, err
				}
			} else if i, _, err = skip(data, i, depth+1, false); err != nil {
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
			if i < len(data) && (data[i] == '{' || data[i] == '[') {
				i, _, err = u.skip(data, i, depth+1)
			} else {
				i, _, err = skip(data, i, depth+1, false)
			}
			if err != nil {
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

// note adds the key at data[kstart:kend] (quotes included) to the names
// of the object whose names start at u.keys[base], recording the first
// repeat in u.dup. Past linearNames names the object's names are indexed
// in set, which note returns.
func (u *UniqueSkipper) note(data []byte, kstart, kend, base int, set map[string]struct{}) map[string]struct{} {
	key := normalKey(data[kstart+1 : kend-1])
	if set != nil {
		if _, dup := set[string(key)]; dup {
			u.dup = &DuplicateError{Name: string(key), Offset: kstart}
		}
		set[string(key)] = struct{}{}
		return set
	}
	for _, k := range u.keys[base:] {
		if string(k) == string(key) {
			u.dup = &DuplicateError{Name: string(key), Offset: kstart}
			return nil
		}
	}
	u.keys = append(u.keys, key)
	if len(u.keys)-base >= linearNames {
		set = make(map[string]struct{}, 2*linearNames)
		for _, k := range u.keys[base:] {
			set[string(k)] = struct{}{}
		}
	}
	return set
}

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
					b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(name))
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
