package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/redistest"
	"go.uber.org/goleak"
)

// asMcpkitEnv makes the test binary behave as the mcpkit command itself,
// so that the client verbs can start "mcpkit serve" without a build.
const asMcpkitEnv = "MCPKIT_CLI_TEST_AS_MCPKIT"

func TestMain(m *testing.M) {
	if os.Getenv(asMcpkitEnv) == "1" {
		if len(os.Args) > 1 {
			if play, ok := testServers[os.Args[1]]; ok {
				play(os.Args[2:])
				os.Exit(0)
			}
		}
		os.Exit(runProcess())
	}
	// The Redis tests' servers, if they started any, stop before goleak
	// looks; so does the directory of the built binary (builtMcpkit).
	goleak.VerifyTestMain(removeBuilt{redistest.Wrap(m)})
}

// serverCommand is "mcpkit serve" as the test binary plays it, quiet.
func serverCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asMcpkitEnv, "1")
	// Under -race a process sleeps 1s before exiting unless told not to.
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	return []string{exe, "serve", "--log-level", "warn"}
}

// runCLI runs the command line in-process and returns its exit status and
// output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// client runs a client verb against "mcpkit serve".
func client(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	args = append(append(args, "--"), serverCommand(t)...)
	return runCLI(t, "", args...)
}

func TestToolsCallEcho(t *testing.T) {
	code, out, errOut := client(t, "tools", "call", "echo", "--args", `{"text":"hi"}`)
	if code != 0 || out != "hi\n" || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, \"hi\\n\", \"\"", code, out, errOut)
	}
	// Flags may come before the name too.
	code, out, _ = client(t, "tools", "call", "--args", `{"text":"multi\nline\n"}`, "echo")
	if code != 0 || out != "multi\nline\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestToolsCallHumanOutput(t *testing.T) {
	for _, tc := range []struct {
		tool, want string
	}{
		{"test_simple_text", "This is a simple text response for testing.\n"},
		{"test_image_content", "[image image/png, 70 bytes]\n"},
		{"test_audio_content", "[audio audio/wav, 44 bytes]\n"},
		{"test_embedded_resource", "[resource test://embedded-resource, text/plain, 37 bytes of text]\n"},
		{"test_multiple_content_types", "Multiple content types test:\n[image image/png, 70 bytes]\n[resource test://mixed-content-resource, application/json, 27 bytes of text]\n"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			code, out, errOut := client(t, "tools", "call", tc.tool)
			if code != 0 || out != tc.want || errOut != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, \"\"", code, out, errOut, tc.want)
			}
		})
	}
}

func TestToolsCallIsError(t *testing.T) {
	code, out, errOut := client(t, "tools", "call", "test_error_handling")
	want := "mcpkit: tool test_error_handling reported an error: This tool intentionally returns an error for testing\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
}

func TestToolsCallJSON(t *testing.T) {
	code, out, errOut := client(t, "tools", "call", "echo", "--json", "--era", "legacy", "--args", `{"text":"hi"}`)
	if want := `{"content":[{"type":"text","text":"hi"}]}` + "\n"; code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, \"\"", code, out, errOut, want)
	}
	// The default era is auto, which finds that the reference server
	// speaks 2026-07-28: the result as sent carries resultType and the
	// server's identity.
	code, out, errOut = client(t, "tools", "call", "echo", "--json", "--args", `{"text":"hi"}`)
	if want := `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpkit-everything","title":"mcpkit reference server","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite."}},"content":[{"type":"text","text":"hi"}]}` + "\n"; code != 0 || out != want || errOut != "" {
		t.Errorf("auto era: exit %d, stdout %q, stderr %q; want 0, %q, \"\"", code, out, errOut, want)
	}
	code, out, errOut = client(t, "tools", "call", "test_error_handling", "--json", "--era", "legacy")
	wantOut := `{"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],"isError":true}` + "\n"
	if code != 1 || out != wantOut || errOut != "mcpkit: tool test_error_handling reported an error\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestToolsCallProtocolErrors(t *testing.T) {
	code, out, errOut := client(t, "tools", "call", "nope")
	want := `mcpkit: tools/call nope: jsonrpc error -32602: Invalid params: "Unknown tool: nope"; see ` + "`mcpkit tools list -- " + strings.Join(serverCommand(t), " ") + "` for the tools it offers\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
}

func TestToolsList(t *testing.T) {
	code, out, errOut := client(t, "tools", "list")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// A line per tool, then a line per argument (testdata/tools-list.txt
	// is the reference server's list as people see it).
	golden, err := os.ReadFile(filepath.Join("testdata", "tools-list.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(golden) {
		t.Errorf("stdout =\n%s\nwant\n%s", out, golden)
	}
	want := regexp.MustCompile(`(?m)^\S`).FindAllString(string(golden), -1) // the tools

	code, out, errOut = client(t, "tools", "list", "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("--json: exit %d, stderr %q", code, errOut)
	}
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	schemas := map[string]string{}
	for _, tool := range res.Tools {
		schemas[tool.Name] = string(tool.InputSchema)
	}
	if len(res.Tools) != len(want) || res.Tools[2].Name != "echo" || schemas["test_audio_content"] != `{"type":"object","properties":{}}` {
		t.Errorf("--json output = %s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the first line of stderr
	}{
		{nil, "mcpkit: no command given"},
		{[]string{"bogus"}, `mcpkit: unknown command "bogus"`},
		{[]string{"tools"}, "mcpkit: tools: want a subcommand: list or call"},
		{[]string{"tools", "frob"}, `mcpkit: tools: unknown subcommand "frob": want list or call`},
		{[]string{"tools", "list"}, "mcpkit: no server to talk to: give --url URL, or the command that starts it after --, as in"},
		{[]string{"tools", "list", "--era", "x", "--", "true"}, `mcpkit: --era "x": want auto, session or stateless`},
		{[]string{"tools", "call", "echo"}, "mcpkit: no server to talk to: give --url URL, or the command that starts it after --, as in"},
		{[]string{"tools", "call", "--", "x"}, "mcpkit: tools call: want exactly one tool name before --, got 0 arguments"},
		{[]string{"tools", "call", "a", "b", "--", "x"}, "mcpkit: tools call: want exactly one tool name before --, got 2 arguments"},
		{[]string{"tools", "call", "echo", "--args", "[1]", "--", "x"}, `mcpkit: tools call: --args must be a JSON object, such as '{"name":"value"}', not [1]`},
		{[]string{"tools", "call", "echo", "--args", "{", "--", "x"}, "mcpkit: tools call: --args is not valid JSON: line 1, column 2: unexpected end of JSON input"},
		{[]string{"tools", "list", "--bogus", "--", "x"}, "mcpkit: tools list: flag provided but not defined: -bogus"},
		{[]string{"tools", "list", "extra", "--", "x"}, `mcpkit: tools list: unexpected argument "extra" (the server command goes after --)`},
		{[]string{"tools", "list", "--url", "http://127.0.0.1:1/mcp", "--header", "X-A"}, `mcpkit: --header "X-A": want NAME:VALUE, such as 'Authorization: Bearer TOKEN'`},
		{[]string{"tools", "list", "--url", "http://127.0.0.1:1/mcp", "--header", ":v"}, `mcpkit: --header ":v": "" is not an HTTP header name (letters, digits and !#$%&'*+-.^_` + "`" + `|~ only)`},
		{[]string{"tools", "list", "--url", "http://127.0.0.1:1/mcp", "--header", "X A: v"}, `mcpkit: --header "X A: v": "X A" is not an HTTP header name (letters, digits and !#$%&'*+-.^_` + "`" + `|~ only)`},
		{[]string{"tools", "call", "echo", "--url", "http://127.0.0.1:1/mcp", "--header", "X-A: a\r\nX-B: b"}, `mcpkit: --header "X-A: a\r\nX-B: b": the value of X-A holds a line break or NUL`},
		{[]string{"prompts", "list", "--url", "http://127.0.0.1:1/mcp", "--header", "mcp-session-id: 1"}, `mcpkit: --header "mcp-session-id: 1": mcpkit sets Mcp-Session-Id itself`},
		{[]string{"tools", "call", "echo", "--url", "http://127.0.0.1:1/mcp", "--header", "MCP-METHOD: tools/list"}, `mcpkit: --header "MCP-METHOD: tools/list": mcpkit sets Mcp-Method itself`},
		{[]string{"tools", "call", "echo", "--url", "http://127.0.0.1:1/mcp", "--header", "mcp-param-region: eu"}, `mcpkit: --header "mcp-param-region: eu": mcpkit sets Mcp-Param-Region itself`},
		{[]string{"resources", "list", "--header", "X-A: 1", "--", "x"}, `mcpkit: --header goes with --url: a server started after -- gets no HTTP headers`},
		{[]string{"tools", "list", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: Bearer x", "--client-id", "c"}, `mcpkit: --header Authorization: mcpkit does not log in then, so --client-id and --auth-auto-approve have no use`},
		{[]string{"auth", "login", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: Bearer x"}, `mcpkit: auth login: --header Authorization: there is nothing to log in to when the token is given`},
		{[]string{"serve", "extra"}, `mcpkit: serve: unexpected argument "extra"`},
		{[]string{"serve", "--log-level", "loud"}, `mcpkit: serve: invalid value "loud" for flag -log-level: slog: level string "loud": unknown name`},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || out != "" || first != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, \"\", first line %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		code, out, errOut := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "mcpkit is a command-line tool") || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestServerCommandMissing(t *testing.T) {
	code, out, errOut := runCLI(t, "", "tools", "list", "--", "/nonexistent/server")
	want := "mcpkit: cannot start `/nonexistent/server`: no such file or directory\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
}

// TestServe plays a client on serve's stdin: stdout carries exactly the
// protocol's answers, one per line, and the logs go to stderr. Stdin stays
// open until both answers are out, as a client's would.
func TestServe(t *testing.T) {
	inR, inW := io.Pipe()
	out := &lineWriter{lines: make(chan string, 8)}
	var errOut bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), []string{"serve"}, inR, out, &errOut) }()

	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-out.lines:
			if got != want {
				t.Errorf("stdout line =\n\t%s\nwant\n\t%s", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no line on stdout, want %s", want)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	expect(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true},"io.modelcontextprotocol/ui":{}}},"serverInfo":{"name":"mcpkit-everything","title":"mcpkit reference server","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite."}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	expect(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	inW.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d, stderr %q", c, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not end when its stdin closed")
	}
	if rest := out.rest(); rest != "" {
		t.Errorf("more on stdout: %q", rest)
	}
	for _, line := range []string{`level=INFO msg="mcpkit serve: serving the reference server" transport=stdio`, `level=INFO msg="mcpkit serve: input closed, exiting"`} {
		if !strings.Contains(errOut.String(), line) {
			t.Errorf("stderr %q lacks %q", errOut.String(), line)
		}
	}
}

// lineWriter passes each complete line written to it to a channel, and
// checks that nothing but whole lines is written.
type lineWriter struct {
	mu      sync.Mutex
	partial []byte
	lines   chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- string(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
}

// rest returns what is left: lines not yet read, and any partial line.
func (w *lineWriter) rest() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for {
		select {
		case l := <-w.lines:
			b.WriteString(l + "\n")
		default:
			b.Write(w.partial)
			return b.String()
		}
	}
}

// TestBuiltBinary builds the real mcpkit and runs the README's example,
// one mcpkit starting another as its server.
func TestBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "mcpkit")
	build := exec.Command(gobin, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "tools", "call", "echo", "--args", `{"text":"hi"}`, "--", bin, "serve")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\nstderr: %s", cmd.Args, err, stderr.String())
	}
	if stdout.String() != "hi\n" {
		t.Errorf("stdout = %q, want \"hi\\n\"", stdout.String())
	}
	if !strings.Contains(stderr.String(), "mcpkit serve: input closed, exiting") {
		t.Errorf("stderr = %q: the server did not end on the closing of its stdin", stderr.String())
	}

	// The built binary knows its module version: "(devel)", or the
	// version the go command stamped from version control.
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !regexp.MustCompile(`^mcpkit (\(devel\)|v\S+) \(go\S+, `+runtime.GOOS+`/`+runtime.GOARCH+`\)\n$`).Match(out) {
		t.Errorf("mcpkit version: %q, %v", out, err)
	}
}
