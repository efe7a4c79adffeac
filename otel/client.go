package otel

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// ClientSendingMiddleware returns the mcp.SendingMiddleware that traces
// and measures every request and notification a client sends: a CLIENT
// span, child of the caller's span in ctx, a point on
// mcp.client.operation.duration, and the span's trace context written
// into params._meta (traceparent, tracestate, baggage) so that the
// server continues the trace. A successful initialize also starts the
// measure of mcp.client.session.duration, recorded when the session ends,
// before its Close returns (only while that histogram is enabled). See
// https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#context-propagation.
func (ins *Instrumentation) ClientSendingMiddleware(cfg ClientConfig) mcp.SendingMiddleware {
	pr := cfg.peer()
	return func(next mcp.SendHandler) mcp.SendHandler {
		return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
			version := ""
			if m.Method != "initialize" && m.ClientSession != nil {
				version = m.ClientSession.ProtocolVersion()
			}
			var o op
			ctx = ins.begin(ctx, &o, false, m.Method, nil, &desc{id: m.ID, raw: m.Params, version: version, network: pr.attrs})
			defer o.endPanic(ctx)
			sent := m
			if params, ok := ins.inject(ctx, m.Params); ok {
				m2 := *m
				m2.Params = params
				sent = &m2
			}
			res, err := next(ctx, sent)
			if m.Method == "initialize" && err == nil {
				o.setVersion(resultVersion(res))
			}
			out := outcomeOf(err, false)
			if err == nil {
				out = resultOutcome(m.Method, res)
			}
			o.end(ctx, out)
			if m.Method == "initialize" && err == nil && m.ClientSession != nil {
				ins.measureClientSession(m.ClientSession, startOf(o), pr)
			}
			return res, err
		}
	}
}

// measureClientSession records mcp.client.session.duration when cs ends,
// before its Close returns (mcp.ClientSession.OnClose): the point is there
// for the MeterProvider's last flush.
func (ins *Instrumentation) measureClientSession(cs *mcp.ClientSession, start time.Time, pr peer) {
	if cs.Done() == nil || !ins.clientSess.Enabled(context.Background()) {
		return
	}
	cs.OnClose(func() {
		attrs := append([]attribute.KeyValue{semconv.McpProtocolVersion(cs.ProtocolVersion())}, pr.attrs...)
		ins.clientSess.Record(context.Background(), time.Since(start).Seconds(), attrs...)
	})
}

// ClientMiddleware returns the mcp.ClientMiddleware that traces and
// measures what a client handles: server-to-client requests
// (sampling/createMessage, elicitation/create, roots/list, ping) and
// notifications, each a SERVER span whose parent is the trace context in
// params._meta (the server's span of the tool that asked), and a point on
// mcp.server.operation.duration, the receiver's histogram. The handler's
// context carries the span, so that a sampling handler calling a model
// continues the trace
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
func (ins *Instrumentation) ClientMiddleware(cfg ClientConfig) mcp.ClientMiddleware {
	pr := cfg.peer()
	return func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
		return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
			ctx, links, follow := ins.extractParams(ctx, r.Params)
			if follow && !ins.serverOp.Enabled(ctx) {
				// No span and no measure: the handler runs under the
				// remote span context, and there is nothing to end.
				return next(ctx, r)
			}
			version := ""
			if r.Session != nil {
				version = r.Session.ProtocolVersion()
			}
			var o op
			ctx = ins.begin(ctx, &o, true, r.Method, links, &desc{id: r.ID, raw: r.Params, version: version, network: pr.attrs, follow: follow})
			defer o.endPanic(ctx)
			res, err := next(ctx, r)
			out := outcomeOf(err, true)
			if err == nil {
				out = resultOutcome(r.Method, res)
			}
			o.end(ctx, out)
			return res, err
		}
	}
}
