package interop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// tsRun is one connection to a TypeScript SDK server: which server, how
// the client starts (its era), and the checks.
type tsRun struct {
	name string
	// script runs the server with node from this directory; the transport
	// ("stdio" or "http") is appended.
	script string
	era    mcp.ProtocolEra
	checks []check
}

// TestTypeScriptServers drives TypeScript SDK servers with mcpkit's client
// over stdio and Streamable HTTP:
//
//   - @modelcontextprotocol/server-everything (v1 SDK, session era only)
//     with the client's default era, EraAuto: its server/discover probe
//     must fall back to initialize;
//   - ts/server-v2.mjs (v2 SDK, both eras) once with EraSession (initialize,
//     sessions, server-to-client requests, also those the SDK's shim makes
//     of its input_required tools) and once with EraAuto, which must
//     select 2026-07-28.
func TestTypeScriptServers(t *testing.T) {
	node := requireNode(t)
	const everything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	runs := []tsRun{
		{
			name:   "server-everything(v1)",
			script: everything,
			era:    mcp.EraAuto,
			checks: slices.Concat([]check{eraCheck(false, mcp.LatestVersion)}, commonChecks("mcp-servers/everything"), everythingChecks),
		},
		{
			name:   "server-v2/2025-11-25",
			script: "ts/server-v2.mjs",
			era:    mcp.EraSession,
			checks: slices.Concat([]check{eraCheck(false, mcp.LatestVersion)}, commonChecks("mcpkit-interop-ts-v2"), v2Checks, v2InputChecks),
		},
		{
			name:   "server-v2/2026-07-28",
			script: "ts/server-v2.mjs",
			era:    mcp.EraAuto,
			checks: slices.Concat([]check{eraCheck(true, mcp.Version20260728)}, v2ModernChecks, v2InputChecks),
		},
	}
	for _, run := range runs {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(run.name+"/"+transport, func(t *testing.T) {
				var url string
				if transport == "http" {
					args := []string{run.script, "http"}
					if run.script == everything {
						// Its HTTP entry listens on every interface and a
						// fixed port; the wrapper keeps it on 127.0.0.1 and
						// a free port.
						args = []string{"ts/everything-http.mjs"}
					}
					url = startHTTPServer(t, node, args...)
				}
				connect := func(t *testing.T, cfg clientConfig) *session {
					if transport == "stdio" {
						return connectCommand(t, cfg, node, run.script, "stdio")
					}
					return connectURL(t, cfg, url)
				}
				checks := run.checks
				if run.era == mcp.EraAuto && run.script != everything {
					checks = append(slices.Clone(checks), check{"input: -32021 for a capability the client did not declare", func(t *testing.T, _ *session) {
						bare := connect(t, clientConfig{era: run.era, bare: true})
						_, err := bare.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "ask_elicitation_mrtr", Arguments: json.RawMessage(`{}`)})
						// The SDK names the form mode it would use, where
						// mcpkit's server names elicitation only.
						if e := rpcError(t, err); e.Code != -32021 || string(e.Data) != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
							t.Errorf("error %d %s %s, want -32021 with requiredCapabilities elicitation.form", e.Code, e.Message, e.Data)
						}
					}})
				}
				runChecks(t, "TestTypeScriptServers", connect(t, clientConfig{era: run.era}), checks)
			})
		}
	}
}

// commonChecks hold for every TypeScript server.
func commonChecks(wantName string) []check {
	return []check{
		{"initialize", func(t *testing.T, s *session) {
			if info := s.cs.ServerInfo(); info == nil || info.Name != wantName {
				t.Errorf("serverInfo = %+v, want the name %q", info, wantName)
			}
			if v := s.cs.ProtocolVersion(); v != mcp.LatestVersion {
				t.Errorf("protocolVersion = %q, want %q", v, mcp.LatestVersion)
			}
			if caps := s.cs.ServerCapabilities(); caps == nil || caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Logging == nil {
				t.Errorf("capabilities = %+v, want tools, prompts, resources and logging", caps)
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

// v2Checks use ts/server-v2.mjs's fixtures in the session era.
var v2Checks = []check{
	v2EchoCheck,
	v2StructuredCheck,
	v2InvalidArgsCheck,
	{"progress and logging during a call", func(t *testing.T, s *session) {
		// The session's level is debug (commonChecks' logging/setLevel).
		progressAndLog(t, s, ctxFor(t), 3)
	}},
	v2CancelCheck("session-era"),
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
	v2ReadCheck,
	v2PromptCheck,
	{"tools/list_changed (session stream)", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "trigger_tools_changed", map[string]any{}); got != "announced" {
			t.Errorf("text %q", got)
		}
		s.awaitToolsChanged(t)
	}},
}

// v2ModernChecks use ts/server-v2.mjs's fixtures in the 2026-07-28 era.
var v2ModernChecks = []check{
	{"server/discover", func(t *testing.T, s *session) {
		d, err := s.cs.Discover(ctxFor(t))
		if err != nil {
			t.Fatalf("Discover: %v", err)
		}
		// The TypeScript SDK lists only the stateless-era versions; the
		// session era's are reached through initialize.
		if !slices.Equal(d.SupportedVersions, []string{mcp.Version20260728}) {
			t.Errorf("supportedVersions %v", d.SupportedVersions)
		}
		if info := s.cs.ServerInfo(); info == nil || info.Name != "mcpkit-interop-ts-v2" {
			t.Errorf("serverInfo %+v", info)
		}
		caps := s.cs.ServerCapabilities()
		if caps.Tools == nil || !caps.Tools.ListChanged || caps.Logging == nil || caps.Prompts == nil || caps.Resources == nil {
			t.Errorf("capabilities %+v", caps)
		}
		again, err := s.cs.Discover(ctxFor(t)) // the same answer twice
		if err != nil || !slices.Equal(again.SupportedVersions, d.SupportedVersions) {
			t.Errorf("Discover: %+v, %v", again, err)
		}
	}},
	{"tools/list", func(t *testing.T, s *session) {
		names := toolNames(t, s)
		for _, want := range []string{"echo", "add", "ask_rounds", "trigger_tools_changed"} {
			if !names[want] {
				t.Errorf("%s not listed in %v", want, names)
			}
		}
	}},
	v2EchoCheck,
	v2StructuredCheck,
	v2InvalidArgsCheck,
	{"tools/call unknown tool is -32602", func(t *testing.T, s *session) {
		_, err := s.cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "no_such_tool", Arguments: json.RawMessage(`{}`)})
		if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("code %d, want %d", e.Code, jsonrpc.CodeInvalidParams)
		}
	}},
	{"progress and logging with _meta logLevel", func(t *testing.T, s *session) {
		progressAndLog(t, s, mcp.WithLogLevel(ctxFor(t), mcp.LevelDebug), 3)
	}},
	{"no log messages without a logLevel", func(t *testing.T, s *session) {
		progressAndLog(t, s, ctxFor(t), 0)
	}},
	v2CancelCheck("stateless-era"),
	v2ReadCheck,
	v2PromptCheck,
	{"subscriptions/listen: tools/list_changed", func(t *testing.T, s *session) {
		sub, err := s.cs.Listen(ctxFor(t), &mcp.SubscriptionFilter{ToolsListChanged: true})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		if got := sub.Acknowledged(); !got.ToolsListChanged || got.PromptsListChanged || len(got.ResourceSubscriptions) != 0 {
			t.Errorf("acknowledged %+v", got)
		}
		if got, _ := callText(t, s, "trigger_tools_changed", map[string]any{}); got != "announced" {
			t.Errorf("text %q", got)
		}
		s.awaitToolsChanged(t)
	}},
	{"Ping is a server/discover in this era", func(t *testing.T, s *session) {
		if err := s.cs.Ping(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
	}},
	{"session-era methods are refused without a request", func(t *testing.T, s *session) {
		err := s.cs.Subscribe(ctxFor(t), &mcp.SubscribeParams{URI: "interop://greeting"})
		if !errors.Is(err, mcp.ErrWrongEra) {
			t.Errorf("Subscribe: %v, want ErrWrongEra", err)
		}
	}},
}

// v2InputChecks call ts/server-v2.mjs's tools written with inputRequired:
// in the 2026-07-28 era the client answers their input_required results
// with its handlers and retries; in the session era the SDK's shim makes
// server-to-client requests of them, which the same handlers answer.
var v2InputChecks = []check{
	{"input: elicitation", func(t *testing.T, s *session) {
		before := s.elicitedCount()
		if got, _ := callText(t, s, "ask_elicitation_mrtr", map[string]any{}); got != "accept: Gopher" {
			t.Errorf("text %q", got)
		}
		if n := s.elicitedCount() - before; n != 1 {
			t.Errorf("%d elicitations, want 1", n)
		}
	}},
	{"input: sampling", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "ask_sampling_mrtr", map[string]string{"prompt": "hello"}); got != "sampled: sampled by mcpkit" {
			t.Errorf("text %q", got)
		}
	}},
	{"input: roots", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "ask_roots_mrtr", map[string]any{}); got != "roots: file:///interop/root" {
			t.Errorf("text %q", got)
		}
	}},
	{"input: two rounds, signed requestState", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "ask_rounds", map[string]any{}); got != "name=Gopher; greeting=sampled by mcpkit; roots=file:///interop/root" {
			t.Errorf("text %q", got)
		}
	}},
}

var (
	v2EchoCheck = check{"tools/call echo", func(t *testing.T, s *session) {
		if got, _ := callText(t, s, "echo", map[string]string{"text": "hi"}); got != "hi" {
			t.Errorf("text %q", got)
		}
	}}
	v2StructuredCheck = check{"tools/call structured output", func(t *testing.T, s *session) {
		_, res := callText(t, s, "add", map[string]int{"a": 2, "b": 40})
		if string(res.StructuredContent) != `{"sum":42}` {
			t.Errorf("structuredContent %s", res.StructuredContent)
		}
	}}
	v2InvalidArgsCheck = check{"tools/call invalid arguments", func(t *testing.T, s *session) {
		got, res := callText(t, s, "echo", map[string]int{"text": 5})
		if !res.IsError || !strings.Contains(got, "Invalid arguments for tool echo") {
			t.Errorf("isError %v, text %q", res.IsError, got)
		}
	}}
	v2ReadCheck = check{"resources/read", func(t *testing.T, s *session) {
		res, err := s.cs.ReadResource(ctxFor(t), &mcp.ReadResourceParams{URI: "interop://greeting"})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Contents; len(c) != 1 || c[0].URI != "interop://greeting" || c[0].MIMEType != "text/plain" || c[0].Text != "Hello from TypeScript v2" {
			b, _ := json.Marshal(res.Contents)
			t.Errorf("contents %s", b)
		}
	}}
	v2PromptCheck = check{"prompts/get", func(t *testing.T, s *session) {
		res, err := s.cs.GetPrompt(ctxFor(t), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Go"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser || texts([]mcp.Content{res.Messages[0].Content}) != "Hello, Go!" {
			t.Errorf("messages %+v", res.Messages)
		}
	}}
)

// progressAndLog calls progress_and_log under ctx and wants its three
// progress notifications and wantLogs log messages before the result.
func progressAndLog(t *testing.T, s *session, ctx context.Context, wantLogs int) {
	t.Helper()
	beforeP, beforeL := len(s.progressSeen()), len(s.logsSeen())
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{
		Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(77)}, Name: "progress_and_log", Arguments: json.RawMessage(`{}`),
	})
	if err != nil || res.IsError {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if got := s.progressSeen()[beforeP:]; !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("progress %v, want [1 2 3] before the result", got)
	}
	want := []string{`"step 1"`, `"step 2"`, `"step 3"`}[:wantLogs]
	if got := s.logsSeen()[beforeL:]; !slices.Equal(got, want) {
		t.Errorf("logs %v, want %v before the result", got, want)
	}
}

// v2CancelCheck cancels wait_for_cancel once it runs and asks
// was_cancelled whether the server saw it.
func v2CancelCheck(id string) check {
	return check{"cancellation reaches the server", func(t *testing.T, s *session) {
		ctx, cancel := context.WithCancel(ctxFor(t))
		defer cancel()
		args, _ := json.Marshal(map[string]string{"id": id})
		done := make(chan error, 1)
		go func() {
			_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("wait-" + id)}, Name: "wait_for_cancel", Arguments: args})
			done <- err
		}()
		s.awaitProgress(t, "wait-"+id)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if got, _ := callText(t, s, "was_cancelled", map[string]string{"id": id}); got != "cancelled" {
			t.Errorf("was_cancelled: %q", got)
		}
	}}
}
