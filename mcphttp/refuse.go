package mcphttp

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file holds the one way the handler refuses a request, and the
// errors it refuses with. Every refusal is an HTTP status plus a JSON-RPC
// error response, never a bare text body
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).

// refuse writes status and a JSON-RPC error response carrying id (the zero
// ID, encoded as null, when the request could not be identified). Headers
// such as Allow or Retry-After are set by the caller before.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	body, err := jsonrpc.Encode(jsonrpc.NewErrorResponse(id, e))
	if err != nil {
		// Only malformed Data could fail to encode; ours is always valid.
		body = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	h.logger.Debug("mcphttp: refused", "method", r.Method, "status", status, "code", e.Code, "message", e.Message)
}

// serverError is a -32000 error: the code Streamable HTTP uses for
// refusals at the HTTP level.
func serverError(message string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeServerError, Message: message}
}

// invalidRequest is -32600 with the generic message and the explanation in
// data, the form package mcp gives its lifecycle errors.
func invalidRequest(detail string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request", "Invalid Request: "+detail)
}

var (
	errSessionRequired = serverError("Bad Request: Mcp-Session-Id header is required")
	errSessionNotFound = &jsonrpc.Error{Code: jsonrpc.CodeSessionNotFound, Message: "Session not found"}
	errParse           = &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error"}
	errNotSingle       = invalidRequest("JSON-RPC body must be a single request object")
	errBatchInit       = invalidRequest("initialize must not be part of a JSON-RPC batch")
	errUnsupportedType = serverError("Unsupported Media Type: Content-Type must be application/json")
	errNotAcceptPOST   = serverError("Not Acceptable: Accept must include application/json and text/event-stream")
	errNotAcceptJSON   = serverError("Not Acceptable: Accept must include application/json")
	errNotAcceptGET    = serverError("Not Acceptable: Accept must include text/event-stream")
	errSecondGET       = serverError("Conflict: only one GET stream may be open on a session")
	errBadEventID      = serverError("Bad Request: malformed Last-Event-ID")
	errClosed          = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Service unavailable: the handler is closed"}
	errInternal        = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
)

func errMethodNotAllowed(allow string) *jsonrpc.Error {
	return serverError("Method Not Allowed: use " + allow)
}

func errTooLarge(limit int64) *jsonrpc.Error {
	return serverError(fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", limit))
}

func errCapReached(n int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("Service unavailable: maximum concurrent sessions (%d) reached", n)}
}

func errUnsupportedVersion(v string) *jsonrpc.Error {
	return serverError("Bad Request: Unsupported protocol version: " + v + " (supported versions: " + strings.Join(sessionVersions, ", ") + ")")
}

func errDuplicateID(id jsonrpc.ID) *jsonrpc.Error {
	return invalidRequest("a request with id " + id.String() + " is already in flight on this session")
}

func errUnknownEvent(id string) *jsonrpc.Error {
	return serverError("Bad Request: Last-Event-ID " + strconv.Quote(id) + " names no stored event of this session")
}

func errForbidden(what, value string) *jsonrpc.Error {
	return serverError("Forbidden: " + what + " not allowed: " + value)
}
