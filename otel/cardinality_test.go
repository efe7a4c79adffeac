package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

// TestUnknownNamesOneSeries: tools, prompts, resources and methods a
// client makes up never become attribute values or span names on the
// server: each kind is one series, with ValueOther, however many names
// the client tries; the names the server serves keep theirs.
func TestUnknownNamesOneSeries(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			tm := newTelemetry(t)
			s, _ := newServer(t, tm)
			c := connect(t, tm, s, transStdio, era.era)
			ctx := context.Background()
			const n = 4
			var madeUp []string
			for i := range n {
				tool, prompt, uri, method := fmt.Sprintf("tool-%d", i), fmt.Sprintf("prompt-%d", i), fmt.Sprintf("test://made-up/%d", i), fmt.Sprintf("made/up-%d", i)
				madeUp = append(madeUp, tool, prompt, uri, method)
				if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)}); err == nil {
					t.Fatalf("tools/call %s: no error", tool)
				}
				if _, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt}); err == nil {
					t.Fatalf("prompts/get %s: no error", prompt)
				}
				if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
					t.Fatalf("resources/read %s: no error", uri)
				}
				if err := c.cs.Call(ctx, method, map[string]any{}, nil); err == nil {
					t.Fatalf("%s: no error", method)
				}
			}
			// Notifications the server does not know, straight through the
			// middleware.
			h := tm.ins.ServerMiddleware()(func(context.Context, *mcp.Request) (any, error) { return nil, nil })
			for i := range n {
				method := fmt.Sprintf("notifications/made-up-%d", i)
				madeUp = append(madeUp, method)
				if _, err := h(ctx, &mcp.Request{Method: method, ProtocolVersion: era.version}); err != nil {
					t.Fatal(err)
				}
			}
			// What the server serves keeps its names.
			if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://doc"}); err != nil {
				t.Fatal(err)
			}
			c.stop()

			// No server span carries a made-up name, in its name or its
			// attributes.
			counts := map[string]int{}
			for _, sp := range tm.spans.Ended() {
				if sp.SpanKind() != trace.SpanKindServer {
					continue
				}
				counts[sp.Name()]++
				for _, kv := range sp.Attributes() {
					for _, m := range madeUp {
						if strings.Contains(sp.Name(), m) || strings.Contains(kv.Value.String(), m) {
							t.Errorf("server span %q: %s=%s names %q", sp.Name(), kv.Key, kv.Value.String(), m)
						}
					}
				}
			}
			// Each made-up call is a span named by its method alone (made-up
			// methods: ValueOther); the served ones keep their targets. In
			// the stateless era a request of an unknown method is refused
			// before the middleware, and so has no span.
			requests := uint64(n)
			if era.era == mcp.EraStateless {
				requests = 0
			}
			for name, want := range map[string]int{
				"tools/call": n, "prompts/get": n, "resources/read": n + 1, mcpotel.ValueOther: n + int(requests),
				"tools/call echo": 1, "prompts/get greet": 1,
			} {
				if counts[name] != want {
					t.Errorf("%d server spans named %q, want %d (all: %v)", counts[name], name, want, counts)
				}
			}
			uris := map[string]int{}
			for _, sp := range tm.spans.Ended() {
				if sp.SpanKind() == trace.SpanKindServer && sp.Name() == "resources/read" {
					uris[attrMap(sp.Attributes())["mcp.resource.uri"]]++
				}
			}
			if want := map[string]int{mcpotel.ValueOther: n, "test://doc": 1}; !maps.Equal(uris, want) {
				t.Errorf("mcp.resource.uri of the server's resources/read spans: %v, want %v", uris, want)
			}

			// On the server's histogram: one series for all the made-up
			// tools, one for the prompts, one for the methods (requests and
			// notifications apart).
			var rm metricdata.ResourceMetrics
			must(t, tm.reader.Collect(ctx, &rm))
			series := map[string]uint64{}
			for _, p := range histogram(t, rm, "mcp.server.operation.duration") {
				a := attrMap(p.Attributes.ToSlice())
				for _, m := range madeUp {
					for k, v := range a {
						if strings.Contains(v, m) {
							t.Errorf("point %v: %s names %q", a, k, m)
						}
					}
				}
				key := a["mcp.method.name"] + " " + a["gen_ai.tool.name"] + a["gen_ai.prompt.name"] + " " + a["error.type"]
				series[key] += p.Count
			}
			for key, want := range map[string]uint64{
				"tools/call _OTHER -32602":  n,
				"prompts/get _OTHER -32602": n,
				"resources/read  -32002":    n,
				"_OTHER  -32601":            requests,
				"_OTHER  ":                  n, // the notifications
			} {
				if series[key] != want {
					t.Errorf("series %q: %d points, want %d (all: %v)", key, series[key], want, series)
				}
			}
		})
	}
}
