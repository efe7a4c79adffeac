package targets

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	register(&Target{
		Name:        "go-sdk",
		HasJSONMode: true,
		HTTP: func(mode HTTPMode) (http.Handler, error) {
			s := newGoSDKServer()
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{JSONResponse: mode != SSE, Stateless: mode == Stateless}), nil
		},
		Stdio: func(ctx context.Context) error {
			return newGoSDKServer().Run(ctx, &mcp.StdioTransport{})
		},
	})
}

func newGoSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-go-sdk", Version: "1"}, &mcp.ServerOptions{
		// Subscriptions are offered only with these set; go-sdk keeps
		// the subscribers itself.
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: NestedTool, Description: "Prices an order in every delivery variant."},
		func(_ context.Context, _ *mcp.CallToolRequest, in NestedIn) (*mcp.CallToolResult, NestedOut, error) {
			return nil, Quoted(in), nil
		})
	for i := range ManyTools {
		s.AddTool(&mcp.Tool{Name: ToolName(i), Description: ToolDescription(i), InputSchema: ToolSchema(i)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	}
	for _, r := range []struct{ uri, mime string }{{TextURI, "text/plain"}, {BlobURI, "application/octet-stream"}, {FanoutURI, "text/plain"}, {FloodURI, "text/plain"}} {
		s.AddResource(&mcp.Resource{URI: r.uri, Name: r.uri, MIMEType: r.mime},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				c := &mcp.ResourceContents{URI: req.Params.URI, MIMEType: r.mime}
				switch req.Params.URI {
				case BlobURI:
					c.Blob = Blob // go-sdk's Blob is the bytes
				case TextURI:
					c.Text = Text
				default:
					c.Text = "changed"
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			})
	}
	s.AddPrompt(&mcp.Prompt{Name: ReviewName, Description: ReviewDescription, Arguments: []*mcp.PromptArgument{
		{Name: "code", Description: "The code to review", Required: true},
		{Name: "language", Description: "Its programming language"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Description: ReviewDescription, Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: ReviewText(a["code"], a["language"])}},
		}}, nil
	})
	setNotifier(func(ctx context.Context, uri string) error {
		return s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	})
	return s
}
