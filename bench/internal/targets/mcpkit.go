package targets

import (
	"context"

	"github.com/mcpkit/mcpkit/mcp"
)

// mcpkitTarget is completed by mcpkit_http.go once package mcphttp builds.
var mcpkitTarget = &Target{
	Name:        "mcpkit",
	HasJSONMode: true,
	Stdio: func(ctx context.Context) error {
		s, err := newMCPKitServer()
		if err != nil {
			return err
		}
		return s.Run(ctx, &mcp.StdioTransport{})
	},
}

func init() { register(mcpkitTarget) }

func newMCPKitServer() (*mcp.Server, error) {
	s := mcp.NewServer(mcp.Implementation{Name: "bench-mcpkit", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.Request, in EchoIn) (string, error) {
			return in.Text, nil
		})
	return s, err
}
