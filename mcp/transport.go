package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A Transport opens a Connection to a peer: stdio, an in-memory pipe, a
// child process, or (in package mcphttp, for a client) Streamable HTTP.
//
// Transport and Connection are the public route for a transport mcpkit
// does not ship: implement them and serve the connection with
// Server.Connect or Server.Run (or connect a client with Client.Connect).
// The session then runs its own read loop over the Connection: framing
// is the transport's, decoding, the lifecycle and dispatch are the
// session's
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#custom-transports).
type Transport interface {
	Connect(ctx context.Context) (Connection, error)
}

// A Connection carries frames: each frame is the JSON text of one JSON-RPC
// message or of one batch (a JSON array), without framing bytes such as the
// stdio newline. Framing stays in the Connection; decoding stays in the
// session, so that each message is decoded exactly once.
//
// Read is called from one goroutine at a time. Write must be safe for
// concurrent use: handlers of concurrent requests write through it. Close
// unblocks a pending Read, which then returns an error; Close may be called
// more than once.
type Connection interface {
	// Read returns the next frame. It returns io.EOF when the peer has
	// finished sending: on a half-closed stream such as stdio the session
	// still answers what it has read; an error that is both io.EOF and
	// ErrConnectionClosed means the connection is gone both ways. A
	// *FrameTooLargeError reports a frame that was skipped; the connection
	// remains usable. A *RequestFailedError reports a request the
	// transport lost: the call waiting for it fails with its Err, and the
	// connection remains usable.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one frame. The frame is not retained after Write returns.
	Write(ctx context.Context, frame []byte) error
	// Close ends the connection.
	Close() error
}

// FrameTooLargeError reports an incoming frame larger than the transport's
// limit. The frame was discarded; the connection goes on with the next one.
type FrameTooLargeError struct {
	Limit int
	// ID is the top-level id of the discarded message, when the
	// transport found one (a string or an integer); otherwise the zero
	// ID. Request reports a top-level "method" member. The stdio,
	// command, mcphttp and mcpsse client transports fill both; the
	// sessions then answer a request
	// with ID with an error
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic#responses)
	// and fail the call a response with ID answers, at once.
	ID      jsonrpc.ID
	Request bool
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("mcp: message exceeds the limit of %d bytes", e.Limit)
}

// RequestFailedError is returned by a client Connection's Read when the
// transport knows that a request it sent will never be answered: its
// response stream ended and could not be resumed, or the response was
// over the transport's size limit. The ClientSession fails the call
// waiting for request ID with an error wrapping Err (so errors.Is and
// errors.As reach the transport's own error) and reads on: the
// connection remains usable. A call always ends, with a result or an
// error.
type RequestFailedError struct {
	ID  jsonrpc.ID
	Err error
}

func (e *RequestFailedError) Error() string {
	return fmt.Sprintf("mcp: request %s failed: %v", e.ID.String(), e.Err)
}

// Unwrap returns Err.
func (e *RequestFailedError) Unwrap() error { return e.Err }

// ErrConnectionClosed is returned by operations on a closed connection or
// session.
var ErrConnectionClosed = errors.New("mcp: connection closed")
