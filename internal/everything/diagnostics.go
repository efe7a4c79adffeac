package everything

// This file holds the diagnostic tools of the conformance suite's
// server-stateless scenario (SEP-2575,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http):
// test_missing_capability (a tool that needs sampling: -32021 when the
// request does not declare it), test_streaming_elicitation (notifications
// on the response stream, then input by multi round-trip, never a
// server-to-client request), test_logging_tool (logs only at the level the
// request asks for) and test_trigger_tool_change and
// test_trigger_prompt_change (change the tool or prompt list, so that
// subscriptions/listen streams are told). They work in the session era
// too.

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/mcp"
)

// Names of the tool and the prompt the trigger fixtures add and remove at
// once.
const (
	TemporaryToolName   = "test_temporary_tool"
	TemporaryPromptName = "test_temporary_prompt"
)

// addDiagnosticTools registers the server-stateless scenario's diagnostic
// tools.
func addDiagnosticTools(s *mcp.Server) {
	must(s.AddTool(&mcp.Tool{
		Name:        "test_missing_capability",
		Description: "Needs the client's sampling capability: a stateless-era request that does not declare it is refused with -32021 (conformance fixture).",
		InputSchema: noArgs,
	}, inputTool(func(ctx context.Context, req *mcp.Request) (string, error) {
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{
			"sample": mcp.SamplingInput(question("Say hello.", 20)),
		})
		if err != nil {
			return "", err
		}
		return sampledText(rs, "sample")
	})))

	must(s.AddTool(&mcp.Tool{
		Name: "test_streaming_elicitation",
		Description: "Streams notifications (progress, when the request has a progressToken; a log message, when it asks for a level) and asks the user for a name " +
			"by multi round-trip in the stateless era, never by a request on the response stream (conformance fixture).",
		InputSchema: noArgs,
	}, inputTool(func(ctx context.Context, req *mcp.Request) (string, error) {
		if err := req.ReportProgress(ctx, 0, 2, "asking for a name"); err != nil {
			return "", err
		}
		if err := req.Log(ctx, mcp.LevelInfo, "", "asking for a name"); err != nil {
			return "", err
		}
		rs, err := req.Input(ctx, map[string]*mcp.InputRequest{keyUserName: mcp.ElicitationInput(nameForm())})
		if err != nil {
			return "", err
		}
		if err := req.ReportProgress(ctx, 1, 2, "answer received"); err != nil {
			return "", err
		}
		hello, err := greeting(rs, keyUserName)
		if err != nil {
			return "", err
		}
		if err := req.ReportProgress(ctx, 2, 2, "done"); err != nil {
			return "", err
		}
		return hello, nil
	})))

	must(s.AddTool(&mcp.Tool{
		Name: "test_logging_tool",
		Description: "Logs three messages at level info: in the stateless era only when the request's _meta asks for a log level, " +
			"in the session era as logging/setLevel allows (conformance fixture).",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		for _, msg := range loggingFixtureMessages {
			if err := req.Log(ctx, mcp.LevelInfo, "", msg); err != nil {
				return nil, err
			}
		}
		return contents(&mcp.TextContent{Text: "Logging tool executed: 3 messages at level info, sent only at the log level the client asked for"}), nil
	}))

	must(s.AddTool(&mcp.Tool{
		Name: "test_trigger_tool_change",
		Description: "Adds " + TemporaryToolName + " and removes it again, so that clients are sent notifications/tools/list_changed " +
			"(on subscriptions/listen streams and session streams) and the list ends as it was (conformance fixture).",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		if err := s.AddTool(&mcp.Tool{Name: TemporaryToolName, Description: "A tool that exists only while test_trigger_tool_change runs.", InputSchema: noArgs},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return contents(&mcp.TextContent{Text: "temporary"}), nil
			}); err != nil {
			return nil, err
		}
		s.RemoveTools(TemporaryToolName)
		return contents(&mcp.TextContent{Text: "The tool list changed: " + TemporaryToolName + " was added and removed."}), nil
	}))

	must(s.AddTool(&mcp.Tool{
		Name: "test_trigger_prompt_change",
		Description: "Adds " + TemporaryPromptName + " and removes it again, so that clients are sent notifications/prompts/list_changed " +
			"(on subscriptions/listen streams and session streams) and the list ends as it was (conformance fixture).",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		if err := s.AddPrompt(&mcp.Prompt{Name: TemporaryPromptName, Description: "A prompt that exists only while test_trigger_prompt_change runs."},
			func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "temporary"}}}}, nil
			}); err != nil {
			return nil, err
		}
		s.RemovePrompts(TemporaryPromptName)
		return contents(&mcp.TextContent{Text: "The prompt list changed: " + TemporaryPromptName + " was added and removed."}), nil
	}))
}
