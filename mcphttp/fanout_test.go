package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// deadlineRecorder is a ResponseWriter that records the write deadlines
// set on it through an http.ResponseController.
type deadlineRecorder struct {
	hdr       http.Header
	deadlines []time.Time
}

func (r *deadlineRecorder) Header() http.Header {
	if r.hdr == nil {
		r.hdr = http.Header{}
	}
	return r.hdr
}
func (r *deadlineRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *deadlineRecorder) WriteHeader(int)             {}
func (r *deadlineRecorder) FlushError() error           { return nil }
func (r *deadlineRecorder) SetWriteDeadline(d time.Time) error {
	r.deadlines = append(r.deadlines, d)
	return nil
}

// A stream's write deadline is moved only once less than WriteTimeout
// remains, to WriteTimeout and an eighth from now: every write gets at
// least WriteTimeout, and a fan-out does not update a timer per stream.
func TestWriteDeadlineMovedOnlyWhenNeeded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 8 * time.Second
		st := &stream{h: &Handler{opts: Options{WriteTimeout: d}}}
		rec := &deadlineRecorder{}
		att := &attachment{w: rec, rc: *http.NewResponseController(rec)}
		start := time.Now()
		st.armDeadline(att)
		st.armDeadline(att)
		if len(rec.deadlines) != 1 || !rec.deadlines[0].Equal(start.Add(9*time.Second)) {
			t.Fatalf("deadlines after two writes at once: %v; want one, at start+9s", rec.deadlines)
		}
		time.Sleep(time.Second) // exactly WriteTimeout remains
		st.armDeadline(att)
		if len(rec.deadlines) != 1 {
			t.Fatalf("deadlines with WriteTimeout left: %v; want the first only", rec.deadlines)
		}
		time.Sleep(time.Nanosecond) // less than WriteTimeout remains
		st.armDeadline(att)
		want := start.Add(time.Second + time.Nanosecond + 9*time.Second)
		if len(rec.deadlines) != 2 || !rec.deadlines[1].Equal(want) {
			t.Fatalf("deadlines: %v; want a second at %v", rec.deadlines, want)
		}
	})
}

// Without WriteTimeout, the first write clears any server-wide deadline
// and later ones set none.
func TestNoWriteTimeoutClearsDeadlineOnce(t *testing.T) {
	st := &stream{h: &Handler{opts: Options{WriteTimeout: -1}}}
	rec := &deadlineRecorder{}
	att := &attachment{w: rec, rc: *http.NewResponseController(rec)}
	st.armDeadline(att)
	att.flushed = true
	st.armDeadline(att)
	if len(rec.deadlines) != 1 || !rec.deadlines[0].IsZero() {
		t.Fatalf("deadlines: %v; want one, cleared", rec.deadlines)
	}
}

// fanWriter is the ResponseWriter of one GET stream in
// BenchmarkFanout: it counts the notifications written to it and flushed
// into fanCount, and signals started on its first flush.
type fanWriter struct {
	hdr     http.Header
	fan     *fanCount
	pending bool
	once    sync.Once
	started chan struct{}
}

// fanCount counts the notifications the fan-out's writers flushed, and
// closes done when it reaches want.
type fanCount struct {
	n    atomic.Int64
	want atomic.Int64
	done atomic.Pointer[chan struct{}]
}

func (c *fanCount) add() {
	if c.n.Add(1) == c.want.Load() {
		close(*c.done.Load())
	}
}

var fanMark = []byte("notifications/resources/updated")

func (w *fanWriter) Header() http.Header { return w.hdr }
func (w *fanWriter) WriteHeader(int)     {}
func (w *fanWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, fanMark) {
		w.pending = true
	}
	return len(p), nil
}
func (w *fanWriter) SetWriteDeadline(time.Time) error { return nil }
func (w *fanWriter) FlushError() error {
	w.once.Do(func() { close(w.started) })
	if w.pending {
		w.pending = false
		w.fan.add()
	}
	return nil
}

// BenchmarkFanout measures Server.ResourceUpdated reaching subscribers
// with their GET streams open, each on a ResponseWriter that costs
// nothing: what the server spends per subscriber besides the write
// itself (bench/ scenario 10 measures it with real connections).
func BenchmarkFanout(b *testing.B) {
	const subs = 2000
	s := mcp.NewServer(mcp.Implementation{Name: "fan", Version: "1"}, nil)
	must(b, s.AddResource(&mcp.Resource{URI: "test://fan", Name: "fan"},
		func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		}))
	h := NewHandler(s, &Options{MaxSessions: -1})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}))
	post := func(sid, body string) string {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code/100 != 2 {
			b.Fatalf("%s: status %d %s", body, rec.Code, rec.Body)
		}
		return rec.Header().Get("Mcp-Session-Id")
	}
	fan := &fanCount{}
	var wg sync.WaitGroup
	for range subs {
		sid := post("", initBody)
		post(sid, initializedN)
		post(sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://fan"}}`)
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		w := &fanWriter{hdr: http.Header{}, fan: fan, started: make(chan struct{})}
		wg.Go(func() { h.ServeHTTP(w, req) })
		<-w.started
	}
	b.ReportAllocs()
	i, start := 0, cpuclock.Now()
	for b.Loop() {
		i++
		done := make(chan struct{})
		fan.done.Store(&done)
		fan.want.Store(int64(i * subs))
		if err := s.ResourceUpdated(context.Background(), "test://fan"); err != nil {
			b.Fatal(err)
		}
		<-done
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuclock.Now()-start)/float64(i*subs), "cpu-ns/sub")
	cancel()
	h.Close()
	wg.Wait()
}

// poolWriter is a ResponseWriter for the writer pool's tests: its writes
// wait for gate (if not nil), and each flush is reported on flushed.
type poolWriter struct {
	hdr     http.Header
	gate    chan struct{}
	entered chan struct{}
	flushed chan *poolWriter
}

func (w *poolWriter) Header() http.Header { return w.hdr }
func (w *poolWriter) WriteHeader(int)     {}
func (w *poolWriter) Write(p []byte) (int, error) {
	if w.gate != nil {
		close(w.entered)
		<-w.gate
	}
	return len(p), nil
}
func (w *poolWriter) FlushError() error { w.flushed <- w; return nil }

// poolStream returns a stream of h carried by w with one event queued,
// ready for the writer pool.
func poolStream(h *Handler, w *poolWriter) *stream {
	st := &stream{h: h, draining: true}
	st.att = &attachment{w: w, rc: *http.NewResponseController(w), flushed: true}
	p := framePool.Get().(*[]byte)
	*p = append((*p)[:0], "event: message\ndata: {}\n\n"...)
	st.out = &outbox{frames: []qframe{{p: p}}, bytes: len(*p)}
	return st
}

// A write that waits for its client holds up no other stream: while it
// waits, the pool's other workers write every other stream queued after
// it; and once it returns, every worker ends.
func TestWriterPoolBlockedWriteDelaysNoOne(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := &Handler{opts: Options{WriteTimeout: -1}}
	flushed := make(chan *poolWriter, 1000)
	blocked := &poolWriter{hdr: http.Header{}, gate: make(chan struct{}), entered: make(chan struct{}), flushed: flushed}
	h.writers.schedule(poolStream(h, blocked))
	<-blocked.entered
	const others = 500
	for range others {
		h.writers.schedule(poolStream(h, &poolWriter{hdr: http.Header{}, flushed: flushed}))
	}
	for range others {
		if w := <-flushed; w == blocked {
			t.Fatal("the blocked write returned before it was let go")
		}
	}
	close(blocked.gate)
	if w := <-flushed; w != blocked {
		t.Fatal("want the blocked stream's flush last")
	}
}

// Streams queued while every worker is blocked in a write are written by
// a worker started for them.
func TestWriterPoolEveryWorkerBlocked(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := &Handler{opts: Options{WriteTimeout: -1}}
	flushed := make(chan *poolWriter, 16)
	var ws []*poolWriter
	for range 4 {
		w := &poolWriter{hdr: http.Header{}, gate: make(chan struct{}), entered: make(chan struct{}), flushed: flushed}
		ws = append(ws, w)
		h.writers.schedule(poolStream(h, w))
		<-w.entered
	}
	last := &poolWriter{hdr: http.Header{}, flushed: flushed}
	h.writers.schedule(poolStream(h, last))
	if w := <-flushed; w != last {
		t.Fatal("a blocked write returned")
	}
	for _, w := range ws {
		close(w.gate)
		if got := <-flushed; got != w {
			t.Fatal("a stream flushed before its write was let go")
		}
	}
}

// A broadcast is encoded once for every stream, yet with an EventStore
// each session's GET stream still gets its own event id, and the same
// data.
func TestBroadcastSharedEventIDsPerStream(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the fixture's cleanups
	f := newFixture(t, &Options{EventStore: &MemoryEventStore{}, KeepAlive: -1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var brs []*bufio.Reader
	for range 2 {
		sid := f.initialize("2025-11-25")
		resp, br := f.getStream(ctx, sid, nil)
		defer resp.Body.Close()
		if e := next(t, br); e.id == "" || e.data != "" {
			t.Fatalf("priming event %+v", e)
		}
		brs = append(brs, br)
	}
	must(t, f.h.server.AddTool(&mcp.Tool{Name: "late"}, nil))
	for i, br := range brs {
		e := next(t, br)
		if e.id != "0-2" || e.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}` {
			t.Errorf("stream %d: event %+v; want id 0-2 and list_changed", i, e)
		}
	}
}

// A broadcast still passes through the server's SendingMiddleware, once
// per session, and what the middleware sends is what the stream carries.
func TestBroadcastThroughSendingMiddleware(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var mu sync.Mutex
	seen := 0
	s := mcp.NewServer(mcp.Implementation{Name: "mw", Version: "1"}, &mcp.ServerOptions{
		SendingMiddleware: []mcp.SendingMiddleware{func(next mcp.SendHandler) mcp.SendHandler {
			return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
				if m.Method == "notifications/resources/updated" {
					mu.Lock()
					seen++
					mu.Unlock()
					m.Params = json.RawMessage(`{"uri":"test://fan","_meta":{"by":"middleware"}}`)
				}
				return next(ctx, m)
			}
		}},
	})
	must(t, s.AddResource(&mcp.Resource{URI: "test://fan", Name: "fan"},
		func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		}))
	h := NewHandler(s, &Options{KeepAlive: -1})
	srv := httptest.NewServer(h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: newFakeClock()}
	defer func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var brs []*bufio.Reader
	for range 2 {
		sid := f.initialize("2025-11-25")
		if r := f.post(sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://fan"}}`); r.status != http.StatusOK {
			t.Fatalf("subscribe: %d %s", r.status, r.body)
		}
		resp, br := f.getStream(ctx, sid, nil)
		defer resp.Body.Close()
		brs = append(brs, br)
	}
	must(t, s.ResourceUpdated(context.Background(), "test://fan"))
	for i, br := range brs {
		if e := next(t, br); e.data != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://fan","_meta":{"by":"middleware"}}}` {
			t.Errorf("stream %d: event %+v", i, e)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if seen != 2 {
		t.Errorf("the middleware saw %d resources/updated; want 2", seen)
	}
}
