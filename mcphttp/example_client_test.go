package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This example is a client over Streamable HTTP: ClientTransport needs
// only the server's URL. Connect finds out which protocol era the server
// speaks (2026-07-28 here, with no session; an older server gets
// initialize, and a 2024-11-05 HTTP+SSE server the old transport), and
// Close ends the session, if there is one. The server is an httptest
// server on 127.0.0.1.
func ExampleClientTransport() {
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
	h := mcphttp.NewHandler(server, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background())

	ctx := context.Background()
	client := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcphttp.ClientTransport{URL: ts.URL, HTTPClient: ts.Client()})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	fmt.Println("protocol", cs.ProtocolVersion())
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// protocol 2026-07-28
	// Hello, Ada!
}
