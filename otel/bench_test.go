package otel_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// discardProcessor ends recorded spans and exports nothing: the cost of
// recording without that of an exporter.
type discardProcessor struct{}

func (discardProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discardProcessor) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discardProcessor) Shutdown(context.Context) error                  { return nil }
func (discardProcessor) ForceFlush(context.Context) error                { return nil }

// BenchmarkToolsCall measures one tools/call round trip, client and
// server in one process (cpu-ns/op counts both sides) over the in-memory
// transport and over Streamable HTTP on 127.0.0.1, with tracing off (no middleware), on but unsampled
// (NeverSample: spans are not recorded, the trace context still travels
// in _meta), on and sampled (AlwaysSample, spans recorded and dropped),
// the last two without metrics; and with metrics as well. "noprovider" is
// the middleware with OpenTelemetry's no-op providers, as when no SDK is
// installed: no span context, nothing written into _meta.
// "unsampled-follow" is ParentBased(NeverSample) with
// Options.FollowUnsampledParent: the server starts no span. "metaonly" is
// no instrumentation but a client middleware that writes a traceparent
// into _meta: what package mcp spends on a request that carries one.
func BenchmarkToolsCall(b *testing.B) {
	cases := []struct {
		name    string
		sampler sdktrace.Sampler // nil: no instrumentation
		metrics bool             // with sampler nil: middleware that does nothing
	}{
		{"off", nil, false},
		{"passthrough", nil, true},
		{"noprovider", nil, false},
		{"metaonly", nil, false},
		{"unsampled", sdktrace.NeverSample(), false},
		{"unsampled-follow", sdktrace.ParentBased(sdktrace.NeverSample()), false},
		{"sampled", sdktrace.AlwaysSample(), false},
		{"unsampled+metrics", sdktrace.NeverSample(), true},
		{"sampled+metrics", sdktrace.AlwaysSample(), true},
	}
	for _, transport := range []string{"memory", "http"} {
		for _, bc := range cases {
			b.Run(transport+"/"+bc.name, func(b *testing.B) { benchToolsCall(b, transport, bc.name, bc.sampler, bc.metrics) })
		}
	}
}

func benchToolsCall(b *testing.B, transport, name string, sampler sdktrace.Sampler, metrics bool) {
	sopts, copts := &mcp.ServerOptions{}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession}
	if sampler == nil && metrics {
		addPassthrough(sopts, copts)
	}
	if name == "metaonly" {
		copts.SendingMiddleware = append(copts.SendingMiddleware, addMeta)
	}
	if sampler != nil || name == "noprovider" {
		var tp trace.TracerProvider = tracenoop.NewTracerProvider()
		if sampler != nil {
			tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(discardProcessor{}))
		}
		opts := &mcpotel.Options{TracerProvider: tp, MeterProvider: noop.NewMeterProvider(), FollowUnsampledParent: name == "unsampled-follow"}
		if metrics {
			opts.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		}
		ins, err := mcpotel.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		ins.InstrumentServer(sopts)
		cfg := mcpotel.ClientConfig{}
		if transport == "http" {
			cfg.URL = "http://127.0.0.1/mcp"
		}
		ins.InstrumentClient(copts, cfg)
	}
	s := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1"}, sopts)
	type in struct {
		Text string `json:"text"`
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v in) (string, error) {
		return v.Text, nil
	}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ct mcp.Transport
	switch transport {
	case "memory":
		var st mcp.Transport
		ct, st = mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
	case "http":
		h := mcphttp.NewHandler(s, nil)
		srv := httptest.NewServer(h)
		defer srv.Close()
		defer h.Close()
		ct = &mcphttp.ClientTransport{URL: srv.URL}
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "bench-client", Version: "1"}, copts).Connect(ctx, ct)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello, world"}`)}
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
}

// addMeta is client middleware that writes an unsampled traceparent into
// the params of what the client sends, as the instrumentation would, and
// does nothing else: what carrying _meta costs package mcp on both sides.
func addMeta(next mcp.SendHandler) mcp.SendHandler {
	return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
		if len(m.Params) < 3 || m.Params[0] != '{' || m.Params[1] != '"' {
			return next(ctx, m) // not an object with members, as tools/call's are
		}
		m2 := *m
		m2.Params = append([]byte(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"},`), m.Params[1:]...)
		return next(ctx, &m2)
	}
}

// addPassthrough gives each side middleware that only calls next, in the
// places the instrumentation takes: what the middleware chain itself
// costs, apart from what the instrumentation does in it.
func addPassthrough(sopts *mcp.ServerOptions, copts *mcp.ClientOptions) {
	send := func(next mcp.SendHandler) mcp.SendHandler {
		return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) { return next(ctx, m) }
	}
	sopts.Middleware = append(sopts.Middleware, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, req *mcp.Request) (any, error) { return next(ctx, req) }
	})
	sopts.SendingMiddleware = append(sopts.SendingMiddleware, send)
	if copts != nil {
		copts.SendingMiddleware = append(copts.SendingMiddleware, send)
		copts.Middleware = append(copts.Middleware, func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
			return func(ctx context.Context, r *mcp.ClientRequest) (any, error) { return next(ctx, r) }
		})
	}
}

// recorder is a minimal http.ResponseWriter for driving a Handler
// without a network: it keeps the status and the body.
type recorder struct {
	hdr    http.Header
	status int
	body   []byte
}

func (w *recorder) Header() http.Header         { return w.hdr }
func (w *recorder) WriteHeader(status int)      { w.status = status }
func (w *recorder) Write(p []byte) (int, error) { w.body = append(w.body, p...); return len(p), nil }
func (w *recorder) Flush()                      {}

// BenchmarkServerToolsCall measures the server side alone: an mcphttp
// Handler serving a session-era tools/call POST whose params carry a
// traceparent, as an instrumented client sends it, with the server
// uninstrumented (off), instrumented and unsampled (the incoming trace
// context says not sampled; ParentBased follows it), and sampled. No
// network and no client: cpu-ns/op is the server's own CPU per call, the
// cost an operator pays, to be compared with what a tools/call costs the
// server over real HTTP (bench/, scenario 1).
func BenchmarkServerToolsCall(b *testing.B) {
	for _, bc := range serverCases {
		b.Run(bc.name, func(b *testing.B) {
			s := newBenchServer(b, bc)
			h := mcphttp.NewHandler(s, nil)
			defer h.Close()
			ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
			post := func(body, sid string) *recorder {
				req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(body))
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Content-Type", "application/json")
				if sid != "" {
					req.Header.Set("Mcp-Session-Id", sid)
					req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				}
				w := &recorder{hdr: http.Header{}}
				h.ServeHTTP(w, req)
				return w
			}
			w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, "")
			sid := w.hdr.Get("Mcp-Session-Id")
			if w.status != http.StatusOK || sid == "" {
				b.Fatalf("initialize: %d %s", w.status, w.body)
			}
			if w := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); w.status != http.StatusAccepted {
				b.Fatalf("initialized: %d %s", w.status, w.body)
			}
			body := string(appendToolsCall(nil, 2, bc.flags))
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", nil)
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			rw := &recorder{hdr: http.Header{}}
			rd := strings.NewReader(body)
			want := []byte(`"text":"hello, world"`)
			b.ReportAllocs()
			n, start := 0, cpuclock.Now()
			for b.Loop() {
				n++
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				req.ContentLength = int64(len(body))
				clear(rw.hdr)
				rw.body = rw.body[:0]
				h.ServeHTTP(rw, req)
				if rw.status != http.StatusOK || !bytes.Contains(rw.body, want) {
					b.Fatalf("tools/call: %d %s", rw.status, rw.body)
				}
			}
			b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
		})
	}
}

// serverCases are the server-side benchmarks' cases: the server
// uninstrumented (off), with middleware that only calls next
// (passthrough), instrumented with ParentBased(AlwaysSample) and an
// incoming traceparent that says not sampled (unsampled) or sampled
// (sampled), spans dropped by discardProcessor, metrics off.
// "unsampled-follow" is unsampled with Options.FollowUnsampledParent.
var serverCases = []serverCase{
	{"off", nil, "00", false},
	{"passthrough", nil, "00", false},
	{"unsampled", sdktrace.ParentBased(sdktrace.AlwaysSample()), "00", false},
	{"unsampled-follow", sdktrace.ParentBased(sdktrace.AlwaysSample()), "00", true},
	{"sampled", sdktrace.ParentBased(sdktrace.AlwaysSample()), "01", false},
}

type serverCase struct {
	name    string
	sampler sdktrace.Sampler // nil: not instrumented
	flags   string           // the traceparent's flags
	follow  bool             // Options.FollowUnsampledParent
}

// newBenchServer returns the echo server of the server-side benchmarks,
// instrumented as bc says.
func newBenchServer(b *testing.B, bc serverCase) *mcp.Server {
	sopts := &mcp.ServerOptions{}
	if bc.name == "passthrough" {
		addPassthrough(sopts, nil)
	}
	if bc.sampler != nil {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(bc.sampler), sdktrace.WithSpanProcessor(discardProcessor{}))
		ins, err := mcpotel.New(&mcpotel.Options{TracerProvider: tp, MeterProvider: noop.NewMeterProvider(), FollowUnsampledParent: bc.follow})
		if err != nil {
			b.Fatal(err)
		}
		ins.InstrumentServer(sopts)
	}
	s := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1"}, sopts)
	type in struct {
		Text string `json:"text"`
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, v in) (string, error) {
		return v.Text, nil
	}); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchInitialize and benchInitialized open a session-era session.
const (
	benchInitialize  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
	benchInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// appendToolsCall appends the tools/call frame with id that an
// instrumented client sends: its traceparent in params._meta.
func appendToolsCall(buf []byte, id int, flags string) []byte {
	buf = strconv.AppendInt(append(buf, `{"jsonrpc":"2.0","id":`...), int64(id), 10)
	return append(appendToolsCallParams(append(buf, `,"method":"tools/call","params":`...), flags), '}')
}

// appendToolsCallParams appends the params of that frame, _meta first as
// the client middleware writes it.
func appendToolsCallParams(buf []byte, flags string) []byte {
	return append(buf, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-`+flags+`"},"name":"echo","arguments":{"text":"hello, world"}}`...)
}

// BenchmarkServerToolsCallStdio measures the server side alone over the
// stdio transport as it runs in production (Server.Run on a
// StdioTransport, newline-delimited frames on OS pipes), with 64
// tools/call requests in flight, each carrying a traceparent: the
// cheapest a tools/call gets on any transport, and so the one where the
// instrumentation's share is largest. The client is a bare writer and
// reader of frames; cpu-ns/op is the process's CPU per call, almost all
// of it the server's. Compare cases with -test.cpu 1, for the reason
// BenchmarkServerToolsCallMemory gives.
func BenchmarkServerToolsCallStdio(b *testing.B) {
	for _, bc := range serverCases {
		b.Run(bc.name, func(b *testing.B) {
			s := newBenchServer(b, bc)
			inR, inW, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			outR, outW, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- s.Run(context.Background(), &mcp.StdioTransport{In: inR, Out: outW}) }()
			rd := bufio.NewReaderSize(outR, 64<<10)
			if _, err := inW.Write([]byte(benchInitialize + "\n")); err != nil {
				b.Fatal(err)
			}
			if _, err := rd.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
			if _, err := inW.Write([]byte(benchInitialized + "\n")); err != nil {
				b.Fatal(err)
			}
			const window = 64
			credit := make(chan struct{}, window)
			for range window {
				credit <- struct{}{}
			}
			stop := make(chan struct{})
			sent := make(chan error, 1)
			go func() {
				w := bufio.NewWriter(inW)
				buf := make([]byte, 0, 256)
				for i := 1; ; i++ {
					select {
					case <-credit:
					case <-stop:
						sent <- w.Flush()
						return
					}
					buf = append(appendToolsCall(buf[:0], i, bc.flags), '\n')
					_, _ = w.Write(buf)
					if len(credit) == 0 {
						if err := w.Flush(); err != nil {
							sent <- err
							return
						}
					}
				}
			}()
			want := []byte(`"text":"hello, world"`)
			b.ReportAllocs()
			n, start := 0, cpuclock.Now()
			for b.Loop() {
				n++
				line, err := rd.ReadSlice('\n')
				if err != nil || !bytes.Contains(line, want) {
					b.Fatalf("tools/call: %q %v", line, err)
				}
				credit <- struct{}{}
			}
			b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
			b.StopTimer()
			close(stop)
			if err := <-sent; err != nil {
				b.Fatal(err)
			}
			inW.Close()
			for {
				if _, err := rd.ReadSlice('\n'); err != nil {
					break
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			outR.Close()
			inR.Close()
			outW.Close()
		})
	}
}

// BenchmarkServerToolsCallMemory measures the server side alone over the
// in-memory transport: a session's read loop serving one tools/call at a
// time, each carrying a traceparent, written and read by a bare client
// connection. cpu-ns/op is the process's CPU per call: the server's and
// the hand-offs between the two goroutines.
//
// Run it with -test.cpu 1 to compare cases: with two Ps, each hand-off
// wakes the other P, and what that costs (about half of the call's CPU
// here, spent waking and spinning, not serving) depends on whether the P
// is still spinning when the next frame comes, which a few hundred
// nanoseconds more or less of server work changes; with one P the
// difference between two cases is the work each does.
func BenchmarkServerToolsCallMemory(b *testing.B) {
	for _, bc := range serverCases {
		b.Run(bc.name, func(b *testing.B) {
			s := newBenchServer(b, bc)
			ct, st := mcp.NewInMemoryTransports()
			ctx := context.Background()
			ss, err := s.Connect(ctx, st)
			if err != nil {
				b.Fatal(err)
			}
			c, err := ct.Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Write(ctx, []byte(benchInitialize)); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Read(ctx); err != nil {
				b.Fatal(err)
			}
			if err := c.Write(ctx, []byte(benchInitialized)); err != nil {
				b.Fatal(err)
			}
			want := []byte(`"text":"hello, world"`)
			b.ReportAllocs()
			n, start := 0, cpuclock.Now()
			for b.Loop() {
				n++
				// A new frame each time: the transport hands it over.
				if err := c.Write(ctx, appendToolsCall(make([]byte, 0, 256), n, bc.flags)); err != nil {
					b.Fatal(err)
				}
				reply, err := c.Read(ctx)
				if err != nil || !bytes.Contains(reply, want) {
					b.Fatalf("tools/call: %q %v", reply, err)
				}
			}
			b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
			b.StopTimer()
			c.Close()
			ss.Wait()
		})
	}
}
