package mcp

// This file holds the helpers of the server behaviour tests (lifecycle,
// serve, tool and stdio tests): a client end that speaks raw JSON-RPC lines
// to a real Server over the in-memory or the stdio transport, and a tiny
// script format so that a behaviour reads as the lines that cross the wire:
//
//	# a comment
//	-> {"jsonrpc":"2.0","id":1,"method":"ping"}
//	<- {"jsonrpc":"2.0","id":1,"result":{}}
//
// "->" is a line the client sends, "<-" the exact line the server must send
// next. Every helper is prefixed "lc" so that it does not clash with other
// test files in package mcp.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// lcWatchdog bounds how long a test waits for a frame that should come. It
// only turns a hang into a failure with a message; no test asserts on time.
const lcWatchdog = 30 * time.Second

// lcServerInfo is what lcNewServer's servers call themselves.
var lcServerInfo = Implementation{Name: "lc-server", Version: "1.0.0"}

// lcNewServer returns a server for the behaviour tests.
func lcNewServer(opts *ServerOptions) *Server {
	return NewServer(lcServerInfo, opts)
}

// lcConn is the client end of one session: it writes raw lines and reads
// the server's frames in order.
type lcConn struct {
	t  testing.TB
	ss *ServerSession
	// frames receives every frame the server writes, in order, and is
	// closed when the server's side of the connection ends.
	frames chan []byte
	write  func([]byte) error
	// closeClient ends the client's side: EOF on the server's input.
	closeClient func()
	ended       bool
}

// lcTransport connects a client end to a server.
type lcTransport struct {
	name    string
	connect func(t testing.TB, s *Server) *lcConn
}

// lcTransports are the stream transports every behaviour runs over.
var lcTransports = []lcTransport{
	{"memory", lcConnectMemory},
	{"stdio", func(t testing.TB, s *Server) *lcConn { return lcConnectStdio(t, s, 0) }},
}

// lcEachTransport runs f once per stream transport, as a subtest, and
// checks that no goroutine outlives the subtest: every session it opened,
// with its read loop and handlers, has ended.
func lcEachTransport(t *testing.T, f func(t *testing.T, connect func(s *Server) *lcConn)) {
	t.Helper()
	for _, tr := range lcTransports {
		t.Run(tr.name, func(t *testing.T) {
			// Registered first, so it runs after the sessions' cleanups.
			before := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, before) })
			f(t, func(s *Server) *lcConn { return tr.connect(t, s) })
		})
	}
}

// lcConnectMemory serves a session of s over NewInMemoryTransports.
func lcConnectMemory(t testing.TB, s *Server) *lcConn {
	t.Helper()
	ctx := context.Background()
	ct, st := NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	cc, err := ct.Connect(ctx)
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	c := &lcConn{
		t:           t,
		ss:          ss,
		frames:      make(chan []byte, 64),
		write:       func(b []byte) error { return cc.Write(ctx, b) },
		closeClient: func() { cc.Close() },
	}
	go func() {
		defer close(c.frames)
		for {
			f, err := cc.Read(ctx)
			if err != nil {
				return
			}
			c.frames <- f
		}
	}()
	t.Cleanup(c.cleanup)
	return c
}

// lcConnectStdio serves a session of s over a StdioTransport whose input
// and output are pipes; maxBytes is its MaxMessageBytes. Every line the
// server writes is checked to be exactly one frame followed by "\n".
func lcConnectStdio(t testing.TB, s *Server, maxBytes int) *lcConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := s.Connect(context.Background(), &StdioTransport{In: inR, Out: outW, MaxMessageBytes: maxBytes})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	c := &lcConn{
		t:      t,
		ss:     ss,
		frames: make(chan []byte, 64),
		write: func(b []byte) error {
			_, err := inW.Write(append(bytes.Clone(b), '\n'))
			return err
		},
		closeClient: func() { inW.Close() },
	}
	go func() {
		defer close(c.frames)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if err != nil {
					// A frame without its newline: hand it over as is so
					// that the test sees the bad framing.
					c.frames <- line
					return
				}
				c.frames <- line[:len(line)-1]
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(c.cleanup)
	return c
}

// send writes one line (one frame) to the server.
func (c *lcConn) send(line string) {
	c.t.Helper()
	if err := c.write([]byte(line)); err != nil {
		c.t.Fatalf("sending %s: %v", line, err)
	}
}

// recv returns the next frame the server wrote.
func (c *lcConn) recv() string {
	c.t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.t.Fatalf("connection ended while waiting for a frame")
		}
		if bytes.ContainsAny(f, "\r\n") {
			c.t.Errorf("frame contains a line break: %q", f)
		}
		return string(f)
	case <-time.After(lcWatchdog):
		c.t.Fatalf("no frame from the server after %v", lcWatchdog)
	}
	return ""
}

// expect reads the next frame and checks that it is exactly want.
func (c *lcConn) expect(want string) {
	c.t.Helper()
	if got := c.recv(); got != want {
		c.t.Errorf("server sent\n\t%s\nwant\n\t%s", got, want)
	}
}

// run plays a script: "->" lines are sent, "<-" lines are expected in
// order, "#" lines and blank lines are skipped.
func (c *lcConn) run(script string) {
	c.t.Helper()
	for n, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "->"):
			c.send(strings.TrimSpace(line[2:]))
		case strings.HasPrefix(line, "<-"):
			c.expect(strings.TrimSpace(line[2:]))
		default:
			c.t.Fatalf("script line %d: want \"->\", \"<-\" or \"#\": %q", n+1, line)
		}
	}
}

// end closes the client's side (EOF for the server), collects every frame
// the server still writes until its side closes, and returns them with
// what ServerSession.Wait reports.
func (c *lcConn) end() (rest []string, err error) {
	c.t.Helper()
	c.ended = true
	c.closeClient()
	timeout := time.After(lcWatchdog)
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				return rest, c.ss.Wait()
			}
			rest = append(rest, string(f))
		case <-timeout:
			c.t.Fatalf("the server's side did not close after %v", lcWatchdog)
		}
	}
}

// finish ends the session and fails the test if the server sent anything
// the test did not read, or if the session did not end cleanly.
func (c *lcConn) finish() {
	c.t.Helper()
	rest, err := c.end()
	if len(rest) > 0 {
		c.t.Errorf("unexpected frames from the server:\n\t%s", strings.Join(rest, "\n\t"))
	}
	if err != nil {
		c.t.Errorf("ServerSession.Wait = %v, want nil", err)
	}
}

// cleanup ends a session the test left open, so that no goroutine
// outlives the test.
func (c *lcConn) cleanup() {
	if !c.ended {
		c.end()
	}
}

// lcInit returns an initialize request asking for version, from a client
// named name.
func lcInit(id int, version, name string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":%q,"version":"1.0"}}}`, id, version, name)
}

// lcInitResult is the server's answer to an initialize from a server with
// no features.
func lcInitResult(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`, id, version)
}

// lcInitResultTools is lcInitResult for a server that has tools.
func lcInitResultTools(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"lc-server","version":"1.0.0"}}}`, id, version)
}

// handshake initializes the session with version (id 0), sends
// notifications/initialized, and fences with a ping (id "hs") so that the
// session is ready when it returns. initResult is the expected answer.
func (c *lcConn) handshake(version, initResult string) {
	c.t.Helper()
	c.send(lcInit(0, version, "lc-client"))
	c.expect(initResult)
	c.run(`
		-> {"jsonrpc":"2.0","method":"notifications/initialized"}
		-> {"jsonrpc":"2.0","id":"hs","method":"ping"}
		<- {"jsonrpc":"2.0","id":"hs","result":{}}
	`)
	if got := c.ss.State().Lifecycle; got != stateReady {
		c.t.Fatalf("after the handshake the session is %q, want %q", got, stateReady)
	}
}

// lcWait receives from ch, failing the test if nothing comes.
func lcWait[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(lcWatchdog):
		t.Fatalf("waiting for %s: nothing after %v", what, lcWatchdog)
	}
	var zero T
	return zero
}
