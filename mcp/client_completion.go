package mcp

// This file holds the client side of completion
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).

import (
	"context"
	"errors"
)

// Complete asks the server to suggest values for an argument of a prompt
// or a variable of a resource template, given what the user typed so far
// and, in params.Context, the arguments already chosen
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#requesting-completions).
// The server must declare the completions capability.
func (cs *ClientSession) Complete(ctx context.Context, params *CompleteParams) (*CompleteResult, error) {
	if params == nil || params.Ref == nil {
		return nil, errors.New("mcp: Complete: params with a ref are required")
	}
	return call[CompleteResult](ctx, cs, "completion/complete", params)
}
