package otel

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/mcpkit/mcpkit/mcp"
	otelglobal "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of the tracer and meter this
// package uses, so that a pipeline can tell its telemetry apart
// (https://opentelemetry.io/docs/specs/otel/common/instrumentation-scope/).
const ScopeName = "github.com/mcpkit/mcpkit/otel"

// Options configures an Instrumentation. The zero value uses
// OpenTelemetry's global providers, as instrumentation libraries do, and
// the W3C propagators SEP-414 names
// (https://modelcontextprotocol.io/community/seps/414-request-meta).
type Options struct {
	// TracerProvider makes the spans. If nil, the global provider
	// (go.opentelemetry.io/otel.GetTracerProvider) is used.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the histograms and gauges. If nil, the global
	// provider (go.opentelemetry.io/otel.GetMeterProvider) is used.
	MeterProvider metric.MeterProvider
	// Propagator writes and reads the trace context in params._meta. If
	// nil, W3C Trace Context and W3C Baggage (traceparent, tracestate,
	// baggage), the keys SEP-414 reserves
	// (https://modelcontextprotocol.io/community/seps/414-request-meta),
	// which the middleware then reads and writes itself, with the same
	// results as propagation.TraceContext and propagation.Baggage and
	// without their carrier's allocations: an unsampled call pays for
	// little else.
	Propagator propagation.TextMapPropagator
	// ResourceURIInSpanName names resource spans "{method} {uri}". Off by
	// default: the semantic conventions advise against it, a URI being of
	// high cardinality; the URI is always in mcp.resource.uri.
	ResourceURIInSpanName bool
	// FollowUnsampledParent lets the middleware that handles what a side
	// receives (ServerMiddleware, ClientMiddleware) start no span when
	// the traceparent in params._meta is valid and not sampled
	// (https://www.w3.org/TR/trace-context/#sampled-flag): the handler
	// runs under that remote span context, non-recording, which carries
	// the decision on to whatever the handler calls or sends. It is the
	// decision sdktrace.ParentBased makes for such a parent unless given
	// WithRemoteParentNotSampled (ParentBased is sdktrace's default and
	// that of OTEL_TRACES_SAMPLER=parentbased_*), so the same spans are
	// recorded; what is saved is the TracerProvider's Start of a span that
	// records nothing, four fifths of what the middleware costs an
	// unsampled operation. Two things differ: no span id is made for the unrecorded
	// span, so what the handler propagates names the client's span as its
	// parent; and the TracerProvider never sees the operation, so a
	// sampler that could record it, or that counts what it is asked, is
	// bypassed. Set it only with a sampler that follows its parent. Off by
	// default: every operation starts its span through the
	// TracerProvider, except with OpenTelemetry's no-op TracerProvider
	// (go.opentelemetry.io/otel/trace/noop), whose span would carry the
	// remote parent's span context and record nothing whatever the flag:
	// there a valid remote parent is always followed. The operation
	// histogram is recorded either way.
	FollowUnsampledParent bool
}

// An Instrumentation holds the tracer, instruments and propagator that the
// middleware of both sides share, so that the spans and metrics of the
// MCP semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/) come out
// alike on every server and client. It is safe for concurrent use; one
// Instrumentation may instrument many servers and clients.
type Instrumentation struct {
	tracer    trace.Tracer
	meter     metric.Meter
	prop      propagation.TextMapPropagator
	uriInName bool
	// followUnsampled is Options.FollowUnsampledParent.
	followUnsampled bool
	// noopTracer is set when the TracerProvider is OpenTelemetry's no-op
	// (go.opentelemetry.io/otel/trace/noop): its Start would give the
	// handler a span that records nothing and carries the parent's span
	// context, so a remote parent from _meta, sampled or not, is followed
	// at no cost and with the same result.
	noopTracer bool
	// w3c is set when prop is the default (W3C Trace Context and
	// Baggage): the middleware then reads and writes those keys itself.
	w3c        bool
	serverOp   mcpconv.ServerOperationDuration
	clientOp   mcpconv.ClientOperationDuration
	serverSess mcpconv.ServerSessionDuration
	clientSess mcpconv.ClientSessionDuration
	// The options of every span's start, made once.
	serverStart, clientStart []trace.SpanStartOption
}

// durationBuckets are the bucket boundaries, in seconds, of the four
// duration histograms (mcp.server.operation.duration,
// mcp.client.operation.duration, mcp.server.session.duration,
// mcp.client.session.duration): the ExplicitBucketBoundaries the MCP
// semantic conventions give each of them
// (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md#metrics),
// in place of the SDK's defaults, which are made for milliseconds. They
// are advice: a View of the MeterProvider may replace them.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// New returns an Instrumentation for opts (nil is the zero Options), with
// the four histograms of the MCP semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#metrics). It
// fails only when the MeterProvider refuses an instrument.
func New(opts *Options) (*Instrumentation, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otelglobal.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otelglobal.GetMeterProvider()
	}
	w3c := o.Propagator == nil
	if w3c {
		o.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	ins := &Instrumentation{
		tracer:    o.TracerProvider.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)),
		meter:     o.MeterProvider.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL)),
		prop:      o.Propagator,
		uriInName: o.ResourceURIInSpanName,

		followUnsampled: o.FollowUnsampledParent,
		noopTracer:      isNoopTracerProvider(o.TracerProvider),
		w3c:             w3c,

		serverStart: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)},
		clientStart: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)},
	}
	var err error
	buckets := metric.WithExplicitBucketBoundaries(durationBuckets...)
	if ins.serverOp, err = mcpconv.NewServerOperationDuration(ins.meter, buckets); err != nil {
		return nil, fmt.Errorf("otel: %s: %w", ins.serverOp.Name(), err)
	}
	if ins.clientOp, err = mcpconv.NewClientOperationDuration(ins.meter, buckets); err != nil {
		return nil, fmt.Errorf("otel: %s: %w", ins.clientOp.Name(), err)
	}
	if ins.serverSess, err = mcpconv.NewServerSessionDuration(ins.meter, buckets); err != nil {
		return nil, fmt.Errorf("otel: %s: %w", ins.serverSess.Name(), err)
	}
	if ins.clientSess, err = mcpconv.NewClientSessionDuration(ins.meter, buckets); err != nil {
		return nil, fmt.Errorf("otel: %s: %w", ins.clientSess.Name(), err)
	}
	return ins, nil
}

// isNoopTracerProvider reports whether tp is OpenTelemetry's no-op
// TracerProvider, whose spans never record
// (https://pkg.go.dev/go.opentelemetry.io/otel/trace/noop). The global
// provider is not, even before an SDK is installed: it may delegate later.
func isNoopTracerProvider(tp trace.TracerProvider) bool {
	switch tp.(type) {
	case noop.TracerProvider, *noop.TracerProvider:
		return true
	}
	return false
}

// InstrumentServer adds the Instrumentation's middleware to opts, after
// what is there (innermost): Middleware for what the server handles,
// SendingMiddleware for what it sends (server-to-client requests carry the
// trace context back to the client), the server side of
// https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#server.
func (ins *Instrumentation) InstrumentServer(opts *mcp.ServerOptions) {
	opts.Middleware = append(opts.Middleware, ins.ServerMiddleware())
	opts.SendingMiddleware = append(opts.SendingMiddleware, ins.ServerSendingMiddleware())
}

// ClientConfig says what a client's telemetry cannot learn from its
// messages: where its server is, for server.address, server.port and
// network.transport
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#client).
type ClientConfig struct {
	// URL is the Streamable HTTP endpoint the client talks to: it sets
	// server.address and server.port, network.transport "tcp" and
	// network.protocol.name "http". Empty means a pipe (stdio, or the
	// in-memory transport): network.transport "pipe".
	URL string
}

// InstrumentClient adds the Instrumentation's middleware to opts, after
// what is there (innermost): SendingMiddleware for what the client sends,
// Middleware for the server-to-client requests and notifications it
// handles, the client side of
// https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#client.
func (ins *Instrumentation) InstrumentClient(opts *mcp.ClientOptions, cfg ClientConfig) {
	opts.SendingMiddleware = append(opts.SendingMiddleware, ins.ClientSendingMiddleware(cfg))
	opts.Middleware = append(opts.Middleware, ins.ClientMiddleware(cfg))
}

// peer is the network attributes of a side's connection.
type peer struct {
	attrs []attribute.KeyValue // network.*, server.*
	tcp   bool
}

func (c ClientConfig) peer() peer {
	if c.URL == "" {
		return peer{attrs: []attribute.KeyValue{semconv.NetworkTransportPipe}}
	}
	p := peer{tcp: true, attrs: []attribute.KeyValue{semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http")}}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return p
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p.attrs = append(p.attrs, semconv.ServerAddress(host))
	if n, err := strconv.Atoi(port); err == nil {
		p.attrs = append(p.attrs, semconv.ServerPort(n))
	}
	return p
}
