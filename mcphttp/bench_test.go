package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
	"github.com/mcpkit/mcpkit/mcp"
)

// benchWriter is a ResponseWriter that keeps the last body, so that a
// benchmark measures the handler and not net/http.
type benchWriter struct {
	hdr    http.Header
	status int
	body   []byte
}

func (w *benchWriter) Header() http.Header         { return w.hdr }
func (w *benchWriter) WriteHeader(code int)        { w.status = code }
func (w *benchWriter) Flush()                      {}
func (w *benchWriter) Write(p []byte) (int, error) { w.body = append(w.body, p...); return len(p), nil }

// benchSession opens a session on h and returns its id.
func benchSession(b *testing.B, h http.Handler) string {
	b.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	sid := post("", initBody).Header.Get("Mcp-Session-Id")
	if sid == "" {
		b.Fatal("no session")
	}
	post(sid, initializedN)
	srv.Client().CloseIdleConnections()
	return sid
}

const benchCallPre = `{"jsonrpc":"2.0","id":`
const benchCallPost = `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`

// BenchmarkHandlerToolsCall measures the handler alone serving a tools/call
// POST on a live session: headers checked, body read and decoded, the
// typed echo tool run, the reply written (SSE or JSON).
func BenchmarkHandlerToolsCall(b *testing.B) {
	for _, mode := range []string{"sse", "json"} {
		b.Run(mode, func(b *testing.B) {
			s, _ := newTestServer(b)
			h := NewHandler(s, &Options{JSONResponse: mode == "json"})
			defer h.Close()
			sid := benchSession(b, h)
			ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", nil)
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			w := &benchWriter{hdr: http.Header{}}
			var body []byte
			rd := bytes.NewReader(nil)
			want := []byte(`"text":"hello, world"`)
			b.ReportAllocs()
			i, start := 0, cpuclock.Now()
			for b.Loop() {
				i++
				body = append(strconv.AppendInt(append(body[:0], benchCallPre...), int64(i), 10), benchCallPost...)
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				req.ContentLength = int64(len(body))
				clear(w.hdr)
				w.body = w.body[:0]
				h.ServeHTTP(w, req)
				if w.status != 200 || !bytes.Contains(w.body, want) {
					b.Fatalf("status %d body %s", w.status, w.body)
				}
			}
			reportCPU(b, start, i)
		})
	}
}

// benchPOSTServer serves the test server over loopback HTTP/1.1, with
// SSE or (mode "json") JSON replies, and returns it with an initialized
// session's id; both are closed when b ends.
func benchPOSTServer(b *testing.B, mode string) (*httptest.Server, string) {
	s, _ := newTestServer(b)
	h := NewHandler(s, &Options{JSONResponse: mode == "json"})
	b.Cleanup(func() { h.Close() })
	sid := benchSession(b, h)
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv, sid
}

// BenchmarkPOSTRoundTrip measures a full tools/call round trip over
// loopback HTTP/1.1 with a keep-alive client (client CPU included).
func BenchmarkPOSTRoundTrip(b *testing.B) {
	for _, mode := range []string{"sse", "json"} {
		b.Run(mode, func(b *testing.B) {
			srv, sid := benchPOSTServer(b, mode)
			client := srv.Client()
			defer client.CloseIdleConnections()
			var body []byte
			want := []byte(`"text":"hello, world"`)
			got := make([]byte, 0, 512)
			b.ReportAllocs()
			i, start := 0, cpuclock.Now()
			for b.Loop() {
				i++
				body = append(strconv.AppendInt(append(body[:0], benchCallPre...), int64(i), 10), benchCallPost...)
				req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				got = got[:0]
				for {
					if len(got) == cap(got) {
						got = append(got, 0)[:len(got)]
					}
					n, err := resp.Body.Read(got[len(got):cap(got)])
					got = got[:len(got)+n]
					if err != nil {
						break
					}
				}
				resp.Body.Close()
				if resp.StatusCode != 200 || !bytes.Contains(got, want) {
					b.Fatalf("status %d body %s", resp.StatusCode, got)
				}
			}
			reportCPU(b, start, i)
		})
	}
}

// reportCPU adds a cpu-ns/op metric measured from start.
func reportCPU(b *testing.B, start time.Duration, n int) {
	b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
}

// BenchmarkHandlerStatelessToolsCall is BenchmarkHandlerToolsCall for a
// 2026-07-28 request with no session: its headers checked against the
// body (for route, an Mcp-Param-Region header from x-mcp-header too), then
// served statelessly.
func BenchmarkHandlerStatelessToolsCall(b *testing.B) {
	for _, tc := range []struct{ mode, tool, args string }{
		{"sse", "echo", `{"text":"hello, world"}`},
		{"json", "echo", `{"text":"hello, world"}`},
		{"json", "route", `{"region":"hello, world"}`},
	} {
		b.Run(tc.mode+"/"+tc.tool, func(b *testing.B) {
			s, _ := newTestServer(b)
			must(b, s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(
				`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}`)},
				func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, world"}}}, nil
				}))
			h := NewHandler(s, &Options{JSONResponse: tc.mode == "json"})
			defer h.Close()
			ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", nil)
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", tc.tool)
			if tc.tool == "route" {
				req.Header.Set("Mcp-Param-Region", "hello, world")
			}
			post := `,"method":"tools/call","params":{"_meta":` + statelessMeta + `,"name":"` + tc.tool + `","arguments":` + tc.args + `}}`
			w := &benchWriter{hdr: http.Header{}}
			var body []byte
			rd := bytes.NewReader(nil)
			want := []byte(`"text":"hello, world"`)
			b.ReportAllocs()
			i, start := 0, cpuclock.Now()
			for b.Loop() {
				i++
				body = append(strconv.AppendInt(append(body[:0], benchCallPre...), int64(i), 10), post...)
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				req.ContentLength = int64(len(body))
				clear(w.hdr)
				w.body = w.body[:0]
				h.ServeHTTP(w, req)
				if w.status != 200 || !bytes.Contains(w.body, want) {
					b.Fatalf("status %d body %s", w.status, w.body)
				}
			}
			reportCPU(b, start, i)
		})
	}
}

// BenchmarkPOSTWire measures a tools/call round trip over a loopback
// keep-alive connection with a client that writes the request bytes and
// reads the reply by hand, so that the cpu-ns/op (server and client) is
// mostly net/http's server and the handler: what the handler makes
// net/http do per reply (headers, body draining, framing) shows here and
// not in BenchmarkHandlerToolsCall.
func BenchmarkPOSTWire(b *testing.B) {
	for _, mode := range []string{"sse", "json"} {
		b.Run(mode, func(b *testing.B) {
			srv, sid := benchPOSTServer(b, mode)
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			head := "POST / HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() +
				"\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: " + sid +
				"\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: "
			var req, body, got []byte
			want := []byte(`"text":"hello, world"`)
			b.ReportAllocs()
			i, start := 0, cpuclock.Now()
			for b.Loop() {
				i++
				body = append(strconv.AppendInt(append(body[:0], benchCallPre...), int64(i), 10), benchCallPost...)
				req = append(strconv.AppendInt(append(req[:0], head...), int64(len(body)), 10), "\r\n\r\n"...)
				req = append(req, body...)
				if _, err := conn.Write(req); err != nil {
					b.Fatal(err)
				}
				status, n := 0, -1
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						b.Fatal(err)
					}
					if status == 0 {
						status, _ = strconv.Atoi(string(line[9:12]))
						continue
					}
					if len(line) <= 2 {
						break
					}
					if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
						n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
					}
				}
				if n < 0 {
					b.Fatal("no Content-Length")
				}
				got = append(got[:0], make([]byte, n)...)
				if _, err := io.ReadFull(br, got); err != nil {
					b.Fatal(err)
				}
				if status != 200 || !bytes.Contains(got, want) {
					b.Fatalf("status %d body %s", status, got)
				}
			}
			reportCPU(b, start, i)
		})
	}
}
