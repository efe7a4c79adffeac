package mcp_test

// Schema rows for progress in both directions
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
// The server's notifications/progress rows are in schema_test.go.

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

func init() {
	schemaCases = append(schemaCases,
		schemaCase{name: "progress with a fractional value and an integer token 0", message: "ProgressNotification", method: "notifications/progress",
			produce: schemaAfterInit(func(c *schemaConn) []byte {
				c.request("tools/call", `{"name":"slow","_meta":{"progressToken":0}}`)
				frame := c.read()
				c.read()
				c.read() // the result
				return frame
			})},
		schemaCase{name: "client notifications/progress", message: "ProgressNotification", method: "notifications/progress",
			produce: func(t *testing.T) []byte {
				p := schemaClientConnect(t)
				if err := p.cs.NotifyProgress(context.Background(), &mcp.ProgressParams{
					ProgressToken: jsonrpc.StringID("srv-1"), Progress: 0.5, Total: 1, Message: "asking the model",
				}); err != nil {
					t.Fatal(err)
				}
				return p.read()
			}},
		schemaCase{name: "client notifications/progress with an integer token, no total", message: "ProgressNotification", method: "notifications/progress",
			produce: func(t *testing.T) []byte {
				p := schemaClientConnect(t)
				if err := p.cs.NotifyProgress(context.Background(), &mcp.ProgressParams{ProgressToken: jsonrpc.Int64ID(12), Progress: 3}); err != nil {
					t.Fatal(err)
				}
				return p.read()
			}},
	)
}
