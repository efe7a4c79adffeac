package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// recordBodyBuffers collects the capacities of the body buffers readBody
// allocates while the test runs.
func recordBodyBuffers(t *testing.T) func() []int {
	var mu sync.Mutex
	var caps []int
	f := func(n int) {
		mu.Lock()
		caps = append(caps, n)
		mu.Unlock()
	}
	bodyBufferHook.Store(&f)
	t.Cleanup(func() { bodyBufferHook.Store(nil) })
	return func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), caps...)
	}
}

// rawPOST sends a POST's headers, with extra header lines, and then only
// sent of its body, over a connection of its own.
func rawPOST(t *testing.T, addr, extra, sent string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+addr+
		"\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"+extra+"\r\n"+sent)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// A POST announcing a 4 MiB body and sending 10 bytes gets a small buffer,
// not one of 4 MiB; once BodyReadTimeout passes without the rest, it is
// answered 408 and its connection closed, and nothing is left behind. So
// is a chunked body that stalls.
func TestStalledBodyTimesOut(t *testing.T) {
	for _, c := range []struct {
		name, extra, sent string
		buffers           []int
	}{
		{"content-length", "Content-Length: 4194304\r\n", `{"jsonrpc"`, []int{initialBodyBuffer}},
		{"chunked", "Transfer-Encoding: chunked\r\n", "a\r\n{\"jsonrpc\"\r\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			caps := recordBodyBuffers(t)
			s, _ := newTestServer(t)
			h := NewHandler(s, &Options{BodyReadTimeout: 20 * time.Millisecond})
			srv := newLoopbackServer(t, h)
			defer h.Close()
			defer srv.Close()

			conn := rawPOST(t, srv.Listener.Addr().String(), c.extra, c.sent)
			defer conn.Close()
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Request Timeout: the body was not received within 20ms"}}`
			if resp.StatusCode != http.StatusRequestTimeout || string(body) != want || resp.Header.Get("Content-Type") != "application/json" || !resp.Close {
				t.Errorf("reply %d (close %v) %s, want 408 and the connection closed with\n\t%s", resp.StatusCode, resp.Close, body, want)
			}
			// The server closed the connection.
			if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Errorf("after the reply: %d bytes, %v; want EOF", n, err)
			}
			if got := caps(); !equalInts(got, c.buffers) {
				t.Errorf("body buffers allocated: %v, want %v", got, c.buffers)
			}
			if n := h.SessionCount(); n != 0 {
				t.Errorf("%d sessions", n)
			}
		})
	}
}

// A large body that does arrive is read in full, its buffer growing as
// it comes; a body within initialBodyBuffer gets a buffer of its exact
// size.
func TestLargeBodyGrowsItsBuffer(t *testing.T) {
	caps := recordBodyBuffers(t)
	f := newFixture(t, nil)
	sid := f.initialize("2025-11-25")
	text := strings.Repeat("x", 100_000)
	before := len(caps())
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`
	r := f.post(sid, body)
	if r.status != 200 || !strings.Contains(r.body, `"text":"`+text+`"`) {
		t.Fatalf("echo of 100,000 bytes: %d", r.status)
	}
	got := caps()[before:]
	want := []int{16 << 10, 32 << 10, 64 << 10, len(body)}
	if !equalInts(got, want) {
		t.Errorf("buffers %v, want %v", got, want)
	}
	before = len(caps())
	if r := f.post(sid, pingBody); r.status != 200 {
		t.Fatalf("ping: %d", r.status)
	}
	if got := caps()[before:]; !equalInts(got, []int{len(pingBody)}) {
		t.Errorf("ping's buffers %v, want [%d]", got, len(pingBody))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// deadlineConn records the read deadline last set on a connection.
type deadlineConn struct {
	net.Conn
	deadline *atomic.Pointer[time.Time]
	set      *atomic.Int32 // future deadlines set
}

func (c deadlineConn) SetReadDeadline(d time.Time) error {
	c.note(d)
	return c.Conn.SetReadDeadline(d)
}

func (c deadlineConn) SetDeadline(d time.Time) error {
	c.note(d)
	return c.Conn.SetDeadline(d)
}

func (c deadlineConn) note(d time.Time) {
	c.deadline.Store(&d)
	if d.After(time.Now()) {
		c.set.Add(1)
	}
}

type deadlineListener struct {
	net.Listener
	deadline atomic.Pointer[time.Time]
	set      atomic.Int32
}

func (l *deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return deadlineConn{Conn: c, deadline: &l.deadline, set: &l.set}, nil
}

// The body's read deadline is in force only while the body is read, so
// that a handler may take longer than BodyReadTimeout: when the handler
// runs, the body is no longer watched (bodywatch.go), and a body that
// arrived in time left no deadline on the connection.
func TestBodyDeadlineCleared(t *testing.T) {
	s, tl := newTestServer(t)
	h := NewHandler(s, &Options{BodyReadTimeout: time.Hour})
	srv := httptest.NewUnstartedServer(h)
	ln := &deadlineListener{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", tools: tl}
	sid := f.initialize("2025-11-25")
	done := make(chan *reply, 1)
	ln.set.Store(0)
	go func() { done <- f.post(sid, blockCall) }()
	<-tl.started
	if d := ln.deadline.Load(); ln.set.Load() != 0 || (d != nil && !d.IsZero()) {
		t.Errorf("while the handler runs: %d deadlines set, the last %v; want none in force", ln.set.Load(), d)
	}
	h.bodies.mu.Lock()
	watched := h.bodies.head != nil
	h.bodies.mu.Unlock()
	if watched {
		t.Error("while the handler runs: its body is still watched")
	}
	close(tl.gate)
	if r := <-done; r.status != 200 || !strings.Contains(r.body, "unblocked") {
		t.Errorf("reply %d %s", r.status, r.body)
	}
}

// batchOf returns a 2025-03-26 batch of n calls of tool name, ids 1 to n.
func batchOf(n int, name string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"` + name + `"}}`)
	}
	b.WriteByte(']')
	return b.String()
}

// concurrencyProbe is a tool that records how many of its calls run at
// once. The first calls wait until want of them run together (or the
// batch has run out), so that the maximum is reached whenever the handler
// allows it.
type concurrencyProbe struct {
	cur, max, calls atomic.Int64
	want            int64
	full            chan struct{}
	once            sync.Once
}

func addConcurrencyProbe(t *testing.T, s *mcp.Server, want int64) *concurrencyProbe {
	p := &concurrencyProbe{want: want, full: make(chan struct{})}
	must(t, s.AddTool(&mcp.Tool{Name: "probe", Description: "probe"}, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		p.calls.Add(1)
		n := p.cur.Add(1)
		for {
			m := p.max.Load()
			if n <= m || p.max.CompareAndSwap(m, n) {
				break
			}
		}
		if n >= p.want {
			p.once.Do(func() { close(p.full) })
		}
		<-p.full
		p.cur.Add(-1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}))
	return p
}

// Over HTTP, a batch of 1000 requests runs on at most
// MaxBatchConcurrency goroutines at once, every request is answered, and a
// batch answered with a JSON array keeps the requests' order
// (TestBatchConcurrencyAtMostN counts the bound where nothing else runs).
func TestBatchConcurrencyBounded(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		t.Run(fmt.Sprint("json=", jsonMode), func(t *testing.T) {
			s, tl := newTestServer(t)
			p := addConcurrencyProbe(t, s, 4)
			f := newFixtureWith(t, s, tl, &Options{JSONResponse: jsonMode, MaxBatchLength: 1000, MaxBatchConcurrency: 4})
			sid := f.initialize("2025-03-26")
			r := f.post(sid, batchOf(1000, "probe"))
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if p.max.Load() != 4 || p.calls.Load() != 1000 {
				t.Errorf("%d calls, at most %d at once; want 1000, 4", p.calls.Load(), p.max.Load())
			}
			var ids []int
			if jsonMode {
				var resps []struct{ ID int }
				if err := json.Unmarshal([]byte(r.body), &resps); err != nil {
					t.Fatal(err)
				}
				for _, m := range resps {
					ids = append(ids, m.ID)
				}
			} else {
				for _, e := range r.events {
					var m struct{ ID int }
					if err := json.Unmarshal([]byte(e.data), &m); err != nil {
						t.Fatal(err)
					}
					ids = append(ids, m.ID)
				}
				slices.Sort(ids)
			}
			if len(ids) != 1000 || ids[0] != 1 || ids[999] != 1000 || !slices.IsSorted(ids) {
				t.Errorf("%d responses, ids %v...", len(ids), ids[:min(len(ids), 5)])
			}
		})
	}
}

// A batch longer than MaxBatchLength is refused as a whole, before any
// of it runs.
func TestBatchLengthBounded(t *testing.T) {
	s, tl := newTestServer(t)
	p := addConcurrencyProbe(t, s, 1)
	f := newFixtureWith(t, s, tl, nil)
	sid := f.initialize("2025-03-26")
	r := f.post(sid, batchOf(DefaultMaxBatchLength+1, "probe"))
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: a JSON-RPC batch may hold at most 256 messages, this one holds 257"}}`
	if r.status != 400 || r.body != want || p.calls.Load() != 0 {
		t.Errorf("reply %d %s after %d calls; want 400 and\n\t%s", r.status, r.body, p.calls.Load(), want)
	}
	if r := f.post(sid, batchOf(DefaultMaxBatchLength, "probe")); r.status != 200 || len(r.events) != DefaultMaxBatchLength || p.calls.Load() != DefaultMaxBatchLength {
		t.Errorf("a batch at the limit: %d, %d events, %d calls", r.status, len(r.events), p.calls.Load())
	}
}

// newFixtureWith is newFixture for a server the test has added to.
func newFixtureWith(t *testing.T, s *mcp.Server, tl *tools, opts *Options) *fixture {
	h := NewHandler(s, opts)
	clock := newFakeClock()
	h.reg.now = clock.now
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	})
	return &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: clock, tools: tl}
}

// The bound on a batch's concurrency, counted where nothing else runs: in
// a synctest bubble, once every goroutine is blocked, the 1000 requests
// of a batch whose tool waits for the test have started at most
// MaxBatchConcurrency handlers (one per request before the bound).
func TestBatchConcurrencyAtMostN(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"}, nil)
		release := make(chan struct{})
		var cur atomic.Int64
		must(t, s.AddTool(&mcp.Tool{Name: "wait", Description: "wait"}, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			cur.Add(1)
			<-release
			cur.Add(-1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		}))
		h := NewHandler(s, &Options{MaxBatchLength: 1000, MaxBatchConcurrency: 8, ReapInterval: -1})
		defer h.Close()
		ss := s.Host().NewSession(mcp.SessionOptions{Preinitialized: true, ProtocolVersion: "2025-03-26"})
		defer ss.Close()
		e := &entry{id: "s", ss: ss}
		msgs, _, err := jsonrpc.DecodeBatch([]byte(batchOf(1000, "wait")))
		if err != nil {
			t.Fatal(err)
		}
		reqs := make([]*jsonrpc.Request, len(msgs))
		for i, m := range msgs {
			reqs[i] = m.(*jsonrpc.Request)
		}
		done := make(chan []*jsonrpc.Response)
		go func() {
			done <- h.runBatch(context.Background(), e, reqs, jsonModeWriter{}, &mcp.RequestExtra{}, nil)
		}()
		synctest.Wait()
		if n := cur.Load(); n != 8 {
			t.Errorf("%d handlers running at once, want 8", n)
		}
		close(release)
		resps := <-done
		if len(resps) != 1000 {
			t.Fatalf("%d responses", len(resps))
		}
		for i, r := range resps {
			if r.ID.String() != strconv.Itoa(i+1) || r.Error != nil {
				t.Fatalf("response %d: id %s, error %v", i, r.ID, r.Error)
			}
		}
	})
}

// notifyingStore is a MemoryEventStore that tells the test of each event
// appended whose data holds watch.
type notifyingStore struct {
	*MemoryEventStore
	watch    string
	appended chan string // "session data"
}

func (s notifyingStore) Append(ctx context.Context, sessionID, streamID, eventID string, data []byte) error {
	err := s.MemoryEventStore.Append(ctx, sessionID, streamID, eventID, data)
	if strings.Contains(string(data), s.watch) {
		select {
		case s.appended <- sessionID + " " + string(data):
		default:
		}
	}
	return err
}

// Over HTTP: session B's result, kept for B to resume, survives session
// A flooding the store with echo results; ending a session frees its
// events.
func TestEventStoreFloodOverHTTP(t *testing.T) {
	for _, c := range []struct {
		name  string
		store *MemoryEventStore
		aMax  int64 // what A may hold at most
	}{
		{"session cap", &MemoryEventStore{MaxSessionBytes: 16 << 10}, 16 << 10},
		{"total cap", &MemoryEventStore{MaxBytes: 32 << 10, MaxSessionBytes: -1}, 32 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := notifyingStore{c.store, `"id":11,`, make(chan string, 1)}
			f := newFixture(t, &Options{EventStore: store, RetryInterval: 1})
			a, b := f.initialize("2025-11-25"), f.initialize("2025-11-25")
			// B's handler closes its stream, then answers: the result is
			// kept for B to resume.
			r := f.post(b, `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"reconnect"}}`)
			<-f.tools.started
			if len(r.events) != 1 || r.events[0].id == "" {
				t.Fatalf("B's stream: %+v", r.events)
			}
			close(f.tools.gate)
			const result = `{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"reconnected"}]}}`
			if got := <-store.appended; got != b+" "+result {
				t.Fatalf("appended %q", got)
			}
			text := strings.Repeat("x", 4000)
			for i := range 50 {
				r := f.post(a, `{"jsonrpc":"2.0","id":`+strconv.Itoa(100+i)+`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"}}}`)
				if r.status != 200 || len(dataOf(r.events)) != 1 {
					t.Fatalf("A's echo %d: %d", i, r.status)
				}
			}
			if n := c.store.SessionSize(a); n > c.aMax || n == 0 || c.store.Size() > 32<<10 {
				t.Errorf("A holds %d bytes (at most %d), the store %d", n, c.aMax, c.store.Size())
			}
			resp, br := f.getStream(context.Background(), b, hdrs{"Last-Event-ID": r.events[0].id})
			equalStrings(t, "B resumed", dataOf(parseEvents(t, br)), []string{result})
			resp.Body.Close()

			for _, sid := range []string{b, a} {
				if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sid}, ""); r.status != http.StatusNoContent {
					t.Fatalf("DELETE: %d", r.status)
				}
				if n := c.store.SessionSize(sid); n != 0 {
					t.Errorf("after DELETE the session holds %d bytes", n)
				}
			}
			if n := c.store.Size(); n != 0 {
				t.Errorf("the store holds %d bytes with no session", n)
			}
		})
	}
}
