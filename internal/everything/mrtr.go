package everything

// This file holds the multi round-trip fixtures of the conformance suite's
// input-required-result-* scenarios (SEP-2322,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr):
// tools and a prompt that ask the client for input through Request.Input,
// with the keys, messages and schemas the suite's scenarios describe. In
// the stateless era a first call answers input_required and the retry, with
// the answers, completes; in the session era the same code sends real
// elicitation, sampling and roots requests and answers at once.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
)

// The input request keys of the MRTR fixtures, as the suite's scenario
// descriptions name them.
const (
	keyUserName    = "user_name"
	keyCapital     = "capital_question"
	keyClientRoots = "client_roots"
	keyConfirm     = "confirm"
	keyGreeting    = "greeting"
	keyStep1       = "step1"
	keyStep2       = "step2"
	keyUserContext = "user_context"
)

// stringForm is a form of one required string field.
func stringForm(message, field string) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message: message,
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: field, Schema: &mcp.PrimitiveSchema{Type: "string"}}},
			Required:   []string{field},
		},
	}
}

// nameForm is the elicitation of test_input_required_result_elicitation
// (and of _multiple_inputs and _capabilities).
func nameForm() *mcp.ElicitParams { return stringForm("What is your name?", "name") }

// confirmForm asks for one required boolean, ok.
func confirmForm() *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message: "Please confirm",
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "ok", Schema: &mcp.PrimitiveSchema{Type: "boolean"}}},
			Required:   []string{"ok"},
		},
	}
}

// confirmation is a fixture that asks for confirmForm under confirm and
// answers with said and what the user chose.
func confirmation(said string) func(ctx context.Context, req *mcp.Request) (string, error) {
	return func(ctx context.Context, req *mcp.Request) (string, error) {
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{keyConfirm: mcp.ElicitationInput(confirmForm())})
		if err != nil {
			return "", err
		}
		res, err := rs.Elicitation(keyConfirm)
		if err != nil {
			return "", err
		}
		return said + "; action=" + res.Action + ", content=" + compactJSON(res.Content), nil
	}
}

// question is a sampling request of one user text.
func question(text string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages: []*mcp.SamplingMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.SamplingContents{&mcp.TextContent{Text: text}},
		}},
		MaxTokens: maxTokens,
	}
}

// addMRTRFixtures registers the test_input_required_result_* tools and the
// test_input_required_result_prompt prompt.
func addMRTRFixtures(s *mcp.Server) {
	mrtrTool := func(name, description string, f func(ctx context.Context, req *mcp.Request) (string, error)) {
		must(s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: noArgs}, inputTool(f)))
	}

	mrtrTool("test_input_required_result_elicitation",
		"Asks the user's name (elicitation under user_name), then greets them (SEP-2322 conformance fixture).",
		func(ctx context.Context, req *mcp.Request) (string, error) {
			rs, err := req.Input(ctx, map[string]*mcp.InputRequest{keyUserName: mcp.ElicitationInput(nameForm())})
			if err != nil {
				return "", err
			}
			return greeting(rs, keyUserName)
		})

	mrtrTool("test_input_required_result_sampling",
		"Asks the client's LLM for the capital of France (sampling under capital_question), then quotes the answer (SEP-2322 conformance fixture).",
		func(ctx context.Context, req *mcp.Request) (string, error) {
			rs, err := req.Input(ctx, map[string]*mcp.InputRequest{
				keyCapital: mcp.SamplingInput(question("What is the capital of France?", 100)),
			})
			if err != nil {
				return "", err
			}
			return sampledText(rs, keyCapital)
		})

	mrtrTool("test_input_required_result_list_roots",
		"Asks for the client's roots (roots/list under client_roots), then lists them (SEP-2322 conformance fixture).",
		func(ctx context.Context, req *mcp.Request) (string, error) {
			rs, err := req.Input(ctx, map[string]*mcp.InputRequest{keyClientRoots: mcp.RootsInput()})
			if err != nil {
				return "", err
			}
			return rootsText(rs, keyClientRoots)
		})

	mrtrTool("test_input_required_result_request_state",
		"Asks for a confirmation (elicitation under confirm) with a signed requestState; the retry answers \"state-ok\" once the state is verified (SEP-2322 conformance fixture).",
		confirmation("state-ok: the requestState was verified"))

	mrtrTool("test_input_required_result_multiple_inputs",
		"Asks for three inputs at once: a name (elicitation under user_name), a greeting (sampling under greeting) and the roots (roots/list under client_roots) (SEP-2322 conformance fixture).",
		func(ctx context.Context, req *mcp.Request) (string, error) {
			rs, err := req.Input(ctx, map[string]*mcp.InputRequest{
				keyUserName:    mcp.ElicitationInput(nameForm()),
				keyGreeting:    mcp.SamplingInput(question("Generate a greeting", 50)),
				keyClientRoots: mcp.RootsInput(),
			})
			if err != nil {
				return "", err
			}
			hello, err := greeting(rs, keyUserName)
			if err != nil {
				return "", err
			}
			sampled, err := sampledText(rs, keyGreeting)
			if err != nil {
				return "", err
			}
			roots, err := rootsText(rs, keyClientRoots)
			if err != nil {
				return "", err
			}
			return hello + " " + sampled + " " + roots, nil
		})

	mrtrTool("test_input_required_result_multi_round",
		"Asks in two rounds: a name (elicitation under step1), then a favourite colour (elicitation under step2), each round with a new requestState (SEP-2322 conformance fixture).",
		func(ctx context.Context, req *mcp.Request) (string, error) {
			rs, err := req.Input(ctx, map[string]*mcp.InputRequest{
				keyStep1: mcp.ElicitationInput(stringForm("Step 1: What is your name?", "name")),
			})
			if err != nil {
				return "", err
			}
			name, err := acceptedString(rs, keyStep1, "name")
			if err != nil {
				return "", err
			}
			rs, err = req.Input(ctx, map[string]*mcp.InputRequest{
				keyStep2: mcp.ElicitationInput(stringForm("Step 2: What is your favorite color?", "color")),
			})
			if err != nil {
				return "", err
			}
			color, err := acceptedString(rs, keyStep2, "color")
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Hello, %s! Your favorite color is %s.", name, color), nil
		})

	mrtrTool("test_input_required_result_tampered_state",
		"Asks for a confirmation (elicitation under confirm) with a signed requestState; a retry whose state was altered is refused with -32602 (SEP-2322 conformance fixture).",
		confirmation("The requestState was intact"))

	mrtrTool("test_input_required_result_capabilities",
		"Asks for each kind of input the request's client capabilities declare (elicitation, sampling, roots), and for nothing else (SEP-2322 conformance fixture).",
		func(ctx context.Context, req *mcp.Request) (string, error) {
			caps := req.ClientCapabilities
			if caps == nil {
				caps = &mcp.ClientCapabilities{}
			}
			asks := map[string]*mcp.InputRequest{}
			if caps.Elicitation != nil {
				asks[keyUserName] = mcp.ElicitationInput(nameForm())
			}
			if caps.Sampling != nil {
				asks[keyGreeting] = mcp.SamplingInput(question("Generate a greeting", 50))
			}
			if caps.Roots != nil {
				asks[keyClientRoots] = mcp.RootsInput()
			}
			if len(asks) == 0 {
				return "The client declared no capability to give input with, so nothing was asked.", nil
			}
			rs, err := req.Input(ctx, asks)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Received %d input(s), one for each capability the client declared.", len(rs)), nil
		})

	must(mcp.AddPrompt(s, &mcp.Prompt{
		Name:        "test_input_required_result_prompt",
		Title:       "Prompt that asks for its context",
		Description: "Asks the user for the context to use (elicitation under user_context), then returns a prompt with it (SEP-2322 conformance fixture).",
	}, func(ctx context.Context, req *mcp.Request, _ struct{}) (*mcp.GetPromptResult, error) {
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{
			keyUserContext: mcp.ElicitationInput(stringForm("What context should the prompt use?", "context")),
		})
		if err != nil {
			return nil, err
		}
		text, err := acceptedString(rs, keyUserContext, "context")
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
			Role:    mcp.RoleUser,
			Content: &mcp.TextContent{Text: "Use this context: " + text},
		}}}, nil
	}))
}

// inputTool adapts a handler that asks for input to a ToolHandler. An error
// of Request.Input stays the request's error in the stateless era (asking
// again, a missing capability -32021, an invalid answer -32602); in the
// session era it becomes a tool error (toolError), as for the other asking
// fixtures.
func inputTool(f func(ctx context.Context, req *mcp.Request) (string, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		text, err := f(ctx, req)
		if err != nil {
			if req.Stateless() {
				return nil, err
			}
			return nil, toolError(err)
		}
		return contents(&mcp.TextContent{Text: text}), nil
	}
}

// greeting is "Hello, <name>!" for an accepted name form, or says what the
// user did instead.
func greeting(rs mcp.InputResponses, key string) (string, error) {
	name, err := acceptedString(rs, key, "name")
	if err != nil {
		return "", err
	}
	return "Hello, " + name + "!", nil
}

// acceptedString returns the string field of an accepted form answer, or a
// placeholder naming the action when the user declined or cancelled.
func acceptedString(rs mcp.InputResponses, key, field string) (string, error) {
	res, err := rs.Elicitation(key)
	if err != nil {
		return "", err
	}
	if res.Action != mcp.ElicitActionAccept {
		return "(" + res.Action + ")", nil
	}
	var content map[string]json.RawMessage
	if err := json.Unmarshal(res.Content, &content); err != nil {
		return "", fmt.Errorf("the answer to %s: %w", key, err)
	}
	var s string
	if err := json.Unmarshal(content[field], &s); err != nil {
		return "", fmt.Errorf("the answer to %s: %s: %w", key, field, err)
	}
	return s, nil
}

// sampledText is "LLM response: <text>" for a sampling answer.
func sampledText(rs mcp.InputResponses, key string) (string, error) {
	res, err := rs.Sampling(key)
	if err != nil {
		return "", err
	}
	return llmResponse(res), nil
}

// llmResponse is "LLM response: " and the first text of a sampling
// result, or "No response" when it has none: what the sampling fixtures
// of both eras answer.
func llmResponse(res *mcp.CreateMessageResult) string {
	text := "No response"
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = t.Text
			break
		}
	}
	return "LLM response: " + text
}

// rootsText lists the URIs of a roots answer.
func rootsText(rs mcp.InputResponses, key string) (string, error) {
	res, err := rs.Roots(key)
	if err != nil {
		return "", err
	}
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return fmt.Sprintf("Roots (%d): %s", len(uris), strings.Join(uris, ", ")), nil
}

// compactJSON is raw compacted, or {} when empty or invalid.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return "{}"
	}
	return b.String()
}
