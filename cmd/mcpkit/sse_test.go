package main

import (
	"strings"
	"testing"
)

// `mcpkit serve --http` serves the 2024-11-05 HTTP+SSE transport at /sse
// beside Streamable HTTP, and the client verbs reach it with --url alone:
// the Streamable HTTP client falls back to it by itself.
func TestServeHTTPSSE(t *testing.T) {
	srv := startServeHTTP(t)
	url := srv.find(t, `http_sse=(http://127\.0\.0\.1:\d+/sse)`)
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
	srv.end(t)

	// --sse-path "" serves Streamable HTTP alone.
	alone := startServeHTTP(t, "--sse-path", "")
	if !strings.Contains(alone.first, `http_sse=""`) {
		t.Errorf("--sse-path \"\": log line %q", alone.first)
	}
	alone.end(t)
}
