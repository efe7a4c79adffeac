package otel_test

import (
	"context"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	mcpotel "github.com/mcpkit/mcpkit/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/goleak"
)

// TestSessionDuration checks mcp.server.session.duration and
// mcp.client.session.duration: one point each when a session-era session
// ends, its length in seconds, with the version and transport. The
// session lasts 5 seconds of the bubble's clock.
func TestSessionDuration(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	synctest.Test(t, func(t *testing.T) {
		tm := newTelemetry(t)
		s, _ := newServer(t, tm)
		c := connect(t, tm, s, transStdio, mcp.EraSession)
		time.Sleep(5 * time.Second)
		c.stop()
		synctest.Wait()
		var rm metricdata.ResourceMetrics
		must(t, tm.reader.Collect(context.Background(), &rm))
		want := map[string]string{"mcp.protocol.version": mcp.Version20251125, "network.transport": "pipe"}
		for _, name := range []string{"mcp.server.session.duration", "mcp.client.session.duration"} {
			points := histogram(t, rm, name)
			if len(points) != 1 {
				t.Fatalf("%s: %d points, want 1", name, len(points))
			}
			p := points[0]
			if got := attrMap(p.Attributes.ToSlice()); !maps.Equal(got, want) || p.Count != 1 || p.Sum != 5 {
				t.Errorf("%s: %v count %d sum %v; want %v count 1 sum 5", name, got, p.Count, p.Sum, want)
			}
		}
	})
}

type fakeStats mcphttp.Stats

func (f fakeStats) Stats() mcphttp.Stats { return mcphttp.Stats(f) }

// TestObserveHandler checks the gauges: what Stats reports at each
// collection, and nothing after Unregister.
func TestObserveHandler(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tm := newTelemetry(t)
	reg, err := tm.ins.ObserveHandler(fakeStats{Sessions: 3, Streams: 2})
	must(t, err)
	checkGauges(t, tm, 3, 2)
	must(t, reg.Unregister())

	// A real Handler, one session, its reply a JSON body (no stream).
	s, _ := newServer(t, tm)
	h := mcphttp.NewHandler(s, &mcphttp.Options{JSONResponse: true})
	defer h.Close()
	reg, err = tm.ins.ObserveHandler(h)
	must(t, err)
	defer reg.Unregister()
	checkGauges(t, tm, 0, 0)
	req := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 || w.Header().Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	checkGauges(t, tm, 1, 0)
}

func checkGauges(t *testing.T, tm *telemetry, sessions, streams int64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	must(t, tm.reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if g, ok := m.Data.(metricdata.Gauge[int64]); ok && len(g.DataPoints) == 1 {
				got[m.Name] = g.DataPoints[0].Value
			}
		}
	}
	want := map[string]int64{mcpotel.MetricHTTPSessions: sessions, mcpotel.MetricHTTPStreams: streams}
	if !maps.Equal(got, want) {
		t.Errorf("gauges = %v, want %v", got, want)
	}
}

// TestDurationBuckets: the four duration histograms have the bucket
// boundaries, in seconds, that the semantic conventions give them, not
// the SDK's defaults (which are made for milliseconds).
func TestDurationBuckets(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tm := newTelemetry(t)
	s, _ := newServer(t, tm)
	c := connect(t, tm, s, transStdio, mcp.EraSession)
	if _, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	c.stop()
	var rm metricdata.ResourceMetrics
	must(t, tm.reader.Collect(context.Background(), &rm))
	want := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	for _, name := range []string{"mcp.server.operation.duration", "mcp.client.operation.duration", "mcp.server.session.duration", "mcp.client.session.duration"} {
		points := histogram(t, rm, name)
		if len(points) == 0 {
			t.Errorf("%s: no points", name)
		}
		for _, p := range points {
			if !slices.Equal(p.Bounds, want) {
				t.Errorf("%s: bounds %v, want %v", name, p.Bounds, want)
			}
		}
	}
}

// TestSessionDurationAtShutdown: a session still open when its server
// shuts down has its mcp.server.session.duration recorded by the time
// Handler.Shutdown returns, so that the MeterProvider's flush that
// follows exports it; the client's, by the time its Close returns.
func TestSessionDurationAtShutdown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tm := newTelemetry(t)
	s, _ := newServer(t, tm)
	h := mcphttp.NewHandler(s, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	copts := &mcp.ClientOptions{ProtocolEra: mcp.EraSession}
	tm.ins.InstrumentClient(copts, mcpotel.ClientConfig{URL: srv.URL})
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, copts).Connect(context.Background(), &mcphttp.ClientTransport{URL: srv.URL})
	must(t, err)
	count := func(name string) uint64 {
		var rm metricdata.ResourceMetrics
		must(t, tm.reader.Collect(context.Background(), &rm))
		var n uint64
		for _, p := range histogram(t, rm, name) {
			n += p.Count
		}
		return n
	}
	must(t, h.Shutdown(context.Background()))
	if n := count("mcp.server.session.duration"); n != 1 {
		t.Errorf("mcp.server.session.duration after Shutdown: %d points, want 1", n)
	}
	must(t, cs.Close())
	if n := count("mcp.client.session.duration"); n != 1 {
		t.Errorf("mcp.client.session.duration after Close: %d points, want 1", n)
	}
}
