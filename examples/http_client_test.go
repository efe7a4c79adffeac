package examples_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/mcpsse"
)

// TestHTTPClient runs the http-client example, built as a user builds it,
// against the reference server over Streamable HTTP (which speaks the
// 2026-07-28 era to it) and over the 2024-11-05 HTTP+SSE endpoint, to
// which the client falls back by itself: what `mcpkit serve --http`
// serves at /mcp and /sse.
func TestHTTPClient(t *testing.T) {
	readmeShows(t, "go run ./examples/http-client -url http://127.0.0.1:8080/mcp")
	client := binary(t, "./http-client")
	verifyNoLeaks(t)

	server := everything.NewServer(nil)
	h := mcphttp.NewHandler(server, nil)
	sse := mcpsse.NewHandler(server, &mcpsse.Options{MessagePath: "/messages"})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", sse)
	mux.Handle("/messages", sse)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		sse.Close()
		h.Shutdown(context.Background())
	})

	for _, tc := range []struct{ path, text, want string }{
		{"/mcp", "", "server mcpkit-everything, protocol 2026-07-28\nhello\n"},
		{"/sse", "hi there", "server mcpkit-everything, protocol 2025-11-25\nhi there\n"},
	} {
		args := []string{"-url", ts.URL + tc.path}
		if tc.text != "" {
			args = append(args, "-text", tc.text)
		}
		code, out, errOut := run(t, client, args...)
		if code != 0 || out != tc.want || errOut != "" {
			t.Errorf("http-client %q: exit %d, stdout %q, stderr %q; want 0, %q, \"\"", args, code, out, errOut, tc.want)
		}
	}

	// No server there: the connection error on stderr, exit 1.
	ts.Close()
	code, out, errOut := run(t, client, "-url", ts.URL+"/mcp")
	if code != 1 || out != "" || errOut == "" {
		t.Errorf("http-client against a closed server: exit %d, stdout %q, stderr %q; want 1, \"\", an error", code, out, errOut)
	}
}
