package servercard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxAge is the Cache-Control max-age of the card and the
// catalog when Options.MaxAge is zero (discovery.md, "Caching").
const DefaultMaxAge = time.Hour

// Options configures Handler. The zero value serves the card at the
// path of its streamable-HTTP remote plus CardSuffix, and the card's
// one-entry catalog, cacheable for an hour.
type Options struct {
	// Path is the MCP endpoint's path; the card is served at
	// Path+CardSuffix. If empty, the path of the card's first
	// streamable-HTTP remote, or "/mcp" if it has none.
	Path string
	// MaxAge is the Cache-Control max-age. If zero, DefaultMaxAge; if
	// negative, responses carry Cache-Control: no-cache (clients
	// revalidate every time, with If-None-Match).
	MaxAge time.Duration
	// Catalog, when set, is served at CatalogPath instead of the card's
	// own one-entry catalog: a domain that lists several servers.
	Catalog *Catalog
	// NoCatalog leaves CatalogPath to next.
	NoCatalog bool
}

// A document is one encoded response body with its headers.
type document struct {
	contentType string
	body        []byte
	etag        string
}

type handler struct {
	next     http.Handler
	src      Source
	cardPath string
	catalog  *document // nil: CatalogPath goes to next
	cache    string
}

// Handler returns an http.Handler that serves src's card at
// Options.Path+CardSuffix and the catalog at CatalogPath, and hands
// every other request to next (the mcphttp handler, or a mux holding
// it), so the transport knows nothing of cards
// (https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/main/docs/discovery.md).
// Both documents are served to GET and HEAD with a strong ETag
// (If-None-Match answered 304), Cache-Control and the CORS headers the
// draft requires; OPTIONS is a CORS preflight (204); any other method is
// 405. Experimental: it follows a draft (SEP-2127).
//
// It fails when the card does not validate (Card.Validate) or the
// catalog has an entry that is not a server card's.
func Handler(next http.Handler, src Source, opts *Options) (http.Handler, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	e, err := src.encoded()
	if err != nil {
		return nil, err
	}
	h := &handler{next: next, src: src, cache: cacheControl(o.MaxAge)}
	path := o.Path
	if path == "" {
		path = "/mcp"
		for _, r := range e.card.Remotes {
			if u, err := url.Parse(r.URL); err == nil && r.Type == "streamable-http" && !strings.Contains(r.URL, "{") {
				path = u.Path
				break
			}
		}
	}
	h.cardPath = strings.TrimSuffix(path, "/") + CardSuffix
	if !o.NoCatalog {
		cat := o.Catalog
		if cat == nil {
			if c, ok := catalogFor(e.card); ok {
				cat = &c
			}
		}
		if cat != nil {
			body, err := encodeCatalog(cat)
			if err != nil {
				return nil, err
			}
			h.catalog = &document{contentType: "application/json", body: body, etag: etagOf(body)}
		}
	}
	return h, nil
}

func cacheControl(maxAge time.Duration) string {
	switch {
	case maxAge == 0:
		maxAge = DefaultMaxAge
	case maxAge < 0:
		return "no-cache"
	}
	return "public, max-age=" + strconv.FormatInt(int64(maxAge/time.Second), 10)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var doc *document
	switch r.URL.Path {
	case h.cardPath:
		e, err := h.src.encoded()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		doc = &document{contentType: MediaType, body: e.body, etag: e.etag}
	case CatalogPath:
		doc = h.catalog
	}
	if doc == nil {
		h.next.ServeHTTP(w, r)
		return
	}
	hd := w.Header()
	// The documents are public and read-only, so any origin may read
	// them (discovery.md, "CORS Requirements").
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET")
	hd.Set("Access-Control-Allow-Headers", "Content-Type")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		hd.Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		hd.Set("Allow", "GET, HEAD, OPTIONS")
		hd.Set("Content-Type", "text/plain; charset=utf-8")
		hd.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusMethodNotAllowed)
		fmt.Fprintf(w, "servercard: method %s is not allowed on %s: read it with GET\n", r.Method, r.URL.Path)
		return
	}
	hd.Set("ETag", doc.etag)
	hd.Set("Cache-Control", h.cache)
	if noneMatch(r.Header.Values("If-None-Match"), doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", doc.contentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(doc.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(doc.body)
	}
}

// noneMatch reports whether the If-None-Match field values match etag:
// "*", or a listed entity tag equal to it by the weak comparison
// (RFC 9110 §13.1.2), so that W/"x" matches "x".
func noneMatch(values []string, etag string) bool {
	for _, v := range values {
		for _, tag := range strings.Split(v, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}
