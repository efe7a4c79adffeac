package everything_test

import "github.com/mcpkit/mcpkit/mcp"

// legacyEra returns opts (nil for the zero options) pinned to the session
// era unless they name an era: the tests that use it check the session
// era's fixtures (initialize, server-to-client requests); the stateless
// era's are tested in modern_test.go.
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
