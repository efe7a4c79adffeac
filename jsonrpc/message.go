package jsonrpc

import "encoding/json"

// Message is one JSON-RPC message: a *Request, a *Notification or a
// *Response. The interface is sealed; the three types are the whole set.
type Message interface {
	isMessage()
}

// Request asks the peer to call Method and answer with a Response carrying
// the same ID. ID is always valid on a decoded Request.
type Request struct {
	ID     ID
	Method string
	// Params is the raw "params" member, nil when absent. It is kept raw so
	// that it is decoded once, into the type of the handler that serves it.
	Params json.RawMessage

	// members notes where the members of Params lie, when Decode found
	// them (ParamsMembers).
	members paramsMembers
}

// MaxParamsMembers is the most members of an object params that Decode
// notes for Request.ParamsMembers.
const MaxParamsMembers = 8

// paramsMembers notes the members of one object params: base and size
// identify the params noted (so that replaced params are not described),
// and spans[:n] are the members, as offsets from base.
type paramsMembers struct {
	base  *byte
	size  uint32
	n     uint8
	spans [MaxParamsMembers]memberSpan
}

// memberSpan is one member of params: its raw name is
// params[keyStart:keyEnd] and its raw value params[valueStart:valueEnd].
type memberSpan struct {
	keyStart, keyEnd, valueStart, valueEnd uint32
}

// ParamsMembers returns the number of members of the object Params, as
// Decode noted them while it validated the request, and true; false when
// it noted none: Params is not an object, has more than MaxParamsMembers
// members, or was replaced after Decode. A reader of a few members of
// params (https://www.jsonrpc.org/specification#parameter_structures)
// then finds them with ParamsMember without scanning Params again.
func (r *Request) ParamsMembers() (n int, ok bool) {
	m := &r.members
	if m.base == nil || len(r.Params) != int(m.size) || &r.Params[0] != m.base {
		return 0, false
	}
	return int(m.n), true
}

// ParamsMember returns member i of Params, in order, for 0 <= i < n of
// ParamsMembers: its raw name as written between the quotes (escapes
// kept) and its raw value, both sub-slices of Params. No name repeats:
// Decode refuses a request whose params repeat one.
func (r *Request) ParamsMember(i int) (name, value []byte) {
	s := r.members.spans[i]
	return r.Params[s.keyStart:s.keyEnd], r.Params[s.valueStart:s.valueEnd]
}

// Notification is a request without an id: it is never answered.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Response answers a Request. Exactly one of Result and Error is set.
// ID is the zero ID when the request that failed could not be identified
// (for example, a parse error); it is then encoded as null.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error

	// compact is the Result that NewCompactResult was given: while Result
	// is still that slice, encoders skip checking it again.
	compact []byte
}

// NewCompactResult returns a success response whose result the caller
// guarantees is one valid JSON value without insignificant white space,
// because its own encoder wrote it so (encoding/json's Marshal, or a
// cached encoding of such output). Encoding then copies the result as it
// is instead of scanning it again, which matters for results of
// megabytes (a resource, the tools of a large server). A Result replaced
// after the call is checked as usual.
func NewCompactResult(id ID, result json.RawMessage) *Response {
	return &Response{ID: id, Result: result, compact: result}
}

// KnownCompact reports whether r's Result is still the one given to
// NewCompactResult, and so known to be valid, compact JSON.
func (r *Response) KnownCompact() bool {
	return len(r.Result) > 0 && len(r.compact) == len(r.Result) && &r.compact[0] == &r.Result[0]
}

func (*Request) isMessage()      {}
func (*Notification) isMessage() {}
func (*Response) isMessage()     {}

// NewErrorResponse is shorthand for a Response carrying err as its error.
func NewErrorResponse(id ID, err *Error) *Response { return &Response{ID: id, Error: err} }
