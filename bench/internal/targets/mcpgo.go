package targets

import (
	"context"
	"encoding/base64"
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
			// Stateless is WithStateLess, how it serves 2026-07-28.
			return server.NewStreamableHTTPServer(newMCPGoServer(),
				server.WithStateful(mode != Stateless),
				server.WithStateLess(mode == Stateless),
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
	s := server.NewMCPServer("bench-mcp-go", "1", server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false), server.WithPromptCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes its text."),
		mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(req.GetString("text", ""))}}, nil
		})
	s.AddTool(mcp.NewToolWithRawSchema(NestedTool, "Prices an order in every delivery variant.", NestedSchema),
		mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in NestedIn) (NestedOut, error) {
			return Quoted(in), nil
		}))
	for i := range ManyTools {
		s.AddTool(mcp.NewToolWithRawSchema(ToolName(i), ToolDescription(i), ToolSchema(i)),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
	}
	for _, r := range []struct{ uri, mime string }{{TextURI, "text/plain"}, {BlobURI, "application/octet-stream"}, {FanoutURI, "text/plain"}, {FloodURI, "text/plain"}} {
		s.AddResource(mcp.NewResource(r.uri, r.uri, mcp.WithMIMEType(r.mime)),
			func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				switch req.Params.URI {
				case BlobURI:
					// The handler holds bytes; mcp-go's Blob is the base64 text.
					return []mcp.ResourceContents{mcp.BlobResourceContents{URI: BlobURI, MIMEType: r.mime, Blob: base64.StdEncoding.EncodeToString(Blob)}}, nil
				case TextURI:
					return []mcp.ResourceContents{mcp.TextResourceContents{URI: TextURI, MIMEType: r.mime, Text: Text}}, nil
				}
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: r.mime, Text: "changed"}}, nil
			})
	}
	s.AddPrompt(mcp.NewPrompt(ReviewName, mcp.WithPromptDescription(ReviewDescription),
		mcp.WithArgument("code", mcp.ArgumentDescription("The code to review"), mcp.RequiredArgument()),
		mcp.WithArgument("language", mcp.ArgumentDescription("Its programming language"))),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return mcp.NewGetPromptResult(ReviewDescription, []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(ReviewText(a["code"], a["language"]))),
			}), nil
		})
	// mcp-go has no call that notifies one resource's subscribers; this
	// one notifies every session, subscribed or not.
	setNotifier(func(_ context.Context, uri string) error {
		s.SendNotificationToAllClients("notifications/resources/updated", map[string]any{"uri": uri})
		return nil
	})
	return s
}
