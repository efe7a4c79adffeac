package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// This file holds `mcpkit serve --otel`: traces and metrics of the
// reference server, exported as the standard OpenTelemetry environment
// variables say (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/):
// OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER (otlp, the default;
// console, lines on stderr; none), and for OTLP over HTTP
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/)
// OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318),
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT and their
// _TRACES_/_METRICS_ forms; OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER and OTEL_METRIC_EXPORT_INTERVAL. Logs are not
// exported: they go to stderr, with the trace and span ids of the
// request they belong to (OTEL_LOGS_EXPORTER may be none or console).

// otelShutdownTimeout bounds the last export when serve ends.
const otelShutdownTimeout = 5 * time.Second

// defaultOTLPEndpoint is where OTLP goes when no OTEL_EXPORTER_OTLP_*
// endpoint is set: the specification's default for http/protobuf, in
// plain HTTP, as a collector on the same machine serves it.
const defaultOTLPEndpoint = "http://localhost:4318"

// serveTelemetry is what --otel sets up: the instrumentation, and what
// ends it.
type serveTelemetry struct {
	ins  *mcpotel.Instrumentation
	tp   *sdktrace.TracerProvider
	mp   *sdkmetric.MeterProvider
	reg  metric.Registration
	errs *exportErrors
}

// newServeTelemetry starts the exporters OTEL_TRACES_EXPORTER and
// OTEL_METRICS_EXPORTER name; console ones write to console (stderr).
// Only the http/protobuf protocol of OTLP is built in:
// OTEL_EXPORTER_OTLP_PROTOCOL (or its _TRACES_ and _METRICS_ forms)
// naming another is an error rather than a silent change of protocol.
// Export errors go to logger, once and then at most once a minute.
func newServeTelemetry(ctx context.Context, logger *slog.Logger, console io.Writer) (*serveTelemetry, error) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := strings.TrimSpace(os.Getenv(v)); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("--otel: %s=%s: only http/protobuf is supported", v, p)
		}
	}
	traces, err := otelExporters("OTEL_TRACES_EXPORTER")
	if err != nil {
		return nil, err
	}
	metrics, err := otelExporters("OTEL_METRICS_EXPORTER")
	if err != nil {
		return nil, err
	}
	logs, err := otelExporters("OTEL_LOGS_EXPORTER")
	if err != nil {
		return nil, err
	}
	if os.Getenv("OTEL_LOGS_EXPORTER") != "" && slices.Contains(logs, "otlp") {
		logger.Warn("mcpkit serve: --otel: OTEL_LOGS_EXPORTER=otlp: logs are not exported with OTLP; they go to stderr, with the trace_id and span_id of their request")
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
	st := &serveTelemetry{errs: &exportErrors{logger: logger, now: time.Now}}
	otel.SetErrorHandler(st.errs)
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	var where []any
	for _, name := range traces {
		switch name {
		case "otlp":
			var opts []otlptracehttp.Option
			url := otlpURL("TRACES", "/v1/traces")
			if strings.HasPrefix(url, defaultOTLPEndpoint+"/") {
				opts = append(opts, otlptracehttp.WithInsecure())
			}
			spans, err := otlptracehttp.New(ctx, opts...)
			if err != nil {
				return nil, fmt.Errorf("--otel: trace exporter: %w", err)
			}
			topts = append(topts, sdktrace.WithBatcher(spans))
			where = append(where, "traces", url)
		case "console":
			topts = append(topts, sdktrace.WithBatcher(&consoleSpans{w: console}))
			where = append(where, "traces", "stderr")
		}
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	for _, name := range metrics {
		switch name {
		case "otlp":
			var opts []otlpmetrichttp.Option
			url := otlpURL("METRICS", "/v1/metrics")
			if strings.HasPrefix(url, defaultOTLPEndpoint+"/") {
				opts = append(opts, otlpmetrichttp.WithInsecure())
			}
			points, err := otlpmetrichttp.New(ctx, opts...)
			if err != nil {
				return nil, fmt.Errorf("--otel: metric exporter: %w", err)
			}
			mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(points)))
			where = append(where, "metrics", url)
		case "console":
			mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(&consoleMetrics{w: console})))
			where = append(where, "metrics", "stderr")
		}
	}
	st.tp = sdktrace.NewTracerProvider(topts...)
	st.mp = sdkmetric.NewMeterProvider(mopts...)
	st.ins, err = mcpotel.New(&mcpotel.Options{TracerProvider: st.tp, MeterProvider: st.mp, FollowUnsampledParent: samplerFollowsParent(os.Getenv("OTEL_TRACES_SAMPLER"))})
	if err != nil {
		return nil, fmt.Errorf("--otel: %w", err)
	}
	if len(where) == 0 {
		where = []any{"traces", "none", "metrics", "none"}
	}
	logger.Info("mcpkit serve: --otel: exporting", where...)
	return st, nil
}

// otelExporters parses an OTEL_*_EXPORTER variable: a comma-separated
// list of otlp and console, or none; empty: otlp.
func otelExporters(name string) ([]string, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return []string{"otlp"}, nil
	}
	var list []string
	for item := range strings.SplitSeq(v, ",") {
		switch item = strings.ToLower(strings.TrimSpace(item)); item {
		case "otlp", "console":
			if !slices.Contains(list, item) {
				list = append(list, item)
			}
		case "none":
			if v = strings.TrimSpace(v); !strings.EqualFold(v, "none") {
				return nil, fmt.Errorf("--otel: %s=%s: none goes alone", name, v)
			}
			return nil, nil
		default:
			return nil, fmt.Errorf("--otel: %s=%s: want otlp, console or none (a comma-separated list of the first two)", name, v)
		}
	}
	return list, nil
}

// otlpURL is the URL OTLP over HTTP sends a signal to
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/#endpoint-urls-for-otlphttp):
// OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT as it is, else
// OTEL_EXPORTER_OTLP_ENDPOINT with the signal's path, else the default
// endpoint with it.
func otlpURL(signal, path string) string {
	if u := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT")); u != "" {
		return u
	}
	base := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if base == "" {
		base = defaultOTLPEndpoint
	}
	return strings.TrimSuffix(base, "/") + path
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

// shutdown exports what is left and stops the exporters. A failure
// goes to the export error handler, which does not say twice within a
// minute that the collector cannot be reached.
func (st *serveTelemetry) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), otelShutdownTimeout)
	defer cancel()
	var errs []error
	if st.reg != nil {
		errs = append(errs, st.reg.Unregister())
	}
	errs = append(errs, st.tp.Shutdown(ctx), st.mp.Shutdown(ctx))
	if err := errors.Join(errs...); err != nil {
		st.errs.Handle(fmt.Errorf("flushing at exit: %w", err))
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
