package mcp

// Cancellation on the wire, in both directions
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation):
// a cancelled request stops and gets no response; unknown, finished and
// malformed cancellations are ignored; a late response to a cancelled
// request is ignored; a server request cancelled by its context reaches
// the client as notifications/cancelled and stops the client's handler.

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestCancellationStopsTheRequestWithoutAResponse(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		b := lcAddBlocker(t, s, "block")
		lcAddEcho(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		// Two requests whose ids differ only in type: cancelling the string
		// one leaves the integer one alone.
		c.send(`{"jsonrpc":"2.0","id":"5","method":"tools/call","params":{"name":"block"}}`)
		lcWait(t, b.started, "the first call to start")
		c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`)
		lcWait(t, b.started, "the second call to start")
		c.run(`
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"5","reason":"user gave up"}}
			# Ignored: unknown ids, a missing or null id, malformed params.
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}
			-> {"jsonrpc":"2.0","method":"notifications/cancelled"}
			# The session goes on; the cancelled request is never answered.
			-> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}
			<- {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"still here"}]}}
		`)
		close(b.release)
		c.expect(`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"released 5"}]}}`)
		c.run(`
			# Cancelling a request that is already answered changes nothing,
			# and its id may be used again.
			-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}
			-> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}
			<- {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"again"}]}}
		`)
		c.finish() // fails if the cancelled request was answered
	})
}

// lcClientPair connects a Client that answers the given extra methods to
// a server with opts, and returns both sessions, ready.
func lcClientPair(t *testing.T, opts *ServerOptions, copts *ClientOptions, methods map[string]clientMethodHandler, tap chan<- string) (*ClientSession, *ServerSession) {
	t.Helper()
	ctx := context.Background()
	ct, st := NewInMemoryTransports()
	if tap != nil {
		ct = &lcTapTransport{Transport: ct, tap: tap}
	}
	ss, err := NewServer(Implementation{Name: "s", Version: "1"}, opts).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(Implementation{Name: "c", Version: "1"}, legacyOpts(copts))
	for name, h := range methods {
		c.methods[name] = h
	}
	cs, err := c.Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	if err := cs.Ping(ctx); err != nil { // fences notifications/initialized
		t.Fatal(err)
	}
	return cs, ss
}

// TestCancellationOfAServerRequest: a server request whose context ends is
// cancelled with notifications/cancelled carrying its id and the reason;
// the client's handler sees its context end and the client sends no
// response, which a receiving middleware on the client can observe.
func TestCancellationOfAServerRequest(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	seen := make(chan string, 8)
	wire := make(chan string, 8) // every frame the client writes
	cs, ss := lcClientPair(t, nil, &ClientOptions{
		Middleware: []ClientMiddleware{func(next ClientMethodHandler) ClientMethodHandler {
			return func(ctx context.Context, r *ClientRequest) (any, error) {
				if r.Method == "notifications/cancelled" {
					seen <- string(r.Params)
				}
				return next(ctx, r)
			}
		}},
	}, map[string]clientMethodHandler{
		"test/block": func(ctx context.Context, _ *ClientSession, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return map[string]bool{"late": true}, nil
		},
	}, wire)
	for range 3 { // initialize, notifications/initialized, ping
		lcWait(t, wire, "the handshake")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	callErr := make(chan error, 1)
	go func() { callErr <- ss.Call(ctx, "test/block", nil, nil) }()
	lcWait(t, started, "the client's handler to start")
	cancel(errors.New("no longer needed"))
	if got := lcWait(t, seen, "the cancellation"); got != `{"requestId":1,"reason":"no longer needed"}` {
		t.Errorf("client received cancellation %s", got)
	}
	if err := lcWait(t, stopped, "the handler to stop"); !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx.Err() = %v", err)
	}
	if err := lcWait(t, callErr, "Call to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v, want context.Canceled", err)
	}
	// The client answered nothing for the cancelled request: once its
	// handler is done, the next frame it writes is a new request of its
	// own.
	cs.handlers.Wait()
	if err := cs.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := lcWait(t, wire, "the client's next frame"); got != `{"jsonrpc":"2.0","id":3,"method":"ping"}` {
		t.Errorf("the client's next frame was %s, want its ping (no response to the cancelled request)", got)
	}
}

// lcTapTransport copies every frame its connection writes to tap.
type lcTapTransport struct {
	Transport
	tap chan<- string
}

func (t *lcTapTransport) Connect(ctx context.Context) (Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &lcTapConn{Connection: c, tap: t.tap}, nil
}

type lcTapConn struct {
	Connection
	tap chan<- string
}

func (c *lcTapConn) Write(ctx context.Context, frame []byte) error {
	c.tap <- string(frame)
	return c.Connection.Write(ctx, frame)
}

// TestCancellationLateResponseIsIgnored: the client ignores the server's
// response to a request it cancelled, as the spec asks, and the session
// goes on.
func TestCancellationLateResponseIsIgnored(t *testing.T) {
	ct, st := NewInMemoryTransports()
	srv, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	read := func() *jsonrpc.Request {
		t.Helper()
		f, err := srv.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := jsonrpc.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := m.(*jsonrpc.Request); ok {
			return r
		}
		return &jsonrpc.Request{Method: m.(*jsonrpc.Notification).Method, Params: m.(*jsonrpc.Notification).Params}
	}
	write := func(frame string) {
		t.Helper()
		if err := srv.Write(context.Background(), []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan *ClientSession, 1)
	go func() {
		cs, err := NewClient(Implementation{Name: "c", Version: "1"}, legacyOpts(nil)).Connect(context.Background(), ct)
		if err != nil {
			t.Error(err)
		}
		done <- cs
	}()
	init := read()
	write(`{"jsonrpc":"2.0","id":` + init.ID.String() + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}}`)
	read() // notifications/initialized
	cs := <-done
	defer func() {
		srv.Close()
		cs.Close()
	}()

	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() { callErr <- cs.Call(ctx, "test/slow", nil, nil) }()
	req := read()
	cancel()
	note := read()
	if note.Method != "notifications/cancelled" || string(note.Params) != `{"requestId":`+req.ID.String()+`,"reason":"context canceled"}` {
		t.Errorf("client sent %s %s, want notifications/cancelled for %s", note.Method, note.Params, req.ID)
	}
	if err := <-callErr; !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v", err)
	}
	// The late response is dropped; the next call gets its own answer.
	write(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"late":true}}`)
	var res json.RawMessage
	go func() {
		ping := read()
		write(`{"jsonrpc":"2.0","id":` + ping.ID.String() + `,"result":{"pong":1}}`)
	}()
	if err := cs.Call(context.Background(), "ping", nil, &res); err != nil || string(res) != `{"pong":1}` {
		t.Errorf("Call after the late response = %s, %v", res, err)
	}
}
