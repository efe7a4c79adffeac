package mcp

import (
	"sync"
	"unsafe"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// A textCache keeps the JSON-escaped form of the long strings resource
// handlers return again and again, up to
// ServerOptions.ResourceTextCacheBytes, so that a resources/read copies it
// instead of escaping it
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).
// A string is known by its address and length, and admitted the second
// time it is seen; docs/design.md ("Result encoding") says why that is
// safe.
type textCache struct {
	// limit is ServerOptions.ResourceTextCacheBytes, set once in
	// NewServer: negative keeps nothing.
	limit   int
	mu      sync.RWMutex
	entries map[textKey]*textEntry
	order   []textKey // admission order, oldest first: evicted first
	size    int       // bytes held: each entry's string and encoding
	seen    [16]textKey
	next    int // the slot of seen the next first sighting takes
}

type textKey struct {
	p *byte
	n int
}

type textEntry struct {
	src string // held so that its address is not reused
	enc []byte // jsonenc.AppendString(nil, src); never modified
}

func keyOf(s string) textKey { return textKey{unsafe.StringData(s), len(s)} }

// defaultResourceTextCacheBytes is ServerOptions.ResourceTextCacheBytes's
// default: a few large documents.
const defaultResourceTextCacheBytes = 32 << 20

// lookup returns the cached encoding of s, or nil.
func (c *textCache) lookup(s string) []byte {
	c.mu.RLock()
	e := c.entries[keyOf(s)]
	c.mu.RUnlock()
	if e == nil {
		return nil
	}
	return e.enc
}

// offer tells the cache that s was encoded as enc (which the caller may
// reuse afterwards): the second time s is offered, a copy of enc is kept,
// evicting the oldest entries to stay within c.limit bytes. A string that
// alone exceeds the limit is never kept.
func (c *textCache) offer(s string, enc []byte) {
	cost := len(s) + len(enc)
	if cost > c.limit {
		return
	}
	k := keyOf(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[k] != nil {
		return
	}
	repeat := false
	for i, sk := range c.seen {
		if sk == k {
			c.seen[i] = textKey{}
			repeat = true
			break
		}
	}
	if !repeat {
		c.seen[c.next] = k
		c.next = (c.next + 1) % len(c.seen)
		return
	}
	for c.size+cost > c.limit && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		e := c.entries[old]
		c.size -= len(e.src) + len(e.enc)
		delete(c.entries, old)
	}
	if c.entries == nil {
		c.entries = make(map[textKey]*textEntry)
	}
	c.entries[k] = &textEntry{src: s, enc: append([]byte(nil), enc...)}
	c.order = append(c.order, k)
	c.size += cost
}

// encodedText is the escaped form of a long text, from the cache or from
// a pooled buffer (release gives the buffer back).
type encodedText struct {
	b      []byte
	pooled *[]byte
}

func (t encodedText) release() { releaseText(t.pooled) }

// encodeText escapes s (a text or base64 string of at least bigText
// bytes) for appendMembers, through the server's cache c, unless c is nil
// or keeps nothing.
func encodeText(s string, c *textCache) encodedText {
	if c != nil && c.limit >= 0 {
		if enc := c.lookup(s); enc != nil {
			return encodedText{b: enc}
		}
	}
	p, _ := textPool.Get().(*[]byte)
	if p == nil {
		// Sized exactly, so that an empty pool (after a collection, or
		// under the race detector, which drops some of what is put back)
		// costs one allocation and no growth.
		b := make([]byte, 0, jsonenc.StringLen(s))
		p = &b
	}
	*p = jsonenc.AppendString((*p)[:0], s)
	if c != nil && c.limit >= 0 {
		c.offer(s, *p)
	}
	return encodedText{b: *p, pooled: p}
}
