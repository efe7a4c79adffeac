package everything_test

import (
	"github.com/mcpkit/mcpkit/internal/bridge"
	"github.com/mcpkit/mcpkit/mcp"
)

// port serves stateless-era requests as Streamable HTTP does, without HTTP.
var port = bridge.Get[*mcp.Server, *mcp.ServerSession, *mcp.RequestExtra]()
