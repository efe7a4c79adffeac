package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// The same Handler served over HTTP/1.1, HTTP/2 over TLS and h2c
// (unencrypted HTTP/2), with the flows of both eras run on each: the
// answers must not depend on the HTTP version.

// wireProtos are the ways a Handler is served in these tests.
var wireProtos = []string{"http1", "h2", "h2c"}

// protoCheck is a client RoundTripper that fails the test when a response
// comes over another HTTP version than the one the fixture serves.
type protoCheck struct {
	t     *testing.T
	rt    http.RoundTripper
	major int
}

func (p protoCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.rt.RoundTrip(req)
	if err == nil && resp.ProtoMajor != p.major {
		p.t.Errorf("%s %s served over %s, want HTTP/%d", req.Method, req.URL, resp.Proto, p.major)
	}
	return resp, err
}

func (p protoCheck) CloseIdleConnections() {
	if c, ok := p.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// serveProto starts h on 127.0.0.1 over proto (one of wireProtos); the
// server's Client speaks that protocol and nothing else.
func serveProto(t *testing.T, proto string, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	major := 2
	switch proto {
	case "http1":
		major = 1
		srv.Start()
	case "h2":
		srv.EnableHTTP2 = true
		srv.StartTLS()
	case "h2c":
		var p http.Protocols
		p.SetHTTP1(true)
		p.SetUnencryptedHTTP2(true)
		srv.Config.Protocols = &p
		srv.Start()
		var cp http.Protocols
		cp.SetUnencryptedHTTP2(true)
		srv.Client().Transport.(*http.Transport).Protocols = &cp
	default:
		t.Fatalf("unknown protocol %q", proto)
	}
	c := srv.Client()
	c.Transport = protoCheck{t: t, rt: c.Transport, major: major}
	return srv
}

// served counts the requests in the handler and signals each return.
type served struct {
	h        http.Handler
	inflight atomic.Int64
	returned chan struct{}
}

func (s *served) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer func() {
		s.inflight.Add(-1)
		select {
		case s.returned <- struct{}{}:
		default:
		}
	}()
	s.h.ServeHTTP(w, r)
}

// waitIdle waits until no request is in the handler.
func (s *served) waitIdle() { s.waitAtMost(0) }

// waitAtMost waits until at most n requests are in the handler.
func (s *served) waitAtMost(n int64) {
	for s.inflight.Load() > n {
		<-s.returned
	}
}

// newProtoFixture is newFixture served over proto. Its caller checks for
// leaks and calls stop.
func newProtoFixture(t *testing.T, proto string, opts *Options) (*fixture, *served) {
	t.Helper()
	s, tl := newTestServer(t)
	h := NewHandler(s, opts)
	clock := newFakeClock()
	h.reg.now = clock.now
	sv := &served{h: h, returned: make(chan struct{}, 1)}
	srv := serveProto(t, proto, sv)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: clock, tools: tl}
	return f, sv
}

// forEachProto runs test once per wireProtos, each with its leak check
// and a fixture stopped before it.
func forEachProto(t *testing.T, opts func() *Options, test func(t *testing.T, f *fixture, sv *served)) {
	for _, proto := range wireProtos {
		t.Run(proto, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			var o *Options
			if opts != nil {
				o = opts()
			}
			f, sv := newProtoFixture(t, proto, o)
			defer f.stop()
			test(t, f, sv)
		})
	}
}

// The session era over each HTTP version: initialize with an SSE and a
// JSON reply, notifications/initialized, a tool call streaming progress,
// list_changed on the GET stream, a duplicate initialize, malformed
// bodies, DELETE and the 404 afterwards.
func TestProtoSessionFlows(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		name := "sse"
		if jsonMode {
			name = "json"
		}
		t.Run(name, func(t *testing.T) {
			forEachProto(t, func() *Options { return &Options{JSONResponse: jsonMode} }, func(t *testing.T, f *fixture, sv *served) {
				wantCT := "text/event-stream"
				if jsonMode {
					wantCT = "application/json"
				}
				r := f.post("", initBody)
				sid := r.header.Get("Mcp-Session-Id")
				if r.status != http.StatusOK || r.header.Get("Content-Type") != wantCT || !validSessionID(sid) {
					t.Fatalf("initialize: %d %q session %q: %s", r.status, r.header.Get("Content-Type"), sid, r.body)
				}
				var res struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				json.Unmarshal(r.message(t)["result"], &res)
				if res.ProtocolVersion != "2025-11-25" {
					t.Errorf("protocolVersion %q", res.ProtocolVersion)
				}
				if r := f.post(sid, initializedN); r.status != http.StatusAccepted || r.body != "" {
					t.Fatalf("notifications/initialized: %d %q", r.status, r.body)
				}

				// A tool call: progress and log on the POST's stream, or
				// the result alone as JSON.
				r = f.post(sid, progressCall)
				result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"done"}]}}`
				if r.status != http.StatusOK || r.header.Get("Content-Type") != wantCT {
					t.Fatalf("tools/call: %d %q", r.status, r.header.Get("Content-Type"))
				}
				if jsonMode {
					if r.body != result {
						t.Errorf("tools/call body %s, want %s", r.body, result)
					}
				} else {
					equalStrings(t, "tools/call events", dataOf(r.events), []string{
						progressEvent("p", 1), progressEvent("p", 2), progressEvent("p", 3),
						`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"log","level":"info"}}`,
						result,
					})
				}

				// The GET stream gets list_changed.
				ctx, cancel := context.WithCancel(context.Background())
				get, br := f.getStream(ctx, sid, nil)
				must(t, mcp.AddTool(f.h.server, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil }))
				if e := next(t, br); e.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}` {
					t.Errorf("GET stream event %+v", e)
				}
				if got := f.h.Stats(); got != (Stats{Sessions: 1, Streams: 1}) {
					t.Errorf("Stats with the GET stream = %+v", got)
				}

				// A second initialize on the session changes nothing.
				again := strings.Replace(initBodyVersion("2025-06-18"), `"id":1`, `"id":"again"`, 1)
				r = f.do(http.MethodPost, hdrs{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}, again)
				checkRPCError(t, r, 400, `{"jsonrpc":"2.0","id":"again","error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: Server already initialized"}}`)
				st := f.sessionState(t, sid)
				if st.ProtocolVersion != "2025-11-25" || st.Lifecycle != "ready" {
					t.Errorf("session after the second initialize: %+v", st)
				}

				// Malformed bodies.
				r = f.post(sid, `{"jsonrpc":"1.0","id":3,"method":"ping"}`)
				checkRPCError(t, r, 400, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: jsonrpc must be \"2.0\""}}`)
				r = f.post(sid, `{"jsonrpc":`)
				checkRPCError(t, r, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
				if n := f.h.SessionCount(); n != 1 {
					t.Errorf("%d sessions, want 1", n)
				}

				// DELETE ends the session and its GET stream.
				if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sid}, ""); r.status != http.StatusNoContent {
					t.Fatalf("DELETE: %d %s", r.status, r.body)
				}
				if _, err := io.Copy(io.Discard, get.Body); err != nil {
					t.Errorf("the GET stream after DELETE: %v", err)
				}
				get.Body.Close()
				cancel()
				r = f.post(sid, pingBody)
				checkRPCError(t, r, 404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Session not found"}}`)
				sv.waitIdle()
				if got := f.h.Stats(); got != (Stats{}) {
					t.Errorf("Stats after DELETE = %+v, want zero", got)
				}
			})
		})
	}
}

// checkRPCError checks a refusal's status, Content-Type and exact body.
func checkRPCError(t *testing.T, r *reply, status int, body string) {
	t.Helper()
	if r.status != status || r.header.Get("Content-Type") != "application/json" || strings.TrimSpace(r.body) != body {
		t.Errorf("reply %d %q %s, want %d application/json %s", r.status, r.header.Get("Content-Type"), r.body, status, body)
	}
}

// A client that drops a POST stream midway and resumes it with
// Last-Event-ID on a GET gets exactly the events it missed, then the rest,
// over each HTTP version.
func TestProtoResume(t *testing.T) {
	forEachProto(t, func() *Options { return &Options{EventStore: &MemoryEventStore{}} }, func(t *testing.T, f *fixture, sv *served) {
		checkResumedPOSTStream(t, f)
		sv.waitIdle()
		if got := f.h.Stats(); got != (Stats{Sessions: 1}) {
			t.Errorf("Stats = %+v, want one session and no stream", got)
		}
	})
}

// The stateless era over each HTTP version: a tools/call with its _meta
// and headers is answered, and no session is made.
func TestProtoStateless(t *testing.T) {
	forEachProto(t, nil, func(t *testing.T, f *fixture, sv *served) {
		body := mbody("6", "tools/call", `{"name":"echo","arguments":{"text":"over the wire"}}`)
		r := mpost(nil, body)(f)
		want := `{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1"}},"content":[{"type":"text","text":"over the wire"}]}}`
		if r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") != "" || r.header.Get("Content-Type") != "text/event-stream" || lastMessage(r) != want {
			t.Errorf("reply %d %v %s, want 200 without a session and %s", r.status, r.header, r.body, want)
		}
		sv.waitIdle()
		if got := f.h.Stats(); got != (Stats{}) {
			t.Errorf("Stats = %+v, want zero", got)
		}
	})
}

// lastMessage is the body of a JSON reply, or the data of the last event
// of an SSE reply.
func lastMessage(r *reply) string {
	if r.events == nil {
		return strings.TrimSpace(r.body)
	}
	d := dataOf(r.events)
	if len(d) == 0 {
		return ""
	}
	return d[len(d)-1]
}

// A client that goes away mid-stream, over each HTTP version: a dropped
// POST stream lets go of its handler without cancelling it (its stream is
// counted until the handler ends), a dropped GET stream ends; DELETE then ends the
// handler. In the stateless era the client's going away cancels the
// handler.
func TestProtoClientGoesAway(t *testing.T) {
	forEachProto(t, nil, func(t *testing.T, f *fixture, sv *served) {
		detached := make(chan struct{}, 1)
		var detaches atomic.Int64
		f.h.onDetach = func() {
			if detaches.Add(1) == 1 {
				detached <- struct{}{}
			}
		}
		sid := f.initialize("2025-11-25")

		dropBlockedPOST(t, f, sid, detached)
		gctx, gcancel := context.WithCancel(context.Background())
		get, _ := f.getStream(gctx, sid, nil)
		gcancel()
		get.Body.Close()
		// The detached POST's ServeHTTP waits for its handler; the GET's
		// returns.
		sv.waitAtMost(1)
		if n := detaches.Load(); n != 2 {
			t.Errorf("%d streams let go of, want 2 (the POST's and the GET's)", n)
		}
		if got := f.h.Stats(); got != (Stats{Sessions: 1, Streams: 1}) {
			t.Errorf("Stats after the client went away = %+v, want one session and the detached POST's stream", got)
		}
		if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sid}, ""); r.status != http.StatusNoContent {
			t.Fatalf("DELETE: %d", r.status)
		}
		if err := <-f.tools.ended; err != context.Canceled {
			t.Errorf("the handler's context after DELETE: %v", err)
		}

		// The stateless era: the request's end is the handler's.
		body := mbody("11", "tools/call", `{"name":"block"}`)
		ctx, cancel := context.WithCancel(context.Background())
		resp := f.open(ctx, http.MethodPost, statelessHeaders(body), body)
		<-f.tools.started
		cancel()
		resp.Body.Close()
		if err := <-f.tools.ended; err != context.Canceled {
			t.Errorf("the stateless handler's context after the client went away: %v", err)
		}
		f.h.reg.wg.Wait()
		sv.waitIdle()
		if got := f.h.Stats(); got != (Stats{}) {
			t.Errorf("Stats at the end = %+v, want zero", got)
		}
	})
}

// A POST body that stalls is answered 408 once BodyReadTimeout passes, a
// body over MaxBodyBytes 413 (announced or found while reading), over
// each HTTP version; over HTTP/1 the stalled body's connection is closed.
// Nothing is left behind: the client's body writer is let go.
func TestProtoBodyBounds(t *testing.T) {
	forEachProto(t, func() *Options { return &Options{BodyReadTimeout: 20 * time.Millisecond, MaxBodyBytes: 200} }, func(t *testing.T, f *fixture, sv *served) {
		for _, announce := range []bool{true, false} {
			pr, pw := io.Pipe()
			req, _ := http.NewRequest(http.MethodPost, f.url, pr)
			if announce {
				req.ContentLength = 90
			}
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			wrote := make(chan error, 1)
			go func() {
				_, err := io.WriteString(pw, `{"jsonrpc"`)
				if err == nil {
					// The rest never comes: the write blocks until the
					// transport lets go of the body.
					_, err = io.WriteString(pw, strings.Repeat(" ", 10))
				}
				wrote <- err
			}()
			resp, err := f.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r := f.read(resp)
			checkRPCError(t, r, http.StatusRequestTimeout, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Request Timeout: the body was not received within 20ms"}}`)
			if resp.ProtoMajor == 1 && !resp.Close {
				t.Errorf("HTTP/1: the connection of a stalled body is kept")
			}
			pw.CloseWithError(io.ErrClosedPipe)
			<-wrote
		}

		// Announced too large: refused before reading.
		big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("x", 200) + `"}}}`
		r := f.post("", big)
		checkRPCError(t, r, http.StatusRequestEntityTooLarge, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Payload Too Large: the body exceeds 200 bytes"}}`)
		// Too large, found while reading a body of unknown length.
		r = f.chunked(big)
		checkRPCError(t, r, http.StatusRequestEntityTooLarge, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Payload Too Large: the body exceeds 200 bytes"}}`)
		// A body within the bound is served, with or without a length.
		if r := f.post("", initBody); r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") == "" {
			t.Errorf("initialize: %d %s", r.status, r.body)
		}
		if r := f.chunked(initBody); r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") == "" {
			t.Errorf("chunked initialize: %d %s", r.status, r.body)
		}
		sv.waitIdle()
		if got := f.h.Stats(); got != (Stats{Sessions: 2}) {
			t.Errorf("Stats = %+v, want zero", got)
		}
	})
}

// The client transport over each HTTP version, in both eras, against the
// Handler: connect, call a tool, get a list_changed from the server (on
// the GET stream in the session era, on a subscription in the stateless
// era), close; nothing is left on either side.
func TestProtoClientTransport(t *testing.T) {
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		name := "session"
		if era == mcp.EraStateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			forEachProto(t, nil, func(t *testing.T, f *fixture, sv *served) {
				changed := make(chan struct{}, 4)
				c := mcp.NewClient(mcp.Implementation{Name: "h2-client", Version: "1"}, &mcp.ClientOptions{
					ProtocolEra:            era,
					ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} },
				})
				ctx := context.Background()
				cs, err := c.Connect(ctx, &ClientTransport{URL: f.url, HTTPClient: f.srv.Client()})
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				if cs.Stateless() != (era == mcp.EraStateless) {
					t.Fatalf("Stateless() = %v in era %v", cs.Stateless(), era)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
				if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi" {
					t.Fatalf("CallTool(echo) = %+v, %v", res, err)
				}
				// A call the client cancels ends the server's handler
				// (notifications/cancelled in the session era, the
				// stream's reset or close in the stateless era).
				cctx, ccancel := context.WithCancel(ctx)
				called := make(chan error, 1)
				go func() {
					_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "block"})
					called <- err
				}()
				<-f.tools.started
				ccancel()
				if err := <-f.tools.ended; err != context.Canceled {
					t.Errorf("the cancelled call's handler ended with %v", err)
				}
				if err := <-called; !errors.Is(err, context.Canceled) {
					t.Errorf("the cancelled CallTool = %v", err)
				}
				var sub *mcp.Subscription
				if era == mcp.EraStateless {
					if sub, err = cs.Listen(ctx, &mcp.SubscriptionFilter{ToolsListChanged: true}); err != nil {
						t.Fatalf("Listen: %v", err)
					}
				}
				must(t, mcp.AddTool(f.h.server, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil }))
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					t.Fatal("no tools/list_changed reached the client")
				}
				if sub != nil {
					if err := sub.Close(); err != nil {
						t.Errorf("Subscription.Close: %v", err)
					}
				}
				if err := cs.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				sv.waitIdle()
				if got := f.h.Stats(); got != (Stats{}) {
					t.Errorf("Stats after Close = %+v, want zero", got)
				}
				f.srv.Client().CloseIdleConnections()
			})
		})
	}
}

// A client that never reads its GET stream, over each HTTP version (over
// HTTP/2 its stream's flow-control window fills, not the socket): once its
// queue passes MaxStreamQueueBytes the stream is closed, another stream
// on the same connection goes on, and the session lives on.
func TestProtoSlowReader(t *testing.T) {
	var closed *signalHandler
	forEachProto(t, func() *Options {
		closed = &signalHandler{prefix: "mcphttp: closing a stream its client does not read", ch: make(chan string, 1)}
		return &Options{MaxStreamQueueBytes: 64 << 10, KeepAlive: -1, Logger: slog.New(closed)}
	}, func(t *testing.T, f *fixture, sv *served) {
		slow := f.initialize("2025-11-25")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sresp := f.open(ctx, http.MethodGet, hdrs{"Mcp-Session-Id": slow}, "")
		defer sresp.Body.Close()
		good := f.initialize("2025-11-25")
		gresp, gbr := f.getStream(ctx, good, nil)
		defer gresp.Body.Close()

		checkStalledStreamClosed(t, f, slow, closed, gbr, sresp.Body)
		cancel()
		gresp.Body.Close()
		sv.waitIdle()
		if got := f.h.Stats(); got != (Stats{Sessions: 2}) {
			t.Errorf("Stats = %+v, want two sessions and no stream", got)
		}
	})
}

// Handler.Shutdown alongside http.Server.Shutdown, over each HTTP version:
// the GET stream ends cleanly, new work is refused with 503, the call in
// flight finishes with its result, and both Shutdowns return nil (over
// HTTP/2 the server's GOAWAY waits for the handler's streams to end).
func TestProtoShutdown(t *testing.T) {
	forEachProto(t, nil, func(t *testing.T, f *fixture, sv *served) {
		sid := f.initialize("2025-11-25")
		get, _ := f.getStream(context.Background(), sid, nil)
		defer get.Body.Close()
		call := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, blockCall)
		<-f.tools.started
		hdone := make(chan error, 1)
		go func() { hdone <- f.h.Shutdown(context.Background()) }()
		if _, err := io.Copy(io.Discard, get.Body); err != nil {
			t.Errorf("GET stream: %v", err)
		}
		r := f.post("", initBody)
		checkRPCError(t, r, http.StatusServiceUnavailable, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Service unavailable: the handler is closed"}}`)
		sdone := make(chan error, 1)
		go func() { sdone <- f.srv.Config.Shutdown(context.Background()) }()
		close(f.tools.gate)
		reply := f.read(call)
		if got := lastMessage(reply); got != `{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"unblocked"}]}}` {
			t.Errorf("call reply %d %s", reply.status, reply.body)
		}
		if err := <-hdone; err != nil {
			t.Errorf("Handler.Shutdown = %v, want nil", err)
		}
		if err := <-sdone; err != nil {
			t.Errorf("http.Server.Shutdown = %v, want nil", err)
		}
		if got := f.h.Stats(); got != (Stats{}) {
			t.Errorf("Stats after Shutdown = %+v, want zero", got)
		}
	})
}

// A POST's reply stream quiet between events while its handler works,
// over each HTTP version: over HTTP/2 each write's deadline is cleared once
// the write is done (a deadline left armed resets a quiet stream), over
// HTTP/1 it stays armed and is never cleared.
func TestProtoPOSTStreamDeadlines(t *testing.T) {
	for _, proto := range wireProtos {
		t.Run(proto, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			s, tl := newTestServer(t)
			h := NewHandler(s, &Options{WriteTimeout: time.Hour, KeepAlive: -1})
			rec := &setDeadlines{cleared: make(chan struct{}, 16)}
			srv := serveProto(t, proto, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Record") != "" {
					w = &deadlineWrapper{ResponseWriter: w, rec: rec}
				}
				h.ServeHTTP(w, r)
			}))
			f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: newFakeClock(), tools: tl}
			defer f.stop()
			sid := f.initialize("2025-11-25")
			resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid, "X-Record": "1"}, stepsCall)
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			h2 := proto != "http1"
			for step := 1; step <= 2; step++ {
				if step > 1 {
					tl.steps <- struct{}{}
				}
				if e := next(t, br); e.data != progressEvent("s", step) {
					t.Fatalf("event %+v, want progress %d", e, step)
				}
				<-tl.stepped
				calls := rec.calls()
				if h2 {
					calls = rec.settled(t)
				}
				if len(calls) == 0 {
					t.Fatalf("step %d: no write deadline set", step)
				}
				for i, d := range calls {
					if want := h2 && i%2 == 1; d.IsZero() != want {
						t.Fatalf("step %d: write deadlines %v, want each set then cleared over HTTP/2, never cleared over HTTP/1", step, calls)
					}
				}
			}
			tl.steps <- struct{}{}
			<-tl.stepped
			if err := <-tl.ended; err != nil {
				t.Errorf("the handler's context ended: %v", err)
			}
			equalStrings(t, "the rest", dataOf(parseEvents(t, br)), []string{
				progressEvent("s", 3),
				`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"stepped"}]}}`,
			})
		})
	}
}
