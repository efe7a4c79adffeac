package mcp

import "slices"

// featureSet holds one kind of feature (tools, prompts, resources) by key,
// in key order, so that pagination is stable while features come and go.
type featureSet[T any] struct {
	byKey map[string]T
	keys  []string // sorted
	// version counts the changes: the list pages in cache are those of one
	// version (list.go).
	version uint64
	cache   pageCache
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
	f.version++
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
		f.version++
		removed = true
	}
	return removed
}
