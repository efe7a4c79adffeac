package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// authGate is an MCP endpoint behind a bearer check: a request without
// "Authorization: Bearer <token>" gets 401 with a challenge; a tools/call
// whose token forbid names gets 403 insufficient_scope. It records every
// request as "METHOD rpc-method Authorization".
type authGate struct {
	next http.Handler

	mu     sync.Mutex
	token  string
	forbid map[string]bool
	seen   []string
}

func (g *authGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(body, &m)
	authz := r.Header.Get("Authorization")
	g.mu.Lock()
	g.seen = append(g.seen, strings.TrimSpace(r.Method+" "+m.Method+" "+authz))
	token, forbidden := g.token, g.forbid[authz]
	g.mu.Unlock()
	switch {
	case authz != "Bearer "+token && !forbidden:
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/prm", scope="read"`)
		http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
	case forbidden && m.Method == "tools/call":
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="write"`)
		http.Error(w, `{"error":"insufficient_scope"}`, http.StatusForbidden)
	default:
		g.next.ServeHTTP(w, r)
	}
}

func (g *authGate) requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.seen)
}

// scriptAuthorizer presents its current token and, on Reauthorize, takes
// the next one of its script (or fails with err once the script is out).
type scriptAuthorizer struct {
	mu      sync.Mutex
	token   string
	script  []string
	err     error
	calls   []string // "status scope" per Reauthorize
	panicAt string   // "authorize" or "reauthorize"
}

func (a *scriptAuthorizer) Authorize(_ context.Context, req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.panicAt == "authorize" {
		panic("boom")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	return nil
}

func (a *scriptAuthorizer) Reauthorize(_ context.Context, req *http.Request, resp *http.Response) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.panicAt == "reauthorize" {
		panic("boom")
	}
	cs, _ := parseTestChallenge(resp.Header.Get("WWW-Authenticate"))
	a.calls = append(a.calls, http.StatusText(resp.StatusCode)+" "+cs)
	if len(a.script) == 0 {
		return a.err
	}
	a.token, a.script = a.script[0], a.script[1:]
	return nil
}

func parseTestChallenge(h string) (string, bool) {
	i := strings.Index(h, `scope="`)
	if i < 0 {
		return "", false
	}
	rest := h[i+len(`scope="`):]
	return rest[:strings.IndexByte(rest, '"')], true
}

func (a *scriptAuthorizer) reauthorizations() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

// authServer serves an echo tool behind an authGate; stop (idempotent)
// closes the server and the handler.
func authServer(t *testing.T, token string) (*authGate, *httptest.Server, func()) {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "auth-test", Version: "1"}, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.Request, in clientEchoIn) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(s, nil)
	g := &authGate{next: h, token: token, forbid: map[string]bool{}}
	ts := httptest.NewServer(g)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ts.Close()
			h.Close()
		})
	}
	t.Cleanup(stop)
	return g, ts, stop
}

func connectAuth(t *testing.T, url string, era mcp.ProtocolEra, a Authorizer) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(mcp.Implementation{Name: "auth-client", Version: "1"}, &mcp.ClientOptions{ProtocolEra: era})
	return c.Connect(context.Background(), &ClientTransport{URL: url, Authorizer: a})
}

// A 401 makes the transport reauthorize and send the request again, in
// both eras; every later request (the GET stream and the DELETE
// included) carries the new token.
func TestClientAuthorizerRetriesAfter401(t *testing.T) {
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraAuto} {
		t.Run(map[mcp.ProtocolEra]string{mcp.EraSession: "session", mcp.EraAuto: "stateless"}[era], func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			g, ts, stop := authServer(t, "t1")
			defer stop()
			a := &scriptAuthorizer{script: []string{"t1"}}
			cs, err := connectAuth(t, ts.URL, era, a)
			if err != nil {
				t.Fatal(err)
			}
			if got := callEcho(t, cs, "hi"); got != "hi" {
				t.Fatalf("echo = %q", got)
			}
			cs.Close()
			if got := a.reauthorizations(); !slices.Equal(got, []string{"Unauthorized read"}) {
				t.Fatalf("reauthorizations %q", got)
			}
			reqs := g.requests()
			first := "POST initialize"
			if era == mcp.EraAuto {
				first = "POST server/discover"
			}
			if reqs[0] != first || reqs[1] != first+" Bearer t1" {
				t.Fatalf("requests %q", reqs)
			}
			for _, r := range reqs[1:] {
				if !strings.HasSuffix(r, " Bearer t1") {
					t.Fatalf("request %q without the token; all: %q", r, reqs)
				}
			}
			if era == mcp.EraSession && (!slices.Contains(reqs, "GET  Bearer t1") || !slices.Contains(reqs, "DELETE  Bearer t1")) {
				t.Fatalf("no authorized GET stream or DELETE: %q", reqs)
			}
		})
	}
}

// A 403 insufficient_scope reauthorizes (step-up); a 403 without it does
// not.
func TestClientAuthorizerStepUp(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g, ts, stop := authServer(t, "t2")
	defer stop()
	g.forbid["Bearer t1"] = true
	a := &scriptAuthorizer{token: "t1", script: []string{"t2"}}
	cs, err := connectAuth(t, ts.URL, mcp.EraSession, a)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := callEcho(t, cs, "up"); got != "up" {
		t.Fatalf("echo = %q", got)
	}
	if got := a.reauthorizations(); !slices.Equal(got, []string{"Forbidden write"}) {
		t.Fatalf("reauthorizations %q", got)
	}
}

// A request still refused after MaxAuthAttempts reauthorizations fails
// with an *AuthError (errors.Is ErrUnauthorized): 3 reauthorizations, 4
// POSTs of the call.
func TestClientAuthorizerRetryLimit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g, ts, stop := authServer(t, "good")
	defer stop()
	for _, tok := range []string{"t1", "t2", "t3", "t4"} {
		g.forbid["Bearer "+tok] = true
	}
	a := &scriptAuthorizer{token: "good", script: []string{"t1", "t2", "t3", "t4"}}
	cs, err := connectAuth(t, ts.URL, mcp.EraSession, a)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	a.mu.Lock()
	a.token = "t0"
	g.mu.Lock()
	g.forbid["Bearer t0"] = true
	g.seen = nil
	g.mu.Unlock()
	a.mu.Unlock()
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	var ae *AuthError
	if !errors.Is(err, ErrUnauthorized) || !errors.As(err, &ae) {
		t.Fatalf("err %v, want an *AuthError", err)
	}
	if ae.StatusCode != 403 || ae.Attempts != 3 || ae.Err != nil {
		t.Fatalf("AuthError %+v", ae)
	}
	want := "mcphttp: HTTP 403: unauthorized (insufficient_scope): still refused after 3 authorization attempt(s) (ClientTransport.MaxAuthAttempts)"
	if ae.Error() != want {
		t.Fatalf("message %q", ae.Error())
	}
	if got := a.reauthorizations(); len(got) != 3 {
		t.Fatalf("reauthorizations %q", got)
	}
	calls := 0
	for _, r := range g.requests() {
		if strings.HasPrefix(r, "POST tools/call") {
			calls++
		}
	}
	if calls != 4 {
		t.Fatalf("%d POSTs of the call: %q", calls, g.requests())
	}
}

// A refused authorization is an *AuthError wrapping the Authorizer's
// error; the request is not sent again.
func TestClientAuthorizerRefused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g, ts, stop := authServer(t, "t1")
	defer stop()
	errNo := errors.New("user said no")
	a := &scriptAuthorizer{err: errNo}
	_, err := connectAuth(t, ts.URL, mcp.EraSession, a)
	var ae *AuthError
	if !errors.Is(err, ErrUnauthorized) || !errors.Is(err, errNo) || !errors.As(err, &ae) || ae.StatusCode != 401 || ae.Attempts != 1 {
		t.Fatalf("err %v", err)
	}
	if got := g.requests(); !slices.Equal(got, []string{"POST initialize"}) {
		t.Fatalf("requests %q", got)
	}
}

// A panicking Authorizer is an error, not a crash.
func TestClientAuthorizerPanics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, at := range []string{"authorize", "reauthorize"} {
		_, ts, stop := authServer(t, "t1")
		_, err := connectAuth(t, ts.URL, mcp.EraSession, &scriptAuthorizer{panicAt: at})
		stop()
		if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "panicked: boom") {
			t.Fatalf("%s: err %v", at, err)
		}
	}
}
