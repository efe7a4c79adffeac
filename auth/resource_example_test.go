package auth_test

import (
	"log"
	"net/http"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// A server protected by an identity provider that issues JWT access
// tokens: tokens must be issued by the IdP for this server's URI and
// grant "mcp:use"; the "delete" tool also needs "mcp:admin".
func ExampleNewResourceServer() {
	server := mcp.NewServer(mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	// ... server.AddTool(&mcp.Tool{Name: "delete", RequiredScopes: []string{"mcp:admin"}, ...}, ...)

	const resource = "https://mcp.example.com/mcp"
	verifier, err := auth.NewJWTVerifier(auth.JWTConfig{
		Issuer:   "https://idp.example.com",
		Resource: resource,
	})
	if err != nil {
		log.Fatal(err)
	}
	rs, err := auth.NewResourceServer(auth.ResourceServerConfig{
		Resource:             resource,
		AuthorizationServers: []string{"https://idp.example.com"},
		Verifier:             verifier,
		Scopes:               []string{"mcp:use"},
		Server:               server,
	})
	if err != nil {
		log.Fatal(err)
	}
	opts := &mcphttp.Options{}
	auth.Protect(opts, rs)

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.NewHandler(server, opts))
	for _, path := range rs.MetadataPaths() {
		mux.Handle(path, rs.MetadataHandler())
	}
	_ = mux // http.ListenAndServeTLS(":443", cert, key, mux)
}
