package targets

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func init() {
	register(&Target{
		Name:      "mcp-go",
		SSEIsJSON: true,
		HTTP: func(mode HTTPMode) (http.Handler, error) {
			// mcp-go answers a POST with application/json unless the
			// handler sends notifications, so both modes are the same.
			return server.NewStreamableHTTPServer(newMCPGoServer(),
				server.WithStateful(true),
				server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)),
			), nil
		},
		Stdio: func(ctx context.Context) error {
			s := server.NewStdioServer(newMCPGoServer())
			s.SetErrorLogger(log.New(io.Discard, "", 0))
			return s.Listen(ctx, os.Stdin, os.Stdout)
		},
	})
}

func newMCPGoServer() *server.MCPServer {
	s := server.NewMCPServer("bench-mcp-go", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes its text."),
		mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(req.GetString("text", ""))}}, nil
		})
	return s
}
