package mcphttp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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

// quietStreamDeadlines opens a GET stream over srv (HTTP/2 when h2 is
// set), sends it events list_changed notifications, reads them, and returns
// the write setDeadlines the handler set on the GET response.
func quietStreamDeadlines(t *testing.T, h2 bool, events int) (*setDeadlines, []time.Time) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the cleanups below
	s, _ := newTestServer(t)
	h := NewHandler(s, &Options{WriteTimeout: time.Hour, KeepAlive: -1, JSONResponse: true})
	t.Cleanup(func() { h.Close() })
	rec := &setDeadlines{cleared: make(chan struct{}, 16)}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &deadlineWrapper{ResponseWriter: w, rec: rec}
		}
		h.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := srv.Client()
	t.Cleanup(c.CloseIdleConnections)
	do := func(method, body, sid string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if h2 && resp.ProtoMajor != 2 || !h2 && resp.ProtoMajor != 1 {
			t.Fatalf("served over %s", resp.Proto)
		}
		return resp
	}
	init := do(http.MethodPost, initBody, "")
	sid := init.Header.Get("Mcp-Session-Id")
	init.Body.Close()
	do(http.MethodPost, initializedN, sid).Body.Close()
	get := do(http.MethodGet, "", sid)
	t.Cleanup(func() { get.Body.Close() })
	br := bufio.NewReader(get.Body)
	for i := range events {
		must(t, mcp.AddTool(s, &mcp.Tool{Name: "late" + string(rune('a'+i))}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil }))
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("event %d: GET stream: %v", i, err)
			}
			if strings.Contains(line, "notifications/tools/list_changed") {
				break
			}
		}
	}
	return rec, rec.calls()
}

// Over HTTP/2 a write deadline is a timer on the stream, which resets the
// stream when it passes even if nothing is being written (RFC 9113 section
// 6.4): a GET stream quiet for longer than WriteTimeout would be cut. So
// each write's deadline is cleared once the write is done.
func TestHTTP2StreamDeadlineClearedAfterWrite(t *testing.T) {
	rec, calls := quietStreamDeadlines(t, true, 1)
	// The event's deadline was set before the client could read it; its
	// clearing follows the write.
	for len(calls) == 0 || !calls[len(calls)-1].IsZero() {
		select {
		case <-rec.cleared:
		case <-time.After(10 * time.Second):
			t.Fatalf("no deadline cleared after the last write; set: %v", calls)
		}
		calls = rec.calls()
	}
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
	_, calls := quietStreamDeadlines(t, false, 2)
	if len(calls) != 1 || calls[0].IsZero() {
		t.Fatalf("write deadlines set on the GET response %v, want one", calls)
	}
}
