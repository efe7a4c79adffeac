package mcphttp_test

import "github.com/mcpkit/mcpkit/mcp"

// legacyEra returns opts (nil for the zero options) pinned to the session
// era unless they name an era: the tests that use it are about sessions
// (initialize, the GET stream, server-to-client requests).
func legacyEra(opts *mcp.ClientOptions) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolEra == mcp.EraAuto {
		o.ProtocolEra = mcp.EraSession
	}
	return &o
}
