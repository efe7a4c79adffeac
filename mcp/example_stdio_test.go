package mcp_test

import (
	"context"
	"log"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
)

// This example is a whole stdio server, the kind a desktop client starts
// as a child process: Run serves newline-delimited JSON-RPC on stdin and
// stdout until stdin ends. Here stdin is a string holding what a client
// would send (initialize, notifications/initialized, a tools/call), so
// the output is what the server writes on stdout. A real server leaves In
// and Out nil (os.Stdin and os.Stdout) and logs to stderr.
func ExampleStdioTransport() {
	server := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type greetArgs struct {
		Name string `json:"name"`
	}
	err := mcp.AddTool(server, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.Request, in greetArgs) (string, error) {
		return "Hello, " + in.Name + "!", nil
	})
	if err != nil {
		log.Fatal(err)
	}

	stdin := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}
`)
	if err := server.Run(context.Background(), &mcp.StdioTransport{In: stdin, Out: os.Stdout}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"greeter","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}
}
