package inspect

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// memDial connects to the reference server in memory; each connection
// gets its own server session, closed with the connection.
func memDial(ctx context.Context, t Target, _ io.Writer) (*Dialed, error) {
	client, server := mcp.NewInMemoryTransports()
	ss, err := everything.NewServer(nil).Connect(context.WithoutCancel(ctx), server)
	if err != nil {
		return nil, err
	}
	era := mcp.EraAuto
	if t.Era == "session" {
		era = mcp.EraSession
	}
	return &Dialed{Transport: client, Era: era, Args: "-- mcpkit serve", Release: func() { ss.Close() }}, nil
}

// started is an Inspector serving on 127.0.0.1.
type started struct {
	in   *Inspector
	base string // http://127.0.0.1:PORT
	// sandbox is the sandbox proxy's origin: http://127.0.0.1:PORT.
	sandbox string
}

func start(t *testing.T, opts Options) *started {
	t.Helper()
	leaks := goleak.IgnoreCurrent()
	if opts.Dial == nil {
		opts.Dial = memDial
	}
	in, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := in.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, leaks)
	})
	return &started{in: in, base: "http://" + ln.Addr().String(), sandbox: "http://" + in.SandboxListener().Addr().String()}
}

// do sends a request with the token (unless token is "") and returns the
// status, the body and the headers.
func (s *started) do(t *testing.T, method, path, token, body string, header map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

func TestGuard(t *testing.T) {
	s := start(t, Options{MaxBodyBytes: 64})
	token := s.in.Token()
	port := s.base[strings.LastIndexByte(s.base, ':')+1:]
	forbidden := func(msg string) string { return `{"error":"mcpkit inspect: ` + msg + `"}` + "\n" }
	cases := []struct {
		name, method, path, token, body string
		header                          map[string]string
		status                          int
		want                            string // the body, or a part of it for 200
	}{
		{"page without token", "GET", "/", "", "", nil, 403, forbidden("missing or wrong token: open the URL mcpkit inspect printed")},
		{"page with wrong token", "GET", "/?token=" + strings.Repeat("0", 64), "", "", nil, 403, forbidden("missing or wrong token: open the URL mcpkit inspect printed")},
		{"api without token", "POST", "/api/disconnect", "", "{}", nil, 403, forbidden("missing or wrong token: open the URL mcpkit inspect printed")},
		{"events without token", "GET", "/api/events", "", "", nil, 403, forbidden("missing or wrong token: open the URL mcpkit inspect printed")},
		{"script without token", "GET", "/app.js", "", "", nil, 403, forbidden("missing or wrong token: open the URL mcpkit inspect printed")},
		{"foreign Host (DNS rebinding)", "GET", "/?token=" + token, "", "", map[string]string{"Host": "evil.example:" + port}, 403, forbidden(`Host \"evil.example:` + port + `\" is not the inspector's address`)},
		{"other port", "GET", "/?token=" + token, "", "", map[string]string{"Host": "127.0.0.1:1"}, 403, forbidden(`Host \"127.0.0.1:1\" is not the inspector's address`)},
		{"foreign Origin", "POST", "/api/disconnect", token, "{}", map[string]string{"Origin": "http://evil.example"}, 403, forbidden(`Origin \"http://evil.example\" is not the inspector's page`)},
		{"https Origin of the same host", "POST", "/api/disconnect", token, "{}", map[string]string{"Origin": "https://127.0.0.1:" + port}, 403, forbidden(`Origin \"https://127.0.0.1:` + port + `\" is not the inspector's page`)},
		{"cross-site fetch", "GET", "/app.js?token=" + token, "", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, forbidden("cross-site request")},
		{"not JSON", "POST", "/api/disconnect?token=" + token, "", "", nil, 415, `{"error":"mcpkit inspect: want Content-Type: application/json"}` + "\n"},
		{"body too large", "POST", "/api/disconnect", token, `{"x":"` + strings.Repeat("a", 100) + `"}`, nil, 413, `{"error":"mcpkit inspect: request body too large"}` + "\n"},
		{"unknown member", "POST", "/api/disconnect", token, `{"x":1}`, nil, 400, `{"error":"mcpkit inspect: bad request body: json: unknown field \"x\""}` + "\n"},
		{"not connected", "POST", "/api/request", token, `{"id":"a","method":"ping"}`, nil, 409, `{"error":"mcpkit inspect: not connected to a server"}` + "\n"},
		{"nothing to reconnect", "POST", "/api/reconnect", token, `{}`, nil, 409, `{"error":"mcpkit inspect: nothing to reconnect to: connect first"}` + "\n"},
		{"page", "GET", "/?token=" + token, "", "", nil, 200, `<meta name="mcpkit-token" content="` + token + `">`},
		{"page at localhost", "GET", "/?token=" + token, "", "", map[string]string{"Host": "localhost:" + port, "Origin": "http://localhost:" + port}, 200, `<script src="/app.js?token=` + token + `" defer></script>`},
		{"script", "GET", "/app.js", token, "", nil, 200, `"use strict";`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, h := s.do(t, tc.method, tc.path, tc.token, tc.body, tc.header)
			if status != tc.status {
				t.Fatalf("status %d, want %d; body %q", status, tc.status, body)
			}
			if status == 200 && !strings.Contains(body, tc.want) || status != 200 && body != tc.want {
				t.Errorf("body %q, want %q", body, tc.want)
			}
			// Every answer, refusals included, has the security headers.
			for k, v := range map[string]string{
				"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; connect-src 'self'; frame-src " + s.sandbox + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
				"X-Frame-Options":         "DENY",
				"Cache-Control":           "no-store",
			} {
				if got := h.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	in, err := New(Options{Dial: memDial})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "[::1]:0", "localhost:0"} {
		if ln, err := in.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) accepted", addr)
		} else if !strings.Contains(err.Error(), "want a loopback IPv4 address such as 127.0.0.1:0") {
			t.Errorf("Listen(%q): %v", addr, err)
		}
	}
}

// events reads the page's event stream.
type events struct {
	t    *testing.T
	body io.ReadCloser
	sc   *bufio.Scanner
}

func (s *started) events(t *testing.T) *events {
	t.Helper()
	resp, err := http.Get(s.base + "/api/events?token=" + s.in.Token())
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &events{t: t, body: resp.Body, sc: sc}
}

// next returns the next event of type typ (skipping others) decoded into v.
func (e *events) next(typ string, v any) {
	e.t.Helper()
	var event string
	for e.sc.Scan() {
		line := e.sc.Text()
		if rest, ok := strings.CutPrefix(line, "event: "); ok {
			event = rest
		}
		if rest, ok := strings.CutPrefix(line, "data: "); ok && event == typ {
			if err := json.Unmarshal([]byte(rest), v); err != nil {
				e.t.Fatalf("%s event %s: %v", typ, rest, err)
			}
			return
		}
	}
	e.t.Fatalf("event stream ended before a %s event: %v", typ, e.sc.Err())
}

// TestRequests connects through the API, calls echo, cancels a
// slow_compute and sees every frame on the event stream.
func TestRequests(t *testing.T) {
	s := start(t, Options{})
	ev := s.events(t)
	var st State
	ev.next("reset", &st)
	if st.Status != "disconnected" {
		t.Fatalf("first state %+v", st)
	}
	token := s.in.Token()
	status, body, _ := s.do(t, "POST", "/api/connect", token, `{"command":["mcpkit","serve"],"era":"session"}`, nil)
	if status != 200 {
		t.Fatalf("connect: %d %s", status, body)
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != "connected" || st.ProtocolVersion != mcp.LatestVersion || st.Stateless || st.ServerInfo.Name != everything.Name || st.Capabilities.Tools == nil || st.Args != "-- mcpkit serve" {
		t.Fatalf("connected state %+v", st)
	}
	// The frames of the handshake, as sent.
	var f Frame
	ev.next("message", &f)
	var msg struct {
		Method string `json:"method"`
	}
	json.Unmarshal(f.Frame, &msg)
	if f.Dir != "send" || msg.Method != "initialize" {
		t.Errorf("first frame %s %s", f.Dir, f.Frame)
	}

	status, body, _ = s.do(t, "POST", "/api/request", token, `{"id":"e1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, nil)
	if status != 202 || body != `{"id":"e1"}`+"\n" {
		t.Fatalf("request: %d %s", status, body)
	}
	var res Response
	res = Response{}
	ev.next("response", &res)
	if res.ID != "e1" || res.Error != nil || string(res.Result) != `{"content":[{"type":"text","text":"hi"}]}` {
		t.Errorf("echo response %+v, result %s", res, res.Result)
	}

	// A slow request, cancelled; a second one with the same id meanwhile
	// is refused.
	if status, body, _ = s.do(t, "POST", "/api/request", token, `{"id":"s1","method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":600}}}`, nil); status != 202 {
		t.Fatalf("slow request: %d %s", status, body)
	}
	if status, body, _ = s.do(t, "POST", "/api/request", token, `{"id":"s1","method":"ping"}`, nil); status != 409 || body != `{"error":"mcpkit inspect: a request with id \"s1\" is in flight"}`+"\n" {
		t.Errorf("duplicate id: %d %s", status, body)
	}
	if status, body, _ = s.do(t, "POST", "/api/cancel", token, `{"id":"s1"}`, nil); status != 200 {
		t.Fatalf("cancel: %d %s", status, body)
	}
	res = Response{}
	ev.next("response", &res)
	if res.ID != "s1" || !res.Cancelled || res.Result != nil || res.Error != nil {
		t.Errorf("cancelled response %+v", res)
	}
	if status, body, _ = s.do(t, "POST", "/api/cancel", token, `{"id":"s1"}`, nil); status != 404 || body != `{"error":"mcpkit inspect: no request \"s1\" in flight"}`+"\n" {
		t.Errorf("second cancel: %d %s", status, body)
	}
	// A server error is passed on as it came.
	s.do(t, "POST", "/api/request", token, `{"id":"u1","method":"tools/call","params":{"name":"no_such_tool"}}`, nil)
	res = Response{}
	ev.next("response", &res)
	if res.ID != "u1" || res.Error == nil || res.Error.Code != -32602 {
		t.Errorf("unknown tool: %+v", res)
	}
	if status, body, _ = s.do(t, "POST", "/api/set-level", token, `{"level":"debug"}`, nil); status != 200 || body != `{"level":"debug"}`+"\n" {
		t.Errorf("set-level: %d %s", status, body)
	}
	if status, body, _ = s.do(t, "POST", "/api/set-level", token, `{"level":"loud"}`, nil); status != 400 || body != `{"error":"mcpkit inspect: \"loud\" is not a log level"}`+"\n" {
		t.Errorf("set-level loud: %d %s", status, body)
	}
	if status, body, _ = s.do(t, "POST", "/api/request", token, `{"id":"p","method":"ping","params":[1]}`, nil); status != 400 || body != `{"error":"mcpkit inspect: params must be a JSON object"}`+"\n" {
		t.Errorf("array params: %d %s", status, body)
	}

	status, body, _ = s.do(t, "POST", "/api/disconnect", token, `{}`, nil)
	if status != 200 || !strings.Contains(body, `"status":"disconnected"`) {
		t.Errorf("disconnect: %d %s", status, body)
	}
	status, body, _ = s.do(t, "POST", "/api/reconnect", token, `{}`, nil)
	if status != 200 || !strings.Contains(body, `"status":"connected"`) {
		t.Errorf("reconnect: %d %s", status, body)
	}
}

// TestInFlightBound: past MaxInFlight requests at once, 429.
func TestInFlightBound(t *testing.T) {
	s := start(t, Options{MaxInFlight: 1, Initial: &Target{Era: "session"}})
	ev := s.events(t)
	token := s.in.Token()
	// The initial connect may end before the stream opens: the reset
	// then holds the connected state and no state event follows.
	var st State
	for ev.next("reset", &st); st.Status != "connected"; ev.next("state", &st) {
		if st.Status == "failed" {
			t.Fatalf("initial connect: %+v", st)
		}
	}
	if status, body, _ := s.do(t, "POST", "/api/request", token, `{"id":"a","method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":600}}}`, nil); status != 202 {
		t.Fatalf("first: %d %s", status, body)
	}
	status, body, _ := s.do(t, "POST", "/api/request", token, `{"id":"b","method":"ping"}`, nil)
	if status != 429 || body != `{"error":"mcpkit inspect: 1 requests in flight already (the most there may be)"}`+"\n" {
		t.Errorf("second: %d %s", status, body)
	}
	// Closing the inspector (the cleanup) ends the slow request.
}

// TestAsksAPI: the server's elicitation and sampling requests wait for the
// page's answer; roots must be file:// URIs.
func TestAsksAPI(t *testing.T) {
	s := start(t, Options{})
	ev := s.events(t)
	token := s.in.Token()
	if status, body, _ := s.do(t, "POST", "/api/connect", token, `{"command":["mcpkit","serve"],"era":"session"}`, nil); status != 200 || !strings.Contains(body, `"connected"`) {
		t.Fatalf("connect: %d %s", status, body)
	}
	s.do(t, "POST", "/api/request", token, `{"id":"e","method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who?"}}}`, nil)
	var ask Ask
	ev.next("ask", &ask)
	if ask.Kind != "elicitation" || !strings.Contains(string(ask.Params), `"message":"Who?"`) {
		t.Fatalf("ask %+v %s", ask, ask.Params)
	}
	if status, body, _ := s.do(t, "POST", "/api/answer", token, `{"id":"`+ask.ID+`","result":{"action":"accept","content":{"username":"ada","email":"a@b.c"}}}`, nil); status != 200 {
		t.Fatalf("answer: %d %s", status, body)
	}
	if status, body, _ := s.do(t, "POST", "/api/answer", token, `{"id":"`+ask.ID+`","result":{"action":"decline"}}`, nil); status != 404 || body != `{"error":"mcpkit inspect: no request \"`+ask.ID+`\" waits for an answer"}`+"\n" {
		t.Errorf("second answer: %d %s", status, body)
	}
	var res Response
	ev.next("response", &res)
	if res.ID != "e" || !strings.Contains(string(res.Result), `User response: action=accept, content={\"username\":\"ada\",\"email\":\"a@b.c\"}`) {
		t.Errorf("elicitation result %s %+v", res.Result, res.Error)
	}

	s.do(t, "POST", "/api/request", token, `{"id":"s","method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"2+2?"}}}`, nil)
	ask = Ask{}
	ev.next("ask", &ask)
	if ask.Kind != "sampling" {
		t.Fatalf("ask %+v", ask)
	}
	s.do(t, "POST", "/api/answer", token, `{"id":"`+ask.ID+`","reject":true}`, nil)
	res = Response{}
	ev.next("response", &res)
	if !strings.Contains(string(res.Result), `"isError":true`) || !strings.Contains(string(res.Result), "User rejected sampling request") {
		t.Errorf("rejected sampling result %s", res.Result)
	}

	if status, body, _ := s.do(t, "POST", "/api/roots", token, `{"roots":[{"uri":"https://example.com"}]}`, nil); status != 400 || body != `{"error":"mcpkit inspect: every root must be a file:// URI"}`+"\n" {
		t.Errorf("https root: %d %s", status, body)
	}
	if status, body, _ := s.do(t, "POST", "/api/roots", token, `{"roots":[{"uri":"file:///p","name":"P"}]}`, nil); status != 200 || body != `{"live":true,"roots":[{"uri":"file:///p","name":"P"}]}`+"\n" {
		t.Errorf("roots: %d %s", status, body)
	}
}

// TestValidateAPI: /api/validate checks a value against a JSON Schema
// and says what breaks it; a schema that cannot be used is said to be so.
func TestValidateAPI(t *testing.T) {
	s := start(t, Options{})
	token := s.in.Token()
	schema := `{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}`
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"match", `{"schema":` + schema + `,"value":{"t":1.5}}`, 200, `{"valid":true}`},
		{"wrong type", `{"schema":` + schema + `,"value":{"t":"warm"}}`, 200, ``},
		{"missing", `{"schema":` + schema + `,"value":{}}`, 200, ``},
		{"bad schema", `{"schema":{"type":7},"value":{}}`, 200, ``},
		{"no value", `{"schema":` + schema + `}`, 400, `{"error":"mcpkit inspect: want a schema and a value"}`},
	}
	for _, tc := range cases {
		status, body, _ := s.do(t, "POST", "/api/validate", token, tc.body, nil)
		body = strings.TrimSuffix(body, "\n")
		if status != tc.status {
			t.Errorf("%s: status %d %s, want %d", tc.name, status, body, tc.status)
			continue
		}
		if tc.want != "" && body != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, body, tc.want)
		}
		var v Validation
		if status == 200 {
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatal(err)
			}
		}
		switch tc.name {
		case "wrong type":
			if v.Valid || v.SchemaError || !strings.Contains(v.Error, "t") || !strings.Contains(v.Error, "number") {
				t.Errorf("%s: %+v", tc.name, v)
			}
		case "missing":
			if v.Valid || v.SchemaError || !strings.Contains(v.Error, `"t"`) {
				t.Errorf("%s: %+v", tc.name, v)
			}
		case "bad schema":
			if v.Valid || !v.SchemaError || !strings.HasPrefix(v.Error, "the output schema: ") {
				t.Errorf("%s: %+v", tc.name, v)
			}
		}
	}
	// Without the token, like every other request: 403.
	if status, _, _ := s.do(t, "POST", "/api/validate", "", `{"schema":{},"value":1}`, nil); status != 403 {
		t.Errorf("without the token: %d", status)
	}
}

// TestLoginAPI: AuthorizeInBrowser shows the page the authorization URL
// and returns the redirect that reaches /oauth/callback (without the
// token, but with the inspector's Host), once; a second login while one
// waits fails; Cancel in the page fails the login.
func TestLoginAPI(t *testing.T) {
	s := start(t, Options{})
	ev := s.events(t)
	token := s.in.Token()
	if got, want := s.in.OAuthRedirectURL(), s.base+"/oauth/callback"; got != want {
		t.Errorf("OAuthRedirectURL %q, want %q", got, want)
	}
	type outcome struct {
		u   *url.URL
		err error
	}
	authorize := func() chan outcome {
		ch := make(chan outcome, 1)
		go func() {
			u, err := s.in.AuthorizeInBrowser(context.Background(), "https://as.example/authorize?state=s1")
			ch <- outcome{u, err}
		}()
		var l Login
		ev.next("login", &l)
		if l.URL != "https://as.example/authorize?state=s1" {
			t.Fatalf("login event %+v", l)
		}
		return ch
	}

	done := authorize()
	if _, err := s.in.AuthorizeInBrowser(context.Background(), "https://as.example/other"); err == nil || err.Error() != "mcpkit inspect: another login waits for the browser already" {
		t.Errorf("second login: %v", err)
	}
	// A foreign Host is refused even here.
	if status, _, _ := s.do(t, "GET", "/oauth/callback?code=c&state=s1", "", "", map[string]string{"Host": "rebind.test"}); status != 403 {
		t.Errorf("callback through another Host: %d", status)
	}
	status, body, h := s.do(t, "GET", "/oauth/callback?code=c&state=s1", "", "", nil)
	if status != 200 || body != "mcpkit inspect: the authorization server answered; close this tab and go back to the inspector.\n" || h.Get("Content-Security-Policy") == "" {
		t.Errorf("callback: %d %q %v", status, body, h)
	}
	if o := <-done; o.err != nil || o.u.String() != s.base+"/oauth/callback?code=c&state=s1" {
		t.Errorf("AuthorizeInBrowser: %v %v", o.u, o.err)
	}
	if status, body, _ := s.do(t, "GET", "/oauth/callback?code=c&state=s1", "", "", nil); status != 409 || body != "mcpkit inspect: no login waits for an answer\n" {
		t.Errorf("second callback: %d %q", status, body)
	}

	done = authorize()
	if status, body, _ := s.do(t, "POST", "/api/login-cancel", token, `{}`, nil); status != 200 {
		t.Errorf("login-cancel: %d %s", status, body)
	}
	if o := <-done; o.err == nil || o.err.Error() != "mcpkit inspect: the login was cancelled in the page" {
		t.Errorf("cancelled login: %v %v", o.u, o.err)
	}
	if status, body, _ := s.do(t, "POST", "/api/login-cancel", token, `{}`, nil); status != 404 || body != `{"error":"mcpkit inspect: no login waits"}`+"\n" {
		t.Errorf("login-cancel with none: %d %s", status, body)
	}
}
