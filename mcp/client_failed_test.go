package mcp_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// failingConn is a client Connection to a fake session-era server: it
// answers initialize and ping, and fails every other request with a
// *mcp.RequestFailedError wrapping errLost, as a transport does when it
// loses a request (mcphttp: a response stream that cannot be resumed).
type failingConn struct {
	in     chan any // []byte frames or errors, in order
	closed chan struct{}
}

var errLost = errors.New("test transport: the request was lost")

func (c *failingConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *failingConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case v := <-c.in:
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.([]byte), nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *failingConn) Write(_ context.Context, frame []byte) error {
	msg, _, err := jsonrpc.Decode(frame)
	if err != nil {
		return err
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	var v any
	switch req.Method {
	case "initialize":
		v = []byte(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`)
	case "ping":
		v = []byte(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{}}`)
	default:
		v = &mcp.RequestFailedError{ID: req.ID, Err: &mcp.FrameTooLargeError{Limit: 7}}
		if req.Method != "tools/call" {
			v = &mcp.RequestFailedError{ID: req.ID, Err: errLost}
		}
	}
	select {
	case c.in <- v:
	case <-c.closed:
	}
	return nil
}

func (c *failingConn) Close() error {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
	return nil
}

// A transport that reports a lost request through Read fails exactly that
// call, with the transport's error reachable by errors.Is and errors.As
// (a wrapped *FrameTooLargeError included), and the session goes on.
func TestClientRequestFailedByTransport(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	conn := &failingConn{in: make(chan any, 4), closed: make(chan struct{})}
	cs, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{ProtocolEra: mcp.EraSession}).Connect(context.Background(), conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	_, err = cs.ListPrompts(context.Background(), nil)
	if want := "mcp: prompts/list: test transport: the request was lost"; !errors.Is(err, errLost) || err.Error() != want {
		t.Errorf("ListPrompts error = %v, want %q", err, want)
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	var tooLarge *mcp.FrameTooLargeError
	if want := "mcp: tools/call: mcp: message exceeds the limit of 7 bytes"; !errors.As(err, &tooLarge) || tooLarge.Limit != 7 || err.Error() != want {
		t.Errorf("CallTool error = %v, want %q", err, want)
	}
	if err := cs.Ping(context.Background()); err != nil {
		t.Errorf("Ping after the failures: %v", err)
	}
}
