package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
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
// single well-formed message (not an object, a member that repeats, a wrong
// "jsonrpc", an id of the wrong type, a request without a string method,
// params that are neither object nor array, a response with both or
// neither of result and error, a response without an id or a result with a
// null id, an error object without an integer code and a string message).
// An explicit "params": null is treated as absent params.
//
// Member names match exactly, byte for byte once unescaped, and a name
// may appear only once in any object of the message (RFC 8259 §4 leaves
// repeats to the reader; mcpkit refuses them, as I-JSON, RFC 7493 §2.3,
// does). Unknown members are ignored. A name repeated in the envelope is
// CodeInvalidRequest; one repeated inside params is CodeInvalidParams, and
// inside a response's result or error is CodeInvalidRequest; in those two
// cases the message is returned beside the error, so that a server can
// answer the request and a client can fail the call that the response
// answers. When the message is a request whose id could be read, that id
// is also returned so the error response can echo it.
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
	var e envelope
	// One pass validates the message and finds its members, and those of
	// an object params.
	end, err := e.scan(data, i)
	if err != nil || jsonscan.SkipSpace(data, end) != len(data) {
		return nil, ID{}, parseError()
	}
	if e.repeats {
		var id ID // which of two ids to answer is unknown: null
		if e.repeated != "id" && e.rawID != nil {
			id, _ = parseID(e.rawID)
		}
		return nil, id, invalid("duplicate member " + strconv.Quote(e.repeated))
	}
	msg, id, err := classify(e.version, e.rawID, e.method, e.params, e.result, e.errObj)
	if r, ok := msg.(*Request); ok && e.dup == nil && e.noted && len(r.Params) == int(e.members.size) && &r.Params[0] == e.members.base {
		r.members = e.members
	}
	if err == nil && e.dup != nil {
		err = e.dupError(msg, data, i)
	}
	return msg, id, err
}

// envelope is the members of a message, raw.
type envelope struct {
	version, rawID, method, params, result, errObj []byte
	// members notes the members of the last params member when noted
	// says it is an object of at most MaxParamsMembers members.
	members paramsMembers
	noted   bool
	// names are the envelope's member names; repeated is the first that
	// repeats (when repeats is set), and dup the first repeated name inside a member's value.
	names    decodeNames
	repeats  bool
	repeated string
	dup      *jsonscan.DuplicateError
}

// decodeNames finds repeated member names as Decode reads a message: the
// names of the envelope and of params, and a skipper for the values below
// them. It lives in Decode's frame.
type decodeNames struct {
	envelope, params jsonscan.Names
	below            jsonscan.UniqueSkipper
}

// dupError is the error for the repeated name e.dup inside a member of
// msg, the message read from data[i:].
func (e *envelope) dupError(msg Message, data []byte, i int) *Error {
	where := jsonscan.PointerTo(data, i, e.dup.Offset)
	text := "duplicate member " + strconv.Quote(e.dup.Name) + " in " + where
	if _, ok := msg.(*Response); ok {
		return invalid(text)
	}
	return &Error{Code: CodeInvalidParams, Message: "Invalid params", Data: appendString(nil, "Invalid params: "+text)}
}

// noteDup keeps the first repeated name met inside a member's value.
func (e *envelope) noteDup(err error) error {
	if d, ok := err.(*jsonscan.DuplicateError); ok {
		if e.dup == nil {
			e.dup = d
		}
		return nil
	}
	return err
}

// scan validates the object at data[i] as jsonscan.ScanObject does and
// notes its members; an object params is walked member by member, and its
// members are noted too, in the same pass. Repeated names
// are noted, not refused, so that a syntax error later in the message
// still makes it a parse error.
func (e *envelope) scan(data []byte, i int) (int, error) {
	return jsonscan.WalkObjectAt(data, i, 0, func(key []byte, start int) (int, error) {
		var dst *[]byte
		switch string(key) {
		case "jsonrpc":
			dst = &e.version
		case "id":
			dst = &e.rawID
		case "method":
			dst = &e.method
		case "params":
			dst = &e.params
		case "result":
			dst = &e.result
		case "error":
			dst = &e.errObj
		default:
			if bytes.IndexByte(key, '\\') >= 0 {
				dst = e.escapedMember(key)
			}
		}
		// A member of the envelope's own repeats when its slot is
		// taken; the others' names are noted to find theirs.
		if dst != nil && *dst != nil || dst == nil && !e.names.envelope.Add(data, key) {
			if !e.repeats {
				e.repeats = true
				e.repeated, _ = jsonscan.StringValue(data[cap(data)-cap(key)-1 : cap(data)-cap(key)+len(key)+1])
			}
		}
		var end int
		var err error
		if dst == &e.params && start < len(data) && data[start] == '{' {
			end, e.noted, err = e.scanParams(data, start)
		} else {
			end, _, err = e.names.below.SkipAt(data, start, 1)
			err = e.noteDup(err)
		}
		if err != nil {
			return end, err
		}
		if dst != nil {
			*dst = data[start:end]
			if dst == &e.params && data[start] != '{' {
				e.noted = false
			}
		}
		return end, nil
	})
}

// scanParams validates the params object at data[i] (a member value, at
// depth 1) as jsonscan.SkipUniqueAt(data, i, 1) does, noting its members
// in e.members. ok says e.members notes them all.
func (e *envelope) scanParams(data []byte, i int) (end int, ok bool, err error) {
	pm := &e.members
	*pm = paramsMembers{}
	start := i
	ok = uint64(len(data)-start) <= math.MaxUint32
	// Keys and values are sub-slices of data, so their capacities tell
	// where they begin.
	base := cap(data) - start
	names := &e.names.params
	end, err = jsonscan.WalkObjectAt(data, i, 1, func(key []byte, vstart int) (int, error) {
		if !names.Add(data, key) && e.dup == nil {
			// The raw key's opening quote is just before key.
			at := cap(data) - cap(key) - 1
			name, _ := jsonscan.StringValue(data[at : at+len(key)+2])
			e.dup = &jsonscan.DuplicateError{Name: name, Offset: at}
		}
		vend, _, err := e.names.below.SkipAt(data, vstart, 2)
		if err = e.noteDup(err); err != nil {
			return vend, err
		}
		if ok = ok && int(pm.n) < MaxParamsMembers; ok {
			ks := uint32(base - cap(key))
			pm.spans[pm.n] = memberSpan{keyStart: ks, keyEnd: ks + uint32(len(key)), valueStart: uint32(vstart - start), valueEnd: uint32(vend - start)}
			pm.n++
		}
		return vend, nil
	})
	if err != nil {
		return end, false, err
	}
	if ok {
		pm.base, pm.size = &data[start], uint32(end-start)
	}
	return end, ok, nil
}

// escapedMember returns where a member whose name is spelled with escapes
// goes, or nil for an unknown member.
func (e *envelope) escapedMember(key []byte) *[]byte {
	switch {
	case jsonscan.KeyEquals(key, "jsonrpc"):
		return &e.version
	case jsonscan.KeyEquals(key, "id"):
		return &e.rawID
	case jsonscan.KeyEquals(key, "method"):
		return &e.method
	case jsonscan.KeyEquals(key, "params"):
		return &e.params
	case jsonscan.KeyEquals(key, "result"):
		return &e.result
	case jsonscan.KeyEquals(key, "error"):
		return &e.errObj
	}
	return nil
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
	if version == nil || string(version) != `"2.0"` && !jsonscan.StringEquals(version, "2.0") {
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
