package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/mcpkit/mcpkit/mcp"
)

// This example is a client over stdio: CommandTransport starts the server
// as a child process and speaks to it on the child's stdin and stdout;
// Close shuts it down (stdin closed, then SIGTERM, then SIGKILL). The
// server here is this example's own test binary, which serves an echo tool
// when MCPKIT_EXAMPLE_STDIO_SERVER=1; a program would run its server, such
// as exec.Command("mcpkit", "serve").
func ExampleCommandTransport() {
	ctx := context.Background()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MCPKIT_EXAMPLE_STDIO_SERVER=1")

	client := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("connected to", session.ServerInfo().Name)

	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("tool %s: %s\n", tool.Name, tool.Description)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	if err := session.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("server exited:", cmd.ProcessState.ExitCode())
	// Output:
	// connected to echo-server
	// tool echo: Sends the text back.
	// hello
	// server exited: 0
}
