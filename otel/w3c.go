package otel

// This file holds the trace context's trip through params._meta when the
// propagator is the default one (W3C Trace Context and W3C Baggage): the
// same values the propagators read and write
// (https://www.w3.org/TR/trace-context/#traceparent-header), without the
// carrier, the strings and the contexts they would make for a message
// that only carries a traceparent. An unsampled operation pays for little
// more than the trace context's trip, so that trip is kept short.

import (
	"bytes"
	"context"
	"encoding/hex"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
)

// hexVal is the value of a lower-case hexadecimal digit, 0xff for any
// other byte: W3C Trace Context allows lower case only.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// traceparentPart decodes the next "-"-separated field of h, which must
// be exactly 2*len(dst) lower-case hex digits, into dst; it returns the
// rest of h after the separator.
func traceparentPart(dst []byte, h []byte) (rest []byte, ok bool) {
	part, rest, _ := bytes.Cut(h, []byte{'-'})
	if len(part) != 2*len(dst) {
		return rest, false
	}
	return rest, decodeHex(dst, part)
}

// decodeHex decodes the lower-case hex digits of src (2*len(dst) of
// them) into dst, and reports whether they all were such digits.
func decodeHex(dst, src []byte) bool {
	bad := byte(0)
	for i := range dst {
		hi, lo := hexVal[src[2*i]], hexVal[src[2*i+1]]
		dst[i] = hi<<4 | lo
		bad |= hi | lo
	}
	return bad&0xf0 == 0
}

// parseTraceparent reads a traceparent header value as the W3C
// propagator does (https://www.w3.org/TR/trace-context/#traceparent-header):
// a version up to fe, then trace id, parent id and flags; version 00
// allows nothing after the flags and no reserved flag bit. Only the
// sampled and random flags are kept.
func parseTraceparent(h []byte) (trace.SpanContextConfig, bool) {
	var scc trace.SpanContextConfig
	var ver, flags [1]byte
	var ok bool
	// The common form, "vv-<32>-<16>-ff" with nothing after: the fields
	// at their places, which is what splitting at "-" gives (a "-" inside
	// a field is not a hex digit either way).
	if len(h) == 55 && h[2] == '-' && h[35] == '-' && h[52] == '-' {
		if !decodeHex(ver[:], h[0:2]) || ver[0] == 0xff ||
			!decodeHex(scc.TraceID[:], h[3:35]) || !decodeHex(scc.SpanID[:], h[36:52]) ||
			!decodeHex(flags[:], h[53:55]) || (ver[0] == 0 && flags[0] > 3) {
			return scc, false
		}
		scc.TraceFlags = trace.TraceFlags(flags[0]) & (trace.FlagsSampled | trace.FlagsRandom)
		scc.Remote = true
		return scc, true
	}
	if h, ok = traceparentPart(ver[:], h); !ok || ver[0] == 0xff {
		return scc, false
	}
	if h, ok = traceparentPart(scc.TraceID[:], h); !ok {
		return scc, false
	}
	if h, ok = traceparentPart(scc.SpanID[:], h); !ok {
		return scc, false
	}
	if h, ok = traceparentPart(flags[:], h); !ok {
		return scc, false
	}
	// Version 00 allows no field after the flags and no reserved flag bit.
	if ver[0] == 0 && (len(h) != 0 || flags[0] > 3) {
		return scc, false
	}
	scc.TraceFlags = trace.TraceFlags(flags[0]) & (trace.FlagsSampled | trace.FlagsRandom)
	scc.Remote = true
	return scc, true
}

// rawStringBytes returns the bytes of a raw JSON string value without
// copying when it has no escapes, else its decoded bytes.
func rawStringBytes(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, _ := stringValue(v)
	return []byte(s)
}

// extractW3CMeta is what propagation.TraceContext and propagation.Baggage
// extract, in that order, from a _meta that readMeta has read: the remote
// span context from traceparent (and tracestate), then the baggage. It
// returns the remote span context too (invalid when there is none), which
// the caller would otherwise look up in the context. The form an
// instrumented client writes, which readMeta has parsed, takes a path
// of its own that keeps little on the stack: its one allocation is at the
// deepest point of an unsampled operation.
func extractW3CMeta(ctx context.Context, m *metaInfo) (context.Context, trace.SpanContext) {
	if !m.parsed || !remoteCtxWorks {
		return extractW3CAny(ctx, m)
	}
	if !m.scc.TraceID.IsValid() || !m.scc.SpanID.IsValid() {
		return ctx, trace.SpanContext{}
	}
	rc := &remoteCtx{Context: ctx, tid: m.scc.TraceID, sid: m.scc.SpanID, flags: m.scc.TraceFlags}
	return rc, rc.SpanContext()
}

// extractW3CAny is extractW3CMeta of any _meta.
func extractW3CAny(ctx context.Context, m *metaInfo) (context.Context, trace.SpanContext) {
	w3c := &m.w3c
	var remote trace.SpanContext
	scc, ok := m.scc, m.parsed
	if !ok {
		if tp := rawStringBytes(w3c[0]); len(tp) > 0 {
			scc, ok = parseTraceparent(tp)
		}
	}
	if ok {
		if w3c[1] != nil {
			ts, _ := stringValue(w3c[1])
			// A tracestate that does not parse leaves the traceparent
			// good, as the W3C propagator does.
			scc.TraceState, _ = trace.ParseTraceState(ts)
		}
		if sc := trace.NewSpanContext(scc); sc.IsValid() {
			ctx, remote = withRemoteSpanContext(ctx, sc), sc
		}
	}
	if w3c[2] != nil {
		ctx = propagation.Baggage{}.Extract(ctx, &metaCarrier{raw: m.raw})
	}
	return ctx, remote
}

// injectW3C fills c as propagation.TraceContext and propagation.Baggage
// inject, in that order, with the traceparent written into c.tp rather
// than made a string.
func injectW3C(ctx context.Context, c *injectCarrier) {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		if ts := sc.TraceState().String(); ts != "" {
			c.Set("tracestate", ts)
		}
		c.setTraceparent(sc)
	}
	if b := baggage.FromContext(ctx); b.Len() > 0 {
		if s := b.String(); s != "" {
			c.Set("baggage", s)
		}
	}
}

// setTraceparent sets traceparent to version 00 of sc, keeping only the
// sampled and random flags, as the W3C propagator writes it.
func (c *injectCarrier) setTraceparent(sc trace.SpanContext) {
	tid, sid := sc.TraceID(), sc.SpanID()
	b := c.tp[:0:len(c.tp)]
	b = append(b, '0', '0', '-')
	b = hex.AppendEncode(b, tid[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, sid[:])
	f := byte(sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom))
	_ = hex.AppendEncode(append(b, '-'), []byte{f})
	c.hasTP = true
	c.Set("traceparent", "")
}

// spanKey is the key under which package trace keeps a context's span,
// learnt by asking trace.SpanFromContext once.
var spanKey = func() any {
	var kc keyCatcher
	trace.SpanFromContext(&kc)
	return kc.key
}()

// keyCatcher is a context that remembers the key it was last asked for.
type keyCatcher struct {
	context.Context
	key any
}

func (c *keyCatcher) Value(key any) any { c.key = key; return nil }

// remoteCtx is trace.ContextWithRemoteSpanContext in one allocation
// instead of two, and a small one: the context is also the remote span,
// a non-recording span whose methods but SpanContext do nothing, and it
// keeps the span context's ids and flags rather than a
// trace.SpanContext (a traceparent with a tracestate goes the standard
// way).
type remoteCtx struct {
	context.Context
	embedded.Span
	tid   trace.TraceID
	sid   trace.SpanID
	flags trace.TraceFlags
}

func (c *remoteCtx) Value(key any) any {
	if key == spanKey {
		return trace.Span(c)
	}
	return c.Context.Value(key)
}

func (c *remoteCtx) SpanContext() trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: c.tid, SpanID: c.sid, TraceFlags: c.flags, Remote: true})
}
func (c *remoteCtx) IsRecording() bool                       { return false }
func (c *remoteCtx) End(...trace.SpanEndOption)              {}
func (c *remoteCtx) AddEvent(string, ...trace.EventOption)   {}
func (c *remoteCtx) AddLink(trace.Link)                      {}
func (c *remoteCtx) RecordError(error, ...trace.EventOption) {}
func (c *remoteCtx) SetStatus(codes.Code, string)            {}
func (c *remoteCtx) SetName(string)                          {}
func (c *remoteCtx) SetAttributes(...attribute.KeyValue)     {}
func (c *remoteCtx) TracerProvider() trace.TracerProvider    { return noop.NewTracerProvider() }

// remoteCtxWorks is set when trace.SpanContextFromContext reads a
// remoteCtx as it reads trace.ContextWithRemoteSpanContext; if a later
// version of package trace looked its span up otherwise, the remote span
// context would go the standard way.
var remoteCtxWorks = func() bool {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, Remote: true})
	return spanKey != nil && trace.SpanContextFromContext(&remoteCtx{Context: context.Background(), tid: sc.TraceID(), sid: sc.SpanID()}).Equal(sc)
}()

// withRemoteSpanContext is trace.ContextWithRemoteSpanContext(ctx, sc).
func withRemoteSpanContext(ctx context.Context, sc trace.SpanContext) context.Context {
	if !remoteCtxWorks || sc.TraceState().Len() > 0 {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return &remoteCtx{Context: ctx, tid: sc.TraceID(), sid: sc.SpanID(), flags: sc.TraceFlags()}
}
