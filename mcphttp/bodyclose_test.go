package mcphttp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// bodyProbe is a middleware around the Handler that records, for each
// POST, what reading its body again after the Handler returned gives.
type bodyProbe struct {
	h    http.Handler
	wrap func(io.ReadCloser) io.ReadCloser // optional: replaces the body

	mu   sync.Mutex
	errs []error
}

func (p *bodyProbe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.wrap != nil {
		r.Body = p.wrap(r.Body)
	}
	p.h.ServeHTTP(w, r)
	_, err := r.Body.Read(make([]byte, 1))
	p.mu.Lock()
	p.errs = append(p.errs, err)
	p.mu.Unlock()
}

// quietBody reports no end on a read of nothing, as a middleware's reader
// may, and counts its closes.
type quietBody struct {
	rc     io.ReadCloser
	closes atomic.Int32
}

func (b *quietBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return b.rc.Read(p)
}

func (b *quietBody) Close() error { b.closes.Add(1); return b.rc.Close() }

// wireCall sends a tools/call of echo with id on conn and reads the reply's
// status, Connection header and body.
func wireCall(t *testing.T, conn net.Conn, br *bufio.Reader, sid string, id int) (int, string, string) {
	t.Helper()
	body := benchCallPre + strconv.Itoa(id) + benchCallPost
	req := "POST /mcp HTTP/1.1\r\nHost: " + conn.RemoteAddr().String() +
		"\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: " + sid +
		"\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Connection"), string(b)
}

// A POST body read to its Content-Length is closed by the Handler (so
// that net/http does not drain it again when the reply starts), and the
// connection still carries the next request; a body that does not report
// its end is left to net/http, which drains it as before.
func TestPOSTBodyClosedAfterRead(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		name       string
		json       bool
		quiet      bool
		wantAfter  error
		wantCloses int
	}{
		{name: "sse", wantAfter: http.ErrBodyReadAfterClose},
		{name: "json", json: true, wantAfter: http.ErrBodyReadAfterClose},
		{name: "quiet body", quiet: true, wantAfter: io.EOF, wantCloses: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t)
			h := NewHandler(s, &Options{JSONResponse: tc.json})
			defer h.Close()
			var quiet []*quietBody
			p := &bodyProbe{h: h}
			if tc.quiet {
				p.wrap = func(rc io.ReadCloser) io.ReadCloser {
					q := &quietBody{rc: rc}
					p.mu.Lock()
					quiet = append(quiet, q)
					p.mu.Unlock()
					return q
				}
			}
			srv := newLoopbackServer(t, p)
			defer srv.Close()
			defer srv.Client().CloseIdleConnections()
			f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp"}
			sid := f.initialize("2025-11-25")
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			p.mu.Lock()
			p.errs = nil
			quietBefore := len(quiet)
			p.mu.Unlock()
			for id := 10; id < 12; id++ {
				status, connHdr, body := wireCall(t, conn, br, sid, id)
				if status != http.StatusOK || connHdr != "" || !strings.Contains(body, `"id":`+strconv.Itoa(id)+`,"result"`) || !strings.Contains(body, `"text":"hello, world"`) {
					t.Fatalf("call %d: status %d, Connection %q, body %s", id, status, connHdr, body)
				}
			}
			p.mu.Lock()
			errs, quiet := p.errs, quiet[quietBefore:]
			p.mu.Unlock()
			if len(errs) != 2 {
				t.Fatalf("probed %d bodies, want 2", len(errs))
			}
			for i, err := range errs {
				if !errors.Is(err, tc.wantAfter) {
					t.Errorf("body %d read after the Handler: %v, want %v", i, err, tc.wantAfter)
				}
			}
			if tc.quiet {
				if len(quiet) != 2 {
					t.Fatalf("wrapped %d bodies, want 2", len(quiet))
				}
				for i, q := range quiet {
					if n := int(q.closes.Load()); n != tc.wantCloses {
						t.Errorf("quiet body %d closed %d times by the Handler, want %d", i, n, tc.wantCloses)
					}
				}
			}
		})
	}
}
