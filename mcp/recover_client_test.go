package mcp_test

// A panic in any callback a user gives the client is recovered and logged
// (recover.go): a server request it answers gets -32603, a notification's
// callback ends, and the session goes on.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// panicLogs is a log sink for many goroutines.
type panicLogs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *panicLogs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// want fails the test unless the logs hold the panic of what, with its
// value and stack.
func (l *panicLogs) want(t *testing.T, what, value string) {
	t.Helper()
	l.mu.Lock()
	s := l.buf.String()
	l.mu.Unlock()
	if !strings.Contains(s, "level=ERROR") || !strings.Contains(s, "mcp: "+what+" panicked") || !strings.Contains(s, value) || !strings.Contains(s, "goroutine") {
		t.Errorf("log does not hold the panic of %s (%q) with its stack:\n%s", what, value, s)
	}
}

// recoverServer has "work" (reports progress), "ask" (samples, then
// elicits, and tells what came back) and "add".
func recoverServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := newToolServer(t, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
		return "done", req.ReportProgress(ctx, 1, 2, "")
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
		_, serr := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}},
			MaxTokens: 10,
		})
		_, eerr := req.Elicit(ctx, &mcp.ElicitParams{Message: "Who?", RequestedSchema: &mcp.ElicitSchema{}})
		return fmt.Sprintf("sampling: %v; elicitation: %v", serr, eerr), nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// clientPanic is a panic the client must log: where it was (the WHERE
// of "mcp: WHERE panicked") and its value.
type clientPanic struct{ where, value string }

// recoverClient connects a client with copts (and a logger of its own) to
// s over the in-memory transport and lets steps drive the session; then the
// session must still call tools, and have logged each of panicked. Both
// ends are closed before it returns.
func recoverClient(t *testing.T, s *mcp.Server, copts *mcp.ClientOptions, steps func(cs *mcp.ClientSession), panicked ...clientPanic) {
	t.Helper()
	var logs panicLogs
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatalf("Server.Connect: %v", err)
	}
	copts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	cs, err := mcp.NewClient(clientTestInfo, legacy(copts)).Connect(ctx, ct)
	if err != nil {
		t.Fatalf("Client.Connect: %v", err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
	}()
	steps(cs)
	stillServes(t, cs)
	for _, p := range panicked {
		logs.want(t, p.where, p.value)
	}
}

// callWant calls a tool and fails the test unless it answers want.
func callWant(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams, want string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", p.Name, err)
	}
	jsonEqual(t, p.Name+" result", res, want)
}

// stillServes checks that the session still calls tools.
func stillServes(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	callWant(t, cs, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}, `{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`)
}

// workWithProgress calls "work" with a progress token, so that the
// server reports progress; workDone is its result.
func workWithProgress() *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "work", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("tok")}}
}

const workDone = `{"content":[{"type":"text","text":"done"}]}`

func TestRecoverClientProgressHandler(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recoverClient(t, recoverServer(t), &mcp.ClientOptions{
		ProgressHandler: func(context.Context, *mcp.ClientSession, *mcp.ProgressParams) { panic("progress boom") },
	}, func(cs *mcp.ClientSession) {
		for range 2 {
			callWant(t, cs, workWithProgress(), workDone)
		}
	}, clientPanic{"client: notification handler", "progress boom"})
}

func TestRecoverClientListChangedHandler(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fired := make(chan struct{}, 4)
	s := recoverServer(t)
	recoverClient(t, s, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
			fired <- struct{}{}
			panic("list_changed boom")
		},
	}, func(cs *mcp.ClientSession) {
		for _, name := range []string{"new1", "new2"} {
			if err := s.AddTool(&mcp.Tool{Name: name}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			recvWithin(t, fired, "ToolListChangedHandler")
			stillServes(t, cs)
		}
	}, clientPanic{"client: notification handler", "list_changed boom"})
}

// A sampling or elicitation handler that panics answers the server's
// request with -32603 "Internal error", and nothing of the panic.
func TestRecoverClientSamplingAndElicitationHandlers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recoverClient(t, recoverServer(t), &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			panic("sampling secret")
		},
		ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			panic("elicitation secret")
		},
	}, func(cs *mcp.ClientSession) {
		for range 2 {
			callWant(t, cs, &mcp.CallToolParams{Name: "ask"}, `{"content":[{"type":"text","text":"sampling: jsonrpc error -32603: Internal error; elicitation: jsonrpc error -32603: Internal error"}]}`)
		}
	}, clientPanic{"client: handler", "sampling secret"}, clientPanic{"client: handler", "elicitation secret"})
}

// Client middleware that panics drops a notification, and answers a
// request -32603.
func TestRecoverClientMiddleware(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recoverClient(t, recoverServer(t), &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "x"}}, Model: "m"}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ClientSession, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		},
		Middleware: []mcp.ClientMiddleware{func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
			return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
				if r.Method == "notifications/progress" || r.Method == "sampling/createMessage" {
					panic("middleware boom " + r.Method)
				}
				return next(ctx, r)
			}
		}},
	}, func(cs *mcp.ClientSession) {
		callWant(t, cs, workWithProgress(), workDone)
		callWant(t, cs, &mcp.CallToolParams{Name: "ask"}, `{"content":[{"type":"text","text":"sampling: jsonrpc error -32603: Internal error; elicitation: \u003cnil\u003e"}]}`)
	}, clientPanic{"client: middleware", "middleware boom notifications/progress"}, clientPanic{"client: handler", "middleware boom sampling/createMessage"})
}

// A client SendingMiddleware that panics fails that call with an error
// instead of unwinding through it.
func TestRecoverClientSendingMiddleware(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recoverClient(t, recoverServer(t), &mcp.ClientOptions{
		SendingMiddleware: []mcp.SendingMiddleware{func(next mcp.SendHandler) mcp.SendHandler {
			return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
				if m.Method == "tools/list" {
					panic("sending boom")
				}
				return next(ctx, m)
			}
		}},
	}, func(cs *mcp.ClientSession) {
		_, err := cs.ListTools(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), "mcp: tools/list: a sending middleware panicked") {
			t.Errorf("ListTools = %v, want the sending middleware's panic as an error", err)
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			t.Errorf("ListTools error %v is a JSON-RPC error; nothing was sent", err)
		}
	}, clientPanic{"sending middleware", "sending boom"})
}
