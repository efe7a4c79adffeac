package everything_test

// Issue 25 item 1: member names are read exactly, and never twice, on
// every transport the reference server is served on. A gateway or policy
// that reads a message byte for byte must see the request the server
// runs: a member whose name differs from a field's only by case or by
// Unicode folding ("Name", "argumentſ") is not that field, and a name
// repeated in any object of a message (however it is spelled: "\u006eame"
// is "name") refuses the message, so that no "last one wins" can run
// another tool than the one the gateway saw.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/mcpsse"
)

// exactWait bounds every wait of these tests: a watchdog, not a timing
// assertion.
const exactWait = 30 * time.Second

// toolLog records the tools that ran on a reference server whose echo and
// test_simple_text are replaced by recording twins.
type toolLog struct {
	mu  sync.Mutex
	ran []string
}

func (l *toolLog) add(s string) {
	l.mu.Lock()
	l.ran = append(l.ran, s)
	l.mu.Unlock()
}

// take returns what ran since the last take.
func (l *toolLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ran := l.ran
	l.ran = nil
	return ran
}

// exactServer is the reference server with echo and test_simple_text
// recording each run ("echo:<text>", "test_simple_text") and answering as
// the fixtures do. Echo keeps its typed input, so that its arguments go
// through the typed argument decoder.
func exactServer(t *testing.T) (*mcp.Server, *toolLog) {
	t.Helper()
	s := everything.NewServer(nil)
	log := new(toolLog)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in everything.EchoArgs) (string, error) {
		log.add("echo:" + in.Text)
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(&mcp.Tool{Name: "test_simple_text"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		log.add("test_simple_text")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "This is a simple text response for testing."}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s, log
}

// modernMetaMembers are the _meta members of a 2026-07-28 request.
const modernMetaMembers = `"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"exact-client","version":"1.0.0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}`

// modernParams returns params (a JSON object as the session era sends it)
// with the 2026-07-28 _meta members: put first into its _meta object when
// it has one, or as a new _meta member first.
func modernParams(params string) string {
	if i := strings.Index(params, `"_meta":{`); i >= 0 {
		i += len(`"_meta":{`)
		sep := ","
		if params[i] == '}' {
			sep = ""
		}
		return params[:i] + modernMetaMembers + sep + params[i:]
	}
	if strings.TrimSpace(params) == "{}" {
		return `{"_meta":{` + modernMetaMembers + `}}`
	}
	return `{"_meta":{` + modernMetaMembers + `},` + strings.TrimPrefix(params, "{")
}

// rawReply is what a transport answered to one message: the HTTP status
// of the POST (0 on stdio) and the JSON-RPC response.
type rawReply struct {
	status int
	body   string
}

// rawConn is one client connection speaking raw JSON-RPC to the server.
type rawConn interface {
	// call sends one message and returns its reply; method and name are
	// what the 2026-07-28 era's Mcp-Method and Mcp-Name headers say.
	call(t *testing.T, msg, method, name string) rawReply
	// modern says the connection speaks the 2026-07-28 era: params carry
	// its _meta.
	modern() bool
}

// rawTransport opens a connection to s, ready for tools/call.
type rawTransport struct {
	name string
	open func(t *testing.T, s *mcp.Server) rawConn
}

var rawTransports = []rawTransport{
	{"stdio", openStdio},
	{"stdio-2026", openStdioModern},
	{"streamable-session", openStreamableSession},
	{"streamable-2026", openStreamableModern},
	{"sse", openSSE},
}

const exactInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"exact-client","version":"1.0.0"}}}`
const exactInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// stdioConn is a session of the server over the stdio transport on two
// pipes.
type stdioConn struct {
	in       *io.PipeWriter
	lines    chan string
	isModern bool
}

func openStdio(t *testing.T, s *mcp.Server) rawConn {
	c := connectStdio(t, s)
	c.send(t, exactInit)
	if got := c.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	c.send(t, exactInitialized)
	return c
}

// openStdioModern is a stdio connection that never initializes: each
// request is served in the 2026-07-28 era its _meta names.
func openStdioModern(t *testing.T, s *mcp.Server) rawConn {
	c := connectStdio(t, s)
	c.isModern = true
	return c
}

func connectStdio(t *testing.T, s *mcp.Server) *stdioConn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := s.Connect(context.Background(), &mcp.StdioTransport{In: inR, Out: outW})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	c := &stdioConn{in: inW, lines: make(chan string, 16)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(c.lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			c.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		ss.Wait()
		outW.Close()
		<-read
	})
	return c
}

func (c *stdioConn) send(t *testing.T, line string) {
	t.Helper()
	if _, err := c.in.Write([]byte(line + "\n")); err != nil {
		t.Fatalf("writing %s: %v", line, err)
	}
}

func (c *stdioConn) recv(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			t.Fatal("the server closed stdout")
		}
		return line
	case <-time.After(exactWait):
		t.Fatal("no answer on stdout")
	}
	return ""
}

func (c *stdioConn) call(t *testing.T, msg, _, _ string) rawReply {
	t.Helper()
	c.send(t, msg)
	return rawReply{body: c.recv(t)}
}

func (c *stdioConn) modern() bool { return c.isModern }

// httpConn posts to a Streamable HTTP handler: in a session (sid set) or,
// in the 2026-07-28 era, without one.
type httpConn struct {
	url, sid string
	isModern bool
}

func serveHTTP(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return ts.URL
}

func openStreamableSession(t *testing.T, s *mcp.Server) rawConn {
	h := mcphttp.NewHandler(s, nil)
	t.Cleanup(func() { h.Close() })
	c := &httpConn{url: serveHTTP(t, h)}
	resp, body := c.post(t, exactInit, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	if resp, body := c.post(t, exactInitialized, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return c
}

func openStreamableModern(t *testing.T, s *mcp.Server) rawConn {
	h := mcphttp.NewHandler(s, nil)
	t.Cleanup(func() { h.Close() })
	return &httpConn{url: serveHTTP(t, h), isModern: true}
}

// post sends one message and returns the response and the JSON-RPC
// message it carries (the first event's data if it is an SSE stream).
func (c *httpConn) post(t *testing.T, msg string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var data []string
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		if len(data) != 1 {
			t.Fatalf("SSE response with %d messages: %q", len(data), raw)
		}
		return resp, data[0]
	}
	return resp, strings.TrimSpace(string(raw))
}

func (c *httpConn) call(t *testing.T, msg, method, name string) rawReply {
	t.Helper()
	var header map[string]string
	if c.isModern {
		header = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			header["Mcp-Name"] = name
		}
	}
	resp, body := c.post(t, msg, header)
	return rawReply{status: resp.StatusCode, body: body}
}

func (c *httpConn) modern() bool { return c.isModern }

// sseConn is a session of the HTTP+SSE transport (2024-11-05): replies
// arrive as message events on the GET stream.
type sseConn struct {
	endpoint string
	events   chan [2]string // name, data
}

func openSSE(t *testing.T, s *mcp.Server) rawConn {
	c := openSSEStream(t, s)
	if r := c.call(t, exactInit, "", ""); r.status != http.StatusAccepted || !strings.HasPrefix(r.body, `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	if status := c.post(t, exactInitialized); status != http.StatusAccepted {
		t.Fatalf("initialized: %d", status)
	}
	return c
}

// openSSEStream opens an SSE stream and reads its endpoint.
func openSSEStream(t *testing.T, s *mcp.Server) *sseConn {
	h := mcpsse.NewHandler(s, &mcpsse.Options{MessagePath: "/messages"})
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	mux.Handle("/messages", h)
	base := serveHTTP(t, mux)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	c := &sseConn{events: make(chan [2]string, 16)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(c.events)
		r := bufio.NewReader(resp.Body)
		var name, data string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				if name != "" || data != "" {
					c.events <- [2]string{name, data}
				}
				name, data = "", ""
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-read
		h.Close()
	})
	ev := c.next(t)
	if ev[0] != "endpoint" {
		t.Fatalf("first event %q, want endpoint", ev)
	}
	c.endpoint = base + ev[1]
	return c
}

func (c *sseConn) next(t *testing.T) [2]string {
	t.Helper()
	select {
	case ev, ok := <-c.events:
		if !ok {
			t.Fatal("the SSE stream ended")
		}
		return ev
	case <-time.After(exactWait):
		t.Fatal("no event on the SSE stream")
	}
	return [2]string{}
}

func (c *sseConn) post(t *testing.T, msg string) int {
	t.Helper()
	resp, err := http.Post(c.endpoint, "application/json", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); len(b) != 0 {
		t.Errorf("POST answered %d with a body: %s", resp.StatusCode, b)
	}
	return resp.StatusCode
}

func (c *sseConn) call(t *testing.T, msg, _, _ string) rawReply {
	t.Helper()
	status := c.post(t, msg)
	ev := c.next(t)
	if ev[0] != "message" {
		t.Fatalf("event %q, want a message", ev)
	}
	return rawReply{status: status, body: ev[1]}
}

func (c *sseConn) modern() bool { return false }

// Where a refusal is made, which decides the HTTP status of Streamable
// HTTP: jsonrpc.Decode refuses before the request reaches the server
// (400), the server's decode of params answers it (200).
const (
	atDecode   = 400
	atDispatch = 200
)

// exactCase is one message and its exact answer.
type exactCase struct {
	name string
	// msg is the message, with %s for params; "" is a tools/call with id 7.
	msg    string
	params string
	// method and header are the Mcp-Method and Mcp-Name headers of the
	// 2026-07-28 era; "" is tools/call and echo.
	method, header string
	// want is the answer; stage is where it is made; ran is what ran.
	want  string
	stage int
	ran   []string
	// headerWant and headerStatus, when set, are the answer over
	// Streamable HTTP in the 2026-07-28 era, whose headers are checked
	// against the body.
	headerWant   string
	headerStatus int
}

// Answers the cases share.
const (
	errName = `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: unknown member \"Name\" (member names are case-sensitive; the field is \"name\")"}}`
	errArgs = `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: unknown member \"argumentſ\" (member names are case-sensitive; the field is \"arguments\")"}}`
)

// dupEnvelope is the answer to a message whose envelope repeats name.
func dupEnvelope(id, name string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request","data":"Invalid Request: duplicate member \"` + name + `\""}}`
}

// dupParams is the answer to a request whose params repeat name in the
// object at pointer.
func dupParams(name, pointer string) string {
	return `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"Invalid params: duplicate member \"` + name + `\" in ` + pointer + `"}}`
}

// headerMismatch is the 2026-07-28 era's answer to a body without the
// member Mcp-Name mirrors.
func headerMismatch(member string) string {
	return `{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header is present but the request body has no params.` + member + `","data":{"header":"Mcp-Name"}}}`
}

var exactCases = []exactCase{
	// The probes of issue 25.
	{name: "Name", params: `{"Name":"echo","arguments":{"text":"x"}}`,
		want: errName, stage: atDispatch,
		// The body has no "name" for Mcp-Name to mirror.
		headerWant: headerMismatch("name"), headerStatus: 400},
	{name: "name and Name", params: `{"name":"echo","Name":"test_simple_text","arguments":{"text":"x"}}`,
		want: errName, stage: atDispatch},
	{name: "name and Name, Mcp-Name the hidden tool", params: `{"name":"echo","Name":"test_simple_text","arguments":{"text":"x"}}`, header: "test_simple_text",
		want: errName, stage: atDispatch,
		headerWant: `{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header value 'test_simple_text' does not match body value 'echo'","data":{"header":"Mcp-Name"}}}`, headerStatus: 400},
	{name: "URI", msg: `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":%s}`, params: `{"URI":"test://static-text"}`,
		method: "resources/read", header: "test://static-text",
		want:       `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: unknown member \"URI\" (member names are case-sensitive; the field is \"uri\")"}}`,
		stage:      atDispatch,
		headerWant: headerMismatch("uri"), headerStatus: 400},
	{name: "method twice", msg: `{"jsonrpc":"2.0","id":7,"method":"ping","method":"tools/call","params":%s}`, params: `{"name":"test_simple_text"}`,
		want: dupEnvelope("7", "method"), stage: atDecode},
	{name: "id twice", msg: `{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/call","params":%s}`, params: `{"name":"test_simple_text"}`,
		want: dupEnvelope("null", "id"), stage: atDecode},
	{name: "jsonrpc twice", msg: `{"jsonrpc":"2.0","jsonrpc":"2.0","id":7,"method":"tools/call","params":%s}`, params: `{"name":"test_simple_text"}`,
		want: dupEnvelope("7", "jsonrpc"), stage: atDecode},
	{name: "params twice", msg: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"params":%s}`, params: `{"name":"test_simple_text"}`,
		want: dupEnvelope("7", "params"), stage: atDecode},
	{name: "params.name twice", params: `{"name":"echo","name":"test_simple_text","arguments":{"text":"x"}}`,
		want: dupParams("name", "/params"), stage: atDecode},
	{name: "argument twice", params: `{"name":"echo","arguments":{"text":"x","text":"y"}}`,
		want: dupParams("text", "/params/arguments"), stage: atDecode},
	{name: "_meta member twice", params: `{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":"a","progressToken":"b"}}`,
		want: dupParams("progressToken", "/params/_meta"), stage: atDecode},
	{name: "twice deep in _meta", params: `{"name":"echo","arguments":{"text":"x"},"_meta":{"x.example/deep":[{"a":1,"a":2}]}}`,
		want: dupParams("a", "/params/_meta/x.example~1deep/0"), stage: atDecode},

	// Escaped spellings are the names they decode to.
	{name: "escaped name twice", params: `{"name":"echo","\u006eame":"test_simple_text","arguments":{"text":"x"}}`,
		want: dupParams("name", "/params"), stage: atDecode},
	{name: "escaped method twice", msg: `{"jsonrpc":"2.0","id":7,"method":"ping","\u006dethod":"tools/call","params":%s}`, params: `{"name":"test_simple_text"}`,
		want: dupEnvelope("7", "method"), stage: atDecode},
	{name: "escaped names", params: `{"\u006eame":"echo","arguments":{"\u0074ext":"x"}}`,
		want: `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}`, stage: atDispatch, ran: []string{"echo:x"}},

	// Unicode folds: ſ (U+017F) folds to s, K (U+212A) to k.
	{name: "argumentſ", params: `{"name":"echo","argument\u017f":{"text":"x"}}`,
		want: errArgs, stage: atDispatch},
	{name: "argumentſ beside arguments", params: `{"name":"echo","arguments":{"text":"x"},"argumentſ":{"text":"y"}}`,
		want: errArgs, stage: atDispatch},
	{name: "tasK", params: `{"name":"echo","arguments":{"text":"x"},"tas\u212a":{"ttl":1000}}`,
		want:  `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: unknown member \"tas` + "\u212a" + `\" (member names are case-sensitive; the field is \"task\")"}}`,
		stage: atDispatch},
	{name: "progreſsToken", params: `{"name":"echo","arguments":{"text":"x"},"_meta":{"progre\u017fsToken":"a"}}`,
		want:  `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"invalid params: unknown member \"progreſsToken\" (member names are case-sensitive; the field is \"progressToken\") at /_meta"}}`,
		stage: atDispatch},
	{name: "Text", params: `{"name":"echo","arguments":{"Text":"x"}}`,
		want:  `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"invalid arguments for tool echo: arguments: unexpected property \"Text\""}],"isError":true}}`,
		stage: atDispatch},
	{name: "prompt argumentſ", msg: `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":%s}`, params: `{"name":"test_prompt_with_arguments","argument\u017f":{"arg1":"a","arg2":"b"}}`,
		method: "prompts/get", header: "test_prompt_with_arguments",
		want: errArgs, stage: atDispatch},
	{name: "prompt Name", msg: `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":%s}`, params: `{"name":"test_simple_prompt","Name":"test_prompt_with_arguments"}`,
		method: "prompts/get", header: "test_simple_prompt",
		want: errName, stage: atDispatch},
}

// modernStamp is what the reference server puts first in a 2026-07-28
// result of tools/call.
const modernStamp = `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpkit-everything","title":"mcpkit reference server","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite."}}`

// TestExactNamesServer sends each case on each transport and checks the
// exact answer, what ran (never test_simple_text, which every case hides
// behind echo), and that the session still serves a tools/call after.
func TestExactNamesServer(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	for _, tr := range rawTransports {
		t.Run(tr.name, func(t *testing.T) {
			s, log := exactServer(t)
			c := tr.open(t, s)
			for i, tc := range exactCases {
				t.Run(tc.name, func(t *testing.T) {
					msg, method, name := tc.msg, tc.method, tc.header
					if msg == "" {
						msg = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":%s}`
					}
					if method == "" {
						method = "tools/call"
					}
					if name == "" {
						name = "echo"
					}
					params := tc.params
					if c.modern() {
						params = modernParams(params)
					}
					want, status := tc.want, 0
					if c.modern() {
						want = strings.Replace(want, `"result":{`, `"result":{`+modernStamp+",", 1)
					}
					switch tr.name {
					case "streamable-session":
						status = tc.stage
					case "streamable-2026":
						status = tc.stage
						if tc.headerWant != "" {
							want, status = tc.headerWant, tc.headerStatus
						}
					case "sse":
						status = http.StatusAccepted
					}
					got := c.call(t, fmt.Sprintf(msg, params), method, name)
					if got.body != want || got.status != status {
						t.Errorf("answered %d %s\nwant     %d %s", got.status, got.body, status, want)
					}
					if ran := log.take(); !slices.Equal(ran, tc.ran) {
						t.Errorf("ran %q, want %q", ran, tc.ran)
					}

					// The session goes on.
					text := fmt.Sprintf("after %d", i)
					after := `{"jsonrpc":"2.0","id":"after","method":"tools/call","params":` + echoParams(c.modern(), text) + `}`
					wantAfter := `{"jsonrpc":"2.0","id":"after","result":{"content":[{"type":"text","text":"` + text + `"}]}}`
					if c.modern() {
						wantAfter = `{"jsonrpc":"2.0","id":"after","result":{` + modernStamp + `,"content":[{"type":"text","text":"` + text + `"}]}}`
					}
					if got := c.call(t, after, "tools/call", "echo"); got.body != wantAfter {
						t.Errorf("the next call was answered %d %s\nwant %s", got.status, got.body, wantAfter)
					}
					if ran := log.take(); !slices.Equal(ran, []string{"echo:" + text}) {
						t.Errorf("the next call ran %q", ran)
					}
				})
			}
		})
	}
}

func echoParams(modern bool, text string) string {
	p := `{"name":"echo","arguments":{"text":` + strconvQuote(text) + `}}`
	if modern {
		p = modernParams(p)
	}
	return p
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestExactNamesServerToClient: the client's response to a request from
// the server (list_roots's roots/list) that repeats a member, in its
// envelope or its result, or names "Roots" for "roots", fails the
// server's call at once, is answered by nothing, and the session goes on.
func TestExactNamesServerToClient(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	const init = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"exact-client","version":"1.0.0"}}}`
	cases := []struct{ name, answer, want string }{
		{"result twice", `"result":{"roots":[]},"result":{"roots":[{"uri":"file:///etc"}]}`,
			`mcp: roots/list: the client's response was refused: Invalid Request: duplicate member "result"`},
		{"jsonrpc twice", `"jsonrpc":"2.0","result":{"roots":[]}`,
			`mcp: roots/list: the client's response was refused: Invalid Request: duplicate member "jsonrpc"`},
		{"roots twice", `"result":{"roots":[],"roots":[{"uri":"file:///etc"}]}`,
			`mcp: roots/list: the client's response was refused: Invalid Request: duplicate member "roots" in /result`},
		{"uri twice", `"result":{"roots":[{"uri":"file:///a","uri":"file:///etc"}]}`,
			`mcp: roots/list: the client's response was refused: Invalid Request: duplicate member "uri" in /result/roots/0`},
		{"Roots", `"result":{"Roots":[{"uri":"file:///etc"}]}`,
			`mcp: decoding roots/list result: unknown member "Roots" (member names are case-sensitive; the field is "roots")`},
	}
	for _, tr := range []struct {
		name string
		open func(t *testing.T, s *mcp.Server) (send func(string), recv func() string)
	}{
		{"stdio", func(t *testing.T, s *mcp.Server) (func(string), func() string) {
			c := connectStdio(t, s)
			return func(m string) { c.send(t, m) }, func() string { return c.recv(t) }
		}},
		{"sse", func(t *testing.T, s *mcp.Server) (func(string), func() string) {
			c := openSSEStream(t, s)
			return func(m string) {
					if status := c.post(t, m); status != http.StatusAccepted {
						t.Errorf("POST %s: %d", m, status)
					}
				}, func() string {
					ev := c.next(t)
					if ev[0] != "message" {
						t.Fatalf("event %q", ev)
					}
					return ev[1]
				}
		}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			s, _ := exactServer(t)
			send, recv := tr.open(t, s)
			send(init)
			if got := recv(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"init","result":`) {
				t.Fatalf("initialize: %s", got)
			}
			send(exactInitialized)
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_roots"}}`, i))
					var req struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
					}
					if got := recv(); json.Unmarshal([]byte(got), &req) != nil || req.Method != "roots/list" {
						t.Fatalf("got %s, want roots/list", got)
					}
					send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,` + tc.answer + `}`)
					want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%s}],"isError":true}}`, i, strconvQuote(tc.want))
					if got := recv(); got != want {
						t.Errorf("list_roots answered %s\nwant %s", got, want)
					}
					// The session goes on: nothing else was sent.
					send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
					if got := recv(); got != `{"jsonrpc":"2.0","id":"after","result":{}}` {
						t.Errorf("ping answered %s", got)
					}
				})
			}
		})
	}
}
