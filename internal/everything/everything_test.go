package everything_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// connect serves a new reference server over an in-memory transport and
// returns a client session to it; both end with the test.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := everything.NewServer(nil).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, legacyEra(nil)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

const (
	png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// TestToolResults calls every tool with raw params and checks the raw
// result, exactly as the official conformance suite's tools-call-*
// scenarios expect it (conformance/README.md).
func TestToolResults(t *testing.T) {
	cs := connect(t)
	for _, tc := range []struct {
		name   string
		params string // the tools/call params, raw
		want   string
	}{
		{"echo", `{"name":"echo","arguments":{"text":"hi"}}`,
			`{"content":[{"type":"text","text":"hi"}]}`},
		{"echo empty", `{"name":"echo","arguments":{"text":""}}`,
			`{"content":[{"type":"text","text":""}]}`},
		// The suite calls test_simple_text with no arguments member at all.
		{"test_simple_text", `{"name":"test_simple_text"}`,
			`{"content":[{"type":"text","text":"This is a simple text response for testing."}]}`},
		{"test_simple_text with {}", `{"name":"test_simple_text","arguments":{}}`,
			`{"content":[{"type":"text","text":"This is a simple text response for testing."}]}`},
		{"test_image_content", `{"name":"test_image_content","arguments":{}}`,
			`{"content":[{"type":"image","data":"` + png + `","mimeType":"image/png"}]}`},
		{"test_audio_content", `{"name":"test_audio_content","arguments":{}}`,
			`{"content":[{"type":"audio","data":"` + wav + `","mimeType":"audio/wav"}]}`},
		{"test_embedded_resource", `{"name":"test_embedded_resource","arguments":{}}`,
			`{"content":[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]}`},
		{"test_multiple_content_types", `{"name":"test_multiple_content_types","arguments":{}}`,
			`{"content":[` +
				`{"type":"text","text":"Multiple content types test:"},` +
				`{"type":"image","data":"` + png + `","mimeType":"image/png"},` +
				`{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}]}`},
		{"test_error_handling", `{"name":"test_error_handling","arguments":{}}`,
			`{"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],"isError":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			if err := cs.Call(context.Background(), "tools/call", json.RawMessage(tc.params), &got); err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if !sameJSON(t, got, []byte(tc.want)) {
				t.Errorf("result =\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
}

// TestEchoValidatesArguments checks that echo's arguments are validated
// before it runs: a failure is a tool error naming the missing property.
// (The message's wording belongs to package mcp.)
func TestEchoValidatesArguments(t *testing.T) {
	cs := connect(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("result = %+v, want one content with isError", res)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !strings.Contains(text.Text, `"text"`) || !strings.HasPrefix(text.Text, "invalid arguments for tool echo: ") {
		t.Errorf("content = %#v, want a text naming the missing property \"text\"", res.Content[0])
	}
}

// TestToolsList checks what the tools-list scenario checks (a name, a
// non-empty description and an object inputSchema for every tool) and the
// exact schemas.
func TestToolsList(t *testing.T) {
	cs := connect(t)
	want := map[string]string{
		"echo":                        `{"type":"object","required":["text"],"properties":{"text":{"type":"string","description":"the text to echo back"}},"additionalProperties":false}`,
		"test_simple_text":            `{"type":"object","properties":{}}`,
		"test_image_content":          `{"type":"object","properties":{}}`,
		"test_audio_content":          `{"type":"object","properties":{}}`,
		"test_embedded_resource":      `{"type":"object","properties":{}}`,
		"test_multiple_content_types": `{"type":"object","properties":{}}`,
		"test_error_handling":         `{"type":"object","properties":{}}`,
		"test_tool_with_logging":      `{"type":"object","properties":{}}`,
		"test_tool_with_progress":     `{"type":"object","properties":{}}`,
		"countdown":                   `{"type":"object","properties":{"seconds":{"type":"integer","description":"how many seconds to count down, 1 to 60; 3 if absent"}},"additionalProperties":false}`,

		// The tools that ask the client (asking.go); TestAskingToolsSchemas
		// checks their schemas.
		"test_sampling":                     "",
		"test_elicitation":                  "",
		"test_elicitation_sep1034_defaults": "",
		"test_elicitation_sep1330_enums":    "",
		"list_roots":                        "",

		// The pending scenarios' fixtures (pending.go).
		"json_schema_2020_12_tool": everything.JSONSchema202012,
		"test_reconnection":        `{"type":"object","properties":{}}`,

		// The 2026-07-28 fixtures (mrtr.go, diagnostics.go, headers.go).
		"test_input_required_result_elicitation":     `{"type":"object","properties":{}}`,
		"test_input_required_result_sampling":        `{"type":"object","properties":{}}`,
		"test_input_required_result_list_roots":      `{"type":"object","properties":{}}`,
		"test_input_required_result_request_state":   `{"type":"object","properties":{}}`,
		"test_input_required_result_multiple_inputs": `{"type":"object","properties":{}}`,
		"test_input_required_result_multi_round":     `{"type":"object","properties":{}}`,
		"test_input_required_result_tampered_state":  `{"type":"object","properties":{}}`,
		"test_input_required_result_capabilities":    `{"type":"object","properties":{}}`,
		"test_missing_capability":                    `{"type":"object","properties":{}}`,
		"test_streaming_elicitation":                 `{"type":"object","properties":{}}`,
		"test_logging_tool":                          `{"type":"object","properties":{}}`,
		"test_trigger_tool_change":                   `{"type":"object","properties":{}}`,
		"test_trigger_prompt_change":                 `{"type":"object","properties":{}}`,
		"test_header_param":                          everything.HeaderParamSchema,
		// The tasks extension's fixtures (tasks_ext.go).
		"greet":               "",
		"slow_compute":        "",
		"failing_job":         "",
		"protocol_error_job":  "",
		"confirm_delete":      "",
		"multi_input":         "",
		"test_tool_with_task": "",
	}
	seen := map[string]bool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		seen[tool.Name] = true
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		schema, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if schema != "" && !sameJSON(t, tool.InputSchema, []byte(schema)) {
			t.Errorf("%s inputSchema =\n\t%s\nwant\n\t%s", tool.Name, tool.InputSchema, schema)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("tool %s not listed", name)
		}
	}
	caps, _ := json.Marshal(cs.ServerCapabilities())
	if string(caps) != `{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}` {
		t.Errorf("capabilities = %s", caps)
	}
	if info := cs.ServerInfo(); info.Name != everything.Name || info.Version != everything.Version {
		t.Errorf("serverInfo = %+v", info)
	}
}
