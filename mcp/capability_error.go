package mcp

import (
	"errors"
	"fmt"
)

// ErrCapabilityNotDeclared is matched (with errors.Is) by the error that
// ServerSession.CreateMessage, Elicit, ListRoots and
// NotifyElicitationComplete, and Request.Input and its helpers, return
// without sending anything when the client did not declare the capability
// the request needs, which the spec forbids
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#capabilities).
// The error's text names the method not sent and the missing capability.
var ErrCapabilityNotDeclared = errors.New("mcp: the client did not declare the capability")

// A capabilityError is the error ErrCapabilityNotDeclared describes.
type capabilityError struct {
	// Method is the method that was not sent, such as
	// "sampling/createMessage".
	Method string
	// Capability is the missing client capability as a dotted path, such
	// as "sampling", "sampling.tools", "elicitation.url" or "roots".
	Capability string
}

// Error names the method that was not sent and the missing capability.
func (e *capabilityError) Error() string {
	return fmt.Sprintf("mcp: %s not sent: the client did not declare the %s capability", e.Method, e.Capability)
}

// Is reports whether target is ErrCapabilityNotDeclared.
func (e *capabilityError) Is(target error) bool { return target == ErrCapabilityNotDeclared }

// clientCapabilities returns a copy of what the client declared in
// initialize; the zero value before initialization and on a stateless
// session.
func (ss *ServerSession) clientCapabilities() ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state.ClientCapabilities
}
