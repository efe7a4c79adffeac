package replicatest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This part runs issue 14's step 2: with a shared SessionStore and a
// shared EventStore, SSE streams and what the server sends outside
// requests cross replicas
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).

// Streams is a shared session store and a shared event store under test.
type Streams struct {
	Store
	// Events is replica A's EventStore; EventsB, if not nil, replica B's
	// (another client of the same backend). If nil, B uses Events.
	Events, EventsB mcphttp.EventStore
	// Bus and BusB, if not nil, are replica A's and B's Bus (B uses Bus
	// when BusB is nil); RunBroadcasts needs them.
	Bus, BusB mcp.Bus
	// Bounded, if not nil, checks what the backend holds for session sid
	// after the scenario sent more events than the store keeps: the
	// session's events trimmed and expiring with it (deleted false), or
	// nothing left once the session was deleted (deleted true).
	Bounded func(t *testing.T, sid string, deleted bool)
}

// NewStreams returns fresh, empty stores.
type NewStreams func(t *testing.T) Streams

// streamTimeout bounds every stream a scenario reads, so that a missing
// event fails the test instead of hanging it.
const streamTimeout = 20 * time.Second

// gates lets the scenario's "steps" tool go on, one step at a time.
type gates struct{ next chan struct{} }

func newStreamServer(store mcp.SessionStore, bus mcp.Bus, g *gates) *mcp.Server {
	s := newServerBus(store, bus)
	_ = s.AddTool(&mcp.Tool{Name: "steps", Description: "three notifications, then done", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if i > 1 {
					select {
					case <-g.next:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				if err := req.Session.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return s
}

func newStreamCluster(t *testing.T, newStreams NewStreams) (*cluster, *gates) {
	t.Helper()
	return newStreamClusterWith(t, newStreams, 0, nil)
}

// newStreamClusterWith is newStreamCluster with Options.StreamLease lease
// on both replicas, and A's EventStore wrapped by wrapA (if not nil).
func newStreamClusterWith(t *testing.T, newStreams NewStreams, lease time.Duration, wrapA func(mcphttp.EventStore) mcphttp.EventStore) (*cluster, *gates) {
	t.Helper()
	return newStreamClusterWrap(t, newStreams(t), lease, wrapA, nil)
}

// newStreamClusterWrap is newStreamClusterWith on stores s, with B's
// EventStore wrapped by wrapB (if not nil) too.
func newStreamClusterWrap(t *testing.T, s Streams, lease time.Duration, wrapA, wrapB func(mcphttp.EventStore) mcphttp.EventStore) (*cluster, *gates) {
	t.Helper()
	if !s.Store.Store.Shared() {
		t.Fatal("the store does not report Shared")
	}
	c := &cluster{s: s.Store}
	g := &gates{next: make(chan struct{})}
	mk := func(name string, store mcp.SessionStore, events mcphttp.EventStore, bus mcp.Bus) *replica {
		f := newFlaky(store, nil)
		c.stores = append(c.stores, f)
		srv := newStreamServer(f, bus, g)
		h := mcphttp.NewHandler(srv, &mcphttp.Options{EventStore: events, EventPollInterval: 50 * time.Millisecond, KeepAlive: 100 * time.Millisecond, StreamLease: lease})
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			_ = h.Close()
		})
		return &replica{name: name, srv: srv, h: h, ts: ts}
	}
	storeB, eventsB := s.StoreB, s.EventsB
	if storeB == nil {
		storeB = s.Store.Store
	}
	if eventsB == nil {
		eventsB = s.Events
	}
	busB := s.BusB
	if busB == nil {
		busB = s.Bus
	}
	eventsA := s.Events
	if wrapA != nil {
		eventsA = wrapA(eventsA)
	}
	if wrapB != nil {
		eventsB = wrapB(eventsB)
	}
	c.a, c.b = mk("A", s.Store.Store, eventsA, s.Bus), mk("B", storeB, eventsB, busB)
	return c, g
}

// stream is an SSE response being read.
type stream struct {
	status int
	header http.Header
	body   io.ReadCloser
	br     *bufio.Reader
	cancel context.CancelFunc
}

// event is one SSE event: its id and data (empty for a priming event).
type event struct{ id, data string }

// open sends a request (a POST of body, or a GET when body is empty)
// to rep and returns the response to read; cut cancels it.
func (rep *replica) open(t *testing.T, sid, lastID, body string) *stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), streamTimeout)
	method := http.MethodGet
	if body != "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, rep.ts.URL, strings.NewReader(body))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if body != "" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := rep.ts.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &stream{status: resp.StatusCode, header: resp.Header, body: resp.Body, br: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(s.cut)
	return s
}

// cut cancels the request: the client goes away.
func (s *stream) cut() {
	s.cancel()
	_ = s.body.Close()
}

// next returns the next event, skipping comments; ok is false at the
// end of the stream.
func (s *stream) next(t *testing.T) (ev event, ok bool) {
	t.Helper()
	seen := false
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			if line == "" && !seen {
				return event{}, false
			}
			t.Fatalf("a truncated event: %q (%v)", line, err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if seen {
				return ev, true
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			ev.id, seen = line[len("id: "):], true
		case strings.HasPrefix(line, "data:"):
			ev.data, seen = strings.TrimPrefix(line[len("data:"):], " "), true
		default:
			seen = true // event:, retry:
		}
	}
}

// want reads the next events and checks their data, in order, and that
// each has an id not seen before; it returns the last one's id.
func (s *stream) want(t *testing.T, what string, seen map[string]bool, data ...string) string {
	t.Helper()
	last := ""
	for i, d := range data {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("%s: the stream ended before event %d (%s)", what, i, d)
		}
		if ev.data != d {
			t.Fatalf("%s: event %d is %q, want %q", what, i, ev.data, d)
		}
		if ev.id == "" || seen[ev.id] {
			t.Fatalf("%s: event %d has id %q, empty or seen before", what, i, ev.id)
		}
		seen[ev.id] = true
		last = ev.id
	}
	return last
}

// wantEnd checks that the stream ends with no more events.
func (s *stream) wantEnd(t *testing.T, what string) {
	t.Helper()
	if ev, ok := s.next(t); ok {
		t.Fatalf("%s: an event more: %+v", what, ev)
	}
}

// wantSSE checks the response opened as an SSE stream.
func (s *stream) wantSSE(t *testing.T, what string) {
	t.Helper()
	if s.status != http.StatusOK || s.header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(s.body)
		t.Fatalf("%s: %d %s %s, want 200 text/event-stream", what, s.status, s.header.Get("Content-Type"), b)
	}
}

// primed reads the priming event and returns its id.
func (s *stream) primed(t *testing.T, what string) string {
	t.Helper()
	ev, ok := s.next(t)
	if !ok || ev.id == "" || ev.data != "" {
		t.Fatalf("%s: first event %+v (ok %v), want a priming event", what, ev, ok)
	}
	return ev.id
}

// message is the data of a notifications/message with data text.
func message(text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":%q,"level":"info"}}`, text)
}

// sessionOn returns rep's live copy of session sid.
func (rep *replica) sessionOn(t *testing.T, sid string) *mcp.ServerSession {
	t.Helper()
	for _, ss := range rep.srv.Sessions() {
		if ss.ID() == sid {
			return ss
		}
	}
	t.Fatalf("%s does not hold session %s", rep.name, sid)
	return nil
}

// call sends one request on a POST and returns the data of the last
// event of its SSE reply.
func (rep *replica) call(t *testing.T, sid, body string) string {
	t.Helper()
	s := rep.open(t, sid, "", body)
	s.wantSSE(t, "POST to "+rep.name)
	last := ""
	for {
		ev, ok := s.next(t)
		if !ok {
			return last
		}
		if ev.data != "" {
			last = ev.data
		}
	}
}

// initStreams opens a session on A, whose reply is an SSE stream, and
// sends notifications/initialized to B.
func initStreams(t *testing.T, c *cluster) string {
	t.Helper()
	s := c.a.open(t, "", "", initBody)
	s.wantSSE(t, "initialize on A")
	sid := s.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	s.primed(t, "initialize on A")
	s.want(t, "initialize on A", map[string]bool{}, initResult)
	s.wantEnd(t, "initialize on A")
	c.b.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on B", http.StatusAccepted, "")
	return sid
}

// RunStreams runs the streams scenario on stores made by newStreams.
func RunStreams(t *testing.T, newStreams NewStreams) {
	t.Run("a GET stream on B gets what A sends outside requests", func(t *testing.T) {
		c, _ := newStreamCluster(t, newStreams)
		sid := initStreams(t, c)
		get := c.b.open(t, sid, "", "")
		get.wantSSE(t, "GET on B")
		seen := map[string]bool{get.primed(t, "GET on B"): true}
		ctx := context.Background()
		if err := c.a.sessionOn(t, sid).Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "from A"}); err != nil {
			t.Fatal(err)
		}
		get.want(t, "Notify on A", seen, message("from A"))
		// list_changed caused on A.
		if err := c.a.srv.AddTool(&mcp.Tool{Name: "new", InputSchema: []byte(`{"type":"object"}`)}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}); err != nil {
			t.Fatal(err)
		}
		get.want(t, "tools/list_changed on A", seen, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
		// Subscribed through B, reported by A: the subscription is in the
		// shared state.
		if got := c.b.call(t, sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://r"}}`); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
			t.Fatalf("resources/subscribe on B: %s", got)
		}
		if err := c.a.srv.ResourceUpdated(ctx, "test://r"); err != nil {
			t.Fatal(err)
		}
		if err := c.a.srv.ResourceUpdated(ctx, "test://other"); err != nil {
			t.Fatal(err)
		}
		if err := c.b.sessionOn(t, sid).Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "from B"}); err != nil {
			t.Fatal(err)
		}
		get.want(t, "resources/updated on A, then Notify on B", seen,
			`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r"}}`, message("from B"))
		// Unsubscribed through B: A's next report is sent to no one.
		if got := c.b.call(t, sid, `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"test://r"}}`); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
			t.Fatalf("resources/unsubscribe on B: %s", got)
		}
		if err := c.a.srv.ResourceUpdated(ctx, "test://r"); err != nil {
			t.Fatal(err)
		}
		if err := c.a.sessionOn(t, sid).Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "after"}); err != nil {
			t.Fatal(err)
		}
		get.want(t, "resources/updated after unsubscribe, then Notify on A", seen, message("after"))
		// A second GET on B is refused while the first is open.
		second := c.b.open(t, sid, "", "")
		if b, _ := io.ReadAll(second.body); second.status != http.StatusConflict {
			t.Fatalf("a second GET on B: %d %s, want 409", second.status, b)
		}
		// Deleting the session on A ends the stream on B (B's next
		// keep-alive touch finds it gone), with nothing more on it.
		c.a.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on A", http.StatusNoContent, "")
		get.wantEnd(t, "GET on B after DELETE on A")
		c.b.do(t, http.MethodPost, sid, "", echo(4, "x")).want(t, "tools/call on B after DELETE", http.StatusNotFound, fmt.Sprintf(notFound, 4))
	})

	t.Run("a POST stream cut on A resumes on B with exactly the rest", func(t *testing.T) {
		c, g := newStreamCluster(t, newStreams)
		sid := initStreams(t, c)
		post := c.a.open(t, sid, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"steps","arguments":{}}}`)
		post.wantSSE(t, "POST on A")
		seen := map[string]bool{post.primed(t, "POST on A"): true}
		last := post.want(t, "POST on A", seen, message("step 1"))
		post.cut()
		g.next <- struct{}{} // step 2, while no connection carries the stream
		res := c.b.open(t, sid, last, "")
		res.wantSSE(t, "GET with Last-Event-ID on B")
		res.want(t, "resumed on B", seen, message("step 2"))
		g.next <- struct{}{} // step 3 and the response, while B tails
		res.want(t, "resumed on B", seen, message("step 3"), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`)
		res.wantEnd(t, "resumed on B")
		// The stream has ended: resuming it again, anywhere, replays the
		// same events and ends.
		for _, rep := range []*replica{c.a, c.b} {
			again := rep.open(t, sid, last, "")
			again.wantSSE(t, "resumed again on "+rep.name)
			again.want(t, "resumed again on "+rep.name, map[string]bool{}, message("step 2"), message("step 3"), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`)
			again.wantEnd(t, "resumed again on "+rep.name)
		}
		// An id no replica stored is 400.
		bad := c.b.open(t, sid, "12345-1", "")
		if b, _ := io.ReadAll(bad.body); bad.status != http.StatusBadRequest || strings.TrimSpace(string(b)) != `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Last-Event-ID \"12345-1\" names no stored event of this session"}}` {
			t.Fatalf("GET with an unknown Last-Event-ID: %d %s", bad.status, b)
		}
	})

	t.Run("a GET stream cut on A resumes on B; memory stays bounded", func(t *testing.T) {
		s := newStreams(t)
		c, _ := newStreamCluster(t, func(*testing.T) Streams { return s })
		sid := initStreams(t, c)
		ctx := context.Background()
		onA, onB := c.a.sessionOn(t, sid), c.b.sessionOn(t, sid)
		notify := func(ss *mcp.ServerSession, text string) {
			t.Helper()
			if err := ss.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": text}); err != nil {
				t.Fatal(err)
			}
		}
		get := c.a.open(t, sid, "", "")
		get.wantSSE(t, "GET on A")
		seen := map[string]bool{get.primed(t, "GET on A"): true}
		notify(onA, "one")
		last := get.want(t, "GET on A", seen, message("one"))
		get.cut()
		notify(onA, "two")
		notify(onB, "three")
		res := c.b.open(t, sid, last, "")
		res.wantSSE(t, "GET with Last-Event-ID on B")
		res.want(t, "resumed on B", seen, message("two"), message("three"))
		notify(onA, "four")
		res.want(t, "resumed on B", seen, message("four"))
		if s.Bounded != nil {
			// More events than the store keeps for a session, read as
			// they come (a reader that falls behind the trimming would
			// have to start over).
			for i := range 40 {
				notify(onA, fmt.Sprintf("bulk %d", i))
				res.want(t, "bulk on B", seen, message(fmt.Sprintf("bulk %d", i)))
			}
			s.Bounded(t, sid, false)
		}
		c.b.do(t, http.MethodDelete, sid, "", "").want(t, "DELETE on B", http.StatusNoContent, "")
		res.wantEnd(t, "resumed on B after DELETE")
		if s.Bounded != nil {
			s.Bounded(t, sid, true)
		}
	})

	t.Run("a store that is down is 503 for GET, never 404", func(t *testing.T) {
		c, _ := newStreamCluster(t, newStreams)
		sid := initStreams(t, c)
		c.down(t, true)
		defer c.down(t, false)
		for _, last := range []string{"", "0-1"} {
			r := c.b.open(t, sid, last, "")
			b, _ := io.ReadAll(r.body)
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" || strings.TrimSpace(string(b)) != fmt.Sprintf(unavailable, "null") {
				t.Fatalf("GET (Last-Event-ID %q) with the store down: %d Retry-After %q %s", last, r.status, r.header.Get("Retry-After"), b)
			}
		}
	})
}
