package everything

// This file holds the tools that ask the client for something while they
// run: the conformance fixtures test_sampling, test_elicitation,
// test_elicitation_sep1034_defaults and test_elicitation_sep1330_enums,
// with the requests and result texts the official conformance suite's
// scenarios check (conformance/README.md), and
// list_roots, an example of roots/list.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// SamplingArgs is the input of test_sampling.
type SamplingArgs struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

// ElicitationArgs is the input of test_elicitation.
type ElicitationArgs struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

// RootsResult is the output of list_roots.
type RootsResult struct {
	Roots []*mcp.Root `json:"roots"`
}

// addAskingTools registers the tools that send sampling, elicitation and
// roots requests to the client.
func addAskingTools(s *mcp.Server) {
	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "test_sampling",
		Description: "Asks the client's LLM to answer the prompt (sampling/createMessage; conformance fixture).",
	}, func(ctx context.Context, req *mcp.Request, in SamplingArgs) (string, error) {
		res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages: []*mcp.SamplingMessage{{
				Role:    mcp.RoleUser,
				Content: mcp.SamplingContents{&mcp.TextContent{Text: in.Prompt}},
			}},
			MaxTokens: 100,
		})
		if err != nil {
			return "", toolError(err)
		}
		return llmResponse(res), nil
	}))

	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "test_elicitation",
		Description: "Asks the user for a username and an email address (elicitation/create; conformance fixture).",
	}, func(ctx context.Context, req *mcp.Request, in ElicitationArgs) (string, error) {
		return elicitText(ctx, req, "User response: ", &mcp.ElicitParams{
			Message: in.Message,
			RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{
					{Name: "username", Schema: &mcp.PrimitiveSchema{Type: "string", Description: "User's response"}},
					{Name: "email", Schema: &mcp.PrimitiveSchema{Type: "string", Description: "User's email address"}},
				},
				Required: []string{"username", "email"},
			},
		})
	}))

	must(s.AddTool(&mcp.Tool{
		Name:        "test_elicitation_sep1034_defaults",
		Description: "Asks for a form whose fields all have defaults (SEP-1034; conformance fixture).",
		InputSchema: noArgs,
	}, textTool(func(ctx context.Context, req *mcp.Request) (string, error) {
		return elicitText(ctx, req, "Elicitation completed: ", &mcp.ElicitParams{
			Message:         "Please review and update the form fields with defaults",
			RequestedSchema: sep1034Schema(),
		})
	})))

	must(s.AddTool(&mcp.Tool{
		Name:        "test_elicitation_sep1330_enums",
		Description: "Asks for a form with every kind of enum: single and multi select, titled and untitled, legacy enumNames (SEP-1330; conformance fixture).",
		InputSchema: noArgs,
	}, textTool(func(ctx context.Context, req *mcp.Request) (string, error) {
		return elicitText(ctx, req, "Elicitation completed: ", &mcp.ElicitParams{
			Message:         "Please select options from the enum fields",
			RequestedSchema: sep1330Schema(),
		})
	})))

	must(mcp.AddTool(s, &mcp.Tool{
		Name:        "list_roots",
		Title:       "List roots",
		Description: "Returns the roots the client shares with the server (roots/list).",
	}, func(ctx context.Context, req *mcp.Request, _ struct{}) (*RootsResult, error) {
		res, err := req.ListRoots(ctx, nil)
		if err != nil {
			return nil, toolError(err)
		}
		return &RootsResult{Roots: res.Roots}, nil
	}))
}

// textTool adapts a function that returns text, or a Go error that becomes
// a result with isError, to a ToolHandler that ignores its arguments.
func textTool(f func(ctx context.Context, req *mcp.Request) (string, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		text, err := f(ctx, req)
		if err != nil {
			return nil, err
		}
		return contents(&mcp.TextContent{Text: text}), nil
	}
}

// elicitText sends an elicitation and describes the answer as the
// conformance fixtures do: prefix, then "action=<action>, content=<the
// content as JSON, {} when there is none>".
func elicitText(ctx context.Context, req *mcp.Request, prefix string, p *mcp.ElicitParams) (string, error) {
	res, err := req.Elicit(ctx, p)
	if err != nil {
		return "", toolError(err)
	}
	content := []byte("{}")
	if len(res.Content) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, res.Content); err != nil {
			return "", fmt.Errorf("the client's content: %w", err)
		}
		content = b.Bytes()
	}
	return prefix + "action=" + res.Action + ", content=" + string(content), nil
}

// toolError makes the client's JSON-RPC error (say -32601 from a client
// without a sampling handler) a tool error that quotes it: returned as it
// is, it would answer tools/call itself with that error, as if the tool
// were missing.
func toolError(err error) error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return errors.New("the client answered: " + rpcErr.Error())
	}
	return err
}

func intPtr(n int) *int { return &n }

// sep1034Schema has one field of each primitive type, each with a default
// (test_elicitation_sep1034_defaults). The types are exactly those the
// conformance suite checks.
func sep1034Schema() *mcp.ElicitSchema {
	return &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string", Description: "User name", Default: "John Doe"}},
			{Name: "age", Schema: &mcp.PrimitiveSchema{Type: "integer", Description: "User age", Default: 30}},
			{Name: "score", Schema: &mcp.PrimitiveSchema{Type: "number", Description: "User score", Default: 95.5}},
			{Name: "status", Schema: &mcp.PrimitiveSchema{
				Type: "string", Description: "User status",
				Enum: []string{"active", "inactive", "pending"}, Default: "active",
			}},
			{Name: "verified", Schema: &mcp.PrimitiveSchema{Type: "boolean", Description: "Verification status", Default: true}},
		},
		Required: []string{},
	}
}

// sep1330Schema has every enum shape (test_elicitation_sep1330_enums).
func sep1330Schema() *mcp.ElicitSchema {
	return &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "untitledSingle", Schema: &mcp.PrimitiveSchema{
				Type: "string", Description: "Select one option",
				Enum: []string{"option1", "option2", "option3"},
			}},
			{Name: "titledSingle", Schema: &mcp.PrimitiveSchema{
				Type: "string", Description: "Select one option with titles",
				OneOf: []mcp.EnumOption{
					{Const: "value1", Title: "First Option"},
					{Const: "value2", Title: "Second Option"},
					{Const: "value3", Title: "Third Option"},
				},
			}},
			{Name: "legacyEnum", Schema: &mcp.PrimitiveSchema{
				Type: "string", Description: "Select one option (legacy)",
				Enum:      []string{"opt1", "opt2", "opt3"},
				EnumNames: []string{"Option One", "Option Two", "Option Three"},
			}},
			{Name: "untitledMulti", Schema: &mcp.PrimitiveSchema{
				Type: "array", Description: "Select multiple options",
				MinItems: intPtr(1), MaxItems: intPtr(3),
				Items: &mcp.EnumItems{Type: "string", Enum: []string{"option1", "option2", "option3"}},
			}},
			{Name: "titledMulti", Schema: &mcp.PrimitiveSchema{
				Type: "array", Description: "Select multiple options with titles",
				MinItems: intPtr(1), MaxItems: intPtr(3),
				Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{
					{Const: "value1", Title: "First Choice"},
					{Const: "value2", Title: "Second Choice"},
					{Const: "value3", Title: "Third Choice"},
				}},
			}},
		},
		Required: []string{},
	}
}
