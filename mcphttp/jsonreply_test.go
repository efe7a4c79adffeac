package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// recordingEvents is a MemoryEventStore that records every write: one
// line per call, so one per round trip of a networked store.
type recordingEvents struct {
	*MemoryEventStore
	batch bool // whether AppendBatch is offered (see batchless)
	mu    sync.Mutex
	calls []string
}

func (s *recordingEvents) record(line string) {
	s.mu.Lock()
	s.calls = append(s.calls, line)
	s.mu.Unlock()
}

func (s *recordingEvents) taken() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.calls
	s.calls = nil
	return out
}

func (s *recordingEvents) Append(ctx context.Context, session, stream, id string, data []byte) error {
	s.record(fmt.Sprintf("append %s %q", kindOf(stream), data))
	return s.MemoryEventStore.Append(ctx, session, stream, id, data)
}

func (s *recordingEvents) AppendBatch(ctx context.Context, session, stream string, events []StoredEvent) error {
	if !s.batch {
		panic("AppendBatch called on a store that does not offer it")
	}
	parts := make([]string, len(events))
	for i, ev := range events {
		parts[i] = fmt.Sprintf("%q", ev.Data)
	}
	s.record(fmt.Sprintf("batch %s %s", kindOf(stream), strings.Join(parts, " ")))
	return s.MemoryEventStore.AppendBatch(ctx, session, stream, events)
}

// kindOf names a stream by its kind: its number is random.
func kindOf(stream string) string {
	if stream == "0" {
		return "get"
	}
	return "post"
}

// batchless hides AppendBatch: the Handler then appends one event at a
// time.
type batchless struct{ ev *recordingEvents }

func (b batchless) Append(ctx context.Context, session, stream, id string, data []byte) error {
	return b.ev.Append(ctx, session, stream, id, data)
}

func (b batchless) Replay(ctx context.Context, session, stream, after string, fn func(string, []byte) error) error {
	return b.ev.Replay(ctx, session, stream, after, fn)
}

func (b batchless) DeleteSession(ctx context.Context, session string) error {
	return b.ev.DeleteSession(ctx, session)
}

// replyTools are the tools of the JSONReplyWithin tests.
type replyTools struct {
	started chan struct{}
	gate    chan struct{}
}

func newReplyServer(t *testing.T, store mcp.SessionStore, tl *replyTools) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{SessionStore: store})
	type echoIn struct {
		Text string `json:"text"`
	}
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) {
		return in.Text, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "notify", Description: "notify"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if err := req.Session.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "first"}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "notified"}}}, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "block", Description: "block"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		tl.started <- struct{}{}
		<-tl.gate
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "unblocked"}}}, nil
	}))
	must(t, s.AddTool(&mcp.Tool{Name: "reconnect", Description: "reconnect"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		req.Extra.CloseStream()
		tl.started <- struct{}{}
		<-tl.gate
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reconnected"}}}, nil
	}))
	return s
}

// replicas are Handlers on 127.0.0.1 sharing one session store (shared)
// and one event store.
type replicas struct {
	t     *testing.T
	tools *replyTools
	hs    []*Handler
	srvs  []*httptest.Server
}

func newReplicas(t *testing.T, n int, shared bool, events EventStore, opts Options) *replicas {
	t.Helper()
	rs := &replicas{t: t, tools: &replyTools{started: make(chan struct{}, 4), gate: make(chan struct{})}}
	store := mcp.NewMemorySessionStore(&mcp.MemorySessionStoreOptions{Share: shared, IdleTimeout: time.Hour})
	for range n {
		o := opts
		o.EventStore = events
		h := NewHandler(newReplyServer(t, store, rs.tools), &o)
		rs.hs = append(rs.hs, h)
		rs.srvs = append(rs.srvs, newLoopbackServer(t, h))
	}
	return rs
}

// close ends every Handler and server (deferred after goleak's check is
// set up, so that it runs first).
func (rs *replicas) close() {
	for i, h := range rs.hs {
		h.Close()
		rs.srvs[i].Close()
		rs.srvs[i].Client().CloseIdleConnections()
	}
}

// open sends a request to replica i and returns the response unread.
func (rs *replicas) open(ctx context.Context, i int, method, sid string, h hdrs, body string) *http.Response {
	rs.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rs.srvs[i].URL+"/mcp", rd)
	if err != nil {
		rs.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := rs.srvs[i].Client().Do(req)
	if err != nil {
		rs.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// post sends body to replica i and reads the whole reply.
func (rs *replicas) post(i int, sid, body string) *reply {
	rs.t.Helper()
	resp := rs.open(context.Background(), i, http.MethodPost, sid, nil, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		rs.t.Fatalf("reading the body: %v", err)
	}
	r := &reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.events = parseEvents(rs.t, bufio.NewReader(strings.NewReader(r.body)))
	}
	return r
}

// initialize opens a session on replica i; it returns the session id.
func (rs *replicas) initialize(i int) string {
	rs.t.Helper()
	r := rs.post(i, "", initBody)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		rs.t.Fatalf("initialize: status %d, session %q, body %s", r.status, sid, r.body)
	}
	if r := rs.post(i, sid, initializedN); r.status != http.StatusAccepted {
		rs.t.Fatalf("notifications/initialized: status %d", r.status)
	}
	return sid
}

func callBody(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// checkJSONReply asserts a 200 application/json reply whose body is want.
func checkJSONReply(t *testing.T, what string, r *reply, want string) {
	t.Helper()
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || r.body != want {
		t.Fatalf("%s: %d %q %s, want 200 application/json %s", what, r.status, r.header.Get("Content-Type"), r.body, want)
	}
}

const (
	initResult = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"test","version":"1"}}}`
	echoResult = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`
)

// A request answered within JSONReplyWithin, with nothing sent before
// its response, gets one application/json body, and nothing is stored
// in the EventStore for it: initialize and tools/call alike, on a shared
// session and on one Handler's own.
func TestJSONReplyWithinQuickReplyIsJSON(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: true}
			rs := newReplicas(t, 1, shared, ev, Options{JSONReplyWithin: time.Hour})
			defer rs.close()
			r := rs.post(0, "", initBody)
			checkJSONReply(t, "initialize", r, initResult)
			sid := r.header.Get("Mcp-Session-Id")
			if r := rs.post(0, sid, initializedN); r.status != http.StatusAccepted {
				t.Fatalf("notifications/initialized: %d", r.status)
			}
			checkJSONReply(t, "tools/call", rs.post(0, sid, callBody(2, "echo", `{"text":"hi"}`)), echoResult)
			if calls := ev.taken(); len(calls) != 0 {
				t.Fatalf("event store writes %q, want none", calls)
			}
			if n := ev.SessionSize(sid); n != 0 {
				t.Fatalf("the event store holds %d bytes for the session, want 0", n)
			}
		})
	}
}

// Without the option (zero), replies are SSE streams from the start, as
// before; on a shared session the stream's first two events and its last
// two are each stored in one call of an EventBatchAppender, and in one
// Append each otherwise.
func TestJSONReplyWithinZeroKeepsStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, batch := range []bool{true, false} {
		t.Run(fmt.Sprintf("batch=%v", batch), func(t *testing.T) {
			ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: batch}
			var store EventStore = ev
			if !batch {
				store = batchless{ev}
			}
			rs := newReplicas(t, 1, true, store, Options{StreamLease: time.Hour})
			defer rs.close()
			sid := rs.initialize(0)
			r := rs.post(0, sid, callBody(2, "echo", `{"text":"hi"}`))
			if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || len(r.events) != 2 ||
				r.events[0].id == "" || r.events[0].data != "" || r.events[0].retry != "1000" || r.events[1].data != echoResult {
				t.Fatalf("tools/call: %d %q %+v", r.status, r.header.Get("Content-Type"), r.events)
			}
			// initialize: its priming event alone, then its response
			// with the end marker; tools/call: priming event and request
			// marker, then response and end marker.
			want := []string{
				`append post ""`,
				fmt.Sprintf("batch post %q \"end\"", initResult),
				`batch post "" "req:2"`,
				fmt.Sprintf("batch post %q \"end\"", echoResult),
			}
			if !batch {
				want = []string{
					`append post ""`,
					fmt.Sprintf("append post %q", initResult), `append post "end"`,
					`append post ""`, `append post "req:2"`,
					fmt.Sprintf("append post %q", echoResult), `append post "end"`,
				}
			}
			equalStrings(t, "event store writes", ev.taken(), want)
		})
	}
}

// A handler that sends a message before its response within the window
// starts the SSE stream then: primed, the message, the response, all
// stored as without the option.
func TestJSONReplyWithinNotifyFirstIsStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: true}
	rs := newReplicas(t, 1, true, ev, Options{JSONReplyWithin: time.Hour, StreamLease: time.Hour})
	defer rs.close()
	sid := rs.initialize(0)
	r := rs.post(0, sid, callBody(2, "notify", `{}`))
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"first","level":"info"}}`
	result := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"notified"}]}}`
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || len(r.events) != 3 ||
		r.events[0].id == "" || r.events[0].data != "" || r.events[0].retry != "1000" ||
		r.events[1].id == "" || r.events[1].data != note || r.events[2].id == "" || r.events[2].data != result {
		t.Fatalf("tools/call: %d %q %+v", r.status, r.header.Get("Content-Type"), r.events)
	}
	equalStrings(t, "event store writes", ev.taken(), []string{
		`batch post "" "req:2"`,
		fmt.Sprintf("append post %q", note),
		fmt.Sprintf("batch post %q \"end\"", result),
	})
	// The stream is resumable from its priming event.
	resp := rs.open(context.Background(), 0, http.MethodGet, sid, hdrs{"Last-Event-ID": r.events[0].id}, "")
	defer resp.Body.Close()
	got := parseEvents(t, bufio.NewReader(resp.Body))
	equalStrings(t, "replayed", dataOf(got), []string{note, result})
}

// A handler slower than the window gets an SSE stream primed when the
// window passes, resumable from its priming id on the Handler running
// it and on another sharing the stores.
func TestJSONReplyWithinSlowHandlerIsResumableStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: true}
	rs := newReplicas(t, 2, true, ev, Options{JSONReplyWithin: time.Millisecond, StreamLease: time.Hour, EventPollInterval: time.Hour})
	defer rs.close()
	sid := rs.initialize(0)
	ev.taken()
	post := rs.open(context.Background(), 0, http.MethodPost, sid, nil, callBody(2, "block", `{}`))
	defer post.Body.Close()
	<-rs.tools.started
	if ct := post.Header.Get("Content-Type"); post.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("slow tools/call: %d %q", post.StatusCode, ct)
	}
	postBody := bufio.NewReader(post.Body)
	prime, err := nextEvent(postBody)
	if err != nil || prime.id == "" || prime.data != "" || prime.retry != "1000" {
		t.Fatalf("priming event %+v, %v", prime, err)
	}
	equalStrings(t, "event store writes at the window's end", ev.taken(), []string{`batch post "" "req:2"`})

	// Resumed on the other replica, which tails the store, then on this
	// one, which takes the stream over from the POST's connection.
	other := rs.open(context.Background(), 1, http.MethodGet, sid, hdrs{"Last-Event-ID": prime.id}, "")
	defer other.Body.Close()
	if other.StatusCode != 200 {
		t.Fatalf("GET on the other replica: %d", other.StatusCode)
	}
	same := rs.open(context.Background(), 0, http.MethodGet, sid, hdrs{"Last-Event-ID": prime.id}, "")
	defer same.Body.Close()
	if same.StatusCode != 200 {
		t.Fatalf("GET on the same replica: %d", same.StatusCode)
	}
	if rest, err := io.ReadAll(postBody); err != nil || len(rest) != 0 {
		t.Fatalf("the POST's connection after the resume: %q, %v", rest, err)
	}
	close(rs.tools.gate)
	result := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"unblocked"}]}}`
	sameEvents := parseEvents(t, bufio.NewReader(same.Body))
	equalStrings(t, "resumed on the same replica", dataOf(sameEvents), []string{result})
	// The other replica learns of the response and the end from the
	// store's Watch (its poll interval is an hour).
	otherEvents := parseEvents(t, bufio.NewReader(other.Body))
	equalStrings(t, "resumed on the other replica", dataOf(otherEvents), []string{result})
	if sameEvents[0].id != otherEvents[0].id {
		t.Fatalf("event ids %q and %q differ", sameEvents[0].id, otherEvents[0].id)
	}
	equalStrings(t, "event store writes at the end", ev.taken(), []string{fmt.Sprintf("batch post %q \"end\"", result)})
}

// A client that goes away within the window gets nothing, as with any
// JSON reply: the handler runs on, nothing is stored for the request,
// and the session serves the client's retry.
func TestJSONReplyWithinCutInTheWindow(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: true}
	rs := newReplicas(t, 1, true, ev, Options{JSONReplyWithin: time.Hour, StreamLease: time.Hour})
	defer rs.close()
	detached := make(chan struct{}, 1)
	rs.hs[0].onDetach = func() { detached <- struct{}{} }
	sid := rs.initialize(0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rs.srvs[0].URL+"/mcp", strings.NewReader(callBody(2, "block", `{}`)))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := rs.srvs[0].Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-rs.tools.started
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cut request got a reply")
	}
	<-detached
	// The retry (with a new id: the first is still running) is answered.
	checkJSONReply(t, "the retry", rs.post(0, sid, callBody(3, "echo", `{"text":"hi"}`)),
		strings.Replace(echoResult, `"id":2`, `"id":3`, 1))
	close(rs.tools.gate)
	// Close waits for the first request's handler to return: nothing
	// was stored for either request's POST stream.
	must(t, rs.hs[0].Close())
	for _, c := range ev.taken() {
		if strings.Contains(c, " post ") {
			t.Fatalf("event store write %q, want none for a POST stream", c)
		}
	}
}

// Requests of the 2026-07-28 era are not affected: answered exactly as
// without the option.
func TestJSONReplyWithinLeavesStatelessEraAlone(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var got [2]*reply
	for i, window := range []time.Duration{time.Hour, 0} {
		ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: true}
		rs := newReplicas(t, 1, true, ev, Options{JSONReplyWithin: window})
		body := mbody("5", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`)
		resp := rs.open(context.Background(), 0, http.MethodPost, "", statelessHeaders(body), body)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		rs.close()
		if err != nil {
			t.Fatal(err)
		}
		got[i] = &reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
		if calls := ev.taken(); len(calls) != 0 {
			t.Fatalf("window %v: event store writes %q", window, calls)
		}
	}
	if got[0].status != got[1].status || got[0].header.Get("Content-Type") != got[1].header.Get("Content-Type") || got[0].body != got[1].body {
		t.Fatalf("with the option: %d %q %q; without: %d %q %q", got[0].status, got[0].header.Get("Content-Type"), got[0].body,
			got[1].status, got[1].header.Get("Content-Type"), got[1].body)
	}
	if got[0].status != 200 || got[0].header.Get("Content-Type") != "text/event-stream" || !strings.Contains(got[0].body, `"text":"hi"`) {
		t.Fatalf("the 2026-07-28 tools/call: %d %q %q", got[0].status, got[0].header.Get("Content-Type"), got[0].body)
	}
}

// A handler that closes its connection within the window (for the client
// to poll) starts the stream first: the client gets the priming event,
// then the end of the response, and resumes from the priming id.
func TestJSONReplyWithinCloseStreamStartsTheStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ev := &recordingEvents{MemoryEventStore: &MemoryEventStore{}, batch: true}
	rs := newReplicas(t, 1, true, ev, Options{JSONReplyWithin: time.Hour, StreamLease: time.Hour})
	defer rs.close()
	sid := rs.initialize(0)
	r := rs.post(0, sid, callBody(2, "reconnect", `{}`))
	<-rs.tools.started
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || len(r.events) != 1 ||
		r.events[0].id == "" || r.events[0].data != "" || r.events[0].retry != "1000" {
		t.Fatalf("tools/call: %d %q %+v", r.status, r.header.Get("Content-Type"), r.events)
	}
	resp := rs.open(context.Background(), 0, http.MethodGet, sid, hdrs{"Last-Event-ID": r.events[0].id}, "")
	defer resp.Body.Close()
	close(rs.tools.gate)
	equalStrings(t, "resumed", dataOf(parseEvents(t, bufio.NewReader(resp.Body))),
		[]string{`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"reconnected"}]}}`})
}
