package mcphttp_test

// Progress, cancellation, client timeouts and middleware over Streamable
// HTTP, mcpkit client against mcpkit server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// featureWatchdog turns a hang into a failure; nothing asserts on time.
const featureWatchdog = 30 * time.Second

func featureWait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(featureWatchdog):
		t.Fatalf("waiting for %s: nothing after %v", what, featureWatchdog)
	}
	var zero T
	return zero
}

// TestProgressOverHTTP: every progress notification arrives on the POST's
// SSE stream before the result, with the token echoed; a request without
// a token gets none; a call's events reach the client in order with the
// log messages in between.
func TestProgressOverHTTP(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "progress", Version: "1"}, &mcp.ServerOptions{Logging: &mcp.LoggingOptions{}})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "steps", Description: "Reports progress 0, 50 and 100, logging between."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			for _, v := range []float64{0, 50, 100} {
				if err := req.ReportProgress(ctx, v, 100, fmt.Sprintf("at %v", v)); err != nil {
					return "", err
				}
				if err := req.Log(ctx, mcp.LevelInfo, "", fmt.Sprintf("logged %v", v)); err != nil {
					return "", err
				}
			}
			if _, ok := req.ProgressToken(); ok {
				if err := req.ReportProgress(ctx, 10, 100, ""); !errors.Is(err, mcp.ErrProgressDecreased) {
					return "", fmt.Errorf("a decreasing report gave %v", err)
				}
			}
			return "done", nil
		}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opts *mcphttp.Options
	}{
		{"sse", nil},
		{"resumable", &mcphttp.Options{EventStore: &mcphttp.MemoryEventStore{}}},
		{"stateless", &mcphttp.Options{Stateless: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var mu sync.Mutex
			var events []string
			record := func(e string) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
			}
			cs := featureServe(t, s, mode.opts, &mcp.ClientOptions{
				ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
					record(fmt.Sprintf("progress %s %v/%v %s", p.ProgressToken, p.Progress, p.Total, p.Message))
				},
				LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageParams) {
					record(fmt.Sprintf("log %s", m.Data))
				},
			})
			ctx := context.Background()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "steps", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("progress-test-1")}})
			if err != nil || res.IsError {
				t.Fatalf("CallTool = %+v, %v", res, err)
			}
			record("result")
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "steps"})
			if err != nil || res.IsError {
				t.Fatalf("CallTool without a token = %+v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{
				`progress "progress-test-1" 0/100 at 0`, `log "logged 0"`,
				`progress "progress-test-1" 50/100 at 50`, `log "logged 50"`,
				`progress "progress-test-1" 100/100 at 100`, `log "logged 100"`,
				`result`,
				// No token: logs only.
				`log "logged 0"`, `log "logged 50"`, `log "logged 100"`,
			}
			if !slices.Equal(events, want) {
				t.Errorf("events =\n\t%s\nwant\n\t%s", strings.Join(events, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// blockingServer returns a server with a tool "block" that says when it
// starts and how its context ended, and a tool "ask" that calls the
// client's "test/block" method and reports how that ended.
func blockingServer(t *testing.T) (s *mcp.Server, started chan struct{}, ended chan error) {
	t.Helper()
	started, ended = make(chan struct{}, 4), make(chan error, 4)
	s = mcp.NewServer(mcp.Implementation{Name: "blocking", Version: "1"}, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Blocks until cancelled."},
		func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- context.Cause(ctx)
			return "", ctx.Err()
		}); err != nil {
		t.Fatal(err)
	}
	return s, started, ended
}

func TestCancellationOverHTTP(t *testing.T) {
	s, started, ended := blockingServer(t)
	for _, mode := range []struct {
		name string
		opts *mcphttp.Options
	}{
		{"sse", nil},
		{"json", &mcphttp.Options{JSONResponse: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs := featureServe(t, s, mode.opts, nil)
			ctx, cancel := context.WithCancel(context.Background())
			callErr := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
				callErr <- err
			}()
			featureWait(t, started, "the tool to start")
			cancel()
			if err := featureWait(t, callErr, "CallTool"); !errors.Is(err, context.Canceled) {
				t.Errorf("CallTool = %v, want context.Canceled", err)
			}
			// The client's notifications/cancelled stopped the handler.
			if err := featureWait(t, ended, "the handler to stop"); !errors.Is(err, context.Canceled) {
				t.Errorf("handler's context ended with %v", err)
			}
			if err := cs.Ping(context.Background()); err != nil {
				t.Fatalf("Ping after the cancellation: %v", err)
			}
		})
	}
}

// TestRequestTimeoutOverHTTP: a call that times out is cancelled on the
// server too. The timeout is short but nothing depends on how long
// anything takes: the tool blocks until it is cancelled.
func TestRequestTimeoutOverHTTP(t *testing.T) {
	s, started, ended := blockingServer(t)
	for _, mode := range []struct {
		name string
		opts *mcphttp.Options
	}{
		{"sse", nil},
		// The POST itself waits for the answer: the timeout covers it.
		{"json", &mcphttp.Options{JSONResponse: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs := featureServe(t, s, mode.opts, &mcp.ClientOptions{
				RequestTimeout: 50 * time.Millisecond,
				// The cancellation and the request travel on separate
				// POSTs: hold the cancellation until the tool runs, or it
				// could arrive first and be ignored, as the spec allows.
				SendingMiddleware: []mcp.SendingMiddleware{func(next mcp.SendHandler) mcp.SendHandler {
					return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
						if m.Method == "notifications/cancelled" {
							featureWait(t, started, "the tool to start")
						}
						return next(ctx, m)
					}
				}},
			})
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
			if !errors.Is(err, mcp.ErrRequestTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("CallTool = %v, want ErrRequestTimeout", err)
			}
			if err := featureWait(t, ended, "the handler to stop"); !errors.Is(err, context.Canceled) {
				t.Errorf("handler's context ended with %v", err)
			}
			// Other calls still work, with a longer timeout.
			if err := cs.Ping(mcp.WithRequestTimeout(context.Background(), featureWatchdog)); err != nil {
				t.Fatalf("Ping: %v", err)
			}
		})
	}
}

// TestServerRequestCancellationOverHTTP: a server-to-client request made
// from a tool handler travels on the POST's SSE stream; when the handler's
// context ends, the client receives notifications/cancelled and its
// handler stops.
func TestServerRequestCancellationOverHTTP(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "asker", Version: "1"}, nil)
	asked := make(chan struct{}, 1)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the client, gives up quickly."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			cctx, cancel := context.WithCancelCause(ctx)
			errc := make(chan error, 1)
			go func() { errc <- req.Session.Call(cctx, "test/block", nil, nil) }()
			<-asked
			cancel(errors.New("the tool gave up"))
			return fmt.Sprint(<-errc), nil
		}); err != nil {
		t.Fatal(err)
	}
	cancelled := make(chan string, 1)
	stopped := make(chan error, 1)
	cs := featureServe(t, s, nil, &mcp.ClientOptions{
		Middleware: []mcp.ClientMiddleware{func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
			return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
				switch r.Method {
				case "test/block":
					asked <- struct{}{}
					<-ctx.Done()
					stopped <- ctx.Err()
					return nil, ctx.Err()
				case "notifications/cancelled":
					cancelled <- string(r.Params)
				}
				return next(ctx, r)
			}
		}},
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "context canceled" {
		t.Errorf("the tool's Call returned %q, want context canceled", got)
	}
	if got := featureWait(t, cancelled, "notifications/cancelled"); got != `{"requestId":1,"reason":"the tool gave up"}` {
		t.Errorf("client received %s", got)
	}
	if err := featureWait(t, stopped, "the client's handler to stop"); !errors.Is(err, context.Canceled) {
		t.Errorf("client handler's context ended with %v", err)
	}
}

// TestMiddlewareOverHTTP: sending and receiving middleware on both sides
// see the same messages over HTTP as over a stream.
func TestMiddlewareOverHTTP(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	add := func(s string) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}
	s := mcp.NewServer(mcp.Implementation{Name: "mw", Version: "1"}, &mcp.ServerOptions{
		Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				add("server received " + r.Method)
				return next(ctx, r)
			}
		}},
		SendingMiddleware: []mcp.SendingMiddleware{func(next mcp.SendHandler) mcp.SendHandler {
			return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
				add("server sent " + m.Method)
				return next(ctx, m)
			}
		}},
	})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "progress"},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			return "ok", req.ReportProgress(ctx, 1, 0, "")
		}); err != nil {
		t.Fatal(err)
	}
	cs := featureServe(t, s, nil, &mcp.ClientOptions{
		Middleware: []mcp.ClientMiddleware{func(next mcp.ClientMethodHandler) mcp.ClientMethodHandler {
			return func(ctx context.Context, r *mcp.ClientRequest) (any, error) {
				add("client received " + r.Method)
				return next(ctx, r)
			}
		}},
		SendingMiddleware: []mcp.SendingMiddleware{func(next mcp.SendHandler) mcp.SendHandler {
			return func(ctx context.Context, m *mcp.SentMessage) (json.RawMessage, error) {
				add("client sent " + m.Method)
				return next(ctx, m)
			}
		}},
	})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(3)}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"client sent initialize", "server received initialize",
		"client sent notifications/initialized", "server received notifications/initialized",
		"client sent tools/call", "server received tools/call",
		"server sent notifications/progress", "client received notifications/progress",
	}
	if !slices.Equal(seen, want) {
		t.Errorf("middleware saw\n\t%s\nwant\n\t%s", strings.Join(seen, "\n\t"), strings.Join(want, "\n\t"))
	}
}
