package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This example calls a tool with a progress token and tells the three
// outcomes of a call apart: a result, a tool error (a result with isError,
// which the model is meant to read), and a protocol error (a
// *jsonrpc.Error, such as an unknown tool). Progress notifications sent
// before the result reach ProgressHandler before CallTool returns.
func ExampleClientSession_CallTool() {
	ctx := context.Background()

	server := mcp.NewServer(mcp.Implementation{Name: "counter", Version: "1.0.0"}, nil)
	type countArgs struct {
		To int `json:"to"`
	}
	err := mcp.AddTool(server, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.Request, in countArgs) (string, error) {
		if in.To < 1 {
			return "", fmt.Errorf("to must be at least 1, not %d", in.To)
		}
		for i := 1; i <= in.To; i++ {
			// Sends nothing unless the request carries a progress token.
			if err := req.ReportProgress(ctx, float64(i), float64(in.To), ""); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("counted to %d", in.To), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	if err != nil {
		log.Fatal(err)
	}

	token := jsonrpc.StringID("count-1")
	client := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			fmt.Printf("progress %v/%v\n", p.Progress, p.Total)
		},
	})
	cs, err := client.Connect(ctx, clientT)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()

	for _, p := range []*mcp.CallToolParams{
		{Name: "count", Arguments: json.RawMessage(`{"to":2}`), Meta: &mcp.RequestMeta{ProgressToken: token}},
		{Name: "count", Arguments: json.RawMessage(`{"to":0}`)},
		{Name: "no_such_tool"},
	} {
		res, err := cs.CallTool(ctx, p)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			fmt.Printf("protocol error %d: %s\n", rpcErr.Code, rpcErr.Data)
		case err != nil:
			log.Fatal(err) // the transport failed, or ctx ended
		case res.IsError:
			fmt.Printf("tool error: %s\n", res.Content[0].(*mcp.TextContent).Text)
		default:
			fmt.Printf("result: %s\n", res.Content[0].(*mcp.TextContent).Text)
		}
	}
	// Output:
	// progress 1/2
	// progress 2/2
	// result: counted to 2
	// tool error: to must be at least 1, not 0
	// protocol error -32602: "Unknown tool: no_such_tool"
}
