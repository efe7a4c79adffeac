package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// checks counts the leaf checks of TestTypeScriptServers by outcome, for
// the summary line TestMain prints (interop/run.sh reports it).
var checks struct{ passed, failed, skipped atomic.Int64 }

func TestMain(m *testing.M) {
	code := m.Run()
	if n := checks.passed.Load() + checks.failed.Load() + checks.skipped.Load(); n > 0 {
		fmt.Printf("interop mcpkit client vs TypeScript servers: %d passed, %d failed, %d skipped\n",
			checks.passed.Load(), checks.failed.Load(), checks.skipped.Load())
	}
	os.Exit(code)
}

// tsServer is a TypeScript SDK server the test starts, and how.
type tsServer struct {
	name string
	// args run the server with node from this directory; the transport
	// ("stdio" or "http") is appended.
	args []string
	// wantName is the serverInfo.name it reports.
	wantName string
	// checks are the server-specific checks.
	checks []check
}

// check is one interop check against a connected session.
type check struct {
	name string
	run  func(t *testing.T, s *session)
}

// session is a connected mcpkit client and what it received.
type session struct {
	cs *mcp.ClientSession

	mu       sync.Mutex
	progress []float64
	logs     []string
	sampled  []*mcp.CreateMessageParams
	elicited []*mcp.ElicitParams
	// progressCh receives every progress notification as well (dropped
	// when full), for checks that wait for one.
	progressCh chan *mcp.ProgressParams
}

// awaitProgress waits for a progress notification carrying token.
func (s *session) awaitProgress(t *testing.T, token string) {
	t.Helper()
	ctx := ctxFor(t)
	for {
		select {
		case p := <-s.progressCh:
			if tok, _ := p.ProgressToken.Str(); tok == token {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no progress notification with token %q", token)
		}
	}
}

func (s *session) progressSeen() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]float64(nil), s.progress...)
}

func (s *session) logsSeen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logs...)
}

// TestTypeScriptServers drives TypeScript SDK servers with mcpkit's client
// over stdio and Streamable HTTP: @modelcontextprotocol/server-everything
// (v1 SDK) and ts/server-v2.mjs (v2 SDK).
func TestTypeScriptServers(t *testing.T) {
	node := requireNode(t)
	servers := []tsServer{
		{
			name:     "server-everything(v1)",
			args:     []string{"node_modules/@modelcontextprotocol/server-everything/dist/index.js"},
			wantName: "mcp-servers/everything",
			checks:   everythingChecks,
		},
		{
			name:     "server-v2",
			args:     []string{"ts/server-v2.mjs"},
			wantName: "mcpkit-interop-ts-v2",
			checks:   v2Checks,
		},
	}
	for _, srv := range servers {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(srv.name+"/"+transport, func(t *testing.T) {
				s := connect(t, node, srv, transport)
				all := append(commonChecks(srv.wantName), srv.checks...)
				for _, c := range all {
					t.Run(c.name, func(t *testing.T) {
						t.Cleanup(func() {
							switch {
							case t.Failed():
								checks.failed.Add(1)
							case t.Skipped():
								checks.skipped.Add(1)
							default:
								checks.passed.Add(1)
							}
						})
						c.run(t, s)
					})
				}
			})
		}
	}
}

// requireNode skips the test unless node and the pinned packages are
// installed (`npm ci` in this directory).
func requireNode(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "server-everything")); err != nil {
		t.Skip("interop/node_modules is missing: run `npm ci` in interop/ (interop/run.sh does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node
}

// connect starts srv over transport and connects mcpkit's client to it.
// Cleanup closes the session and stops the server.
func connect(t *testing.T, node string, srv tsServer, transport string) *session {
	t.Helper()
	s := &session{progressCh: make(chan *mcp.ProgressParams, 256)}
	client := mcp.NewClient(mcp.Implementation{Name: "mcpkit-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			s.mu.Lock()
			s.progress = append(s.progress, p.Progress)
			s.mu.Unlock()
			select {
			case s.progressCh <- p:
			default:
			}
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			s.mu.Lock()
			s.logs = append(s.logs, string(p.Data))
			s.mu.Unlock()
		},
		// Sampling and elicitation answer as a user would; the servers
		// call them from tools.
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			s.mu.Lock()
			s.sampled = append(s.sampled, p)
			s.mu.Unlock()
			return &mcp.CreateMessageResult{
				Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "sampled by mcpkit"}},
				Model: "interop-model", StopReason: mcp.StopReasonEndTurn,
			}, nil
		},
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			s.mu.Lock()
			s.elicited = append(s.elicited, p)
			s.mu.Unlock()
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: json.RawMessage(`{"name":"Gopher"}`)}, nil
		},
		ElicitationApplyDefaults: true,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append(append([]string(nil), srv.args...), transport)
	var t2 mcp.Transport
	if transport == "stdio" {
		cmd := exec.Command(node, args...)
		cmd.Stderr = io.Discard
		// server-everything does not exit when its stdin closes; do not
		// wait the default 5 s before SIGTERM.
		t2 = &mcp.CommandTransport{Command: cmd, ShutdownGrace: 500 * time.Millisecond}
	} else {
		url := startHTTPServer(t, node, args)
		t2 = &mcphttp.ClientTransport{URL: url}
	}
	cs, err := client.Connect(ctx, t2)
	if err != nil {
		t.Fatalf("connect to %s over %s: %v", srv.name, transport, err)
	}
	s.cs = cs
	t.Cleanup(func() { cs.Close() })
	return s
}

var urlLine = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

// startHTTPServer runs a TypeScript server that logs "url=..." on stderr
// once it listens on 127.0.0.1, and stops it (by its PID) at cleanup.
func startHTTPServer(t *testing.T, node string, args []string) string {
	t.Helper()
	name := args[0]
	if strings.Contains(name, "server-everything") {
		// Its HTTP entry listens on every interface and a fixed port;
		// the wrapper keeps it on 127.0.0.1 and a free port.
		args = []string{"ts/everything-http.mjs"}
	}
	cmd := exec.Command(node, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		if !ok {
			t.Fatalf("%s exited without reporting its URL", name)
		}
		return url
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not report its URL within 30 s", name)
	}
	return ""
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// callText calls a tool and returns its text contents joined.
func callText(t *testing.T, s *session, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return texts(res.Content), res
}

func texts(cs []mcp.Content) string {
	var b strings.Builder
	for _, c := range cs {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// call sends a request with cs.Call and decodes the result into a
// generic value, for methods whose typed helpers the check does not need.
func call(t *testing.T, s *session, method string, params any) map[string]any {
	t.Helper()
	var res map[string]any
	if err := s.cs.Call(ctxFor(t), method, params, &res); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

// commonChecks hold for every TypeScript server.
func commonChecks(wantName string) []check {
	return []check{
		{"initialize", func(t *testing.T, s *session) {
			ir := s.cs.InitializeResult()
			if ir.ServerInfo.Name != wantName {
				t.Errorf("serverInfo.name = %q, want %q", ir.ServerInfo.Name, wantName)
			}
			if ir.ProtocolVersion != mcp.LatestVersion {
				t.Errorf("protocolVersion = %q, want %q", ir.ProtocolVersion, mcp.LatestVersion)
			}
			if ir.Capabilities.Tools == nil || ir.Capabilities.Prompts == nil || ir.Capabilities.Resources == nil || ir.Capabilities.Logging == nil {
				t.Errorf("capabilities = %+v, want tools, prompts, resources and logging", ir.Capabilities)
			}
		}},
		{"ping", func(t *testing.T, s *session) {
			if err := s.cs.Ping(ctxFor(t)); err != nil {
				t.Fatal(err)
			}
		}},
		{"tools/list", func(t *testing.T, s *session) {
			n := 0
			for tool, err := range s.cs.Tools(ctxFor(t), nil) {
				if err != nil {
					t.Fatal(err)
				}
				n++
				var schema struct {
					Type string `json:"type"`
				}
				if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Type != "object" {
					t.Errorf("tool %s: inputSchema %s", tool.Name, tool.InputSchema)
				}
			}
			if n < 3 {
				t.Errorf("%d tools listed", n)
			}
		}},
		{"tools/call unknown tool is an error", func(t *testing.T, s *session) {
			// v2 answers -32602 as 2025-11-25 asks; v1's McpServer
			// answers a tool error result (isError) naming the tool.
			res, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "no_such_tool", Arguments: json.RawMessage(`{}`)})
			var rpcErr *jsonrpc.Error
			switch {
			case errors.As(err, &rpcErr):
				if rpcErr.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("error code %d, want %d", rpcErr.Code, jsonrpc.CodeInvalidParams)
				}
			case err == nil && res.IsError && strings.Contains(texts(res.Content), "no_such_tool"):
			default:
				t.Errorf("res %+v, err %v: want -32602 or a tool error", res, err)
			}
		}},
		{"logging/setLevel", func(t *testing.T, s *session) {
			if res := call(t, s, "logging/setLevel", map[string]string{"level": "debug"}); len(res) != 0 {
				t.Errorf("result %v, want {}", res)
			}
		}},
	}
}

// everythingChecks use @modelcontextprotocol/server-everything's fixtures.
var everythingChecks = []check{
	{"tools/call echo", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "echo", map[string]string{"message": "hi"}); got != "Echo: hi" {
			t.Errorf("text %q", got)
		}
	}},
	{"tools/call structured output", func(t *testing.T, s *session) {
		_, res := callText(t, s, "get-structured-content", map[string]string{"location": "Chicago"})
		var got struct {
			Temperature float64 `json:"temperature"`
			Conditions  string  `json:"conditions"`
		}
		if err := json.Unmarshal(res.StructuredContent, &got); err != nil || got.Temperature != 36 || got.Conditions == "" {
			t.Errorf("structuredContent %s (%v)", res.StructuredContent, err)
		}
	}},
	{"tools/call invalid arguments", func(t *testing.T, s *session) {
		raw := json.RawMessage(`{"a":"one","b":2}`)
		res, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "get-sum", Arguments: raw})
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidParams:
		case err == nil && res.IsError:
		default:
			t.Errorf("res %+v, err %v: want isError or -32602", res, err)
		}
	}},
	{"tools/call image", func(t *testing.T, s *session) {
		_, res := callText(t, s, "get-tiny-image", map[string]any{})
		for _, c := range res.Content {
			if img, ok := c.(*mcp.ImageContent); ok && img.MIMEType == "image/png" && img.Data != "" {
				return
			}
		}
		t.Errorf("no PNG image in %d contents", len(res.Content))
	}},
	{"progress during a call", func(t *testing.T, s *session) {
		before := len(s.progressSeen())
		raw := json.RawMessage(`{"duration":0.3,"steps":3}`)
		res, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{
			Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("interop-progress")}, Name: "trigger-long-running-operation", Arguments: raw,
		})
		if err != nil || res.IsError {
			t.Fatalf("res %+v, err %v", res, err)
		}
		if got := s.progressSeen()[before:]; len(got) != 3 || got[0] != 1 || got[2] != 3 {
			t.Errorf("progress %v, want [1 2 3] before the result", got)
		}
	}},
	{"cancellation", func(t *testing.T, s *session) {
		ctx, cancel := context.WithCancel(ctxFor(t))
		done := make(chan error, 1)
		go func() {
			raw := json.RawMessage(`{"duration":30,"steps":30}`)
			_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("interop-cancel")}, Name: "trigger-long-running-operation", Arguments: raw})
			done <- err
		}()
		// Cancel once the operation runs (its first progress arrives).
		s.awaitProgress(t, "interop-cancel")
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		// The session goes on.
		if err := s.cs.Ping(ctxFor(t)); err != nil {
			t.Errorf("ping after cancel: %v", err)
		}
	}},
	{"sampling round trip", func(t *testing.T, s *session) {
		got, res := callText(t, s, "trigger-sampling-request", map[string]any{"prompt": "what is Go?", "maxTokens": 20})
		if res.IsError || !strings.Contains(got, "sampled by mcpkit") {
			t.Errorf("isError %v, text %q", res.IsError, got)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		n := len(s.sampled)
		if n == 0 {
			t.Fatal("no sampling/createMessage seen")
		}
		p := s.sampled[n-1]
		if tc, ok := p.Messages[0].Content[0].(*mcp.TextContent); p.MaxTokens != 20 || !ok || tc.Text != "Resource trigger-sampling-request context: what is Go?" {
			t.Errorf("sampling request: maxTokens %d, content %#v", p.MaxTokens, p.Messages[0].Content[0])
		}
	}},
	{"elicitation round trip", func(t *testing.T, s *session) {
		got, res := callText(t, s, "trigger-elicitation-request", map[string]any{})
		if res.IsError || !strings.Contains(got, "- Name: Gopher") {
			t.Errorf("isError %v, text %q", res.IsError, got)
		}
	}},
	{"resources/list and read", func(t *testing.T, s *session) {
		list := call(t, s, "resources/list", map[string]any{})
		resources, _ := list["resources"].([]any)
		if len(resources) == 0 {
			t.Fatalf("no resources: %v", list)
		}
		uri, _ := resources[0].(map[string]any)["uri"].(string)
		read := call(t, s, "resources/read", map[string]string{"uri": uri})
		if contents, _ := read["contents"].([]any); len(contents) == 0 {
			t.Errorf("read %s: %v", uri, read)
		}
	}},
	{"resources/templates/list and read", func(t *testing.T, s *session) {
		list := call(t, s, "resources/templates/list", map[string]any{})
		if tpl, _ := list["resourceTemplates"].([]any); len(tpl) == 0 {
			t.Fatalf("no templates: %v", list)
		}
		read := call(t, s, "resources/read", map[string]string{"uri": "demo://resource/dynamic/text/7"})
		contents, _ := read["contents"].([]any)
		if len(contents) != 1 || contents[0].(map[string]any)["uri"] != "demo://resource/dynamic/text/7" {
			t.Errorf("read: %v", read)
		}
	}},
	{"resources/subscribe and unsubscribe", func(t *testing.T, s *session) {
		list := call(t, s, "resources/list", map[string]any{})
		uri, _ := list["resources"].([]any)[0].(map[string]any)["uri"].(string)
		call(t, s, "resources/subscribe", map[string]string{"uri": uri})
		call(t, s, "resources/unsubscribe", map[string]string{"uri": uri})
	}},
	{"prompts/list and get", func(t *testing.T, s *session) {
		list := call(t, s, "prompts/list", map[string]any{})
		names := map[string]bool{}
		prompts, _ := list["prompts"].([]any)
		for _, p := range prompts {
			name, _ := p.(map[string]any)["name"].(string)
			names[name] = true
		}
		if !names["simple-prompt"] || !names["completable-prompt"] {
			t.Fatalf("prompts %v", names)
		}
		got := call(t, s, "prompts/get", map[string]any{"name": "completable-prompt", "arguments": map[string]string{"department": "Sales", "name": "Eve"}})
		b, _ := json.Marshal(got)
		if !strings.Contains(string(b), "Please promote Eve to the head of the Sales team.") {
			t.Errorf("prompts/get: %s", b)
		}
	}},
	{"completion/complete", func(t *testing.T, s *session) {
		got := call(t, s, "completion/complete", map[string]any{
			"ref":      map[string]string{"type": "ref/prompt", "name": "completable-prompt"},
			"argument": map[string]string{"name": "department", "value": "En"},
		})
		b, _ := json.Marshal(got["completion"])
		if string(b) != `{"hasMore":false,"total":1,"values":["Engineering"]}` && !strings.Contains(string(b), `"values":["Engineering"]`) {
			t.Errorf("completion %s", b)
		}
	}},
}

// v2Checks use ts/server-v2.mjs's fixtures.
var v2Checks = []check{
	{"tools/call echo", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "echo", map[string]string{"text": "hi"}); got != "hi" {
			t.Errorf("text %q", got)
		}
	}},
	{"tools/call structured output", func(t *testing.T, s *session) {
		_, res := callText(t, s, "add", map[string]int{"a": 2, "b": 40})
		if string(res.StructuredContent) != `{"sum":42}` {
			t.Errorf("structuredContent %s", res.StructuredContent)
		}
	}},
	{"tools/call invalid arguments", func(t *testing.T, s *session) {
		got, res := callText(t, s, "echo", map[string]int{"text": 5})
		if !res.IsError || !strings.Contains(got, "Invalid arguments for tool echo") {
			t.Errorf("isError %v, text %q", res.IsError, got)
		}
	}},
	{"progress and logging during a call", func(t *testing.T, s *session) {
		beforeP, beforeL := len(s.progressSeen()), len(s.logsSeen())
		res, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{
			Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(77)}, Name: "progress_and_log", Arguments: json.RawMessage(`{}`),
		})
		if err != nil || res.IsError {
			t.Fatalf("res %+v, err %v", res, err)
		}
		if got := s.progressSeen()[beforeP:]; len(got) != 3 {
			t.Errorf("progress %v, want 3 notifications before the result", got)
		}
		if got := s.logsSeen()[beforeL:]; len(got) != 3 || got[0] != `"step 1"` {
			t.Errorf("logs %v, want step 1..3 before the result", got)
		}
	}},
	{"cancellation reaches the server", func(t *testing.T, s *session) {
		ctx, cancel := context.WithCancel(ctxFor(t))
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("wait")}, Name: "wait_for_cancel", Arguments: json.RawMessage(`{}`)})
			done <- err
		}()
		// was_cancelled answers once the server saw notifications/cancelled;
		// cancel once wait_for_cancel runs (its progress arrives).
		s.awaitProgress(t, "wait")
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if got, _ := callText(t, s, "was_cancelled", map[string]any{}); got != "cancelled" {
			t.Errorf("was_cancelled: %q", got)
		}
	}},
	{"sampling round trip", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "ask_sampling", map[string]string{"prompt": "hello"}); got != "sampled: sampled by mcpkit" {
			t.Errorf("text %q", got)
		}
	}},
	{"elicitation round trip", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "ask_elicitation", map[string]any{}); got != "accept: Gopher" {
			t.Errorf("text %q", got)
		}
	}},
	{"resources/read", func(t *testing.T, s *session) {
		read := call(t, s, "resources/read", map[string]string{"uri": "interop://greeting"})
		b, _ := json.Marshal(read["contents"])
		if string(b) != `[{"mimeType":"text/plain","text":"Hello from TypeScript v2","uri":"interop://greeting"}]` {
			t.Errorf("contents %s", b)
		}
	}},
	{"prompts/get", func(t *testing.T, s *session) {
		got := call(t, s, "prompts/get", map[string]any{"name": "greet", "arguments": map[string]string{"name": "Go"}})
		b, _ := json.Marshal(got["messages"])
		if string(b) != `[{"content":{"text":"Hello, Go!","type":"text"},"role":"user"}]` {
			t.Errorf("messages %s", b)
		}
	}},
}
