package main

import (
	"context"
	"errors"
)

// elicitation-sep1034-client-defaults: the client declares elicitation,
// calls test_client_elicitation_defaults, and accepts the server's
// elicitation/create with the schema's defaults filled in for the fields
// it leaves out
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
//
// mcp.Client cannot answer elicitation/create yet (mcp/client_elicitation.go
// is a stub), so the scenario fails and is listed in baseline.yml.
func elicitationDefaults(ctx context.Context, url string) error {
	return errors.New("mcp.Client has no elicitation handler yet")
}
