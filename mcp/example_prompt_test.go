package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpkit/mcpkit/mcp"
)

// ReviewArgs are the arguments of the review prompt: each string field is
// one argument, required unless omitempty.
type ReviewArgs struct {
	Code     string `json:"code" description:"the code to review"`
	Language string `json:"language,omitempty" description:"its programming language"`
}

// This example serves a prompt whose arguments come from a struct. The
// client lists it with its arguments and gets it filled in; a missing
// required argument is refused before the handler runs.
func ExampleAddPrompt() {
	ctx := context.Background()
	server := mcp.NewServer(mcp.Implementation{Name: "reviewer", Version: "1.0.0"}, nil)
	err := mcp.AddPrompt(server, &mcp.Prompt{Name: "review", Description: "Asks for a code review."},
		func(_ context.Context, _ *mcp.Request, in ReviewArgs) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
				Role:    mcp.RoleUser,
				Content: &mcp.TextContent{Text: "Please review this " + in.Language + " code: " + in.Code},
			}}}, nil
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

	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		for _, a := range p.Arguments {
			fmt.Printf("%s: argument %s (%s), required=%t\n", p.Name, a.Name, a.Description, a.Required)
		}
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"code": "x := 1", "language": "Go"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Messages[0].Role, res.Messages[0].Content.(*mcp.TextContent).Text)
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review"})
	fmt.Println(err)
	// Output:
	// review: argument code (the code to review), required=true
	// review: argument language (its programming language), required=false
	// user Please review this Go code: x := 1
	// jsonrpc error -32602: Invalid params: "Missing required argument for prompt review: code"
}
