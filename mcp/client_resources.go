package mcp

// The client side of resources
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ListResources returns one page of the server's resources, the first for
// nil params
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#listing-resources).
func (cs *ClientSession) ListResources(ctx context.Context, params *PaginatedParams) (*ListResourcesResult, error) {
	return callList[ListResourcesResult](ctx, cs, "resources/list", params)
}

// Resources iterates over the server's resources, page after page from
// params.Cursor; an error ends the iteration after being yielded once.
func (cs *ClientSession) Resources(ctx context.Context, params *PaginatedParams) iter.Seq2[*Resource, error] {
	return paginate(ctx, cs, "resources/list", params, (*ListResourcesResult).pageOf)
}

// ListResourceTemplates returns one page of the server's resource
// templates, the first for nil params
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates).
func (cs *ClientSession) ListResourceTemplates(ctx context.Context, params *PaginatedParams) (*ListResourceTemplatesResult, error) {
	return callList[ListResourceTemplatesResult](ctx, cs, "resources/templates/list", params)
}

// ResourceTemplates iterates over the server's resource templates, page
// after page from params.Cursor; an error ends the iteration after being
// yielded once.
func (cs *ClientSession) ResourceTemplates(ctx context.Context, params *PaginatedParams) iter.Seq2[*ResourceTemplate, error] {
	return paginate(ctx, cs, "resources/templates/list", params, (*ListResourceTemplatesResult).pageOf)
}

// ReadResource reads a resource, or a URI a resource template matches
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources).
// IsResourceNotFound recognises the error for an unknown URI.
func (cs *ClientSession) ReadResource(ctx context.Context, params *ReadResourceParams) (*ReadResourceResult, error) {
	if params == nil || params.URI == "" {
		return nil, errors.New("mcp: ReadResource: params with the resource's URI are required")
	}
	return call[ReadResourceResult](ctx, cs, "resources/read", params)
}

// Subscribe asks the server to send notifications/resources/updated, to
// ClientOptions.ResourceUpdatedHandler, when the resource at params.URI
// changes
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions).
// On a stateless-era session it returns ErrWrongEra: use Listen.
func (cs *ClientSession) Subscribe(ctx context.Context, params *SubscribeParams) error {
	if params == nil || params.URI == "" {
		return errors.New("mcp: Subscribe: params with the resource's URI are required")
	}
	if err := cs.era().lacks("resources/subscribe"); err != nil {
		return fmt.Errorf("mcp: Subscribe: %w: use Listen", err)
	}
	return cs.Call(ctx, "resources/subscribe", params, nil)
}

// Unsubscribe cancels a subscription made with Subscribe
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#unsubscriberequest).
// On a stateless-era session it returns ErrWrongEra.
func (cs *ClientSession) Unsubscribe(ctx context.Context, params *SubscribeParams) error {
	if params == nil || params.URI == "" {
		return errors.New("mcp: Unsubscribe: params with the resource's URI are required")
	}
	if err := cs.era().lacks("resources/unsubscribe"); err != nil {
		return fmt.Errorf("mcp: Unsubscribe: %w: close the Listen subscription", err)
	}
	return cs.Call(ctx, "resources/unsubscribe", params, nil)
}

// IsResourceNotFound reports whether err is a server's refusal to read a
// resource it does not have, and returns the URI the error names (data.uri,
// "" if none): -32002
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling),
// or -32602 with data.uri in the stateless era
// (https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling).
func IsResourceNotFound(err error) (uri string, ok bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return "", false
	}
	var data struct {
		URI *string `json:"uri"`
	}
	if len(rpcErr.Data) > 0 {
		_ = exactjson.Unmarshal(rpcErr.Data, &data)
	}
	switch rpcErr.Code {
	case jsonrpc.CodeResourceNotFound:
	case jsonrpc.CodeInvalidParams:
		// Only a -32602 naming the URI is a missing resource.
		if data.URI == nil {
			return "", false
		}
	default:
		return "", false
	}
	if data.URI != nil {
		uri = *data.URI
	}
	return uri, true
}
