package mcp

// Behaviour of the stdio transport as a server sees it: line framing, the
// size limit, and how the session ends
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// lcPingOfSize returns a ping request exactly n bytes long, with id "p".
func lcPingOfSize(t testing.TB, n int) string {
	t.Helper()
	const head, tail = `{"jsonrpc":"2.0","id":"p`, `","method":"ping"}`
	pad := n - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("a ping cannot be %d bytes", n)
	}
	return head + strings.Repeat("x", pad) + tail
}

// lcTooLarge is the answer to a line over a limit of n bytes whose id
// the transport did not find.
func lcTooLarge(n int) string { return lcTooLargeAt("null", n) }

// lcTooLargeAt is the answer to a request over a limit of n bytes whose
// id, in JSON, is id.
func lcTooLargeAt(id string, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: message exceeds the limit of %d bytes"}}`, id, n)
}

func TestStdioOversizedLine(t *testing.T) {
	const limit = 200
	c := lcConnectStdio(t, lcNewServer(nil), limit)
	c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))

	atLimit := lcPingOfSize(t, limit)
	c.send(atLimit)
	c.expect(`{"jsonrpc":"2.0","id":"p` + strings.Repeat("x", limit-len(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)) + `","result":{}}`)

	// The request is answered at its id, found in the line discarded.
	c.send(lcPingOfSize(t, limit+1))
	c.expect(lcTooLargeAt(`"p`+strings.Repeat("x", limit+1-len(`{"jsonrpc":"2.0","id":"p","method":"ping"}`))+`"`, limit))
	// Far over the limit, and not even JSON: the same answer.
	c.send(strings.Repeat("{", 10*limit))
	c.expect(lcTooLarge(limit))
	// The next line is served as usual.
	c.run(`
		-> {"jsonrpc":"2.0","id":1,"method":"ping"}
		<- {"jsonrpc":"2.0","id":1,"result":{}}
	`)
	// The limit counts the message, not its line ending.
	c.send(atLimit + "\r")
	if got := c.recv(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"pxx`) || !strings.HasSuffix(got, `","result":{}}`) {
		t.Errorf("a line of %d bytes ending in CRLF was answered %s", limit, got)
	}
	c.finish()
}

// TestStdioLongLines crosses the transport's internal read buffer (64 KiB):
// a long line under the limit is read whole, and one over it is skipped to
// its end.
func TestStdioLongLines(t *testing.T) {
	const limit = 200 << 10
	s := lcNewServer(nil)
	lcAddEcho(t, s)
	c := lcConnectStdio(t, s, limit)
	c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))

	text := strings.Repeat("abcdefgh", 150<<10/8)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
	c.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`)

	huge := strings.Repeat("abcdefgh", 500<<10/8)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + huge + `"}}}`)
	c.expect(lcTooLargeAt("2", limit))
	c.run(`
		-> {"jsonrpc":"2.0","id":3,"method":"ping"}
		<- {"jsonrpc":"2.0","id":3,"result":{}}
	`)
	c.finish()
}

func TestStdioDefaultLimit(t *testing.T) {
	c := lcConnectStdio(t, lcNewServer(nil), 0)
	// The id is 4 MiB long: longer than the transport keeps.
	c.send(lcPingOfSize(t, defaultMaxMessageBytes+1))
	c.expect(lcTooLarge(4 << 20))
	c.send(lcPingOfSize(t, 1<<20))
	if got := c.recv(); !strings.HasSuffix(got, `","result":{}}`) {
		t.Errorf("a 1 MiB ping was answered %.80s...", got)
	}
	c.finish()
}

func TestStdioFraming(t *testing.T) {
	c := lcConnectStdio(t, lcNewServer(nil), 0)
	// Blank lines are skipped; CRLF line endings are accepted; a frame
	// answered with an error carries no stray bytes.
	c.send("")
	c.send("   ")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r")
	c.expect(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	c.send(`  {"jsonrpc":"2.0","id":2,"method":"ping"}  `)
	c.expect(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	// A string holding an escaped line break stays on one line.
	c.send(`{"jsonrpc":"2.0","id":"a\nb","method":"ping"}`)
	c.expect(`{"jsonrpc":"2.0","id":"a\nb","result":{}}`)
	c.finish()
}

// TestStdioRunEndsAtEOF: Server.Run reads stdin to its end, answers
// everything, and returns nil.
func TestStdioRunEndsAtEOF(t *testing.T) {
	s := lcNewServer(nil)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		lcInit(2, "2025-11-25", "c"),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		``,
		`{oops`,
		// The last line has no newline; it still counts.
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	if err := s.Run(context.Background(), &StdioTransport{In: strings.NewReader(in), Out: &out}); err != nil {
		t.Fatalf("Run = %v, want nil at EOF", err)
	}
	want := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		lcInitResult(2, "2025-11-25"),
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant\n%s", out.String(), want)
	}
	if n := len(s.Sessions()); n != 0 {
		t.Errorf("%d sessions left on the server after Run, want 0", n)
	}
}

// TestStdioOversizedLastLine: a line over the limit that ends at EOF
// without a newline is answered like any other before the session ends.
func TestStdioOversizedLastLine(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + strings.Repeat("x", 100))
	if err := lcNewServer(nil).Run(context.Background(), &StdioTransport{In: in, Out: &out, MaxMessageBytes: 50}); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + lcTooLarge(50) + "\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant\n%s", out.String(), want)
	}
}

func TestStdioRunEndsWithContext(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	s := lcNewServer(nil)
	go func() { done <- s.Run(ctx, &StdioTransport{In: inR, Out: io.Discard}) }()
	// Run is reading; one exchange proves it, then cancel.
	if _, err := inW.Write([]byte(lcInit(1, "2025-11-25", "c") + "\n")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := lcWait(t, done, "Run to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
}

// TestStdioSessionClosedByServer: closing the session from the server side
// ends the read loop cleanly and closes the output.
func TestStdioSessionClosedByServer(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		if err := c.ss.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
		<-c.ss.Done()
		// The server's side closes without the client closing its own.
		for f := range c.frames {
			t.Errorf("unexpected frame after Close: %s", f)
		}
		if err := c.ss.Wait(); err != nil {
			t.Errorf("Wait after Close = %v, want nil", err)
		}
		if got := c.ss.State().Lifecycle; got != stateClosed {
			t.Errorf("Lifecycle = %q, want %q", got, stateClosed)
		}
		if n := len(s.Sessions()); n != 0 {
			t.Errorf("%d sessions left on the server, want 0", n)
		}
		c.finish()
	})
}
