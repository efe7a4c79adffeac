package jsonrpc

import "context"

// A Writer sends messages to the peer: a transport's stream, or one
// request's. WriteMessage must be safe for concurrent use.
type Writer interface {
	WriteMessage(ctx context.Context, msg Message) error
}
