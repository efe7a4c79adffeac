package apps_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
)

// A server with one app and the tool it renders; hosts without apps get
// the tool's text alone.
func Example() {
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		&mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Degrade}})
	a, err := apps.New(s)
	if err == nil {
		err = a.AddApp(&apps.App{
			URI:  "ui://weather/dashboard",
			Name: "dashboard",
			HTML: "<!DOCTYPE html><html><body><script>/* the app */</script></body></html>",
			Meta: &apps.ResourceMeta{CSP: &apps.CSP{ConnectDomains: []string{"https://api.example.com"}}},
		})
	}
	if err == nil {
		err = a.AddTool(&mcp.Tool{Name: "get_weather", Description: "Current weather"},
			apps.ToolMeta{ResourceURI: "ui://weather/dashboard"},
			func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return apps.Result("Sunny, 22 C", map[string]int{"temperature": 22})
			})
	}
	fmt.Println(err)
	// Output: <nil>
}

// A host that renders apps and answers sampling: DeclareHost adds the
// extension to the options, and the client declares it beside the
// sampling capability its handler brings.
func ExampleDeclareHost() {
	opts := apps.DeclareHost(&mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, mcp.UserRejectedSamplingError() // a real host asks its user and its model
		},
	})
	client := mcp.NewClient(mcp.Implementation{Name: "host", Version: "1.0.0"}, opts)
	_ = client // client.Connect(ctx, transport), then apps.Open for a tool with a UI
	b, _ := json.Marshal(opts.Extensions)
	fmt.Println(string(b))
	// Output: {"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}
}
