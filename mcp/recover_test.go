package mcp

// A panic in any callback a user gives the server is recovered and logged
// (recover.go): a request is answered -32603, a notification's callback
// ends, and the session goes on serving.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// lcPanicLogger returns a server logger that keeps what it logs.
func lcPanicLogger() (*slog.Logger, *lcLockedBuffer) {
	var logs lcLockedBuffer
	return slog.New(slog.NewTextHandler(&logs, nil)), &logs
}

// lcWantPanicLogged fails the test unless logs hold the panic of what,
// with its value and stack.
func lcWantPanicLogged(t *testing.T, logs *lcLockedBuffer, what, value string) {
	t.Helper()
	l := logs.String()
	if !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "mcp: "+what+" panicked") || !strings.Contains(l, value) || !strings.Contains(l, "goroutine") {
		t.Errorf("log does not hold the panic of %s (%q) with its stack:\n%s", what, value, l)
	}
}

// lcStillServes checks that the session answers a tools/call (echo) and a
// ping after a panic, with the given ids.
func lcStillServes(c *lcConn, id string) {
	c.run(`
		-> {"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}
		<- {"jsonrpc":"2.0","id":"` + id + `","result":{"content":[{"type":"text","text":"still here"}]}}
		-> {"jsonrpc":"2.0","id":"` + id + `p","method":"ping"}
		<- {"jsonrpc":"2.0","id":"` + id + `p","result":{}}
	`)
}

// lcPanicked is a panic the server must log: where it was (the WHERE of
// "mcp: WHERE panicked") and its value.
type lcPanicked struct{ where, value string }

// lcRecoverEach runs, over each transport, a session of a server made with
// opts (with a logger of its own) and echo: steps drives the session,
// handshake included; then the session must still serve, end cleanly, and
// have logged each of panicked.
func lcRecoverEach(t *testing.T, opts ServerOptions, steps func(t *testing.T, c *lcConn), panicked ...lcPanicked) {
	t.Helper()
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		logger, logs := lcPanicLogger()
		o := opts
		o.Logger = logger
		s := lcNewServer(&o)
		lcAddEcho(t, s)
		c := connect(s)
		steps(t, c)
		lcStillServes(c, "a")
		c.finish()
		for _, p := range panicked {
			lcWantPanicLogged(t, logs, p.where, p.value)
		}
	})
}

// lcHandshake initializes a session at 2025-11-25.
func lcHandshake(_ *testing.T, c *lcConn) {
	c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
}

func TestRecoverInitializedHandler(t *testing.T) {
	lcRecoverEach(t, ServerOptions{
		InitializedHandler: func(context.Context, *ServerSession) { panic("initialized boom") },
	}, lcHandshake, lcPanicked{"InitializedHandler", "initialized boom"})
}

func TestRecoverRootsListChangedHandler(t *testing.T) {
	lcRecoverEach(t, ServerOptions{
		RootsListChangedHandler: func(context.Context, *ServerSession) { panic("roots boom") },
	}, func(t *testing.T, c *lcConn) {
		lcHandshake(t, c)
		c.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		lcStillServes(c, "r")
		c.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	}, lcPanicked{"RootsListChangedHandler", "roots boom"})
}

func TestRecoverServerProgressHandler(t *testing.T) {
	lcRecoverEach(t, ServerOptions{
		ProgressHandler: func(context.Context, *ServerSession, *ProgressParams) { panic("progress boom") },
	}, func(t *testing.T, c *lcConn) {
		lcHandshake(t, c)
		c.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`)
	}, lcPanicked{"ProgressHandler", "progress boom"})
}

// Middleware that panics on a notification ends that notification only;
// on a request it makes that request -32603.
func TestRecoverMiddleware(t *testing.T) {
	lcRecoverEach(t, ServerOptions{Middleware: []Middleware{func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (any, error) {
			if r.Method == "notifications/roots/list_changed" || r.Method == "tools/list" {
				panic("middleware boom " + r.Method)
			}
			return next(ctx, r)
		}
	}}}, func(t *testing.T, c *lcConn) {
		lcHandshake(t, c)
		c.run(`
			-> {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}
			-> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}
		`)
	}, lcPanicked{"middleware", "middleware boom notifications/roots/list_changed"}, lcPanicked{"handler", "middleware boom tools/list"})
}

// A SendingMiddleware that panics fails that send with an error, wherever
// it is sent from (here a goroutine of the application's, as
// list_changed or a log message would be).
func TestRecoverSendingMiddleware(t *testing.T) {
	lcRecoverEach(t, ServerOptions{SendingMiddleware: []SendingMiddleware{func(next SendHandler) SendHandler {
		return func(ctx context.Context, m *SentMessage) (json.RawMessage, error) {
			if m.Method == "notifications/boom" {
				panic("sending boom")
			}
			return next(ctx, m)
		}
	}}}, func(t *testing.T, c *lcConn) {
		lcHandshake(t, c)
		err := c.ss.Notify(context.Background(), "notifications/boom", nil)
		if !errors.Is(err, errSendingPanicked) || err.Error() != "mcp: notifications/boom: a sending middleware panicked" {
			t.Errorf("Notify = %v, want %v", err, errSendingPanicked)
		}
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"ping"}
			<- {"jsonrpc":"2.0","id":1,"result":{}}
		`)
		if err := c.ss.Notify(context.Background(), "notifications/fine", nil); err != nil {
			t.Errorf("Notify after a panic = %v", err)
		}
		c.expect(`{"jsonrpc":"2.0","method":"notifications/fine","params":null}`)
	}, lcPanicked{"sending middleware", "sending boom"})
}

// A CacheHint hook that panics gives the safe default: no reuse.
func TestRecoverCacheHint(t *testing.T) {
	lcRecoverEach(t, ServerOptions{CacheHint: func(string) CacheHint { panic("hint boom") }}, func(t *testing.T, c *lcConn) {
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + lcModernMeta(`{}`) + `}}
			<- {"jsonrpc":"2.0","id":1,"result":{` + lcStamp + `,"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}}]}}
		`)
		lcHandshake(t, c)
	}, lcPanicked{"CacheHint", "hint boom"})
}

// lcPanickyJSON is a result whose encoding panics.
type lcPanickyJSON struct{}

func (lcPanickyJSON) MarshalJSON() ([]byte, error) { panic("marshal boom") }

// A result whose MarshalJSON panics is answered -32603, as a panicking
// handler is.
func TestRecoverResultEncoding(t *testing.T) {
	lcRecoverEach(t, ServerOptions{Middleware: []Middleware{func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (any, error) {
			if r.Method == "prompts/list" {
				return lcPanickyJSON{}, nil
			}
			return next(ctx, r)
		}
	}}}, func(t *testing.T, c *lcConn) {
		lcHandshake(t, c)
		c.run(`
			-> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
			<- {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}
		`)
	}, lcPanicked{"result encoding", "marshal boom"})
}

// lcPanickyStore is a SessionStore whose every method panics.
type lcPanickyStore struct{}

func (lcPanickyStore) Create(context.Context, *SessionState) error { panic("create boom") }
func (lcPanickyStore) Load(context.Context, string, string) (*SessionState, error) {
	panic("load boom")
}
func (lcPanickyStore) Touch(context.Context, string, string) (*SessionState, error) {
	panic("touch boom")
}
func (lcPanickyStore) Update(context.Context, string, string, func(*SessionState) error) (*SessionState, error) {
	panic("update boom")
}
func (lcPanickyStore) Delete(context.Context, string, string) error { panic("delete boom") }
func (lcPanickyStore) Shared() bool                                 { return false }

// A SessionStore that panics is logged like one that fails: the session
// (here with an id, as Streamable HTTP makes them) goes on, and closes.
func TestRecoverSessionStore(t *testing.T) {
	logger, logs := lcPanicLogger()
	s := lcNewServer(&ServerOptions{Logger: logger, SessionStore: lcPanickyStore{}})
	lcAddEcho(t, s)
	ss := s.newSession(SessionOptions{ID: "sid"})
	ctx := context.Background()
	call := func(frame string) string {
		t.Helper()
		msg, _, err := jsonrpc.Decode([]byte(frame))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := ss.handleRequest(ctx, msg.(*jsonrpc.Request), nil, nil)
		if err != nil || resp == nil {
			t.Fatalf("HandleRequest(%s) = %v, %v", frame, resp, err)
		}
		out, _ := jsonrpc.Encode(resp)
		return string(out)
	}
	if got, want := call(lcInit(1, "2025-11-25", "c")), lcInitResultTools(1, "2025-11-25"); got != want {
		t.Errorf("initialize answered\n\t%s\nwant\n\t%s", got, want)
	}
	ss.handleNotification(ctx, &jsonrpc.Notification{Method: "notifications/initialized"}, nil)
	if got := ss.State().Lifecycle; got != stateReady {
		t.Errorf("Lifecycle = %q, want %q", got, stateReady)
	}
	want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`
	if got := call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); got != want {
		t.Errorf("tools/call answered\n\t%s\nwant\n\t%s", got, want)
	}
	if err := ss.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	lcWantPanicLogged(t, logs, "SessionStore.Create", "create boom")
	lcWantPanicLogged(t, logs, "SessionStore.Update", "update boom")
	lcWantPanicLogged(t, logs, "SessionStore.Delete", "delete boom")
}
