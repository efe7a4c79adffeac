package everything

// This file holds the tools that show the protocol's utilities while a
// request runs: the conformance fixtures test_tool_with_logging
// (notifications/message,
// https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging)
// and test_tool_with_progress (notifications/progress,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress),
// with the messages, values and pacing the official conformance suite's
// scenarios check (conformance/README.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// UtilityStep is the pause between the notifications of
// test_tool_with_logging and test_tool_with_progress: "about 50 ms apart",
// as the reference server sends them.
const UtilityStep = 50 * time.Millisecond

// The log messages of test_tool_with_logging, in order, each at level
// info.
var loggingFixtureMessages = []string{"Tool execution started", "Tool processing data", "Tool execution completed"}

// addUtilityTools registers test_tool_with_logging and
// test_tool_with_progress.
func addUtilityTools(s *mcp.Server) {
	must(s.AddTool(&mcp.Tool{
		Name:        "test_tool_with_logging",
		Description: "Sends three log messages at level info, about 50 ms apart, then answers (conformance fixture).",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		for i, msg := range loggingFixtureMessages {
			if i > 0 {
				if err := pause(ctx, UtilityStep); err != nil {
					return nil, err
				}
			}
			if err := req.Log(ctx, mcp.LevelInfo, "", msg); err != nil {
				return nil, err
			}
		}
		return contents(&mcp.TextContent{Text: "Tool with logging executed successfully"}), nil
	}))

	must(s.AddTool(&mcp.Tool{
		Name:        "test_tool_with_progress",
		Description: "Reports progress 0, 50 and 100 of 100, about 50 ms apart, with the request's progressToken, then answers (conformance fixture).",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		for i, v := range []float64{0, 50, 100} {
			if i > 0 {
				if err := pause(ctx, UtilityStep); err != nil {
					return nil, err
				}
			}
			if err := req.ReportProgress(ctx, v, 100, ""); err != nil {
				return nil, err
			}
		}
		token, ok := req.ProgressToken()
		if !ok {
			return contents(&mcp.TextContent{Text: "Progress test completed: the request had no progressToken, so no progress was sent"}), nil
		}
		return contents(&mcp.TextContent{Text: fmt.Sprintf("Progress test completed: progress 0, 50 and 100 of 100 sent for progressToken %s", token)}), nil
	}))
}

// pause waits d, or until ctx ends (the request was cancelled). A d of
// zero or less does not wait.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
