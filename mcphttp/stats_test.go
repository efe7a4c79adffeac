package mcphttp

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// TestStatsCountsSessionsAndStreams follows Stats through a session's
// life: initialize (its SSE reply counted while it streams), a GET stream
// held open, then DELETE, which ends both.
func TestStatsCountsSessionsAndStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(t, nil)
	defer f.stop()
	if got := f.h.Stats(); got != (Stats{}) {
		t.Fatalf("Stats before anything = %+v, want zero", got)
	}
	sid := f.initialize(mcp.Version20251125)
	// The initialize reply was an SSE stream, read to its end: the end of
	// the response comes after ServeHTTP has returned.
	if got := f.h.Stats(); got != (Stats{Sessions: 1}) {
		t.Fatalf("Stats after initialize = %+v, want {Sessions:1 Streams:0}", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get := f.open(ctx, http.MethodGet, hdrs{"Mcp-Session-Id": sid}, "")
	defer get.Body.Close()
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET status %d", get.StatusCode)
	}
	if got := f.h.Stats(); got != (Stats{Sessions: 1, Streams: 1}) {
		t.Fatalf("Stats with a GET stream = %+v, want {Sessions:1 Streams:1}", got)
	}
	if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sid}, ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE status %d, body %s", r.status, r.body)
	}
	if _, err := io.Copy(io.Discard, get.Body); err != nil {
		t.Fatalf("reading the GET stream to its end: %v", err)
	}
	if got := f.h.Stats(); got != (Stats{}) {
		t.Fatalf("Stats after DELETE = %+v, want zero", got)
	}
}

// TestStatsJSONRepliesAreNotStreams checks that a JSON reply is never
// counted as a stream.
func TestStatsJSONRepliesAreNotStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(t, &Options{JSONResponse: true})
	defer f.stop()
	f.initialize(mcp.Version20251125)
	if got := f.h.Stats(); got != (Stats{Sessions: 1}) {
		t.Fatalf("Stats = %+v, want {Sessions:1 Streams:0}", got)
	}
}

// stop ends the fixture's Handler and server before a goroutine leak check
// (t.Cleanup would run after it).
func (f *fixture) stop() {
	f.h.Close()
	f.srv.Close()
	f.srv.Client().CloseIdleConnections()
}
