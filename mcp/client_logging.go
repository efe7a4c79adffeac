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
// The server must declare the logging capability; one that does not
// answers -32601, returned as a *jsonrpc.Error, as is -32602 for a level
// the server refuses.
//
// The stateless era removed logging/setLevel: each request carries its own
// level in _meta, and a request without one gets no log messages
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
// There SetLogLevel sends nothing: it sets the level every later request of
// the session carries, instead of ClientOptions.LogLevel (WithLogLevel
// overrides it per call).
func (cs *ClientSession) SetLogLevel(ctx context.Context, params *SetLevelParams) error {
	if params == nil {
		return errors.New("mcp: SetLogLevel: params with the level are required")
	}
	return cs.era().setLogLevel(ctx, cs, params) // client_era*.go
}
