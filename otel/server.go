package otel

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// The network attributes of what a server serves, by transport.
var (
	networkHTTP = []attribute.KeyValue{semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http")}
	networkPipe = []attribute.KeyValue{semconv.NetworkTransportPipe}
)

// servedKey carries, in a handler's context, what the messages the
// handler sends share with the request it serves.
type servedKey struct{}

// served is the protocol version and network attributes of a request
// being served.
type served struct {
	version string
	network []attribute.KeyValue
}

// ServerMiddleware returns the mcp.Middleware that traces and measures
// every request and notification a server handles: a SERVER span whose
// parent is the trace context in params._meta (the client's span), and a
// point on mcp.server.operation.duration. A successful initialize also
// starts the measure of mcp.server.session.duration, recorded by the
// session's Close before it returns (only while that histogram is
// enabled).
//
// The handler's context carries the span: what the handler logs (see
// NewSlogHandler), calls or sends is part of the trace
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#server).
func (ins *Instrumentation) ServerMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, req *mcp.Request) (any, error) {
			// The work around the handler is in functions of their own,
			// so that what they keep on the stack is not there while the
			// handler runs, or only what the operation needs.
			ctx, links, follow := ins.extractParams(ctx, req.Params)
			if follow && req.Method != "initialize" && !ins.serverOp.Enabled(ctx) {
				// No span and no measure: the handler runs under the
				// remote span context, and there is nothing to end.
				return next(ctx, req)
			}
			return ins.serveTraced(ctx, req, links, follow, next)
		}
	}
}

// serveTraced runs next inside the operation of a request or
// notification a server handles, whose parent ctx holds.
func (ins *Instrumentation) serveTraced(ctx context.Context, req *mcp.Request, links []trace.Link, follow bool, next mcp.MethodHandler) (result any, err error) {
	var o op
	ctx = ins.serverBegin(ctx, &o, req, links, follow)
	defer o.endPanic(ctx)
	result, err = next(ctx, req)
	ins.serverEnd(ctx, &o, req, result, err)
	return result, err
}

// serverBegin starts the operation o and returns the handler's context.
func (ins *Instrumentation) serverBegin(ctx context.Context, o *op, req *mcp.Request, links []trace.Link, follow bool) context.Context {
	network := serverNetwork(req)
	session := ""
	var server *mcp.Server
	if req.Session != nil {
		server = req.Session.Server()
		if !req.Stateless() {
			session = req.Session.ID()
		}
	}
	ctx = ins.begin(ctx, o, true, req.Method, links, &desc{id: req.ID, raw: req.Params, version: req.ProtocolVersion, session: session, network: network, follow: follow, server: server})
	if o.active {
		ctx = context.WithValue(ctx, servedKey{}, &served{version: req.ProtocolVersion, network: network})
	}
	return ctx
}

// serverEnd ends the operation o once the handler has returned.
func (ins *Instrumentation) serverEnd(ctx context.Context, o *op, req *mcp.Request, result any, err error) {
	initialized := req.Method == "initialize" && err == nil && req.Session != nil
	if initialized {
		o.setVersion(req.Session.ProtocolVersion())
	}
	out := outcomeOf(err, true)
	if err == nil {
		out = resultOutcome(req.Method, result)
	}
	o.end(ctx, out)
	if initialized {
		ins.measureServerSession(req.Session, startOf(*o), serverNetwork(req))
	}
}

// serverNetwork is the network attributes of what req came over.
func serverNetwork(req *mcp.Request) []attribute.KeyValue {
	if req.Extra != nil && req.Extra.Header != nil {
		return networkHTTP
	}
	return networkPipe
}

// measureServerSession records mcp.server.session.duration when ss ends,
// in the Close that ends it (mcp.ServerSession.OnClose): once a
// transport's Close or Shutdown has returned, the point is there for the
// MeterProvider's last flush.
func (ins *Instrumentation) measureServerSession(ss *mcp.ServerSession, start time.Time, network []attribute.KeyValue) {
	if ss.Done() == nil || !ins.serverSess.Enabled(context.Background()) {
		return
	}
	ss.OnClose(func() {
		attrs := append([]attribute.KeyValue{semconv.McpProtocolVersion(ss.ProtocolVersion())}, network...)
		ins.serverSess.Record(context.Background(), time.Since(start).Seconds(), attrs...)
	})
}

// ServerSendingMiddleware returns the mcp.SendingMiddleware that traces
// and measures what a server sends: a CLIENT span (the server is the
// requester of a sampling/createMessage, elicitation/create or roots/list,
// and the sender of its notifications), a point on
// mcp.client.operation.duration, and the trace context written into the
// message's params._meta, so that the client's handling continues the
// trace of the tool that asked
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#context-propagation).
func (ins *Instrumentation) ServerSendingMiddleware() mcp.SendingMiddleware {
	return func(next mcp.SendHandler) mcp.SendHandler {
		return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
			version, session := "", ""
			var network []attribute.KeyValue
			if sv, ok := ctx.Value(servedKey{}).(*served); ok {
				version, network = sv.version, sv.network
			}
			if ss := m.Session; ss != nil {
				if version == "" {
					version = ss.ProtocolVersion()
				}
				if ss.Done() != nil {
					session = ss.ID()
				}
			}
			var o op
			ctx = ins.begin(ctx, &o, false, m.Method, nil, &desc{id: m.ID, raw: m.Params, version: version, session: session, network: network})
			defer o.endPanic(ctx)
			sent := m
			if params, ok := ins.inject(ctx, m.Params); ok {
				m2 := *m
				m2.Params = params
				sent = &m2
			}
			res, err := next(ctx, sent)
			out := outcomeOf(err, false)
			if err == nil {
				out = resultOutcome(m.Method, res)
			}
			o.end(ctx, out)
			return res, err
		}
	}
}
