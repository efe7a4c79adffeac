package mcphttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// rawPOST sends a POST's headers announcing contentLength and then only
// sent of its body, over a connection of its own.
func rawPOST(t *testing.T, addr string, contentLength int, sent string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+addr+
		"\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: "+
		strconv.Itoa(contentLength)+"\r\n\r\n"+sent)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// A POST announcing a 4 MiB body and sending 10 bytes gets a small buffer,
// not one of 4 MiB; once BodyReadTimeout passes without the rest, it is
// answered 408 and its connection closed, and nothing is left behind.
func TestStalledBodyTimesOut(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	caps := recordBodyBuffers(t)
	s, _ := newTestServer(t)
	h := NewHandler(s, &Options{BodyReadTimeout: 20 * time.Millisecond})
	srv := newLoopbackServer(t, h)
	defer h.Close()
	defer srv.Close()

	conn := rawPOST(t, srv.Listener.Addr().String(), 4<<20, `{"jsonrpc"`)
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
	if got := caps(); len(got) != 1 || got[0] != initialBodyBuffer {
		t.Errorf("body buffers allocated: %v, want one of %d bytes", got, initialBodyBuffer)
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions", n)
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

// The body's read deadline is set while the body is read and cleared
// before the request's handler runs, so that a handler may take longer
// than BodyReadTimeout.
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
	if d := ln.deadline.Load(); ln.set.Load() != 1 || d == nil || !d.IsZero() {
		t.Errorf("while the handler runs: %d deadlines set, the last %v; want 1, then cleared", ln.set.Load(), d)
	}
	close(tl.gate)
	if r := <-done; r.status != 200 || !strings.Contains(r.body, "unblocked") {
		t.Errorf("reply %d %s", r.status, r.body)
	}
}
