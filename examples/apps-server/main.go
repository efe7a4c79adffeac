// Command apps-server serves, over stdio, a tool whose result a host
// renders with an HTML app (MCP Apps); a host without apps gets its text
// alone. Try it in the inspector:
//
//	mcpkit inspect -- go run ./examples/apps-server
package main

import (
	"context"
	"encoding/json"
	"log"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
)

// page is the app: a real one talks to its host with ui/initialize and
// shows the tool's result (see @modelcontextprotocol/ext-apps).
const page = `<!DOCTYPE html><html><body><p>Weather</p></body></html>`

func main() {
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		&mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Degrade}})
	a, err := apps.New(s)
	if err == nil {
		err = a.AddApp(&apps.App{URI: "ui://weather/dashboard", Name: "dashboard", HTML: page})
	}
	if err == nil {
		err = a.AddTool(&mcp.Tool{Name: "get_weather", Description: "Current weather"},
			apps.ToolMeta{ResourceURI: "ui://weather/dashboard"},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return apps.Result("Sunny, 22 C", map[string]int{"temperature": 22})
			})
	}
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
