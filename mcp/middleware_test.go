package mcp_test

// Middleware on both sides, for received and sent messages: what each
// kind sees (method, id, params, the answer), in which order, and that it
// can change, answer, refuse or drop messages.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// mwLog records what middleware sees, one line per event.
type mwLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *mwLog) add(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *mwLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// recordSending returns a SendingMiddleware that logs each message before
// and after it is sent, tagged.
func (l *mwLog) recordSending(tag string) mcp.SendingMiddleware {
	return func(next mcp.SendHandler) mcp.SendHandler {
		return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
			side := "server"
			if m.ClientSession != nil {
				side = "client"
			}
			if m.ID.IsValid() {
				l.add("%s %s send request %s id=%s params=%s", tag, side, m.Method, m.ID, string(m.Params))
			} else {
				l.add("%s %s send notification %s params=%s", tag, side, m.Method, string(m.Params))
			}
			res, err := next(ctx, m)
			if m.ID.IsValid() {
				l.add("%s %s answered %s: %s %v", tag, side, m.Method, string(res), err)
			}
			return res, err
		}
	}
}

func TestServerSendingMiddleware(t *testing.T) {
	var log mwLog
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
		Logging:           &mcp.LoggingOptions{},
		SendingMiddleware: []mcp.SendingMiddleware{log.recordSending("outer"), log.recordSending("inner")},
	})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Progress, a log message and a ping to the client."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			if err := req.ReportProgress(ctx, 1, 2, ""); err != nil {
				return "", err
			}
			if err := req.Log(ctx, mcp.LevelInfo, "", "hello"); err != nil {
				return "", err
			}
			if err := req.Session.Ping(ctx); err != nil {
				return "", err
			}
			return "done", nil
		}); err != nil {
		t.Fatal(err)
	}
	// The client blocks on test/never until the server cancels it.
	started := make(chan struct{})
	// list_changed reaches a stream client on a goroutine of its own (a
	// client that does not read delays no API call): the test waits for
	// it before sending the next request, so that the order is known.
	changed := make(chan struct{}, 1)
	p := connectClient(t, s, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} }, Middleware: []mcp.ClientMiddleware{func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
		return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
			if r.Method == "test/never" {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, r)
		}
	}}})
	ctx := context.Background()
	if _, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("t")}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`outer server send notification notifications/progress params={"progressToken":"t","progress":1,"total":2}`,
		`inner server send notification notifications/progress params={"progressToken":"t","progress":1,"total":2}`,
		`outer server send notification notifications/message params={"level":"info","data":"hello"}`,
		`inner server send notification notifications/message params={"level":"info","data":"hello"}`,
		`outer server send request ping id=1 params=`,
		`inner server send request ping id=1 params=`,
		`inner server answered ping: {} <nil>`,
		`outer server answered ping: {} <nil>`,
	}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("sending middleware saw\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}

	// list_changed, and a server request cancelled by its context: the
	// cancellation goes through the middleware too.
	if err := s.AddTool(&mcp.Tool{Name: "late", Description: "late"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	<-changed
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- p.ss.Call(cctx, "test/never", nil, nil) }()
	recvWithin(t, started, "the client to get test/never")
	cancel()
	if err := recvWithin(t, errc, "Call"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
	want = []string{
		`outer server send notification notifications/tools/list_changed params={}`,
		`inner server send notification notifications/tools/list_changed params={}`,
		`outer server send request test/never id=2 params=`,
		`inner server send request test/never id=2 params=`,
		`outer server send notification notifications/cancelled params={"requestId":2,"reason":"context canceled"}`,
		`inner server send notification notifications/cancelled params={"requestId":2,"reason":"context canceled"}`,
		`inner server answered test/never:  context canceled`,
		`outer server answered test/never:  context canceled`,
	}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("sending middleware saw\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestSendingMiddlewareChangesAndRefuses(t *testing.T) {
	refused := errors.New("refused by policy")
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
		Logging: &mcp.LoggingOptions{},
		SendingMiddleware: []mcp.SendingMiddleware{func(next mcp.SendHandler) mcp.SendHandler {
			return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
				switch {
				case m.Method == "notifications/message" && strings.Contains(string(m.Params), "secret"):
					return nil, refused
				case m.Method == "notifications/message":
					// Change a copy: tag every log message.
					m2 := *m
					m2.Params = json.RawMessage(strings.Replace(string(m.Params), `"level"`, `"_meta":{"example.com/tag":1},"level"`, 1))
					return next(ctx, &m2)
				case m.Method == "ping":
					// A new message for a request cannot be delivered.
					return next(ctx, &mcp.SentMessage{Method: m.Method, ID: m.ID, Session: m.Session})
				}
				return next(ctx, m)
			}
		}},
	})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "logs its text"},
		func(ctx context.Context, req *mcp.Request, in struct{ Text string }) (string, error) {
			if err := req.Log(ctx, mcp.LevelError, "", in.Text); err != nil {
				return "", err
			}
			return "logged", nil
		}); err != nil {
		t.Fatal(err)
	}
	logs := make(chan string, 4)
	p := connectClient(t, s, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageParams) {
			meta, _ := json.Marshal(m.Meta)
			logs <- string(meta) + " " + string(m.Data)
		},
	})
	ctx := context.Background()
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "log", Arguments: json.RawMessage(`{"Text":"fine"}`)})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if got := recvWithin(t, logs, "the log message"); got != `{"example.com/tag":1} "fine"` {
		t.Errorf("client got %s", got)
	}
	res, err = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "log", Arguments: json.RawMessage(`{"Text":"a secret"}`)})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "result", res, `{"content":[{"type":"text","text":"refused by policy"}],"isError":true}`)
	if err := p.ss.Ping(ctx); err == nil || !strings.Contains(err.Error(), "pass on a copy") {
		t.Errorf("Ping through a middleware that made a new message = %v", err)
	}
	if n := len(logs); n != 0 {
		t.Errorf("%d more log messages reached the client", n)
	}
}

func TestClientSendingMiddleware(t *testing.T) {
	var log mwLog
	s := newToolServer(t, nil)
	started := make(chan struct{})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "blocks until cancelled"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	p := connectClient(t, s, &mcp.ClientOptions{
		SendingMiddleware: []mcp.SendingMiddleware{log.recordSending("mw")},
	})
	ctx := context.Background()
	if _, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}); err != nil {
		t.Fatal(err)
	}
	_, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Unknown tool: nope"`)
	// A call cancelled while it waits is cancelled through the
	// middleware; one whose context ended before it is sent sends nothing.
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := p.cs.CallTool(cctx, &mcp.CallToolParams{Name: "block"})
		errc <- err
	}()
	recvWithin(t, started, "the tool to start")
	cancel()
	if err := recvWithin(t, errc, "CallTool"); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v", err)
	}
	if err := p.cs.Ping(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ping = %v", err)
	}
	got := log.take()
	want := []string{
		`mw client send request initialize id=1 params={"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"0.0.1"}}`,
		`mw client answered initialize: {"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"test-server","version":"1.2.3"}} <nil>`,
		`mw client send notification notifications/initialized params={}`,
		`mw client send request tools/call id=2 params={"name":"add","arguments":{"a":1,"b":2}}`,
		`mw client answered tools/call: {"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}} <nil>`,
		`mw client send request tools/call id=3 params={"name":"nope"}`,
		`mw client answered tools/call:  jsonrpc error -32602: Invalid params: "Unknown tool: nope"`,
		`mw client send request tools/call id=4 params={"name":"block"}`,
		`mw client send notification notifications/cancelled params={"requestId":4,"reason":"context canceled"}`,
		`mw client answered tools/call:  context canceled`,
		`mw client send request ping id=5 params=`,
		`mw client answered ping:  context canceled`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("client sending middleware saw\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestClientReceivingMiddleware(t *testing.T) {
	var log mwLog
	record := func(tag string) mcp.ClientMiddleware {
		return func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
			return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
				kind := "notification"
				if r.ID.IsValid() {
					kind = "request id=" + r.ID.String()
				}
				log.add("%s %s %s %s", tag, kind, r.Method, string(r.Params))
				return next(ctx, r)
			}
		}
	}
	policy := func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
		return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
			switch r.Method {
			case "test/hello":
				// Middleware may answer a method of its own.
				return map[string]string{"hello": r.Session.ServerInfo().Name}, nil
			case "test/deny":
				return nil, jsonrpc.NewError(-32001, "Denied", nil)
			case "test/panic":
				panic("in client middleware")
			case "notifications/message":
				return nil, nil // dropped: the callback never sees it
			}
			return next(ctx, r)
		}
	}
	var progress []float64
	var mu sync.Mutex
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{Logging: &mcp.LoggingOptions{}})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "progress and a log message"},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			_ = req.ReportProgress(ctx, 5, 0, "")
			return "done", req.Log(ctx, mcp.LevelInfo, "", "hi")
		}); err != nil {
		t.Fatal(err)
	}
	p := connectClient(t, s, &mcp.ClientOptions{
		Middleware: []mcp.ClientMiddleware{record("outer"), record("inner"), policy},
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, pp *mcp.ProgressParams) {
			mu.Lock()
			progress = append(progress, pp.Progress)
			mu.Unlock()
		},
		LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageParams) {
			t.Error("a dropped notification reached its callback")
		},
	})
	ctx := context.Background()
	if _, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(1)}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.Equal(progress, []float64{5}) {
		t.Errorf("ProgressHandler saw %v, want [5]", progress)
	}
	mu.Unlock()
	var hello map[string]string
	if err := p.ss.Call(ctx, "test/hello", nil, &hello); err != nil || hello["hello"] != "test-server" {
		t.Errorf("test/hello = %v, %v", hello, err)
	}
	wantRPCError(t, p.ss.Call(ctx, "test/deny", nil, nil), -32001, "Denied", "")
	wantRPCError(t, p.ss.Call(ctx, "test/panic", nil, nil), jsonrpc.CodeInternalError, "Internal error", "")
	wantRPCError(t, p.ss.Call(ctx, "test/unknown", json.RawMessage(`{"x":1}`), nil), jsonrpc.CodeMethodNotFound, "Method not found", `"test/unknown"`)
	if err := p.ss.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range []string{
		`notification notifications/progress {"progressToken":1,"progress":5}`,
		`notification notifications/message {"level":"info","data":"hi"}`,
		`request id=1 test/hello `,
		`request id=2 test/deny `,
		`request id=3 test/panic `,
		`request id=4 test/unknown {"x":1}`,
		`request id=5 ping `,
	} {
		want = append(want, "outer "+m, "inner "+m)
	}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("client middleware saw\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestClientMiddlewarePanicOnNotification: a panic in client middleware
// on a notification is logged, and the session goes on.
func TestClientMiddlewarePanicOnNotification(t *testing.T) {
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{Logging: &mcp.LoggingOptions{}})
	p := connectClient(t, s, &mcp.ClientOptions{
		Middleware: []mcp.ClientMiddleware{func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
			return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
				if r.Method == "notifications/message" {
					panic("boom")
				}
				return next(ctx, r)
			}
		}},
	})
	if err := p.ss.Log(context.Background(), mcp.LevelError, "", "x"); err != nil {
		t.Fatal(err)
	}
	if err := p.cs.Ping(context.Background()); err != nil {
		t.Fatalf("Ping after the panic: %v", err)
	}
}

// TestServerMiddlewareSeesCancellation: the server's receiving middleware
// sees notifications/cancelled like any notification, and the request is
// cancelled all the same.
func TestServerMiddlewareSeesCancellation(t *testing.T) {
	var log mwLog
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
		Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if !r.ID.IsValid() {
					log.add("%s %s", r.Method, string(r.Params))
				}
				return next(ctx, r)
			}
		}},
	})
	started := make(chan struct{})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "blocks"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	p := connectClient(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		errc <- err
	}()
	recvWithin(t, started, "the tool to start")
	cancel()
	if err := recvWithin(t, errc, "CallTool"); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v", err)
	}
	if err := p.cs.Ping(context.Background()); err != nil { // fences the notification
		t.Fatal(err)
	}
	want := []string{`notifications/initialized {}`, `notifications/cancelled {"requestId":2,"reason":"context canceled"}`}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("middleware saw %q, want %q", got, want)
	}
}
