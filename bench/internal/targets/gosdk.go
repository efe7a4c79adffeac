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
				&mcp.StreamableHTTPOptions{JSONResponse: mode == JSON}), nil
		},
		Stdio: func(ctx context.Context) error {
			return newGoSDKServer().Run(ctx, &mcp.StdioTransport{})
		},
	})
}

func newGoSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-go-sdk", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}
