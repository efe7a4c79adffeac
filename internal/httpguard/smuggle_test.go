package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// CloseChunked marks the reply to a chunked HTTP/1.x request, and only
// that, to close its connection; CloseChunkedHandler does so before the
// handler it wraps runs.
func TestCloseChunked(t *testing.T) {
	for _, c := range []struct {
		name        string
		major, minr int
		te          []string
		want        string
	}{
		{"HTTP/1.1 chunked", 1, 1, []string{"chunked"}, "close"},
		{"HTTP/1.0 chunked", 1, 0, []string{"chunked"}, "close"},
		{"HTTP/1.1 Content-Length", 1, 1, nil, ""},
		{"HTTP/2", 2, 0, []string{"chunked"}, ""},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		r.ProtoMajor, r.ProtoMinor, r.TransferEncoding = c.major, c.minr, c.te
		w := httptest.NewRecorder()
		CloseChunked(w, r)
		if got := w.Header().Get("Connection"); got != c.want {
			t.Errorf("%s: Connection %q, want %q", c.name, got, c.want)
		}
		var seen string
		w = httptest.NewRecorder()
		CloseChunkedHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			seen = w.Header().Get("Connection")
		})).ServeHTTP(w, r)
		if seen != c.want {
			t.Errorf("%s: the wrapped handler saw Connection %q, want %q", c.name, seen, c.want)
		}
	}
}
