package mcphttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcpsse"
	"go.uber.org/goleak"
)

// Against a server that speaks only the 2024-11-05 HTTP+SSE transport,
// the client's initialize POST is refused (400: no session id) and the
// client falls back by itself to a GET of the same URL, in either era
// setting, and calls tools over it.
func TestClientFallsBackToHTTPSSE(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := mcpsse.NewHandler(echoServer(), nil)
	srv := httptest.NewServer(h)
	defer func() {
		h.Close()
		srv.Close()
		http.DefaultClient.CloseIdleConnections()
	}()
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraAuto} {
		c := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolEra: era})
		cs, err := c.Connect(t.Context(), &ClientTransport{URL: srv.URL + "/sse"})
		if err != nil {
			t.Fatalf("era %v: %v", era, err)
		}
		if v := cs.ProtocolVersion(); v != mcp.LatestVersion {
			t.Errorf("era %v: version %q", era, v)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "hi" {
			t.Fatalf("era %v: CallTool %v %v", era, res, err)
		}
		if n := h.SessionCount(); n != 1 {
			t.Fatalf("era %v: %d legacy sessions, want 1", era, n)
		}
		cs.Close()
		// The server sees the stream go on its own time: wait for it, so
		// that the next era's count starts from none.
		for deadline := time.Now().Add(10 * time.Second); h.SessionCount() != 0; runtime.Gosched() {
			if time.Now().After(deadline) {
				t.Fatalf("era %v: %d legacy sessions 10 s after the client closed, want 0", era, h.SessionCount())
			}
		}
	}
	// When the stream drops, a call in flight fails with the legacy
	// transport's error.
	cs, err := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &ClientTransport{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	h.Close()
	if err := cs.Wait(); !errors.Is(err, mcpsse.ErrStreamDropped) {
		t.Fatalf("Wait after the drop: %v, want ErrStreamDropped", err)
	}
}

// A server that refuses initialize with another status (500), or whose
// GET is no SSE stream, gives the POST's error, with the fallback's.
func TestClientFallbackFails(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}))
	defer srv.Close()
	c := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession})
	_, err := c.Connect(t.Context(), &ClientTransport{URL: srv.URL})
	var se *StatusError
	var lse *mcpsse.StatusError
	if !errors.As(err, &se) || se.StatusCode != 405 || !errors.As(err, &lse) || lse.Method != http.MethodGet || lse.StatusCode != 405 {
		t.Fatalf("%v: want the POST's 405 and the GET's", err)
	}
	http.DefaultClient.CloseIdleConnections()
}
