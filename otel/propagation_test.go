package otel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

// TestTraceContinuesIntoSampling starts a trace in the client's
// application, calls a tool that asks the client's model
// (sampling/createMessage), and checks that one trace runs through all of
// it, each span the child of the one before: the application's span, the
// client's tools/call, the server's tools/call, the server's
// sampling/createMessage, the client's handling of it; and that the
// application's baggage reaches the sampling handler, over stdio and HTTP.
func TestTraceContinuesIntoSampling(t *testing.T) {
	for _, transport := range []string{transStdio, transHTTP} {
		t.Run(transport, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			tm := newTelemetry(t)
			var sampleCtx context.Context
			tm.onSample = func(ctx context.Context) { sampleCtx = ctx }
			s, _ := newServer(t, tm)
			c := connect(t, tm, s, transport, mcp.EraSession)

			member, err := baggage.NewMember("user", "alice")
			must(t, err)
			bag, err := baggage.New(member)
			must(t, err)
			ctx := baggage.ContextWithBaggage(context.Background(), bag)
			ctx, app := tm.tp.Tracer("app").Start(ctx, "app")
			res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(`{"text":"why?"}`)})
			app.End()
			if err != nil || res.IsError {
				t.Fatalf("ask: %v %+v", err, res)
			}
			c.stop()

			spans := tm.spans.Ended()
			chain := []sdktrace.ReadOnlySpan{
				findSpan(t, spans, trace.SpanKindInternal, "app"),
				findSpan(t, spans, trace.SpanKindClient, "tools/call ask"),
				findSpan(t, spans, trace.SpanKindServer, "tools/call ask"),
				findSpan(t, spans, trace.SpanKindClient, "sampling/createMessage"),
				findSpan(t, spans, trace.SpanKindServer, "sampling/createMessage"),
			}
			traceID := chain[0].SpanContext().TraceID()
			for i := 1; i < len(chain); i++ {
				sp, parent := chain[i], chain[i-1]
				if sp.SpanContext().TraceID() != traceID || sp.Parent().SpanID() != parent.SpanContext().SpanID() {
					t.Errorf("%s %s: trace %s parent %s, want trace %s parent %s (%s %s)", sp.SpanKind(), sp.Name(),
						sp.SpanContext().TraceID(), sp.Parent().SpanID(), traceID, parent.SpanContext().SpanID(), parent.SpanKind(), parent.Name())
				}
			}
			// The sampling handler runs in the client's SERVER span, with the
			// application's baggage, carried there and back.
			if got := trace.SpanContextFromContext(sampleCtx).SpanID(); got != chain[4].SpanContext().SpanID() {
				t.Errorf("the sampling handler's span is %s, want %s", got, chain[4].SpanContext().SpanID())
			}
			if got := baggage.FromContext(sampleCtx).Member("user").Value(); got != "alice" {
				t.Errorf("the sampling handler's baggage user = %q, want alice", got)
			}
		})
	}
}
