// Command echo-server is the smallest useful MCP server: one typed tool,
// served over stdio. Run it under a client, for example:
//
//	mcpkit tools call echo --args '{"text":"hi"}' -- go run ./examples/echo-server
package main

import (
	"context"
	"log"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
)

// EchoArgs is the tool's input; its JSON Schema is inferred from the type.
type EchoArgs struct {
	Text  string `json:"text" jsonschema:"the text to send back"`
	Upper bool   `json:"upper,omitempty" jsonschema:"send it back in capitals"`
}

// EchoResult is the tool's output: sent as structuredContent, and as JSON
// text for older clients.
type EchoResult struct {
	Text   string `json:"text"`
	Length int    `json:"length"`
}

func echo(_ context.Context, _ *mcp.Request, in EchoArgs) (EchoResult, error) {
	text := in.Text
	if in.Upper {
		text = strings.ToUpper(text)
	}
	return EchoResult{Text: text, Length: len(text)}, nil
}

func main() {
	// stdout carries the protocol: log to stderr.
	log.SetOutput(os.Stderr)
	s := mcp.NewServer(mcp.Implementation{Name: "echo-server", Version: "1.0.0"}, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Sends the text back."}, echo); err != nil {
		log.Fatal(err)
	}
	// Serve on stdin/stdout until the client closes stdin.
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
