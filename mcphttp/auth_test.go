package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/mcp"
)

// testAuthenticate accepts "Bearer <user>" for alice and bob, as tokens of
// one issuer.
func testAuthenticate(r *http.Request) (*mcp.TokenInfo, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer alice":
		return &mcp.TokenInfo{Issuer: "https://as.example", Subject: "alice", Scopes: []string{"mcp"}}, nil
	case "Bearer bob":
		return &mcp.TokenInfo{Issuer: "https://as.example", Subject: "bob", Scopes: []string{"mcp"}}, nil
	}
	return nil, &refusal{status: http.StatusUnauthorized, challenge: `Bearer resource_metadata="x"`, text: "Unauthorized: an access token is required"}
}

// refusal is an AuthRefusal, as *auth.BearerError is (package auth's
// tests run the real one through a handler).
type refusal struct {
	status          int
	challenge, text string
}

func (e *refusal) Error() string           { return "refused: " + e.text }
func (e *refusal) HTTPStatus() int         { return e.status }
func (e *refusal) WWWAuthenticate() string { return e.challenge }
func (e *refusal) Text() string            { return e.text }

// authFixture serves a server with a task tool ("quick") and a tool that
// reports who called it ("whoami"), behind testAuthenticate, with
// resumable streams.
func authFixture(t *testing.T, opts *Options) (*fixture, *atomic.Int32) {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "auth", Version: "1"}, nil)
	var ran atomic.Int32
	must(t, s.AddTool(&mcp.Tool{Name: "quick", Description: "quick", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "quick"}}}, nil
		}))
	must(t, s.AddTool(&mcp.Tool{Name: "whoami", Description: "whoami"},
		func(_ context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			ran.Add(1)
			who := "nobody"
			if r.Extra != nil && r.Extra.Auth != nil {
				who = r.Extra.Auth.OwnerKey()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who}}}, nil
		}))
	if opts == nil {
		opts = &Options{}
	}
	opts.Authenticate = testAuthenticate
	h := NewHandler(s, opts)
	clock := newFakeClock()
	h.reg.now = clock.now
	srv := httptest.NewServer(h)
	f := &fixture{t: t, h: h, srv: srv, url: srv.URL + "/mcp", clock: clock}
	f.done = func() {
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
	}
	return f, &ran
}

// as sends a request with user's token (none if "") on session sid.
func (f *fixture) as(user, method, sid string, extra hdrs, body string) *reply {
	f.t.Helper()
	h := hdrs{}
	if user != "" {
		h["Authorization"] = "Bearer " + user
	}
	if sid != "" {
		h["Mcp-Session-Id"] = sid
	}
	for k, v := range extra {
		h[k] = v
	}
	return f.do(method, h, body)
}

// initAs opens a 2025-11-25 session for user.
func (f *fixture) initAs(user string) string {
	f.t.Helper()
	r := f.as(user, http.MethodPost, "", nil, initBody)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		f.t.Fatalf("initialize as %s: status %d, body %s", user, r.status, r.body)
	}
	if r := f.as(user, http.MethodPost, sid, nil, initializedN); r.status != http.StatusAccepted {
		f.t.Fatalf("initialized as %s: status %d", user, r.status)
	}
	return sid
}

func resultText(t *testing.T, r *reply) string {
	t.Helper()
	m := r.message(t)
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("no text result: %s", r.body)
	}
	return res.Content[0].Text
}

// TestAuthSessionBinding: a session created by alice is, for bob (and for
// a request without a token), exactly an unknown session, on every method;
// it is neither touched nor evicted; alice keeps using it.
func TestAuthSessionBinding(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, ran := authFixture(t, &Options{EventStore: &MemoryEventStore{}, IdleTimeout: time.Minute, ReapInterval: -1})
	defer f.done()
	sid := f.initAs("alice")

	// A request of alice's makes events to resume from.
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami"}}`
	r := f.as("alice", http.MethodPost, sid, nil, call)
	if got := resultText(t, r); got != "user:https://as.example|alice" {
		t.Fatalf("whoami = %q", got)
	}
	lastID := r.events[len(r.events)-1].id
	if lastID == "" {
		t.Fatalf("no event id: %s", r.body)
	}

	unknown := f.as("bob", http.MethodPost, "no-such-session", nil, pingBody)
	if unknown.status != http.StatusNotFound {
		t.Fatalf("unknown session: %d", unknown.status)
	}
	before := ran.Load()
	// The call's goroutine lets go of the session (and marks it active)
	// just after its response is written: wait for it, so that touched
	// is the session's last activity.
	f.h.reg.wg.Wait()
	f.h.reg.mu.Lock()
	touched := f.h.reg.entries[sid].lastActive
	ss := f.h.reg.entries[sid].ss
	f.h.reg.mu.Unlock()
	if st := ss.State(); st.Owner != "user:https://as.example|alice" {
		t.Fatalf("SessionState.Owner = %q", st.Owner)
	}
	f.clock.advance(2 * time.Minute) // alice's session is now idle-expired
	for _, c := range []struct {
		name, user, method string
		h                  hdrs
		body               string
	}{
		{"request", "bob", http.MethodPost, nil, pingBody},
		{"tool call", "bob", http.MethodPost, nil, strings.Replace(call, `"id":2`, `"id":1`, 1)},
		{"notification", "bob", http.MethodPost, nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`},
		{"response", "bob", http.MethodPost, nil, `{"jsonrpc":"2.0","id":"s-1","result":{}}`},
		{"subscribe", "bob", http.MethodPost, nil, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///x"}}`},
		{"GET", "bob", http.MethodGet, nil, ""},
		{"resume", "bob", http.MethodGet, hdrs{"Last-Event-ID": lastID}, ""},
		{"DELETE", "bob", http.MethodDelete, nil, ""},
	} {
		got := f.as(c.user, c.method, sid, c.h, c.body)
		want := http.StatusNotFound
		if got.status != want || got.body != unknown.body && !strings.Contains(got.body, `"code":-32001,"message":"Session not found"`) {
			t.Errorf("%s as bob: %d %s, want %d as for an unknown session (%s)", c.name, got.status, got.body, want, unknown.body)
		}
	}
	if got := f.as("", http.MethodPost, sid, nil, pingBody); got.status != http.StatusUnauthorized || got.header.Get("WWW-Authenticate") != `Bearer resource_metadata="x"` {
		t.Errorf("no token: %d %q", got.status, got.header.Get("WWW-Authenticate"))
	}
	if n := ran.Load(); n != before {
		t.Errorf("a handler ran for bob")
	}
	f.h.reg.mu.Lock()
	e := f.h.reg.entries[sid]
	f.h.reg.mu.Unlock()
	if e == nil || e.lastActive != touched {
		t.Fatalf("bob's requests changed alice's session: entry %v", e)
	}
	// Alice's own request finds it expired: nothing of bob's kept it alive.
	if got := f.as("alice", http.MethodPost, sid, nil, pingBody); got.status != http.StatusNotFound {
		t.Fatalf("alice after expiry: %d", got.status)
	}

	// A fresh session of alice's: her resume works, bob's does not.
	sid = f.initAs("alice")
	r = f.as("alice", http.MethodPost, sid, nil, call)
	lastID = r.events[0].id
	if got := f.as("bob", http.MethodGet, sid, hdrs{"Last-Event-ID": lastID}, ""); got.status != http.StatusNotFound {
		t.Fatalf("bob resumes alice's stream: %d %s", got.status, got.body)
	}
	if got := f.as("alice", http.MethodGet, sid, hdrs{"Last-Event-ID": lastID}, ""); got.status != http.StatusOK || len(got.events) == 0 {
		t.Fatalf("alice resumes her stream: %d %s", got.status, got.body)
	}
	if got := f.as("alice", http.MethodDelete, sid, nil, ""); got.status != http.StatusNoContent {
		t.Fatalf("alice's DELETE: %d", got.status)
	}
}

// TestAuthTaskOwner: with TaskOptions.Owner nil, a task belongs to the
// user who created it: bob cannot read, list, wait on or cancel it from
// his session; alice reaches it from another session, and after the
// session that created it is gone.
func TestAuthTaskOwner(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, _ := authFixture(t, &Options{JSONResponse: true})
	defer f.done()
	a1 := f.initAs("alice")
	r := f.as("alice", http.MethodPost, a1, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","task":{}}}`)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.body), &created); err != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("no task created: %d %s", r.status, r.body)
	}
	id := created.Result.Task.TaskID

	b := f.initAs("bob")
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		body := `{"jsonrpc":"2.0","id":3,"method":"` + m + `","params":{"taskId":"` + id + `"}}`
		got := f.as("bob", http.MethodPost, b, nil, body)
		if got.status != http.StatusOK || !strings.Contains(got.body, `"error":{"code":-32602`) {
			t.Errorf("bob's %s of alice's task: %d %s", m, got.status, got.body)
		}
	}
	got := f.as("bob", http.MethodPost, b, nil, `{"jsonrpc":"2.0","id":4,"method":"tasks/list","params":{}}`)
	if strings.Contains(got.body, id) {
		t.Errorf("bob's tasks/list shows alice's task: %s", got.body)
	}

	if got := f.as("alice", http.MethodDelete, a1, nil, ""); got.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d", got.status)
	}
	a2 := f.initAs("alice")
	got = f.as("alice", http.MethodPost, a2, nil, `{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)
	if got.status != http.StatusOK || !strings.Contains(got.body, `"text":"quick"`) {
		t.Fatalf("alice's tasks/result from another session: %d %s", got.status, got.body)
	}
}

// TestAuthStatelessEra: a 2026-07-28 request carries its verified token to
// the handler, and one without a token runs nothing.
func TestAuthStatelessEra(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, ran := authFixture(t, &Options{JSONResponse: true})
	defer f.done()
	body := mbody("1", "tools/call", `{"name":"whoami","arguments":{}}`)
	h := statelessHeaders(body)
	r := f.as("bob", http.MethodPost, "", h, body)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if got := resultText(t, r); got != "user:https://as.example|bob" {
		t.Fatalf("whoami = %q", got)
	}
	before := ran.Load()
	if r := f.as("", http.MethodPost, "", h, body); r.status != http.StatusUnauthorized || ran.Load() != before {
		t.Fatalf("without a token: %d, handler ran %v", r.status, ran.Load() != before)
	}
}

// TestAuthSessionlessTasks: in stateless mode, where every request has a
// session of its own, an authenticated user's tasks outlive the request
// that created them and are that user's alone.
func TestAuthSessionlessTasks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, _ := authFixture(t, &Options{Stateless: true, JSONResponse: true})
	defer f.done()
	v := hdrs{"MCP-Protocol-Version": "2025-11-25"}
	r := f.as("alice", http.MethodPost, "", v, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !strings.Contains(r.body, `"tasks":{`) {
		t.Fatalf("initialize declares no tasks: %s", r.body)
	}
	r = f.as("alice", http.MethodPost, "", v, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","task":{}}}`)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.body), &created); err != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("no task created: %d %s", r.status, r.body)
	}
	id := created.Result.Task.TaskID
	get := `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"` + id + `"}}`
	if got := f.as("bob", http.MethodPost, "", v, get); !strings.Contains(got.body, `"error":{"code":-32602`) {
		t.Errorf("bob's tasks/result: %s", got.body)
	}
	if got := f.as("alice", http.MethodPost, "", v, get); !strings.Contains(got.body, `"text":"quick"`) {
		t.Errorf("alice's tasks/result: %s", got.body)
	}
}

// TestAuthHooksFail: an Authenticate that fails with an error of its own
// or panics refuses the request with 401 "Bearer"; a RequiredScopes that
// panics refuses it with 403; no handler runs.
func TestAuthHooksFail(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := mcp.NewServer(mcp.Implementation{Name: "auth", Version: "1"}, nil)
	var ran atomic.Int32
	must(t, s.AddTool(&mcp.Tool{Name: "echo", Description: "echo"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return &mcp.CallToolResult{}, nil
	}))
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`
	for _, c := range []struct {
		name            string
		opts            Options
		status          int
		challenge, body string
	}{
		{"error", Options{Authenticate: func(*http.Request) (*mcp.TokenInfo, error) { return nil, context.DeadlineExceeded }},
			401, "Bearer", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Unauthorized"}}`},
		{"panic", Options{Authenticate: func(*http.Request) (*mcp.TokenInfo, error) { panic("boom") }},
			401, "Bearer", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Unauthorized"}}`},
		{"wrapped refusal", Options{Authenticate: func(*http.Request) (*mcp.TokenInfo, error) {
			return nil, fmtErr(&refusal{status: http.StatusBadRequest, challenge: `Bearer realm="x"`, text: "Bad Request: two tokens"})
		}}, 400, `Bearer realm="x"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: two tokens"}}`},
		{"refusal without challenge", Options{Authenticate: func(*http.Request) (*mcp.TokenInfo, error) {
			return nil, &refusal{status: http.StatusServiceUnavailable, text: "Service Unavailable"}
		}}, 503, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable"}}`},
		{"scopes panic", Options{
			Authenticate:   func(*http.Request) (*mcp.TokenInfo, error) { return &mcp.TokenInfo{Subject: "a"}, nil },
			RequiredScopes: func(string, string) []string { panic("boom") },
		}, 403, `Bearer error="insufficient_scope"`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"Forbidden: the scopes tools/call requires could not be determined"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.opts
			o.Stateless, o.JSONResponse = true, true
			h := NewHandler(s, &o)
			defer h.Close()
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(call))
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != c.status || w.Header().Get("WWW-Authenticate") != c.challenge || w.Body.String() != c.body {
				t.Errorf("got %d %q %s\nwant %d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body, c.status, c.challenge, c.body)
			}
			if ran.Load() != 0 {
				t.Errorf("the handler ran")
			}
		})
	}
}

// fmtErr wraps err, as a hook that adds context would.
func fmtErr(err error) error { return fmt.Errorf("checking the token: %w", err) }

// TestAuthBatchScopes: a 2025-03-26 batch holding a request whose token
// lacks its scope is refused whole, before any of it runs.
func TestAuthBatchScopes(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, ran := authFixture(t, &Options{JSONResponse: true, RequiredScopes: func(method, name string) []string {
		if method == "tools/call" && name == "whoami" {
			return []string{"mcp", "who"}
		}
		return nil
	}})
	defer f.done()
	r := f.as("alice", http.MethodPost, "", nil, initBodyVersion("2025-03-26"))
	sid := r.header.Get("Mcp-Session-Id")
	f.as("alice", http.MethodPost, sid, nil, initializedN)
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quick"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami"}}]`
	r = f.as("alice", http.MethodPost, sid, hdrs{"MCP-Protocol-Version": "2025-03-26"}, batch)
	if r.status != http.StatusForbidden || r.header.Get("WWW-Authenticate") != `Bearer error="insufficient_scope", scope="mcp who"` ||
		r.body != `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Forbidden: tools/call requires the scopes who, which the access token does not grant"}}` {
		t.Fatalf("batch: %d %q %s", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
	if ran.Load() != 0 {
		t.Fatalf("%d handlers ran", ran.Load())
	}
}
