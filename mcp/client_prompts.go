package mcp

// The client side of prompts
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts).

import (
	"context"
	"errors"
	"iter"
)

// Prompts iterates over the server's prompts, page after page from
// params.Cursor; an error ends the iteration after being yielded once.
func (cs *ClientSession) Prompts(ctx context.Context, params *PaginatedParams) iter.Seq2[*Prompt, error] {
	return paginate(ctx, cs, "prompts/list", params, (*ListPromptsResult).pageOf)
}

// ListPrompts returns one page of the server's prompts, the first for nil
// params
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#listing-prompts).
func (cs *ClientSession) ListPrompts(ctx context.Context, params *PaginatedParams) (*ListPromptsResult, error) {
	return callList[ListPromptsResult](ctx, cs, "prompts/list", params)
}

// GetPrompt gets a prompt's messages with the given arguments
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
// An unknown prompt or a missing required argument is a *jsonrpc.Error
// with code -32602.
func (cs *ClientSession) GetPrompt(ctx context.Context, params *GetPromptParams) (*GetPromptResult, error) {
	if params == nil || params.Name == "" {
		return nil, errors.New("mcp: GetPrompt: params with the prompt's name are required")
	}
	return call[GetPromptResult](ctx, cs, "prompts/get", params)
}
