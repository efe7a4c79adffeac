package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is an Instrumentation whose spans and metrics stay in memory.
type telemetry struct {
	ins    *mcpotel.Instrumentation
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	// onSample, if set, sees the context of the client's sampling handler.
	onSample func(context.Context)
}

func newTelemetry(t testing.TB) *telemetry {
	t.Helper()
	tm := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tm.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tm.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tm.reader))
	ins, err := mcpotel.New(&mcpotel.Options{TracerProvider: tm.tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	tm.ins = ins
	return tm
}

// serverFixture is what a test server records: the session ids its
// handlers saw, and its log.
type serverFixture struct {
	mu        sync.Mutex
	sessionID string
	log       bytes.Buffer
}

func (f *serverFixture) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.Write(p)
}

func (f *serverFixture) logText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.String()
}

// newServer returns a server instrumented by tm with the tools, resource
// and prompt the tests call: echo, fail (a tool error), ask (sampling),
// progress (one progress notification), test://doc and greet.
func newServer(t testing.TB, tm *telemetry) (*mcp.Server, *serverFixture) {
	t.Helper()
	f := &serverFixture{}
	logger := slog.New(mcpotel.NewSlogHandler(slog.NewJSONHandler(f, nil)))
	opts := &mcp.ServerOptions{}
	tm.ins.InstrumentServer(opts)
	s := mcp.NewServer(mcp.Implementation{Name: "otel-test", Version: "1"}, opts)
	type textIn struct {
		Text string `json:"text"`
	}
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcp.Request, in textIn) (string, error) {
		if req.Session != nil && !req.Stateless() {
			f.mu.Lock()
			f.sessionID = req.Session.ID()
			f.mu.Unlock()
		}
		logger.InfoContext(ctx, "echo called", "text", in.Text)
		return in.Text, nil
	}))
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "fails"}, func(context.Context, *mcp.Request, struct{}) (string, error) {
		return "", errors.New("it failed")
	}))
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "one progress notification"}, func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
		if err := req.ReportProgress(ctx, 1, 1, ""); err != nil {
			return "", err
		}
		return "done", nil
	}))
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "asks the client's model"}, func(ctx context.Context, req *mcp.Request, in textIn) (string, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: in.Text}}}},
			MaxTokens: 10,
		})
		if err != nil {
			return "", err
		}
		return res.Model, nil
	}))
	must(t, s.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc"}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://doc", Text: "the doc"}}}, nil
	}))
	must(t, s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hello"}}}}, nil
	}))
	return s, f
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// pipeTransport is one end of a pair of pipes, framed as stdio frames
// (mcp.StdioTransport on the pipes): the stdio transport without a process.
type pipeTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p *pipeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := (&mcp.StdioTransport{In: p.r, Out: p.w}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &closingConn{c, p.r, p.w}, nil
}

// closingConn closes both pipes with the connection, so that the peer's
// read ends.
type closingConn struct {
	mcp.Connection
	r io.Closer
	w io.Closer
}

func (c *closingConn) Close() error {
	err := c.Connection.Close()
	c.w.Close()
	c.r.Close()
	return err
}

func newPipeTransports() (client, server mcp.Transport) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	return &pipeTransport{r: cr, w: cw}, &pipeTransport{r: sr, w: sw}
}

// transports under test.
const (
	transStdio = "stdio"
	transHTTP  = "http"
)

// connected is a client session on a server, over one transport, and
// what ends them.
type connected struct {
	cs   *mcp.ClientSession
	url  string
	stop func()
}

// connect serves s over transport and connects a client instrumented by
// tm in era, with a sampling handler that answers with model "m1".
func connect(t testing.TB, tm *telemetry, s *mcp.Server, transport string, era mcp.ProtocolEra) *connected {
	t.Helper()
	copts := &mcp.ClientOptions{
		ProtocolEra: era,
		CreateMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			if tm.onSample != nil {
				tm.onSample(ctx)
			}
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}, Model: "m1"}, nil
		},
		ProgressHandler: func(context.Context, *mcp.ClientSession, *mcp.ProgressParams) {},
	}
	ctx := context.Background()
	c := &connected{}
	switch transport {
	case transStdio:
		tm.ins.InstrumentClient(copts, mcpotel.ClientConfig{})
		ct, st := newPipeTransports()
		ss, err := s.Connect(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(mcp.Implementation{Name: "otel-client", Version: "1"}, copts).Connect(ctx, ct)
		if err != nil {
			t.Fatal(err)
		}
		c.cs = cs
		c.stop = func() {
			cs.Close()
			ss.Close()
			ss.Wait()
		}
	case transHTTP:
		h := mcphttp.NewHandler(s, nil)
		srv := httptest.NewServer(h)
		c.url = srv.URL
		tm.ins.InstrumentClient(copts, mcpotel.ClientConfig{URL: srv.URL})
		cs, err := mcp.NewClient(mcp.Implementation{Name: "otel-client", Version: "1"}, copts).Connect(ctx, &mcphttp.ClientTransport{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		c.cs = cs
		c.stop = func() {
			cs.Close()
			h.Close()
			srv.Close()
			srv.Client().CloseIdleConnections()
		}
	}
	return c
}

// attrMap is a span's or point's attributes as strings.
func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// findSpan returns the one span of that kind and name; it fails the test
// when there is none or more than one.
func findSpan(t testing.TB, spans []sdktrace.ReadOnlySpan, kind trace.SpanKind, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.SpanKind() == kind && s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s spans named %q, want 1; spans: %s", len(found), kind, name, spanList(spans))
	}
	return found[0]
}

func spanList(spans []sdktrace.ReadOnlySpan) string {
	var names []string
	for _, s := range spans {
		names = append(names, s.SpanKind().String()+" "+s.Name())
	}
	sort.Strings(names)
	b, _ := json.Marshal(names)
	return string(b)
}

// histogram returns the data points of the named histogram.
func histogram(t testing.TB, rm metricdata.ResourceMetrics, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				h, ok := m.Data.(metricdata.Histogram[float64])
				if !ok {
					t.Fatalf("%s is a %T, want a float64 histogram", name, m.Data)
				}
				return h.DataPoints
			}
		}
	}
	return nil
}
