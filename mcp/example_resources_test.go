package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpkit/mcpkit/mcp"
)

// This example serves a static resource: one URI, one handler. A client
// lists it and reads it; contents without a URI or MIME type get the
// resource's.
func ExampleServer_AddResource() {
	ctx := context.Background()
	server := mcp.NewServer(mcp.Implementation{Name: "docs", Version: "1.0.0"}, nil)
	err := server.AddResource(&mcp.Resource{
		URI: "docs://readme", Name: "readme", MIMEType: "text/markdown",
	}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "# Hello"}}}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil).Connect(ctx, clientT)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()

	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("listed", r.URI, r.Name)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"})
	if err != nil {
		log.Fatal(err)
	}
	c := res.Contents[0]
	fmt.Println("read", c.URI, c.MIMEType, c.Text)
	// Output:
	// listed docs://readme readme
	// read docs://readme text/markdown # Hello
}

// This example serves a resource template (RFC 6570): every URI it
// matches is read by one handler, which gets the template's variables. A
// URI that names nothing is answered with ResourceNotFoundError.
func ExampleServer_AddResourceTemplate() {
	ctx := context.Background()
	server := mcp.NewServer(mcp.Implementation{Name: "greetings", Version: "1.0.0"}, nil)
	err := server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "greetings://{lang}/{name}", Name: "greeting", MIMEType: "text/plain",
	}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		hello := map[string]string{"en": "Hello", "fr": "Bonjour"}[p.Variables["lang"]]
		if hello == "" {
			return nil, mcp.ResourceNotFoundError(p.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: hello + ", " + p.Variables["name"] + "!"}}}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil).Connect(ctx, clientT)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()

	for _, uri := range []string{"greetings://fr/Ada", "greetings://en/Grace", "greetings://de/Ada"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			fmt.Println(uri, "->", err)
			continue
		}
		fmt.Println(uri, "->", res.Contents[0].Text)
	}
	// Output:
	// greetings://fr/Ada -> Bonjour, Ada!
	// greetings://en/Grace -> Hello, Grace!
	// greetings://de/Ada -> jsonrpc error -32602: Resource not found: {"uri":"greetings://de/Ada"}
}
