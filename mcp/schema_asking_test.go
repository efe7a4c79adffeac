package mcp_test

// Schema test rows (see schema_test.go) for sampling, elicitation and
// roots: the requests and notifications the server sends, the -32042
// error, and what a Client answers.

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

func init() {
	schemaCases = append(schemaCases,
		// Requests and notifications the server sends.
		schemaCase{name: "sampling/createMessage with every member", message: "CreateMessageRequest", method: "sampling/createMessage",
			produce: schemaAsk(`{"sampling":{}}`, `{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}`,
				func(ctx context.Context, req *mcp.Request) error {
					_, err := req.CreateMessage(ctx, samplingParams())
					return err
				})},
		schemaCase{name: "sampling/createMessage with tools, toolChoice, tool_use and tool_result", message: "CreateMessageRequest", method: "sampling/createMessage",
			produce: schemaAsk(`{"sampling":{"tools":{},"context":{}}}`, `{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}`,
				func(ctx context.Context, req *mcp.Request) error {
					_, err := req.CreateMessage(ctx, schemaToolLoop())
					return err
				})},
		schemaCase{name: "elicitation/create form with every field shape", message: "ElicitRequest", method: "elicitation/create",
			produce: schemaAsk(`{"elicitation":{}}`, `{"action":"cancel"}`,
				func(ctx context.Context, req *mcp.Request) error {
					_, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Tell me about you.", RequestedSchema: elicitForm()})
					return err
				})},
		schemaCase{name: "elicitation/create form without mode, $schema and empty required", message: "ElicitRequest", method: "elicitation/create",
			produce: schemaAsk(`{"elicitation":{"form":{}}}`, `{"action":"decline"}`,
				func(ctx context.Context, req *mcp.Request) error {
					_, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Confirm?", RequestedSchema: &mcp.ElicitSchema{
						Schema: "https://json-schema.org/draft/2020-12/schema", Required: []string{},
					}})
					return err
				})},
		schemaCase{name: "elicitation/create url", message: "ElicitRequest", method: "elicitation/create",
			produce: schemaAsk(`{"elicitation":{"url":{}}}`, `{"action":"accept"}`,
				func(ctx context.Context, req *mcp.Request) error {
					_, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Connect your account.", ElicitationID: "550e8400", URL: "https://mcp.example.com/connect?elicitationId=550e8400"})
					return err
				})},
		schemaCase{name: "roots/list", message: "ListRootsRequest", method: "roots/list",
			produce: schemaAsk(`{"roots":{"listChanged":true}}`, `{"roots":[]}`,
				func(ctx context.Context, req *mcp.Request) error {
					_, err := req.ListRoots(ctx, nil)
					return err
				})},
		schemaCase{name: "notifications/elicitation/complete", message: "ElicitationCompleteNotification", method: "notifications/elicitation/complete",
			produce: func(t *testing.T) []byte {
				c := askRaw(t, askServer(t, nil, func(context.Context, *mcp.Request) (string, error) { return "", nil }), `{"elicitation":{"url":{}}}`)
				if err := c.ss.NotifyElicitationComplete(context.Background(), "550e8400"); err != nil {
					t.Fatal(err)
				}
				return c.read()
			}},
		schemaCase{name: "URLElicitationRequired error", message: "JSONRPCErrorResponse", code: jsonrpc.CodeURLElicitationRequired,
			produce: func(t *testing.T) []byte {
				s := askServer(t, nil, func(context.Context, *mcp.Request) (string, error) {
					return "", mcp.URLElicitationRequiredError(
						&mcp.ElicitParams{Message: "Authorization is required.", ElicitationID: "e-1", URL: "https://mcp.example.com/connect?elicitationId=e-1"},
						&mcp.ElicitParams{Mode: "url", Message: "And payment.", ElicitationID: "e-2", URL: "https://pay.example.com/?id=e-2"},
					)
				})
				frame := askRawTool(askRaw(t, s, `{"elicitation":{"url":{}}}`))
				schemaLoad(t).validate(t, "URLElicitationRequiredError", frame)
				return frame
			}},

		// What a Client answers.
		schemaCase{name: "client result for sampling/createMessage", message: "JSONRPCResultResponse", result: "CreateMessageResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Paris."}},
					Model: "claude-3-sonnet-20240307", StopReason: "endTurn", Meta: mcp.Meta{"example.com/cost": json.RawMessage(`1`)}}, nil
			}}, "sampling/createMessage", schemaAskJSON(samplingParams()))},
		schemaCase{name: "client result for sampling/createMessage with tool uses", message: "JSONRPCResultResponse", result: "CreateMessageResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{SamplingTools: true, CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", StopReason: "toolUse", Content: mcp.SamplingContents{
					&mcp.ToolUseContent{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`), Meta: mcp.Meta{"k": json.RawMessage(`1`)}},
					&mcp.ToolUseContent{ID: "call_2", Name: "get_weather"},
				}}, nil
			}}, "sampling/createMessage", schemaAskJSON(schemaToolLoop()))},
		schemaCase{name: "client error: user rejected sampling", message: "JSONRPCErrorResponse", code: -1,
			produce: schemaClientAnswers(&mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				return nil, mcp.UserRejectedSamplingError()
			}}, "sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}`)},
		schemaCase{name: "client invalid params: tools without sampling.tools", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: schemaClientAnswers(&mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				return nil, nil
			}}, "sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)},
		schemaCase{name: "client result for an accepted form", message: "JSONRPCResultResponse", result: "ElicitResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				// Only integral numbers: the 2025-11-25 schema's ElicitResult
				// content allows string, integer, boolean and string lists.
				return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Grace","email":"grace@example.com","age":85,"agree":true,"tags":["x","y"],"langs":["go"]}`)}, nil
			}}, "elicitation/create", `{"message":"m","requestedSchema":`+elicitFormJSON+`}`)},
		schemaCase{name: "client result for a declined form", message: "JSONRPCResultResponse", result: "ElicitResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline", Content: json.RawMessage(`{"name":"x"}`)}, nil
			}}, "elicitation/create", `{"mode":"form","message":"m","requestedSchema":`+elicitFormJSON+`}`)},
		schemaCase{name: "client result for an accepted URL elicitation", message: "JSONRPCResultResponse", result: "ElicitResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{URLElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}, "elicitation/create", `{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com/x"}`)},
		schemaCase{name: "client invalid params: URL elicitation without a URL handler", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: schemaClientAnswers(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return nil, nil
			}}, "elicitation/create", `{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com/x"}`)},
		schemaCase{name: "client result for roots/list", message: "JSONRPCResultResponse", result: "ListRootsResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{Roots: []*mcp.Root{
				{URI: "file:///home/user/projects/myproject", Name: "My Project", Meta: mcp.Meta{"k": json.RawMessage(`"v"`)}},
				{URI: "file:///tmp"},
			}}, "roots/list", ``)},
		schemaCase{name: "client result for roots/list with no roots", message: "JSONRPCResultResponse", result: "ListRootsResult",
			produce: schemaClientAnswers(&mcp.ClientOptions{Roots: []*mcp.Root{}}, "roots/list", `{}`)},
		schemaCase{name: "client method not found for roots/list without roots", message: "JSONRPCErrorResponse", code: jsonrpc.CodeMethodNotFound,
			produce: schemaClientAnswers(nil, "roots/list", ``)},
		schemaCase{name: "client notifications/roots/list_changed", message: "RootsListChangedNotification", method: "notifications/roots/list_changed",
			produce: func(t *testing.T) []byte {
				p := askPeer(t, &mcp.ClientOptions{Roots: []*mcp.Root{}})
				if err := p.cs.Client().SetRoots(context.Background(), &mcp.Root{URI: "file:///new"}); err != nil {
					t.Fatal(err)
				}
				return p.read()
			}},
	)
}

// schemaAskJSON encodes params built in this file, which always encode.
func schemaAskJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// schemaToolLoop is a sampling request in the middle of a tool loop.
func schemaToolLoop() *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages: []*mcp.SamplingMessage{
			{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Weather in Paris?"}}},
			{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.ToolUseContent{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}}},
			{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.ToolResultContent{
				ToolUseID:         "call_1",
				Content:           []mcp.Content{&mcp.TextContent{Text: "18°C"}},
				StructuredContent: json.RawMessage(`{"tempC":18}`),
				Meta:              mcp.Meta{"example.com/cache": json.RawMessage(`true`)},
			}}},
		},
		Tools: []*mcp.Tool{{
			Name: "get_weather", Description: "Get current weather for a city",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		}},
		ToolChoice:     &mcp.ToolChoice{Mode: mcp.ToolChoiceRequired},
		IncludeContext: "allServers",
		MaxTokens:      1000,
	}
}

// schemaAsk returns a produce func: a raw client declaring caps calls a
// tool that runs ask; the request ask sends is answered with result and
// returned.
func schemaAsk(caps, result string, ask func(ctx context.Context, req *mcp.Request) error) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		errc := make(chan error, 1)
		s := askServer(t, nil, func(ctx context.Context, req *mcp.Request) (string, error) {
			err := ask(ctx, req)
			errc <- err
			return "done", nil
		})
		c := askRaw(t, s, caps)
		c.request("tools/call", `{"name":"ask"}`)
		frame := c.read()
		msg, _, err := jsonrpc.Decode(frame)
		if r, ok := msg.(*jsonrpc.Request); err == nil && ok {
			c.send(`{"jsonrpc":"2.0","id":` + r.ID.String() + `,"result":` + result + `}`)
			c.read() // the tool's result
			if err := <-errc; err != nil {
				t.Errorf("the server's request failed: %v", err)
			}
		}
		return frame
	}
}

// schemaClientAnswers returns a produce func: a Client with opts receives
// a raw request for method with params, and its answer is returned.
func schemaClientAnswers(opts *mcp.ClientOptions, method, params string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		return askPeerCall(askPeer(t, opts), `"srv-1"`, method, params)
	}
}
