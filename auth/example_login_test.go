package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/devserver"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This example runs the whole OAuth 2.1 flow on 127.0.0.1: an
// authorization server (devserver, which approves every request: for
// development only), an MCP server that requires its tokens, and a client
// that logs in by itself when the server first answers 401: discovery,
// dynamic registration, the authorization code with PKCE, the token. The
// tool sees who is calling. Redirect stands for the user's browser: it
// opens the authorization URL and returns where the authorization server
// sent it back.
func Example_login() {
	ctx := context.Background()
	as, err := devserver.Start(devserver.Options{Scopes: []string{"mcp"}})
	if err != nil {
		log.Fatal(err)
	}
	defer as.Close()

	// The protected server.
	server := mcp.NewServer(mcp.Implementation{Name: "whoami", Version: "1.0.0"}, nil)
	err = mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.Request, _ struct{}) (string, error) {
		return "you are " + req.Extra.Auth.Subject, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	resource := ts.URL + "/mcp"
	verifier, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: as.Issuer(), Resource: resource})
	if err != nil {
		log.Fatal(err)
	}
	rs, err := auth.NewResourceServer(auth.ResourceServerConfig{
		Resource:             resource,
		AuthorizationServers: []string{as.Issuer()},
		Verifier:             verifier,
		Scopes:               []string{"mcp"},
		Server:               server,
	})
	if err != nil {
		log.Fatal(err)
	}
	opts := &mcphttp.Options{}
	auth.Protect(opts, rs)
	h := mcphttp.NewHandler(server, opts)
	defer h.Shutdown(ctx)
	mux.Handle("/mcp", h)
	for _, path := range rs.MetadataPaths() {
		mux.Handle(path, rs.MetadataHandler())
	}

	// The client.
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer noRedirects.CloseIdleConnections()
	a := auth.New(auth.Options{
		RedirectURL: "http://127.0.0.1:8765/callback",
		Redirect: func(ctx context.Context, authorizationURL string) (*url.URL, error) {
			resp, err := noRedirects.Get(authorizationURL) // the user approves
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			return resp.Location() // RedirectURL, with the code
		},
	})
	client := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcphttp.ClientTransport{URL: resource, Authorizer: a})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// you are dev-user
}
