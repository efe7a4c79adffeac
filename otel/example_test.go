package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// traceToolCallingSampling runs an application span around a client's
// tools/call of a tool that asks the client's model
// (sampling/createMessage), both sides instrumented, over stdio-framed
// pipes, and returns the spans recorded.
func traceToolCallingSampling() []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ins, err := mcpotel.New(&mcpotel.Options{TracerProvider: tp})
	if err != nil {
		panic(err)
	}

	sopts := &mcp.ServerOptions{}
	ins.InstrumentServer(sopts)
	server := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1"}, sopts)
	type in struct {
		City string `json:"city"`
	}
	err = mcp.AddTool(server, &mcp.Tool{Name: "forecast", Description: "asks the model for a forecast"},
		func(ctx context.Context, req *mcp.Request, a in) (string, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 50,
				Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Weather in " + a.City + "?"}}}}})
			if err != nil {
				return "", err
			}
			return res.Model, nil
		})
	if err != nil {
		panic(err)
	}

	copts := &mcp.ClientOptions{ProtocolEra: mcp.EraSession,
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "local-model", Content: mcp.SamplingContents{&mcp.TextContent{Text: "Sunny."}}}, nil
		}}
	ins.InstrumentClient(copts, mcpotel.ClientConfig{})
	ct, st := newPipeTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st)
	if err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "agent", Version: "1"}, copts).Connect(ctx, ct)
	if err != nil {
		panic(err)
	}
	ctx, span := tp.Tracer("agent").Start(ctx, "plan trip")
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: json.RawMessage(`{"city":"Lisbon"}`)}); err != nil {
		panic(err)
	}
	span.End()
	cs.Close()
	ss.Close()
	ss.Wait()
	return rec.Ended()
}

// writeTrace writes the spans of one trace as a tree, each child under its
// parent in start order; with ids it adds trace, span and parent ids and
// durations.
func writeTrace(w io.Writer, spans []sdktrace.ReadOnlySpan, ids bool) {
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	var roots []sdktrace.ReadOnlySpan
	known := map[trace.SpanID]bool{}
	for _, s := range spans {
		known[s.SpanContext().SpanID()] = true
	}
	for _, s := range spans {
		if p := s.Parent().SpanID(); s.Parent().IsValid() && known[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		indent := strings.Repeat("  ", depth)
		fmt.Fprintf(w, "%s%s [%s]", indent, s.Name(), s.SpanKind())
		if ids {
			fmt.Fprintf(w, " span=%s parent=%s %s", s.SpanContext().SpanID(), s.Parent().SpanID(), s.EndTime().Sub(s.StartTime()).Round(1000))
		}
		fmt.Fprintln(w)
		var attrs []string
		for _, kv := range s.Attributes() {
			if !ids && kv.Key == "mcp.session.id" {
				continue // random
			}
			attrs = append(attrs, string(kv.Key)+"="+kv.Value.String())
		}
		if len(attrs) > 0 {
			fmt.Fprintf(w, "%s    %s\n", indent, strings.Join(attrs, " "))
		}
		if st := s.Status(); st.Code != 0 {
			fmt.Fprintf(w, "%s    status=%s %q\n", indent, st.Code, st.Description)
		}
		kids := children[s.SpanContext().SpanID()]
		sort.Slice(kids, func(i, j int) bool { return kids[i].StartTime().Before(kids[j].StartTime()) })
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].StartTime().Before(roots[j].StartTime()) })
	for _, r := range roots {
		if ids {
			fmt.Fprintf(w, "trace %s\n", r.SpanContext().TraceID())
		}
		walk(r, 0)
	}
}

// Example traces a client's tools/call of a tool that calls sampling: one
// trace from the application's span through the server's tool and back
// into the client's model.
func Example() {
	var spans []sdktrace.ReadOnlySpan
	for _, s := range traceToolCallingSampling() {
		// The handshake is a trace of its own; show the tool call's.
		if !strings.Contains(s.Name(), "initialize") {
			spans = append(spans, s)
		}
	}
	writeTrace(os.Stdout, spans, false)
	// Output:
	// plan trip [internal]
	//   tools/call forecast [client]
	//       mcp.method.name=tools/call jsonrpc.request.id=2 mcp.protocol.version=2025-11-25 gen_ai.tool.name=forecast gen_ai.operation.name=execute_tool network.transport=pipe
	//     tools/call forecast [server]
	//         mcp.method.name=tools/call jsonrpc.request.id=2 mcp.protocol.version=2025-11-25 gen_ai.tool.name=forecast gen_ai.operation.name=execute_tool network.transport=pipe
	//       sampling/createMessage [client]
	//           mcp.method.name=sampling/createMessage jsonrpc.request.id=1 mcp.protocol.version=2025-11-25 network.transport=pipe
	//         sampling/createMessage [server]
	//             mcp.method.name=sampling/createMessage jsonrpc.request.id=1 mcp.protocol.version=2025-11-25 network.transport=pipe
}

// TestDocTrace writes the trace of Example with its ids, the text
// docs/observability.md shows, and checks its shape: initialize,
// notifications/initialized and the tool call are three traces, each headed
// by its own 32-hex-digit trace id, and in the tool call's each span is the
// child of the one before it, from the application's span to the client's
// model. MCPKIT_OTEL_DOC_TRACE=1 prints it.
func TestDocTrace(t *testing.T) {
	var b strings.Builder
	writeTrace(&b, traceToolCallingSampling(), true)
	out := b.String()
	if os.Getenv("MCPKIT_OTEL_DOC_TRACE") == "1" {
		fmt.Print(out)
	}
	traces := regexp.MustCompile(`(?m)^trace [0-9a-f]{32}$`).FindAllString(out, -1)
	if len(traces) != 3 || traces[0] == traces[1] || traces[1] == traces[2] || traces[0] == traces[2] {
		t.Fatalf("want three traces, each headed by its own id; got %q in:\n%s", traces, out)
	}
	spans := regexp.MustCompile(`(?m)^ *(.+ \[[a-z]+\]) span=([0-9a-f]{16}) parent=([0-9a-f]{16}) `).FindAllStringSubmatch(out[strings.LastIndex(out, traces[2]):], -1)
	want := []string{"plan trip [internal]", "tools/call forecast [client]", "tools/call forecast [server]", "sampling/createMessage [client]", "sampling/createMessage [server]"}
	if len(spans) != len(want) {
		t.Fatalf("the tool call's trace has %d spans, want %d:\n%s", len(spans), len(want), out)
	}
	parent := "0000000000000000"
	for i, sp := range spans {
		if sp[1] != want[i] || sp[3] != parent {
			t.Errorf("span %d is %q with parent %s, want %q with parent %s", i, sp[1], sp[3], want[i], parent)
		}
		parent = sp[2]
	}
}
