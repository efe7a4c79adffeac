package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// The 2026-07-28 era's streams: notifications before the result, no
// server-to-client requests, cancellation by disconnection,
// subscriptions/listen, and the session era beside it on one endpoint.

// frame is a JSON-RPC message as a test reads it.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func frames(t *testing.T, events []event) []frame {
	t.Helper()
	var out []frame
	for _, d := range dataOf(events) {
		var f frame
		if err := json.Unmarshal([]byte(d), &f); err != nil {
			t.Fatalf("event %q: %v", d, err)
		}
		out = append(out, f)
	}
	return out
}

// A handler's progress and log notifications travel on its POST's stream
// before the result; without a log level in _meta nothing is logged.
func TestStatelessReplyStream(t *testing.T) {
	s := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{Logging: &mcp.LoggingOptions{}})
	must(t, s.AddTool(&mcp.Tool{Name: "chatty"}, chatty))
	f := fixtureFor(t, s, nil)
	withLevel := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info","progressToken":"p"}`
	r := mpost(nil, mbodyMeta("1", "tools/call", `{"name":"chatty","arguments":{}}`, withLevel))(f)
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("status %d, headers %v", r.status, r.header)
	}
	var got []string
	for _, fr := range frames(t, r.events) {
		if fr.Method != "" {
			got = append(got, fr.Method)
		} else {
			got = append(got, "result "+string(fr.ID))
		}
	}
	equalStrings(t, "frames", got, []string{"notifications/progress", "notifications/progress", "notifications/message", "result 1"})

	noLevel := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}`
	r = mpost(nil, mbodyMeta("2", "tools/call", `{"name":"chatty","arguments":{}}`, noLevel))(f)
	got = nil
	for _, fr := range frames(t, r.events) {
		got = append(got, fr.Method)
	}
	equalStrings(t, "frames without a log level", got, []string{"notifications/progress", "notifications/progress", ""})
}

// No server-to-client request travels on a 2026-07-28 stream: a handler
// that tries one gets an error at once.
func TestStatelessNoServerRequests(t *testing.T) {
	for _, opts := range []*Options{nil, {JSONResponse: true}} {
		f := newStatelessFixture(t, opts)
		r := mpost(nil, mbody("9", "tools/call", `{"name":"ask","arguments":{}}`))(f)
		fs := []frame{}
		if r.events != nil {
			fs = frames(t, r.events)
		} else {
			var fr frame
			json.Unmarshal([]byte(r.body), &fr)
			fs = append(fs, fr)
		}
		for _, fr := range fs[:len(fs)-1] {
			if !strings.HasPrefix(fr.Method, "notifications/") {
				t.Errorf("a frame that is not a notification: %+v", fr)
			}
		}
		var res mcp.CallToolResult
		json.Unmarshal(fs[len(fs)-1].Result, &res)
		if r.status != 200 || !res.IsError {
			t.Errorf("ask: %d %s", r.status, r.body)
		}
	}
}

// Closing the response stream cancels a 2026-07-28 request (the session
// era lets its handler run on).
func TestStatelessDisconnectCancels(t *testing.T) {
	for _, opts := range []*Options{nil, {JSONResponse: true}, {Stateless: true}} {
		f := newStatelessFixture(t, opts)
		ctx, cancel := context.WithCancel(context.Background())
		body := mbody("10", "tools/call", `{"name":"block"}`)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(body))
		for k, v := range statelessHeaders(body) {
			req.Header.Set(k, v)
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		done := make(chan struct{})
		go func() {
			// A JSON reply has no headers before its body: Do returns
			// only once the request is cancelled.
			if resp, err := f.srv.Client().Do(req); err == nil {
				resp.Body.Close()
			}
			close(done)
		}()
		<-f.tools.started
		cancel()
		<-done
		if err := <-f.tools.ended; err != context.Canceled {
			t.Errorf("%+v: the handler's context after the client left: %v", opts, err)
		}
	}
}

// readFrame reads SSE events until one with data, counting the comments
// (keep-alives) on the way.
func readFrame(t *testing.T, br *bufio.Reader) (frame, int) {
	t.Helper()
	comments := 0
	for {
		e, err := nextEvent(br)
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if e.comment && e.data == "" {
			comments++
			continue
		}
		var f frame
		if err := json.Unmarshal([]byte(e.data), &f); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		return f, comments
	}
}

func subscriptionID(t *testing.T, params json.RawMessage) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

// subscriptions/listen streams (even in JSON response mode): the
// acknowledgement first, then the notifications asked for, each tagged
// with the subscription id, keep-alive comments while quiet; it ends when
// the client leaves or the handler closes, and leaves nothing behind.
func TestStatelessListen(t *testing.T) {
	for _, opts := range []*Options{{KeepAlive: time.Millisecond}, {KeepAlive: time.Millisecond, JSONResponse: true}, {KeepAlive: time.Millisecond, Stateless: true}} {
		t.Run("", func(t *testing.T) { testListen(t, opts) })
	}
}

func testListen(t *testing.T, opts *Options) {
	s, tl := newTestServer(t)
	must(t, s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}))
	h := NewHandler(s, opts)
	srv := newLoopbackServer(t, h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL, tools: tl, clock: newFakeClock()}

	listen := func(ctx context.Context, id, filter string) (*http.Response, *bufio.Reader) {
		body := mbody(id, "subscriptions/listen", `{"notifications":`+filter+`}`)
		resp := f.open(ctx, http.MethodPost, statelessHeaders(body), body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
			resp.Header.Get("X-Accel-Buffering") != "no" || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("listen: %d %v", resp.StatusCode, resp.Header)
		}
		return resp, bufio.NewReader(resp.Body)
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	respA, brA := listen(ctxA, `"a"`, `{"toolsListChanged":true}`)
	defer respA.Body.Close()
	respB, brB := listen(context.Background(), "7", `{"promptsListChanged":true,"resourcesListChanged":true}`)
	defer respB.Body.Close()

	ack, _ := readFrame(t, brA)
	if ack.Method != "notifications/subscriptions/acknowledged" || subscriptionID(t, ack.Params) != `"a"` ||
		!strings.Contains(string(ack.Params), `"notifications":{"toolsListChanged":true}`) {
		t.Fatalf("A's first frame: %s %s", ack.Method, ack.Params)
	}
	ack, _ = readFrame(t, brB)
	// No resources: their list cannot change, so that is not honoured.
	if ack.Method != "notifications/subscriptions/acknowledged" || subscriptionID(t, ack.Params) != "7" ||
		!strings.Contains(string(ack.Params), `"notifications":{"promptsListChanged":true}`) {
		t.Fatalf("B's first frame: %s %s", ack.Method, ack.Params)
	}

	// A quiet stream gets keep-alives; then the tools change, then the
	// prompts.
	readComment(t, brA)
	must(t, s.AddTool(&mcp.Tool{Name: "added"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}))
	must(t, s.AddPrompt(&mcp.Prompt{Name: "added"}, func(context.Context, *mcp.Request, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}))
	n, _ := readFrame(t, brA)
	if n.Method != "notifications/tools/list_changed" || subscriptionID(t, n.Params) != `"a"` {
		t.Errorf("A: %s %s", n.Method, n.Params)
	}
	n, _ = readFrame(t, brB)
	if n.Method != "notifications/prompts/list_changed" || subscriptionID(t, n.Params) != "7" {
		t.Errorf("B (filtered to prompts): %s %s", n.Method, n.Params)
	}
	if c := h.SessionCount(); c != 0 || len(s.Sessions()) != 0 {
		t.Errorf("%d sessions, %d on the server", c, len(s.Sessions()))
	}

	// A leaves; Close ends B with the subscription's result.
	cancelA()
	respA.Body.Close()
	h.Close()
	n, _ = readFrame(t, brB)
	if string(n.ID) != "7" || string(n.Result) != `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/subscriptionId":7}}` {
		t.Errorf("B's last frame: %s %s %s", n.ID, n.Result, n.Error)
	}
	if _, err := nextEvent(brB); err == nil {
		t.Errorf("B goes on after its result")
	}
	respB.Body.Close()
	srv.Close()
	goleak.VerifyNone(t)
}

// readComment reads until a comment line.
func readComment(t *testing.T, br *bufio.Reader) {
	t.Helper()
	for {
		e, err := nextEvent(br)
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if e.comment {
			return
		}
		t.Fatalf("an event while waiting for a keep-alive: %q", e.data)
	}
}

// listen needs an SSE stream: in JSON response mode a client that accepts
// only JSON is refused.
func TestStatelessListenNeedsSSE(t *testing.T) {
	f := newStatelessFixture(t, &Options{JSONResponse: true})
	body := mbody("1", "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`)
	h := statelessHeaders(body)
	h["Accept"] = "application/json"
	r := f.do(http.MethodPost, h, body)
	checkRefusal(t, r, 406, -32000, "Not Acceptable: Accept must include application/json and text/event-stream")
	if id := string(r.message(t)["id"]); id != "1" {
		t.Errorf("id %s", id)
	}
}

// One endpoint serves both eras: a session initialized with 2025-11-25,
// 2026-07-28 POSTs beside it with no session id, then the session's own
// requests again, each answered in its era.
func TestStatelessEraSelection(t *testing.T) {
	f := newStatelessFixture(t, nil)
	sid := f.initialize("2025-11-25")

	for _, body := range []string{
		mbody("1", "server/discover", ""),
		mbody("2", "tools/list", ""),
		mbody("3", "tools/call", `{"name":"echo","arguments":{"text":"modern"}}`),
	} {
		r := mpost(nil, body)(f)
		m := r.message(t)
		if r.status != 200 || r.header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(m["result"]), `"resultType":"complete"`) {
			t.Errorf("stateless-era %s: %d %s", body, r.status, r.body)
		}
	}
	// The session era on the session: no resultType, ping served, the
	// session unchanged.
	r := f.post(sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy"}}}`)
	if r.status != 200 || string(r.message(t)["result"]) != `{"content":[{"type":"text","text":"legacy"}]}` {
		t.Errorf("legacy tools/call: %d %s", r.status, r.body)
	}
	if r := f.post(sid, pingBody); r.status != 200 || string(r.message(t)["result"]) != "{}" {
		t.Errorf("legacy ping: %d %s", r.status, r.body)
	}
	// A legacy request without a session is still refused as before.
	r = f.post("", pingBody)
	checkRefusal(t, r, 400, -32000, sessionReqMsg)
	// A 2026-07-28 request that names the live session is served on its
	// own terms, and the session lives on.
	r = mpost(hdrs{"Mcp-Session-Id": sid}, mbody("5", "tools/list", ""))(f)
	if r.status != 200 || !strings.Contains(string(r.message(t)["result"]), `"resultType":"complete"`) {
		t.Errorf("stateless-era on the session: %d %s", r.status, r.body)
	}
	r = mpost(hdrs{"Mcp-Session-Id": sid}, mbody("6", "ping", ""))(f)
	checkRefusal(t, r, 404, -32601, "Method not found")
	if r := f.post(sid, pingBody); r.status != 200 {
		t.Errorf("legacy ping after: %d %s", r.status, r.body)
	}
	if n := f.h.SessionCount(); n != 1 || len(f.h.server.Sessions()) != 1 {
		t.Errorf("%d sessions, %d on the server; want 1", n, len(f.h.server.Sessions()))
	}
	st := f.sessionState(t, sid)
	if st.ProtocolVersion != "2025-11-25" || st.Lifecycle != "ready" {
		t.Errorf("session state changed: %+v", st)
	}
}

// Stateless traffic takes no room under the session cap: with room for
// one session, many 2026-07-28 POSTs come before and after it.
func TestStatelessSessionCapUntouched(t *testing.T) {
	f := newStatelessFixture(t, &Options{MaxSessions: 1})
	for i := 0; i < 20; i++ {
		if r := mpost(nil, mbody("1", "tools/list", ""))(f); r.status != 200 {
			t.Fatalf("stateless-era request %d: %d %s", i, r.status, r.body)
		}
	}
	f.initialize("2025-11-25")
	for i := 0; i < 20; i++ {
		if r := mpost(nil, mbody("1", "tools/list", ""))(f); r.status != 200 {
			t.Fatalf("stateless-era request %d at the cap: %d %s", i, r.status, r.body)
		}
	}
	if r := f.post("", initBody); r.status != 503 {
		t.Errorf("a second initialize: %d, want 503", r.status)
	}
	if n := f.h.SessionCount(); n != 1 {
		t.Errorf("%d sessions", n)
	}
}

// The conformance suite's dns-rebinding-protection probes with
// server/discover, and server-sse-multiple-streams POSTs tools/list three
// times at once.
func TestStatelessConformanceProbes(t *testing.T) {
	f := newStatelessFixture(t, nil)
	body := mbody("1", "server/discover", "")
	evil := statelessHeaders(body)
	evil["Host"] = "evil.example.com"
	evil["Origin"] = "http://evil.example.com"
	r := f.do(http.MethodPost, evil, body)
	checkRefusal(t, r, 403, -32000, "Forbidden: Host not allowed: evil.example.com")
	if r := mpost(nil, body)(f); r.status != 200 {
		t.Errorf("discover from the server's own host: %d %s", r.status, r.body)
	}

	g := newStatelessFixture(t, &Options{Stateless: true})
	var wg sync.WaitGroup
	status := make([]int, 3)
	for i := range status {
		wg.Go(func() { status[i] = mpost(nil, mbody("1", "tools/list", ""))(g).status })
	}
	wg.Wait()
	for i, s := range status {
		if s != 200 {
			t.Errorf("concurrent tools/list %d: %d", i, s)
		}
	}
}

// initialize selects the session era even when its MCP-Protocol-Version
// header names 2026-07-28 (a client falling back after a stateless-era probe):
// it opens a session at the newest session-era version.
func TestStatelessInitializeFallback(t *testing.T) {
	for _, opts := range []*Options{nil, {Stateless: true}} {
		f := newStatelessFixture(t, opts)
		r := f.do(http.MethodPost, hdrs{"MCP-Protocol-Version": "2026-07-28"}, initBodyVersion("2026-07-28"))
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(r.message(t)["result"], &res)
		if r.status != 200 || res.ProtocolVersion != "2025-11-25" {
			t.Errorf("%+v: initialize: %d %s", opts, r.status, r.body)
		}
		if got, want := r.header.Get("Mcp-Session-Id") != "", opts == nil; got != want {
			t.Errorf("%+v: Mcp-Session-Id present %v", opts, got)
		}
	}
}
