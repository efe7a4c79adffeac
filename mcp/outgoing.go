package mcp

import (
	"bytes"
	"errors"
	"sync"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// outgoing tracks the requests one side has sent and not yet had answered,
// so that a response read from the peer reaches the goroutine waiting for
// it. Both ServerSession (server-to-client requests) and ClientSession use
// it. The map is allocated on first use, so an idle session pays nothing.
type outgoing struct {
	mu      sync.Mutex
	nextID  int64
	pending map[jsonrpc.ID]chan *jsonrpc.Response
	// failed holds the error of a request the transport lost (fail),
	// until its waiter reads it (failure) or stops waiting (forget).
	failed map[jsonrpc.ID]error
	closed bool
}

// start allocates an id and the channel its response will arrive on.
func (o *outgoing) start() (jsonrpc.ID, chan *jsonrpc.Response, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return jsonrpc.ID{}, nil, ErrSessionClosed
	}
	o.nextID++
	id := jsonrpc.Int64ID(o.nextID)
	ch := make(chan *jsonrpc.Response, 1)
	if o.pending == nil {
		o.pending = make(map[jsonrpc.ID]chan *jsonrpc.Response)
	}
	o.pending[id] = ch
	return id, ch, nil
}

// deliver hands resp to its waiter and reports whether one was waiting.
func (o *outgoing) deliver(resp *jsonrpc.Response) bool {
	o.mu.Lock()
	ch, ok := o.pending[resp.ID]
	delete(o.pending, resp.ID)
	o.mu.Unlock()
	if ok {
		ch <- resp
	}
	return ok
}

// forget drops a request whose caller stopped waiting.
func (o *outgoing) forget(id jsonrpc.ID) {
	o.mu.Lock()
	delete(o.pending, id)
	delete(o.failed, id)
	o.mu.Unlock()
}

// fail ends the wait for request id with err instead of a response: its
// channel is closed and failure then returns err. It reports whether a
// waiter was there.
func (o *outgoing) fail(id jsonrpc.ID, err error) bool {
	o.mu.Lock()
	ch, ok := o.pending[id]
	if ok {
		delete(o.pending, id)
		if o.failed == nil {
			o.failed = make(map[jsonrpc.ID]error)
		}
		o.failed[id] = err
		close(ch)
	}
	o.mu.Unlock()
	return ok
}

// failure returns (and forgets) the error fail recorded for request id,
// or nil.
func (o *outgoing) failure(id jsonrpc.ID) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	err := o.failed[id]
	delete(o.failed, id)
	return err
}

// closeAll fails every waiter by closing its channel and refuses new
// requests.
func (o *outgoing) closeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for id, ch := range o.pending {
		close(ch)
		delete(o.pending, id)
	}
}

// refusedResponse reports whether frame, a message that jsonrpc.Decode
// refused without returning it (a member repeated in its envelope, both
// result and error, an error object without its code), is shaped as a
// response: an object with a result or an error and no method. Nobody
// answers such a message; it fails the call it answers, id, when its one
// id could be read (the zero ID otherwise).
func refusedResponse(frame []byte) (id jsonrpc.ID, ok bool) {
	frame = bytes.TrimSpace(frame)
	if len(frame) == 0 || frame[0] != '{' || !jsonscan.Valid(frame) {
		return jsonrpc.ID{}, false
	}
	var rawID []byte
	ids, response, method := 0, false, false
	jsonscan.Members(frame, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyEquals(key, "method"):
			method = true
		case jsonscan.KeyEquals(key, "result"), jsonscan.KeyEquals(key, "error"):
			response = true
		case jsonscan.KeyEquals(key, "id"):
			ids++
			rawID = value
		}
		return true
	})
	if !response || method {
		return jsonrpc.ID{}, false
	}
	if ids == 1 && id.UnmarshalJSON(rawID) != nil {
		id = jsonrpc.ID{}
	}
	return id, true
}

// refusedError is the error of a call whose response jsonrpc.Decode
// refused, peer naming who sent it ("server" or "client"). It says why in
// the decoder's words but does not wrap its *jsonrpc.Error: that error is
// not the peer's answer, and a handler returning it must not answer its
// own request with it.
func refusedError(peer string, err error) error {
	reason := err.Error()
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		reason = rpcErr.Message
		if s, ok := jsonscan.StringValue(rpcErr.Data); ok {
			reason = s
		}
	}
	return errors.New("the " + peer + "'s response was refused: " + reason)
}
