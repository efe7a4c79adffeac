package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"

	"github.com/mcpkit/mcpkit/mcp"
)

// This example logs to the client from a tool, with Request.Log and with
// log/slog through a LoggingHandler. The client sets the level it wants
// and receives the messages in its LoggingMessageHandler, before the
// tool's result.
func ExampleNewLoggingHandler() {
	server := mcp.NewServer(mcp.Implementation{Name: "importer", Version: "1.0.0"}, &mcp.ServerOptions{
		Logging: &mcp.LoggingOptions{}, // declare logging; info and up until the client sets a level
	})
	err := mcp.AddTool(server, &mcp.Tool{Name: "import", Description: "Imports rows."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			if err := req.Log(ctx, mcp.LevelDebug, "import", "opening the file"); err != nil {
				return "", err
			}
			logger := slog.New(mcp.NewLoggingHandler(req, &mcp.LoggingHandlerOptions{LoggerName: "import"}))
			logger.InfoContext(ctx, "imported", "rows", 42)
			logger.WarnContext(ctx, "skipped", "rows", 2, "reason", "duplicate keys")
			return "done", nil
		})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT)
	if err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		// A session: the server sends info and up until the client
		// sets a level. (In the stateless era a request without a
		// level gets no messages.)
		ProtocolEra: mcp.EraSession,
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageParams) {
			var data struct {
				Msg  string `json:"msg"`
				Rows int    `json:"rows"`
			}
			if json.Unmarshal(m.Data, &data) != nil { // not an object: Request.Log's string
				fmt.Printf("%s %s: %s\n", m.Level, m.Logger, m.Data)
				return
			}
			fmt.Printf("%s %s: %s rows=%d\n", m.Level, m.Logger, data.Msg, data.Rows)
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
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "import"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("-- level debug")
	if err := cs.SetLogLevel(ctx, &mcp.SetLevelParams{Level: mcp.LevelDebug}); err != nil {
		log.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "import"}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// info import: imported rows=42
	// warning import: skipped rows=2
	// -- level debug
	// debug import: "opening the file"
	// info import: imported rows=42
	// warning import: skipped rows=2
}
