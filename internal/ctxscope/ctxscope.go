// Package ctxscope lets a transport tell package mcp that the context it
// serves a request with ends as soon as that request has been answered.
// Package mcp then gives the handler that context as it is, rather than
// derive one of its own only to cancel it when the handler returns: on the
// Streamable HTTP transport's sessionless path that derived context cost
// a third of the request's allocations (its own, and the parent's
// children map and done channel).
package ctxscope

// Key is the context key a transport's context answers with true when the
// transport cancels that context once the request is answered (and when
// the client goes away), and no one else needs to cancel the request
// before then.
type Key struct{}

// Scoped reports whether ctx is marked with Key.
func Scoped(ctx interface{ Value(any) any }) bool {
	v, _ := ctx.Value(Key{}).(bool)
	return v
}
