package otel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
)

// This file holds what the four middlewares share: the span's name and
// attributes by the semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#spans), and
// how an outcome is recorded on the span and the operation histogram.

// The methods whose params name a resource (mcp.resource.uri).
func hasResourceURI(method string) bool {
	switch method {
	case "resources/read", "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated":
		return true
	}
	return false
}

// spanName is "{mcp.method.name} {target}": the tool's or prompt's name,
// or the resource URI when Options.ResourceURIInSpanName asks for it. A
// name the receiver does not serve (ValueOther) is no target.
func (ins *Instrumentation) spanName(method string, p *paramsInfo) string {
	switch {
	case (method == "tools/call" || method == "prompts/get") && p.name != "" && p.name != ValueOther:
		return method + " " + p.name
	case ins.uriInName && p.uri != "" && p.uri != ValueOther && hasResourceURI(method):
		return method + " " + p.uri
	}
	return method
}

// ValueOther stands, in mcp.method.name, gen_ai.tool.name,
// gen_ai.prompt.name and mcp.resource.uri, for a name that the peer chose
// and the receiver does not serve: a method MCP does not define, or a
// tool, prompt or resource the server does not have. The peer so cannot
// make a metric series, or a span name, per name it makes up. It is the
// fallback value the semantic conventions use for error.type and
// http.request.method
// (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md).
const ValueOther = "_OTHER"

// knownMethod is method if MCP defines it (any version mcpkit speaks,
// extensions included), else ValueOther.
func knownMethod(method string) string {
	switch method {
	case "initialize", "ping", "server/discover", "subscriptions/listen", "logging/setLevel", "completion/complete",
		"tools/list", "tools/call", "prompts/list", "prompts/get",
		"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
		"tasks/get", "tasks/update", "tasks/result", "tasks/list", "tasks/cancel",
		"sampling/createMessage", "elicitation/create", "roots/list",
		"notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/message",
		"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed",
		"notifications/resources/updated", "notifications/roots/list_changed", "notifications/elicitation/complete",
		"notifications/tasks", "notifications/tasks/status", "notifications/subscriptions/acknowledged":
		return method
	}
	return ValueOther
}

// boundNames replaces, in what a server received, the name of a tool or
// prompt it does not have, and (for the span alone, so only when the span
// records) the URI of a resource it does not have, by ValueOther.
func boundNames(p *paramsInfo, method string, s *mcp.Server, recording bool) {
	switch {
	case p.name == "":
	case method == "tools/call" && !s.HasTool(p.name):
		p.name = ValueOther
	case method == "prompts/get" && !s.HasPrompt(p.name):
		p.name = ValueOther
	}
	if recording && p.uri != "" && hasResourceURI(method) && !s.HasResource(p.uri) {
		p.uri = ValueOther
	}
}

// op is one operation being traced: a message handled or sent.
type op struct {
	ins    *Instrumentation
	server bool // SERVER span and the server histogram; else CLIENT
	method string
	start  time.Time
	span   trace.Span
	// active is set when the span records or the histogram is enabled:
	// only then are attributes worth building. An unsampled span with
	// metrics off costs its start, its end and the trace context's trip.
	active bool
	// metric holds the attributes the operation histogram takes (low
	// cardinality only).
	metric []attribute.KeyValue
}

// desc describes an operation for its attributes.
type desc struct {
	id jsonrpc.ID
	// raw is the message's params, which begin reads only when the
	// operation records or is measured.
	raw              []byte
	version, session string
	network          []attribute.KeyValue
	// follow is set when ctx carries an unsampled remote parent that
	// Options.FollowUnsampledParent says to follow: no span is started.
	follow bool
	// server is the server that received the operation, which says which
	// tool, prompt and resource names it serves; nil on a client, and
	// for a Request without a Session, whose names are taken as they are.
	server *mcp.Server
}

// begin starts the span of an operation whose parent is in ctx; links are
// those of a SERVER span (the ambient context). The span starts named by
// its method only, and gets its full name and its attributes once it is
// known to record: samplers see mcp.method.name alone
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#spans). It
// fills o, in place rather than copied back through each caller, and
// returns the context carrying the span.
func (ins *Instrumentation) begin(ctx context.Context, o *op, server bool, method string, links []trace.Link, d *desc) context.Context {
	if server {
		// The peer chose the method: one MCP does not define is no name.
		method = knownMethod(method)
	}
	*o = op{ins: ins, server: server, method: method}
	startOpts := ins.clientStart
	hist := ins.clientOp.Float64Histogram
	if server {
		startOpts = ins.serverStart
		hist = ins.serverOp.Float64Histogram
	}
	switch {
	case d.follow:
		// The remote span context, non-recording, stands for the span.
		o.span = trace.SpanFromContext(ctx)
	case len(links) > 0:
		ctx, o.span = ins.tracer.Start(ctx, method, startOpts[0], trace.WithLinks(links...))
	default:
		ctx, o.span = ins.tracer.Start(ctx, method, startOpts...)
	}
	recording := o.span.IsRecording()
	o.active = recording || hist.Enabled(ctx)
	if !o.active {
		return ctx
	}
	o.start = time.Now()
	p := readParams(d.raw)
	p.decode()
	if d.server != nil {
		boundNames(&p, method, d.server, recording)
	}
	attrs := make([]attribute.KeyValue, 0, 12+len(d.network))
	attrs = append(attrs, semconv.McpMethodNameKey.String(method))
	if d.id.IsValid() {
		attrs = append(attrs, semconv.JSONRPCRequestID(idString(d.id)))
	}
	if d.session != "" {
		attrs = append(attrs, semconv.McpSessionID(d.session))
	}
	if hasResourceURI(method) && p.uri != "" {
		attrs = append(attrs, semconv.McpResourceURI(p.uri))
	}
	// From here on, the attributes go on the histogram too.
	nspan := len(attrs)
	if d.version != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(d.version))
	}
	switch {
	case method == "tools/call" && p.name != "":
		attrs = append(attrs, semconv.GenAIToolName(p.name), semconv.GenAIOperationNameExecuteTool)
	case method == "prompts/get" && p.name != "":
		attrs = append(attrs, semconv.GenAIPromptName(p.name))
	}
	attrs = append(attrs, d.network...)
	o.metric = attrs[nspan:]
	if recording {
		if name := ins.spanName(method, &p); name != method {
			o.span.SetName(name)
		}
		o.span.SetAttributes(attrs...)
	}
	return ctx
}

// setVersion adds mcp.protocol.version once an initialize has negotiated
// it: the request does not carry it yet.
func (o *op) setVersion(v string) {
	if v == "" || !o.active {
		return
	}
	kv := semconv.McpProtocolVersion(v)
	o.span.SetAttributes(kv)
	o.metric = append(o.metric[:len(o.metric):len(o.metric)], kv)
}

// resultVersion is the protocolVersion member of a raw initialize result.
func resultVersion(raw []byte) string {
	v := ""
	_ = members(raw, func(k, val []byte) bool {
		if keyIs(k, "protocolVersion") {
			v, _ = stringValue(val)
			return false
		}
		return true
	})
	return v
}

// idString is jsonrpc.request.id: the id as the client wrote it, a
// string without its quotes.
func idString(id jsonrpc.ID) string {
	if s, ok := id.Str(); ok {
		return s
	}
	if n, ok := id.Int64(); ok {
		return strconv.FormatInt(n, 10)
	}
	return id.String()
}

// outcome is how an operation ended, by the conventions' error rules
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#client).
type outcome struct {
	errType string // error.type; "" on success
	code    string // rpc.response.status_code: a JSON-RPC error's code
	message string // the span status's description
}

// ErrorTypeToolError is error.type for a tools/call whose result has
// isError set: the call succeeded, the tool failed
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#client).
const ErrorTypeToolError = "tool_error"

// outcomeOf classifies an error: a JSON-RPC error by its code; on a
// server a plain handler error, which goes on the wire as -32603; on a
// sender, a timeout, a cancellation, or _OTHER.
func outcomeOf(err error, server bool) outcome {
	if err == nil {
		return outcome{}
	}
	return errorOutcome(err, server)
}

func errorOutcome(err error, server bool) outcome {
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		c := strconv.FormatInt(je.Code, 10)
		return outcome{errType: c, code: c, message: je.Message}
	case server:
		c := strconv.Itoa(jsonrpc.CodeInternalError)
		return outcome{errType: c, code: c, message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, mcp.ErrRequestTimeout):
		return outcome{errType: "timeout", message: err.Error()}
	case errors.Is(err, context.Canceled):
		return outcome{errType: "cancelled", message: err.Error()}
	}
	return outcome{errType: string(mcpconv.ErrorTypeOther), message: err.Error()}
}

// toolFailed reports whether a raw tools/call result has isError true.
func toolFailed(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"isError"`)) {
		return false
	}
	failed := false
	_ = members(raw, func(k, v []byte) bool {
		if keyIs(k, "isError") {
			failed = string(v) == "true"
			return false
		}
		return true
	})
	return failed
}

// end records the outcome on the span, ends it, and records the
// operation's duration.
func (o *op) end(ctx context.Context, out outcome) {
	if !o.active {
		if out.errType != "" {
			o.span.SetStatus(codes.Error, out.message)
		}
		o.span.End()
		return
	}
	if out.errType != "" {
		kv := []attribute.KeyValue{semconv.ErrorTypeKey.String(out.errType)}
		if out.code != "" {
			kv = append(kv, semconv.RPCResponseStatusCode(out.code))
		}
		o.span.SetAttributes(kv...)
		o.span.SetStatus(codes.Error, out.message)
		o.metric = append(o.metric[:len(o.metric):len(o.metric)], kv...)
	}
	o.span.End()
	d := time.Since(o.start).Seconds()
	if o.server {
		o.ins.serverOp.Record(ctx, d, mcpconv.MethodNameAttr(o.method), o.metric...)
	} else {
		o.ins.clientOp.Record(ctx, d, mcpconv.MethodNameAttr(o.method), o.metric...)
	}
}

// endPanic ends an operation whose handler or sender panicked, then lets
// the panic go on: the recovery of package mcp answers it.
func (o *op) endPanic(ctx context.Context) {
	if r := recover(); r != nil {
		c := strconv.Itoa(jsonrpc.CodeInternalError)
		o.end(ctx, outcome{errType: c, code: c, message: "panic"})
		panic(r)
	}
}

// resultOutcome is the outcome of an operation that returned without a
// Go error, by its result: a tool result with isError set is a tool_error.
func resultOutcome(method string, result any) outcome {
	if method != "tools/call" {
		return outcome{}
	}
	failed := false
	switch r := result.(type) {
	case *mcp.CallToolResult:
		failed = r != nil && r.IsError
	case json.RawMessage:
		failed = toolFailed(r)
	case []byte:
		failed = toolFailed(r)
	}
	if failed {
		return outcome{errType: ErrorTypeToolError}
	}
	return outcome{}
}

// extractParams is extract of the _meta of params: readMeta's result
// stays in its frame.
func (ins *Instrumentation) extractParams(ctx context.Context, params []byte) (context.Context, []trace.Link, bool) {
	meta := readMeta(params)
	return ins.extract(ctx, &meta)
}

// extract returns ctx with the remote span context and baggage from a raw
// _meta as the parent, and a link to the ambient span ctx already had,
// if any: "MCP server instrumentation SHOULD, by default, use context
// extracted from MCP params._meta as a parent for MCP server span and
// SHOULD link current ambient context, if it's present"
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#context-propagation).
// follow reports that the remote parent is valid and unsampled and that
// Options.FollowUnsampledParent says to start no span under it, or that
// _meta holds a valid remote parent (by the default propagator) and the
// TracerProvider is the no-op one; links are then not looked for, no
// span being started to carry them.
func (ins *Instrumentation) extract(ctx context.Context, m *metaInfo) (_ context.Context, links []trace.Link, follow bool) {
	if len(m.raw) == 0 {
		return ctx, nil, false
	}
	if m.parsed && ins.w3c && remoteCtxWorks && (ins.noopTracer || ins.followUnsampled && !m.scc.TraceFlags.IsSampled()) &&
		m.scc.TraceID.IsValid() && m.scc.SpanID.IsValid() {
		// The client's common form, valid, to be followed: decided on the
		// parsed traceparent, without a span context made to decide.
		return &remoteCtx{Context: ctx, tid: m.scc.TraceID, sid: m.scc.SpanID, flags: m.scc.TraceFlags}, nil, true
	}
	var out context.Context
	var remote trace.SpanContext
	if !ins.w3c {
		out, remote = ins.extractProp(ctx, m)
	} else if out, remote = extractW3CMeta(ctx, m); ins.noopTracer && remote.IsValid() {
		// The no-op tracer's span would be the remote parent's span
		// context, recording nothing: the remote span context is that.
		return out, nil, true
	}
	if !remote.IsValid() {
		// Without a remote parent in _meta, the parent is the span out
		// holds, if any, as the SDK will find it.
		remote = trace.SpanContextFromContext(out)
		if !remote.IsValid() {
			// Nothing to link to: the ambient context, if any, is the parent.
			return out, nil, false
		}
	}
	if ins.followUnsampled && !remote.IsSampled() && remote.IsRemote() {
		return out, nil, true
	}
	return out, ambientLinks(ctx, &remote), false
}

// extractProp is what Options.Propagator extracts from a raw _meta, and
// the remote span context it gives.
func (ins *Instrumentation) extractProp(ctx context.Context, m *metaInfo) (context.Context, trace.SpanContext) {
	out := ins.prop.Extract(ctx, &metaCarrier{raw: m.raw})
	return out, trace.SpanContextFromContext(out)
}

// ambientLinks is the link of a server span whose parent is remote to
// the span ctx already had, if any and if another. The lookup walks the
// whole chain of contexts: only a valid remote parent makes it worth it.
func ambientLinks(ctx context.Context, remote *trace.SpanContext) []trace.Link {
	if ambient := trace.SpanContextFromContext(ctx); ambient.IsValid() && !ambient.Equal(*remote) {
		return []trace.Link{{SpanContext: ambient}}
	}
	return nil
}

// inject returns params with the trace context of ctx in its _meta, and
// true; when there is nothing to write (no valid span context, no
// baggage) or params cannot be written into, params unchanged and false.
func (ins *Instrumentation) inject(ctx context.Context, params json.RawMessage) (json.RawMessage, bool) {
	var out json.RawMessage
	var err error
	n := 0
	if ins.w3c {
		// A carrier that no interface sees stays on the stack.
		var c injectCarrier
		injectW3C(ctx, &c)
		n = c.len()
		out, err = injectMeta(params, &c)
	} else {
		c := new(injectCarrier)
		ins.prop.Inject(ctx, c)
		n = c.len()
		out, err = injectMeta(params, c)
	}
	if err != nil || n == 0 {
		return params, false
	}
	return out, true
}

// startOf is when an operation started, for a session's duration: now
// when the operation measured nothing.
func startOf(o op) time.Time {
	if o.start.IsZero() {
		return time.Now()
	}
	return o.start
}
