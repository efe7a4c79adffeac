package main

import (
	"strings"
	"testing"
)

// TestServeHTTPAndURL runs `mcpkit serve --http 127.0.0.1:0` in-process and
// talks to it with the client verbs' --url, then stops it the way SIGINT
// does (its context ends) and checks that it shuts down cleanly.
func TestServeHTTPAndURL(t *testing.T) {
	srv := startServeHTTP(t)
	url := srv.find(t, `url=(http://127\.0\.0\.1:\d+/mcp)`)

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

	srv.end(t)
	if rest := srv.logs.rest(); !strings.Contains(rest, `msg="mcpkit serve: stopped"`) {
		t.Errorf("logs %q lack the stop line", rest)
	}
}
