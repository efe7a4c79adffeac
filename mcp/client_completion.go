package mcp

import (
	"context"
	"errors"
)

// Complete asks the server to suggest values for an argument of a prompt
// or a variable of a resource template
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion#requesting-completions).
func (cs *ClientSession) Complete(ctx context.Context, params *CompleteParams) (*CompleteResult, error) {
	if params == nil || params.Ref == nil {
		return nil, errors.New("mcp: Complete: params with a ref are required")
	}
	return call[CompleteResult](ctx, cs, "completion/complete", params)
}
