package jsonscan

// ScanObject validates the object that starts at data[i] (data[i] == '{')
// and calls fn for each of its members in order, with the raw key (without
// quotes, possibly holding escapes) and the raw value. It returns the index
// just after the object. It reads the object once, where Skip followed by
// Members reads it twice. On an error fn may already have been called for
// the members before it: the caller discards what it collected.
func ScanObject(data []byte, i int, fn func(key, value []byte)) (end int, err error) {
	return scanObject(data, i, 0, fn)
}

// ScanObjectAt is ScanObject for an object nested depth levels deep in the
// document being validated (see SkipAt).
func ScanObjectAt(data []byte, i, depth int, fn func(key, value []byte)) (end int, err error) {
	if depth >= maxDepth {
		return i, ErrSyntax
	}
	return scanObject(data, i, depth, fn)
}

func scanObject(data []byte, i, depth int, fn func(key, value []byte)) (end int, err error) {
	if i >= len(data) || data[i] != '{' {
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
		i = SkipSpace(data, i+1)
		start := i
		if i, _, err = skip(data, i, depth+1, false); err != nil {
			return i, err
		}
		fn(key, data[start:i])
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
