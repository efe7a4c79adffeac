package mcp_test

import (
	"github.com/mcpkit/mcpkit/internal/bridge"
	"github.com/mcpkit/mcpkit/mcp"
)

// port is the bridge the module's transports use, for the tests that drive
// a server as Streamable HTTP does.
var port = bridge.Get[*mcp.Server, *mcp.ServerSession, *mcp.RequestExtra]()
