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
}

func (*Request) isMessage()      {}
func (*Notification) isMessage() {}
func (*Response) isMessage()     {}

// NewErrorResponse is shorthand for a Response carrying err as its error.
func NewErrorResponse(id ID, err *Error) *Response { return &Response{ID: id, Error: err} }
