package replicatest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/rrproxy"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// This part runs issue 14's first acceptance line: three replicas, each an
// mcp.Server and an mcphttp.Handler on its own listener, behind a
// round-robin reverse proxy that sends every request to the next one, as
// the worst load balancer a session-era client can meet
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// mcpkit's own client (mcp.Client over mcphttp.ClientTransport) drives
// it through the proxy; raw HTTP checks what the client hides (status
// codes, headers). Which replica served what is read from the proxy's
// X-Rrproxy-Backend response header and from each Server's Sessions.

// ReplicaStores is one replica's view of the shared backend: its own
// clients of the same stores, as a real replica has.
type ReplicaStores struct {
	// Sessions must report Shared true and implement
	// a RequestStateKey method (the stateless era's requestState key is
	// shared through it; see mcp.SessionStore).
	Sessions mcp.SessionStore
	// Events must implement mcphttp.EventOnceAppender and
	// mcphttp.EventWatcher.
	Events mcphttp.EventStore
	Tasks  mcp.TaskStore
	Bus    mcp.Bus
}

// Deployment is three replicas' stores on one backend, and what the
// scenario needs to reach around them.
type Deployment struct {
	Replicas [3]ReplicaStores
	// Down, if not nil, takes the backend down (true) or brings it back
	// (false) for real; if nil, the scenario makes every SessionStore
	// call fail with mcp.ErrStoreUnavailable instead.
	Down func(t *testing.T, down bool)
	// Expire makes session id idle out by the store's own clock, and
	// returns once the store no longer has it.
	Expire func(t *testing.T, id string)
	// Count reports how many sessions the store holds.
	Count func(t *testing.T) int
}

// NewDeployment returns fresh, empty stores whose session cap is
// maxSessions (0: the store's default).
type NewDeployment func(t *testing.T, maxSessions int) Deployment

// fullEventStore is what the scenario needs of an EventStore: all of
// what the Handler uses when it has it.
type fullEventStore interface {
	mcphttp.EventStore
	mcphttp.EventOnceAppender
	mcphttp.EventWatcher
}

// mortalEvents is a replica's EventStore: once dead, the replica stores
// nothing more, as a process that was killed.
type mortalEvents struct {
	fullEventStore
	dead atomic.Bool
}

func (m *mortalEvents) Append(ctx context.Context, session, stream, id string, data []byte) error {
	if m.dead.Load() {
		return errKilled
	}
	return m.fullEventStore.Append(ctx, session, stream, id, data)
}

func (m *mortalEvents) AppendOnce(ctx context.Context, session, stream, id, key string, data []byte) (bool, error) {
	if m.dead.Load() {
		return false, errKilled
	}
	return m.fullEventStore.AppendOnce(ctx, session, stream, id, key, data)
}

// switchedStore is a replica's SessionStore that the scenario can fail,
// all three replicas at once (one switch), when the deployment cannot
// take its backend down for real.
// stateKeyer is the method a shared mcp.SessionStore has to share the
// requestState key.
type stateKeyer interface {
	RequestStateKey(ctx context.Context) ([]byte, error)
}

type switchedStore struct {
	*flaky
	keyer stateKeyer
}

func (s *switchedStore) RequestStateKey(ctx context.Context) ([]byte, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.keyer.RequestStateKey(ctx)
}

// rrReplica is one replica of the round-robin deployment.
type rrReplica struct {
	name   string // r1, r2, r3
	srv    *mcp.Server
	h      *mcphttp.Handler
	ts     *httptest.Server
	events *mortalEvents
}

// holds reports whether the replica holds a live copy of session sid.
func (rep *rrReplica) holds(sid string) bool {
	for _, ss := range rep.srv.Sessions() {
		if ss.ID() == sid {
			return true
		}
	}
	return false
}

// rrCluster is three replicas behind one rrproxy.
type rrCluster struct {
	d      Deployment
	reps   [3]*rrReplica
	isDown [3]bool // the backends taken out of the proxy's rotation
	byHost map[string]string
	proxy  *rrproxy.Proxy
	pts    *httptest.Server
	down   atomic.Bool
	g      *gates
	// started and cancelled receive the name of the replica where the
	// block tools start and are cancelled.
	started, cancelled chan string
}

// rrLease is the replicas' Options.StreamLease: a request whose replica
// died is answered with an error about a lease after it last
// heartbeated; RunLostRequest's lease, the least found reliable under
// -race.
const rrLease = lostLease

func newRRServer(c *rrCluster, name string, rs ReplicaStores, keyer stateKeyer, logger *slog.Logger) *mcp.Server {
	store := &switchedStore{flaky: newFlaky(rs.Sessions, &c.down), keyer: keyer}
	s := mcp.NewServer(mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{
		SessionStore: store,
		Logger:       logger,
		Logging:      &mcp.LoggingOptions{},
		Bus:          rs.Bus,
		Tasks:        mcp.TaskOptions{Store: rs.Tasks},
	})
	type text struct {
		Text string `json:"text"`
	}
	_ = mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo, and where"}, func(_ context.Context, _ *mcp.Request, v text) (string, error) {
		return v.Text + " on " + name, nil
	})
	_ = s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: "r"}}}, nil
	})
	ask := func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
		res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
		}})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s on %s: %s", res.Action, name, res.Content), nil
	}
	_ = mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "elicit a name"}, ask)
	_ = mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "sample a haiku"}, func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
		res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "a haiku"}}}},
			MaxTokens: 10,
		})
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(res.Content)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s sampled on %s: %s", res.Model, name, b), nil
	})
	block := func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
		c.started <- name
		<-ctx.Done()
		c.cancelled <- name
		return "", ctx.Err()
	}
	_ = mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "block until cancelled"}, block)
	_ = mcp.AddTool(s, &mcp.Tool{Name: "announce", Description: "notify outside the request"}, func(_ context.Context, req *mcp.Request, _ struct{}) (string, error) {
		// Not the handler's context: the notification is the session's,
		// for its standalone (GET) stream.
		if err := req.Session.Notify(context.Background(), "notifications/message", map[string]any{"level": "info", "data": "from " + name}); err != nil {
			return "", err
		}
		return "announced on " + name, nil
	})
	_ = s.AddTool(&mcp.Tool{Name: "steps", Description: "three notifications, then done", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if i > 1 {
					select {
					case <-c.g.next:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				if err := req.Session.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done on " + name}}}, nil
		})
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	_ = mcp.AddTool(s, &mcp.Tool{Name: "task-ask", Description: "ask, as a task", Execution: optional}, ask)
	_ = mcp.AddTool(s, &mcp.Tool{Name: "task-block", Description: "block, as a task", Execution: optional}, block)
	return s
}

func newRRCluster(t *testing.T, newDeployment NewDeployment, maxSessions int) *rrCluster {
	t.Helper()
	d := newDeployment(t, maxSessions)
	c := &rrCluster{d: d, byHost: map[string]string{}, g: &gates{next: make(chan struct{})},
		started: make(chan string, 4), cancelled: make(chan string, 4)}
	var urls []string
	for i, rs := range d.Replicas {
		if !rs.Sessions.Shared() {
			t.Fatal("the store does not report Shared")
		}
		full, ok := rs.Events.(fullEventStore)
		if !ok {
			t.Fatalf("replica %d's EventStore %T lacks AppendOnce or Watch", i+1, rs.Events)
		}
		keyer, ok := rs.Sessions.(stateKeyer)
		if !ok {
			t.Fatalf("replica %d's SessionStore %T has no RequestStateKey", i+1, rs.Sessions)
		}
		name := fmt.Sprintf("r%d", i+1)
		ev := &mortalEvents{fullEventStore: full}
		logger := replicaLog(t, name)
		srv := newRRServer(c, name, rs, keyer, logger)
		h := mcphttp.NewHandler(srv, &mcphttp.Options{EventStore: ev, EventPollInterval: 50 * time.Millisecond, KeepAlive: 100 * time.Millisecond, StreamLease: rrLease, Logger: logger})
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.CloseClientConnections()
			_ = h.Close()
			ts.Close()
		})
		c.reps[i] = &rrReplica{name: name, srv: srv, h: h, ts: ts, events: ev}
		c.byHost[strings.TrimPrefix(ts.URL, "http://")] = name
		urls = append(urls, ts.URL)
	}
	p, err := rrproxy.New(urls...)
	if err != nil {
		t.Fatal(err)
	}
	c.proxy = p
	c.pts = httptest.NewServer(p)
	t.Cleanup(func() {
		c.pts.Close()
		p.CloseIdleConnections()
	})
	return c
}

// replicaLog is a replica's slog.Logger for its Server and Handler: it
// keeps every record, at debug level and up, and logs them all if the test
// fails, so that a failure seen once in CI shows what the replicas said.
func replicaLog(t *testing.T, name string) *slog.Logger {
	var mu sync.Mutex
	var buf bytes.Buffer
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if buf.Len() == 0 {
			t.Logf("%s logged nothing", name)
			return
		}
		t.Logf("%s logged:\n%s", name, buf.String())
	})
	return slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// aim makes the next request through the proxy go to replica i (0-based),
// when no other request is under way; i must not be down.
func (c *rrCluster) aim(i int) {
	n := len(c.reps)
	for {
		j := c.proxy.Pick()
		next := (j + 1) % n
		for c.isDown[next] {
			next = (next + 1) % n
		}
		if next == i {
			return
		}
	}
}

// hop is one HTTP exchange through the proxy, as the client made it.
type hop struct {
	method  string // HTTP method
	rpc     string // the JSON-RPC method, "response" for an answer, "" for none
	body    string
	lastID  string // Last-Event-ID
	status  int
	backend string // the replica that served it
	sid     string // Mcp-Session-Id of the response
	// done is closed once status, backend and sid are set: a request
	// may take effect (an answer reach its handler) before its
	// round trip returns.
	done chan struct{}
	// events collects the data of the SSE events the client read.
	mu     sync.Mutex
	events []string
}

// wait waits for the hop's response headers, or fails the test.
func (h *hop) wait(t *testing.T) *hop {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(streamTimeout):
		t.Fatalf("%s %s: no response", h.method, h.rpc)
	}
	return h
}

func (h *hop) data() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// recorder is the client's http.RoundTripper: it records every hop and
// can cut one POST stream after a given event.
type recorder struct {
	c    *rrCluster
	base *http.Transport
	mu   sync.Mutex
	hops []*hop
	// cutAfter, if set, cuts the next POST stream carrying an event whose
	// data contains it, just after that event; cut is then closed.
	cutAfter string
	cut      chan struct{}
	// getOpen receives each GET stream without Last-Event-ID that opens.
	getOpen chan *hop
}

func newRecorder(t *testing.T, c *rrCluster) *recorder {
	r := &recorder{c: c, base: &http.Transport{}, getOpen: make(chan *hop, 4)}
	t.Cleanup(r.base.CloseIdleConnections)
	t.Cleanup(func() {
		if t.Failed() {
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, h := range r.hops {
				t.Logf("hop: %s %s on %s: %d, Last-Event-ID %q, body %s, events %q", h.method, h.rpc, h.backend, h.status, h.lastID, h.body, h.data())
			}
		}
	})
	return r
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	h := &hop{method: req.Method, lastID: req.Header.Get("Last-Event-ID"), done: make(chan struct{})}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		h.body = string(b)
		var m struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(b, &m) == nil {
			h.rpc = m.Method
			if m.Method == "" && (m.Result != nil || m.Error != nil) {
				h.rpc = "response"
			}
		}
	}
	r.mu.Lock()
	r.hops = append(r.hops, h)
	r.mu.Unlock()
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		close(h.done)
		return nil, err
	}
	h.status = resp.StatusCode
	h.backend = r.c.byHost[resp.Header.Get("X-Rrproxy-Backend")]
	h.sid = resp.Header.Get("Mcp-Session-Id")
	close(h.done)
	r.mu.Lock()
	cutAfter := ""
	if req.Method == http.MethodPost && r.cutAfter != "" {
		cutAfter, r.cutAfter = r.cutAfter, ""
	}
	r.mu.Unlock()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &tap{rc: resp.Body, br: bufio.NewReader(resp.Body), h: h, cutAfter: cutAfter, cut: r.cut}
		if req.Method == http.MethodGet && h.lastID == "" && resp.StatusCode == http.StatusOK {
			select {
			case r.getOpen <- h:
			default: // more than the scenario waits for: it counts them
			}
		}
	}
	return resp, nil
}

// find returns the hops whose JSON-RPC method (or HTTP method, for GET
// and DELETE) is what.
func (r *recorder) find(what string) []*hop {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*hop
	for _, h := range r.hops {
		if h.rpc == what || h.rpc == "" && h.method == what {
			out = append(out, h)
		}
	}
	return out
}

// only returns the one hop find(what) gives, or fails the test.
func (r *recorder) only(t *testing.T, what string) *hop {
	t.Helper()
	hs := r.find(what)
	if len(hs) != 1 {
		t.Fatalf("%d %s exchanges, want 1", len(hs), what)
	}
	return hs[0]
}

// last returns the last hop find(what) gives, or fails the test.
func (r *recorder) last(t *testing.T, what string) *hop {
	t.Helper()
	hs := r.find(what)
	if len(hs) == 0 {
		t.Fatalf("no %s exchange", what)
	}
	return hs[len(hs)-1]
}

// tap passes an SSE body through line by line, recording the data of
// each event, and cuts it after the event that matches cutAfter.
type tap struct {
	rc       io.ReadCloser
	br       *bufio.Reader
	h        *hop
	cutAfter string
	cut      chan struct{}
	pending  []byte
	data     []string
	cutNow   bool
}

func (s *tap) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.cutNow {
			_ = s.rc.Close()
			close(s.cut)
			s.cutNow = false
			s.cutAfter = ""
			return 0, io.ErrUnexpectedEOF
		}
		line, err := s.br.ReadBytes('\n')
		s.pending = line
		trimmed := strings.TrimRight(string(line), "\r\n")
		if d, ok := strings.CutPrefix(trimmed, "data:"); ok {
			s.data = append(s.data, strings.TrimPrefix(d, " "))
		}
		if trimmed == "" && len(line) > 0 && len(s.data) > 0 {
			ev := strings.Join(s.data, "\n")
			s.data = nil
			if ev != "" { // not a priming event
				s.h.mu.Lock()
				s.h.events = append(s.h.events, ev)
				s.h.mu.Unlock()
			}
			if s.cutAfter != "" && strings.Contains(ev, s.cutAfter) {
				s.cutNow = true
			}
		}
		if err != nil && len(line) == 0 {
			return 0, err
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *tap) Close() error { return s.rc.Close() }

// rrClient is a client session through the proxy and what it received.
type rrClient struct {
	cs  *mcp.ClientSession
	rec *recorder
	sid string
	// got receives, in order, what the client's callbacks saw:
	// "tools/list_changed", "resources/updated URI", "message DATA",
	// "tasks/status STATUS".
	got chan string
}

// connect opens a client session through the proxy. standalone allows the
// client's GET stream; stateless starts in the 2026-07-28 era.
func (c *rrCluster) connect(t *testing.T, standalone, stateless bool) (*rrClient, error) {
	t.Helper()
	rc := &rrClient{rec: newRecorder(t, c), got: make(chan string, 64)}
	note := func(s string) {
		select {
		case rc.got <- s:
		default:
			t.Errorf("the client's callbacks saw too much; dropped %s", s)
		}
	}
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Sampling:    &mcp.SamplingCapability{},
			Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}},
			Extensions:  map[string]json.RawMessage{mcp.TasksExtensionID: json.RawMessage(`{}`)},
		},
		ProtocolEra:    mcp.EraSession,
		RequestTimeout: 30 * time.Second,
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if p.Message != "name?" {
				return nil, fmt.Errorf("unexpected elicitation %q", p.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Gopher"}`)}, nil
		},
		CreateMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: "old pond"}}, Model: "basho"}, nil
		},
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { note("tools/list_changed") },
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			note("resources/updated " + p.URI)
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			var s string
			_ = json.Unmarshal(p.Data, &s)
			note("message " + s)
		},
		NotificationHandler: func(_ context.Context, _ *mcp.ClientSession, n *jsonrpc.Notification) {
			if n.Method != "notifications/tasks/status" {
				return
			}
			var st struct {
				Status string `json:"status"`
			}
			_ = json.Unmarshal(n.Params, &st)
			note("tasks/status " + st.Status)
		},
	}
	if stateless {
		opts.ProtocolEra = mcp.EraStateless
	}
	tr := &mcphttp.ClientTransport{
		URL:                c.pts.URL,
		HTTPClient:         &http.Client{Transport: rc.rec},
		NoStandaloneStream: !standalone,
		DefaultRetry:       20 * time.Millisecond,
		MaxRetryWait:       100 * time.Millisecond,
		MaxReconnects:      20,
	}
	ctx, cancel := context.WithTimeout(context.Background(), streamTimeout)
	defer cancel()
	cs, err := mcp.NewClient(mcp.Implementation{Name: "rr", Version: "1"}, opts).Connect(ctx, tr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	rc.cs = cs
	if !stateless {
		rc.sid = rc.rec.only(t, "initialize").wait(t).sid
		if rc.sid == "" {
			t.Fatal("initialize: no Mcp-Session-Id")
		}
	}
	return rc, nil
}

// mustConnect is connect that fails the test on an error.
func (c *rrCluster) mustConnect(t *testing.T, standalone, stateless bool) *rrClient {
	t.Helper()
	rc, err := c.connect(t, standalone, stateless)
	if err != nil {
		t.Fatalf("Connect through the proxy: %v", err)
	}
	return rc
}

// want reads the client's next callbacks and checks them, in order.
func (rc *rrClient) want(t *testing.T, what string, want ...string) {
	t.Helper()
	timer := time.NewTimer(streamTimeout)
	defer timer.Stop()
	for i, w := range want {
		select {
		case got := <-rc.got:
			if got != w {
				t.Fatalf("%s: callback %d saw %q, want %q", what, i, got, w)
			}
		case <-timer.C:
			t.Fatalf("%s: callback %d (%q) never came", what, i, w)
		}
	}
}

// text returns the text of a CallToolResult with one text block, or
// fails the test.
func text(t *testing.T, what string, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v", what, res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", what, res.Content[0])
	}
	return tc.Text
}

// text calls tool and returns the text of its result, or fails the
// test.
func (rc *rrClient) text(t *testing.T, ctx context.Context, tool string, args any) string {
	t.Helper()
	res, err := rc.call(t, ctx, tool, args)
	return text(t, "tools/call "+tool, res, err)
}

func (rc *rrClient) call(t *testing.T, ctx context.Context, tool string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return rc.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: b})
}

// raw sends one HTTP request to the proxy for session sid (none if
// empty).
func (c *rrCluster) raw(t *testing.T, method, sid, body string) (reply, string) {
	t.Helper()
	r := send(t, c.pts, method, sid, "", body)
	return r, c.byHost[r.header.Get("X-Rrproxy-Backend")]
}

// everywhere sends one raw request to each replica in turn (ids id,
// id+1, id+2 in body, a format with one %d) and checks each reply.
func (c *rrCluster) everywhere(t *testing.T, what, method, sid, body string, id int, check func(t *testing.T, r reply, id int)) {
	t.Helper()
	for i := range c.reps {
		c.aim(i)
		b := body
		if strings.Contains(body, "%d") {
			b = fmt.Sprintf(body, id+i)
		}
		r, on := c.raw(t, method, sid, b)
		if on != c.reps[i].name {
			t.Fatalf("%s: served by %q, want %s", what, on, c.reps[i].name)
		}
		check(t, r, id+i)
	}
}

// served checks that hop h was served by replica want, with status.
func served(t *testing.T, what string, h *hop, want string, status int) {
	t.Helper()
	h.wait(t)
	if h.backend != want || h.status != status {
		t.Fatalf("%s: %d on %q, want %d on %s", what, h.status, h.backend, status, want)
	}
}

// RunRoundRobin runs the round-robin scenario on deployments made by
// newDeployment: one subtest per item of issue 14's first acceptance
// line, in both eras
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
func RunRoundRobin(t *testing.T, newDeployment NewDeployment) {
	t.Run("1 initialize, list and call each on another replica", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		c.aim(0)
		rc := c.mustConnect(t, false, false)
		served(t, "initialize", rc.rec.only(t, "initialize"), "r1", http.StatusOK)
		served(t, "notifications/initialized", rc.rec.only(t, "notifications/initialized"), "r2", http.StatusAccepted)
		ctx := context.Background()
		tools, err := rc.cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		if want := []string{"announce", "ask", "block", "echo", "sample", "steps", "task-ask", "task-block"}; !slices.Equal(names, want) {
			t.Fatalf("tools/list: %v, want %v", names, want)
		}
		served(t, "tools/list", rc.rec.only(t, "tools/list"), "r3", http.StatusOK)
		c.aim(1)
		if got := rc.text(t, ctx, "echo", map[string]string{"text": "hi"}); got != "hi on r2" {
			t.Fatalf("tools/call: %q, want %q", got, "hi on r2")
		}
		served(t, "tools/call", rc.rec.only(t, "tools/call"), "r2", http.StatusOK)
		for _, rep := range c.reps {
			if !rep.holds(rc.sid) {
				t.Errorf("%s does not hold the session", rep.name)
			}
		}
	})

	t.Run("2 an elicitation and a sampling request from r1 are answered through r2", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, false, false)
		ctx := context.Background()
		c.aim(0)
		if got, want := rc.text(t, ctx, "ask", struct{}{}), `accept on r1: {"name":"Gopher"}`; got != want {
			t.Fatalf("ask: %q, want %q", got, want)
		}
		c.aim(0)
		if got, want := rc.text(t, ctx, "sample", struct{}{}), `basho sampled on r1: {"type":"text","text":"old pond"}`; got != want {
			t.Fatalf("sample: %q, want %q", got, want)
		}
		calls, answers := rc.rec.find("tools/call"), rc.rec.find("response")
		if len(calls) != 2 || len(answers) != 2 {
			t.Fatalf("%d tools/call and %d answers, want 2 and 2", len(calls), len(answers))
		}
		for i, what := range []string{"elicitation/create", "sampling/createMessage"} {
			served(t, "tools/call", calls[i], "r1", http.StatusOK)
			served(t, "the answer to "+what, answers[i], "r2", http.StatusAccepted)
			// The request and the result travel on the call's own stream.
			if ev := calls[i].data(); len(ev) != 2 || !strings.Contains(ev[0], `"method":"`+what+`"`) || !strings.Contains(ev[1], `"result":{"content":`) {
				t.Fatalf("the tools/call stream on r1: %q, want the %s request, then the result", ev, what)
			}
		}
	})

	t.Run("3 a GET stream on one replica gets what the others produce", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, true, false)
		var get *hop
		select {
		case get = <-rc.rec.getOpen:
		case <-time.After(streamTimeout):
			t.Fatal("the client opened no GET stream")
		}
		g := slices.IndexFunc(c.reps[:], func(r *rrReplica) bool { return r.name == get.backend })
		if g < 0 {
			t.Fatalf("the GET stream was served by %q", get.backend)
		}
		p, q := (g+1)%3, (g+2)%3
		ctx := context.Background()
		// list_changed made on p.
		if err := c.reps[p].srv.AddTool(&mcp.Tool{Name: "new", InputSchema: []byte(`{"type":"object"}`)}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}); err != nil {
			t.Fatal(err)
		}
		rc.want(t, "tools/list_changed on "+c.reps[p].name, "tools/list_changed")
		// Subscribed through p, reported on q.
		c.aim(p)
		if err := rc.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://r"}); err != nil {
			t.Fatalf("resources/subscribe: %v", err)
		}
		served(t, "resources/subscribe", rc.rec.only(t, "resources/subscribe"), c.reps[p].name, http.StatusOK)
		if err := c.reps[q].srv.ResourceUpdated(ctx, "test://r"); err != nil {
			t.Fatal(err)
		}
		rc.want(t, "resources/updated on "+c.reps[q].name, "resources/updated test://r")
		// A handler on p notifies its session outside the request.
		c.aim(p)
		if got, want := rc.text(t, ctx, "announce", struct{}{}), "announced on "+c.reps[p].name; got != want {
			t.Fatalf("announce: %q, want %q", got, want)
		}
		served(t, "tools/call announce", rc.rec.last(t, "tools/call"), c.reps[p].name, http.StatusOK)
		rc.want(t, "a handler's Notify on "+c.reps[p].name, "message from "+c.reps[p].name)
		// All three came on the GET stream, once each.
		want := []string{
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`,
			`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r"}}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"from ` + c.reps[p].name + `","level":"info"}}`,
		}
		if got := get.data(); !slices.Equal(got, want) {
			t.Fatalf("the GET stream on %s carried %q\nwant %q", get.backend, got, want)
		}
		if gets := rc.rec.find(http.MethodGet); len(gets) != 1 {
			t.Fatalf("%d GET requests, want 1", len(gets))
		}
	})

	t.Run("4 a cancel sent to r2 stops the handler on r1", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, false, false)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		c.aim(0)
		go func() {
			_, err := rc.call(t, ctx, "block", struct{}{})
			done <- err
		}()
		if got := <-c.started; got != "r1" {
			t.Fatalf("block started on %s, want r1", got)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
		}
		if got := <-c.cancelled; got != "r1" {
			t.Fatalf("block cancelled on %s, want r1", got)
		}
		h := rc.rec.only(t, "notifications/cancelled")
		served(t, "notifications/cancelled", h, "r2", http.StatusAccepted)
		if !strings.Contains(h.body, `"requestId":`) {
			t.Fatalf("notifications/cancelled: %s", h.body)
		}
		// The session goes on.
		if got := rc.text(t, context.Background(), "echo", map[string]string{"text": "on"}); !strings.HasPrefix(got, "on on r") {
			t.Fatalf("echo after the cancel: %q", got)
		}
	})

	t.Run("5 a POST stream cut mid-response resumes through another replica", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, false, false)
		rc.rec.mu.Lock()
		rc.rec.cutAfter, rc.rec.cut = `"step 1"`, make(chan struct{})
		cut := rc.rec.cut
		rc.rec.mu.Unlock()
		done := make(chan string, 1)
		c.aim(0)
		go func() {
			res, err := rc.call(t, context.Background(), "steps", struct{}{})
			if err != nil {
				done <- "error: " + err.Error()
				return
			}
			done <- text(t, "steps", res, nil)
		}()
		<-cut
		rc.want(t, "before the cut", "message step 1")
		c.g.next <- struct{}{} // step 2, while no connection carries the stream
		rc.want(t, "resumed", "message step 2")
		c.g.next <- struct{}{} // step 3 and the result
		rc.want(t, "resumed", "message step 3")
		if got := <-done; got != "done on r1" {
			t.Fatalf("steps: %q, want %q", got, "done on r1")
		}
		post := rc.rec.only(t, "tools/call")
		served(t, "tools/call", post, "r1", http.StatusOK)
		if got := post.data(); len(got) != 1 || got[0] != message("step 1") {
			t.Fatalf("the cut POST stream carried %q", got)
		}
		gets := rc.rec.find(http.MethodGet)
		if len(gets) != 1 || gets[0].lastID == "" {
			t.Fatalf("%d resumptions, want 1 with Last-Event-ID", len(gets))
		}
		served(t, "the resumption", gets[0], "r2", http.StatusOK)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(post.body), &req); err != nil {
			t.Fatal(err)
		}
		if got, want := gets[0].data(), []string{message("step 2"), message("step 3"), `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"content":[{"type":"text","text":"done on r1"}]}}`}; !slices.Equal(got, want) {
			t.Fatalf("the resumed stream on r2 carried %q\nwant %q", got, want)
		}
		select {
		case extra := <-rc.got:
			t.Fatalf("a callback more: %s", extra)
		default:
		}
	})

	t.Run("6 a replica killed mid-request: an error for it, the session lives on", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, false, false)
		done := make(chan error, 1)
		c.aim(0)
		go func() {
			_, err := rc.call(t, context.Background(), "steps", struct{}{})
			done <- err
		}()
		rc.want(t, "on r1", "message step 1")
		// r1 dies: nothing more of it reaches the stores, its
		// connections break, the proxy stops sending it anything.
		r1 := c.reps[0]
		r1.events.dead.Store(true)
		c.proxy.SetDown(0, true)
		c.isDown[0] = true
		r1.ts.CloseClientConnections()
		_ = r1.h.Close()
		r1.ts.Close()
		err := <-done
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32603 || rpcErr.Message != "Internal error: the server replica running this request stopped before answering it" {
			t.Fatalf("the call on the killed replica returned %v, want -32603 for a stopped replica", err)
		}
		served(t, "tools/call", rc.rec.only(t, "tools/call"), "r1", http.StatusOK)
		for _, h := range rc.rec.find(http.MethodGet) {
			if h.wait(t).backend == "r1" || h.lastID == "" {
				t.Fatalf("a resumption on %q with Last-Event-ID %q", h.backend, h.lastID)
			}
		}
		// The session goes on, on both the others.
		ctx := context.Background()
		for i := 1; i < 3; i++ {
			c.aim(i)
			if got, want := rc.text(t, ctx, "echo", map[string]string{"text": "on"}), "on on "+c.reps[i].name; got != want {
				t.Fatalf("echo after r1 died: %q, want %q", got, want)
			}
		}
	})

	t.Run("7 the cap, idle expiry and DELETE hold cluster-wide", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 2)
		ctx := context.Background()
		first := c.mustConnect(t, false, false)
		c.mustConnect(t, false, false)
		c.everywhere(t, "initialize past the cap", http.MethodPost, "", initBody, 1, func(t *testing.T, r reply, _ int) {
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" || r.header.Get("Mcp-Session-Id") != "" ||
				!strings.HasPrefix(r.body, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Service unavailable: maximum concurrent sessions reached: `) {
				t.Fatalf("initialize past the cap: %d, Retry-After %q, %s", r.status, r.header.Get("Retry-After"), r.body)
			}
		})
		_, err := c.connect(t, false, false)
		var se *mcphttp.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("Connect past the cap: %v, want a 503 StatusError", err)
		}
		if n := c.d.Count(t); n != 2 {
			t.Fatalf("the store holds %d sessions, want 2", n)
		}

		// DELETE: every replica holds the session, one ends it.
		for i := range c.reps {
			c.aim(i)
			if got, want := first.text(t, ctx, "echo", map[string]string{"text": "x"}), "x on "+c.reps[i].name; got != want {
				t.Fatalf("echo: %q, want %q", got, want)
			}
		}
		for _, rep := range c.reps {
			if !rep.holds(first.sid) {
				t.Fatalf("%s does not hold the session", rep.name)
			}
		}
		c.aim(1)
		if err := first.cs.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		served(t, "DELETE", first.rec.only(t, http.MethodDelete), "r2", http.StatusNoContent)
		gone := func(sid, what string) {
			t.Helper()
			c.everywhere(t, "tools/call "+what, http.MethodPost, sid, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, 10, func(t *testing.T, r reply, id int) {
				r.want(t, "tools/call "+what, http.StatusNotFound, fmt.Sprintf(notFound, id))
			})
			for _, rep := range c.reps {
				if rep.holds(sid) {
					t.Fatalf("%s still holds the session %s", rep.name, what)
				}
			}
			if _, err := c.d.Replicas[0].Sessions.Load(ctx, "", sid); !errors.Is(err, mcp.ErrSessionNotFound) {
				t.Fatalf("the store's Load %s = %v, want ErrSessionNotFound", what, err)
			}
		}
		gone(first.sid, "after DELETE")
		// The slot is free again, for a client of any replica.
		third := c.mustConnect(t, false, false)
		if n := c.d.Count(t); n != 2 {
			t.Fatalf("the store holds %d sessions, want 2", n)
		}

		// Idle expiry, by the store's clock.
		for i := range c.reps {
			c.aim(i)
			third.text(t, ctx, "echo", map[string]string{"text": "x"})
		}
		c.d.Expire(t, third.sid)
		gone(third.sid, "after expiry")
		if _, err := third.call(t, ctx, "echo", map[string]string{"text": "x"}); !errors.Is(err, mcphttp.ErrSessionExpired) {
			t.Fatalf("tools/call after expiry: %v, want ErrSessionExpired", err)
		}
	})

	t.Run("8 a store that is down is 503 on every replica, then the session goes on", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, false, false)
		ctx := context.Background()
		setDown := func(down bool) {
			if c.d.Down != nil {
				c.d.Down(t, down)
			} else {
				c.down.Store(down)
			}
		}
		// Every replica holds the session: none may serve it from that
		// copy while the store is down.
		for i := range c.reps {
			c.aim(i)
			rc.text(t, ctx, "echo", map[string]string{"text": "x"})
			if !c.reps[i].holds(rc.sid) {
				t.Fatalf("%s does not hold the session", c.reps[i].name)
			}
		}
		setDown(true)
		c.everywhere(t, "tools/call with the store down", http.MethodPost, rc.sid, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, 2, func(t *testing.T, r reply, id int) {
			r.want(t, "tools/call with the store down", http.StatusServiceUnavailable, fmt.Sprintf(unavailable, fmt.Sprint(id)))
			if got := r.header.Get("Retry-After"); got != "1" {
				t.Fatalf("Retry-After %q, want 1", got)
			}
		})
		_, err := rc.call(t, ctx, "echo", map[string]string{"text": "x"})
		var se *mcphttp.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("tools/call with the store down: %v, want a 503 StatusError", err)
		}
		setDown(false)
		for i := range c.reps {
			c.aim(i)
			if got, want := rc.text(t, ctx, "echo", map[string]string{"text": "back"}), "back on "+c.reps[i].name; got != want {
				t.Fatalf("echo after the store is back: %q, want %q", got, want)
			}
		}
	})

	t.Run("9 the stateless era across replicas", func(t *testing.T) {
		c := newRRCluster(t, newDeployment, 0)
		rc := c.mustConnect(t, false, true)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		// listen on r2 sees changes made on r1.
		c.aim(1)
		sub, err := rc.cs.Listen(ctx, &mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://r"}})
		if err != nil {
			t.Fatalf("Listen: %v", err)
		}
		served(t, "subscriptions/listen", rc.rec.only(t, "subscriptions/listen"), "r2", http.StatusOK)
		_ = mcp.AddTool(c.reps[0].srv, &mcp.Tool{Name: "later", Description: "later"}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil })
		rc.want(t, "AddTool on r1", "tools/list_changed")
		if err := c.reps[0].srv.ResourceUpdated(ctx, "test://r"); err != nil {
			t.Fatal(err)
		}
		rc.want(t, "ResourceUpdated on r1", "resources/updated test://r")
		_ = sub.Close()

		// MRTR: input_required on r1, the retry with requestState on r2.
		c.aim(0)
		if got, want := rc.text(t, ctx, "ask", struct{}{}), `accept on r2: {"name":"Gopher"}`; got != want {
			t.Fatalf("ask: %q, want %q", got, want)
		}
		calls := rc.rec.find("tools/call")
		if len(calls) != 2 {
			t.Fatalf("%d tools/call, want 2", len(calls))
		}
		served(t, "tools/call", calls[0], "r1", http.StatusOK)
		served(t, "the retry", calls[1], "r2", http.StatusOK)
		if !strings.Contains(calls[1].body, `"requestState":`) || !strings.Contains(calls[1].body, `"inputResponses":{"elicitation/create#1":`) {
			t.Fatalf("the retry on r2: %s, want the answer and the requestState", calls[1].body)
		}

		// A task created on r1, read on r2, updated on r3.
		type taskResult struct {
			ResultType    string          `json:"resultType"`
			TaskID        string          `json:"taskId"`
			Status        string          `json:"status"`
			InputRequests json.RawMessage `json:"inputRequests"`
			Result        json.RawMessage `json:"result"`
		}
		create := func(tool string) string {
			t.Helper()
			c.aim(0)
			var r taskResult
			if err := rc.cs.Call(ctx, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}}, &r); err != nil {
				t.Fatalf("tools/call %s as a task: %v", tool, err)
			}
			if r.ResultType != "task" || r.TaskID == "" || r.Status != "working" {
				t.Fatalf("tools/call %s: %+v, want a working task", tool, r)
			}
			served(t, "tools/call "+tool, rc.rec.last(t, "tools/call"), "r1", http.StatusOK)
			return r.TaskID
		}
		get := func(id string) taskResult {
			t.Helper()
			c.aim(1)
			var r taskResult
			if err := rc.cs.Call(ctx, "tasks/get", map[string]any{"taskId": id}, &r); err != nil {
				t.Fatalf("tasks/get: %v", err)
			}
			served(t, "tasks/get", rc.rec.last(t, "tasks/get"), "r2", http.StatusOK)
			return r
		}
		id := create("task-ask")
		watch, err := rc.cs.Listen(ctx, &mcp.SubscriptionFilter{TaskIDs: []string{id}})
		if err != nil {
			t.Fatalf("Listen for the task: %v", err)
		}
		defer watch.Close()
		// until reads the task on r2 until it is status: again at each of
		// the task's status notifications, and at least every 100 ms
		// (a server need not send them).
		until := func(status string) taskResult {
			t.Helper()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			deadline := time.NewTimer(streamTimeout)
			defer deadline.Stop()
			for {
				if r := get(id); r.Status == status {
					return r
				}
				select {
				case <-rc.got:
				case <-tick.C:
				case <-deadline.C:
					t.Fatalf("the task never reached %s", status)
				}
			}
		}
		r := until("input_required")
		if want := `{"elicitation/create#1":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}`; string(r.InputRequests) != want {
			t.Fatalf("the task's inputRequests on r2: %s\nwant %s", r.InputRequests, want)
		}
		c.aim(2)
		var upd taskResult
		if err := rc.cs.Call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
			"elicitation/create#1": map[string]any{"action": "accept", "content": map[string]string{"name": "Gopher"}},
		}}, &upd); err != nil || upd.ResultType != "complete" {
			t.Fatalf("tasks/update on r3: %+v, %v", upd, err)
		}
		served(t, "tasks/update", rc.rec.only(t, "tasks/update"), "r3", http.StatusOK)
		if got, want := string(until("completed").Result), `{"resultType":"complete","content":[{"type":"text","text":"accept on r1: {\"name\":\"Gopher\"}"}]}`; got != want {
			t.Fatalf("the task's result on r2: %s\nwant %s", got, want)
		}

		// A task blocking on r1, read on r2, cancelled on r3.
		id = create("task-block")
		if got := <-c.started; got != "r1" {
			t.Fatalf("task-block started on %s, want r1", got)
		}
		if st := get(id).Status; st != "working" {
			t.Fatalf("the task is %s on r2, want working", st)
		}
		c.aim(2)
		var cr taskResult
		if err := rc.cs.Call(ctx, "tasks/cancel", map[string]any{"taskId": id}, &cr); err != nil || cr.ResultType != "complete" {
			t.Fatalf("tasks/cancel on r3: %+v, %v", cr, err)
		}
		served(t, "tasks/cancel", rc.rec.only(t, "tasks/cancel"), "r3", http.StatusOK)
		if got := <-c.cancelled; got != "r1" {
			t.Fatalf("task-block cancelled on %s, want r1", got)
		}
		if st := get(id).Status; st != "cancelled" {
			t.Fatalf("the task is %s on r2 after tasks/cancel, want cancelled", st)
		}
	})
}
