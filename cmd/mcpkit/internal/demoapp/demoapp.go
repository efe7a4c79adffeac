// Package demoapp is the MCP App (io.modelcontextprotocol/ui, ext/apps)
// that `mcpkit serve` adds to the reference server, so that `mcpkit
// inspect` has an app to render: the tool greet_app, whose UI is the
// ui:// resource URI. It lives beside the CLI, not in internal/everything,
// so that the conformance fixtures stay as the suite expects them.
package demoapp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
)

// URI is the app's ui:// resource, and Tool the tool that renders its
// results in it.
const (
	URI  = "ui://mcpkit/greeting"
	Tool = "greet_app"
)

// html is the app: on ui/notifications/tool-result it writes the
// greeting into its page, reports its new size, posts a ui/message, asks
// to open a link, and calls two tools through the host: echo, which apps
// may call, and greet_app itself, whose visibility ("model") keeps it
// from apps, so that the host must refuse it; then it reads its own
// ui:// resource and test://static-text (which a host refuses an app),
// updates the model context, offers greeting.txt for download, logs a
// line, and asks for the fullscreen display mode.
//
//go:embed greeting.html
var html string

// Add serves the app and its tool on s. The middleware apps.Degrade
// (Middleware) hides them from hosts that do not render apps.
func Add(s *mcp.Server) error {
	a, err := apps.New(s)
	if err != nil {
		return err
	}
	if err := a.AddApp(&apps.App{URI: URI, Name: "greeting", Title: "Greeting card",
		Description: "Shows the greeting of greet_app; an MCP App for mcpkit inspect to render.", HTML: html}); err != nil {
		return err
	}
	return a.AddTool(&mcp.Tool{
		Name:        Tool,
		Title:       "Greeting card (MCP App)",
		Description: "Greets someone; a host that renders MCP Apps shows the greeting in " + URI + ".",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"who to greet"}},"required":["name"]}`),
	}, apps.ToolMeta{ResourceURI: URI, Visibility: []string{apps.VisibilityModel}}, greet)
}

// Middleware is apps.Degrade, for ServerOptions.Middleware of a server
// that Add serves the app on.
var Middleware mcp.Middleware = apps.Degrade

func greet(_ context.Context, _ *mcp.Request, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("greet_app: %w", err)
	}
	g := "Hello, " + in.Name + "!"
	return apps.Result(g, map[string]string{"greeting": g})
}
