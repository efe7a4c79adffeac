package httpguard

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Refuse writes status and a JSON-RPC error response carrying id (the zero
// ID, encoded as null, when the request could not be identified): the one
// form in which mcpkit's HTTP transports refuse a request, never a bare
// text body
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
// Headers such as Allow or Retry-After are set by the caller before.
func Refuse(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	body, err := jsonrpc.Encode(jsonrpc.NewErrorResponse(id, e))
	if err != nil {
		// Only malformed Data could fail to encode; the transports' is
		// always valid.
		body = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// ServerError is a -32000 error: the code the HTTP transports use for
// refusals at the HTTP level.
func ServerError(message string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeServerError, Message: message}
}

// The refusals both HTTP transports answer alike.
var (
	ErrSessionNotFound = &jsonrpc.Error{Code: jsonrpc.CodeSessionNotFound, Message: "Session not found"}
	ErrParse           = &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error"}
	ErrUnsupportedType = ServerError("Unsupported Media Type: Content-Type must be application/json")
	ErrClosed          = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Service unavailable: the handler is closed"}
)

// MethodNotAllowed is the refusal of a 405, allow being the methods of the
// Allow header.
func MethodNotAllowed(allow string) *jsonrpc.Error {
	return ServerError("Method Not Allowed: use " + allow)
}

// Forbidden is the refusal of a request whose header what (Host or
// Origin, as Check reports it) has a value not allowed.
func Forbidden(what, value string) *jsonrpc.Error {
	return ServerError("Forbidden: " + what + " not allowed: " + value)
}

// TooLarge is the refusal of a body over limit bytes (413).
func TooLarge(limit int64) *jsonrpc.Error {
	return ServerError(fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", limit))
}

// BodyTimeout is the refusal of a body that did not arrive within d (408).
func BodyTimeout(d time.Duration) *jsonrpc.Error {
	return ServerError(fmt.Sprintf("Request Timeout: the body was not received within %s", d))
}

// CapReached is the refusal of a session past the cap of n sessions (503).
func CapReached(n int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("Service unavailable: maximum concurrent sessions (%d) reached", n)}
}
