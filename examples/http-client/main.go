// Command http-client calls the echo tool of an MCP server over
// Streamable HTTP. Start a server first, for example:
//
//	mcpkit serve --http 127.0.0.1:8080
//	go run ./examples/http-client -url http://127.0.0.1:8080/mcp
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/mcp", "the server's MCP endpoint")
	text := flag.String("text", "hello", "the text to echo")
	flag.Parse()
	ctx := context.Background()

	client := mcp.NewClient(mcp.Implementation{Name: "http-client", Version: "1.0.0"}, nil)
	// Connect asks the server which protocol era it speaks; a server that
	// only speaks the 2024-11-05 HTTP+SSE transport is served over that.
	session, err := client.Connect(ctx, &mcphttp.ClientTransport{URL: *url})
	if err != nil {
		log.Fatal(err)
	}
	// Close ends the session (a DELETE, when the server keeps one).
	defer session.Close()
	fmt.Printf("server %s, protocol %s\n", session.ServerInfo().Name, session.ProtocolVersion())

	args, err := json.Marshal(map[string]string{"text": *text})
	if err != nil {
		log.Fatal(err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
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
