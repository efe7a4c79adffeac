package mcp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"sync"

	"github.com/mcpkit/mcpkit/internal/frameid"
)

// defaultMaxMessageBytes is the default limit on one incoming stdio line.
const defaultMaxMessageBytes = 4 << 20

// StdioTransport serves or speaks MCP over a pair of streams, one
// newline-delimited JSON-RPC message per line
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).
// Nothing but MCP messages is written to the output. The zero value uses
// os.Stdin and os.Stdout.
type StdioTransport struct {
	// In and Out default to os.Stdin and os.Stdout.
	In  io.Reader
	Out io.Writer
	// MaxMessageBytes limits one incoming line. A longer line is discarded
	// and reported with *FrameTooLargeError, which carries the line's
	// top-level id when it has one; the next line is read as usual. If
	// zero, 4 MiB.
	MaxMessageBytes int
}

// Connect implements Transport.
func (t *StdioTransport) Connect(context.Context) (Connection, error) {
	in, out := t.In, t.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	return newStreamConnection(in, out, t.MaxMessageBytes), nil
}

// newStreamConnection returns a Connection that reads newline-delimited
// frames from r and writes them to w, each followed by '\n'. If r or w is
// an io.Closer, Close closes it. maxLine limits an incoming line; zero
// means defaultMaxMessageBytes.
func newStreamConnection(r io.Reader, w io.Writer, maxLine int) Connection {
	if maxLine <= 0 {
		maxLine = defaultMaxMessageBytes
	}
	return &streamConn{r: bufio.NewReaderSize(r, 64<<10), rc: r, w: w, max: maxLine, closed: make(chan struct{})}
}

type streamConn struct {
	r   *bufio.Reader
	rc  io.Reader
	max int
	buf []byte
	// scan finds the id of a line over max while it is discarded.
	scan frameid.Scanner

	wmu  sync.Mutex
	w    io.Writer
	wbuf []byte

	closeOnce sync.Once
	closed    chan struct{}
}

// Read implements Connection. Empty lines are skipped.
func (c *streamConn) Read(ctx context.Context) ([]byte, error) {
	for {
		select {
		case <-c.closed:
			return nil, ErrConnectionClosed
		default:
		}
		c.buf = c.buf[:0]
		tooLarge := false
		for {
			chunk, err := c.r.ReadSlice('\n')
			switch {
			case tooLarge:
				c.scan.Write(chunk)
			case len(c.buf)+len(chunk) > c.max+2: // allow "\r\n"
				tooLarge = true
				c.scan.Reset()
				c.scan.Write(c.buf)
				c.scan.Write(chunk)
				c.buf = c.buf[:0]
			default:
				c.buf = append(c.buf, chunk...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if err == io.EOF && len(bytes.TrimSpace(c.buf)) > 0 && !tooLarge {
					// A last line without a newline still counts.
					line := bytes.TrimSpace(c.buf)
					c.buf = c.buf[:0]
					return line, nil
				}
				if err == io.EOF && tooLarge {
					// So does a last line over the limit: report it; the
					// next Read returns io.EOF.
					return nil, c.tooLarge()
				}
				select {
				case <-c.closed:
					return nil, ErrConnectionClosed
				default:
				}
				return nil, err
			}
			break
		}
		if tooLarge {
			return nil, c.tooLarge()
		}
		line := bytes.TrimRight(c.buf, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(line) > c.max {
			c.scan.Reset()
			c.scan.Write(line)
			return nil, c.tooLarge()
		}
		// The caller may keep the frame; the buffer is reused.
		return bytes.Clone(line), nil
	}
}

// tooLarge reports the line just discarded, with what c.scan found in it.
func (c *streamConn) tooLarge() *FrameTooLargeError {
	id, method := c.scan.Result()
	return &FrameTooLargeError{Limit: c.max, ID: id, Request: method}
}

// Write implements Connection. Frames held (see hold) go out first, in
// the same write.
func (c *streamConn) Write(_ context.Context, frame []byte) error { return c.add(frame, 0) }

// hold keeps frame to be written with the next Write or flush, so that
// replies finishing together go out in one write.
func (c *streamConn) hold(frame []byte) error { return c.add(frame, maxHeld) }

// add appends frame to the frames held and writes them all once they are
// more than limit bytes.
func (c *streamConn) add(frame []byte, limit int) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return ErrConnectionClosed
	default:
	}
	c.wbuf = append(append(c.wbuf, frame...), '\n')
	if len(c.wbuf) > limit {
		return c.writeLocked()
	}
	return nil
}

// maxHeld bounds the bytes hold keeps before writing: a pipelining
// client gets its first replies while the rest are being served.
const maxHeld = 4 << 10

// flush writes the frames held, if any.
func (c *streamConn) flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if len(c.wbuf) == 0 {
		return nil
	}
	select {
	case <-c.closed:
		c.wbuf = c.wbuf[:0]
		return ErrConnectionClosed
	default:
	}
	return c.writeLocked()
}

func (c *streamConn) writeLocked() error {
	_, err := c.w.Write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	if cap(c.wbuf) > 64<<10 {
		c.wbuf = nil
	}
	return err
}

// Close implements Connection.
func (c *streamConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		if rc, ok := c.rc.(io.Closer); ok && rc != os.Stdin {
			err = rc.Close()
		}
		if wc, ok := c.w.(io.Closer); ok && wc != os.Stdout {
			if werr := wc.Close(); err == nil {
				err = werr
			}
		}
	})
	return err
}
