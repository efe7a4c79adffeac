package mcp

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// NewInMemoryTransports returns two connected transports, for tests and for
// embedding a server in the same process as its client: frames written to
// one are read from the other. Each transport connects once.
func NewInMemoryTransports() (client, server Transport) {
	a2b := make(chan []byte, 16)
	b2a := make(chan []byte, 16)
	done := make(chan struct{})
	var once sync.Once
	closeAll := func() { once.Do(func() { close(done) }) }
	return &memTransport{conn: &memConn{in: b2a, out: a2b, done: done, close: closeAll}},
		&memTransport{conn: &memConn{in: a2b, out: b2a, done: done, close: closeAll}}
}

// errPipeClosed ends a read on a closed in-memory pipe. It is io.EOF (a
// clean end) and ErrConnectionClosed (no reply can be written either),
// unlike stdio, where end of input leaves the output open.
var errPipeClosed = fmt.Errorf("%w: %w", ErrConnectionClosed, io.EOF)

type memTransport struct {
	conn *memConn
}

func (t *memTransport) Connect(context.Context) (Connection, error) { return t.conn, nil }

// memConn is one end of an in-memory pipe. Closing either end closes both,
// like a socket.
type memConn struct {
	in    <-chan []byte
	out   chan<- []byte
	done  chan struct{}
	close func()
}

func (c *memConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-c.in:
		return f, nil
	case <-c.done:
		// Drain what was written before the close.
		select {
		case f := <-c.in:
			return f, nil
		default:
		}
		return nil, errPipeClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *memConn) Write(ctx context.Context, frame []byte) error {
	f := make([]byte, len(frame))
	copy(f, frame)
	select {
	case <-c.done:
		return ErrConnectionClosed
	default:
	}
	select {
	case c.out <- f:
		return nil
	case <-c.done:
		return ErrConnectionClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *memConn) Close() error {
	c.close()
	return nil
}
