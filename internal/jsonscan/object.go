package jsonscan

// ScanObject validates the object that starts at data[i] (data[i] == '{')
// and calls fn for each of its members in order, with the raw key (without
// quotes, possibly holding escapes) and the raw value. It returns the index
// just after the object. It reads the object once, where Skip followed by
// Members reads it twice. On an error fn may already have been called for
// the members before it: the caller discards what it collected.
func ScanObject(data []byte, i int, fn func(key, value []byte)) (end int, err error) {
	return ScanObjectAt(data, i, 0, fn)
}

// ScanObjectAt is ScanObject for an object nested depth levels deep in the
// document being validated (see SkipAt).
func ScanObjectAt(data []byte, i, depth int, fn func(key, value []byte)) (end int, err error) {
	return WalkObjectAt(data, i, depth, func(key []byte, i int) (int, error) {
		end, _, err := skip(data, i, depth+1, false)
		if err == nil {
			fn(key, data[i:end])
		}
		return end, err
	})
}

// WalkObjectAt validates the object that starts at data[i], nested depth
// levels deep in the document (see SkipAt), as ScanObjectAt does, but lets
// value read each member's value itself: given the raw key and the index
// where the value starts, it returns the index just past the value,
// having validated it (with SkipAt(data, i, depth+1), or a walk of its own
// one level deeper), so that a value read for what it holds is read once.
// It returns the index just after the object.
func WalkObjectAt(data []byte, i, depth int, value func(key []byte, i int) (end int, err error)) (end int, err error) {
	if depth >= maxDepth || i >= len(data) || data[i] != '{' {
		return i, ErrSyntax
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, ErrSyntax
		}
		kend, err := skipString(data, i)
		if err != nil {
			return kend, err
		}
		key := data[i+1 : kend-1]
		i = SkipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return i, ErrSyntax
		}
		if i, err = value(key, SkipSpace(data, i+1)); err != nil {
			return i, err
		}
		i = SkipSpace(data, i)
		if i >= len(data) {
			return i, ErrSyntax
		}
		if data[i] == '}' {
			return i + 1, nil
		}
		if data[i] != ',' {
			return i, ErrSyntax
		}
		i = SkipSpace(data, i+1)
	}
}
