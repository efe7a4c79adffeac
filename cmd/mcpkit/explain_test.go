package main

// Tests of the CLI explaining itself: help on every command, version,
// --header, progress, tools list's arguments, and its error messages.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Every command and subcommand has help: `mcpkit help CMD`, CMD --help,
// CMD -h and CMD -help all print the same text on stdout, exit 0, which
// names the command and lists every one of its flags.
func TestHelpEveryCommand(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	if len(helpTopics) != 23 {
		t.Errorf("%d help topics, want 23 (every command, subcommand and group)", len(helpTopics))
	}
	for topic := range helpTopics {
		words := strings.Fields(topic)
		code, want, errOut := runCLI(t, "", append([]string{"help"}, words...)...)
		named := strings.HasPrefix(want, "Usage:\n  mcpkit "+topic+" ") || strings.HasPrefix(want, "Usage:\n  mcpkit "+topic+"\n")
		if code != 0 || errOut != "" || !named {
			t.Errorf("help %s: exit %d, stderr %q, stdout %q", topic, code, errOut, want)
			continue
		}
		for _, flag := range []string{"--help", "-h", "-help"} {
			args := append(append([]string{}, words...), flag) // for help: help --help
			code, out, errOut := runCLI(t, "", args...)
			if code != 0 || errOut != "" || out != want {
				t.Errorf("%q: exit %d, stderr %q, stdout\n%s\nwant the output of help %s:\n%s", args, code, errOut, out, topic, want)
			}
		}
	}
	// Each verb's help lists each of its flags.
	for _, tc := range []struct {
		topic string
		flags []string
	}{
		{"tools list", []string{"json", "url", "header", "era", "timeout", "max-timeout", "client-id", "client-secret", "auth-auto-approve"}},
		{"tools call", []string{"args", "json", "url", "header", "era", "timeout", "max-timeout", "client-id", "client-secret", "auth-auto-approve"}},
		{"resources list", []string{"json", "url", "header", "era", "timeout", "max-timeout"}},
		{"resources read", []string{"json", "url", "header", "era", "timeout", "max-timeout"}},
		{"prompts list", []string{"json", "url", "header", "era", "timeout", "max-timeout"}},
		{"prompts get", []string{"args", "json", "url", "header", "era", "timeout", "max-timeout"}},
		{"skills list", []string{"json", "url", "header", "era", "timeout", "max-timeout"}},
		{"skills get", []string{"json", "url", "header", "era", "timeout", "max-timeout"}},
		{"skills pull", []string{"dir", "label", "url", "header", "era", "timeout", "max-timeout"}},
		{"auth login", []string{"url", "header", "client-id", "client-secret", "auth-auto-approve"}},
		{"auth logout", []string{"url"}},
		{"serve", []string{"log-level", "http", "path", "stateless", "json-response", "allowed-origin", "max-sessions", "idle-timeout", "conn-idle-timeout", "read-header-timeout", "max-header-bytes", "shutdown-timeout", "auth-issuer"}},
		{"dev-auth-server", []string{"addr", "subject", "key"}},
	} {
		_, out, _ := runCLI(t, "", append(strings.Fields(tc.topic), "--help")...)
		for _, f := range tc.flags {
			if !regexp.MustCompile(`(?m)^  --` + f + `( |$)`).MatchString(out) {
				t.Errorf("%s --help lacks --%s:\n%s", tc.topic, f, out)
			}
		}
	}
}

// A group's help lists its subcommands; a client verb's help explains
// --era with its three values (the old names legacy and modern are
// accepted but not shown); serve's help shows its layout and limits.
func TestHelpText(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	code, out, errOut := runCLI(t, "", "tools", "--help")
	want := `Usage:
  mcpkit tools list|call ...

List or call the tools of an MCP server
(https://modelcontextprotocol.io/specification/2025-11-25/server/tools).

Subcommands:
  call  call a tool with the JSON object --args as arguments
  list  list the tools, each with its arguments

Run 'mcpkit help tools SUBCOMMAND' for the flags of each.
`
	if code != 0 || out != want || errOut != "" {
		t.Errorf("tools --help: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errOut, out, want)
	}

	code, out, errOut = runCLI(t, "", "tools", "call", "--help")
	wantEra := `
Server:
  --url URL
        talk to the Streamable HTTP server at URL (such as
        http://127.0.0.1:8080/mcp)
  --header NAME:VALUE
        with --url, send the HTTP header NAME:VALUE on every request
        (repeatable); an Authorization header turns off mcpkit's own OAuth login
  --era auto|session|stateless
        the protocol era to speak:
          auto: ask with server/discover (2026-07-28) and fall back to
          initialize, so any server works
          session: initialize a session first, as servers of 2025-11-25 and
          older expect
          stateless: 2026-07-28 only, no handshake: every request stands alone
        (default auto)
`
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage:\n  mcpkit tools call NAME [--args JSON] [--json] (--url URL [--header NAME:VALUE]... | -- COMMAND [ARG...])\n\n") ||
		!strings.Contains(out, "\nFlags:\n  --args OBJECT\n        the tool's arguments, a JSON OBJECT; if empty, none are sent\n") ||
		!strings.Contains(out, wantEra) || strings.Contains(out, "legacy") || strings.Contains(out, "modern") {
		t.Errorf("tools call --help: exit %d, stderr %q, stdout\n%s\nwant it to contain\n%s", code, errOut, out, wantEra)
	}

	_, out, _ = runCLI(t, "", "serve", "--help")
	for _, part := range []string{
		"Usage:\n  mcpkit serve [--log-level LEVEL] [--http ADDR [layout and limit flags] [--redis URL | --redis-cluster ADDRS]]\n",
		"\nLayout, with --http:\n  --http ADDR\n        serve Streamable HTTP on ADDR (such as 127.0.0.1:8080) instead of stdio\n  --path PATH\n        with --http, the PATH of the MCP endpoint (default /mcp)\n",
		"\nLimits, with --http:\n  --max-sessions int\n        with --http, the most sessions open at once (default 10000)\n",
		"  --max-header-bytes int\n        with --http, the most bytes of headers a request may have (431 past it)\n        (default 262144)\n",
		"  --shutdown-timeout duration\n",
	} {
		if !strings.Contains(out, part) {
			t.Errorf("serve --help lacks\n%s\nin\n%s", part, out)
		}
	}

	// The old names of the eras still work.
	for _, era := range []string{"legacy", "modern", "session", "stateless"} {
		code, out, errOut := client(t, "tools", "call", "echo", "--era", era, "--args", `{"text":"hi"}`)
		if code != 0 || out != "hi\n" || errOut != "" {
			t.Errorf("--era %s: exit %d, stdout %q, stderr %q", era, code, out, errOut)
		}
	}
}

// help of a command that does not exist is a usage error.
func TestHelpUnknown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "nosuch"}, "mcpkit: help: no command \"nosuch\": the commands are serve, tools, resources, prompts, skills, card, auth, dev-auth-server, inspect, version, help\nRun 'mcpkit help' for usage.\n"},
		{[]string{"help", "tools", "frob"}, "mcpkit: help: no command \"tools frob\": the commands are serve, tools, resources, prompts, skills, card, auth, dev-auth-server, inspect, version, help\nRun 'mcpkit help' for usage.\n"},
		{[]string{"help", "tools", "list", "x"}, "mcpkit: help: no command \"tools list x\": the commands are serve, tools, resources, prompts, skills, card, auth, dev-auth-server, inspect, version, help\nRun 'mcpkit help' for usage.\n"},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		if code != 2 || out != "" || errOut != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, \"\", %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// With no command, help is mcpkit's.
	code, out, errOut := runCLI(t, "", "help")
	if code != 0 || out != usage || errOut != "" {
		t.Errorf("help: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// mcpkit version prints the module version, "(devel)" when there is
// none, and the Go version and platform.
func TestVersion(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bi, ok := debug.ReadBuildInfo()
	code, out, errOut := runCLI(t, "", "version")
	if want := versionLine(bi, ok) + "\n"; code != 0 || out != want || errOut != "" {
		t.Errorf("version: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, want)
	}
	if !regexp.MustCompile(`^mcpkit \S+ \(go\S+, ` + runtime.GOOS + `/` + runtime.GOARCH + `\)\n$`).MatchString(out) {
		t.Errorf("version: %q", out)
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/mcpkit/mcpkit", Version: "v1.2.3"}}, true, "mcpkit v1.2.3 (go1.26.1, " + platform + ")"},
		{&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/mcpkit/mcpkit", Version: "(devel)"}}, true, "mcpkit (devel) (go1.26.1, " + platform + ")"},
		{&debug.BuildInfo{GoVersion: "go1.26.1"}, true, "mcpkit (devel) (go1.26.1, " + platform + ")"},
		{nil, false, "mcpkit (devel) (" + runtime.Version() + ", " + platform + ")"},
	} {
		if got := versionLine(tc.bi, tc.ok); got != tc.want {
			t.Errorf("versionLine(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
	code, out, errOut = runCLI(t, "", "version", "extra")
	if code != 2 || out != "" || errOut != "mcpkit: version: unexpected argument \"extra\"\nRun 'mcpkit help version' for usage.\n" {
		t.Errorf("version extra: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// headerServer is the reference server over Streamable HTTP at /mcp on
// 127.0.0.1; it notes the headers of every request, and answers 401 to
// those without "Authorization: Bearer good" when auth is set.
type headerServer struct {
	*httptest.Server
	h    *mcphttp.Handler
	mu   sync.Mutex
	seen []http.Header // in arrival order
}

func newHeaderServer(t *testing.T, requireAuth bool) *headerServer {
	t.Helper()
	s := &headerServer{h: mcphttp.NewHandler(everything.NewServer(nil), nil)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Header.Clone())
		s.mu.Unlock()
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		if requireAuth && r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		s.h.ServeHTTP(w, r)
	}))
	return s
}

// close stops the server; tests defer it, so that it runs before their
// goroutine leak check.
func (s *headerServer) close() {
	s.Server.Close()
	s.h.Close()
}

func (s *headerServer) headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// --header adds its header to every request to the server, in both eras;
// with an Authorization header, a 401 is an error, not a login.
func TestHeaderFlag(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	authEnv(t)
	for _, era := range []string{"session", "stateless", "auto"} {
		s := newHeaderServer(t, true)
		defer s.close()
		code, out, errOut := runCLI(t, "", "tools", "call", "echo", "--args", `{"text":"hi"}`, "--era", era, "--url", s.URL+"/mcp",
			"--header", "Authorization: Bearer good", "--header", "X-Tenant:acme", "--header", "x-multi: 1", "--header", "X-Multi:2 ")
		if code != 0 || out != "hi\n" || errOut != "" {
			t.Errorf("--era %s: exit %d, stdout %q, stderr %q; want 0, \"hi\\n\", \"\"", era, code, out, errOut)
		}
		seen := s.headers()
		if len(seen) < 2 {
			t.Errorf("--era %s: %d requests", era, len(seen))
		}
		for i, h := range seen {
			if h.Get("Authorization") != "Bearer good" || h.Get("X-Tenant") != "acme" || !slices.Equal(h.Values("X-Multi"), []string{"1", "2"}) {
				t.Errorf("--era %s: request %d of %d has headers %v", era, i+1, len(seen), h)
			}
		}
		s.close()
	}

	// A refused Authorization header is the answer: no OAuth login.
	s := newHeaderServer(t, true)
	defer s.close()
	code, out, errOut := runCLI(t, "", "tools", "list", "--era", "session", "--url", s.URL+"/mcp", "--header", "Authorization: Bearer bad")
	want := fmt.Sprintf("mcpkit: connecting to %s/mcp: the server answered HTTP 401 (Unauthorized) to initialize: not authorized by the --header Authorization given\n", s.URL)
	if code != 1 || out != "" || errOut != want {
		t.Errorf("bad token: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
	if n := len(s.headers()); n != 1 {
		t.Errorf("bad token: %d requests, want 1 (no login attempt)", n)
	}
}

// A failed connection says each thing once: the server, then the cause,
// with a hint for the usual mistakes; exit status 1.
func TestConnectErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	authEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there now
	s := newHeaderServer(t, false)
	defer s.close()
	notFound := s.URL + "/nope"

	type want struct{ auto, session, stateless string }
	for _, tc := range []struct {
		name   string
		server []string // --url URL, or -- COMMAND
		want   want
	}{
		{"unreachable URL", []string{"--url", closed}, want{
			auto:      "mcpkit: connecting to " + closed + ": dial tcp " + ln.Addr().String() + ": connect: connection refused\n",
			session:   "mcpkit: connecting to " + closed + ": dial tcp " + ln.Addr().String() + ": connect: connection refused\n",
			stateless: "mcpkit: connecting to " + closed + ": dial tcp " + ln.Addr().String() + ": connect: connection refused\n",
		}},
		{"404", []string{"--url", notFound}, want{
			auto:      "mcpkit: connecting to " + notFound + ": the server answered HTTP 404 (Not Found) to initialize: is this the URL of its MCP endpoint?\n",
			session:   "mcpkit: connecting to " + notFound + ": the server answered HTTP 404 (Not Found) to initialize: is this the URL of its MCP endpoint?\n",
			stateless: "mcpkit: connecting to " + notFound + ": the server answered HTTP 404 (Not Found) to server/discover: is this the URL of its MCP endpoint?\n",
		}},
		{"child that prints", []string{"--", "sh", "-c", "echo hello"}, want{
			auto:      "mcpkit: `sh -c 'echo hello'` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: \"hello\" (the start of its first such line); it then exited with status 0 before answering initialize: is it an MCP server on stdio?\n",
			session:   "mcpkit: `sh -c 'echo hello'` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: \"hello\" (the start of its first such line); it then exited with status 0 before answering initialize: is it an MCP server on stdio?\n",
			stateless: "mcpkit: `sh -c 'echo hello'` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: \"hello\" (the start of its first such line); it then exited with status 0 before answering server/discover: is it an MCP server on stdio?\n",
		}},
		{"child that exits", []string{"--", "true"}, want{
			auto:      "mcpkit: `true` exited with status 0 before answering initialize: is it an MCP server on stdio?\n",
			session:   "mcpkit: `true` exited with status 0 before answering initialize: is it an MCP server on stdio?\n",
			stateless: "mcpkit: `true` exited with status 0 before answering server/discover: is it an MCP server on stdio?\n",
		}},
		{"child that fails", []string{"--", "sh", "-c", "echo one; echo two; exit 3"}, want{
			auto:      "mcpkit: `sh -c 'echo one; echo two; exit 3'` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: \"one\" (the start of its first such line); it then exited with status 3 before answering initialize: is it an MCP server on stdio?\n",
			session:   "mcpkit: `sh -c 'echo one; echo two; exit 3'` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: \"one\" (the start of its first such line); it then exited with status 3 before answering initialize: is it an MCP server on stdio?\n",
			stateless: "mcpkit: `sh -c 'echo one; echo two; exit 3'` wrote something that is not JSON-RPC on its stdout, where only MCP messages may go: \"one\" (the start of its first such line); it then exited with status 3 before answering server/discover: is it an MCP server on stdio?\n",
		}},
		{"missing command", []string{"--", "/nonexistent/server"}, want{
			auto:      "mcpkit: cannot start `/nonexistent/server`: no such file or directory\n",
			session:   "mcpkit: cannot start `/nonexistent/server`: no such file or directory\n",
			stateless: "mcpkit: cannot start `/nonexistent/server`: no such file or directory\n",
		}},
		{"command not on PATH", []string{"--", "mcpkit-no-such-command"}, want{
			auto:      "mcpkit: cannot start `mcpkit-no-such-command`: executable file not found in $PATH\n",
			session:   "mcpkit: cannot start `mcpkit-no-such-command`: executable file not found in $PATH\n",
			stateless: "mcpkit: cannot start `mcpkit-no-such-command`: executable file not found in $PATH\n",
		}},
	} {
		for era, want := range map[string]string{"auto": tc.want.auto, "session": tc.want.session, "stateless": tc.want.stateless} {
			args := append([]string{"tools", "list", "--era", era}, tc.server...)
			code, out, errOut := runCLI(t, "", args...)
			if code != 1 || out != "" || errOut != want {
				t.Errorf("%s, --era %s: exit %d, stdout %q, stderr\n\t%q\nwant 1, \"\",\n\t%q", tc.name, era, code, out, errOut, want)
			}
		}
	}
}

// --args that is not JSON is a syntax error, said where it is, exit 2,
// before any server is started; arguments that are JSON but do not fit
// the tool's schema are the server's refusal, exit 1.
func TestArgsErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "call", "echo", "--args", `{"text":}`},
			"mcpkit: tools call: --args is not valid JSON: line 1, column 9: invalid character '}' looking for beginning of value\n\t{\"text\":}\n\t        ^\nRun 'mcpkit help tools call' for usage.\n"},
		{[]string{"tools", "call", "echo", "--args", "{\"a\": 1,\n\t\"text\": hi}"},
			"mcpkit: tools call: --args is not valid JSON: line 2, column 10: invalid character 'h' looking for beginning of value\n\t\t\"text\": hi}\n\t\t        ^\nRun 'mcpkit help tools call' for usage.\n"},
		{[]string{"tools", "call", "echo", "--args", `{"text":"hi"`},
			"mcpkit: tools call: --args is not valid JSON: line 1, column 13: unexpected end of JSON input\n\t{\"text\":\"hi\"\n\t            ^\nRun 'mcpkit help tools call' for usage.\n"},
		{[]string{"tools", "call", "echo", "--args", `"hi"`},
			"mcpkit: tools call: --args must be a JSON object, such as '{\"name\":\"value\"}', not \"hi\"\nRun 'mcpkit help tools call' for usage.\n"},
		{[]string{"prompts", "get", "p", "--args", `{'a':1}`},
			"mcpkit: prompts get: --args is not valid JSON: line 1, column 2: invalid character '\\'' looking for beginning of object key string\n\t{'a':1}\n\t ^\nRun 'mcpkit help prompts get' for usage.\n"},
		{[]string{"prompts", "get", "p", "--args", `{"a":1}`},
			"mcpkit: prompts get: --args must be a JSON object of strings (prompt arguments are strings), not {\"a\":1}\nRun 'mcpkit help prompts get' for usage.\n"},
	} {
		// The server is never started: a command that does not exist.
		code, out, errOut := runCLI(t, "", append(tc.args, "--", "/nonexistent/server")...)
		if code != 2 || out != "" || errOut != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant 2, \"\",\n%s", tc.args, code, out, errOut, tc.want)
		}
	}
	for _, era := range []string{"session", "stateless"} {
		code, out, errOut := client(t, "tools", "call", "echo", "--era", era, "--args", `{"text":5}`)
		want := "mcpkit: tool echo reported an error: invalid arguments for tool echo: arguments/text: type: got integer, want string\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("--era %s, schema mismatch: exit %d, stdout %q, stderr %q; want 1, \"\", %q", era, code, out, errOut, want)
		}
	}
}

// A tool's progress goes to stderr, one plain line per notification when
// stderr is not a terminal, in both eras; stdout has the result only.
func TestProgressPlain(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, era := range []string{"session", "stateless"} {
		code, out, errOut := client(t, "tools", "call", "test_tool_with_progress", "--era", era)
		wantOut := "Progress test completed: progress 0, 50 and 100 of 100 sent for progressToken \"mcpkit-call\"\n"
		wantErr := "progress 0/100\nprogress 50/100\nprogress 100/100\n"
		if code != 0 || out != wantOut || errOut != wantErr {
			t.Errorf("--era %s: exit %d, stdout %q, stderr %q; want 0, %q, %q", era, code, out, errOut, wantOut, wantErr)
		}
	}
}

// On a terminal the progress is one line redrawn in place, erased for a
// log line and when the call ends.
func TestProgressLive(t *testing.T) {
	var b strings.Builder
	s := &statusLine{w: &b, live: true}
	s.progress(&mcp.ProgressParams{Progress: 0, Total: 100})
	s.progress(&mcp.ProgressParams{Progress: 50, Total: 100, Message: "half way"})
	s.println("server log [info] \"working\"")
	s.progress(&mcp.ProgressParams{Progress: 100, Total: 100})
	s.clear()
	s.clear() // nothing shown: nothing written
	s.println("server log [info] \"done\"")
	want := "\r\x1b[Kprogress 0/100\r\x1b[Kprogress 50/100: half way\r\x1b[Kserver log [info] \"working\"\n\r\x1b[Kprogress 100/100\r\x1b[Kserver log [info] \"done\"\n"
	if b.String() != want {
		t.Errorf("live status line wrote %q, want %q", b.String(), want)
	}

	for _, tc := range []struct {
		p    mcp.ProgressParams
		want string
	}{
		{mcp.ProgressParams{Progress: 3}, "progress 3"},
		{mcp.ProgressParams{Progress: 0.25, Total: 1}, "progress 0.25/1"},
		{mcp.ProgressParams{Progress: 1500000, Total: 3000000, Message: "bytes"}, "progress 1500000/3000000: bytes"},
		{mcp.ProgressParams{Progress: 2, Message: "two files"}, "progress 2: two files"},
	} {
		if got := progressText(&tc.p); got != tc.want {
			t.Errorf("progressText(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}

	// Only a character device is a terminal, and not with TERM=dumb.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	t.Setenv("TERM", "xterm")
	if isTerminal(&b) || isTerminal(w) || !isTerminal(devNull) {
		t.Errorf("isTerminal: buffer %v, pipe %v, %s %v; want false, false, true", isTerminal(&b), isTerminal(w), os.DevNull, isTerminal(devNull))
	}
	t.Setenv("TERM", "dumb")
	if isTerminal(devNull) {
		t.Errorf("isTerminal(%s) with TERM=dumb", os.DevNull)
	}
}

func init() {
	// test-args-server offers tools whose input schemas have every kind
	// of argument tools list shows.
	testServers["test-args-server"] = func([]string) {
		s := mcp.NewServer(mcp.Implementation{Name: "args", Version: "1"}, nil)
		noop := func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}
		for _, tool := range []*mcp.Tool{
			{Name: "search", Description: "Searches the notes.\nSecond line not shown.", InputSchema: json.RawMessage(`{"type":"object",
				"properties":{
					"query":{"type":"string","description":"what to look for\nand more"},
					"limit":{"type":"integer","description":"at most this many"},
					"tags":{"type":"array","items":{"type":"string"},"description":"only notes with these tags"},
					"since":{"type":["string","null"]},
					"where":{"$ref":"#/$defs/place"},
					"mode":{"enum":["fast","exact"],"description":"how to match"},
					"either":{"anyOf":[{"type":"number"},{"type":"boolean"}]},
					"raw":{}
				},
				"required":["query","tags"],
				"$defs":{"place":{"type":"object"}}}`)},
			{Name: "ping", Description: "Answers at once."},
		} {
			if err := s.AddTool(tool, noop); err != nil {
				panic(err)
			}
		}
		s.Run(context.Background(), &mcp.StdioTransport{})
	}
}

// tools list shows each tool's arguments, in the order of the schema's
// properties: name, type, "required", and the first line of the
// description.
func TestToolsListArguments(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	code, out, errOut := runCLI(t, "", append([]string{"tools", "list", "--"}, selfCommand(t, "test-args-server")...)...)
	want := `ping                                Answers at once.
search                              Searches the notes.
  query (string, required)          what to look for
  limit (integer)                   at most this many
  tags (array of string, required)  only notes with these tags
  since (string|null)
  where (place)
  mode (enum)                       how to match
  either (number|boolean)
  raw (any)
`
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errOut, out, want)
	}
}

func init() {
	// test-dying-server exits with status 3 when its tool is called.
	testServers["test-dying-server"] = func([]string) {
		s := mcp.NewServer(mcp.Implementation{Name: "dying", Version: "1"}, nil)
		if err := s.AddTool(&mcp.Tool{Name: "die"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		}); err != nil {
			panic(err)
		}
		s.Run(context.Background(), &mcp.StdioTransport{})
	}
}

// A server that exits during a call: the call's error names it once.
func TestServerDiesDuringCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, era := range []string{"session", "stateless"} {
		code, out, errOut := runCLI(t, "", append([]string{"tools", "call", "die", "--era", era, "--"}, selfCommand(t, "test-dying-server")...)...)
		if want := "mcpkit: tools/call die: mcp: session closed\n"; code != 1 || out != "" || errOut != want {
			t.Errorf("--era %s: exit %d, stdout %q, stderr %q; want 1, \"\", %q", era, code, out, errOut, want)
		}
	}
}

// A usage error's hint names the help of the command given.
func TestUsageHintNamesHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"bogus", "x"}, ""},
		{[]string{"help", "nosuch"}, ""},
		{[]string{"tools"}, " tools"},
		{[]string{"tools", "frob"}, " tools"},
		{[]string{"tools", "call", "echo"}, " tools call"},
		{[]string{"auth", "login"}, " auth login"},
		{[]string{"serve", "--bogus"}, " serve"},
		{[]string{"dev-auth-server", "extra"}, " dev-auth-server"},
	} {
		if got := helpTopicOf(tc.args); got != tc.want {
			t.Errorf("helpTopicOf(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
