package mcphttp_test

// Tests of the client transport in the stateless era (2026-07-28): the
// probe and fallback over HTTP, the request metadata headers on every
// POST, tools with invalid x-mcp-header annotations dropped, multi
// round-trip requests, subscriptions/listen and cancellation, against
// mcpkit's own Handler and against small fake servers.

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
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

const watchdog = 30 * time.Second

var statelessClientInfo = mcp.Implementation{Name: "modern-client", Version: "1"}

// seen is one HTTP request a fake server got.
type seen struct {
	method string
	header http.Header
	body   string
}

// fakeHTTP is an httptest server that records every request and answers
// with reply.
type fakeHTTP struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

func newFakeHTTP(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, body string)) *fakeHTTP {
	t.Helper()
	f := &fakeHTTP{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{r.Method, r.Header.Clone(), string(b)})
		f.mu.Unlock()
		reply(w, r, string(b))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeHTTP) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// idOf returns the id of a JSON-RPC request body, as JSON.
func idOf(body string) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	return string(m.ID)
}

func methodOf(body string) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	return m.Method
}

const fakeDiscover = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{},"prompts":{}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}}`

// The tools of the header tests: test_custom_headers has every kind of
// mirrored argument; the invalid ones break one x-mcp-header rule each.
const headerTools = `{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[` +
	`{"name":"test_custom_headers","inputSchema":{"type":"object","properties":{` +
	`"region":{"type":"string","x-mcp-header":"Region"},` +
	`"priority":{"type":"integer","x-mcp-header":"Priority"},` +
	`"verbose":{"type":"boolean","x-mcp-header":"Verbose"},` +
	`"empty":{"type":"string","x-mcp-header":"EmptyVal"},` +
	`"greeting":{"type":"string","x-mcp-header":"Greeting"},` +
	`"padded":{"type":"string","x-mcp-header":"Text"},` +
	`"sentinel":{"type":"string","x-mcp-header":"Val"},` +
	`"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},` +
	`"float_val":{"type":"number"},` +
	`"query":{"type":"string"}}}},` +
	`{"name":"invalid_number_header","inputSchema":{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}}},` +
	`{"name":"invalid_duplicate","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}},` +
	`{"name":"invalid_space","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"My Region"}}}},` +
	`{"name":"invalid_under_items","inputSchema":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}},` +
	`{"name":"caf\u00e9 tool","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}` +
	`]}`

// headerServer is a fake stateless-era server for the header tests; it
// sends an Mcp-Session-Id the client must ignore.
func headerServer(t *testing.T) *fakeHTTP {
	return newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Mcp-Session-Id", "must-be-ignored")
		id := idOf(body)
		switch methodOf(body) {
		case "server/discover":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":`+fakeDiscover+`}`)
		case "tools/list":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":`+headerTools+`}`)
		case "resources/read":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"contents":[]}}`)
		case "prompts/get":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"messages":[]}}`)
		default:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
		}
	})
}

func connectStateless(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(statelessClientInfo, opts).Connect(context.Background(), &mcphttp.ClientTransport{URL: url})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if !cs.Stateless() {
		t.Fatalf("the session is not stateless")
	}
	return cs
}

// mcpHeaders returns the MCP headers of a request, canonical names, with
// the Mcp-Param ones.
func mcpHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if strings.HasPrefix(k, "Mcp-") {
			out[k] = strings.Join(v, "|")
		}
	}
	return out
}

func wantHeaders(t *testing.T, what string, got http.Header, want map[string]string) {
	t.Helper()
	g := mcpHeaders(got)
	if len(g) != len(want) {
		t.Errorf("%s: MCP headers = %q, want %q", what, g, want)
		return
	}
	for k, v := range want {
		if g[k] != v {
			t.Errorf("%s: MCP headers = %q, want %q", what, g, want)
			return
		}
	}
}

func TestStatelessHeadersOnEveryPost(t *testing.T) {
	noLeaks(t)
	f := headerServer(t)
	cs := connectStateless(t, f.URL, nil)
	ctx := context.Background()

	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	// The tools with invalid annotations are gone; the others are kept,
	// their schemas byte for byte.
	if !slices.Equal(names, []string{"test_custom_headers", "café tool"}) {
		t.Errorf("tools = %q, want the two valid ones", names)
	}
	if want := `{"type":"object","properties":{"q":{"type":"string"}}}`; string(res.Tools[1].InputSchema) != want {
		t.Errorf("schema = %s, want %s", res.Tools[1].InputSchema, want)
	}

	args := `{"region":"us-west1","priority":42,"verbose":false,"empty":"","greeting":"Hello, 世界","padded":" padded ","sentinel":"=?base64?literal?=","target":{"zone":"b"},"float_val":3.14,"query":"SELECT 1"}`
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_custom_headers", Arguments: json.RawMessage(args)}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	// null and absent arguments: no header.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_custom_headers", Arguments: json.RawMessage(`{"region":"eu","priority":4.2e1,"verbose":null}`)}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "café tool", Arguments: json.RawMessage(`{"q":"x"}`)}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///path/to/file%20name.txt"}); err != nil {
		t.Fatalf("ReadResource: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///données"}); err != nil {
		t.Fatalf("ReadResource: %v", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "my-hyphenated-prompt"}); err != nil {
		t.Fatalf("GetPrompt: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}

	reqs := f.requests()
	wantMethods := []string{"server/discover", "tools/list", "tools/call", "tools/call", "tools/call", "resources/read", "resources/read", "prompts/get"}
	if len(reqs) != len(wantMethods) {
		t.Fatalf("%d requests, want %d (POSTs only: no GET, no DELETE)", len(reqs), len(wantMethods))
	}
	base := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	want := []map[string]string{
		with("Mcp-Method", "server/discover"),
		with("Mcp-Method", "tools/list"),
		with("Mcp-Method", "tools/call", "Mcp-Name", "test_custom_headers",
			"Mcp-Param-Region", "us-west1", "Mcp-Param-Priority", "42", "Mcp-Param-Verbose", "false",
			"Mcp-Param-Emptyval", "", "Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?=",
			"Mcp-Param-Text", "=?base64?IHBhZGRlZCA=?=", "Mcp-Param-Val", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
			"Mcp-Param-Zone", "b"),
		with("Mcp-Method", "tools/call", "Mcp-Name", "test_custom_headers", "Mcp-Param-Region", "eu", "Mcp-Param-Priority", "42"),
		with("Mcp-Method", "tools/call", "Mcp-Name", "=?base64?Y2Fmw6kgdG9vbA==?="),
		with("Mcp-Method", "resources/read", "Mcp-Name", "file:///path/to/file%20name.txt"),
		with("Mcp-Method", "resources/read", "Mcp-Name", "=?base64?ZmlsZTovLy9kb25uw6llcw==?="),
		with("Mcp-Method", "prompts/get", "Mcp-Name", "my-hyphenated-prompt"),
	}
	for i, r := range reqs {
		if r.method != http.MethodPost {
			t.Errorf("request %d is %s", i, r.method)
		}
		if m := methodOf(r.body); m != wantMethods[i] {
			t.Errorf("request %d is %s, want %s", i, m, wantMethods[i])
		}
		wantHeaders(t, wantMethods[i], r.header, want[i])
		if got := r.header.Get("Accept"); got != "application/json, text/event-stream" {
			t.Errorf("Accept = %q", got)
		}
		if got := r.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q", got)
		}
	}
}

// The empty Mcp-Param value travels as an empty header (the conformance
// suite's EmptyVal check), not as no header.
func TestStatelessEmptyParamHeaderIsSent(t *testing.T) {
	f := headerServer(t)
	cs := connectStateless(t, f.URL, nil)
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_custom_headers", Arguments: json.RawMessage(`{"empty":""}`)}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	v, ok := reqs[len(reqs)-1].header["Mcp-Param-Emptyval"]
	if !ok || len(v) != 1 || v[0] != "" {
		t.Errorf("Mcp-Param-EmptyVal = %q, %v; want one empty value", v, ok)
	}
}

// A session-era HTTP server refuses the probe in its own ways; the client
// falls back to initialize unless the body is a stateless-era error.
func TestStatelessProbeFallbackOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		ctype  string
		body   string
	}{
		{"400 with a session-era JSON-RPC error", 400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`},
		{"400 server not initialized", 400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request","data":"Server not initialized"}}`},
		{"404 empty", 404, "", ``},
		{"400 text", 400, "text/plain", `Bad Request`},
		{"405", 405, "", ``},
		{"200 method not found", 200, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeaks(t)
			f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
				switch {
				case r.Method == http.MethodGet:
					w.WriteHeader(http.StatusMethodNotAllowed)
				case r.Method == http.MethodDelete:
					w.WriteHeader(http.StatusOK)
				case methodOf(body) == "server/discover":
					if tc.ctype != "" {
						w.Header().Set("Content-Type", tc.ctype)
					}
					w.WriteHeader(tc.status)
					io.WriteString(w, tc.body)
				case methodOf(body) == "initialize":
					w.Header().Set("Mcp-Session-Id", "s1")
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"legacy","version":"1"}}}`)
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			})
			cs, err := mcp.NewClient(statelessClientInfo, nil).Connect(context.Background(), &mcphttp.ClientTransport{URL: f.URL})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if cs.Stateless() || cs.ProtocolVersion() != "2025-11-25" {
				t.Errorf("Stateless() = %v, ProtocolVersion() = %q; want a 2025-11-25 session", cs.Stateless(), cs.ProtocolVersion())
			}
			cs.Close()
			var got []string
			for _, r := range f.requests() {
				got = append(got, r.method+" "+methodOf(r.body)+" "+r.header.Get("Mcp-Session-Id"))
			}
			want := []string{"POST server/discover ", "POST initialize ", "POST notifications/initialized s1", "GET  s1", "DELETE  s1"}
			if !slices.Equal(got, want) {
				t.Errorf("requests = %q, want %q", got, want)
			}
		})
	}
}

// A 400 carrying -32022 names a stateless-era server: the client retries
// with a version both sides speak and never sends initialize.
func TestStatelessUnsupportedVersionOverHTTP(t *testing.T) {
	noLeaks(t)
	first := true
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if first {
			first = false
			writeJSON(w, 400, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`)
			return
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":`+fakeDiscover+`}`)
	})
	cs := connectStateless(t, f.URL, nil)
	cs.Close()
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want two server/discover", n)
	}
}

// A probe that gets no answer in ProbeTimeout falls back; the probe's
// POST is abandoned, not followed by notifications/cancelled.
func TestStatelessProbeTimeoutOverHTTP(t *testing.T) {
	noLeaks(t)
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch methodOf(body) {
		case "server/discover":
			<-r.Context().Done() // never answers
		case "initialize":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"legacy","version":"1"}}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	cs, err := mcp.NewClient(statelessClientInfo, &mcp.ClientOptions{ProbeTimeout: 20 * time.Millisecond}).
		Connect(context.Background(), &mcphttp.ClientTransport{URL: f.URL, NoStandaloneStream: true})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if cs.Stateless() {
		t.Error("stateless after a probe that timed out")
	}
	cs.Close()
	var got []string
	for _, r := range f.requests() {
		got = append(got, methodOf(r.body))
	}
	if !slices.Equal(got, []string{"server/discover", "initialize", "notifications/initialized"}) {
		t.Errorf("requests = %q", got)
	}
}

// mcpkitServer serves a server with the tools the end-to-end tests use
// on mcpkit's own Handler.
func mcpkitServer(t *testing.T) (*mcp.Server, *mcphttp.Handler, string) {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "mcpkit", Version: "1"}, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(_ context.Context, r *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(args)}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, r *mcp.Request, _ struct{}) (string, error) {
		if err := r.ReportProgress(ctx, 1, 2, "asking"); err != nil {
			return "", err
		}
		rs, err := r.Input(ctx, map[string]*mcp.InputRequest{
			"name": mcp.ElicitationInput(&mcp.ElicitParams{Message: "Name?", RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
			}}),
			"dirs": mcp.RootsInput(),
		})
		if err != nil {
			return "", err
		}
		name, _ := rs.Elicitation("name")
		dirs, _ := rs.Roots("dirs")
		return "Hello " + string(name.Content) + " in " + dirs.Roots[0].URI, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, r *mcp.Request, _ struct{}) (string, error) {
		if err := r.ReportProgress(ctx, 0, 1, "waiting"); err != nil {
			return "", err
		}
		<-ctx.Done()
		waitEnded <- context.Cause(ctx)
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return s, h, ts.URL
}

// waitEnded receives why the "wait" tool's context ended.
var waitEnded = make(chan error, 1)

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(watchdog):
		t.Fatalf("waiting for %s: nothing after %v", what, watchdog)
	}
	var zero T
	return zero
}

func TestStatelessAgainstMcpkitHandler(t *testing.T) {
	noLeaks(t)
	s, h, url := mcpkitServer(t)
	progress := make(chan string, 8)
	changed := make(chan string, 8)
	var mu sync.Mutex
	var posted []string
	rec := &recordingTransport{next: http.DefaultTransport, seen: func(body string) {
		mu.Lock()
		posted = append(posted, methodOf(body)+" "+idOf(body))
		mu.Unlock()
	}}
	cs, err := mcp.NewClient(statelessClientInfo, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: json.RawMessage(`{"name":"Gopher"}`)}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///src"}},
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			progress <- p.Message
		},
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- "tools" },
	}).Connect(context.Background(), &mcphttp.ClientTransport{URL: url, HTTPClient: &http.Client{Transport: rec}})
	if err != nil || !cs.Stateless() {
		t.Fatalf("Connect: %v (stateless %v)", err, cs != nil && cs.Stateless())
	}
	ctx := context.Background()
	jsonEqualHTTP(t, "ServerInfo", cs.ServerInfo(), `{"name":"mcpkit","version":"1"}`)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Fatalf("CallTool(echo) = %v, %v", res, err)
	}
	// A multi round-trip request: the handlers answer the elicitation and
	// the roots, and progress of both rounds arrives on their streams.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("p")}})
	if err != nil {
		t.Fatalf("CallTool(greet): %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `Hello {"name":"Gopher"} in file:///src` {
		t.Errorf("greet = %q", got)
	}
	if a, b := recv(t, progress, "progress"), recv(t, progress, "progress"); a != "asking" || b != "asking" {
		t.Errorf("progress = %q, %q", a, b)
	}
	// The route tool's x-mcp-header argument: called before tools/list,
	// so the server's -32020 makes the transport learn the schema and
	// retry.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "route", Arguments: json.RawMessage(`{"region":"eu-west"}`)})
	if err != nil {
		t.Fatalf("CallTool(route): %v", err)
	}
	jsonEqualHTTP(t, "route result", res.Content, `[{"type":"text","text":"{\"region\":\"eu-west\"}"}]`)

	sub, err := cs.Listen(ctx, &mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	jsonEqualHTTP(t, "Acknowledged", sub.Acknowledged(), `{"toolsListChanged":true}`)
	if err := s.AddTool(&mcp.Tool{Name: "late"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, changed, "list_changed"); got != "tools" {
		t.Errorf("handler got %q", got)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("sessions = %d, want none in the stateless era", n)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"server/discover 1", "tools/call 2", "tools/call 3", "tools/call 4",
		// -32020 for the missing Mcp-Param-Region, the tools learnt,
		// the call again with the same id.
		"tools/call 5", `tools/list "mcphttp-tools-list-1"`, "tools/call 5",
		"subscriptions/listen 6",
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(posted, want) {
		t.Errorf("posted %q\nwant %q", posted, want)
	}
}

// Cancelling a stateless-era call closes its stream, which the server
// takes as the cancellation; no notifications/cancelled is posted.
func TestStatelessCancelClosesStream(t *testing.T) {
	noLeaks(t)
	_, _, url := mcpkitServer(t)
	var mu sync.Mutex
	var posted []string
	rec := &recordingTransport{next: http.DefaultTransport, seen: func(body string) {
		mu.Lock()
		posted = append(posted, methodOf(body))
		mu.Unlock()
	}}
	progress := make(chan struct{}, 1)
	cs, err := mcp.NewClient(statelessClientInfo, &mcp.ClientOptions{
		ProgressHandler: func(context.Context, *mcp.ClientSession, *mcp.ProgressParams) { progress <- struct{}{} },
	}).Connect(context.Background(), &mcphttp.ClientTransport{URL: url, HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.Int64ID(1)}})
		done <- err
	}()
	recv(t, progress, "progress from wait")
	cancel()
	if err := recv(t, done, "the call"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool error = %v, want context.Canceled", err)
	}
	if err := recv(t, waitEnded, "the tool's end"); err == nil {
		t.Error("the tool's context ended without a cause")
	}
	cs.Close()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(posted, []string{"server/discover", "tools/call"}) {
		t.Errorf("posted %q, want no notifications/cancelled", posted)
	}
}

// A stream that ends before its response fails the call rather than leave
// it waiting: the stateless era has no resumption.
func TestStatelessLostStream(t *testing.T) {
	noLeaks(t)
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if methodOf(body) == "server/discover" {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":`+fakeDiscover+`}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
	})
	cs := connectStateless(t, f.URL, nil)
	defer cs.Close()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	want := "mcp: tools/call: mcphttp: the response stream ended before the response; the stateless era cannot resume it, and the request may be sent again"
	if !errors.Is(err, mcphttp.ErrStreamLost) || err.Error() != want {
		t.Errorf("CallTool error = %v, want %q", err, want)
	}
}

// Over the stateless era too, an event over MaxMessageBytes answering the
// call of its stream fails that call at once, and one that does not (a
// notification) is dropped while the stream goes on to the result.
func TestStatelessOversizedEvent(t *testing.T) {
	noLeaks(t)
	big := strings.Repeat("z", 2000)
	ids := make(chan string, 1)
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		id := idOf(body)
		if methodOf(body) == "server/discover" {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":`+fakeDiscover+`}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if strings.Contains(body, `"big"`) {
			ids <- id
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"result\":{\"id\":1,\"text\":\""+big+"\"},\"id\":"+id+"}\n\n")
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\""+big+"\"}}\n\n"+
			"data: {\"jsonrpc\":\"2.0\",\"id\":"+id+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n\n")
	})
	cs, err := mcp.NewClient(statelessClientInfo, nil).Connect(context.Background(), &mcphttp.ClientTransport{URL: f.URL, MaxMessageBytes: 1024})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big"})
	want := "mcp: tools/call: mcp: message exceeds the limit of 1024 bytes"
	tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err)
	if !ok || err.Error() != want {
		t.Fatalf("CallTool error = %v, want %q", err, want)
	}
	if id := recv(t, ids, "the call"); *tooLarge != (mcp.FrameTooLargeError{Limit: 1024, ID: tooLarge.ID}) || string(tooLarge.ID.AppendJSON(nil)) != id {
		t.Errorf("FrameTooLargeError = %+v, want Limit 1024, ID %s", *tooLarge, id)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "small"})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ok" {
		t.Fatalf("CallTool after the oversized response = %+v, %v; want \"ok\"", res, err)
	}
}

// noLeaks checks, after every other cleanup of the test (servers closed),
// that the test left no goroutine behind.
func noLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

type recordingTransport struct {
	next http.RoundTripper
	seen func(body string)
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		rt.seen(string(b))
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return rt.next.RoundTrip(r)
}

func jsonEqualHTTP(t *testing.T, what string, got any, want string) {
	t.Helper()
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(raw, &g)
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("%s = %s, want %s", what, raw, want)
	}
}
