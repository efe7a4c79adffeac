package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// This file holds `mcpkit serve --otel`: traces and metrics of the
// reference server, exported with OTLP over HTTP to wherever the standard
// OpenTelemetry environment variables say
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/):
// OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318),
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT and their
// _TRACES_/_METRICS_ forms, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER and OTEL_METRIC_EXPORT_INTERVAL.

// otelShutdownTimeout bounds the last export when serve ends.
const otelShutdownTimeout = 5 * time.Second

// serveTelemetry is what --otel sets up: the instrumentation, and what
// ends it.
type serveTelemetry struct {
	ins *mcpotel.Instrumentation
	tp  *sdktrace.TracerProvider
	mp  *sdkmetric.MeterProvider
	reg metric.Registration
}

// newServeTelemetry starts the OTLP exporters. Only the http/protobuf
// protocol is built in: OTEL_EXPORTER_OTLP_PROTOCOL (or its _TRACES_ and
// _METRICS_ forms) naming another is an error rather than a silent
// change of protocol.
func newServeTelemetry(ctx context.Context) (*serveTelemetry, error) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := strings.TrimSpace(os.Getenv(v)); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("--otel: %s=%s: only http/protobuf is supported", v, p)
		}
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName("mcpkit")))
	if err != nil {
		return nil, fmt.Errorf("--otel: resource: %w", err)
	}
	// The environment's service name, if any, wins over "mcpkit".
	if env, err := resource.New(ctx, resource.WithFromEnv()); err == nil {
		if res, err = resource.Merge(res, env); err != nil {
			return nil, fmt.Errorf("--otel: resource: %w", err)
		}
	}
	spans, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("--otel: trace exporter: %w", err)
	}
	points, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("--otel: metric exporter: %w", err)
	}
	st := &serveTelemetry{
		tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res)),
		mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(points)), sdkmetric.WithResource(res)),
	}
	st.ins, err = mcpotel.New(&mcpotel.Options{TracerProvider: st.tp, MeterProvider: st.mp, FollowUnsampledParent: samplerFollowsParent(os.Getenv("OTEL_TRACES_SAMPLER"))})
	if err != nil {
		return nil, fmt.Errorf("--otel: %w", err)
	}
	return st, nil
}

// instrument adds the middleware to opts and the trace ids to the
// logger's records.
func (st *serveTelemetry) instrument(opts *mcp.ServerOptions) {
	st.ins.InstrumentServer(opts)
	if opts.Logger != nil {
		opts.Logger = slog.New(mcpotel.NewSlogHandler(opts.Logger.Handler()))
	}
}

// observe adds the gauges of an HTTP handler's sessions and streams.
func (st *serveTelemetry) observe(h *mcphttp.Handler) error {
	reg, err := st.ins.ObserveHandler(h)
	if err != nil {
		return fmt.Errorf("--otel: %w", err)
	}
	st.reg = reg
	return nil
}

// shutdown exports what is left and stops the exporters.
func (st *serveTelemetry) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), otelShutdownTimeout)
	defer cancel()
	var errs []error
	if st.reg != nil {
		errs = append(errs, st.reg.Unregister())
	}
	errs = append(errs, st.tp.Shutdown(ctx), st.mp.Shutdown(ctx))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("--otel: flushing: %w", err)
	}
	return nil
}

// samplerFollowsParent reports whether the sampler OTEL_TRACES_SAMPLER
// names keeps an unsampled remote parent's decision: the SDK's default
// when it is unset (ParentBased(AlwaysSample)) and every parentbased_*
// sampler do, so the middleware may skip starting a span no one records
// (mcpotel.Options.FollowUnsampledParent).
func samplerFollowsParent(sampler string) bool {
	sampler = strings.TrimSpace(sampler)
	return sampler == "" || strings.HasPrefix(sampler, "parentbased_")
}
