package mcp

// Logging, client side
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).
// The messages themselves reach ClientOptions.LoggingMessageHandler.

import (
	"context"
	"errors"
)

// SetLogLevel asks the server to send only log messages at params.Level or
// more severe, with logging/setLevel
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#setting-log-level).
// In the stateless era, which removed logging/setLevel, it sends nothing
// and sets the level every later request carries instead of
// ClientOptions.LogLevel
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
func (cs *ClientSession) SetLogLevel(ctx context.Context, params *SetLevelParams) error {
	if params == nil {
		return errors.New("mcp: SetLogLevel: params with the level are required")
	}
	return cs.era().setLogLevel(ctx, cs, params) // client_era*.go
}
