package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// `mcpkit serve --http` serves the 2024-11-05 HTTP+SSE transport at /sse
// beside Streamable HTTP, and the client verbs reach it with --url alone:
// the Streamable HTTP client falls back to it by itself.
func TestServeHTTPSSE(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 16)}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--http", "127.0.0.1:0"}, strings.NewReader(""), &lineWriter{lines: make(chan string, 1)}, logs)
	}()
	ssePattern := regexp.MustCompile(`http_sse=(http://127\.0\.0\.1:\d+/sse)`)
	var url string
	select {
	case line := <-logs.lines:
		m := ssePattern.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first log line %q names no http_sse url", line)
		}
		url = m[1]
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http logged nothing")
	}
	c, out, errOut := runCLI(t, "", "tools", "call", "echo", "--args", `{"text":"hi"}`, "--url", url)
	if c != 0 || out != "hi\n" {
		t.Errorf("tools call --url %s: exit %d, stdout %q, stderr %q; want 0, \"hi\\n\"", url, c, out, errOut)
	}
	c, out, errOut = runCLI(t, "", "tools", "list", "--url", url)
	if c != 0 || !strings.Contains(out, "echo") {
		t.Errorf("tools list --url %s: exit %d, stdout %q, stderr %q", url, c, out, errOut)
	}
	c, out, errOut = runCLI(t, "", "prompts", "list", "--url", url)
	if c != 0 || out == "" {
		t.Errorf("prompts list --url %s: exit %d, stdout %q, stderr %q", url, c, out, errOut)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("serve --http exit %d, logs %q", c, logs.rest())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not stop when its context ended")
	}

	// --sse-path "" serves Streamable HTTP alone.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	logs2 := &lineWriter{lines: make(chan string, 16)}
	go func() {
		code <- run(ctx2, []string{"serve", "--http", "127.0.0.1:0", "--sse-path", ""}, strings.NewReader(""), &lineWriter{lines: make(chan string, 1)}, logs2)
	}()
	select {
	case line := <-logs2.lines:
		if !strings.Contains(line, `http_sse=""`) {
			t.Errorf("--sse-path \"\": log line %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http logged nothing")
	}
	cancel2()
	<-code
}
