package everything_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// The 2026-07-28 fixtures read the same in the session era: there,
// Request.Input sends real elicitation, sampling and roots requests, and the
// tools answer at once. These tests run them over an in-memory session.

// TestMRTRToolsSessionEra calls the MRTR tools on a session whose client
// answers every kind of input, and checks what each sent and answered.
func TestMRTRToolsSessionEra(t *testing.T) {
	elicits := make(chan *mcp.ElicitParams, 4)
	samples := make(chan *mcp.CreateMessageParams, 4)
	cs := askConnect(t, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			elicits <- p
			content := `{"name":"Alice"}`
			switch p.Message {
			case "Step 2: What is your favorite color?":
				content = `{"color":"blue"}`
			case "What context should the prompt use?":
				content = `{"context":"test context"}`
			}
			return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(content)}, nil
		},
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			samples <- p
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.SamplingContents{&mcp.TextContent{Text: "Paris"}}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///test/root", Name: "Test Root"}},
	})
	for _, tc := range []struct {
		tool, text        string
		elicited, sampled []string // the requests' params, in order
	}{
		{"test_input_required_result_elicitation", "Hello, Alice!",
			[]string{`{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`}, nil},
		{"test_input_required_result_sampling", "LLM response: Paris", nil,
			[]string{`{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}`}},
		{"test_input_required_result_list_roots", "Roots (1): file:///test/root", nil, nil},
		{"test_input_required_result_multi_round", "Hello, Alice! Your favorite color is blue.",
			[]string{
				`{"message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
				`{"message":"Step 2: What is your favorite color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}`,
			}, nil},
		{"test_input_required_result_multiple_inputs", "Hello, Alice! LLM response: Paris Roots (1): file:///test/root",
			[]string{`{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`},
			[]string{`{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}`}},
		{"test_missing_capability", "LLM response: Paris", nil,
			[]string{`{"messages":[{"role":"user","content":{"type":"text","text":"Say hello."}}],"maxTokens":20}`}},
		{"test_streaming_elicitation", "Hello, Alice!",
			[]string{`{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`}, nil},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res := askCallRaw(t, cs, `{"name":"`+tc.tool+`","arguments":{}}`)
			want, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tc.text}}})
			if !sameJSON(t, []byte(res), want) {
				t.Errorf("result =\n\t%s\nwant\n\t%s", res, want)
			}
			for _, w := range tc.elicited {
				askWantJSON(t, "elicitation", <-elicits, w)
			}
			for _, w := range tc.sampled {
				askWantJSON(t, "sampling", <-samples, w)
			}
			select {
			case p := <-elicits:
				t.Errorf("also elicited %+v", p)
			case p := <-samples:
				t.Errorf("also sampled %+v", p)
			default:
			}
		})
	}

	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
	if err != nil {
		t.Fatal(err)
	}
	askWantJSON(t, "elicitation", <-elicits, `{"message":"What context should the prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}`)
	askWantJSON(t, "prompt", res, `{"messages":[{"role":"user","content":{"type":"text","text":"Use this context: test context"}}]}`)
}

// TestMRTRToolsSessionEraWithoutCapabilities: a session client that
// declared nothing gets a tool error, and nothing is sent to it; the
// capabilities tool asks nothing.
func TestMRTRToolsSessionEraWithoutCapabilities(t *testing.T) {
	cs := askConnect(t, nil)
	res := askCallRaw(t, cs, `{"name":"test_missing_capability","arguments":{}}`)
	if want := `{"content":[{"type":"text","text":"mcp: sampling/createMessage not sent: the client did not declare the sampling capability"}],"isError":true}`; res != want {
		t.Errorf("test_missing_capability =\n\t%s\nwant\n\t%s", res, want)
	}
	res = askCallRaw(t, cs, `{"name":"test_input_required_result_capabilities","arguments":{}}`)
	if want := `{"content":[{"type":"text","text":"The client declared no capability to give input with, so nothing was asked."}]}`; res != want {
		t.Errorf("test_input_required_result_capabilities =\n\t%s\nwant\n\t%s", res, want)
	}
}

// TestTriggersSessionEra: the triggers tell session clients too: once or
// twice (added, removed; an unwritten list_changed stands for both).
func TestTriggersSessionEra(t *testing.T) {
	tools, prompts := make(chan struct{}, 2), make(chan struct{}, 2)
	cs := askConnect(t, &mcp.ClientOptions{
		ToolListChangedHandler:   func(context.Context, *mcp.ClientSession) { tools <- struct{}{} },
		PromptListChangedHandler: func(context.Context, *mcp.ClientSession) { prompts <- struct{}{} },
	})
	askCallRaw(t, cs, `{"name":"test_trigger_tool_change","arguments":{}}`)
	askCallRaw(t, cs, `{"name":"test_trigger_prompt_change","arguments":{}}`)
	for name, ch := range map[string]chan struct{}{"tools": tools, "prompts": prompts} {
		select {
		case <-ch:
		case <-time.After(30 * time.Second): // a watchdog, not a timing assertion
			t.Errorf("no %s/list_changed", name)
		}
	}
}
