package mcp

// This file holds the server side of every list method, tools/list,
// prompts/list, resources/list, resources/templates/list and tasks/list,
// in both eras: one helper reads the cursor, takes a page and builds the
// result, and the pages of a feature set are encoded once and served from
// that encoding until the set changes
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// A listPage is one page of a list method's result: the items, the cursor
// of the next page ("" on the last) and, for a page of a feature set, its
// encoding (nil for tasks, which differ per caller and change all the
// time).
type listPage[I comparable] struct {
	items []I
	next  string
	enc   *pageEncoding
	start int // the index of the first item in its feature set
}

// encoding returns the page's cached encoding when a result holds exactly
// the page (no _meta, the same items and cursor): a middleware that
// changed the result gets it encoded as it is now.
func (p *listPage[I]) encoding(meta Meta, items []I, next string) *pageEncoding {
	if p == nil || p.enc == nil || len(meta) > 0 || next != p.next || !slices.Equal(items, p.items) {
		return nil
	}
	return p.enc
}

// A pageEncoding is a page's result as encoded for the session era
// (raw, an object whose members follow its '{'), and with the stateless
// era's head for the last method and cache hint it was asked for. Neither
// is ever modified once made: responses share them.
type pageEncoding struct {
	raw    json.RawMessage
	headed atomic.Pointer[headedPage]
}

type headedPage struct {
	method string
	hint   CacheHint
	raw    json.RawMessage
}

// forStateless returns the page with the head h.
func (e *pageEncoding) forStateless(h *resultHead) json.RawMessage {
	hint := h.cacheHint()
	if hp := e.headed.Load(); hp != nil && hp.hint == hint && hp.method == h.method {
		return hp.raw
	}
	raw := append(h.start(make([]byte, 0, h.size()+len(e.raw))), e.raw[1:]...)
	e.headed.Store(&headedPage{method: h.method, hint: hint, raw: raw})
	return raw
}

// A cachedList is a list result that may still be a cached page.
type cachedList interface {
	cachedPage() *pageEncoding
}

func (r *ListToolsResult) cachedPage() *pageEncoding {
	if r == nil {
		return nil
	}
	return r.page.encoding(r.Meta, r.Tools, r.NextCursor)
}

func (r *ListPromptsResult) cachedPage() *pageEncoding {
	if r == nil {
		return nil
	}
	return r.page.encoding(r.Meta, r.Prompts, r.NextCursor)
}

func (r *ListResourcesResult) cachedPage() *pageEncoding {
	if r == nil {
		return nil
	}
	return r.page.encoding(r.Meta, r.Resources, r.NextCursor)
}

func (r *ListResourceTemplatesResult) cachedPage() *pageEncoding {
	if r == nil {
		return nil
	}
	return r.page.encoding(r.Meta, r.ResourceTemplates, r.NextCursor)
}

func toolsResult(pg *listPage[*Tool]) any {
	return &ListToolsResult{Tools: pageItems(pg), NextCursor: pg.next, page: pg}
}

func promptsResult(pg *listPage[*Prompt]) any {
	return &ListPromptsResult{Prompts: pageItems(pg), NextCursor: pg.next, page: pg}
}

func resourcesResult(pg *listPage[*Resource]) any {
	return &ListResourcesResult{Resources: pageItems(pg), NextCursor: pg.next, page: pg}
}

func templatesResult(pg *listPage[*ResourceTemplate]) any {
	return &ListResourceTemplatesResult{ResourceTemplates: pageItems(pg), NextCursor: pg.next, page: pg}
}

// cachedListEncoding returns the session era's encoding of result when it
// is a cached page a handler returned unchanged; nil otherwise.
func cachedListEncoding(result any) json.RawMessage {
	if c, ok := result.(cachedList); ok {
		if e := c.cachedPage(); e != nil {
			return e.raw
		}
	}
	return nil
}

// A pager gives the pages of one list: up to size items after cursor.
// A cursor it did not issue is errInvalidCursor.
type pager[I comparable] func(cursor string, size int) (*listPage[I], error)

// serveList serves one list method: it reads params.cursor, takes the page
// from pages and makes the method's result of it with result. Params that
// are not an object with a string cursor, and a cursor the server did not
// issue, are -32602, as the spec asks
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination#error-handling).
func serveList[I comparable](s *Server, r *Request, pages pager[I], result func(*listPage[I]) any) (any, error) {
	var p PaginatedParams
	if err := unmarshalParams(r.Params, &p); err != nil {
		return nil, err
	}
	pg, err := pages(p.Cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return result(pg), nil
}

// serveFeatures serves the list method of one feature set, from its
// cached pages.
func serveFeatures[T any, I comparable](s *Server, r *Request, set *featureSet[T], item func(T) I, result func(*listPage[I]) any) (any, error) {
	return serveList(s, r, featurePages(s, r.Method, set, item, result), result)
}

// errInvalidCursor is the -32602 a cursor the server did not issue gets.
func errInvalidCursor(method string) error {
	return errInvalidParams("invalid cursor: not one " + method + " issued; list again without a cursor")
}

// featurePages returns the pager of one feature set of s: its pages are
// taken under s.mu and encoded once, then served from that encoding until
// the set changes.
func featurePages[T any, I comparable](s *Server, method string, set *featureSet[T], item func(T) I, result func(*listPage[I]) any) pager[I] {
	return func(cursor string, size int) (*listPage[I], error) {
		s.mu.RLock()
		pg, version, ok := setPage(set, cursor, size, item)
		s.mu.RUnlock()
		if !ok {
			return nil, errInvalidCursor(method)
		}
		if pg.enc == nil && version != 0 {
			// Not cached yet: encode the page outside the lock.
			raw, err := jsonenc.Marshal(result(pg))
			if err == nil {
				pg.enc = &pageEncoding{raw: raw}
				set.cache.store(version, pg.start, pg)
			}
		}
		return pg, nil
	}
}

// pageItems returns a copy of the page's items for a result, so that a
// middleware that changes them changes no other response.
func pageItems[I comparable](pg *listPage[I]) []I { return slices.Clone(pg.items) }

// setPage returns the page of up to size items of f after the cursor, and
// f's version when the page may be cached (0 when it may not). Cursors are
// opaque to clients
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination);
// ours encode the last key returned, so a page stays correct when features
// are added or removed between calls. ok is false for a cursor the server
// did not issue. f must be read-locked.
func setPage[T any, I comparable](f *featureSet[T], cursor string, size int, item func(T) I) (pg *listPage[I], version uint64, ok bool) {
	start := 0
	if cursor != "" {
		after, ok := decodeCursor(cursor)
		if !ok {
			return nil, 0, false
		}
		start, _ = slices.BinarySearch(f.keys, after)
		if start < len(f.keys) && f.keys[start] == after {
			start++
		}
	}
	if start%size == 0 {
		// The pages a client goes through from the first: one set of them
		// per version of f, so the cache holds the list at most once,
		// whatever cursors clients make up.
		version = f.version
		if pg, ok := f.cache.load(version, start).(*listPage[I]); ok {
			return pg, version, true
		}
	}
	end := min(start+size, len(f.keys))
	pg = &listPage[I]{items: make([]I, 0, end-start), start: start}
	for _, k := range f.keys[start:end] {
		pg.items = append(pg.items, item(f.byKey[k]))
	}
	if end < len(f.keys) {
		pg.next = encodeCursor(f.keys[end-1])
	}
	return pg, version, true
}

// A pageCache holds the encoded pages of one version of a feature set, by
// the index of their first item. It has a lock of its own: pages are
// cached by list calls, which hold the server's lock only to read.
type pageCache struct {
	mu      sync.Mutex
	version uint64
	pages   map[int]any // *listPage[I]
}

// load returns the page cached at start for version, or nil.
func (c *pageCache) load(version uint64, start int) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return nil
	}
	return c.pages[start]
}

// store caches pg, encoded, for version, dropping the pages of older
// versions; a page of a version older than the cache's is dropped.
func (c *pageCache) store(version uint64, start int, pg any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version < c.version {
		return
	}
	if version > c.version || c.pages == nil {
		c.version, c.pages = version, make(map[int]any)
	}
	c.pages[start] = pg
}

const cursorPrefix = "mcpkit:"

func encodeCursor(lastKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + lastKey))
}

func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	return strings.CutPrefix(string(b), cursorPrefix)
}
