package targets

import (
	"context"
	"encoding/json"
	"os"

	"github.com/mcpkit/mcpkit/mcp"
)

// mcpkitTarget is completed by mcpkit_http.go once package mcphttp builds.
var mcpkitTarget = &Target{
	Name:        "mcpkit",
	HasJSONMode: true,
	Stdio: func(ctx context.Context) error {
		s, err := newMCPKitServer()
		if err != nil {
			return err
		}
		return s.Run(ctx, &mcp.StdioTransport{})
	},
}

func init() { register(mcpkitTarget) }

func newMCPKitServer() (*mcp.Server, error) {
	// PageSize: one tools/list page holds the 500 tools, as go-sdk's
	// default page (1000) and mcp-go's unpaged list do.
	opts := &mcp.ServerOptions{PageSize: 1000}
	// MCPBENCH_TEXT_CACHE=off measures the 1 MiB text reads (8t, 9t) as
	// the peers serve them, escaped on every read, instead of from the
	// escaped copy mcpkit keeps of a string read again
	// (ServerOptions.ResourceTextCacheBytes).
	if os.Getenv("MCPBENCH_TEXT_CACHE") == "off" {
		opts.ResourceTextCacheBytes = -1
	}
	return newMCPKitServerWith(opts)
}

// newMCPKitServerWith is the mcpkit target's server with opts (the
// scale-out targets add their stores).
func newMCPKitServerWith(opts *mcp.ServerOptions) (*mcp.Server, error) {
	s := mcp.NewServer(mcp.Implementation{Name: "bench-mcpkit", Version: "1"}, opts)
	err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.Request, in EchoIn) (string, error) {
			return in.Text, nil
		})
	if err != nil {
		return nil, err
	}
	if err := addMCPKitFixtures(s); err != nil {
		return nil, err
	}
	setNotifier(s.ResourceUpdated)
	return s, nil
}

func addMCPKitFixtures(s *mcp.Server) error {
	err := mcp.AddTool(s, &mcp.Tool{Name: NestedTool, Description: "Prices an order in every delivery variant."},
		func(_ context.Context, _ *mcp.Request, in NestedIn) (NestedOut, error) {
			return Quoted(in), nil
		})
	if err != nil {
		return err
	}
	for i := range ManyTools {
		err := s.AddTool(&mcp.Tool{Name: ToolName(i), Description: ToolDescription(i), InputSchema: ToolSchema(i)},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		if err != nil {
			return err
		}
	}
	for _, r := range []struct{ uri, mime string }{{TextURI, "text/plain"}, {BlobURI, "application/octet-stream"}, {FanoutURI, "text/plain"}, {FloodURI, "text/plain"}} {
		err := s.AddResource(&mcp.Resource{URI: r.uri, Name: r.uri, MIMEType: r.mime},
			func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
				c := &mcp.ResourceContents{URI: p.URI, MIMEType: r.mime}
				switch p.URI {
				case BlobURI:
					// The handler holds bytes, as a server reading a file does,
					// and hands them over as they are.
					c.BlobData = Blob
				case TextURI:
					c.Text = Text
				default:
					c.Text = "changed"
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			})
		if err != nil {
			return err
		}
	}
	return s.AddPrompt(&mcp.Prompt{Name: ReviewName, Description: ReviewDescription, Arguments: []*mcp.PromptArgument{
		{Name: "code", Description: "The code to review", Required: true},
		{Name: "language", Description: "Its programming language"},
	}}, func(_ context.Context, _ *mcp.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: ReviewDescription, Messages: []*mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: ReviewText(p.Arguments["code"], p.Arguments["language"])}},
		}}, nil
	})
}
