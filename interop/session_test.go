package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// interopRoots are the roots mcpkit's client declares and serves.
var interopRoots = []*mcp.Root{{URI: "file:///interop/root", Name: "interop root"}}

// session is a connected mcpkit client and what it received.
type session struct {
	cs *mcp.ClientSession
	// transport is "stdio" or "http".
	transport string

	mu       sync.Mutex
	progress []float64
	logs     []*mcp.LoggingMessageParams
	sampled  []*mcp.CreateMessageParams
	elicited []*mcp.ElicitParams
	// progressCh, updatedCh and toolsChangedCh receive every progress
	// notification, resources/updated URI and tools/list_changed as well
	// (dropped when full), for checks that wait for one.
	progressCh     chan *mcp.ProgressParams
	updatedCh      chan string
	toolsChangedCh chan struct{}
}

// clientConfig says how a test's client is built.
type clientConfig struct {
	// era is ClientOptions.ProtocolEra.
	era mcp.ProtocolEra
	// bare leaves out the sampling, elicitation and roots handlers, so the
	// client declares none of those capabilities.
	bare bool
}

// newClient returns a client whose callbacks record into s; sampling,
// elicitation and roots answer as a user would, unless cfg.bare.
func newClient(s *session, cfg clientConfig) *mcp.Client {
	opts := &mcp.ClientOptions{
		ProtocolEra: cfg.era,
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
			s.logs = append(s.logs, p)
			s.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			select {
			case s.updatedCh <- p.URI:
			default:
			}
		},
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
			select {
			case s.toolsChangedCh <- struct{}{}:
			default:
			}
		},
	}
	if !cfg.bare {
		opts.Roots = interopRoots
		opts.CreateMessageHandler = func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			s.mu.Lock()
			s.sampled = append(s.sampled, p)
			s.mu.Unlock()
			return &mcp.CreateMessageResult{
				Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "sampled by mcpkit"}},
				Model: "interop-model", StopReason: "endTurn",
			}, nil
		}
		opts.ElicitationHandler = func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			s.mu.Lock()
			s.elicited = append(s.elicited, p)
			s.mu.Unlock()
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: fillForm(p.RequestedSchema)}, nil
		}
		opts.ElicitationApplyDefaults = true
	}
	return mcp.NewClient(mcp.Implementation{Name: "mcpkit-interop", Version: "1.0.0"}, opts)
}

// fillForm answers an elicitation form: "Gopher" for a name, and a value
// of its type for every other required property.
func fillForm(schema *mcp.ElicitSchema) json.RawMessage {
	out := map[string]any{}
	if schema != nil {
		for _, p := range schema.Properties {
			switch {
			case p.Name == "name":
				out[p.Name] = "Gopher"
			case !contains(schema.Required, p.Name) || p.Schema == nil:
			case p.Schema.Default != nil:
				out[p.Name] = p.Schema.Default
			case len(p.Schema.Enum) > 0:
				out[p.Name] = p.Schema.Enum[0]
			case p.Schema.Type == "boolean":
				out[p.Name] = true
			case p.Schema.Type == "integer" || p.Schema.Type == "number":
				out[p.Name] = 1
			case p.Schema.Format == "email":
				out[p.Name] = "gopher@example.com"
			default:
				out[p.Name] = "Gopher"
			}
		}
	}
	b, _ := json.Marshal(out)
	return b
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// connectCommand starts command over stdio and connects a client to it.
// Cleanup closes the session (and so stops the process).
func connectCommand(t *testing.T, cfg clientConfig, command string, args ...string) *session {
	t.Helper()
	cmd := exec.Command(command, args...)
	cmd.Stderr = io.Discard
	// server-everything does not exit when its stdin closes; do not wait
	// the default 5 s before SIGTERM.
	return connectTransport(t, cfg, "stdio", &mcp.CommandTransport{Command: cmd, ShutdownGrace: 500 * time.Millisecond})
}

// connectURL connects a client to a Streamable HTTP server.
func connectURL(t *testing.T, cfg clientConfig, url string) *session {
	t.Helper()
	return connectTransport(t, cfg, "http", &mcphttp.ClientTransport{URL: url})
}

func connectTransport(t *testing.T, cfg clientConfig, kind string, tr mcp.Transport) *session {
	t.Helper()
	s := &session{
		transport:      kind,
		progressCh:     make(chan *mcp.ProgressParams, 256),
		updatedCh:      make(chan string, 16),
		toolsChangedCh: make(chan struct{}, 16),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := newClient(s, cfg).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("connect over %s (era %v): %v", kind, cfg.era, err)
	}
	s.cs = cs
	t.Cleanup(func() { cs.Close() })
	return s
}

var urlLine = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

// startHTTPServer runs a server that logs "url=..." on stderr once it
// listens on 127.0.0.1, and stops it (by its PID) at cleanup.
func startHTTPServer(t *testing.T, command string, args ...string) string {
	t.Helper()
	return startHTTPServerAt(t, urlLine, command, args...)
}

// startHTTPServerAt is startHTTPServer for a server whose URL line
// matches line (its first group is the URL).
func startHTTPServerAt(t *testing.T, line *regexp.Regexp, command string, args ...string) string {
	t.Helper()
	cmd := exec.Command(command, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s %v: %v", command, args, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := line.FindStringSubmatch(sc.Text()); m != nil {
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
			t.Fatalf("%s %v exited without reporting its URL", command, args)
		}
		return url
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %v did not report its URL within 30 s", command, args)
	}
	return ""
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
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

// awaitUpdated waits for notifications/resources/updated about uri.
func (s *session) awaitUpdated(t *testing.T, uri string) {
	t.Helper()
	ctx := ctxFor(t)
	for {
		select {
		case got := <-s.updatedCh:
			if got == uri {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no notifications/resources/updated for %s", uri)
		}
	}
}

// awaitToolsChanged waits for notifications/tools/list_changed.
func (s *session) awaitToolsChanged(t *testing.T) {
	t.Helper()
	select {
	case <-s.toolsChangedCh:
	case <-ctxFor(t).Done():
		t.Fatal("no notifications/tools/list_changed")
	}
}

func (s *session) progressSeen() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]float64(nil), s.progress...)
}

// logsSeen returns the data of each log message received, as JSON.
func (s *session) logsSeen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.logs))
	for i, l := range s.logs {
		out[i] = string(l.Data)
	}
	return out
}

func (s *session) elicitedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.elicited)
}

// callText calls a tool and returns its text contents joined.
func callText(t *testing.T, s *session, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	return callTextCtx(t, ctxFor(t), s, name, args)
}

func callTextCtx(t *testing.T, ctx context.Context, s *session, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
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

// rpcError returns err's JSON-RPC error, failing the test if it has none.
func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("err = %v, want a JSON-RPC error", err)
	}
	return rpcErr
}

// toolNames lists the server's tools.
func toolNames(t *testing.T, s *session) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for tool, err := range s.cs.Tools(ctxFor(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names[tool.Name] = true
	}
	return names
}

// eraCheck asserts how the session started: the stateless era at
// version, with server/discover, or the session era at version, with
// initialize.
func eraCheck(stateless bool, version string) check {
	name := "era: initialize negotiated " + version
	if stateless {
		name = "era: server/discover selected " + version
	}
	return check{name, func(t *testing.T, s *session) {
		if got := s.cs.Stateless(); got != stateless {
			t.Errorf("Stateless() = %v, want %v", got, stateless)
		}
		if got := s.cs.ProtocolVersion(); got != version {
			t.Errorf("ProtocolVersion() = %q, want %q", got, version)
		}
		if s.cs.ServerCapabilities() == nil {
			t.Error("ServerCapabilities() = nil: the handshake's answer was not kept")
		}
	}}
}
