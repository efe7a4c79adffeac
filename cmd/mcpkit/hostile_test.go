package main

// Tests of the CLI against careless servers and clients: servers without
// resources or prompts, servers that never answer, a closed stderr, and
// signals.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// testServers are the servers the test binary plays when started as
// "mcpkit NAME ARGS...", besides mcpkit itself.
var testServers = map[string]func(args []string){
	// test-silent-server reads its stdin to the end and never answers;
	// with --ready it first says so on stderr.
	"test-silent-server": func(args []string) {
		if len(args) > 0 && args[0] == "--ready" {
			fmt.Fprintln(os.Stderr, "silent server ready")
		}
		io.Copy(io.Discard, os.Stdin)
	},
	// test-tools-server offers one tool and nothing else: no resources,
	// no prompts.
	"test-tools-server": func([]string) {
		s := mcp.NewServer(mcp.Implementation{Name: "tools-only", Version: "1"}, nil)
		if err := mcp.AddTool(s, &mcp.Tool{Name: "hello", Description: "says hello"}, func(context.Context, *mcp.Request, struct{}) (string, error) {
			return "hello", nil
		}); err != nil {
			panic(err)
		}
		s.Run(context.Background(), &mcp.StdioTransport{})
	},
}

// selfCommand is the test binary playing mcpkit with args.
func selfCommand(t *testing.T, args ...string) []string {
	t.Helper()
	return append(serverCommand(t)[:1], args...)
}

// A server without the resources or prompts capability has none: the
// list verbs say so ("none", exit 0) instead of failing with
// -32601.
func TestListWithoutCapability(t *testing.T) {
	server := selfCommand(t, "test-tools-server")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"resources", "list"}, "none (the server offers no resources or resource templates)\n"},
		{[]string{"resources", "list", "--json"}, `{"resourceTemplates":[],"resources":[]}` + "\n"},
		{[]string{"resources", "list", "--era", "legacy"}, "none (the server offers no resources or resource templates)\n"},
		{[]string{"resources", "list", "--era", "legacy", "--json"}, `{"resourceTemplates":[],"resources":[]}` + "\n"},
		{[]string{"prompts", "list"}, "none (the server offers no prompts)\n"},
		{[]string{"prompts", "list", "--json"}, `{"prompts":[]}` + "\n"},
		{[]string{"prompts", "list", "--era", "legacy", "--json"}, `{"prompts":[]}` + "\n"},
		{[]string{"tools", "list", "--era", "legacy"}, "hello  says hello\n"},
	} {
		args := append(append(tc.args, "--"), server...)
		code, out, errOut := runCLI(t, "", args...)
		if code != 0 || out != tc.want || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q, \"\"", tc.args, code, out, errOut, tc.want)
		}
	}
}

// A server that never answers makes a client verb fail after --timeout,
// with exit status 1 and a message that says so.
func TestClientTimeout(t *testing.T) {
	for _, era := range []string{"auto", "legacy", "modern"} {
		args := append([]string{"tools", "list", "--era", era, "--timeout", "50ms", "--"}, selfCommand(t, "test-silent-server")...)
		code, out, errOut := runCLI(t, "", args...)
		want := "mcpkit: timed out: the server did not answer within 50ms (see --timeout)\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("--era %s: exit %d, stdout %q, stderr %q; want 1, \"\", %q", era, code, out, errOut, want)
		}
	}
}

// startCLI starts the test binary as mcpkit with args, its stdout and
// stderr piped to the test.
func startCLI(t *testing.T, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout, stderr *bufio.Reader) {
	t.Helper()
	cmd = exec.Command(selfCommand(t)[0], args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, in, bufio.NewReader(out), bufio.NewReader(errPipe)
}

// waitExit waits for cmd to exit, at most the watchdog, and returns its
// exit status.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not exit", cmd.Args)
	}
	return cmd.ProcessState.ExitCode()
}

// Ctrl-C stops a client verb with exit status 130.
func TestClientInterrupt(t *testing.T) {
	cmd, stdin, _, stderr := startCLI(t, append([]string{"tools", "list", "--"}, selfCommand(t, "test-silent-server", "--ready")...)...)
	defer stdin.Close()
	if line, err := stderr.ReadString('\n'); err != nil || line != "silent server ready\n" {
		t.Fatalf("stderr line %q, %v; want the server's readiness", line, err)
	}
	// The server started, so mcpkit is waiting for it with its signal
	// handler installed.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	if code := waitExit(t, cmd); code != 130 || string(rest) != "mcpkit: interrupted\n" {
		t.Errorf("exit %d, rest of stderr %q; want 130, %q", code, rest, "mcpkit: interrupted\n")
	}
}

// mcpkit serve goes on serving when its stderr is closed (as mcp-go's
// stdio client does on Close): logging fails quietly instead of killing
// the process with SIGPIPE.
func TestServeWithClosedStderr(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // every write to the server's stderr now gets EPIPE
	cmd := exec.Command(selfCommand(t)[0], "serve", "--log-level", "debug")
	cmd.Stderr = w
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	out := bufio.NewReader(outPipe)
	exchange := func(request, want string) {
		t.Helper()
		if _, err := io.WriteString(in, request+"\n"); err != nil {
			t.Fatalf("writing %s: %v", request, err)
		}
		if want == "" {
			return
		}
		line, err := out.ReadString('\n')
		if err != nil || line != want+"\n" {
			t.Fatalf("answer %q, %v; want %s", line, err, want)
		}
	}
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true},"io.modelcontextprotocol/ui":{}}},"serverInfo":{"name":"mcpkit-everything","title":"mcpkit reference server","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite."}}}`)
	exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")
	exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	in.Close()
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Errorf("more on stdout: %q", rest)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d (%v), want 0", code, cmd.ProcessState)
	}
}

// serveHTTPProcess starts `mcpkit serve --http 127.0.0.1:0` with extra
// flags and returns it and its endpoint's URL.
func serveHTTPProcess(t *testing.T, flags ...string) (*exec.Cmd, string, *bufio.Reader) {
	t.Helper()
	cmd, stdin, _, stderr := startCLI(t, append([]string{"serve", "--http", "127.0.0.1:0"}, flags...)...)
	t.Cleanup(func() { stdin.Close() })
	line, err := stderr.ReadString('\n')
	m := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("first log line %q, %v: no url", line, err)
	}
	return cmd, m[1], stderr
}

// SIGTERM stops `mcpkit serve --http` with exit status 0 even while a
// client holds a GET stream open without reading it; and a request with
// headers over --max-header-bytes is refused with 431.
func TestServeHTTPShutdown(t *testing.T) {
	cmd, url, stderr := serveHTTPProcess(t, "--shutdown-timeout", "2s", "--max-header-bytes", "1024")
	go io.Copy(io.Discard, stderr)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()

	post := func(body, session string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: HTTP %d, session %q", resp.StatusCode, session)
	}
	resp = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: HTTP %d, want 202", resp.StatusCode)
	}

	big, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	big.Header.Set("X-Big", strings.Repeat("b", 16<<10))
	resp, err := hc.Do(big)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB of headers: HTTP %d, want 431", resp.StatusCode)
	}

	get, _ := http.NewRequest(http.MethodGet, url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", session)
	get.Header.Set("MCP-Protocol-Version", "2025-11-25")
	stream, err := hc.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close() // never read
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", stream.StatusCode)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d (%v), want 0", code, cmd.ProcessState)
	}
}
