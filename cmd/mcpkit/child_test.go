package main

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// frames is a connection that reads the frames given and accepts any
// write.
type frames struct {
	mcp.Connection
	in [][]byte
}

func (f *frames) Read(context.Context) ([]byte, error) {
	frame := f.in[0]
	f.in = f.in[1:]
	return frame, nil
}

func (f *frames) Write(context.Context, []byte) error { return nil }

// A server owes an answer to each request until it answers it, except
// the server/discover probe once it answered something else; a line
// that is not JSON is kept, quoted and cut.
func TestChildConnStuck(t *testing.T) {
	ctx := context.Background()
	f := &frames{in: [][]byte{
		[]byte("starting up\x00 \xff"),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`),
	}}
	c := &childConn{Connection: f, pending: make(map[string]string), readEnd: make(chan struct{})}
	write := func(frame string) {
		t.Helper()
		if err := c.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	read := func() {
		t.Helper()
		if _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`)
	read()
	read()
	if !c.stuck() {
		t.Error("not stuck with server/discover and initialize unanswered")
	}
	read() // initialize answered: the probe was ignored
	if c.stuck() {
		t.Errorf("stuck with %v pending", c.pending)
	}
	write(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	write(`{"jsonrpc":"2.0","id":"s1","result":{}}`) // an answer to the server
	if !c.stuck() {
		t.Error("not stuck with tools/call unanswered")
	}
	read()
	if c.stuck() {
		t.Errorf("stuck with %v pending", c.pending)
	}
	if want := `"starting up\x00 \xff"`; c.badLine != want {
		t.Errorf("bad line %s, want %s", c.badLine, want)
	}
	if got, want := quoteStart([]byte("ab\u00e9cd"), 3), `"ab"...`; got != want {
		t.Errorf("quoteStart cut in a character: %s, want %s", got, want)
	}
}
