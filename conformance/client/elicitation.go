package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
)

// elicitation-sep1034-client-defaults: the client declares elicitation,
// calls test_client_elicitation_defaults, and accepts the server's
// elicitation/create with the schema's defaults filled in for the fields
// it leaves out (SEP-1034,
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#requested-schema).
// The handler accepts with empty content; ElicitationApplyDefaults adds
// every default.
//
// The mock sends elicitation/create as a request of its own, not related
// to the tools/call, so it goes on the standalone GET stream (connect
// waits until that stream is open).
func elicitationDefaults(ctx context.Context, url string) error {
	asked := 0
	cs, err := connect(ctx, url, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: json.RawMessage(`{}`)}, nil
		},
		ElicitationApplyDefaults: true,
	})
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_client_elicitation_defaults", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		return fmt.Errorf("tools/call test_client_elicitation_defaults: %w", err)
	}
	if asked != 1 {
		return fmt.Errorf("the server sent %d elicitation requests, want 1", asked)
	}
	if res.IsError {
		return errors.New("tools/call test_client_elicitation_defaults: the tool reported an error")
	}
	return nil
}
