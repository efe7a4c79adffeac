package mcphttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// shutdownFixture opens a session with a "block" call in flight and a GET
// stream whose client never reads. It returns the call's response, unread.
func shutdownFixture(t *testing.T) (f *fixture, call *http.Response, get *http.Response) {
	t.Helper()
	f = newFixture(t, &Options{KeepAlive: -1})
	sid := f.initialize("2025-11-25")
	call = f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, blockCall)
	<-f.tools.started
	get, _ = f.getStream(context.Background(), sid, nil)
	return f, call, get
}

// Shutdown ends the GET stream at once, refuses new work with 503, and
// waits for the request in flight, which completes normally; then it
// returns nil (issue 15, item 2). Before, nothing ended the GET stream,
// and Close waited without limit.
func TestShutdownLetsInflightFinish(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	f, call, get := shutdownFixture(t)
	done := make(chan error, 1)
	go func() { done <- f.h.Shutdown(context.Background()) }()

	// The GET stream ends: it would never end by itself.
	if _, err := io.Copy(io.Discard, get.Body); err != nil {
		t.Errorf("GET stream: %v", err)
	}
	get.Body.Close()
	// New work is refused while the call finishes.
	r := f.post("", initBody)
	checkRefusal(t, r, http.StatusServiceUnavailable, -32603, "Service unavailable: the handler is closed")

	close(f.tools.gate)
	reply := f.read(call)
	if got := string(reply.message(t)["result"]); !strings.Contains(got, `"text":"unblocked"`) {
		t.Errorf("call result %s", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown = %v, want nil", err)
	}
	if n := f.h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after Shutdown", n)
	}
}

// When Shutdown's context ends first, the request still running is
// cancelled and answered with a JSON-RPC error on its stream, its stream
// ends, and Shutdown returns the context's error (issue 15, item 2).
// Before, such a request had its stream cut with no response.
func TestShutdownAnswersWhatIsStillRunning(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	f, call, get := shutdownFixture(t)
	defer get.Body.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.h.Shutdown(ctx) }()
	if _, err := io.Copy(io.Discard, get.Body); err != nil {
		t.Errorf("GET stream: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	reply := f.read(call)
	var msgs []string
	for _, e := range reply.events {
		if e.data != "" {
			msgs = append(msgs, e.data)
		}
	}
	want := []string{`{"jsonrpc":"2.0","id":10,"error":{"code":-32603,"message":"Internal error: the server is shutting down; the request was cancelled"}}`}
	equalStrings(t, "call stream", msgs, want)
	if err := <-f.tools.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the handler's context: %v, want cancelled", err)
	}
	if n := f.h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after Shutdown", n)
	}
}
