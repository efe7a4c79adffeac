package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Bodies the tests send.
const (
	initBody     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedN = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pingBody     = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
)

func initBodyVersion(v string) string {
	return strings.Replace(initBody, "2025-11-25", v, 1)
}

// tools is what the test server's tools report to the test.
type tools struct {
	// gate, if set, is what the "block" tool waits on; started receives
	// the tool's context when it starts, and ended its ctx.Err() at the
	// end.
	gate    chan struct{}
	started chan context.Context
	ended   chan error
	// stepped is signalled by "steps" after each of its progress
	// notifications.
	steps   chan struct{}
	stepped chan int
}

// newTestServer returns a server with the tools the tests call: echo,
// progress (three progress notifications and a log message, then "done"),
// block (waits for the test), steps (progress gated by the test) and ask
// (a server-to-client roots/list).
func newTestServer(t testing.TB) (*mcp.Server, *tools) {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"}, nil)
	tl := &tools{
		gate: make(chan struct{}), started: make(chan context.Context, 4), ended: make(chan error, 4),
		steps: make(chan struct{}), stepped: make(chan int, 8),
	}
	type echoIn struct {
		Text string `json:"text"`
	}
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) {
		return in.Text, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "progress", Description: "progress"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		for i := 1; i <= 3; i++ {
			if err := req.ReportProgress(ctx, float64(i), 3, ""); err != nil {
				return nil, err
			}
		}
		if err := req.Session.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "log"}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "block", Description: "block"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		tl.started <- ctx
		select {
		case <-tl.gate:
		case <-ctx.Done():
		}
		tl.ended <- ctx.Err()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "unblocked"}}}, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "steps", Description: "steps"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		for i := 1; i <= 3; i++ {
			if i > 1 {
				select {
				case <-tl.steps:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if err := req.ReportProgress(ctx, float64(i), 3, ""); err != nil {
				return nil, err
			}
			tl.stepped <- i
		}
		tl.ended <- ctx.Err()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stepped"}}}, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "reconnect", Description: "reconnect"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		closeStream := req.Extra.CloseStream
		if closeStream == nil {
			return nil, errors.New("no CloseStream")
		}
		closeStream()
		tl.started <- ctx
		<-tl.gate
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reconnected"}}}, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "ask", Description: "ask"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		var res json.RawMessage
		if err := req.Session.Call(ctx, "roots/list", nil, &res); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res)}}}, nil
	}))
	return s, tl
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fakeClock is the registry's clock in tests that expire sessions.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// fixture is a Handler served on 127.0.0.1.
type fixture struct {
	t     *testing.T
	h     *Handler
	srv   *httptest.Server
	url   string
	clock *fakeClock
	tools *tools
	// sid is a session a table row's setup opened, for its check.
	sid string
	// done, when set, ends what the fixture started (authFixture).
	done func()
}

func newFixture(t *testing.T, opts *Options) *fixture {
	t.Helper()
	s, tl := newTestServer(t)
	h := NewHandler(s, opts)
	clock := newFakeClock()
	h.reg.now = clock.now
	srv := httptest.NewServer(h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: clock, tools: tl}
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	})
	return f
}

// hdrs are request headers; the value "-" removes a default header.
type hdrs map[string]string

// reply is a response read to its end.
type reply struct {
	status int
	header http.Header
	body   string
	events []event
}

// do sends a request with the default POST headers (Accept both types,
// Content-Type application/json) overridden by h, and reads the reply.
func (f *fixture) do(method string, h hdrs, body string) *reply {
	f.t.Helper()
	return f.read(f.open(context.Background(), method, h, body))
}

// read reads a response to its end.
func (f *fixture) read(resp *http.Response) *reply {
	f.t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatalf("reading the body: %v", err)
	}
	r := &reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.events = parseEvents(f.t, bufio.NewReader(strings.NewReader(r.body)))
	}
	return r
}

// open sends a request and returns the response unread.
func (f *fixture) open(ctx context.Context, method string, h hdrs, body string) *http.Response {
	f.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.url, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range h {
		switch {
		case k == "Host":
			req.Host = v
		case v == "-":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		f.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// post sends body on session sid ("" for none).
func (f *fixture) post(sid, body string) *reply {
	f.t.Helper()
	h := hdrs{}
	if sid != "" {
		h["Mcp-Session-Id"] = sid
	}
	return f.do(http.MethodPost, h, body)
}

// sessionState returns the state of the session sid held here, failing
// the test when there is none.
func (f *fixture) sessionState(t *testing.T, sid string) mcp.SessionState {
	t.Helper()
	e, _ := f.h.reg.acquire(sid, "")
	if e == nil {
		t.Fatal("the session is gone")
	}
	defer f.h.reg.release(e)
	return e.ss.State()
}

// initialize opens a session at version v and sends
// notifications/initialized; it returns the session id.
func (f *fixture) initialize(v string) string {
	f.t.Helper()
	r := f.post("", initBodyVersion(v))
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		f.t.Fatalf("initialize: status %d, session %q, body %s", r.status, sid, r.body)
	}
	if r := f.post(sid, initializedN); r.status != http.StatusAccepted {
		f.t.Fatalf("notifications/initialized: status %d", r.status)
	}
	return sid
}

// message returns the JSON-RPC message a reply carries: the body of a
// JSON reply, or the last event with data of an SSE reply.
func (r *reply) message(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	data := r.body
	if r.events != nil {
		data = ""
		for _, e := range r.events {
			if e.data != "" {
				data = e.data
			}
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("reply %d is not a JSON-RPC message: %q", r.status, r.body)
	}
	return m
}

// rpcError is the error member of a reply.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// event is one SSE event, or a comment line.
type event struct {
	id, data, retry string
	comment         bool
}

// parseEvents reads SSE events until EOF.
func parseEvents(t *testing.T, br *bufio.Reader) []event {
	t.Helper()
	var out []event
	for {
		e, err := nextEvent(br)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading SSE: %v", err)
		}
		out = append(out, e)
	}
}

// nextEvent reads the next SSE event or comment.
func nextEvent(br *bufio.Reader) (event, error) {
	var e event
	seen := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if seen && errors.Is(err, io.EOF) {
				return e, nil
			}
			return e, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if seen {
				return e, nil
			}
			continue
		}
		seen = true
		if strings.HasPrefix(line, ":") {
			e.comment = true
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		switch k {
		case "id":
			e.id = v
		case "data":
			e.data = v
		case "retry":
			e.retry = v
		}
	}
}

// newLoopbackServer serves h on 127.0.0.1 without registering cleanups,
// for tests that check for leaks themselves.
func newLoopbackServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	return httptest.NewServer(h)
}
