// Package peers builds the small servers, one on the official go-sdk and
// one on mark3labs/mcp-go, that mcpkit's client and CLI are tested
// against: each with the same tools, resource and prompt, so that the
// checks read alike for both.
package peers

import (
	"context"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the peer servers serve. Every value is the same on both SDKs.
const (
	// ResourceURI is the one resource of a full peer server.
	ResourceURI = "peer://greeting"
	// ResourceText is its content.
	ResourceText = "hello from a Go peer"
	// PromptName is the one prompt; it takes the argument "name".
	PromptName = "greet"
	// NotifyResult is what the tool "notify" answers, after its
	// notifications.
	NotifyResult = "notified"
)

// PromptText is the text of the prompt's one message for name.
func PromptText(name string) string { return "Hello, " + name + "!" }

// Steps are the progress values "notify" reports, of a total of 2.
var Steps = []float64{1, 2}

// GoSDKServer returns a go-sdk server named name with the tools "echo"
// (returns its argument "text") and "notify" (reports progress Steps when
// the call has a progress token, sends a log message, then answers
// NotifyResult) and, unless toolsOnly, the resource ResourceURI and the
// prompt PromptName; a toolsOnly server declares neither capability.
func GoSDKServer(name string, toolsOnly bool) *gosdk.Server {
	s := gosdk.NewServer(&gosdk.Implementation{Name: name, Version: "1.0.0"}, nil)
	type echoIn struct {
		Text string `json:"text" jsonschema:"the text to echo back"`
	}
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo", Description: "Returns its text."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in echoIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "notify", Description: "Reports progress and logs, then answers."},
		func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for _, v := range Steps {
					if err := req.Session.NotifyProgress(ctx, &gosdk.ProgressNotificationParams{ProgressToken: tok, Progress: v, Total: 2}); err != nil {
						return nil, nil, fmt.Errorf("notify: progress: %w", err)
					}
				}
			}
			// A session that set no log level drops the message: not an error.
			_ = req.Session.Log(ctx, &gosdk.LoggingMessageParams{Level: "info", Data: "peer log"})
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: NotifyResult}}}, nil, nil
		})
	if toolsOnly {
		return s
	}
	s.AddResource(&gosdk.Resource{URI: ResourceURI, Name: "greeting", MIMEType: "text/plain"},
		func(_ context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: ResourceURI, MIMEType: "text/plain", Text: ResourceText}}}, nil
		})
	s.AddPrompt(&gosdk.Prompt{Name: PromptName, Arguments: []*gosdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *gosdk.GetPromptRequest) (*gosdk.GetPromptResult, error) {
			return &gosdk.GetPromptResult{Messages: []*gosdk.PromptMessage{
				{Role: "user", Content: &gosdk.TextContent{Text: PromptText(req.Params.Arguments["name"])}},
			}}, nil
		})
	return s
}

// MCPGoServer returns an mcp-go server with the same tools, resource and
// prompt as GoSDKServer. Its "notify" sends its notifications with
// SendNotificationToClient, which makes mcp-go answer the POST with an
// event stream.
func MCPGoServer(name string, toolsOnly bool) *mcpgoserver.MCPServer {
	opts := []mcpgoserver.ServerOption{mcpgoserver.WithToolCapabilities(false), mcpgoserver.WithLogging()}
	if !toolsOnly {
		opts = append(opts, mcpgoserver.WithResourceCapabilities(false, false), mcpgoserver.WithPromptCapabilities(false))
	}
	s := mcpgoserver.NewMCPServer(name, "1.0.0", opts...)
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Returns its text."), mcpgo.WithString("text", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(req.GetString("text", "")), nil
		})
	s.AddTool(mcpgo.NewTool("notify", mcpgo.WithDescription("Reports progress and logs, then answers.")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			srv := mcpgoserver.ServerFromContext(ctx)
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				for _, v := range Steps {
					if err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
						"progressToken": req.Params.Meta.ProgressToken, "progress": v, "total": 2,
					}); err != nil {
						return nil, fmt.Errorf("notify: progress: %w", err)
					}
				}
			}
			_ = srv.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "peer log"})
			return mcpgo.NewToolResultText(NotifyResult), nil
		})
	if toolsOnly {
		return s
	}
	s.AddResource(mcpgo.NewResource(ResourceURI, "greeting", mcpgo.WithMIMEType("text/plain")),
		func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: ResourceURI, MIMEType: "text/plain", Text: ResourceText}}, nil
		})
	s.AddPrompt(mcpgo.NewPrompt(PromptName, mcpgo.WithArgument("name", mcpgo.RequiredArgument())),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return &mcpgo.GetPromptResult{Messages: []mcpgo.PromptMessage{
				mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent(PromptText(req.Params.Arguments["name"]))),
			}}, nil
		})
	return s
}
