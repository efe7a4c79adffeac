package load

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/targets"
)

// handlerWriter is a ResponseWriter that keeps the body only when asked
// (the first, checked, request), so that a benchmark measures the
// handler and neither net/http nor a copy of a 1 MiB reply.
type handlerWriter struct {
	hdr    http.Header
	status int
	keep   bool
	body   []byte
}

func (w *handlerWriter) Header() http.Header  { return w.hdr }
func (w *handlerWriter) WriteHeader(code int) { w.status = code }
func (w *handlerWriter) Flush()               {}
func (w *handlerWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.keep {
		w.body = append(w.body, p...)
	}
	return len(p), nil
}

// benchHandshake opens a session-era session on h (initialize, then
// notifications/initialized) and returns its id, "" for a handler that
// keeps none (plain).
func benchHandshake(b *testing.B, h http.Handler) string {
	b.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	sid := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`).Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkHandler measures the server side of one request of the
// payload and echo scenarios (8p, 8t, 8b, 9p, 9t, 9b, 2, 6), mcpkit's
// handler beside the plain one, on the targets' own handlers with no
// socket: what issue 19's "server CPU per request ÷ plain" compares,
// without the load generator's noise. Profile one with
// -run '^$' -bench 'Handler/mcpkit/sess/prompt' -cpuprofile.
func BenchmarkHandler(b *testing.B) {
	ops := []*Op{EchoOp, PromptOp, ReadTextOp, ReadBlobOp, NestedOp}
	for _, target := range []string{"mcpkit", "plain"} {
		for _, era := range []Era{SessionEra, StatelessEra} {
			for _, op := range ops {
				b.Run(target+"/"+era.String()+"/"+op.Name, func(b *testing.B) {
					benchHandler(b, target, era, op)
				})
			}
		}
	}
}

func benchHandler(b *testing.B, target string, era Era, op *Op) {
	t, err := targets.Get(target)
	if err != nil {
		b.Fatal(err)
	}
	mode := targets.SSE
	if era == StatelessEra {
		mode = targets.Stateless
	}
	h, err := t.HTTP(mode)
	if err != nil {
		b.Fatal(err)
	}
	if c, ok := h.(io.Closer); ok {
		defer c.Close()
	}
	ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", nil)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if era == SessionEra {
		if sid := benchHandshake(b, h); sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	} else {
		req.Header.Set("Mcp-Protocol-Version", ModernVersion)
		req.Header.Set("Mcp-Method", op.Method)
		if op.Subject != "" {
			req.Header.Set("Mcp-Name", op.Subject)
		}
	}
	w := &handlerWriter{hdr: http.Header{}}
	var body []byte
	rd := bytes.NewReader(nil)
	serve := func(seq int64) {
		body = appendRequest(body[:0], op, era, seq, seq)
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		req.ContentLength = int64(len(body))
		clear(w.hdr)
		w.status = 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	// The first request is checked whole.
	w.keep = true
	serve(1)
	var r rawReply
	if err := parseRaw(w.hdr.Get("Content-Type"), w.body, []byte("1"), &r); err != nil {
		b.Fatal(err)
	}
	if err := checkRaw(&r, op, 1); err != nil {
		b.Fatal(err)
	}
	w.keep, w.body = false, nil
	b.ReportAllocs()
	seq, start := int64(1), cpuNow()
	for b.Loop() {
		seq++
		serve(seq)
	}
	b.ReportMetric(float64(cpuNow()-start)/float64(seq-1), "cpu-ns/op")
}
