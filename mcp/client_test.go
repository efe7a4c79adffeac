package mcp_test

// Client tests: a real mcp.Client against a real mcp.Server over the
// in-memory transport, and against fake servers that write raw frames.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// clientWatchdog turns a hang into a failure with a message; no test
// asserts on time.
const clientWatchdog = 30 * time.Second

var (
	clientTestInfo = mcp.Implementation{Name: "test-client", Version: "0.0.1"}
	serverTestInfo = mcp.Implementation{Name: "test-server", Version: "1.2.3"}
)

// clientPair is a client session connected to a server session over the
// in-memory transport.
type clientPair struct {
	cs *mcp.ClientSession
	ss *mcp.ServerSession
}

// connectClient serves s over an in-memory transport, connects a client
// with copts to it, and closes both when the test ends. It also checks
// that the test started no goroutine that outlives it.
func connectClient(t *testing.T, s *mcp.Server, copts *mcp.ClientOptions) *clientPair {
	t.Helper()
	mcp.CheckLeaks(t) // first: its check runs after the cleanups below
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatalf("Server.Connect: %v", err)
	}
	cs, err := mcp.NewClient(clientTestInfo, legacy(copts)).Connect(ctx, ct)
	if err != nil {
		t.Fatalf("Client.Connect: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
	})
	return &clientPair{cs: cs, ss: ss}
}

// legacy returns copts (nil for the zero options) pinned to the session
// era unless they name an era: these tests are about sessions
// (initialize, server-to-client requests).
func legacy(copts *mcp.ClientOptions) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if copts != nil {
		o = *copts
	}
	if o.ProtocolEra == mcp.EraAuto {
		o.ProtocolEra = mcp.EraSession
	}
	return &o
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// newToolServer returns a server with an "add" typed tool and a "fail"
// tool that returns a Go error.
func newToolServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(serverTestInfo, opts)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *mcp.Request, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			return "", errors.New("the tool broke")
		}); err != nil {
		t.Fatal(err)
	}
	return s
}

// jsonEqual fails the test unless got encodes as the same JSON value as
// want.
func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: encoding: %v", what, err)
	}
	var g, w any
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s =\n\t%s\nwant\n\t%s", what, raw, want)
	}
}

// wantRPCError fails the test unless err is a *jsonrpc.Error with the
// given code, message and data.
func wantRPCError(t *testing.T, err error, code int64, message, data string) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("error = %v (%T), want a *jsonrpc.Error", err, err)
	}
	if rpcErr.Code != code || rpcErr.Message != message || string(rpcErr.Data) != data {
		t.Errorf("error = {%d %q %s}, want {%d %q %s}", rpcErr.Code, rpcErr.Message, rpcErr.Data, code, message, data)
	}
}

func recvWithin[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(clientWatchdog):
		t.Fatalf("waiting for %s: nothing after %v", what, clientWatchdog)
	}
	var zero T
	return zero
}

func TestClientConnect(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	if v := p.cs.ProtocolVersion(); v != "2025-11-25" {
		t.Errorf("ProtocolVersion() = %q, want 2025-11-25", v)
	}
	jsonEqual(t, "ServerCapabilities", p.cs.ServerCapabilities(), `{"tools":{"listChanged":true}}`)
	jsonEqual(t, "ServerInfo", p.cs.ServerInfo(), `{"name":"test-server","version":"1.2.3"}`)
	if got := p.cs.Instructions(); got != "" {
		t.Errorf("Instructions() = %q, want none", got)
	}

	// A ping fences notifications/initialized, which the server handles in
	// order on its read loop.
	if err := p.cs.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	st := p.ss.State()
	if st.Lifecycle != "ready" {
		t.Errorf("server session lifecycle = %q, want %q (notifications/initialized sent)", st.Lifecycle, "ready")
	}
	if st.ProtocolVersion != mcp.LatestVersion {
		t.Errorf("negotiated version = %q, want %q", st.ProtocolVersion, mcp.LatestVersion)
	}
	jsonEqual(t, "client info seen by the server", st.ClientInfo, `{"name":"test-client","version":"0.0.1"}`)
	jsonEqual(t, "client capabilities seen by the server", st.ClientCapabilities, `{}`)
}

func TestClientDeclaresCapabilities(t *testing.T) {
	caps := &mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}}
	p := connectClient(t, newToolServer(t, nil), &mcp.ClientOptions{Capabilities: caps})
	jsonEqual(t, "client capabilities seen by the server", p.ss.State().ClientCapabilities, `{"roots":{"listChanged":true}}`)
}

func TestClientListToolsPagination(t *testing.T) {
	s := mcp.NewServer(serverTestInfo, &mcp.ServerOptions{PageSize: 2})
	names := []string{"a", "b", "c", "d", "e"}
	for _, name := range names {
		if err := s.AddTool(&mcp.Tool{Name: name, Description: "tool " + name}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	p := connectClient(t, s, nil)
	ctx := context.Background()

	first, err := p.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if got := toolNames(first.Tools); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("first page = %v, want [a b]", got)
	}
	if first.NextCursor == "" {
		t.Fatal("first page has no nextCursor")
	}
	jsonEqual(t, "first tool", first.Tools[0], `{"name":"a","description":"tool a","inputSchema":{"type":"object"}}`)

	second, err := p.cs.ListTools(ctx, &mcp.PaginatedParams{Cursor: first.NextCursor})
	if err != nil {
		t.Fatalf("ListTools(second page): %v", err)
	}
	if got := toolNames(second.Tools); !slices.Equal(got, []string{"c", "d"}) {
		t.Errorf("second page = %v, want [c d]", got)
	}

	var all []string
	for tool, err := range p.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("Tools: %v", err)
		}
		all = append(all, tool.Name)
	}
	if !slices.Equal(all, names) {
		t.Errorf("Tools yielded %v, want %v", all, names)
	}

	// Stopping early is allowed and sends no more requests.
	n := 0
	for range p.cs.Tools(ctx, nil) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("broke out after %d tools, want 3", n)
	}

	_, err = p.cs.ListTools(ctx, &mcp.PaginatedParams{Cursor: "not a cursor"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"invalid cursor: not one tools/list issued; list again without a cursor"`)

	// The iterator yields the error once and stops.
	var errs int
	for tool, err := range p.cs.Tools(ctx, &mcp.PaginatedParams{Cursor: "not a cursor"}) {
		if err == nil {
			t.Errorf("Tools with a bad cursor yielded %v", tool.Name)
			continue
		}
		errs++
	}
	if errs != 1 {
		t.Errorf("Tools with a bad cursor yielded %d errors, want 1", errs)
	}
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

func TestClientCallTypedTool(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	jsonEqual(t, "result", res, `{"content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5}}`)
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T, want *mcp.TextContent", res.Content[0])
	}
	if text.Text != `{"sum":5}` {
		t.Errorf("text = %q", text.Text)
	}
}

func TestClientCallToolError(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	ctx := context.Background()

	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
	if err != nil {
		t.Fatalf("CallTool: %v (a tool's failure is a result, not an error)", err)
	}
	jsonEqual(t, "result", res, `{"content":[{"type":"text","text":"the tool broke"}],"isError":true}`)

	// Invalid arguments are a result with isError too (2025-11-25).
	res, err = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":"two","b":3}`)})
	if err != nil {
		t.Fatalf("CallTool(bad arguments): %v", err)
	}
	if !res.IsError {
		t.Errorf("bad arguments: isError = false, want true")
	}

	// An unknown tool is a protocol error.
	_, err = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Invalid params", `"Unknown tool: nope"`)

	if _, err := p.cs.CallTool(ctx, nil); err == nil {
		t.Error("CallTool(nil) succeeded")
	}
}

func TestClientCallRaw(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	var raw json.RawMessage
	err := p.cs.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"add","arguments":{"a":1,"b":1}}`), &raw)
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if want := `{"content":[{"type":"text","text":"{\"sum\":2}"}],"structuredContent":{"sum":2}}`; string(raw) != want {
		t.Errorf("raw result = %s, want %s", raw, want)
	}
	err = p.cs.Call(context.Background(), "no/such/method", nil, nil)
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found", `"no/such/method"`)
}

func TestClientPingBothWays(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	ctx := context.Background()
	if err := p.cs.Ping(ctx); err != nil {
		t.Fatalf("client→server Ping: %v", err)
	}
	if err := p.ss.Ping(ctx); err != nil {
		t.Fatalf("server→client Ping: %v", err)
	}
}

func TestClientAnswersUnknownServerRequest(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	ctx := context.Background()
	if err := p.cs.Ping(ctx); err != nil { // the server is ready after this
		t.Fatal(err)
	}
	err := p.ss.Call(ctx, "sampling/createMessage", json.RawMessage(`{"messages":[],"maxTokens":1}`), nil)
	wantRPCError(t, err, jsonrpc.CodeMethodNotFound, "Method not found", `"sampling/createMessage"`)
	// The session goes on.
	if err := p.ss.Ping(ctx); err != nil {
		t.Fatalf("Ping after the refusal: %v", err)
	}
}

func TestClientCancelCall(t *testing.T) {
	s := mcp.NewServer(serverTestInfo, nil)
	started := make(chan struct{})
	stopped := make(chan error, 1)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Blocks until cancelled."},
		func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return "", ctx.Err()
		}); err != nil {
		t.Fatal(err)
	}
	noteCh := make(chan string, 16)
	p := connectClient(t, s, &mcp.ClientOptions{
		NotificationHandler: func(_ context.Context, _ *mcp.ClientSession, n *jsonrpc.Notification) {
			noteCh <- n.Method
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() {
		_, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		callErr <- err
	}()
	recvWithin(t, started, "the tool to start")
	cancel()
	if err := recvWithin(t, callErr, "CallTool to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool = %v, want context.Canceled", err)
	}
	// The handler's context ends because the client sent
	// notifications/cancelled.
	if err := recvWithin(t, stopped, "the tool to see the cancellation"); !errors.Is(err, context.Canceled) {
		t.Errorf("handler's ctx.Err() = %v, want context.Canceled", err)
	}
	// The session goes on, and the server sent nothing for the cancelled
	// request (a response would be dropped, but a notification would show).
	if err := p.cs.Ping(context.Background()); err != nil {
		t.Fatalf("Ping after cancel: %v", err)
	}
	if notes := drain(noteCh); len(notes) > 0 {
		t.Errorf("notifications received: %v, want none", notes)
	}
}

func TestClientNotificationHandlers(t *testing.T) {
	s := mcp.NewServer(serverTestInfo, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Reports progress and logs."},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			for _, v := range []float64{0, 50, 100} {
				if err := req.ReportProgress(ctx, v, 100, ""); err != nil {
					return "", err
				}
			}
			err := req.Session.Notify(ctx, "notifications/message", &mcp.LoggingMessageParams{Level: "info", Logger: "work", Data: json.RawMessage(`"working"`)})
			return "done", err
		}); err != nil {
		t.Fatal(err)
	}

	type event struct {
		kind string
		data string
	}
	events := make(chan event, 32)
	p := connectClient(t, s, &mcp.ClientOptions{
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			events <- event{"progress", fmt.Sprintf("%s %v/%v", p.ProgressToken, p.Progress, p.Total)}
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			events <- event{"log", fmt.Sprintf("%s %s %s", p.Level, p.Logger, p.Data)}
		},
		ToolListChangedHandler: func(_ context.Context, cs *mcp.ClientSession) {
			events <- event{"list_changed", ""}
		},
		NotificationHandler: func(_ context.Context, _ *mcp.ClientSession, n *jsonrpc.Notification) {
			events <- event{"any", n.Method}
		},
	})
	ctx := context.Background()
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{
		Name: "work",
		Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("tok")},
	})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "result", res, `{"content":[{"type":"text","text":"done"}]}`)
	// Callbacks run on the read loop before the response is delivered, so
	// every one has run by now.
	want := []event{
		{"progress", `"tok" 0/100`}, {"any", "notifications/progress"},
		{"progress", `"tok" 50/100`}, {"any", "notifications/progress"},
		{"progress", `"tok" 100/100`}, {"any", "notifications/progress"},
		{"log", `info work "working"`}, {"any", "notifications/message"},
	}
	got := drain(events)
	if !slices.Equal(got, want) {
		t.Errorf("events =\n\t%v\nwant\n\t%v", got, want)
	}

	// Adding a tool on the live server sends list_changed.
	if err := s.AddTool(&mcp.Tool{Name: "new", Description: "new"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if e := recvWithin(t, events, "list_changed"); e != (event{"list_changed", ""}) {
		t.Errorf("event = %v, want list_changed", e)
	}
	if e := recvWithin(t, events, "list_changed (any)"); e != (event{"any", "notifications/tools/list_changed"}) {
		t.Errorf("event = %v, want any notifications/tools/list_changed", e)
	}
}

// drain returns the values waiting in ch, without waiting for more.
func drain[T any](ch chan T) []T {
	var out []T
	for {
		select {
		case v := <-ch:
			out = append(out, v)
		default:
			return out
		}
	}
}

func TestClientSessionEndsWhenServerCloses(t *testing.T) {
	p := connectClient(t, newToolServer(t, nil), nil)
	if err := p.ss.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.cs.Wait(); err != nil {
		t.Errorf("Wait = %v, want nil for a clean end", err)
	}
	if err := p.cs.Ping(context.Background()); !errors.Is(err, mcp.ErrSessionClosed) {
		t.Errorf("Ping after the end = %v, want ErrSessionClosed", err)
	}
}

func TestClientCloseFailsPendingCalls(t *testing.T) {
	s := mcp.NewServer(serverTestInfo, nil)
	started := make(chan struct{})
	if err := mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Blocks."},
		func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		}); err != nil {
		t.Fatal(err)
	}
	p := connectClient(t, s, nil)
	callErr := make(chan error, 1)
	go func() {
		_, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		callErr <- err
	}()
	recvWithin(t, started, "the tool to start")
	if err := p.cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := recvWithin(t, callErr, "CallTool to fail"); !errors.Is(err, mcp.ErrSessionClosed) {
		t.Errorf("CallTool = %v, want ErrSessionClosed", err)
	}
	if err := p.cs.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

// fakeServer reads the client's frames on the server end of an in-memory
// pair and lets the test answer with raw frames.
type fakeServer struct {
	t    *testing.T
	conn mcp.Connection
}

func newFakeServer(t *testing.T) (mcp.Transport, *fakeServer) {
	ct, st := mcp.NewInMemoryTransports()
	conn, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ct, &fakeServer{t: t, conn: conn}
}

// read returns the next frame from the client, or the read error.
func (f *fakeServer) read() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), clientWatchdog)
	defer cancel()
	b, err := f.conn.Read(ctx)
	return string(b), err
}

func (f *fakeServer) write(frame string) {
	if err := f.conn.Write(context.Background(), []byte(frame)); err != nil {
		f.t.Errorf("fake server write: %v", err)
	}
}

func TestClientRefusesUnsupportedVersion(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	type outcome struct {
		init  string
		after string
		err   error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.init, o.err = fake.read()
		if o.err != nil {
			done <- o
			return
		}
		fake.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"0"}}}`)
		// The client must close the connection without sending
		// notifications/initialized.
		o.after, o.err = fake.read()
		done <- o
	}()

	cs, err := mcp.NewClient(clientTestInfo, legacy(nil)).Connect(context.Background(), ct)
	if !errors.Is(err, mcp.ErrUnsupportedVersion) {
		t.Fatalf("Connect = %v, %v; want an error wrapping ErrUnsupportedVersion", cs, err)
	}
	if cs != nil {
		t.Errorf("Connect returned a session with the error")
	}
	o := recvWithin(t, done, "the fake server")
	if want := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`; o.init != want {
		t.Errorf("initialize =\n\t%s\nwant\n\t%s", o.init, want)
	}
	if o.after != "" || o.err == nil {
		t.Errorf("after the refusal the fake server read %q, %v; want the connection closed", o.after, o.err)
	}
}

func TestClientConnectFailsOnInitializeError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	go func() {
		if _, err := fake.read(); err == nil {
			fake.write(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request","data":"no"}}`)
		}
	}()
	_, err := mcp.NewClient(clientTestInfo, legacy(nil)).Connect(context.Background(), ct)
	wantRPCError(t, err, jsonrpc.CodeInvalidRequest, "Invalid Request", `"no"`)
	if _, err := fake.read(); err == nil {
		t.Error("connection still open after a failed initialize")
	}
}

func TestClientAcceptsOlderSupportedVersion(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	frames := make(chan string, 8)
	go func() {
		defer close(frames)
		for n := 1; ; n++ {
			f, err := fake.read()
			if err != nil {
				return
			}
			frames <- f
			switch {
			case f == `{"jsonrpc":"2.0","id":2,"method":"ping"}`:
				fake.write(`{"jsonrpc":"2.0","id":2,"result":{}}`)
			case n == 1:
				fake.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"old","version":"0"}}}`)
			}
		}
	}()
	cs, err := mcp.NewClient(clientTestInfo, legacy(nil)).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if v := cs.ProtocolVersion(); v != "2025-03-26" {
		t.Errorf("negotiated %q, want %q", v, "2025-03-26")
	}
	if err := cs.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for f := range frames {
		got = append(got, f)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("frames from the client =\n\t%v\nwant\n\t%v", got, want)
	}
}

func TestClientSurvivesGarbageFromServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ct, fake := newFakeServer(t)
	go func() {
		for {
			f, err := fake.read()
			if err != nil {
				return
			}
			switch {
			case f == `{"jsonrpc":"2.0","id":2,"method":"ping"}`:
				// Garbage, a response to nobody, then the answer.
				fake.write(`{not json`)
				fake.write(`[1,2]`)
				fake.write(`{"jsonrpc":"2.0","id":99,"result":{}}`)
				fake.write(`{"jsonrpc":"2.0","id":2,"result":{}}`)
			case strings.HasPrefix(f, `{"jsonrpc":"2.0","id":1,"method":"initialize"`):
				fake.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"0"}}}`)
			}
		}
	}()
	cs, err := mcp.NewClient(clientTestInfo, legacy(nil)).Connect(context.Background(), ct)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if err := cs.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}
