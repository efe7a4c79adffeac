package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// Standard JSON-RPC 2.0 error codes
// (https://www.jsonrpc.org/specification#error_object).
const (
	// CodeParseError: the bytes were not valid JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: valid JSON, but not an acceptable message here.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: the method does not exist or is not available.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: the method exists but its params are wrong.
	CodeInvalidParams = -32602
	// CodeInternalError: the receiver failed while handling a valid request.
	CodeInternalError = -32603
)

// Error codes that MCP defines in the implementation-defined range. They are
// named here so that every layer refers to one constant.
const (
	// CodeServerError is the generic implementation-defined error MCP's
	// Streamable HTTP transport uses for HTTP-level refusals.
	CodeServerError = -32000
	// CodeSessionNotFound: the Mcp-Session-Id names no live session.
	CodeSessionNotFound = -32001
	// CodeResourceNotFound: resources/read named an unknown URI
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling).
	CodeResourceNotFound = -32002
	// CodeHeaderMismatch: an HTTP header disagrees with the body (2026-07-28).
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a capability the client
	// did not declare (2026-07-28).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the requested protocol version is not
	// served (2026-07-28).
	CodeUnsupportedProtocolVersion = -32022
	// CodeURLElicitationRequired: the server needs the user to complete a URL
	// elicitation first
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error).
	CodeURLElicitationRequired = -32042
)

// Error is a JSON-RPC error object. It implements error, so a handler can
// return one to choose the code, message and data its caller sees. Every
// protocol error mcpkit returns can be extracted with [errors.As].
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// NewError returns an Error with the given code and message and, unless data
// is nil, data encoded as JSON. Data that cannot be encoded is dropped.
func NewError(code int64, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data != nil {
		if raw, ok := data.(json.RawMessage); ok {
			e.Data = raw
		} else if b, err := jsonenc.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s: %s", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, MethodNotFoundError(nil)) matches any method-not-found error.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Code == e.Code
}

// Constructors for the standard errors
// (https://www.jsonrpc.org/specification#error_object). Each call returns a
// new *Error, so that no caller can change what another sends; since
// *Error compares by code, errors.Is(err, MethodNotFoundError(nil))
// matches any method-not-found error. data, when not nil, is encoded as by
// NewError.

// ParseError returns -32700 "Parse error": the bytes were not valid JSON.
func ParseError(data any) *Error { return NewError(CodeParseError, "Parse error", data) }

// InvalidRequestError returns -32600 "Invalid Request": valid JSON, but
// not an acceptable message here.
func InvalidRequestError(data any) *Error {
	return NewError(CodeInvalidRequest, "Invalid Request", data)
}

// MethodNotFoundError returns -32601 "Method not found".
func MethodNotFoundError(data any) *Error {
	return NewError(CodeMethodNotFound, "Method not found", data)
}

// InvalidParamsError returns -32602 "Invalid params": the method exists but
// its params are wrong.
func InvalidParamsError(data any) *Error {
	return NewError(CodeInvalidParams, "Invalid params", data)
}

// InternalError returns -32603 "Internal error": the receiver failed while
// handling a valid request.
func InternalError(data any) *Error {
	return NewError(CodeInternalError, "Internal error", data)
}
