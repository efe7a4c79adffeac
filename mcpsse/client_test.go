package mcpsse

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

func newClient() *mcp.Client {
	return mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession})
}

// The client transport initializes, lists and calls tools over a Handler.
func TestClientRoundTrip(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MessagePath: "/messages"}))
	defer srv.close()
	cs, err := newClient().Connect(t.Context(), &ClientTransport{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.ProtocolVersion(); v != mcp.LatestVersion {
		t.Errorf("version %q, want %q", v, mcp.LatestVersion)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("ListTools: %v %v", tools, err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)})
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("CallTool: %v %v", res, err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hi" {
		t.Fatalf("CallTool content %#v", res.Content[0])
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
}

// A stream dropped by the server fails the call in flight with an error
// wrapping ErrStreamDropped, and ends the session on both sides: later
// calls fail with mcp.ErrSessionClosed.
func TestClientStreamDropped(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan struct{}, 1)
	h := NewHandler(echoServer(started, nil), nil)
	srv := newTestServer(t, h)
	defer srv.close()
	cs, err := newClient().Connect(t.Context(), &ClientTransport{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "block", Arguments: []byte(`{"text":""}`)})
		errc <- err
	}()
	<-started
	h.Close() // the server drops every stream
	err = <-errc
	var failed *mcp.RequestFailedError
	if !errors.Is(err, ErrStreamDropped) || errors.As(err, &failed) {
		t.Fatalf("call in flight: %v, want ErrStreamDropped", err)
	}
	if err := cs.Wait(); !errors.Is(err, ErrStreamDropped) {
		t.Fatalf("Wait: %v, want ErrStreamDropped", err)
	}
	if _, err := cs.ListTools(t.Context(), nil); !errors.Is(err, mcp.ErrSessionClosed) || !errors.Is(err, ErrStreamDropped) {
		t.Fatalf("after the drop: %v", err)
	}
}

// A stream whose client does not take its messages is closed at
// MaxStreamQueueBytes; other sessions are unaffected.
func TestSlowStreamClosed(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MaxStreamQueueBytes: 512}))
	defer srv.close()
	ctx := t.Context()
	big, err := newClient().Connect(ctx, &ClientTransport{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	small, err := newClient().Connect(ctx, &ClientTransport{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	arg := `{"text":"` + strings.Repeat("x", 600) + `"}`
	if _, err := big.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: []byte(arg)}); !errors.Is(err, ErrStreamDropped) {
		t.Fatalf("reply over the queue bound: %v, want ErrStreamDropped", err)
	}
	if _, err := small.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)}); err != nil {
		t.Fatalf("the other session: %v", err)
	}
}

// sseServer answers GET with an event stream that sends body and then
// waits for the client to leave.
func sseServer(t *testing.T, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(body))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	return srv
}

// Connect fails with ErrNoEndpoint when no endpoint arrives in time, when
// the stream ends first, and when the endpoint is on another origin.
func TestClientNoEndpoint(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for name, body := range map[string]string{
		"silent":       ": hello\n\n",
		"other origin": "event: endpoint\ndata: http://evil.example/messages?sessionId=1\n\n",
		"other port":   "event: endpoint\ndata: //127.0.0.1:1/messages\n\n",
	} {
		srv := sseServer(t, body)
		_, err := (&ClientTransport{URL: srv.URL + "/sse", EndpointTimeout: 50 * time.Millisecond}).Connect(t.Context())
		if !errors.Is(err, ErrNoEndpoint) {
			t.Errorf("%s: %v, want ErrNoEndpoint", name, err)
		}
		srv.Close()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("event: message\ndata: {}\n\n"))
	}))
	defer srv.Close()
	_, err := (&ClientTransport{URL: srv.URL}).Connect(t.Context())
	if !errors.Is(err, ErrNoEndpoint) || !strings.Contains(err.Error(), "ended first") {
		t.Errorf("stream ended: %v", err)
	}
	srv404 := httptest.NewServer(http.NotFoundHandler())
	defer srv404.Close()
	_, err = (&ClientTransport{URL: srv404.URL}).Connect(t.Context())
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.Method != http.MethodGet {
		t.Errorf("404: %v", err)
	}
	http.DefaultClient.CloseIdleConnections()
}

// A relative endpoint is resolved against the stream's URL.
func TestClientRelativeEndpoint(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := sseServer(t, "event: endpoint\ndata: ?sessionid=abc\n\n")
	defer srv.Close()
	conn, err := (&ClientTransport{URL: srv.URL + "/base/sse?x=1"}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := conn.(*clientConn).endpoint, srv.URL+"/base/sse?sessionid=abc"; got != want {
		t.Fatalf("endpoint %q, want %q", got, want)
	}
	conn.Close()
	http.DefaultClient.CloseIdleConnections()
}

// A message of exactly MaxMessageBytes arrives; one byte more is Read as
// a *mcp.FrameTooLargeError (without an id to find) and the stream goes
// on with the next message.
func TestClientMessageLimit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		data string
		ok   bool
	}{
		{`{"k":"12345678"}`, true},
		{`{"k":"123456789"}`, false},
	} {
		srv := sseServer(t, "event: endpoint\ndata: /m\n\nevent: message\ndata: "+tc.data+"\n\nevent: message\ndata: {\"next\":1}\n\n")
		conn, err := (&ClientTransport{URL: srv.URL, MaxMessageBytes: 16}).Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		frame, err := conn.Read(t.Context())
		tooLarge, isTooLarge := errors.AsType[*mcp.FrameTooLargeError](err)
		switch {
		case tc.ok && (err != nil || string(frame) != tc.data):
			t.Errorf("%s: Read = %q, %v; want the frame", tc.data, frame, err)
		case !tc.ok && (!isTooLarge || errors.Is(err, ErrStreamDropped) || *tooLarge != mcp.FrameTooLargeError{Limit: 16}):
			t.Errorf("%s: Read = %q, %v; want *mcp.FrameTooLargeError{Limit: 16} alone", tc.data, frame, err)
		}
		if frame, err := conn.Read(t.Context()); err != nil || string(frame) != `{"next":1}` {
			t.Errorf("%s: then Read = %q, %v; want the next message", tc.data, frame, err)
		}
		conn.Close()
		srv.Close()
	}
	http.DefaultClient.CloseIdleConnections()
}
