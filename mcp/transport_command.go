package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// defaultShutdownGrace is how long CommandTransport waits for a server
// process to exit at each step of the shutdown, if not configured.
const defaultShutdownGrace = 5 * time.Second

// CommandTransport runs an MCP server as a child process and speaks to it
// over its stdin and stdout
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio);
// the child's stderr goes to the parent's unless Command.Stderr is set.
// Closing the connection closes the child's stdin, then sends SIGTERM and
// SIGKILL ShutdownGrace apart (on Windows, kills it after ShutdownGrace)
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio).
// A CommandTransport connects once.
type CommandTransport struct {
	// Command is the server to run. Its Stdin and Stdout must be nil: the
	// transport owns them. After the connection is closed,
	// Command.ProcessState tells how the server ended.
	Command *exec.Cmd
	// ShutdownGrace is how long Close waits for the server to exit after
	// closing its stdin, and again after SIGTERM. If zero, 5 seconds.
	ShutdownGrace time.Duration
	// MaxMessageBytes limits one line from the server. A longer line is
	// discarded; a response whose id is found in it fails its call with
	// an error wrapping *FrameTooLargeError. If zero, 4 MiB.
	MaxMessageBytes int
}

// Connect implements Transport: it starts the server process.
func (t *CommandTransport) Connect(ctx context.Context) (Connection, error) {
	cmd := t.Command
	if cmd == nil {
		return nil, errors.New("mcp: CommandTransport: Command is nil")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("mcp: CommandTransport: Command.Stdin and Command.Stdout must be nil")
	}
	grace := positiveOr(t.ShutdownGrace, defaultShutdownGrace) // client.go
	// Pipes we create ourselves, rather than Cmd.StdinPipe/StdoutPipe: then
	// Cmd.Wait does not close our end of stdout when the child exits, and
	// the read loop can read everything the server wrote before it ended.
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("CommandTransport: %w", err)
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return nil, fmt.Errorf("CommandTransport: %w", err)
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if cmd.WaitDelay == 0 {
		// A grandchild that outlives the server (the program `go run`
		// starts, say) may hold a stderr pipe open; do not wait for it
		// forever.
		cmd.WaitDelay = grace
	}
	err = cmd.Start()
	// The child has its own copies now; ours would keep the pipes open.
	childIn.Close()
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("starting server: %w", err)
	}
	c := &commandConn{
		Connection: newStreamConnection(stdout, stdin, t.MaxMessageBytes),
		cmd:        cmd,
		stdin:      stdin,
		grace:      grace,
		exited:     make(chan struct{}),
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// commandConn is the connection to a child server: the stream connection
// over its stdin and stdout, plus the process to shut down.
type commandConn struct {
	Connection
	cmd   *exec.Cmd
	stdin *os.File
	grace time.Duration

	exited  chan struct{} // closed when cmd.Wait returns
	waitErr error

	closeOnce sync.Once
	closeErr  error
}

// Close shuts the server down (close stdin, wait, SIGTERM, wait, SIGKILL)
// and then closes the connection. It returns nil when the server exited on
// its own after its stdin was closed, whatever its exit status, and an
// error saying so when it had to be signalled.
func (c *commandConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.shutdown()
		// Our end of stdout; a grandchild may still hold the pipe open.
		c.Connection.Close()
	})
	return c.closeErr
}

func (c *commandConn) shutdown() error {
	c.stdin.Close()
	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	select {
	case <-c.exited:
		return nil
	case <-timer.C:
	}
	if errors.Is(terminate(c.cmd.Process), errors.ErrUnsupported) {
		_ = c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("mcp: server did not exit within %v of its stdin closing; killed it: %v", c.grace, c.waitErr)
	}
	timer.Reset(c.grace)
	select {
	case <-c.exited:
		return fmt.Errorf("mcp: server did not exit within %v of its stdin closing; stopped it with SIGTERM: %v", c.grace, c.waitErr)
	case <-timer.C:
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
	return fmt.Errorf("mcp: server did not exit within %v of SIGTERM; killed it: %v", c.grace, c.waitErr)
}
