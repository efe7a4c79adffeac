package jsonrpc

import (
	"strconv"
	"testing"
)

// FuzzSmallInt: parseID's fast path for integer ids reads what
// strconv.ParseInt reads, or leaves the id to it.
func FuzzSmallInt(f *testing.F) {
	for _, s := range []string{"0", "7", "007", "123456789012345678", "1234567890123456789", "9223372036854775807", "-1", "1e3", "1.0", "", "+1", "1_000"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, ok := smallInt(raw)
		if !ok {
			return
		}
		want, err := strconv.ParseInt(string(raw), 10, 64)
		if len(raw) == 0 {
			return // parseID refuses an empty id before
		}
		if err != nil || n != want {
			t.Fatalf("smallInt(%q) = %d; ParseInt: %d, %v", raw, n, want, err)
		}
	})
}
