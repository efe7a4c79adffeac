package mcp

// Progress on the wire
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress):
// notifications/progress only for a request that carried a progressToken,
// the token echoed exactly, a lower value refused, the notifications before
// the result; over the in-memory and the stdio transports.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// lcAddProgressTool adds a tool "progress" that reports each of
// args.values with args.total and args.message, and answers with the
// outcome of each report ("ok" or the error), joined by "; ".
func lcAddProgressTool(t testing.TB, s *Server) {
	t.Helper()
	if err := s.AddTool(&Tool{Name: "progress"}, func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error) {
		var in struct {
			Values  []float64
			Total   float64
			Message string
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		var out []string
		for _, v := range in.Values {
			if err := req.ReportProgress(ctx, v, in.Total, in.Message); err != nil {
				out = append(out, err.Error())
			} else {
				out = append(out, "ok")
			}
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: strings.Join(out, "; ")}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

func lcText(id, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
}

func TestProgressOnlyWithToken(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddProgressTool(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.run(`
			# No _meta, an empty _meta, a null token: nothing is sent, and
			# reporting is not an error.
			-> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"values":[1,2]}}}
			<- {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok; ok"}]}}
			-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{},"name":"progress","arguments":{"values":[1]}}}
			<- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}
			-> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":null},"name":"progress","arguments":{"values":[1]}}}
			<- {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}

			# A string token is echoed exactly, before the result; total and
			# message are sent when given.
			-> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":"progress-test-1"},"name":"progress","arguments":{"values":[0,50,100],"total":100,"message":"working"}}}
			<- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":0,"total":100,"message":"working"}}
			<- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":50,"total":100,"message":"working"}}
			<- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":100,"total":100,"message":"working"}}
			<- {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ok; ok; ok"}]}}

			# An integer token (0 included) stays an integer; fractions are
			# fine; total and message are left out when not given.
			-> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":0},"name":"progress","arguments":{"values":[0.25,0.5]}}}
			<- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":0,"progress":0.25}}
			<- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":0,"progress":0.5}}
			<- {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"ok; ok"}]}}

			# A token that is neither string nor integer is invalid params.
			-> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"progressToken":true},"name":"progress","arguments":{"values":[1]}}}
			<- {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: id must be a string or an integer"}}
		`)
		c.finish()
	})
}

func TestProgressRefusesDecrease(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		lcAddProgressTool(t, s)
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":7},"name":"progress","arguments":{"values":[10,5,10,12,11]}}}`)
		// 5 and 11 are refused and not sent; an equal value is allowed.
		for _, v := range []string{"10", "10", "12"} {
			c.expect(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":` + v + `}}`)
		}
		c.expect(lcText("1", "ok; mcp: progress must not decrease: 5 after 10; ok; ok; mcp: progress must not decrease: 11 after 12"))
		c.finish()
	})
}

func TestProgressRefusesNonFinite(t *testing.T) {
	r := &Request{progressToken: jsonrpc.StringID("t"), progress: &progressState{}}
	for _, tc := range []struct{ progress, total float64 }{{math.NaN(), 0}, {math.Inf(1), 0}, {1, math.Inf(-1)}} {
		if err := r.ReportProgress(context.Background(), tc.progress, tc.total, ""); err == nil {
			t.Errorf("ReportProgress(%v, %v) = nil, want an error", tc.progress, tc.total)
		}
	}
	if r.progress.sent {
		t.Error("a refused value was recorded")
	}
}

func TestProgressErrorIsErrProgressDecreased(t *testing.T) {
	s := lcNewServer(nil)
	ss := s.newSession(SessionOptions{})
	defer ss.Close()
	r := &Request{Session: ss}
	r.setMeta(&RequestMeta{ProgressToken: jsonrpc.StringID("t")})
	ctx := context.Background()
	if err := r.ReportProgress(ctx, 2, 0, ""); err != nil {
		t.Fatal(err)
	}
	if err := r.ReportProgress(ctx, 1, 0, ""); !errors.Is(err, ErrProgressDecreased) {
		t.Errorf("ReportProgress(1) after 2 = %v, want ErrProgressDecreased", err)
	}
}

// TestProgressConcurrentReports checks that reports from many goroutines
// reach the wire in increasing order: the check and the write are one
// step.
func TestProgressConcurrentReports(t *testing.T) {
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		s := lcNewServer(nil)
		const n = 8
		if err := s.AddTool(&Tool{Name: "many"}, func(ctx context.Context, req *Request, _ json.RawMessage) (*CallToolResult, error) {
			var mu sync.Mutex
			next := 0.0
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 10 {
						mu.Lock()
						next++
						v := next
						mu.Unlock()
						// A goroutine may lose the race to a higher
						// value: then it is refused, never sent late.
						if err := req.ReportProgress(ctx, v, 0, ""); err != nil && !errors.Is(err, ErrProgressDecreased) {
							t.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			return &CallToolResult{Content: []Content{}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		c := connect(s)
		c.handshake("2025-11-25", lcInitResultTools(0, "2025-11-25"))
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"c"},"name":"many"}}`)
		last := -1.0
		for {
			frame := c.recv()
			if strings.HasPrefix(frame, `{"jsonrpc":"2.0","id":1,`) {
				if frame != `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` {
					t.Errorf("result = %s", frame)
				}
				break
			}
			var note struct {
				Params ProgressParams `json:"params"`
			}
			if err := json.Unmarshal([]byte(frame), &note); err != nil {
				t.Fatalf("%s: %v", frame, err)
			}
			if note.Params.Progress < last {
				t.Errorf("progress %v sent after %v", note.Params.Progress, last)
			}
			last = note.Params.Progress
		}
		if last != n*10 {
			// The highest value is always sent: nothing can refuse it.
			t.Errorf("last progress sent = %v, want %d", last, n*10)
		}
		c.finish()
	})
}

func TestProgressFromClientReachesProgressHandler(t *testing.T) {
	got := make(chan string, 4)
	s := lcNewServer(&ServerOptions{ProgressHandler: func(_ context.Context, ss *ServerSession, p *ProgressParams) {
		got <- fmt.Sprintf("%s %v/%v %s", p.ProgressToken, p.Progress, p.Total, p.Message)
	}})
	lcEachTransport(t, func(t *testing.T, connect func(*Server) *lcConn) {
		c := connect(s)
		c.handshake("2025-11-25", lcInitResult(0, "2025-11-25"))
		c.run(`
			-> {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"s-1","progress":1,"total":4,"message":"sampling"}}
			# Malformed ones are ignored.
			-> {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}}
			-> {"jsonrpc":"2.0","method":"notifications/progress","params":[1]}
			-> {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":3}}
			-> {"jsonrpc":"2.0","id":"fence","method":"ping"}
			<- {"jsonrpc":"2.0","id":"fence","result":{}}
		`)
		if g := lcWait(t, got, "first progress"); g != `"s-1" 1/4 sampling` {
			t.Errorf("ProgressHandler got %s", g)
		}
		if g := lcWait(t, got, "second progress"); g != `9 3/0 ` {
			t.Errorf("ProgressHandler got %s", g)
		}
		if len(got) != 0 {
			t.Errorf("ProgressHandler called %d more times", len(got))
		}
		c.finish()
	})
}

// TestProgressBothWaysOverAClient: a client answering a server's request
// reports progress with ClientSession.NotifyProgress, and the server's
// ProgressHandler sees it before the answer.
func TestProgressBothWaysOverAClient(t *testing.T) {
	got := make(chan *ProgressParams, 4)
	ctx := context.Background()
	ct, st := NewInMemoryTransports()
	ss, err := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{
		ProgressHandler: func(_ context.Context, _ *ServerSession, p *ProgressParams) { got <- p },
	}).Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(Implementation{Name: "c", Version: "1"}, legacyOpts(nil))
	c.methods["test/long"] = func(ctx context.Context, cs *ClientSession, params json.RawMessage) (any, error) {
		var p struct {
			Meta RequestMeta `json:"_meta"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		for _, v := range []float64{1, 2} {
			if err := cs.NotifyProgress(ctx, &ProgressParams{ProgressToken: p.Meta.ProgressToken, Progress: v, Total: 2}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	cs, err := c.Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	if err := cs.Ping(ctx); err != nil { // fences notifications/initialized
		t.Fatal(err)
	}
	if err := ss.Call(ctx, "test/long", json.RawMessage(`{"_meta":{"progressToken":"srv-tok"}}`), nil); err != nil {
		t.Fatal(err)
	}
	// The read loop handles frames in order: both notifications were
	// handled before the response that ended Call.
	if len(got) != 2 {
		t.Fatalf("ProgressHandler called %d times, want 2", len(got))
	}
	for _, want := range []float64{1, 2} {
		p := <-got
		if s, _ := p.ProgressToken.Str(); s != "srv-tok" || p.Progress != want || p.Total != 2 {
			t.Errorf("progress = %+v, want srv-tok %v/2", p, want)
		}
	}
	for _, bad := range []*ProgressParams{nil, {Progress: 1}, {ProgressToken: jsonrpc.Int64ID(1), Progress: math.NaN()}} {
		if err := cs.NotifyProgress(ctx, bad); err == nil {
			t.Errorf("NotifyProgress(%+v) = nil, want an error", bad)
		}
	}
}
