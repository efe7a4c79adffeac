package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
)

// WordsArgs is the input of the words tool; its JSON Schema is inferred
// from the type, and the jsonschema tags become its descriptions.
type WordsArgs struct {
	Text string `json:"text" jsonschema:"the text to count the words of"`
}

// WordsResult is the output of the words tool: a struct, so it is sent as
// structuredContent, described by an inferred outputSchema.
type WordsResult struct {
	Words int `json:"words"`
}

func countWords(_ context.Context, _ *mcp.Request, in WordsArgs) (WordsResult, error) {
	return WordsResult{Words: len(strings.Fields(in.Text))}, nil
}

// This example is a whole program in small: a server with one typed tool,
// and a client that connects to it in the same process over in-memory
// transports and calls the tool. Over stdio the server would call
// Server.Run with a StdioTransport instead, and the client would connect
// with a CommandTransport.
func Example() {
	ctx := context.Background()

	server := mcp.NewServer(mcp.Implementation{Name: "words", Version: "1.0.0"}, nil)
	if err := mcp.AddTool(server, &mcp.Tool{Name: "count_words", Description: "Counts words."}, countWords); err != nil {
		log.Fatal(err)
	}

	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, clientT)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:      "count_words",
		Arguments: json.RawMessage(`{"text":"the quick brown fox"}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("era: %s\n", cs.ProtocolVersion())
	fmt.Printf("structuredContent: %s\n", res.StructuredContent)
	// Output:
	// era: 2026-07-28
	// structuredContent: {"words":4}
}

// This example shows what AddTool infers and checks: the input and output
// schemas come from the Go types, arguments that do not match the input
// schema never reach the handler (the model is told what is wrong, in a
// result with isError), and a Go error from the handler becomes such a
// result too.
func ExampleAddTool() {
	ctx := context.Background()
	server := mcp.NewServer(mcp.Implementation{Name: "words", Version: "1.0.0"}, nil)
	tool := &mcp.Tool{Name: "count_words", Description: "Counts words."}
	err := mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.Request, in WordsArgs) (WordsResult, error) {
		if in.Text == "" {
			return WordsResult{}, errors.New("text is empty")
		}
		return countWords(ctx, req, in)
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("inputSchema: %s\n", tool.InputSchema)
	fmt.Printf("outputSchema: %s\n", tool.OutputSchema)

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

	for _, args := range []string{`{"text":"one two"}`, `{"text":42}`, `{"text":""}`} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count_words", Arguments: json.RawMessage(args)})
		if err != nil {
			log.Fatal(err) // a protocol error: unknown tool, malformed params, ...
		}
		fmt.Printf("%s -> isError=%t %s\n", args, res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// inputSchema: {"type":"object","properties":{"text":{"type":"string","description":"the text to count the words of"}},"required":["text"],"additionalProperties":false}
	// outputSchema: {"type":"object","properties":{"words":{"type":"integer"}},"required":["words"],"additionalProperties":false}
	// {"text":"one two"} -> isError=false {"words":2}
	// {"text":42} -> isError=true invalid arguments for tool count_words: arguments/text: type: got integer, want string
	// {"text":""} -> isError=true text is empty
}

// This example shows what each kind of Out is sent as: only a value whose
// JSON is an object becomes structuredContent, and only a struct (or a
// pointer to one) gets an inferred outputSchema.
func ExampleTypedToolHandler() {
	ctx := context.Background()
	server := mcp.NewServer(mcp.Implementation{Name: "outputs", Version: "1.0.0"}, nil)
	tools := []*mcp.Tool{{Name: "string"}, {Name: "struct"}, {Name: "map"}, {Name: "slice"}}
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	must(mcp.AddTool(server, tools[0], func(context.Context, *mcp.Request, struct{}) (string, error) {
		return "four", nil
	}))
	must(mcp.AddTool(server, tools[1], func(context.Context, *mcp.Request, struct{}) (WordsResult, error) {
		return WordsResult{Words: 4}, nil
	}))
	must(mcp.AddTool(server, tools[2], func(context.Context, *mcp.Request, struct{}) (map[string]int, error) {
		return map[string]int{"words": 4}, nil
	}))
	must(mcp.AddTool(server, tools[3], func(context.Context, *mcp.Request, struct{}) ([]string, error) {
		return []string{"a", "b"}, nil
	}))

	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	must(err)
	cs, err := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil).Connect(ctx, clientT)
	must(err)
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	for _, tool := range tools {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name})
		must(err)
		fmt.Printf("%-6s outputSchema=%t text=%s structuredContent=%s\n",
			tool.Name, tool.OutputSchema != nil, res.Content[0].(*mcp.TextContent).Text, string(res.StructuredContent))
	}
	// Output:
	// string outputSchema=false text=four structuredContent=
	// struct outputSchema=true text={"words":4} structuredContent={"words":4}
	// map    outputSchema=false text={"words":4} structuredContent={"words":4}
	// slice  outputSchema=false text=["a","b"] structuredContent=
}
