package main

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/mcp"
)

// childTransport is the transport to a server started after --: the
// library's CommandTransport, with the child in a process group of its
// own, so that a Ctrl-C at the terminal reaches mcpkit alone, which then
// ends the session (and the server) itself; and with a connection that
// watches the child's answers:
//
//   - when the session ends while a request is still unanswered (a
//     timeout, an interrupt), the server is stuck: instead of closing its
//     stdin and waiting its ShutdownGrace for it, mcpkit sends its
//     process group SIGTERM, then SIGKILL after childStopGrace. The
//     server/discover probe of --era auto does not count once the server
//     answered another request: a server of the session era may ignore
//     it;
//   - the first line the child writes on stdout that is not JSON is
//     kept (its first badLineBytes bytes), to say what the child printed
//     when it does not speak MCP.
type childTransport struct {
	*mcp.CommandTransport

	mu   sync.Mutex
	conn *childConn
}

// childStopGrace is how long a stuck server gets between SIGTERM and
// SIGKILL.
const childStopGrace = 500 * time.Millisecond

// badLineBytes bounds the part of a non-JSON line kept and shown.
const badLineBytes = 64

func newChildTransport(cmd *exec.Cmd) *childTransport {
	setChildProcessGroup(cmd)
	return &childTransport{CommandTransport: &mcp.CommandTransport{Command: cmd}}
}

// Connect implements mcp.Transport.
func (t *childTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &childConn{Connection: conn, cmd: t.Command, pending: make(map[string]string), readEnd: make(chan struct{})}
	t.mu.Lock()
	t.conn = c
	t.mu.Unlock()
	return c, nil
}

// badLine returns the start of the first line the child wrote that was
// not JSON, quoted, or "" if there was none.
func (t *childTransport) badLine() string {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.badLine
}

// childConn is the connection to the child; see childTransport.
type childConn struct {
	mcp.Connection
	cmd *exec.Cmd

	mu      sync.Mutex
	pending map[string]string // the requests not yet answered: id to method
	badLine string

	readEnd  chan struct{} // closed when a Read fails (the child's stdout ended)
	readOnce sync.Once
}

// frameHead is what childConn reads of a frame.
type frameHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// Write implements mcp.Connection, noting the requests sent.
func (c *childConn) Write(ctx context.Context, frame []byte) error {
	var h frameHead
	if json.Unmarshal(frame, &h) == nil && len(h.ID) > 0 && h.Method != "" {
		c.mu.Lock()
		c.pending[string(h.ID)] = h.Method
		c.mu.Unlock()
	}
	err := c.Connection.Write(ctx, frame)
	if errors.Is(err, syscall.EPIPE) {
		// The child closed its stdin, so it is likely ending: what it
		// printed on stdout is read before the session ends with this
		// error, so that badLine can say what it was.
		t := time.NewTimer(childStopGrace)
		defer t.Stop()
		select {
		case <-c.readEnd:
		case <-t.C:
		}
	}
	return err
}

// Read implements mcp.Connection, noting the answers and the first line
// that is not JSON.
func (c *childConn) Read(ctx context.Context) ([]byte, error) {
	frame, err := c.Connection.Read(ctx)
	if err != nil {
		c.readOnce.Do(func() { close(c.readEnd) })
		return frame, err
	}
	var h frameHead
	switch {
	case !json.Valid(frame):
		c.mu.Lock()
		if c.badLine == "" {
			c.badLine = quoteStart(frame, badLineBytes)
		}
		c.mu.Unlock()
	case json.Unmarshal(frame, &h) == nil && len(h.ID) > 0 && h.Method == "":
		c.mu.Lock()
		delete(c.pending, string(h.ID))
		for id, method := range c.pending {
			if method == "server/discover" {
				delete(c.pending, id) // answered, or ignored by a session-era server
			}
		}
		c.mu.Unlock()
	}
	return frame, err
}

// Close implements mcp.Connection: a server that owes an answer is
// stopped at once (see childTransport); any other gets the library's
// shutdown (stdin closed, then a grace period before signals).
func (c *childConn) Close() error {
	if !c.stuck() || c.cmd.Process == nil {
		return c.Connection.Close()
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		terminateChild(c.cmd)
		t := time.NewTimer(childStopGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			killChild(c.cmd)
		}
	}()
	err := c.Connection.Close()
	close(done)
	<-stopped
	return err
}

// stuck reports whether the server owes an answer.
func (c *childConn) stuck() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) > 0
}

// quoteStart quotes the first n bytes of b (cut at a character
// boundary) as a Go string, with "..." after it when b is longer.
func quoteStart(b []byte, n int) string {
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "..."
}
