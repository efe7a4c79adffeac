package otel

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// The keys of the ids NewSlogHandler adds, the names the OpenTelemetry
// log data model gives them
// (https://opentelemetry.io/docs/specs/otel/logs/data-model/#field-traceid).
const (
	LogKeyTraceID = "trace_id"
	LogKeySpanID  = "span_id"
)

// NewSlogHandler returns a slog.Handler that adds the trace and span ids
// of the span active in a record's context (trace_id, span_id, in hex) and
// passes the record to h. Records logged without a context, or outside any
// span, pass unchanged. With the middleware of this package, what a
// handler logs with a *Context method (InfoContext(ctx, ...)) names the
// trace of the MCP request it serves.
func NewSlogHandler(h slog.Handler) slog.Handler { return slogHandler{h} }

type slogHandler struct{ next slog.Handler }

func (h slogHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h slogHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String(LogKeyTraceID, sc.TraceID().String()), slog.String(LogKeySpanID, sc.SpanID().String()))
	}
	return h.next.Handle(ctx, r)
}

func (h slogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return slogHandler{h.next.WithAttrs(attrs)}
}

func (h slogHandler) WithGroup(name string) slog.Handler { return slogHandler{h.next.WithGroup(name)} }
