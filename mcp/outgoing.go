package mcp

import (
	"sync"

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
	closed  bool
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
	o.mu.Unlock()
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
