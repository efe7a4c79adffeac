package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

var cacheText = strings.Repeat("line \"quoted\" <tag> & \\path\\ — café\n", 1000) // 38 KB

// A string is kept the second time it is offered, as a copy of what was
// offered: the caller's buffer goes back to the pool and is reused.
func TestTextCacheAdmitsOnRepeat(t *testing.T) {
	c := textCache{limit: 1 << 20}
	enc := jsonenc.AppendString(nil, cacheText)
	c.offer(cacheText, enc)
	if got := c.lookup(cacheText); got != nil {
		t.Fatalf("kept after one sighting")
	}
	c.offer(cacheText, enc)
	got := c.lookup(cacheText)
	if string(got) != string(enc) {
		t.Fatalf("lookup after the repeat = %.40q, want the encoding", got)
	}
	enc[1] = 'X'
	if c.lookup(cacheText)[1] == 'X' {
		t.Fatalf("the cache shares the offered buffer")
	}
	if c.size != len(cacheText)+len(got) {
		t.Errorf("size = %d, want %d", c.size, len(cacheText)+len(got))
	}
}

// Strings built anew for every read are never kept.
func TestTextCacheFreshStringsNotKept(t *testing.T) {
	c := textCache{limit: 1 << 30}
	var live []string // held, so that no address is reused
	for range 100 {
		s := strings.Clone(cacheText)
		live = append(live, s)
		c.offer(s, jsonenc.AppendString(nil, s))
	}
	if len(c.entries) != 0 || c.size != 0 {
		t.Fatalf("%d entries, %d bytes kept of strings read once", len(c.entries), c.size)
	}
	_ = live
}

// The key is the address and the length: a prefix of a kept string starts
// at the same address and is not taken for it.
func TestTextCachePrefixIsAnotherString(t *testing.T) {
	c := textCache{limit: 1 << 20}
	enc := jsonenc.AppendString(nil, cacheText)
	c.offer(cacheText, enc)
	c.offer(cacheText, enc)
	if c.lookup(cacheText[:len(cacheText)-1]) != nil {
		t.Fatal("a prefix of a kept string found its encoding")
	}
}

// The bound counts each kept string and its encoding; the oldest goes
// first, and a string over the bound alone is never kept.
func TestTextCacheBound(t *testing.T) {
	a, b := cacheText, strings.Repeat("b", len(cacheText))
	encA, encB := jsonenc.AppendString(nil, a), jsonenc.AppendString(nil, b)
	limit := len(a) + len(encA) + len(b) + len(encB) - 1
	c := textCache{limit: limit}
	for range 2 {
		c.offer(a, encA)
	}
	for range 2 {
		c.offer(b, encB)
	}
	if c.lookup(a) != nil || c.lookup(b) == nil {
		t.Fatalf("kept a: %v, b: %v; want b only", c.lookup(a) != nil, c.lookup(b) != nil)
	}
	if c.size != len(b)+len(encB) || c.size > limit || len(c.order) != 1 {
		t.Fatalf("size %d (limit %d), %d in order", c.size, limit, len(c.order))
	}
	small := textCache{limit: len(a)}
	for range 3 {
		small.offer(a, encA)
	}
	if small.lookup(a) != nil || small.size != 0 {
		t.Fatal("a string over the bound was kept")
	}
}

// End to end, in both eras: the same string read again is served from
// the cache, byte for byte what it was, a string built per read is not,
// and a negative ResourceTextCacheBytes keeps nothing.
func TestResourceTextCacheReads(t *testing.T) {
	for _, era := range []ProtocolEra{EraSession, EraStateless} {
		for _, tc := range []struct {
			name    string
			limit   int
			fresh   bool
			entries int
		}{
			{"same string", 0, false, 1},
			{"string per read", 0, true, 0},
			{"cache off", -1, false, 0},
		} {
			t.Run(fmt.Sprintf("%v/%s", era, tc.name), func(t *testing.T) {
				CheckLeaks(t)
				srv := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{ResourceTextCacheBytes: tc.limit})
				var live []string
				err := srv.AddResource(&Resource{URI: "file:///doc.txt", Name: "doc", MIMEType: "text/plain"},
					func(ctx context.Context, req *Request, p *ReadResourceParams) (*ReadResourceResult, error) {
						s := cacheText
						if tc.fresh {
							s = strings.Clone(cacheText)
							live = append(live, s)
						}
						return &ReadResourceResult{Contents: []*ResourceContents{{URI: p.URI, MIMEType: "text/plain", Text: s}}}, nil
					})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				ct, st := NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolEra: era}).Connect(ctx, ct)
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					cs.Close()
					ss.Wait()
				}()
				for i := range 4 {
					res, err := cs.ReadResource(ctx, &ReadResourceParams{URI: "file:///doc.txt"})
					if err != nil {
						t.Fatalf("read %d: %v", i, err)
					}
					if len(res.Contents) != 1 || res.Contents[0].Text != cacheText || res.Contents[0].MIMEType != "text/plain" {
						t.Fatalf("read %d: contents differ from the resource's text", i)
					}
				}
				srv.texts.mu.RLock()
				n := len(srv.texts.entries)
				srv.texts.mu.RUnlock()
				if n != tc.entries {
					t.Fatalf("%d texts kept, want %d", n, tc.entries)
				}
			})
		}
	}
}

// A read served from the cache allocates its response once and escapes
// nothing.
func TestReadResourceCachedAllocs(t *testing.T) {
	r := &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///big", Text: strings.Repeat("abc\"\n", 200_000)}}}
	c := textCache{limit: 1 << 30}
	want, _ := r.appendFast(nil, nil)
	r.appendFast(&c, nil)
	r.appendFast(&c, nil)
	var got []byte
	if n := testing.AllocsPerRun(10, func() { got, _ = r.appendFast(&c, nil) }); n != 1 {
		t.Errorf("%v allocations, want 1", n)
	}
	if string(got) != string(want) {
		t.Fatal("a cached read differs from an uncached one")
	}
}
