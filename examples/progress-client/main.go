// Command progress-client calls a tool with a progress token and prints
// each progress notification as it arrives, then the result. It talks to
// a Streamable HTTP server given by -url, or starts the server command
// given after -- and talks to it over stdio:
//
//	go run ./examples/progress-client -url http://127.0.0.1:8080/mcp
//	go run ./examples/progress-client -tool test_tool_with_progress -args '{}' -- mcpkit serve
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

func main() {
	url := flag.String("url", "", "the server's Streamable HTTP endpoint, such as http://127.0.0.1:8080/mcp")
	tool := flag.String("tool", "countdown", "the tool to call")
	args := flag.String("args", `{"from":3}`, "the tool's arguments, a JSON object")
	flag.Parse()
	command := flag.Args() // what follows --

	var transport mcp.Transport
	switch {
	case *url != "" && len(command) == 0:
		transport = &mcphttp.ClientTransport{URL: *url}
	case *url == "" && len(command) > 0:
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Stderr = os.Stderr // the server's logs
		transport = &mcp.CommandTransport{Command: cmd}
	default:
		log.Fatal("give either -url URL, or the server command after --")
	}
	if !json.Valid([]byte(*args)) {
		log.Fatalf("-args is not JSON: %s", *args)
	}

	// The token names our call in the notifications the server sends.
	token := jsonrpc.StringID("progress-client-1")
	client := mcp.NewClient(mcp.Implementation{Name: "progress-client", Version: "1.0.0"}, &mcp.ClientOptions{
		// Notifications are handled in the order they arrive, and all of
		// those sent before the result are handled before CallTool returns.
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			if p.ProgressToken != token {
				return
			}
			fmt.Printf("progress %v/%v", p.Progress, p.Total)
			if p.Message != "" {
				fmt.Printf(": %s", p.Message)
			}
			fmt.Println()
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			fmt.Printf("log %s %s: %s\n", p.Level, p.Logger, p.Data)
		},
		// The stateless era (2026-07-28) sends a request's log messages
		// only when the request asks for a level.
		LogLevel: mcp.LevelInfo,
	})
	ctx := context.Background()
	session, err := client.Connect(ctx, transport)
	if err != nil {
		log.Fatal(err)
	}
	// Close ends the session: an HTTP DELETE, or the child process shut down.
	defer session.Close()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{
		Meta:      &mcp.RequestMeta{ProgressToken: token},
		Name:      *tool,
		Arguments: json.RawMessage(*args),
	})
	if err != nil {
		log.Fatal(err) // a protocol error: unknown tool, bad params, ...
	}
	out := os.Stdout
	if res.IsError { // the tool failed: its message goes to stderr
		out = os.Stderr
	}
	for _, c := range res.Content {
		if text, ok := c.(*mcp.TextContent); ok {
			fmt.Fprintln(out, text.Text)
		}
	}
	if res.IsError {
		session.Close()
		os.Exit(1)
	}
}
