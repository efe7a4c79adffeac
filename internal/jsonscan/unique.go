package jsonscan

import (
	"bytes"
	"encoding/binary"
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
	keys keyList
}

// Add notes the raw (still escaped) key, a sub-slice of data, and reports
// false when an earlier key of the same object decodes to the same name.
// Every key of one object must come from the same data.
func (n *Names) Add(data, rawKey []byte) bool {
	start := cap(data) - cap(rawKey)
	return n.keys.add(data, start, start+len(rawKey), 0)
}

// Reset forgets the names noted so far.
func (n *Names) Reset() { n.keys.truncate(0) }

// linearNames is how many names of one object are compared one by one
// before they are indexed in a map, so that an object of many members
// costs linear time.
const linearNames = 32

// keyRef is a member name: data[start:end] as it stands in the document,
// or arena[start:end] once decoded when it holds escapes or invalid
// UTF-8. Offsets rather than slices keep the list free of pointers, which
// the garbage collector would make every store pay for.
type keyRef struct {
	start, end int32
	decoded    bool
}

// keyList is a stack of the names of the objects being read. Each object's
// names start at a base index; past linearNames of them, sets holds the
// object's names for the lookups.
type keyList struct {
	refs  []keyRef
	arena []byte
	sets  map[int]map[string]struct{} // by base index
}

func (l *keyList) name(data []byte, r keyRef) []byte {
	if r.decoded {
		return l.arena[r.start:r.end]
	}
	return data[r.start:r.end]
}

// add notes the key data[start:end] (without quotes) of the object whose
// names start at base, and reports false when it repeats one of them.
func (l *keyList) add(data []byte, start, end, base int) bool {
	raw := data[start:end]
	r := keyRef{start: int32(start), end: int32(end)}
	if !plainKey(raw) {
		s, _ := unquoteSlow(raw)
		r = keyRef{start: int32(len(l.arena)), end: int32(len(l.arena) + len(s)), decoded: true}
		l.arena = append(l.arena, s...)
	}
	key := l.name(data, r)
	if l.sets != nil {
		if set := l.sets[base]; set != nil {
			if _, dup := set[string(key)]; dup {
				return false
			}
			set[string(key)] = struct{}{}
			return true
		}
	}
	for _, k := range l.refs[base:] {
		if string(l.name(data, k)) == string(key) {
			return false
		}
	}
	l.refs = append(l.refs, r)
	if len(l.refs)-base >= linearNames {
		set := make(map[string]struct{}, 2*linearNames)
		for _, k := range l.refs[base:] {
			set[string(l.name(data, k))] = struct{}{}
		}
		if l.sets == nil {
			l.sets = make(map[int]map[string]struct{})
		}
		l.sets[base] = set
	}
	return true
}

// truncate forgets the names of the objects from base on.
func (l *keyList) truncate(base int) {
	if l.sets != nil {
		for b := range l.sets {
			if b >= base {
				delete(l.sets, b)
			}
		}
	}
	l.refs = l.refs[:base]
	if base == 0 {
		l.arena = l.arena[:0]
	}
}

// plainKey reports whether a raw key is its own decoding: no escape, and
// valid UTF-8.
func plainKey(b []byte) bool {
	if bytes.IndexByte(b, '\\') >= 0 {
		return false
	}
	i := 0
	for ; len(b)-i >= 8; i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			return utf8.Valid(b[i:])
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return utf8.Valid(b[i:])
		}
	}
	return true
}

// UniqueSkipper skips values as SkipAt does while refusing repeated
// member names. Its zero value is ready; it keeps its memory between
// calls, so a reader that keeps one skips without allocating.
type UniqueSkipper struct {
	keys keyList
	dup  *DuplicateError // the first repeated name found
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
	u.keys.truncate(0)
	u.dup = nil
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
		base := len(u.keys.refs)
		end, kind, err := u.object(data, i, depth, base)
		u.keys.truncate(base)
		return end, kind, err
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

// object is skip for the object at data[i], whose names go on u.keys from
// base on.
func (u *UniqueSkipper) object(data []byte, i, depth, base int) (int, Kind, error) {
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, Object, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, Invalid, ErrSyntax
		}
		kstart := i
		kend, err := skipString(data, i)
		if err != nil {
			return kend, Invalid, err
		}
		if u.dup == nil && !u.keys.add(data, kstart+1, kend-1, base) {
			name, _ := StringValue(data[kstart:kend])
			u.dup = &DuplicateError{Name: name, Offset: kstart}
		}
		i = SkipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return i, Invalid, ErrSyntax
		}
		i = SkipSpace(data, i+1)
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
		if data[i] == '}' {
			return i + 1, Object, nil
		}
		if data[i] != ',' {
			return i, Invalid, ErrSyntax
		}
		i = SkipSpace(data, i+1)
	}
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
