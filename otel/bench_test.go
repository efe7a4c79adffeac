package otel_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// cpuClock is the process's user and system CPU time so far.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
// the last two without metrics; and with metrics as well.
func BenchmarkToolsCall(b *testing.B) {
	cases := []struct {
		name    string
		sampler sdktrace.Sampler // nil: no instrumentation
		metrics bool             // with sampler nil: middleware that does nothing
	}{
		{"off", nil, false},
		{"passthrough", nil, true},
		{"unsampled", sdktrace.NeverSample(), false},
		{"sampled", sdktrace.AlwaysSample(), false},
		{"unsampled+metrics", sdktrace.NeverSample(), true},
		{"sampled+metrics", sdktrace.AlwaysSample(), true},
	}
	for _, transport := range []string{"memory", "http"} {
		for _, bc := range cases {
			b.Run(transport+"/"+bc.name, func(b *testing.B) { benchToolsCall(b, transport, bc.sampler, bc.metrics) })
		}
	}
}

func benchToolsCall(b *testing.B, transport string, sampler sdktrace.Sampler, metrics bool) {
	sopts, copts := &mcp.ServerOptions{}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession}
	if sampler != nil {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(discardProcessor{}))
		opts := &mcpotel.Options{TracerProvider: tp, MeterProvider: noop.NewMeterProvider()}
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
	n, start := 0, cpuClock()
	for b.Loop() {
		n++
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuClock()-start)/float64(n), "cpu-ns/op")
}
