package mcphttp

import (
	"github.com/mcpkit/mcpkit/internal/bridge"
	"github.com/mcpkit/mcpkit/mcp"
)

// mcpPort is how the handler drives mcp's sessions: creating them, feeding
// them what a POST carries, and telling them which stream their messages
// go on. It is plumbing, kept out of mcp's exported API.
var mcpPort = bridge.Get[*mcp.Server, *mcp.ServerSession, *mcp.RequestExtra]()
