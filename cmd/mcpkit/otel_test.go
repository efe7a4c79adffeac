package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is an OTLP/HTTP endpoint on 127.0.0.1 that keeps what it is
// sent, by path.
type collector struct {
	mu     sync.Mutex
	bodies map[string][]byte
	types  map[string]string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.bodies[r.URL.Path] = append(c.bodies[r.URL.Path], b...)
	c.types[r.URL.Path] = r.Header.Get("Content-Type")
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// TestServeOTel runs serve --otel on stdio with the OTLP endpoint from
// OTEL_EXPORTER_OTLP_ENDPOINT, calls the echo tool, closes stdin, and
// checks that the spans and the operation histogram reached the
// collector by the time serve returned.
func TestServeOTel(t *testing.T) {
	col := &collector{bodies: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "3600000") // only the flush at the end
	t.Setenv("OTEL_SERVICE_NAME", "otel-cli-test")

	inR, inW := io.Pipe()
	out := &lineWriter{lines: make(chan string, 8)}
	var errOut bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), []string{"serve", "--otel"}, inR, out, &errOut) }()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(prefix string) {
		t.Helper()
		select {
		case got := <-out.lines:
			if !strings.HasPrefix(got, prefix) {
				t.Errorf("stdout line =\n\t%s\nwant it to start with\n\t%s", got, prefix)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no line on stdout, want %s", prefix)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	expect(`{"jsonrpc":"2.0","id":1,"result":`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`)
	expect(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	inW.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d, stderr %q", c, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not end when its stdin closed")
	}

	col.mu.Lock()
	defer col.mu.Unlock()
	// OTLP protobuf keeps strings as they are: the names show in the bytes,
	// and so does the client's trace id, continued by the server's span.
	traceID := []byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	checks := []struct {
		path string
		want [][]byte
	}{
		{"/v1/traces", [][]byte{[]byte("tools/call echo"), []byte("gen_ai.tool.name"), []byte("otel-cli-test"), traceID}},
		{"/v1/metrics", [][]byte{[]byte("mcp.server.operation.duration")}},
	}
	for _, c := range checks {
		if ct := col.types[c.path]; ct != "application/x-protobuf" {
			t.Errorf("%s: Content-Type %q, want application/x-protobuf", c.path, ct)
		}
		for _, w := range c.want {
			if !bytes.Contains(col.bodies[c.path], w) {
				t.Errorf("%s: the export lacks %q", c.path, w)
			}
		}
	}
}

// TestServeOTelProtocol: a protocol the CLI does not build in is refused
// before anything is served.
func TestServeOTelProtocol(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	code, stdout, stderr := runCLI(t, "", "serve", "--otel")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "--otel: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: only http/protobuf is supported") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// serve --otel skips the span of an unsampled call only under a sampler
// that follows its parent.
func TestSamplerFollowsParent(t *testing.T) {
	for sampler, want := range map[string]bool{
		"": true, " ": true, "parentbased_always_on": true, "parentbased_traceidratio": true, "parentbased_always_off": true,
		"always_on": false, "always_off": false, "traceidratio": false, "jaeger_remote": false,
	} {
		if got := samplerFollowsParent(sampler); got != want {
			t.Errorf("samplerFollowsParent(%q) = %v, want %v", sampler, got, want)
		}
	}
}

// The export error handler logs the first failure, then at most one a
// minute, with the count of those it did not log.
func TestExportErrorsRateLimited(t *testing.T) {
	var logs bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &exportErrors{
		logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime})),
		now:    func() time.Time { return now },
	}
	fail := errors.New("failed to upload metrics: connection refused")
	for range 5 {
		h.Handle(fail)
	}
	now = now.Add(59 * time.Second)
	h.Handle(fail)
	now = now.Add(time.Second)
	h.Handle(fail)
	h.Handle(fail)
	want := `level=WARN msg="mcpkit serve: --otel: cannot export telemetry; what cannot be sent is dropped (this is logged again at most once a minute)" err="failed to upload metrics: connection refused"` + "\n" +
		`level=WARN msg="mcpkit serve: --otel: still cannot export telemetry" err="failed to upload metrics: connection refused" failures_not_logged=5` + "\n"
	if logs.String() != want {
		t.Errorf("logs =\n%s\nwant\n%s", logs.String(), want)
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// otelServe runs `mcpkit tools call echo -- mcpkit serve --otel` with
// the built binary and the OpenTelemetry variables given (the test's own
// OTEL_* variables removed), and returns the client's stdout and stderr,
// which holds the server's.
func otelServe(t *testing.T, env ...string) (stdout, stderr string) {
	t.Helper()
	bin := builtMcpkit(t)
	for _, v := range os.Environ() {
		if name, _, _ := strings.Cut(v, "="); strings.HasPrefix(name, "OTEL_") {
			env = append([]string{name + "="}, env...)
		}
	}
	code, stdout, stderr := runBuilt(t, env, "tools", "call", "echo", "--args", `{"text":"hi"}`, "--", bin, "serve", "--otel", "--log-level", "warn")
	if code != 0 || stdout != "hi\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0, \"hi\\n\"", code, stdout, stderr)
	}
	return stdout, stderr
}

// With no OTEL_EXPORTER_OTLP_ENDPOINT, serve --otel exports to
// http://localhost:4318, in plain HTTP, as docs/observability.md says.
func TestServeOTelDefaultEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("port 4318 is taken, so the default endpoint cannot be checked: %v", err)
		}
		t.Skipf("port 4318 is taken: %v", err)
	}
	col := &collector{bodies: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewUnstartedServer(col)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	_, stderr := otelServe(t)
	col.mu.Lock()
	defer col.mu.Unlock()
	if !bytes.Contains(col.bodies["/v1/traces"], []byte("tools/call echo")) || len(col.bodies["/v1/metrics"]) == 0 {
		t.Errorf("the collector at http://localhost:4318 got %d bytes of traces and %d of metrics; stderr %q", len(col.bodies["/v1/traces"]), len(col.bodies["/v1/metrics"]), stderr)
	}
}

// A collector that cannot be reached is said once, not at every export.
func TestServeOTelUnreachableOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, stderr := otelServe(t, "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+closed, "OTEL_METRIC_EXPORT_INTERVAL=10", "OTEL_BSP_SCHEDULE_DELAY=10")
	n := 0
	for line := range strings.Lines(stderr) {
		switch {
		case strings.Contains(line, `msg="mcpkit serve: --otel: cannot export telemetry; what cannot be sent is dropped (this is logged again at most once a minute)"`) && strings.Contains(line, closed):
			n++
		case strings.Contains(line, closed) || strings.Contains(line, "failed to upload"):
			t.Errorf("another line about the export: %q", line)
		}
	}
	if n != 1 {
		t.Errorf("%d lines say the collector cannot be reached, want 1; stderr %q", n, stderr)
	}
}

// OTEL_TRACES_EXPORTER=console writes the spans on stderr (stdout is
// the protocol's: the call still works); none exports nothing.
func TestServeOTelConsole(t *testing.T) {
	_, stderr := otelServe(t, "OTEL_TRACES_EXPORTER=console", "OTEL_METRICS_EXPORTER=none", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9")
	span := regexp.MustCompile(`(?m)^otel span "tools/call echo" trace_id=[0-9a-f]{32} span_id=[0-9a-f]{16} kind=server duration=\S+ status=Unset .*gen_ai\.tool\.name="echo"`)
	if !span.MatchString(stderr) {
		t.Errorf("stderr %q lacks the span of the call", stderr)
	}
	if strings.Contains(stderr, "otel metric") || strings.Contains(stderr, "cannot export") {
		t.Errorf("stderr %q: metrics or an export error with OTEL_METRICS_EXPORTER=none", stderr)
	}
	_, stderr = otelServe(t, "OTEL_METRICS_EXPORTER=console", "OTEL_TRACES_EXPORTER=none")
	if !strings.Contains(stderr, "otel metric mcp.server.operation.duration") || strings.Contains(stderr, "otel span") || strings.Contains(stderr, "cannot export") {
		t.Errorf("OTEL_METRICS_EXPORTER=console: stderr %q", stderr)
	}
}

// An exporter the CLI does not know is refused before anything is served.
func TestServeOTelExporterUnknown(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	code, stdout, stderr := runCLI(t, "", "serve", "--otel")
	if want := "mcpkit: --otel: OTEL_TRACES_EXPORTER=zipkin: want otlp, console or none (a comma-separated list of the first two)\n"; code != 1 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, stdout, stderr, want)
	}
}
