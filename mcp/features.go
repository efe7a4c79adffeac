package mcp

import (
	"encoding/base64"
	"slices"
	"strings"
)

// featureSet holds one kind of feature (tools, prompts, resources) by key,
// in key order, so that pagination is stable while features come and go.
type featureSet[T any] struct {
	byKey map[string]T
	keys  []string // sorted
}

func (f *featureSet[T]) len() int { return len(f.keys) }

func (f *featureSet[T]) get(key string) (T, bool) {
	v, ok := f.byKey[key]
	return v, ok
}

// put adds or replaces v under key and reports whether the key was new.
func (f *featureSet[T]) put(key string, v T) bool {
	if f.byKey == nil {
		f.byKey = make(map[string]T)
	}
	_, existed := f.byKey[key]
	f.byKey[key] = v
	if !existed {
		i, _ := slices.BinarySearch(f.keys, key)
		f.keys = slices.Insert(f.keys, i, key)
	}
	return !existed
}

// remove deletes the keys and reports whether any existed.
func (f *featureSet[T]) remove(keys ...string) bool {
	removed := false
	for _, key := range keys {
		if _, ok := f.byKey[key]; !ok {
			continue
		}
		delete(f.byKey, key)
		i, _ := slices.BinarySearch(f.keys, key)
		f.keys = slices.Delete(f.keys, i, i+1)
		removed = true
	}
	return removed
}

// page returns up to size items after the cursor, and the cursor of the
// next page ("" on the last page). Cursors are opaque to clients
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination);
// ours encode the last key returned, so a page stays correct when features
// are added or removed between calls. An invalid cursor is an error -32602.
func (f *featureSet[T]) page(cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		after, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", errInvalidParams("invalid cursor")
		}
		start, _ = slices.BinarySearch(f.keys, after)
		if start < len(f.keys) && f.keys[start] == after {
			start++
		}
	}
	end := min(start+size, len(f.keys))
	out := make([]T, 0, end-start)
	for _, k := range f.keys[start:end] {
		out = append(out, f.byKey[k])
	}
	next := ""
	if end < len(f.keys) {
		next = encodeCursor(f.keys[end-1])
	}
	return out, next, nil
}

const cursorPrefix = "mcpkit:"

func encodeCursor(lastKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + lastKey))
}

func decodeCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", err
	}
	s, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok {
		return "", errInvalidParams("invalid cursor")
	}
	return s, nil
}
