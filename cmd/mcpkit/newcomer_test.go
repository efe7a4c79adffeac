package main

// Tests of the defaults and messages a newcomer meets (issue 29, items
// 3 to 8), each running the built mcpkit as a user does.

import (
	"bytes"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// runBuilt runs the built mcpkit with args and the user's environment
// plus env, and returns its exit status and output. It waits at most a
// minute.
func runBuilt(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(builtMcpkit(t), args...)
	cmd.Env = userEnv(env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return waitExit(t, cmd), out.String(), errOut.String()
}

// A mistake in --http, or an --sse-path that the other flags turn off,
// is a command-line mistake: exit status 2, a message that says what to
// give instead, and the usage hint.
func TestServeHTTPFlagMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "8080"}, `mcpkit: serve: --http "8080": want HOST:PORT; did you mean 127.0.0.1:8080 or :8080?`},
		{[]string{"--http", "localhost"}, `mcpkit: serve: --http "localhost": want HOST:PORT, such as 127.0.0.1:8080 (missing port in address)`},
		{[]string{"--http", "127.0.0.1:0", "--stateless", "--sse-path", "/sse"}, `mcpkit: serve: --sse-path "/sse" does not go with --stateless: the HTTP+SSE transport keeps a session per stream (give one of the two)`},
		{[]string{"--http", "127.0.0.1:0", "--auth-issuer", "http://127.0.0.1:9", "--sse-path", "/old"}, `mcpkit: serve: --sse-path "/old" does not go with --auth-issuer: the HTTP+SSE transport has no authorization (give one of the two)`},
	} {
		code, out, errOut := runBuilt(t, nil, append([]string{"serve"}, tc.args...)...)
		want := tc.want + "\nRun 'mcpkit help serve' for usage.\n"
		if code != exitUsage || out != "" || errOut != want {
			t.Errorf("serve %q: exit %d, stdout %q, stderr %q; want 2, \"\", %q", tc.args, code, out, errOut, want)
		}
	}
}

// --redis HOST:PORT (what scripts/redis.sh prints) is redis://HOST:PORT,
// and go-redis's own log lines go through the server's logger.
func TestServeRedisHostPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	code, out, errOut := runBuilt(t, nil, "serve", "--http", "127.0.0.1:0", "--log-level", "warn", "--redis", closed, "--redis-timeout", "1s")
	want := "mcpkit: serve: Redis at redis://" + closed + " did not answer PING within --redis-timeout 1s: "
	if code != exitError || out != "" || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
	for line := range strings.Lines(errOut) {
		if !strings.HasPrefix(line, "time=") && !strings.HasPrefix(line, want) {
			t.Errorf("a line of stderr that is not mcpkit's: %q", line)
		}
	}
	if !strings.Contains(errOut, `level=WARN msg="mcpkit serve: redis: connection pool: failed to dial`) {
		t.Errorf("stderr %q lacks go-redis's dial failure as a log record", errOut)
	}
}

// tools call: a missing tool name with --url says what is missing and
// the usage; an unknown tool points to tools list with the same server;
// a "server" that prints something else than JSON-RPC on stdout is told
// apart, with what it printed.
func TestToolsCallMessages(t *testing.T) {
	bin := builtMcpkit(t)
	code, out, errOut := runBuilt(t, nil, "tools", "call", "--url", "http://127.0.0.1:9/mcp")
	want := "mcpkit: tools call: want exactly one tool name, got 0 arguments\nusage: mcpkit tools call NAME [--args JSON] [--json] (--url URL [--header NAME:VALUE]... | -- COMMAND [ARG...])\nRun 'mcpkit help tools call' for usage.\n"
	if code != exitUsage || out != "" || errOut != want {
		t.Errorf("no tool name: exit %d, stdout %q, stderr %q; want 2, \"\", %q", code, out, errOut, want)
	}

	code, out, errOut = runBuilt(t, nil, "tools", "call", "nosuch", "--", bin, "serve", "--log-level", "warn")
	want = `mcpkit: tools/call nosuch: jsonrpc error -32602: Invalid params: "Unknown tool: nosuch"; see ` + "`mcpkit tools list -- " + bin + " serve --log-level warn`" + " for the tools it offers\n"
	if code != exitError || out != "" || errOut != want {
		t.Errorf("unknown tool: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}

	script := `printf 'Hello from a\tshell script \033[1m%s\n' "$(printf '%080d' 0)"`
	code, out, errOut = runBuilt(t, nil, "tools", "list", "--", "sh", "-c", script)
	want = "mcpkit: `sh -c " + shellQuote(script) + "` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: " +
		strconv.Quote("Hello from a\tshell script \x1b[1m"+strings.Repeat("0", 64-len("Hello from a\tshell script \x1b[1m"))) + "..." +
		" (the start of its first such line); it then exited with status 0 before answering initialize: is it an MCP server on stdio?\n"
	if code != exitError || out != "" || errOut != want {
		t.Errorf("not JSON-RPC: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
}
