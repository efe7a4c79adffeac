package otel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/cpuclock"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// BenchmarkServerMiddleware measures the server middleware by itself,
// called directly around a handler that returns at once: what the
// instrumentation adds to each request, without a transport's noise.
func BenchmarkServerMiddleware(b *testing.B) {
	for _, bc := range serverCases {
		b.Run(bc.name, func(b *testing.B) {
			next := mcp.MethodHandler(func(context.Context, *mcp.Request) (any, error) { return nil, nil })
			h := next
			switch {
			case bc.name == "passthrough":
				h = func(ctx context.Context, req *mcp.Request) (any, error) { return next(ctx, req) }
			case bc.sampler != nil:
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(bc.sampler), sdktrace.WithSpanProcessor(discardProcessor{}))
				ins, err := mcpotel.New(&mcpotel.Options{TracerProvider: tp, MeterProvider: noop.NewMeterProvider(), FollowUnsampledParent: bc.follow})
				if err != nil {
					b.Fatal(err)
				}
				h = ins.ServerMiddleware()(next)
			}
			req := &mcp.Request{Method: "tools/call", ID: jsonrpc.Int64ID(2), ProtocolVersion: "2025-11-25",
				Params: json.RawMessage(appendToolsCallParams(nil, bc.flags))}
			ctx := context.Background()
			b.ReportAllocs()
			n, start := 0, cpuclock.Now()
			for b.Loop() {
				n++
				if _, err := h(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
		})
	}
}

// BenchmarkSDKStartUnsampled measures the floor of the default unsampled
// path: the OpenTelemetry SDK's own Start and End of a SERVER span under
// ParentBased(AlwaysSample) and a remote parent that says not sampled,
// with nothing of this package around it.
func BenchmarkSDKStartUnsampled(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())), sdktrace.WithSpanProcessor(discardProcessor{}))
	tracer := tp.Tracer(mcpotel.ScopeName)
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), sc)
	// The options made once, as the middleware makes them.
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
	b.ReportAllocs()
	n, start := 0, cpuclock.Now()
	for b.Loop() {
		n++
		_, span := tracer.Start(ctx, "tools/call", opts...)
		if span.IsRecording() {
			b.Fatal("recording")
		}
		span.End()
	}
	b.ReportMetric(float64(cpuclock.Now()-start)/float64(n), "cpu-ns/op")
}
