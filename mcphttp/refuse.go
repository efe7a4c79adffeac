package mcphttp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/internal/httpguard"
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
	httpguard.Refuse(w, status, id, e)
	h.logger.Debug("mcphttp: refused", "method", r.Method, "status", status, "code", e.Code, "message", e.Message)
}

// invalidRequest is -32600 with the generic message and the explanation in
// data, the form package mcp gives its lifecycle errors.
func invalidRequest(detail string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request", "Invalid Request: "+detail)
}

var (
	errSessionRequired = httpguard.ServerError("Bad Request: Mcp-Session-Id header is required")
	errNotSingle       = invalidRequest("JSON-RPC body must be a single request object")
	errBatchInit       = invalidRequest("initialize must not be part of a JSON-RPC batch")
	errNotAcceptPOST   = httpguard.ServerError("Not Acceptable: Accept must include application/json and text/event-stream")
	errNotAcceptJSON   = httpguard.ServerError("Not Acceptable: Accept must include application/json")
	errNotAcceptGET    = httpguard.ServerError("Not Acceptable: Accept must include text/event-stream")
	errSecondGET       = httpguard.ServerError("Conflict: only one GET stream may be open on a session")
	errBadEventID      = httpguard.ServerError("Bad Request: malformed Last-Event-ID")
	errInternal        = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
)

func errUnsupportedVersion(v string) *jsonrpc.Error {
	return httpguard.ServerError("Bad Request: Unsupported protocol version: " + v + " (supported versions: " + strings.Join(sessionVersions, ", ") + ")")
}

func errDuplicateID(id jsonrpc.ID) *jsonrpc.Error {
	return invalidRequest("a request with id " + id.String() + " is already in flight on this session")
}

func errUnknownEvent(id string) *jsonrpc.Error {
	return httpguard.ServerError("Bad Request: Last-Event-ID " + strconv.Quote(id) + " names no stored event of this session")
}
