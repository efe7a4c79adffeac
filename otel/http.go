package otel

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/mcphttp"
	"go.opentelemetry.io/otel/metric"
)

// The names of the gauges ObserveHandler registers. The semantic
// conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#metrics)
// have no instrument for them, so they sit under mcpkit's own namespace
// rather than in mcp.*.
const (
	MetricHTTPSessions = "mcpkit.http.sessions"
	MetricHTTPStreams  = "mcpkit.http.streams"
)

// A StatsSource reports what an HTTP handler holds open; *mcphttp.Handler
// is one. It is an interface so that a handler of another kind (a proxy,
// say) can feed the same gauges
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
type StatsSource interface {
	Stats() mcphttp.Stats
}

// ObserveHandler registers two gauges read from h at every collection:
// mcpkit.http.sessions, the live sessions (against
// mcphttp.Options.MaxSessions), and mcpkit.http.streams, the SSE
// responses holding a connection
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
// Unregister the returned registration when h is closed.
func (ins *Instrumentation) ObserveHandler(h StatsSource) (metric.Registration, error) {
	sessions, err := ins.meter.Int64ObservableGauge(MetricHTTPSessions,
		metric.WithDescription("Live MCP sessions of a Streamable HTTP handler."), metric.WithUnit("{session}"))
	if err != nil {
		return nil, fmt.Errorf("otel: %s: %w", MetricHTTPSessions, err)
	}
	streams, err := ins.meter.Int64ObservableGauge(MetricHTTPStreams,
		metric.WithDescription("SSE streams a Streamable HTTP handler holds open."), metric.WithUnit("{stream}"))
	if err != nil {
		return nil, fmt.Errorf("otel: %s: %w", MetricHTTPStreams, err)
	}
	reg, err := ins.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := h.Stats()
		o.ObserveInt64(sessions, int64(st.Sessions))
		o.ObserveInt64(streams, int64(st.Streams))
		return nil
	}, sessions, streams)
	if err != nil {
		return nil, fmt.Errorf("otel: registering the handler's gauges: %w", err)
	}
	return reg, nil
}
