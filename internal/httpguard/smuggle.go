package httpguard

import "net/http"

// CloseChunked makes the reply to an HTTP/1.x request whose body is
// chunked end its connection (Connection: close), so that bytes behind the
// body are never read as another request: RFC 9112 section 6.1 requires it
// of a request framed by both Content-Length and Transfer-Encoding, which
// net/http (Go 1.26) serves without closing and shows the handler without
// its Content-Length (docs/limits.md). HTTP/2 and later are left alone. It
// must be called before the reply's header is written.
func CloseChunked(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 1 && len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close")
	}
}

// CloseChunkedHandler returns h with CloseChunked applied to every
// request, for a server that mounts handlers other than mcpkit's beside
// them: a request smuggled behind one to any path of the server is served
// like any other.
func CloseChunkedHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		CloseChunked(w, r)
		h.ServeHTTP(w, r)
	})
}
