package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// invalid returns an Invalid Request error whose data explains why.
func invalid(reason string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: appendString(nil, "Invalid Request: "+reason)}
}

// parseError is the error for bytes that are not JSON.
func parseError() *Error { return &Error{Code: CodeParseError, Message: "Parse error"} }

// Decode reads exactly one JSON-RPC message from data and classifies it.
//
// The error, when not nil, is always an *Error ready to send back:
// CodeParseError for invalid JSON, CodeInvalidRequest for JSON that is not a
// single well-formed message (not an object, a wrong "jsonrpc", an id of the
// wrong type, a request without a string method, params that are neither
// object nor array, a response with both or neither of result and error, a
// response without an id or a result with a null id, an error object without
// an integer code and a string message). An explicit "params": null is
// treated as absent params.
// Member names match exactly; unknown members are ignored; when a member
// repeats, the last one counts. When the message is a request whose id could
// be read, that id is also returned so the error response can echo it.
//
// Decode reads the envelope in place without decoding params or result:
// the raw members of the returned message are sub-slices of data, so the
// caller must not modify data while the message is in use.
func Decode(data []byte) (Message, ID, error) {
	i := jsonscan.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		end, _, err := jsonscan.Skip(data, i)
		if err != nil || jsonscan.SkipSpace(data, end) != len(data) {
			return nil, ID{}, parseError()
		}
		return nil, ID{}, invalid("JSON-RPC message must be a single object")
	}
	var (
		version, rawID, method, params, result, errObj []byte
	)
	// One pass validates the message and finds its members.
	end, err := jsonscan.ScanObject(data, i, func(key, value []byte) {
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			rawID = value
		case "method":
			method = value
		case "params":
			params = value
		case "result":
			result = value
		case "error":
			errObj = value
		default:
			if bytes.IndexByte(key, '\\') >= 0 {
				escapedMember(key, value, &version, &rawID, &method, &params, &result, &errObj)
			}
		}
	})
	if err != nil || jsonscan.SkipSpace(data, end) != len(data) {
		return nil, ID{}, parseError()
	}
	return classify(version, rawID, method, params, result, errObj)
}

// escapedMember assigns a member whose name is spelled with escapes.
func escapedMember(key, value []byte, version, rawID, method, params, result, errObj *[]byte) {
	switch {
	case jsonscan.KeyEquals(key, "jsonrpc"):
		*version = value
	case jsonscan.KeyEquals(key, "id"):
		*rawID = value
	case jsonscan.KeyEquals(key, "method"):
		*method = value
	case jsonscan.KeyEquals(key, "params"):
		*params = value
	case jsonscan.KeyEquals(key, "result"):
		*result = value
	case jsonscan.KeyEquals(key, "error"):
		*errObj = value
	}
}

func classify(version, rawID, method, params, result, errObj []byte) (Message, ID, error) {
	var id ID
	hasID := rawID != nil
	if hasID {
		var err error
		if id, err = parseID(rawID); err != nil {
			return nil, ID{}, invalid("id must be a string or an integer")
		}
	}
	if version == nil || !jsonscan.StringEquals(version, "2.0") {
		return nil, id, invalid(`jsonrpc must be "2.0"`)
	}
	if method != nil {
		if jsonscan.KindOf(method) != jsonscan.String {
			return nil, id, invalid("method must be a string")
		}
		if result != nil || errObj != nil {
			return nil, id, invalid("a request must not carry result or error")
		}
		name, ok := methodName(method)
		if !ok {
			return nil, id, invalid("method must be a string")
		}
		switch jsonscan.KindOf(params) {
		case jsonscan.Invalid, jsonscan.Null:
			params = nil
		case jsonscan.Object, jsonscan.Array:
		default:
			return nil, id, invalid("params must be an object or an array")
		}
		if !hasID {
			return &Notification{Method: name, Params: params}, ID{}, nil
		}
		if !id.IsValid() {
			return nil, ID{}, invalid("a request id must not be null")
		}
		return &Request{ID: id, Method: name, Params: params}, id, nil
	}
	if result == nil && errObj == nil {
		return nil, id, invalid("method is required")
	}
	if result != nil && errObj != nil {
		return nil, id, invalid("a response must carry result or error, not both")
	}
	if !hasID {
		return nil, ID{}, invalid("a response must carry an id")
	}
	if errObj != nil {
		e, ok := decodeErrorObject(errObj)
		if !ok {
			return nil, id, invalid("error must be an object with an integer code and a string message")
		}
		return &Response{ID: id, Error: e}, id, nil
	}
	if !id.IsValid() {
		// Only an error can answer a request whose id was unreadable
		// (https://www.jsonrpc.org/specification#response_object).
		return nil, ID{}, invalid("a response with a result must carry a string or integer id")
	}
	return &Response{ID: id, Result: result}, id, nil
}

// methodName returns the Go string of a raw method name. The names MCP
// peers send most come from constants, without allocating.
func methodName(raw []byte) (string, bool) {
	switch string(raw) {
	case `"tools/call"`:
		return "tools/call", true
	case `"tools/list"`:
		return "tools/list", true
	case `"ping"`:
		return "ping", true
	case `"initialize"`:
		return "initialize", true
	case `"notifications/initialized"`:
		return "notifications/initialized", true
	case `"notifications/progress"`:
		return "notifications/progress", true
	case `"notifications/cancelled"`:
		return "notifications/cancelled", true
	case `"resources/read"`:
		return "resources/read", true
	case `"prompts/get"`:
		return "prompts/get", true
	}
	return jsonscan.StringValue(raw)
}

// decodeErrorObject reads a JSON-RPC error object: "code" must be an
// integer and "message" a string, both present; "data" is optional and kept
// raw. Member names match exactly, like the envelope's.
func decodeErrorObject(obj []byte) (*Error, bool) {
	if jsonscan.KindOf(obj) != jsonscan.Object {
		return nil, false
	}
	var code, message, data []byte
	jsonscan.Members(obj, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyEquals(key, "code"):
			code = value
		case jsonscan.KeyEquals(key, "message"):
			message = value
		case jsonscan.KeyEquals(key, "data"):
			data = value
		}
		return true
	})
	if jsonscan.KindOf(code) != jsonscan.Number {
		return nil, false
	}
	n, err := strconv.ParseInt(string(code), 10, 64)
	if err != nil {
		return nil, false
	}
	msg, ok := jsonscan.StringValue(message)
	if !ok {
		return nil, false
	}
	return &Error{Code: n, Message: msg, Data: data}, true
}

// IsBatch reports whether data, after leading white space, is a JSON array:
// the shape of a JSON-RPC batch.
func IsBatch(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '['
}

// DecodeBatch reads a JSON-RPC batch: an array of one or more messages.
// It is separate from Decode because only peers that negotiated protocol
// version 2025-03-26 may send batches; every other caller must refuse arrays.
//
// The slice has one entry per element. An element that is not a valid
// message has a nil Message and its error (always an *Error) in errs at the
// same index. The returned error is for the array as a whole: invalid JSON
// (CodeParseError), or a non-array or empty array (CodeInvalidRequest).
// Like Decode, the raw members of the messages are sub-slices of data.
func DecodeBatch(data []byte) (msgs []Message, errs []error, err error) {
	i := jsonscan.SkipSpace(data, 0)
	end, kind, scanErr := jsonscan.Skip(data, i)
	if scanErr != nil || jsonscan.SkipSpace(data, end) != len(data) {
		return nil, nil, parseError()
	}
	if kind != jsonscan.Array {
		return nil, nil, invalid("batch must be an array")
	}
	jsonscan.Elements(data[i:end], func(elem []byte) bool {
		m, _, e := Decode(elem)
		msgs = append(msgs, m)
		errs = append(errs, e)
		return true
	})
	if len(msgs) == 0 {
		return nil, nil, invalid("batch must not be empty")
	}
	return msgs, errs, nil
}

// Encode returns the compact JSON encoding of msg, with no trailing newline.
func Encode(msg Message) ([]byte, error) {
	return AppendEncode(make([]byte, 0, 128), msg)
}

// AppendEncode appends the compact JSON encoding of msg to dst, so a
// transport can reuse one buffer for many messages.
func AppendEncode(dst []byte, msg Message) ([]byte, error) {
	switch m := msg.(type) {
	case *Request:
		if !m.ID.IsValid() {
			return dst, errors.New("jsonrpc: request has no id")
		}
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = m.ID.AppendJSON(dst)
		dst = append(dst, `,"method":`...)
		dst = appendString(dst, m.Method)
		return appendRaw(dst, `,"params":`, m.Params)
	case *Notification:
		dst = append(dst, `{"jsonrpc":"2.0","method":`...)
		dst = appendString(dst, m.Method)
		return appendRaw(dst, `,"params":`, m.Params)
	case *Response:
		if m.Error == nil && !m.ID.IsValid() {
			return dst, errors.New("jsonrpc: a response with a result must have an id")
		}
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = m.ID.AppendJSON(dst)
		if m.Error != nil {
			dst = append(dst, `,"error":{"code":`...)
			dst = appendInt(dst, m.Error.Code)
			dst = append(dst, `,"message":`...)
			dst = appendString(dst, m.Error.Message)
			if len(m.Error.Data) > 0 {
				var err error
				if dst, err = appendCompact(append(dst, `,"data":`...), m.Error.Data); err != nil {
					return dst, err
				}
			}
			return append(dst, "}}"...), nil
		}
		result := m.Result
		if len(result) == 0 {
			result = json.RawMessage("{}")
		}
		dst = append(dst, `,"result":`...)
		if m.KnownCompact() {
			return append(append(dst, result...), '}'), nil
		}
		dst, err := appendCompact(dst, result)
		if err != nil {
			return dst, err
		}
		return append(dst, '}'), nil
	case nil:
		return dst, errors.New("jsonrpc: nil message")
	}
	return dst, errors.New("jsonrpc: unknown message type")
}

func appendRaw(dst []byte, key string, raw json.RawMessage) ([]byte, error) {
	if len(raw) > 0 {
		var err error
		if dst, err = appendCompact(append(dst, key...), raw); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// errRawInvalid reports a raw member (params, result, error data) that is
// not exactly one JSON value.
var errRawInvalid = errors.New("jsonrpc: raw member is not valid JSON")

// appendCompact appends raw JSON without insignificant white space, so that
// the output is compact and never holds a line break that would split a
// stdio frame. Raw members without white space outside their strings, the
// common case, are only validated and copied.
func appendCompact(dst []byte, raw []byte) ([]byte, error) {
	if jsonscan.ValidCompact(raw) {
		return append(dst, raw...), nil // the usual case: one pass
	}
	if !jsonscan.Valid(raw) {
		return dst, errRawInvalid
	}
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, raw); err != nil {
		return dst, errRawInvalid
	}
	return buf.Bytes(), nil
}

func appendInt(dst []byte, n int64) []byte {
	return Int64ID(n).AppendJSON(dst)
}

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(dst []byte, s string) []byte {
	return jsonenc.AppendString(dst, s)
}
