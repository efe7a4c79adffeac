package auth_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// An MCP client that authorizes by itself against a protected server:
// the authorization code grant, the user's browser sent to the
// authorization URL, and the redirect read back by a loopback listener
// (here a placeholder function).
func ExampleNew() {
	a := auth.New(auth.Options{
		RedirectURL: "http://127.0.0.1:8765/callback",
		Redirect: func(ctx context.Context, authorizationURL string) (*url.URL, error) {
			fmt.Println("open", authorizationURL)
			// Wait for the browser to come back to RedirectURL and
			// return the URL it was sent to (code, state, iss).
			return nil, fmt.Errorf("not in an example")
		},
		ClientName:    "my-client",
		OfflineAccess: true,
	})
	t := &mcphttp.ClientTransport{URL: "https://mcp.example.com/mcp", Authorizer: a}
	c := mcp.NewClient(mcp.Implementation{Name: "my-client", Version: "1.0.0"}, nil)
	_ = c
	_ = t // c.Connect(ctx, t) authorizes on the server's first 401.
}
