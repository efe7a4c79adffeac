package mcpsse

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// echoServer is a server with one tool, "echo", and one that blocks until
// its request ends, "block" (it reports its start on started).
func echoServer(started chan<- struct{}, stopped chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v in) (string, error) {
		return v.Text, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "blocks"}, func(ctx context.Context, _ *mcp.Request, v in) (string, error) {
		if started != nil {
			started <- struct{}{}
		}
		<-ctx.Done()
		if stopped != nil {
			stopped <- struct{}{}
		}
		return "", ctx.Err()
	})
	return s
}

// sseStream is a raw GET stream read event by event.
type sseStream struct {
	resp *http.Response
	r    *bufio.Reader
}

// openStream GETs url and returns the stream.
func openStream(t testing.TB, ctx context.Context, url string) *sseStream {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &sseStream{resp: resp, r: bufio.NewReader(resp.Body)}
}

// next returns the next event's name and data, skipping comments; ok is
// false at the end of the stream.
func (s *sseStream) next() (name, data string, ok bool) {
	var lines []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return "", "", false
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if name != "" || lines != nil {
				return name, strings.Join(lines, "\n"), true
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			lines = append(lines, strings.TrimPrefix(line, "data: "))
		}
	}
}

// post POSTs body to url and returns the status and body.
func post(t testing.TB, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// testServer serves a Handler on 127.0.0.1 at /sse and /messages.
type testServer struct {
	*httptest.Server
	h       *Handler
	mu      sync.Mutex
	streams []io.Closer
}

func newTestServer(t testing.TB, h *Handler) *testServer {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	mux.Handle("/messages", h)
	return &testServer{Server: httptest.NewServer(mux), h: h}
}

// close ends everything the test started, before its goroutine check.
func (s *testServer) close() {
	s.mu.Lock()
	for _, c := range s.streams {
		c.Close()
	}
	s.mu.Unlock()
	s.h.Close()
	s.Server.Close()
	http.DefaultClient.CloseIdleConnections()
}

// open opens a stream whose body close closes.
func (s *testServer) open(t testing.TB, ctx context.Context, path string) *sseStream {
	t.Helper()
	st := openStream(t, ctx, s.URL+path)
	s.mu.Lock()
	s.streams = append(s.streams, st.resp.Body)
	s.mu.Unlock()
	return st
}
