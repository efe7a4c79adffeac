package mcpsse

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// A quiet stream carries a keep-alive comment every KeepAlive.
func TestKeepAlive(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{KeepAlive: 10 * time.Millisecond}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st := srv.open(t, ctx, "/sse")
	st.next()
	for range 2 {
		line, err := st.r.ReadString('\n')
		if err != nil || line != ": keep-alive\n" {
			t.Fatalf("line %q %v, want a keep-alive comment", line, err)
		}
		if blank, _ := st.r.ReadString('\n'); blank != "\n" {
			t.Fatalf("after the comment %q", blank)
		}
	}
}

// A POST body that stalls is answered 408 after BodyReadTimeout.
func TestBodyReadTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{BodyReadTimeout: 50 * time.Millisecond}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st := srv.open(t, ctx, "/sse")
	_, endpoint, _ := st.next()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":", endpoint, srv.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Request Timeout: the body was not received within 50ms"}}`
	if resp.StatusCode != http.StatusRequestTimeout || string(body) != want {
		t.Fatalf("%d %s, want 408 %s", resp.StatusCode, body, want)
	}
}

// A client that stops reading its stream has it closed once a write
// waits WriteTimeout, which ends its session; another session goes on.
func TestStalledStreamClosed(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := mcp.NewServer(mcp.Implementation{Name: "big", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "a 1 MiB text"}, func(context.Context, *mcp.Request, struct{}) (string, error) {
		return strings.Repeat("x", 1<<20), nil
	})
	h := NewHandler(s, &Options{WriteTimeout: 50 * time.Millisecond, MaxStreamQueueBytes: -1, MessagePath: "/messages"})
	ended := make(chan string, 2)
	h.ended = func(id string) { ended <- id }
	srv := newTestServer(t, h)
	defer srv.close()

	// The stalled client: a raw connection that reads the headers and the
	// endpoint, then nothing.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /sse HTTP/1.1\r\nHost: %s\r\n\r\n", srv.Listener.Addr())
	r := bufio.NewReader(conn)
	endpoint := ""
	for endpoint == "" {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(line, "data: "); i >= 0 {
			endpoint = strings.TrimSpace(line[i+6:])
		}
	}
	url := srv.URL + endpoint
	post(t, url, initBody)
	post(t, url, initialized)
	// Replies pile up in the socket buffers until a write blocks.
	stalled := ""
	for i := 2; stalled == "" && i < 1000; i++ {
		if code, _ := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{}}}`, i)); code != http.StatusAccepted {
			break // the stream is gone: the POST found no session
		}
		select {
		case stalled = <-ended:
		default:
		}
	}
	if stalled == "" {
		stalled = <-ended
	}
	if !strings.HasSuffix(endpoint, stalled) {
		t.Fatalf("ended %q, not the stalled session %s", stalled, endpoint)
	}
	// Another client is served meanwhile and after.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st, other := handshake(t, ctx, srv)
	post(t, other, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if _, data, _ := st.next(); data != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("the other session: %s", data)
	}
}

// A session that does not take a POSTed message (its read loop is held by
// a notification callback) answers the POST 503 after HandOffTimeout, so
// the client is never held without end; once free, it serves as before.
func TestHandOffTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	entered, release := make(chan struct{}), make(chan struct{})
	s := mcp.NewServer(mcp.Implementation{Name: "held", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.ServerSession) {
			close(entered)
			<-release
		},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil })
	srv := newTestServer(t, NewHandler(s, &Options{MessagePath: "/messages", HandOffTimeout: 50 * time.Millisecond}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st, endpoint := handshake(t, ctx, srv)
	<-entered
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable: the session did not take the message within 50ms"}}`
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != want || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("held session: %d %s (Retry-After %q), want 503 %s", resp.StatusCode, body, resp.Header.Get("Retry-After"), want)
	}
	close(release)
	if code, body := post(t, endpoint, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusAccepted || body != "" {
		t.Fatalf("ping after release: %d %q", code, body)
	}
	if name, data, _ := st.next(); name != "message" || data != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Fatalf("ping reply %q %s", name, data)
	}
}
