package mcphttp

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// deadlineWrapper is a ResponseWriter wrapper that records the write
// setDeadlines the handler sets on GET responses, as ResponseController
// finds them through it.
type deadlineWrapper struct {
	http.ResponseWriter
	rec *setDeadlines
}

type setDeadlines struct {
	mu      sync.Mutex
	set     []time.Time
	cleared chan struct{} // a zero deadline was set
}

func (d *deadlineWrapper) Unwrap() http.ResponseWriter { return d.ResponseWriter }

func (d *deadlineWrapper) SetWriteDeadline(t time.Time) error {
	d.rec.mu.Lock()
	d.rec.set = append(d.rec.set, t)
	d.rec.mu.Unlock()
	if t.IsZero() {
		select {
		case d.rec.cleared <- struct{}{}:
		default:
		}
	}
	return http.NewResponseController(d.ResponseWriter).SetWriteDeadline(t)
}

func (d *setDeadlines) calls() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Time(nil), d.set...)
}

// settled waits until the last deadline recorded is a cleared one (a
// write's deadline is cleared after the write, which the client may see
// first) and returns the deadlines set.
func (d *setDeadlines) settled(t *testing.T) []time.Time {
	t.Helper()
	calls := d.calls()
	for len(calls) == 0 || !calls[len(calls)-1].IsZero() {
		select {
		case <-d.cleared:
		case <-time.After(10 * time.Second):
			t.Fatalf("no write deadline cleared after the last write; set: %v", calls)
		}
		calls = d.calls()
	}
	return calls
}

// quietStreamDeadlines opens a GET stream over proto (one of wireProtos),
// sends it events list_changed notifications, reads them, and returns the
// recorder of the write deadlines the handler set on the GET response,
// with those set so far.
func quietStreamDeadlines(t *testing.T, proto string, events int) (*setDeadlines, []time.Time) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the cleanups below
	s, tl := newTestServer(t)
	h := NewHandler(s, &Options{WriteTimeout: time.Hour, KeepAlive: -1, JSONResponse: true})
	rec := &setDeadlines{cleared: make(chan struct{}, 16)}
	srv := serveProto(t, proto, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &deadlineWrapper{ResponseWriter: w, rec: rec}
		}
		h.ServeHTTP(w, r)
	}))
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: newFakeClock(), tools: tl}
	t.Cleanup(f.stop)
	sid := f.initialize("2025-11-25")
	get, br := f.getStream(context.Background(), sid, nil)
	t.Cleanup(func() { get.Body.Close() })
	for i := range events {
		must(t, mcp.AddTool(s, &mcp.Tool{Name: "late" + string(rune('a'+i))}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil }))
		if e := next(t, br); e.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}` {
			t.Fatalf("event %d: GET stream event %+v", i, e)
		}
	}
	return rec, rec.calls()
}

// Over HTTP/2 a write deadline is a timer on the stream, which resets the
// stream when it passes even if nothing is being written (RFC 9113 section
// 6.4): a GET stream quiet for longer than WriteTimeout would be cut. So
// each write's deadline is cleared once the write is done.
func TestHTTP2StreamDeadlineClearedAfterWrite(t *testing.T) {
	rec, _ := quietStreamDeadlines(t, "h2", 1)
	calls := rec.settled(t)
	// One deadline per write (the stream's opening, then the event), each
	// cleared once the write is done.
	if len(calls) != 4 {
		t.Fatalf("write deadlines set on the GET response %v, want 4: set and cleared twice", calls)
	}
	for i, d := range calls {
		if d.IsZero() != (i%2 == 1) {
			t.Fatalf("write deadlines set on the GET response %v, want each write's set, then cleared", calls)
		}
	}
}

// Over HTTP/1 a deadline on the connection only matters to a write, so it
// stays armed between writes: the stream's opening and two events, one
// deadline set.
func TestHTTP1StreamDeadlineStaysArmed(t *testing.T) {
	_, calls := quietStreamDeadlines(t, "http1", 2)
	if len(calls) != 1 || calls[0].IsZero() {
		t.Fatalf("write deadlines set on the GET response %v, want one", calls)
	}
}
