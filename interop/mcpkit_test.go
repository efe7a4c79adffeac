package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// TestMcpkitBothEras drives mcpkit's own interop server (interop/server,
// built for the test, as a separate process) with mcpkit's client over
// stdio and Streamable HTTP, in each era: pinned to the session era
// (EraSession: initialize, sessions, server-to-client requests) and with
// the default EraAuto, which must select 2026-07-28 (server/discover,
// _meta on every request, input_required results, subscriptions/listen).
// The same checks run in both eras wherever the protocol allows it.
func TestMcpkitBothEras(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs interop/server")
	}
	server := buildServer(t)
	// One HTTP server for both eras.
	url := startHTTPServer(t, server, "--http", "127.0.0.1:0")
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []struct {
			name      string
			era       mcp.ProtocolEra
			stateless bool
			version   string
		}{
			{"2025-11-25", mcp.EraSession, false, mcp.LatestVersion},
			{"2026-07-28", mcp.EraAuto, true, mcp.Version20260728},
		} {
			t.Run(transport+"/"+era.name, func(t *testing.T) {
				connect := func(cfg clientConfig) *session {
					if transport == "stdio" {
						return connectCommand(t, cfg, server)
					}
					return connectURL(t, cfg, url)
				}
				s := connect(clientConfig{era: era.era})
				checks := slices.Concat([]check{eraCheck(era.stateless, era.version)}, mcpkitChecks(era.stateless, transport))
				if era.stateless {
					checks = append(checks, check{"-32021 for a capability the client did not declare", func(t *testing.T, _ *session) {
						bare := connect(clientConfig{era: era.era, bare: true})
						_, err := bare.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "test_elicitation", Arguments: json.RawMessage(`{"message":"x"}`)})
						e := rpcError(t, err)
						if e.Code != -32021 || string(e.Data) != `{"requiredCapabilities":{"elicitation":{}}}` {
							t.Errorf("error %d %s %s, want -32021 with requiredCapabilities elicitation", e.Code, e.Message, e.Data)
						}
					}})
				}
				runChecks(t, "TestMcpkitBothEras", s, checks)
			})
		}
	}
}

// buildServer builds interop/server into a temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "interop-server")
	cmd := exec.Command("go", "build", "-o", bin, "./server")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./server: %v\n%s", err, out)
	}
	return bin
}

// mcpkitChecks are the checks of mcpkit's client against interop/server
// in one era.
func mcpkitChecks(stateless bool, transport string) []check {
	checks := []check{
		{"server identity and capabilities", func(t *testing.T, s *session) {
			if info := s.cs.ServerInfo(); info == nil || info.Name != "mcpkit-everything" {
				t.Errorf("serverInfo %+v", info)
			}
			caps := s.cs.ServerCapabilities()
			if caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil || caps.Logging == nil {
				t.Errorf("capabilities %+v", caps)
			}
			if !stateless {
				return
			}
			d, err := s.cs.Discover(ctxFor(t))
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			// Over stdio every version mcpkit serves; Streamable HTTP
			// serves 2025-03-26 and later, so there only the newest two
			// are asserted.
			if transport == "stdio" && !slices.Equal(d.SupportedVersions, mcp.Versions(mcp.EraAuto)) ||
				len(d.SupportedVersions) < 2 || !slices.Equal(d.SupportedVersions[:2], []string{mcp.Version20260728, mcp.Version20251125}) {
				t.Errorf("supportedVersions %v, want %v", d.SupportedVersions, mcp.Versions(mcp.EraAuto))
			}
			if caps.Tasks != nil {
				t.Errorf("core tasks capability %+v in the stateless era", caps.Tasks)
			}
		}},
		{"tools/call text, structured, tool error", func(t *testing.T, s *session) {
			if got, _ := callText(t, s, "echo", map[string]string{"text": "hi"}); got != "hi" {
				t.Errorf("echo: %q", got)
			}
			_, res := callText(t, s, "interop_structured", map[string]int{"a": 6, "b": 7})
			if string(res.StructuredContent) != `{"sum":13,"product":42}` {
				t.Errorf("structuredContent %s", res.StructuredContent)
			}
			if _, res := callText(t, s, "test_error_handling", map[string]any{}); !res.IsError {
				t.Error("test_error_handling: isError false")
			}
		}},
		{"tools/call unknown tool is -32602", func(t *testing.T, s *session) {
			_, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "no_such_tool", Arguments: json.RawMessage(`{}`)})
			if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("code %d", e.Code)
			}
		}},
		{"resources/read, and not found", func(t *testing.T, s *session) {
			res, err := s.cs.ReadResource(ctxFor(t), &mcp.ReadResourceParams{URI: "test://static-text"})
			if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "This is the content of the static text resource." {
				t.Fatalf("read: %+v, %v", res, err)
			}
			_, err = s.cs.ReadResource(ctxFor(t), &mcp.ReadResourceParams{URI: "test://no-such-resource"})
			e := rpcError(t, err)
			// 2026-07-28 moved resource-not-found to -32602.
			want := int64(-32002)
			if stateless {
				want = jsonrpc.CodeInvalidParams
			}
			if e.Code != want || string(e.Data) != `{"uri":"test://no-such-resource"}` {
				t.Errorf("error %d %s, want %d with data.uri", e.Code, e.Data, want)
			}
		}},
		{"prompts/get and completion", func(t *testing.T, s *session) {
			res, err := s.cs.GetPrompt(ctxFor(t), &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "alpha", "arg2": "beta"}})
			if err != nil || len(res.Messages) == 0 {
				t.Fatalf("prompts/get: %+v, %v", res, err)
			}
			comp, err := s.cs.Complete(ctxFor(t), &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
				Argument: mcp.CompleteArgument{Name: "arg1", Value: "te"},
			})
			if err != nil || comp.Completion.Values == nil {
				t.Errorf("completion: %+v, %v", comp, err)
			}
		}},
		{"progress during a call", func(t *testing.T, s *session) {
			before := len(s.progressSeen())
			res, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{
				Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("mcpkit-progress")}, Name: "test_tool_with_progress", Arguments: json.RawMessage(`{}`),
			})
			if err != nil || res.IsError {
				t.Fatalf("res %+v, err %v", res, err)
			}
			if got := s.progressSeen()[before:]; !slices.Equal(got, []float64{0, 50, 100}) {
				t.Errorf("progress %v, want [0 50 100] before the result", got)
			}
		}},
		{"logging: SetLogLevel in both eras, WithLogLevel per request", func(t *testing.T, s *session) {
			logs := func(ctx context.Context) int {
				before := len(s.logsSeen())
				if _, res := callTextCtx(t, ctx, s, "test_tool_with_logging", map[string]any{}); res.IsError {
					t.Fatal("isError")
				}
				return len(s.logsSeen()) - before
			}
			setLevel := func(level mcp.LoggingLevel) {
				// logging/setLevel in the session era; in the stateless era
				// the level every later request carries in _meta.
				if err := s.cs.SetLogLevel(ctxFor(t), &mcp.SetLevelParams{Level: level}); err != nil {
					t.Fatal(err)
				}
			}
			if stateless {
				if n := logs(ctxFor(t)); n != 0 {
					t.Errorf("%d log messages without a level, want 0", n)
				}
			}
			setLevel(mcp.LevelDebug)
			if n := logs(ctxFor(t)); n != 3 {
				t.Errorf("%d log messages at debug, want 3", n)
			}
			if stateless {
				if n := logs(mcp.WithLogLevel(ctxFor(t), mcp.LevelError)); n != 0 {
					t.Errorf("%d log messages under WithLogLevel(error), want 0", n)
				}
			}
			setLevel(mcp.LevelError)
			if n := logs(ctxFor(t)); n != 0 {
				t.Errorf("%d log messages at error, want 0", n)
			}
			if stateless {
				if n := logs(mcp.WithLogLevel(ctxFor(t), mcp.LevelDebug)); n != 3 {
					t.Errorf("%d log messages under WithLogLevel(debug), want 3", n)
				}
			}
		}},
		{"ping (server/discover in the stateless era)", func(t *testing.T, s *session) {
			if err := s.cs.Ping(ctxFor(t)); err != nil {
				t.Fatal(err)
			}
		}},
		{"sampling", func(t *testing.T, s *session) {
			if got, _ := callText(t, s, "test_sampling", map[string]string{"prompt": "What is interop?"}); got != "LLM response: sampled by mcpkit" {
				t.Errorf("text %q", got)
			}
		}},
		{"elicitation", func(t *testing.T, s *session) {
			got, _ := callText(t, s, "test_elicitation", map[string]string{"message": "Who are you?"})
			if got != `User response: action=accept, content={"email":"Gopher","username":"Gopher"}` {
				t.Errorf("text %q", got)
			}
		}},
		{"roots", func(t *testing.T, s *session) {
			_, res := callText(t, s, "list_roots", map[string]any{})
			if string(res.StructuredContent) != `{"roots":[{"uri":"file:///interop/root","name":"interop root"}]}` {
				t.Errorf("structuredContent %s", res.StructuredContent)
			}
		}},
		{"input in two rounds: elicitation, then sampling and roots together", func(t *testing.T, s *session) {
			if got, _ := callText(t, s, "interop_rounds", map[string]any{}); got != "name=Gopher; greeting=sampled by mcpkit; roots=file:///interop/root" {
				t.Errorf("text %q", got)
			}
		}},
		{"resource updates (subscribe, or listen)", func(t *testing.T, s *session) {
			const uri = "test://watched-resource"
			if stateless {
				sub, err := s.cs.Listen(ctxFor(t), &mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}})
				if err != nil {
					t.Fatal(err)
				}
				defer sub.Close()
				if got := sub.Acknowledged(); !slices.Equal(got.ResourceSubscriptions, []string{uri}) || got.ToolsListChanged {
					t.Errorf("acknowledged %+v", got)
				}
				if err := s.cs.Subscribe(ctxFor(t), &mcp.SubscribeParams{URI: uri}); !errors.Is(err, mcp.ErrWrongEra) {
					t.Errorf("Subscribe: %v, want ErrWrongEra", err)
				}
			} else {
				if err := s.cs.Subscribe(ctxFor(t), &mcp.SubscribeParams{URI: uri}); err != nil {
					t.Fatal(err)
				}
				defer s.cs.Unsubscribe(ctxFor(t), &mcp.SubscribeParams{URI: uri})
				if _, err := s.cs.Listen(ctxFor(t), &mcp.SubscriptionFilter{}); !errors.Is(err, mcp.ErrWrongEra) {
					t.Errorf("Listen: %v, want ErrWrongEra", err)
				}
			}
			if got, _ := callText(t, s, "interop_touch_watched", map[string]any{}); got != "touched" {
				t.Errorf("text %q", got)
			}
			s.awaitUpdated(t, uri)
		}},
		{"tools/list_changed (test_trigger_tool_change)", func(t *testing.T, s *session) {
			if !toolNames(t, s)["test_trigger_tool_change"] {
				notYet(t, "the server has no test_trigger_tool_change tool")
			}
			if stateless {
				sub, err := s.cs.Listen(ctxFor(t), &mcp.SubscriptionFilter{ToolsListChanged: true})
				if err != nil {
					t.Fatal(err)
				}
				defer sub.Close()
			}
			callText(t, s, "test_trigger_tool_change", map[string]any{})
			s.awaitToolsChanged(t)
		}},
		{"input_required fixtures of the conformance suite", func(t *testing.T, s *session) {
			// What each fixture answers once the client's handlers have
			// given their input: "Gopher" for every form field (fillForm),
			// "sampled by mcpkit" (sampling) and interopRoots.
			names := toolNames(t, s)
			for _, tc := range []struct{ name, want string }{
				{"test_input_required_result_elicitation", "Hello, Gopher!"},
				{"test_input_required_result_sampling", "LLM response: sampled by mcpkit"},
				{"test_input_required_result_list_roots", "Roots (1): file:///interop/root"},
				{"test_input_required_result_request_state", `state-ok: the requestState was verified; action=accept, content={"ok":true}`},
				{"test_input_required_result_multiple_inputs", "Hello, Gopher! LLM response: sampled by mcpkit Roots (1): file:///interop/root"},
				{"test_input_required_result_multi_round", "Hello, Gopher! Your favorite color is Gopher."},
			} {
				if !names[tc.name] {
					notYet(t, "the server has no %s tool", tc.name)
				}
				if got, res := callText(t, s, tc.name, map[string]any{}); res.IsError || got != tc.want {
					t.Errorf("%s: isError %v, text %q, want %q", tc.name, res.IsError, got, tc.want)
				}
			}
		}},
		{"cancellation reaches the tool handler", func(t *testing.T, s *session) {
			id := "mcpkit-" + transport
			if stateless {
				id += "-stateless"
			}
			ctx, cancel := context.WithCancel(ctxFor(t))
			defer cancel()
			done := make(chan error, 1)
			go func() {
				args, _ := json.Marshal(map[string]string{"id": id})
				_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID(id)}, Name: "interop_slow", Arguments: args})
				done <- err
			}()
			s.awaitProgress(t, id)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if got, _ := callText(t, s, "interop_cancelled", map[string]string{"id": id}); got != "cancelled" {
				t.Errorf("interop_cancelled: %q", got)
			}
		}},
	}
	if transport == "http" && stateless {
		checks = append(checks, check{"Mcp-Param-Region mirrors the x-mcp-header argument (plain and base64)", func(t *testing.T, s *session) {
			for region, header := range map[string]string{
				"eu-west": "eu-west",
				"Zürich":  "=?base64?" + base64.StdEncoding.EncodeToString([]byte("Zürich")) + "?=",
			} {
				if got, _ := callText(t, s, "interop_region", map[string]string{"region": region}); got != "region="+region+"; header="+header {
					t.Errorf("text %q, want the header %q", got, header)
				}
			}
		}})
	}
	return checks
}
