package otel

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

var w3cProp = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// TestExtractW3CMatchesPropagator checks that the default propagator's
// fast extraction reads every traceparent, tracestate and baggage as the
// W3C propagators do: the same remote span context (ids, flags, state,
// remote) and the same baggage, or nothing where they find nothing.
func TestExtractW3CMatchesPropagator(t *testing.T) {
	const tid, sid = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	tps := []string{
		"00-" + tid + "-" + sid + "-00",
		"00-" + tid + "-" + sid + "-01",
		"00-" + tid + "-" + sid + "-02",
		"00-" + tid + "-" + sid + "-03",
		"00-" + tid + "-" + sid + "-04",
		"00-" + tid + "-" + sid + "-ff",
		"00-" + tid + "-" + sid + "-01-",
		"00-" + tid + "-" + sid + "-01-x",
		"01-" + tid + "-" + sid + "-01",
		"01-" + tid + "-" + sid + "-09-extra",
		"01-" + tid + "-" + sid + "-01-",
		"fe-" + tid + "-" + sid + "-01",
		"ff-" + tid + "-" + sid + "-01",
		"00-" + "0AF7651916CD43DD8448EB211C80319C" + "-" + sid + "-01",
		"00-00000000000000000000000000000000-" + sid + "-01",
		"00-" + tid + "-0000000000000000-01",
		"00-" + tid + "-" + sid,
		"00-" + tid + "-" + sid + "-1",
		"00-" + tid[1:] + "-" + sid + "-01",
		"0-" + tid + "-" + sid + "-01",
		"00-" + tid + "-" + sid + "-0g",
		"00_" + tid + "_" + sid + "_01",
		"",
		"-",
		"garbage",
	}
	var metas []string
	for _, tp := range tps {
		q := strconv.Quote(tp)
		metas = append(metas,
			`{"traceparent":`+q+`}`,
			`{"traceparent":`+q+`,"tracestate":"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"}`,
			`{"tracestate":"bad state!","traceparent":`+q+`,"baggage":"k=v,k2=v%202"}`,
		)
	}
	metas = append(metas,
		`{"traceparent":"\u0030\u0030-`+tid+`-`+sid+`-01"}`,
		`{"traceparent":1}`,
		`{"traceparent":null,"baggage":"k=v"}`,
		`{"traceparent":"00-`+tid+`-`+sid+`-00","traceparent":"00-`+tid+`-`+sid+`-01"}`,
		`{"baggage":"not baggage;;;="}`,
		`{"baggage":""}`,
		`{"progressToken":"p"}`,
		`{}`,
	)
	for _, meta := range metas {
		want := w3cProp.Extract(context.Background(), &metaCarrier{raw: []byte(meta)})
		m := readMeta([]byte(`{"_meta":` + meta + `}`))
		got, _ := extractW3CMeta(context.Background(), &m)
		wsc, gsc := trace.SpanContextFromContext(want), trace.SpanContextFromContext(got)
		if !wsc.Equal(gsc) || wsc.IsRemote() != gsc.IsRemote() || wsc.TraceState().String() != gsc.TraceState().String() {
			t.Errorf("%s: span context %+v, want %+v", meta, gsc, wsc)
		}
		if w, g := baggage.FromContext(want), baggage.FromContext(got); !sameBaggage(w, g) {
			t.Errorf("%s: baggage %q, want %q", meta, g, w)
		}
	}
}

// TestReadMetaExtractMatchesPropagator checks the path of the form an
// instrumented client writes, which readMeta parses itself, against the
// W3C propagator, for every traceparent of TestExtractW3CMatchesPropagator
// written in that form.
func TestReadMetaExtractMatchesPropagator(t *testing.T) {
	const tid, sid = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	fast := 0
	for _, tp := range []string{
		"00-" + tid + "-" + sid + "-00", "00-" + tid + "-" + sid + "-01", "00-" + tid + "-" + sid + "-03",
		"00-" + tid + "-" + sid + "-04", "00-" + tid + "-" + sid + "-ff", "01-" + tid + "-" + sid + "-09",
		"fe-" + tid + "-" + sid + "-01", "ff-" + tid + "-" + sid + "-01",
		"00-0AF7651916CD43DD8448EB211C80319C-" + sid + "-01",
		"00-00000000000000000000000000000000-" + sid + "-01", "00-" + tid + "-0000000000000000-01",
		"00-" + tid + "-" + sid + "-0g", "00_" + tid + "_" + sid + "_01", "00-" + tid + "-" + sid + "+01",
	} {
		m := readMeta([]byte(`{"_meta":{"traceparent":"` + tp + `"},"name":"x"}`))
		if m.parsed {
			fast++
		}
		_, got := extractW3CMeta(context.Background(), &m)
		want := trace.SpanContextFromContext(w3cProp.Extract(context.Background(), propagation.MapCarrier{"traceparent": tp}))
		if !got.Equal(want) || got.IsRemote() != want.IsRemote() {
			t.Errorf("%s: span context %+v, want %+v", tp, got, want)
		}
	}
	if fast < 6 {
		t.Errorf("%d traceparents took readMeta's own parse, want the 6 valid ones at least", fast)
	}
}

// sameBaggage reports whether a and b hold the same members (String's
// order is a map's).
func sameBaggage(a, b baggage.Baggage) bool {
	if a.Len() != b.Len() {
		return false
	}
	for _, m := range a.Members() {
		if b.Member(m.Key()).String() != m.String() {
			return false
		}
	}
	return true
}

// TestInjectW3CMatchesPropagator checks that the default propagator's
// fast injection writes the members the W3C propagators write, in their
// order, for every flag and with and without tracestate and baggage.
func TestInjectW3CMatchesPropagator(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	ts, _ := trace.ParseTraceState("rojo=00f067aa0ba902b7")
	bag, _ := baggage.Parse("k=v")
	for _, flags := range []trace.TraceFlags{0, 1, 2, 3, 0x81} {
		for _, state := range []trace.TraceState{{}, ts} {
			for _, b := range []baggage.Baggage{{}, bag} {
				ctx := baggage.ContextWithBaggage(context.Background(), b)
				ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, TraceState: state}))
				for _, c := range []context.Context{ctx, baggage.ContextWithBaggage(context.Background(), b)} {
					want := &injectCarrier{}
					w3cProp.Inject(c, want)
					var got injectCarrier
					injectW3C(c, &got)
					for _, params := range []string{``, `{"name":"x"}`, `{"_meta":{"progressToken":1},"name":"x"}`} {
						w, werr := injectMeta(json.RawMessage(params), want)
						g, gerr := injectMeta(json.RawMessage(params), &got)
						if string(w) != string(g) || (werr == nil) != (gerr == nil) {
							t.Errorf("flags %v, state %q, baggage %q, params %s: %s, %v; want %s, %v", flags, state, b, params, g, gerr, w, werr)
						}
					}
				}
			}
		}
	}
}

// TestRemoteCtx checks that the remote span context reads back as
// trace.ContextWithRemoteSpanContext's does, and that other values pass
// through to the parent.
func TestRemoteCtx(t *testing.T) {
	if !remoteCtxWorks {
		t.Fatal("package trace does not read the remote span context of remoteCtx")
	}
	type k struct{}
	parent := context.WithValue(context.Background(), k{}, "v")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: 1})
	ctx := withRemoteSpanContext(parent, sc)
	want := trace.ContextWithRemoteSpanContext(parent, sc)
	if g, w := trace.SpanContextFromContext(ctx), trace.SpanContextFromContext(want); !g.Equal(w) || !g.IsRemote() {
		t.Errorf("span context %+v, want %+v", g, w)
	}
	if sp := trace.SpanFromContext(ctx); sp.IsRecording() {
		t.Error("remote span records")
	}
	if ctx.Value(k{}) != "v" {
		t.Error("parent's value lost")
	}
}

// TestExtractLinksAmbient checks the parent and the link of a server
// span, with the default propagator and with one given in Options: the
// remote context of _meta is the parent and the ambient span is linked;
// without a remote context the ambient span stays the parent, unlinked.
func TestExtractLinksAmbient(t *testing.T) {
	ambient := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{9}, TraceFlags: 1})
	const tp = `{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`
	remoteTID, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	for _, prop := range []propagation.TextMapPropagator{nil, w3cProp} {
		ins, err := New(&Options{Propagator: prop})
		if err != nil {
			t.Fatal(err)
		}
		if ins.w3c != (prop == nil) {
			t.Fatalf("propagator %v: w3c = %v", prop, ins.w3c)
		}
		withAmbient := trace.ContextWithSpanContext(context.Background(), ambient)
		tests := []struct {
			name      string
			ctx       context.Context
			meta      string
			parentTID trace.TraceID
			link      bool
		}{
			{"remote and ambient", withAmbient, tp, remoteTID, true},
			{"remote only", context.Background(), tp, remoteTID, false},
			{"ambient only", withAmbient, `{"progressToken":1}`, ambient.TraceID(), false},
			{"ambient, no meta", withAmbient, ``, ambient.TraceID(), false},
			{"neither", context.Background(), `{}`, trace.TraceID{}, false},
		}
		for _, tt := range tests {
			m := readMeta([]byte(`{"_meta":` + tt.meta + `}`))
			if tt.meta == "" {
				m = readMeta(nil)
			}
			out, links, _ := ins.extract(tt.ctx, &m)
			if got := trace.SpanContextFromContext(out).TraceID(); got != tt.parentTID {
				t.Errorf("%v, %s: parent trace %v, want %v", prop, tt.name, got, tt.parentTID)
			}
			if tt.link != (len(links) == 1) || len(links) > 1 || (tt.link && !links[0].SpanContext.Equal(ambient)) {
				t.Errorf("%v, %s: links %+v, want link %v", prop, tt.name, links, tt.link)
			}
		}
	}
}

// TestSkipString checks where a string ends by the parity of the
// backslashes before a quote, and that an unterminated one is an error.
func TestSkipString(t *testing.T) {
	tests := []struct {
		in  string
		end int // -1: error
	}{
		{`"" x`, 2},
		{`"abc",`, 5},
		{`"a\"b" x`, 6},
		{`"a\\" x`, 5},
		{`"a\\\"" x`, 7},
		{`"\\\\"`, 6},
		{`"abc`, -1},
		{`"a\"`, -1},
		{`"a\`, -1},
		{`"` + strings.Repeat("x", 40) + `\"` + strings.Repeat("y", 40) + `\\" z`, 86},
		{`"` + strings.Repeat("x", 40) + `\"`, -1},
	}
	for _, tt := range tests {
		end, err := skipString([]byte(tt.in), 0)
		if tt.end < 0 {
			if err == nil {
				t.Errorf("skipString(%s) = %d, nil; want an error", tt.in, end)
			}
			continue
		}
		if err != nil || end != tt.end {
			t.Errorf("skipString(%s) = %d, %v; want %d", tt.in, end, err, tt.end)
		}
	}
}

// BenchmarkExtractParams measures what the server middleware reads of a
// tools/call's params with a traceparent, as the client middleware writes
// them (_meta first), when the operation does not record: the scan of
// params up to _meta and of _meta, and the remote span context.
func BenchmarkExtractParams(b *testing.B) {
	params := []byte(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"},"name":"echo","arguments":{"text":"hello, world"}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m := readMeta(params)
		if _, sc := extractW3CMeta(ctx, &m); !sc.IsValid() {
			b.Fatal("no remote span context")
		}
	}
}

// BenchmarkReadMeta, BenchmarkParseTraceparent and
// BenchmarkWithRemoteSpanContext measure the three steps of
// BenchmarkExtractParams one by one.
func BenchmarkReadMeta(b *testing.B) {
	params := []byte(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"},"name":"echo","arguments":{"text":"hello, world"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if m := readMeta(params); m.w3c[0] == nil {
			b.Fatal("no traceparent")
		}
	}
}

func BenchmarkParseTraceparent(b *testing.B) {
	tp := []byte("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := parseTraceparent(tp); !ok {
			b.Fatal("not parsed")
		}
	}
}

func BenchmarkWithRemoteSpanContext(b *testing.B) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, Remote: true})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if withRemoteSpanContext(ctx, sc) == ctx {
			b.Fatal("same context")
		}
	}
}
