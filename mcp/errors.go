package mcp

import (
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

var (
	// ErrProgressDecreased is returned by Request.ReportProgress for a
	// progress value lower than the last one sent.
	ErrProgressDecreased = errors.New("mcp: progress must not decrease")
	// ErrSessionClosed is returned by operations on a closed session.
	ErrSessionClosed = errors.New("mcp: session closed")
	// ErrNotReady is returned when the server would send a request before
	// the client sent notifications/initialized
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization).
	ErrNotReady = errors.New("mcp: session not ready: notifications/initialized not yet received")
	// ErrUnsupportedVersion is returned by Connect when the server answers a
	// protocol version the client does not support.
	ErrUnsupportedVersion = errors.New("mcp: unsupported protocol version")
)

// A kindError is an error with a text of its own that matches (errors.Is)
// a wider exported sentinel, its kind: the precise text stays while
// callers test one sentinel.
type kindError struct {
	text string
	kind error
}

func (e *kindError) Error() string        { return e.text }
func (e *kindError) Is(target error) bool { return target == e.kind }

// errInvalidRequest returns -32600 with the given detail as data, the form
// the lifecycle refusals take on the wire.
func errInvalidRequest(detail string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request", "Invalid Request: "+detail)
}

// errFrameTooLarge answers a message over a stream transport's limit.
func errFrameTooLarge(limit int) *jsonrpc.Error {
	return errInvalidRequest(fmt.Sprintf("message exceeds the limit of %d bytes", limit))
}

// errInvalidParams returns -32602 with the given detail as data.
func errInvalidParams(detail string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", detail)
}

// errMethodNotFound returns -32601 naming the method in data.
func errMethodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", method)
}

// errInternal is what a handler panic becomes: no detail on the wire.
func errInternal() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
}
