package otel_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"
)

// TestFollowUnsampledParent checks Options.FollowUnsampledParent on both
// receiving middlewares, against the same middleware without it, under
// sdktrace's default sampler (ParentBased(AlwaysSample)): with an
// unsampled remote parent no span is recorded either way, the handler's
// context carries the remote span context itself (without the option, a
// new non-recording span of the same trace), and the operation histogram
// gets the same point; with a sampled parent, or none, the spans recorded
// are the same, name, kind, parent and attributes.
func TestFollowUnsampledParent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const (
		traceID = "0af7651916cd43dd8448eb211c80319c"
		spanID  = "b7ad6b7169203331"
	)
	tid, _ := trace.TraceIDFromHex(traceID)
	sid, _ := trace.SpanIDFromHex(spanID)
	params := func(flags string) json.RawMessage {
		if flags == "" {
			return json.RawMessage(`{"name":"echo","arguments":{}}`)
		}
		return json.RawMessage(`{"_meta":{"traceparent":"00-` + traceID + `-` + spanID + `-` + flags + `"},"name":"echo","arguments":{}}`)
	}
	// run sends one tools/call through the server middleware (server) or
	// one sampling/createMessage through the client's, and returns the
	// span context the handler saw, the spans recorded and the
	// attributes of the histogram's point.
	type outcome struct {
		handler trace.SpanContext
		spans   []sdktrace.ReadOnlySpan
		point   map[string]string
	}
	run := func(t *testing.T, server, follow bool, flags string) outcome {
		t.Helper()
		rec := tracetest.NewSpanRecorder()
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		ins, err := mcpotel.New(&mcpotel.Options{
			TracerProvider:        sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)),
			MeterProvider:         mp,
			FollowUnsampledParent: follow,
		})
		if err != nil {
			t.Fatal(err)
		}
		var got outcome
		ctx := context.Background()
		name := "mcp.server.operation.duration"
		if server {
			h := ins.ServerMiddleware()(func(ctx context.Context, _ *mcp.Request) (any, error) {
				got.handler = trace.SpanContextFromContext(ctx)
				return &mcp.CallToolResult{}, nil
			})
			if _, err := h(ctx, &mcp.Request{Method: "tools/call", ID: jsonrpc.Int64ID(3), ProtocolVersion: mcp.Version20251125, Params: params(flags)}); err != nil {
				t.Fatal(err)
			}
		} else {
			h := ins.ClientMiddleware(mcpotel.ClientConfig{})(func(ctx context.Context, _ *mcp.ClientRequest) (any, error) {
				got.handler = trace.SpanContextFromContext(ctx)
				return &mcp.CreateMessageResult{}, nil
			})
			if _, err := h(ctx, &mcp.ClientRequest{Method: "sampling/createMessage", ID: jsonrpc.Int64ID(3), Params: params(flags)}); err != nil {
				t.Fatal(err)
			}
		}
		got.spans = rec.Ended()
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		points := histogram(t, rm, name)
		if len(points) != 1 || points[0].Count != 1 {
			t.Fatalf("%s: %+v, want one point of one measurement", name, points)
		}
		got.point = attrMap(points[0].Attributes.ToSlice())
		return got
	}
	for _, server := range []bool{true, false} {
		side := map[bool]string{true: "server", false: "client"}[server]
		t.Run(side+"/unsampled", func(t *testing.T) {
			off, on := run(t, server, false, "00"), run(t, server, true, "00")
			if len(off.spans) != 0 || len(on.spans) != 0 {
				t.Fatalf("spans recorded: %s without the option, %s with it; want none", spanList(off.spans), spanList(on.spans))
			}
			want := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, Remote: true})
			if !on.handler.Equal(want) {
				t.Errorf("with the option the handler saw %+v, want the remote parent %+v", on.handler, want)
			}
			if off.handler.TraceID() != tid || off.handler.SpanID() == sid || off.handler.IsSampled() || off.handler.IsRemote() {
				t.Errorf("without the option the handler saw %+v, want a new unsampled span of trace %s", off.handler, traceID)
			}
			if !maps.Equal(on.point, off.point) {
				t.Errorf("histogram point %v with the option, %v without", on.point, off.point)
			}
		})
		for _, flags := range []string{"01", ""} {
			t.Run(side+"/parent="+flags, func(t *testing.T) {
				off, on := run(t, server, false, flags), run(t, server, true, flags)
				if len(off.spans) != 1 || len(on.spans) != 1 {
					t.Fatalf("spans recorded: %s without the option, %s with it; want one each", spanList(off.spans), spanList(on.spans))
				}
				a, b := off.spans[0], on.spans[0]
				if a.Name() != b.Name() || a.SpanKind() != b.SpanKind() || !a.Parent().Equal(b.Parent()) ||
					!maps.Equal(attrMap(a.Attributes()), attrMap(b.Attributes())) || len(a.Links()) != len(b.Links()) {
					t.Errorf("span with the option %s %s parent %v %v, without %s %s parent %v %v",
						b.SpanKind(), b.Name(), b.Parent(), attrMap(b.Attributes()), a.SpanKind(), a.Name(), a.Parent(), attrMap(a.Attributes()))
				}
				if flags == "01" && (b.Parent().SpanID() != sid || b.Parent().TraceID() != tid) {
					t.Errorf("parent %v, want the remote span %s", b.Parent(), spanID)
				}
				if !maps.Equal(on.point, off.point) {
					t.Errorf("histogram point %v with the option, %v without", on.point, off.point)
				}
			})
		}
	}
}

// TestFollowUnsampledParentNoMetrics checks the shortest path: with the
// option, an unsampled remote parent and the operation histogram
// disabled, the handler runs under the remote span context, nothing is
// recorded, and what the handler returns comes back unchanged.
func TestFollowUnsampledParentNoMetrics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rec := tracetest.NewSpanRecorder()
	ins, err := mcpotel.New(&mcpotel.Options{
		TracerProvider:        sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)),
		MeterProvider:         metricnoop.NewMeterProvider(),
		FollowUnsampledParent: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	want := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, Remote: true})
	params := json.RawMessage(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"},"name":"echo"}`)
	wantErr := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no"}
	var got trace.SpanContext
	h := ins.ServerMiddleware()(func(ctx context.Context, _ *mcp.Request) (any, error) {
		got = trace.SpanContextFromContext(ctx)
		return "r", wantErr
	})
	res, err := h(context.Background(), &mcp.Request{Method: "tools/call", ID: jsonrpc.Int64ID(1), Params: params})
	if res != "r" || err != wantErr {
		t.Errorf("server: %v, %v; want r, %v", res, err, wantErr)
	}
	if !got.Equal(want) {
		t.Errorf("server handler saw %+v, want %+v", got, want)
	}
	ch := ins.ClientMiddleware(mcpotel.ClientConfig{})(func(ctx context.Context, _ *mcp.ClientRequest) (any, error) {
		got = trace.SpanContextFromContext(ctx)
		return "c", nil
	})
	got = trace.SpanContext{}
	if res, err := ch(context.Background(), &mcp.ClientRequest{Method: "sampling/createMessage", ID: jsonrpc.Int64ID(1), Params: params}); res != "c" || err != nil {
		t.Errorf("client: %v, %v; want c, nil", res, err)
	}
	if !got.Equal(want) {
		t.Errorf("client handler saw %+v, want %+v", got, want)
	}
	if spans := rec.Ended(); len(spans) != 0 {
		t.Errorf("spans recorded: %s", spanList(spans))
	}
}

// TestNoopProviderFollowsRemoteParent checks that with OpenTelemetry's
// no-op TracerProvider and no option, a remote parent in _meta, sampled or
// not, is followed as Options.FollowUnsampledParent follows an unsampled
// one: the handler sees the span context the no-op tracer's span would
// carry, not recording, for the remote context's one allocation; and that
// without a remote parent the no-op tracer still starts its span, so the
// handler never gets the ambient span itself.
func TestNoopProviderFollowsRemoteParent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ins, err := mcpotel.New(&mcpotel.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
	if err != nil {
		t.Fatal(err)
	}
	var got trace.Span
	h := ins.ServerMiddleware()(func(ctx context.Context, _ *mcp.Request) (any, error) {
		got = trace.SpanFromContext(ctx)
		return nil, nil
	})
	for _, flags := range []string{"00", "01"} {
		params := json.RawMessage(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-` + flags + `"},"name":"echo"}`)
		req := &mcp.Request{Method: "tools/call", ID: jsonrpc.Int64ID(1), Params: params}
		if _, err := h(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		remote := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-" + flags}))
		_, want := tracenoop.NewTracerProvider().Tracer("").Start(trace.ContextWithRemoteSpanContext(context.Background(), remote), "tools/call")
		if !got.SpanContext().Equal(want.SpanContext()) || got.SpanContext().IsRemote() != want.SpanContext().IsRemote() || got.IsRecording() {
			t.Errorf("flags %s: handler's span %+v (recording %v), want %+v as the no-op tracer gives", flags, got.SpanContext(), got.IsRecording(), want.SpanContext())
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = h(context.Background(), req) }); n != 1 {
			t.Errorf("flags %s: %v allocations a call, want 1 (the remote span context)", flags, n)
		}
	}
	// No remote parent: the no-op tracer's span, not the ambient one.
	tp := sdktrace.NewTracerProvider()
	ambientCtx, ambient := tp.Tracer("t").Start(context.Background(), "ambient")
	defer ambient.End()
	if _, err := h(ambientCtx, &mcp.Request{Method: "tools/call", ID: jsonrpc.Int64ID(1), Params: json.RawMessage(`{"_meta":{},"name":"echo"}`)}); err != nil {
		t.Fatal(err)
	}
	if got == ambient || got.IsRecording() || !got.SpanContext().Equal(ambient.SpanContext()) {
		t.Errorf("without a remote parent the handler got %T %+v (recording %v), want the no-op tracer's span of the ambient context", got, got.SpanContext(), got.IsRecording())
	}
}
