package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// This file holds what `serve --otel` adds to the OpenTelemetry SDK: the
// console exporters of OTEL_TRACES_EXPORTER=console and
// OTEL_METRICS_EXPORTER=console, which write one line per span or data
// point on stderr (stdout carries the stdio transport), and the handler
// of export errors, which logs a failing exporter once and then at most
// once a minute.

// consoleSpans is a span exporter that writes each span as a line:
//
//	otel span NAME trace_id=… span_id=… [parent_span_id=…] kind=… duration=… status=… [KEY=VALUE]...
type consoleSpans struct {
	mu sync.Mutex
	w  io.Writer
}

// ExportSpans implements sdktrace.SpanExporter.
func (c *consoleSpans) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	var b strings.Builder
	for _, s := range spans {
		sc := s.SpanContext()
		fmt.Fprintf(&b, "otel span %s trace_id=%s span_id=%s", strconv.Quote(s.Name()), sc.TraceID(), sc.SpanID())
		if p := s.Parent(); p.IsValid() {
			fmt.Fprintf(&b, " parent_span_id=%s", p.SpanID())
		}
		fmt.Fprintf(&b, " kind=%s duration=%v status=%s", s.SpanKind(), s.EndTime().Sub(s.StartTime()), s.Status().Code)
		if d := s.Status().Description; d != "" {
			fmt.Fprintf(&b, " status_description=%s", strconv.Quote(d))
		}
		writeAttributes(&b, s.Attributes())
		b.WriteByte('\n')
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := io.WriteString(c.w, b.String())
	return err
}

// Shutdown implements sdktrace.SpanExporter.
func (c *consoleSpans) Shutdown(context.Context) error { return nil }

// consoleMetrics is a metric exporter that writes each data point as a
// line:
//
//	otel metric NAME [KEY=VALUE]... value=V          (sums and gauges)
//	otel metric NAME [KEY=VALUE]... count=N sum=S    (histograms)
type consoleMetrics struct {
	mu sync.Mutex
	w  io.Writer
}

// Temporality implements sdkmetric.Exporter.
func (c *consoleMetrics) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

// Aggregation implements sdkmetric.Exporter.
func (c *consoleMetrics) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export implements sdkmetric.Exporter.
func (c *consoleMetrics) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	var b strings.Builder
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			point := func(attrs attribute.Set, value string) {
				b.WriteString("otel metric " + m.Name)
				writeAttributes(&b, attrs.ToSlice())
				b.WriteString(" " + value + "\n")
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					point(p.Attributes, "value="+strconv.FormatInt(p.Value, 10))
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					point(p.Attributes, "value="+strconv.FormatFloat(p.Value, 'g', -1, 64))
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					point(p.Attributes, "value="+strconv.FormatInt(p.Value, 10))
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					point(p.Attributes, "value="+strconv.FormatFloat(p.Value, 'g', -1, 64))
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					point(p.Attributes, fmt.Sprintf("count=%d sum=%d", p.Count, p.Sum))
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					point(p.Attributes, fmt.Sprintf("count=%d sum=%s", p.Count, strconv.FormatFloat(p.Sum, 'g', -1, 64)))
				}
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := io.WriteString(c.w, b.String())
	return err
}

// ForceFlush implements sdkmetric.Exporter.
func (c *consoleMetrics) ForceFlush(context.Context) error { return nil }

// Shutdown implements sdkmetric.Exporter.
func (c *consoleMetrics) Shutdown(context.Context) error { return nil }

// writeAttributes writes " KEY=VALUE" for each attribute, the value
// quoted when it is a string.
func writeAttributes(b *strings.Builder, attrs []attribute.KeyValue) {
	for _, kv := range attrs {
		v := kv.Value.String()
		if kv.Value.Type() == attribute.STRING {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + string(kv.Key) + "=" + v)
	}
}

// exportErrorInterval is the least time between two log lines about
// failing exports.
const exportErrorInterval = time.Minute

// exportErrors is the OpenTelemetry error handler of serve --otel: the
// SDK reports every failed export (each metric interval, each batch of
// spans), and a collector that is down would fill the log. The first
// failure is logged; later ones at most once every exportErrorInterval,
// with how many were not logged since.
type exportErrors struct {
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	last    time.Time // of the last line logged; zero: none yet
	dropped int       // failures not logged since
}

// Handle implements otel.ErrorHandler.
func (h *exportErrors) Handle(err error) {
	h.mu.Lock()
	now := h.now()
	if !h.last.IsZero() && now.Sub(h.last) < exportErrorInterval {
		h.dropped++
		h.mu.Unlock()
		return
	}
	first, dropped := h.last.IsZero(), h.dropped
	h.last, h.dropped = now, 0
	h.mu.Unlock()
	if first {
		h.logger.Warn("mcpkit serve: --otel: cannot export telemetry; what cannot be sent is dropped (this is logged again at most once a minute)", "err", err)
		return
	}
	h.logger.Warn("mcpkit serve: --otel: still cannot export telemetry", "err", err, "failures_not_logged", dropped)
}
