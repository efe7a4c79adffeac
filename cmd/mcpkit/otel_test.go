package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
