package mcp

// Role is the speaker of a message in a conversation: a prompt's messages
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#promptmessage)
// and sampling messages use it, as do the annotations' audience.
type Role string

// The two roles the protocol knows.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)
