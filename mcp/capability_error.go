package mcp

import (
	"errors"
	"fmt"
)

// ErrCapabilityNotDeclared is matched (with errors.Is) by every
// *CapabilityError: the server was about to ask the client for something
// the client did not declare in initialize.
var ErrCapabilityNotDeclared = errors.New("mcp: the client did not declare the capability")

// A CapabilityError is what ServerSession.CreateMessage, Elicit, ListRoots
// and NotifyElicitationComplete return, without sending anything, when the
// client did not declare the capability the request needs, which the spec
// forbids
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#capabilities).
type CapabilityError struct {
	// Method is the method that was not sent, such as
	// "sampling/createMessage".
	Method string
	// Capability is the missing client capability as a dotted path, such
	// as "sampling", "sampling.tools", "elicitation.url" or "roots".
	Capability string
}

// Error names the method that was not sent and the missing capability.
func (e *CapabilityError) Error() string {
	return fmt.Sprintf("mcp: %s not sent: the client did not declare the %s capability", e.Method, e.Capability)
}

// Is reports whether target is ErrCapabilityNotDeclared.
func (e *CapabilityError) Is(target error) bool { return target == ErrCapabilityNotDeclared }

// clientCapabilities returns a copy of what the client declared in
// initialize; the zero value before initialization and on a stateless
// session.
func (ss *ServerSession) clientCapabilities() ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state.ClientCapabilities
}
