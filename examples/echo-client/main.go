// Command echo-client starts an MCP server as a child process, lists its
// tools and calls echo. The server command is its arguments; by default
// the echo-server example:
//
//	go run ./examples/echo-client
//	go run ./examples/echo-client mcpkit serve
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/mcpkit/mcpkit/mcp"
)

func main() {
	server := os.Args[1:]
	if len(server) == 0 {
		server = []string{"go", "run", "./examples/echo-server"}
	}
	ctx := context.Background()

	client := mcp.NewClient(mcp.Implementation{Name: "echo-client", Version: "1.0.0"}, nil)
	// Connect starts the server and runs the initialize handshake.
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(server[0], server[1:]...)})
	if err != nil {
		log.Fatal(err)
	}
	// Close shuts the server down: stdin closed, then SIGTERM, then SIGKILL.
	defer session.Close()

	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("tool %s: %s\n", tool.Name, tool.Description)
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name:      "echo",
		Arguments: json.RawMessage(`{"text":"hello"}`),
	})
	if err != nil {
		log.Fatal(err) // a protocol error: unknown tool, bad params, ...
	}
	if res.IsError {
		log.Fatalf("the tool failed: %v", res.Content)
	}
	for _, c := range res.Content {
		if text, ok := c.(*mcp.TextContent); ok {
			fmt.Println(text.Text)
		}
	}
}
