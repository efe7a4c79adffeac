package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// lossyTransport is a client Transport whose connection, when a
// tools/call is written, reports the request lost (as an HTTP transport
// does when the request's context ends and its response stream breaks)
// and only then cancels the caller's context: both the failure and the
// cancellation are ready when the call looks.
type lossyTransport struct {
	inner  mcp.Transport
	cancel func()
	// cancelled receives the id of each notifications/cancelled written.
	cancelled chan string
}

func (t *lossyTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	lc := &lossyConn{Connection: c, t: t, frames: make(chan readResult), inject: make(chan error), reading: make(chan struct{}, 1)}
	go lc.pump()
	return lc, nil
}

type readResult struct {
	frame []byte
	err   error
}

type lossyConn struct {
	mcp.Connection
	t       *lossyTransport
	frames  chan readResult
	inject  chan error
	reading chan struct{} // a Read began
}

func (c *lossyConn) pump() {
	for {
		f, err := c.Connection.Read(context.Background())
		c.frames <- readResult{f, err}
		if err != nil {
			return
		}
	}
}

func (c *lossyConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case c.reading <- struct{}{}:
	default:
	}
	select {
	case err := <-c.inject:
		return nil, err
	case r := <-c.frames:
		return r.frame, r.err
	}
}

func (c *lossyConn) Write(ctx context.Context, frame []byte) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(frame, &msg)
	switch msg.Method {
	case "tools/call":
		var id jsonrpc.ID
		if err := json.Unmarshal(msg.ID, &id); err != nil {
			return err
		}
		select { // forget a Read that began before: wait for the next one below
		case <-c.reading:
		default:
		}
		c.inject <- &mcp.RequestFailedError{ID: id, Err: errors.New("response stream lost")}
		<-c.reading // the session has handled the failure and reads on
		c.t.cancel()
		return nil
	case "notifications/cancelled":
		c.t.cancelled <- string(bytes.TrimSpace(msg.Params.RequestID))
	}
	return c.Connection.Write(ctx, frame)
}

// A call whose transport reports it lost once the caller has cancelled
// it ends as cancelled, whichever the call sees first: the caller gets
// context.Canceled and the server notifications/cancelled, as when the
// cancellation is seen first.
func TestCancelledCallLostByTheTransportIsCancelled(t *testing.T) {
	mcp.CheckLeaks(t)
	s := newToolServer(t, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	lt := &lossyTransport{inner: ct, cancelled: make(chan string, 1)}
	cs, err := mcp.NewClient(clientTestInfo, nil).Connect(context.Background(), lt)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	// Each round both outcomes are ready; the call picks one at random.
	for i := range 40 {
		ctx, cancel := context.WithCancel(context.Background())
		lt.cancel = cancel
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: CallTool = %v, want context.Canceled", i, err)
		}
		select {
		case <-lt.cancelled:
		default:
			t.Fatalf("round %d: no notifications/cancelled sent", i)
		}
		cancel()
	}
}
