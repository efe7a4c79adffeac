package mcpsse

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

const (
	initBody    = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// endpointRE is the endpoint event's data: the message path and a
// crypto/rand.Text session id.
var endpointRE = regexp.MustCompile(`^/messages\?sessionId=[A-Z2-7]{26}$`)

// handshake opens a stream, reads its endpoint, and initializes.
func handshake(t *testing.T, ctx context.Context, ts *testServer) (*sseStream, string) {
	t.Helper()
	srv := ts.URL
	st := ts.open(t, ctx, "/sse")
	name, data, ok := st.next()
	if !ok || name != "endpoint" {
		t.Fatalf("first event %q %q %v, want endpoint", name, data, ok)
	}
	endpoint := srv + data
	if code, body := post(t, endpoint, initBody); code != http.StatusAccepted || body != "" {
		t.Fatalf("initialize: %d %q, want 202 and no body", code, body)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":`
	if name, data, _ := st.next(); name != "message" || !strings.HasPrefix(data, want) {
		t.Fatalf("initialize reply %q %q", name, data)
	}
	if code, _ := post(t, endpoint, initialized); code != http.StatusAccepted {
		t.Fatalf("initialized: %d", code)
	}
	return st, endpoint
}

// The GET stream opens with the endpoint event: the message path, with a
// session id of 130 random bits; the stream's headers are SSE's.
func TestEndpointEvent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(nil, nil), &Options{MessagePath: "/messages"})
	srv := newTestServer(t, h)
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st := srv.open(t, ctx, "/sse")
	if ct := st.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := st.resp.Header.Get("Cache-Control"); cc != "no-cache, no-transform" {
		t.Errorf("Cache-Control %q", cc)
	}
	name, data, ok := st.next()
	if !ok || name != "endpoint" || !endpointRE.MatchString(data) {
		t.Fatalf("first event %q %q, want endpoint matching %s", name, data, endpointRE)
	}
	st2 := srv.open(t, ctx, "/sse")
	if _, data2, _ := st2.next(); data2 == data {
		t.Fatalf("two streams share the session id %q", data)
	}
	if n := h.SessionCount(); n != 2 {
		t.Fatalf("SessionCount %d, want 2", n)
	}

	// Without MessagePath, the GET's own path is the endpoint.
	h2 := NewHandler(echoServer(nil, nil), nil)
	srv2 := newTestServer(t, h2)
	defer srv2.close()
	_, data3, _ := srv2.open(t, ctx, "/sse").next()
	if !regexp.MustCompile(`^/sse\?sessionId=[A-Z2-7]{26}$`).MatchString(data3) {
		t.Fatalf("endpoint %q, want /sse?sessionId=…", data3)
	}
}

// A POST is answered 202 with no body; its reply, like the tool call's,
// arrives on the stream as a message event.
func TestPostReplyOnStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MessagePath: "/messages"}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st, endpoint := handshake(t, ctx, srv)
	code, body := post(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	if code != http.StatusAccepted || body != "" {
		t.Fatalf("tools/call: %d %q", code, body)
	}
	name, data, _ := st.next()
	if want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`; name != "message" || data != want {
		t.Fatalf("reply %q %s, want message %s", name, data, want)
	}
	// Malformed JSON is refused at once; the stream carries nothing.
	code, body = post(t, endpoint, `{"jsonrpc":`)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`; code != http.StatusBadRequest || body != want {
		t.Fatalf("malformed: %d %s, want 400 %s", code, body, want)
	}
	// A valid JSON value that is no message is answered on the stream.
	post(t, endpoint, `{"jsonrpc":"2.0","id":3}`)
	if name, data, _ := st.next(); name != "message" || !strings.Contains(data, `"code":-32600`) {
		t.Fatalf("invalid message: %q %s", name, data)
	}
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"ping"}`))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain: %d, want 415", resp.StatusCode)
	}
}

// A POST to an unknown session is answered 404 with -32001; one without a
// session id 400; other methods 405.
func TestUnknownSession(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MessagePath: "/messages"}))
	defer srv.close()
	code, body := post(t, srv.URL+"/messages?sessionId=NOSUCHSESSION", initBody)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`; code != http.StatusNotFound || body != want {
		t.Fatalf("unknown session: %d %s, want 404 %s", code, body, want)
	}
	code, body = post(t, srv.URL+"/messages", initBody)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: the sessionId query parameter is required"}}`; code != http.StatusBadRequest || body != want {
		t.Fatalf("no session: %d %s, want 400 %s", code, body, want)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST" {
		t.Fatalf("DELETE: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// A second initialize is answered -32600 on the stream and changes
// nothing: the session goes on.
func TestDuplicateInitialize(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MessagePath: "/messages"}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st, endpoint := handshake(t, ctx, srv)
	if code, _ := post(t, endpoint, strings.Replace(initBody, `"id":1`, `"id":7`, 1)); code != http.StatusAccepted {
		t.Fatalf("second initialize: %d", code)
	}
	name, data, _ := st.next()
	if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}`; name != "message" || data != want {
		t.Fatalf("second initialize: %q %s, want %s", name, data, want)
	}
	post(t, endpoint, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if _, data, _ := st.next(); data != `{"jsonrpc":"2.0","id":8,"result":{}}` {
		t.Fatalf("ping after: %s", data)
	}
}

// At MaxSessions a GET is answered 503 with Retry-After and a JSON-RPC
// error; a closed stream frees its place.
func TestSessionCap(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(nil, nil), &Options{MaxSessions: 1, IdleTimeout: -1})
	ended := make(chan string, 1)
	h.ended = func(id string) { ended <- id }
	srv := newTestServer(t, h)
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	st := srv.open(t, ctx, "/sse")
	st.next()
	resp, err := http.Get(srv.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 512)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Service unavailable: maximum concurrent sessions (1) reached"}}`
	if resp.StatusCode != http.StatusServiceUnavailable || string(body[:n]) != want || resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("at the cap: %d %s Retry-After %q, want 503 %s", resp.StatusCode, body[:n], resp.Header.Get("Retry-After"), want)
	}
	cancel()
	<-ended
	st2 := srv.open(t, t.Context(), "/sse")
	if name, _, _ := st2.next(); name != "endpoint" {
		t.Fatalf("after a stream closed: %q", name)
	}
}

// A session without a POST for IdleTimeout has its stream closed by the
// reaper; a POST to it then gets 404.
func TestIdleExpiry(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(nil, nil), &Options{IdleTimeout: 50 * time.Millisecond, ReapInterval: 10 * time.Millisecond})
	ended := make(chan string, 1)
	h.ended = func(id string) { ended <- id }
	srv := newTestServer(t, h)
	defer srv.close()
	st := srv.open(t, t.Context(), "/sse")
	_, endpoint, _ := st.next()
	// The stream ends (the reaper closed it) without an event.
	if name, data, ok := st.next(); ok {
		t.Fatalf("event %q %q on an idle stream", name, data)
	}
	<-ended
	if code, _ := post(t, srv.URL+endpoint, initBody); code != http.StatusNotFound {
		t.Fatalf("POST to the expired session: %d, want 404", code)
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("SessionCount %d after expiry", n)
	}
}

// A POST to an expired session that the reaper has not yet seen closes it
// and is answered 404.
func TestIdleExpiryOnPost(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := NewHandler(echoServer(nil, nil), &Options{IdleTimeout: time.Nanosecond, ReapInterval: -1})
	ended := make(chan string, 1)
	h.ended = func(id string) { ended <- id }
	srv := newTestServer(t, h)
	defer srv.close()
	st := srv.open(t, t.Context(), "/sse")
	_, endpoint, _ := st.next()
	if code, _ := post(t, srv.URL+endpoint, initBody); code != http.StatusNotFound {
		t.Fatalf("POST to the expired session: %d, want 404", code)
	}
	<-ended
	if _, _, ok := st.next(); ok {
		t.Fatal("the expired stream goes on")
	}
}

// When the client closes its stream, the session ends: a request in
// flight is cancelled, the session is unregistered, and no goroutine is
// left behind.
func TestStreamCloseEndsSession(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started, stopped := make(chan struct{}, 1), make(chan struct{}, 1)
	h := NewHandler(echoServer(started, stopped), &Options{MessagePath: "/messages"})
	ended := make(chan string, 1)
	h.ended = func(id string) { ended <- id }
	srv := newTestServer(t, h)
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	_, endpoint := handshake(t, ctx, srv)
	post(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{"text":""}}}`)
	<-started
	cancel() // the client goes away
	<-stopped
	id := <-ended
	if !strings.HasSuffix(endpoint, id) {
		t.Fatalf("ended %q, not the session of %s", id, endpoint)
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("SessionCount %d after the stream closed", n)
	}
	if code, _ := post(t, endpoint, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusNotFound {
		t.Fatalf("POST after the stream closed: %d, want 404", code)
	}
}

// Host and Origin are checked as by Streamable HTTP: a foreign Origin is
// refused 403 on GET and POST.
func TestDNSRebinding(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), nil))
	defer srv.close()
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(method, srv.URL+"/sse", strings.NewReader(initBody))
		req.Header.Set("Origin", "http://evil.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, 256)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: Origin not allowed: http://evil.example"}}`
		if resp.StatusCode != http.StatusForbidden || string(body[:n]) != want {
			t.Fatalf("%s: %d %s, want 403 %s", method, resp.StatusCode, body[:n], want)
		}
		req, _ = http.NewRequest(method, srv.URL+"/sse", strings.NewReader(initBody))
		req.Host = "evil.example"
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s with Host evil.example: %d, want 403", method, resp.StatusCode)
		}
	}
}

// A body over MaxBodyBytes is answered 413.
func TestBodyLimit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newTestServer(t, NewHandler(echoServer(nil, nil), &Options{MaxBodyBytes: 64}))
	defer srv.close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st := srv.open(t, ctx, "/sse")
	_, endpoint, _ := st.next()
	code, body := post(t, srv.URL+endpoint, initBody)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Payload Too Large: the body exceeds 64 bytes"}}`; code != http.StatusRequestEntityTooLarge || body != want {
		t.Fatalf("%d %s, want 413 %s", code, body, want)
	}
}
