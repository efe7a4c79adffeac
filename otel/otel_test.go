package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

// eras under test.
var eras = []struct {
	name    string
	era     mcp.ProtocolEra
	version string
}{
	{"session", mcp.EraSession, mcp.Version20251125},
	{"stateless", mcp.EraStateless, mcp.Version20260728},
}

// TestSpansAndMetrics runs tools/call, resources/read, prompts/get, a
// failing tool, a protocol error and a notification in both eras over
// stdio and HTTP, and checks every span's name, kind, attributes, status
// and parent, and the operation histograms' points, exactly.
func TestSpansAndMetrics(t *testing.T) {
	for _, transport := range []string{transStdio, transHTTP} {
		for _, era := range eras {
			t.Run(transport+"/"+era.name, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				checkSpansAndMetrics(t, transport, era.era, era.version)
			})
		}
	}
}

func checkSpansAndMetrics(t *testing.T, transport string, era mcp.ProtocolEra, version string) {
	tm := newTelemetry(t)
	s, f := newServer(t, tm)
	c := connect(t, tm, s, transport, era)
	ctx := context.Background()
	cs := c.cs

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://doc"}); err != nil {
		t.Fatalf("resources/read: %v", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
		t.Fatalf("prompts/get: %v", err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: json.RawMessage(`{}`)}); err != nil || !res.IsError {
		t.Fatalf("fail: %v, %+v; want an isError result", err, res)
	}
	// A protocol error: an unknown tool is -32602 in both eras.
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "missing", Arguments: json.RawMessage(`{}`)})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("tools/call missing: %v; want -32602", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Arguments: json.RawMessage(`{}`),
		Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("p1")}}); err != nil {
		t.Fatalf("progress: %v", err)
	}
	c.stop()

	spans := tm.spans.Ended()
	// The network attributes of each side.
	srvNet := map[string]string{"network.transport": "pipe"}
	cliNet := map[string]string{"network.transport": "pipe"}
	if transport == transHTTP {
		srvNet = map[string]string{"network.transport": "tcp", "network.protocol.name": "http"}
		u, _ := url.Parse(c.url)
		cliNet = map[string]string{"network.transport": "tcp", "network.protocol.name": "http",
			"server.address": u.Hostname(), "server.port": u.Port()}
	}
	session := map[string]string{}
	if f.sessionID != "" {
		session["mcp.session.id"] = f.sessionID
	}
	if era == mcp.EraSession && transport == transHTTP && f.sessionID == "" {
		t.Fatal("no session id on a session-era HTTP session")
	}
	join := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			maps.Copy(out, m)
		}
		return out
	}

	type call struct {
		name   string            // span name
		method string            // mcp.method.name
		target map[string]string // the attributes of the target
		errTyp string            // error.type
		code   string            // rpc.response.status_code
		msg    string            // status description
		// The server's span name and target, when they differ: a name
		// the server does not serve is ValueOther there.
		srvName   string
		srvTarget map[string]string
	}
	calls := []call{
		{name: "tools/call echo", method: "tools/call", target: map[string]string{"gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool"}},
		{name: "resources/read", method: "resources/read", target: map[string]string{"mcp.resource.uri": "test://doc"}},
		{name: "prompts/get greet", method: "prompts/get", target: map[string]string{"gen_ai.prompt.name": "greet"}},
		{name: "tools/call fail", method: "tools/call", target: map[string]string{"gen_ai.tool.name": "fail", "gen_ai.operation.name": "execute_tool"}, errTyp: "tool_error"},
		{name: "tools/call missing", method: "tools/call", target: map[string]string{"gen_ai.tool.name": "missing", "gen_ai.operation.name": "execute_tool"}, errTyp: "-32602", code: "-32602", msg: je.Message,
			srvName: "tools/call", srvTarget: map[string]string{"gen_ai.tool.name": mcpotel.ValueOther, "gen_ai.operation.name": "execute_tool"}},
	}
	for i := range calls {
		if calls[i].srvName == "" {
			calls[i].srvName, calls[i].srvTarget = calls[i].name, calls[i].target
		}
	}
	for _, c := range calls {
		srv := findSpan(t, spans, trace.SpanKindServer, c.srvName)
		cli := findSpan(t, spans, trace.SpanKindClient, c.name)
		id := attrMap(srv.Attributes())["jsonrpc.request.id"]
		if _, err := strconv.Atoi(id); err != nil {
			t.Errorf("%s: jsonrpc.request.id = %q, want the client's integer id", c.name, id)
		}
		base := map[string]string{"mcp.method.name": c.method, "jsonrpc.request.id": id, "mcp.protocol.version": version}
		errs := map[string]string{}
		if c.errTyp != "" {
			errs["error.type"] = c.errTyp
		}
		if c.code != "" {
			errs["rpc.response.status_code"] = c.code
		}
		checkAttrs(t, "server "+c.name, srv, join(base, c.srvTarget, srvNet, session, errs))
		checkAttrs(t, "client "+c.name, cli, join(base, c.target, cliNet, errs))
		wantStatus := codes.Unset
		if c.errTyp != "" {
			wantStatus = codes.Error
		}
		for _, sp := range []sdktrace.ReadOnlySpan{srv, cli} {
			if st := sp.Status(); st.Code != wantStatus || st.Description != c.msg {
				t.Errorf("%s %s: status %v %q, want %v %q", sp.SpanKind(), c.name, st.Code, st.Description, wantStatus, c.msg)
			}
		}
		// The server's span continues the client's.
		if srv.Parent().SpanID() != cli.SpanContext().SpanID() || srv.SpanContext().TraceID() != cli.SpanContext().TraceID() || !srv.Parent().IsRemote() {
			t.Errorf("%s: the server span's parent is %v, want the client span %v", c.name, srv.Parent(), cli.SpanContext())
		}
	}

	// The notification: the server sends notifications/progress (a CLIENT
	// span in the trace of the tool call), the client handles it (a SERVER
	// span, its child).
	prog := findSpan(t, spans, trace.SpanKindServer, "tools/call progress")
	sent := findSpan(t, spans, trace.SpanKindClient, "notifications/progress")
	got := findSpan(t, spans, trace.SpanKindServer, "notifications/progress")
	note := map[string]string{"mcp.method.name": "notifications/progress", "mcp.protocol.version": version}
	checkAttrs(t, "server's notifications/progress", sent, join(note, srvNet, session))
	checkAttrs(t, "client's notifications/progress", got, join(note, cliNet))
	if sent.Parent().SpanID() != prog.SpanContext().SpanID() {
		t.Errorf("the sent notification's parent is %v, want the tool call's span %v", sent.Parent(), prog.SpanContext())
	}
	if got.Parent().SpanID() != sent.SpanContext().SpanID() || got.SpanContext().TraceID() != prog.SpanContext().TraceID() {
		t.Errorf("the received notification's parent is %v, want the sent notification's span %v", got.Parent(), sent.SpanContext())
	}
	if era == mcp.EraSession {
		srv := findSpan(t, spans, trace.SpanKindServer, "initialize")
		cli := findSpan(t, spans, trace.SpanKindClient, "initialize")
		ini := map[string]string{"mcp.method.name": "initialize", "jsonrpc.request.id": "1", "mcp.protocol.version": version}
		checkAttrs(t, "server initialize", srv, join(ini, srvNet, session))
		checkAttrs(t, "client initialize", cli, join(ini, cliNet))
		initialized := findSpan(t, spans, trace.SpanKindServer, "notifications/initialized")
		checkAttrs(t, "notifications/initialized", initialized, join(map[string]string{"mcp.method.name": "notifications/initialized", "mcp.protocol.version": version}, srvNet, session))
	}

	// One point per operation on each side's histogram, with the
	// low-cardinality attributes only.
	var rm metricdata.ResourceMetrics
	must(t, tm.reader.Collect(ctx, &rm))
	for _, side := range []struct {
		metric string
		net    map[string]string
	}{{"mcp.server.operation.duration", srvNet}, {"mcp.client.operation.duration", cliNet}} {
		points := histogram(t, rm, side.metric)
		for _, c := range calls {
			want := join(map[string]string{"mcp.method.name": c.method, "mcp.protocol.version": version}, side.net)
			if side.metric == "mcp.server.operation.duration" {
				maps.Copy(want, c.srvTarget)
			} else {
				maps.Copy(want, c.target)
			}
			delete(want, "mcp.resource.uri")
			if c.errTyp != "" {
				want["error.type"] = c.errTyp
			}
			if c.code != "" {
				want["rpc.response.status_code"] = c.code
			}
			checkPoint(t, side.metric, points, want)
		}
	}

	// What the tool logged names its span.
	echo := findSpan(t, spans, trace.SpanKindServer, "tools/call echo")
	wantLog := fmt.Sprintf(`"trace_id":"%s","span_id":"%s"`, echo.SpanContext().TraceID(), echo.SpanContext().SpanID())
	if !strings.Contains(f.logText(), wantLog) {
		t.Errorf("the tool's log %s does not carry %s", f.logText(), wantLog)
	}
}

func checkAttrs(t *testing.T, what string, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	if got := attrMap(s.Attributes()); !maps.Equal(got, want) {
		t.Errorf("%s attributes:\n got %v\nwant %v", what, got, want)
	}
}

// checkPoint checks that exactly one point has the attributes want, with
// a count of 1.
func checkPoint(t *testing.T, metric string, points []metricdata.HistogramDataPoint[float64], want map[string]string) {
	t.Helper()
	n := 0
	for _, p := range points {
		if maps.Equal(attrMap(p.Attributes.ToSlice()), want) {
			n++
			if p.Count != 1 {
				t.Errorf("%s %v: count %d, want 1", metric, want, p.Count)
			}
		}
	}
	if n != 1 {
		var all []map[string]string
		for _, p := range points {
			all = append(all, attrMap(p.Attributes.ToSlice()))
		}
		t.Errorf("%s: %d points with %v, want 1; points: %v", metric, n, want, all)
	}
}
