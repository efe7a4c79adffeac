package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

const (
	progressCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p"}}}`
	stepsCall    = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":"s"}}}`
	askCall      = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask"}}`
	blockCall    = `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"block"}}`
)

func progressEvent(token string, n int) string {
	return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + token + `","progress":` + string(rune('0'+n)) + `,"total":3}}`
}

// dataOf returns the data of the events that carry some, in order.
func dataOf(events []event) []string {
	var out []string
	for _, e := range events {
		if e.data != "" {
			out = append(out, e.data)
		}
	}
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A handler's progress and log notifications travel on its request's
// stream, in order, before the response; without an EventStore events
// carry no id.
func TestReplyStreamOrder(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initialize("2025-11-25")
	r := f.post(sid, progressCall)
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", r.status, r.header.Get("Content-Type"))
	}
	equalStrings(t, "events", dataOf(r.events), []string{
		progressEvent("p", 1), progressEvent("p", 2), progressEvent("p", 3),
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"log","level":"info"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"done"}]}}`,
	})
	for _, e := range r.events {
		if e.id != "" || e.comment {
			t.Errorf("event %+v: want no id and no comment without an EventStore", e)
		}
	}
}

// In JSON response mode the body is the response alone.
func TestJSONResponseMode(t *testing.T) {
	f := newFixture(t, &Options{JSONResponse: true})
	sid := f.initialize("2025-11-25")
	r := f.post(sid, progressCall)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", r.status, r.header.Get("Content-Type"))
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"done"}]}}`; r.body != want {
		t.Errorf("body %s, want %s", r.body, want)
	}
	// A server-to-client request cannot be answered: it fails at once.
	r = f.post(sid, askCall)
	var res mcp.CallToolResult
	json.Unmarshal(r.message(t)["result"], &res)
	if !res.IsError {
		t.Errorf("ask in JSON mode: %s", r.body)
	}
}

// getStream opens the GET stream of sid and returns a reader of its events.
func (f *fixture) getStream(ctx context.Context, sid string, h hdrs) (*http.Response, *bufio.Reader) {
	f.t.Helper()
	all := hdrs{"Mcp-Session-Id": sid}
	for k, v := range h {
		all[k] = v
	}
	resp := f.open(ctx, http.MethodGet, all, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		f.t.Fatalf("GET: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp, bufio.NewReader(resp.Body)
}

// next reads the next event that carries data, skipping comments.
func next(t *testing.T, br *bufio.Reader) event {
	t.Helper()
	for {
		e, err := nextEvent(br)
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if !e.comment {
			return e
		}
	}
}

// Messages the server starts outside any request go on the GET stream.
func TestStandaloneStream(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initialize("2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, br := f.getStream(ctx, sid, nil)
	defer resp.Body.Close()
	must(t, f.h.server.AddTool(&mcp.Tool{Name: "late"}, nil))
	if e := next(t, br); e.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}` {
		t.Errorf("GET stream event %+v", e)
	}
}

// A server-to-client request travels on the originating request's stream;
// the client's response POSTed on the same session reaches the waiting
// call, and one POSTed on another session is ignored.
func TestServerToClientRequest(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initialize("2025-11-25")
	other := f.initialize("2025-11-25")
	resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, askCall)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	e := next(t, br)
	if e.data != `{"jsonrpc":"2.0","id":1,"method":"roots/list"}` {
		t.Fatalf("first event %+v", e)
	}
	answer := `{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///x"}]}}`
	if r := f.post(other, answer); r.status != 202 || r.body != "" {
		t.Errorf("answer on another session: %d %q", r.status, r.body)
	}
	if r := f.post(sid, answer); r.status != 202 || r.body != "" {
		t.Errorf("answer: %d %q", r.status, r.body)
	}
	e = next(t, br)
	want := `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"{\"roots\":[{\"uri\":\"file:///x\"}]}"}]}}`
	if e.data != want {
		t.Errorf("result %s\nwant %s", e.data, want)
	}
}

// With an EventStore a 2025-11-25 stream opens with a priming event (id,
// retry, empty data) and every event has an id naming its stream; older
// sessions get ids but no priming event.
func TestPrimingAndEventIDs(t *testing.T) {
	f := newFixture(t, &Options{EventStore: &MemoryEventStore{}})
	sid := f.initialize("2025-11-25")
	r := f.post(sid, progressCall)
	if len(r.events) != 6 {
		t.Fatalf("%d events: %+v", len(r.events), r.events)
	}
	if p := r.events[0]; p.id == "" || p.data != "" || p.retry != "1000" {
		t.Errorf("priming event %+v", p)
	}
	stream, _, _ := strings.Cut(r.events[0].id, "-")
	for i, e := range r.events {
		if s, _, _ := strings.Cut(e.id, "-"); s != stream || e.id == "" {
			t.Errorf("event %d id %q: want one of stream %s", i, e.id, stream)
		}
	}
	old := f.initialize("2025-06-18")
	r = f.post(old, progressCall)
	if len(r.events) != 5 || r.events[0].data == "" || r.events[0].id == "" {
		t.Errorf("2025-06-18 events: %+v", r.events)
	}
}

// A client that disconnects mid-stream does not cancel the handler; a GET
// with Last-Event-ID gets exactly the events it missed and then the rest
// of the stream, which ends with the response.
func TestResumePOSTStream(t *testing.T) {
	f := newFixture(t, &Options{EventStore: &MemoryEventStore{}})
	sid, prime := checkResumedPOSTStream(t, f)

	// The stream has ended: resuming from its priming event replays it all.
	r := f.do(http.MethodGet, hdrs{"Mcp-Session-Id": sid, "Last-Event-ID": prime.id}, "")
	if r.status != 200 || len(dataOf(r.events)) != 4 {
		t.Errorf("replay of an ended stream: %d %+v", r.status, r.events)
	}
	r = f.do(http.MethodGet, hdrs{"Mcp-Session-Id": sid, "Last-Event-ID": "77-1"}, "")
	checkRefusal(t, r, 400, -32000, `Bad Request: Last-Event-ID "77-1" names no stored event of this session`)
	r = f.do(http.MethodGet, hdrs{"Mcp-Session-Id": sid, "Last-Event-ID": "garbage"}, "")
	checkRefusal(t, r, 400, -32000, "Bad Request: malformed Last-Event-ID")
	// Another session cannot read this one's events.
	r = f.do(http.MethodGet, hdrs{"Mcp-Session-Id": f.initialize("2025-11-25"), "Last-Event-ID": prime.id}, "")
	checkRefusal(t, r, 400, -32000, `Bad Request: Last-Event-ID "`+prime.id+`" names no stored event of this session`)
}

// dropBlockedPOST calls the "block" tool on session sid and, once it
// runs, drops the POST's connection, then waits for the stream to let go
// of it (detached, from the Handler's onDetach): the handler goes on, its
// context not cancelled (disconnection is not cancellation).
func dropBlockedPOST(t *testing.T, f *fixture, sid string, detached <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp := f.open(ctx, http.MethodPost, hdrs{"Mcp-Session-Id": sid}, blockCall)
	hctx := <-f.tools.started
	cancel()
	resp.Body.Close()
	<-detached
	if hctx.Err() != nil {
		t.Fatalf("disconnection cancelled the handler: %v", hctx.Err())
	}
}

// checkResumedPOSTStream runs the "steps" tool on a new session of f
// (whose Handler has an EventStore), drops the POST's stream after the
// first step, lets the second happen while no one listens, and resumes
// with Last-Event-ID on a GET: the second step is replayed, and the third
// and the response follow live; the handler's context never ended. It
// returns the session and the stream's priming event.
func checkResumedPOSTStream(t *testing.T, f *fixture) (sid string, prime event) {
	t.Helper()
	detached := make(chan struct{}, 1)
	f.h.onDetach = func() { detached <- struct{}{} }
	sid = f.initialize("2025-11-25")

	ctx, cancel := context.WithCancel(context.Background())
	resp := f.open(ctx, http.MethodPost, hdrs{"Mcp-Session-Id": sid}, stepsCall)
	br := bufio.NewReader(resp.Body)
	prime = next(t, br)
	first := next(t, br)
	if prime.data != "" || first.data != progressEvent("s", 1) || first.id == "" {
		t.Fatalf("events %+v %+v", prime, first)
	}
	<-f.tools.stepped
	cancel()
	resp.Body.Close()
	<-detached

	f.tools.steps <- struct{}{} // step 2 happens while no one listens
	<-f.tools.stepped

	resp2, br2 := f.getStream(context.Background(), sid, hdrs{"Last-Event-ID": first.id})
	defer resp2.Body.Close()
	if e := next(t, br2); e.data != progressEvent("s", 2) {
		t.Errorf("replayed %+v", e)
	}
	f.tools.steps <- struct{}{} // step 3 goes live on the resumed stream
	if err := <-f.tools.ended; err != nil {
		t.Errorf("the handler's context ended: %v", err)
	}
	rest := parseEvents(t, br2)
	equalStrings(t, "rest of the stream", dataOf(rest), []string{
		progressEvent("s", 3),
		`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"stepped"}]}}`,
	})
	return sid, prime
}

// Messages sent while the GET stream is disconnected are kept and
// replayed when the client resumes it.
func TestResumeStandaloneStream(t *testing.T) {
	f := newFixture(t, &Options{EventStore: &MemoryEventStore{}})
	detached := make(chan struct{}, 1)
	f.h.onDetach = func() { detached <- struct{}{} }
	sid := f.initialize("2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	resp, br := f.getStream(ctx, sid, nil)
	prime := next(t, br)
	if prime.id != "0-1" || prime.data != "" {
		t.Fatalf("priming event %+v", prime)
	}
	cancel()
	resp.Body.Close()
	<-detached
	must(t, f.h.server.AddTool(&mcp.Tool{Name: "late"}, nil))
	resp2, br2 := f.getStream(context.Background(), sid, hdrs{"Last-Event-ID": prime.id})
	defer resp2.Body.Close()
	if e := next(t, br2); e.id != "0-2" || e.data != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}` {
		t.Errorf("replayed %+v", e)
	}
	// The resumed stream is the session's GET stream: a second is refused.
	r := f.do(http.MethodGet, hdrs{"Mcp-Session-Id": sid}, "")
	checkRefusal(t, r, 409, -32000, "Conflict: only one GET stream may be open on a session")
}

func checkRefusal(t *testing.T, r *reply, status int, code int64, message string) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d (%s)", r.status, status, r.body)
		return
	}
	var e rpcError
	json.Unmarshal(r.message(t)["error"], &e)
	if e.Code != code || e.Message != message {
		t.Errorf("error %d %q, want %d %q", e.Code, e.Message, code, message)
	}
}

// An idle SSE stream gets keep-alive comments.
func TestKeepAlive(t *testing.T) {
	f := newFixture(t, &Options{KeepAlive: 1})
	sid := f.initialize("2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, br := f.getStream(ctx, sid, nil)
	defer resp.Body.Close()
	line, err := br.ReadString('\n')
	if err != nil || line != ": keep-alive\n" {
		t.Errorf("first line %q, %v", line, err)
	}
}

// In stateless mode a request's notifications reach its stream, a
// server-to-client request fails at once, and no session is kept.
func TestSessionlessStreams(t *testing.T) {
	f := newFixture(t, &Options{Stateless: true})
	r := f.post("", progressCall)
	if len(dataOf(r.events)) != 5 || r.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("progress: %+v", r.events)
	}
	r = f.post("", askCall)
	var res mcp.CallToolResult
	json.Unmarshal(r.message(t)["result"], &res)
	if !res.IsError {
		t.Errorf("ask: %s", r.body)
	}
	if n := len(f.h.server.Sessions()); n != 0 || f.h.SessionCount() != 0 {
		t.Errorf("%d sessions kept", n)
	}
}

// A disconnected client's handler keeps running, and its context ends
// when the session does; nothing is left behind once the session ends.
func TestSessionEndLeaksNothing(t *testing.T) {
	f := newFixture(t, nil)
	detached := make(chan struct{}, 1)
	f.h.onDetach = func() { detached <- struct{}{} }
	sid := f.initialize("2025-11-25")
	before := goleak.IgnoreCurrent()

	dropBlockedPOST(t, f, sid, detached)
	get, br := f.getStream(context.Background(), sid, nil)
	defer get.Body.Close()

	if r := f.do(http.MethodDelete, hdrs{"Mcp-Session-Id": sid}, ""); r.status != 204 {
		t.Fatalf("DELETE: %d", r.status)
	}
	if err := <-f.tools.ended; err != context.Canceled {
		t.Errorf("the handler's context after DELETE: %v", err)
	}
	if _, err := nextEvent(br); err == nil {
		t.Errorf("the GET stream goes on after DELETE")
	}
	get.Body.Close()
	f.srv.Client().CloseIdleConnections()
	goleak.VerifyNone(t, before)
}

// Close ends every session, cancels handlers in flight, ends open streams
// and stops the reaper.
func TestCloseLeaksNothing(t *testing.T) {
	s, tl := newTestServer(t)
	h := NewHandler(s, &Options{EventStore: &MemoryEventStore{}, ReapInterval: 1})
	srv := newLoopbackServer(t, h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL, tools: tl, clock: newFakeClock()}
	sid := f.initialize("2025-11-25")
	f.initialize("2025-06-18")
	get, _ := f.getStream(context.Background(), sid, nil)
	defer get.Body.Close()
	post := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, blockCall)
	defer post.Body.Close()
	<-tl.started

	h.Close()
	if err := <-tl.ended; err != context.Canceled {
		t.Errorf("handler context after Close: %v", err)
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after Close", n)
	}
	r := f.post("", initBody)
	checkRefusal(t, r, 503, -32603, "Service unavailable: the handler is closed")
	get.Body.Close()
	post.Body.Close()
	srv.Close()
	goleak.VerifyNone(t)
}

// A handler may close its stream's connection (mcp.RequestExtra.CloseStream):
// the client polls with GET and Last-Event-ID and gets the response there.
func TestServerClosesConnection(t *testing.T) {
	f := newFixture(t, &Options{EventStore: &MemoryEventStore{}, RetryInterval: 5 * time.Second})
	sid := f.initialize("2025-11-25")
	r := f.post(sid, `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"reconnect"}}`)
	<-f.tools.started
	if len(r.events) != 1 || r.events[0].data != "" || r.events[0].retry != "5000" {
		t.Fatalf("before the close: %+v", r.events)
	}
	resp, br := f.getStream(context.Background(), sid, hdrs{"Last-Event-ID": r.events[0].id})
	defer resp.Body.Close()
	close(f.tools.gate)
	equalStrings(t, "resumed", dataOf(parseEvents(t, br)), []string{
		`{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"reconnected"}]}}`,
	})
	// Without an EventStore the connection cannot be closed early.
	f2 := newFixture(t, nil)
	r = f2.post(f2.initialize("2025-11-25"), `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"reconnect"}}`)
	if !strings.Contains(r.body, `"isError":true`) {
		t.Errorf("without a store: %s", r.body)
	}
}

// A request cancelled with notifications/cancelled gets no response: its
// SSE stream ends without one, and in JSON mode the POST is answered 202.
func TestCancelledRequest(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		f := newFixture(t, &Options{JSONResponse: jsonMode})
		sid := f.initialize("2025-11-25")
		done := make(chan *reply, 1)
		go func() { done <- f.post(sid, blockCall) }()
		<-f.tools.started
		if r := f.post(sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`); r.status != 202 {
			t.Fatalf("cancel: %d", r.status)
		}
		if err := <-f.tools.ended; err != context.Canceled {
			t.Errorf("handler context: %v", err)
		}
		r := <-done
		switch {
		case jsonMode && (r.status != 202 || r.body != ""):
			t.Errorf("JSON mode: %d %q", r.status, r.body)
		case !jsonMode && (r.status != 200 || len(dataOf(r.events)) != 0):
			t.Errorf("SSE: %d %+v", r.status, r.events)
		}
	}
}

// A quick reply with nothing before its response is sent whole when the
// handler returns: net/http then knows its length (one write, no chunks).
func TestQuickReplyInOneWrite(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initialize("2025-11-25")
	resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid},
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	r := f.read(resp)
	want := "event: message\ndata: " + `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}` + "\n\n"
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || r.body != want {
		t.Fatalf("status %d, Content-Type %q, body %q", r.status, r.header.Get("Content-Type"), r.body)
	}
	if resp.ContentLength != int64(len(want)) || len(resp.TransferEncoding) != 0 {
		t.Errorf("Content-Length %d, Transfer-Encoding %v: want the reply sent whole", resp.ContentLength, resp.TransferEncoding)
	}
	if r.header.Get("Cache-Control") != "no-cache" || r.header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("headers %v", r.header)
	}
}

// A handler that runs on without sending anything still opens its stream
// soon, and a quiet stream gets keep-alives.
func TestSlowReplyOpensAndKeepsAlive(t *testing.T) {
	f := newFixture(t, &Options{KeepAlive: time.Millisecond})
	sid := f.initialize("2025-11-25")
	resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, blockCall)
	defer resp.Body.Close()
	<-f.tools.started
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if len(f.tools.ended) != 0 {
		t.Fatal("the handler ended before its stream opened")
	}
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != ": keep-alive\n" {
		t.Errorf("first line %q, %v", line, err)
	}
	f.tools.gate <- struct{}{}
	<-f.tools.ended
	equalStrings(t, "rest", dataOf(parseEvents(t, br)), []string{
		`{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"unblocked"}]}}`,
	})
}

// Slow replies opened one after another each get their headers once they
// have been quiet for the delay (the Handler's inlineWatch serves them all
// with one timer), while a quick reply between them is still sent whole.
func TestSlowRepliesOpenWhileQuickOnesGoWhole(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initialize("2025-11-25")
	slow := func(id int) *http.Response {
		body := strings.Replace(blockCall, `"id":10`, `"id":`+strconv.Itoa(id), 1)
		// f.open returns once the headers are in: only a tick sends them.
		resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid}, body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.ContentLength != -1 {
			t.Fatalf("slow reply %d: status %d, Content-Type %q, Content-Length %d", id, resp.StatusCode, resp.Header.Get("Content-Type"), resp.ContentLength)
		}
		<-f.tools.started
		return resp
	}
	a := slow(21)
	defer a.Body.Close()
	quick := f.read(f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid},
		`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
	if want := "event: message\ndata: " + `{"jsonrpc":"2.0","id":22,"result":{"content":[{"type":"text","text":"hi"}]}}` + "\n\n"; quick.status != 200 || quick.body != want {
		t.Fatalf("quick reply: status %d, body %q", quick.status, quick.body)
	}
	b := slow(23)
	defer b.Body.Close()
	for range 2 {
		f.tools.gate <- struct{}{}
		<-f.tools.ended
	}
	for _, resp := range []*http.Response{a, b} {
		got := dataOf(parseEvents(t, bufio.NewReader(resp.Body)))
		if len(got) != 1 || !strings.Contains(got[0], `"text":"unblocked"`) {
			t.Errorf("slow reply events %q", got)
		}
	}
}

// A JSON-mode reply states its length, short or long: net/http works out
// a short one itself, writeJSON a long one, so neither goes chunked.
func TestJSONReplyHasLength(t *testing.T) {
	f := newFixture(t, &Options{JSONResponse: true})
	sid := f.initialize("2025-11-25")
	for _, n := range []int{2, 5000} {
		text := strings.Repeat("a", n)
		resp := f.open(context.Background(), http.MethodPost, hdrs{"Mcp-Session-Id": sid},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"}}}`)
		r := f.read(resp)
		want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
		if r.status != 200 || r.header.Get("Content-Type") != "application/json" || r.body != want {
			t.Fatalf("text of %d bytes: status %d, Content-Type %q, body %.80q", n, r.status, r.header.Get("Content-Type"), r.body)
		}
		if resp.ContentLength != int64(len(want)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("text of %d bytes: Content-Length %d, Transfer-Encoding %v; want %d and none", n, resp.ContentLength, resp.TransferEncoding, len(want))
		}
	}
}
