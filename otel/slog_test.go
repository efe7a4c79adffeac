package otel_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/trace"
)

// TestSlogHandler checks the ids a record gets inside a span, and that a
// record outside any span passes unchanged, through WithAttrs too.
func TestSlogHandler(t *testing.T) {
	var buf bytes.Buffer
	text := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	logger := slog.New(mcpotel.NewSlogHandler(text)).With("k", "v")
	logger.InfoContext(context.Background(), "outside")
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	})
	logger.InfoContext(trace.ContextWithSpanContext(context.Background(), sc), "inside")
	want := "level=INFO msg=outside k=v\n" +
		"level=INFO msg=inside k=v trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7\n"
	if buf.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", buf.String(), want)
	}
}
