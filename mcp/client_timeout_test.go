package mcp_test

// Client request timeouts
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts),
// under testing/synctest: time is the bubble's fake clock, so a test can
// say exactly when a call gave up without waiting for it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// toServer is a server, connected to a client in the current synctest
// bubble, with a tool "slow" that reports progress every args.every for
// args.reports times, then waits args.then and answers (or stops when
// cancelled). The notifications/cancelled it receives are recorded.
type toServer struct {
	cs *mcp.ClientSession
	ss *mcp.ServerSession

	mu        sync.Mutex
	cancelled []string // params of each notifications/cancelled
	stopped   []string // how each tool call ended
}

type slowArgs struct {
	Every   time.Duration `json:"every"`
	Reports int           `json:"reports"`
	Then    time.Duration `json:"then"`
}

func newTimeoutPair(t *testing.T, copts *mcp.ClientOptions) *toServer {
	t.Helper()
	p := &toServer{}
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
		Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if r.Method == "notifications/cancelled" {
					p.mu.Lock()
					p.cancelled = append(p.cancelled, string(r.Params))
					p.mu.Unlock()
				}
				return next(ctx, r)
			}
		}},
	})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Reports progress, then waits."},
		func(ctx context.Context, req *mcp.Request, in slowArgs) (string, error) {
			end := func(how string) {
				p.mu.Lock()
				p.stopped = append(p.stopped, how)
				p.mu.Unlock()
			}
			for i := range in.Reports {
				select {
				case <-time.After(in.Every):
				case <-ctx.Done():
					end("cancelled")
					return "", ctx.Err()
				}
				if err := req.ReportProgress(ctx, float64(i+1), 0, ""); err != nil {
					return "", err
				}
			}
			select {
			case <-time.After(in.Then):
			case <-ctx.Done():
				end("cancelled")
				return "", ctx.Err()
			}
			end("finished")
			return "finished", nil
		}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(clientTestInfo, legacy(copts)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	p.cs, p.ss = cs, ss
	return p
}

// close ends both sessions and returns what the server recorded.
func (p *toServer) close() (cancelled, stopped []string) {
	p.cs.Close()
	p.ss.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cancelled, p.stopped
}

// callSlow calls the slow tool and returns how long the call took on the
// bubble's clock and its error (nil when it finished).
func (p *toServer) callSlow(ctx context.Context, token any, args slowArgs) (time.Duration, error) {
	params := &mcp.CallToolParams{Name: "slow"}
	params.Arguments, _ = json.Marshal(args)
	switch tok := token.(type) {
	case string:
		params.Meta = &mcp.RequestMeta{ProgressToken: jsonrpc.StringID(tok)}
	case int:
		params.Meta = &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(int64(tok))}
	}
	start := time.Now()
	res, err := p.cs.CallTool(ctx, params)
	elapsed := time.Since(start)
	if err == nil && (res.IsError || res.Content[0].(*mcp.TextContent).Text != "finished") {
		err = fmt.Errorf("unexpected result %+v", res)
	}
	return elapsed, err
}

func wantTimeout(t *testing.T, err error, elapsed, want time.Duration) {
	t.Helper()
	if !errors.Is(err, mcp.ErrRequestTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want ErrRequestTimeout and context.DeadlineExceeded", err)
	}
	if elapsed != want {
		t.Errorf("the call gave up after %v, want %v", elapsed, want)
	}
}

func TestRequestTimeoutCancelsTheRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newTimeoutPair(t, &mcp.ClientOptions{RequestTimeout: time.Second})
		elapsed, err := p.callSlow(context.Background(), nil, slowArgs{Then: time.Hour})
		wantTimeout(t, err, elapsed, time.Second)
		if want := "mcp: request timed out: tools/call had no answer after 1s: context deadline exceeded"; err.Error() != want {
			t.Errorf("error text = %q, want %q", err, want)
		}
		synctest.Wait() // the cancellation reaches the server
		// A call that answers in time is not affected.
		if elapsed, err := p.callSlow(context.Background(), nil, slowArgs{Then: 999 * time.Millisecond}); err != nil || elapsed != 999*time.Millisecond {
			t.Errorf("quick call = %v after %v", err, elapsed)
		}
		cancelled, stopped := p.close()
		if want := []string{`{"requestId":2,"reason":"request timed out after 1s"}`}; !slices.Equal(cancelled, want) {
			t.Errorf("server received cancellations %q, want %q", cancelled, want)
		}
		if want := []string{"cancelled", "finished"}; !slices.Equal(stopped, want) {
			t.Errorf("tool calls ended %q, want %q", stopped, want)
		}
	})
}

func TestWithRequestTimeoutOverridesTheDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newTimeoutPair(t, &mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: -1})
		ctx := context.Background()
		// Longer than the default.
		if elapsed, err := p.callSlow(mcp.WithRequestTimeout(ctx, 3*time.Second), nil, slowArgs{Then: 2 * time.Second}); err != nil || elapsed != 2*time.Second {
			t.Errorf("call with a 3s timeout = %v after %v, want success after 2s", err, elapsed)
		}
		// Shorter than the default.
		elapsed, err := p.callSlow(mcp.WithRequestTimeout(ctx, 100*time.Millisecond), nil, slowArgs{Then: time.Hour})
		wantTimeout(t, err, elapsed, 100*time.Millisecond)
		// Zero: no timeout at all (MaxRequestTimeout is off here).
		if elapsed, err := p.callSlow(mcp.WithRequestTimeout(ctx, 0), nil, slowArgs{Then: time.Hour}); err != nil || elapsed != time.Hour {
			t.Errorf("call without a timeout = %v after %v, want success after 1h", err, elapsed)
		}
		// The context's own deadline still applies, as context.DeadlineExceeded
		// without ErrRequestTimeout.
		dctx, cancel := context.WithTimeout(mcp.WithRequestTimeout(ctx, time.Hour), 2*time.Second)
		defer cancel()
		elapsed, err = p.callSlow(dctx, nil, slowArgs{Then: 3 * time.Hour})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, mcp.ErrRequestTimeout) || elapsed != 2*time.Second {
			t.Errorf("call past its context's deadline = %v after %v", err, elapsed)
		}
		synctest.Wait()
		cancelled, _ := p.close()
		want := []string{
			`{"requestId":3,"reason":"request timed out after 100ms"}`,
			`{"requestId":5,"reason":"context deadline exceeded"}`,
		}
		if !slices.Equal(cancelled, want) {
			t.Errorf("server received cancellations %q, want %q", cancelled, want)
		}
	})
}

func TestProgressExtendsTheTimeoutUpToTheMaximum(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  mcp.ClientOptions
		token any
		args  slowArgs
		// want is how long the call lasts; timeout whether it then fails.
		want    time.Duration
		timeout bool
	}{
		{"progress keeps a call alive",
			mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: 10 * time.Second}, "tok",
			slowArgs{Every: 800 * time.Millisecond, Reports: 5, Then: 900 * time.Millisecond}, 4*time.Second + 900*time.Millisecond, false},
		{"the timeout restarts at the last progress",
			mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: 10 * time.Second}, 7,
			slowArgs{Every: 800 * time.Millisecond, Reports: 3, Then: time.Hour}, 3400 * time.Millisecond, true},
		{"never past the maximum",
			mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: 5 * time.Second}, "tok",
			slowArgs{Every: 500 * time.Millisecond, Reports: 100, Then: time.Hour}, 5 * time.Second, true},
		{"no maximum: progress does not extend",
			mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: -1}, "tok",
			slowArgs{Every: 500 * time.Millisecond, Reports: 100, Then: time.Hour}, time.Second, true},
		{"no progress token: progress cannot be tied to the call",
			mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: 10 * time.Second}, nil,
			slowArgs{Every: 500 * time.Millisecond, Reports: 100, Then: time.Hour}, time.Second, true},
		{"the maximum alone bounds a call",
			mcp.ClientOptions{RequestTimeout: -1, MaxRequestTimeout: 3 * time.Second}, "tok",
			slowArgs{Every: 500 * time.Millisecond, Reports: 100, Then: time.Hour}, 3 * time.Second, true},
		{"by default a silent server is given up on after a minute",
			mcp.ClientOptions{}, nil,
			slowArgs{Then: time.Hour}, 60 * time.Second, true},
		{"by default progress keeps a call alive for ten minutes at most",
			mcp.ClientOptions{}, "tok",
			slowArgs{Every: 30 * time.Second, Reports: 100, Then: time.Hour}, 10 * time.Minute, true},
		{"a timeout above the maximum is cut to it",
			mcp.ClientOptions{RequestTimeout: time.Hour, MaxRequestTimeout: 2 * time.Second}, "tok",
			slowArgs{Then: time.Hour}, 2 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := tc.opts
				var seen []float64
				var mu sync.Mutex
				opts.ProgressHandler = func(_ context.Context, _ *mcp.ClientSession, pp *mcp.ProgressParams) {
					mu.Lock()
					seen = append(seen, pp.Progress)
					mu.Unlock()
				}
				p := newTimeoutPair(t, &opts)
				elapsed, err := p.callSlow(context.Background(), tc.token, tc.args)
				if tc.timeout {
					wantTimeout(t, err, elapsed, tc.want)
				} else if err != nil || elapsed != tc.want {
					t.Errorf("call = %v after %v, want success after %v", err, elapsed, tc.want)
				}
				synctest.Wait()
				cancelled, _ := p.close()
				if tc.timeout != (len(cancelled) == 1) || len(cancelled) > 1 {
					t.Errorf("server received cancellations %q", cancelled)
				}
				// The ProgressHandler still sees every notification.
				mu.Lock()
				defer mu.Unlock()
				if tc.token != nil && tc.args.Reports > 0 && len(seen) == 0 {
					t.Error("ProgressHandler saw no progress")
				}
			})
		})
	}
}

// TestTimeoutOfConcurrentCallsWithProgress: progress for one call extends
// only that call.
func TestTimeoutOfConcurrentCallsWithProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newTimeoutPair(t, &mcp.ClientOptions{RequestTimeout: time.Second, MaxRequestTimeout: time.Minute})
		type outcome struct {
			err     error
			elapsed time.Duration
		}
		quiet, busy := make(chan outcome, 1), make(chan outcome, 1)
		go func() {
			elapsed, err := p.callSlow(context.Background(), "quiet", slowArgs{Then: time.Hour})
			quiet <- outcome{err, elapsed}
		}()
		go func() {
			elapsed, err := p.callSlow(context.Background(), "busy", slowArgs{Every: 600 * time.Millisecond, Reports: 5, Then: 0})
			busy <- outcome{err, elapsed}
		}()
		q, b := <-quiet, <-busy
		wantTimeout(t, q.err, q.elapsed, time.Second)
		if b.err != nil || b.elapsed != 3*time.Second {
			t.Errorf("busy call = %v after %v, want success after 3s", b.err, b.elapsed)
		}
		synctest.Wait()
		p.close()
	})
}

// TestInitializeTimeout: a server that never answers initialize makes
// Connect fail at the timeout, without notifications/cancelled (initialize
// must not be cancelled).
func TestInitializeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, st := mcp.NewInMemoryTransports()
		conn, err := st.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		frames := make(chan string, 8)
		go func() {
			defer close(frames)
			for {
				f, err := conn.Read(context.Background())
				if err != nil {
					return
				}
				frames <- string(f)
			}
		}()
		start := time.Now()
		_, err = mcp.NewClient(clientTestInfo, &mcp.ClientOptions{RequestTimeout: 5 * time.Second, ProtocolEra: mcp.EraSession}).Connect(context.Background(), ct)
		if !errors.Is(err, mcp.ErrRequestTimeout) || time.Since(start) != 5*time.Second {
			t.Errorf("Connect = %v after %v, want ErrRequestTimeout after 5s", err, time.Since(start))
		}
		conn.Close()
		var got []string
		for f := range frames {
			got = append(got, f)
		}
		if len(got) != 1 || !strings.Contains(got[0], `"method":"initialize"`) {
			t.Errorf("the client sent %q, want only its initialize", got)
		}
	})
}

func init() {
	schemaCases = append(schemaCases,
		schemaCase{name: "client cancelled, for a call that timed out", message: "CancelledNotification", method: "notifications/cancelled",
			produce: func(t *testing.T) []byte {
				var frame []byte
				synctest.Test(t, func(t *testing.T) {
					p := schemaClientConnect(t)
					errc := make(chan error, 1)
					go func() {
						_, err := p.cs.CallTool(mcp.WithRequestTimeout(context.Background(), 10*time.Second), &mcp.CallToolParams{Name: "slow"})
						errc <- err
					}()
					p.read() // the tools/call request
					frame = p.read()
					if err := <-errc; !errors.Is(err, mcp.ErrRequestTimeout) {
						t.Errorf("CallTool = %v, want ErrRequestTimeout", err)
					}
					p.cs.Close()
					p.conn.Close()
				})
				return frame
			}},
	)
}

// holdingTransport forwards every frame, then holds the write of a
// tools/call until its context ends, as Streamable HTTP in JSON mode holds
// a POST until the answer.
type holdingTransport struct{ mcp.Transport }

func (t holdingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return holdingConn{c}, err
}

type holdingConn struct{ mcp.Connection }

func (c holdingConn) Write(ctx context.Context, frame []byte) error {
	if err := c.Connection.Write(ctx, frame); err != nil {
		return err
	}
	if strings.Contains(string(frame), `"method":"tools/call"`) {
		<-ctx.Done()
		return fmt.Errorf("POST: %w", ctx.Err())
	}
	return nil
}

// TestTimeoutCoversAHeldWrite: the timeout and the caller's context both
// apply while the transport holds the write, and the request is cancelled
// on the server either way.
func TestTimeoutCoversAHeldWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var cancelled []string
		s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{
			Middleware: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, r *mcp.Request) (any, error) {
					if r.Method == "notifications/cancelled" {
						mu.Lock()
						cancelled = append(cancelled, string(r.Params))
						mu.Unlock()
					}
					return next(ctx, r)
				}
			}},
		})
		stopped := make(chan error, 2)
		if err := mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "blocks"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			<-ctx.Done()
			stopped <- ctx.Err()
			return "", ctx.Err()
		}); err != nil {
			t.Fatal(err)
		}
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(clientTestInfo, &mcp.ClientOptions{RequestTimeout: 2 * time.Second, ProtocolEra: mcp.EraSession}).Connect(context.Background(), holdingTransport{ct})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		wantTimeout(t, err, time.Since(start), 2*time.Second)
		if err := <-stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("handler's context ended with %v", err)
		}

		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(time.Second, func() { cancel(errors.New("user pressed stop")) })
		start = time.Now()
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		if !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Errorf("CallTool = %v after %v, want context.Canceled after 1s", err, time.Since(start))
		}
		if err := <-stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("handler's context ended with %v", err)
		}
		cs.Close()
		ss.Wait()
		want := []string{
			`{"requestId":2,"reason":"request timed out after 2s"}`,
			`{"requestId":3,"reason":"user pressed stop"}`,
		}
		if !slices.Equal(cancelled, want) {
			t.Errorf("server received cancellations %q, want %q", cancelled, want)
		}
	})
}
