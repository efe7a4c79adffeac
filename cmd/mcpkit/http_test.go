package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeHTTPAndURL runs `mcpkit serve --http 127.0.0.1:0` in-process and
// talks to it with the client verbs' --url, then stops it the way SIGINT
// does (its context ends) and checks that it shuts down cleanly.
func TestServeHTTPAndURL(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 16)}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--http", "127.0.0.1:0"}, strings.NewReader(""), &lineWriter{lines: make(chan string, 1)}, logs)
	}()
	urlPattern := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)
	var url string
	select {
	case line := <-logs.lines:
		m := urlPattern.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first log line %q names no url", line)
		}
		url = m[1]
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http logged nothing")
	}

	c, out, errOut := runCLI(t, "", "tools", "call", "echo", "--args", `{"text":"hi"}`, "--url", url)
	if c != 0 || out != "hi\n" {
		t.Errorf("tools call --url: exit %d, stdout %q, stderr %q; want 0, \"hi\\n\"", c, out, errOut)
	}
	c, out, errOut = runCLI(t, "", "tools", "list", "--url", url)
	if c != 0 || !strings.Contains(out, "echo") {
		t.Errorf("tools list --url: exit %d, stdout %q, stderr %q", c, out, errOut)
	}
	c, _, errOut = runCLI(t, "", "tools", "list", "--url", url, "--", "mcpkit", "serve")
	if c != exitUsage || !strings.Contains(errOut, "either --url or a command") {
		t.Errorf("--url with a command: exit %d, stderr %q", c, errOut)
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
	if rest := logs.rest(); !strings.Contains(rest, `msg="mcpkit serve: stopped"`) {
		t.Errorf("logs %q lack the stop line", rest)
	}
}
